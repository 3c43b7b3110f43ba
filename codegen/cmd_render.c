/* codegen/cmd_render.c - `planwrap render` (placeholder until implemented). */
#include "codegen/codegen.h"

#include <stdio.h>

int cg_cmd_render(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "planwrap: error: 'render' is not implemented yet\n");
    return 2;
}

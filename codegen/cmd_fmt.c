/* codegen/cmd_fmt.c - `planwrap fmt` (placeholder until implemented). */
#include "codegen/codegen.h"

#include <stdio.h>

int cg_cmd_fmt(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "planwrap: error: 'fmt' is not implemented yet\n");
    return 2;
}

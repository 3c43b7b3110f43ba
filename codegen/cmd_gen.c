/* codegen/cmd_gen.c - `planwrap gen` (placeholder until implemented). */
#include "codegen/codegen.h"

#include <stdio.h>

int cg_cmd_gen(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "planwrap: error: 'gen' is not implemented yet\n");
    return 2;
}

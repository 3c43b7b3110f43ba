/* codegen/cmd_check.c - `planwrap check` (placeholder until implemented). */
#include "codegen/codegen.h"

#include <stdio.h>

int cg_cmd_check(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "planwrap: error: 'check' is not implemented yet\n");
    return 2;
}

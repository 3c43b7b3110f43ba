/* codegen/cmd_plan.c - `planwrap plan` (placeholder until implemented). */
#include "codegen/codegen.h"

#include <stdio.h>

int cg_cmd_plan(int argc, char **argv) {
    (void)argc;
    (void)argv;
    fprintf(stderr, "planwrap: error: 'plan' is not implemented yet\n");
    return 2;
}

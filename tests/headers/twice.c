/*
 * tests/headers/twice.c - every public header compiles when included
 * twice (and in any order): the test is that this file builds.  Add a
 * module's public header here when the module is added.
 */
#include "base/base.h"
#include "base/hash.h"
#include "ir/ir.h"
#include "planner/planner.h"
#include "planner/compare.h"
#include "templates/mustache.h"
#include "codegen/codegen.h"
#include "cli/cli.h"
#include "planwrap_rt.h"

#include "base/base.h"
#include "base/hash.h"
#include "ir/ir.h"
#include "planner/planner.h"
#include "planner/compare.h"
#include "templates/mustache.h"
#include "codegen/codegen.h"
#include "cli/cli.h"
#include "planwrap_rt.h"

int main(void) {
    /* One name of each header, so that nothing is compiled away. */
    cg_target t = CG_TARGET_C;
    return (int)t + (int)BASE_SEV_ERROR + (sizeof(cli_opts) == 0) +
           (sizeof(ir_program) == 0) + (sizeof(plan_options) == 0) +
           (sizeof(mst_options) == 0) + (sizeof(pw_pool) == 0);
}

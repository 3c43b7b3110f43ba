/*
 * tests/headers/twice.c - every public header compiles when included
 * twice, all in one file: the test is that this file builds.  Add a
 * module's public header here when the module is added (the ctests
 * headers/MODULE/HEADER compile each one alone, from the list that
 * pw_public_headers() keeps).
 */
#include "base/base.h"
#include "base/hash.h"
#include "ir/ir.h"
#include "import/import.h"
#include "planner/planner.h"
#include "planner/compare.h"
#include "planner/schedule.h"
#include "templates/mustache.h"
#include "codegen/codegen.h"
#include "cli/cli.h"
#include "planwrap_rt.h"

#include "base/base.h"
#include "base/hash.h"
#include "ir/ir.h"
#include "import/import.h"
#include "planner/planner.h"
#include "planner/compare.h"
#include "planner/schedule.h"
#include "templates/mustache.h"
#include "codegen/codegen.h"
#include "cli/cli.h"
#include "planwrap_rt.h"

int main(void) {
    /* One name of each header, so that nothing is compiled away. */
    cg_target t = CG_TARGET_C;
    return (int)t + (int)BASE_SEV_ERROR + (sizeof(cli_opts) == 0) +
           (sizeof(ir_program) == 0) + (sizeof(plan_options) == 0) +
           (sizeof(mst_options) == 0) + (sizeof(pw_pool) == 0) +
           (sizeof(imp_options) == 0) + (sizeof(plan_sched_opts) == 0);
}

/*
 * tests/codegen/fuzz_gen.c - libFuzzer target for code generation: the
 * input is IR text; when it loads and plans, the view is built for both
 * targets and every built-in template is rendered (strict), which must
 * succeed: a checked, planned program always has a complete view.  The
 * picture (svg or html, with --compare-algos on some inputs) and the
 * comparison with other allocators must succeed too (every simulated plan
 * verifies).  One input in two is reordered first (--order,
 * planner/schedule.h), which must succeed for every checked program.
 * Large inputs are cut off to keep each run fast.
 */
#include "codegen/codegen.h"
#include "planner/compare.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_picture_compare(base_arena *a, const plan *pl, size_t size,
                                 base_diag *d) {
    if (!pl)
        return;
    char *out = NULL;
    size_t len = 0;
    const char *algos = (size & 8) ? "naive,reuse,bestfit" : NULL;
    /* with other algorithms a space capacity can be passed (an error) */
    if (!cg_picture_emit(a, pl, algos, (size & 16) != 0, d, &out, &len) &&
        !algos)
        abort();
    free(out);
    for (uint32_t i = 0; i < pl->npools; i++) {
        plan_compare c;
        char err[512];
        if (plan_compare_pool(pl, i, &c, err, sizeof err) == -2)
            abort(); /* a simulated plan does not verify */
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 4096)
        return 0;
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return 0;
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(sink, 0);
    const char *text = (const char *)data;
    base_diag_set_source(d, "fuzz.pw", text, size);
    ir_program *p = ir_parse(a, "fuzz.pw", text, size, d);
    bool ok = p && ir_check(p, d);
    if (ok && (size & 8)) {
        plan_order ord = (plan_order)(size % PLAN_ORDER_COUNT);
        plan_sched_opts so = {.budget = 20000};
        p = plan_sched_program(a, p, ord, &so, d, NULL);
        if (!p)
            abort(); /* a checked program always reorders */
    }
    if (ok) {
        plan_options o;
        plan_options_init(&o);
        o.memory_pool = (plan_memory_pool)(size % 4);
        plan *pl = plan_program(a, p, &o, d);
        fuzz_picture_compare(a, pl, size, d);
        for (int t = 0; pl && t < 2; t++) {
            cg_target target = t ? CG_TARGET_CUDA : CG_TARGET_C;
            bool graphs = t && (size & 8) && !(size & 4);
            cg_check_opts co = {.cuda_graphs = graphs};
            if (!cg_check_target(p, target, &co, d))
                continue; /* a reported error (too many streams) */
            cg_view_options vo = {.kernel_status = (size & 4) != 0,
                                  .cuda_graphs = graphs};
            cg_view *view = cg_view_new(pl, target, &vo, d);
            if (!view)
                abort(); /* a checked program has a view */
            size_t n = 0;
            cg_file *files = cg_render_target(view, target, NULL, &n, d);
            if (!files)
                abort(); /* a valid view must render */
            cg_files_free(files, n);
            cg_view_free(view);
        }
    }
    base_diag_free(d);
    base_arena_free(a);
    fclose(sink);
    return 0;
}

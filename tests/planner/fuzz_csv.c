/*
 * tests/planner/fuzz_csv.c - libFuzzer target: plan_read_csv on arbitrary
 * bytes; a problem that reads is planned with every algorithm and
 * verified (any verifier failure aborts).
 */
#include "planner/planner.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size > 1 << 16)
        return 0;
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        return 0;
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(sink, 0);
    plan_problem pb;
    if (plan_read_csv(a, "fuzz.csv", (const char *)data, size, &pb, d) &&
        pb.n <= 2000) {
        uint64_t *off = calloc((size_t)pb.n + 1, sizeof *off);
        if (off) {
            int (*const fns[])(const plan_problem *, uint64_t *, uint64_t *) = {
                plan_naive, plan_reuse, plan_tree, plan_bestfit};
            for (int k = 0; k < 4; k++) {
                uint64_t sz = 0;
                if (fns[k](&pb, off, &sz) == 0 &&
                    (!plan_verify_problem(&pb, off, sz, NULL, 0) ||
                     sz < plan_lower_bound(&pb)))
                    abort();
            }
            free(off);
        }
    }
    base_diag_free(d);
    base_arena_free(a);
    fclose(sink);
    return 0;
}

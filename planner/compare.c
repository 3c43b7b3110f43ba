/*
 * planner/compare.c - one pool's comparison with other allocators
 * (compare.h): naive, Inductor's reuse, the two greedy planners, each
 * proved by the verifier, and the caching allocator in both free orders.
 */
#include "planner/compare.h"
#include "plan_internal.h"

#include <stdio.h>
#include <stdlib.h>

typedef int (*cmp_algo_fn)(const plan_problem *pb, uint64_t *offsets,
                           uint64_t *size);

/* Runs one algorithm and proves its plan.  0, -1 (out of memory), -2
 * (does not verify). */
static int cmp_run(const plan_problem *pb, cmp_algo_fn fn, const char *name,
                   uint64_t *off, uint64_t *size, char *err, size_t errlen) {
    if (fn(pb, off, size) != 0)
        return -1;
    char why[400];
    int ok = plan_verify_problem_status(pb, off, *size, why, sizeof why);
    if (ok < 0)
        return -1;
    if (ok == 0) {
        if (err && errlen)
            snprintf(err, errlen, "the %s plan does not verify: %s", name, why);
        return -2;
    }
    return 0;
}

int plan_compare_problem(const plan_problem *pb, uint64_t own, bool caching,
                         plan_compare *out, char *err, size_t errlen) {
    static const struct {
        cmp_algo_fn fn;
        const char *name;
        size_t field;
    } algos[] = {
        {plan_naive, "naive", offsetof(plan_compare, naive)},
        {plan_reuse, "inductor_reuse", offsetof(plan_compare, inductor_reuse)},
        {plan_tflm_greedy, "tflm_greedy", offsetof(plan_compare, tflm_greedy)},
        {plan_executorch_greedy, "executorch_greedy",
         offsetof(plan_compare, executorch_greedy)},
    };
    *out = (plan_compare){0};
    out->planwrap = own;
    uint64_t *off = malloc(((size_t)pb->n + 1) * sizeof *off);
    if (!off)
        return -1;
    int rc = 0;
    for (size_t i = 0; i < sizeof algos / sizeof algos[0] && rc == 0; i++) {
        uint64_t *dst = (uint64_t *)((char *)out + algos[i].field);
        rc = cmp_run(pb, algos[i].fn, algos[i].name, off, dst, err, errlen);
    }
    free(off);
    if (rc == 0 && caching) {
        out->has_caching = true;
        if (plan_caching_allocator(pb, PLAN_CA_FREE_IN_ORDER, &out->caching) ||
            plan_caching_allocator(pb, PLAN_CA_FREE_MOST_SPACE_FIRST,
                                   &out->caching_article))
            rc = -1;
    }
    return rc;
}

int plan_compare_pool(const plan *pl, uint32_t pool, plan_compare *out,
                      char *err, size_t errlen) {
    const plan_pool *p = &pl->pools[pool];
    return plan_compare_problem(p->problem, p->size, p->comm == NULL, out, err,
                                errlen);
}

/* planner/search.c - search planner (placeholder: best-fit until written). */
#include "planner/planner.h"

#include <string.h>

int plan_search(const plan_problem *pb, const plan_search_opts *o,
                uint64_t *offsets, uint64_t *size, plan_search_stats *st) {
    (void)o;
    if (st)
        memset(st, 0, sizeof *st);
    return plan_bestfit(pb, offsets, size);
}

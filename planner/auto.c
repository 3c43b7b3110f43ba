/*
 * planner/auto.c - `auto`, the default algorithm, and the one-line
 * outcomes of `search` and `auto` for the CLI.
 *
 * `auto` runs `bestfit`; when its plan is above the lower bound (or above
 * the capacity), it improves it with `search` (planner/search.c: large-
 * neighbourhood search first, then the exact search) within
 * PLAN_AUTO_BUDGET steps, or --search-budget when given.  The result is
 * never larger than bestfit's and depends only on the input and the
 * budget.  The budget is small: on the minimalloc instances it costs about
 * as much as a few hundred bestfit passes (tens of milliseconds).
 */
#include "plan_internal.h"

#include <stdio.h>
#include <string.h>

/* The search from the best-fit plan, with the time the best-fit pass took
 * taken off the time limit: the limit covers the whole run.  lb: the
 * lower bound the best-fit pass computed (0 = none). */
static int auto_search(const plan_problem *pb, const plan_search_opts *o,
                       double t0, uint64_t lb, uint64_t *offsets,
                       uint64_t *size, plan_search_stats *st) {
    plan_search_opts so;
    memset(&so, 0, sizeof so);
    if (o)
        so = *o;
    if (!so.lower_bound)
        so.lower_bound = lb;
    if (so.time_limit > 0) {
        double left = so.time_limit - (base_now() - t0);
        so.time_limit = left > 1e-9 ? left : 1e-9;
    }
    return plan_search_from(pb, &so, offsets, size, st);
}

int plan_search(const plan_problem *pb, const plan_search_opts *o,
                uint64_t *offsets, uint64_t *size, plan_search_stats *st) {
    plan_search_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    /* Too large for 64-bit arithmetic, or malformed: refuse (plan_bestfit
     * would too).  From here on every size sum, offset and pool is within
     * PLAN_MAX_POOL_SIZE. */
    if (!plan_problem_ok(pb))
        return -1;
    double t0 = base_now();
    /* the bound, unless the caller has it: bestfit's passes compute it
     * on the way (plan_bestfit_lb), the search needs it */
    uint64_t lb = 0;
    int rc = o && o->lower_bound ? plan_bestfit(pb, offsets, size)
                                 : plan_bestfit_lb(pb, offsets, size, &lb);
    if (rc != 0)
        return rc;
    return auto_search(pb, o, t0, lb, offsets, size, st);
}

int plan_auto(const plan_problem *pb, const plan_search_opts *o,
              uint64_t *offsets, uint64_t *size, plan_search_stats *st) {
    plan_search_opts so;
    memset(&so, 0, sizeof so);
    if (o)
        so = *o;
    if (so.budget == 0)
        so.budget = PLAN_AUTO_BUDGET;
    so.schedule = PLAN_AUTO_SCHEDULE;
    return plan_search(pb, &so, offsets, size, st);
}

/* Why the search stopped short of the lower bound: its budget used up,
 * or (steps left) the large-neighbourhood search's share after the exact
 * search used up (planner/search.c, run_class). */
static const char *auto_why(const plan_search_opts *o,
                            const plan_search_stats *st) {
    uint64_t budget = o && o->budget ? o->budget : PLAN_AUTO_BUDGET;
    return st->optimal           ? "optimal"
           : st->time_limit_hit  ? "time limit hit"
           : st->steps >= budget ? "budget exhausted"
                                 : "large-neighbourhood share used up";
}

size_t plan_auto_describe(char *buf, size_t len, uint64_t size,
                          const plan_search_opts *o,
                          const plan_search_stats *st) {
    unsigned long long sz = size, lb = st->lower_bound, bf = st->start_size,
                       steps = st->steps,
                       budget = o && o->budget ? o->budget : PLAN_AUTO_BUDGET;
    const char *why = auto_why(o, st);
    int n;
    if (o && o->capacity && st->start_size <= o->capacity)
        n = snprintf(buf, len,
                     "bestfit won: %llu bytes (lower bound %llu, "
                     "fits in %llu)",
                     sz, lb, (unsigned long long)o->capacity);
    else if (size < st->start_size)
        n = snprintf(buf, len,
                     "search won: %llu bytes (bestfit %llu, lower "
                     "bound %llu, %s, %llu of %llu steps)",
                     sz, bf, lb, why, steps, budget);
    else if (st->steps == 0)
        n = snprintf(buf, len,
                     "bestfit won: %llu bytes (lower bound %llu, "
                     "optimal)",
                     sz, lb);
    else
        n = snprintf(buf, len,
                     "bestfit won: %llu bytes (lower bound %llu; "
                     "search found nothing smaller: %s, %llu of %llu "
                     "steps)",
                     sz, lb, why, steps, budget);
    return n < 0 ? 0 : (size_t)n;
}

size_t plan_search_describe(char *buf, size_t len, uint64_t size,
                            const plan_search_opts *o,
                            const plan_search_stats *st) {
    const char *why = st->time_limit_hit ? "time limit hit"
                      : st->budget_hit   ? "budget exhausted"
                                         : "search complete";
    unsigned long long sz = size, lb = st->lower_bound, steps = st->steps;
    int n;
    if (o && o->capacity && st->fits)
        n = snprintf(buf, len,
                     "fits in %llu bytes: %llu bytes (lower bound %llu%s, "
                     "%llu steps)",
                     (unsigned long long)o->capacity, sz, lb,
                     st->optimal ? ", optimal" : "", steps);
    else if (o && o->capacity)
        n = snprintf(buf, len,
                     "does not fit: smallest found %llu bytes, lower bound "
                     "%llu, capacity %llu, searched %llu steps (%s)",
                     sz, lb, (unsigned long long)o->capacity, steps,
                     !st->infeasible ? why
                     : o->capacity < st->lower_bound
                         ? "proved infeasible: the lower bound exceeds "
                           "the capacity"
                         : "proved infeasible");
    else
        n = snprintf(buf, len,
                     "%llu bytes (best-fit %llu, lower bound %llu, %s, "
                     "%llu steps)",
                     sz, (unsigned long long)st->start_size, lb,
                     st->optimal ? "optimal" : why, steps);
    return n < 0 ? 0 : (size_t)n;
}

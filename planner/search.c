/*
 * planner/search.c - the search planner (the driver; the exact search is
 * planner/search_core.c and search_setup.c): exact depth-first search over
 * canonical solutions, then large-neighbourhood search (planner/lns.c,
 * planner/window.c); anytime, monotone and deterministic.  The full
 * description is docs/search.md; in short (after the MiniMalloc solver,
 * Moffitt, ASPLOS 2023; the code is ours):
 *
 *  - Colour classes are searched separately and stacked.  The time axis
 *    of a class is cut into sections; where no buffer crosses a section
 *    boundary the class splits into independent partitions.
 *  - Canonical solutions: buffers placed bottom-up in non-decreasing
 *    offset order, each at its minimum offset (the aligned top of the
 *    placed buffers it overlaps), ties broken by a preorder rank.
 *  - Inference: per section a floor and the total of its unplaced
 *    buffers; max(floor, last offset) + total > capacity prunes (tested
 *    before a candidate is placed, on block maxima of the totals).
 *    Dominance: never place a buffer at or above the top another
 *    unplaced buffer would reach at its minimum offset.
 *  - Decomposition: a boundary no unplaced buffer crosses splits the rest
 *    into sub-problems solved one after the other, each re-ranked.
 *  - Restarts with doubling node limits over three preorders; a search
 *    that ends within its limit proves infeasibility.
 *  - Minimisation tries the lower bound (1/8 of the default budget), then
 *    bisects between the proven bound and the best size, per-attempt
 *    shares doubling when the unproven range is used up.  `auto` (a
 *    schedule) descends from the best size instead, and probes the lower
 *    bound with two unperturbed runs after its first attempt.  The schedule
 *    comes from the default budget only, so a larger budget runs a longer
 *    prefix of the same work and never gives a larger pool.
 *  - Per class: the exact search, then large-neighbourhood search with
 *    what is left.  The exact search only takes partitions of up to
 *    SEARCH_MAX_PART buffers; the large-neighbourhood search any size.
 *
 * All state changes go through an undo trail.  One step is one search
 * node (or one buffer put back by the large-neighbourhood search); the
 * result depends only on the input and the budget (the time limit is a
 * safety stop reported in the stats).  Cost per node: O(partition size +
 * sections spanned); memory O(n + overlaps) per searchable partition.
 */
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

#define SEARCH_DEFAULT_BUDGET 16000000u
#define SEARCH_MIN_BUDGET 160000u

/* The caller's progress display (plan_search_opts.progress): after one
 * second, then at most every quarter of a second. */
static void progress_call(ctl *c, bool done) {
    double e = base_now() - c->t0;
    if (!done && (e < 1.0 || (c->last_call > 0 && e - c->last_call < 0.25)))
        return;
    if (done && c->last_call == 0)
        return;
    c->last_call = e;
    plan_search_progress p = {c->show_best, c->show_lb, c->steps, e, done};
    c->progress(c->progress_ctx, &p);
}

bool plan_sr_tick(ctl *c) {
    if (c->time_limit > 0 && base_now() - c->t0 > c->time_limit) {
        c->timed_out = true;
        return false;
    }
    if (c->progress)
        progress_call(c, false);
    return true;
}

/* Driving the search for one class. */

typedef struct cls_out {
    uint64_t lo;     /* proven: no layout of the class below it */
    uint64_t height; /* of the best layout found */
    bool budget_hit;
} cls_out;

static uint64_t class_lb(const sr *s) {
    uint64_t lo = 0;
    for (uint32_t p = 0; p < s->npart; p++)
        if (s->parts[p].lb > lo)
            lo = s->parts[p].lb;
    return lo;
}

static uint64_t default_budget(const sr *s);

/* The state of a minimisation: the best height, the proven lower bound,
 * the unproven floor (no attempt below it for now), the height of the
 * partitions the exact search does not take, the granularity, the end of
 * the class's budget. */
typedef struct mn {
    uint64_t hi, lo, soft, fixed, g, end;
} mn;

/* One attempt at height x within `share` steps: lowers m->hi when it
 * finds a layout, raises m->lo (and the floor) when it proves there is
 * none.  Returns the attempt's outcome (R_FOUND, R_NONE, R_ABORT) or
 * R_OOM. */
static int mn_try(sr *s, ctl *c, mn *m, uint64_t x, uint64_t share) {
    c->budget_end = m->end - c->steps > share ? c->steps + share : m->end;
    c->show_best = m->hi;
    c->show_lb = m->lo;
    int r = plan_sr_attempt(s, c, x);
    m->hi = plan_sr_height(s);
    if (r == R_NONE) {
        m->lo = x + m->g;
        if (m->soft < m->lo)
            m->soft = m->lo;
    }
    return r;
}

/* `search`: bisection between the unproven floor and the best height; an
 * attempt out of its share raises the floor; when the range is used up,
 * the floor goes back to the proven bound and the share doubles. */
static int mn_bisect(sr *s, ctl *c, mn *m, uint64_t per) {
    while (m->lo < m->hi && c->steps < m->end && !c->timed_out) {
        if (m->soft >= m->hi) {
            if (m->fixed >= m->hi)
                break;
            m->soft = m->lo > m->fixed ? m->lo : m->fixed;
            if (per < UINT64_MAX / 4)
                per *= 2;
        }
        uint64_t k = (m->hi - m->soft) / m->g;
        uint64_t x = m->soft + ((k - 1) / 2) * m->g;
        int r = mn_try(s, c, m, x, per);
        if (r == R_OOM)
            return -1;
        if (r == R_ABORT)
            m->soft = x + m->g;
    }
    return 0;
}

/* `auto`'s probe of the lower bound (when no partition the exact search
 * leaves out is above it): plan_sr_attempt at m->lo with one run per
 * preorder of search_core.c's probe order, each within `probe` steps,
 * instead of restarts.  At the bound pruning is strongest: on the
 * minimalloc instances one of two unperturbed runs reaches it in 590 to
 * 30,000 steps on 7 of the 9 that pack perfectly (restarts, which cut
 * runs short, took 5,000 to 1,400,000), while at looser capacities
 * single runs rarely succeed.  Out of steps, the unproven floor rises
 * above the bound: the descent never tries it again. */
static int mn_probe(sr *s, ctl *c, mn *m, uint64_t probe) {
    c->probe = probe;
    int r = mn_try(s, c, m, m->lo, UINT64_MAX);
    c->probe = 0;
    if (r == R_ABORT && m->soft < m->lo + m->g)
        m->soft = m->lo + m->g;
    return r;
}

/* `auto`: descending from the best height by a step d, first half the
 * unproven range: a found layout keeps d (successes at loose sizes are
 * cheap and chain), an attempt out of its share halves d, a proof resets
 * it; when d is below the granularity it starts again from half the
 * range with twice the share.  After the first attempt, the lower bound
 * is probed (mn_probe); from then on d is at most half the unproven
 * range (no attempt just above the bound the probe left). */
static int mn_descend(sr *s, ctl *c, mn *m, uint64_t per, uint64_t probe) {
    uint64_t d = (m->hi - m->soft) / 2;
    bool first = true;
    while (m->lo < m->hi && c->steps < m->end && !c->timed_out) {
        if (m->soft >= m->hi || m->fixed >= m->hi)
            break;
        if (!first && probe) {
            if (m->fixed <= m->lo && mn_probe(s, c, m, probe) == R_OOM)
                return -1;
            probe = 0;
            continue;
        }
        if (!first && d > (m->hi - m->soft) / 2)
            d = (m->hi - m->soft) / 2;
        if (d < m->g) {
            d = (m->hi - m->soft) / 2;
            if (per < UINT64_MAX / 4)
                per *= 2;
        }
        uint64_t x = m->hi - (d < m->hi - m->soft ? d : m->hi - m->soft);
        x -= x % m->g;
        x = x < m->soft ? m->soft : x;
        if (x >= m->hi)
            break; /* cannot happen: d >= g and soft < hi */
        int r = mn_try(s, c, m, x, per);
        first = false;
        if (r == R_OOM)
            return -1;
        if (r == R_NONE)
            d = (m->hi - m->soft) / 2;
        else if (r == R_ABORT)
            d /= 2;
    }
    return 0;
}

/* Minimises the class height within `budget` steps.  The schedule (the
 * share of each attempt) comes from plan_search_opts.schedule or the
 * default budget, never from `budget`, so a larger budget runs a longer
 * prefix of the same attempts: the result can only get better.
 * `search` (no schedule) tries the lower bound first with 1/8 of its
 * default budget (a tight capacity prunes hardest, and real instances
 * often pack perfectly), then bisects with 1/32 per attempt; `auto`
 * descends (mn_descend) with 1/4 of its schedule per attempt. */
static int class_minimise(sr *s, ctl *c, uint64_t budget, cls_out *out) {
    mn m = {plan_sr_height(s), class_lb(s), 0, 0, s->gran, c->steps + budget};
    if (m.end < c->steps)
        m.end = UINT64_MAX;
    for (uint32_t p = 0; p < s->npart; p++)
        if (!s->parts[p].searchable) {
            uint64_t h = plan_sr_part_height(s, &s->parts[p]);
            if (h > m.fixed)
                m.fixed = h;
        }
    m.soft = m.lo > m.fixed ? m.lo : m.fixed;
    uint64_t base = c->schedule ? c->schedule : default_budget(s);
    uint64_t per = c->schedule ? base / 4 : base / 32;
    per = per > 1000 ? per : 1000;
    if (!c->schedule && m.lo < m.hi && m.fixed <= m.lo &&
        mn_try(s, c, &m, m.lo, base / 8 > 1000 ? base / 8 : 1000) == R_OOM)
        return -1;
    uint64_t probe = c->schedule / 10 * 3;
    if ((c->schedule ? mn_descend(s, c, &m, per, probe)
                     : mn_bisect(s, c, &m, per)))
        return -1;
    out->lo = m.lo < m.hi ? m.lo : m.hi;
    out->height = m.hi;
    out->budget_hit = m.lo < m.hi && !c->timed_out;
    return 0;
}

/* Capacity mode: height <= cap, or a proof that none exists. */
static int class_fit(sr *s, ctl *c, uint64_t cap, uint64_t budget,
                     cls_out *out) {
    uint64_t g = s->gran, x = cap - cap % g, lo = class_lb(s);
    c->budget_end = c->steps + budget;
    if (c->budget_end < c->steps)
        c->budget_end = UINT64_MAX;
    c->show_best = plan_sr_height(s);
    c->show_lb = lo;
    int r = R_FOUND;
    if (lo > x)
        r = R_NONE;
    else if (plan_sr_height(s) > x)
        r = plan_sr_attempt(s, c, x);
    if (r == R_OOM)
        return -1;
    out->height = plan_sr_height(s);
    out->lo = r == R_NONE ? x + g : lo;
    if (out->height <= x && out->lo > out->height)
        out->lo = out->height;
    out->budget_hit = r == R_ABORT && !c->timed_out;
    return 0;
}

/* ---------------------------------------------------------------- */
/* plan_search */

typedef struct ckey {
    int64_t key; /* colour, or 2^40 + index for colour -2 */
    uint32_t id;
} ckey;

static int ckey_cmp(const void *a, const void *b) {
    const ckey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The default budget: SEARCH_DEFAULT_BUDGET, scaled down by (300 / size)^2
 * for partitions of size > 300 buffers (a step on a dense partition costs
 * about size x overlap), at least SEARCH_MIN_BUDGET. */
static uint64_t default_budget(const sr *s) {
    uint64_t big = 1;
    for (uint32_t p = 0; p < s->npart; p++)
        if (s->parts[p].searchable && s->parts[p].cnt > big)
            big = s->parts[p].cnt;
    uint64_t b = SEARCH_DEFAULT_BUDGET;
    if (big > 300)
        b = b / big * 300 / big * 300;
    return b < SEARCH_MIN_BUDGET ? SEARCH_MIN_BUDGET : b;
}

/* plan_lns_class for the search: the time left, the steps counted. */
static int class_lns(const plan_problem *pb, const uint32_t *ids, uint32_t m,
                     uint64_t *start, uint64_t target, uint64_t budget,
                     ctl *c) {
    double left = 0;
    if (c->time_limit > 0) {
        left = c->time_limit - (base_now() - c->t0);
        c->timed_out = c->timed_out || left <= 0;
    }
    if (budget == 0 || c->timed_out)
        return 0;
    plan_lns_opts o = {budget, target, left};
    plan_lns_out lo;
    int rc = plan_lns_class(pb, ids, m, start, &o, &lo);
    c->steps += lo.steps;
    c->timed_out = c->timed_out || lo.time_limit_hit;
    return rc;
}

/* `auto` (a schedule given): the large-neighbourhood search's share of
 * the schedule, after the exact search.  1/12 when the class's height is
 * that of a partition small enough for the exact search: its steps cost
 * more (about 1 us at 10^4 dense buffers, against 0.15-0.4 us for the
 * exact search's).  When it is that of a partition too large for the
 * exact search, all of it up to LNS_FULL buffers, falling as
 * (LNS_FULL / m)^2 above (a move improves one stretch of time, and at
 * 10^5..10^6 buffers the plan of bestfit is already within 1% of the
 * lower bound), never below 1/12 (from about 57,000 buffers on). */
#define LNS_FULL 16384u
static uint64_t auto_lns_share(const sr *s, uint64_t schedule) {
    uint64_t fixed = 0;
    for (uint32_t p = 0; p < s->npart; p++)
        if (!s->parts[p].searchable) {
            uint64_t h = plan_sr_part_height(s, &s->parts[p]);
            fixed = h > fixed ? h : fixed;
        }
    if (fixed < plan_sr_height(s))
        return schedule / 12;
    uint64_t share = schedule;
    if (s->m > LNS_FULL && share <= UINT64_MAX / LNS_FULL) {
        share = share * LNS_FULL / s->m; /* now below schedule */
        share = share * LNS_FULL / s->m;
    } else if (s->m > LNS_FULL) {
        share = share / s->m * LNS_FULL / s->m * LNS_FULL;
    }
    return share > schedule / 12 ? share : schedule / 12;
}

/* Searches one class (ids[0..m)) from start layout `start`, writing the
 * class-local offsets back into start[] and the outcome into out.
 * budget 0 = the default divided by `share`.  Two phases: the exact
 * search (on the partitions it takes, until it proves its result or runs
 * out), then large-neighbourhood search from its best layout with what
 * is left (all of it when no partition is small enough for the exact
 * search).  A larger budget runs a longer prefix of the same sequence. */
static int run_class(const plan_problem *pb, const uint32_t *ids, uint32_t m,
                     uint64_t *start, uint64_t cap, uint64_t budget,
                     uint32_t share, ctl *c, cls_out *out) {
    sr s;
    int rc = -1;
    if (plan_sr_init(&s, pb, ids, m, start) != 0)
        goto done;
    if (budget == 0)
        budget = default_budget(&s) / (share ? share : 1);
    uint64_t end =
        c->steps + budget < c->steps ? UINT64_MAX : c->steps + budget;
    uint64_t target = class_lb(&s) > cap ? class_lb(&s) : cap;
    rc = cap ? class_fit(&s, c, cap, budget, out)
             : class_minimise(&s, c, budget, out);
    if (rc != 0)
        goto done;
    memcpy(start, s.best, (size_t)m * sizeof *start);
    /* what is left: minimising and not proved optimal, or above the
     * capacity and not proved infeasible */
    bool more =
        cap ? out->height > cap && out->lo <= cap : out->lo < out->height;
    uint64_t lns = end - c->steps;
    uint64_t most = c->schedule ? auto_lns_share(&s, c->schedule) : lns;
    lns = lns < most ? lns : most;
    if (more && c->steps < end)
        rc = class_lns(pb, ids, m, start, target, lns, c);
    out->height = plan_sr_height_of(&s, start);
    if (out->lo > out->height)
        out->lo = out->height;
    out->budget_hit =
        !c->timed_out &&
        (cap ? out->height > cap && out->lo <= cap : out->lo < out->height);
done:
    plan_sr_free(&s);
    return rc;
}

static void finish_stats(const plan_problem *pb, const plan_search_opts *o,
                         uint64_t size, plan_search_stats *st) {
    uint64_t A = pb->align ? pb->align : 1;
    if (st->lower_bound > size)
        st->lower_bound = size; /* cannot happen; keep stats coherent */
    st->optimal = size <= st->lower_bound;
    if (o && o->capacity) {
        uint64_t capa = o->capacity - o->capacity % A;
        st->fits = size <= capa;
        st->infeasible = !st->fits && st->lower_bound > capa;
    }
    if (st->optimal || st->fits || st->infeasible)
        st->budget_hit = false;
}

/* Searches a problem with several colour classes: each class minimised
 * on its own (its budget share), the classes stacked. */
static int search_classes(const plan_problem *pb, const ckey *keys, uint32_t nk,
                          uint64_t budget, ctl *c, uint64_t *offsets,
                          uint64_t *size, bool *hit) {
    uint64_t A = pb->align ? pb->align : 1;
    uint32_t nsearch = 0; /* classes of more than one buffer */
    for (uint32_t i = 1; i < nk; i++)
        if (keys[i].key == keys[i - 1].key &&
            (i == 1 || keys[i - 1].key != keys[i - 2].key))
            nsearch++;
    uint64_t *out = calloc((size_t)pb->n + 1, sizeof *out);
    uint32_t *ids = calloc((size_t)nk + 1, sizeof *ids);
    plan_buf *bufs = calloc((size_t)nk + 1, sizeof *bufs);
    uint64_t *loc = calloc((size_t)nk + 1, sizeof *loc);
    uint32_t *sub_ids = calloc((size_t)nk + 1, sizeof *sub_ids);
    int rc = -1;
    if (!out || !ids || !bufs || !loc || !sub_ids)
        goto done;
    uint64_t base = 0;
    for (uint32_t i = 0; i < nk;) {
        uint32_t j = i;
        while (j < nk && keys[j].key == keys[i].key)
            j++;
        uint32_t m = j - i;
        uint64_t amax = A, h = 0;
        plan_problem sub = {m, bufs, A, NULL};
        for (uint32_t q = 0; q < m; q++) {
            ids[q] = keys[i + q].id;
            bufs[q] = pb->bufs[ids[q]];
            bufs[q].color = -1;
            sub_ids[q] = q;
            if (bufs[q].align > amax)
                amax = bufs[q].align;
        }
        uint64_t sz;
        if (plan_bestfit(&sub, loc, &sz) != 0)
            goto done;
        if (m > 1) {
            cls_out co = {0, 0, false};
            uint64_t b = budget / nsearch;
            if (budget && b == 0)
                b = 1; /* 0 would mean the default */
            if (run_class(&sub, sub_ids, m, loc, 0, b, nsearch, c, &co))
                goto done;
            *hit = *hit || co.budget_hit;
        }
        /* every class layout is within its best-fit size, so h <=
         * PLAN_MAX_POOL_SIZE; base <= PLAN_MAX_POOL_SIZE and amax <= 2^63
         * keep the sums below 2^64.  Stacked classes that pass the limit
         * lose to the best-fit plan (which is within it). */
        for (uint32_t q = 0; q < m; q++) {
            uint64_t t = loc[q] + plan_align_up(bufs[q].size, A);
            if (t > h)
                h = t;
        }
        base = plan_align_up(base, amax);
        if (base > PLAN_MAX_POOL_SIZE || h > PLAN_MAX_POOL_SIZE - base) {
            base = UINT64_MAX;
            break;
        }
        for (uint32_t q = 0; q < m; q++)
            out[ids[q]] = base + loc[q];
        base += h;
        i = j;
    }
    base = plan_align_up(base, A); /* UINT64_MAX stays above *size */
    if (base < *size) {
        for (uint32_t i = 0; i < pb->n; i++)
            offsets[i] = pb->bufs[i].size ? out[i] : 0;
        *size = base;
    }
    rc = 0;
done:
    free(out);
    free(ids);
    free(bufs);
    free(loc);
    free(sub_ids);
    return rc;
}

/* The buffers that take space, sorted by colour class into keys[];
 * *overflow when sizes pass 2^62 (the search's own headroom below
 * PLAN_MAX_POOL_SIZE: keep best-fit) or an alignment is no power of 2. */
static uint32_t colour_keys(const plan_problem *pb, ckey *keys,
                            bool *overflow) {
    uint64_t A = pb->align ? pb->align : 1, sum = 0;
    uint32_t nk = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        if (!b->size)
            continue;
        uint64_t es = plan_align_up(b->size, A);
        if (es > (UINT64_MAX >> 2) - sum || (b->align & (b->align - 1)) ||
            (A & (A - 1)))
            *overflow = true;
        else
            sum += es;
        keys[nk].key = b->color == -2 ? ((int64_t)1 << 40) + i : b->color;
        keys[nk].id = i;
        nk++;
    }
    /* built in id order: already sorted when the colours do not fall
     * (one class, the common case: no O(n log n) sort at 10^6 buffers) */
    uint32_t i = 1;
    while (i < nk && keys[i - 1].key <= keys[i].key)
        i++;
    if (i < nk)
        qsort(keys, nk, sizeof *keys, ckey_cmp);
    return nk;
}

int plan_search_from(const plan_problem *pb, const plan_search_opts *o,
                     uint64_t *offsets, uint64_t *size, plan_search_stats *st) {
    memset(st, 0, sizeof *st);
    int rc;
    st->start_size = *size;
    /* 0 = unknown (plan_search_opts): plan_search passes bestfit's bound
     * (plan_bestfit_lb, which fails on out-of-memory), so this computes it
     * again only when that bound is 0, where plan_lower_bound's 0 on
     * out-of-memory is the same answer. */
    st->lower_bound =
        o && o->lower_bound ? o->lower_bound : plan_lower_bound(pb);
    st->problem_bound = st->lower_bound;
    uint64_t A = pb->align ? pb->align : 1;
    /* Any capacity up to UINT64_MAX: one at or above the best-fit size
     * (<= PLAN_MAX_POOL_SIZE) is met at once (finish_stats: fits), so the
     * search below only runs with capa < *size <= PLAN_MAX_POOL_SIZE and
     * its cap + granularity sums cannot wrap. */
    uint64_t cap = o ? o->capacity : 0;
    uint64_t capa = cap - cap % A;
    uint64_t budget = o ? o->budget : 0; /* 0 = default, per class */
    finish_stats(pb, o, *size, st);
    if (st->optimal || st->fits || st->infeasible || pb->n == 0)
        return 0;
    if (cap && capa == 0) {
        st->infeasible = true;
        return 0;
    }

    /* colour classes of the buffers that take space */
    ckey *keys = calloc((size_t)pb->n + 1, sizeof *keys);
    if (!keys)
        return -1;
    bool overflow = false;
    uint32_t nk = colour_keys(pb, keys, &overflow);
    bool single = nk > 0 && keys[0].key == keys[nk - 1].key;

    ctl c;
    memset(&c, 0, sizeof c);
    c.time_limit = o ? o->time_limit : 0;
    c.schedule = o ? o->schedule : 0;
    c.progress = o ? o->progress : NULL;
    c.progress_ctx = o ? o->progress_ctx : NULL;
    c.t0 = base_now();
    c.show_best = *size;
    c.show_lb = st->lower_bound;

    bool hit = false;
    if (overflow) {
        rc = 0;
        hit = true;
    } else if (single) {
        uint32_t *ids = calloc((size_t)nk + 1, sizeof *ids);
        uint64_t *loc = calloc((size_t)nk + 1, sizeof *loc);
        rc = -1;
        if (ids && loc) {
            for (uint32_t i = 0; i < nk; i++) {
                ids[i] = keys[i].id;
                loc[i] = offsets[ids[i]];
            }
            cls_out co = {0, 0, false};
            rc = run_class(pb, ids, nk, loc, capa, budget, 1, &c, &co);
            if (rc == 0) {
                uint64_t sz = plan_align_up(co.height, A);
                if (sz < *size) {
                    for (uint32_t i = 0; i < nk; i++)
                        offsets[ids[i]] = loc[i];
                    *size = sz;
                }
                if (co.lo > st->lower_bound)
                    st->lower_bound = co.lo;
                hit = co.budget_hit;
            }
        }
        free(ids);
        free(loc);
    } else {
        rc = search_classes(pb, keys, nk, budget, &c, offsets, size, &hit);
    }
    free(keys);
    if (c.progress)
        progress_call(&c, true);
    if (rc != 0)
        return rc;
    st->steps = c.steps;
    st->time_limit_hit = c.timed_out;
    st->budget_hit = hit;
    finish_stats(pb, o, *size, st);
#ifdef PW_DEBUG_VERIFY
    {
        char err[256];
        PW_ASSERT(plan_verify_problem(pb, offsets, *size, err, sizeof err));
    }
#endif
    return 0;
}

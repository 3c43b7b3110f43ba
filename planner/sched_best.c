/*
 * planner/sched_best.c - `best`, and the entry point of every order.
 *
 * `best` (docs/schedule.md):
 *  1. runs the given order and the four baselines and keeps the lowest
 *     peak as the floor (first of keep, lpmf, bfs, dfs, list on ties);
 *  2. splits the graph at its cut points, the nodes comparable to every
 *     other node (each is at the same position in every topological
 *     order, so the sets before and after it, and the memory live there,
 *     are the same for all orders): the segments between cut points are
 *     independent;
 *  3. searches each segment over ready sets (sched_beam.c): exactly when
 *     the budget allows it, else a beam as wide as the budget allows;
 *     a segment keeps the floor's order unless the search found a
 *     strictly lower peak for it;
 *  4. improves the whole order with a local search: nodes that allocate
 *     before the peak step move after it and nodes that free after it
 *     move before it, within their dependency window, a move kept when it
 *     lowers (peak, steps at the peak, memory summed over steps);
 *  5. returns the floor's order if the result were worse (it never is).
 * The budget counts beam expansions and, for the local search, n steps
 * per evaluated order; the default is 4,000,000 + 2,000 per node.
 */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>

static const char *const plan_order_names[] = {
    "keep", "lpmf", "bfs", "dfs", "list", "best", "partitions"};
_Static_assert(sizeof plan_order_names / sizeof plan_order_names[0] ==
                   PLAN_ORDER_COUNT,
               "a name per plan_order");

const char *plan_order_name(plan_order o) {
    return (unsigned)o < PLAN_ORDER_COUNT ? plan_order_names[o] : "?";
}

bool plan_order_parse(const char *s, plan_order *out) {
    for (unsigned i = 0; i < PLAN_ORDER_COUNT; i++)
        if (strcmp(s, plan_order_names[i]) == 0) {
            *out = (plan_order)i;
            return true;
        }
    return false;
}

static int sched_run_one(const plan_sched_graph *g, plan_order alg,
                         uint32_t *order) {
    switch (alg) {
    case PLAN_ORDER_LPMF:
        return plan_sched_lpmf(g, order);
    case PLAN_ORDER_BFS:
        return plan_sched_bfs(g, order);
    case PLAN_ORDER_DFS:
        return plan_sched_dfs(g, order);
    case PLAN_ORDER_LIST:
        return plan_sched_list(g, order);
    case PLAN_ORDER_PARTITIONS:
        return plan_sched_partitions(g, order);
    default:
        for (uint32_t v = 0; v < g->n; v++)
            order[v] = v;
        return 0;
    }
}

/* Marks cut[v] for the nodes comparable to all others: |ancestors| is
 * the node's position in the topological order `ord` and |descendants|
 * the rest.  Bit sets of n bits per node; skipped (no cuts) above 20,000
 * nodes.  Returns 0 or -1. */
static int sched_cuts(const plan_sched_graph *g, const uint32_t *ord,
                      uint8_t *cut) {
    uint32_t n = g->n, words = (n + 63) / 64;
    memset(cut, 0, n);
    if (n > 20000)
        return 0;
    uint64_t *set = calloc((size_t)n * words + 1, sizeof *set);
    uint32_t *cnt = calloc((size_t)n + 1, sizeof *cnt);
    if (!set || !cnt) {
        free(set);
        free(cnt);
        return -1;
    }
    for (int dir = 0; dir < 2; dir++) {
        memset(set, 0, (size_t)n * words * sizeof *set);
        for (uint32_t t = 0; t < n; t++) {
            uint32_t v = dir ? ord[n - 1 - t] : ord[t];
            uint64_t *sv = set + (size_t)v * words;
            const uint32_t *adj = dir ? g->succ : g->pred;
            const uint32_t *off = dir ? g->succ_off : g->pred_off;
            for (uint32_t k = off[v]; k < off[v + 1]; k++) {
                const uint64_t *su = set + (size_t)adj[k] * words;
                for (uint32_t w = 0; w < words; w++)
                    sv[w] |= su[w];
                sv[adj[k] >> 6] |= UINT64_C(1) << (adj[k] & 63);
            }
            uint32_t c = 0;
            for (uint32_t w = 0; w < words; w++)
                c += (uint32_t)__builtin_popcountll(sv[w]);
            cnt[v] += c;
        }
    }
    for (uint32_t v = 0; v < n; v++)
        cut[v] = cnt[v] == n - 1;
    free(set);
    free(cnt);
    return 0;
}

typedef struct sched_best {
    const plan_sched_graph *g;
    uint64_t budget, steps;
    uint32_t *cur; /* the order being built */
    uint64_t *prof, *after;
    uint8_t *done;
    uint32_t segments, exact;
} sched_best;

/* Memory during (prof) and after (after) each step of `ord`. */
static void sched_after(const plan_sched_graph *g, const uint32_t *ord,
                        uint64_t *prof, uint64_t *after, uint32_t *left) {
    for (uint32_t s = 0; s < g->nstor; s++)
        left[s] = g->user_off[s + 1] - g->user_off[s];
    uint64_t cur = g->base;
    for (uint32_t t = 0; t < g->n; t++) {
        uint32_t v = ord[t];
        cur += g->alloc[v];
        prof[t] = cur;
        SCHED_USES(g, v, k) {
            uint32_t s = g->use[k];
            if (--left[s] == 0 && !g->keep[s] && g->def[s] >= 0)
                cur -= g->size[s];
        }
        after[t] = cur;
    }
}

/* Average number of ready nodes along `ord` (at least 1). */
static double sched_avg_ready(const plan_sched_graph *g, const uint32_t *ord,
                              uint32_t *indeg) {
    uint64_t ready = 0, sum = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        indeg[v] = g->pred_off[v + 1] - g->pred_off[v];
        ready += indeg[v] == 0;
    }
    for (uint32_t t = 0; t < g->n; t++) {
        sum += ready--;
        uint32_t v = ord[t];
        for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
            ready += --indeg[g->succ[k]] == 0;
    }
    return g->n ? (double)sum / g->n + 1.0 : 1.0;
}

/* Searches the segment floor[a..b) (b - a >= 2) and writes the better of
 * its order and the floor's into B->cur[a..b). */
static int sched_segment(sched_best *B, const uint32_t *floor, uint32_t a,
                         uint32_t b, double ready) {
    uint32_t m = b - a;
    uint64_t share = B->budget / 2 * m / (B->g->n ? B->g->n : 1);
    double w = (double)share / ((double)m * ready);
    /* at most 4,096 sets a level, and 2^24 in the history (m levels) */
    double cap = (double)(UINT32_C(1) << 24) / m;
    cap = cap < 4096 ? cap : 4096;
    uint32_t width = w < 1     ? 1
                     : w > cap ? (uint32_t)(cap < 1 ? 1 : cap)
                               : (uint32_t)w;
    uint64_t fpeak = 0;
    for (uint32_t t = a; t < b; t++)
        fpeak = B->prof[t] > fpeak ? B->prof[t] : fpeak;
    uint64_t mem0 = a ? B->after[a - 1] : B->g->base, peak = 0;
    bool exact = false;
    memcpy(B->cur + a, floor + a, (size_t)m * sizeof *B->cur);
    uint32_t *out = malloc((size_t)m * sizeof *out);
    if (!out || plan_sched_beam(B->g, floor + a, m, B->done, mem0, width, out,
                                &peak, &exact, &B->steps)) {
        free(out);
        return -1;
    }
    B->exact += exact;
    if (peak < fpeak)
        memcpy(B->cur + a, out, (size_t)m * sizeof *out);
    free(out);
    return 0;
}

/* Steps 2 and 3: segments between cut points. */
static int sched_segments(sched_best *B, const uint32_t *floor) {
    const plan_sched_graph *g = B->g;
    uint8_t *cut = malloc((size_t)g->n + 1);
    size_t ntmp = (g->n > g->nstor ? g->n : g->nstor) + (size_t)1;
    uint32_t *tmp = malloc(ntmp * sizeof *tmp);
    int rc = -1;
    if (!cut || !tmp || sched_cuts(g, floor, cut))
        goto done;
    sched_after(g, floor, B->prof, B->after, tmp);
    double ready = sched_avg_ready(g, floor, tmp);
    for (uint32_t a = 0; a < g->n;) {
        uint32_t b = a;
        while (b < g->n && !cut[floor[b]])
            b++;
        if (b == a)
            b = a + 1; /* a cut point alone */
        B->segments++;
        if (b - a >= 2) {
            if (sched_segment(B, floor, a, b, ready))
                goto done;
        } else {
            B->cur[a] = floor[a];
            B->exact++;
        }
        for (uint32_t t = a; t < b; t++)
            B->done[floor[t]] = 1;
        a = b;
    }
    rc = 0;
done:
    free(cut);
    free(tmp);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Step 4: local search. */

typedef struct sched_score {
    uint64_t peak, at_peak, sum;
} sched_score;

static sched_score sched_score_of(const plan_sched_graph *g,
                                  const uint32_t *ord, uint64_t *prof) {
    sched_score s = {.peak = plan_sched_profile(g, ord, prof)};
    for (uint32_t t = 0; t < g->n; t++) {
        s.at_peak += prof[t] == s.peak;
        s.sum += prof[t];
    }
    return s;
}

static bool sched_better(sched_score a, sched_score b) {
    if (a.peak != b.peak)
        return a.peak < b.peak;
    if (a.at_peak != b.at_peak)
        return a.at_peak < b.at_peak;
    return a.sum < b.sum;
}

/* Moves ord[from] to position `to`, shifting the others. */
static void sched_move(uint32_t *ord, uint32_t *pos, uint32_t from,
                       uint32_t to) {
    uint32_t v = ord[from];
    if (from < to)
        memmove(ord + from, ord + from + 1, (to - from) * sizeof *ord);
    else
        memmove(ord + to + 1, ord + to, (from - to) * sizeof *ord);
    ord[to] = v;
    uint32_t lo = from < to ? from : to, hi = from < to ? to : from;
    for (uint32_t t = lo; t <= hi; t++)
        pos[ord[t]] = t;
}

/* The window of v: after its last predecessor, before its first
 * successor. */
static void sched_window(const plan_sched_graph *g, const uint32_t *pos,
                         uint32_t v, uint32_t *lo, uint32_t *hi) {
    *lo = 0;
    *hi = g->n - 1;
    for (uint32_t k = g->pred_off[v]; k < g->pred_off[v + 1]; k++)
        if (pos[g->pred[k]] + 1 > *lo)
            *lo = pos[g->pred[k]] + 1;
    for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
        if (pos[g->succ[k]] - 1 < *hi)
            *hi = pos[g->succ[k]] - 1;
}

/* Whether v touches a planned storage it does not define (it may be its
 * last user). */
static bool sched_frees(const plan_sched_graph *g, uint32_t v) {
    SCHED_USES(g, v, k) {
        uint32_t s = g->use[k];
        if (g->def[s] >= 0 && g->def[s] != (int32_t)v && !g->keep[s] &&
            g->size[s] > 0)
            return true;
    }
    return false;
}

/* One pass: tries to move each node across the first peak step.  Returns
 * true when a move was kept. */
static bool sched_ls_pass(sched_best *B, uint32_t *pos, sched_score *cur,
                          uint64_t *prof, uint64_t limit) {
    const plan_sched_graph *g = B->g;
    uint32_t tp = 0;
    while (tp < g->n && prof[tp] != cur->peak)
        tp++;
    if (tp == g->n) /* the peak is storages no call touches */
        return false;
    for (uint32_t t = 0; t < g->n && B->steps < limit; t++) {
        uint32_t v = B->cur[t], lo, hi, to;
        sched_window(g, pos, v, &lo, &hi);
        if (t <= tp && g->alloc[v] > 0 && hi > tp)
            to = tp + 1 < hi ? tp + 1 : hi;
        else if (t > tp && lo <= tp && sched_frees(g, v))
            to = tp;
        else
            continue;
        if (to == t)
            continue;
        sched_move(B->cur, pos, t, to);
        B->steps += g->n;
        sched_score s = sched_score_of(g, B->cur, prof);
        if (sched_better(s, *cur)) {
            *cur = s;
            return true;
        }
        sched_move(B->cur, pos, to, t);
    }
    sched_score_of(g, B->cur, prof);
    return false;
}

static int sched_local_search(sched_best *B) {
    const plan_sched_graph *g = B->g;
    uint32_t *pos = malloc(((size_t)g->n + 1) * sizeof *pos);
    if (!pos)
        return -1;
    for (uint32_t t = 0; t < g->n; t++)
        pos[B->cur[t]] = t;
    uint64_t limit = B->budget > B->steps ? B->budget : B->steps;
    sched_score cur = sched_score_of(g, B->cur, B->prof);
    while (g->n && B->steps < limit &&
           sched_ls_pass(B, pos, &cur, B->prof, limit))
        ;
    free(pos);
    return 0;
}

/* ------------------------------------------------------------------ */

static int sched_best_run(const plan_sched_graph *g, const uint32_t *floor,
                          uint64_t budget, uint32_t *order,
                          plan_sched_stats *st) {
    sched_best B = {.g = g, .budget = budget};
    size_t n1 = (size_t)g->n + 1;
    B.cur = malloc(n1 * sizeof *B.cur);
    B.prof = malloc(n1 * sizeof *B.prof);
    B.after = malloc(n1 * sizeof *B.after);
    B.done = calloc(n1, 1);
    int rc = -1;
    if (B.cur && B.prof && B.after && B.done && !sched_segments(&B, floor) &&
        !sched_local_search(&B)) {
        rc = 0;
        bool better = plan_sched_peak(g, B.cur) < plan_sched_peak(g, floor);
        memcpy(order, better ? B.cur : floor, (size_t)g->n * sizeof *order);
        if (better)
            st->won_by = "best";
    }
    st->steps = B.steps;
    st->segments = B.segments;
    st->exact_segments = B.exact;
    free(B.cur);
    free(B.prof);
    free(B.after);
    free(B.done);
    return rc;
}

int plan_sched_order(const plan_sched_graph *g, plan_order alg,
                     const plan_sched_opts *o, uint32_t *order,
                     plan_sched_stats *st) {
    plan_sched_stats dummy;
    st = st ? st : &dummy;
    memset(st, 0, sizeof *st);
    st->winner = alg;
    uint32_t *tmp = malloc(((size_t)g->n + 1) * sizeof *tmp);
    if (!tmp || sched_run_one(g, PLAN_ORDER_KEEP, tmp)) {
        free(tmp);
        return -1;
    }
    st->peak_given = plan_sched_peak(g, tmp);
    st->parts_given = plan_sched_count_partitions(g, tmp);
    int rc = 0;
    if (alg != PLAN_ORDER_BEST) {
        rc = sched_run_one(g, alg, order);
        st->won_by = plan_order_name(alg);
        /* partitions: not at the price of more than 1.1 times the peak */
        if (!rc && alg == PLAN_ORDER_PARTITIONS &&
            (double)plan_sched_peak(g, order) > 1.1 * (double)st->peak_given) {
            memcpy(order, tmp, (size_t)g->n * sizeof *order);
            st->won_by = "keep";
        }
        st->ran[alg] = true;
        st->peak[alg] = rc ? 0 : plan_sched_peak(g, order);
        st->parts = rc ? 0 : plan_sched_count_partitions(g, order);
        free(tmp);
        return rc;
    }
    uint64_t floor = UINT64_MAX;
    for (plan_order a = PLAN_ORDER_KEEP; a < PLAN_ORDER_BEST && !rc; a++) {
        rc = sched_run_one(g, a, tmp);
        st->ran[a] = true;
        st->peak[a] = plan_sched_peak(g, tmp);
        if (!rc && st->peak[a] < floor) {
            floor = st->peak[a];
            memcpy(order, tmp, (size_t)g->n * sizeof *order);
            st->won_by = plan_order_name(a);
        }
    }
    uint64_t budget = o && o->budget
                          ? o->budget
                          : PLAN_SCHED_BUDGET_BASE +
                                PLAN_SCHED_BUDGET_PER_NODE * (uint64_t)g->n;
    if (!rc) {
        memcpy(tmp, order, (size_t)g->n * sizeof *tmp);
        rc = sched_best_run(g, tmp, budget, order, st);
    }
    st->ran[PLAN_ORDER_BEST] = true;
    st->peak[PLAN_ORDER_BEST] = plan_sched_peak(g, order);
    st->parts = plan_sched_count_partitions(g, order);
    free(tmp);
    return rc;
}

/*
 * planner/spill.c - which storages of a memory space with a capacity stay
 * in it, and which spill to the next space (docs/firmware.md,
 * "Memory spaces with spill").
 *
 * The cost model: a storage's worth is its accessed bytes (the bytes of
 * every call argument naming it, summed over the calls); the planner
 * keeps in the fast space a set of storages that fits its capacity and
 * whose accessed bytes are as large as it can find.  That is a knapsack
 * with a packing constraint (NP-hard); several heuristics run and the
 * best candidate wins: among those whose total (both pools, the spilled
 * buffers planned with the better of best fit and first fit by size) is
 * at most the banked greedy's (plan_spill_banked), the most accessed
 * bytes kept, then the smallest total.  The banked greedy's own
 * selection is candidate 1 by size, so the result never keeps fewer
 * accessed bytes than it nor has a larger total:
 *
 *  0. Everything fits (best-fit plan within the capacity): keep all.
 *  1. First fit in an order: each storage at the lowest aligned offset
 *     where it overlaps no conflicting kept storage and ends within the
 *     capacity, if there is one (O(k log k) for k conflicting storages).
 *     Orders: density (accessed bytes per byte), accessed bytes, size
 *     descending (a banked greedy's), and six seeded perturbations of
 *     density (each density scaled by a fixed factor in [3/4, 5/4]).
 *  2. Budgeted density greedy: storages by density, each one when the
 *     live bytes over its lifetime stay within a budget (a segment tree
 *     over time); the chosen set laid out with best fit; if that passes
 *     the capacity the budget drops by the excess and it runs again (at
 *     most SPILL_ROUNDS times, then the budget halves); then the others
 *     are added by first fit (1) in density order.
 *
 * Above 4096 storages the perturbed orders are skipped.
 *
 * Deterministic: no hashing, ties broken by index.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

#define SPILL_ROUNDS 24

/* Whether a and b may not share bytes (verifier's rule, planner.h). */
static bool spill_conflict(const plan_buf *a, const plan_buf *b) {
    if (a->start <= b->end && b->start <= a->end)
        return true;
    if (a->color == -2 || b->color == -2)
        return true;
    return a->color != -1 && b->color != -1 && a->color != b->color;
}

/* Step 2: chooses by density within `budget` live bytes. */
static int spill_greedy(const plan_problem *pb, const uint32_t *order,
                        const uint32_t *axis, uint32_t m, uint64_t budget,
                        bool *keep) {
    plan_segtree t;
    if (plan_segtree_init(&t, m) != 0)
        return -1;
    for (uint32_t k = 0; k < pb->n; k++) {
        uint32_t i = order[k];
        const plan_buf *b = &pb->bufs[i];
        keep[i] = false;
        if (b->size == 0) {
            keep[i] = true;
            continue;
        }
        uint64_t need = plan_align_up(b->size, plan_buf_align(pb, b));
        uint32_t l = plan_time_index(axis, m, b->start);
        uint32_t r = plan_time_index(axis, m, b->end);
        int64_t live = plan_segtree_max(&t, l, r);
        if (need > budget || (uint64_t)live > budget - need)
            continue;
        plan_segtree_add(&t, l, r, (int64_t)need);
        keep[i] = true;
    }
    plan_segtree_free(&t);
    return 0;
}

/* Best fit of the kept storages; their offsets go to off[], the pool
 * size to *size. */
static int spill_layout(const plan_problem *pb, const bool *keep, uint64_t *off,
                        uint64_t *size) {
    plan_problem sub = {0, NULL, pb->align, NULL};
    uint32_t *map = malloc(((size_t)pb->n + 1) * sizeof *map);
    sub.bufs = malloc(((size_t)pb->n + 1) * sizeof *sub.bufs);
    uint64_t *soff = malloc(((size_t)pb->n + 1) * sizeof *soff);
    int rc = -1;
    if (!map || !sub.bufs || !soff)
        goto out;
    for (uint32_t i = 0; i < pb->n; i++)
        if (keep[i]) {
            map[sub.n] = i;
            sub.bufs[sub.n++] = pb->bufs[i];
        }
    if (plan_bestfit(&sub, soff, size) != 0)
        goto out;
    for (uint32_t k = 0; k < sub.n; k++)
        off[map[k]] = soff[k];
    rc = 0;
out:
    free(map);
    free(sub.bufs);
    free(soff);
    return rc;
}

typedef struct spill_iv {
    uint64_t lo, hi;
} spill_iv;

static int spill_cmp_iv(const void *a, const void *b) {
    const spill_iv *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Step 4: the lowest aligned offset for buffer i among the kept storages
 * it conflicts with, ending within `limit`; false when there is none. */
static bool spill_gap(const plan_problem *pb, const bool *keep,
                      const uint64_t *off, uint32_t i, uint64_t limit,
                      spill_iv *ivs, uint64_t *at) {
    const plan_buf *b = &pb->bufs[i];
    uint32_t k = 0;
    for (uint32_t j = 0; j < pb->n; j++)
        if (keep[j] && pb->bufs[j].size && spill_conflict(b, &pb->bufs[j]))
            ivs[k++] = (spill_iv){off[j], off[j] + pb->bufs[j].size};
    qsort(ivs, k, sizeof *ivs, spill_cmp_iv);
    uint64_t a = plan_buf_align(pb, b), cur = 0;
    for (uint32_t j = 0; j <= k; j++) {
        cur = plan_align_up(cur, a);
        if (cur > limit || b->size > limit - cur)
            return false;
        if (j == k || cur + b->size <= ivs[j].lo) {
            *at = cur;
            return true;
        }
        if (ivs[j].hi > cur)
            cur = ivs[j].hi;
    }
    return false;
}

/* Step 4: every buffer not kept, in `order`, at its lowest gap within
 * `cap` when there is one. */
static void spill_fill(const plan_problem *pb, const uint32_t *order,
                       uint64_t cap, spill_iv *ivs, bool *keep,
                       uint64_t *offsets) {
    for (uint32_t k = 0; k < pb->n; k++) {
        uint32_t i = order[k];
        uint64_t at;
        if (!keep[i] && spill_gap(pb, keep, offsets, i, cap, ivs, &at)) {
            keep[i] = true;
            offsets[i] = at;
        }
    }
}

/* Step 2-4 (the budgeted density greedy, repaired, then filled) into
 * keep/offsets. */
static int spill_budgeted(const plan_problem *pb, const uint32_t *order,
                          const uint32_t *axis, uint32_t m, uint64_t cap,
                          spill_iv *ivs, bool *keep, uint64_t *offsets) {
    uint64_t budget = cap, size;
    for (unsigned round = 0;; round++) {
        if (spill_greedy(pb, order, axis, m, budget, keep) != 0 ||
            spill_layout(pb, keep, offsets, &size) != 0)
            return -1;
        if (size <= cap)
            break;
        uint64_t cut = size - cap;
        if (round >= SPILL_ROUNDS && cut < budget / 2)
            cut = budget / 2;
        budget = cut >= budget ? 0 : budget - cut;
    }
    spill_fill(pb, order, cap, ivs, keep, offsets);
    return 0;
}

/* The orders tried: density, accessed bytes, size descending (the order
 * of a banked greedy), then density with every density scaled by a
 * seeded factor in [3/4, 5/4] (deterministic). */
enum { SPILL_ORDERS = 3, SPILL_JITTER = 6, SPILL_BY_SIZE = 2 };

typedef struct spill_octx {
    const plan_problem *pb;
    const uint64_t *access; /* NULL for SPILL_BY_SIZE */
    unsigned kind;
} spill_octx;

static long double spill_key(const spill_octx *x, uint32_t i) {
    uint64_t sz = x->pb->bufs[i].size;
    if (x->kind == SPILL_BY_SIZE)
        return (long double)sz;
    uint64_t acc = x->access[i];
    if (x->kind == 1)
        return (long double)acc;
    long double d = sz ? (long double)acc / (long double)sz : 0;
    if (x->kind >= SPILL_ORDERS) {
        uint64_t h = (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15) ^
                     (uint64_t)x->kind * UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 29;
        d *= 0.75L + (long double)(h % 1024) / 2048.0L;
    }
    return d;
}

static int spill_cmp_kind(const void *c, uint32_t a, uint32_t b) {
    const spill_octx *x = c;
    uint64_t sa = x->pb->bufs[a].size, sb = x->pb->bufs[b].size;
    if ((sa == 0) != (sb == 0))
        return sa == 0 ? -1 : 1;
    long double ka = spill_key(x, a), kb = spill_key(x, b);
    if (ka != kb)
        return ka > kb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* order[] = 0..n-1 sorted by kind `kind` (tmp: n entries, the sort's). */
static void spill_order_in(const plan_problem *pb, const uint64_t *access,
                           unsigned kind, uint32_t *order, uint32_t *tmp) {
    for (uint32_t i = 0; i < pb->n; i++)
        order[i] = i;
    spill_octx ctx = {pb, access, kind};
    plan_sort_idx_in(order, pb->n, tmp, spill_cmp_kind, &ctx);
}

static int spill_order(const plan_problem *pb, const uint64_t *access,
                       unsigned kind, uint32_t *order) {
    uint32_t *tmp = malloc(((size_t)pb->n + 1) * sizeof *tmp);
    if (!tmp)
        return -1;
    spill_order_in(pb, access, kind, order, tmp);
    free(tmp);
    return 0;
}

/* First fit, no limit, of the buffers with in[i], in `order`: each at the
 * lowest aligned offset among those placed before it (placed[] is
 * scratch).  Returns the pool size. */
static uint64_t spill_firstfit(const plan_problem *pb, const uint32_t *order,
                               const bool *in, spill_iv *ivs, bool *placed,
                               uint64_t *off) {
    uint64_t end = 0;
    for (uint32_t i = 0; i < pb->n; i++)
        placed[i] = false;
    for (uint32_t k = 0; k < pb->n; k++) {
        uint32_t i = order[k];
        uint64_t at = 0;
        if (!in[i])
            continue;
        spill_gap(pb, placed, off, i, UINT64_MAX, ivs, &at);
        placed[i] = true;
        off[i] = at;
        if (pb->bufs[i].size && at + pb->bufs[i].size > end)
            end = at + pb->bufs[i].size;
    }
    return plan_align_up(end, pb->align ? pb->align : 1);
}

/* The end of the kept buffers' layout, aligned. */
static uint64_t spill_fast_size(const plan_problem *pb, const bool *keep,
                                const uint64_t *offsets) {
    uint64_t end = 0;
    for (uint32_t i = 0; i < pb->n; i++)
        if (keep[i] && pb->bufs[i].size && offsets[i] + pb->bufs[i].size > end)
            end = offsets[i] + pb->bufs[i].size;
    return plan_align_up(end, pb->align ? pb->align : 1);
}

/* plan_spill_banked's arrays: the size order and its sort's temporary,
 * the conflicting intervals of a gap search, the slow bank's members and
 * the first fit's placed flags. */
typedef struct sb_arrays {
    uint32_t *order, *tmp;
    spill_iv *ivs;
    bool *slow, *placed;
} sb_arrays;

static void sb_layout(plan_carver *c, size_t n, sb_arrays *w) {
    w->order = PLAN_CARVE(c, n + 1, uint32_t);
    w->tmp = PLAN_CARVE(c, n + 1, uint32_t);
    w->ivs = PLAN_CARVE(c, n + 1, spill_iv);
    w->slow = PLAN_CARVE(c, n + 1, bool);
    w->placed = PLAN_CARVE(c, n + 1, bool);
}

size_t plan_spill_banked_scratch_size(const plan_problem *pb) {
    plan_carver c = plan_carver_measure();
    sb_arrays w;
    sb_layout(&c, pb->n, &w);
    return c.used;
}

void plan_spill_banked_in(const plan_problem *pb, void *scratch,
                          size_t scratch_size, uint64_t capacity, bool *fast,
                          uint64_t *offsets, uint64_t *fast_size,
                          uint64_t *slow_size) {
    plan_carver c = plan_carver_of(scratch, scratch_size);
    sb_arrays w;
    sb_layout(&c, pb->n, &w);
    uint64_t pa = pb->align ? pb->align : 1;
    spill_order_in(pb, NULL, SPILL_BY_SIZE, w.order, w.tmp);
    for (uint32_t i = 0; i < pb->n; i++)
        fast[i] = false;
    spill_fill(pb, w.order, capacity / pa * pa, w.ivs, fast, offsets);
    for (uint32_t i = 0; i < pb->n; i++)
        w.slow[i] = !fast[i];
    *fast_size = spill_fast_size(pb, fast, offsets);
    *slow_size = spill_firstfit(pb, w.order, w.slow, w.ivs, w.placed, offsets);
}

int plan_spill_banked(const plan_problem *pb, uint64_t capacity, bool *fast,
                      uint64_t *offsets, uint64_t *fast_size,
                      uint64_t *slow_size) {
    if (!plan_problem_ok(pb))
        return -1;
    size_t bytes = plan_spill_banked_scratch_size(pb);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return -1;
    plan_spill_banked_in(pb, scratch, bytes, capacity, fast, offsets, fast_size,
                         slow_size);
    free(scratch);
    return 0;
}

/* A candidate selection: the accessed bytes kept and the total of both
 * pools, the spilled buffers planned with the better of best fit and
 * first fit by size (a banked greedy's placement). */
typedef struct spill_score {
    uint64_t kept;
    uint64_t total;
} spill_score;

typedef struct spill_scratch {
    const uint32_t *by_size; /* SPILL_BY_SIZE order */
    spill_iv *ivs;
    bool *out, *placed;
    uint64_t *off;
} spill_scratch;

int plan_spill_slow(const plan_problem *pb, const bool *spilled,
                    uint64_t *offsets, uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    size_t n1 = (size_t)pb->n + 1;
    uint32_t *by_size = malloc(n1 * sizeof *by_size);
    spill_scratch x = {by_size, malloc(n1 * sizeof *x.ivs), NULL, malloc(n1),
                       malloc(n1 * sizeof *x.off)};
    int rc = -1;
    uint64_t bf, ff;
    if (by_size && x.ivs && x.placed && x.off &&
        spill_order(pb, NULL, SPILL_BY_SIZE, by_size) == 0 &&
        spill_layout(pb, spilled, offsets, &bf) == 0) {
        ff = spill_firstfit(pb, by_size, spilled, x.ivs, x.placed, x.off);
        for (uint32_t i = 0; ff < bf && i < pb->n; i++)
            offsets[i] = x.off[i];
        *size = ff < bf ? ff : bf;
        rc = 0;
    }
    free(by_size);
    free(x.ivs);
    free(x.placed);
    free(x.off);
    return rc;
}

static int spill_score_of(const plan_problem *pb, const uint64_t *access,
                          const bool *keep, const uint64_t *offsets,
                          spill_scratch *x, spill_score *sc) {
    uint64_t slow = 0;
    sc->kept = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        x->out[i] = !keep[i];
        if (keep[i])
            sc->kept += access[i];
    }
    if (spill_layout(pb, x->out, x->off, &slow) != 0)
        return -1;
    uint64_t ff =
        spill_firstfit(pb, x->by_size, x->out, x->ivs, x->placed, x->off);
    sc->total = spill_fast_size(pb, keep, offsets) + (ff < slow ? ff : slow);
    return 0;
}

/* The objective: a total within `limit` (the banked greedy's), then the
 * most accessed bytes kept, then the smallest total. */
static bool spill_better(const spill_score *a, const spill_score *b,
                         uint64_t limit) {
    bool ina = a->total <= limit, inb = b->total <= limit;
    if (ina != inb)
        return ina;
    return a->kept != b->kept ? a->kept > b->kept : a->total < b->total;
}

/* Step 1 and 2 for every order; the best candidate (spill_better) into
 * keep/offsets. */
static int spill_candidates(const plan_problem *pb, const uint64_t *access,
                            uint64_t cap, uint64_t limit, spill_scratch *x,
                            bool *keep, uint64_t *offsets) {
    size_t n1 = (size_t)pb->n + 1;
    uint32_t *order = malloc(n1 * sizeof *order);
    bool *ck = malloc(n1 * sizeof *ck);
    uint64_t *coff = malloc(n1 * sizeof *coff);
    uint32_t *axis = NULL;
    uint32_t m = plan_time_axis(pb, &axis);
    int rc = -1;
    if (!order || !ck || !coff || m == UINT32_MAX)
        goto out;
    spill_score best = {0, UINT64_MAX}, sc;
    bool have = false;
    /* many buffers: the first candidate and the plain orders only */
    unsigned kinds = pb->n > 4096 ? SPILL_ORDERS : SPILL_ORDERS + SPILL_JITTER;
    for (unsigned kind = 0; kind <= kinds; kind++) {
        for (uint32_t i = 0; i < pb->n; i++)
            ck[i] = false;
        if (spill_order(pb, access, kind == kinds ? 0 : kind, order) != 0)
            goto out;
        if (kind == kinds) {
            if (spill_budgeted(pb, order, axis, m, cap, x->ivs, ck, coff) != 0)
                goto out;
        } else {
            spill_fill(pb, order, cap, x->ivs, ck, coff);
        }
        if (spill_score_of(pb, access, ck, coff, x, &sc) != 0)
            goto out;
        if (!have || spill_better(&sc, &best, limit)) {
            have = true;
            best = sc;
            memcpy(keep, ck, pb->n * sizeof *keep);
            memcpy(offsets, coff, pb->n * sizeof *offsets);
        }
    }
    rc = 0;
out:
    free(order);
    free(ck);
    free(coff);
    free(axis);
    return rc;
}

/* Step 0, everything fits in the best-fit layout: the banked greedy's
 * when it keeps everything too in a smaller pool. */
static int spill_all_fit(const plan_problem *pb, uint64_t cap,
                         uint64_t *offsets, uint64_t *size) {
    size_t n1 = (size_t)pb->n + 1;
    bool *fast = malloc(n1 * sizeof *fast);
    uint64_t *off = malloc(n1 * sizeof *off), fs, ss;
    int rc = -1;
    if (fast && off && plan_spill_banked(pb, cap, fast, off, &fs, &ss) == 0) {
        rc = 0;
        if (ss == 0 && fs < *size && memchr(fast, 0, pb->n) == NULL) {
            memcpy(offsets, off, pb->n * sizeof *offsets);
            *size = fs;
        }
    }
    free(fast);
    free(off);
    return rc;
}

int plan_spill_select(const plan_problem *pb, const uint64_t *access,
                      uint64_t capacity, bool *keep, uint64_t *offsets,
                      uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    uint64_t pa = pb->align ? pb->align : 1;
    uint64_t cap = capacity / pa * pa; /* pool sizes are multiples of pa */
    for (uint32_t i = 0; i < pb->n; i++)
        keep[i] = true;
    if (plan_bestfit(pb, offsets, size) != 0)
        return -1;
    if (*size <= cap)
        return spill_all_fit(pb, cap, offsets, size);
    size_t n1 = (size_t)pb->n + 1;
    uint32_t *by_size = malloc(n1 * sizeof *by_size);
    spill_scratch x = {by_size, malloc(n1 * sizeof *x.ivs), malloc(n1),
                       malloc(n1), malloc(n1 * sizeof *x.off)};
    uint64_t bf, bs;
    int rc = -1;
    /* the limit on the total: the banked greedy's (keep, offsets scratch) */
    if (by_size && x.ivs && x.out && x.placed && x.off &&
        spill_order(pb, NULL, SPILL_BY_SIZE, by_size) == 0 &&
        plan_spill_banked(pb, capacity, keep, offsets, &bf, &bs) == 0 &&
        spill_candidates(pb, access, cap, bf + bs, &x, keep, offsets) == 0) {
        *size = spill_fast_size(pb, keep, offsets);
        rc = 0;
    }
    free(by_size);
    free(x.ivs);
    free(x.out);
    free(x.placed);
    free(x.off);
    return rc;
}

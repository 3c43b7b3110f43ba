/*
 * planner/bestfit.c - `bestfit`: greedy placement into the lowest gap,
 * best of several orderings.
 *
 * For one ordering, each buffer in turn goes to the lowest aligned offset
 * where it fits between the already placed buffers it conflicts with
 * (those whose live intervals overlap its own).  This is the family of
 * TensorFlow Lite Micro's greedy planner and XLA's heap simulator; those
 * test every placed buffer (O(n^2)).  Here the placed buffers are found
 * with an interval structure: the buffers sorted by start, and a max
 * segment tree over that order holding the end of every placed buffer;
 * the conflicts of [s, e] are the placed buffers among those starting at
 * or before e whose end is >= s, reported by descending only into
 * subtrees whose max end is >= s.  One ordering costs O(n log n + C log n)
 * where C is the number of conflicting pairs.
 *
 * Orderings tried (ties broken by start, then buffer order): size
 * descending; lifetime descending; area (size x lifetime) descending;
 * contention (the highest live bytes during the buffer's life)
 * descending; start ascending.  Three more passes (start, size and
 * contention orders) are two-sided: a buffer that cannot go at offset 0
 * goes as high as it fits under the lower bound, which makes chains
 * alternate between the bottom and the top of the pool and reach the
 * lower bound.  The smallest pool wins (the first pass on ties), so the
 * result is deterministic.
 */
#include "planner/plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct bf_key {
    uint64_t k1, k2;
    uint32_t start, idx;
} bf_key;

static int bf_cmp_key(const void *a, const void *b) {
    const bf_key *x = a, *y = b;
    if (x->k1 != y->k1)
        return x->k1 > y->k1 ? -1 : 1; /* descending */
    if (x->k2 != y->k2)
        return x->k2 > y->k2 ? -1 : 1;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    return x->idx < y->idx ? -1 : x->idx > y->idx;
}

typedef struct bf_iv {
    uint64_t lo, hi;
} bf_iv;

static int bf_cmp_iv(const void *a, const void *b) {
    const bf_iv *x = a, *y = b;
    if (x->lo != y->lo)
        return x->lo < y->lo ? -1 : 1;
    return x->hi < y->hi ? -1 : x->hi > y->hi;
}

typedef struct bf_ctx {
    const plan_problem *pb;
    uint32_t m;       /* nonzero buffers */
    uint32_t *ids;    /* position in start order -> buffer */
    uint32_t *pos;    /* buffer -> position in start order */
    uint32_t *starts; /* sorted starts */
    uint32_t sz;      /* leaves of the segment tree (power of two) */
    int64_t *tree;    /* max end of placed buffers, -1 = none */
    uint32_t *stack;  /* descent stack */
    bf_iv *iv;
    size_t niv, capiv;
} bf_ctx;

static int bf_cmp_start_idx(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ctx;
    if (bf[a].start != bf[b].start)
        return bf[a].start < bf[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* Collects the placed buffers conflicting with buffer b into c->iv. */
static int bf_conflicts(bf_ctx *c, const uint64_t *off, uint32_t b) {
    const plan_buf *bb = &c->pb->bufs[b];
    /* R = number of buffers with start <= end(b) */
    uint32_t lo = 0, hi = c->m;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->starts[mid] <= bb->end)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t R = lo;
    c->niv = 0;
    if (R == 0)
        return 0;
    int64_t s = bb->start;
    /* the stack holds (node, first leaf, width) triples */
    uint32_t sp = 0;
    c->stack[sp++] = 1;
    c->stack[sp++] = 0;
    c->stack[sp++] = c->sz;
    while (sp) {
        uint32_t width = c->stack[--sp];
        uint32_t first = c->stack[--sp];
        uint32_t node = c->stack[--sp];
        if (c->tree[node] < s || first >= R)
            continue;
        if (width == 1) {
            uint32_t id = c->ids[first];
            if (c->niv == c->capiv) {
                size_t cap = c->capiv ? c->capiv * 2 : 64;
                bf_iv *ni = realloc(c->iv, cap * sizeof *ni);
                if (!ni)
                    return -1;
                c->iv = ni;
                c->capiv = cap;
            }
            c->iv[c->niv].lo = off[id];
            c->iv[c->niv].hi = off[id] + c->pb->bufs[id].size;
            c->niv++;
            continue;
        }
        uint32_t h = width / 2;
        c->stack[sp++] = 2 * node + 1;
        c->stack[sp++] = first + h;
        c->stack[sp++] = h;
        c->stack[sp++] = 2 * node;
        c->stack[sp++] = first;
        c->stack[sp++] = h;
    }
    return 0;
}

static void bf_set(bf_ctx *c, uint32_t p, int64_t v) {
    uint32_t node = p + c->sz;
    c->tree[node] = v;
    for (node /= 2; node; node /= 2) {
        int64_t a = c->tree[2 * node], b = c->tree[2 * node + 1];
        c->tree[node] = a > b ? a : b;
    }
}

/* The highest aligned offset x with x + size <= cap that is free of the
 * (sorted) conflicts, or UINT64_MAX when there is none. */
static uint64_t bf_top_fit(const bf_ctx *c, uint64_t size, uint64_t a,
                           uint64_t cap) {
    if (size > cap)
        return UINT64_MAX;
    uint64_t best = UINT64_MAX, covered = 0;
    for (size_t j = 0; j <= c->niv; j++) {
        uint64_t g0 = covered;
        uint64_t g1 = j < c->niv ? c->iv[j].lo : UINT64_MAX;
        if (g1 > cap)
            g1 = cap;
        if (g1 >= g0 + size) {
            uint64_t x = (g1 - size) & ~(a - 1);
            if (x >= g0)
                best = x;
        }
        if (j < c->niv && c->iv[j].hi > covered)
            covered = c->iv[j].hi;
        if (covered >= cap)
            break;
    }
    return best;
}

/* One greedy pass in `order`; returns the pool top or UINT64_MAX on oom.
 * With `cap` non-zero the pass is two-sided: a buffer whose lowest gap is
 * not at offset 0 goes as high as it fits under `cap` (the lower bound),
 * so that chains alternate between the bottom and the top of the pool. */
static uint64_t bf_pass(bf_ctx *c, const uint32_t *order, uint64_t *off,
                        uint64_t cap) {
    for (size_t i = 0; i < 2 * (size_t)c->sz; i++)
        c->tree[i] = -1;
    uint64_t top = 0;
    for (uint32_t k = 0; k < c->m; k++) {
        uint32_t b = order[k];
        const plan_buf *bb = &c->pb->bufs[b];
        if (bf_conflicts(c, off, b) != 0)
            return UINT64_MAX;
        if (c->niv > 1)
            qsort(c->iv, c->niv, sizeof *c->iv, bf_cmp_iv);
        uint64_t a = plan_buf_align(c->pb, bb), cand = 0;
        for (size_t j = 0; j < c->niv; j++) {
            if (cand + bb->size <= c->iv[j].lo)
                break;
            if (c->iv[j].hi > cand)
                cand = plan_align_up(c->iv[j].hi, a);
        }
        if (cap && cand != 0) {
            uint64_t t = bf_top_fit(c, bb->size, a, cap);
            if (t != UINT64_MAX)
                cand = t;
        }
        off[b] = cand;
        if (cand + bb->size > top)
            top = cand + bb->size;
        bf_set(c, c->pos[b], bb->end);
    }
    return top;
}

#define BF_ORDERS 5
#define BF_PASSES 8

static int plan_bestfit_core(const plan_problem *pb, uint64_t *offsets,
                             uint64_t *size) {
    uint32_t n = pb->n;
    const plan_buf *bf = pb->bufs;
    bf_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    int rc = -1;
    uint64_t *off = malloc(((size_t)n + 1) * sizeof *off);
    bf_key *keys = malloc(((size_t)n + 1) * sizeof *keys);
    uint32_t *order = malloc(((size_t)n + 1) * sizeof *order);
    uint32_t *axis = NULL;
    int64_t *live = NULL;
    plan_segtree st = {0, NULL, NULL};
    c.ids = malloc(((size_t)n + 1) * sizeof *c.ids);
    c.pos = malloc(((size_t)n + 1) * sizeof *c.pos);
    c.starts = malloc(((size_t)n + 1) * sizeof *c.starts);
    if (!off || !keys || !order || !c.ids || !c.pos || !c.starts)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        offsets[i] = 0;
        if (bf[i].size)
            c.ids[c.m++] = i;
    }
    if (c.m == 0) {
        *size = 0;
        rc = 0;
        goto out;
    }
    if (plan_sort_idx(c.ids, c.m, bf_cmp_start_idx, bf) != 0)
        goto out;
    for (uint32_t p = 0; p < c.m; p++) {
        c.pos[c.ids[p]] = p;
        c.starts[p] = bf[c.ids[p]].start;
    }
    c.sz = 1;
    while (c.sz < c.m)
        c.sz *= 2;
    c.tree = malloc(2 * (size_t)c.sz * sizeof *c.tree);
    c.stack = malloc((3 * 64 + 8) * sizeof *c.stack);
    if (!c.tree || !c.stack)
        goto out;

    /* contention: the highest live bytes during each buffer's life */
    uint32_t na = plan_time_axis(pb, &axis);
    if (na == UINT32_MAX)
        goto out;
    live = calloc((size_t)na + 1, sizeof *live);
    if (!live || plan_segtree_init(&st, na) != 0)
        goto out;
    for (uint32_t p = 0; p < c.m; p++) {
        const plan_buf *b = &bf[c.ids[p]];
        live[plan_time_index(axis, na, b->start)] += (int64_t)b->size;
        live[plan_time_index(axis, na, b->end) + 1] -= (int64_t)b->size;
    }
    int64_t cur = 0, peak = 0;
    for (uint32_t i = 0; i < na; i++) {
        cur += live[i];
        if (cur > peak)
            peak = cur;
        plan_segtree_add(&st, i, i, cur);
    }
    /* the lower bound (sizes rounded to the pool alignment), the cap of
     * the two-sided passes */
    uint64_t pa = pb->align ? pb->align : 1, lb = 0;
    {
        memset(live, 0, ((size_t)na + 1) * sizeof *live);
        for (uint32_t p = 0; p < c.m; p++) {
            const plan_buf *b = &bf[c.ids[p]];
            int64_t sz = (int64_t)plan_align_up(b->size, pa);
            live[plan_time_index(axis, na, b->start)] += sz;
            live[plan_time_index(axis, na, b->end) + 1] -= sz;
        }
        int64_t run = 0;
        for (uint32_t i = 0; i < na; i++) {
            run += live[i];
            if ((uint64_t)run > lb)
                lb = (uint64_t)run;
        }
        lb = plan_align_up(lb, pa);
    }
    (void)peak;

    uint64_t best = UINT64_MAX;
    for (int pass = 0; pass < BF_PASSES; pass++) {
        /* passes 0..4: the orderings, lowest gap; 5..7: start, size and
         * contention orderings, two-sided under the lower bound */
        int o = pass < BF_ORDERS ? pass : pass == 5 ? 4 : pass == 6 ? 0 : 3;
        uint64_t cap = pass < BF_ORDERS ? 0 : lb;
        for (uint32_t p = 0; p < c.m; p++) {
            uint32_t i = c.ids[p];
            const plan_buf *b = &bf[i];
            uint64_t life = (uint64_t)b->end - b->start + 1;
            bf_key *k = &keys[p];
            k->start = b->start;
            k->idx = i;
            switch (o) {
            case 0:
                k->k1 = b->size;
                k->k2 = life;
                break;
            case 1:
                k->k1 = life;
                k->k2 = b->size;
                break;
            case 2:
                k->k1 =
                    b->size > UINT64_MAX / life ? UINT64_MAX : b->size * life;
                k->k2 = b->size;
                break;
            case 3:
                k->k1 = (uint64_t)plan_segtree_max(
                    &st, plan_time_index(axis, na, b->start),
                    plan_time_index(axis, na, b->end));
                k->k2 = b->size;
                break;
            default: /* start ascending: keys are descending, so negate */
                k->k1 = UINT64_MAX - b->start;
                k->k2 = b->size;
                break;
            }
        }
        qsort(keys, c.m, sizeof *keys, bf_cmp_key);
        for (uint32_t p = 0; p < c.m; p++)
            order[p] = keys[p].idx;
        uint64_t top = bf_pass(&c, order, off, cap);
        if (top == UINT64_MAX)
            goto out;
        if (top < best) {
            best = top;
            for (uint32_t p = 0; p < c.m; p++)
                offsets[c.ids[p]] = off[c.ids[p]];
        }
    }
    *size = plan_align_up(best, pb->align ? pb->align : 1);
    rc = 0;
out:
    free(off);
    free(keys);
    free(order);
    free(axis);
    free(live);
    plan_segtree_free(&st);
    free(c.ids);
    free(c.pos);
    free(c.starts);
    free(c.tree);
    free(c.stack);
    free(c.iv);
    return rc;
}

int plan_bestfit(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_bestfit_core, offsets, size);
}

/*
 * planner/bestfit_start.c - bestfit's start-order pass (see bestfit.c):
 * in start order, the placed buffers a buffer conflicts with are exactly
 * the ones live at its start, so the lowest (or, two-sided, the highest
 * under a cap) gap that fits among the live blocks is where it goes.
 *
 * The live blocks are kept by offset in a treap whose every subtree knows
 * its lowest offset, highest end and widest inner gap, so the gap is
 * found in O(log n) whatever the density; they leave it (a heap by end)
 * when their life is over.  When at most BF_ARR_MAX buffers are ever
 * live at once, a sorted array scanned in order gives the same offsets
 * with smaller constants (blocks whose life is over leave it in one
 * pass, when a start passes the lowest end).  O(n log n) on every
 * input.  The pool top only grows, so the pass stops as soon as it
 * reaches the size of the best plan so far (it cannot beat it), having
 * read only the buffers it placed.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

/* A treap node: a live block [off, end) of the start-order pass. */
typedef struct bf_tn {
    uint64_t off, end;
    uint64_t mn, mx, gap; /* subtree: lowest offset, highest end, widest
                             gap between two of its blocks */
    uint32_t l, r, pri;
} bf_tn;

#define BF_NIL UINT32_MAX

/* Up to this many buffers live at once, the pass keeps the live blocks
 * in a sorted array rather than a treap. */
#define BF_ARR_MAX 256

/* A live block of the array pass: its bytes [lo, hi), its last step. */
typedef struct bf_iv {
    uint64_t lo, hi;
    uint32_t end;
} bf_iv;

/* What the pass reads about each buffer, gathered in pass order. */
typedef struct bf_sq {
    uint32_t start, end;
    uint64_t size, a, off;
} bf_sq;

/* The queries, gathered in pass order a stretch at a time (a pass that
 * stops early reads and writes only what it placed). */
typedef struct bf_src {
    const plan_problem *pb;
    const uint32_t *order;
    uint32_t m, filled; /* qs[0..filled) gathered */
    uint64_t pa;
} bf_src;

#define BF_GATHER 4096

/* Gathers the next stretch of qs. */
static void bf_gather(bf_src *src, bf_sq *qs) {
    uint32_t k = src->filled,
             to = src->m - k > BF_GATHER ? k + BF_GATHER : src->m;
    for (; k < to; k++) {
        const plan_buf *bb = &src->pb->bufs[src->order[k]];
        qs[k].start = bb->start;
        qs[k].end = bb->end;
        qs[k].size = bb->size;
        qs[k].a = bb->align > src->pa ? bb->align : src->pa;
    }
    src->filled = to;
}

static void bf_pull(bf_tn *t, uint32_t x) {
    bf_tn *n = &t[x];
    n->mn = n->off;
    n->mx = n->end;
    n->gap = 0;
    if (n->l != BF_NIL) {
        const bf_tn *l = &t[n->l];
        n->mn = l->mn;
        n->gap = l->gap > n->off - l->mx ? l->gap : n->off - l->mx;
    }
    if (n->r != BF_NIL) {
        const bf_tn *r = &t[n->r];
        n->mx = r->mx;
        if (r->gap > n->gap)
            n->gap = r->gap;
        if (r->mn - n->end > n->gap)
            n->gap = r->mn - n->end;
    }
}

/* Splits x into the blocks below offset k (*a) and the others (*b). */
static void bf_split(bf_tn *t, uint32_t x, uint64_t k, uint32_t *a,
                     uint32_t *b) {
    if (x == BF_NIL) {
        *a = *b = BF_NIL;
        return;
    }
    if (t[x].off < k) {
        bf_split(t, t[x].r, k, &t[x].r, b);
        *a = x;
    } else {
        bf_split(t, t[x].l, k, a, &t[x].l);
        *b = x;
    }
    bf_pull(t, x);
}

static uint32_t bf_merge(bf_tn *t, uint32_t a, uint32_t b) {
    if (a == BF_NIL)
        return b;
    if (b == BF_NIL)
        return a;
    if (t[a].pri > t[b].pri) {
        t[a].r = bf_merge(t, t[a].r, b);
        bf_pull(t, a);
        return a;
    }
    t[b].l = bf_merge(t, a, t[b].l);
    bf_pull(t, b);
    return b;
}

/* Inserts node k (its offset differs from every other) into subtree x:
 * down to where its priority belongs, the subtree there split by its
 * offset.  Returns the new subtree. */
static uint32_t bf_insert(bf_tn *t, uint32_t x, uint32_t k) {
    if (x == BF_NIL)
        return k;
    if (t[k].pri > t[x].pri) {
        bf_split(t, x, t[k].off, &t[k].l, &t[k].r);
        bf_pull(t, k);
        return k;
    }
    if (t[k].off < t[x].off)
        t[x].l = bf_insert(t, t[x].l, k);
    else
        t[x].r = bf_insert(t, t[x].r, k);
    bf_pull(t, x);
    return x;
}

/* Removes the node at offset `off` (present) from subtree x. */
static uint32_t bf_remove(bf_tn *t, uint32_t x, uint64_t off) {
    if (t[x].off == off)
        return bf_merge(t, t[x].l, t[x].r);
    if (off < t[x].off)
        t[x].l = bf_remove(t, t[x].l, off);
    else
        t[x].r = bf_remove(t, t[x].r, off);
    bf_pull(t, x);
    return x;
}

/* The lowest aligned offset of a block of `s` bytes in a gap of subtree x
 * (prev: the end of the block before it), or UINT64_MAX. */
static uint64_t bf_low(const bf_tn *t, uint32_t x, uint64_t prev, uint64_t s,
                       uint64_t a) {
    if (x == BF_NIL)
        return UINT64_MAX;
    const bf_tn *n = &t[x];
    if (n->mn - prev < s && n->gap < s)
        return UINT64_MAX;
    uint64_t r = bf_low(t, n->l, prev, s, a);
    if (r != UINT64_MAX)
        return r;
    uint64_t c = plan_align_up(n->l != BF_NIL ? t[n->l].mx : prev, a);
    if (c <= n->off && n->off - c >= s)
        return c;
    return bf_low(t, n->r, n->end, s, a);
}

/* The highest aligned offset x with x + s <= next of a gap of subtree x
 * (next: the start of the block after it, at most the cap), or
 * UINT64_MAX. */
static uint64_t bf_high(const bf_tn *t, uint32_t x, uint64_t next, uint64_t s,
                        uint64_t a) {
    if (x == BF_NIL || t[x].mn >= next)
        return UINT64_MAX; /* every gap of x is above next */
    const bf_tn *n = &t[x];
    uint64_t tail = next > n->mx ? next - n->mx : 0;
    if (tail < s && n->gap < s)
        return UINT64_MAX;
    uint64_t r = bf_high(t, n->r, next, s, a);
    if (r != UINT64_MAX)
        return r;
    uint64_t nb = n->r != BF_NIL && t[n->r].mn < next ? t[n->r].mn : next;
    if (nb >= n->end && nb - n->end >= s && ((nb - s) & ~(a - 1)) >= n->end)
        return (nb - s) & ~(a - 1);
    return bf_high(t, n->l, n->off < next ? n->off : next, s, a);
}

/* Where the start-order pass puts a block of `s` bytes: the lowest gap,
 * or with `cap` (two-sided) the highest gap under cap when the lowest is
 * not at offset 0. */
static uint64_t bf_fit(const bf_tn *t, uint32_t root, uint64_t s, uint64_t a,
                       uint64_t cap) {
    uint64_t low = bf_low(t, root, 0, s, a);
    if (low == UINT64_MAX)
        low = root == BF_NIL ? 0 : plan_align_up(t[root].mx, a);
    if (!cap || low == 0 || s > cap)
        return low;
    uint64_t hi = bf_high(t, root, cap, s, a);
    if (hi != UINT64_MAX)
        return hi;
    uint64_t nb = root == BF_NIL || t[root].mn > cap ? cap : t[root].mn;
    return nb >= s ? (nb - s) & ~(a - 1) : low;
}

/* The heap of live blocks by end: node ids, smallest end on top. */
static void bf_heap_push(uint32_t *heap, uint32_t *n, uint32_t k,
                         const bf_sq *q) {
    uint32_t i = (*n)++;
    while (i > 0 && q[heap[(i - 1) / 2]].end > q[k].end) {
        heap[i] = heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    heap[i] = k;
}

static uint32_t bf_heap_pop(uint32_t *heap, uint32_t *n, const bf_sq *q) {
    uint32_t top = heap[0], last = heap[--*n], i = 0;
    for (;;) {
        uint32_t j = 2 * i + 1;
        if (j >= *n)
            break;
        if (j + 1 < *n && q[heap[j + 1]].end < q[heap[j]].end)
            j++;
        if (q[heap[j]].end >= q[last].end)
            break;
        heap[i] = heap[j];
        i = j;
    }
    if (*n)
        heap[i] = last;
    return top;
}

/* bf_fit over the live blocks arr[0..n) sorted by offset (disjoint): the
 * same offset, found by scanning (few live blocks). */
static uint64_t bf_fit_arr(const bf_iv *arr, uint32_t n, uint64_t s, uint64_t a,
                           uint64_t cap) {
    uint64_t prev = 0, low = UINT64_MAX;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t c = plan_align_up(prev, a);
        if (c <= arr[i].lo && arr[i].lo - c >= s) {
            low = c;
            break;
        }
        prev = arr[i].hi;
    }
    if (low == UINT64_MAX)
        low = n ? plan_align_up(arr[n - 1].hi, a) : 0;
    if (!cap || low == 0 || s > cap)
        return low;
    for (uint32_t i = n; i-- > 0;) {
        uint64_t nb = i + 1 < n && arr[i + 1].lo < cap ? arr[i + 1].lo : cap;
        uint64_t e = arr[i].hi;
        if (nb >= e && nb - e >= s && ((nb - s) & ~(a - 1)) >= e)
            return (nb - s) & ~(a - 1);
    }
    uint64_t nb = n == 0 || arr[0].lo > cap ? cap : arr[0].lo;
    return nb >= s ? (nb - s) & ~(a - 1) : low;
}

/* The position of the first block of arr[0..n) at or above offset o. */
static uint32_t bf_arr_find(const bf_iv *arr, uint32_t n, uint64_t o) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (arr[mid].lo < o)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Drops the blocks of arr[0..n) whose life ends before t, in one
 * branch-free pass; returns how many are left, their lowest end into
 * *minend. */
static uint32_t bf_arr_expire(bf_iv *arr, uint32_t n, uint32_t t,
                              uint32_t *minend) {
    uint32_t w = 0, me = UINT32_MAX;
    for (uint32_t i = 0; i < n; i++) {
        bool keep = arr[i].end >= t;
        arr[w] = arr[i];
        w += keep;
        me = keep && arr[i].end < me ? arr[i].end : me;
    }
    *minend = me;
    return w;
}

/* Places qs[k] in order with the live blocks in arr (sorted by offset,
 * room for BF_ARR_MAX; a block leaves when a start passes its end, the
 * array scanned only when the lowest end is passed): the offsets of
 * bf_treap_pass.  Returns the pool top, PLAN_BF_OVER, or the first top
 * at or above `stop` (the rest not placed). */
static uint64_t bf_array_pass(bf_src *src, bf_sq *qs, bf_iv *arr, uint64_t cap,
                              uint64_t stop) {
    uint32_t n = 0, minend = UINT32_MAX;
    uint64_t top = 0;
    for (uint32_t k = 0; k < src->m; k++) {
        if (k == src->filled)
            bf_gather(src, qs);
        const bf_sq *q = &qs[k];
        if (minend < q->start)
            n = bf_arr_expire(arr, n, q->start, &minend);
        uint64_t cand = bf_fit_arr(arr, n, q->size, q->a, cap);
        if (cand > PLAN_MAX_POOL_SIZE || q->size > PLAN_MAX_POOL_SIZE - cand)
            return PLAN_BF_OVER;
        qs[k].off = cand;
        if (cand + q->size > top)
            top = cand + q->size;
        if (top >= stop)
            return top;
        uint32_t i = bf_arr_find(arr, n, cand);
        memmove(arr + i + 1, arr + i, (n - i) * sizeof *arr);
        arr[i] = (bf_iv){cand, cand + q->size, q->end};
        n++;
        minend = q->end < minend ? q->end : minend;
    }
    return top;
}

/* Places qs[k] in order with the live blocks in the treap t: see the
 * top of the file.  Returns as bf_array_pass. */
static uint64_t bf_treap_pass(bf_src *src, bf_sq *qs, uint32_t *heap, bf_tn *t,
                              uint64_t cap, uint64_t stop) {
    uint32_t root = BF_NIL, nheap = 0;
    uint64_t top = 0, pa = src->pa;
    for (uint32_t k = 0; k < src->m; k++) {
        if (k == src->filled)
            bf_gather(src, qs);
        const bf_sq *q = &qs[k];
        while (nheap && qs[heap[0]].end < q->start) {
            uint32_t x = bf_heap_pop(heap, &nheap, qs);
            root = bf_remove(t, root, t[x].off);
        }
        uint64_t cand = bf_fit(t, root, q->size, q->a, cap);
        if (cand > PLAN_MAX_POOL_SIZE || q->size > PLAN_MAX_POOL_SIZE - cand)
            return PLAN_BF_OVER;
        qs[k].off = cand;
        if (cand + q->size > top)
            top = cand + q->size;
        if (top >= stop)
            return top;
        t[k].off = cand;
        /* the end rounded up to the pool's alignment (which divides every
         * buffer's, all powers of two): the same offsets, and a padding
         * gap smaller than that alignment, useless to any buffer, is no
         * gap in the summaries (else every small buffer would search
         * every such gap: quadratic when all are live at once) */
        t[k].end = plan_align_up(cand + q->size, pa);
        t[k].l = t[k].r = BF_NIL;
        t[k].pri = (uint32_t)((k + 1) * UINT64_C(0x9e3779b97f4a7c15) >> 32);
        bf_pull(t, k);
        root = bf_insert(t, root, k);
        bf_heap_push(heap, &nheap, k, qs);
    }
    return top;
}

uint64_t plan_bf_start_pass(const plan_problem *pb, const uint32_t *order,
                            uint32_t m, uint32_t maxlive, uint64_t cap,
                            uint64_t stop, uint64_t *off) {
    uint64_t top = UINT64_MAX;
    bf_src src = {pb, order, m, 0, pb->align ? pb->align : 1};
    bool few = maxlive <= BF_ARR_MAX;
    bf_sq *qs = malloc(((size_t)m + 1) * sizeof *qs);
    uint32_t *heap = few ? NULL : malloc(((size_t)m + 1) * sizeof *heap);
    bf_iv *arr = few ? malloc((BF_ARR_MAX + 1) * sizeof *arr) : NULL;
    bf_tn *t = few ? NULL : malloc(((size_t)m + 1) * sizeof *t);
    if (qs && (arr || (heap && t))) {
        top = few ? bf_array_pass(&src, qs, arr, cap, stop)
                  : bf_treap_pass(&src, qs, heap, t, cap, stop);
        for (uint32_t k = 0; top != PLAN_BF_OVER && top < stop && k < m; k++)
            off[order[k]] = qs[k].off;
    }
    free(qs);
    free(heap);
    free(arr);
    free(t);
    return top;
}

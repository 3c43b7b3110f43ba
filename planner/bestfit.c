/*
 * planner/bestfit.c - `bestfit`: greedy placement into the lowest gap,
 * best of several orderings.
 *
 * For one ordering, each buffer in turn goes to the lowest aligned offset
 * where it fits between the already placed buffers it conflicts with
 * (those whose live intervals overlap its own).  This is the family of
 * TensorFlow Lite Micro's greedy planner and XLA's heap simulator; those
 * test every placed buffer (O(n^2)).
 *
 * Two ways to find the placed conflicts:
 *  - In start order, the placed buffers a buffer conflicts with are
 *    exactly the ones live at its start: a first-fit allocator.  The
 *    live buffers are kept in a treap by offset, each subtree knowing its
 *    lowest offset, highest end and widest inner gap, so the lowest (or
 *    highest) gap that fits is found in O(log n), whatever the density;
 *    buffers leave it (a heap by end) when their life is over.  This pass
 *    is O(n log n) on every input.
 *  - In any other order, an interval structure: the buffers are grouped
 *    by lifetime in buckets of powers of 16 and sorted by start inside
 *    each; the conflicts of [s, e] in a bucket whose longest lifetime is L
 *    start in [s - L, e], a contiguous run (its first position
 *    precomputed for every buffer with a monotone pointer) scanned in
 *    order, then sorted by offset.  A pass costs O(n log n + C), C the
 *    number of overlapping pairs, so such a pass stops (and is dropped)
 *    when it has visited BF_VISITS(n) candidates, and once one has
 *    stopped the others are skipped: when every buffer overlaps every
 *    other, only the start-order pass runs and bestfit stays O(n log n).
 *    Up to 2048 buffers, the placed buffers are scanned by offset
 *    instead (stopping at the first gap), with the same visit budget.
 *
 * Passes (ties broken by start, then buffer order): size descending;
 * contention (the highest live bytes during the buffer's life)
 * descending; start ascending two-sided (a buffer that cannot go at
 * offset 0 goes as high as it fits under the lower bound, which makes
 * chains alternate between the bottom and the top of the pool and reach
 * the lower bound); then eight passes of size descending with each size
 * scaled by a seeded factor in [3/4, 5/4] (a deterministic hash of the
 * buffer and the pass), which on the minimalloc instances takes the
 * geometric mean from 1.289x to 1.275x of the lower bound.  Above 131072
 * buffers only two passes run (size; start two-sided).  The smallest pool
 * wins (the first pass on ties), so the result is deterministic; the
 * naive plan is kept when it is smaller (alignment padding).
 */
#include "plan_internal.h"

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

#define BF_BUCKETS PLAN_LIFE_BUCKETS

#if defined(__GNUC__)
#define BF_PREFETCH(p) __builtin_prefetch(p)
#else
#define BF_PREFETCH(p) ((void)(p))
#endif

/* What a conflict scan reads about every position it visits (8 bytes:
 * the scans stream them), and about the conflicts it finds. */
typedef struct bf_se {
    uint32_t start, end; /* end: 0 until placed */
} bf_se;

typedef struct bf_os {
    uint64_t off, size; /* off: BF_UNPLACED until placed */
} bf_os;

#define BF_UNPLACED UINT64_MAX

typedef struct bf_placed {
    uint64_t off, size;
    uint32_t start, end;
} bf_placed;

/* A treap node: a live block [off, end) of the start-order pass. */
typedef struct bf_tn {
    uint64_t off, end;
    uint64_t mn, mx, gap; /* subtree: lowest offset, highest end, widest
                             gap between two of its blocks */
    uint32_t l, r, pri;
} bf_tn;

#define BF_NIL UINT32_MAX

/* The candidates a scanning pass may visit before it gives up: enough
 * for about 100 conflicts per buffer. */
#define BF_VISITS(m) ((uint64_t)(m)*256 + 65536)

typedef struct bf_ctx {
    const plan_problem *pb;
    uint32_t m;       /* nonzero buffers */
    uint32_t *ids;    /* position in start order -> buffer */
    uint32_t *pos;    /* buffer -> position in start order */
    uint32_t *starts; /* sorted starts */
    uint32_t *byst;   /* the nonzero buffers in start order */
    uint32_t nbk;     /* length buckets */
    uint32_t bk_lo[BF_BUCKETS], bk_hi[BF_BUCKETS]; /* position ranges */
    uint32_t bk_maxlen[BF_BUCKETS];
    uint32_t *p0; /* per position and bucket: first candidate */
    bf_se *se;    /* per position */
    bf_os *os;
    bf_iv *iv, *ivtmp;
    size_t niv, capiv;
    uint64_t visits; /* candidates visited by this pass */
    /* small instances: the placed buffers sorted by offset */
    bf_placed *placed;
    uint32_t nplaced;
    /* the start-order pass: a treap of live blocks, a heap by end */
    bf_tn *tn;
    uint32_t *heap, *tend;
} bf_ctx;

static int bf_grow(bf_ctx *c) {
    size_t cap = c->capiv ? c->capiv * 2 : 64;
    bf_iv *ni = realloc(c->iv, cap * sizeof *ni);
    if (!ni)
        return -1;
    c->iv = ni;
    ni = realloc(c->ivtmp, cap * sizeof *ni);
    if (!ni)
        return -1;
    c->ivtmp = ni;
    c->capiv = cap;
    return 0;
}

static int bf_report(bf_ctx *c, uint32_t p) {
    if (c->niv == c->capiv && bf_grow(c) != 0)
        return -1;
    c->iv[c->niv].lo = c->os[p].off;
    c->iv[c->niv].hi = c->os[p].off + c->os[p].size;
    c->niv++;
    return 0;
}

/* Collects the placed buffers conflicting with buffer b into c->iv: in
 * each lifetime bucket, the buffers starting in [s - maxlen, e] are
 * scanned in order (the first one precomputed per buffer). */
static int bf_conflicts(bf_ctx *c, uint32_t b) {
    const plan_buf *bb = &c->pb->bufs[b];
    uint32_t s = bb->start;
    uint32_t e = bb->end;
    const uint32_t *p0 = c->p0 + (size_t)c->pos[b] * c->nbk;
    c->niv = 0;
    for (uint32_t k = 0; k < c->nbk; k++) {
        uint32_t hi = c->bk_hi[k], p = p0[k];
        for (; p < hi && c->se[p].start <= e; p++)
            if (c->se[p].end >= s && c->os[p].off != BF_UNPLACED &&
                bf_report(c, p) != 0)
                return -1;
        c->visits += p - p0[k];
    }
    return 0;
}

/* What the passes return for a layout that passes PLAN_MAX_POOL_SIZE,
 * and for a scanning pass that ran out of visits. */
#define BF_OVER (UINT64_MAX - 1)
#define BF_GAVE_UP (UINT64_MAX - 2)

/* The lowest aligned offset of a buffer of `size` above the (sorted,
 * disjoint or not) intervals c->iv. */
/* Restores the min-heap order (by lo) of iv[0..n) below position i. */
static void bf_sift(bf_iv *iv, size_t n, size_t i) {
    bf_iv v = iv[i];
    for (;;) {
        size_t j = 2 * i + 1;
        if (j >= n)
            break;
        if (j + 1 < n && iv[j + 1].lo < iv[j].lo)
            j++;
        if (iv[j].lo >= v.lo)
            break;
        iv[i] = iv[j];
        i = j;
    }
    iv[i] = v;
}

/* The lowest aligned offset of a buffer of `size` above the intervals
 * c->iv (unsorted): a heap by lo, popped only up to the first gap that
 * fits (a partial sort: O(k + j log k) for j intervals below it). */
static uint64_t bf_lowest(bf_ctx *c, uint64_t size, uint64_t a) {
    bf_iv *iv = c->iv;
    size_t n = c->niv;
    for (size_t i = n / 2; i-- > 0;)
        bf_sift(iv, n, i);
    uint64_t cand = 0;
    while (n > 0) {
        if (cand + size <= iv[0].lo)
            break;
        if (iv[0].hi > cand)
            cand = plan_align_up(iv[0].hi, a);
        iv[0] = iv[--n];
        bf_sift(iv, n, 0);
    }
    return cand;
}

/* The lowest gap among the placed buffers sorted by offset (small
 * instances), stopping at the first gap that fits. */
static uint64_t bf_lowest_placed(bf_ctx *c, const plan_buf *bb, uint64_t a) {
    uint64_t cand = 0;
    uint32_t j = 0;
    for (; j < c->nplaced; j++) {
        const bf_placed *q = &c->placed[j];
        if (q->start > bb->end || q->end < bb->start)
            continue;
        if (cand + bb->size <= q->off)
            break;
        if (q->off + q->size > cand)
            cand = plan_align_up(q->off + q->size, a);
    }
    c->visits += j;
    return cand;
}

/* Inserts a placed buffer into the offset-sorted list. */
static void bf_insert_placed(bf_ctx *c, const plan_buf *bb, uint64_t off) {
    uint32_t lo = 0, hi = c->nplaced;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (c->placed[mid].off <= off)
            lo = mid + 1;
        else
            hi = mid;
    }
    memmove(c->placed + lo + 1, c->placed + lo,
            (c->nplaced - lo) * sizeof *c->placed);
    c->placed[lo].off = off;
    c->placed[lo].size = bb->size;
    c->placed[lo].start = bb->start;
    c->placed[lo].end = bb->end;
    c->nplaced++;
}

/* The order is random in memory: prefetch what the next queries read
 * (their buffer, their first candidates, then the start of each of
 * their runs). */
static void bf_prefetch(const bf_ctx *c, const uint32_t *order, uint32_t k) {
    if (k + 8 < c->m) {
        BF_PREFETCH(&c->pb->bufs[order[k + 8]]);
        BF_PREFETCH(&c->pos[order[k + 8]]);
    }
    if (k + 4 < c->m)
        BF_PREFETCH(c->p0 + (size_t)c->pos[order[k + 4]] * c->nbk);
    if (k + 2 < c->m) {
        const uint32_t *r = c->p0 + (size_t)c->pos[order[k + 2]] * c->nbk;
        for (uint32_t j = 0; j < c->nbk; j++)
            BF_PREFETCH(&c->se[r[j] < c->m ? r[j] : 0]);
    }
}

/* One greedy pass in `order` that scans for conflicts; returns the pool
 * top, UINT64_MAX on oom, BF_GAVE_UP when it visited more than
 * BF_VISITS(m) candidates, or BF_OVER when a buffer would end past
 * PLAN_MAX_POOL_SIZE (alignment padding in this order can exceed the
 * naive plan's; the pass stops there, so every placed end stays below
 * 2^63 and no offset + size wraps). */
static uint64_t bf_pass(bf_ctx *c, const uint32_t *order, uint64_t *off) {
    for (uint32_t i = 0; i < c->m; i++) {
        c->se[i].end = 0;
        c->os[i].off = BF_UNPLACED;
    }
    c->nplaced = 0;
    c->visits = 0;
    uint64_t top = 0, limit = BF_VISITS(c->m);
    uint64_t pa = c->pb->align ? c->pb->align : 1;
    for (uint32_t k = 0; k < c->m; k++) {
        uint32_t b = order[k];
        const plan_buf *bb = &c->pb->bufs[b];
        uint64_t a = bb->align > pa ? bb->align : pa, cand;
        if (c->placed) {
            cand = bf_lowest_placed(c, bb, a);
        } else {
            bf_prefetch(c, order, k);
            if (bf_conflicts(c, b) != 0)
                return UINT64_MAX;
            cand = bf_lowest(c, bb->size, a);
        }
        if (c->visits > limit)
            return BF_GAVE_UP;
        /* the ends placed so far are <= PLAN_MAX_POOL_SIZE < 2^63, so cand
         * (an aligned end, alignments <= 2^63) is <= 2^63 */
        if (cand > PLAN_MAX_POOL_SIZE || bb->size > PLAN_MAX_POOL_SIZE - cand)
            return BF_OVER;
        off[b] = cand;
        if (cand + bb->size > top)
            top = cand + bb->size;
        c->se[c->pos[b]].end = bb->end;
        c->os[c->pos[b]].off = cand;
        if (c->placed)
            bf_insert_placed(c, bb, cand);
    }
    return top;
}

/* ---------------------------------------------------------------- */
/* The start-order pass: a treap of the live blocks by offset. */

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
static void bf_heap_push(bf_ctx *c, uint32_t *n, uint32_t k,
                         const uint32_t *e) {
    uint32_t i = (*n)++;
    while (i > 0 && e[c->heap[(i - 1) / 2]] > e[k]) {
        c->heap[i] = c->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    c->heap[i] = k;
}

static uint32_t bf_heap_pop(bf_ctx *c, uint32_t *n, const uint32_t *e) {
    uint32_t top = c->heap[0], last = c->heap[--*n], i = 0;
    for (;;) {
        uint32_t j = 2 * i + 1;
        if (j >= *n)
            break;
        if (j + 1 < *n && e[c->heap[j + 1]] < e[c->heap[j]])
            j++;
        if (e[c->heap[j]] >= e[last])
            break;
        c->heap[i] = c->heap[j];
        i = j;
    }
    if (*n)
        c->heap[i] = last;
    return top;
}

/* One greedy pass in `order` (non-decreasing starts): the placed
 * conflicts of a buffer are the blocks live at its start.  Returns the
 * pool top, UINT64_MAX on oom or BF_OVER as bf_pass.  O(n log n). */
static uint64_t bf_pass_start(bf_ctx *c, const uint32_t *order, uint64_t *off,
                              uint64_t cap) {
    bf_tn *t = c->tn;
    uint32_t root = BF_NIL, nheap = 0, *end = c->tend;
    uint64_t top = 0, pa = c->pb->align ? c->pb->align : 1;
    for (uint32_t k = 0; k < c->m; k++)
        end[k] = c->pb->bufs[order[k]].end;
    for (uint32_t k = 0; k < c->m; k++) {
        const plan_buf *bb = &c->pb->bufs[order[k]];
        while (nheap && end[c->heap[0]] < bb->start) {
            uint32_t x = bf_heap_pop(c, &nheap, end), lo, mid, hi;
            bf_split(t, root, t[x].off, &lo, &hi);
            bf_split(t, hi, t[x].off + 1, &mid, &hi);
            root = bf_merge(t, lo, hi);
        }
        uint64_t a = bb->align > pa ? bb->align : pa;
        uint64_t cand = bf_fit(t, root, bb->size, a, cap);
        if (cand > PLAN_MAX_POOL_SIZE || bb->size > PLAN_MAX_POOL_SIZE - cand)
            return BF_OVER;
        off[order[k]] = cand;
        if (cand + bb->size > top)
            top = cand + bb->size;
        t[k].off = cand;
        t[k].end = cand + bb->size;
        t[k].l = t[k].r = BF_NIL;
        t[k].pri = (uint32_t)((k + 1) * UINT64_C(0x9e3779b97f4a7c15) >> 32);
        bf_pull(t, k);
        uint32_t lo, hi;
        bf_split(t, root, cand, &lo, &hi);
        root = bf_merge(t, bf_merge(t, lo, k), hi);
        bf_heap_push(c, &nheap, k, end);
    }
    return top;
}
#define BF_LARGE 131072
/* Up to this many buffers, conflicts are found by scanning the placed
 * buffers in offset order (stopping at the first fitting gap), which
 * beats sorting the conflicts of dense instances. */
#define BF_SMALL 2048

/* The start order (ties in buffer order), then a stable counting sort by
 * lifetime bucket: bucket-major, start order inside each bucket. */
static int bf_setup_order(bf_ctx *c) {
    const plan_buf *bf = c->pb->bufs;
    uint64_t *v = malloc((size_t)c->m * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t q = 0; q < c->m; q++)
        v[q] = (uint64_t)bf[c->ids[q]].start << 32 | c->ids[q];
    if (plan_radix_sort_hi(v, c->m) != 0) {
        free(v);
        return -1;
    }
    for (uint32_t q = 0; q < c->m; q++)
        c->byst[q] = (uint32_t)v[q];
    free(v);
    uint32_t cnt[BF_BUCKETS + 1];
    memset(cnt, 0, sizeof cnt);
    for (uint32_t q = 0; q < c->m; q++)
        cnt[plan_life_bucket(&bf[c->byst[q]]) + 1]++;
    for (uint32_t k = 0; k < BF_BUCKETS; k++)
        cnt[k + 1] += cnt[k];
    for (uint32_t q = 0; q < c->m; q++)
        c->ids[cnt[plan_life_bucket(&bf[c->byst[q]])]++] = c->byst[q];
    for (uint32_t p = 0; p < c->m; p++) {
        c->pos[c->ids[p]] = p;
        c->starts[p] = bf[c->ids[p]].start;
    }
    return 0;
}

/* The lifetime buckets, the first candidate of every buffer in every
 * bucket (a monotone pointer per bucket over the buffers in start
 * order) and the slots the scans read. */
static int bf_setup_buckets(bf_ctx *c) {
    const plan_buf *bf = c->pb->bufs;
    for (uint32_t p = 0; p < c->m; p++) {
        const plan_buf *b = &bf[c->ids[p]];
        uint32_t k = plan_life_bucket(b);
        if (k + 1 > c->nbk) {
            for (uint32_t j = c->nbk; j <= k; j++)
                c->bk_lo[j] = c->bk_hi[j] = p;
            c->nbk = k + 1;
        }
        c->bk_hi[k] = p + 1;
        uint32_t len = b->end - b->start;
        if (len > c->bk_maxlen[k])
            c->bk_maxlen[k] = len;
    }
    c->p0 = malloc((size_t)c->m * c->nbk * sizeof *c->p0);
    c->se = malloc((size_t)c->m * sizeof *c->se);
    c->os = malloc((size_t)c->m * sizeof *c->os);
    if (!c->p0 || !c->se || !c->os)
        return -1;
    uint32_t ptr[BF_BUCKETS];
    for (uint32_t k = 0; k < c->nbk; k++)
        ptr[k] = c->bk_lo[k];
    for (uint32_t q = 0; q < c->m; q++) {
        uint32_t b = c->byst[q];
        uint32_t *row = c->p0 + (size_t)c->pos[b] * c->nbk;
        for (uint32_t k = 0; k < c->nbk; k++) {
            uint64_t from = bf[b].start > c->bk_maxlen[k]
                                ? (uint64_t)bf[b].start - c->bk_maxlen[k]
                                : 0;
            while (ptr[k] < c->bk_hi[k] && c->starts[ptr[k]] < from)
                ptr[k]++;
            row[k] = ptr[k];
        }
    }
    for (uint32_t p = 0; p < c->m; p++) {
        c->se[p].start = bf[c->ids[p]].start;
        c->os[p].size = bf[c->ids[p]].size;
    }
    return 0;
}

/* Contention keys (the highest live bytes during each buffer's life,
 * from a max tree over the live profile) into keys[p].k1, by position. */
static int bf_contention(const bf_ctx *c, bf_key *keys) {
    const plan_buf *bf = c->pb->bufs;
    uint32_t *axis = NULL;
    uint32_t na = plan_time_axis(c->pb, &axis);
    if (na == UINT32_MAX)
        return -1;
    uint32_t mw = 1;
    while (mw < na)
        mw *= 2;
    int64_t *mt = calloc(2 * (size_t)mw + 1, sizeof *mt);
    uint32_t *ti = malloc(2 * (size_t)c->m * sizeof *ti);
    if (!mt || !ti) {
        free(axis);
        free(mt);
        free(ti);
        return -1;
    }
    for (uint32_t p = 0; p < c->m; p++) {
        const plan_buf *b = &bf[c->ids[p]];
        ti[2 * p] = plan_time_index(axis, na, b->start);
        ti[2 * p + 1] = plan_time_index(axis, na, b->end);
        mt[mw + ti[2 * p]] += (int64_t)b->size;
        if (ti[2 * p + 1] + 1 < mw)
            mt[mw + ti[2 * p + 1] + 1] -= (int64_t)b->size;
    }
    for (uint32_t i = 1; i < mw; i++) /* prefix sums: the live profile */
        mt[mw + i] += mt[mw + i - 1];
    for (uint32_t i = mw - 1; i > 0; i--)
        mt[i] = mt[2 * i] > mt[2 * i + 1] ? mt[2 * i] : mt[2 * i + 1];
    for (uint32_t p = 0; p < c->m; p++) {
        int64_t m = 0;
        uint32_t l = ti[2 * p] + mw, r = ti[2 * p + 1] + mw + 1;
        for (; l < r; l /= 2, r /= 2) {
            if (l & 1) {
                m = mt[l] > m ? mt[l] : m;
                l++;
            }
            if (r & 1) {
                r--;
                m = mt[r] > m ? mt[r] : m;
            }
        }
        keys[p].k1 = (uint64_t)m;
        keys[p].k2 = bf[c->ids[p]].size;
    }
    free(axis);
    free(mt);
    free(ti);
    return 0;
}

/* The keys of ordering o (0 size, 3 contention, 4 start, 5.. perturbed
 * size) for the buffer at position p. */
static void bf_key_of(const bf_ctx *c, int o, uint32_t p, bf_key *k) {
    uint32_t i = c->ids[p];
    const plan_buf *b = &c->pb->bufs[i];
    uint64_t life = (uint64_t)b->end - b->start + 1;
    k->start = b->start;
    k->idx = i;
    if (o == 0) {
        k->k1 = b->size;
        k->k2 = life;
    } else if (o == 4) { /* start ascending: keys are descending, negate */
        k->k1 = UINT64_MAX - b->start;
        k->k2 = b->size;
    } else if (o != 3) { /* size perturbed by a seeded factor in [3/4, 5/4] */
        uint64_t h = (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15) +
                     (uint64_t)o * UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 29;
        h *= UINT64_C(0x94d049bb133111eb);
        h ^= h >> 32;
        uint64_t f = 768 + (h % 513);
        k->k1 = b->size > UINT64_MAX / 1024 ? b->size : b->size * f;
        k->k2 = life;
    }
}

/* The buffers in ordering o into order[]. */
static int bf_order(const bf_ctx *c, int o, bf_key *keys, uint32_t *order) {
    if (o == 4 && c->m > BF_LARGE) {
        /* large instances: start order, ties in buffer order (computed) */
        memcpy(order, c->byst, (size_t)c->m * sizeof *order);
        return 0;
    }
    if (o == 3 && bf_contention(c, keys) != 0)
        return -1;
    for (uint32_t p = 0; p < c->m; p++)
        bf_key_of(c, o, p, &keys[p]);
    qsort(keys, c->m, sizeof *keys, bf_cmp_key);
    for (uint32_t p = 0; p < c->m; p++)
        order[p] = keys[p].idx;
    return 0;
}

static int bf_alloc(bf_ctx *c, uint32_t n) {
    size_t n1 = (size_t)n + 1;
    c->ids = malloc(n1 * sizeof *c->ids);
    c->pos = malloc(n1 * sizeof *c->pos);
    c->starts = malloc(n1 * sizeof *c->starts);
    c->byst = malloc(n1 * sizeof *c->byst);
    c->tn = malloc(n1 * sizeof *c->tn);
    c->heap = malloc(n1 * sizeof *c->heap);
    c->tend = malloc(n1 * sizeof *c->tend);
    if (n <= BF_SMALL)
        c->placed = malloc(n1 * sizeof *c->placed);
    return c->ids && c->pos && c->starts && c->byst && c->tn && c->heap &&
                   c->tend && (n > BF_SMALL || c->placed)
               ? 0
               : -1;
}

static void bf_free(bf_ctx *c) {
    free(c->ids);
    free(c->pos);
    free(c->starts);
    free(c->byst);
    free(c->se);
    free(c->os);
    free(c->p0);
    free(c->iv);
    free(c->ivtmp);
    free(c->placed);
    free(c->tn);
    free(c->heap);
    free(c->tend);
}

/* Whether the overlapping pairs are so many that a scanning pass would
 * give up anyway: the buffers starting within each buffer's life,
 * counted with binary searches over the start order (pairs with equal
 * starts twice), against half the visit budget.  O(n log n). */
static bool bf_too_dense(const bf_ctx *c) {
    const plan_buf *bf = c->pb->bufs;
    uint64_t pairs = 0, limit = BF_VISITS(c->m) / 2;
    for (uint32_t q = 0; q < c->m && pairs <= limit; q++) {
        uint32_t e = bf[c->byst[q]].end, lo = q, hi = c->m;
        while (lo < hi) { /* first start after e */
            uint32_t mid = lo + (hi - lo) / 2;
            if (bf[c->byst[mid]].start <= e)
                lo = mid + 1;
            else
                hi = mid;
        }
        pairs += lo - q - 1;
    }
    return pairs > limit;
}

/* (ordering, two-sided) per pass; above BF_LARGE buffers, two passes
 * (size; start two-sided) keep 10^6 buffers within a second. */
static const int bf_full[][2] = {{0, 0},  {3, 0},  {4, 1}, {5, 0},
                                 {6, 0},  {7, 0},  {8, 0}, {9, 0},
                                 {10, 0}, {11, 0}, {12, 0}};
static const int bf_large[][2] = {{0, 0}, {4, 1}};

/* Runs every pass; the smallest pool into offsets and *best (UINT64_MAX
 * when every pass passed PLAN_MAX_POOL_SIZE).  Returns 0 or -1. */
static int bf_passes(bf_ctx *c, uint64_t lb, bool dense, uint64_t *offsets,
                     uint64_t *best) {
    const int(*passes)[2] = c->m > BF_LARGE ? bf_large : bf_full;
    int np = c->m > BF_LARGE ? 2 : (int)(sizeof bf_full / sizeof bf_full[0]);
    uint64_t *off = malloc((size_t)c->pb->n * sizeof *off + 1);
    bf_key *keys = malloc(((size_t)c->m + 1) * sizeof *keys);
    uint32_t *order = malloc(((size_t)c->m + 1) * sizeof *order);
    int rc = -1;
    bool gave_up = dense;
    *best = UINT64_MAX;
    for (int pass = 0; off && keys && order && pass < np; pass++) {
        int o = passes[pass][0];
        if (o != 4 && gave_up)
            continue; /* too dense to scan (known before, or a pass gave
                         up): only the start-order pass runs */
        if (bf_order(c, o, keys, order) != 0)
            goto out;
        uint64_t top =
            o == 4 ? bf_pass_start(c, order, off, passes[pass][1] ? lb : 0)
                   : bf_pass(c, order, off);
        if (top == UINT64_MAX)
            goto out;
        gave_up = gave_up || top == BF_GAVE_UP;
        if (top >= BF_GAVE_UP)
            continue; /* the naive plan is smaller, or too dense */
        if (top < *best) {
            *best = top;
            for (uint32_t p = 0; p < c->m; p++)
                offsets[c->ids[p]] = off[c->ids[p]];
        }
    }
    rc = off && keys && order ? 0 : -1;
out:
    free(off);
    free(keys);
    free(order);
    return rc;
}

static int plan_bestfit_core(const plan_problem *pb, uint64_t *offsets,
                             uint64_t *size) {
    uint32_t n = pb->n;
    bf_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    int rc = -1;
    if (bf_alloc(&c, n) != 0)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        offsets[i] = 0;
        if (pb->bufs[i].size)
            c.ids[c.m++] = i;
    }
    if (c.m == 0) {
        *size = 0;
        rc = 0;
        goto out;
    }
    if (c.m > BF_SMALL) {
        free(c.placed);
        c.placed = NULL;
    }
    uint64_t best, lb = plan_lower_bound(pb); /* the two-sided cap */
    bool dense = false;
    if (bf_setup_order(&c) != 0 ||
        (!(dense = bf_too_dense(&c)) && bf_setup_buckets(&c) != 0) ||
        bf_passes(&c, lb, dense, offsets, &best) != 0)
        goto out;
    *size = plan_align_up(best, pb->align ? pb->align : 1);
    /* never worse than naive (which alignment padding can make smaller
     * when every buffer overlaps every other; when every pass is BF_OVER,
     * best is UINT64_MAX and naive wins) */
    uint64_t nsize = 0, *off = malloc(((size_t)n + 1) * sizeof *off);
    if (!off)
        goto out;
    if (plan_naive(pb, off, &nsize) == 0 && nsize < *size) {
        memcpy(offsets, off, (size_t)n * sizeof *offsets);
        *size = nsize;
    }
    free(off);
    rc = 0;
out:
    bf_free(&c);
    return rc;
}

int plan_bestfit(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_bestfit_core, offsets, size);
}

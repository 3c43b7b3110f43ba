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
 *    exactly the ones live at its start: a first-fit allocator over the
 *    live blocks (planner/bestfit_start.c), O(n log n) on every input.
 *  - In any other order, an interval structure: the buffers are grouped
 *    by lifetime in buckets of powers of 4 and sorted by start inside
 *    each; the conflicts of [s, e] in a bucket whose longest lifetime is L
 *    start in [s - L, e], a contiguous run (its first position
 *    precomputed for every buffer with a monotone pointer) streamed in
 *    order without branches, then a heap by offset popped up to the first
 *    gap that fits.  The queries of a pass are gathered in pass order
 *    first and their runs prefetched a few queries ahead: the order is
 *    random in memory, and a pass is bound by memory latency.  A pass
 *    costs O(n log n + C), C the number of overlapping pairs, so such a
 *    pass stops (and is dropped) when it has visited BF_VISITS(n)
 *    candidates, and once one has stopped the others are skipped: when
 *    every buffer overlaps every other, only the start-order pass runs
 *    and bestfit stays O(n log n).  Up to 2048 buffers, the placed
 *    buffers are scanned by offset instead (stopping at the first gap),
 *    with the same visit budget.  Above 2048, the order of such a pass is
 *    first rearranged to sweep time (plan_bf_sweep_order,
 *    planner/bestfit_blocks.c) without changing any offset, so that the
 *    pass reads one stretch of the instance at a time.
 *  - Above 2048 buffers, every pass but the start-order one walks
 *    offset-sorted lists of time blocks instead (plan_bf_block_pass, the
 *    same offsets, no sort of the conflicts; the scanning pass when its
 *    lists would be too long); above 131072 its sweep may bend the size
 *    order where more than 16384 buffers would wait (the plan stays
 *    valid; at 10^6 the pools measured are the same size).
 *
 * Passes (ties broken by start, then buffer order): size descending;
 * contention (the highest live bytes during the buffer's life)
 * descending; start ascending two-sided (a buffer that cannot go at
 * offset 0 goes as high as it fits under the lower bound, which makes
 * chains alternate between the bottom and the top of the pool and reach
 * the lower bound); then eight passes of size descending with each size
 * scaled by a seeded factor in [3/4, 5/4] (a deterministic hash of the
 * buffer and the pass), which on the minimalloc instances takes the
 * geometric mean from 1.289x to 1.275x of the lower bound.  The passes
 * share a work budget of PLAN_BF_WORK buffer placements (4.5 * 131072):
 * pass i (from 0) runs only while i * n stays under it, so all eleven
 * run up to 58982 buffers, six at 10^5, five at 131072, never fewer than
 * the first three: the time of bestfit stays flat from 58982 to 131072
 * buffers, and its time per buffer at 10^5 is about 4 times that at
 * 10^6 instead of 7 (a count of n alone: the plan stays deterministic;
 * one pool 0.04% larger on the instances measured).  Above 131072
 * buffers only two passes run (size; start two-sided), the second only
 * when the first is more than 1% above the lower bound (it could gain at
 * most that).  The smallest pool wins (the first pass on ties), so the
 * result is deterministic; the naive plan is kept when it is smaller
 * (alignment padding).  Above 131072 buffers, planner/bestfit_large.c
 * runs those two passes with fewer sweeps over memory (the same plan;
 * the general path below when its keys do not fit).
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct bf_key {
    uint64_t k1, k2;
} bf_key;

typedef struct bf_iv {
    uint64_t lo, hi;
} bf_iv;

#define BF_BUCKETS PLAN_LIFE_BUCKETS

#if defined(__GNUC__)
#define BF_PREFETCH(p) __builtin_prefetch(p)
#else
#define BF_PREFETCH(p) ((void)(p))
#endif

/* What a conflict scan reads about every position it visits, in one
 * stream: its life and its bytes [lo, hi), an empty interval at 0 (and
 * end 0) until it is placed, which the lowest-gap search passes over. */
typedef struct bf_slot {
    uint32_t start, end;
    uint64_t lo, hi;
} bf_slot;

typedef struct bf_placed {
    uint64_t off, size;
    uint32_t start, end;
} bf_placed;

/* How many queries ahead a scanning pass prefetches. */
#define BF_AHEAD 16

/* The candidates a scanning pass may visit before it gives up: enough
 * for about 100 conflicts per buffer. */
#define BF_VISITS(m) PLAN_BF_VISITS(m)

typedef struct bf_ctx {
    const plan_problem *pb;
    uint32_t m;       /* nonzero buffers */
    uint32_t *ids;    /* position in start order -> buffer */
    uint32_t *pos;    /* buffer -> position in start order */
    uint32_t *starts; /* per position: its start */
    uint32_t *sst;    /* the starts in start order */
    uint32_t *byst;   /* the nonzero buffers in start order */
    uint32_t nbk;     /* length buckets */
    uint32_t bk_lo[BF_BUCKETS], bk_hi[BF_BUCKETS]; /* position ranges */
    uint32_t bk_maxlen[BF_BUCKETS];
    uint64_t bk_rate[BF_BUCKETS]; /* starts per unit of time, x256 */
    uint32_t *p0;                 /* per position and bucket: first candidate */
    bf_slot *slot;                /* per position */
    struct bf_q *qry;             /* per pass position: the query (bf_gather) */
    uint32_t *qp0;                /* per pass position: its p0 row */
    bf_iv *iv;
    size_t niv, capiv;
    uint64_t visits; /* candidates visited by this pass */
    /* small instances: the placed buffers sorted by offset */
    bf_placed *placed;
    uint32_t nplaced;
    uint32_t maxlive; /* the most buffers live at once */
    uint64_t *stv;    /* start << 32 | buffer, sorted */
    uint64_t lb;      /* the lower bound (the two-sided cap) */
} bf_ctx;

static int bf_grow(bf_ctx *c) {
    size_t cap = c->capiv ? c->capiv * 2 : 64;
    bf_iv *ni = realloc(c->iv, cap * sizeof *ni);
    if (!ni)
        return -1;
    c->iv = ni;
    c->capiv = cap;
    return 0;
}

/* A query of a scanning pass, gathered in pass order before it runs (so
 * that the pass reads them sequentially; its first candidates per bucket
 * are in c->qp0, nbk per query). */
typedef struct bf_q {
    uint32_t s, e, p, pad;
    uint64_t size, a, off;
} bf_q;

/* Collects the placed buffers conflicting with query q (its first
 * candidates p0) into c->iv: in each lifetime bucket, the buffers starting
 * in [s - maxlen, e] are scanned in order, each copied and kept when its
 * end is at least s (branch-free: the scan streams). */
static int bf_conflicts(bf_ctx *c, const bf_q *q, const uint32_t *p0) {
    uint32_t s = q->s, e = q->e;
    const bf_slot *sl = c->slot;
    size_t n = 0;
    for (uint32_t k = 0; k < c->nbk; k++) {
        uint32_t hi = c->bk_hi[k], p = p0[k];
        for (; p < hi && sl[p].start <= e; p++) {
            if (n + 1 >= c->capiv) {
                c->niv = n;
                if (bf_grow(c) != 0)
                    return -1;
            }
            c->iv[n].lo = sl[p].lo;
            c->iv[n].hi = sl[p].hi;
            n += sl[p].end >= s;
        }
        c->visits += p - p0[k];
    }
    c->niv = n;
    return 0;
}

/* What the passes return for a layout that passes PLAN_MAX_POOL_SIZE,
 * and for a scanning pass that ran out of visits. */
#define BF_OVER PLAN_BF_OVER
#define BF_GAVE_UP PLAN_BF_GAVE_UP

/* The lowest aligned offset of a buffer of `size` above the (sorted,
 * disjoint or not) intervals c->iv. */
/* Restores the min-heap order (by lo) of iv[0..n) below position i;
 * iv[n].lo is UINT64_MAX (a sentinel: the child choice is branch-free). */
static void bf_sift(bf_iv *iv, size_t n, size_t i) {
    bf_iv v = iv[i];
    for (;;) {
        size_t j = 2 * i + 1;
        if (j >= n)
            break;
        j += iv[j + 1].lo < iv[j].lo;
        if (iv[j].lo >= v.lo)
            break;
        iv[i] = iv[j];
        i = j;
    }
    iv[i] = v;
}

/* The lowest aligned offset of a buffer of `size` above the intervals
 * c->iv (unsorted; room for one more): a heap by lo, popped only up to
 * the first gap that fits (a partial sort: O(k + j log k) for j
 * intervals below it). */
static uint64_t bf_lowest(bf_ctx *c, uint64_t size, uint64_t a) {
    bf_iv *iv = c->iv;
    size_t n = c->niv;
    uint64_t minlo = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        minlo = iv[i].lo < minlo ? iv[i].lo : minlo;
    if (minlo >= size)
        return 0; /* below every conflict (also: none) */
    iv[n].lo = UINT64_MAX;
    for (size_t i = n / 2; i-- > 0;)
        bf_sift(iv, n, i);
    uint64_t cand = 0;
    while (n > 0) {
        if (cand + size <= iv[0].lo)
            break;
        if (iv[0].hi > cand)
            cand = plan_align_up(iv[0].hi, a);
        iv[0] = iv[--n];
        iv[n].lo = UINT64_MAX;
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

/* Prefetches the first lines of each run query q will scan (its
 * expected length: the run's time span times the bucket's starts per
 * unit of time). */
static void bf_prefetch(const bf_ctx *c, const bf_q *q, const uint32_t *p0) {
    uint64_t len = (uint64_t)q->e - q->s + 1;
    for (uint32_t j = 0; j < c->nbk; j++) {
        uint64_t est = (len + c->bk_maxlen[j]) * c->bk_rate[j] >> 8;
        uint32_t hi = c->bk_hi[j];
        if (p0[j] >= hi)
            continue;
        uint64_t last = p0[j] + est < hi ? p0[j] + est : hi - 1;
        const char *p = (const char *)&c->slot[p0[j]];
        const char *z = (const char *)&c->slot[last];
        for (int l = 0; p <= z && l < 32; p += 64, l++)
            BF_PREFETCH(p);
    }
}

/* The queries of `order` in order (see bf_q). */
static void bf_gather(bf_ctx *c, const uint32_t *order) {
    uint64_t pa = c->pb->align ? c->pb->align : 1;
    uint32_t nbk = c->nbk;
    for (uint32_t k = 0; k < c->m; k++) {
        const plan_buf *bb = &c->pb->bufs[order[k]];
        bf_q *q = &c->qry[k];
        q->s = bb->start;
        q->e = bb->end;
        q->p = c->pos[order[k]];
        q->size = bb->size;
        q->a = bb->align > pa ? bb->align : pa;
        memcpy(c->qp0 + (size_t)k * nbk, c->p0 + (size_t)q->p * nbk,
               nbk * sizeof *c->qp0);
    }
}

/* One greedy pass in `order` that scans for conflicts (see bf_pass). */
static uint64_t bf_pass_scan(bf_ctx *c, const uint32_t *order, uint64_t *off) {
    for (uint32_t i = 0; i < c->m; i++) {
        c->slot[i].end = 0;
        c->slot[i].lo = c->slot[i].hi = 0;
    }
    bf_gather(c, order);
    c->visits = 0;
    uint64_t top = 0, limit = BF_VISITS(c->m);
    for (uint32_t k = 0; k < c->m; k++) {
        bf_q *q = &c->qry[k];
        const uint32_t *p0 = c->qp0 + (size_t)k * c->nbk;
        if (k + BF_AHEAD < c->m)
            bf_prefetch(c, q + BF_AHEAD, p0 + BF_AHEAD * c->nbk);
        if (bf_conflicts(c, q, p0) != 0)
            return UINT64_MAX;
        uint64_t cand = bf_lowest(c, q->size, q->a);
        if (c->visits > limit)
            return BF_GAVE_UP;
        /* as in bf_pass */
        if (cand > PLAN_MAX_POOL_SIZE || q->size > PLAN_MAX_POOL_SIZE - cand)
            return BF_OVER;
        q->off = cand;
        if (cand + q->size > top)
            top = cand + q->size;
        bf_slot *sl = &c->slot[q->p];
        sl->end = q->e;
        sl->lo = cand;
        sl->hi = cand + q->size;
    }
    for (uint32_t k = 0; k < c->m; k++)
        off[order[k]] = c->qry[k].off;
    return top;
}

/* One greedy pass in `order` that scans for conflicts; returns the pool
 * top, UINT64_MAX on oom, BF_GAVE_UP when it visited more than
 * BF_VISITS(m) candidates, or BF_OVER when a buffer would end past
 * PLAN_MAX_POOL_SIZE (alignment padding in this order can exceed the
 * naive plan's; the pass stops there, so every placed end stays below
 * 2^63 and no offset + size wraps).  Small instances scan the placed
 * buffers in offset order. */
static uint64_t bf_pass(bf_ctx *c, const uint32_t *order, uint64_t *off) {
    if (!c->placed)
        return bf_pass_scan(c, order, off);
    c->nplaced = 0;
    c->visits = 0;
    uint64_t top = 0, limit = BF_VISITS(c->m);
    uint64_t pa = c->pb->align ? c->pb->align : 1;
    for (uint32_t k = 0; k < c->m; k++) {
        uint32_t b = order[k];
        const plan_buf *bb = &c->pb->bufs[b];
        uint64_t a = bb->align > pa ? bb->align : pa;
        uint64_t cand = bf_lowest_placed(c, bb, a);
        if (c->visits > limit)
            return BF_GAVE_UP;
        /* the ends placed so far are <= PLAN_MAX_POOL_SIZE < 2^63, so cand
         * (an aligned end, alignments <= 2^63) is <= 2^63 */
        if (cand > PLAN_MAX_POOL_SIZE || bb->size > PLAN_MAX_POOL_SIZE - cand)
            return BF_OVER;
        off[b] = cand;
        if (cand + bb->size > top)
            top = cand + bb->size;
        bf_insert_placed(c, bb, cand);
    }
    return top;
}

#define BF_LARGE PLAN_BF_LARGE
/* Up to this many buffers, conflicts are found by scanning the placed
 * buffers in offset order (stopping at the first fitting gap), which
 * beats sorting the conflicts of dense instances. */
#define BF_SMALL 2048

/* The start order (ties in buffer order), then a stable counting sort by
 * lifetime bucket: bucket-major, start order inside each bucket. */
static int bf_setup_order(bf_ctx *c) {
    const plan_buf *bf = c->pb->bufs;
    uint64_t *v = malloc((size_t)c->m * sizeof *v);
    uint8_t *bk = malloc((size_t)c->pb->n + 1);
    if (!v || !bk) {
        free(v);
        free(bk);
        return -1;
    }
    uint32_t cnt[BF_BUCKETS + 1];
    memset(cnt, 0, sizeof cnt);
    for (uint32_t q = 0; q < c->m; q++) { /* ids ascending: sequential */
        const plan_buf *b = &bf[c->ids[q]];
        uint32_t k = plan_life_bucket(b);
        bk[c->ids[q]] = (uint8_t)k;
        cnt[k + 1]++;
        if (k + 1 > c->nbk)
            c->nbk = k + 1;
        if (b->end - b->start > c->bk_maxlen[k])
            c->bk_maxlen[k] = b->end - b->start;
        v[q] = (uint64_t)b->start << 32 | c->ids[q];
    }
    if (plan_radix_sort_hi(v, c->m) != 0) {
        free(v);
        free(bk);
        return -1;
    }
    for (uint32_t k = 0; k < BF_BUCKETS; k++)
        cnt[k + 1] += cnt[k];
    for (uint32_t k = 0; k < c->nbk; k++) {
        c->bk_lo[k] = cnt[k];
        c->bk_hi[k] = cnt[k + 1];
    }
    for (uint32_t q = 0; q < c->m; q++) {
        uint32_t b = (uint32_t)v[q], p = cnt[bk[b]]++;
        c->byst[q] = b;
        c->sst[q] = (uint32_t)(v[q] >> 32);
        c->ids[p] = b;
        c->pos[b] = p;
        c->starts[p] = c->sst[q];
    }
    c->stv = v; /* for the lower bound */
    free(bk);
    return 0;
}

/* The first candidate of every buffer in every bucket: bucket by bucket,
 * the buffers in start order with a monotone pointer per bucket (written
 * row after row), and the slots the scans read. */
static int bf_setup_buckets(bf_ctx *c) {
    c->p0 = malloc((size_t)c->m * c->nbk * sizeof *c->p0);
    c->slot = malloc((size_t)c->m * sizeof *c->slot);
    c->qry = malloc((size_t)c->m * sizeof *c->qry);
    c->qp0 = malloc((size_t)c->m * c->nbk * sizeof *c->qp0);
    if (!c->p0 || !c->slot || !c->qry || !c->qp0)
        return -1;
    for (uint32_t k = 0; k < c->nbk; k++) {
        uint32_t cnt = c->bk_hi[k] - c->bk_lo[k];
        uint64_t span = cnt ? (uint64_t)c->starts[c->bk_hi[k] - 1] -
                                  c->starts[c->bk_lo[k]] + 1
                            : 1;
        c->bk_rate[k] = ((uint64_t)cnt << 8) / span + 1;
    }
    for (uint32_t j = 0; j < c->nbk; j++) {
        uint32_t ptr[BF_BUCKETS];
        for (uint32_t k = 0; k < c->nbk; k++)
            ptr[k] = c->bk_lo[k];
        for (uint32_t p = c->bk_lo[j]; p < c->bk_hi[j]; p++) {
            uint32_t *row = c->p0 + (size_t)p * c->nbk, st = c->starts[p];
            for (uint32_t k = 0; k < c->nbk; k++) {
                uint32_t from = st > c->bk_maxlen[k] ? st - c->bk_maxlen[k] : 0;
                while (ptr[k] < c->bk_hi[k] && c->starts[ptr[k]] < from)
                    ptr[k]++;
                row[k] = ptr[k];
            }
        }
    }
    for (uint32_t p = 0; p < c->m; p++)
        c->slot[p].start = c->starts[p];
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

/* Stably sorts the positions in v (payload: low 32 bits) by key
 * descending, the key of position p being k[p].k1 (hi) or .k2: two radix
 * passes of 32 bits, each skipped when every key has the same half. */
static int bf_sort_desc(uint64_t *v, uint32_t m, const bf_key *k, bool hi) {
    uint64_t any = 0, all = UINT64_MAX; /* the halves that vary: read the
                                           keys in order, not v's */
    for (uint32_t p = 0; p < m; p++) {
        uint64_t key = hi ? k[p].k1 : k[p].k2;
        any |= key;
        all &= key;
    }
    for (unsigned half = 0; half < 64; half += 32) {
        if ((any >> half & 0xffffffffu) == (all >> half & 0xffffffffu))
            continue; /* one value everywhere: nothing moves */
        for (uint32_t q = 0; q < m; q++) {
            uint32_t p = (uint32_t)v[q];
            uint64_t key = ~(hi ? k[p].k1 : k[p].k2) >> half & 0xffffffffu;
            v[q] = key << 32 | p;
        }
        if (plan_radix_sort_hi(v, m) != 0)
            return -1;
    }
    return 0;
}

/* The buffers in ordering o into order[]: keys k1, k2 descending, then
 * start and buffer index ascending (the start order, sorted stably). */
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
    uint64_t *v = malloc((size_t)c->m * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t q = 0; q < c->m; q++)
        v[q] = c->pos[c->byst[q]];
    int rc = bf_sort_desc(v, c->m, keys, false) != 0 ||
                     bf_sort_desc(v, c->m, keys, true) != 0
                 ? -1
                 : 0;
    for (uint32_t q = 0; rc == 0 && q < c->m; q++)
        order[q] = c->ids[(uint32_t)v[q]];
    free(v);
    if (rc == 0 && o != 4 && c->m > BF_SMALL)
        rc = plan_bf_sweep_order(c->pb, c->byst, c->sst, c->m, order,
                                 c->m <= BF_LARGE);
    return rc;
}

static int bf_alloc(bf_ctx *c, uint32_t n) {
    size_t n1 = (size_t)n + 1;
    c->ids = malloc(n1 * sizeof *c->ids);
    c->pos = malloc(n1 * sizeof *c->pos);
    c->starts = malloc(n1 * sizeof *c->starts);
    c->sst = malloc(n1 * sizeof *c->sst);
    c->byst = malloc(n1 * sizeof *c->byst);
    if (n <= BF_SMALL)
        c->placed = malloc(n1 * sizeof *c->placed);
    return c->ids && c->pos && c->starts && c->sst && c->byst &&
                   (n > BF_SMALL || c->placed)
               ? 0
               : -1;
}

static void bf_free(bf_ctx *c) {
    free(c->ids);
    free(c->pos);
    free(c->starts);
    free(c->sst);
    free(c->stv);
    free(c->byst);
    free(c->slot);
    free(c->qry);
    free(c->qp0);
    free(c->p0);
    free(c->iv);
    free(c->placed);
}

/* Sets c->maxlive and c->lb (plan_lower_bound).  Whether the overlapping pairs
 * are so many that a scanning pass would give up anyway: for each buffer, the
 * buffers starting after it and no later than its end (pairs with equal starts
 * twice), counted by merging the starts with the sorted ends, against half the
 * visit budget. O(n).  Returns 1, 0, or -1 (out of memory). */
static int bf_too_dense(bf_ctx *c) {
    const plan_buf *bf = c->pb->bufs;
    uint64_t *v = malloc((size_t)c->m * sizeof *v);
    if (!v)
        return -1;
    uint32_t k = 0;
    for (uint32_t i = 0; i < c->pb->n; i++)
        if (bf[i].size)
            v[k++] = (uint64_t)bf[i].end << 32 | i;
    if (plan_radix_sort_hi(v, c->m) != 0) {
        free(v);
        return -1;
    }
    /* the sum over buffers of (#starts <= its end) minus, for each, its
     * rank in start order + 1 */
    uint64_t sum = 0, m = c->m;
    uint32_t j = 0;
    for (uint32_t q = 0; q < c->m; q++) {
        uint32_t e = (uint32_t)(v[q] >> 32);
        while (j < c->m && c->sst[j] <= e)
            j++;
        sum += j;
    }
    /* the most buffers live at one start (for bf_pass_start) */
    c->maxlive = 0;
    j = 0;
    for (uint32_t q = 0; q < c->m; q++) {
        while (j < c->m && v[j] >> 32 < c->sst[q])
            j++;
        if (q + 1 - j > c->maxlive)
            c->maxlive = q + 1 - j;
    }
    c->lb = plan_lower_bound_sorted(c->pb, c->stv, v, c->m);
    free(v);
    return sum - m * (m + 1) / 2 > BF_VISITS(c->m) / 2;
}

/* (ordering, two-sided) per pass; above BF_LARGE buffers, two passes
 * (size; start two-sided) keep 10^6 buffers within a second. */
static const int bf_full[][2] = {{0, 0},  {3, 0},  {4, 1}, {5, 0},
                                 {6, 0},  {7, 0},  {8, 0}, {9, 0},
                                 {10, 0}, {11, 0}, {12, 0}};
static const int bf_large[][2] = {{0, 0}, {4, 1}};

/* Above BF_LARGE buffers, the start-order pass runs only when the size
 * pass is more than 1/BF_CLOSE above the lower bound. */
#define BF_CLOSE PLAN_BF_CLOSE

/* One pass of ordering o (see bf_passes): the start-order pass (which
 * ends early once its top reaches `best`, the smallest pool so far), the
 * block pass above BF_SMALL buffers (the scanning pass when its lists
 * would be too long), or the scanning pass. */
static uint64_t bf_run_pass(bf_ctx *c, int o, uint64_t cap, uint64_t best,
                            const uint32_t *order, uint64_t *off) {
    if (o == 4)
        return plan_bf_start_pass(c->pb, order, c->m, c->maxlive, cap, best,
                                  off);
    if (c->m > BF_SMALL) {
        uint64_t top =
            plan_bf_block_pass(c->pb, c->byst, c->sst, c->m, order, off);
        if (top != PLAN_BF_NO_LAYOUT)
            return top;
    }
    if (!c->slot && bf_setup_buckets(c) != 0)
        return UINT64_MAX;
    return bf_pass(c, order, off);
}

/* How many passes of bf_full run for m buffers (see PLAN_BF_WORK). */
int plan_bf_npasses(uint32_t m) {
    int full = (int)(sizeof bf_full / sizeof bf_full[0]);
    if (m > BF_LARGE)
        return 2;
    int np = 0;
    while (np < full && (uint64_t)np * m < PLAN_BF_WORK)
        np++;
    return np;
}

/* Runs the first plan_bf_npasses(m) passes, stopping once a top is at
 * the lower bound lb when no later pass can have a lower top (ties keep
 * the first pass's plan, so the plan is the one every pass would give);
 * the smallest pool into offsets and *best (UINT64_MAX when every pass
 * passed PLAN_MAX_POOL_SIZE).  Returns 0 or -1. */
static int bf_passes(bf_ctx *c, uint64_t lb, bool dense, uint64_t *offsets,
                     uint64_t *best) {
    const int(*passes)[2] = c->m > BF_LARGE ? bf_large : bf_full;
    int np = plan_bf_npasses(c->m);
    uint64_t *off = malloc((size_t)c->pb->n * sizeof *off + 1);
    bf_key *keys = malloc(((size_t)c->m + 1) * sizeof *keys);
    uint32_t *order = malloc(((size_t)c->m + 1) * sizeof *order);
    int rc = -1;
    bool gave_up = dense;
    *best = UINT64_MAX;
    /* with every size a multiple of the pool alignment, every pass's top
     * is at least lb (the aligned sizes live at one time) */
    uint64_t a = c->pb->align ? c->pb->align : 1;
    bool exact = true;
    for (uint32_t p = 0; p < c->m; p++)
        exact = exact && c->pb->bufs[c->ids[p]].size % a == 0;
    for (int pass = 0; off && keys && order && pass < np; pass++) {
        int o = passes[pass][0];
        if (o != 4 && gave_up)
            continue; /* too dense to scan (known before, or a pass gave
                         up): only the start-order pass runs */
        if (exact && *best <= lb)
            break; /* at the lower bound: no pass can do better */
        if (c->m > BF_LARGE && *best <= lb + lb / BF_CLOSE)
            continue; /* close enough: the other pass can gain little */
        if (bf_order(c, o, keys, order) != 0)
            goto out;
        uint64_t top =
            bf_run_pass(c, o, passes[pass][1] ? lb : 0, *best, order, off);
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

/* Every pass of the general path (any size): the pool top into *best. */
static int bf_general(bf_ctx *c, uint64_t *offsets, uint64_t *best) {
    int dense = bf_setup_order(c) != 0 ? -1 : bf_too_dense(c);
    if (dense < 0 || (!dense && c->m <= BF_SMALL && bf_setup_buckets(c) != 0))
        return -1;
    return bf_passes(c, c->lb, dense != 0, offsets, best);
}

/* One colour class: the plan, and the lower bound of pb (computed on
 * the way) into *lb. */
static int bf_core(const plan_problem *pb, uint64_t *offsets, uint64_t *size,
                   bool large_path, uint64_t *lb) {
    uint32_t n = pb->n, m = 0;
    uint64_t total = 0; /* below 2^63: pb passed plan_problem_ok */
    bf_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    *size = 0;
    *lb = 0;
    uint64_t best;
    /* (it counts the nonzero buffers itself, reading them once fewer) */
    int large = large_path && n > BF_LARGE
                    ? plan_bf_large(pb, offsets, &best, lb, &total)
                    : 1;
    int rc = large < 0 ? -1 : 0;
    if (large > 0) { /* the general path: its arrays */
        total = 0;
        for (uint32_t i = 0; i < n; i++) {
            offsets[i] = 0;
            m += pb->bufs[i].size != 0;
            total += pb->bufs[i].size;
        }
        if (m == 0)
            return 0;
        rc = bf_alloc(&c, n);
        for (uint32_t i = 0; rc == 0 && i < n; i++)
            if (pb->bufs[i].size)
                c.ids[c.m++] = i;
        if (rc == 0 && c.m > BF_SMALL) {
            free(c.placed);
            c.placed = NULL;
        }
        rc = rc == 0 ? bf_general(&c, offsets, &best) : -1;
        *lb = c.lb;
        bf_free(&c);
    }
    if (rc != 0)
        return rc;
    *size = plan_align_up(best, pb->align ? pb->align : 1);
    /* never worse than naive (which alignment padding can make smaller
     * when every buffer overlaps every other; when every pass is BF_OVER,
     * best is UINT64_MAX and naive wins); naive's pool holds every size,
     * so it can win only when this one is larger than their sum */
    if (*size > total && plan_naive_size(pb, NULL) < *size)
        *size = plan_naive_size(pb, offsets);
    return 0;
}

static int plan_bestfit_core(const plan_problem *pb, uint64_t *offsets,
                             uint64_t *size) {
    uint64_t lb;
    return bf_core(pb, offsets, size, true, &lb);
}

static int bf_general_core(const plan_problem *pb, uint64_t *offsets,
                           uint64_t *size) {
    uint64_t lb;
    return bf_core(pb, offsets, size, false, &lb);
}

int plan_bestfit(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_bestfit_core, offsets, size);
}

/* In one colour class the passes' own bound (they need it); with several,
 * each class gets its own, so the whole problem's is computed after. */
int plan_bestfit_lb(const plan_problem *pb, uint64_t *offsets, uint64_t *size,
                    uint64_t *lower_bound) {
    if (!plan_problem_ok(pb))
        return -1;
    if (plan_one_class(pb))
        return bf_core(pb, offsets, size, true, lower_bound);
    if (plan_run_colored(pb, plan_bestfit_core, offsets, size) != 0)
        return -1;
    size_t bytes = plan_lower_bound_scratch_size(pb);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return -1;
    *lower_bound = plan_lower_bound_in(pb, scratch, bytes);
    free(scratch);
    return 0;
}

int plan_bestfit_general(const plan_problem *pb, uint64_t *offsets,
                         uint64_t *size) {
    return plan_run_colored(pb, bf_general_core, offsets, size);
}

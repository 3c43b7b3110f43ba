/*
 * planner/bestfit.c - `bestfit`: greedy placement into the lowest gap,
 * best of several orderings.
 *
 * For one ordering, each buffer in turn goes to the lowest aligned offset
 * where it fits between the already placed buffers it conflicts with
 * (those whose live intervals overlap its own).  This is the family of
 * TensorFlow Lite Micro's greedy planner and XLA's heap simulator; those
 * test every placed buffer (O(n^2)).  Here the placed buffers are found
 * with an interval structure: the buffers are grouped by lifetime in
 * buckets of powers of 16 and sorted by start inside each; the conflicts
 * of [s, e] in a bucket whose longest lifetime is L start in
 * [s - L, e], a contiguous run (its first position precomputed once
 * for every buffer with a monotone pointer) scanned in order.  The
 * buffers of a bucket live at least 1/16 of its longest lifetime, so a
 * run holds O(overlaps) buffers and one ordering costs O(n log n + C),
 * C the number of overlapping pairs, with sequential memory access.
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

/* Sorts intervals by lo (a bottom-up merge sort with the comparison
 * inline: the conflict lists of dense instances are long). */
static void bf_sort_iv(bf_iv *a, bf_iv *tmp, size_t n) {
    for (size_t i = 1; i < n && n <= 16; i++) {
        bf_iv v = a[i];
        size_t j = i;
        while (j > 0 && a[j - 1].lo > v.lo) {
            a[j] = a[j - 1];
            j--;
        }
        a[j] = v;
    }
    if (n <= 16)
        return;
    bf_iv *src = a, *dst = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                dst[k++] = src[j].lo < src[i].lo ? src[j++] : src[i++];
            while (i < mid)
                dst[k++] = src[i++];
            while (j < hi)
                dst[k++] = src[j++];
        }
        bf_iv *t = src;
        src = dst;
        dst = t;
    }
    if (src != a)
        memcpy(a, src, n * sizeof *a);
}

/* Buckets of lifetimes: bucket k holds end - start + 1 in [16^k, 16^(k+1)). */
#define BF_BUCKETS 9

static uint32_t bf_bucket(const plan_buf *b) {
    uint64_t len = (uint64_t)b->end - b->start + 1;
    uint32_t k = 0;
    while (len >= 16) {
        len /= 16;
        k++;
    }
    return k;
}

#if defined(__GNUC__)
#define BF_PREFETCH(p) __builtin_prefetch(p)
#else
#define BF_PREFETCH(p) ((void)(p))
#endif

/* What a conflict scan reads about a position, in one record. */
typedef struct bf_slot {
    uint32_t start;
    int64_t end; /* end when placed, else -1 */
    uint64_t off, size;
} bf_slot;

typedef struct bf_placed {
    uint64_t off, size;
    uint32_t start, end;
} bf_placed;

typedef struct bf_ctx {
    const plan_problem *pb;
    uint32_t m;       /* nonzero buffers */
    uint32_t *ids;    /* position in start order -> buffer */
    uint32_t *pos;    /* buffer -> position in start order */
    uint32_t *starts; /* sorted starts */
    uint32_t nbk;     /* length buckets */
    uint32_t bk_lo[BF_BUCKETS], bk_hi[BF_BUCKETS]; /* position ranges */
    uint32_t bk_maxlen[BF_BUCKETS];
    uint32_t *p0;  /* per position and bucket: first candidate */
    bf_slot *slot; /* per position, interleaved for locality */
    bf_iv *iv, *ivtmp;
    size_t niv, capiv;
    /* small instances: the placed buffers sorted by offset */
    bf_placed *placed;
    uint32_t nplaced;
} bf_ctx;

static int bf_cmp_start_only(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ctx;
    if (bf[a].start != bf[b].start)
        return bf[a].start < bf[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

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
    c->iv[c->niv].lo = c->slot[p].off;
    c->iv[c->niv].hi = c->slot[p].off + c->slot[p].size;
    c->niv++;
    return 0;
}

/* Collects the placed buffers conflicting with buffer b into c->iv: in
 * each lifetime bucket, the buffers starting in [s - maxlen, e] are
 * scanned in order (the first one precomputed per buffer). */
static int bf_conflicts(bf_ctx *c, uint32_t b) {
    const plan_buf *bb = &c->pb->bufs[b];
    int64_t s = bb->start;
    uint32_t e = bb->end;
    const uint32_t *p0 = c->p0 + (size_t)c->pos[b] * c->nbk;
    c->niv = 0;
    for (uint32_t k = 0; k < c->nbk; k++) {
        uint32_t hi = c->bk_hi[k];
        for (uint32_t p = p0[k]; p < hi && c->slot[p].start <= e; p++)
            if (c->slot[p].end >= s && bf_report(c, p) != 0)
                return -1;
    }
    return 0;
}

static void bf_set(bf_ctx *c, uint32_t p, int64_t v, uint64_t off) {
    c->slot[p].end = v;
    c->slot[p].off = off;
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

/* What bf_pass returns for a layout that passes PLAN_MAX_POOL_SIZE. */
#define BF_OVER (UINT64_MAX - 1)

/* One greedy pass in `order`; returns the pool top, UINT64_MAX on oom, or
 * BF_OVER when a buffer would end past PLAN_MAX_POOL_SIZE (alignment
 * padding in this order can exceed the naive plan's; the pass stops there,
 * so every placed end stays below 2^63 and no offset + size wraps).
 * With `cap` non-zero the pass is two-sided: a buffer whose lowest gap is
 * not at offset 0 goes as high as it fits under `cap` (the lower bound),
 * so that chains alternate between the bottom and the top of the pool. */
static uint64_t bf_pass(bf_ctx *c, const uint32_t *order, uint64_t *off,
                        uint64_t cap) {
    for (uint32_t i = 0; i < c->m; i++)
        c->slot[i].end = -1;
    c->nplaced = 0;
    uint64_t top = 0;
    uint64_t pa = c->pb->align ? c->pb->align : 1;
    for (uint32_t k = 0; k < c->m; k++) {
        uint32_t b = order[k];
        const plan_buf *bb = &c->pb->bufs[b];
        if (!c->placed) {
            /* the order is random in memory: prefetch what the next
             * queries read (their buffer, their first candidates, then
             * the start of each of their runs) */
            if (k + 8 < c->m) {
                BF_PREFETCH(&c->pb->bufs[order[k + 8]]);
                BF_PREFETCH(&c->pos[order[k + 8]]);
            }
            if (k + 4 < c->m)
                BF_PREFETCH(c->p0 + (size_t)c->pos[order[k + 4]] * c->nbk);
            if (k + 2 < c->m) {
                const uint32_t *r =
                    c->p0 + (size_t)c->pos[order[k + 2]] * c->nbk;
                for (uint32_t j = 0; j < c->nbk; j++)
                    BF_PREFETCH(&c->slot[r[j] < c->m ? r[j] : 0]);
            }
        }
        uint64_t a = bb->align > pa ? bb->align : pa, cand = 0;
        if (c->placed) {
            /* scan the placed buffers by offset; stop at the first gap
             * unless the two-sided pass needs every conflict */
            c->niv = 0;
            for (uint32_t j = 0; j < c->nplaced; j++) {
                const bf_placed *q = &c->placed[j];
                if (q->start > bb->end || q->end < bb->start)
                    continue;
                if (cap) {
                    if (c->niv == c->capiv && bf_grow(c) != 0)
                        return UINT64_MAX;
                    c->iv[c->niv].lo = q->off;
                    c->iv[c->niv++].hi = q->off + q->size;
                } else if (cand + bb->size <= q->off) {
                    break;
                }
                if (q->off + q->size > cand)
                    cand = plan_align_up(q->off + q->size, a);
            }
            if (cap) {
                cand = 0;
                for (size_t j = 0; j < c->niv; j++) {
                    if (cand + bb->size <= c->iv[j].lo)
                        break;
                    if (c->iv[j].hi > cand)
                        cand = plan_align_up(c->iv[j].hi, a);
                }
            }
        } else {
            if (bf_conflicts(c, b) != 0)
                return UINT64_MAX;
            if (c->niv > 1)
                bf_sort_iv(c->iv, c->ivtmp, c->niv);
            for (size_t j = 0; j < c->niv; j++) {
                if (cand + bb->size <= c->iv[j].lo)
                    break;
                if (c->iv[j].hi > cand)
                    cand = plan_align_up(c->iv[j].hi, a);
            }
        }
        if (cap && cand != 0) {
            uint64_t t = bf_top_fit(c, bb->size, a, cap);
            if (t != UINT64_MAX)
                cand = t;
        }
        /* the ends placed so far are <= PLAN_MAX_POOL_SIZE < 2^63, so cand
         * (an aligned end, alignments <= 2^63) is <= 2^63 */
        if (cand > PLAN_MAX_POOL_SIZE || bb->size > PLAN_MAX_POOL_SIZE - cand)
            return BF_OVER;
        off[b] = cand;
        if (cand + bb->size > top)
            top = cand + bb->size;
        bf_set(c, c->pos[b], bb->end, cand);
        if (c->placed) {
            uint32_t lo = 0, hi = c->nplaced;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (c->placed[mid].off <= cand)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            memmove(c->placed + lo + 1, c->placed + lo,
                    (c->nplaced - lo) * sizeof *c->placed);
            c->placed[lo].off = cand;
            c->placed[lo].size = bb->size;
            c->placed[lo].start = bb->start;
            c->placed[lo].end = bb->end;
            c->nplaced++;
        }
    }
    return top;
}

#define BF_LARGE 131072
/* Up to this many buffers, conflicts are found by scanning the placed
 * buffers in offset order (stopping at the first fitting gap), which
 * beats sorting the conflicts of dense instances. */
#define BF_SMALL 2048

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
    uint32_t *axis = NULL, *byst = NULL;
    int64_t *live = NULL, *mt = NULL;
    uint32_t *ti = NULL;
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
    /* start order (ties in buffer order), then a stable counting sort by
     * lifetime bucket: bucket-major, start order inside each bucket */
    byst = malloc((size_t)c.m * sizeof *byst);
    if (!byst)
        goto out;
    memcpy(byst, c.ids, (size_t)c.m * sizeof *byst);
    if (plan_sort_idx(byst, c.m, bf_cmp_start_only, bf) != 0)
        goto out;
    {
        uint32_t cnt[BF_BUCKETS + 1];
        memset(cnt, 0, sizeof cnt);
        for (uint32_t q = 0; q < c.m; q++)
            cnt[bf_bucket(&bf[byst[q]]) + 1]++;
        for (uint32_t k = 0; k < BF_BUCKETS; k++)
            cnt[k + 1] += cnt[k];
        for (uint32_t q = 0; q < c.m; q++)
            c.ids[cnt[bf_bucket(&bf[byst[q]])]++] = byst[q];
    }
    for (uint32_t p = 0; p < c.m; p++) {
        c.pos[c.ids[p]] = p;
        c.starts[p] = bf[c.ids[p]].start;
    }
    for (uint32_t p = 0; p < c.m; p++) {
        const plan_buf *b = &bf[c.ids[p]];
        uint32_t k = bf_bucket(b);
        if (k + 1 > c.nbk) {
            for (uint32_t j = c.nbk; j <= k; j++)
                c.bk_lo[j] = c.bk_hi[j] = p;
            c.nbk = k + 1;
        }
        c.bk_hi[k] = p + 1;
        uint32_t len = b->end - b->start;
        if (len > c.bk_maxlen[k])
            c.bk_maxlen[k] = len;
    }
    /* first candidate of every buffer in every bucket: a monotone
     * pointer per bucket over the buffers in start order */
    c.p0 = malloc((size_t)c.m * c.nbk * sizeof *c.p0);
    if (!c.p0)
        goto out;
    {
        uint32_t ptr[BF_BUCKETS];
        for (uint32_t k = 0; k < c.nbk; k++)
            ptr[k] = c.bk_lo[k];
        for (uint32_t q = 0; q < c.m; q++) {
            uint32_t b = byst[q];
            uint32_t *row = c.p0 + (size_t)c.pos[b] * c.nbk;
            for (uint32_t k = 0; k < c.nbk; k++) {
                uint64_t from = bf[b].start > c.bk_maxlen[k]
                                    ? (uint64_t)bf[b].start - c.bk_maxlen[k]
                                    : 0;
                while (ptr[k] < c.bk_hi[k] && c.starts[ptr[k]] < from)
                    ptr[k]++;
                row[k] = ptr[k];
            }
        }
    }
    c.slot = malloc((size_t)c.m * sizeof *c.slot);
    if (!c.slot)
        goto out;
    if (c.m <= BF_SMALL) {
        c.placed = malloc((size_t)c.m * sizeof *c.placed);
        if (!c.placed)
            goto out;
    }
    for (uint32_t p = 0; p < c.m; p++) {
        c.slot[p].start = bf[c.ids[p]].start;
        c.slot[p].end = -1;
        c.slot[p].off = 0;
        c.slot[p].size = bf[c.ids[p]].size;
    }

    /* contention: the highest live bytes during each buffer's life */
    uint32_t na = plan_time_axis(pb, &axis);
    if (na == UINT32_MAX)
        goto out;
    live = calloc((size_t)na + 1, sizeof *live);
    ti = malloc(2 * (size_t)c.m * sizeof *ti);
    mt = malloc(4 * ((size_t)na + 1) * sizeof *mt);
    if (!live || !ti || !mt)
        goto out;
    /* axis indices of every start and end, once */
    for (uint32_t p = 0; p < c.m; p++) {
        const plan_buf *b = &bf[c.ids[p]];
        ti[2 * p] = plan_time_index(axis, na, b->start);
        ti[2 * p + 1] = plan_time_index(axis, na, b->end);
    }
    for (uint32_t p = 0; p < c.m; p++) {
        const plan_buf *b = &bf[c.ids[p]];
        live[ti[2 * p]] += (int64_t)b->size;
        live[ti[2 * p + 1] + 1] -= (int64_t)b->size;
    }
    /* an iterative max tree over the live profile (leaves at mw..) */
    uint32_t mw = 1;
    while (mw < na)
        mw *= 2;
    {
        int64_t cur = 0;
        for (uint32_t i = 0; i < mw; i++) {
            if (i < na)
                cur += live[i];
            mt[mw + i] = i < na ? cur : 0;
        }
        for (uint32_t i = mw - 1; i > 0; i--)
            mt[i] = mt[2 * i] > mt[2 * i + 1] ? mt[2 * i] : mt[2 * i + 1];
    }
    /* the lower bound, the cap of the two-sided passes */
    uint64_t lb = 0;
    if (plan_lower_bound_axis(pb, axis, na, &lb) != 0)
        goto out;

    uint64_t best = UINT64_MAX;
    /* (ordering, two-sided) per pass; above BF_LARGE buffers, two passes
     * (size; start two-sided) keep 10^6 buffers within a second or two */
    static const int full[][2] = {{0, 0},  {3, 0},  {4, 1}, {5, 0},
                                  {6, 0},  {7, 0},  {8, 0}, {9, 0},
                                  {10, 0}, {11, 0}, {12, 0}};
    static const int large[][2] = {{0, 0}, {4, 1}};
    const int(*passes)[2] = c.m > BF_LARGE ? large : full;
    int npasses = c.m > BF_LARGE ? 2 : (int)(sizeof full / sizeof full[0]);
    int sorted = -1;
    for (int pass = 0; pass < npasses; pass++) {
        int o = passes[pass][0];
        uint64_t cap = passes[pass][1] == 1 ? lb : 0;
        if (o == 4 && c.m > BF_LARGE && o != sorted) {
            /* large instances: start order, ties in buffer order, is the
             * order computed above (saves a sort) */
            memcpy(order, byst, (size_t)c.m * sizeof *order);
            sorted = o;
        }
        for (uint32_t p = 0; p < c.m && o != sorted; p++) {
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
            case 3: {
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
                k->k1 = (uint64_t)m;
                k->k2 = b->size;
                break;
            }
            case 4: /* start ascending: keys are descending, so negate */
                k->k1 = UINT64_MAX - b->start;
                k->k2 = b->size;
                break;
            default: { /* size perturbed by a seeded factor in [3/4, 5/4] */
                uint64_t h = (uint64_t)i * UINT64_C(0x9e3779b97f4a7c15) +
                             (uint64_t)o * UINT64_C(0xbf58476d1ce4e5b9);
                h ^= h >> 29;
                h *= UINT64_C(0x94d049bb133111eb);
                h ^= h >> 32;
                uint64_t f = 768 + (h % 513);
                k->k1 = b->size > UINT64_MAX / 1024 ? b->size : b->size * f;
                k->k2 = life;
                break;
            }
            }
        }
        if (o != sorted) {
            qsort(keys, c.m, sizeof *keys, bf_cmp_key);
            for (uint32_t p = 0; p < c.m; p++)
                order[p] = keys[p].idx;
            sorted = o;
        }
        uint64_t top = bf_pass(&c, order, off, cap);
        if (top == UINT64_MAX)
            goto out;
        if (top == BF_OVER)
            continue; /* the naive plan is smaller */
        if (top < best) {
            best = top;
            for (uint32_t p = 0; p < c.m; p++)
                offsets[c.ids[p]] = off[c.ids[p]];
        }
    }
    *size = plan_align_up(best, pb->align ? pb->align : 1);
    /* never worse than naive (which alignment padding can make smaller
     * when every buffer overlaps every other; when every pass is BF_OVER,
     * best is UINT64_MAX and naive wins) */
    uint64_t nsize = 0;
    if (plan_naive(pb, off, &nsize) == 0 && nsize < *size) {
        memcpy(offsets, off, (size_t)n * sizeof *offsets);
        *size = nsize;
    }
    rc = 0;
out:
    free(off);
    free(keys);
    free(order);
    free(axis);
    free(live);
    free(mt);
    free(ti);
    free(c.ids);
    free(c.pos);
    free(c.starts);
    free(c.slot);
    free(c.p0);
    free(byst);
    free(c.iv);
    free(c.ivtmp);
    free(c.placed);
    return rc;
}

int plan_bestfit(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_bestfit_core, offsets, size);
}

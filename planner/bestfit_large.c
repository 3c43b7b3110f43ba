/*
 * planner/bestfit_large.c - bestfit above PLAN_BF_LARGE buffers (see
 * bestfit.c): its two passes (size; start two-sided) with the offsets of
 * the general path, in fewer sweeps over memory.
 *
 * The start order is the buffer order when the starts are in order
 * already, else by counting the starts per step when the horizon is
 * short (at most twice the buffers), else by one radix sort; the buffers
 * are read once, in that order, into arrays by position, and everything
 * after reads them by position, mostly in order:
 *  - every buffer's end rank (the starts at or before its end: from the
 *    counts, or a galloping search from its own position, O(log life))
 *    gives the overlapping
 *    pairs (the density check), the most buffers live at once and the
 *    lower bound (difference arrays over positions, summed once), and the
 *    last time block it spans: no sort by end;
 *  - the size order and its sweep come from one radix sort of words
 *    packing the sweep chunk, the size (in units of the largest power of
 *    two dividing every size), the life and the position, when they fit
 *    in 64 bits; the sweep then merges the held buffers by word.
 * When something does not fit (keys wider than 64 bits, live bytes past
 * 2^64, block lists too long), it returns 1 and the general path runs:
 * the same plan, more slowly.
 *
 * The arrays by position (37 bytes a buffer, the pass order included)
 * are one block from base_huge_alloc: mapped on its own and offered to
 * the kernel for huge pages (base/arena.c), where 4 KiB pages cost some
 * 12,000 page faults at 10^6 buffers, about a tenth of this path's time;
 * NULL when memory is short (-1, as for any array).
 */
#include "plan_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* The block pass's blocks hold 2^BL_BLOCK_MIN to 2^BL_BLOCK_MAX starts:
 * short lives walk fewer entries that are not live in shorter blocks,
 * long lives fewer lists in longer ones.  32 on the bench's sparse data
 * (13 starts a life on average), 128 on the dense (60), where 64 for
 * both took 3% and 6% longer. */
#define BL_BLOCK_MIN 5
#define BL_BLOCK_MAX 7

typedef struct bl_ctx {
    const plan_problem *pb;
    uint32_t m;      /* the nonzero buffers (bl_setup counts them) */
    uint64_t total;  /* their sizes' sum */
    uint32_t *byst;  /* position -> buffer */
    uint32_t *sst;   /* per position: its start */
    uint32_t *end;   /* per position: its end */
    uint32_t *er;    /* per position: the starts <= its end */
    uint64_t *size;  /* per position: its size */
    uint8_t *lga;    /* per position: the log2 of its alignment */
    uint64_t *tmp;   /* n + 1 words that each step reuses in turn (fewer
                        fresh pages to fault in) */
    uint32_t *order; /* the size pass's order, as positions */
    uint64_t *scr;   /* the caller's offsets (n >= m words): scratch until
                        the passes, then zeroed */
    uint32_t *cnt;   /* PLAN_RADIX_COUNTS */
    uint64_t lb;
    uint64_t pairs; /* the sum over positions of the later starts up to
                       its end (the overlapping pairs) */
    uint32_t maxlive;
    bool dense;
    bool ranked;    /* er[] is set (bl_count) */
    void *blockmem; /* holds the arrays by position */
} bl_ctx;

static void bl_free(bl_ctx *c) {
    base_huge_free(c->blockmem);
    free(c->cnt);
}

/* Bytes of the arrays by position, per position. */
#define BL_BYTES (2 * sizeof(uint64_t) + 5 * sizeof(uint32_t) + sizeof(uint8_t))

/* The arrays by position, n + 1 elements each (at least m + 1: the
 * pages past m are never touched), as one block (see the top of the
 * file). */
static int bl_alloc(bl_ctx *c) {
    size_t m1 = (size_t)c->pb->n + 1;
    c->cnt = malloc(PLAN_RADIX_COUNTS * sizeof *c->cnt);
    if (!c->cnt || m1 > SIZE_MAX / BL_BYTES)
        return -1;
    unsigned char *p = c->blockmem = base_huge_alloc(m1 * BL_BYTES, 16);
    if (!p)
        return -1;
    c->size = (uint64_t *)p; /* the widest elements first: all aligned */
    p += m1 * sizeof *c->size;
    c->tmp = (uint64_t *)p;
    p += m1 * sizeof *c->tmp;
    uint32_t **u[] = {&c->byst, &c->sst, &c->end, &c->er, &c->order};
    for (size_t k = 0; k < sizeof u / sizeof *u;
         k++, p += m1 * sizeof(uint32_t))
        *u[k] = (uint32_t *)p;
    c->lga = p;
    return 0;
}

/* Zeroes the scratch (the caller's offsets: zero-size buffers keep 0). */
static void bl_clear(bl_ctx *c) {
    memset(c->scr, 0, (size_t)c->pb->n * sizeof *c->scr);
}

/* The buffers are read into the start order in random order: each is
 * prefetched BL_AHEAD positions ahead (more reads in flight), both cache
 * lines of what is read when it straddles two (about a quarter: 40-byte
 * buffers).  48 positions and both lines took the dense 10^6 run from
 * 0.228 to 0.222 s (16 and the first line only before). */
#define BL_AHEAD 48
#if defined(__GNUC__)
#define BL_PREFETCH(p)                                                         \
    (__builtin_prefetch(p),                                                    \
     __builtin_prefetch((const char *)(p) + offsetof(plan_buf, end)))
#else
#define BL_PREFETCH(p) ((void)(p))
#endif

/* Reads buffer i into position q. */
static void bl_put(bl_ctx *c, uint32_t q, uint32_t i) {
    const plan_buf *bb = &c->pb->bufs[i];
    uint64_t pa = c->pb->align ? c->pb->align : 1;
    c->byst[q] = i;
    c->sst[q] = bb->start;
    c->end[q] = bb->end;
    c->size[q] = bb->size;
    c->lga[q] = plan_log2(bb->align > pa ? bb->align : pa);
}

/* The start order by a radix sort (of the starts and buffers that
 * bl_setup gathered in buffer order). */
static void bl_sort(bl_ctx *c) {
    uint64_t *v = c->tmp;
    for (uint32_t q = 0; q < c->m; q++)
        v[q] = (uint64_t)c->sst[q] << 32 | c->byst[q];
    plan_radix_sort_hi_in(v, c->m, c->scr, c->cnt);
    for (uint32_t q = 0; q < c->m; q++) {
        if (q + BL_AHEAD < c->m)
            BL_PREFETCH(&c->pb->bufs[(uint32_t)v[q + BL_AHEAD]]);
        bl_put(c, q, (uint32_t)v[q]);
    }
}

/* The start order by counting the starts of each step of [t0, t0 + nt)
 * (a short horizon, nt <= 2 m), which also gives every end rank; when
 * the starts are `sorted` already (and the buffers read into the position
 * arrays in that order), only the ranks.  Reads the starts and buffers
 * that bl_setup gathered (sst, byst; in buffer order when not sorted),
 * not the buffers. */
static void bl_count(bl_ctx *c, uint32_t t0, uint32_t nt, bool sorted) {
    /* nt + 1 <= 2 m + 1 counts in the m + 1 words of tmp */
    uint32_t *first = (uint32_t *)c->tmp;
    memset(first, 0, ((size_t)nt + 1) * sizeof *first);
    for (uint32_t q = 0; q < c->m; q++)
        first[c->sst[q] - t0 + 1]++;
    for (uint32_t t = 1; t <= nt; t++) /* first[t]: the starts before t0 + t */
        first[t] += first[t - 1];
    if (!sorted) {
        /* one scattered write per buffer (its index, into er, free until
         * the ranks), then everything else read in start order: the
         * ends, hence `first`, nearly in order.  first[t] is the cursor
         * of step t: it ends at what first[t + 1] was */
        for (uint32_t q = 0; q < c->m; q++)
            c->er[first[c->sst[q] - t0]++] = c->byst[q];
        for (uint32_t q = 0; q < c->m; q++) {
            if (q + BL_AHEAD < c->m)
                BL_PREFETCH(&c->pb->bufs[c->er[q + BL_AHEAD]]);
            bl_put(c, q, c->er[q]);
        }
    }
    for (uint32_t q = 0; q < c->m; q++) {
        uint64_t e = (uint64_t)c->end[q] - t0 + 1; /* >= 1 */
        c->er[q] = first[(e < nt ? e : nt) - !sorted];
    }
    c->ranked = true;
}

/* The start order (ties by buffer), the buffers read into it, with the
 * nonzero buffers counted and their sizes summed on the way.  Returns 0,
 * 1 (at most PLAN_BF_LARGE nonzero buffers) or -1. */
static int bl_setup(bl_ctx *c) {
    if (bl_alloc(c) != 0)
        return -1;
    /* the range of the starts; while they are in buffer order, the
     * buffers read into the position arrays in that order (which then
     * is the start order), after that only their starts and indices
     * (for bl_count or bl_sort: the buffers are read once more, in
     * start order) */
    uint32_t lo = UINT32_MAX, hi = 0, q = 0;
    bool sorted = true;
    for (uint32_t i = 0; i < c->pb->n; i++) {
        const plan_buf *bb = &c->pb->bufs[i];
        if (!bb->size)
            continue;
        c->total += bb->size; /* below 2^63: pb passed plan_problem_ok */
        sorted = sorted && bb->start >= hi;
        lo = bb->start < lo ? bb->start : lo;
        hi = bb->start > hi ? bb->start : hi;
        if (sorted) {
            bl_put(c, q++, i);
        } else {
            c->byst[q] = i;
            c->sst[q++] = bb->start;
        }
    }
    c->m = q;
    if (q <= PLAN_BF_LARGE)
        return 1;
    if (hi - lo < 2 * (uint64_t)c->m)
        bl_count(c, lo, hi - lo + 1, sorted);
    else if (!sorted)
        bl_sort(c); /* (sorted: the end ranks by galloping, bl_profile) */
    return 0;
}

/* The first position at or after `from` whose start is after e (the
 * start before `from` is not): galloping, then halving. */
static uint32_t bl_upper(const uint32_t *sst, uint32_t m, uint32_t from,
                         uint32_t e) {
    uint32_t lo = from, step = 1;
    while (lo < m && sst[lo] <= e) {
        uint32_t nx = lo + step;
        if (nx >= m || sst[nx] > e) { /* in (lo, min(nx, m)] */
            uint32_t hi = nx < m ? nx : m;
            lo++;
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (sst[mid] <= e)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            return lo;
        }
        lo = nx + 1;
        step *= 2;
    }
    return lo;
}

/* The end ranks, the density check, the most buffers live at once and
 * the lower bound (as plan_lower_bound).  Returns 0 or 1 (live bytes
 * could pass 2^64). */
static int bl_profile(bl_ctx *c) {
    uint32_t m = c->m;
    uint64_t pa = c->pb->align ? c->pb->align : 1, pairs = 0, total = 0;
    uint64_t *d = c->tmp;
    int32_t *n = (int32_t *)c->scr; /* m + 1 <= 2 n counts */
    memset(d, 0, ((size_t)m + 1) * sizeof *d);
    memset(n, 0, ((size_t)m + 1) * sizeof *n);
    for (uint32_t q = 0; q < m; q++) {
        uint32_t r =
            c->ranked ? c->er[q] : bl_upper(c->sst, m, q + 1, c->end[q]);
        uint64_t s = plan_align_up(c->size[q], pa);
        if (s > UINT64_MAX - total)
            return 1;
        total += s;
        c->er[q] = r;
        pairs += r - q - 1;
        d[q] += s;
        d[r] -= s; /* wraps; the prefix sum unwraps it */
        n[q]++;
        n[r]--;
    }
    uint64_t live = 0, best = 0;
    int32_t cnt = 0;
    c->maxlive = 0;
    for (uint32_t q = 0; q < m; q++) {
        live += d[q];
        cnt += n[q];
        if ((q + 1 == m || c->sst[q + 1] != c->sst[q]) && live > best)
            best = live;
        if ((uint32_t)cnt > c->maxlive)
            c->maxlive = (uint32_t)cnt;
    }
    c->lb = plan_align_up(best, pa);
    c->pairs = pairs;
    c->dense = pairs > PLAN_BF_VISITS(m) / 2;
    return 0;
}

/* Bits to write x. */
static unsigned bl_bits(uint64_t x) {
    unsigned k = 0;
    for (; x; x >>= 1)
        k++;
    return k;
}

/* The size order (size, then life descending, then position) swept
 * (plan_bf_sweep_words) into order[] as positions.  Returns 0, 1 (the
 * keys do not fit in a word) or -1. */
static int bl_size_order(const bl_ctx *c, uint32_t *order) {
    uint32_t m = c->m;
    uint64_t any = 0, smin = UINT64_MAX, smax = 0, lmin = UINT64_MAX, lmax = 0;
    for (uint32_t q = 0; q < m; q++) {
        uint64_t s = c->size[q], l = (uint64_t)c->end[q] - c->sst[q] + 1;
        any |= s;
        smin = s < smin ? s : smin;
        smax = s > smax ? s : smax;
        lmin = l < lmin ? l : lmin;
        lmax = l > lmax ? l : lmax;
    }
    unsigned tz = 0;
    while (!(any >> tz & 1))
        tz++;
    smin >>= tz;
    smax >>= tz;
    unsigned pw = bl_bits(m - 1), lw = bl_bits(lmax - lmin),
             sw = bl_bits(smax - smin), rw = pw + lw + sw;
    if (rw + bl_bits((m - 1) / PLAN_SW_CHUNK) > 64)
        return 1;
    uint64_t *w = c->tmp;
    for (uint32_t q = 0; q < m; q++) {
        uint64_t l = (uint64_t)c->end[q] - c->sst[q] + 1;
        uint64_t key = (smax - (c->size[q] >> tz)) << lw | (lmax - l);
        uint64_t ch = rw < 64 ? (uint64_t)(q / PLAN_SW_CHUNK) << rw : 0;
        w[q] = ch | key << pw | q;
    }
    /* the words are in position order, so grouped by chunk: sorted chunk
     * by chunk, in cache, on the key alone (the chunk bits above it are
     * the same throughout a chunk) */
    for (uint32_t q = 0; q < m; q += PLAN_SW_CHUNK)
        plan_radix_sort_bits_in(w + q,
                                m - q < PLAN_SW_CHUNK ? m - q : PLAN_SW_CHUNK,
                                pw, rw, c->scr, c->cnt);
    return plan_bf_sweep_words(w, m, rw, pw, c->sst, c->end, order);
}

/* The size pass over time blocks: offsets into offsets[buffer] (none
 * written when it fails).  Returns as plan_bf_block_pass.  The end ranks
 * are then overwritten (by the last blocks), and the sizes (by the
 * offsets). */
static uint64_t bl_size_pass(bl_ctx *c, uint64_t *offsets) {
    uint32_t m = c->m, *order = c->order;
    int rc = bl_size_order(c, order);
    bl_clear(c); /* the scratch is free again: offsets from here */
    /* c->tmp (the words) is free again: the first blocks */
    uint32_t *k0 = (uint32_t *)c->tmp, *k1 = c->er;
    uint64_t top = rc > 0 ? PLAN_BF_NO_LAYOUT : UINT64_MAX;
    if (rc == 0) {
        unsigned sh = BL_BLOCK_MIN; /* 2^sh starts a block: about twice */
        while (sh < BL_BLOCK_MAX && /* the mean life in starts */
               ((uint64_t)m << sh) < 2 * (c->pairs + m))
            sh++;
        for (uint32_t q = m, g = m; q-- > 0;) { /* the first block spanned: */
            g = q + 1 < m && c->sst[q + 1] == c->sst[q] ? g : q;
            k0[q] = g >> sh; /* that of the last equal start */
            k1[q] = (c->er[q] - 1) >> sh;
        }
        plan_bk_in in = {
            m,       (uint32_t)(((uint64_t)m + (1u << sh) - 1) >> sh),
            order,   c->byst,
            c->sst,  c->end,
            k0,      k1,
            c->size, c->lga};
        /* the offsets by position each in place of its size (read
         * first), then by buffer */
        top = plan_bf_block_run(&in, c->size, offsets);
    }
    return top;
}

/* The passes (see the top of bestfit.c); returns 0, 1 or -1. */
static int bl_passes(bl_ctx *c, uint64_t *offsets, uint64_t *best) {
    *best = UINT64_MAX;
    if (c->dense)
        bl_clear(c);
    else {
        uint64_t top = bl_size_pass(c, offsets);
        if (top == UINT64_MAX)
            return -1;
        if (top == PLAN_BF_NO_LAYOUT)
            return 1;
        if (top < PLAN_BF_GAVE_UP)
            *best = top;
    }
    if (*best <= c->lb + c->lb / PLAN_BF_CLOSE)
        return 0;
    uint64_t *off = c->tmp; /* n + 1 words */
    uint64_t top =
        plan_bf_start_pass(c->pb, c->byst, c->m, c->maxlive, c->lb, *best, off);
    if (top < PLAN_BF_GAVE_UP && top < *best) {
        *best = top;
        for (uint32_t q = 0; q < c->m; q++)
            offsets[c->byst[q]] = off[c->byst[q]];
    }
    return top == UINT64_MAX ? -1 : 0;
}

int plan_bf_large(const plan_problem *pb, uint64_t *offsets, uint64_t *best,
                  uint64_t *lb, uint64_t *total) {
    bl_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    c.scr = offsets;
    int rc = bl_setup(&c);
    if (rc == 0)
        rc = bl_profile(&c);
    *total = c.total;
    if (rc == 0) {
        *lb = c.lb;
        rc = bl_passes(&c, offsets, best);
    }
    if (rc != 0)
        bl_clear(&c); /* as the general path expects them */
    bl_free(&c);
    return rc;
}

/*
 * planner/bestfit_blocks.c - what makes bestfit's passes in size (or any
 * other) order fast on large instances (see bestfit.c): a sweep order, and
 * a pass over time blocks.
 *
 * The sweep order.  A pass in size order jumps all over the instance for
 * every buffer.  plan_bf_sweep_order reorders it to sweep time, chunk
 * after chunk of SW_CHUNK buffers in start order.  At each chunk, with T
 * the first start of the next one, the buffers not yet emitted are taken
 * in priority order, and one is held back to the next chunk when it may
 * overlap a later buffer (its end >= T) or overlaps one held back before
 * it.  Every buffer then still comes after each one that overlaps it and
 * precedes it in the given order, so a greedy pass places it where the
 * given order would: its placed conflicts are the same.  The held ones
 * all reach T, so they are connected and b overlaps one of them iff b's
 * end is at least the lowest start held back.  When more than SW_HELD
 * are held back at once (many buffers live at once, or long chains of
 * overlaps), an exact sweep leaves the order as it is; otherwise the extra
 * ones are emitted where they are, which can change offsets (the plan is
 * as valid as in any other order).  O(n).
 *
 * The block pass (above PLAN_BF_LARGE buffers).  Time is cut into blocks of
 * BK_STARTS starts each.  Every block keeps the placed buffers that overlap it
 * in a list sorted by offset (a buffer is in each block it overlaps; the lists
 * are laid out once, from the counts, and never grow).  A buffer's lowest gap
 * is found by walking the lists of the blocks its life spans from the bottom
 * up, together: a candidate offset c rises past every placed buffer that
 * overlaps it in time and meets [c, c + size); an entry walked past is never
 * looked at again for this buffer (it was harmless, or c rose above it).  The
 * walk cycles over the blocks until a whole round moves nothing.  It stops at
 * the first gap that fits, without collecting and sorting every conflict,
 * and reads the few lists of one stretch of time, which the sweep order
 * keeps in cache.  The offsets are those of the
 * scanning pass (the lowest aligned gap among the same conflicts).
 *
 * The lists are laid out one after the other from the counts, each ended
 * by a sentinel, but held in a window that follows the sweep: before each
 * batch of BK_BATCH buffers it holds the blocks from the least first block
 * of any buffer still to come to the batch's last block (the blocks below
 * are read no more), moving the lists in use to its start when it would
 * overflow and doubling when they fill half of it.  In the sweep order
 * that is a few stretches of time (3.3 MB of 46 MB at 10^6 dense
 * buffers); in any other order it holds everything.
 *
 * Cost: per buffer, the entries below its gap in the lists it spans plus
 * the inserts.  The pass gives up (PLAN_BF_GAVE_UP) when the lists would
 * hold more than BK_ENTRIES(m) entries (long lives against the block
 * length: PLAN_BF_NO_LAYOUT, the caller scans instead) or when it has
 * walked more than PLAN_BF_VISITS(m) entries (PLAN_BF_GAVE_UP: many
 * buffers live at once).
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

/* Starts per block. */
#define BK_STARTS PLAN_BK_STARTS

/* The most list entries (buffer, block) allowed: a buffer spans about
 * (its life / the block length) + 2 blocks. */
#define BK_ENTRIES(m) ((uint64_t)(m)*4 + 65536)

/* A placed buffer in a block's list: bytes [lo, hi), life [e - len, e]. */
typedef struct bk_ent {
    uint64_t lo, hi;
    uint32_t e, len;
} bk_ent;

/* Queries gathered at a time: their reads overlap (the walk, which
 * needs each at once, would wait for them one by one). */
#define BK_BATCH 256

/* A query: the buffer being placed. */
typedef struct bk_q {
    uint32_t s, e, k0, k1;
    uint64_t size, a;
} bk_q;

typedef struct bk_ctx {
    uint32_t nblk;
    uint32_t *t0;   /* per block: its first time; t0[nblk] = UINT32_MAX */
    uint64_t *base; /* per block: where its list begins in ent */
    uint32_t *fill; /* per block: its list's length */
    uint32_t *ptr;  /* per block: the walk's position (one query) */
    uint64_t amin;  /* the smallest alignment: every hi is rounded up to it
                       (its log2 until the lists are laid out) */
    /* The lists, each ended by a sentinel (lo UINT64_MAX), laid out one
     * after the other (base) but held in a window: ent[i] is entry wlo + i
     * of that layout, of cap entries; the lists below kinit have their
     * sentinel. */
    bk_ent *ent;
    uint64_t wlo, cap;
    uint32_t kinit;
    uint32_t *kmin; /* per batch of queries: the least k0 from it on */
} bk_ctx;

/* The last block whose first time is <= t, from block k on. */
static uint32_t bk_block(const bk_ctx *b, uint32_t k, uint32_t t) {
    while (k + 1 < b->nblk && b->t0[k + 1] <= t)
        k++;
    return k;
}

/* The blocks' first times from the sorted starts sst, and the blocks
 * every buffer spans (into k0, k1, by position in start order). */
static int bk_spans(bk_ctx *b, const uint32_t *sst, const uint32_t *ends,
                    uint32_t m, uint32_t *k0, uint32_t *k1) {
    b->nblk = (m + BK_STARTS - 1) / BK_STARTS;
    b->t0 = malloc(((size_t)b->nblk + 1) * sizeof *b->t0);
    if (!b->t0)
        return -1;
    for (uint32_t k = 0; k < b->nblk; k++)
        b->t0[k] = sst[(size_t)k * BK_STARTS];
    b->t0[b->nblk] = UINT32_MAX;
    for (uint32_t q = 0, k = 0; q < m; q++) {
        k = bk_block(b, k, sst[q]); /* starts ascending: k too */
        k0[q] = k;
        k1[q] = bk_block(b, k, ends[q]);
    }
    return 0;
}

/* The lists' layout from the blocks the buffers span.  Returns 0, 1
 * (more than BK_ENTRIES(m) entries) or -1. */
static int bk_lists(bk_ctx *b, const plan_bk_in *in) {
    b->base = calloc((size_t)b->nblk + 1, sizeof *b->base);
    b->fill = calloc((size_t)b->nblk + 1, sizeof *b->fill);
    b->ptr = malloc(((size_t)b->nblk + 1) * sizeof *b->ptr);
    if (!b->base || !b->fill || !b->ptr)
        return -1;
    uint64_t total = 0, limit = BK_ENTRIES(in->m);
    b->amin = 63;
    for (uint32_t p = 0; p < in->m; p++) {
        total += in->k1[p] - in->k0[p] + 1;
        if (total > limit)
            return 1;
        b->base[in->k0[p]]++;
        b->base[in->k1[p] + 1]--; /* wraps; the prefix sums unwrap it */
        b->amin = in->lga[p] < b->amin ? in->lga[p] : b->amin;
    }
    b->amin = (uint64_t)1 << b->amin;
    uint64_t run = 0, sum = 0;
    for (uint32_t k = 0; k < b->nblk; k++) { /* base[k]: entries and */
        run += b->base[k];                   /* sentinels before k */
        b->base[k] = sum;
        sum += run + 1;
    }
    b->base[b->nblk] = sum;
    /* the least first block of the queries from each batch on */
    uint32_t nbat = (in->m + BK_BATCH - 1) / BK_BATCH;
    b->kmin = malloc(((size_t)nbat + 1) * sizeof *b->kmin);
    if (!b->kmin)
        return -1;
    b->kmin[nbat] = UINT32_MAX;
    for (uint32_t j = nbat; j-- > 0;) {
        uint32_t k = b->kmin[j + 1], to = (j + 1) * BK_BATCH;
        for (uint32_t i = j * BK_BATCH; i < to && i < in->m; i++)
            k = in->k0[in->order[i]] < k ? in->k0[in->order[i]] : k;
        b->kmin[j] = k;
    }
    return 0;
}

/* Makes the window hold lists kfrom..kto, lists below kfrom being read
 * no more: moves the ones in use to its start when it would overflow,
 * and doubles it when they fill more than half of it (so that each entry
 * is moved O(1) times on average).  Returns 0 or -1 (out of memory). */
static int bk_window(bk_ctx *b, uint32_t kfrom, uint32_t kto) {
    uint64_t need = b->base[kto + 1];
    if (need - b->wlo > b->cap) {
        uint64_t lo = b->base[kfrom];
        uint64_t hi = b->kinit > kfrom ? b->base[b->kinit] : lo;
        if (hi > lo)
            memmove(b->ent, b->ent + (lo - b->wlo), (hi - lo) * sizeof *b->ent);
        b->wlo = lo;
        if (need - lo > b->cap / 2) {
            uint64_t cap = 2 * (need - lo);
            bk_ent *e = realloc(b->ent, cap * sizeof *e);
            if (!e)
                return -1;
            b->ent = e;
            b->cap = cap;
        }
    }
    for (uint32_t k = b->kinit > kfrom ? b->kinit : kfrom; k <= kto; k++)
        b->ent[b->base[k] - b->wlo].lo = UINT64_MAX;
    b->kinit = kto + 1 > b->kinit ? kto + 1 : b->kinit;
    return 0;
}

/* Walks list l from entry j while the entries begin below *lim (the
 * candidate offset + the size; the sentinel ends it).  The candidate is
 * aligned, so an entry in the way (its end above the candidate) takes it
 * to its aligned end and any other live one leaves it: a running maximum,
 * whose chain is one compare and move per entry (whether an entry is live
 * is unpredictable: no branch).  `align`: the query's alignment am1 + 1
 * is above the one the ends are rounded to.  Returns where it stopped. */
static inline uint32_t bk_walk(const bk_ent *l, uint32_t j, uint64_t *lim,
                               const bk_q *q, bool align) {
    uint64_t top = *lim, size = q->size, am1 = q->a - 1;
    uint64_t qs = q->s, qlen1 = (uint64_t)q->e - q->s + 1;
    const bk_ent *x = l + j;
    for (; x->lo < top; x++) {
        /* live: e >= qs and e - len <= qe, that is e - qs in [0, len +
         * the query's length]: one unsigned compare (e < qs wraps) */
        uint64_t live = 0 - (uint64_t)(x->e - qs < x->len + qlen1);
        uint64_t hi = align ? (x->hi + am1) & ~am1 : x->hi;
        uint64_t up = (hi + size) & live;
        top = up > top ? up : top;
    }
    *lim = top;
    return (uint32_t)(x - l);
}

/* The lowest aligned offset for q (see the top of the file); *walked
 * counts the entries read. */
static uint64_t bk_lowest(bk_ctx *b, const bk_q *q, uint64_t *walked) {
    uint32_t nspan = q->k1 - q->k0 + 1, quiet = 0, k = q->k0;
    uint64_t lim = q->size, n = 0;
    bool align = q->a != b->amin;
    for (uint32_t j = q->k0; j <= q->k1; j++)
        b->ptr[j] = 0;
    while (quiet < nspan) {
        const bk_ent *l = b->ent + (b->base[k] - b->wlo);
        uint64_t was = lim;
        uint32_t j = align ? bk_walk(l, b->ptr[k], &lim, q, true)
                           : bk_walk(l, b->ptr[k], &lim, q, false);
        n += j - b->ptr[k] + 1;
        b->ptr[k] = j;
        quiet = lim != was ? 1 : quiet + 1;
        k = k == q->k1 ? q->k0 : k + 1;
    }
    *walked += n;
    return lim - q->size;
}

/* Inserts q at offset off into the lists of the blocks it spans. */
static void bk_insert(bk_ctx *b, const bk_q *q, uint64_t off) {
    for (uint32_t k = q->k0; k <= q->k1; k++) {
        bk_ent *l = b->ent + (b->base[k] - b->wlo);
        /* the walk (bk_lowest) stopped at the first offset at or above
         * off + size in every list: the place is at most a few back */
        uint32_t lo = b->ptr[k];
        while (lo > 0 && l[lo - 1].lo > off)
            lo--;
        memmove(l + lo + 1, l + lo, (b->fill[k] + 1 - lo) * sizeof *l);
        l[lo].lo = off;
        l[lo].hi = (off + q->size + b->amin - 1) & ~(b->amin - 1);
        l[lo].e = q->e;
        l[lo].len = q->e - q->s;
        b->fill[k]++;
    }
}

/* Places the buffers in pass order, offsets into opos[position]; the
 * pool top, PLAN_BF_OVER, PLAN_BF_GAVE_UP or UINT64_MAX (out of
 * memory). */
static uint64_t bk_run(bk_ctx *b, const plan_bk_in *in, uint64_t *opos) {
    uint64_t top = 0, walked = 0, limit = PLAN_BF_VISITS(in->m);
    bk_q qb[BK_BATCH];
    uint64_t ob[BK_BATCH];
    for (uint32_t k0 = 0; k0 < in->m; k0 += BK_BATCH) {
        uint32_t nb = in->m - k0 < BK_BATCH ? in->m - k0 : BK_BATCH, kto = 0;
        for (uint32_t j = 0; j < nb; j++) {
            uint32_t p = in->order[k0 + j];
            qb[j] = (bk_q){in->s[p],  in->e[p],    in->k0[p],
                           in->k1[p], in->size[p], (uint64_t)1 << in->lga[p]};
            kto = qb[j].k1 > kto ? qb[j].k1 : kto;
        }
        if (bk_window(b, b->kmin[k0 / BK_BATCH], kto) != 0)
            return UINT64_MAX;
        for (uint32_t j = 0; j < nb; j++) {
            const bk_q *q = &qb[j];
            uint64_t cand = bk_lowest(b, q, &walked);
            if (walked > limit)
                return PLAN_BF_GAVE_UP;
            /* placed ends are <= PLAN_MAX_POOL_SIZE < 2^63: no wrap */
            if (cand > PLAN_MAX_POOL_SIZE ||
                q->size > PLAN_MAX_POOL_SIZE - cand)
                return PLAN_BF_OVER;
            ob[j] = cand;
            if (cand + q->size > top)
                top = cand + q->size;
            bk_insert(b, q, cand);
        }
        for (uint32_t j = 0; j < nb; j++) /* near in memory: one chunk */
            opos[in->order[k0 + j]] = ob[j];
    }
    return top;
}

uint64_t plan_bf_block_run(const plan_bk_in *in, uint64_t *opos,
                           uint64_t *off) {
    bk_ctx b;
    memset(&b, 0, sizeof b);
    b.nblk = in->nblk;
    uint64_t top = UINT64_MAX;
    int rc = bk_lists(&b, in);
    if (rc == 0)
        top = bk_run(&b, in, opos);
    else if (rc > 0)
        top = PLAN_BF_NO_LAYOUT;
    free(b.base);
    free(b.fill);
    free(b.ptr);
    free(b.kmin);
    free(b.ent);
    for (uint32_t q = 0; top < PLAN_BF_NO_LAYOUT && q < in->m; q++)
        off[in->byst[q]] = opos[q];
    return top;
}

/* The pass offsets go through a scratch array (plan_bf_block_run): a
 * pass that fails leaves off as it was. */
uint64_t plan_bf_block_pass(const plan_problem *pb, const uint32_t *byst,
                            const uint32_t *sst, uint32_t m,
                            const uint32_t *order, uint64_t *off) {
    bk_ctx b;
    memset(&b, 0, sizeof b);
    uint64_t top = UINT64_MAX, pa = pb->align ? pb->align : 1;
    size_t m1 = (size_t)m + 1;
    uint32_t *ends = calloc(m1, sizeof *ends), *k0 = malloc(m1 * sizeof *k0);
    uint32_t *k1 = malloc(m1 * sizeof *k1), *pos = malloc(m1 * sizeof *pos);
    uint32_t *at = malloc(((size_t)pb->n + 1) * sizeof *at);
    uint64_t *size = malloc(m1 * sizeof *size);
    uint8_t *lga = malloc(m1 * sizeof *lga);
    uint64_t *qo = malloc(((size_t)pb->n + 1) * sizeof *qo);
    if (!ends || !k0 || !k1 || !pos || !at || !size || !lga || !qo)
        goto out;
    for (uint32_t q = 0; q < m; q++) {
        const plan_buf *pbuf = &pb->bufs[byst[q]];
        ends[q] = pbuf->end;
        size[q] = pbuf->size;
        lga[q] = plan_log2(pbuf->align > pa ? pbuf->align : pa);
        at[byst[q]] = q;
    }
    for (uint32_t k = 0; k < m; k++)
        pos[k] = at[order[k]];
    if (bk_spans(&b, sst, ends, m, k0, k1) != 0)
        goto out;
    plan_bk_in in = {m, b.nblk, pos, byst, sst, ends, k0, k1, size, lga};
    top = plan_bf_block_run(&in, qo, off);
out:
    free(ends);
    free(k0);
    free(k1);
    free(pos);
    free(at);
    free(size);
    free(lga);
    free(qo);
    free(b.t0);
    return top;
}

/* ---- the sweep order ---- */

/* Buffers per chunk of the sweep order, and the most held back. */
#define SW_CHUNK PLAN_SW_CHUNK
#define SW_HELD (4 * SW_CHUNK)

/* A buffer of the sweep: its rank in the priority order, its life. */
typedef struct sw_buf {
    uint32_t q, s, e;
} sw_buf;

/* The sweep of the priority ranks grouped by chunk in byc (chunk k ends
 * at end[k]; ranks ascending inside each), their lives in life[rank],
 * into byc; sst: the starts in start order.  Returns 1 when more than
 * SW_HELD buffers were held back at once (exact: byc is then unusable),
 * 0 otherwise. */
static int sw_run(const uint32_t *sst, uint32_t m, const sw_buf *life,
                  uint32_t *byc, const uint32_t *end, sw_buf *held,
                  bool exact) {
    uint32_t nch = (m + SW_CHUNK - 1) / SW_CHUNK, nc = 0, w = 0;
    sw_buf *carry = held, *nxt = held + SW_HELD;
    for (uint32_t k = 0; k < nch; k++) {
        uint32_t i = k ? end[k - 1] : 0, j = 0, nn = 0;
        uint64_t t = k + 1 < nch ? sst[(size_t)(k + 1) * SW_CHUNK] : UINT64_MAX;
        uint64_t bmin = UINT64_MAX; /* the lowest start held back */
        while (i < end[k] || j < nc) {
            sw_buf b = j == nc || (i < end[k] && byc[i] < carry[j].q)
                           ? life[byc[i++]]
                           : carry[j++];
            bool hold = b.e >= t || b.e >= bmin;
            if (hold && nn == SW_HELD && exact)
                return 1;
            if (hold && nn < SW_HELD) {
                nxt[nn++] = b;
                bmin = b.s < bmin ? b.s : bmin;
            } else {
                byc[w++] = b.q; /* behind everything read from byc */
            }
        }
        sw_buf *tmp = carry;
        carry = nxt;
        nxt = tmp;
        nc = nn;
    }
    return 0;
}

int plan_bf_sweep_order(const plan_problem *pb, const uint32_t *byst,
                        const uint32_t *sst, uint32_t m, uint32_t *order,
                        bool exact) {
    uint32_t nch = (m + SW_CHUNK - 1) / SW_CHUNK;
    uint32_t *chunk = malloc(((size_t)pb->n + 1) * sizeof *chunk);
    sw_buf *life = malloc(((size_t)m + 1) * sizeof *life);
    uint32_t *byc = malloc(((size_t)m + 1) * sizeof *byc);
    uint32_t *end = calloc((size_t)nch + 1, sizeof *end);
    sw_buf *held = malloc(2 * (size_t)SW_HELD * sizeof *held);
    int rc = -1;
    if (!chunk || !life || !byc || !end || !held)
        goto out;
    for (uint32_t q = 0; q < m; q++)
        chunk[byst[q]] = q / SW_CHUNK;
    for (uint32_t q = 0; q < m; q++) {
        const plan_buf *b = &pb->bufs[order[q]];
        life[q].q = q;
        life[q].s = b->start;
        life[q].e = b->end;
        end[chunk[order[q]] + 1]++;
    }
    for (uint32_t k = 0; k < nch; k++)
        end[k + 1] += end[k];
    for (uint32_t q = 0; q < m; q++) /* end[k]: from start to end of k */
        byc[end[chunk[order[q]]]++] = q;
    if (sw_run(sst, m, life, byc, end, held, exact) == 0) {
        for (uint32_t q = 0; q < m; q++)
            byc[q] = order[byc[q]];
        memcpy(order, byc, (size_t)m * sizeof *order);
    }
    rc = 0;
out:
    free(chunk);
    free(life);
    free(byc);
    free(end);
    free(held);
    return rc;
}

/* A held buffer of plan_bf_sweep_words: its word, its life. */
typedef struct sw_word {
    uint64_t w;
    uint32_t s, e;
} sw_word;

/* sw_run's sweep (not exact) over words already sorted by chunk, then
 * rank (see plan_bf_sweep_words). */
static void sw_words(const uint64_t *w, uint32_t m, unsigned rbits,
                     unsigned pbits, const uint32_t *sst, const uint32_t *ends,
                     uint32_t *out, sw_word *held) {
    uint64_t rmask = ((uint64_t)1 << rbits) - 1;
    uint32_t pmask = (uint32_t)(((uint64_t)1 << pbits) - 1);
    uint32_t nch = (m + SW_CHUNK - 1) / SW_CHUNK, nc = 0, nout = 0;
    sw_word *carry = held, *nxt = held + SW_HELD;
    for (uint32_t k = 0; k < nch; k++) {
        uint32_t i = k * SW_CHUNK, j = 0, nn = 0;
        uint32_t iend = m - i > SW_CHUNK ? i + SW_CHUNK : m;
        uint64_t t = k + 1 < nch ? sst[(size_t)(k + 1) * SW_CHUNK] : UINT64_MAX;
        uint64_t bmin = UINT64_MAX; /* the lowest start held back */
        while (i < iend || j < nc) {
            sw_word b;
            if (j == nc ||
                (i < iend && (w[i] & rmask) < (carry[j].w & rmask))) {
                uint32_t p = (uint32_t)w[i++] & pmask;
                b = (sw_word){w[i - 1], sst[p], ends[p]};
            } else {
                b = carry[j++];
            }
            if ((b.e >= t || b.e >= bmin) && nn < SW_HELD) {
                nxt[nn++] = b;
                bmin = b.s < bmin ? b.s : bmin;
            } else {
                out[nout++] = (uint32_t)b.w & pmask;
            }
        }
        sw_word *tmp = carry;
        carry = nxt;
        nxt = tmp;
        nc = nn;
    }
}

int plan_bf_sweep_words(const uint64_t *w, uint32_t m, unsigned rbits,
                        unsigned pbits, const uint32_t *sst,
                        const uint32_t *ends, uint32_t *out) {
    sw_word *held = malloc(2 * (size_t)SW_HELD * sizeof *held);
    if (!held)
        return -1;
    sw_words(w, m, rbits, pbits, sst, ends, out, held);
    free(held);
    return 0;
}

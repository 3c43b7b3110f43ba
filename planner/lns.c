/*
 * planner/lns.c - large-neighbourhood search: improves a valid plan of one
 * colour class at any size, keeping only what is better.
 *
 * A move ("ruin and recreate", Schrimpf et al., J. Comput. Phys. 2000; the
 * large-neighbourhood search of Shaw, CP 1998): take a buffer at the top of
 * the pool, a time window around its life and an address band under the
 * top; lift every buffer of that window and band (at most LNS_MAX_RUIN,
 * the highest first); put them back one by one, in size order with a
 * seeded perturbation (or in start order), each at the lowest aligned
 * offset where it fits between the buffers it conflicts with.  The move is
 * kept when the pool is lower, or as high and the lifted buffers sit no
 * higher in total (a sideways move on a plateau); otherwise every lifted
 * buffer goes back where it was.  So the plan never gets worse: the result
 * after k steps is the best found in the first k steps, and a larger
 * budget never gives a larger pool.
 *
 * Two moves in four are that; one is a repack (lns_repack): take a
 * buffer at the top, the time in its life where the most bytes are live
 * (the peaks of dense instances are narrow and fragmented), and the 48
 * to 947 buffers live nearest that time (all, or those above a band 10,
 * 20 or 30% under the top: seeded); lift them and put them back in 24
 * seeded orders (size descending, each size scaled by a factor in [1/2,
 * 3/2]) among the others, which stay; a try stops once a top passes
 * the lifted buffers' old highest top; the lowest complete try is kept
 * when lower than that, or as high with lower tops in total (sideways).
 * The fourth is a window move: lift the
 * highest buffers (8 to 16) of a time window around a buffer at the top
 * and re-solve them exactly among the others, which stay where they are
 * (plan_window_solve, planner/window.c, within LNS_WIN_NODES nodes); kept
 * when their highest top falls.  Before the moves, classes of up to
 * LNS_REBUILD_MAX buffers get three greedy starts (every buffer put back
 * in size order, as TFLite Micro's greedy planner; in size x lifetime
 * order; in start order), each kept when lower.  The sequence does not
 * depend on the budget: a budget too small for the next start ends the
 * run there.
 *
 * Conflicts are found with the bucket index of bestfit (buffers sorted by
 * start within lifetime buckets of powers of 4; the conflicts of [s, e] in
 * a bucket whose longest life is L start in [s - L, e]); the pool height
 * is the root of a max tree over the buffers' tops.  A step is one lifted
 * buffer put back, or one node of a window's search, plus one per 64
 * candidates visited: the result depends only on the input and the
 * budget.  Memory O(n).
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

#define LNS_MAX_RUIN 48u
#define LNS_REBUILD_MAX 2048u /* greedy starts up to this many buffers */
#define LNS_WIN_MIN 8u
#define LNS_WIN_K 16u /* <= PLAN_WIN_MAX */
#define LNS_WIN_NODES 1000u
#define LNS_BUCKETS PLAN_LIFE_BUCKETS
#define LNS_PACK_MIN 48u /* a repack lifts 48 to 947 buffers */
#define LNS_PACK_SPAN 900u
#define LNS_PACK_MAX 1024u /* never more (the window doubles) */
#define LNS_PACK_TRIES 24u

typedef plan_iv lns_iv;

typedef struct lns {
    const plan_problem *pb;
    uint32_t m;      /* buffers that take space */
    uint32_t *ids;   /* local -> buffer of pb */
    uint64_t *size;  /* local sizes */
    uint64_t *align; /* local alignments */
    uint64_t *off;   /* the current plan (local) */
    uint32_t *byb;   /* positions: local ids, bucket-major, by start */
    uint32_t nbk, bk_lo[LNS_BUCKETS], bk_hi[LNS_BUCKETS];
    uint32_t bk_max[LNS_BUCKETS];
    uint64_t *mx; /* max tree over tops: leaves at w.. */
    uint32_t w;
    bool *lifted;
    uint32_t *ruin, nruin, put[LNS_MAX_RUIN];
    uint64_t *saved;
    lns_iv *iv;
    uint32_t niv, capiv;
    uint64_t rng, steps, visits;
    /* the live bytes: live[k] from time pt[k] on (npt points; built by
     * the first repack) */
    uint64_t *pt, *live;
    uint32_t npt;
    uint32_t *order; /* a repack's order (local indices), LNS_PACK_MAX */
    uint64_t *key, *packed;
    /* per buffer of a repack set (local index i): its fixed obstacles
     * iv[fbeg[i] .. fbeg[i+1]) and the set's buffers it meets in time
     * nbr[nbeg[i] .. nbeg[i+1]) (min(m, LNS_PACK_MAX)^2, built by the
     * first repack) */
    uint32_t fbeg[LNS_PACK_MAX + 1], nbeg[LNS_PACK_MAX + 1];
    uint16_t *nbr;
    lns_iv *pl; /* scratch: the placed neighbours, LNS_PACK_MAX */
} lns;

static uint64_t lns_rnd(lns *l) {
    uint64_t z = (l->rng += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static const plan_buf *lns_buf(const lns *l, uint32_t u) {
    return &l->pb->bufs[l->ids[u]];
}

static void lns_set_top(lns *l, uint32_t u, uint64_t top) {
    uint32_t i = l->w + u;
    l->mx[i] = top;
    for (i /= 2; i > 0; i /= 2)
        l->mx[i] =
            l->mx[2 * i] > l->mx[2 * i + 1] ? l->mx[2 * i] : l->mx[2 * i + 1];
}

/* The first leaf at or after `lo` under node i (covering leaves [nl,
 * nr)) whose top is at least h, or UINT32_MAX: a descent of the max
 * tree, O(log^2 m) at worst. */
static uint32_t lns_first(const lns *l, uint32_t i, uint32_t nl, uint32_t nr,
                          uint32_t lo, uint64_t h) {
    if (nr <= lo || l->mx[i] < h)
        return UINT32_MAX;
    if (i >= l->w)
        return i - l->w;
    uint32_t mid = nl + (nr - nl) / 2;
    uint32_t r = lns_first(l, 2 * i, nl, mid, lo, h);
    return r != UINT32_MAX ? r : lns_first(l, 2 * i + 1, mid, nr, lo, h);
}

/* A buffer whose top is the pool's height, the first from a seeded
 * position on (wrapping). */
static uint32_t lns_peak(lns *l) {
    uint64_t h = l->mx[1];
    uint32_t from = (uint32_t)(lns_rnd(l) % l->m);
    uint32_t u = lns_first(l, 1, 0, l->w, from, h);
    if (u == UINT32_MAX)
        u = lns_first(l, 1, 0, l->w, 0, h);
    return u == UINT32_MAX ? 0 : u;
}

/* Calls fn on every buffer whose life overlaps [s, e]. */
typedef bool (*lns_visit_fn)(lns *l, uint32_t v, const void *arg);

static bool lns_scan(lns *l, uint32_t s, uint32_t e, lns_visit_fn fn,
                     const void *arg) {
    for (uint32_t k = 0; k < l->nbk; k++) {
        uint32_t lo = l->bk_lo[k], hi = l->bk_hi[k];
        uint64_t from = s > l->bk_max[k] ? (uint64_t)s - l->bk_max[k] : 0;
        while (lo < hi) { /* first start >= from */
            uint32_t mid = lo + (hi - lo) / 2;
            if (lns_buf(l, l->byb[mid])->start < from)
                lo = mid + 1;
            else
                hi = mid;
        }
        uint32_t p = lo;
        for (; p < l->bk_hi[k]; p++) {
            const plan_buf *b = lns_buf(l, l->byb[p]);
            if (b->start > e)
                break;
            if (b->end >= s && !fn(l, l->byb[p], arg))
                return false;
        }
        l->visits += p - lo;
    }
    return true;
}

static bool lns_add_iv(lns *l, uint32_t v, const void *arg) {
    (void)arg;
    if (l->lifted[v])
        return true;
    if (l->niv == l->capiv) {
        uint32_t cap = l->capiv ? 2 * l->capiv : 64;
        lns_iv *n = realloc(l->iv, cap * sizeof *n);
        if (!n)
            return false;
        l->iv = n;
        l->capiv = cap;
    }
    l->iv[l->niv].lo = l->off[v];
    l->iv[l->niv].hi = l->off[v] + l->size[v];
    l->niv++;
    return true;
}

static inline bool lns_iv_less(const lns_iv *x, const lns_iv *y) {
    return x->lo < y->lo;
}

/* lns_sort_iv(v, n) sorts v[0..n) by lo (the order of equal ones does not
 * matter: the callers only walk the intervals by their bounds), inline:
 * a placement sorts its conflicts, and qsort's calls were most of the
 * time of a repack. */
PLAN_DEFINE_SORT(lns_sort_iv, lns_iv, lns_iv_less)

/* Puts lifted buffer u back at the lowest offset where it fits. */
static bool lns_place(lns *l, uint32_t u) {
    const plan_buf *b = lns_buf(l, u);
    l->niv = 0;
    if (!lns_scan(l, b->start, b->end, lns_add_iv, NULL))
        return false;
    if (l->niv > 1)
        lns_sort_iv(l->iv, l->niv);
    uint64_t cand = 0, a = l->align[u];
    for (uint32_t j = 0; j < l->niv; j++) {
        if (cand + l->size[u] <= l->iv[j].lo)
            break;
        if (l->iv[j].hi > cand)
            cand = plan_align_up(l->iv[j].hi, a);
    }
    l->off[u] = cand;
    l->lifted[u] = false;
    lns_set_top(l, u, cand + l->size[u]);
    l->steps++;
    return true;
}

typedef struct lns_band {
    uint64_t floor; /* lift buffers whose top is above it */
} lns_band;

static bool lns_add_ruin(lns *l, uint32_t v, const void *arg) {
    const lns_band *band = arg;
    if (l->off[v] + l->size[v] > band->floor && l->nruin < l->m)
        l->ruin[l->nruin++] = v;
    return true;
}

static bool lns_higher(const lns *l, uint32_t p, uint32_t v) {
    uint64_t tp = l->off[p] + l->size[p], tv = l->off[v] + l->size[v];
    return tp > tv || (tp == tv && p < v);
}

/* Keeps the `cap` highest tops of the ruin set, highest first (ties: lower
 * id): an insertion into a sorted prefix of at most cap, O(n cap). */
static void lns_trim(lns *l, uint32_t cap) {
    uint32_t n = l->nruin, k = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = l->ruin[i];
        if (k == cap && !lns_higher(l, v, l->ruin[k - 1]))
            continue;
        uint32_t j = k < cap ? k++ : k - 1;
        while (j > 0 && lns_higher(l, v, l->ruin[j - 1])) {
            l->ruin[j] = l->ruin[j - 1];
            j--;
        }
        l->ruin[j] = v;
    }
    l->nruin = k;
}

/* The order to put the lifted buffers back into put[]: size descending,
 * each size scaled by a seeded factor in [1/2, 3/2] (or start ascending,
 * one move in four). */
static void lns_order(lns *l) {
    uint64_t key[LNS_MAX_RUIN];
    bool by_start = lns_rnd(l) % 4 == 0;
    for (uint32_t i = 0; i < l->nruin; i++) {
        uint32_t v = l->ruin[i];
        uint64_t f = 512 + lns_rnd(l) % 1025;
        uint64_t s =
            l->size[v] > UINT64_MAX / 2048 ? l->size[v] : l->size[v] * f;
        uint64_t k = by_start ? UINT64_MAX - lns_buf(l, v)->start : s;
        uint32_t j = i;
        while (j > 0 && key[j - 1] < k) {
            key[j] = key[j - 1];
            l->put[j] = l->put[j - 1];
            j--;
        }
        key[j] = k;
        l->put[j] = v;
    }
}

/* One move: 1 kept, 0 undone, -1 out of memory, -2 out of steps (undone:
 * the steps spent count, but never more than `budget`). */
static int lns_move(lns *l, uint64_t budget) {
    uint64_t h = l->mx[1];
    uint32_t b = lns_peak(l);
    const plan_buf *pb = lns_buf(l, b);
    uint64_t life = (uint64_t)pb->end - pb->start + 1;
    uint64_t wid = life * (lns_rnd(l) % 4) + lns_rnd(l) % 8;
    uint32_t s = pb->start > wid ? (uint32_t)(pb->start - wid) : 0;
    uint32_t e = (uint64_t)pb->end + wid < UINT32_MAX
                     ? (uint32_t)(pb->end + wid)
                     : UINT32_MAX;
    uint64_t q = lns_rnd(l) % 16;
    lns_band band = {q < 8 ? 0 : h - h / 16 * (1 + q)};
    l->nruin = 0;
    lns_scan(l, s, e, lns_add_ruin, &band);
    lns_trim(l, LNS_MAX_RUIN);
    uint64_t before = 0, after = 0;
    for (uint32_t i = 0; i < l->nruin; i++) {
        uint32_t v = l->ruin[i];
        l->saved[i] = l->off[v];
        before += l->off[v];
        l->lifted[v] = true;
        lns_set_top(l, v, 0);
    }
    lns_order(l);
    int r = 1;
    for (uint32_t i = 0; i < l->nruin && r == 1; i++) {
        if (l->steps + l->visits / 64 >= budget)
            r = -2; /* out of steps in the middle of the move: undo it */
        else if (!lns_place(l, l->put[i]))
            r = -1;
        else
            after += l->off[l->put[i]];
    }
    if (r == 1 && (l->mx[1] < h || (l->mx[1] == h && after <= before)))
        return 1;
    for (uint32_t i = 0; i < l->nruin; i++) {
        uint32_t v = l->ruin[i];
        l->off[v] = l->saved[i];
        l->lifted[v] = false;
        lns_set_top(l, v, l->off[v] + l->size[v]);
    }
    return r == 1 ? 0 : r;
}

/* The obstacles of the time range [s, e] (every buffer live in it that
 * is not lifted), appended to l->iv sorted and merged. */
static bool lns_obstacles(lns *l, uint32_t s, uint32_t e) {
    uint32_t beg = l->niv;
    if (!lns_scan(l, s, e, lns_add_iv, NULL))
        return false;
    if (l->niv - beg > 1)
        lns_sort_iv(l->iv + beg, l->niv - beg);
    uint32_t w = beg;
    for (uint32_t r = beg; r < l->niv; r++) {
        if (w > beg && l->iv[r].lo <= l->iv[w - 1].hi) {
            if (l->iv[r].hi > l->iv[w - 1].hi)
                l->iv[w - 1].hi = l->iv[r].hi;
        } else {
            l->iv[w++] = l->iv[r];
        }
    }
    l->niv = w;
    return true;
}

/* The sections of the window: the time points where a lifted buffer
 * starts or ends, each with the lifted buffers live there and its
 * obstacles. */
static bool lns_sections(lns *l, plan_win *w) {
    uint32_t pt[2 * PLAN_WIN_MAX], np = 0;
    for (uint32_t i = 0; i < w->k; i++) {
        pt[np++] = lns_buf(l, l->ruin[i])->start;
        pt[np++] = lns_buf(l, l->ruin[i])->end;
    }
    qsort(pt, np, sizeof *pt, base_cmp_u32);
    w->nsec = 0;
    for (uint32_t j = 0; j < np; j++) {
        if (j > 0 && pt[j] == pt[j - 1])
            continue;
        uint32_t mask = 0;
        for (uint32_t i = 0; i < w->k; i++) {
            const plan_buf *b = lns_buf(l, l->ruin[i]);
            if (b->start <= pt[j] && pt[j] <= b->end)
                mask |= UINT32_C(1) << i;
        }
        w->sec_mask[w->nsec] = mask;
        w->sec_beg[w->nsec++] = l->niv;
        if (!lns_obstacles(l, pt[j], pt[j]))
            return false;
    }
    w->sec_beg[w->nsec] = l->niv;
    return true;
}

static bool lns_meet(const plan_buf *x, const plan_buf *y) {
    return x->start <= y->end && y->start <= x->end;
}

/* A window move: lift the highest buffers of a time window around a peak
 * buffer (up to PLAN_WIN_MAX) and re-solve them exactly among the others
 * (plan_window_solve), keeping the result only when their highest top
 * falls.  1 kept, 0 not, -1 out of memory. */
static int lns_window(lns *l, uint64_t budget) {
    uint32_t b = lns_peak(l);
    const plan_buf *pb = lns_buf(l, b);
    uint64_t life = (uint64_t)pb->end - pb->start + 1;
    uint64_t wid = life * (lns_rnd(l) % 3) / 2 + lns_rnd(l) % 4;
    uint32_t s = pb->start > wid ? (uint32_t)(pb->start - wid) : 0;
    uint32_t e = (uint64_t)pb->end + wid < UINT32_MAX
                     ? (uint32_t)(pb->end + wid)
                     : UINT32_MAX;
    lns_band band = {0};
    l->nruin = 0;
    lns_scan(l, s, e, lns_add_ruin, &band);
    lns_trim(l, LNS_WIN_MIN +
                    (uint32_t)(lns_rnd(l) % (LNS_WIN_K - LNS_WIN_MIN + 1)));
    plan_win w;
    uint64_t out[PLAN_WIN_MAX], top = 0, nodes = 0;
    w.k = l->nruin;
    for (uint32_t i = 0; i < w.k; i++) {
        uint32_t v = l->ruin[i];
        l->lifted[v] = true;
        if (l->off[v] + l->size[v] > top)
            top = l->off[v] + l->size[v];
    }
    l->niv = 0;
    bool ok = true;
    for (uint32_t i = 0; i < w.k; i++) {
        uint32_t v = l->ruin[i];
        w.obs_beg[i] = l->niv;
        ok = ok && lns_obstacles(l, lns_buf(l, v)->start, lns_buf(l, v)->end);
        w.size[i] = l->size[v];
        w.align[i] = l->align[v];
        w.conf[i] = 0;
        for (uint32_t j = 0; j < w.k; j++)
            if (j != i && lns_meet(lns_buf(l, v), lns_buf(l, l->ruin[j])))
                w.conf[i] |= UINT32_C(1) << j;
    }
    w.obs_beg[w.k] = l->niv;
    ok = ok && lns_sections(l, &w);
    w.obs = l->iv;
    w.out = out;
    uint64_t used = l->steps + l->visits / 64;
    uint64_t left = used < budget ? budget - used : 0; /* after the scans */
    uint64_t lim = left < LNS_WIN_NODES ? left : LNS_WIN_NODES;
    bool found = ok && plan_window_solve(&w, top, lim, &nodes);
    l->steps += nodes;
    for (uint32_t i = 0; i < w.k; i++) {
        uint32_t v = l->ruin[i];
        l->lifted[v] = false;
        if (found) {
            l->off[v] = out[i];
            lns_set_top(l, v, out[i] + l->size[v]);
        }
    }
    return ok ? found : -1;
}

/* The live-bytes profile (l->pt, l->live): the buffers sorted by start
 * and by end, merged.  -1 out of memory. */
static int lns_profile(lns *l) {
    size_t m = l->m;
    uint64_t *st = malloc((m + 1) * sizeof *st);
    uint64_t *en = malloc((m + 1) * sizeof *en);
    l->pt = malloc((2 * m + 1) * sizeof *l->pt);
    l->live = malloc((2 * m + 1) * sizeof *l->live);
    int rc = -1;
    if (!st || !en || !l->pt || !l->live)
        goto done;
    for (uint32_t u = 0; u < l->m; u++) {
        st[u] = (uint64_t)lns_buf(l, u)->start << 32 | u;
        en[u] = (uint64_t)lns_buf(l, u)->end << 32 | u;
    }
    if (plan_radix_sort_hi(st, m) != 0 || plan_radix_sort_hi(en, m) != 0)
        goto done;
    uint64_t cur = 0;
    size_t i = 0, j = 0;
    while (i < m) { /* every end at or after its start: ends outlast */
        uint64_t ts = st[i] >> 32, te = (en[j] >> 32) + 1;
        uint64_t t = ts < te ? ts : te;
        for (; i < m && st[i] >> 32 == t; i++)
            cur += l->size[(uint32_t)st[i]];
        for (; j < m && (en[j] >> 32) + 1 == t; j++)
            cur -= l->size[(uint32_t)en[j]];
        if (l->npt > 0 && l->pt[l->npt - 1] == t)
            l->npt--;
        l->pt[l->npt] = t;
        l->live[l->npt++] = cur;
    }
    rc = 0;
done:
    free(st);
    free(en);
    return rc;
}

/* The time in u's life where the most bytes are live (the first such). */
static uint32_t lns_busiest(const lns *l, uint32_t u) {
    const plan_buf *b = lns_buf(l, u);
    uint32_t lo = 0, hi = l->npt;
    while (lo < hi) { /* first point after the start */
        uint32_t mid = lo + (hi - lo) / 2;
        if (l->pt[mid] <= b->start)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t k = lo > 0 ? lo - 1 : 0, best = k;
    for (; k < l->npt && l->pt[k] <= b->end; k++)
        if (l->live[k] > l->live[best])
            best = k;
    return l->pt[best] > b->start ? (uint32_t)l->pt[best] : b->start;
}

static bool lns_count(lns *l, uint32_t v, const void *arg) {
    const lns_band *band = arg;
    if (l->off[v] + l->size[v] > band->floor)
        l->nruin++;
    return true;
}

/* The repack set: the buffers above a band floor that live in a time
 * window around time tc, the window doubling until it holds `want` of
 * them (at most LNS_PACK_MAX, the highest kept). */
static void lns_pack_set(lns *l, uint32_t tc, uint32_t want,
                         const lns_band *band) {
    for (uint64_t ww = 1;; ww *= 2) {
        uint32_t s = tc > ww ? (uint32_t)(tc - ww) : 0;
        uint32_t e = tc + ww < UINT32_MAX ? (uint32_t)(tc + ww) : UINT32_MAX;
        l->nruin = 0;
        lns_scan(l, s, e, lns_count, band);
        if (l->nruin >= want || (s == 0 && e == UINT32_MAX) ||
            ww >= UINT32_MAX) {
            l->nruin = 0;
            lns_scan(l, s, e, lns_add_ruin, band);
            break;
        }
    }
    if (l->nruin > LNS_PACK_MAX)
        lns_trim(l, LNS_PACK_MAX);
}

/* Lifts the repack set (their tops out of the max tree). */
static void lns_lift_all(lns *l) {
    for (uint32_t i = 0; i < l->nruin; i++) {
        l->lifted[l->ruin[i]] = true;
        lns_set_top(l, l->ruin[i], 0);
    }
}

/* The sum of the tops of the repack set at offsets off[0..nruin) (NULL:
 * where they are). */
static uint64_t lns_tops(const lns *l, const uint64_t *off) {
    uint64_t t = 0;
    for (uint32_t i = 0; i < l->nruin; i++)
        t += (off ? off[i] : l->off[l->ruin[i]]) + l->size[l->ruin[i]];
    return t;
}

/* Before the tries of a repack (the set lifted): the fixed obstacles of
 * each buffer of the set (lns_obstacles) and the pairs of the set that
 * meet in time.  false: out of memory. */
static bool lns_pack_prep(lns *l) {
    if (!l->nbr) {
        size_t k = l->m < LNS_PACK_MAX ? l->m : LNS_PACK_MAX; /* >= nruin */
        l->nbr = malloc(k * k * sizeof *l->nbr + 1);
        l->pl = malloc(LNS_PACK_MAX * sizeof *l->pl);
        if (!l->nbr || !l->pl)
            return false;
    }
    uint32_t n = l->nruin, q = 0;
    l->niv = 0;
    for (uint32_t i = 0; i < n; i++) {
        const plan_buf *b = lns_buf(l, l->ruin[i]);
        l->fbeg[i] = l->niv;
        if (!lns_obstacles(l, b->start, b->end))
            return false;
        l->nbeg[i] = q;
        for (uint32_t j = 0; j < n; j++)
            if (j != i && lns_meet(b, lns_buf(l, l->ruin[j])))
                l->nbr[q++] = (uint16_t)j;
    }
    l->fbeg[n] = l->niv;
    l->nbeg[n] = q;
    l->visits += (uint64_t)n * n / 8;
    return true;
}

/* Puts buffer i of the repack set (lifted) back at the lowest aligned
 * offset where it meets neither its fixed obstacles nor the buffers of
 * the set already put back: the same offset as lns_place, from the
 * obstacle list built once for all the tries. */
static void lns_place_packed(lns *l, uint32_t i) {
    uint32_t v = l->ruin[i], np = 0;
    for (uint32_t q = l->nbeg[i]; q < l->nbeg[i + 1]; q++) {
        uint32_t w = l->ruin[l->nbr[q]];
        if (!l->lifted[w]) {
            l->pl[np].lo = l->off[w];
            l->pl[np++].hi = l->off[w] + l->size[w];
        }
    }
    lns_sort_iv(l->pl, np);
    const lns_iv *f = l->iv + l->fbeg[i];
    uint32_t nf = l->fbeg[i + 1] - l->fbeg[i], x = 0, y = 0;
    uint64_t cand = 0, a = l->align[v], sz = l->size[v];
    while (x < nf || y < np) { /* the two sorted lists merged by lo */
        const lns_iv *c = y == np || (x < nf && f[x].lo <= l->pl[y].lo)
                              ? &f[x++]
                              : &l->pl[y++];
        if (cand + sz <= c->lo)
            break;
        if (c->hi > cand)
            cand = plan_align_up(c->hi, a);
    }
    l->visits += x + y + (l->nbeg[i + 1] - l->nbeg[i]);
    l->off[v] = cand;
    l->lifted[v] = false;
    lns_set_top(l, v, cand + sz);
    l->steps++;
}

/* One try: the set put back in size order, each size scaled by a seeded
 * factor in [1/2, 3/2] (none on the first try), stopping as soon as a
 * top reaches `bound`.  Returns the highest top (>= bound: failed). */
static uint64_t lns_pack_try(lns *l, uint32_t t, uint64_t bound,
                             uint64_t budget) {
    uint32_t n = l->nruin;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = l->ruin[i];
        uint64_t f = t == 0 ? 1024 : 512 + lns_rnd(l) % 1025;
        uint64_t k =
            l->size[v] > UINT64_MAX / 2048 ? l->size[v] : l->size[v] * f;
        uint32_t j = i;
        while (j > 0 && l->key[j - 1] < k) {
            l->key[j] = l->key[j - 1];
            l->order[j] = l->order[j - 1];
            j--;
        }
        l->key[j] = k;
        l->order[j] = i;
    }
    uint64_t top = 0;
    for (uint32_t i = 0; i < n && top < bound; i++) {
        if (l->steps + l->visits / 64 >= budget)
            return bound;
        uint32_t v = l->ruin[l->order[i]];
        lns_place_packed(l, l->order[i]);
        if (l->off[v] + l->size[v] > top)
            top = l->off[v] + l->size[v];
    }
    return top;
}

/* A repack move: take a buffer at the top of the pool, the time of its
 * life where the most bytes are live, and the 48 to 947 buffers (above a
 * seeded band floor: none, or 10%, 20%, 30% under the top) live nearest
 * that time; lift them and put them back greedily in LNS_PACK_TRIES
 * seeded orders (lns_pack_try) among the others, which stay; keep the
 * lowest try when its highest top is below theirs before (or as high,
 * with lower tops in total).  1 kept, 0 not, -1 out of memory. */
static int lns_repack(lns *l, uint64_t budget) {
    if (!l->pt && lns_profile(l) != 0)
        return -1;
    uint64_t h = l->mx[1];
    uint32_t b = lns_peak(l);
    uint32_t tc = lns_busiest(l, b);
    uint32_t want = LNS_PACK_MIN + (uint32_t)(lns_rnd(l) % LNS_PACK_SPAN);
    uint64_t q = lns_rnd(l) % 4;
    lns_band band = {q == 0 ? 0 : h - h / 10 * q};
    lns_pack_set(l, tc, want, &band);
    uint64_t old = 0;
    for (uint32_t i = 0; i < l->nruin; i++) {
        uint32_t v = l->ruin[i];
        l->saved[i] = l->off[v];
        if (l->off[v] + l->size[v] > old)
            old = l->off[v] + l->size[v];
    }
    lns_lift_all(l);
    if (!lns_pack_prep(l))
        return -1;
    /* strictly lower (found), or as high with lower tops in total (a
     * sideways move on a plateau, only while none is lower and when the
     * sum cannot wrap) */
    bool can_side = old <= UINT64_MAX / LNS_PACK_MAX, found = false;
    bool side = false;
    uint64_t best = old, sum = can_side ? lns_tops(l, l->saved) : 0;
    for (uint32_t t = 0; t < LNS_PACK_TRIES; t++) {
        uint64_t top =
            lns_pack_try(l, t, found || !can_side ? best : old + 1, budget);
        if (top < best ||
            (can_side && !found && top == old && lns_tops(l, NULL) < sum)) {
            found = found || top < best;
            side = !found;
            best = top;
            sum = found ? sum : lns_tops(l, NULL);
            for (uint32_t i = 0; i < l->nruin; i++)
                l->packed[i] = l->off[l->ruin[i]];
        }
        lns_lift_all(l);
        if (l->steps + l->visits / 64 >= budget)
            break;
    }
    found = found || side;
    for (uint32_t i = 0; i < l->nruin; i++) {
        uint32_t v = l->ruin[i];
        l->off[v] = found ? l->packed[i] : l->saved[i];
        l->lifted[v] = false;
        lns_set_top(l, v, l->off[v] + l->size[v]);
    }
    return found;
}

typedef struct lns_key {
    uint64_t k;
    uint32_t u;
} lns_key;

static int lns_cmp_key(const void *a, const void *b) {
    const lns_key *x = a, *y = b;
    if (x->k != y->k)
        return x->k > y->k ? -1 : 1;
    return x->u < y->u ? -1 : x->u > y->u;
}

static uint64_t lns_sat(uint64_t a, uint64_t b) {
    return b && a > UINT64_MAX / b ? UINT64_MAX : a * b;
}

/* A greedy start: every buffer put back at its lowest offset, in the
 * order of `how` (0: size descending, TFLite Micro's greedy planner; 1:
 * size x lifetime descending; 2: start ascending, then size descending);
 * kept when the pool is lower.  m steps.  1 kept, 0 not, -1 out of
 * memory. */
static int lns_rebuild(lns *l, int how) {
    lns_key *key = malloc(((size_t)l->m + 1) * sizeof *key);
    if (!key)
        return -1;
    uint64_t h = l->mx[1];
    for (uint32_t u = 0; u < l->m; u++) {
        const plan_buf *b = lns_buf(l, u);
        uint64_t life = (uint64_t)b->end - b->start + 1;
        key[u].u = u;
        key[u].k = how == 0 ? l->size[u]
                   : how == 1
                       ? lns_sat(l->size[u], life)
                       : (uint64_t)(UINT32_MAX - b->start) << 32 |
                             (l->size[u] >> 32 ? UINT32_MAX : l->size[u]);
        l->saved[u] = l->off[u];
        l->lifted[u] = true;
        l->mx[l->w + u] = 0;
    }
    memset(l->mx, 0, l->w * sizeof *l->mx);
    qsort(key, l->m, sizeof *key, lns_cmp_key);
    int r = 1;
    for (uint32_t i = 0; i < l->m && r == 1; i++)
        if (!lns_place(l, key[i].u))
            r = -1;
    free(key);
    if (r == 1 && l->mx[1] < h)
        return 1;
    for (uint32_t u = 0; u < l->m; u++) {
        l->off[u] = l->saved[u];
        l->lifted[u] = false;
        l->mx[l->w + u] = l->off[u] + l->size[u];
    }
    for (uint32_t i = l->w - 1; i > 0; i--)
        l->mx[i] =
            l->mx[2 * i] > l->mx[2 * i + 1] ? l->mx[2 * i] : l->mx[2 * i + 1];
    return r == 1 ? 0 : r;
}

/* The bucket index: local ids by lifetime bucket, then start. */
static int lns_index(lns *l) {
    uint64_t *v = malloc(((size_t)l->m + 1) * sizeof *v);
    uint8_t *bk = malloc((size_t)l->m + 1); /* by local id: in order */
    if (!v || !bk) {
        free(v);
        free(bk);
        return -1;
    }
    uint32_t cnt[LNS_BUCKETS + 1];
    memset(cnt, 0, sizeof cnt);
    for (uint32_t u = 0; u < l->m; u++) {
        const plan_buf *b = lns_buf(l, u);
        uint32_t k = plan_life_bucket(b);
        bk[u] = (uint8_t)k;
        cnt[k + 1]++;
        if (k + 1 > l->nbk)
            l->nbk = k + 1;
        if (b->end - b->start > l->bk_max[k])
            l->bk_max[k] = b->end - b->start;
        v[u] = (uint64_t)b->start << 32 | u;
    }
    int rc = plan_radix_sort_hi(v, l->m);
    if (rc == 0) {
        for (uint32_t k = 0; k < LNS_BUCKETS; k++) {
            l->bk_lo[k] = cnt[k];
            cnt[k + 1] += cnt[k];
            l->bk_hi[k] = cnt[k + 1];
        }
        for (uint32_t q = 0; q < l->m; q++)
            l->byb[cnt[bk[(uint32_t)v[q]]]++] = (uint32_t)v[q];
    }
    free(v);
    free(bk);
    return rc;
}

static int lns_init(lns *l, const plan_problem *pb, const uint64_t *offsets) {
    memset(l, 0, sizeof *l);
    l->pb = pb;
    size_t n1 = (size_t)pb->n + 1;
    l->ids = malloc(n1 * sizeof *l->ids);
    l->size = malloc(n1 * sizeof *l->size);
    l->align = malloc(n1 * sizeof *l->align);
    l->off = malloc(n1 * sizeof *l->off);
    l->byb = malloc(n1 * sizeof *l->byb);
    l->lifted = calloc(n1, sizeof *l->lifted);
    l->ruin = malloc(n1 * sizeof *l->ruin);
    l->saved = malloc(n1 * sizeof *l->saved);
    l->order = malloc(LNS_PACK_MAX * sizeof *l->order);
    l->key = malloc(LNS_PACK_MAX * sizeof *l->key);
    l->packed = malloc(LNS_PACK_MAX * sizeof *l->packed);
    if (!l->ids || !l->size || !l->align || !l->off || !l->byb || !l->lifted ||
        !l->ruin || !l->saved || !l->order || !l->key || !l->packed)
        return -1;
    for (uint32_t i = 0; i < pb->n; i++)
        if (pb->bufs[i].size) {
            l->ids[l->m] = i;
            l->size[l->m] = pb->bufs[i].size;
            l->align[l->m] = plan_buf_align(pb, &pb->bufs[i]);
            l->off[l->m++] = offsets[i];
        }
    l->w = 1;
    while (l->w < l->m)
        l->w *= 2;
    l->mx = calloc(2 * (size_t)l->w, sizeof *l->mx);
    if (!l->mx || lns_index(l) != 0)
        return -1;
    for (uint32_t u = 0; u < l->m; u++)
        l->mx[l->w + u] = l->off[u] + l->size[u];
    for (uint32_t i = l->w - 1; i > 0; i--)
        l->mx[i] =
            l->mx[2 * i] > l->mx[2 * i + 1] ? l->mx[2 * i] : l->mx[2 * i + 1];
    l->rng = UINT64_C(0x5eed) ^ l->m;
    return 0;
}

static void lns_free(lns *l) {
    free(l->ids);
    free(l->size);
    free(l->align);
    free(l->off);
    free(l->byb);
    free(l->lifted);
    free(l->ruin);
    free(l->saved);
    free(l->mx);
    free(l->iv);
    free(l->pt);
    free(l->live);
    free(l->order);
    free(l->key);
    free(l->packed);
    free(l->nbr);
    free(l->pl);
}

int plan_lns(const plan_problem *pb, uint64_t *offsets, uint64_t *size,
             const plan_lns_opts *o, plan_lns_out *out) {
    memset(out, 0, sizeof *out);
    uint64_t A = pb->align ? pb->align : 1;
    lns l;
    int rc = -1;
    if (lns_init(&l, pb, offsets) != 0)
        goto done;
    rc = 0;
    double t0 = o->time_limit > 0 ? base_now() : 0;
    /* The greedy starts, then the moves: a budget too small for the next
     * start ends the run there, so a larger budget runs a longer prefix
     * of the same sequence. */
    int how = l.m > LNS_REBUILD_MAX ? 3 : 0;
    for (; how < 3 && l.m > 1; how++) {
        if (l.steps + l.visits / 64 + l.m > o->budget)
            break;
        if (o->time_limit > 0 && base_now() - t0 > o->time_limit) {
            out->time_limit_hit = true;
            break;
        }
        if (lns_rebuild(&l, how) < 0) {
            rc = -1;
            goto done;
        }
    }
    for (uint64_t it = 0; l.m > 1; it++) {
        if (plan_align_up(l.mx[1], A) <= o->lower_bound) {
            out->optimal = true;
            break;
        }
        if (how < 3 || l.steps + l.visits / 64 >= o->budget) {
            out->budget_hit = !out->time_limit_hit;
            break;
        }
        if (o->time_limit > 0 && it % 64 == 0 &&
            base_now() - t0 > o->time_limit) {
            out->time_limit_hit = true;
            break;
        }
        int r = it % 4 == 1   ? lns_repack(&l, o->budget)
                : it % 4 != 3 ? lns_move(&l, o->budget)
                              : lns_window(&l, o->budget);
        if (r == -1) {
            rc = -1;
            goto done;
        }
        out->moves++;
    }
    uint64_t h = plan_align_up(l.mx[1], A);
    if (l.m > 1 && h < *size) {
        for (uint32_t u = 0; u < l.m; u++)
            offsets[l.ids[u]] = l.off[u];
        *size = h;
    }
done:
    out->steps = l.steps + l.visits / 64;
    if (out->steps > o->budget)
        out->steps = o->budget; /* the visits of an undone last move */
    lns_free(&l);
    return rc;
}

int plan_lns_class(const plan_problem *pb, const uint32_t *ids, uint32_t m,
                   uint64_t *start, const plan_lns_opts *o, plan_lns_out *out) {
    memset(out, 0, sizeof *out);
    if (m < 2)
        return 0;
    uint64_t A = pb->align ? pb->align : 1, h = 0;
    plan_buf *bufs = malloc((size_t)m * sizeof *bufs);
    if (!bufs)
        return -1;
    for (uint32_t i = 0; i < m; i++) {
        bufs[i] = pb->bufs[ids[i]];
        bufs[i].size = plan_align_up(bufs[i].size, A); /* as the search */
        bufs[i].color = -1;
        if (start[i] + bufs[i].size > h)
            h = start[i] + bufs[i].size;
    }
    plan_problem sub = {m, bufs, A, NULL};
    h = plan_align_up(h, A);
    int rc = plan_lns(&sub, start, &h, o, out);
    free(bufs);
    return rc;
}

/*
 * planner/search_core.c - the exact search of `search`: a depth-first
 * search over canonical solutions of one partition at a capacity, with
 * inference, dominance and decomposition, restarted with growing node
 * limits over three preorders (planner/search.c describes it).
 *
 * All state changes go through an undo trail.  One node is one step.
 * Cost per node: O(partition size + sections spanned).
 */
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

/* A step is a node plus one per SEARCH_WORK buffers, sections and
 * overlaps scanned. */
#define SEARCH_WORK 256u

/* Undo trail and scratch stacks. */

static bool grow(void **p, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap)
        return true;
    size_t nc = *cap ? *cap : 256;
    while (nc < need)
        nc *= 2;
    void *q = realloc(*p, nc * elem);
    if (!q)
        return false;
    *p = q;
    *cap = nc;
    return true;
}

static inline bool set(sr *s, uint64_t *p, uint64_t v) {
    if (s->ntrail == s->captrail && !grow((void **)&s->trail, &s->captrail,
                                          s->ntrail + 1, sizeof *s->trail))
        return false;
    s->trail[s->ntrail].p = p;
    s->trail[s->ntrail].old = *p;
    s->ntrail++;
    *p = v;
    return true;
}

static void undo(sr *s, size_t mark) {
    while (s->ntrail > mark) {
        s->ntrail--;
        *s->trail[s->ntrail].p = s->trail[s->ntrail].old;
    }
}

/* ---------------------------------------------------------------- */
/* The search. */

/* Raises floor[k] to the smallest minimum offset of the unplaced buffers
 * of section k (all of them lie at or above it) and remembers one that
 * has it: the minimum can only change when that buffer moves.  `least`
 * is a proven lower bound of that minimum: the scan stops on reaching
 * it.  It also stops at a buffer at or below `enough` (0: never), a
 * height up to which the floor cannot prune (floor + total <= cap): the
 * floor is then raised to `least` only, a lower bound still, and that
 * buffer watched (its move rescans the section). */
static bool rescan(sr *s, uint32_t k, uint64_t least, uint64_t enough) {
    uint64_t lo = UINT64_MAX, w = UNPLACED;
    bool exact = true;
    for (uint32_t j = s->sec_beg[k]; j < s->sec_beg[k + 1]; j++) {
        uint32_t v = s->sec_mem[j];
        if (s->minoff[v] < lo) { /* placed ones hold UNPLACED */
            lo = s->minoff[v];
            w = v;
            if (lo <= least || lo <= enough) {
                exact = lo <= least;
                s->work += j - s->sec_beg[k];
                break;
            }
        }
    }
    if (lo > least && lo > enough)
        s->work += s->sec_beg[k + 1] - s->sec_beg[k];
    uint64_t old = s->watch[k];
    if (w != old) {
        if (!set(s, &s->watch[k], w))
            return false;
        if (old != UNPLACED && !set(s, &s->wcnt[old], s->wcnt[old] - 1))
            return false;
        if (w != UNPLACED && !set(s, &s->wcnt[w], s->wcnt[w] + 1))
            return false;
    }
    if (!exact)
        lo = least;
    if (lo != UINT64_MAX && lo > s->floor[k] && !set(s, &s->floor[k], lo))
        return false;
    return true;
}

/* The largest total of the sections [s0, s1): whole blocks by their
 * maximum, the ends one by one. */
static uint64_t max_total(const sr *s, uint32_t s0, uint32_t s1) {
    uint64_t mx = 0;
    uint32_t k = s0;
    for (; k < s1 && (k & (SEARCH_BLK - 1)); k++)
        mx = s->total[k] > mx ? s->total[k] : mx;
    for (; k + SEARCH_BLK <= s1; k += SEARCH_BLK)
        if (s->bmax[k >> SEARCH_BLK_SHIFT] > mx)
            mx = s->bmax[k >> SEARCH_BLK_SHIFT];
    for (; k < s1; k++)
        mx = s->total[k] > mx ? s->total[k] : mx;
    return mx;
}

/* The block maxima after the totals of [lo, hi) fell by `by`: a block
 * inside the range falls by as much, one it straddles is recomputed. */
static bool blocks_fall(sr *s, uint32_t lo, uint32_t hi, uint64_t by) {
    for (uint32_t b = lo >> SEARCH_BLK_SHIFT; b <= (hi - 1) >> SEARCH_BLK_SHIFT;
         b++) {
        uint32_t bs = b << SEARCH_BLK_SHIFT, be = bs + SEARCH_BLK;
        be = be < s->nsec ? be : s->nsec;
        uint64_t v = 0;
        if (bs >= lo && be <= hi)
            v = s->bmax[b] - by;
        else
            for (uint32_t k = bs; k < be; k++)
                v = s->total[k] > v ? s->total[k] : v;
        if (v != s->bmax[b] && !set(s, &s->bmax[b], v))
            return false;
    }
    return true;
}

/* Places u at o.  Returns R_FOUND when consistent, R_NONE when the
 * partial solution is already infeasible, R_OOM. */
static int place(sr *s, uint32_t u, uint64_t o) {
    uint64_t top = o + s->size[u];
    uint32_t nchg = 0;
    s->work += s->adj_beg[u + 1] - s->adj_beg[u] + s->shi[u] - s->slo[u];
    if (!set(s, &s->off[u], o) || !set(s, &s->minoff[u], UNPLACED))
        return R_OOM;
    for (uint32_t e = s->adj_beg[u]; e < s->adj_beg[u + 1]; e++) {
        uint32_t v = s->adj[e];
        uint64_t a = s->align[v];
        uint64_t h = a == 1 ? top : (top + a - 1) & ~(a - 1);
        if (s->minoff[v] >= h)
            continue;
        if (h + s->size[v] > s->cap)
            return R_NONE;
        if (!set(s, &s->minoff[v], h))
            return R_OOM;
        s->chg[nchg++] = v;
    }
    /* Outside u's sections only where the buffer holding the minimum
     * moved.  First: most failing placements fail here, and u's own
     * sections, below, neither change these nor depend on them. */
    for (uint32_t i = 0; i < nchg; i++) {
        uint32_t v = s->chg[i];
        if (!s->wcnt[v])
            continue; /* holds no section's minimum */
        for (uint32_t k = s->slo[v]; k < s->shi[v]; k++) {
            if (k >= s->slo[u] && k < s->shi[u])
                k = s->shi[u];
            if (k >= s->shi[v])
                break;
            if (s->watch[k] != v)
                continue;
            /* only whether it can prune: cap - total[k] suffices */
            uint64_t room = s->total[k] <= s->cap ? s->cap - s->total[k] : 0;
            if (!rescan(s, k, s->floor[k], room))
                return R_OOM;
            if (s->floor[k] + s->total[k] > s->cap)
                return R_NONE;
        }
    }
    for (uint32_t k = s->slo[u]; k + 1 < s->shi[u]; k++)
        if (!set(s, &s->cut[k], s->cut[k] - 1))
            return R_OOM;
    /* every unplaced buffer of u's sections moved up to top (aligned) */
    uint64_t top_a = (top + s->align[u] - 1) & ~(s->align[u] - 1);
    for (uint32_t k = s->slo[u]; k < s->shi[u]; k++) {
        if (!set(s, &s->total[k], s->total[k] - s->size[u]))
            return R_OOM;
        if (s->uniform && s->watch[k] != u) {
            /* the buffer at the floor stays there, raised to top_a */
            if (s->floor[k] < top_a && !set(s, &s->floor[k], top_a))
                return R_OOM;
        } else if (!set(s, &s->floor[k], top) ||
                   !rescan(s, k, s->uniform ? top_a : top, 0)) {
            return R_OOM;
        }
        if (s->total[k] && s->floor[k] + s->total[k] > s->cap)
            return R_NONE;
    }
    if (!blocks_fall(s, s->slo[u], s->shi[u], s->size[u]))
        return R_OOM;
    return R_FOUND;
}

/* Whether, after placing u at `last` (above the last offset), every
 * section of [s0, s1) still has room above `last` (every later buffer
 * goes at or above it) for its unplaced buffers.  place() keeps
 * floor[k] + total[k] <= cap in every section it touches, so a section
 * whose floor is at or above `last` has room; for the others the test is
 * last + total[k] <= cap: together, last + the largest total <= cap.
 * Placing u takes its size off the totals of its own sections only, so
 * the test runs before the placement (most candidates fail it, and a
 * placement undone costs far more). */
static bool room_after(const sr *s, uint32_t s0, uint32_t s1, uint32_t u,
                       uint64_t last) {
    uint64_t room = s->cap - last;
    uint32_t a = s->slo[u] > s0 ? s->slo[u] : s0;
    uint32_t b = s->shi[u] < s1 ? s->shi[u] : s1;
    if (a >= b)
        return max_total(s, s0, s1) <= room;
    /* u is unplaced: every total of its sections counts its size */
    return max_total(s, s0, a) <= room && max_total(s, b, s1) <= room &&
           max_total(s, a, b) - s->size[u] <= room;
}

static int dfs(sr *s, ctl *c, size_t pbeg, uint32_t np, uint32_t s0,
               uint32_t s1, uint64_t last_off, int64_t last_rank);

/* A candidate dropped by room_after counts the work of the placement it
 * saves. */
static void skipped(sr *s, uint32_t u) {
    s->work += s->adj_beg[u + 1] - s->adj_beg[u] + s->shi[u] - s->slo[u];
}

/* The first section of [s0, s1) (scanning from s0 up, or from s1 - 1
 * down when `down`) whose total is mx, the largest. */
static uint32_t where_max(const sr *s, uint32_t s0, uint32_t s1, uint64_t mx,
                          bool down) {
    uint32_t k = down ? s1 - 1 : s0;
    for (;;) {
        uint32_t b = k >> SEARCH_BLK_SHIFT;
        uint32_t bs = b << SEARCH_BLK_SHIFT, be = bs + SEARCH_BLK;
        bool whole = bs >= s0 && be <= s1;
        if (s->total[k] == mx)
            return k;
        if (whole && s->bmax[b] < mx && (down ? k == be - 1 : k == bs)) {
            k = down ? bs - 1 : be; /* skip the block */
            continue;
        }
        k = down ? k - 1 : k + 1;
    }
}

/* Drops the candidates of cst[from, to) without room after them (above
 * the last offset; room_after); returns the new end.  With the largest
 * total mx of the piece and the first and last sections holding it, most
 * are settled at once: mx fits, or a section holding it lies outside the
 * candidate's own (whose totals are the only ones its placement lowers). */
static size_t keep_roomy(sr *s, size_t from, size_t to, uint32_t s0,
                         uint32_t s1, uint64_t last_off) {
    uint64_t mx = max_total(s, s0, s1);
    uint32_t kf = where_max(s, s0, s1, mx, false);
    uint32_t kl = where_max(s, s0, s1, mx, true);
    size_t w = from;
    for (size_t q = from; q < to; q++) {
        cand cd = s->cst[q];
        uint32_t u = cd.id;
        bool ok = cd.off == last_off || mx <= s->cap - cd.off ||
                  (kf >= s->slo[u] && kl < s->shi[u] &&
                   room_after(s, s0, s1, u, cd.off));
        if (ok)
            s->cst[w++] = cd;
        else
            skipped(s, u);
    }
    return w;
}

static inline bool cand_less(const cand *x, const cand *y) {
    return x->off < y->off || (x->off == y->off && x->rank < y->rank);
}

/* cand_sort(v, n) sorts v[0..n) by offset, then rank (ranks are unique
 * within a piece, so the order is total and any sort gives the same
 * result). */
PLAN_DEFINE_SORT(cand_sort, cand, cand_less)

/* Moves the least of v[0..n) (by offset, then rank) to v[0]: a dive
 * mostly takes the first candidate, so the rest are sorted only when
 * the search comes back for the second. */
static void least_first(cand *v, size_t n) {
    size_t b = 0;
    for (size_t i = 1; i < n; i++)
        if (cand_less(&v[i], &v[b]))
            b = i;
    cand t = v[0];
    v[0] = v[b];
    v[b] = t;
}

/* The segment [cp[g], cp[g + 1]) of the sorted cut points cp[0..nseg]
 * (cp[0] <= k < cp[nseg]) that holds section k. */
static uint32_t segment_of(const uint32_t *cp, uint32_t nseg, uint32_t k) {
    return base_lower_bound_u32(cp, nseg, k + 1) - 1;
}

/* Re-ranks the buffers mem[0..len) of a new independent piece by the
 * current heuristic on the current section totals. */
static bool rerank(sr *s, const uint32_t *mem, uint32_t len) {
    for (uint32_t i = 0; i < len; i++)
        plan_sr_keys(s, s->heur, mem[i], &s->rks[i]);
    qsort(s->rks, len, sizeof *s->rks, plan_sr_rk_cmp);
    for (uint32_t i = 0; i < len; i++)
        if (s->rank[s->rks[i].id] != i && !set(s, &s->rank[s->rks[i].id], i))
            return false;
    return true;
}

/* After placing u (at last_off): continues on the same piece, or on the
 * independent pieces it split into. */
static int descend(sr *s, ctl *c, size_t pbeg, uint32_t np, uint32_t s0,
                   uint32_t s1, uint32_t u, uint64_t last_off,
                   int64_t last_rank) {
    uint32_t a = s->slo[u] > s0 ? s->slo[u] : s0;
    uint32_t b = s->shi[u] < s1 ? s->shi[u] : s1;
    /* Cut points: s0, every zero boundary + 1 inside u's span, s1. */
    uint32_t ncp = 2;
    for (uint32_t k = a; k + 1 < b; k++)
        if (s->cut[k] == 0)
            ncp++;
    if (ncp == 2)
        return dfs(s, c, pbeg, np, s0, s1, last_off, last_rank);

    size_t base = s->nstk;
    /* layout in stk: [cut points ncp][counts ncp][members np] */
    if (!grow((void **)&s->stk, &s->capstk, base + 2 * ncp + np,
              sizeof *s->stk))
        return R_OOM;
    uint32_t *cp = s->stk + base;
    uint32_t q = 0;
    cp[q++] = s0;
    for (uint32_t k = a; k + 1 < b; k++)
        if (s->cut[k] == 0)
            cp[q++] = k + 1;
    cp[q++] = s1;
    uint32_t nseg = q - 1;
    uint32_t *cnt = cp + ncp;
    memset(cnt, 0, ncp * sizeof *cnt);
    for (uint32_t i = 0; i < np; i++) {
        uint32_t v = s->stk[pbeg + i];
        if (s->minoff[v] == UNPLACED)
            continue;
        cnt[segment_of(cp, nseg, s->slo[v])]++;
    }
    /* prefix offsets (reuse cnt as start positions) */
    uint32_t acc = 0;
    for (uint32_t g = 0; g < nseg; g++) {
        uint32_t t = cnt[g];
        cnt[g] = acc;
        acc += t;
    }
    uint32_t *mem = cnt + ncp;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t v = s->stk[pbeg + i];
        if (s->minoff[v] == UNPLACED)
            continue;
        mem[cnt[segment_of(cp, nseg, s->slo[v])]++] = v;
    }
    s->nstk = base + 2 * ncp + acc;
    int r = R_FOUND;
    uint32_t start = 0;
    for (uint32_t g = 0; g < nseg && r == R_FOUND; g++) {
        /* pointers may move when stk grows: recompute from base */
        uint32_t end = s->stk[base + ncp + g];
        uint32_t len = end - start;
        uint32_t g0 = s->stk[base + g], g1 = s->stk[base + g + 1];
        size_t mbeg = base + 2 * ncp + start;
        start = end;
        if (len == 0)
            continue;
        /* an independent sub-problem: its own preorder, from offset 0 */
        if (!rerank(s, s->stk + mbeg, len))
            r = R_OOM;
        else
            r = dfs(s, c, mbeg, len, g0, g1, 0, -1);
    }
    s->nstk = base;
    return r;
}

static int dfs(sr *s, ctl *c, size_t pbeg, uint32_t np, uint32_t s0,
               uint32_t s1, uint64_t last_off, int64_t last_rank) {
    if (c->steps >= c->limit)
        return R_ABORT;
    /* a step is a node, plus one per SEARCH_WORK buffers and sections
     * scanned, so that steps follow time across instance shapes */
    s->work += np + (s1 - s0);
    c->steps += 1 + s->work / SEARCH_WORK;
    s->work %= SEARCH_WORK;
    if (c->steps > c->limit)
        c->steps = c->limit; /* never past the budget */
    if ((++c->nodes & 1023) == 0 && !plan_sr_tick(c))
        return R_ABORT;

    /* One pass: the unplaced members move to the front of the piece,
     * which from here on is only them (the piece is a set: its order is
     * free); the candidates are those below the least top (minh) of the
     * unplaced, after the last placement in (offset, rank) order.  A
     * member is listed when below the least top so far, and the list is
     * cut to those below the final one after the pass. */
    uint64_t minh = UINT64_MAX;
    uint32_t *mem = s->stk + pbeg, nu = 0;
    size_t c0 = s->ncst;
    if (!grow((void **)&s->cst, &s->capcst, c0 + np, sizeof *s->cst))
        return R_OOM;
    cand *cs = s->cst;
    size_t nc = c0;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t u = mem[i];
        uint64_t o = s->minoff[u];
        if (o == UNPLACED)
            continue;
        mem[i] = mem[nu];
        mem[nu++] = u;
        uint64_t h = o + s->size[u];
        if (h > s->cap)
            return R_NONE;
        if (h < minh)
            minh = h;
        if (o >= minh || (o < last_off ||
                          (o == last_off && (int64_t)s->rank[u] <= last_rank)))
            continue;
        cs[nc].off = o;
        cs[nc].rank = (uint32_t)s->rank[u];
        cs[nc].id = u;
        nc++;
    }
    if (nu == 0)
        return R_FOUND;
    np = nu;
    size_t c1 = c0;
    for (size_t j = c0; j < nc; j++)
        if (cs[j].off < minh)
            cs[c1++] = cs[j];
    s->ncst = c1;
    for (size_t j = c0; j < c1; j++) {
        if (j == c0) {
            least_first(s->cst + j, c1 - j); /* a dive takes only it */
        } else if (j == c0 + 1) {
            /* back for the rest: those with room, in order */
            c1 = s->ncst = keep_roomy(s, j, c1, s0, s1, last_off);
            cand_sort(s->cst + j, c1 - j);
            if (j == c1)
                break;
        }
        cand cd = s->cst[j];
        if (j == c0 && cd.off != last_off &&
            !room_after(s, s0, s1, cd.id, cd.off)) {
            skipped(s, cd.id);
            continue;
        }
        size_t mark = s->ntrail;
        int r = place(s, cd.id, cd.off);
        if (r == R_FOUND)
            r = descend(s, c, pbeg, np, s0, s1, cd.id, cd.off,
                        (int64_t)cd.rank);
        if (r == R_FOUND) {
            s->ncst = c0;
            return R_FOUND;
        }
        undo(s, mark);
        if (r != R_NONE) {
            s->ncst = c0;
            return r;
        }
    }
    s->ncst = c0;
    return R_NONE;
}

/* The Luby sequence 1 1 2 1 1 2 4 1 1 2 1 1 2 4 8 ... (i >= 1). */
static uint64_t luby(uint64_t i) {
    for (;;) {
        uint64_t k = 1;
        while (((uint64_t)1 << k) - 1 < i)
            k++;
        if (i == ((uint64_t)1 << k) - 1)
            return (uint64_t)1 << (k - 1);
        i -= ((uint64_t)1 << (k - 1)) - 1;
    }
}

/* One run of the search on partition p within `node_limit` nodes, with
 * the preorder of heuristic h perturbed by `seed` (0: none).  On R_FOUND
 * the layout is in s->best. */
static int run_part(sr *s, ctl *c, const part *p, int h, uint64_t seed,
                    uint64_t node_limit) {
    s->heur = h;
    s->seed = seed;
    c->limit = c->budget_end - c->steps > node_limit ? c->steps + node_limit
                                                     : c->budget_end;
    size_t mark = s->ntrail;
    s->nstk = 0;
    s->ncst = 0;
    if (!grow((void **)&s->stk, &s->capstk, p->cnt, sizeof *s->stk))
        return R_OOM;
    memcpy(s->stk, s->pmem + p->beg, p->cnt * sizeof *s->stk);
    s->nstk = p->cnt;
    int r = rerank(s, s->pmem + p->beg, p->cnt) ? R_FOUND : R_OOM;
    if (r == R_FOUND)
        r = dfs(s, c, 0, p->cnt, p->s0, p->s1, 0, -1);
    if (r == R_FOUND)
        for (uint32_t i = 0; i < p->cnt; i++) {
            uint32_t u = s->pmem[p->beg + i];
            s->best[u] = s->off[u];
        }
    undo(s, mark);
    return r;
}

/* The preorders of a probe (c->probe), in order: on the 9 minimalloc
 * instances that have a layout at their lower bound, TWA's single run
 * reaches it on 7 (within 4,800 to 87,000 steps), TAW's on the other 2
 * and on C (590 to 72,000); WAT's on none of the others (docs/search.md). */
static const int probe_order[] = {2, 1};

/* A probe of partition p at capacity s->cap: one unperturbed run per
 * preorder of probe_order, each within c->probe steps.  A run that ends
 * within its limit is complete: R_NONE proves infeasibility. */
static int probe_part(sr *s, ctl *c, const part *p) {
    for (size_t i = 0; i < sizeof probe_order / sizeof *probe_order; i++) {
        if (c->steps >= c->budget_end || c->timed_out)
            return R_ABORT;
        int r = run_part(s, c, p, probe_order[i], 0, c->probe);
        if (r != R_ABORT)
            return r;
    }
    return R_ABORT;
}

/* Feasibility of partition p at capacity cap: restarts from two
 * sequences, both cycling through the three preorders, sharing the steps
 * equally (the next run comes from the sequence that used fewer).  Luby
 * runs: limits from the Luby sequence in units of about four dives, the
 * preorders perturbed from the fourth such run of the whole search on,
 * each by a seed of its own (loose capacities, where a deep failure
 * stalls a long run; a later attempt, at another capacity or on another
 * partition, draws new perturbations instead of replaying those that
 * failed).  Doubling runs: the preorders as they are, the limit
 * doubling every three runs (tight capacities, where pruning makes long
 * runs pay).  Every run is complete given the steps, so one that ends
 * within its limit proves infeasibility.  On R_FOUND the layout is in
 * s->best. */
static int solve_part(sr *s, ctl *c, const part *p, uint64_t cap) {
    if (p->lb > cap)
        return R_NONE;
    s->cap = cap;
    if (c->probe)
        return probe_part(s, c, p);
    /* a dive takes cnt nodes of about 1 + (cnt + sections) / SEARCH_WORK
     * steps each */
    uint64_t cnt = p->cnt > 32 ? p->cnt : 32;
    uint64_t dive = cnt * (1 + (cnt + p->s1 - p->s0) / SEARCH_WORK);
    uint64_t k[2] = {0, 0}, used[2] = {0, 0}; /* [0] Luby, [1] doubling */
    for (;;) {
        if (c->steps >= c->budget_end || c->timed_out)
            return R_ABORT;
        int q = used[1] < used[0];
        int h = (int)(k[q] % NHEUR);
        uint64_t lim, seed = 0;
        if (q) {
            uint64_t d = k[1] / NHEUR < 60 ? (uint64_t)2 << (k[1] / NHEUR) : 0;
            lim = d && d < UINT64_MAX / dive ? d * dive : UINT64_MAX;
        } else {
            uint64_t l = luby(k[0] + 1);
            lim = l < UINT64_MAX / (4 * dive) ? l * 4 * dive : UINT64_MAX;
            /* the seed numbers every Luby run of the search: an attempt
             * never replays the runs that failed at an earlier capacity */
            seed = c->luby_runs < NHEUR ? 0 : c->luby_runs;
            c->luby_runs++;
        }
        uint64_t st0 = c->steps;
        int r = run_part(s, c, p, h, seed, lim);
        if (r != R_ABORT)
            return r;
        used[q] += c->steps - st0;
        k[q]++;
    }
}

uint64_t plan_sr_part_height(const sr *s, const part *p) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < p->cnt; i++) {
        uint32_t u = s->pmem[p->beg + i];
        if (s->best[u] + s->size[u] > h)
            h = s->best[u] + s->size[u];
    }
    return h;
}

uint64_t plan_sr_height(const sr *s) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < s->m; i++)
        if (s->best[i] + s->size[i] > h)
            h = s->best[i] + s->size[i];
    return h;
}

/* The height of a class layout (sizes rounded up to the pool alignment). */
uint64_t plan_sr_height_of(const sr *s, const uint64_t *off) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < s->m; i++)
        if (off[i] + s->size[i] > h)
            h = off[i] + s->size[i];
    return h;
}

/* Tries to bring every partition to height <= cap. */
int plan_sr_attempt(sr *s, ctl *c, uint64_t cap) {
    for (uint32_t i = 0; i < s->npart; i++) {
        const part *p = &s->parts[i];
        if (plan_sr_part_height(s, p) <= cap)
            continue;
        if (!p->searchable)
            return p->lb > cap ? R_NONE : R_ABORT;
        int r = solve_part(s, c, p, cap);
        if (r != R_FOUND)
            return r;
    }
    return R_FOUND;
}

/*
 * planner/search.c - the search planner: exact depth-first search over
 * canonical solutions, then large-neighbourhood search (planner/lns.c,
 * planner/window.c); anytime, monotone and deterministic.  The full
 * description is docs/search.md; in short (after the MiniMalloc solver,
 * Moffitt, ASPLOS 2023; the code is ours):
 *
 *  - Colour classes are searched separately and stacked.  The time axis
 *    of a class is cut into sections; where no buffer crosses a section
 *    boundary the class splits into independent partitions.
 *  - Canonical solutions: buffers placed bottom-up in non-decreasing
 *    offset order, each at its minimum offset (the aligned top of the
 *    placed buffers it overlaps), ties broken by a preorder rank.
 *  - Inference: per section a floor and the total of its unplaced
 *    buffers; max(floor, last offset) + total > capacity prunes.
 *    Dominance: never place a buffer at or above the top another
 *    unplaced buffer would reach at its minimum offset.
 *  - Decomposition: a boundary no unplaced buffer crosses splits the rest
 *    into sub-problems solved one after the other, each re-ranked.
 *  - Restarts with doubling node limits over three preorders; a search
 *    that ends within its limit proves infeasibility.
 *  - Minimisation tries the lower bound (1/8 of the default budget), then
 *    bisects between the proven bound and the best size, per-attempt
 *    shares doubling when the unproven range is used up.  The schedule
 *    comes from the default budget only, so a larger budget runs a longer
 *    prefix of the same work and never gives a larger pool.
 *  - Per class: the exact search, then large-neighbourhood search with
 *    what is left.  The exact search only takes partitions of up to
 *    SEARCH_MAX_PART buffers; the large-neighbourhood search any size.
 *
 * All state changes go through an undo trail.  One step is one search
 * node (or one buffer put back by the large-neighbourhood search); the
 * result depends only on the input and the budget (the time limit is a
 * safety stop reported in the stats).  Cost per node: O(partition size +
 * sections spanned); memory O(n + overlaps) per searchable partition.
 */
#include "plan_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SEARCH_DEFAULT_BUDGET 2000000u
#define SEARCH_MIN_BUDGET 20000u
#define SEARCH_MAX_PART 2048u
/* adjacency entries (2 per overlapping pair) over all searchable parts */
#define SEARCH_MAX_EDGES 4000000u
#define NHEUR 3
#define UNPLACED UINT64_MAX

enum { R_FOUND = 1, R_NONE = 0, R_ABORT = -1, R_OOM = -2 };

typedef struct tr_ent {
    uint64_t *p;
    uint64_t old;
} tr_ent;

typedef struct cand {
    uint64_t off;
    uint32_t rank;
    uint32_t id;
} cand;

typedef struct part {
    uint32_t s0, s1;   /* section range [s0, s1) */
    uint32_t beg, cnt; /* members: pmem[beg .. beg+cnt) */
    uint64_t lb;       /* max section total (a proven lower bound) */
    bool searchable;
} part;

typedef struct rk {
    uint64_t k[3];
    uint32_t id;
} rk;

/* One colour class, as a search problem with local buffer ids. */
typedef struct sr {
    uint32_t m;
    uint64_t *size; /* rounded up to the pool alignment */
    uint64_t *align;
    uint32_t *slo, *shi;
    uint32_t nsec;
    uint32_t *adj_beg, *adj;     /* time overlaps, CSR (searchable parts) */
    uint32_t *sec_beg, *sec_mem; /* members of each section, CSR */
    uint32_t *ranks[NHEUR];
    uint64_t *width; /* lifespan in statements */
    uint64_t *rank;  /* working ranks of the current heuristic (trailed) */
    int heur;
    struct rk *rks; /* scratch for re-ranking */
    uint32_t npart;
    part *parts;
    uint32_t *pmem;
    uint64_t gran; /* every height is a multiple of it */
    bool uniform;  /* every buffer has the same alignment */

    /* search state */
    uint64_t *off, *minoff, *floor, *total, *cut;
    uint64_t cap;
    tr_ent *trail;
    size_t ntrail, captrail;
    uint32_t *stk;
    size_t nstk, capstk;
    cand *cst;
    size_t ncst, capcst;
    uint32_t *chg;   /* scratch: buffers whose minimum offset rose */
    uint64_t *watch; /* per section: an unplaced buffer at its floor */
    uint64_t *wcnt;  /* per buffer: sections it is the watch of */

    /* the current best layout of the class */
    uint64_t *best;
} sr;

/* Shared by every class of one plan_search call. */
typedef struct ctl {
    uint64_t steps, limit, budget_end;
    uint64_t schedule; /* plan_search_opts.schedule */
    double time_limit;
    bool timed_out;
    bool progress;
    struct timespec t0, last_print;
    bool printed;
    uint64_t show_best, show_lb;
} ctl;

static uint64_t align_up(uint64_t v, uint64_t a) {
    uint64_t r = v % a;
    if (r == 0)
        return v;
    if (v > UINT64_MAX - (a - r))
        return UINT64_MAX - UINT64_MAX % a;
    return v + (a - r);
}

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

static double elapsed(const struct timespec *t0) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - t0->tv_sec) +
           (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

static void progress_line(ctl *c) {
    double e = elapsed(&c->t0);
    if (e < 1.0)
        return;
    double since = elapsed(&c->last_print);
    if (c->printed && since < 0.25)
        return;
    clock_gettime(CLOCK_MONOTONIC, &c->last_print);
    fprintf(stderr,
            "\rsearch: best %llu bytes, lower bound %llu, %llu steps, "
            "%.1f s\033[K",
            (unsigned long long)c->show_best, (unsigned long long)c->show_lb,
            (unsigned long long)c->steps, e);
    fflush(stderr);
    c->printed = true;
}

/* Called every 1024 steps: the safety stop and the progress line. */
static bool tick(ctl *c) {
    if (c->time_limit > 0 && elapsed(&c->t0) > c->time_limit) {
        c->timed_out = true;
        return false;
    }
    if (c->progress)
        progress_line(c);
    return true;
}

/* ---------------------------------------------------------------- */
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
 * it. */
static bool rescan(sr *s, uint32_t k, uint64_t least) {
    uint64_t lo = UINT64_MAX, w = UNPLACED;
    for (uint32_t j = s->sec_beg[k]; j < s->sec_beg[k + 1]; j++) {
        uint32_t v = s->sec_mem[j];
        if (s->minoff[v] < lo) { /* placed ones hold UNPLACED */
            lo = s->minoff[v];
            w = v;
            if (lo <= least)
                break;
        }
    }
    uint64_t old = s->watch[k];
    if (w != old) {
        if (!set(s, &s->watch[k], w))
            return false;
        if (old != UNPLACED && !set(s, &s->wcnt[old], s->wcnt[old] - 1))
            return false;
        if (w != UNPLACED && !set(s, &s->wcnt[w], s->wcnt[w] + 1))
            return false;
    }
    if (lo != UINT64_MAX && lo > s->floor[k] && !set(s, &s->floor[k], lo))
        return false;
    return true;
}

/* Places u at o.  Returns R_FOUND when consistent, R_NONE when the
 * partial solution is already infeasible, R_OOM. */
static int place(sr *s, uint32_t u, uint64_t o) {
    uint64_t top = o + s->size[u];
    uint32_t nchg = 0;
    if (!set(s, &s->off[u], o) || !set(s, &s->minoff[u], UNPLACED))
        return R_OOM;
    for (uint32_t k = s->slo[u]; k + 1 < s->shi[u]; k++)
        if (!set(s, &s->cut[k], s->cut[k] - 1))
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
                   !rescan(s, k, s->uniform ? top_a : top)) {
            return R_OOM;
        }
        if (s->total[k] && s->floor[k] + s->total[k] > s->cap)
            return R_NONE;
    }
    /* elsewhere only where the buffer holding the minimum moved */
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
            if (!rescan(s, k, s->floor[k]))
                return R_OOM;
            if (s->floor[k] + s->total[k] > s->cap)
                return R_NONE;
        }
    }
    return R_FOUND;
}

static bool check(const sr *s, uint32_t s0, uint32_t s1, uint64_t last) {
    for (uint32_t k = s0; k < s1; k++) {
        if (!s->total[k])
            continue;
        uint64_t f = s->floor[k] > last ? s->floor[k] : last;
        if (f + s->total[k] > s->cap)
            return false;
    }
    return true;
}

static int cand_cmp(const void *a, const void *b) {
    const cand *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int dfs(sr *s, ctl *c, size_t pbeg, uint32_t np, uint32_t s0,
               uint32_t s1, uint64_t last_off, int64_t last_rank);

/* The segment [cp[g], cp[g + 1]) of the sorted cut points cp[0..nseg]
 * that holds section k. */
static uint32_t segment_of(const uint32_t *cp, uint32_t nseg, uint32_t k) {
    uint32_t lo = 0, hi = nseg;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (cp[mid] <= k)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}
static bool rerank(sr *s, const uint32_t *mem, uint32_t len);

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
    c->steps++;
    if ((c->steps & 1023) == 0 && !tick(c))
        return R_ABORT;

    uint64_t minh = UINT64_MAX;
    bool any = false;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t u = s->stk[pbeg + i];
        if (s->minoff[u] == UNPLACED)
            continue;
        any = true;
        uint64_t h = s->minoff[u] + s->size[u];
        if (h > s->cap)
            return R_NONE;
        if (h < minh)
            minh = h;
    }
    if (!any)
        return R_FOUND;

    size_t c0 = s->ncst;
    for (uint32_t i = 0; i < np; i++) {
        uint32_t u = s->stk[pbeg + i];
        if (s->minoff[u] == UNPLACED)
            continue;
        uint64_t o = s->minoff[u];
        if (o >= minh)
            continue;
        if (o < last_off || (o == last_off && (int64_t)s->rank[u] <= last_rank))
            continue;
        if (!grow((void **)&s->cst, &s->capcst, s->ncst + 1, sizeof *s->cst))
            return R_OOM;
        s->cst[s->ncst].off = o;
        s->cst[s->ncst].rank = (uint32_t)s->rank[u];
        s->cst[s->ncst].id = u;
        s->ncst++;
    }
    size_t c1 = s->ncst;
    qsort(s->cst + c0, c1 - c0, sizeof *s->cst, cand_cmp);
    for (size_t j = c0; j < c1; j++) {
        cand cd = s->cst[j];
        size_t mark = s->ntrail;
        int r = place(s, cd.id, cd.off);
        if (r == R_FOUND) {
            if (cd.off == last_off || check(s, s0, s1, cd.off))
                r = descend(s, c, pbeg, np, s0, s1, cd.id, cd.off,
                            (int64_t)cd.rank);
            else
                r = R_NONE;
        }
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

/* Feasibility of partition p at capacity cap, restarting with doubling
 * node limits over the heuristics.  On R_FOUND the layout is in
 * s->best. */
static int solve_part(sr *s, ctl *c, const part *p, uint64_t cap) {
    if (p->lb > cap)
        return R_NONE;
    s->cap = cap;
    uint64_t node_limit = p->cnt > 32 ? p->cnt : 32;
    for (;;) {
        if (node_limit < UINT64_MAX / 4)
            node_limit *= 2;
        for (int h = 0; h < NHEUR; h++) {
            if (c->steps >= c->budget_end || c->timed_out)
                return R_ABORT;
            s->heur = h;
            for (uint32_t i = 0; i < p->cnt; i++) {
                uint32_t u = s->pmem[p->beg + i];
                s->rank[u] = s->ranks[h][u];
            }
            c->limit = c->budget_end - c->steps > node_limit
                           ? c->steps + node_limit
                           : c->budget_end;
            size_t mark = s->ntrail;
            s->nstk = 0;
            s->ncst = 0;
            if (!grow((void **)&s->stk, &s->capstk, p->cnt, sizeof *s->stk))
                return R_OOM;
            memcpy(s->stk, s->pmem + p->beg, p->cnt * sizeof *s->stk);
            s->nstk = p->cnt;
            int r = dfs(s, c, 0, p->cnt, p->s0, p->s1, 0, -1);
            if (r == R_FOUND)
                for (uint32_t i = 0; i < p->cnt; i++) {
                    uint32_t u = s->pmem[p->beg + i];
                    s->best[u] = s->off[u];
                }
            undo(s, mark);
            if (r != R_ABORT)
                return r;
        }
    }
}

static uint64_t part_height(const sr *s, const part *p) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < p->cnt; i++) {
        uint32_t u = s->pmem[p->beg + i];
        if (s->best[u] + s->size[u] > h)
            h = s->best[u] + s->size[u];
    }
    return h;
}

static uint64_t class_height(const sr *s) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < s->m; i++)
        if (s->best[i] + s->size[i] > h)
            h = s->best[i] + s->size[i];
    return h;
}

/* The height of a class layout (sizes rounded up to the pool alignment). */
static uint64_t class_height_of(const sr *s, const uint64_t *off) {
    uint64_t h = 0;
    for (uint32_t i = 0; i < s->m; i++)
        if (off[i] + s->size[i] > h)
            h = off[i] + s->size[i];
    return h;
}

/* Tries to bring every partition to height <= cap. */
static int attempt(sr *s, ctl *c, uint64_t cap) {
    for (uint32_t i = 0; i < s->npart; i++) {
        const part *p = &s->parts[i];
        if (part_height(s, p) <= cap)
            continue;
        if (!p->searchable)
            return p->lb > cap ? R_NONE : R_ABORT;
        int r = solve_part(s, c, p, cap);
        if (r != R_FOUND)
            return r;
    }
    return R_FOUND;
}

/* ---------------------------------------------------------------- */
/* Setting up a class. */

static int rk_cmp(const void *a, const void *b) {
    const rk *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] > y->k[i] ? -1 : 1; /* descending */
    return x->id < y->id ? -1 : x->id > y->id;
}

static void sr_free(sr *s) {
    free(s->size);
    free(s->align);
    free(s->slo);
    free(s->shi);
    free(s->adj_beg);
    free(s->adj);
    free(s->sec_beg);
    free(s->sec_mem);
    for (int h = 0; h < NHEUR; h++)
        free(s->ranks[h]);
    free(s->width);
    free(s->rank);
    free(s->rks);
    free(s->parts);
    free(s->pmem);
    free(s->off);
    free(s->minoff);
    free(s->floor);
    free(s->total);
    free(s->cut);
    free(s->trail);
    free(s->stk);
    free(s->cst);
    free(s->chg);
    free(s->watch);
    free(s->wcnt);
    free(s->best);
}

static int u64_cmp(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static uint32_t point_index(const uint64_t *pts, uint32_t n, uint64_t t) {
    uint32_t lo = 0, hi = n;
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (pts[mid] <= t)
            lo = mid;
        else
            hi = mid;
    }
    return lo;
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static bool overlaps(const sr *s, uint32_t u, uint32_t v) {
    return s->slo[u] < s->shi[v] && s->slo[v] < s->shi[u];
}

/* Partitions at section boundaries no buffer crosses; lower bounds;
 * overlaps and section members for the searchable ones. */
static int sr_parts(sr *s) {
    uint32_t m = s->m, ns = s->nsec;
    s->parts = calloc((size_t)ns + 1, sizeof *s->parts);
    s->pmem = calloc((size_t)m + 1, sizeof *s->pmem);
    s->adj_beg = calloc((size_t)m + 2, sizeof *s->adj_beg);
    s->sec_beg = calloc((size_t)ns + 2, sizeof *s->sec_beg);
    uint32_t *pid = calloc((size_t)ns + 1, sizeof *pid);
    uint32_t *fill = calloc((size_t)ns + 2, sizeof *fill);
    if (!s->parts || !s->pmem || !s->adj_beg || !s->sec_beg || !pid || !fill) {
        free(pid);
        free(fill);
        return -1;
    }
    /* partition of each section */
    uint32_t np = 0;
    for (uint32_t k = 0; k < ns; k++) {
        if (k == 0 || s->cut[k - 1] == 0) {
            s->parts[np].s0 = k;
            np++;
        }
        pid[k] = np - 1;
        s->parts[np - 1].s1 = k + 1;
        if (s->total[k] > s->parts[np - 1].lb)
            s->parts[np - 1].lb = s->total[k];
    }
    for (uint32_t i = 0; i < m; i++)
        s->parts[pid[s->slo[i]]].cnt++;
    uint32_t acc = 0;
    for (uint32_t p = 0; p < np; p++) {
        s->parts[p].beg = acc;
        acc += s->parts[p].cnt;
        fill[p] = s->parts[p].beg;
    }
    for (uint32_t i = 0; i < m; i++)
        s->pmem[fill[pid[s->slo[i]]]++] = i;
    /* drop empty partitions, keep order */
    uint32_t q = 0;
    for (uint32_t p = 0; p < np; p++)
        if (s->parts[p].cnt)
            s->parts[q++] = s->parts[p];
    s->npart = q;
    /* overlaps (pairwise inside small partitions) */
    uint64_t edges = 0;
    for (uint32_t p = 0; p < s->npart; p++) {
        part *pt = &s->parts[p];
        pt->lb = align_up(pt->lb, s->gran);
        if (pt->cnt > SEARCH_MAX_PART)
            continue;
        uint64_t e = 0;
        for (uint32_t i = 0; i < pt->cnt; i++)
            for (uint32_t j = i + 1; j < pt->cnt; j++)
                if (overlaps(s, s->pmem[pt->beg + i], s->pmem[pt->beg + j]))
                    e += 2;
        if (edges + e > SEARCH_MAX_EDGES)
            continue;
        edges += e;
        pt->searchable = true;
        for (uint32_t i = 0; i < pt->cnt; i++) {
            uint32_t u = s->pmem[pt->beg + i];
            for (uint32_t j = i + 1; j < pt->cnt; j++) {
                uint32_t v = s->pmem[pt->beg + j];
                if (overlaps(s, u, v)) {
                    s->adj_beg[u + 1]++;
                    s->adj_beg[v + 1]++;
                }
            }
            for (uint32_t k = s->slo[u]; k < s->shi[u]; k++)
                s->sec_beg[k + 1]++;
        }
    }
    for (uint32_t i = 0; i < m; i++)
        s->adj_beg[i + 1] += s->adj_beg[i];
    for (uint32_t k = 0; k < ns; k++)
        s->sec_beg[k + 1] += s->sec_beg[k];
    s->adj = calloc((size_t)edges + 1, sizeof *s->adj);
    s->sec_mem = calloc((size_t)s->sec_beg[ns] + 1, sizeof *s->sec_mem);
    uint32_t *afill = calloc((size_t)m + 1, sizeof *afill);
    if (!s->adj || !s->sec_mem || !afill) {
        free(afill);
        free(pid);
        free(fill);
        return -1;
    }
    memcpy(afill, s->adj_beg, (size_t)m * sizeof *afill);
    memcpy(fill, s->sec_beg, (size_t)ns * sizeof *fill);
    for (uint32_t p = 0; p < s->npart; p++) {
        part *pt = &s->parts[p];
        if (!pt->searchable)
            continue;
        for (uint32_t i = 0; i < pt->cnt; i++) {
            uint32_t u = s->pmem[pt->beg + i];
            for (uint32_t j = 0; j < pt->cnt; j++) {
                uint32_t v = s->pmem[pt->beg + j];
                if (u != v && overlaps(s, u, v))
                    s->adj[afill[u]++] = v;
            }
            for (uint32_t k = s->slo[u]; k < s->shi[u]; k++)
                s->sec_mem[fill[k]++] = u;
        }
    }
    free(afill);
    free(pid);
    free(fill);
    return 0;
}

static const char *const heur_keys[NHEUR] = {"WAT", "TAW", "TWA"};

/* The preorder keys of buffer i under heuristic h, from the current
 * section totals: W lifespan, A lifespan x size, T max section total. */
static void buf_keys(const sr *s, int h, uint32_t i, rk *out) {
    uint64_t t = 0;
    for (uint32_t k = s->slo[i]; k < s->shi[i]; k++)
        if (s->total[k] > t)
            t = s->total[k];
    for (int j = 0; j < 3; j++) {
        char key = heur_keys[h][j];
        out->k[j] = key == 'W'   ? s->width[i]
                    : key == 'A' ? sat_mul(s->width[i], s->size[i])
                                 : t;
    }
    out->id = i;
}

static int sr_ranks(sr *s) {
    s->rks = calloc((size_t)s->m + 1, sizeof *s->rks);
    s->rank = calloc((size_t)s->m + 1, sizeof *s->rank);
    if (!s->rks || !s->rank)
        return -1;
    for (int h = 0; h < NHEUR; h++) {
        s->ranks[h] = calloc((size_t)s->m + 1, sizeof *s->ranks[h]);
        if (!s->ranks[h])
            return -1;
        for (uint32_t i = 0; i < s->m; i++)
            buf_keys(s, h, i, &s->rks[i]);
        qsort(s->rks, s->m, sizeof *s->rks, rk_cmp);
        for (uint32_t i = 0; i < s->m; i++)
            s->ranks[h][s->rks[i].id] = i;
    }
    return 0;
}

/* Re-ranks the buffers mem[0..len) of a new independent piece by the
 * current heuristic on the current section totals. */
static bool rerank(sr *s, const uint32_t *mem, uint32_t len) {
    for (uint32_t i = 0; i < len; i++)
        buf_keys(s, s->heur, mem[i], &s->rks[i]);
    qsort(s->rks, len, sizeof *s->rks, rk_cmp);
    for (uint32_t i = 0; i < len; i++)
        if (s->rank[s->rks[i].id] != i && !set(s, &s->rank[s->rks[i].id], i))
            return false;
    return true;
}

/* Builds the search problem of the buffers ids[0..m) of pb (all of size
 * > 0 and of one colour class) with start layout start[0..m).  Returns 0
 * or -1 (out of memory; the caller still calls sr_free). */
static int sr_init(sr *s, const plan_problem *pb, const uint32_t *ids,
                   uint32_t m, const uint64_t *start) {
    memset(s, 0, sizeof *s);
    uint64_t A = pb->align ? pb->align : 1;
    s->m = m;
    size_t m1 = (size_t)m + 1;
    s->size = calloc(m1, sizeof *s->size);
    s->align = calloc(m1, sizeof *s->align);
    s->slo = calloc(m1, sizeof *s->slo);
    s->shi = calloc(m1, sizeof *s->shi);
    s->off = calloc(m1, sizeof *s->off);
    s->minoff = calloc(m1, sizeof *s->minoff);
    s->best = calloc(m1, sizeof *s->best);
    s->chg = calloc(m1, sizeof *s->chg);
    s->width = calloc(m1, sizeof *s->width);
    s->wcnt = calloc(m1, sizeof *s->wcnt);
    uint64_t *pts = calloc(2 * m1, sizeof *pts);
    if (!s->size || !s->align || !s->slo || !s->shi || !s->off || !s->minoff ||
        !s->best || !s->chg || !s->width || !s->wcnt || !pts) {
        free(pts);
        return -1;
    }
    uint64_t g = A;
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[ids[i]];
        uint64_t a = b->align > A ? b->align : A;
        if (a & (a - 1)) {
            free(pts);
            return -1; /* alignments are powers of two (planner.h) */
        }
        s->align[i] = a;
        s->size[i] = align_up(b->size, A);
        g = gcd64(g, s->size[i]);
        g = gcd64(g, a);
        s->best[i] = start[i];
        s->off[i] = UNPLACED;
        s->width[i] = (uint64_t)b->end - b->start + 1;
        pts[2 * i] = b->start;
        pts[2 * i + 1] = (uint64_t)b->end + 1;
    }
    s->gran = g ? g : 1;
    s->uniform = true;
    for (uint32_t i = 1; i < m; i++)
        if (s->align[i] != s->align[0])
            s->uniform = false;
    size_t n2 = 2 * (size_t)m, u = 0;
    qsort(pts, n2, sizeof *pts, u64_cmp);
    for (size_t i = 0; i < n2; i++)
        if (u == 0 || pts[u - 1] != pts[i])
            pts[u++] = pts[i];
    uint32_t npts = (uint32_t)u;
    s->nsec = npts ? npts - 1 : 0;
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[ids[i]];
        s->slo[i] = point_index(pts, npts, b->start);
        s->shi[i] = point_index(pts, npts, (uint64_t)b->end + 1);
    }
    free(pts);
    size_t ns1 = (size_t)s->nsec + 1;
    s->floor = calloc(ns1, sizeof *s->floor);
    s->total = calloc(ns1 + 1, sizeof *s->total);
    s->cut = calloc(ns1 + 1, sizeof *s->cut);
    s->watch = calloc(ns1, sizeof *s->watch);
    if (!s->floor || !s->total || !s->cut || !s->watch)
        return -1;
    /* difference arrays (wrap-around arithmetic cancels exactly) */
    for (uint32_t i = 0; i < m; i++) {
        s->total[s->slo[i]] += s->size[i];
        s->total[s->shi[i]] -= s->size[i];
        if (s->shi[i] - s->slo[i] >= 2) {
            s->cut[s->slo[i]]++;
            s->cut[s->shi[i] - 1]--;
        }
    }
    for (uint32_t k = 1; k <= s->nsec; k++) {
        s->total[k] += s->total[k - 1];
        s->cut[k] += s->cut[k - 1];
    }
    if (sr_parts(s) != 0 || sr_ranks(s) != 0)
        return -1;
    for (uint32_t k = 0; k < s->nsec; k++) {
        s->watch[k] = UNPLACED;
        if (s->sec_beg[k] < s->sec_beg[k + 1]) {
            s->watch[k] = s->sec_mem[s->sec_beg[k]];
            s->wcnt[s->watch[k]]++;
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- */
/* Driving the search for one class. */

typedef struct cls_out {
    uint64_t lo;     /* proven: no layout of the class below it */
    uint64_t height; /* of the best layout found */
    bool budget_hit;
} cls_out;

static uint64_t class_lb(const sr *s) {
    uint64_t lo = 0;
    for (uint32_t p = 0; p < s->npart; p++)
        if (s->parts[p].lb > lo)
            lo = s->parts[p].lb;
    return lo;
}

static uint64_t default_budget(const sr *s);

/* Minimises the class height within `budget` steps.  The schedule (the
 * share of each attempt) comes from plan_search_opts.schedule or the
 * default budget, never from `budget`, so a larger budget runs a longer
 * prefix of the same attempts: the result can only get better. */
static int class_minimise(sr *s, ctl *c, uint64_t budget, cls_out *out) {
    uint64_t hi = class_height(s), lo = class_lb(s), fixed = 0;
    uint64_t g = s->gran, class_end = c->steps + budget;
    if (class_end < c->steps)
        class_end = UINT64_MAX;
    for (uint32_t p = 0; p < s->npart; p++)
        if (!s->parts[p].searchable) {
            uint64_t h = part_height(s, &s->parts[p]);
            if (h > fixed)
                fixed = h;
        }
    uint64_t base = c->schedule ? c->schedule : default_budget(s);
    uint64_t per = base / 32 > 1000 ? base / 32 : 1000;
    uint64_t soft = lo > fixed ? lo : fixed;
    int r = R_FOUND;
    /* First the lower bound itself: tight capacities prune hardest, and
     * real instances often pack perfectly. */
    if (lo < hi && fixed <= lo) {
        uint64_t first = base / 8 > 1000 ? base / 8 : 1000;
        c->budget_end =
            class_end - c->steps > first ? c->steps + first : class_end;
        c->show_best = hi;
        c->show_lb = lo;
        r = attempt(s, c, lo);
        hi = class_height(s);
        if (r == R_OOM)
            return -1;
        if (r == R_NONE)
            soft = lo = lo + g;
    }
    while (lo < hi && c->steps < class_end && !c->timed_out) {
        if (soft >= hi) {
            if (fixed >= hi)
                break;
            soft = lo > fixed ? lo : fixed;
            if (per < UINT64_MAX / 4)
                per *= 2;
        }
        uint64_t k = (hi - soft) / g;
        uint64_t x = soft + ((k - 1) / 2) * g;
        c->budget_end = class_end - c->steps > per ? c->steps + per : class_end;
        c->show_best = hi;
        c->show_lb = lo;
        r = attempt(s, c, x);
        hi = class_height(s);
        if (r == R_OOM)
            return -1;
        if (r == R_NONE) {
            lo = x + g;
            if (soft < lo)
                soft = lo;
        } else if (r == R_ABORT) {
            soft = x + g;
        }
    }
    out->lo = lo < hi ? lo : hi;
    out->height = hi;
    out->budget_hit = lo < hi && !c->timed_out;
    return 0;
}

/* Capacity mode: height <= cap, or a proof that none exists. */
static int class_fit(sr *s, ctl *c, uint64_t cap, uint64_t budget,
                     cls_out *out) {
    uint64_t g = s->gran, x = cap - cap % g, lo = class_lb(s);
    c->budget_end = c->steps + budget;
    if (c->budget_end < c->steps)
        c->budget_end = UINT64_MAX;
    c->show_best = class_height(s);
    c->show_lb = lo;
    int r = R_FOUND;
    if (lo > x)
        r = R_NONE;
    else if (class_height(s) > x)
        r = attempt(s, c, x);
    if (r == R_OOM)
        return -1;
    out->height = class_height(s);
    out->lo = r == R_NONE ? x + g : lo;
    if (out->height <= x && out->lo > out->height)
        out->lo = out->height;
    out->budget_hit = r == R_ABORT && !c->timed_out;
    return 0;
}

/* ---------------------------------------------------------------- */
/* plan_search */

typedef struct ckey {
    int64_t key; /* colour, or 2^40 + index for colour -2 */
    uint32_t id;
} ckey;

static int ckey_cmp(const void *a, const void *b) {
    const ckey *x = a, *y = b;
    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The default budget: SEARCH_DEFAULT_BUDGET, scaled down by (300 / size)^2
 * for partitions of size > 300 buffers (a step on a dense partition costs
 * about size x overlap), at least SEARCH_MIN_BUDGET. */
static uint64_t default_budget(const sr *s) {
    uint64_t big = 1;
    for (uint32_t p = 0; p < s->npart; p++)
        if (s->parts[p].searchable && s->parts[p].cnt > big)
            big = s->parts[p].cnt;
    uint64_t b = SEARCH_DEFAULT_BUDGET;
    if (big > 300)
        b = b / big * 300 / big * 300;
    return b < SEARCH_MIN_BUDGET ? SEARCH_MIN_BUDGET : b;
}

/* plan_lns_class for the search: the time left, the steps counted. */
static int class_lns(const plan_problem *pb, const uint32_t *ids, uint32_t m,
                     uint64_t *start, uint64_t target, uint64_t budget,
                     ctl *c) {
    double left = 0;
    if (c->time_limit > 0) {
        left = c->time_limit - elapsed(&c->t0);
        c->timed_out = c->timed_out || left <= 0;
    }
    if (budget == 0 || c->timed_out)
        return 0;
    plan_lns_opts o = {budget, target, left};
    plan_lns_out lo;
    int rc = plan_lns_class(pb, ids, m, start, &o, &lo);
    c->steps += lo.steps;
    c->timed_out = c->timed_out || lo.time_limit_hit;
    return rc;
}

/* Searches one class (ids[0..m)) from start layout `start`, writing the
 * class-local offsets back into start[] and the outcome into out.
 * budget 0 = the default divided by `share`.  Two phases: the exact
 * search (on the partitions it takes, until it proves its result or runs
 * out), then large-neighbourhood search from its best layout with what
 * is left (all of it when no partition is small enough for the exact
 * search).  A larger budget runs a longer prefix of the same sequence. */
static int run_class(const plan_problem *pb, const uint32_t *ids, uint32_t m,
                     uint64_t *start, uint64_t cap, uint64_t budget,
                     uint32_t share, ctl *c, cls_out *out) {
    sr s;
    int rc = -1;
    if (sr_init(&s, pb, ids, m, start) != 0)
        goto done;
    if (budget == 0)
        budget = default_budget(&s) / (share ? share : 1);
    uint64_t end =
        c->steps + budget < c->steps ? UINT64_MAX : c->steps + budget;
    uint64_t target = class_lb(&s) > cap ? class_lb(&s) : cap;
    rc = cap ? class_fit(&s, c, cap, budget, out)
             : class_minimise(&s, c, budget, out);
    if (rc != 0)
        goto done;
    memcpy(start, s.best, (size_t)m * sizeof *start);
    /* what is left: minimising and not proved optimal, or above the
     * capacity and not proved infeasible */
    bool more =
        cap ? out->height > cap && out->lo <= cap : out->lo < out->height;
    if (more && c->steps < end)
        rc = class_lns(pb, ids, m, start, target, end - c->steps, c);
    out->height = class_height_of(&s, start);
    if (out->lo > out->height)
        out->lo = out->height;
    out->budget_hit =
        !c->timed_out &&
        (cap ? out->height > cap && out->lo <= cap : out->lo < out->height);
done:
    sr_free(&s);
    return rc;
}

static void finish_stats(const plan_problem *pb, const plan_search_opts *o,
                         uint64_t size, plan_search_stats *st) {
    uint64_t A = pb->align ? pb->align : 1;
    if (st->lower_bound > size)
        st->lower_bound = size; /* cannot happen; keep stats coherent */
    st->optimal = size <= st->lower_bound;
    if (o && o->capacity) {
        uint64_t capa = o->capacity - o->capacity % A;
        st->fits = size <= capa;
        st->infeasible = !st->fits && st->lower_bound > capa;
    }
    if (st->optimal || st->fits || st->infeasible)
        st->budget_hit = false;
}

/* Searches a problem with several colour classes: each class minimised
 * on its own (its budget share), the classes stacked. */
static int search_classes(const plan_problem *pb, const ckey *keys, uint32_t nk,
                          uint64_t budget, ctl *c, uint64_t *offsets,
                          uint64_t *size, bool *hit) {
    uint64_t A = pb->align ? pb->align : 1;
    uint32_t nsearch = 0; /* classes of more than one buffer */
    for (uint32_t i = 1; i < nk; i++)
        if (keys[i].key == keys[i - 1].key &&
            (i == 1 || keys[i - 1].key != keys[i - 2].key))
            nsearch++;
    uint64_t *out = calloc((size_t)pb->n + 1, sizeof *out);
    uint32_t *ids = calloc((size_t)nk + 1, sizeof *ids);
    plan_buf *bufs = calloc((size_t)nk + 1, sizeof *bufs);
    uint64_t *loc = calloc((size_t)nk + 1, sizeof *loc);
    uint32_t *sub_ids = calloc((size_t)nk + 1, sizeof *sub_ids);
    int rc = -1;
    if (!out || !ids || !bufs || !loc || !sub_ids)
        goto done;
    uint64_t base = 0;
    for (uint32_t i = 0; i < nk;) {
        uint32_t j = i;
        while (j < nk && keys[j].key == keys[i].key)
            j++;
        uint32_t m = j - i;
        uint64_t amax = A, h = 0;
        plan_problem sub = {m, bufs, A, NULL};
        for (uint32_t q = 0; q < m; q++) {
            ids[q] = keys[i + q].id;
            bufs[q] = pb->bufs[ids[q]];
            bufs[q].color = -1;
            sub_ids[q] = q;
            if (bufs[q].align > amax)
                amax = bufs[q].align;
        }
        uint64_t sz;
        if (plan_bestfit(&sub, loc, &sz) != 0)
            goto done;
        if (m > 1) {
            cls_out co = {0, 0, false};
            uint64_t b = budget / nsearch;
            if (budget && b == 0)
                b = 1; /* 0 would mean the default */
            if (run_class(&sub, sub_ids, m, loc, 0, b, nsearch, c, &co))
                goto done;
            *hit = *hit || co.budget_hit;
        }
        /* every class layout is within its best-fit size, so h <=
         * PLAN_MAX_POOL_SIZE; base <= PLAN_MAX_POOL_SIZE and amax <= 2^63
         * keep the sums below 2^64.  Stacked classes that pass the limit
         * lose to the best-fit plan (which is within it). */
        for (uint32_t q = 0; q < m; q++) {
            uint64_t t = loc[q] + align_up(bufs[q].size, A);
            if (t > h)
                h = t;
        }
        base = align_up(base, amax);
        if (base > PLAN_MAX_POOL_SIZE || h > PLAN_MAX_POOL_SIZE - base) {
            base = UINT64_MAX;
            break;
        }
        for (uint32_t q = 0; q < m; q++)
            out[ids[q]] = base + loc[q];
        base += h;
        i = j;
    }
    base = align_up(base, A); /* UINT64_MAX stays above *size */
    if (base < *size) {
        for (uint32_t i = 0; i < pb->n; i++)
            offsets[i] = pb->bufs[i].size ? out[i] : 0;
        *size = base;
    }
    rc = 0;
done:
    free(out);
    free(ids);
    free(bufs);
    free(loc);
    free(sub_ids);
    return rc;
}

/* The buffers that take space, sorted by colour class into keys[];
 * *overflow when sizes pass 2^62 (the search's own headroom below
 * PLAN_MAX_POOL_SIZE: keep best-fit) or an alignment is no power of 2. */
static uint32_t colour_keys(const plan_problem *pb, ckey *keys,
                            bool *overflow) {
    uint64_t A = pb->align ? pb->align : 1, sum = 0;
    uint32_t nk = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        if (!b->size)
            continue;
        uint64_t es = align_up(b->size, A);
        if (es > (UINT64_MAX >> 2) - sum || (b->align & (b->align - 1)) ||
            (A & (A - 1)))
            *overflow = true;
        else
            sum += es;
        keys[nk].key = b->color == -2 ? ((int64_t)1 << 40) + i : b->color;
        keys[nk].id = i;
        nk++;
    }
    qsort(keys, nk, sizeof *keys, ckey_cmp);
    return nk;
}

int plan_search_from(const plan_problem *pb, const plan_search_opts *o,
                     uint64_t *offsets, uint64_t *size, plan_search_stats *st) {
    memset(st, 0, sizeof *st);
    int rc;
    st->start_size = *size;
    st->lower_bound = plan_lower_bound(pb);
    uint64_t A = pb->align ? pb->align : 1;
    /* Any capacity up to UINT64_MAX: one at or above the best-fit size
     * (<= PLAN_MAX_POOL_SIZE) is met at once (finish_stats: fits), so the
     * search below only runs with capa < *size <= PLAN_MAX_POOL_SIZE and
     * its cap + granularity sums cannot wrap. */
    uint64_t cap = o ? o->capacity : 0;
    uint64_t capa = cap - cap % A;
    uint64_t budget = o ? o->budget : 0; /* 0 = default, per class */
    finish_stats(pb, o, *size, st);
    if (st->optimal || st->fits || st->infeasible || pb->n == 0)
        return 0;
    if (cap && capa == 0) {
        st->infeasible = true;
        return 0;
    }

    /* colour classes of the buffers that take space */
    ckey *keys = calloc((size_t)pb->n + 1, sizeof *keys);
    if (!keys)
        return -1;
    bool overflow = false;
    uint32_t nk = colour_keys(pb, keys, &overflow);
    bool single = nk > 0 && keys[0].key == keys[nk - 1].key;

    ctl c;
    memset(&c, 0, sizeof c);
    c.time_limit = o ? o->time_limit : 0;
    c.schedule = o ? o->schedule : 0;
    c.progress = o && o->progress && isatty(STDERR_FILENO);
    clock_gettime(CLOCK_MONOTONIC, &c.t0);
    c.last_print = c.t0;
    c.show_best = *size;
    c.show_lb = st->lower_bound;

    bool hit = false;
    if (overflow) {
        rc = 0;
        hit = true;
    } else if (single) {
        uint32_t *ids = calloc((size_t)nk + 1, sizeof *ids);
        uint64_t *loc = calloc((size_t)nk + 1, sizeof *loc);
        rc = -1;
        if (ids && loc) {
            for (uint32_t i = 0; i < nk; i++) {
                ids[i] = keys[i].id;
                loc[i] = offsets[ids[i]];
            }
            cls_out co = {0, 0, false};
            rc = run_class(pb, ids, nk, loc, capa, budget, 1, &c, &co);
            if (rc == 0) {
                uint64_t sz = align_up(co.height, A);
                if (sz < *size) {
                    for (uint32_t i = 0; i < nk; i++)
                        offsets[ids[i]] = loc[i];
                    *size = sz;
                }
                if (co.lo > st->lower_bound)
                    st->lower_bound = co.lo;
                hit = co.budget_hit;
            }
        }
        free(ids);
        free(loc);
    } else {
        rc = search_classes(pb, keys, nk, budget, &c, offsets, size, &hit);
    }
    free(keys);
    if (c.printed) {
        fprintf(stderr, "\r\033[K");
        fflush(stderr);
    }
    if (rc != 0)
        return rc;
    st->steps = c.steps;
    st->time_limit_hit = c.timed_out;
    st->budget_hit = hit;
    finish_stats(pb, o, *size, st);
#ifdef PW_DEBUG_VERIFY
    {
        char err[256];
        if (!plan_verify_problem(pb, offsets, *size, err, sizeof err)) {
            fprintf(stderr, "%s:%d: internal error: search plan invalid: %s\n",
                    __FILE__, __LINE__, err);
            abort();
        }
    }
#endif
    return 0;
}

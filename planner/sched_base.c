/*
 * planner/sched_base.c - the four baseline orders of `best`: PyTorch
 * Inductor's three topological sorts of torch/_inductor/memory.py
 * (`reorder_for_peak_memory`, PR #134874) and XLA's list scheduler
 * (xla/service/hlo_memory_scheduler.cc, ListScheduler).  Written from
 * their descriptions and sources; their tie-breaks are kept (see
 * docs/schedule.md for each one).
 *
 * Mapping of Inductor's terms: a node's `size` is g->alloc (bytes of the
 * storages it defines), its `pred_buffers` the storages it touches but
 * does not define, a buffer's `succ_nodes` its users other than its
 * definer, and its outdegree that count plus one for a graph output.
 * Inputs and constants are caller memory (size 0): there is no freeable
 * input buffer.
 */
#include "sched_internal.h"
#include "plan_internal.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* A binary min-heap of entries ordered by a caller's "less". */

typedef bool (*sched_less_fn)(const void *ctx, uint64_t a, uint64_t b);

typedef struct sched_heap {
    uint64_t *a;
    size_t n;
    sched_less_fn less;
    const void *ctx;
} sched_heap;

static void sched_heap_push(sched_heap *h, uint64_t x) {
    size_t i = h->n++;
    while (i > 0 && h->less(h->ctx, x, h->a[(i - 1) / 2])) {
        h->a[i] = h->a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h->a[i] = x;
}

static uint64_t sched_heap_pop(sched_heap *h) {
    uint64_t top = h->a[0], x = h->a[--h->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= h->n)
            break;
        if (c + 1 < h->n && h->less(h->ctx, h->a[c + 1], h->a[c]))
            c++;
        if (!h->less(h->ctx, h->a[c], x))
            break;
        h->a[i] = h->a[c];
        i = c;
    }
    if (h->n)
        h->a[i] = x;
    return top;
}

static uint32_t *sched_indegree(const plan_sched_graph *g) {
    uint32_t *d = malloc(((size_t)g->n + 1) * sizeof *d);
    for (uint32_t v = 0; d && v < g->n; v++)
        d[v] = g->pred_off[v + 1] - g->pred_off[v];
    return d;
}

/* ------------------------------------------------------------------ */
/* LPMF: least peak memory first. */

typedef struct sched_lpmf {
    const plan_sched_graph *g;
    uint32_t *indeg, *outdeg, *ready;
    int64_t *to_free; /* memory_to_free */
    uint32_t nready;
} sched_lpmf;

/* Inductor's initial memory_to_free: storages whose only remaining use is
 * this node's, and storages it defines that nobody uses later. */
static void sched_lpmf_init(sched_lpmf *L) {
    const plan_sched_graph *g = L->g;
    for (uint32_t v = 0; v < g->n; v++)
        SCHED_USES(g, v, k) {
            uint32_t s = g->use[k];
            bool own = g->def[s] == (int32_t)v;
            if ((!own && L->outdeg[s] == 1) || (own && L->outdeg[s] == 0))
                L->to_free[v] += (int64_t)g->size[s];
        }
}

/* The ready node with the smallest (max(live + size, max_memory),
 * size - memory_to_free, index). */
static uint32_t sched_lpmf_pick(const sched_lpmf *L, uint64_t live,
                                uint64_t maxm) {
    uint32_t best = 0;
    uint64_t bk1 = UINT64_MAX;
    int64_t bk2 = INT64_MAX;
    for (uint32_t i = 0; i < L->nready; i++) {
        uint32_t v = L->ready[i];
        uint64_t k1 = live + L->g->alloc[v];
        k1 = k1 > maxm ? k1 : maxm;
        int64_t k2 = (int64_t)L->g->alloc[v] - L->to_free[v];
        if (k1 < bk1 || (k1 == bk1 && k2 < bk2) ||
            (k1 == bk1 && k2 == bk2 && v < L->ready[best])) {
            best = i;
            bk1 = k1;
            bk2 = k2;
        }
    }
    return best;
}

static void sched_lpmf_after(sched_lpmf *L, uint32_t v) {
    const plan_sched_graph *g = L->g;
    for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
        if (--L->indeg[g->succ[k]] == 0)
            L->ready[L->nready++] = g->succ[k];
    SCHED_USES(g, v, k) {
        uint32_t s = g->use[k];
        if (g->def[s] == (int32_t)v || L->outdeg[s] == 0)
            continue;
        if (--L->outdeg[s] == 1)
            for (uint32_t i = g->user_off[s]; i < g->user_off[s + 1]; i++)
                if (g->def[s] != (int32_t)g->user[i])
                    L->to_free[g->user[i]] += (int64_t)g->size[s];
    }
}

/* Inductor's topological_sort_lpmf, with its memory update taken from the
 * selected node (the commit read had `node`, a stale loop variable, a
 * slip fixed upstream later).  max_memory starts at the bytes of the
 * outputs, live memory at 0. */
int plan_sched_lpmf(const plan_sched_graph *g, uint32_t *order) {
    sched_lpmf L = {.g = g};
    L.indeg = sched_indegree(g);
    L.outdeg = plan_sched_outdegree(g);
    L.ready = malloc(((size_t)g->n + 1) * sizeof *L.ready);
    L.to_free = calloc((size_t)g->n + 1, sizeof *L.to_free);
    int rc = -1;
    if (!L.indeg || !L.outdeg || !L.ready || !L.to_free)
        goto done;
    sched_lpmf_init(&L);
    uint64_t live = g->base, maxm = g->base;
    for (uint32_t s = 0; s < g->nstor; s++)
        if (g->keep[s] && g->def[s] >= 0)
            maxm += g->size[s];
    for (uint32_t v = 0; v < g->n; v++)
        if (L.indeg[v] == 0)
            L.ready[L.nready++] = v;
    for (uint32_t t = 0; t < g->n; t++) {
        uint32_t i = sched_lpmf_pick(&L, live, maxm);
        uint32_t v = L.ready[i];
        L.ready[i] = L.ready[--L.nready];
        order[t] = v;
        live += g->alloc[v];
        maxm = live > maxm ? live : maxm;
        live -= (uint64_t)L.to_free[v];
        sched_lpmf_after(&L, v);
    }
    rc = 0;
done:
    free(L.indeg);
    free(L.outdeg);
    free(L.ready);
    free(L.to_free);
    return rc;
}

/* ------------------------------------------------------------------ */
/* BFS: the node whose predecessors ran earliest. */

typedef struct sched_bfs {
    const plan_sched_graph *g;
    uint32_t *prio_off; /* per node: its sorted predecessor orders, in */
    uint32_t *prio;     /* prio[prio_off[v] .. + npred(v)) */
} sched_bfs;

/* Python list comparison of the priorities, then the node index. */
static bool sched_bfs_less(const void *ctx, uint64_t a, uint64_t b) {
    const sched_bfs *B = ctx;
    uint32_t na = B->g->pred_off[a + 1] - B->g->pred_off[a];
    uint32_t nb = B->g->pred_off[b + 1] - B->g->pred_off[b];
    const uint32_t *pa = B->prio + B->prio_off[a],
                   *pb = B->prio + B->prio_off[b];
    for (uint32_t i = 0; i < na && i < nb; i++)
        if (pa[i] != pb[i])
            return pa[i] < pb[i];
    if (na != nb)
        return na < nb;
    return a < b;
}

/* Inductor's topological_sort_bfs: a heap keyed by the sorted list of
 * the execution orders of a node's predecessors (distinct nodes, so no
 * duplicate orders), ties by index. */
int plan_sched_bfs(const plan_sched_graph *g, uint32_t *order) {
    sched_bfs B = {.g = g, .prio_off = g->pred_off};
    uint32_t *indeg = sched_indegree(g);
    uint32_t *when = malloc(((size_t)g->n + 1) * sizeof *when);
    B.prio = malloc(((size_t)g->pred_off[g->n] + 1) * sizeof *B.prio);
    sched_heap h = {.less = sched_bfs_less, .ctx = &B};
    h.a = malloc(((size_t)g->n + 1) * sizeof *h.a);
    int rc = -1;
    if (!indeg || !when || !B.prio || !h.a)
        goto done;
    for (uint32_t v = 0; v < g->n; v++)
        if (indeg[v] == 0)
            sched_heap_push(&h, v);
    for (uint32_t t = 0; t < g->n; t++) {
        uint32_t v = (uint32_t)sched_heap_pop(&h);
        order[t] = v;
        when[v] = t;
        for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++) {
            uint32_t w = g->succ[k];
            if (--indeg[w] != 0)
                continue;
            uint32_t *pr = B.prio + g->pred_off[w];
            uint32_t np = g->pred_off[w + 1] - g->pred_off[w];
            for (uint32_t i = 0; i < np; i++)
                pr[i] = when[g->pred[g->pred_off[w] + i]];
            qsort(pr, np, sizeof *pr, base_cmp_u32);
            sched_heap_push(&h, w);
        }
    }
    rc = 0;
done:
    free(indeg);
    free(when);
    free(B.prio);
    free(h.a);
    return rc;
}

/* ------------------------------------------------------------------ */
/* DFS: visit in ascending size with reads. */

typedef struct sched_dfs {
    const plan_sched_graph *g;
    uint64_t *key; /* size_with_reads */
} sched_dfs;

/* By key, ties by index (a total order: any sort gives one result). */
static int sched_dfs_cmp(const void *ctx, uint32_t x, uint32_t y) {
    const uint64_t *k = ((const sched_dfs *)ctx)->key;
    if (k[x] != k[y])
        return k[x] < k[y] ? -1 : 1;
    return (x > y) - (x < y);
}

/* Post-order DFS from v over predecessors sorted by key (iterative: the
 * recursion of Inductor's `visit`, with an explicit stack). */
static void sched_dfs_visit(const plan_sched_graph *g, const uint32_t *preds,
                            uint32_t v, uint8_t *seen, uint32_t *stack,
                            uint32_t *next, uint32_t *order, uint32_t *t) {
    uint32_t sp = 0;
    seen[v] = 1;
    stack[sp] = v;
    next[sp++] = g->pred_off[v];
    while (sp) {
        uint32_t u = stack[sp - 1];
        if (next[sp - 1] == g->pred_off[u + 1]) {
            order[(*t)++] = u;
            sp--;
            continue;
        }
        uint32_t w = preds[next[sp - 1]++];
        if (seen[w])
            continue;
        seen[w] = 1;
        stack[sp] = w;
        next[sp++] = g->pred_off[w];
    }
}

/* Inductor's topological_sort_dfs: size_with_reads = bytes the node
 * defines + bytes of the storages it reads (touches without defining). */
int plan_sched_dfs(const plan_sched_graph *g, uint32_t *order) {
    sched_dfs D = {.g = g};
    size_t n1 = (size_t)g->n + 1;
    D.key = calloc(n1, sizeof *D.key);
    uint32_t *roots = malloc(n1 * sizeof *roots);
    uint32_t *preds = malloc(((size_t)g->pred_off[g->n] + 1) * sizeof *preds);
    uint32_t *stack = malloc(n1 * sizeof *stack);
    uint32_t *next = malloc(n1 * sizeof *next);
    uint8_t *seen = calloc(n1, 1);
    int rc = -1;
    if (!D.key || !roots || !preds || !stack || !next || !seen)
        goto done;
    for (uint32_t v = 0; v < g->n; v++) {
        D.key[v] = g->alloc[v];
        SCHED_USES(g, v, k)
        if (g->def[g->use[k]] != (int32_t)v)
            D.key[v] += g->size[g->use[k]];
        roots[v] = v;
    }
    memcpy(preds, g->pred, (size_t)g->pred_off[g->n] * sizeof *preds);
    for (uint32_t v = 0; v < g->n; v++)
        if (plan_sort_idx(preds + g->pred_off[v],
                          g->pred_off[v + 1] - g->pred_off[v], sched_dfs_cmp,
                          &D))
            goto done;
    if (plan_sort_idx(roots, g->n, sched_dfs_cmp, &D))
        goto done;
    uint32_t t = 0;
    for (uint32_t i = 0; i < g->n; i++)
        if (!seen[roots[i]])
            sched_dfs_visit(g, preds, roots[i], seen, stack, next, order, &t);
    rc = 0;
done:
    free(D.key);
    free(roots);
    free(preds);
    free(stack);
    free(next);
    free(seen);
    return rc;
}

/* ------------------------------------------------------------------ */
/* XLA's list scheduler. */

typedef struct sched_list {
    const plan_sched_graph *g;
    uint32_t *count;        /* unscheduled uses per storage */
    int64_t *p1;            /* per entry: bytes freed - bytes defined */
    uint32_t *p2;           /* per entry: user count */
    uint32_t *node;         /* per entry: node */
    uint32_t *ver, *entver; /* current version per node, per entry */
    uint32_t *cur;          /* per node: its current entry */
    uint32_t nent;
    uint8_t *state; /* 0 waiting, 1 ready, 2 scheduled */
} sched_list;

/* Max-priority first; among equal priorities the entry inserted last
 * (std::multimap inserts equal keys at the end; the scheduler takes the
 * last element). */
static bool sched_list_less(const void *ctx, uint64_t a, uint64_t b) {
    const sched_list *S = ctx;
    if (S->p1[a] != S->p1[b])
        return S->p1[a] > S->p1[b];
    if (S->p2[a] != S->p2[b])
        return S->p2[a] > S->p2[b];
    return a > b;
}

static int64_t sched_list_freed(const sched_list *S, uint32_t v) {
    const plan_sched_graph *g = S->g;
    int64_t f = -(int64_t)g->alloc[v];
    SCHED_USES(g, v, k) {
        uint32_t s = g->use[k];
        if (g->def[s] != (int32_t)v && S->count[s] == 1)
            f += (int64_t)g->size[s];
    }
    return f;
}

static void sched_list_add(sched_list *S, sched_heap *h, uint32_t v) {
    uint32_t e = S->nent++;
    S->node[e] = v;
    S->p1[e] = sched_list_freed(S, v);
    S->p2[e] = S->g->succ_off[v + 1] - S->g->succ_off[v];
    S->entver[e] = ++S->ver[v];
    S->cur[v] = e;
    sched_heap_push(h, e);
}

/* After scheduling v: storages down to their last use raise the priority
 * of their ready users, which are reinserted when it changed. */
static void sched_list_after(sched_list *S, sched_heap *h, uint32_t v,
                             uint32_t *indeg) {
    const plan_sched_graph *g = S->g;
    for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
        if (--indeg[g->succ[k]] == 0) {
            S->state[g->succ[k]] = 1;
            sched_list_add(S, h, g->succ[k]);
        }
    SCHED_USES(g, v, k) {
        uint32_t s = g->use[k];
        if (g->def[s] == (int32_t)v || S->count[s] == 0 || --S->count[s] != 1)
            continue;
        for (uint32_t i = g->user_off[s]; i < g->user_off[s + 1]; i++) {
            uint32_t u = g->user[i];
            if (S->state[u] == 1 && sched_list_freed(S, u) != S->p1[S->cur[u]])
                sched_list_add(S, h, u);
        }
    }
}

/* XLA's ListScheduler: ready nodes by (bytes freed - bytes defined, user
 * count), highest first, ties to the latest inserted; the initial ready
 * list in the given order.  (Its rule that puts effectively scalar
 * instructions first is left out: IR buffers carry no such shape.) */
int plan_sched_list(const plan_sched_graph *g, uint32_t *order) {
    sched_list S = {.g = g};
    uint32_t *indeg = sched_indegree(g);
    size_t cap = (size_t)g->n + (size_t)g->use_off[g->n] * 2 + 2;
    S.count = plan_sched_outdegree(g);
    S.p1 = malloc(cap * sizeof *S.p1);
    S.p2 = malloc(cap * sizeof *S.p2);
    S.node = malloc(cap * sizeof *S.node);
    S.entver = malloc(cap * sizeof *S.entver);
    S.ver = calloc((size_t)g->n + 1, sizeof *S.ver);
    S.cur = calloc((size_t)g->n + 1, sizeof *S.cur);
    S.state = calloc((size_t)g->n + 1, 1);
    sched_heap h = {.less = sched_list_less, .ctx = &S};
    h.a = malloc(cap * sizeof *h.a);
    int rc = -1;
    if (!indeg || !S.count || !S.p1 || !S.p2 || !S.node || !S.entver ||
        !S.ver || !S.cur || !S.state || !h.a)
        goto done;
    for (uint32_t v = 0; v < g->n; v++)
        if (indeg[v] == 0) {
            S.state[v] = 1;
            sched_list_add(&S, &h, v);
        }
    for (uint32_t t = 0; t < g->n;) {
        uint32_t e = (uint32_t)sched_heap_pop(&h);
        uint32_t v = S.node[e];
        if (S.entver[e] != S.ver[v] || S.state[v] != 1)
            continue;
        S.state[v] = 2;
        order[t++] = v;
        sched_list_after(&S, &h, v, indeg);
    }
    rc = 0;
done:
    free(indeg);
    free(S.count);
    free(S.p1);
    free(S.p2);
    free(S.node);
    free(S.entver);
    free(S.ver);
    free(S.cur);
    free(S.state);
    free(h.a);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Partitions: Inductor's two-queue breadth-first sort. */

static bool sched_idx_less(const void *ctx, uint64_t a, uint64_t b) {
    (void)ctx;
    return a < b;
}

static void sched_part_ready(const plan_sched_graph *g, sched_heap *q,
                             uint32_t v) {
    sched_heap_push(&q[g->nocapture[v] ? 0 : 1], v);
}

int plan_sched_partitions(const plan_sched_graph *g, uint32_t *order) {
    uint32_t *indeg = sched_indegree(g);
    sched_heap q[2] = {{.less = sched_idx_less}, {.less = sched_idx_less}};
    q[0].a = malloc(((size_t)g->n + 1) * sizeof *q[0].a);
    q[1].a = malloc(((size_t)g->n + 1) * sizeof *q[1].a);
    int rc = -1;
    if (!indeg || !q[0].a || !q[1].a)
        goto done;
    for (uint32_t v = 0; v < g->n; v++)
        if (indeg[v] == 0)
            sched_part_ready(g, q, v);
    /* Drain the nocapture queue, then the capturable one (calls that
     * become ready meanwhile join their queue), in turns. */
    int k = 0;
    for (uint32_t t = 0; t < g->n;) {
        if (q[k].n == 0) {
            k ^= 1;
            continue;
        }
        uint32_t v = (uint32_t)sched_heap_pop(&q[k]);
        order[t++] = v;
        for (uint32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
            if (--indeg[g->succ[e]] == 0)
                sched_part_ready(g, q, g->succ[e]);
    }
    rc = 0;
done:
    free(indeg);
    free(q[0].a);
    free(q[1].a);
    return rc;
}

uint32_t plan_sched_count_partitions(const plan_sched_graph *g,
                                     const uint32_t *order) {
    uint32_t runs = 0;
    bool in_run = false;
    for (uint32_t t = 0; t < g->n; t++) {
        bool cap = !g->nocapture[order[t]];
        runs += cap && !in_run;
        in_run = cap;
    }
    return runs;
}

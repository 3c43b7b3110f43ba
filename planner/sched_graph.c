/*
 * planner/sched_graph.c - the dependency graph and memory model of a
 * program's calls, its peak, and the independent order verifier.
 *
 * Dependencies (docs/schedule.md): per storage, in the given order, a
 * read depends on the last write before it (RAW), a write on the last
 * write (WAW) and on every read since it (WAR).  Calls touching a
 * communication storage are chained in the given order.  When the first
 * user of a planned storage does not write it, every other user gets an
 * edge from it, so that the storage is always allocated by that call.
 */
#include "sched_internal.h"

#include "base/base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plan_sched_graph_free(plan_sched_graph *g) {
    if (!g)
        return;
    free(g->pred_off);
    free(g->pred);
    free(g->succ_off);
    free(g->succ);
    free(g->use_off);
    free(g->use);
    free(g->use_mode);
    free(g->user_off);
    free(g->user);
    free(g->size);
    free(g->def);
    free(g->keep);
    free(g->comm);
    free(g->alloc);
    free(g->nocapture);
    free(g->stmt);
    free(g->root);
    free(g);
}

/* A growable array of edges (from << 32 | to). */
typedef struct sched_edges {
    uint64_t *e;
    size_t n, cap;
    bool oom;
} sched_edges;

static void sched_edge(sched_edges *E, uint32_t a, uint32_t b) {
    if (a == b || E->oom)
        return;
    if (E->n == E->cap) {
        size_t cap = E->cap ? 2 * E->cap : 256;
        uint64_t *e = realloc(E->e, cap * sizeof *e);
        if (!e) {
            E->oom = true;
            return;
        }
        E->e = e;
        E->cap = cap;
    }
    E->e[E->n++] = (uint64_t)a << 32 | b;
}

/* Users of every storage (CSR), in node order. */
static bool sched_users(plan_sched_graph *g) {
    g->user_off = calloc((size_t)g->nstor + 1, sizeof *g->user_off);
    g->user = malloc(((size_t)g->use_off[g->n] + 1) * sizeof *g->user);
    if (!g->user_off || !g->user)
        return false;
    for (uint32_t k = 0; k < g->use_off[g->n]; k++)
        g->user_off[g->use[k] + 1]++;
    for (uint32_t s = 0; s < g->nstor; s++)
        g->user_off[s + 1] += g->user_off[s];
    uint32_t *fill = malloc(((size_t)g->nstor + 1) * sizeof *fill);
    if (!fill)
        return false;
    memcpy(fill, g->user_off, (size_t)g->nstor * sizeof *fill);
    for (uint32_t v = 0; v < g->n; v++)
        SCHED_USES(g, v, k) g->user[fill[g->use[k]]++] = v;
    free(fill);
    return true;
}

/* The mode node v has on storage s (bit 0 read, bit 1 write). */
static uint8_t sched_mode(const plan_sched_graph *g, uint32_t v, uint32_t s) {
    uint32_t b = g->use_off[v];
    return g->use_mode[b + base_lower_bound_u32(g->use + b,
                                                g->use_off[v + 1] - b, s)];
}

/* RAW, WAW and WAR edges of storage s, and the definer edges. */
static void sched_storage_edges(const plan_sched_graph *g, uint32_t s,
                                sched_edges *E) {
    uint32_t b = g->user_off[s], e = g->user_off[s + 1];
    int64_t lastw = -1; /* index into g->user of the last write */
    for (uint32_t i = b; i < e; i++) {
        uint32_t u = g->user[i];
        uint8_t m = sched_mode(g, u, s);
        if (lastw >= 0)
            sched_edge(E, g->user[lastw], u);
        if (m & 2) {
            for (uint32_t r = (uint32_t)(lastw < 0 ? b : lastw + 1); r < i; r++)
                sched_edge(E, g->user[r], u);
            lastw = i;
        }
    }
    if (g->def[s] >= 0 && b < e && !(sched_mode(g, g->user[b], s) & 2))
        for (uint32_t i = b + 1; i < e; i++)
            sched_edge(E, (uint32_t)g->def[s], g->user[i]);
}

/* Sorted, deduplicated edges into pred and succ CSR arrays. */
static bool sched_csr(plan_sched_graph *g, sched_edges *E) {
    if (E->n)
        qsort(E->e, E->n, sizeof *E->e, base_cmp_u64);
    size_t m = 0;
    for (size_t i = 0; i < E->n; i++)
        if (m == 0 || E->e[m - 1] != E->e[i])
            E->e[m++] = E->e[i];
    g->succ_off = calloc((size_t)g->n + 1, sizeof *g->succ_off);
    g->pred_off = calloc((size_t)g->n + 1, sizeof *g->pred_off);
    g->succ = malloc((m + 1) * sizeof *g->succ);
    g->pred = malloc((m + 1) * sizeof *g->pred);
    if (!g->succ_off || !g->pred_off || !g->succ || !g->pred)
        return false;
    for (size_t i = 0; i < m; i++) {
        g->succ_off[(E->e[i] >> 32) + 1]++;
        g->pred_off[(uint32_t)E->e[i] + 1]++;
    }
    for (uint32_t v = 0; v < g->n; v++) {
        g->succ_off[v + 1] += g->succ_off[v];
        g->pred_off[v + 1] += g->pred_off[v];
    }
    uint32_t *fill = malloc(((size_t)g->n + 1) * sizeof *fill);
    if (!fill)
        return false;
    for (size_t i = 0; i < m; i++) /* sorted by (from, to): succ in order */
        g->succ[i] = (uint32_t)E->e[i];
    memcpy(fill, g->pred_off, (size_t)g->n * sizeof *fill);
    for (size_t i = 0; i < m; i++) /* preds of each node ascending */
        g->pred[fill[(uint32_t)E->e[i]]++] = (uint32_t)(E->e[i] >> 32);
    free(fill);
    return true;
}

/* Definers, per-node allocations, the constant part of the memory, and
 * the edges.  `caller` marks storages that are caller memory (may be
 * NULL). */
static bool sched_finish(plan_sched_graph *g, const bool *caller) {
    g->def = malloc(((size_t)g->nstor + 1) * sizeof *g->def);
    g->alloc = calloc((size_t)g->n + 1, sizeof *g->alloc);
    if (!g->def || !g->alloc || !sched_users(g))
        return false;
    for (uint32_t s = 0; s < g->nstor; s++) {
        bool used = g->user_off[s + 1] > g->user_off[s];
        g->def[s] = used && !(caller && caller[s])
                        ? (int32_t)g->user[g->user_off[s]]
                        : -1;
        if (g->def[s] >= 0)
            g->alloc[g->def[s]] += g->size[s];
        else if (!used && g->keep[s])
            g->base += g->size[s];
        else if (!used && g->size[s] > g->unused_max)
            g->unused_max = g->size[s];
    }
    sched_edges E = {0};
    for (uint32_t s = 0; s < g->nstor; s++)
        sched_storage_edges(g, s, &E);
    int64_t lastc = -1;
    for (uint32_t v = 0; v < g->n; v++) {
        bool c = false;
        SCHED_USES(g, v, k) c |= g->comm[g->use[k]];
        if (!c)
            continue;
        if (lastc >= 0)
            sched_edge(&E, (uint32_t)lastc, v);
        lastc = v;
    }
    bool ok = !E.oom && sched_csr(g, &E);
    free(E.e);
    return ok;
}

/* Sorts node v's uses by storage and merges duplicates (modes or-ed). */
static void sched_merge_uses(plan_sched_graph *g, uint32_t v, uint32_t *w) {
    uint32_t b = g->use_off[v], e = g->use_off[v + 1];
    for (uint32_t i = b + 1; i < e; i++) { /* insertion sort: few args */
        uint32_t s = g->use[i];
        uint8_t m = g->use_mode[i];
        uint32_t j = i;
        for (; j > b && g->use[j - 1] > s; j--) {
            g->use[j] = g->use[j - 1];
            g->use_mode[j] = g->use_mode[j - 1];
        }
        g->use[j] = s;
        g->use_mode[j] = m;
    }
    uint32_t start = *w;
    for (uint32_t i = b; i < e; i++) {
        if (*w > start && g->use[*w - 1] == g->use[i]) {
            g->use_mode[*w - 1] |= g->use_mode[i];
            continue;
        }
        g->use[*w] = g->use[i];
        g->use_mode[*w] = g->use_mode[i];
        (*w)++;
    }
}

static void sched_compact_uses(plan_sched_graph *g) {
    uint32_t w = 0;
    for (uint32_t v = 0; v < g->n; v++) {
        uint32_t start = w;
        sched_merge_uses(g, v, &w);
        g->use_off[v] = start;
    }
    g->use_off[g->n] = w;
}

static plan_sched_graph *sched_alloc(uint32_t n, uint32_t nstor, size_t nuses) {
    plan_sched_graph *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->n = n;
    g->nstor = nstor;
    g->use_off = calloc((size_t)n + 1, sizeof *g->use_off);
    g->use = malloc((nuses + 1) * sizeof *g->use);
    g->use_mode = malloc(nuses + 1);
    g->size = calloc((size_t)nstor + 1, sizeof *g->size);
    g->keep = calloc((size_t)nstor + 1, sizeof *g->keep);
    g->comm = calloc((size_t)nstor + 1, sizeof *g->comm);
    g->nocapture = calloc((size_t)n + 1, sizeof *g->nocapture);
    if (!g->use_off || !g->use || !g->use_mode || !g->size || !g->keep ||
        !g->comm || !g->nocapture) {
        plan_sched_graph_free(g);
        return NULL;
    }
    return g;
}

plan_sched_graph *plan_sched_graph_new(uint32_t n, uint32_t nstor,
                                       const uint32_t *use_off,
                                       const uint32_t *use,
                                       const uint8_t *use_mode,
                                       const uint64_t *size, const bool *keep) {
    plan_sched_graph *g = sched_alloc(n, nstor, use_off[n]);
    if (!g)
        return NULL;
    memcpy(g->use_off, use_off, ((size_t)n + 1) * sizeof *use_off);
    memcpy(g->use, use, (size_t)use_off[n] * sizeof *use);
    memcpy(g->use_mode, use_mode, use_off[n]);
    memcpy(g->size, size, (size_t)nstor * sizeof *size);
    memcpy(g->keep, keep, (size_t)nstor * sizeof *keep);
    sched_compact_uses(g);
    if (!sched_finish(g, NULL)) {
        plan_sched_graph_free(g);
        return NULL;
    }
    return g;
}

static int sched_cmp_kernel(const void *a, const void *b) {
    return strcmp(((const ir_kernel *)a)->name, ((const ir_kernel *)b)->name);
}

/* The modes of a call's arguments: its kernel's signature, or NULL. */
static const ir_stmt *sched_signature(const ir_program *p,
                                      const ir_kernel *sorted,
                                      const ir_stmt *call) {
    ir_kernel key = {.name = call->name.name};
    const ir_kernel *k =
        bsearch(&key, sorted, p->nkernels, sizeof key, sched_cmp_kernel);
    return k && k->sig_stmt >= 0 ? &p->stmts[k->sig_stmt] : NULL;
}

/* Nodes, their uses and the storages of a checked program. */
static bool sched_from_program(plan_sched_graph *g, const ir_program *p,
                               const ir_kernel *sorted, int32_t *stor_of) {
    uint32_t v = 0, k = 0;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        if (st->kind != IR_CALL)
            continue;
        const ir_stmt *sig = sched_signature(p, sorted, st);
        g->stmt[v] = i;
        g->nocapture[v] = sig && sig->nocapture;
        g->use_off[v] = k;
        for (uint32_t a = 0; a < st->nargs; a++) {
            if (st->args[a].kind != IR_ARG_BUFFER)
                continue;
            ir_mode m = sig && a < sig->nmodes ? sig->modes[a] : IR_MODE_INOUT;
            const ir_value *val = &p->values[st->args[a].value];
            g->use[k] = (uint32_t)stor_of[val->root];
            g->use_mode[k++] = m == IR_MODE_IN ? 1 : m == IR_MODE_OUT ? 2 : 3;
        }
        v++;
    }
    g->use_off[v] = k;
    return true;
}

plan_sched_graph *plan_sched_graph_build(const ir_program *p) {
    uint32_t n = 0, nstor = 0;
    size_t nuses = 0;
    for (uint32_t i = 0; i < p->nstmts; i++)
        if (p->stmts[i].kind == IR_CALL) {
            n++;
            nuses += p->stmts[i].nargs;
        }
    int32_t *stor_of = malloc(((size_t)p->nvalues + 1) * sizeof *stor_of);
    for (uint32_t i = 0; stor_of && i < p->nvalues; i++)
        stor_of[i] = p->values[i].kind == IR_VAL_ALIAS ? -1 : (int32_t)nstor++;
    plan_sched_graph *g = stor_of ? sched_alloc(n, nstor, nuses) : NULL;
    ir_kernel *sorted = malloc(((size_t)p->nkernels + 1) * sizeof *sorted);
    bool *caller = calloc((size_t)nstor + 1, sizeof *caller);
    bool ok = g && sorted && caller;
    if (ok) {
        g->stmt = malloc(((size_t)n + 1) * sizeof *g->stmt);
        g->root = malloc(((size_t)nstor + 1) * sizeof *g->root);
        ok = g->stmt && g->root;
    }
    if (ok) {
        memcpy(sorted, p->kernels, (size_t)p->nkernels * sizeof *sorted);
        qsort(sorted, p->nkernels, sizeof *sorted, sched_cmp_kernel);
        for (uint32_t i = 0; i < p->nvalues; i++) {
            const ir_value *val = &p->values[i];
            int32_t s = stor_of[val->root];
            if (val->kind != IR_VAL_ALIAS) {
                g->root[s] = (int32_t)i;
                caller[s] = val->kind != IR_VAL_ALLOC;
                g->size[s] = caller[s] ? 0 : val->bytes;
                g->comm[s] = val->comm != NULL;
                g->keep[s] |= !caller[s] && val->storage_end < 0;
            }
            g->keep[s] |= val->output_index >= 0 && !caller[s];
        }
        sched_from_program(g, p, sorted, stor_of);
        sched_compact_uses(g);
        ok = sched_finish(g, caller);
    }
    free(stor_of);
    free(sorted);
    free(caller);
    if (!ok) {
        plan_sched_graph_free(g);
        return NULL;
    }
    return g;
}

uint32_t *plan_sched_outdegree(const plan_sched_graph *g) {
    uint32_t *out = malloc(((size_t)g->nstor + 1) * sizeof *out);
    if (!out)
        return NULL;
    for (uint32_t s = 0; s < g->nstor; s++)
        out[s] =
            g->user_off[s + 1] - g->user_off[s] - (g->def[s] >= 0) + g->keep[s];
    return out;
}

uint64_t plan_sched_profile(const plan_sched_graph *g, const uint32_t *order,
                            uint64_t *prof) {
    uint32_t *left = malloc(((size_t)g->nstor + 1) * sizeof *left);
    if (!left)
        return UINT64_MAX;
    for (uint32_t s = 0; s < g->nstor; s++)
        left[s] = g->user_off[s + 1] - g->user_off[s];
    uint64_t cur = g->base, peak = g->base + g->unused_max;
    for (uint32_t t = 0; t < g->n; t++) {
        uint32_t v = order[t];
        cur += g->alloc[v];
        if (prof)
            prof[t] = cur;
        if (cur > peak)
            peak = cur;
        SCHED_USES(g, v, k) {
            uint32_t s = g->use[k];
            if (--left[s] == 0 && !g->keep[s] && g->def[s] >= 0)
                cur -= g->size[s];
        }
    }
    free(left);
    return peak;
}

uint64_t plan_sched_peak(const plan_sched_graph *g, const uint32_t *order) {
    return plan_sched_profile(g, order, NULL);
}

static bool sched_fail(char *err, size_t errlen, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static bool sched_fail(char *err, size_t errlen, const char *fmt, ...) {
    if (err && errlen) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, errlen, fmt, ap);
        va_end(ap);
    }
    return false;
}

/* The accesses of storage s keep their order in `pos`. */
static bool sched_verify_storage(const plan_sched_graph *g, uint32_t s,
                                 const uint32_t *pos, char *err,
                                 size_t errlen) {
    int64_t lastw = -1, maxread = -1;
    for (uint32_t i = g->user_off[s]; i < g->user_off[s + 1]; i++) {
        uint32_t u = g->user[i];
        uint8_t m = sched_mode(g, u, s);
        if (lastw >= 0 && pos[u] < pos[lastw])
            return sched_fail(err, errlen,
                              "call %u now runs before call %u, the last "
                              "write of a storage it uses",
                              u, (uint32_t)lastw);
        if (m & 2) {
            if (maxread >= 0 && (int64_t)pos[u] < maxread)
                return sched_fail(err, errlen,
                                  "call %u writes a storage before a read "
                                  "that preceded it (position %u)",
                                  u, (uint32_t)maxread);
            lastw = u;
            maxread = -1;
        } else if ((int64_t)pos[u] > maxread) {
            maxread = pos[u];
        }
    }
    return true;
}

bool plan_sched_verify(const plan_sched_graph *g, const uint32_t *order,
                       char *err, size_t errlen) {
    uint32_t *pos = malloc(((size_t)g->n + 1) * sizeof *pos);
    if (!pos)
        return sched_fail(err, errlen, "out of memory");
    memset(pos, 0xff, ((size_t)g->n + 1) * sizeof *pos);
    bool ok = true;
    for (uint32_t t = 0; t < g->n && ok; t++) {
        if (order[t] >= g->n || pos[order[t]] != UINT32_MAX)
            ok = sched_fail(err, errlen,
                            "the order is not a permutation (position %u: "
                            "node %u)",
                            t, order[t]);
        else
            pos[order[t]] = t;
    }
    for (uint32_t s = 0; s < g->nstor && ok; s++)
        ok = sched_verify_storage(g, s, pos, err, errlen);
    int64_t lastc = -1;
    for (uint32_t v = 0; v < g->n && ok; v++) {
        bool c = false;
        SCHED_USES(g, v, k) c |= g->comm[g->use[k]];
        if (!c)
            continue;
        if (lastc >= 0 && pos[v] < pos[lastc])
            ok = sched_fail(err, errlen,
                            "communication call %u now runs before "
                            "communication call %u",
                            v, (uint32_t)lastc);
        lastc = v;
    }
    free(pos);
    return ok;
}

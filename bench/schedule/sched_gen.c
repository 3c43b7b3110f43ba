/*
 * bench/schedule/sched_gen.c - random irregular graphs (sched_gen.h).
 *
 *  - RandWire-style: stages of 32 calls wired as a Watts-Strogatz small
 *    world (K = 4, P = 0.75, edges from the lower to the higher index),
 *    the stage's sinks summed by one call that feeds the next stage's
 *    sources; sizes 1 to 4 units, halving every third of the stages.
 *  - NAS-style cells: two preprocessing calls, five blocks of two ops
 *    (one or two calls each) on inputs drawn from the cell's inputs and
 *    earlier blocks plus an add, and a concat of the unused blocks.
 *  - fused-read chains: from x, r = 2..8 chains of 1 to 3 calls with
 *    random sizes, then one call reading all r results.
 *  - random: each call reads 1 to 3 of the 12 calls before it.
 */
#include "sched_gen.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

typedef struct sgen_b {
    uint32_t n, cap, ne, ecap;
    uint32_t *ein, *eout; /* edges (from, to) */
    uint64_t *size;
    uint64_t rng;
    bool oom;
} sgen_b;

static uint64_t sgen_rand(sgen_b *B) {
    B->rng += 0x9e3779b97f4a7c15u;
    uint64_t x = B->rng;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

static uint32_t sgen_below(sgen_b *B, uint32_t n) {
    return n ? (uint32_t)(sgen_rand(B) % n) : 0;
}

static uint32_t sgen_node(sgen_b *B, uint64_t size) {
    if (B->n == B->cap) {
        uint32_t c = B->cap ? 2 * B->cap : 64;
        uint64_t *s = realloc(B->size, c * sizeof *s);
        if (!s) {
            B->oom = true;
            return 0;
        }
        B->size = s;
        B->cap = c;
    }
    B->size[B->n] = size;
    return B->n++;
}

static void sgen_edge(sgen_b *B, uint32_t from, uint32_t to) {
    if (B->oom || from == to)
        return;
    if (B->ne == B->ecap) {
        uint32_t c = B->ecap ? 2 * B->ecap : 128;
        uint32_t *a = realloc(B->ein, c * sizeof *a);
        if (a)
            B->ein = a;
        uint32_t *b = a ? realloc(B->eout, c * sizeof *b) : NULL;
        if (!b) {
            B->oom = true;
            return;
        }
        B->eout = b;
        B->ecap = c;
    }
    B->ein[B->ne] = from;
    B->eout[B->ne++] = to;
}

/* One Watts-Strogatz stage of m calls after `prev` (a call, or
 * UINT32_MAX); returns the call summing its sinks. */
static uint32_t sgen_ws_stage(sgen_b *B, uint32_t m, uint32_t prev,
                              uint64_t unit) {
    uint32_t base = B->n;
    for (uint32_t i = 0; i < m; i++)
        sgen_node(B, unit * (1 + sgen_below(B, 4)));
    uint32_t e0 = B->ne;
    for (uint32_t i = 0; i < m; i++)
        for (uint32_t j = 1; j <= 2; j++) {
            uint32_t t = (i + j) % m;
            if (sgen_below(B, 4) < 3) /* P = 0.75 */
                t = sgen_below(B, m);
            if (t != i)
                sgen_edge(B, base + (i < t ? i : t), base + (i < t ? t : i));
        }
    bool *hasin = calloc(m, sizeof *hasin), *hasout = calloc(m, 1);
    if (!hasin || !hasout) {
        B->oom = true;
        free(hasin);
        free(hasout);
        return base;
    }
    for (uint32_t e = e0; e < B->ne; e++) {
        hasin[B->eout[e] - base] = true;
        hasout[B->ein[e] - base] = true;
    }
    uint32_t sum = sgen_node(B, unit * 2);
    for (uint32_t i = 0; i < m; i++) {
        if (!hasin[i] && prev != UINT32_MAX)
            sgen_edge(B, prev, base + i);
        if (!hasout[i])
            sgen_edge(B, base + i, sum);
    }
    free(hasin);
    free(hasout);
    return sum;
}

static void sgen_randwire(sgen_b *B, uint32_t n) {
    uint32_t stages = n / 33 ? n / 33 : 1, prev = UINT32_MAX;
    for (uint32_t s = 0; s < stages; s++) {
        uint64_t unit = 4096u >> (3 * s / stages);
        prev =
            sgen_ws_stage(B, n / stages - 1 ? n / stages - 1 : 1, prev, unit);
    }
}

/* One op of a NAS block on input x: one or two calls. */
static uint32_t sgen_op(sgen_b *B, uint32_t x, uint64_t unit) {
    uint32_t a = sgen_node(B, unit * (1 + sgen_below(B, 2)));
    sgen_edge(B, x, a);
    if (sgen_below(B, 2)) {
        uint32_t b = sgen_node(B, unit);
        sgen_edge(B, a, b);
        a = b;
    }
    return a;
}

static uint32_t sgen_cell(sgen_b *B, uint32_t h0, uint32_t h1, uint64_t unit) {
    uint32_t in[7], used[7] = {0}, nin = 2;
    in[0] = sgen_node(B, unit);
    sgen_edge(B, h0, in[0]);
    in[1] = sgen_node(B, unit);
    sgen_edge(B, h1, in[1]);
    for (uint32_t b = 0; b < 5; b++) {
        uint32_t x = b ? sgen_below(B, nin) : 0;
        uint32_t y = b ? sgen_below(B, nin) : 1;
        used[x] = used[y] = 1;
        uint32_t p = sgen_op(B, in[x], unit), q = sgen_op(B, in[y], unit);
        uint32_t add = sgen_node(B, unit);
        sgen_edge(B, p, add);
        sgen_edge(B, q, add);
        in[nin++] = add;
    }
    uint32_t k = 0;
    for (uint32_t i = 2; i < nin; i++)
        k += !used[i];
    uint32_t cat = sgen_node(B, unit * k);
    for (uint32_t i = 2; i < nin; i++)
        if (!used[i])
            sgen_edge(B, in[i], cat);
    return cat;
}

static void sgen_nas(sgen_b *B, uint32_t n) {
    uint32_t h0 = sgen_node(B, 4096), h1 = sgen_node(B, 4096);
    sgen_edge(B, h0, h1);
    uint32_t cells = n / 24 ? n / 24 : 1;
    for (uint32_t c = 0; c < cells; c++) {
        uint64_t unit = 4096u >> (3 * c / cells);
        uint32_t h = sgen_cell(B, h0, h1, unit);
        h0 = h1;
        h1 = h;
    }
}

static void sgen_fused(sgen_b *B, uint32_t n) {
    uint32_t x = sgen_node(B, 2048);
    while (B->n < n && !B->oom) {
        uint32_t r = 2 + sgen_below(B, 7), ends[8];
        for (uint32_t i = 0; i < r; i++) {
            uint32_t len = 1 + sgen_below(B, 3), p = x;
            for (uint32_t j = 0; j < len; j++) {
                uint32_t v = sgen_node(B, 512 * (1 + sgen_below(B, 8)));
                sgen_edge(B, p, v);
                p = v;
            }
            ends[i] = p;
        }
        uint32_t y = sgen_node(B, 512 * (1 + sgen_below(B, 8)));
        for (uint32_t i = 0; i < r; i++)
            sgen_edge(B, ends[i], y);
        x = y;
    }
}

static void sgen_random(sgen_b *B, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        uint32_t v = sgen_node(B, 64 * (1 + sgen_below(B, 16)));
        uint32_t k = i ? 1 + sgen_below(B, 3) : 0;
        for (uint32_t j = 0; j < k; j++) {
            uint32_t back = 1 + sgen_below(B, i < 12 ? i : 12);
            sgen_edge(B, v - back, v);
        }
    }
}

/* Breadth-first numbering (Kahn, FIFO) and the CSR of inputs. */
static bool sgen_finish(sgen_b *B, sgen_graph *g) {
    uint32_t n = B->n;
    uint32_t *indeg = calloc(n + 1, sizeof *indeg),
             *newid = malloc((n + 1) * 4);
    uint32_t *q = malloc((n + 1) * 4), *soff = calloc(n + 2, 4);
    uint32_t *sl = malloc((B->ne + 1) * 4);
    g->n = n;
    g->in_off = calloc(n + 2, sizeof *g->in_off);
    g->in = malloc((B->ne + 1) * sizeof *g->in);
    g->size = malloc((n + 1) * sizeof *g->size);
    g->output = calloc(n + 1, sizeof *g->output);
    bool ok = indeg && newid && q && soff && sl && g->in_off && g->in &&
              g->size && g->output;
    for (uint32_t e = 0; ok && e < B->ne; e++) {
        indeg[B->eout[e]]++;
        soff[B->ein[e] + 1]++;
    }
    for (uint32_t v = 0; ok && v < n; v++)
        soff[v + 1] += soff[v];
    uint32_t *f = ok ? calloc(n + 1, 4) : NULL;
    for (uint32_t e = 0; f && e < B->ne; e++)
        sl[soff[B->ein[e]] + f[B->ein[e]]++] = B->eout[e];
    ok = ok && f;
    free(f);
    uint32_t qh = 0, qt = 0;
    for (uint32_t v = 0; ok && v < n; v++)
        if (indeg[v] == 0)
            q[qt++] = v;
    while (ok && qh < qt) {
        uint32_t v = q[qh];
        newid[v] = qh++;
        for (uint32_t k = soff[v]; k < soff[v + 1]; k++)
            if (--indeg[sl[k]] == 0)
                q[qt++] = sl[k];
    }
    for (uint32_t e = 0; ok && e < B->ne; e++)
        g->in_off[newid[B->eout[e]] + 1]++;
    for (uint32_t v = 0; ok && v < n; v++) {
        g->in_off[v + 1] += g->in_off[v];
        g->size[newid[v]] = B->size[v];
        g->output[newid[v]] = soff[v + 1] == soff[v];
    }
    uint32_t *fill = ok ? calloc(n + 1, 4) : NULL;
    for (uint32_t e = 0; fill && e < B->ne; e++) {
        uint32_t t = newid[B->eout[e]];
        g->in[g->in_off[t] + fill[t]++] = newid[B->ein[e]];
    }
    for (uint32_t v = 0; fill && v < n; v++) /* sort, drop duplicates */
        qsort(g->in + g->in_off[v], g->in_off[v + 1] - g->in_off[v], 4,
              base_cmp_u32);
    ok = ok && fill;
    free(fill);
    free(indeg);
    free(newid);
    free(q);
    free(soff);
    free(sl);
    return ok;
}

bool sgen_make(sgen_kind k, uint32_t n, uint64_t seed, sgen_graph *g) {
    sgen_b B = {.rng = seed * 0x2545f4914f6cdd1du + 7};
    memset(g, 0, sizeof *g);
    n = n < 2 ? 2 : n;
    if (k == SGEN_RANDWIRE)
        sgen_randwire(&B, n);
    else if (k == SGEN_NAS)
        sgen_nas(&B, n);
    else if (k == SGEN_FUSED)
        sgen_fused(&B, n);
    else
        sgen_random(&B, n);
    bool ok = !B.oom && sgen_finish(&B, g);
    free(B.ein);
    free(B.eout);
    free(B.size);
    if (!ok)
        sgen_free(g);
    return ok;
}

void sgen_free(sgen_graph *g) {
    free(g->in_off);
    free(g->in);
    free(g->size);
    free(g->output);
    memset(g, 0, sizeof *g);
}

const char *sgen_name(sgen_kind k) {
    static const char *const names[] = {"randwire", "nas", "fused", "random"};
    return k < SGEN_KIND_COUNT ? names[k] : "?";
}

plan_sched_graph *sgen_sched_graph(const sgen_graph *g, uint32_t inout_every) {
    uint32_t n = g->n, m = g->in_off[n] + n;
    uint32_t *off = malloc((n + 1) * sizeof *off), *use = malloc(m * 4 + 4);
    uint8_t *mode = malloc(m + 1);
    plan_sched_graph *s = NULL;
    if (off && use && mode) {
        uint32_t k = 0;
        for (uint32_t v = 0; v < n; v++) {
            off[v] = k;
            for (uint32_t i = g->in_off[v]; i < g->in_off[v + 1]; i++) {
                if (i > g->in_off[v] && g->in[i] == g->in[i - 1])
                    continue;
                use[k] = g->in[i];
                mode[k++] =
                    inout_every && v % inout_every == 0 && i == g->in_off[v]
                        ? 3
                        : 1;
            }
            use[k] = v;
            mode[k++] = 2;
        }
        off[n] = k;
        s = plan_sched_graph_new(n, n, off, use, mode, g->size, g->output);
    }
    free(off);
    free(use);
    free(mode);
    return s;
}

/*
 * planner/sched_beam.c - search over ready sets for one segment of
 * `best` (docs/schedule.md).
 *
 * A state is the set of the segment's nodes already run.  The live
 * memory after a set does not depend on the order that ran it (a storage
 * is live when its definer ran and some user did not), so, as in
 * Serenity (Ahn et al., MLSys 2020), the best order of a set is one that
 * reaches it with the smallest peak: a dynamic program over the sets,
 * level by level (k nodes run), keeping for each set the smallest peak.
 * With `width` W, each level keeps only its W best sets by (peak so far,
 * live memory); when no level had more than W sets, nothing was pruned
 * and the order is optimal for the segment.  Sets are identified by a
 * Zobrist hash and compared in full on a hash match, so the search is
 * exact and deterministic (candidates are ranked by (peak, memory,
 * parent rank, node)).
 */
#include "sched_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct beam_level {
    uint32_t n, cap;
    uint64_t *bits; /* n * words */
    uint64_t *mem, *peak, *hash;
    uint32_t *rdy_off; /* n + 1 */
    uint32_t *rdy;
    uint32_t rdy_cap;
} beam_level;

typedef struct beam_cand {
    uint64_t peak, mem, hash;
    uint32_t parent, v; /* v: local index */
} beam_cand;

typedef struct beam {
    const plan_sched_graph *g;
    const uint32_t *seg;
    uint32_t m, words, width;
    const int32_t *local; /* global node -> local index, -1 */
    uint8_t *fre;         /* per local use: storage freed in the segment */
    uint32_t *fre_off;    /* local node -> first local use */
    uint64_t *zob;        /* per local node */
    uint32_t *npred;      /* preds inside the segment */
    beam_level lv[2];
    beam_cand *cand;
    size_t ncand, cand_cap;
    uint32_t *par, *node; /* history: level k, slot j -> k * width + j */
    uint32_t *slot;       /* dedup table: state index + 1, 0 = empty */
    uint32_t slot_mask;
    bool oom;
} beam;

static bool beam_bit(const uint64_t *b, uint32_t i) {
    return b[i >> 6] >> (i & 63) & 1;
}

static void *beam_grow(void *p, uint32_t *cap, uint32_t need, size_t sz,
                       bool *oom) {
    if (need <= *cap)
        return p;
    uint32_t c = *cap ? *cap : 16;
    while (c < need)
        c *= 2;
    void *q = realloc(p, (size_t)c * sz);
    if (!q) {
        *oom = true;
        return p;
    }
    *cap = c;
    return q;
}

static bool beam_level_reserve(beam *B, beam_level *L, uint32_t n) {
    uint32_t cap = L->cap;
    L->mem = beam_grow(L->mem, &cap, n, sizeof *L->mem, &B->oom);
    cap = L->cap;
    L->peak = beam_grow(L->peak, &cap, n, sizeof *L->peak, &B->oom);
    cap = L->cap;
    L->hash = beam_grow(L->hash, &cap, n, sizeof *L->hash, &B->oom);
    cap = L->cap;
    L->rdy_off =
        beam_grow(L->rdy_off, &cap, n + 1, sizeof *L->rdy_off, &B->oom);
    cap = L->cap;
    L->bits = beam_grow(L->bits, &cap, n, (size_t)B->words * sizeof *L->bits,
                        &B->oom);
    L->cap = cap;
    return !B->oom;
}

static void beam_level_free(beam_level *L) {
    free(L->bits);
    free(L->mem);
    free(L->peak);
    free(L->hash);
    free(L->rdy_off);
    free(L->rdy);
}

/* Whether each use of a segment node frees its storage once the
 * segment's users of it ran: a planned storage not kept to the end whose
 * users are all before or inside the segment. */
static void beam_freeable(beam *B, const uint8_t *done) {
    const plan_sched_graph *g = B->g;
    uint32_t k0 = 0;
    for (uint32_t i = 0; i < B->m; i++) {
        uint32_t v = B->seg[i];
        B->fre_off[i] = k0;
        SCHED_USES(g, v, k) {
            uint32_t s = g->use[k];
            bool f = g->def[s] >= 0 && !g->keep[s];
            for (uint32_t j = g->user_off[s]; f && j < g->user_off[s + 1]; j++)
                f = done[g->user[j]] || B->local[g->user[j]] >= 0;
            B->fre[k0++] = f;
        }
    }
    B->fre_off[B->m] = k0;
}

/* Bytes freed when local node i runs after the set `bits`. */
static uint64_t beam_freed(const beam *B, const uint64_t *bits, uint32_t i) {
    const plan_sched_graph *g = B->g;
    uint32_t v = B->seg[i], k0 = B->fre_off[i];
    uint64_t f = 0;
    SCHED_USES(g, v, k) {
        if (!B->fre[k0 + (k - g->use_off[v])])
            continue;
        uint32_t s = g->use[k];
        bool last = true;
        for (uint32_t j = g->user_off[s]; last && j < g->user_off[s + 1]; j++) {
            int32_t u = B->local[g->user[j]];
            last = u < 0 || (uint32_t)u == i || beam_bit(bits, (uint32_t)u);
        }
        if (last)
            f += g->size[s];
    }
    return f;
}

static int beam_cand_cmp(const void *a, const void *b) {
    const beam_cand *x = a, *y = b;
    if (x->peak != y->peak)
        return x->peak < y->peak ? -1 : 1;
    if (x->mem != y->mem)
        return x->mem < y->mem ? -1 : 1;
    if (x->parent != y->parent)
        return x->parent < y->parent ? -1 : 1;
    return (x->v > y->v) - (x->v < y->v);
}

/* Every successor of every state of `L`, into B->cand. */
static void beam_expand(beam *B, const beam_level *L, uint64_t *steps) {
    B->ncand = 0;
    for (uint32_t j = 0; j < L->n; j++) {
        const uint64_t *bits = L->bits + (size_t)j * B->words;
        for (uint32_t r = L->rdy_off[j]; r < L->rdy_off[j + 1]; r++) {
            uint32_t i = L->rdy[r];
            if (B->ncand == B->cand_cap) {
                size_t c = B->cand_cap ? 2 * B->cand_cap : 1024;
                beam_cand *q = realloc(B->cand, c * sizeof *q);
                if (!q) {
                    B->oom = true;
                    return;
                }
                B->cand = q;
                B->cand_cap = c;
            }
            beam_cand *c = &B->cand[B->ncand++];
            uint64_t mem = L->mem[j] + B->g->alloc[B->seg[i]];
            c->peak = mem > L->peak[j] ? mem : L->peak[j];
            c->mem = mem - beam_freed(B, bits, i);
            c->hash = L->hash[j] ^ B->zob[i];
            c->parent = j;
            c->v = i;
            (*steps)++;
        }
    }
    qsort(B->cand, B->ncand, sizeof *B->cand, beam_cand_cmp);
}

/* Whether candidate c reaches the set of state `j` of the next level. */
static bool beam_same(const beam *B, const beam_level *L, const beam_cand *c,
                      const beam_level *N, uint32_t j) {
    const uint64_t *a = L->bits + (size_t)c->parent * B->words;
    const uint64_t *b = N->bits + (size_t)j * B->words;
    for (uint32_t w = 0; w < B->words; w++) {
        uint64_t x = a[w];
        if (w == c->v >> 6)
            x |= UINT64_C(1) << (c->v & 63);
        if (x != b[w])
            return false;
    }
    return true;
}

/* The ready list of the new state j of N (reached by c from L). */
static void beam_ready(beam *B, const beam_level *L, const beam_cand *c,
                       beam_level *N, uint32_t j) {
    const plan_sched_graph *g = B->g;
    const uint64_t *bits = N->bits + (size_t)j * B->words;
    uint32_t np = L->rdy_off[c->parent + 1] - L->rdy_off[c->parent];
    uint32_t v = B->seg[c->v], start = N->rdy_off[j];
    uint32_t need = start + np + (g->succ_off[v + 1] - g->succ_off[v]);
    N->rdy = beam_grow(N->rdy, &N->rdy_cap, need, sizeof *N->rdy, &B->oom);
    if (B->oom)
        return;
    uint32_t w = start;
    for (uint32_t r = L->rdy_off[c->parent]; r < L->rdy_off[c->parent + 1]; r++)
        if (L->rdy[r] != c->v)
            N->rdy[w++] = L->rdy[r];
    for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++) {
        int32_t s = B->local[g->succ[k]];
        if (s < 0)
            continue;
        bool ok = true;
        uint32_t u = g->succ[k];
        for (uint32_t p = g->pred_off[u]; ok && p < g->pred_off[u + 1]; p++) {
            int32_t q = B->local[g->pred[p]];
            ok = q < 0 || beam_bit(bits, (uint32_t)q);
        }
        if (ok)
            N->rdy[w++] = (uint32_t)s;
    }
    N->rdy_off[j + 1] = w;
}

/* Adds candidate c as state N->n unless its set is there already (then
 * the one there has a peak no larger: candidates come sorted). */
static bool beam_take(beam *B, const beam_level *L, const beam_cand *c,
                      beam_level *N) {
    uint32_t h = (uint32_t)c->hash & B->slot_mask;
    for (; B->slot[h]; h = (h + 1) & B->slot_mask)
        if (N->hash[B->slot[h] - 1] == c->hash &&
            beam_same(B, L, c, N, B->slot[h] - 1))
            return false;
    uint32_t j = N->n++;
    B->slot[h] = j + 1;
    uint64_t *bits = N->bits + (size_t)j * B->words;
    memcpy(bits, L->bits + (size_t)c->parent * B->words,
           B->words * sizeof *bits);
    bits[c->v >> 6] |= UINT64_C(1) << (c->v & 63);
    N->mem[j] = c->mem;
    N->peak[j] = c->peak;
    N->hash[j] = c->hash;
    beam_ready(B, L, c, N, j);
    return true;
}

/* One level: the best `width` distinct sets among the candidates.
 * Returns true when some distinct set was left out. */
static bool beam_select(beam *B, const beam_level *L, beam_level *N,
                        uint32_t level) {
    N->n = 0;
    N->rdy_off[0] = 0;
    memset(B->slot, 0, ((size_t)B->slot_mask + 1) * sizeof *B->slot);
    bool pruned = false;
    for (size_t i = 0; i < B->ncand && !B->oom; i++) {
        const beam_cand *c = &B->cand[i];
        if (N->n == B->width) {
            uint32_t h = (uint32_t)c->hash & B->slot_mask;
            bool dup = false;
            for (; B->slot[h] && !dup; h = (h + 1) & B->slot_mask)
                dup = N->hash[B->slot[h] - 1] == c->hash &&
                      beam_same(B, L, c, N, B->slot[h] - 1);
            if (!dup) {
                pruned = true;
                break;
            }
            continue;
        }
        if (beam_take(B, L, c, N)) {
            size_t at = (size_t)level * B->width + N->n - 1;
            B->par[at] = c->parent;
            B->node[at] = c->v;
        }
    }
    return pruned;
}

static bool beam_setup(beam *B, const uint8_t *done, uint64_t mem0) {
    const plan_sched_graph *g = B->g;
    uint32_t nuse = 0;
    for (uint32_t i = 0; i < B->m; i++)
        nuse += g->use_off[B->seg[i] + 1] - g->use_off[B->seg[i]];
    size_t hist = (size_t)B->m * B->width;
    uint32_t slots = 1;
    while (slots < 2 * B->width)
        slots *= 2;
    B->slot_mask = slots - 1;
    B->fre = malloc((size_t)nuse + 1);
    B->fre_off = malloc(((size_t)B->m + 1) * sizeof *B->fre_off);
    B->zob = malloc(((size_t)B->m + 1) * sizeof *B->zob);
    B->par = malloc((hist + 1) * sizeof *B->par);
    B->node = malloc((hist + 1) * sizeof *B->node);
    B->slot = malloc((size_t)slots * sizeof *B->slot);
    if (!B->fre || !B->fre_off || !B->zob || !B->par || !B->node || !B->slot)
        return false;
    beam_freeable(B, done);
    for (uint32_t i = 0; i < B->m; i++)
        B->zob[i] = plan_sched_mix(B->seg[i] * UINT64_C(0x9e3779b9) + 1);
    beam_level *L = &B->lv[0];
    if (!beam_level_reserve(B, L, 1) ||
        !beam_level_reserve(B, &B->lv[1], B->width))
        return false;
    L->n = 1;
    memset(L->bits, 0, B->words * sizeof *L->bits);
    L->mem[0] = mem0;
    L->peak[0] = mem0;
    L->hash[0] = 0;
    L->rdy_off[0] = 0;
    L->rdy = beam_grow(L->rdy, &L->rdy_cap, B->m, sizeof *L->rdy, &B->oom);
    if (B->oom)
        return false;
    uint32_t w = 0;
    for (uint32_t i = 0; i < B->m; i++) {
        uint32_t v = B->seg[i], np = 0;
        for (uint32_t p = g->pred_off[v]; p < g->pred_off[v + 1]; p++)
            np += B->local[g->pred[p]] >= 0;
        if (np == 0)
            L->rdy[w++] = i;
    }
    L->rdy_off[1] = w;
    return true;
}

static void beam_free(beam *B) {
    free(B->fre);
    free(B->fre_off);
    free(B->zob);
    free(B->par);
    free(B->node);
    free(B->slot);
    free(B->cand);
    beam_level_free(&B->lv[0]);
    beam_level_free(&B->lv[1]);
}

int plan_sched_beam(const plan_sched_graph *g, const uint32_t *seg, uint32_t m,
                    const uint8_t *done, uint64_t mem0, uint32_t width,
                    uint32_t *out, uint64_t *peak, bool *exact,
                    uint64_t *steps) {
    beam B = {.g = g, .seg = seg, .m = m, .words = (m + 63) / 64};
    B.width = width ? width : 1;
    B.local = NULL;
    int32_t *local = malloc(((size_t)g->n + 1) * sizeof *local);
    int rc = -1;
    if (!local)
        return -1;
    memset(local, 0xff, ((size_t)g->n + 1) * sizeof *local);
    for (uint32_t i = 0; i < m; i++)
        local[seg[i]] = (int32_t)i;
    B.local = local;
    *exact = true;
    if (!beam_setup(&B, done, mem0))
        goto done;
    uint32_t cur = 0;
    for (uint32_t k = 0; k < m; k++) {
        beam_expand(&B, &B.lv[cur], steps);
        if (B.oom || !beam_level_reserve(&B, &B.lv[cur ^ 1], B.width))
            goto done;
        if (beam_select(&B, &B.lv[cur], &B.lv[cur ^ 1], k))
            *exact = false;
        if (B.oom || B.lv[cur ^ 1].n == 0)
            goto done;
        cur ^= 1;
    }
    /* the single full set: walk the history back */
    uint32_t j = 0;
    *peak = B.lv[cur].peak[0];
    for (uint32_t k = m; k-- > 0;) {
        size_t at = (size_t)k * B.width + j;
        out[k] = seg[B.node[at]];
        j = B.par[at];
    }
    rc = 0;
done:
    beam_free(&B);
    free(local);
    return rc;
}

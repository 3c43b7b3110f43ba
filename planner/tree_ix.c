/*
 * planner/tree_ix.c - segment trees and the time axis of `tree`'s chain
 * index (planner/tree_ix.h).
 */
#include "tree_ix.h"

#include <stdlib.h>
#include <string.h>

static uint32_t ix_max(uint32_t a, uint32_t b) {
    return a > b ? a : b;
}

/* Bottom-up over 2 * w nodes (w a power of two, leaves at w..2w-1): the
 * nodes covering [l, r] exactly, and their ancestors, which all lie on
 * the paths from leaves l and r to the root. */
bool tr_seg_init(tr_seg *t, uint32_t n) {
    t->n = 1;
    while (t->n < n)
        t->n *= 2;
    t->node = calloc(2 * (size_t)t->n, sizeof *t->node);
    return t->node != NULL;
}

void tr_seg_free(tr_seg *t) {
    free(t->node);
    t->node = NULL;
}

void tr_seg_chmax(tr_seg *t, unsigned f, uint32_t l, uint32_t r, uint32_t v) {
    uint32_t a = l + t->n, b = r + t->n;
    for (uint32_t i = a, j = b + 1; i < j; i /= 2, j /= 2) {
        if (i & 1) {
            t->node[i].mx[f] = ix_max(t->node[i].mx[f], v);
            t->node[i].tg[f] = ix_max(t->node[i].tg[f], v);
            i++;
        }
        if (j & 1) {
            j--;
            t->node[j].mx[f] = ix_max(t->node[j].mx[f], v);
            t->node[j].tg[f] = ix_max(t->node[j].tg[f], v);
        }
    }
    for (a /= 2, b /= 2; a > 0; a /= 2, b /= 2) {
        t->node[a].mx[f] = ix_max(t->node[a].mx[f], v);
        t->node[b].mx[f] = ix_max(t->node[b].mx[f], v);
    }
}

void tr_seg_max(const tr_seg *t, uint32_t l, uint32_t r, uint32_t m[2]) {
    uint32_t a = l + t->n, b = r + t->n;
    m[0] = m[1] = 0;
    for (uint32_t i = a, j = b + 1; i < j; i /= 2, j /= 2) {
        for (unsigned f = 0; f < 2; f++) {
            if (i & 1)
                m[f] = ix_max(m[f], t->node[i].mx[f]);
            if (j & 1)
                m[f] = ix_max(m[f], t->node[j - 1].mx[f]);
        }
        i += i & 1;
        j -= j & 1;
    }
    for (a /= 2, b /= 2; a > 0; a /= 2, b /= 2)
        for (unsigned f = 0; f < 2; f++)
            m[f] = ix_max(m[f], ix_max(t->node[a].tg[f], t->node[b].tg[f]));
}

bool tr_axis_init(tr_axis *a, const plan_problem *pb) {
    uint64_t top = 0;
    for (uint32_t i = 0; i < pb->n; i++)
        if (pb->bufs[i].end > top)
            top = pb->bufs[i].end;
    a->ax = NULL;
    if (top < 4 * (uint64_t)pb->n + 64) {
        a->n = (uint32_t)top + 1;
        return true;
    }
    a->n = plan_time_axis(pb, &a->ax);
    return a->n != UINT32_MAX;
}

void tr_axis_free(tr_axis *a) {
    free(a->ax);
    a->ax = NULL;
}

uint32_t tr_axis_pos(const tr_axis *a, uint64_t t) {
    return a->ax ? plan_time_index(a->ax, a->n, (uint32_t)t) : (uint32_t)t;
}

/* ---- the arena ---- */

void tr_arena_init(tr_arena *a, size_t esz) {
    memset(a, 0, sizeof *a);
    a->esz = esz;
    for (unsigned k = 0; k < 32; k++)
        a->freel[k] = UINT32_MAX;
}

void tr_arena_free(tr_arena *a) {
    free(a->base);
    a->base = NULL;
}

unsigned tr_log2(uint32_t cap) {
    unsigned k = 0;
    while (k < 31 && (1u << k) < cap)
        k++;
    return k;
}

uint32_t tr_arena_get(tr_arena *a, unsigned k) {
    uint32_t off = a->freel[k], len = 1u << k;
    if (off != UINT32_MAX) {
        memcpy(&a->freel[k], a->base + (size_t)off * a->esz, sizeof off);
        return off;
    }
    if (len > UINT32_MAX - 1 - a->n)
        return UINT32_MAX;
    if (a->n + len > a->cap) {
        uint64_t nc = a->cap ? 2 * (uint64_t)a->cap : 1024;
        while (nc < (uint64_t)a->n + len)
            nc *= 2;
        if (nc > UINT32_MAX)
            nc = UINT32_MAX;
        unsigned char *p = realloc(a->base, (size_t)nc * a->esz);
        if (!p)
            return UINT32_MAX;
        a->base = p;
        a->cap = (uint32_t)nc;
    }
    off = a->n;
    a->n += len;
    return off;
}

void tr_arena_put(tr_arena *a, uint32_t off, unsigned k) {
    memcpy(a->base + (size_t)off * a->esz, &a->freel[k], sizeof off);
    a->freel[k] = off;
}

/* ---- the placement order ---- */

typedef struct tr_sort_ctx {
    const plan_buf *bufs;
    int dir; /* -1: descending size, +1: ascending size */
} tr_sort_ctx;

static int tr_cmp(const void *ctx, uint32_t a, uint32_t b) {
    const tr_sort_ctx *s = ctx;
    const plan_buf *x = &s->bufs[a], *y = &s->bufs[b];
    if (x->size != y->size)
        return (x->size < y->size ? -1 : 1) * s->dir;
    uint64_t lx = (uint64_t)x->end - x->start, ly = (uint64_t)y->end - y->start;
    if (lx != ly)
        return lx > ly ? -1 : 1; /* longer first in both sorts */
    return 0;                    /* stable */
}

/* Two stable radix passes (length, then size) when every size fits 32
 * bits; else the comparison sort. */
int tr_order(const plan_buf *bufs, uint32_t *idx, uint32_t n, int dir) {
    bool small = true;
    for (uint32_t i = 0; i < n && small; i++)
        small = bufs[idx[i]].size <= UINT32_MAX;
    if (!small || n < 64) {
        tr_sort_ctx s = {bufs, dir};
        return plan_sort_idx(idx, n, tr_cmp, &s);
    }
    uint64_t *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return -1;
    for (uint32_t i = 0; i < n; i++) {
        const plan_buf *b = &bufs[idx[i]];
        v[i] = (uint64_t)(UINT32_MAX - (b->end - b->start)) << 32 | idx[i];
    }
    int rc = plan_radix_sort_hi(v, n);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t j = (uint32_t)v[i];
        uint64_t sz = bufs[j].size;
        v[i] = (dir < 0 ? UINT32_MAX - sz : sz) << 32 | j;
    }
    if (rc == 0)
        rc = plan_radix_sort_hi(v, n);
    for (uint32_t i = 0; i < n && rc == 0; i++)
        idx[i] = (uint32_t)v[i];
    free(v);
    return rc;
}

/*
 * planner/tree_ix.c - segment trees and the time axis of `tree`'s chain
 * index (planner/tree_ix.h).
 */
#include "tree_ix.h"

#include <stdlib.h>

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

void tr_seg_chmax(tr_seg *t, uint32_t l, uint32_t r, uint32_t v) {
    uint32_t a = l + t->n, b = r + t->n;
    for (uint32_t i = a, j = b + 1; i < j; i /= 2, j /= 2) {
        if (i & 1) {
            t->node[i].mx = ix_max(t->node[i].mx, v);
            t->node[i].tg = ix_max(t->node[i].tg, v);
            i++;
        }
        if (j & 1) {
            j--;
            t->node[j].mx = ix_max(t->node[j].mx, v);
            t->node[j].tg = ix_max(t->node[j].tg, v);
        }
    }
    for (a /= 2, b /= 2; a > 0; a /= 2, b /= 2) {
        t->node[a].mx = ix_max(t->node[a].mx, v);
        t->node[b].mx = ix_max(t->node[b].mx, v);
    }
}

uint32_t tr_seg_max(const tr_seg *t, uint32_t l, uint32_t r) {
    uint32_t a = l + t->n, b = r + t->n, m = 0;
    for (uint32_t i = a, j = b + 1; i < j; i /= 2, j /= 2) {
        if (i & 1)
            m = ix_max(m, t->node[i++].mx);
        if (j & 1)
            m = ix_max(m, t->node[--j].mx);
    }
    for (a /= 2, b /= 2; a > 0; a /= 2, b /= 2)
        m = ix_max(m, ix_max(t->node[a].tg, t->node[b].tg));
    return m;
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

/*
 * planner/tree_ix.c - segment trees and the time axis of `tree`'s chain
 * index (planner/tree_ix.h).
 */
#include "tree_ix.h"

#include <stdlib.h>

static uint32_t ix_max(uint32_t a, uint32_t b) { return a > b ? a : b; }

bool tr_seg_init(tr_seg *t, uint32_t n) {
    t->n = n ? n : 1;
    t->mx = calloc(4 * (size_t)t->n, sizeof *t->mx);
    t->tg = calloc(4 * (size_t)t->n, sizeof *t->tg);
    return t->mx && t->tg;
}

void tr_seg_free(tr_seg *t) {
    free(t->mx);
    free(t->tg);
    t->mx = t->tg = NULL;
}

static void seg_up(tr_seg *t, uint32_t k, uint32_t nl, uint32_t nr,
                   uint32_t l, uint32_t r, uint32_t v) {
    if (r < nl || nr < l)
        return;
    t->mx[k] = ix_max(t->mx[k], v);
    if (l <= nl && nr <= r) {
        t->tg[k] = ix_max(t->tg[k], v);
        return;
    }
    uint32_t mid = nl + (nr - nl) / 2;
    seg_up(t, 2 * k, nl, mid, l, r, v);
    seg_up(t, 2 * k + 1, mid + 1, nr, l, r, v);
}

void tr_seg_chmax(tr_seg *t, uint32_t l, uint32_t r, uint32_t v) {
    seg_up(t, 1, 0, t->n - 1, l, r, v);
}

static uint32_t seg_q(const tr_seg *t, uint32_t k, uint32_t nl, uint32_t nr,
                      uint32_t l, uint32_t r) {
    if (r < nl || nr < l)
        return 0;
    if (l <= nl && nr <= r)
        return t->mx[k];
    uint32_t mid = nl + (nr - nl) / 2;
    uint32_t m = ix_max(seg_q(t, 2 * k, nl, mid, l, r),
                        seg_q(t, 2 * k + 1, mid + 1, nr, l, r));
    return ix_max(m, t->tg[k]);
}

uint32_t tr_seg_max(const tr_seg *t, uint32_t l, uint32_t r) {
    return seg_q(t, 1, 0, t->n - 1, l, r);
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

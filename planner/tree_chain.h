/*
 * planner/tree_chain.h - the chains of `tree`'s pools (see "chains" in
 * planner/tree.c): starting a chain, a level per allocate_at_end, and
 * dropping it (planner/tree_chain.c); used by the tree code only.
 */
#ifndef PW_PLANNER_TREE_CHAIN_H
#define PW_PLANNER_TREE_CHAIN_H

#include "tree_ix.h"

/* The positions [*l, *h] of the chain index that block range r covers. */
static inline void tr_ix_span(const tr_ctx *c, tr_range r, uint32_t *l,
                              uint32_t *h) {
    *l = tr_axis_pos(&c->axis, r.begin);
    *h = tr_axis_pos(&c->axis, r.end - 1);
}

/* Drops chain ch: its nodes are plain nodes again. */
void tr_chain_drop(tr_ctx *c, tr_chain *ch);

/* allocate_at_end made t = TS([s]), s = SS(old root, TS([block range
 * br])): a new level on p's chain (started at the old root when p has
 * none; out of memory flagged). */
void tr_chain_push(tr_ctx *c, tr_pool *p, uint32_t s, uint32_t t, tr_range br);

#endif

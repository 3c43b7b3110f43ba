/*
 * planner/tree_ix.h - the time-axis index of `tree`'s pool chains
 * (planner/tree_ix.c; used by planner/tree.c only).
 *
 * A tr_seg is a segment tree over [0, n) positions of a time axis with
 * range chmax (raise every position to at least v) and range max; values
 * start at 0.  Tags are not pushed down: O(log n) per operation.
 *
 * A tr_axis maps times to positions: the identity when the times are
 * small (no larger than a few times the number of buffers), else the
 * problem's compressed axis (plan_time_axis: every start and end), which
 * keeps every overlap between ranges whose ends are buffer ends.
 */
#ifndef PW_PLANNER_TREE_IX_H
#define PW_PLANNER_TREE_IX_H

#include "plan_internal.h"

typedef struct tr_seg_node {
    uint32_t mx; /* the max of the node's positions, own tag included */
    uint32_t tg; /* raised the whole node to at least this */
} tr_seg_node;

typedef struct tr_seg {
    uint32_t n; /* leaves: a power of two */
    tr_seg_node *node;
} tr_seg;

bool tr_seg_init(tr_seg *t, uint32_t n);
void tr_seg_free(tr_seg *t);
/* Raises every position of [l, r] (inclusive) to at least v. */
void tr_seg_chmax(tr_seg *t, uint32_t l, uint32_t r, uint32_t v);
/* The max over [l, r] (inclusive). */
uint32_t tr_seg_max(const tr_seg *t, uint32_t l, uint32_t r);

typedef struct tr_axis {
    uint32_t *ax; /* NULL: the identity */
    uint32_t n;   /* positions */
} tr_axis;

/* The axis of problem pb; false when out of memory. */
bool tr_axis_init(tr_axis *a, const plan_problem *pb);
void tr_axis_free(tr_axis *a);
/* The position of time t, which must be a start or an end of pb. */
uint32_t tr_axis_pos(const tr_axis *a, uint64_t t);

#endif

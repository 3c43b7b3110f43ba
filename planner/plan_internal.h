/*
 * planner/plan_internal.h - helpers shared by the planner's source files
 * (not part of the public API).
 */
#ifndef PLANWRAP_PLAN_INTERNAL_H
#define PLANWRAP_PLAN_INTERNAL_H

#include "planner/planner.h"

#include <stddef.h>
#include <stdint.h>

/* Rounds v up to a multiple of a (a power of two >= 1); saturates at
 * UINT64_MAX rounded down. */
uint64_t plan_align_up(uint64_t v, uint64_t a);

/* The alignment a buffer's offset needs in `pb`: max(pb->align, b->align). */
uint64_t plan_buf_align(const plan_problem *pb, const plan_buf *b);

/* The core of an algorithm: plans a problem whose buffers are all
 * colour-compatible (one colour class). */
typedef int (*plan_core_fn)(const plan_problem *pb, uint64_t *offsets,
                            uint64_t *size);

/* Runs `fn` once per colour class (-1 first, then colours ascending, then
 * each colour -2 buffer alone) and stacks the classes in the pool, so
 * that buffers of different classes never share bytes.  When there is a
 * single class, calls `fn` directly.  Returns 0 or -1 (out of memory). */
int plan_run_colored(const plan_problem *pb, plan_core_fn fn, uint64_t *offsets,
                     uint64_t *size);

/* Sorts `n` uint32 indices with a comparison on a context (stable merge
 * sort); returns -1 on out-of-memory. */
typedef int (*plan_cmp_fn)(const void *ctx, uint32_t a, uint32_t b);
int plan_sort_idx(uint32_t *idx, uint32_t n, plan_cmp_fn cmp, const void *ctx);

/* A segment tree over [0, n) positions with range add and range max
 * (values int64).  Non-lazy tags: O(log n) per operation. */
typedef struct plan_segtree {
    uint32_t n;
    int64_t *mx; /* subtree max including own tag */
    int64_t *tag;
} plan_segtree;

int plan_segtree_init(plan_segtree *t, uint32_t n);
void plan_segtree_free(plan_segtree *t);
/* Adds v to every position in [l, r] (inclusive). */
void plan_segtree_add(plan_segtree *t, uint32_t l, uint32_t r, int64_t v);
/* Max over [l, r] (inclusive). */
int64_t plan_segtree_max(const plan_segtree *t, uint32_t l, uint32_t r);

/* Compressed time axis of a problem: the sorted distinct values of every
 * start and end.  Returns the count (or UINT32_MAX on out-of-memory);
 * *out is malloc'ed. */
uint32_t plan_time_axis(const plan_problem *pb, uint32_t **out);
/* Index of t in the axis (t must be present). */
uint32_t plan_time_index(const uint32_t *axis, uint32_t n, uint32_t t);

/* plan_lower_bound over the problem's time axis (plan_time_axis), for a
 * caller that already has it.  Returns 0 or -1 (out of memory). */
int plan_lower_bound_axis(const plan_problem *pb, const uint32_t *axis,
                          uint32_t m, uint64_t *lb);

/* ---- firmware passes of plan_program (planner/fw.c) ---- */

/* The alignment of a pool on `dev`: --align, else 64 on cpu, 256 on
 * cuda. */
uint64_t plan_pool_align(const plan_options *o, ir_device dev);

/* Accessed bytes: each storage's (st->accessed: the bytes of every call
 * argument naming it, saturating) and the plan's total over the pooled
 * ones (pooled[s]). */
void plan_fw_access(plan *pl, const bool *pooled);

/* Spill (docs/firmware.md): sets st->space of every storage (its value's
 * space), then, space by space along the spill= chains, chooses with
 * plan_spill_select which pooled storages of a space with a spill=
 * stay: those get their offset and fixed[s] = true; the others move to
 * the spill space (st->spilled).  `outputs[s]` is the storage's pool
 * kind (PLAN_MP_OUTPUTS), `color[s]` its stream colour.  Returns false
 * after reporting an error to `d`. */
bool plan_fw_spill(plan *pl, const bool *pooled, const bool *outputs,
                   const int32_t *color, bool *fixed, ir_diag *d);

#endif /* PLANWRAP_PLAN_INTERNAL_H */

/*
 * planner/tree_ix.h - the time-axis index of `tree`'s pool chains
 * (planner/tree_ix.c; used by planner/tree.c only).
 *
 * A tr_seg is a segment tree over [0, n) positions of a time axis, of two
 * fields queried together (one cache line per node for both), with range
 * chmax (raise every position to at least v) and range max; values start
 * at 0.  Tags are not pushed down: O(log n) per operation.
 *
 * A tr_axis maps times to positions: the identity when the times are
 * small (no larger than a few times the number of buffers), else the
 * problem's compressed axis (plan_time_axis: every start and end), which
 * keeps every overlap between ranges whose ends are buffer ends.
 */
#ifndef PW_PLANNER_TREE_IX_H
#define PW_PLANNER_TREE_IX_H

#include "plan_internal.h"

/* ---- the nodes ----
 * A node reference is a uint32_t: a TemporalSplit or SpatialSplit by its
 * index in tr_ctx.nodes, or a leaf (Inductor's Allocation) of buffer i as
 * TR_LEAF | i (leaves keep no node: their size and live range are the
 * buffer's).  Empty has no node either: a TemporalSplit with no children
 * holds an Empty of its hint (SpatialSplit.create makes no other kind).
 * What a descent reads sits in one 32-byte tr_node; the rest of a node
 * is its tr_cold twin. */
#define TR_LEAF 0x80000000u

/* An entry of a TemporalSplit's interval index: times [lo, hi] (inclusive:
 * a buffer may end at UINT32_MAX) of child kid. */
typedef struct tr_kre {
    uint32_t lo, hi, kid;
} tr_kre;

#define TR_F_SS 0x80000000u     /* a SpatialSplit (else a TemporalSplit) */
#define TR_F_CHAIN 0x40000000u  /* on its pool's chain (tr_cold.lvl) */
#define TR_F_SPILL 0x20000000u  /* a TemporalSplit's index is in the arena */
#define TR_NKR (TR_F_SPILL - 1) /* the number of index entries */

typedef struct tr_node {
    uint64_t hint;     /* size hint */
    uint32_t dlo, dhi; /* the dead interval, inclusive; none if dlo > dhi */
    uint32_t w;        /* TR_F_*; a TemporalSplit's index entries */
    union {
        tr_kre in; /* a TemporalSplit's only entry (not spilled) */
        struct {
            uint32_t off, cap;
        } sp; /* a spilled index: kra[off .. off + cap) */
        struct {
            uint32_t left, right;
        } ss; /* a SpatialSplit's sides */
    } u;
} tr_node;

typedef struct tr_cold {
    uint64_t sym;            /* symbolic (final) size, from tr_syms */
    uint32_t koff;           /* children: kda[koff ..], or the only one */
    uint32_t nkids, capkids; /* capkids 0: the child is koff itself */
    uint32_t lvl;            /* chain level + 1 (TR_F_CHAIN) */
    uint32_t fwd; /* the SS that replaced this child (tr_pad); UINT32_MAX:
                     visited (tr_syms) */
} tr_cold;

/* An arena of elements of size esz (at least 4 bytes, the first four a
 * uint32_t) handed out in blocks of 2^k elements, reused through a free
 * list per k; offsets stay valid when it grows (pointers do not). */
typedef struct tr_arena {
    unsigned char *base;
    size_t esz;
    uint32_t n, cap;
    uint32_t freel[32];
} tr_arena;

void tr_arena_init(tr_arena *a, size_t esz);
void tr_arena_free(tr_arena *a);
/* The offset of a free block of 2^k elements; UINT32_MAX when out of
 * memory. */
uint32_t tr_arena_get(tr_arena *a, unsigned k);
/* Returns block off of 2^k elements to the arena. */
void tr_arena_put(tr_arena *a, uint32_t off, unsigned k);
/* k with 2^k == cap (a power of two). */
unsigned tr_log2(uint32_t cap);

/* The placement order of the nm buffers of idx (descending size when dir
 * < 0, ascending when dir > 0; longer first on ties; stable).  0 or -1. */
int tr_order(const plan_buf *bufs, uint32_t *idx, uint32_t n, int dir);

typedef struct tr_seg_node {
    uint32_t mx[2]; /* per field: the max of the node's positions, own tag
                       included */
    uint32_t tg[2]; /* per field: raised the whole node to at least this */
} tr_seg_node;

typedef struct tr_seg {
    uint32_t n; /* leaves: a power of two */
    tr_seg_node *node;
} tr_seg;

bool tr_seg_init(tr_seg *t, uint32_t n);
void tr_seg_free(tr_seg *t);
/* Raises field f (0 or 1) of every position of [l, r] (inclusive) to at
 * least v. */
void tr_seg_chmax(tr_seg *t, unsigned f, uint32_t l, uint32_t r, uint32_t v);
/* The max of each field over [l, r] (inclusive), into m[0] and m[1]. */
void tr_seg_max(const tr_seg *t, uint32_t l, uint32_t r, uint32_t m[2]);

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

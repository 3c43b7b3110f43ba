/*
 * planner/tree_ix.h - the data structures of `tree` (planner/tree.c):
 * its nodes, their interval indexes and the time-axis index of its pool
 * chains (planner/tree_ix.c), and the final walk (planner/tree_fin.c);
 * used by those files only.
 *
 * A tr_seg holds two fields per position of [0, n) of a time axis,
 * queried together, with range chmax (raise every position to at least
 * v), range max and range min (field 1); values start at 0.  Positions
 * are kept in buckets of 32 with a segment tree over the buckets: a
 * range of up to 256 buckets tags each of its leaves (O(32 + k + log n)
 * for k buckets), so that a query reads its positions, two leaves' tags
 * and the nodes covering the buckets between, without walking up (a
 * block's range usually lies in one bucket: no tree at all); a longer
 * range tags the nodes covering it (O(32 + log n); its queries then walk
 * up the tree).  The short ranges of most blocks read a cache line or two
 * of positions and a tree that stays in cache (n / 32 leaves).
 *
 * A tr_axis maps times to positions: the identity when the times are
 * small (no larger than a few times the number of buffers), else the
 * problem's compressed axis (every start, end and end + 1), which keeps
 * every overlap and every containment between ranges whose ends are
 * buffer ends (a time between two positions is in such a range when
 * the position before it is).
 */
#ifndef PW_PLANNER_TREE_IX_H
#define PW_PLANNER_TREE_IX_H

#include "plan_internal.h"

typedef struct tr_seg_node {
    uint32_t mx[2]; /* per field: the max of the node's positions, own tag
                       included */
    uint32_t tg[2]; /* per field: raised the whole node to at least this */
    uint32_t mn;    /* field 1: the min of the node's positions, own tag
                       included */
} tr_seg_node;

typedef struct tr_seg {
    uint32_t n;        /* positions */
    uint32_t nl;       /* leaves (buckets): a power of two */
    tr_seg_node *node; /* 2 * nl */
    uint32_t *flat;    /* per position p, both fields: flat[2p + f] */
    bool deep;         /* a node above the leaves holds a tag */
} tr_seg;

bool tr_seg_init(tr_seg *t, uint32_t n);
void tr_seg_free(tr_seg *t);
/* Raises field f (0 or 1) of every position of [l, r] (inclusive) to at
 * least v. */
void tr_seg_chmax(tr_seg *t, unsigned f, uint32_t l, uint32_t r, uint32_t v);
/* Over [l, r] (inclusive): the max of each field into q[0] and q[1],
 * the min of field 1 into q[2]. */
void tr_seg_query(const tr_seg *t, uint32_t l, uint32_t r, uint32_t q[3]);

typedef struct tr_axis {
    uint32_t *ax; /* NULL: the identity */
    uint32_t n;   /* positions */
} tr_axis;

/* The axis of problem pb; false when out of memory. */
bool tr_axis_init(tr_axis *a, const plan_problem *pb);
void tr_axis_free(tr_axis *a);
/* The position of time t, which must be a start or an end of pb.
 * Inline: about three a block, most often on the identity axis. */
static inline uint32_t tr_axis_pos(const tr_axis *a, uint64_t t) {
    return a->ax ? plan_time_index(a->ax, a->n, (uint32_t)t) : (uint32_t)t;
}

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
    uint32_t dlo, dhi; /* the dead interval (a SpatialSplit: its left side's),
                          inclusive; none if dlo > dhi */
    uint32_t w;        /* TR_F_*; a TemporalSplit's index entries (TR_NKR;
                          a SpatialSplit's: a prefetch hint, tr_pf_note) */
    union {
        tr_kre in; /* a TemporalSplit's only entry (not spilled) */
        struct {
            uint32_t off, cap;
        } sp; /* a spilled index: kra[off .. off + cap) */
        struct {
            uint32_t left, right;
            uint32_t pf; /* a node the last search through it met a few
                            levels down: a prefetch hint (tr_pf_note) */
        } ss;            /* a SpatialSplit's sides */
    } u;
} tr_node;

typedef struct tr_cold {
    uint32_t lvl; /* chain level + 1 (TR_F_CHAIN) */
    uint32_t fwd; /* the SS that replaced this child (tr_pad) */
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

/* ---- the search state (planner/tree.c) ---- */

typedef struct tr_range {
    uint64_t begin, end; /* half-open */
} tr_range;

/* A frame of the explicit stack of tr_allocate: node id, entered with
 * is_last; phase 0 on entry, then 1 (and 2 for an SS's right side) when
 * the child it descended into returns; ov is a TS's overlapped child. */
typedef struct tr_frame {
    uint32_t id, ov, pos; /* pos: see tr_kr_overlaps */
    uint8_t is_last, phase;
    uint8_t jump; /* a jump down a chain (tr_jump_step) */
    uint32_t lv;  /* the chain level the node is in, TR_REL: its offset
                     counts from that level's base (tr_fin_fast) */
    uint64_t off; /* the node's offset from that base, or from 0 */
} tr_frame;

/* tr_frame.lv: the offset counts from the start of the right side of
 * the level's chain SpatialSplit. */
#define TR_REL 0x80000000u

/* The chain of a pool (see "chains" in tree.c): per level its
 * TemporalSplit and that TemporalSplit's chain child; an index over the
 * time axis. */
typedef struct tr_lv {
    uint32_t ts, ss; /* ss of level 0 unused */
} tr_lv;

enum { TR_OWN, TR_LOW }; /* the fields of tr_chain.ix */

typedef struct tr_chain {
    tr_lv *lv;
    uint32_t nlv, cap;
    tr_seg ix; /* per time, field TR_OWN: level + 1 of the non-chain child
                  holding it; TR_LOW: UINT32_MAX - the lowest chain SS
                  holding it */
    /* the lowest level whose hint fitted the last block tr_chain_stop
     * asked about (UINT32_MAX: none yet) */
    uint32_t fit;
} tr_chain;

typedef struct tr_pool {
    uint32_t root;
    bool can_expand;
    tr_chain ch;
} tr_pool;

/* Where a block went (tr_frame), noted when it was placed. */
typedef struct tr_placed {
    uint64_t off;
    uint32_t lv, buf;
} tr_placed;

/* A TemporalSplit that padded its children, at offset off of level code
 * lv (tr_frame) when it did. */
typedef struct tr_padrec {
    uint32_t ts, lv;
    uint64_t off;
} tr_padrec;

typedef struct tr_ctx {
    const plan_problem *pb;
    uint64_t align;
    tr_node *nodes; /* TemporalSplits and SpatialSplits (tree_ix.h) */
    tr_cold *cold;  /* their other fields */
    uint32_t nnodes, capnodes;
    tr_arena kra;   /* spilled interval indexes (tr_kre) */
    uint32_t *lfwd; /* tr_cold.fwd of the leaves */
    tr_frame *stk;
    uint32_t capstk;
    bool oom;
    uint64_t *offsets;
    tr_pool *cur;     /* the pool being searched */
    bool low_done;    /* the block's lowest chain SS noted (tr_chain_note) */
    uint64_t up_hint; /* the hint, before the placement, of the node the
                         frame being updated descended into */
    tr_axis axis;     /* of the chain indexes; n == 0 until needed */
    bool q_ok;        /* q holds the chain index's maxima and field TR_LOW's
                         min over the block's range (tr_seg_query): the
                         maxima change only once the block is placed, the
                         min only once its lowest chain SS learns it */
    uint32_t q[3];
    /* tr_fin_fast */
    tr_placed *placed; /* per block, in placement order */
    uint32_t rank;     /* the block being placed */
    uint32_t *lvc;     /* per buffer: tr_frame.lv, while tr_fin_fast runs */
    bool slow;         /* the offsets need tr_finalize */
    tr_padrec *pads;   /* the TemporalSplits that padded their children */
    uint32_t npads, cappads;
    bool fin_mark; /* tr_finalize writes fin_lv into lvc */
    uint32_t fin_lv;
    uint32_t *seen; /* per node: the last walk of tr_finalize that met it */
    uint32_t walk;  /* the number of walks so far */
} tr_ctx;

/* Asks for the cache line at p ahead of its use (a hint; nothing where
 * the compiler has no such builtin). */
#if defined(__GNUC__) || defined(__clang__)
#define TR_PREFETCH(p) __builtin_prefetch(p)
#else
#define TR_PREFETCH(p) ((void)(p))
#endif

/* Keeps a function out of line (where the compiler would merge it into
 * its caller and make every call pay for the caller's registers). */
#if defined(__GNUC__) || defined(__clang__)
#define TR_NOINLINE __attribute__((noinline))
#else
#define TR_NOINLINE
#endif

/* a + b, saturating at UINT64_MAX. */
static inline uint64_t tr_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* v rounded up to a multiple of a (a power of two), saturating at
 * UINT64_MAX (where plan_align_up would round down).  Inline: a chain
 * climb aligns twice a level, and with the alignment 1 of a CSV instance
 * it is one test. */
static inline uint64_t tr_align(uint64_t v, uint64_t a) {
    uint64_t r = a > 1 ? v & (a - 1) : 0;
    if (r == 0)
        return v;
    return v > UINT64_MAX - (a - r) ? UINT64_MAX : v + (a - r);
}

/* ---- node access (a leaf is its buffer) ---- */

static inline bool tr_is_ss(const tr_ctx *c, uint32_t id) {
    return !(id & TR_LEAF) && (c->nodes[id].w & TR_F_SS);
}

static inline const plan_buf *tr_leaf_buf(const tr_ctx *c, uint32_t r) {
    return &c->pb->bufs[r & ~TR_LEAF];
}

static inline uint64_t tr_hint(const tr_ctx *c, uint32_t r) {
    return r & TR_LEAF ? tr_leaf_buf(c, r)->size : c->nodes[r].hint;
}

/* The live range of leaf r: [start, end + 1). */
static inline tr_range tr_live(const tr_ctx *c, uint32_t r) {
    const plan_buf *b = tr_leaf_buf(c, r);
    return (tr_range){b->start, (uint64_t)b->end + 1};
}

static inline uint32_t tr_nkr(const tr_node *n) {
    return n->w & TR_NKR;
}

/* The interval index of TemporalSplit id (valid until the arena grows). */
static inline tr_kre *tr_kr(tr_ctx *c, uint32_t id) {
    tr_node *n = &c->nodes[id];
    return n->w & TR_F_SPILL ? (tr_kre *)(void *)c->kra.base + n->u.sp.off
                             : &n->u.in;
}

static inline const tr_kre *tr_ckr(const tr_ctx *c, uint32_t id) {
    const tr_node *n = &c->nodes[id];
    return n->w & TR_F_SPILL
               ? (const tr_kre *)(const void *)c->kra.base + n->u.sp.off
               : &n->u.in;
}

/* The chain child SS_j of chain TemporalSplit id = TS_j (j >= 1) of the
 * pool searched (c->cur), whose ranges its index leaves to the chain
 * index; UINT32_MAX for any other node.  A TemporalSplit's children are
 * the children its index names and this one: no list of them is kept
 * (appending to one in the cold twin was a miss per placement). */
static inline uint32_t tr_implicit(const tr_ctx *c, uint32_t id) {
    const tr_node *n = &c->nodes[id];
    if ((n->w & (TR_F_CHAIN | TR_F_SS)) != TR_F_CHAIN || c->cold[id].lvl < 2)
        return UINT32_MAX;
    return c->cur->ch.lv[c->cold[id].lvl - 1].ss;
}

/* The children of TemporalSplit id, in order: the kids of its nk index
 * entries kr (a child comes once per piece of its time set), then its
 * chain child imp (tr_implicit; UINT32_MAX: none). */
typedef struct tr_kids {
    const tr_kre *kr;
    uint32_t nk, imp;
} tr_kids;

static inline tr_kids tr_kids_of(const tr_ctx *c, uint32_t id) {
    return (tr_kids){tr_ckr(c, id), tr_nkr(&c->nodes[id]), tr_implicit(c, id)};
}

/* Child i of k; UINT32_MAX past the last. */
static inline uint32_t tr_kid(const tr_kids *k, uint32_t i) {
    return i < k->nk ? k->kr[i].kid : i == k->nk ? k->imp : UINT32_MAX;
}

static inline uint32_t *tr_fwd(tr_ctx *c, uint32_t r) {
    return r & TR_LEAF ? &c->lfwd[r & ~TR_LEAF] : &c->cold[r].fwd;
}

/* ---- the node store and the interval indexes (planner/tree_ix.c) ---- */

/* Grows *p (of *cap elements of size sz) to hold at least need; false
 * (and oom flagged) when out of memory. */
bool tr_grow(tr_ctx *c, void **p, uint32_t *cap, uint32_t need, size_t sz);

/* Room for cap nodes (tr_new grows the arrays by doubling, each growth a
 * copy); false (and oom flagged) when out of memory. */
bool tr_reserve(tr_ctx *c, uint32_t cap);

/* Room for one more node; false (and oom flagged) when out of memory. */
bool tr_new_room(tr_ctx *c);

/* A new node: a SpatialSplit (ss) or a TemporalSplit with no children
 * (an Empty of hint 0) and no dead interval; UINT32_MAX when out of
 * memory.  Inline: three a block. */
static inline uint32_t tr_new(tr_ctx *c, bool ss) {
    if ((c->nnodes == c->capnodes || c->nnodes >= TR_LEAF - 1) &&
        !tr_new_room(c))
        return UINT32_MAX;
    tr_node *n = &c->nodes[c->nnodes];
    *n = (tr_node){.w = ss ? TR_F_SS : 0, .dlo = 1}; /* no dead interval */
    c->cold[c->nnodes] = (tr_cold){0};
    return c->nnodes++;
}

/* The first index entry of TemporalSplit id that ends after t. */
uint32_t tr_kr_after(const tr_ctx *c, uint32_t id, uint64_t t);

/* Adds range r of child kid to the index of TemporalSplit id, merged with
 * the entries of the same child it overlaps or touches (no other
 * child's range overlaps it); i is tr_kr_after(r.begin).  O(1) when an
 * entry holds r already (returns false: nothing changed), else a memmove
 * when r is new.  Inline here when r is the first entry (a new
 * TemporalSplit) or only widens a lone inline entry (the common case on a
 * search's way back up); tr_kr_add_ix otherwise. */
bool tr_kr_add_ix(tr_ctx *c, uint32_t id, tr_range r, uint32_t kid, uint32_t i);

static inline bool tr_kr_add_at(tr_ctx *c, uint32_t id, tr_range r,
                                uint32_t kid, uint32_t i) {
    tr_node *n = &c->nodes[id];
    tr_kre *e = &n->u.in;
    if (!(n->w & (TR_F_SPILL | TR_NKR))) { /* the first entry */
        *e = (tr_kre){(uint32_t)r.begin, (uint32_t)(r.end - 1), kid};
        n->w |= 1;
        return true;
    }
    if ((n->w & (TR_F_SPILL | TR_NKR)) != 1 || e->kid != kid || e->lo > r.end ||
        (uint64_t)e->hi + 1 < r.begin)
        return tr_kr_add_ix(c, id, r, kid, i);
    /* the inline entry of the same child, which r overlaps or touches */
    bool grew = r.begin < e->lo || r.end > (uint64_t)e->hi + 1;
    if (r.begin < e->lo)
        e->lo = (uint32_t)r.begin;
    if (r.end > (uint64_t)e->hi + 1)
        e->hi = (uint32_t)(r.end - 1);
    return grew;
}

/* tr_kr_add_at at the entry tr_kr_after(r.begin). */
void tr_kr_add(tr_ctx *c, uint32_t id, tr_range r, uint32_t kid);

/* The children of TemporalSplit id that overlap b: their number (0, 1,
 * or 2 for "more than one"), the first one, and *pos, the first entry
 * that ends after b.begin.  Inline here for an inline index (at most one
 * entry: most TemporalSplits); tr_kr_overlaps_ix for a spilled one. */
uint32_t tr_kr_overlaps_ix(const tr_ctx *c, uint32_t id, tr_range b,
                           uint32_t *ov, uint32_t *pos);

static inline uint32_t tr_kr_overlaps(const tr_ctx *c, uint32_t id, tr_range b,
                                      uint32_t *ov, uint32_t *pos) {
    const tr_node *n = &c->nodes[id];
    if (n->w & TR_F_SPILL)
        return tr_kr_overlaps_ix(c, id, b, ov, pos);
    /* at most one entry, inline */
    const tr_kre *e = &n->u.in;
    bool one = tr_nkr(n) == 1;
    *pos = one && (uint64_t)e->hi < b.begin;
    if (!one || *pos || e->lo >= b.end)
        return 0;
    *ov = e->kid;
    return 1;
}

/* Before a chain is dropped: the index of each of its TemporalSplits
 * TS_j (j >= 1), which leaves out its chain child SS_j (tree.c,
 * "chains"), gets SS_j's ranges back: those of TS_{j-1} and of SS_j's
 * right side. */
void tr_chain_restore(tr_ctx *c, const tr_chain *ch);

/* The offset and pool p of every leaf under node root, and root's
 * symbolic (final) size into *size (planner/tree_fin.c).  0 or -1 (out
 * of memory). */
int tr_finalize(tr_ctx *c, uint32_t root, uint32_t p, uint32_t *subpool,
                uint64_t *size);

/* The offset and pool of every leaf and the pool's size from what the
 * search noted at each placement, when the problem allows it (one pool,
 * no padding, every size a multiple of the alignment): false when it
 * does not, and tr_finalize must walk the tree (planner/tree_fin.c). */
bool tr_fin_fast(tr_ctx *c, const tr_pool *p, uint32_t np, uint32_t nplaced,
                 uint64_t *size);

/* The placement order of the nm buffers of idx (descending size when dir
 * < 0, ascending when dir > 0; longer first on ties; stable).  0 or -1. */
int tr_order(const plan_buf *bufs, uint32_t *idx, uint32_t n, int dir);

#endif

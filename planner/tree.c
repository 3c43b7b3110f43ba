/*
 * planner/tree.c - `tree`: PyTorch Inductor's AllocationTree pools
 * (torch/_inductor/codegen/memory_planning.py).
 *
 * Each pool is a tree.  A TemporalSplit holds children that are disjoint
 * in time and share the same bytes; a SpatialSplit places its right
 * TemporalSplit after its (aligned) left one.  Blocks are placed largest
 * first (outputs first, smallest first); a block enters a TemporalSplit
 * when it overlaps at most one child (recursing into it) and fits the
 * slot, leaving the remainder as an Empty; only the right side of a
 * SpatialSplit, and only the last pool, may grow.  A block that no pool
 * takes goes at the end of the last pool (allocate_at_end) or, when that
 * pool cannot grow, into a new pool.  Live ranges are half-open
 * [start, end + 1), so Inductor's overlap test `left.end > right.begin`
 * is the inclusive overlap of plan_buf intervals.  Sizes and offsets use
 * the pool alignment as Inductor's ALIGN_BYTES (64).
 *
 * Faithful to the conformance cases MP-1..MP-10, MP-13, CB-1 and CB-2
 * of docs/planning.md (tests/planner/test_tree.c), and checked against a
 * plain transcription of Inductor's algorithm on random instances
 * (tests/planner/test_tree_diff.c).  Inductor recomputes a node's merged
 * live ranges from its children after every allocation (sorting them:
 * quadratic); here only TemporalSplits keep ranges, as an interval index
 * of their children's ranges (the children are disjoint in time), so the
 * children a block overlaps are found by binary search, and the way back
 * up from a placement costs O(1) per level.  A dead interval per node
 * (tr_dead_hit) stops descents that must fail: with every buffer live at
 * once a block fails at the root instead of walking the whole tree.  The
 * search runs on an explicit stack, so no tree depth can overflow the C
 * stack.  allocate_at_end stacks a level per pool growth (about 100 at
 * 10^5 buffers); a search jumps over the levels it would only pass
 * through (see "chains").  What remains per block is the depth it
 * descends inside one level (trying the spatial slots of the region it
 * lands in, left side first: 10 to 21 frames per block on the bench
 * data), each a likely cache miss at 10^5 buffers; so a node is 32 bytes
 * (tree_ix.h: leaves and Empties have none, the fields a descent does not
 * read live in a cold twin, a TemporalSplit's only index entry inline,
 * and no list of a TemporalSplit's children: its index names them,
 * tr_implicit), a
 * SpatialSplit shares a cache line with its right side (tr_ss_create)
 * and remembers a node further down to prefetch (tr_pf_note), and
 * symbolic sizes are computed once at the end (tr_finalize, in
 * tree_fin.c), or not at all in the common case, where the search fixes
 * each block's offset as it places it (tr_fin_fast).  The large arrays
 * (nodes and their cold twins, the index arenas, the placement record,
 * tr_order's words) come from base_huge_alloc, on huge pages where the
 * system gives them: with 4 KiB pages their first touches were a fifth
 * of the time.  At 10^5 buffers `tree` takes 5x to 7x naive's time
 * sparse and 6.4x to 8x dense, by machine (the target is 5x;
 * docs/planning.md, `tree`, Limits): what remains is the walk itself,
 * about 3,900 instructions a block dense, its node loads, branches and
 * index searches each measured to bound what a change there can gain.
 * `tree` stays a compatibility mode, not the fast path.
 *
 * Every split is aligned to the largest alignment of the problem, so with
 * huge buffer alignments (2^60 and up) the tree can need far more than
 * the naive plan: its sizes and offsets saturate at UINT64_MAX instead of
 * wrapping, and plan_tree falls back to the naive plan when the tree's
 * pool would pass PLAN_MAX_POOL_SIZE.
 */
#include "plan_internal.h"
#include "tree_chain.h"

#include <stdlib.h>
#include <string.h>

/* The dead interval [*lo, *hi] of node r (a leaf: its live range; a
 * SpatialSplit: the intersection of its left side's, which it keeps, and
 * its right side's; see "dead intervals"). */
static void tr_dead_of(const tr_ctx *c, uint32_t r, uint32_t *lo,
                       uint32_t *hi) {
    if (r & TR_LEAF) {
        *lo = tr_leaf_buf(c, r)->start;
        *hi = tr_leaf_buf(c, r)->end;
        return;
    }
    const tr_node *n = &c->nodes[r];
    *lo = n->dlo;
    *hi = n->dhi;
    if (n->w & TR_F_SS) {
        const tr_node *rt = &c->nodes[n->u.ss.right];
        *lo = rt->dlo > *lo ? rt->dlo : *lo;
        *hi = rt->dhi < *hi ? rt->dhi : *hi;
    }
}

/* Recomputes the hint of node id from its children (O(1), or
 * O(children) for a TemporalSplit).  Symbolic sizes decide nothing
 * during the search: tr_finalize computes them once at the end. */
TR_NOINLINE static void tr_refresh(tr_ctx *c, uint32_t id) {
    tr_node *n = &c->nodes[id];
    if (n->w & TR_F_SS) {
        uint32_t l = n->u.ss.left, r = n->u.ss.right;
        n->hint = tr_add(tr_align(tr_hint(c, l), c->align), tr_hint(c, r));
        return;
    }
    tr_kids k = tr_kids_of(c, id);
    n->hint = 0;
    for (uint32_t i = 0, r; (r = tr_kid(&k, i)) != UINT32_MAX; i++) {
        uint64_t h = tr_hint(c, r);
        if (h > n->hint)
            n->hint = h;
    }
}

/* A TemporalSplit after child kid grew (or was added): its values only
 * ever grow, so the maximum is updated in O(1). */
static void tr_ts_grew(tr_ctx *c, uint32_t id, uint32_t kid) {
    uint64_t h = tr_hint(c, kid);
    if (h > c->nodes[id].hint)
        c->nodes[id].hint = h;
}

/* ---- dead intervals ----
 * Every node keeps one time interval inside its live ranges such that a
 * block overlapping it fails there: a leaf's own range (a block that
 * overlaps a leaf child fails); for a TemporalSplit the longest of its
 * children's (the block overlaps that child: either more than one child,
 * or it descends into that one and fails there); for a SpatialSplit the
 * intersection of its two sides' (both fail).  Placing a block only adds
 * to these sets, so an interval stays valid, and an update keeps the old
 * one unless a child offers a longer one; only padding (tr_pad) turns
 * children into SpatialSplits with an Empty side, and then the path is
 * recomputed.  A SpatialSplit keeps its left side's interval (its own is
 * the intersection with its right side's, tr_dead_of): a block that hits
 * it goes to the right side without loading the left.  The check only
 * skips descents that fail anyway: the
 * offsets are unchanged, and a block that cannot go anywhere in a deep
 * tree (every buffer live at once) fails at the root in O(1). */

static uint64_t tr_dlen(uint32_t lo, uint32_t hi) {
    return lo <= hi ? (uint64_t)hi - lo + 1 : 0;
}

static bool tr_dead_hit(const tr_node *n, tr_range r) {
    return n->dlo <= n->dhi && r.begin <= n->dhi && n->dlo < r.end;
}

/* SpatialSplit id keeps its left side's dead interval. */
static void tr_dead_ss(tr_ctx *c, uint32_t id) {
    tr_node *n = &c->nodes[id];
    const tr_node *l = &c->nodes[n->u.ss.left];
    n->dlo = l->dlo;
    n->dhi = l->dhi;
}

/* TemporalSplit id after padding: its dead interval recomputed over
 * every child. */
TR_NOINLINE static void tr_dead_ts_full(tr_ctx *c, uint32_t id) {
    tr_node *n = &c->nodes[id];
    uint32_t lo, hi;
    n->dlo = 1;
    n->dhi = 0;
    tr_kids k = tr_kids_of(c, id);
    for (uint32_t i = 0, r; (r = tr_kid(&k, i)) != UINT32_MAX; i++) {
        tr_dead_of(c, r, &lo, &hi);
        if (tr_dlen(lo, hi) > tr_dlen(n->dlo, n->dhi)) {
            n->dlo = lo;
            n->dhi = hi;
        }
    }
}

/* TemporalSplit id after child kid changed; full: recompute over every
 * child (after padding). */
static inline void tr_dead_ts(tr_ctx *c, uint32_t id, uint32_t kid, bool full) {
    if (full) {
        tr_dead_ts_full(c, id);
        return;
    }
    tr_node *n = &c->nodes[id];
    uint32_t lo, hi;
    tr_dead_of(c, kid, &lo, &hi);
    if (tr_dlen(lo, hi) > tr_dlen(n->dlo, n->dhi)) {
        n->dlo = lo;
        n->dhi = hi;
    }
}

/* A new TemporalSplit of one child (its index is filled by the caller). */
static inline uint32_t tr_ts1(tr_ctx *c, uint32_t kid) {
    uint32_t t = tr_new(c, false);
    if (t == UINT32_MAX)
        return t;
    c->nodes[t].hint = tr_hint(c, kid);
    tr_dead_ts(c, t, kid, false);
    return t;
}

/* SpatialSplit.create(kid, extra) = SS(TS([kid]), TS([Empty(extra)])); the
 * left TS's index is filled by the caller.  Returns the SS. */
static uint32_t tr_ss_create(tr_ctx *c, uint32_t kid, uint64_t extra) {
    /* the SS and its right side in one cache line (tr_grow_nodes): a
     * search that skips the left side reads one line for both */
    bool odd = c->nnodes & 1;
    uint32_t l = odd ? tr_ts1(c, kid) : UINT32_MAX;
    uint32_t r = tr_new(c, false), s = tr_new(c, true);
    if (!odd)
        l = tr_ts1(c, kid);
    if (l == UINT32_MAX || r == UINT32_MAX || s == UINT32_MAX)
        return UINT32_MAX;
    c->nodes[r].hint = extra; /* the Empty's; its symbolic size is 0 */
    c->nodes[s].u.ss.left = l;
    c->nodes[s].u.ss.right = r;
    /* tr_refresh's sum, the sides' hints at hand */
    c->nodes[s].hint = tr_add(tr_align(c->nodes[l].hint, c->align), extra);
    tr_dead_ss(c, s);
    return s;
}

/* Padding: every child of TemporalSplit id (named by its index: a
 * chain's gave its chain child back, tr_chain_restore) becomes
 * SS(TS([child]), TS([Empty(extra)])); the entries of id's index go to
 * the new left TemporalSplits (a child's ranges are its entries) and then
 * name the new SpatialSplits.  O(entries). */
static void tr_pad(tr_ctx *c, uint32_t id, uint64_t extra) {
    uint32_t n0 = c->nnodes; /* a child padded here forwards past n0 */
    for (uint32_t i = 0; i < tr_nkr(&c->nodes[id]); i++) {
        uint32_t old = tr_kr(c, id)[i].kid;
        if (*tr_fwd(c, old) >= n0)
            continue; /* an earlier entry of the same child */
        uint32_t s = tr_ss_create(c, old, extra);
        if (s == UINT32_MAX)
            return; /* oom flagged */
        *tr_fwd(c, old) = s;
    }
    for (uint32_t i = 0; i < tr_nkr(&c->nodes[id]) && !c->oom; i++) {
        tr_kre e = tr_kr(c, id)[i];
        uint32_t s = *tr_fwd(c, e.kid);
        tr_kr_add(c, c->nodes[s].u.ss.left,
                  (tr_range){e.lo, (uint64_t)e.hi + 1}, e.kid);
        tr_kr(c, id)[i].kid = s;
    }
}

/* ---- chains ----
 * allocate_at_end stacks a level per pool growth: root = TS([SS(root,
 * TS([block]))]).  A pool's chain is its TemporalSplits TS_0 (the first
 * root) .. TS_k (the root); TS_j (j >= 1) has the chain child SS_j =
 * SS(TS_{j-1}, right side).  A search passes level j < k (not last) when
 * the block fits TS_j's hint and overlaps only SS_j there; passing was 90%
 * of the search, so the first level that does not pass is found directly:
 * hints only shrink going down (binary search); `own` gives per time the
 * level of the non-chain child holding it (such children are disjoint in
 * time, across levels too), so the highest level whose non-chain children
 * the block overlaps is a range max; `low` gives per time the lowest l
 * with SS_l holding it (SS_l holds SS_{l-1}), so the block overlaps SS_j
 * exactly when j >= that range min.  Ranges only grow, and the way back
 * up from a placement updates every node whose ranges grow (one that does
 * not change held the block's range already), so the indexes are updated
 * there.  Dead intervals of skipped levels are not checked: they only cut
 * descents that fail anyway, and a failure changes nothing.  After a
 * failure the right sides of the levels passed are tried bottom up, as
 * the plain search does.  TS_j's own index leaves out SS_j (tr_implicit):
 * SS_j spans the whole time axis in pieces, and keeping them sorted cost
 * a memmove of O(n) entries per block (a third of the time at 10^6
 * sparse buffers); `low` answers whether the block overlaps SS_j.  The
 * time sets of chain nodes are kept by the chain index alone (every
 * ancestor of a chain node is one), so once the block's lowest chain SS
 * has noted its range the way up stops at the first chain TemporalSplit
 * whose values do not change, whether or not its time set grew (it used
 * to climb on to the root when SS_j had not held the block's range: 2.4
 * levels a block for nothing on sparse data).  Padding a chain's
 * TemporalSplit (only the root, when last; the placement orders never
 * make a root smaller than a block) gives those indexes SS_j back
 * (tr_chain_restore) and drops the chain; the next growth starts a new
 * one.  A chain
 * costs O(time axis) memory; only pools that grow at the end have one
 * (at most two: the outputs' and the last). */

/* The max of each field of the chain index of the pool searched over
 * block range br and the min of field TR_LOW (tr_seg_query), queried
 * once per search: the maxima change only once the block is placed, the
 * min only when the block's lowest chain SS learns its range
 * (tr_chain_note, which reads it just before). */
static const uint32_t *tr_chain_q(tr_ctx *c, tr_range br) {
    if (!c->q_ok) {
        uint32_t l, h;
        tr_ix_span(c, br, &l, &h);
        tr_seg_query(&c->cur->ch.ix, l, h, c->q);
        c->q_ok = true;
    }
    return c->q;
}

/* Chain node id (of the pool searched) after block range br entered it,
 * through its child kid: the indexes learn br. */
static void tr_chain_note(tr_ctx *c, uint32_t id, uint32_t kid, tr_range br) {
    tr_chain *ch = &c->cur->ch;
    uint32_t lv = c->cold[id].lvl - 1, l, h;
    bool ss = tr_is_ss(c, id);
    if (ss ? c->low_done : lv > 0 && kid == ch->lv[lv].ss)
        return;
    if (ss) { /* the way up meets the lowest chain SS first */
        uint32_t m = tr_chain_q(c, br)[2]; /* before it learns br */
        c->low_done = true;
        if (m >= UINT32_MAX - lv)
            return; /* every time of br is held at level lv or below */
        tr_ix_span(c, br, &l, &h);
        tr_seg_chmax(&ch->ix, TR_LOW, l, h, UINT32_MAX - lv);
    } else {
        tr_ix_span(c, br, &l, &h);
        tr_seg_chmax(&ch->ix, TR_OWN, l, h, lv + 1);
    }
}

/* The hint of chain level l's TemporalSplit. */
static uint64_t tr_lv_hint(const tr_ctx *c, const tr_chain *ch, uint32_t l) {
    return c->nodes[ch->lv[l].ts].hint;
}

/* The first level below j (passed into SS_j) that block does not pass. */
static uint32_t tr_chain_stop(tr_ctx *c, uint32_t j, uint32_t block) {
    tr_chain *ch = &c->cur->ch;
    uint64_t b = tr_hint(c, block);
    if (tr_lv_hint(c, ch, j - 1) < b)
        return j - 1;
    const uint32_t *m = tr_chain_q(c, tr_live(c, block));
    uint32_t own = m[TR_OWN], low = m[TR_LOW];
    if (low == 0)
        return j - 1;
    /* the lowest level whose hint fits b (hints grow going up), walked to
     * from the last answer: the blocks that search a pool come in
     * descending size (outputs never do) and hints only grow, so the
     * answer only moves down, O(levels) in all (a binary search was
     * about seven dependent loads a block) */
    uint32_t lo = ch->fit < j - 1 ? ch->fit : j - 1;
    while (tr_lv_hint(c, ch, lo) < b)
        lo++;
    while (lo > 0 && tr_lv_hint(c, ch, lo - 1) >= b)
        lo--;
    ch->fit = lo;
    uint32_t s = UINT32_MAX - low - 1; /* below SS's reach */
    if (own > s + 1)
        s = own - 1;
    if (lo > s + 1)
        s = lo - 1;
    return s < j - 1 ? s : j - 1;
}

/* The block overlaps no child of TemporalSplit id: it becomes a child of
 * its own (in an SS with the rest of the slot as Empty when smaller; the
 * other children padded with Empty when larger); pos is the index entry
 * tr_ts_enter found (tr_kr_overlaps), where its range goes.  Returns
 * whether the other children were padded (the dead intervals of the path
 * shrink). */
static bool tr_ts_add(tr_ctx *c, uint32_t id, uint32_t block, uint64_t slot,
                      uint64_t b, uint32_t pos) {
    /* full: an Empty (off a chain, which always holds its chain child, a
     * TemporalSplit's children are those its index names) */
    const tr_node *n = &c->nodes[id];
    bool full = !(n->w & TR_F_CHAIN) && tr_nkr(n) == 0, padded = false;
    tr_range br = tr_live(c, block);
    uint32_t kid = block;
    if (slot > b) {
        kid = tr_ss_create(c, block, slot - b);
        if (kid != UINT32_MAX) /* the new left side's first entry */
            (void)tr_kr_add_at(c, c->nodes[kid].u.ss.left, br, block, 0);
    } else if (slot < b) {
        if (c->nodes[id].w & TR_F_CHAIN) /* the chain is dropped below */
            tr_chain_restore(c, &c->cur->ch);
        tr_pad(c, id, b - slot);
        full = padded = true;
    }
    if (kid == UINT32_MAX) /* its index names it (tr_implicit) */
        return padded;
    if (padded) /* the index may have changed (tr_chain_restore) */
        tr_kr_add(c, id, br, kid);
    else
        (void)tr_kr_add_at(c, id, br, kid, pos);
    bool chain = c->nodes[id].w & TR_F_CHAIN;
    if (chain && padded)
        tr_chain_drop(c, &c->cur->ch);
    else if (chain)
        tr_chain_note(c, id, kid, br);
    if (full && !padded) { /* its only child */
        c->nodes[id].hint = tr_hint(c, kid);
    } else if (full) {
        tr_refresh(c, id);
    } else {
        tr_ts_grew(c, id, kid);
    }
    tr_dead_ts(c, id, kid, padded);
    return padded;
}

/* Pushes a frame for node id at offset off of level code lv (tr_frame);
 * false when out of memory. */
static bool tr_enter(tr_ctx *c, uint32_t *sp, uint32_t id, bool is_last,
                     uint64_t off, uint32_t lv) {
    if (*sp == c->capstk) {
        void *p = c->stk;
        if (!tr_grow(c, &p, &c->capstk, *sp + 1, sizeof *c->stk))
            return false;
        c->stk = p;
    }
    c->stk[(*sp)++] = (tr_frame){id, 0, 0, (uint8_t)is_last, 0, 0, lv, off};
    return true;
}

/* Whether chain SpatialSplit ss (of the pool searched) overlaps br. */
static bool tr_chain_holds(tr_ctx *c, uint32_t ss, tr_range br) {
    const uint32_t *m = tr_chain_q(c, br);
    return m[TR_LOW] && UINT32_MAX - m[TR_LOW] <= c->cold[ss].lvl - 1;
}

/* The offset (*off) and level code (*lv) of the right side of
 * SpatialSplit id, from its own (tr_frame): its left side's hint further,
 * which is the left side's final size unless the left side is a chain
 * level (its size is known at the end) or made by padding (tr_fin_fast
 * then gives way to tr_finalize). */
static void tr_right_at(const tr_ctx *c, uint32_t id, uint64_t *off,
                        uint32_t *lv) {
    const tr_node *n = &c->nodes[id];
    if (n->w & TR_F_CHAIN) {
        *off = 0;
        *lv = (c->cold[id].lvl - 1) | TR_REL;
        return;
    }
    *off += n->hint - c->nodes[n->u.ss.right].hint;
}

/* TemporalSplit frame f (chain: it was on its pool's chain) padded its
 * children: tr_fin_fast walks it at the end (the left sides padding
 * made may end short of their hints), or, for a chain, the whole tree. */
static void tr_pad_note(tr_ctx *c, const tr_frame *f, bool chain) {
    void *a = c->pads;
    c->slow |= chain;
    if (chain || !tr_grow(c, &a, &c->cappads, c->npads + 1, sizeof *c->pads))
        return; /* out of memory flagged */
    c->pads = a;
    c->pads[c->npads++] = (tr_padrec){f->id, f->lv, f->off};
}

/* First visit of TemporalSplit frame f by block (of size hint b and live
 * range br, read once per search): 0 the block fails here, 1 it was
 * placed here (2 when it padded its children), 3 descend into f->ov. */
static int tr_ts_enter(tr_ctx *c, tr_frame *f, uint32_t block, uint64_t b,
                       tr_range br) {
    const tr_node *n = &c->nodes[f->id];
    uint64_t slot = n->hint;
    if ((!f->is_last && b > slot) || tr_dead_hit(n, br))
        return 0;
    if (n->w & TR_F_CHAIN) /* at offset 0 */
        f->lv = c->cold[f->id].lvl - 1;
    uint32_t ov = 0, nov = tr_kr_overlaps(c, f->id, br, &ov, &f->pos);
    uint32_t imp = nov < 2 ? tr_implicit(c, f->id) : UINT32_MAX;
    if (imp != UINT32_MAX && tr_chain_holds(c, imp, br)) {
        ov = nov ? ov : imp;
        nov++;
    }
    if (nov > 1 || (nov == 1 && (ov & TR_LEAF)))
        return 0; /* a leaf takes nothing */
    if (nov == 1) {
        f->ov = ov;
        return 3;
    }
    c->up_hint = slot; /* for the parent's update (tr_ss_update) */
    c->placed[c->rank].off = f->off; /* tr_fin_fast */
    c->placed[c->rank].lv = f->lv;
    bool chain = n->w & TR_F_CHAIN;
    if (!tr_ts_add(c, f->id, block, slot, b, f->pos))
        return 1;
    tr_pad_note(c, f, chain);
    return 2;
}

/* The values of a node that its parent reads. */
typedef struct tr_vals {
    uint64_t hint;
    uint32_t dlo, dhi;
} tr_vals;

static tr_vals tr_vals_of(const tr_ctx *c, uint32_t id) {
    const tr_node *n = &c->nodes[id];
    return (tr_vals){n->hint, n->dlo, n->dhi};
}

static bool tr_vals_eq(tr_vals a, tr_vals b) {
    return a.hint == b.hint && a.dlo == b.dlo && a.dhi == b.dhi;
}

/* SpatialSplit frame f after the side it descended into (phase 1: left,
 * 2: right) changed from hint c->up_hint: its hint is that side's aligned
 * hint plus the other's, and the other side's (not loaded: a descent
 * usually skips the left side on its dead interval) is what its own hint
 * held beyond the old one, unless that sum saturated; its dead interval,
 * its left side's, changes only when the block went left.  Other frames
 * (a chain jump's) recompute both. */
static void tr_ss_update(tr_ctx *c, uint32_t id, uint8_t phase) {
    tr_node *n = &c->nodes[id];
    uint64_t h = n->hint, kid = c->up_hint;
    c->up_hint = h;
    if (phase == 2 && h != UINT64_MAX) {
        n->hint = tr_add(h - kid, tr_hint(c, n->u.ss.right));
        return;
    }
    if (phase == 1 && h != UINT64_MAX) {
        uint64_t right = h - tr_align(kid, c->align);
        n->hint = tr_add(tr_align(tr_hint(c, n->u.ss.left), c->align), right);
    } else {
        tr_refresh(c, id);
    }
    tr_dead_ss(c, id);
}

/* Updates SpatialSplit or TemporalSplit frame f after a placement in the
 * child it descended into (which changed); rebuilt: a padding below
 * (recompute the dead intervals).  Returns whether the node may have
 * changed (its values or its live ranges); when a TemporalSplit did
 * not, no ancestor changes either. */
static bool tr_update_ts(tr_ctx *c, const tr_frame *f, tr_range br,
                         bool rebuilt);

/* A SpatialSplit's part of tr_update: always true (its live ranges are
 * its sides': they may grow).  Out of line, apart from the
 * TemporalSplits' part: it keeps few values live, so its calls are
 * cheap. */
TR_NOINLINE static bool tr_update_ss(tr_ctx *c, const tr_frame *f,
                                     tr_range br) {
    if ((c->nodes[f->id].w & TR_F_CHAIN) && !c->low_done)
        tr_chain_note(c, f->id, f->ov, br); /* else it returns at once */
    tr_ss_update(c, f->id, f->phase);
    return true;
}

static bool tr_update(tr_ctx *c, const tr_frame *f, tr_range br, bool rebuilt) {
    return tr_is_ss(c, f->id) ? tr_update_ss(c, f, br)
                              : tr_update_ts(c, f, br, rebuilt);
}

/* The TemporalSplits' part of tr_update. */
TR_NOINLINE static bool tr_update_ts(tr_ctx *c, const tr_frame *f, tr_range br,
                                     bool rebuilt) {
    bool chain = c->nodes[f->id].w & TR_F_CHAIN;
    tr_vals old = tr_vals_of(c, f->id);
    c->up_hint = old.hint;
    tr_ts_grew(c, f->id, f->ov);
    bool grew = false; /* a time set the chain index keeps (SS_j's below
                          noted br) needs no more from the way up */
    if (f->ov != tr_implicit(c, f->id)) {
        grew = tr_kr_add_at(c, f->id, br, f->ov, f->pos);
        if (grew && chain) /* else the chain index holds br already */
            tr_chain_note(c, f->id, f->ov, br);
    }
    tr_dead_ts(c, f->id, f->ov, rebuilt);
    return rebuilt || grew || !tr_vals_eq(old, tr_vals_of(c, f->id));
}

/* A jump's climb after a success below: SS_l, TS_l, SS_l+1, ... SS_hi
 * updated as their own frames would (ph: SS_l's phase, c->up_hint its
 * child's old hint; TS_l leaves SS_l to the chain index, tr_implicit);
 * true when an unchanged TemporalSplit ends the placement. */
TR_NOINLINE static bool tr_jump_climb(tr_ctx *c, uint32_t l, uint32_t hi,
                                      uint8_t ph, tr_range br, bool rebuilt) {
    const tr_chain *ch = &c->cur->ch;
    for (;; l++, ph = 1) {
        uint32_t ss = ch->lv[l].ss, ts = ch->lv[l].ts;
        if (!c->low_done)
            tr_chain_note(c, ss, 0, br);
        tr_ss_update(c, ss, ph);
        if (l == hi)
            return false;
        tr_vals old = tr_vals_of(c, ts); /* tr_update_ts's, without calls */
        c->up_hint = old.hint;
        tr_ts_grew(c, ts, ss);
        tr_dead_ts(c, ts, ss, rebuilt);
        if (!rebuilt && tr_vals_eq(old, tr_vals_of(c, ts)))
            return true;
    }
}

/* TemporalSplit frame f of a chain, about to pass into its chain child:
 * when levels below pass too, pushes a jump frame for the levels passed
 * and a frame for the first one that does not (tr_chain_stop), and
 * returns true; false to descend as usual. */
static bool tr_jump_start(tr_ctx *c, uint32_t *sp, const tr_frame *f,
                          uint32_t block) {
    if (!(c->nodes[f->id].w & TR_F_CHAIN) || tr_is_ss(c, f->id))
        return false;
    uint32_t lvl = c->cold[f->id].lvl;
    if (lvl == 1 || f->ov != c->cur->ch.lv[lvl - 1].ss)
        return false;
    uint32_t j = lvl - 1, s = tr_chain_stop(c, j, block);
    if (s + 1 >= j)
        return false;
    tr_frame jf = {j, s + 1, 0, f->is_last, 0, 1, 0, 0};
    if (!tr_enter(c, sp, 0, false, 0, 0))
        return true; /* oom flagged */
    c->stk[*sp - 1] = jf;
    tr_enter(c, sp, c->cur->ch.lv[s].ts, false, 0, 0);
    return true;
}

/* The jump frame on top of the stack (levels ov..id passed into SS_ov's
 * left side, or trying SS_ov's right side) after the frame above it
 * returned res.  A success updates SS_ov, TS_ov, SS_ov+1, ... as the
 * plain search's frames would, and returns true when an unchanged
 * TemporalSplit ends the placement; a failure tries the next right side
 * up (as SS_l's frame would after its left side failed). */
static bool tr_jump_step(tr_ctx *c, uint32_t *sp, tr_range br, bool res,
                         bool rebuilt) {
    tr_frame *f = &c->stk[*sp - 1];
    const tr_chain *ch = &c->cur->ch;
    uint32_t hi = f->id, l = f->ov;
    if (res) {
        if (tr_jump_climb(c, l, hi, f->phase == 1 ? 2 : 1, br, rebuilt))
            return true;
        (*sp)--;
        return false;
    }
    if (f->phase == 1)
        l++;
    while (l <= hi &&
           tr_dead_hit(&c->nodes[c->nodes[ch->lv[l].ss].u.ss.right], br))
        l++;
    if (l > hi) {
        (*sp)--;
        return false;
    }
    f->ov = l;
    f->phase = 1;
    bool last = l == hi && f->is_last;
    tr_enter(c, sp, c->nodes[ch->lv[l].ss].u.ss.right, last, 0, l | TR_REL);
    return false;
}

/* Frames below this many on the way down are prefetched (tr_pf_note):
 * three levels of a run of SpatialSplits and the right sides they enter
 * (4 and 8 measured slower); and, by a second hint, twice as many (9 and
 * 16 measured slower than 12). */
#define TR_PF_AHEAD 6
#define TR_PF_AHEAD2 12

/* SpatialSplit frame k on the way back up from a placement at depth
 * land: remembers the nodes TR_PF_AHEAD and TR_PF_AHEAD2 frames further
 * down the path, as the nodes to prefetch when a search next enters it
 * (the second in the bits of w that a SpatialSplit does not use,
 * TR_NKR; tree_ix.h).  A descent is a chain of dependent loads (each
 * node names the next); blocks landing in the same region follow the
 * same path, so the hints let the loads of nodes start three and six
 * levels early.  Only hints: a stale one costs a load. */
static void tr_pf_note(tr_ctx *c, uint32_t k, uint32_t land) {
    tr_node *n = &c->nodes[c->stk[k].id];
    if (k + TR_PF_AHEAD < land && !c->stk[k + TR_PF_AHEAD].jump)
        n->u.ss.pf = c->stk[k + TR_PF_AHEAD].id;
    if (k + TR_PF_AHEAD2 >= land)
        return;
    const tr_frame *f = &c->stk[k + TR_PF_AHEAD2];
    if (!f->jump && f->id <= TR_NKR)
        n->w = (n->w & ~(uint32_t)TR_NKR) | f->id;
}

/* Inductor's allocate(block, is_last) on node root, as a depth-first
 * search on an explicit stack (the tree can be as deep as there are
 * blocks): a TemporalSplit takes the block when it overlaps none of its
 * children, or passes it to the one child it overlaps; a SpatialSplit
 * tries its left side (which may not grow), then its right.  On the way
 * back up from a success every node on the path updates its values and
 * index, up to the first that does not change (its ancestors do not
 * either); `rebuilt` carries a padding up so the dead intervals of the
 * path are recomputed.  A failure changes nothing. */
static bool tr_allocate(tr_ctx *c, uint32_t root, uint32_t block,
                        bool is_last) {
    uint32_t sp = 0, land = 0; /* land: the depth of the placement */
    bool res = false, rebuilt = false;
    tr_range br = tr_live(c, block);
    uint64_t b = tr_hint(c, block);
    if (!tr_enter(c, &sp, root, is_last, 0, 0))
        return false;
    while (sp && !c->oom) {
        tr_frame *f = &c->stk[sp - 1];
        if (f->jump) {
            if (tr_jump_step(c, &sp, br, res, rebuilt))
                break;
            continue;
        }
        const tr_node *n = &c->nodes[f->id];
        bool ss = n->w & TR_F_SS;
        if (f->phase > 0 && res) { /* placed below */
            if (ss)
                tr_pf_note(c, sp - 1, land);
            if (!tr_update(c, f, br, rebuilt))
                break;
            sp--;
            continue;
        }
        if (ss) {
            if (f->phase == 0) {
                TR_PREFETCH(&c->nodes[n->u.ss.right]); /* if left fails */
                TR_PREFETCH(&c->nodes[n->u.ss.pf]);
                TR_PREFETCH(&c->nodes[n->w & TR_NKR]); /* node 0: none */
            }
            if (f->phase == 0 && tr_dead_hit(n, br))
                f->phase = 1; /* the left side fails: skip it */
            if (f->phase < 2) {
                uint32_t next = f->phase == 0 ? n->u.ss.left : n->u.ss.right;
                bool last = f->phase == 0 ? false : f->is_last;
                uint64_t off = f->off;
                uint32_t lv = f->lv;
                if (f->phase++ == 1)
                    tr_right_at(c, f->id, &off, &lv);
                tr_enter(c, &sp, next, last, off, lv);
                continue;
            }
            res = false;
        } else if (f->phase > 0) {
            res = false; /* the child it descended into failed */
        } else {
            int r = tr_ts_enter(c, f, block, b, br);
            if (r == 3) {
                f->phase = 1;
                if (!tr_jump_start(c, &sp, f, block))
                    tr_enter(c, &sp, f->ov, f->is_last, f->off, f->lv);
                continue;
            }
            res = r != 0;
            rebuilt = r == 2;
            land = sp;
        }
        sp--;
    }
    return res && !c->oom;
}

/* A new TemporalSplit holding only leaf blk: a pool's first root. */
static uint32_t tr_ts_leaf(tr_ctx *c, uint32_t blk) {
    uint32_t t = tr_ts1(c, blk);
    if (t != UINT32_MAX)
        tr_kr_add(c, t, tr_live(c, blk), blk);
    return t;
}

/* allocate_at_end: root = TS([SS(root, TS([block]))]).  The new root's
 * index is empty: its only child is its chain child (tr_implicit). */
static void tr_at_end(tr_ctx *c, tr_pool *p, uint32_t block) {
    uint32_t r = tr_ts_leaf(c, block);
    uint32_t s = tr_new(c, true);
    if (r == UINT32_MAX || s == UINT32_MAX)
        return;
    c->nodes[s].u.ss.left = p->root;
    c->nodes[s].u.ss.right = r;
    tr_refresh(c, s);
    tr_dead_ss(c, s);
    uint32_t t = tr_ts1(c, s);
    if (t == UINT32_MAX)
        return;
    p->root = t;
    tr_chain_push(c, p, s, t, tr_live(c, block));
    c->placed[c->rank].lv = (p->ch.nlv - 1) | TR_REL; /* tr_fin_fast */
}

static bool tr_pool_allocate(tr_ctx *c, tr_pool *p, uint32_t block,
                             bool is_last) {
    is_last = p->can_expand && is_last;
    c->cur = p;
    c->low_done = false;
    c->q_ok = false;
    if (tr_allocate(c, p->root, block, is_last))
        return true;
    if (is_last && !c->oom) {
        tr_at_end(c, p, block);
        return true;
    }
    return false;
}

int plan_tree_pools(const plan_problem *pb, const bool *is_output,
                    plan_memory_pool mode, uint64_t *offsets, uint32_t *subpool,
                    uint64_t *subpool_size, uint32_t *nsubpools) {
    if (!plan_problem_ok(pb))
        return -1;
    uint32_t n = pb->n;
    tr_ctx c;
    memset(&c, 0, sizeof c);
    c.pb = pb;
    c.offsets = offsets;
    c.align = pb->align ? pb->align : 1;
    for (uint32_t i = 0; i < n; i++)
        if (pb->bufs[i].align > c.align)
            c.align = pb->bufs[i].align;
    tr_arena_init(&c.kra, sizeof(tr_kre));
    int rc = -1;
    uint32_t *outs = malloc(((size_t)n + 1) * sizeof *outs);
    uint32_t *mids = malloc(((size_t)n + 1) * sizeof *mids);
    tr_pool *pools = malloc(((size_t)n + 1) * sizeof *pools);
    c.lfwd = calloc((size_t)n + 1, sizeof *c.lfwd); /* 0: not forwarded */
    c.placed = base_huge_alloc(((size_t)n + 1) * sizeof *c.placed, 16);
    uint32_t no = 0, nm = 0, np = 0;
    /* an index counts its entries in 29 bits: 2^29 buffers and more (tens
     * of GB for this planner) fail as out of memory */
    if (!outs || !mids || !pools || !c.lfwd || !c.placed || n > TR_NKR)
        goto out;
    /* a block makes at most three nodes unless it pads (tr_ss_create),
     * so the arrays rarely grow (a growth copies them) */
    if (!tr_reserve(&c, 3 * n + n / 16 + 64))
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        offsets[i] = 0;
        subpool[i] = pb->bufs[i].size ? 0 : UINT32_MAX; /* see tr_fin_leaf */
        if (pb->bufs[i].size == 0)
            continue;
        if (is_output && is_output[i] && mode != PLAN_MP_COMBINED)
            outs[no++] = i;
        else
            mids[nm++] = i;
    }
    if (tr_order(pb->bufs, outs, no, 1) || tr_order(pb->bufs, mids, nm, -1))
        goto out;
    for (uint32_t k = 0; k < no + nm && !c.oom; k++) {
        bool out_block = k < no;
        uint32_t i = out_block ? outs[k] : mids[k - no];
        uint32_t blk = TR_LEAF | i;
        if (k + 1 < no + nm) /* the next block's buffer, in random order */
            TR_PREFETCH(&pb->bufs[k + 1 < no ? outs[k + 1] : mids[k + 1 - no]]);
        bool placed = false;
        c.placed[k] = (tr_placed){0, 0, i};
        c.rank = k;
        if (out_block) {
            if (np && (mode == PLAN_MP_OUTPUTS || mode == PLAN_MP_COMBINED)) {
                tr_at_end(&c, &pools[np - 1], blk);
                placed = true;
            }
        } else {
            for (uint32_t p = 0; p < np && !placed && !c.oom; p++)
                placed = tr_pool_allocate(&c, &pools[p], blk, p == np - 1);
        }
        if (!placed && !c.oom) {
            uint32_t r = tr_ts_leaf(&c, blk);
            if (r == UINT32_MAX)
                break;
            memset(&pools[np], 0, sizeof pools[np]);
            pools[np].root = r;
            pools[np].can_expand =
                out_block ? mode == PLAN_MP_COMBINED : mode != PLAN_MP_NONE;
            np++;
        }
    }
    if (c.oom)
        goto out;
    /* finalize: which pool holds each leaf, and its offset */
    c.cur = pools; /* tr_implicit's chain: the pool walked */
    bool fast = tr_fin_fast(&c, pools, np, no + nm, subpool_size);
    for (uint32_t p = 0; p < np && !fast; p++) {
        c.cur = &pools[p];
        if (tr_finalize(&c, pools[p].root, p, subpool, &subpool_size[p]) != 0)
            goto out;
    }
    *nsubpools = np;
    rc = 0;
out:
    for (uint32_t p = 0; p < np; p++)
        tr_chain_drop(&c, &pools[p].ch);
    tr_axis_free(&c.axis);
    tr_arena_free(&c.kra);
    free(c.seen);
    free(c.lfwd);
    base_huge_free(c.placed);
    free(c.pads);
    base_huge_free(c.nodes);
    base_huge_free(c.cold);
    free(c.stk);
    free(outs);
    free(mids);
    free(pools);
    return rc;
}

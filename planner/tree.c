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
 * Faithful to the conformance cases MP-1..MP-10, MP-13, CB-1, CB-2 of the
 * design notes (tests/planner/test_layer1.c).  Inductor recomputes a
 * node's merged live ranges from its children after every allocation
 * (sorting them: quadratic); here every node keeps its merged ranges and
 * a block's range is merged in on the way back up (O(log k)), and every
 * TemporalSplit keeps an interval index of its children's ranges (they
 * are disjoint in time), so the children a block overlaps are found by
 * binary search instead of testing each child.  The offsets are the same.
 * The cost per block is still proportional to the depth of the tree it
 * descends (allocate_at_end stacks a new level per pool growth), so
 * `tree` stays a compatibility mode, not the fast path.
 *
 * Every split is aligned to the largest alignment of the problem, so with
 * huge buffer alignments (2^60 and up) the tree can need far more than
 * the naive plan: its sizes and offsets saturate at UINT64_MAX instead of
 * wrapping, and plan_tree falls back to the naive plan when the tree's
 * pool would pass PLAN_MAX_POOL_SIZE.
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef enum tr_kind { TR_ALLOC, TR_EMPTY, TR_TS, TR_SS } tr_kind;

typedef struct tr_range {
    uint64_t begin, end; /* half-open */
} tr_range;

typedef struct tr_node {
    tr_kind kind;
    uint32_t buf;   /* TR_ALLOC */
    uint64_t size;  /* TR_ALLOC, TR_EMPTY */
    uint32_t *kids; /* TR_TS */
    uint32_t nkids, capkids;
    uint32_t left, right; /* TR_SS */
    uint64_t hint, sym;
    tr_range *rng; /* the union of the leaves' live ranges, sorted, merged */
    uint32_t nrng, caprng;
    /* TR_TS: the ranges of every child, sorted, each with its child (the
     * children are disjoint in time): the interval index that finds the
     * children a block overlaps in O(log k) */
    struct tr_kr *kr;
    uint32_t nkr, capkr;
    uint32_t fwd; /* the SS that replaced this child (tr_ts_add) */
} tr_node;

typedef struct tr_kr {
    uint64_t begin, end;
    uint32_t kid;
} tr_kr;

typedef struct tr_ctx {
    const plan_problem *pb;
    uint64_t align;
    tr_node *nodes;
    uint32_t nnodes, capnodes;
    bool oom;
    uint64_t *offsets;
} tr_ctx;

/* a + b, saturating at UINT64_MAX. */
static uint64_t tr_add(uint64_t a, uint64_t b) {
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* v rounded up to a multiple of a, saturating at UINT64_MAX (where
 * plan_align_up would round down). */
static uint64_t tr_align(uint64_t v, uint64_t a) {
    uint64_t r = plan_align_up(v, a);
    return r < v ? UINT64_MAX : r;
}

static uint32_t tr_new(tr_ctx *c, tr_kind kind) {
    if (c->nnodes == c->capnodes) {
        uint32_t cap = c->capnodes ? c->capnodes * 2 : 64;
        tr_node *nn = realloc(c->nodes, cap * sizeof *nn);
        if (!nn) {
            c->oom = true;
            return UINT32_MAX;
        }
        c->nodes = nn;
        c->capnodes = cap;
    }
    tr_node *n = &c->nodes[c->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return c->nnodes++;
}

static bool tr_push(tr_ctx *c, uint32_t ts, uint32_t kid) {
    tr_node *n = &c->nodes[ts];
    if (n->nkids == n->capkids) {
        uint32_t cap = n->capkids ? n->capkids * 2 : 4;
        uint32_t *nk = realloc(n->kids, cap * sizeof *nk);
        if (!nk) {
            c->oom = true;
            return false;
        }
        n->kids = nk;
        n->capkids = cap;
    }
    n->kids[n->nkids++] = kid;
    return true;
}

/* The first range of node id that ends after t (binary search). */
static uint32_t tr_first_after(const tr_node *n, uint64_t t) {
    uint32_t lo = 0, hi = n->nrng;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (n->rng[mid].end <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Adds r to the live ranges of node id, merging it with the ranges it
 * overlaps or touches (Inductor merges touching ranges too).  O(log k)
 * plus the ranges merged away, or a memmove when r is new. */
static void tr_union(tr_ctx *c, uint32_t id, tr_range r) {
    tr_node *n = &c->nodes[id];
    uint32_t i = tr_first_after(n, r.begin);
    if (i > 0 && n->rng[i - 1].end == r.begin)
        i--; /* touches the range before */
    uint32_t j = i;
    while (j < n->nrng && n->rng[j].begin <= r.end) {
        if (n->rng[j].begin < r.begin)
            r.begin = n->rng[j].begin;
        if (n->rng[j].end > r.end)
            r.end = n->rng[j].end;
        j++;
    }
    if (j == i) { /* nothing to merge: insert */
        if (n->nrng == n->caprng) {
            uint32_t cap = n->caprng ? 2 * n->caprng : 2;
            tr_range *nr = realloc(n->rng, cap * sizeof *nr);
            if (!nr) {
                c->oom = true;
                return;
            }
            n->rng = nr;
            n->caprng = cap;
        }
        memmove(n->rng + i + 1, n->rng + i, (n->nrng - i) * sizeof *n->rng);
        n->nrng++;
    } else if (j > i + 1) {
        memmove(n->rng + i + 1, n->rng + j, (n->nrng - j) * sizeof *n->rng);
        n->nrng -= j - i - 1;
    }
    n->rng[i] = r;
}

/* Node id gets the live ranges of node from (a new node's first fill). */
static void tr_copy_ranges(tr_ctx *c, uint32_t id, uint32_t from) {
    uint32_t k = c->nodes[from].nrng;
    tr_range *r = k ? malloc(k * sizeof *r) : NULL;
    if (k && !r) {
        c->oom = true;
        return;
    }
    if (k)
        memcpy(r, c->nodes[from].rng, k * sizeof *r);
    free(c->nodes[id].rng);
    c->nodes[id].rng = r;
    c->nodes[id].nrng = c->nodes[id].caprng = k;
}

/* Recomputes the hint and symbolic size of node id from its children
 * (O(1), or O(children) for a TemporalSplit). */
static void tr_refresh(tr_ctx *c, uint32_t id) {
    tr_node *n = &c->nodes[id];
    switch (n->kind) {
    case TR_ALLOC:
        n->hint = n->sym = n->size;
        break;
    case TR_EMPTY:
        n->hint = n->size;
        n->sym = 0;
        break;
    case TR_TS:
        n->hint = n->sym = 0;
        for (uint32_t i = 0; i < n->nkids; i++) {
            const tr_node *ch = &c->nodes[n->kids[i]];
            if (ch->hint > n->hint)
                n->hint = ch->hint;
            if (ch->sym > n->sym)
                n->sym = ch->sym;
        }
        break;
    case TR_SS: {
        const tr_node *l = &c->nodes[n->left], *rt = &c->nodes[n->right];
        n->hint = tr_add(tr_align(l->hint, c->align), rt->hint);
        n->sym = tr_add(tr_align(l->sym, c->align), rt->sym);
        break;
    }
    }
}

/* A TemporalSplit after child kid grew: its values only ever grow, so the
 * maximum is updated in O(1). */
static void tr_ts_grew(tr_ctx *c, uint32_t id, uint32_t kid) {
    tr_node *n = &c->nodes[id];
    const tr_node *ch = &c->nodes[kid];
    if (ch->hint > n->hint)
        n->hint = ch->hint;
    if (ch->sym > n->sym)
        n->sym = ch->sym;
}

/* The first index entry of TemporalSplit n that ends after t. */
static uint32_t tr_kr_after(const tr_node *n, uint64_t t) {
    uint32_t lo = 0, hi = n->nkr;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (n->kr[mid].end <= t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Adds range r of child kid to the index of TemporalSplit id, merged with
 * the entries of the same child it overlaps or touches (no other
 * child's range overlaps it). */
static void tr_kr_add(tr_ctx *c, uint32_t id, tr_range r, uint32_t kid) {
    tr_node *n = &c->nodes[id];
    uint32_t i = tr_kr_after(n, r.begin);
    if (i > 0 && n->kr[i - 1].end == r.begin && n->kr[i - 1].kid == kid)
        i--;
    uint32_t j = i;
    while (j < n->nkr && n->kr[j].begin <= r.end &&
           (n->kr[j].kid == kid || n->kr[j].begin < r.end)) {
        if (n->kr[j].begin < r.begin)
            r.begin = n->kr[j].begin;
        if (n->kr[j].end > r.end)
            r.end = n->kr[j].end;
        j++;
    }
    if (j == i) {
        if (n->nkr == n->capkr) {
            uint32_t cap = n->capkr ? 2 * n->capkr : 2;
            tr_kr *nk = realloc(n->kr, cap * sizeof *nk);
            if (!nk) {
                c->oom = true;
                return;
            }
            n->kr = nk;
            n->capkr = cap;
        }
        memmove(n->kr + i + 1, n->kr + i, (n->nkr - i) * sizeof *n->kr);
        n->nkr++;
    } else if (j > i + 1) {
        memmove(n->kr + i + 1, n->kr + j, (n->nkr - j) * sizeof *n->kr);
        n->nkr -= j - i - 1;
    }
    n->kr[i].begin = r.begin;
    n->kr[i].end = r.end;
    n->kr[i].kid = kid;
}

/* Adds every range of child kid to the index of TemporalSplit id. */
static void tr_kr_add_all(tr_ctx *c, uint32_t id, uint32_t kid) {
    for (uint32_t i = 0; i < c->nodes[kid].nrng && !c->oom; i++)
        tr_kr_add(c, id, c->nodes[kid].rng[i], kid);
}

/* The children of TemporalSplit id that overlap b: their number (0, 1,
 * or 2 for "more than one") and the first one. */
static uint32_t tr_kr_overlaps(const tr_ctx *c, uint32_t id, tr_range b,
                               uint32_t *ov) {
    const tr_node *n = &c->nodes[id];
    uint32_t nov = 0;
    for (uint32_t i = tr_kr_after(n, b.begin);
         i < n->nkr && n->kr[i].begin < b.end; i++) {
        if (nov == 0) {
            *ov = n->kr[i].kid;
            nov = 1;
        } else if (n->kr[i].kid != *ov) {
            return 2;
        }
    }
    return nov;
}

/* A new TemporalSplit of one child. */
static uint32_t tr_ts1(tr_ctx *c, uint32_t kid) {
    uint32_t t = tr_new(c, TR_TS);
    if (t == UINT32_MAX || !tr_push(c, t, kid))
        return UINT32_MAX;
    tr_copy_ranges(c, t, kid);
    tr_kr_add_all(c, t, kid);
    tr_refresh(c, t);
    return t;
}

/* SpatialSplit.create(block, extra) = SS(TS([block]), TS([Empty(extra)])) */
static uint32_t tr_ss_create(tr_ctx *c, uint32_t block, uint64_t extra) {
    uint32_t l = tr_ts1(c, block);
    uint32_t e = tr_new(c, TR_EMPTY);
    if (l == UINT32_MAX || e == UINT32_MAX)
        return UINT32_MAX;
    c->nodes[e].size = extra;
    tr_refresh(c, e);
    uint32_t r = tr_ts1(c, e);
    uint32_t s = tr_new(c, TR_SS);
    if (r == UINT32_MAX || s == UINT32_MAX)
        return UINT32_MAX;
    c->nodes[s].left = l;
    c->nodes[s].right = r;
    tr_copy_ranges(c, s, l);
    tr_refresh(c, s);
    return s;
}

static bool tr_allocate(tr_ctx *c, uint32_t id, uint32_t block, bool is_last);

/* The block overlaps no child of TemporalSplit id: it becomes a child of
 * its own (in an SS with the rest of the slot as Empty when smaller; the
 * other children padded with Empty when larger). */
static void tr_ts_add(tr_ctx *c, uint32_t id, uint32_t block, uint64_t slot,
                      uint64_t b) {
    tr_node *n = &c->nodes[id];
    if (n->nkids == 1 && c->nodes[n->kids[0]].kind == TR_EMPTY)
        n->nkids = 0;
    uint32_t kid = block;
    if (slot > b) {
        kid = tr_ss_create(c, block, slot - b);
    } else if (slot < b) {
        uint32_t nk = c->nodes[id].nkids;
        for (uint32_t i = 0; i < nk; i++) {
            uint32_t old = c->nodes[id].kids[i];
            uint32_t s = tr_ss_create(c, old, b - slot);
            if (s == UINT32_MAX)
                return; /* oom flagged */
            c->nodes[id].kids[i] = s;
            c->nodes[old].fwd = s;
        }
        n = &c->nodes[id];
        for (uint32_t i = 0; i < n->nkr; i++)
            n->kr[i].kid = c->nodes[n->kr[i].kid].fwd;
    }
    if (kid == UINT32_MAX || !tr_push(c, id, kid))
        return;
    tr_kr_add(c, id, c->nodes[block].rng[0], kid);
    tr_refresh(c, id); /* O(children): as costly as the padding above */
}

static bool tr_ts_allocate(tr_ctx *c, uint32_t id, uint32_t block,
                           bool is_last) {
    uint64_t slot = c->nodes[id].hint, b = c->nodes[block].hint;
    if (!is_last && b > slot)
        return false;
    tr_range br = c->nodes[block].rng[0];
    uint32_t ov = 0, nov = tr_kr_overlaps(c, id, br, &ov);
    if (nov > 1)
        return false;
    if (nov == 1) {
        if (!tr_allocate(c, ov, block, is_last))
            return false;
        tr_ts_grew(c, id, ov);
        tr_kr_add(c, id, br, ov);
    } else {
        tr_ts_add(c, id, block, slot, b);
    }
    tr_union(c, id, br);
    return true;
}

static bool tr_allocate(tr_ctx *c, uint32_t id, uint32_t block, bool is_last) {
    if (c->oom)
        return false;
    switch (c->nodes[id].kind) {
    case TR_TS:
        return tr_ts_allocate(c, id, block, is_last);
    case TR_SS: {
        uint32_t l = c->nodes[id].left, r = c->nodes[id].right;
        if (tr_allocate(c, l, block, false) ||
            tr_allocate(c, r, block, is_last)) {
            tr_refresh(c, id);
            tr_union(c, id, c->nodes[block].rng[0]);
            return true;
        }
        return false;
    }
    case TR_ALLOC:
    case TR_EMPTY:
        break;
    }
    return false;
}

typedef struct tr_pool {
    uint32_t root;
    bool can_expand;
} tr_pool;

static void tr_at_end(tr_ctx *c, tr_pool *p, uint32_t block) {
    uint32_t r = tr_ts1(c, block);
    uint32_t s = tr_new(c, TR_SS);
    if (r == UINT32_MAX || s == UINT32_MAX)
        return;
    c->nodes[s].left = p->root;
    c->nodes[s].right = r;
    tr_copy_ranges(c, s, p->root);
    tr_union(c, s, c->nodes[block].rng[0]);
    tr_refresh(c, s);
    uint32_t t = tr_ts1(c, s);
    if (t != UINT32_MAX)
        p->root = t;
}

static bool tr_pool_allocate(tr_ctx *c, tr_pool *p, uint32_t block,
                             bool is_last) {
    is_last = p->can_expand && is_last;
    if (tr_allocate(c, p->root, block, is_last))
        return true;
    if (is_last) {
        tr_at_end(c, p, block);
        return true;
    }
    return false;
}

/* A new leaf for buffer i: its size and live range [start, end + 1). */
static uint32_t tr_leaf(tr_ctx *c, uint32_t i) {
    uint32_t blk = tr_new(c, TR_ALLOC);
    if (blk == UINT32_MAX)
        return blk;
    c->nodes[blk].buf = i;
    c->nodes[blk].size = c->pb->bufs[i].size;
    tr_refresh(c, blk);
    tr_range r = {c->pb->bufs[i].start, (uint64_t)c->pb->bufs[i].end + 1};
    tr_union(c, blk, r);
    return c->oom ? UINT32_MAX : blk;
}

static void tr_finalize(tr_ctx *c, uint32_t id, uint64_t off) {
    tr_node *n = &c->nodes[id];
    switch (n->kind) {
    case TR_ALLOC:
        c->offsets[n->buf] = off;
        break;
    case TR_EMPTY:
        break;
    case TR_TS:
        for (uint32_t i = 0; i < n->nkids; i++)
            tr_finalize(c, c->nodes[id].kids[i], off);
        break;
    case TR_SS: {
        uint32_t l = n->left, r = n->right;
        uint64_t step = tr_align(c->nodes[l].sym, c->align);
        tr_finalize(c, l, off);
        tr_finalize(c, r, tr_add(off, step));
        break;
    }
    }
}

/* Pool membership: walks each pool's subtree.  Returns 0 or -1. */
static int tr_membership(const tr_ctx *c, const tr_pool *pools, uint32_t np,
                         uint32_t *subpool) {
    uint32_t *stk = malloc(((size_t)c->nnodes + 1) * sizeof *stk);
    if (!stk)
        return -1;
    for (uint32_t p = 0; p < np; p++) {
        uint32_t sp = 0;
        stk[sp++] = pools[p].root;
        while (sp) {
            const tr_node *nd = &c->nodes[stk[--sp]];
            if (nd->kind == TR_ALLOC)
                subpool[nd->buf] = p;
            else if (nd->kind == TR_TS)
                for (uint32_t q = 0; q < nd->nkids; q++)
                    stk[sp++] = nd->kids[q];
            else if (nd->kind == TR_SS) {
                stk[sp++] = nd->left;
                stk[sp++] = nd->right;
            }
        }
    }
    free(stk);
    return 0;
}

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
    int rc = -1;
    uint32_t *outs = malloc(((size_t)n + 1) * sizeof *outs);
    uint32_t *mids = malloc(((size_t)n + 1) * sizeof *mids);
    uint32_t *leaf = malloc(((size_t)n + 1) * sizeof *leaf);
    tr_pool *pools = malloc(((size_t)n + 1) * sizeof *pools);
    uint32_t no = 0, nm = 0, np = 0;
    if (!outs || !mids || !leaf || !pools)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        offsets[i] = 0;
        subpool[i] = UINT32_MAX;
        leaf[i] = UINT32_MAX;
        if (pb->bufs[i].size == 0)
            continue;
        if (is_output && is_output[i] && mode != PLAN_MP_COMBINED)
            outs[no++] = i;
        else
            mids[nm++] = i;
    }
    tr_sort_ctx so = {pb->bufs, 1}, sm = {pb->bufs, -1};
    if (plan_sort_idx(outs, no, tr_cmp, &so) ||
        plan_sort_idx(mids, nm, tr_cmp, &sm))
        goto out;
    for (uint32_t k = 0; k < no + nm && !c.oom; k++) {
        bool out_block = k < no;
        uint32_t i = out_block ? outs[k] : mids[k - no];
        uint32_t blk = tr_leaf(&c, i);
        if (blk == UINT32_MAX)
            break;
        leaf[i] = blk;
        bool placed = false;
        if (out_block) {
            if (np && (mode == PLAN_MP_OUTPUTS || mode == PLAN_MP_COMBINED)) {
                tr_at_end(&c, &pools[np - 1], blk);
                placed = true;
            }
        } else {
            for (uint32_t p = 0; p < np && !placed; p++)
                placed = tr_pool_allocate(&c, &pools[p], blk, p == np - 1);
        }
        if (!placed) {
            uint32_t r = tr_ts1(&c, blk);
            if (r == UINT32_MAX)
                break;
            pools[np].root = r;
            pools[np].can_expand =
                out_block ? mode == PLAN_MP_COMBINED : mode != PLAN_MP_NONE;
            np++;
        }
    }
    if (c.oom)
        goto out;
    /* finalize: which pool holds each leaf, and its offset */
    for (uint32_t p = 0; p < np; p++) {
        subpool_size[p] = c.nodes[pools[p].root].sym;
        uint64_t *save = c.offsets;
        tr_finalize(&c, pools[p].root, 0);
        c.offsets = save;
    }
    if (c.oom)
        goto out;
    if (tr_membership(&c, pools, np, subpool) != 0)
        goto out;
    *nsubpools = np;
    rc = 0;
out:
    for (uint32_t i = 0; i < c.nnodes; i++) {
        free(c.nodes[i].kids);
        free(c.nodes[i].rng);
        free(c.nodes[i].kr);
    }
    free(c.nodes);
    free(outs);
    free(mids);
    free(leaf);
    free(pools);
    return rc;
}

static int plan_tree_core(const plan_problem *pb, uint64_t *offsets,
                          uint64_t *size) {
    uint32_t n = pb->n;
    uint32_t *sub = malloc(((size_t)n + 1) * sizeof *sub);
    uint64_t *ssz = malloc(((size_t)n + 1) * sizeof *ssz);
    uint64_t *base = malloc(((size_t)n + 1) * sizeof *base);
    uint32_t ns = 0;
    int rc = -1;
    if (!sub || !ssz || !base)
        goto out;
    if (plan_tree_pools(pb, NULL, PLAN_MP_INTERMEDIATES, offsets, sub, ssz,
                        &ns) != 0)
        goto out;
    uint64_t a = pb->align ? pb->align : 1, top = 0;
    for (uint32_t i = 0; i < n; i++)
        if (pb->bufs[i].align > a)
            a = pb->bufs[i].align;
    for (uint32_t p = 0; p < ns; p++) {
        base[p] = tr_align(top, a);
        top = tr_add(base[p], ssz[p]);
    }
    uint64_t pa = pb->align ? pb->align : 1;
    if (top > PLAN_MAX_POOL_SIZE ||
        plan_align_up(top, pa) > PLAN_MAX_POOL_SIZE) {
        /* huge alignments blew the tree up: the naive plan fits */
        rc = plan_naive(pb, offsets, size);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        if (sub[i] != UINT32_MAX)
            offsets[i] += base[sub[i]];
    *size = plan_align_up(top, pa);
    rc = 0;
out:
    free(sub);
    free(ssz);
    free(base);
    return rc;
}

int plan_tree(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_tree_core, offsets, size);
}

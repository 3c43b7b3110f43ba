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
 * design notes (tests/planner/test_tree.c).  Worst case O(n^2) with the
 * range merging; it is a compatibility mode, not the fast path.
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
    bool dirty;
    uint64_t hint, sym;
    tr_range *rng;
    uint32_t nrng;
} tr_node;

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
    n->dirty = true;
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
    n->dirty = true;
    return true;
}

static uint32_t tr_ts1(tr_ctx *c, uint32_t kid) {
    uint32_t t = tr_new(c, TR_TS);
    if (t == UINT32_MAX || !tr_push(c, t, kid))
        return UINT32_MAX;
    return t;
}

static int tr_cmp_range(const void *a, const void *b) {
    const tr_range *x = a, *y = b;
    if (x->begin != y->begin)
        return x->begin < y->begin ? -1 : 1;
    return x->end < y->end ? -1 : x->end > y->end;
}

/* Recomputes hint, symbolic size and live ranges of a dirty node. */
static void tr_update(tr_ctx *c, uint32_t id) {
    tr_node *n = &c->nodes[id];
    if (!n->dirty)
        return;
    switch (n->kind) {
    case TR_ALLOC: {
        const plan_buf *b = &c->pb->bufs[n->buf];
        n->hint = n->sym = n->size;
        free(n->rng);
        n->rng = malloc(sizeof *n->rng);
        if (!n->rng) {
            c->oom = true;
            n->nrng = 0;
            break;
        }
        n->rng[0].begin = b->start;
        n->rng[0].end = (uint64_t)b->end + 1;
        n->nrng = 1;
        break;
    }
    case TR_EMPTY:
        n->hint = n->size;
        n->sym = 0;
        n->nrng = 0;
        break;
    case TR_TS:
    case TR_SS: {
        uint32_t kids2[2];
        uint32_t *kids = n->kids, nk = n->nkids;
        if (n->kind == TR_SS) {
            kids2[0] = n->left;
            kids2[1] = n->right;
            kids = kids2;
            nk = 2;
        }
        uint32_t total = 0;
        for (uint32_t i = 0; i < nk; i++) {
            tr_update(c, kids[i]);
            total += c->nodes[kids[i]].nrng;
        }
        n = &c->nodes[id];
        tr_range *r = total ? malloc(total * sizeof *r) : NULL;
        if (total && !r) {
            c->oom = true;
            break;
        }
        uint32_t k = 0;
        for (uint32_t i = 0; i < nk; i++) {
            const tr_node *ch = &c->nodes[kids[i]];
            if (ch->nrng)
                memcpy(r + k, ch->rng, ch->nrng * sizeof *r);
            k += ch->nrng;
        }
        if (k > 1)
            qsort(r, k, sizeof *r, tr_cmp_range);
        uint32_t m = 0;
        for (uint32_t i = 0; i < k; i++) {
            if (m && r[m - 1].end >= r[i].begin) {
                if (r[i].end > r[m - 1].end)
                    r[m - 1].end = r[i].end;
            } else {
                r[m++] = r[i];
            }
        }
        free(n->rng);
        n->rng = r;
        n->nrng = m;
        if (n->kind == TR_TS) {
            n->hint = n->sym = 0;
            for (uint32_t i = 0; i < nk; i++) {
                const tr_node *ch = &c->nodes[kids[i]];
                if (ch->hint > n->hint)
                    n->hint = ch->hint;
                if (ch->sym > n->sym)
                    n->sym = ch->sym;
            }
        } else {
            const tr_node *l = &c->nodes[n->left], *rt = &c->nodes[n->right];
            n->hint = tr_add(tr_align(l->hint, c->align), rt->hint);
            n->sym = tr_add(tr_align(l->sym, c->align), rt->sym);
        }
        break;
    }
    }
    c->nodes[id].dirty = false;
}

/* Inductor's LiveRanges.overlaps: a two-pointer sweep. */
static bool tr_overlaps(tr_ctx *c, uint32_t id, tr_range b) {
    tr_update(c, id);
    const tr_node *n = &c->nodes[id];
    for (uint32_t i = 0; i < n->nrng; i++)
        if (n->rng[i].end > b.begin && b.end > n->rng[i].begin)
            return true;
    return false;
}

/* SpatialSplit.create(block, extra) = SS(TS([block]), TS([Empty(extra)])) */
static uint32_t tr_ss_create(tr_ctx *c, uint32_t block, uint64_t extra) {
    uint32_t l = tr_ts1(c, block);
    uint32_t e = tr_new(c, TR_EMPTY);
    if (l == UINT32_MAX || e == UINT32_MAX)
        return UINT32_MAX;
    c->nodes[e].size = extra;
    uint32_t r = tr_ts1(c, e);
    uint32_t s = tr_new(c, TR_SS);
    if (r == UINT32_MAX || s == UINT32_MAX)
        return UINT32_MAX;
    c->nodes[s].left = l;
    c->nodes[s].right = r;
    return s;
}

static bool tr_allocate(tr_ctx *c, uint32_t id, uint32_t block, bool is_last);

static bool tr_ts_allocate(tr_ctx *c, uint32_t id, uint32_t block,
                           bool is_last) {
    tr_update(c, id);
    tr_update(c, block);
    uint64_t slot = c->nodes[id].hint, b = c->nodes[block].hint;
    if (!is_last && b > slot)
        return false;
    tr_range br = c->nodes[block].rng[0];
    uint32_t nov = 0, ov = 0;
    for (uint32_t i = 0; i < c->nodes[id].nkids; i++)
        if (tr_overlaps(c, c->nodes[id].kids[i], br)) {
            nov++;
            ov = c->nodes[id].kids[i];
        }
    if (nov > 1)
        return false;
    if (nov == 1) {
        if (!tr_allocate(c, ov, block, is_last))
            return false;
        c->nodes[id].dirty = true;
        return true;
    }
    tr_node *n = &c->nodes[id];
    if (n->nkids == 1 && c->nodes[n->kids[0]].kind == TR_EMPTY)
        n->nkids = 0;
    if (slot == b) {
        tr_push(c, id, block);
    } else if (slot > b) {
        uint32_t s = tr_ss_create(c, block, slot - b);
        if (s != UINT32_MAX)
            tr_push(c, id, s);
    } else {
        uint32_t nk = c->nodes[id].nkids;
        for (uint32_t i = 0; i < nk; i++) {
            uint32_t s = tr_ss_create(c, c->nodes[id].kids[i], b - slot);
            if (s == UINT32_MAX)
                return true; /* oom flagged */
            c->nodes[id].kids[i] = s;
        }
        tr_push(c, id, block);
    }
    c->nodes[id].dirty = true;
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
            c->nodes[id].dirty = true;
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
        tr_update(c, l);
        uint64_t step = tr_align(c->nodes[l].sym, c->align);
        tr_finalize(c, l, off);
        tr_finalize(c, r, tr_add(off, step));
        break;
    }
    }
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
        uint32_t blk = tr_new(&c, TR_ALLOC);
        if (blk == UINT32_MAX)
            break;
        c.nodes[blk].buf = i;
        c.nodes[blk].size = pb->bufs[i].size;
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
        tr_update(&c, pools[p].root);
        subpool_size[p] = c.nodes[pools[p].root].sym;
        uint64_t *save = c.offsets;
        tr_finalize(&c, pools[p].root, 0);
        c.offsets = save;
    }
    if (c.oom)
        goto out;
    /* pool membership: walk each pool's subtree */
    {
        uint32_t *stk = malloc(((size_t)c.nnodes + 1) * sizeof *stk);
        if (!stk)
            goto out;
        for (uint32_t p = 0; p < np; p++) {
            uint32_t sp = 0;
            stk[sp++] = pools[p].root;
            while (sp) {
                const tr_node *nd = &c.nodes[stk[--sp]];
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
    }
    *nsubpools = np;
    rc = 0;
out:
    for (uint32_t i = 0; i < c.nnodes; i++) {
        free(c.nodes[i].kids);
        free(c.nodes[i].rng);
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

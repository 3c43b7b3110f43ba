/*
 * planner/tree_ix.c - segment trees and the time axis of `tree`'s chain
 * index (planner/tree_ix.h).
 */
#include "tree_ix.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

static uint32_t ix_max(uint32_t a, uint32_t b) {
    return a > b ? a : b;
}

static uint32_t ix_min(uint32_t a, uint32_t b) {
    return a < b ? a : b;
}

/* ---- the segment tree ----
 * Positions are grouped in buckets of TR_SEG_W; a bucket's values are
 * kept per position (flat), and the tree's leaves are the buckets.  An
 * operation works position by position in the (at most two) buckets its
 * range ends in, and on the tree's nodes over the buckets in between:
 * bottom-up over 2 * nl nodes (nl a power of two, leaves at nl..2nl-1),
 * the nodes covering those buckets exactly and their ancestors.  The
 * value of a position is the max of its flat value and the tags of its
 * bucket's leaf and that leaf's ancestors; the ancestors hold none until
 * a range of more than SEG_PUSH buckets is raised (seg_nodes_chmax). */

#define SEG_SH 5u
#define SEG_W (1u << SEG_SH)
/* Ranges of up to this many buckets tag their leaves (seg_nodes_chmax). */
#define SEG_PUSH 256u

bool tr_seg_init(tr_seg *t, uint32_t n) {
    uint32_t nb = (uint32_t)(((uint64_t)n + SEG_W - 1) >> SEG_SH);
    t->n = n;
    t->nl = 1;
    t->deep = false;
    while (t->nl < nb)
        t->nl *= 2;
    t->node = calloc(2 * (size_t)t->nl, sizeof *t->node);
    t->flat = calloc(2 * ((size_t)n + 1), sizeof *t->flat);
    return t->node && t->flat;
}

void tr_seg_free(tr_seg *t) {
    free(t->node);
    free(t->flat);
    t->node = NULL;
    t->flat = NULL;
}

/* Raises field f of node x to at least v as a tag (it covers a range). */
static void seg_tag(tr_seg_node *x, unsigned f, uint32_t v) {
    x->mx[f] = ix_max(x->mx[f], v);
    x->tg[f] = ix_max(x->tg[f], v);
    if (f == 1)
        x->mn = ix_max(x->mn, v);
}

/* Node i's min of field 1 from its children's. */
static void seg_pull_min(tr_seg *t, uint32_t i) {
    tr_seg_node *x = t->node;
    x[i].mn = ix_max(x[i].tg[1], ix_min(x[2 * i].mn, x[2 * i + 1].mn));
}

/* Field f of leaves [a, b] (buckets) raised to at least v: a tag on
 * each leaf and the maxima and minima of their ancestors recomputed, so
 * that no node above the leaves holds a tag and a query needs no walk up
 * (seg_tree_q); O(b - a + log n).  A range of more than SEG_PUSH leaves
 * tags the nodes covering it instead (O(log n)) and marks the tree deep:
 * its queries then walk the tags of the ancestors too. */
static void seg_nodes_chmax(tr_seg *t, unsigned f, uint32_t a, uint32_t b,
                            uint32_t v) {
    tr_seg_node *x = t->node;
    a += t->nl;
    b += t->nl;
    if (b - a < SEG_PUSH) {
        for (uint32_t i = a; i <= b; i++)
            seg_tag(&x[i], f, v);
        for (a /= 2, b /= 2; a > 0; a /= 2, b /= 2)
            for (uint32_t i = a; i <= b; i++) {
                x[i].mx[f] = ix_max(x[i].mx[f], v);
                if (f == 1)
                    seg_pull_min(t, i);
            }
        return;
    }
    t->deep = true;
    for (uint32_t i = a, j = b + 1; i < j; i /= 2, j /= 2) {
        if (i & 1)
            seg_tag(&x[i++], f, v);
        if (j & 1)
            seg_tag(&x[--j], f, v);
    }
    for (a /= 2, b /= 2; a > 0; a /= 2, b /= 2) {
        x[a].mx[f] = ix_max(x[a].mx[f], v);
        x[b].mx[f] = ix_max(x[b].mx[f], v);
        if (f == 1) {
            seg_pull_min(t, a);
            seg_pull_min(t, b);
        }
    }
}

/* Positions [l, r] of bucket k raised in field f to at least v, and the
 * path from k's leaf up. */
static void seg_flat_chmax(tr_seg *t, unsigned f, uint32_t l, uint32_t r,
                           uint32_t k, uint32_t v) {
    for (uint32_t p = l; p <= r; p++)
        t->flat[2 * p + f] = ix_max(t->flat[2 * p + f], v);
    uint32_t i = k + t->nl;
    tr_seg_node *x = t->node;
    bool mx = x[i].mx[f] < v, mn = f == 1 && x[i].mn < v;
    x[i].mx[f] = ix_max(x[i].mx[f], v);
    if (mn) {
        uint32_t m = UINT32_MAX, e = ix_min((k + 1) << SEG_SH, t->n), old;
        for (uint32_t p = k << SEG_SH; p < e; p++)
            m = ix_min(m, t->flat[2 * p + 1]);
        old = x[i].mn;
        x[i].mn = ix_max(x[i].tg[1], m);
        mn = x[i].mn != old;
    }
    /* up to the first ancestor whose max and min stay as they are (its
     * own ancestors' do too) */
    for (i /= 2; i > 0 && (mx || mn); i /= 2) {
        mx = mx && x[i].mx[f] < v;
        x[i].mx[f] = ix_max(x[i].mx[f], v);
        if (mn) {
            uint32_t old = x[i].mn;
            seg_pull_min(t, i);
            mn = x[i].mn != old;
        }
    }
}

/* The last position of bucket k in [.., r]. */
static uint32_t seg_end(uint32_t k, uint32_t r) {
    return ix_min(((k + 1) << SEG_SH) - 1, r);
}

void tr_seg_chmax(tr_seg *t, unsigned f, uint32_t l, uint32_t r, uint32_t v) {
    uint32_t a = l >> SEG_SH, b = r >> SEG_SH;
    seg_flat_chmax(t, f, l, seg_end(a, r), a, v);
    if (a != b)
        seg_flat_chmax(t, f, b << SEG_SH, r, b, v);
    if (a + 1 < b)
        seg_nodes_chmax(t, f, a + 1, b - 1, v);
}

/* Positions [l, r] (in one bucket) into q: the max of each field (q[0],
 * q[1]) and the min of field 1 (q[2]). */
static void seg_flat_q(const tr_seg *t, uint32_t l, uint32_t r, uint32_t q[3]) {
    uint32_t m0 = q[0], m1 = q[1], mn = UINT32_MAX;
    for (uint32_t p = l; p <= r; p++) {
        uint32_t v1 = t->flat[2 * p + 1];
        m0 = ix_max(m0, t->flat[2 * p]);
        m1 = ix_max(m1, v1);
        mn = ix_min(mn, v1);
    }
    q[0] = m0;
    q[1] = m1;
    q[2] = mn;
}

/* What the tree adds to a query whose range ends in buckets a <= b, with
 * the maxima of the positions read in a and b in m0, m1 and their minima
 * of field 1 in *mna and *mnb: the leaves strictly between (the nodes
 * covering them) and the tags of a's and b's leaves and of every
 * ancestor of those (the covering nodes' ancestors are among them).  One
 * walk up from both leaves, the paths joined where they meet; a min is
 * kept per path (a tag raises every position under its node, so it
 * raises the min of the pieces gathered below it) and joined there too.
 * The answer goes to q (tr_seg_query). */
static void seg_tree_q(const tr_seg *t, uint32_t a, uint32_t b, uint32_t m0,
                       uint32_t m1, uint32_t mna, uint32_t mnb, uint32_t q[3]) {
    const tr_seg_node *x = t->node;
    uint32_t lo = a + t->nl, hi = b + t->nl;
    m0 = ix_max(m0, x[lo].tg[0]);
    m1 = ix_max(m1, x[lo].tg[1]);
    mna = ix_max(mna, x[lo].tg[1]);
    if (lo != hi) {
        m0 = ix_max(m0, x[hi].tg[0]);
        m1 = ix_max(m1, x[hi].tg[1]);
        mnb = ix_max(mnb, x[hi].tg[1]);
        for (; lo / 2 != hi / 2; lo /= 2, hi /= 2) {
            if (!(lo & 1)) { /* its right sibling lies between */
                m0 = ix_max(m0, x[lo + 1].mx[0]);
                m1 = ix_max(m1, x[lo + 1].mx[1]);
                mna = ix_min(mna, x[lo + 1].mn);
            }
            if (hi & 1) { /* its left sibling lies between */
                m0 = ix_max(m0, x[hi - 1].mx[0]);
                m1 = ix_max(m1, x[hi - 1].mx[1]);
                mnb = ix_min(mnb, x[hi - 1].mn);
            }
            const tr_seg_node *pl = &x[lo / 2], *ph = &x[hi / 2];
            m0 = ix_max(m0, ix_max(pl->tg[0], ph->tg[0]));
            m1 = ix_max(m1, ix_max(pl->tg[1], ph->tg[1]));
            mna = ix_max(mna, pl->tg[1]);
            mnb = ix_max(mnb, ph->tg[1]);
        }
        mna = ix_min(mna, mnb);
    }
    for (lo /= 2; lo > 0; lo /= 2) { /* the paths have met */
        m0 = ix_max(m0, x[lo].tg[0]);
        m1 = ix_max(m1, x[lo].tg[1]);
        mna = ix_max(mna, x[lo].tg[1]);
    }
    q[0] = m0;
    q[1] = m1;
    q[2] = mna;
}

/* seg_tree_q when no node above the leaves holds a tag (!t->deep): the
 * tags of leaves a and b, and the maxima and minima of the nodes
 * covering the leaves strictly between (nothing above them raises
 * those). */
static void seg_flat_tree_q(const tr_seg *t, uint32_t a, uint32_t b,
                            uint32_t m0, uint32_t m1, uint32_t mn,
                            uint32_t q[3]) {
    const tr_seg_node *x = t->node, *la = &x[a + t->nl], *lb = &x[b + t->nl];
    m0 = ix_max(m0, ix_max(la->tg[0], lb->tg[0]));
    m1 = ix_max(m1, ix_max(la->tg[1], lb->tg[1]));
    for (uint32_t i = a + 1 + t->nl, j = b + t->nl; i < j; i /= 2, j /= 2) {
        if (i & 1) {
            m0 = ix_max(m0, x[i].mx[0]);
            m1 = ix_max(m1, x[i].mx[1]);
            mn = ix_min(mn, x[i].mn);
            i++;
        }
        if (j & 1) {
            j--;
            m0 = ix_max(m0, x[j].mx[0]);
            m1 = ix_max(m1, x[j].mx[1]);
            mn = ix_min(mn, x[j].mn);
        }
    }
    q[0] = m0;
    q[1] = m1;
    q[2] = mn;
}

void tr_seg_query(const tr_seg *t, uint32_t l, uint32_t r, uint32_t q[3]) {
    uint32_t a = l >> SEG_SH, b = r >> SEG_SH, mna, mnb = UINT32_MAX;
    q[0] = q[1] = 0;
    seg_flat_q(t, l, seg_end(a, r), q);
    mna = q[2];
    if (a != b) {
        seg_flat_q(t, b << SEG_SH, r, q);
        mnb = q[2];
    }
    if (t->deep) {
        seg_tree_q(t, a, b, q[0], q[1], mna, mnb, q);
        return;
    }
    /* the only tags are the leaves' */
    const tr_seg_node *la = &t->node[a + t->nl];
    mna = ix_max(mna, la->tg[1]);
    if (a == b) { /* most blocks: one bucket, one leaf */
        q[0] = ix_max(q[0], la->tg[0]);
        q[1] = ix_max(q[1], la->tg[1]);
        q[2] = mna;
        return;
    }
    mnb = ix_max(mnb, t->node[b + t->nl].tg[1]);
    seg_flat_tree_q(t, a, b, q[0], q[1], ix_min(mna, mnb), q);
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
    /* every start, end and end + 1 (containment needs the ends + 1) */
    a->ax = malloc(((size_t)pb->n * 3 + 1) * sizeof *a->ax);
    if (!a->ax)
        return false;
    size_t k = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        a->ax[k++] = pb->bufs[i].start;
        a->ax[k++] = pb->bufs[i].end;
        if (pb->bufs[i].end < UINT32_MAX)
            a->ax[k++] = pb->bufs[i].end + 1;
    }
    qsort(a->ax, k, sizeof *a->ax, base_cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (m == 0 || a->ax[m - 1] != a->ax[i])
            a->ax[m++] = a->ax[i];
    a->n = (uint32_t)m;
    return true;
}

void tr_axis_free(tr_axis *a) {
    free(a->ax);
    a->ax = NULL;
}

/* ---- the arena ---- */

void tr_arena_init(tr_arena *a, size_t esz) {
    memset(a, 0, sizeof *a);
    a->esz = esz;
    for (unsigned k = 0; k < 32; k++)
        a->freel[k] = UINT32_MAX;
}

void tr_arena_free(tr_arena *a) {
    base_huge_free(a->base);
    a->base = NULL;
}

unsigned tr_log2(uint32_t cap) {
    unsigned k = 0;
    while (k < 31 && (1u << k) < cap)
        k++;
    return k;
}

uint32_t tr_arena_get(tr_arena *a, unsigned k) {
    uint32_t off = a->freel[k], len = 1u << k;
    if (off != UINT32_MAX) {
        memcpy(&a->freel[k], a->base + (size_t)off * a->esz, sizeof off);
        return off;
    }
    if (len > UINT32_MAX - 1 - a->n)
        return UINT32_MAX;
    if (a->n + len > a->cap) {
        uint64_t nc = a->cap ? 2 * (uint64_t)a->cap : 1024;
        while (nc < (uint64_t)a->n + len)
            nc *= 2;
        if (nc > UINT32_MAX)
            nc = UINT32_MAX;
        unsigned char *p = base_huge_alloc((size_t)nc * a->esz, 16);
        if (!p)
            return UINT32_MAX;
        if (a->n)
            memcpy(p, a->base, (size_t)a->n * a->esz);
        base_huge_free(a->base);
        a->base = p;
        a->cap = (uint32_t)nc;
    }
    off = a->n;
    a->n += len;
    return off;
}

void tr_arena_put(tr_arena *a, uint32_t off, unsigned k) {
    memcpy(a->base + (size_t)off * a->esz, &a->freel[k], sizeof off);
    a->freel[k] = off;
}

/* ---- the placement order ---- */

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

/* Two stable radix passes (length, then size) when every size fits 32
 * bits; else the comparison sort.  One pass over the buffers (in idx
 * order) reads what both need, so the second pass reads the sizes from a
 * dense array instead of the buffers in sorted (random) order. */
int tr_order(const plan_buf *bufs, uint32_t *idx, uint32_t n, int dir) {
    /* one block (base_huge_alloc): the words, the sizes, the sort's
     * scratch */
    size_t nw = (size_t)n + 1;
    uint64_t *v = base_huge_alloc(nw * (2 * sizeof *v + sizeof(uint32_t)) +
                                      PLAN_RADIX_COUNTS * sizeof(uint32_t),
                                  16);
    uint64_t *tmp = v ? v + nw : NULL;
    uint32_t *sz = v ? (uint32_t *)(void *)(tmp + nw) : NULL;
    uint32_t *cnt = sz ? sz + nw : NULL;
    bool small = true;
    for (uint32_t i = 0; i < n && v && sz && small; i++) {
        const plan_buf *b = &bufs[idx[i]];
        small = b->size <= UINT32_MAX;
        sz[i] = (uint32_t)b->size;
        v[i] = (uint64_t)(UINT32_MAX - (b->end - b->start)) << 32 | i;
    }
    int rc = v ? 0 : -1;
    if (rc == 0 && (!small || n < 64)) {
        tr_sort_ctx s = {bufs, dir};
        rc = plan_sort_idx(idx, n, tr_cmp, &s);
        n = 0;
    }
    if (rc == 0)
        plan_radix_sort_hi_in(v, n, tmp, cnt);
    for (uint32_t i = 0; i < n && rc == 0; i++) {
        uint32_t p = (uint32_t)v[i];
        uint64_t k = dir < 0 ? UINT32_MAX - sz[p] : sz[p];
        v[i] = k << 32 | idx[p];
    }
    if (rc == 0)
        plan_radix_sort_hi_in(v, n, tmp, cnt);
    for (uint32_t i = 0; i < n && rc == 0; i++)
        idx[i] = (uint32_t)v[i];
    base_huge_free(v);
    return rc;
}

/* ---- the node store and the interval indexes ---- */

/* Grows *p (of *cap elements of size sz) to hold at least need; false
 * (and oom flagged) when out of memory. */
bool tr_grow(tr_ctx *c, void **p, uint32_t *cap, uint32_t need, size_t sz) {
    if (need <= *cap)
        return true;
    uint32_t nc = *cap ? *cap : 2;
    while (nc < need)
        nc = nc > UINT32_MAX / 2 ? UINT32_MAX : nc * 2;
    void *np = realloc(*p, (size_t)nc * sz);
    if (!np) {
        c->oom = true;
        return false;
    }
    *p = np;
    *cap = nc;
    return true;
}

_Static_assert(sizeof(tr_node) == 32, "two nodes per cache line");

/* The node arrays grown to nc nodes (even), the hot one 64-byte
 * aligned: nodes 2k and 2k + 1 share a cache line (tr_ss_create). */
static bool tr_grow_nodes(tr_ctx *c, uint32_t nc) {
    tr_node *p = base_huge_alloc((size_t)nc * sizeof *p, 64);
    tr_cold *q = base_huge_alloc((size_t)nc * sizeof *q, 16);
    if (!p || !q) {
        base_huge_free(p);
        base_huge_free(q);
        c->oom = true;
        return false;
    }
    if (c->nnodes) {
        memcpy(p, c->nodes, (size_t)c->nnodes * sizeof *p);
        memcpy(q, c->cold, (size_t)c->nnodes * sizeof *q);
    }
    base_huge_free(c->nodes);
    base_huge_free(c->cold);
    c->nodes = p;
    c->cold = q;
    return true;
}

bool tr_reserve(tr_ctx *c, uint32_t cap) {
    if (cap <= c->capnodes)
        return true;
    cap += cap & 1;
    if (!tr_grow_nodes(c, cap))
        return false;
    c->capnodes = cap;
    return true;
}

bool tr_new_room(tr_ctx *c) {
    if (c->nnodes >= TR_LEAF - 1) {
        c->oom = true;
        return false;
    }
    return c->nnodes < c->capnodes ||
           tr_reserve(c, c->capnodes ? 2 * c->capnodes : 2);
}

/* Moves block off (2^k elements of a) to a block of 2^(k + 1), copying
 * len elements; the new offset, or UINT32_MAX (oom flagged). */
static uint32_t tr_arena_grow(tr_ctx *c, tr_arena *a, const void *src,
                              uint32_t len, uint32_t off, unsigned k,
                              bool put) {
    uint32_t no = tr_arena_get(a, k + 1);
    if (no == UINT32_MAX) {
        c->oom = true;
        return no;
    }
    if (!src)
        src = a->base + (size_t)off * a->esz;
    memmove(a->base + (size_t)no * a->esz, src, (size_t)len * a->esz);
    if (put)
        tr_arena_put(a, off, k);
    return no;
}

/* The first index entry of TemporalSplit id that ends after t. */
/* Narrows *b, *n (the answer in b[0 .. n]) to a window of st entries: the
 * sampled entries st - 1, 2 st - 1, ... that end before t are counted
 * with independent loads (a binary search's are each on the last). */
static void kr_narrow(const tr_kre **b, uint32_t *n, uint32_t st, uint64_t t) {
    uint32_t k = 0;
    for (uint32_t i = st - 1; i < *n; i += st)
        k += (uint64_t)(*b)[i].hi < t;
    bool last = k * st + st - 1 >= *n; /* no sample ends at or after t */
    *n = last ? *n - k * st : st - 1;
    *b += k * st;
}

uint32_t tr_kr_after(const tr_ctx *c, uint32_t id, uint64_t t) {
    const tr_kre *kr = tr_ckr(c, id), *b = kr;
    uint32_t n = tr_nkr(&c->nodes[id]);
    /* the answer is in b[0 .. n]; halving without a branch to mispredict
     * (the blocks' times are random: half the guesses would miss) down to
     * 512 entries, then two rounds of samples, then halving again */
    while (n > 512) {
        uint32_t half = n / 2;
        b = (uint64_t)b[half].hi < t ? b + half : b;
        n -= half;
    }
    if (n > 64)
        kr_narrow(&b, &n, 32, t);
    if (n > 8)
        kr_narrow(&b, &n, 4, t);
    while (n > 1) {
        uint32_t half = n / 2;
        b = (uint64_t)b[half].hi < t ? b + half : b;
        n -= half;
    }
    return (uint32_t)(b - kr) + (n == 1 && (uint64_t)b->hi < t);
}

/* tr_kr_reserve when the index of TemporalSplit id (of capacity cap)
 * must grow. */
static bool tr_kr_grow(tr_ctx *c, uint32_t id, uint32_t cap) {
    tr_node *n = &c->nodes[id];
    bool sp = n->w & TR_F_SPILL;
    tr_kre one = n->u.in;
    uint32_t no = tr_arena_grow(c, &c->kra, sp ? NULL : &one, tr_nkr(n),
                                sp ? n->u.sp.off : 0, tr_log2(cap), sp);
    if (no == UINT32_MAX)
        return false;
    n = &c->nodes[id];
    n->w |= TR_F_SPILL;
    n->u.sp.off = no;
    n->u.sp.cap = 2 * cap;
    return true;
}

/* Room for need entries in the index of TemporalSplit id; false when out
 * of memory.  Doubles until need fits: an insertion needs one more, but
 * kre_merge (tr_chain_restore) asks for a whole level's entries at once. */
static inline bool tr_kr_reserve(tr_ctx *c, uint32_t id, uint32_t need) {
    const tr_node *n = &c->nodes[id];
    uint32_t cap = n->w & TR_F_SPILL ? n->u.sp.cap : 1;
    for (; need > cap; cap *= 2)
        if (!tr_kr_grow(c, id, cap))
            return false;
    return true;
}

/* Adds range r of child kid to the index of TemporalSplit id, merged with
 * the entries of the same child it overlaps or touches (no other
 * child's range overlaps it); i is tr_kr_after(r.begin).  O(1) when an
 * entry holds r already (returns false: nothing changed), else a memmove
 * when r is new. */
bool tr_kr_add_ix(tr_ctx *c, uint32_t id, tr_range r, uint32_t kid,
                  uint32_t i) {
    uint32_t nkr = tr_nkr(&c->nodes[id]);
    tr_kre *kr = tr_kr(c, id);
    if (i < nkr && kr[i].kid == kid && kr[i].lo <= r.begin &&
        (uint64_t)kr[i].hi + 1 >= r.end)
        return false;
    if (i > 0 && (uint64_t)kr[i - 1].hi + 1 == r.begin && kr[i - 1].kid == kid)
        i--;
    uint32_t j = i;
    while (j < nkr && kr[j].lo <= r.end &&
           (kr[j].kid == kid || kr[j].lo < r.end)) {
        if (kr[j].lo < r.begin)
            r.begin = kr[j].lo;
        if ((uint64_t)kr[j].hi + 1 > r.end)
            r.end = (uint64_t)kr[j].hi + 1;
        j++;
    }
    if (j == i) {
        if (!tr_kr_reserve(c, id, nkr + 1))
            return true;
        kr = tr_kr(c, id);
        if (i < nkr) /* else an append: no call */
            memmove(kr + i + 1, kr + i, (nkr - i) * sizeof *kr);
        nkr++;
    } else if (j > i + 1) {
        memmove(kr + i + 1, kr + j, (nkr - j) * sizeof *kr);
        nkr -= j - i - 1;
    }
    kr[i] = (tr_kre){(uint32_t)r.begin, (uint32_t)(r.end - 1), kid};
    c->nodes[id].w = (c->nodes[id].w & ~(uint32_t)TR_NKR) | nkr;
    return true;
}

void tr_kr_add(tr_ctx *c, uint32_t id, tr_range r, uint32_t kid) {
    bool empty = !(c->nodes[id].w & (TR_F_SPILL | TR_NKR)); /* a new TS */
    uint32_t i = empty ? 0 : tr_kr_after(c, id, r.begin);
    (void)tr_kr_add_at(c, id, r, kid, i);
}

/* The children of TemporalSplit id that overlap b: their number (0, 1,
 * or 2 for "more than one"), the first one, and *pos, the first entry
 * that ends after b.begin. */
uint32_t tr_kr_overlaps_ix(const tr_ctx *c, uint32_t id, tr_range b,
                           uint32_t *ov, uint32_t *pos) {
    const tr_kre *kr = tr_ckr(c, id);
    uint32_t nov = 0, nkr = tr_nkr(&c->nodes[id]);
    *pos = tr_kr_after(c, id, b.begin);
    for (uint32_t i = *pos; i < nkr && kr[i].lo < b.end; i++) {
        if (nov == 0) {
            *ov = kr[i].kid;
            nov = 1;
        } else if (kr[i].kid != *ov) {
            return 2;
        }
    }
    return nov;
}

static int kre_cmp(const void *a, const void *b) {
    const tr_kre *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Appends the entries of TemporalSplit id to u[*nu..]; false when out of
 * memory. */
static bool kre_append(tr_ctx *c, tr_kre **u, uint32_t *nu, uint32_t *cap,
                       uint32_t id) {
    uint32_t k = tr_nkr(&c->nodes[id]);
    void *p = *u;
    if (!tr_grow(c, &p, cap, *nu + k, sizeof **u))
        return false;
    *u = p;
    memcpy(*u + *nu, tr_ckr(c, id), (size_t)k * sizeof **u);
    *nu += k;
    return true;
}

/* Merges the entries u[0..nu) (sorted, disjoint from its own) into the
 * index of TemporalSplit id. */
static void kre_merge(tr_ctx *c, uint32_t id, const tr_kre *u, uint32_t nu) {
    uint32_t nkr = tr_nkr(&c->nodes[id]);
    if (!tr_kr_reserve(c, id, nkr + nu))
        return;
    tr_kre *kr = tr_kr(c, id);
    uint32_t i = nkr, k = nu, w = nkr + nu;
    while (k > 0) {
        if (i > 0 && kr[i - 1].lo > u[k - 1].lo)
            kr[--w] = kr[--i];
        else
            kr[--w] = u[--k];
    }
    c->nodes[id].w = (c->nodes[id].w & ~(uint32_t)TR_NKR) | (nkr + nu);
}

void tr_chain_restore(tr_ctx *c, const tr_chain *ch) {
    tr_kre *u = NULL;
    uint32_t cap = 0;
    for (uint32_t j = 1; j < ch->nlv && !c->oom; j++) {
        uint32_t ss = ch->lv[j].ss, nu = 0;
        if (!kre_append(c, &u, &nu, &cap, ch->lv[j - 1].ts) ||
            !kre_append(c, &u, &nu, &cap, c->nodes[ss].u.ss.right))
            break;
        qsort(u, nu, sizeof *u, kre_cmp);
        uint32_t m = 0; /* the union, ranges that touch merged */
        for (uint32_t i = 0; i < nu; i++) {
            if (m > 0 && (uint64_t)u[i].lo <= (uint64_t)u[m - 1].hi + 1) {
                if (u[i].hi > u[m - 1].hi)
                    u[m - 1].hi = u[i].hi;
                continue;
            }
            u[m++] = (tr_kre){u[i].lo, u[i].hi, ss};
        }
        kre_merge(c, ch->lv[j].ts, u, m);
    }
    free(u);
}

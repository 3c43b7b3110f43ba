/*
 * planner/tree_fin.c - the end of `tree` (planner/tree.c): the symbolic
 * sizes of a finished AllocationTree and the offsets of its leaves, in
 * one depth-first walk (tr_finalize); or, in the common case, from the
 * offsets the search fixed as it placed each block, with a base per
 * level of the pool's chain (tr_fin_fast).
 */
#include "tree_ix.h"

#include <stdlib.h>

/* A frame of tr_finalize: node id at offset off; i its next child (a
 * TemporalSplit) or side (a SpatialSplit: 0 left, 1 right, 2 done); acc
 * the largest size of its children so far (a TemporalSplit) or its left
 * side's size (a SpatialSplit); back: a child just returned its size. */
typedef struct tr_fin {
    uint32_t id, i;
    uint64_t off, acc;
    bool back;
} tr_fin;

/* Leaf r at offset off in pool p. */
static void tr_fin_at(tr_ctx *c, uint32_t r, uint64_t off, uint32_t p,
                      uint32_t *subpool) {
    c->offsets[r & ~TR_LEAF] = off;
    if (c->fin_mark)
        c->lvc[r & ~TR_LEAF] = c->fin_lv;
    if (p != 0) /* pool 0 was written in index order */
        subpool[r & ~TR_LEAF] = p;
}

/* Leaf r at offset off in pool p; returns its size. */
static uint64_t tr_fin_leaf(tr_ctx *c, uint32_t r, uint64_t off, uint32_t p,
                            uint32_t *subpool) {
    tr_fin_at(c, r, off, p, subpool);
    return tr_leaf_buf(c, r)->size;
}

/* Whether TemporalSplit n has at most one child, named by its inline
 * index entry (if any): off its pool's chain (whose index leaves out
 * the chain child), every child has an entry.  Its hint is then its
 * only child's: a lone leaf's size. */
static bool tr_fin_lone(const tr_node *n) {
    return !(n->w & (TR_F_CHAIN | TR_F_SPILL)) && tr_nkr(n) <= 1;
}

/* Asks for what tr_finalize reads first of the children k of a node: a
 * leaf's buffer, a node's hot half. */
static void tr_fin_prefetch(const tr_ctx *c, const tr_kids *k) {
    for (uint32_t i = 0; i <= k->nk; i++) {
        uint32_t r = tr_kid(k, i);
        if (r == UINT32_MAX)
            break;
        if (r & TR_LEAF) {
            TR_PREFETCH(tr_leaf_buf(c, r));
        } else {
            TR_PREFETCH(&c->nodes[r]);
        }
    }
}

/* Whether child r of a TemporalSplit is met for the first time in this
 * walk (a child has an index entry per piece of its time set). */
static bool tr_fin_first(tr_ctx *c, uint32_t r) {
    if (r & TR_LEAF) /* one entry: a leaf's range is one piece */
        return true;
    if (c->seen[r] == c->walk)
        return false;
    c->seen[r] = c->walk;
    return true;
}

/* The offset and pool p of every leaf under node root, and root's
 * symbolic (final) size into *size: a TemporalSplit's is its children's
 * largest (0 for an Empty), a SpatialSplit's its aligned left side's plus
 * its right side's.  One depth-first walk, left sides first, so that a
 * right side's offset is known when it is entered; an explicit stack (the
 * tree can be as deep as there are blocks).  Returns 0 or -1. */
static int tr_fin_walk(tr_ctx *c, uint32_t root, uint64_t off0, uint32_t p,
                       uint32_t *subpool, uint64_t *size) {
    if (!c->seen && !(c->seen = calloc((size_t)c->nnodes + 1, sizeof *c->seen)))
        return -1;
    c->walk++;
    tr_fin *stk = malloc(((size_t)c->nnodes + 1) * sizeof *stk);
    if (!stk)
        return -1;
    uint32_t sp = 0;
    uint64_t ret = 0; /* the size of the node or leaf just finished */
    stk[sp++] = (tr_fin){root, 0, off0, 0, false};
    while (sp) {
        tr_fin *f = &stk[sp - 1];
        const tr_node *n = &c->nodes[f->id];
        uint64_t off = f->off;
        uint32_t r;
        if (n->w & TR_F_SS) {
            if (f->i == 2) {
                ret = tr_add(tr_align(f->acc, c->align), ret);
                sp--;
                continue;
            }
            if (f->i == 0) { /* both sides are nodes */
                TR_PREFETCH(&c->nodes[n->u.ss.left]);
                TR_PREFETCH(&c->nodes[n->u.ss.right]);
            } else if (f->i == 1) {
                f->acc = ret;
                off = tr_add(off, tr_align(ret, c->align));
            }
            r = f->i++ == 0 ? n->u.ss.left : n->u.ss.right;
        } else if (f->i == 0 && tr_fin_lone(n)) {
            /* its inline index entry names its only child */
            r = n->u.in.kid;
            if (tr_nkr(n) == 0 || (r & TR_LEAF)) {
                if (tr_nkr(n))
                    tr_fin_at(c, r, off, p, subpool);
                ret = tr_nkr(n) ? n->hint : 0; /* a lone leaf's size */
                sp--;
            } else { /* the child's size and offset are this node's */
                TR_PREFETCH(&c->nodes[r]);
                *f = (tr_fin){r, 0, off, 0, false};
            }
            continue;
        } else {
            if (f->back && ret > f->acc)
                f->acc = ret;
            tr_kids k = tr_kids_of(c, f->id);
            if (f->i == 0)
                tr_fin_prefetch(c, &k);
            r = tr_kid(&k, f->i);
            for (; r != UINT32_MAX; r = tr_kid(&k, ++f->i)) {
                if (!tr_fin_first(c, r))
                    continue;
                if (!(r & TR_LEAF))
                    break;
                uint64_t sz = tr_fin_leaf(c, r, off, p, subpool);
                f->acc = sz > f->acc ? sz : f->acc;
            }
            if (r == UINT32_MAX) {
                ret = f->acc;
                sp--;
                continue;
            }
            f->i++;
            f->back = true;
        }
        if (r & TR_LEAF)
            ret = tr_fin_leaf(c, r, off, p, subpool);
        else
            stk[sp++] = (tr_fin){r, 0, off, 0, false};
    }
    free(stk);
    *size = ret;
    return 0;
}

int tr_finalize(tr_ctx *c, uint32_t root, uint32_t p, uint32_t *subpool,
                uint64_t *size) {
    return tr_fin_walk(c, root, 0, p, subpool, size);
}

/* Whether every leaf's offset was fixed when it was placed (tr_frame):
 * one pool, no padding, every size a multiple of the alignment and no
 * sum that could saturate.  Then a left side's hint never changes once
 * it is made and is its final size (its first child, a leaf of its
 * size, stays), so an offset is the sum of the hints of the left sides
 * its path passes, except for the base of each chain level's right
 * side: the final size of the level below. */
static bool tr_fin_fast_ok(const tr_ctx *c, uint32_t np) {
    if (c->slow || np != 1)
        return false;
    uint64_t sum = 0;
    for (uint32_t i = 0; i < c->pb->n; i++) {
        uint64_t sz = c->pb->bufs[i].size;
        if (sz % c->align != 0 || sz > (UINT64_MAX >> 2) - sum)
            return false;
        sum += sz;
    }
    return true;
}

/* The offsets and level codes that tr_fin_fast reads, from the notes
 * taken in placement order (written there, one random write each, they
 * kept the search waiting); false when out of memory. */
static bool tr_fin_scatter(tr_ctx *c, uint32_t nplaced) {
    c->lvc = malloc(((size_t)c->pb->n + 1) * sizeof *c->lvc);
    if (!c->lvc)
        return false;
    for (uint32_t k = 0; k < nplaced; k++) {
        c->offsets[c->placed[k].buf] = c->placed[k].off;
        c->lvc[c->placed[k].buf] = c->placed[k].lv;
    }
    return true;
}

static bool tr_fin_fast_at(tr_ctx *c, const tr_pool *p, uint64_t *size);

bool tr_fin_fast(tr_ctx *c, const tr_pool *p, uint32_t np, uint32_t nplaced,
                 uint64_t *size) {
    if (!tr_fin_fast_ok(c, np) || !tr_fin_scatter(c, nplaced))
        return false;
    bool ok = tr_fin_fast_at(c, p, size);
    free(c->lvc);
    c->lvc = NULL;
    return ok;
}

/* tr_fin_fast once the offsets and level codes are per buffer. */
static bool tr_fin_fast_at(tr_ctx *c, const tr_pool *p, uint64_t *size) {
    /* below a padding, walk the TemporalSplit that padded (the left
     * sides it made end where their contents do, not at their hints),
     * outer ones last: a padding below another's new right side had its
     * offset wrong */
    c->fin_mark = true;
    for (uint32_t k = c->npads; k-- > 0;) {
        uint64_t sz;
        c->fin_lv = c->pads[k].lv;
        if (tr_fin_walk(c, c->pads[k].ts, c->pads[k].off, 0, NULL, &sz) != 0)
            return c->fin_mark = false;
    }
    c->fin_mark = false;
    uint32_t nlv = p->ch.nlv ? p->ch.nlv : 1;
    /* per level: the highest end of its leaves at absolute offsets and of
     * those counting from its base (the final size of the levels below,
     * aligned) */
    uint64_t *top = calloc(2 * (size_t)nlv, sizeof *top);
    if (!top)
        return false;
    const plan_buf *b = c->pb->bufs;
    for (uint32_t i = 0; i < c->pb->n; i++) {
        if (b[i].size == 0)
            continue;
        uint32_t lv = c->lvc[i] & ~TR_REL, rel = !!(c->lvc[i] & TR_REL);
        uint64_t end = c->offsets[i] + b[i].size;
        if (end > top[2 * lv + rel])
            top[2 * lv + rel] = end;
    }
    uint64_t sz = 0; /* the final size of the levels so far */
    for (uint32_t l = 0; l < nlv; l++) {
        uint64_t base = tr_align(sz, c->align);
        sz = top[2 * l] > sz ? top[2 * l] : sz;
        if (top[2 * l + 1] && base + top[2 * l + 1] > sz)
            sz = base + top[2 * l + 1];
        top[2 * l + 1] = base;
    }
    for (uint32_t i = 0; i < c->pb->n; i++)
        if (b[i].size && (c->lvc[i] & TR_REL))
            c->offsets[i] += top[2 * (c->lvc[i] & ~TR_REL) + 1];
    free(top);
    *size = sz;
    return true;
}

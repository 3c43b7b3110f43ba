/*
 * planner/reuse.c - `reuse`: PyTorch Inductor's memory_plan_reuse.
 *
 * Walks the statements in order.  When a storage dies it is pushed on the
 * stack of its reuse key (device, dtype, elements, comm, group, stream:
 * an exact class id that the caller puts in plan_buf.reuse_key); when a
 * storage is
 * allocated, the stack of its key is scanned from the top (most recently
 * freed first, Inductor's LIFO) and the first dead storage that passes
 * Inductor's peak check gives its bytes to the new one.  The peak check
 * (EfficientPeakEstimate): reuse is accepted when the two statements are
 * adjacent, or when the new size plus the highest memory in the gap
 * between the free and the allocation stays within the overall peak of
 * the no-reuse profile; an accepted reuse keeps the bytes alive through
 * the gap, so its size is added over the gap (a range-add / range-max
 * tree over blocks of points, see "the no-reuse profile" below).
 *
 * Differences from Inductor (docs/planning.md, "reuse"): every
 * candidate of the stack is tried, not only the top; storages never freed
 * live to the end; outputs stay live to the end in the estimate.  Frees
 * within one statement are pushed in buffer order, not in string order.
 *
 * The scan needs no scan.  Frees are pushed in order of their end, so a
 * stack is sorted by end, bottom to top; a deeper candidate's gap holds
 * a shallower one's, so its peak check passes only if the shallower one's
 * does.  The scan's choice is therefore the topmost candidate whose slot
 * is large and aligned enough, when that one passes the peak check, and
 * none otherwise.  Each key's stack is split by slot class (size,
 * alignment): a candidate is the top of its class's stack, so the choice
 * is the most recently pushed top among the key's classes that fit.
 *
 * Every chain of reuses is one "slot"; slots are laid out one after the
 * other in buffer order.  O(n log n + n * classes per key): a class per
 * distinct (size, alignment) of a key's slots, one in the usual case.
 * The walk reads each buffer's fields from one record, the records in
 * start order (radix sorts), so that 10^6 buffers cost few cache misses.
 */
#include "plan_internal.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

typedef struct ru_ctx {
    const plan_buf *bufs;
} ru_ctx;

static int ru_cmp_key(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const ru_ctx *)ctx)->bufs;
    if (bf[a].reuse_key != bf[b].reuse_key)
        return bf[a].reuse_key < bf[b].reuse_key ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* A buffer, by its rank in start order (then index order). */
typedef struct ru_item {
    uint64_t size, align; /* align: plan_buf_align */
    uint32_t start, end;
    uint32_t key;              /* dense id of its reuse key */
    uint32_t at_start, at_end; /* its start and end + 1 on the axis */
    uint32_t slot;             /* UINT32_MAX: no bytes */
    uint32_t cls;              /* its slot's class */
    uint32_t below;            /* dead: the next one down its stack */
    uint32_t pushed_at;        /* dead: when it was pushed (end order) */
    bool opens;                /* it opened its slot (size, align: its own) */
} ru_item;

/* A slot class of a key: its stack of dead storages, with what the walk
 * needs of the top one (so that a candidate's record is read only when
 * it is taken). */
typedef struct ru_class {
    uint64_t size, align;
    uint32_t next;      /* the key's next class */
    uint32_t top;       /* UINT32_MAX: empty */
    uint32_t top_fe;    /* when the top was pushed (its place in end order) */
    uint32_t top_after; /* its end + 1 on the axis */
    uint32_t top_slot;
} ru_class;

/* The no-reuse profile: range add, range max over the axis points,
 * blocked so that a query reads few cache lines.  v[k] is point k's
 * value less the adds on its block; the points are in blocks of
 * RU_BLOCK, and a bottom-up tree has a leaf per block (p leaves, a
 * power of two: leaf j is node p + j, node i's children are 2i and
 * 2i + 1).  d[i] is what was added to the whole subtree of node i; t[i]
 * is the max of i's subtree with the adds of i and its descendants (not
 * of its ancestors), so a leaf's t is its block's max v plus its d.  A
 * range reads the v of its two end blocks and the tree over the blocks
 * between: the tree is 1/RU_BLOCK of the axis (it stays in cache) and
 * the v of a block are RU_BLOCK * 8 contiguous bytes.  The points past
 * the axis and the leaves past the last block hold INT64_MIN and are
 * never in a range. */
#define RU_SHIFT 5
#define RU_BLOCK (1u << RU_SHIFT)

typedef struct ru_node {
    int64_t t, d; /* together: one cache line serves both */
} ru_node;

typedef struct ru_tree {
    uint32_t p;
    ru_node *x;
    int64_t *v;
} ru_tree;

/* The state of one run. */
typedef struct ru_state {
    const plan_problem *pb;
    uint32_t n, m; /* buffers, axis points */
    ru_item *it;
    uint32_t *order; /* order[r]: the index of rank r */
    uint32_t *rank;  /* rank[i]: the rank of index i */
    uint32_t *endr;  /* the ranks in end order */
    uint32_t *bykey, *sort_tmp, *key_first, *cnt;
    ru_class *cls;
    uint64_t *soff;        /* the slots' offsets */
    uint64_t *pk, *pk_tmp; /* radix sort keys */
    int64_t peak;
    ru_tree st;
} ru_state;

/* Every array of a run, carved from the caller's scratch: n + 1 entries
 * per buffer or slot, 2n + 2 axis points, a tree over them (a power of
 * two leaves). */
static void ru_layout(plan_carver *c, size_t n, ru_state *R) {
    size_t n1 = n + 1, na = 2 * n + 2;
    R->it = PLAN_CARVE(c, n1, ru_item);
    R->cls = PLAN_CARVE(c, n1, ru_class);
    R->soff = PLAN_CARVE(c, n1, uint64_t);
    R->pk = PLAN_CARVE(c, n1, uint64_t);
    R->pk_tmp = PLAN_CARVE(c, n1, uint64_t);
    size_t nb = (na + RU_BLOCK - 1) / RU_BLOCK, p = 1;
    while (p < nb)
        p *= 2;
    R->st.v = PLAN_CARVE(c, nb * RU_BLOCK, int64_t);
    R->st.x = PLAN_CARVE(c, 2 * p, ru_node);
    R->cnt = PLAN_CARVE(c, PLAN_RADIX_COUNTS, uint32_t);
    uint32_t **u32[] = {&R->order, &R->rank,     &R->endr,
                        &R->bykey, &R->sort_tmp, &R->key_first};
    for (size_t i = 0; i < sizeof u32 / sizeof *u32; i++)
        *u32[i] = PLAN_CARVE(c, n1, uint32_t);
}

static size_t ru_core_scratch_size(size_t n) {
    plan_carver c = plan_carver_measure();
    ru_state R;
    ru_layout(&c, n, &R);
    return c.used;
}

/* out[0..n) = the indices in order of the 32-bit val[i], then of index
 * (a stable radix sort). */
static void ru_sort_by(ru_state *R, uint32_t *out, const uint32_t *val) {
    for (uint32_t i = 0; i < R->n; i++)
        R->pk[i] = (uint64_t)val[i] << 32 | i;
    plan_radix_sort_hi_in(R->pk, R->n, R->pk_tmp, R->cnt);
    for (uint32_t i = 0; i < R->n; i++)
        out[i] = (uint32_t)R->pk[i];
}

/* kid[i] = a dense id of buffer i's key, ids in key order: a radix sort
 * when every key fits in 32 bits, else a merge sort. */
static void ru_key_ids(ru_state *R, uint32_t *kid) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t n = R->n, nk = 0;
    bool small_keys = true;
    for (uint32_t i = 0; i < n; i++) {
        kid[i] = (uint32_t)bf[i].reuse_key;
        small_keys &= bf[i].reuse_key <= UINT32_MAX;
    }
    if (small_keys) {
        ru_sort_by(R, R->bykey, kid);
        for (uint32_t i = 0; i < n; i++) {
            if (i == 0 || R->pk[i] >> 32 != R->pk[i - 1] >> 32)
                R->key_first[nk++] = UINT32_MAX;
            kid[(uint32_t)R->pk[i]] = nk - 1;
        }
        return;
    }
    ru_ctx ctx = {bf};
    for (uint32_t i = 0; i < n; i++)
        R->bykey[i] = i;
    plan_sort_idx_in(R->bykey, n, R->sort_tmp, ru_cmp_key, &ctx);
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 ||
            bf[R->bykey[i]].reuse_key != bf[R->bykey[i - 1]].reuse_key)
            R->key_first[nk++] = UINT32_MAX;
        kid[R->bykey[i]] = nk - 1;
    }
}

/* Step 1: the records in start order (written in index order, so that
 * the buffers are read contiguously), the ranks in end order, a dense id
 * per key. */
static void ru_order(ru_state *R) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t n = R->n, *val = R->sort_tmp;
    for (uint32_t i = 0; i < n; i++)
        val[i] = bf[i].start;
    ru_sort_by(R, R->order, val);
    for (uint32_t r = 0; r < n; r++)
        R->rank[R->order[r]] = r;
    uint32_t *kid = R->endr; /* free until the end order */
    ru_key_ids(R, kid);
    for (uint32_t i = 0; i < n; i++) {
        const plan_buf *b = &bf[i];
        R->it[R->rank[i]] = (ru_item){.size = b->size,
                                      .align = plan_buf_align(R->pb, b),
                                      .start = b->start,
                                      .end = b->end,
                                      .key = kid[i]};
    }
    for (uint32_t i = 0; i < n; i++)
        val[i] = bf[i].end;
    ru_sort_by(R, R->endr, val);
    for (uint32_t i = 0; i < n; i++)
        R->endr[i] = R->rank[R->endr[i]];
}

/* Step 2a: the time axis (every start and every end + 1, so that the
 * live set is constant between two consecutive points) and each buffer's
 * points on it: the records are in start order and endr in end order,
 * so the axis is a merge of the two (a start before an end + 1 at the
 * same time: both get the same point). */
static void ru_axis(ru_state *R) {
    ru_item *it = R->it;
    uint32_t n = R->n, r = 0, e = 0, m = 0;
    uint64_t last = 0;
    while (r < n || e < n) {
        uint64_t ts = r < n ? it[r].start : UINT64_MAX;
        ru_item *f = e < n ? &it[R->endr[e]] : NULL;
        uint64_t te = f ? (uint64_t)f->end + 1 : UINT64_MAX;
        uint64_t t = ts <= te ? ts : te;
        if (m == 0 || t != last)
            m++;
        last = t;
        if (ts <= te) {
            it[r++].at_start = m - 1;
        } else {
            f->at_end = m - 1;
            e++;
        }
    }
    R->m = m;
}

/* ---- the tree ---- */

/* The tree over the m points the caller wrote at v (ru_tree_size gave
 * p). */
static void ru_tree_size(ru_tree *T, uint32_t m) {
    uint32_t nb = (m + RU_BLOCK - 1) / RU_BLOCK;
    for (T->p = 1; T->p < nb; T->p *= 2)
        ;
}

/* The max of v over the points [l, r), l < r. */
static int64_t ru_scan(const int64_t *v, uint32_t l, uint32_t r) {
    int64_t best = v[l];
    for (uint32_t k = l + 1; k < r; k++)
        best = v[k] > best ? v[k] : best;
    return best;
}

static void ru_tree_build(ru_tree *T, uint32_t m) {
    uint32_t nb = (m + RU_BLOCK - 1) / RU_BLOCK;
    for (uint32_t k = m; k < nb * RU_BLOCK; k++)
        T->v[k] = INT64_MIN;
    for (uint32_t j = 0; j < T->p; j++)
        T->x[T->p + j] =
            (ru_node){j < nb ? ru_scan(T->v, j * RU_BLOCK, (j + 1) * RU_BLOCK)
                             : INT64_MIN,
                      0};
    T->x[0].d = 0;
    for (uint32_t i = T->p; i-- > 1;) {
        int64_t a = T->x[2 * i].t, b = T->x[2 * i + 1].t;
        T->x[i].t = a > b ? a : b;
        T->x[i].d = 0;
    }
}

/* Recomputes the strict ancestors of node x. */
static void ru_pull(ru_tree *T, uint32_t x) {
    for (x >>= 1; x >= 1; x >>= 1) {
        int64_t a = T->x[2 * x].t, b = T->x[2 * x + 1].t;
        T->x[x].t = (a > b ? a : b) + T->x[x].d;
    }
}

/* The adds of the strict ancestors of node x added to best. */
static int64_t ru_above(const ru_tree *T, uint32_t x, int64_t best) {
    for (x >>= 1; x >= 1; x >>= 1)
        best += T->x[x].d;
    return best;
}

/* The max over the points [l, r), l < r, read-only.  The points of the
 * end blocks jl and jr are read; between them, the tree nodes covering
 * the leaves (jl, jr) from both ends upwards.  Each side starts with its
 * end block as taken; after each step up, the nodes taken on the left
 * are all below node x - 1 and those on the right below node y, so each
 * side adds the d of those nodes and then of their ancestors. */
static int64_t ru_tree_max(const ru_tree *T, uint32_t l, uint32_t r) {
    uint32_t jl = l / RU_BLOCK, jr = (r - 1) / RU_BLOCK;
    if (jl == jr)
        return ru_above(T, T->p + jl, ru_scan(T->v, l, r) + T->x[T->p + jl].d);
    int64_t bl = ru_scan(T->v, l, (jl + 1) * RU_BLOCK) + T->x[T->p + jl].d;
    int64_t br = ru_scan(T->v, jr * RU_BLOCK, r) + T->x[T->p + jr].d;
    uint32_t x = T->p + jl + 1, y = T->p + jr;
    while (x < y) {
        if (x & 1) {
            bl = T->x[x].t > bl ? T->x[x].t : bl;
            x++;
        }
        if (y & 1) {
            y--;
            br = T->x[y].t > br ? T->x[y].t : br;
        }
        x >>= 1;
        y >>= 1;
        bl += T->x[x - 1].d;
        br += T->x[y].d;
    }
    bl = ru_above(T, x - 1, bl);
    br = ru_above(T, y, br);
    return bl > br ? bl : br;
}

/* Adds v > 0 over the points [l, r) of block j: as values only grow, the
 * block's new max is its old one or one of those points. */
static void ru_block_add(ru_tree *T, uint32_t j, uint32_t l, uint32_t r,
                         int64_t v) {
    ru_node *leaf = &T->x[T->p + j];
    int64_t best = leaf->t - leaf->d;
    for (uint32_t k = l; k < r; k++) {
        T->v[k] += v;
        best = T->v[k] > best ? T->v[k] : best;
    }
    leaf->t = best + leaf->d;
}

/* Adds v > 0 over the points [l, r), l < r: to the points of the end
 * blocks and to the O(log p) nodes that cover the leaves between them
 * exactly; then the ancestors of the two end leaves are recomputed (every
 * node changed is one of them or a child of one). */
static void ru_tree_add(ru_tree *T, uint32_t l, uint32_t r, int64_t v) {
    uint32_t jl = l / RU_BLOCK, jr = (r - 1) / RU_BLOCK;
    if (jl == jr) {
        ru_block_add(T, jl, l, r, v);
        ru_pull(T, T->p + jl);
        return;
    }
    ru_block_add(T, jl, l, (jl + 1) * RU_BLOCK, v);
    ru_block_add(T, jr, jr * RU_BLOCK, r, v);
    for (uint32_t x = T->p + jl + 1, y = T->p + jr; x < y; x >>= 1, y >>= 1) {
        if (x & 1) {
            T->x[x].t += v;
            T->x[x].d += v;
            x++;
        }
        if (y & 1) {
            --y;
            T->x[y].t += v;
            T->x[y].d += v;
        }
    }
    ru_pull(T, T->p + jl);
    ru_pull(T, T->p + jr);
}

/* Step 2: the axis, the no-reuse memory profile in the tree, and its
 * peak. */
static void ru_profile(ru_state *R) {
    ru_axis(R);
    uint32_t m = R->m;
    ru_tree_size(&R->st, m);
    int64_t *leaf = R->st.v;
    memset(leaf, 0, (size_t)m * sizeof *leaf);
    for (uint32_t r = 0; r < R->n; r++) {
        if (R->it[r].size == 0)
            continue;
        leaf[R->it[r].at_start] += (int64_t)R->it[r].size;
        leaf[R->it[r].at_end] -= (int64_t)R->it[r].size;
    }
    int64_t cur = 0;
    R->peak = 0;
    for (uint32_t i = 0; i < m; i++) {
        cur += leaf[i];
        if (cur > R->peak)
            R->peak = cur;
        leaf[i] = cur;
    }
    ru_tree_build(&R->st, m);
}

/* Step 3a: the peak check of the top of class c for buffer b (its slot
 * is large and aligned enough): passes when the two are adjacent or when
 * b's size over the gap stays within the peak; then the bytes stay live
 * through the gap.  Adjacent: the free's end + 1 is b's start, the same
 * axis point. */
static bool ru_try(ru_state *R, const ru_class *c, const ru_item *b) {
    uint32_t lo = c->top_after, hi = b->at_start;
    if (lo < hi && (int64_t)b->size + ru_tree_max(&R->st, lo, hi) > R->peak)
        return false;
    if (lo < hi)
        ru_tree_add(&R->st, lo, hi, (int64_t)b->size);
    return true;
}

/* Buffer b (rank r) opens a new slot, of a class of its key (found or
 * added). */
static uint32_t ru_new_slot(ru_state *R, uint32_t r, uint32_t nslots,
                            uint32_t *ncls) {
    ru_item *b = &R->it[r];
    uint32_t *first = &R->key_first[b->key], c = *first;
    while (c != UINT32_MAX &&
           (R->cls[c].size != b->size || R->cls[c].align != b->align))
        c = R->cls[c].next;
    if (c == UINT32_MAX) {
        c = (*ncls)++;
        R->cls[c] = (ru_class){.size = b->size,
                               .align = b->align,
                               .next = *first,
                               .top = UINT32_MAX};
        *first = c;
    }
    b->slot = nslots;
    b->cls = c;
    b->opens = true;
    return nslots + 1;
}

/* The class whose top the scan from the top of b's key's stack would
 * take first: of the classes whose slots are large and aligned enough,
 * the one whose top was pushed last; UINT32_MAX when none. */
static uint32_t ru_candidate(const ru_state *R, const ru_item *b) {
    uint32_t best = UINT32_MAX;
    for (uint32_t c = R->key_first[b->key]; c != UINT32_MAX;
         c = R->cls[c].next) {
        const ru_class *k = &R->cls[c];
        if (k->top == UINT32_MAX || k->size < b->size || k->align < b->align)
            continue;
        if (best == UINT32_MAX || k->top_fe > R->cls[best].top_fe)
            best = c;
    }
    return best;
}

/* Dead storage f (rank fr, pushed fe-th) goes on its class's stack. */
static void ru_push_dead(ru_state *R, uint32_t fr, uint32_t fe) {
    ru_item *f = &R->it[fr];
    ru_class *c = &R->cls[f->cls];
    f->below = c->top;
    f->pushed_at = fe;
    c->top = fr;
    c->top_fe = fe;
    c->top_after = f->at_end;
    c->top_slot = f->slot;
}

/* The top of class c taken: the one below becomes the top. */
static void ru_pop(ru_state *R, ru_class *c) {
    c->top = R->it[c->top].below;
    if (c->top == UINT32_MAX)
        return;
    const ru_item *f = &R->it[c->top];
    c->top_after = f->at_end;
    c->top_slot = f->slot;
    c->top_fe = f->pushed_at;
}

/* Step 3: the walk in start order: frees push on their slot class's
 * stack; each allocation takes the candidate that the scan of its key's
 * stack from the top would take (see the file comment), or opens a new
 * slot.  Returns the number of slots. */
static uint32_t ru_assign(ru_state *R) {
    ru_item *it = R->it;
    uint32_t n = R->n, nslots = 0, ncls = 0, fe = 0;
    for (uint32_t r = 0; r < n; r++) {
        ru_item *b = &it[r];
        if (b->size == 0) {
            b->slot = UINT32_MAX;
            continue;
        }
        /* free every storage that died before this statement */
        for (; fe < n && it[R->endr[fe]].end < b->start; fe++)
            if (it[R->endr[fe]].size != 0)
                ru_push_dead(R, R->endr[fe], fe);
        uint32_t c = ru_candidate(R, b);
        if (c != UINT32_MAX && ru_try(R, &R->cls[c], b)) {
            b->slot = R->cls[c].top_slot;
            b->cls = c;
            ru_pop(R, &R->cls[c]);
        } else {
            nslots = ru_new_slot(R, r, nslots, &ncls);
        }
    }
    return nslots;
}

/* Step 4: the layout, the slots in the order of their first buffer's
 * index (the naive order), so that the pool is never larger than the
 * naive one: each slot is one of naive's buffers, at an offset no
 * higher.  The records' slots are first scattered to index order (two
 * arrays free after the walk), so that the passes in index order read
 * contiguous memory. */
static uint64_t ru_place(ru_state *R, uint64_t *offsets) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t n = R->n, *slot_of = R->bykey, *opens = R->sort_tmp;
    for (uint32_t r = 0; r < n; r++) {
        slot_of[R->order[r]] = R->it[r].slot;
        opens[R->order[r]] = R->it[r].opens;
    }
    uint64_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!opens[i])
            continue;
        uint64_t off = plan_align_up(top, plan_buf_align(R->pb, &bf[i]));
        R->soff[slot_of[i]] = off;
        top = off + bf[i].size;
    }
    for (uint32_t i = 0; i < n; i++)
        offsets[i] = slot_of[i] == UINT32_MAX ? 0 : R->soff[slot_of[i]];
    return top;
}

/* The steps above. */
static void plan_reuse_core(const plan_problem *pb, void *scratch,
                            size_t scratch_size, uint64_t *offsets,
                            uint64_t *size) {
    ru_state R = {.pb = pb, .n = pb->n};
    plan_carver c = plan_carver_of(scratch, scratch_size);
    ru_layout(&c, R.n, &R);
    ru_order(&R);
    ru_profile(&R);
    ru_assign(&R);
    uint64_t top = ru_place(&R, offsets);
    *size = plan_align_up(top, pb->align ? pb->align : 1);
}

size_t plan_reuse_scratch_size(const plan_problem *pb) {
    return plan_colored_scratch_size(pb->n, ru_core_scratch_size(pb->n));
}

void plan_reuse_in(const plan_problem *pb, void *scratch, size_t scratch_size,
                   uint64_t *offsets, uint64_t *size) {
    PW_ASSERT(scratch_size >= plan_reuse_scratch_size(pb));
    plan_run_colored_in(pb, plan_reuse_core, scratch, scratch_size, offsets,
                        size);
}

int plan_reuse(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    size_t bytes = plan_reuse_scratch_size(pb);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return -1;
    plan_reuse_in(pb, scratch, bytes, offsets, size);
    free(scratch);
    return 0;
}

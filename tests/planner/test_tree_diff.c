/*
 * tests/planner/test_tree_diff.c - `tree` (planner/tree.c) against a plain
 * transcription of Inductor's AllocationTree (docs/planning.md, "tree";
 * torch/_inductor/codegen/memory_planning.py), on thousands of seeded
 * random instances in every memory-pool mode: the same offsets, pools and
 * pool sizes.  The reference keeps no index and no cached value: every
 * live range, size hint and symbolic size is recomputed from the tree
 * each time it is needed, as Inductor's definitions say.  Also: 50,000
 * buffers live at once (a tree as deep as there are buffers once, and a
 * stack overflow in a recursive descent) planned quickly and exactly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

/* ---- the reference ---- */

enum { MAXN = 256 }; /* buffers per random instance, at most */

enum { RF_ALLOC, RF_EMPTY, RF_TS, RF_SS };

typedef struct rf_node {
    int kind;
    uint32_t buf;                    /* RF_ALLOC */
    uint64_t size;                   /* RF_ALLOC, RF_EMPTY */
    uint32_t kids[MAXN + 16], nkids; /* RF_TS (at most MAXN + 1) */
    uint32_t left, right;            /* RF_SS */
} rf_node;

typedef struct rf {
    const plan_buf *bufs;
    uint64_t align;
    rf_node *nodes;
    uint32_t nnodes, cap;
} rf;

static uint32_t rf_new(rf *r, int kind) {
    if (r->nnodes == r->cap) {
        r->cap = r->cap ? 2 * r->cap : 64;
        r->nodes = realloc(r->nodes, r->cap * sizeof *r->nodes);
        assert_non_null(r->nodes);
    }
    rf_node *n = &r->nodes[r->nnodes];
    memset(n, 0, sizeof *n);
    n->kind = kind;
    return r->nnodes++;
}

static uint64_t rf_align(const rf *r, uint64_t v) {
    return (v + r->align - 1) / r->align * r->align;
}

static uint64_t rf_hint(const rf *r, uint32_t id) {
    const rf_node *n = &r->nodes[id];
    uint64_t h = 0;
    switch (n->kind) {
    case RF_ALLOC:
    case RF_EMPTY:
        return n->size;
    case RF_TS:
        for (uint32_t i = 0; i < n->nkids; i++) {
            uint64_t k = rf_hint(r, n->kids[i]);
            h = k > h ? k : h;
        }
        return h;
    default:
        return rf_align(r, rf_hint(r, n->left)) + rf_hint(r, n->right);
    }
}

static uint64_t rf_sym(const rf *r, uint32_t id) {
    const rf_node *n = &r->nodes[id];
    uint64_t h = 0;
    switch (n->kind) {
    case RF_ALLOC:
        return n->size;
    case RF_EMPTY:
        return 0;
    case RF_TS:
        for (uint32_t i = 0; i < n->nkids; i++) {
            uint64_t k = rf_sym(r, n->kids[i]);
            h = k > h ? k : h;
        }
        return h;
    default:
        return rf_align(r, rf_sym(r, n->left)) + rf_sym(r, n->right);
    }
}

/* Does any leaf under node id overlap buffer b in time (half-open ranges
 * [start, end + 1): Inductor's `left.end > right.begin`)? */
static bool rf_overlaps(const rf *r, uint32_t id, uint32_t b) {
    const rf_node *n = &r->nodes[id];
    const plan_buf *x = &r->bufs[b];
    switch (n->kind) {
    case RF_ALLOC: {
        const plan_buf *y = &r->bufs[n->buf];
        return (uint64_t)x->end + 1 > y->start &&
               (uint64_t)y->end + 1 > x->start;
    }
    case RF_EMPTY:
        return false;
    case RF_TS:
        for (uint32_t i = 0; i < n->nkids; i++)
            if (rf_overlaps(r, n->kids[i], b))
                return true;
        return false;
    default:
        return rf_overlaps(r, n->left, b) || rf_overlaps(r, n->right, b);
    }
}

static uint32_t rf_ts1(rf *r, uint32_t kid) {
    uint32_t t = rf_new(r, RF_TS);
    r->nodes[t].kids[r->nodes[t].nkids++] = kid;
    return t;
}

/* SpatialSplit.create(block, extra) */
static uint32_t rf_ss_create(rf *r, uint32_t block, uint64_t extra) {
    uint32_t l = rf_ts1(r, block);
    uint32_t e = rf_new(r, RF_EMPTY);
    r->nodes[e].size = extra;
    uint32_t rt = rf_ts1(r, e);
    uint32_t s = rf_new(r, RF_SS);
    r->nodes[s].left = l;
    r->nodes[s].right = rt;
    return s;
}

static bool rf_allocate(rf *r, uint32_t id, uint32_t block, bool is_last) {
    rf_node *n = &r->nodes[id];
    if (n->kind == RF_SS)
        return rf_allocate(r, n->left, block, false) ||
               rf_allocate(r, n->right, block, is_last);
    if (n->kind != RF_TS)
        return false;
    uint64_t slot = rf_hint(r, id), b = rf_hint(r, block);
    if (!is_last && b > slot)
        return false;
    uint32_t nov = 0, ov = 0;
    for (uint32_t i = 0; i < n->nkids; i++)
        if (rf_overlaps(r, n->kids[i], r->nodes[block].buf)) {
            nov++;
            ov = n->kids[i];
        }
    if (nov > 1)
        return false;
    if (nov == 1)
        return rf_allocate(r, ov, block, is_last);
    if (n->nkids == 1 && r->nodes[n->kids[0]].kind == RF_EMPTY)
        n->nkids = 0;
    uint32_t kid = block;
    if (slot > b) {
        kid = rf_ss_create(r, block, slot - b);
    } else if (slot < b) {
        for (uint32_t i = 0; i < r->nodes[id].nkids; i++) {
            uint32_t s = rf_ss_create(r, r->nodes[id].kids[i], b - slot);
            r->nodes[id].kids[i] = s;
        }
    }
    n = &r->nodes[id];
    assert_true(n->nkids < MAXN + 16);
    n->kids[n->nkids++] = kid;
    return true;
}

typedef struct rf_pool {
    uint32_t root;
    bool can_expand;
} rf_pool;

static void rf_at_end(rf *r, rf_pool *p, uint32_t block) {
    uint32_t rt = rf_ts1(r, block);
    uint32_t s = rf_new(r, RF_SS);
    r->nodes[s].left = p->root;
    r->nodes[s].right = rt;
    p->root = rf_ts1(r, s);
}

static void rf_finalize(const rf *r, uint32_t id, uint64_t off, uint32_t p,
                        uint64_t *offsets, uint32_t *subpool) {
    const rf_node *n = &r->nodes[id];
    if (n->kind == RF_ALLOC) {
        offsets[n->buf] = off;
        subpool[n->buf] = p;
    } else if (n->kind == RF_TS) {
        for (uint32_t i = 0; i < n->nkids; i++)
            rf_finalize(r, n->kids[i], off, p, offsets, subpool);
    } else if (n->kind == RF_SS) {
        rf_finalize(r, n->left, off, p, offsets, subpool);
        rf_finalize(r, n->right, off + rf_align(r, rf_sym(r, n->left)), p,
                    offsets, subpool);
    }
}

/* Is buffer a placed before b?  Outputs ascending by size, the others
 * descending, longer first on ties, then in index order (stable). */
static bool rf_before(const plan_buf *bufs, uint32_t a, uint32_t b, int dir) {
    const plan_buf *x = &bufs[a], *y = &bufs[b];
    if (x->size != y->size)
        return dir > 0 ? x->size < y->size : x->size > y->size;
    uint64_t lx = (uint64_t)x->end - x->start, ly = (uint64_t)y->end - y->start;
    if (lx != ly)
        return lx > ly;
    return a < b;
}

static void rf_sort(const plan_buf *bufs, uint32_t *idx, uint32_t n, int dir) {
    for (uint32_t i = 1; i < n; i++)
        for (uint32_t j = i; j > 0 && rf_before(bufs, idx[j], idx[j - 1], dir);
             j--) {
            uint32_t t = idx[j];
            idx[j] = idx[j - 1];
            idx[j - 1] = t;
        }
}

/* Inductor's allocate_groups on problem pb, as plan_tree_pools. */
static void rf_plan(const plan_problem *pb, const bool *is_output,
                    plan_memory_pool mode, uint64_t *offsets, uint32_t *subpool,
                    uint64_t *subpool_size, uint32_t *nsub) {
    rf r = {pb->bufs, pb->align ? pb->align : 1, NULL, 0, 0};
    for (uint32_t i = 0; i < pb->n; i++)
        if (pb->bufs[i].align > r.align)
            r.align = pb->bufs[i].align;
    uint32_t *outs = calloc(pb->n + 1, sizeof *outs);
    uint32_t *mids = calloc(pb->n + 1, sizeof *mids);
    rf_pool *pools = calloc(pb->n + 1, sizeof *pools);
    assert_true(outs && mids && pools);
    uint32_t no = 0, nm = 0, np = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        offsets[i] = 0;
        subpool[i] = UINT32_MAX;
        if (pb->bufs[i].size == 0)
            continue;
        if (is_output && is_output[i] && mode != PLAN_MP_COMBINED)
            outs[no++] = i;
        else
            mids[nm++] = i;
    }
    rf_sort(pb->bufs, outs, no, 1);
    rf_sort(pb->bufs, mids, nm, -1);
    for (uint32_t k = 0; k < no + nm; k++) {
        bool out = k < no;
        uint32_t i = out ? outs[k] : mids[k - no];
        uint32_t blk = rf_new(&r, RF_ALLOC);
        r.nodes[blk].buf = i;
        r.nodes[blk].size = pb->bufs[i].size;
        bool placed = false;
        if (out && np &&
            (mode == PLAN_MP_OUTPUTS || mode == PLAN_MP_COMBINED)) {
            rf_at_end(&r, &pools[np - 1], blk);
            placed = true;
        }
        for (uint32_t p = 0; !out && p < np && !placed; p++) {
            bool last = pools[p].can_expand && p == np - 1;
            placed = rf_allocate(&r, pools[p].root, blk, last);
            if (!placed && last) {
                rf_at_end(&r, &pools[p], blk);
                placed = true;
            }
        }
        if (!placed) {
            pools[np].root = rf_ts1(&r, blk);
            pools[np].can_expand =
                out ? mode == PLAN_MP_COMBINED : mode != PLAN_MP_NONE;
            np++;
        }
    }
    for (uint32_t p = 0; p < np; p++) {
        subpool_size[p] = rf_sym(&r, pools[p].root);
        rf_finalize(&r, pools[p].root, 0, p, offsets, subpool);
    }
    *nsub = np;
    free(r.nodes);
    free(outs);
    free(mids);
    free(pools);
}

/* ---- random instances ---- */

typedef struct inst {
    plan_buf b[MAXN];
    bool out[MAXN];
    uint32_t n;
    plan_memory_pool mode;
    uint64_t align;
} inst;

/* The shape every instance gets when >= 0 (its draw still made, so that
 * the seeds' instances stay as they are otherwise). */
static int force_shape = -1;

/* When set, no buffer asks for an alignment of its own (after the draws):
 * every size of the dense shape is then a multiple of the tree's
 * alignment, and `tree` fixes offsets as it places blocks (tr_fin_fast)
 * instead of walking the finished tree. */
static bool plain_align = false;

/* Shapes: uniform lifetimes over a short horizon (many overlaps, touching
 * ranges), nested intervals, all live at once, and a staircase that
 * makes the tree deep (a level per pool growth); forced only: the bench's
 * dense data (sizes and lifetimes spread log-uniformly, a horizon of one
 * step per buffer), which stacks blocks into long runs of SpatialSplits
 * whose right side holds the next. */
static void gen(inst *in, uint64_t seed, uint32_t maxn) {
    uint64_t s = seed;
    static const uint64_t sizes[] = {64, 100, 128, 192, 256, 512, 1000, 1024};
    static const plan_memory_pool modes[] = {
        PLAN_MP_NONE, PLAN_MP_INTERMEDIATES, PLAN_MP_OUTPUTS, PLAN_MP_COMBINED};
    static const uint64_t aligns[] = {1, 64, 64, 128};
    in->n = 1 + (uint32_t)pt_below(&s, maxn);
    in->mode = modes[pt_below(&s, 4)];
    in->align = aligns[pt_below(&s, 4)];
    int shape = (int)pt_below(&s, 4);
    shape = force_shape >= 0 ? force_shape : shape;
    uint32_t horizon = 2 + (uint32_t)pt_below(&s, 3 * in->n);
    uint32_t pout = (uint32_t)pt_below(&s, 4); /* outputs: 0..3 in 10 */
    /* larger instances: sometimes sizes past 32 bits (the placement order
     * is then not the radix sort's) */
    bool big = maxn > 64 && pt_below(&s, 8) == 0;
    for (uint32_t i = 0; i < in->n; i++) {
        plan_buf x = ib(0, 0, 1);
        x.size = pt_below(&s, 16) == 0  ? 0
                 : pt_below(&s, 3) == 0 ? 1 + pt_below(&s, 3000)
                                        : sizes[pt_below(&s, 8)];
        if (big && x.size && pt_below(&s, 4) == 0)
            x.size += (uint64_t)1 << 32;
        x.align = pt_below(&s, 20) == 0 ? 256 : 1;
        uint32_t a = (uint32_t)pt_below(&s, horizon);
        uint32_t len = (uint32_t)pt_below(&s, 1 + horizon / 2);
        if (shape == 1) { /* nested */
            a = (uint32_t)pt_below(&s, in->n);
            len = 2 * (in->n - a);
        } else if (shape == 2) { /* all live at once */
            a = 0;
            len = 0;
        } else if (shape == 3) { /* staircase, sizes descending */
            a = i;
            len = 1 + (uint32_t)pt_below(&s, 4);
            x.size = 64 * (in->n - i) + pt_below(&s, 2) * 32;
        } else if (shape == 4) { /* dense */
            a = (uint32_t)pt_below(&s, in->n);
            len = (uint32_t)pt_below(&s, (uint64_t)1 << pt_below(&s, 7));
            x.size = 64 * (1 + pt_below(&s, (uint64_t)1 << pt_below(&s, 14)));
        }
        x.start = a;
        x.end = a + len;
        x.align = plain_align ? 1 : x.align;
        in->b[i] = x;
        in->out[i] = pt_below(&s, 10) < pout;
    }
}

/* Seeds 1..nseeds against the reference, instances of up to maxn
 * buffers; times multiplied by scale (a spread-out time axis: `tree`'s
 * chain index then compresses it), then, with top, shifted to end at
 * UINT32_MAX (where an exclusive end would not fit 32 bits). */
static void check_random(uint64_t nseeds, uint32_t scale, uint32_t maxn,
                         bool top) {
    static inst in;
    uint64_t off[MAXN], roff[MAXN], ssz[MAXN], rssz[MAXN];
    uint32_t sub[MAXN], rsub[MAXN], ns = 0, rns = 0;
    uint32_t pools = 0;
    for (uint64_t seed = 1; seed <= nseeds; seed++) {
        gen(&in, seed, maxn);
        uint32_t last = 0;
        for (uint32_t i = 0; i < in.n; i++) {
            in.b[i].start *= scale;
            in.b[i].end *= scale;
            last = in.b[i].end > last ? in.b[i].end : last;
        }
        for (uint32_t i = 0; i < in.n && top; i++) {
            in.b[i].start += UINT32_MAX - last;
            in.b[i].end += UINT32_MAX - last;
        }
        plan_problem pb = {in.n, in.b, in.align, NULL};
        bool use_out = seed % 3 != 0;
        const bool *outs = use_out ? in.out : NULL;
        assert_int_equal(
            plan_tree_pools(&pb, outs, in.mode, off, sub, ssz, &ns), 0);
        rf_plan(&pb, outs, in.mode, roff, rsub, rssz, &rns);
        if (ns != rns)
            fail_msg("seed %llu: %u pools, reference %u",
                     (unsigned long long)seed, ns, rns);
        for (uint32_t p = 0; p < ns; p++)
            if (ssz[p] != rssz[p])
                fail_msg("seed %llu: pool %u size %llu, reference %llu",
                         (unsigned long long)seed, p,
                         (unsigned long long)ssz[p],
                         (unsigned long long)rssz[p]);
        for (uint32_t i = 0; i < in.n; i++)
            if (off[i] != roff[i] || sub[i] != rsub[i])
                fail_msg("seed %llu: buffer %u at %llu in pool %u, "
                         "reference %llu in pool %u",
                         (unsigned long long)seed, i,
                         (unsigned long long)off[i], sub[i],
                         (unsigned long long)roff[i], rsub[i]);
        pools += ns;
    }
    assert_true(pools > nseeds); /* not all trivial */
}

static void test_random_instances(void **st) {
    (void)st;
    check_random(4000, 1, 64, false);
}

/* Up to 256 buffers: TemporalSplits with many children and index
 * entries (the arenas' larger blocks and free lists), the radix-sorted
 * placement order with its ties. */
static void test_random_large(void **st) {
    (void)st;
    check_random(300, 1, MAXN, false);
}

/* The bench's dense shape, up to 256 buffers. */
static void test_random_dense(void **st) {
    (void)st;
    force_shape = 4;
    check_random(1500, 1, MAXN, false);
    force_shape = -1;
}

/* The dense shape with every size a multiple of the alignment: offsets
 * fixed at placement, paddings walked at the end (tr_fin_fast). */
static void test_random_dense_aligned(void **st) {
    (void)st;
    force_shape = 4;
    plain_align = true;
    check_random(1500, 1, MAXN, false);
    plain_align = false;
    force_shape = -1;
}

static void test_random_spread(void **st) {
    (void)st;
    check_random(1000, 1000003, 64, false);
}

/* Times ending at UINT32_MAX, close together and spread out. */
static void test_random_top(void **st) {
    (void)st;
    check_random(500, 1, 64, true);
    check_random(500, 1000003, 64, true);
}

/* 50,000 buffers live at once: every one goes at the end of the pool (a
 * level per buffer in Inductor's tree): offsets are the running sum of
 * the aligned sizes in placement order (size descending, stable).  A
 * recursive descent overflowed the stack here (issue 11); this runs in
 * well under a second, also under ASan. */
static void test_all_live_50000(void **st) {
    (void)st;
    enum { N = 50000 };
    plan_buf *b = calloc(N, sizeof *b);
    uint64_t *off = calloc(N, sizeof *off);
    uint32_t *idx = calloc(N, sizeof *idx);
    uint32_t *cnt = calloc(64 * 257 + 1, sizeof *cnt);
    assert_true(b && off && idx && cnt);
    uint64_t s = 7;
    for (uint32_t i = 0; i < N; i++) {
        b[i] = ib(64 * (1 + pt_below(&s, 256)), 0, 1);
        if (i % 7 == 0)
            b[i].size -= 1 + pt_below(&s, 60);
    }
    plan_problem pb = {N, b, 64, NULL};
    uint64_t size = 0;
    assert_int_equal(plan_tree(&pb, off, &size), 0);
    assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
    /* counting sort by size, descending; stable */
    for (uint32_t i = 0; i < N; i++)
        cnt[b[i].size]++;
    uint32_t pos = 0;
    for (uint32_t v = 64 * 257; v > 0; v--) {
        uint32_t c = cnt[v];
        cnt[v] = pos;
        pos += c;
    }
    for (uint32_t i = 0; i < N; i++)
        idx[cnt[b[i].size]++] = i;
    uint64_t at = 0;
    for (uint32_t k = 0; k < N; k++) {
        if (off[idx[k]] != at)
            fail_msg("buffer %u (placed %u-th) at %llu, expected %llu", idx[k],
                     k, (unsigned long long)off[idx[k]],
                     (unsigned long long)at);
        at += (b[idx[k]].size + 63) / 64 * 64;
    }
    free(b);
    free(off);
    free(idx);
    free(cnt);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_instances),
        cmocka_unit_test(test_random_spread),
        cmocka_unit_test(test_random_large),
        cmocka_unit_test(test_random_dense),
        cmocka_unit_test(test_random_dense_aligned),
        cmocka_unit_test(test_random_top),
        cmocka_unit_test(test_all_live_50000),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

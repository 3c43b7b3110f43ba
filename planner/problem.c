/*
 * planner/problem.c - the neutral problem: shared helpers, the lower
 * bound, the naive plan and the colour-class driver used by every
 * algorithm.
 */
#include "plan_internal.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

uint64_t plan_align_up(uint64_t v, uint64_t a) {
    if (a <= 1)
        return v;
    uint64_t r = v & (a - 1);
    if (r == 0)
        return v;
    if (v > UINT64_MAX - (a - r))
        return UINT64_MAX & ~(a - 1);
    return v + (a - r);
}

uint64_t plan_buf_align(const plan_problem *pb, const plan_buf *b) {
    uint64_t a = pb->align ? pb->align : 1;
    return b->align > a ? b->align : a;
}

/* ---- stable merge sort of indices ---- */

static void plan_msort(uint32_t *a, uint32_t *tmp, uint32_t n, plan_cmp_fn cmp,
                       const void *ctx) {
    if (n < 2)
        return;
    if (n <= 16) {
        for (uint32_t i = 1; i < n; i++) {
            uint32_t v = a[i], j = i;
            while (j > 0 && cmp(ctx, a[j - 1], v) > 0) {
                a[j] = a[j - 1];
                j--;
            }
            a[j] = v;
        }
        return;
    }
    uint32_t h = n / 2;
    plan_msort(a, tmp, h, cmp, ctx);
    plan_msort(a + h, tmp, n - h, cmp, ctx);
    if (cmp(ctx, a[h - 1], a[h]) <= 0)
        return;
    memcpy(tmp, a, h * sizeof *a);
    uint32_t i = 0, j = h, k = 0;
    while (i < h && j < n)
        a[k++] = cmp(ctx, a[j], tmp[i]) < 0 ? a[j++] : tmp[i++];
    while (i < h)
        a[k++] = tmp[i++];
}

void plan_sort_idx_in(uint32_t *idx, uint32_t n, uint32_t *tmp, plan_cmp_fn cmp,
                      const void *ctx) {
    plan_msort(idx, tmp, n, cmp, ctx);
}

int plan_sort_idx(uint32_t *idx, uint32_t n, plan_cmp_fn cmp, const void *ctx) {
    if (n < 2)
        return 0;
    uint32_t *tmp = malloc((size_t)n * sizeof *tmp);
    if (!tmp)
        return -1;
    plan_msort(idx, tmp, n, cmp, ctx);
    free(tmp);
    return 0;
}

/* ---- segment tree: range add, range max ---- */

int plan_segtree_init(plan_segtree *t, uint32_t n) {
    t->n = n ? n : 1;
    t->mx = calloc(4 * (size_t)t->n, sizeof *t->mx);
    t->tag = calloc(4 * (size_t)t->n, sizeof *t->tag);
    if (!t->mx || !t->tag) {
        plan_segtree_free(t);
        return -1;
    }
    return 0;
}

void plan_segtree_init_in(plan_segtree *t, uint32_t n, int64_t *mx,
                          int64_t *tag) {
    t->n = n ? n : 1;
    t->mx = mx;
    t->tag = tag;
    memset(mx, 0, plan_segtree_nodes(t->n) * sizeof *mx);
    memset(tag, 0, plan_segtree_nodes(t->n) * sizeof *tag);
}

void plan_segtree_free(plan_segtree *t) {
    free(t->mx);
    free(t->tag);
    t->mx = t->tag = NULL;
}

static void plan_st_add(plan_segtree *t, size_t node, uint32_t lo, uint32_t hi,
                        uint32_t l, uint32_t r, int64_t v) {
    if (r < lo || hi < l)
        return;
    if (l <= lo && hi <= r) {
        t->mx[node] += v;
        t->tag[node] += v;
        return;
    }
    uint32_t mid = lo + (hi - lo) / 2;
    plan_st_add(t, 2 * node, lo, mid, l, r, v);
    plan_st_add(t, 2 * node + 1, mid + 1, hi, l, r, v);
    int64_t a = t->mx[2 * node], b = t->mx[2 * node + 1];
    t->mx[node] = (a > b ? a : b) + t->tag[node];
}

void plan_segtree_add(plan_segtree *t, uint32_t l, uint32_t r, int64_t v) {
    if (l > r)
        return;
    plan_st_add(t, 1, 0, t->n - 1, l, r, v);
}

static int64_t plan_st_max(const plan_segtree *t, size_t node, uint32_t lo,
                           uint32_t hi, uint32_t l, uint32_t r) {
    if (l <= lo && hi <= r)
        return t->mx[node];
    uint32_t mid = lo + (hi - lo) / 2;
    int64_t best = INT64_MIN;
    if (l <= mid) {
        int64_t a = plan_st_max(t, 2 * node, lo, mid, l, r);
        best = a > best ? a : best;
    }
    if (r > mid) {
        int64_t b = plan_st_max(t, 2 * node + 1, mid + 1, hi, l, r);
        best = b > best ? b : best;
    }
    return best + t->tag[node];
}

int64_t plan_segtree_max(const plan_segtree *t, uint32_t l, uint32_t r) {
    if (l > r)
        return INT64_MIN;
    return plan_st_max(t, 1, 0, t->n - 1, l, r);
}

/* ---- time axis ---- */

uint32_t plan_time_axis(const plan_problem *pb, uint32_t **out) {
    uint32_t *ax = malloc(((size_t)pb->n * 2 + 1) * sizeof *ax);
    if (!ax)
        return UINT32_MAX;
    size_t k = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        ax[k++] = pb->bufs[i].start;
        ax[k++] = pb->bufs[i].end;
    }
    qsort(ax, k, sizeof *ax, base_cmp_u32);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (m == 0 || ax[m - 1] != ax[i])
            ax[m++] = ax[i];
    *out = ax;
    return (uint32_t)m;
}

uint32_t plan_time_index(const uint32_t *axis, uint32_t n, uint32_t t) {
    return base_lower_bound_u32(axis, n, t);
}

/* ---- lower bound ---- */

/* Live bytes are summed in 128 bits (two words): n sizes below 2^64 sum
 * below 2^96, so nothing wraps even when the problem is far beyond
 * PLAN_MAX_POOL_SIZE. */
typedef struct plan_u128 {
    uint64_t lo, hi;
} plan_u128;

static void plan_u128_add(plan_u128 *x, uint64_t v) {
    x->lo += v;
    if (x->lo < v)
        x->hi++;
}

/* x -= y; the caller guarantees x >= y. */
static void plan_u128_sub(plan_u128 *x, const plan_u128 *y) {
    uint64_t borrow = x->lo < y->lo;
    x->lo -= y->lo;
    x->hi -= y->hi + borrow;
}

static bool plan_u128_gt(const plan_u128 *x, const plan_u128 *y) {
    return x->hi != y->hi ? x->hi > y->hi : x->lo > y->lo;
}

/*
 * Max over time of the live bytes: a difference array over the compressed
 * time axis.  Each size is rounded up to the pool alignment (a buffer's
 * own larger alignment does not add a padding that a neighbour must
 * respect, so it is not counted).  Exact in 128 bits; the result
 * saturates at the largest multiple of the pool alignment below 2^64.
 * O(n log n).
 */
int plan_lower_bound_axis(const plan_problem *pb, const uint32_t *axis,
                          uint32_t m, uint64_t *lb) {
    plan_u128 *delta = calloc((size_t)m + 1, sizeof *delta);
    plan_u128 *minus = calloc((size_t)m + 1, sizeof *minus);
    int rc = -1;
    if (delta && minus) {
        uint64_t a = pb->align ? pb->align : 1;
        plan_u128 best = {0, 0}, cur = {0, 0};
        for (uint32_t i = 0; i < pb->n; i++) {
            const plan_buf *b = &pb->bufs[i];
            if (b->size == 0 || b->start > b->end)
                continue; /* takes no space, or live nowhere */
            uint64_t s = plan_align_up(b->size, a);
            plan_u128_add(&delta[plan_time_index(axis, m, b->start)], s);
            plan_u128_add(&minus[plan_time_index(axis, m, b->end) + 1], s);
        }
        for (uint32_t i = 0; i < m; i++) {
            plan_u128_add(&cur, delta[i].lo);
            cur.hi += delta[i].hi;
            plan_u128_sub(&cur, &minus[i]);
            if (plan_u128_gt(&cur, &best))
                best = cur;
        }
        /* plan_align_up saturates at the same multiple of a */
        *lb = plan_align_up(best.hi ? UINT64_MAX : best.lo, a);
        rc = 0;
    }
    free(delta);
    free(minus);
    return rc;
}

uint64_t plan_lower_bound_sorted(const plan_problem *pb, const uint64_t *st,
                                 const uint64_t *en, size_t m) {
    uint64_t a = pb->align ? pb->align : 1;
    plan_u128 best = {0, 0}, cur = {0, 0};
    for (size_t i = 0, j = 0; i < m; i++) {
        uint64_t t = st[i] >> 32;
        for (; j < m && en[j] >> 32 < t; j++) {
            plan_u128 s = {plan_align_up(pb->bufs[(uint32_t)en[j]].size, a), 0};
            plan_u128_sub(&cur, &s);
        }
        plan_u128_add(&cur, plan_align_up(pb->bufs[(uint32_t)st[i]].size, a));
        if ((i + 1 == m || st[i + 1] >> 32 != t) && plan_u128_gt(&cur, &best))
            best = cur;
    }
    /* plan_align_up saturates at the same multiple of a */
    return plan_align_up(best.hi ? UINT64_MAX : best.lo, a);
}

/* plan_lower_bound's arrays: the buffers by start (st) and by end (en:
 * st + n), and the radix sort's. */
typedef struct lb_arrays {
    uint64_t *st, *tmp;
    uint32_t *cnt;
} lb_arrays;

static void lb_layout(plan_carver *c, size_t n, lb_arrays *w) {
    w->st = PLAN_CARVE(c, 2 * n + 1, uint64_t);
    w->tmp = PLAN_CARVE(c, n + 1, uint64_t);
    w->cnt = PLAN_CARVE(c, PLAN_RADIX_COUNTS, uint32_t);
}

size_t plan_lower_bound_scratch_size(const plan_problem *pb) {
    plan_carver c = plan_carver_measure();
    lb_arrays w;
    lb_layout(&c, pb->n, &w);
    return c.used;
}

/* A sweep: the buffers sorted by start and by end (radix sorts, O(n)); at
 * each start time the buffers that ended before it are taken out and the
 * ones starting then put in. */
uint64_t plan_lower_bound_in(const plan_problem *pb, void *scratch,
                             size_t scratch_size) {
    plan_carver c = plan_carver_of(scratch, scratch_size);
    lb_arrays w;
    lb_layout(&c, pb->n, &w);
    uint64_t *st = w.st, *en = w.st + pb->n;
    size_t m = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        if (b->size == 0 || b->start > b->end)
            continue; /* takes no space, or live nowhere */
        st[m] = (uint64_t)b->start << 32 | i;
        en[m++] = (uint64_t)b->end << 32 | i;
    }
    plan_radix_sort_hi_in(st, m, w.tmp, w.cnt);
    plan_radix_sort_hi_in(en, m, w.tmp, w.cnt);
    return plan_lower_bound_sorted(pb, st, en, m);
}

int plan_lower_bound_status(const plan_problem *pb, uint64_t *lb) {
    size_t bytes = plan_lower_bound_scratch_size(pb);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return -1;
    *lb = plan_lower_bound_in(pb, scratch, bytes);
    free(scratch);
    return 0;
}

uint64_t plan_lower_bound(const plan_problem *pb) {
    uint64_t lb = 0;
    return plan_lower_bound_status(pb, &lb) == 0 ? lb : 0;
}

/* ---- naive ---- */

/*
 * Every storage at its own offset, in order: the upper bound, and the
 * debugging mode that keeps every intermediate intact.  O(n).
 */
uint64_t plan_naive_size(const plan_problem *pb, uint64_t *offsets) {
    uint64_t top = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        uint64_t off = b->size ? plan_align_up(top, plan_buf_align(pb, b)) : 0;
        if (offsets)
            offsets[i] = off;
        top = b->size ? off + b->size : top;
    }
    return plan_align_up(top, pb->align ? pb->align : 1);
}

static void plan_naive_core(const plan_problem *pb, uint64_t *offsets,
                            uint64_t *size) {
    *size = plan_naive_size(pb, offsets);
}

size_t plan_naive_scratch_size(const plan_problem *pb) {
    (void)pb;
    return 0; /* naive needs no arrays */
}

void plan_naive_in(const plan_problem *pb, void *scratch, size_t scratch_size,
                   uint64_t *offsets, uint64_t *size) {
    (void)plan_carver_of(scratch, scratch_size);
    plan_naive_core(pb, offsets, size);
}

int plan_naive(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    plan_naive_in(pb, NULL, 0, offsets, size);
    return 0;
}

uint32_t plan_first_oversize(const plan_problem *pb) {
    uint64_t pa = pb->align ? pb->align : 1, top = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        if (b->size == 0)
            continue;
        uint64_t off = plan_align_up(top, plan_buf_align(pb, b));
        if (off > PLAN_MAX_POOL_SIZE || b->size > PLAN_MAX_POOL_SIZE - off ||
            plan_align_up(off + b->size, pa) > PLAN_MAX_POOL_SIZE)
            return i;
        top = off + b->size;
    }
    return UINT32_MAX;
}

/* 0, 1 or a power of two (0 and 1 both mean "no alignment"). */
static bool plan_align_ok(uint64_t a) {
    return (a & (a - 1)) == 0;
}

/*
 * With the naive plan within PLAN_MAX_POOL_SIZE (< 2^63), every size and
 * every sum of sizes is below 2^63, and an aligned offset below 2^63 is at
 * most 2^63 (a power of two <= 2^63 divides 2^63): offset + size never
 * wraps.  The algorithms rely on this; where their layout can still pass
 * the limit (alignment padding in another order than naive's), they check
 * and fall back to the naive plan.
 */
bool plan_problem_shape_ok(const plan_problem *pb) {
    if (!plan_align_ok(pb->align))
        return false;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        if (!plan_align_ok(b->align) || b->start > b->end)
            return false;
    }
    return true;
}

bool plan_problem_ok(const plan_problem *pb) {
    return plan_problem_shape_ok(pb) && plan_first_oversize(pb) == UINT32_MAX;
}

/* ---- colour classes ---- */

typedef struct plan_class_ctx {
    const plan_buf *bufs;
} plan_class_ctx;

/* Class order: colour -1, colours ascending, then -2 (one class each). */
static int plan_cmp_class(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bufs = ((const plan_class_ctx *)ctx)->bufs;
    int32_t ca = bufs[a].color, cb = bufs[b].color;
    int64_t ka = ca == -2 ? INT64_MAX : ca;
    int64_t kb = cb == -2 ? INT64_MAX : cb;
    if (ka != kb)
        return ka < kb ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The core run on each class: one that may fail (fn) or one that takes
 * the rest of the scratch (fn_in). */
typedef struct pc_core {
    plan_core_fn fn;
    plan_core_in_fn fn_in;
    void *scratch;
    size_t scratch_size;
} pc_core;

static int pc_run(const pc_core *k, const plan_problem *pb, uint64_t *offsets,
                  uint64_t *size) {
    if (k->fn)
        return k->fn(pb, offsets, size);
    k->fn_in(pb, k->scratch, k->scratch_size, offsets, size);
    return 0;
}

/* The driver's arrays, n entries each: the buffers in class order and the
 * sort's temporary, one class's buffers and their offsets. */
typedef struct pc_arrays {
    uint32_t *idx, *tmp;
    plan_buf *sub;
    uint64_t *soff;
} pc_arrays;

static void pc_layout(plan_carver *c, size_t n, pc_arrays *w) {
    w->idx = PLAN_CARVE(c, n, uint32_t);
    w->tmp = PLAN_CARVE(c, n, uint32_t);
    w->sub = PLAN_CARVE(c, n, plan_buf);
    w->soff = PLAN_CARVE(c, n, uint64_t);
}

bool plan_one_class(const plan_problem *pb) {
    bool seen = false;
    int32_t first = -1;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        if (b->size == 0)
            continue;
        if (!seen) {
            first = b->color;
            seen = true;
        }
        if (b->color == -2 || b->color != first)
            return false;
    }
    return true;
}

/* Class by class (sorted into w->idx), each planned on its own and placed
 * above the previous ones; the naive plan when that is smaller.  Returns
 * -1 when a core fails. */
static int pc_stack(const plan_problem *pb, const pc_arrays *w,
                    const pc_core *k, uint64_t *offsets, uint64_t *size) {
    uint32_t n = pb->n, *idx = w->idx;
    for (uint32_t i = 0; i < n; i++)
        idx[i] = i;
    plan_class_ctx ctx = {pb->bufs};
    plan_sort_idx_in(idx, n, w->tmp, plan_cmp_class, &ctx);
    uint64_t base = 0;
    uint64_t pa = pb->align ? pb->align : 1;
    bool over = false; /* the stacked classes pass PLAN_MAX_POOL_SIZE */
    for (uint32_t i = 0; i < n && !over;) {
        uint32_t j = i + 1;
        int32_t c = pb->bufs[idx[i]].color;
        if (c != -2)
            while (j < n && pb->bufs[idx[j]].color == c)
                j++;
        uint64_t amax = pa;
        for (uint32_t q = i; q < j; q++) {
            w->sub[q - i] = pb->bufs[idx[q]];
            w->sub[q - i].color = -1;
            if (w->sub[q - i].align > amax)
                amax = w->sub[q - i].align;
        }
        plan_problem sp = {j - i, w->sub, pb->align, NULL};
        uint64_t ssize = 0;
        if (pc_run(k, &sp, w->soff, &ssize) != 0)
            return -1;
        /* base <= PLAN_MAX_POOL_SIZE < 2^63 and amax <= 2^63: no wrap */
        base = plan_align_up(base, amax);
        if (base > PLAN_MAX_POOL_SIZE || ssize > PLAN_MAX_POOL_SIZE - base) {
            over = true; /* the naive plan below is smaller */
            break;
        }
        for (uint32_t q = i; q < j; q++)
            offsets[idx[q]] = w->sub[q - i].size ? base + w->soff[q - i] : 0;
        base += ssize;
        i = j;
    }
    uint64_t stacked = over ? UINT64_MAX : plan_align_up(base, pa);
    /* Stacking classes pads between them: never do worse than naive,
     * which satisfies every colour constraint (and fits the limit). */
    uint64_t nsize = 0;
    plan_naive_core(pb, w->soff, &nsize);
    if (nsize < stacked) {
        memcpy(offsets, w->soff, (size_t)n * sizeof *offsets);
        *size = nsize;
    } else {
        *size = stacked;
    }
    return 0;
}

int plan_run_colored(const plan_problem *pb, plan_core_fn fn, uint64_t *offsets,
                     uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    if (plan_one_class(pb))
        return fn(pb, offsets, size);
    size_t bytes = plan_colored_scratch_size(pb->n, 0);
    void *block = plan_scratch_new(bytes);
    if (!block)
        return -1;
    plan_carver c = plan_carver_of(block, bytes);
    pc_arrays w;
    pc_layout(&c, pb->n, &w);
    pc_core k = {fn, NULL, NULL, 0};
    int rc = pc_stack(pb, &w, &k, offsets, size);
    free(block);
    return rc;
}

size_t plan_colored_scratch_size(uint32_t n, size_t core_size) {
    plan_carver c = plan_carver_measure();
    pc_arrays w;
    size_t rest;
    pc_layout(&c, n, &w);
    plan_carve_rest(&c, core_size, &rest);
    return c.used;
}

void plan_run_colored_in(const plan_problem *pb, plan_core_in_fn fn,
                         void *scratch, size_t scratch_size, uint64_t *offsets,
                         uint64_t *size) {
    if (plan_one_class(pb)) {
        fn(pb, scratch, scratch_size, offsets, size);
        return;
    }
    plan_carver c = plan_carver_of(scratch, scratch_size);
    pc_arrays w;
    pc_layout(&c, pb->n, &w);
    pc_core k = {NULL, fn, NULL, 0};
    k.scratch = plan_carve_rest(&c, 0, &k.scratch_size);
    int rc = pc_stack(pb, &w, &k, offsets, size);
    PW_ASSERT(rc == 0);
}

/*
 * tests/planner/test_bestfit_blocks.c - bestfit's large-instance machinery
 * (planner/bestfit_blocks.c): the block pass places every buffer where a
 * plain greedy does (the lowest aligned gap among its placed conflicts,
 * found here by sorting them), and the exact sweep order changes no
 * offset (in the swept order the pass's window of block lists moves and
 * is compacted; in the size order it holds every list).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"
#include "planner/plan_internal.h"

/* An instance, its nonzero buffers in start order (ties by index) and
 * their starts, as bestfit.c passes them. */
typedef struct inst {
    plan_problem pb;
    plan_buf *b;
    uint32_t m, *byst, *sst, *order;
} inst;

static int cmp_start(const void *x, const void *y, const plan_buf *b) {
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (b[i].start != b[j].start)
        return b[i].start < b[j].start ? -1 : 1;
    return i < j ? -1 : i > j;
}

static const plan_buf *g_b; /* for qsort */
static int cmp_start_q(const void *x, const void *y) {
    return cmp_start(x, y, g_b);
}

/* Size descending, then start order (bestfit's first pass, roughly). */
static int cmp_size_q(const void *x, const void *y) {
    uint32_t i = *(const uint32_t *)x, j = *(const uint32_t *)y;
    if (g_b[i].size != g_b[j].size)
        return g_b[i].size > g_b[j].size ? -1 : 1;
    return cmp_start(x, y, g_b);
}

/* shape 0: sparse (a start per step, short lives); 1: dense (random
 * starts, lives up to 100); 2: about 8 equal starts per step; 3: every
 * buffer live to the end of the horizon. */
static void make(inst *in, uint32_t n, int shape, uint64_t seed) {
    uint64_t s = seed;
    in->b = calloc(n, sizeof *in->b);
    in->byst = calloc(n, sizeof *in->byst);
    in->sst = calloc(n, sizeof *in->sst);
    in->order = calloc(n, sizeof *in->order);
    static const uint64_t al[] = {1, 8, 64, 256};
    for (uint32_t i = 0; i < n; i++) {
        uint32_t st = shape == 0 || shape == 3 ? i
                      : shape == 1             ? (uint32_t)pt_below(&s, n)
                                               : (uint32_t)pt_below(&s, n / 8);
        uint32_t len = shape == 3 ? n
                       : shape == 0
                           ? (uint32_t)pt_below(&s, pt_below(&s, 20) ? 8 : 400)
                       : shape == 1 ? (uint32_t)pt_below(&s, 100)
                                    : (uint32_t)pt_below(&s, 4);
        uint64_t size = pt_below(&s, 20) == 0 ? 0 : 1 + pt_below(&s, 5000);
        in->b[i] = nb(size, st, st + len, i);
        in->b[i].align = al[pt_below(&s, 4)];
    }
    in->pb = (plan_problem){n, in->b, 64, NULL};
    in->m = 0;
    for (uint32_t i = 0; i < n; i++)
        if (in->b[i].size)
            in->byst[in->m++] = i;
    g_b = in->b;
    qsort(in->byst, in->m, sizeof *in->byst, cmp_start_q);
    for (uint32_t q = 0; q < in->m; q++)
        in->sst[q] = in->b[in->byst[q]].start;
    memcpy(in->order, in->byst, in->m * sizeof *in->order);
}

static void drop(inst *in) {
    free(in->b);
    free(in->byst);
    free(in->sst);
    free(in->order);
}

typedef struct iv {
    uint64_t lo, hi;
} iv;

static int cmp_iv(const void *x, const void *y) {
    const iv *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The plain greedy: in `order`, each buffer at the lowest aligned offset
 * clear of its placed conflicts (sorted by offset).  The pool top. */
static uint64_t greedy(const inst *in, const uint32_t *order, uint64_t *off) {
    uint8_t *placed = calloc(in->pb.n, 1);
    iv *c = calloc(in->m + 1, sizeof *c);
    uint64_t top = 0;
    for (uint32_t k = 0; k < in->m; k++) {
        const plan_buf *b = &in->b[order[k]];
        uint64_t a = b->align > in->pb.align ? b->align : in->pb.align;
        size_t n = 0;
        for (uint32_t j = 0; j < in->pb.n; j++)
            if (placed[j] && in->b[j].start <= b->end &&
                b->start <= in->b[j].end)
                c[n++] = (iv){off[j], off[j] + in->b[j].size};
        qsort(c, n, sizeof *c, cmp_iv);
        uint64_t cand = 0;
        for (size_t i = 0; i < n && c[i].lo < cand + b->size; i++)
            if (c[i].hi > cand)
                cand = (c[i].hi + a - 1) / a * a;
        off[order[k]] = cand;
        placed[order[k]] = 1;
        top = cand + b->size > top ? cand + b->size : top;
    }
    free(placed);
    free(c);
    return top;
}

/* The block pass gives the greedy's offsets, in size order and in a
 * random order, on every shape that it lays out. */
static void test_block_pass_is_greedy(void **st) {
    (void)st;
    enum { N = 3000 };
    uint64_t *o1 = calloc(N, sizeof *o1), *o2 = calloc(N, sizeof *o2);
    for (int shape = 0; shape < 3; shape++) {
        for (uint64_t seed = 1; seed <= 3; seed++) {
            inst in;
            make(&in, N, shape, seed * 31 + (uint64_t)shape);
            uint64_t s = seed;
            if (seed == 3) { /* a random order */
                for (uint32_t q = in.m; q > 1; q--) {
                    uint32_t r = (uint32_t)pt_below(&s, q), t = in.order[r];
                    in.order[r] = in.order[q - 1];
                    in.order[q - 1] = t;
                }
            } else {
                qsort(in.order, in.m, sizeof *in.order, cmp_size_q);
            }
            memset(o1, 0, N * sizeof *o1);
            memset(o2, 0, N * sizeof *o2);
            uint64_t t1 =
                plan_bf_block_pass(&in.pb, in.byst, in.sst, in.m, in.order, o1);
            uint64_t t2 = greedy(&in, in.order, o2);
            if (t1 != t2 || memcmp(o1, o2, N * sizeof *o1) != 0)
                fail_msg("shape %d seed %llu: block pass top %llu, greedy %llu",
                         shape, (unsigned long long)seed,
                         (unsigned long long)t1, (unsigned long long)t2);
            drop(&in);
        }
    }
    free(o1);
    free(o2);
}

/* Lives as long as the horizon: the lists would hold m entries per
 * block, the pass says so (the caller scans instead); every buffer in one
 * block: it gives up past its visit budget. */
static void test_block_pass_limits(void **st) {
    (void)st;
    enum { N = 20000 };
    inst in;
    make(&in, N, 3, 5);
    uint64_t *off = calloc(N, sizeof *off);
    assert_true(plan_bf_block_pass(&in.pb, in.byst, in.sst, in.m, in.order,
                                   off) == PLAN_BF_NO_LAYOUT);
    for (uint32_t i = 0; i < N; i++)
        in.b[i].start = in.b[i].end = 0; /* all live at 0 only */
    for (uint32_t q = 0; q < in.m; q++)
        in.sst[q] = 0;
    assert_true(plan_bf_block_pass(&in.pb, in.byst, in.sst, in.m, in.order,
                                   off) == PLAN_BF_GAVE_UP);
    free(off);
    drop(&in);
}

static int is_perm(const uint32_t *a, const uint32_t *b, uint32_t m,
                   uint32_t n) {
    uint8_t *seen = calloc(n, 1);
    int ok = 1;
    for (uint32_t q = 0; q < m; q++)
        seen[a[q]]++;
    for (uint32_t q = 0; q < m; q++)
        ok &= seen[b[q]] == 1;
    free(seen);
    return ok;
}

/* The exact sweep reorders a size order (several chunks) without
 * changing any offset; the relaxed sweep gives a valid plan.  When every
 * buffer lives to the end, all would be held back: the exact sweep
 * leaves the order as it is, the relaxed one does not. */
static void test_sweep_order(void **st) {
    (void)st;
    enum { N = 30000 }; /* 7 chunks: more than SW_HELD can be held */
    uint64_t *o1 = calloc(N, sizeof *o1), *o2 = calloc(N, sizeof *o2);
    uint32_t *sw = calloc(N, sizeof *sw);
    for (int shape = 0; shape < 4; shape++) {
        inst in;
        make(&in, N, shape, 77 + (uint64_t)shape);
        qsort(in.order, in.m, sizeof *in.order, cmp_size_q);
        for (int exact = 1; exact >= 0; exact--) {
            memcpy(sw, in.order, in.m * sizeof *sw);
            assert_int_equal(
                plan_bf_sweep_order(&in.pb, in.byst, in.sst, in.m, sw, exact),
                0);
            assert_true(is_perm(in.order, sw, in.m, N));
            bool same = memcmp(sw, in.order, in.m * sizeof *sw) == 0;
            assert_true(same == (shape == 3 && exact));
            if (shape == 3)
                continue; /* too long-lived for the block pass */
            uint64_t t1 =
                plan_bf_block_pass(&in.pb, in.byst, in.sst, in.m, in.order, o1);
            uint64_t t2 =
                plan_bf_block_pass(&in.pb, in.byst, in.sst, in.m, sw, o2);
            if (t1 >= PLAN_BF_GAVE_UP || t2 >= PLAN_BF_GAVE_UP)
                fail_msg("shape %d: %llu %llu", shape, (unsigned long long)t1,
                         (unsigned long long)t2);
            if (exact && (t1 != t2 || memcmp(o1, o2, N * sizeof *o1) != 0))
                fail_msg("shape %d: swept top %llu, given order %llu", shape,
                         (unsigned long long)t2, (unsigned long long)t1);
            assert_true(plan_verify_problem(&in.pb, o2, (t2 + 255) / 256 * 256,
                                            NULL, 0));
        }
        drop(&in);
    }
    free(o1);
    free(o2);
    free(sw);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_block_pass_is_greedy),
        cmocka_unit_test(test_block_pass_limits),
        cmocka_unit_test(test_sweep_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

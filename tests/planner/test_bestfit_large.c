/*
 * tests/planner/test_bestfit_large.c - bestfit's large-instance path
 * (planner/bestfit_large.c, above PLAN_BF_LARGE buffers) gives the plan
 * of its general path (plan_bestfit_general), offset for offset, on
 * every shape: short and long lives, short and long horizons (the
 * start order counted, sorted, or given), equal starts across time blocks,
 * sizes with and without a common power of two, buffer alignments, zero
 * sizes, everything live at once (the start pass alone), and the inputs
 * it hands back to the general path (keys too wide for a word, block
 * lists too long), and a pool too large for both; the lower bound it
 * reports (plan_bestfit_lb) is plan_lower_bound's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"
#include "planner/plan_internal.h"

enum { N = PLAN_BF_LARGE + 8000 };

typedef enum shape {
    SPARSE,    /* a start per step, short lives, sizes in 64-byte units */
    DENSE,     /* random starts, log-spread lives, any size, alignments */
    SPREAD,    /* DENSE over 4 steps a buffer: sorted, not counted */
    STRIDE,    /* SPARSE a start every 3 steps: in order already */
    TIES,      /* about 8 equal starts per step, zero sizes */
    LONG,      /* lives to the end of the horizon: lists too long */
    ALL_LIVE,  /* one step: the start pass alone */
    WIDE,      /* sizes up to 2^40: the keys do not fit in a word */
    HUGE_SIZES /* sizes of 2^50: a pool past PLAN_MAX_POOL_SIZE, refused */
} shape;

/* A life of 1..256 steps, spread over the scale (1% up to 4096). */
static uint32_t life(uint64_t *s) {
    uint32_t top = pt_below(s, 100) == 0 ? 4096 : 256;
    uint32_t bits = (uint32_t)pt_below(s, top == 256 ? 9 : 13);
    return 1 + (uint32_t)pt_below(s, (uint64_t)1 << bits);
}

static void make(plan_problem *pb, plan_buf *b, shape sh, uint64_t seed) {
    uint64_t s = seed;
    static const uint64_t al[] = {1, 8, 64, 256};
    for (uint32_t i = 0; i < N; i++) {
        uint32_t st = sh == SPARSE || sh == LONG ? i
                      : sh == STRIDE             ? 3 * i
                      : sh == SPREAD   ? (uint32_t)pt_below(&s, 4 * (uint64_t)N)
                      : sh == TIES     ? (uint32_t)pt_below(&s, N / 8)
                      : sh == ALL_LIVE ? 0
                                       : (uint32_t)pt_below(&s, N);
        uint32_t len =
            sh == LONG       ? N - i
            : sh == ALL_LIVE ? 1
            : sh == SPARSE || sh == STRIDE
                ? 1 + (uint32_t)pt_below(&s, 8 * (sh == STRIDE ? 3 : 1))
            : sh == SPREAD ? 4 * life(&s)
                           : life(&s);
        uint64_t size = sh == SPARSE || sh == STRIDE
                            ? 64 * (1 + pt_below(&s, 256))
                        : sh == WIDE ? 1 + pt_below(&s, (uint64_t)1 << 40)
                        : sh == HUGE_SIZES
                            ? (uint64_t)1 << 50
                            : 1 + pt_below(&s, (uint64_t)1 << pt_below(&s, 22));
        if (sh == TIES && pt_below(&s, 16) == 0)
            size = 0;
        b[i] = nb(size, st, st + len - 1, i);
        if (sh == DENSE || sh == SPREAD || sh == TIES)
            b[i].align = al[pt_below(&s, 4)];
    }
    *pb = (plan_problem){N, b, sh == SPARSE ? 1 : 64, NULL};
}

static void test_large_is_general(void **st) {
    (void)st;
    plan_buf *b = calloc(N, sizeof *b);
    uint64_t *o1 = calloc(N, sizeof *o1), *o2 = calloc(N, sizeof *o2);
    for (int sh = SPARSE; sh <= HUGE_SIZES; sh++) {
        plan_problem pb;
        make(&pb, b, (shape)sh, 101 + (uint64_t)sh);
        uint64_t s1 = 0, s2 = 0, lb = 0;
        int r1 = plan_bestfit_lb(&pb, o1, &s1, &lb);
        int r2 = plan_bestfit_general(&pb, o2, &s2);
        assert_int_equal(r1, r2);
        if (r1 != 0)
            continue; /* refused by both (the huge pool) */
        if (s1 != s2 || memcmp(o1, o2, N * sizeof *o1) != 0)
            fail_msg("shape %d: size %llu, general %llu", sh,
                     (unsigned long long)s1, (unsigned long long)s2);
        assert_true(plan_verify_problem(&pb, o1, s1, NULL, 0));
        /* the bound the large path (or, keys too wide, the general
         * path) computed on the way */
        if (lb != plan_lower_bound(&pb))
            fail_msg("shape %d: lower bound %llu, plan_lower_bound %llu", sh,
                     (unsigned long long)lb,
                     (unsigned long long)plan_lower_bound(&pb));
        assert_true(s1 >= lb);
    }
    free(b);
    free(o1);
    free(o2);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_is_general),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

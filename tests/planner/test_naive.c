/*
 * tests/planner/test_naive.c - naive (planner/problem.c): every buffer
 * its own bytes, in buffer order, each at the next offset its alignment
 * (and the pool's) allows; the pool rounded up to the pool alignment.
 * The baseline every other algorithm is measured against.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

/* Hand-worked: pool alignment 64, a zero-size buffer, a buffer with an
 * alignment of its own above the pool's. */
static void test_naive_hand(void **st) {
    (void)st;
    plan_buf b[] = {nb(100, 0, 1, 1), nb(0, 0, 5, 2), nb(64, 1, 2, 3),
                    nb(24, 2, 3, 3), nb(8, 0, 0, 4)};
    b[4].align = 128;
    plan_problem pb = {5, b, 64, NULL};
    uint64_t off[5], size;
    assert_int_equal(plan_naive(&pb, off, &size), 0);
    assert_int_equal(off[0], 0);   /* 0..100 */
    assert_int_equal(off[1], 0);   /* takes no space */
    assert_int_equal(off[2], 128); /* 100 -> 128 */
    assert_int_equal(off[3], 192); /* 192..216 */
    assert_int_equal(off[4], 256); /* 216 -> 256 (its own 128) */
    assert_int_equal(size, 320);   /* 264 -> 320 */
    assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
    /* lifetimes do not matter: the same offsets when all are disjoint */
    for (int i = 0; i < 5; i++)
        b[i].start = b[i].end = (uint32_t)(10 * i);
    uint64_t off2[5], size2;
    assert_int_equal(plan_naive(&pb, off2, &size2), 0);
    assert_memory_equal(off, off2, sizeof off);
    assert_int_equal(size, size2);
}

/* Random problems: offsets follow an independent transcription of the
 * rule, never overlap (whatever the lifetimes and colours), and the size
 * is at least the lower bound; with NULL offsets, the same size. */
static void test_naive_random(void **st) {
    (void)st;
    enum { N = 300 };
    plan_buf bufs[N];
    uint64_t off[N], size;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        uint64_t s = seed;
        plan_problem pb;
        uint32_t n = (uint32_t)(1 + pt_below(&s, N));
        pt_random_problem(&s, &pb, bufs, n, 50, (int)(seed & 1));
        assert_int_equal(plan_naive(&pb, off, &size), 0);
        uint64_t pa = pb.align ? pb.align : 1, top = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (bufs[i].size == 0) {
                assert_int_equal(off[i], 0);
                continue;
            }
            uint64_t a = bufs[i].align > pa ? bufs[i].align : pa;
            uint64_t want = (top + a - 1) / a * a;
            if (off[i] != want)
                fail_msg("seed %llu buffer %u: offset %llu, want %llu",
                         (unsigned long long)seed, i,
                         (unsigned long long)off[i], (unsigned long long)want);
            top = want + bufs[i].size;
        }
        assert_int_equal(size, (top + pa - 1) / pa * pa);
        /* NULL offsets: the same size, no array (plan --csv's naive size) */
        uint64_t size_only = 0;
        assert_int_equal(plan_naive(&pb, NULL, &size_only), 0);
        assert_int_equal(size_only, size);
        assert_true(pt_check_slow(&pb, off, size));
        assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
        assert_true(size >= plan_lower_bound(&pb));
    }
}

/* What plan_problem_ok refuses, naive refuses (-1), writing nothing. */
static void test_naive_refuses(void **st) {
    (void)st;
    plan_buf b[] = {nb(64, 0, 1, 1), nb(64, 1, 2, 1)};
    plan_problem pb = {2, b, 64, NULL};
    uint64_t off[2] = {7, 7}, size = 7;
    pb.align = 48; /* not a power of two */
    assert_int_equal(plan_naive(&pb, off, &size), -1);
    pb.align = 64;
    b[1].align = 3;
    assert_int_equal(plan_naive(&pb, off, &size), -1);
    b[1].align = 1;
    b[1].start = 3; /* after its end */
    assert_int_equal(plan_naive(&pb, off, &size), -1);
    b[1].start = 1;
    b[1].size = UINT64_C(1) << 63; /* the pool would pass 2^63 - 1 */
    assert_int_equal(plan_naive(&pb, off, &size), -1);
    assert_int_equal(off[0], 7);
    assert_int_equal(size, 7);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_naive_hand),
        cmocka_unit_test(test_naive_random),
        cmocka_unit_test(test_naive_refuses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

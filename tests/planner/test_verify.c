/*
 * tests/planner/test_verify.c - the verifier (planner/verify.c), alone and
 * against every algorithm on seeded random problems.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

/* ---- verifier ---- */

static void test_verifier_rejects(void **st) {
    (void)st;
    plan_buf b[] = {nb(64, 0, 2, 1), nb(64, 2, 4, 1), nb(64, 3, 5, 1)};
    plan_problem pb = {3, b, 64, NULL};
    char err[256];
    uint64_t ok[] = {0, 64, 0};
    assert_true(plan_verify_problem(&pb, ok, 128, err, sizeof err));
    uint64_t clash[] = {0, 0, 64}; /* 0 and 1 both live at 2 */
    assert_false(plan_verify_problem(&pb, clash, 128, err, sizeof err));
    assert_non_null(strstr(err, "share bytes"));
    uint64_t misaligned[] = {0, 64, 32};
    assert_false(plan_verify_problem(&pb, misaligned, 128, err, sizeof err));
    assert_non_null(strstr(err, "multiple"));
    uint64_t outside[] = {0, 64, 128};
    assert_false(plan_verify_problem(&pb, outside, 128, err, sizeof err));
    assert_non_null(strstr(err, "outside"));
    assert_false(plan_verify_problem(&pb, ok, 100, err, sizeof err));
}

/* ---- properties on seeded random problems ---- */

typedef int (*algo_fn)(const plan_problem *, uint64_t *, uint64_t *);

/* A buffer ending at the last byte of a 2^64 - 1 byte pool still
 * conflicts with the buffers above its offset (its end used to be stored
 * +1 and wrapped to "nothing"). */
static void test_verifier_end_of_address_space(void **st) {
    (void)st;
    plan_buf b[] = {nb(UINT64_MAX - 1, 0, 1, 1), nb(1, 0, 1, 2)};
    plan_problem pb = {2, b, 1, NULL};
    uint64_t off[2] = {1, 2};
    char err[200];
    assert_false(plan_verify_problem(&pb, off, UINT64_MAX, err, sizeof err));
    assert_non_null(strstr(err, "share bytes at offset 2"));
    off[1] = 0; /* below it: valid */
    assert_true(plan_verify_problem(&pb, off, UINT64_MAX, NULL, 0));
}

static void test_random_properties(void **st) {
    (void)st;
    static const algo_fn fns[] = {plan_naive, plan_reuse, plan_tree,
                                  plan_bestfit};
    static const char *const names[] = {"naive", "reuse", "tree", "bestfit"};
    enum { MAXN = 120 };
    plan_buf bufs[MAXN];
    uint64_t off[MAXN], off2[MAXN], noff[MAXN];
    for (uint64_t iter = 0; iter < 400; iter++) {
        uint64_t seed = 1000 + iter, s = seed;
        uint32_t n = (uint32_t)pt_below(&s, MAXN) + 1;
        plan_problem pb;
        pt_random_problem(&s, &pb, bufs, n, 1 + (uint32_t)pt_below(&s, 60),
                          iter % 3 == 0);
        uint64_t naive, lb = plan_lower_bound(&pb);
        assert_int_equal(plan_naive(&pb, noff, &naive), 0);
        for (int a = 0; a < 4; a++) {
            uint64_t size, size2;
            assert_int_equal(fns[a](&pb, off, &size), 0);
            char err[256] = "";
            bool v = plan_verify_problem(&pb, off, size, err, sizeof err);
            int slow = pt_check_slow(&pb, off, size);
            /* tree follows Inductor, which can do worse than naive (one
             * alignment for the whole tree, Empty padding) */
            if (!v || !slow || size < lb || (a != 2 && size > naive))
                fail_msg("seed %llu algo %s: verify %d slow %d size %llu "
                         "lb %llu naive %llu: %s",
                         (unsigned long long)seed, names[a], v, slow,
                         (unsigned long long)size, (unsigned long long)lb,
                         (unsigned long long)naive, err);
            assert_int_equal(fns[a](&pb, off2, &size2), 0);
            if (size != size2 || memcmp(off, off2, n * sizeof *off) != 0)
                fail_msg("seed %llu algo %s: not deterministic",
                         (unsigned long long)seed, names[a]);
        }
    }
}

/* The O(n log n) verifier agrees with the O(n^2) checker on random,
 * mostly invalid, plans. */
static void test_verifier_cross_check(void **st) {
    (void)st;
    enum { MAXN = 40 };
    plan_buf bufs[MAXN];
    uint64_t off[MAXN];
    unsigned valid = 0, invalid = 0;
    for (uint64_t iter = 0; iter < 3000; iter++) {
        uint64_t seed = 77000 + iter, s = seed;
        uint32_t n = (uint32_t)pt_below(&s, MAXN) + 1;
        plan_problem pb;
        pt_random_problem(&s, &pb, bufs, n, 1 + (uint32_t)pt_below(&s, 20),
                          iter % 2 == 0);
        uint64_t size;
        assert_int_equal(plan_bestfit(&pb, off, &size), 0);
        /* perturb a few offsets, aligned, sometimes the size */
        uint32_t k = (uint32_t)pt_below(&s, 3);
        for (uint32_t j = 0; j < k; j++) {
            uint32_t i = (uint32_t)pt_below(&s, n);
            uint64_t a = bufs[i].align > pb.align ? bufs[i].align : pb.align;
            off[i] = a * pt_below(&s, size / a + 1);
        }
        if (pt_below(&s, 8) == 0)
            size += pb.align;
        bool v = plan_verify_problem(&pb, off, size, NULL, 0);
        int slow = pt_check_slow(&pb, off, size);
        if (v != (slow != 0))
            fail_msg("seed %llu: verifier says %d, reference %d",
                     (unsigned long long)seed, v, slow);
        if (v)
            valid++;
        else
            invalid++;
    }
    assert_true(valid > 100);
    assert_true(invalid > 100);
}

/* Above 2048 buffers bestfit finds conflicts with its lifetime buckets
 * instead of the offset-sorted scan: check that path too. */

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_verifier_rejects),
        cmocka_unit_test(test_verifier_end_of_address_space),
        cmocka_unit_test(test_random_properties),
        cmocka_unit_test(test_verifier_cross_check),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

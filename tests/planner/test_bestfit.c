/*
 * tests/planner/test_bestfit.c - naive, bestfit and the lower bound
 * (planner/problem.c, planner/bestfit.c), bestfit at scale.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"
#include "planner/plan_internal.h"

/* ---- naive, bestfit, lower bound ---- */

static void test_naive_and_lower_bound(void **st) {
    (void)st;
    plan_buf b[] = {nb(100, 0, 1, 1), nb(0, 0, 5, 2), nb(64, 1, 2, 3),
                    nb(64, 2, 3, 3)};
    plan_problem pb = {4, b, 64, NULL};
    uint64_t off[4], size;
    assert_int_equal(plan_naive(&pb, off, &size), 0);
    assert_int_equal(off[0], 0);
    assert_int_equal(off[1], 0);
    assert_int_equal(off[2], 128);
    assert_int_equal(off[3], 192);
    assert_int_equal(size, 256);
    /* live at 1: 100 -> 128, plus 64 */
    assert_int_equal(plan_lower_bound(&pb), 192);
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    assert_int_equal(size, 192);
    assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
}

/* The naive pool must fit in PLAN_MAX_POOL_SIZE (2^63 - 1) bytes: the
 * first buffer that pushes it over is reported, padding included. */
static void test_first_oversize(void **st) {
    (void)st;
    const uint64_t q = UINT64_C(1) << 61; /* a quarter of 2^63 */
    plan_buf b[] = {nb(q, 0, 1, 1), nb(0, 0, 1, 2),      nb(q, 0, 1, 3),
                    nb(q, 1, 2, 4), nb(q - 64, 1, 2, 5), nb(1, 2, 3, 6)};
    /* 4q - 64 bytes end at 2^63 - 64: fits with pool alignment 64 */
    plan_problem pb = {5, b, 64, NULL};
    assert_int_equal(plan_first_oversize(&pb), UINT32_MAX);
    uint64_t off[6], size;
    assert_int_equal(plan_naive(&pb, off, &size), 0);
    assert_int_equal(size, 4 * q - 64);
    /* one more byte (its aligned end is 2^63): buffer 5 does not fit */
    pb.n = 6;
    assert_int_equal(plan_first_oversize(&pb), 5);
    /* with pool alignment 1 it ends at 2^63 - 63: fits */
    pb.align = 1;
    assert_int_equal(plan_first_oversize(&pb), UINT32_MAX);
    /* a buffer's own alignment pads it over: 2^63 - 64 rounds up to
     * 2^63 */
    b[5].align = 128;
    assert_int_equal(plan_first_oversize(&pb), 5);
    /* sizes alone above the limit */
    b[0].size = UINT64_MAX;
    assert_int_equal(plan_first_oversize(&pb), 0);
    /* an empty problem fits */
    pb.n = 0;
    assert_int_equal(plan_first_oversize(&pb), UINT32_MAX);
}

static void test_bestfit_chain_hits_lower_bound(void **st) {
    (void)st;
    /* a chain: each buffer lives two statements, sizes vary */
    plan_buf b[40];
    for (uint32_t i = 0; i < 40; i++)
        b[i] = nb(64 * (1 + (i * 7) % 11), i, i + 1, i);
    plan_problem pb = {40, b, 64, NULL};
    uint64_t off[40], size;
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    assert_int_equal(size, plan_lower_bound(&pb));
}

static void test_buffer_alignment(void **st) {
    (void)st;
    plan_buf b[] = {nb(10, 0, 3, 1), nb(10, 0, 3, 2)};
    b[1].align = 256;
    plan_problem pb = {2, b, 8, NULL};
    uint64_t off[2], size;
    plan_algo algos[] = {PLAN_NAIVE, PLAN_REUSE, PLAN_TREE, PLAN_BESTFIT};
    for (int a = 0; a < 4; a++) {
        int rc = algos[a] == PLAN_NAIVE   ? plan_naive(&pb, off, &size)
                 : algos[a] == PLAN_REUSE ? plan_reuse(&pb, off, &size)
                 : algos[a] == PLAN_TREE  ? plan_tree(&pb, off, &size)
                                          : plan_bestfit(&pb, off, &size);
        assert_int_equal(rc, 0);
        assert_int_equal(off[1] % 256, 0);
        assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
    }
}

static void test_bestfit_large_random(void **st) {
    (void)st;
    enum { N = 4000 };
    plan_buf *bufs = calloc(N, sizeof *bufs);
    uint64_t *off = calloc(N, sizeof *off);
    for (uint64_t iter = 0; iter < 4; iter++) {
        uint64_t seed = 9100 + iter, s = seed;
        plan_problem pb;
        pt_random_problem(&s, &pb, bufs, N, 200 + (uint32_t)(iter * 900),
                          iter % 2 == 1);
        uint64_t size, naive;
        assert_int_equal(plan_bestfit(&pb, off, &size), 0);
        int slow = pt_check_slow(&pb, off, size);
        bool v = plan_verify_problem(&pb, off, size, NULL, 0);
        uint64_t *noff = calloc(N, sizeof *noff);
        assert_int_equal(plan_naive(&pb, noff, &naive), 0);
        free(noff);
        if (!slow || !v || size < plan_lower_bound(&pb) || size > naive)
            fail_msg("seed %llu: slow %d verify %d size %llu",
                     (unsigned long long)seed, slow, v,
                     (unsigned long long)size);
    }
    free(bufs);
    free(off);
}

/* plan_bestfit_lb: plan_bestfit's plan, byte for byte, and
 * plan_lower_bound's bound (its passes' own in one colour class, the
 * bound of the whole problem with several), on problems with and without
 * colours, zero sizes, no buffer, and one that fails plan_problem_ok. */
static void lb_matches(const plan_problem *pb, uint64_t seed) {
    uint64_t *o1 = calloc((size_t)pb->n + 1, sizeof *o1);
    uint64_t *o2 = calloc((size_t)pb->n + 1, sizeof *o2);
    uint64_t s1 = 1, s2 = 2, lb = 3;
    int r1 = plan_bestfit(pb, o1, &s1);
    int r2 = plan_bestfit_lb(pb, o2, &s2, &lb);
    if (r1 != r2 || (r1 == 0 && (s1 != s2 || lb != plan_lower_bound(pb) ||
                                 memcmp(o1, o2, pb->n * sizeof *o1) != 0)))
        fail_msg("seed %llu: rc %d/%d size %llu/%llu lb %llu/%llu",
                 (unsigned long long)seed, r1, r2, (unsigned long long)s1,
                 (unsigned long long)s2, (unsigned long long)lb,
                 (unsigned long long)plan_lower_bound(pb));
    free(o1);
    free(o2);
}

static void test_bestfit_reports_lower_bound(void **st) {
    (void)st;
    enum { N = 3000 };
    plan_buf *bufs = calloc(N, sizeof *bufs);
    for (uint64_t iter = 0; iter < 12; iter++) {
        uint64_t seed = 7700 + iter, s = seed;
        plan_problem pb;
        uint32_t n = iter < 6 ? 40 : N; /* scanning / block passes */
        pt_random_problem(&s, &pb, bufs, n, 30 + (uint32_t)(iter * 300),
                          iter % 2 == 1);
        lb_matches(&pb, seed);
    }
    plan_problem empty = {0, bufs, 64, NULL};
    lb_matches(&empty, 0);
    bufs[0] = nb(0, 0, 5, 0); /* no buffer takes space */
    bufs[1] = nb(0, 2, 3, 1);
    plan_problem zero = {2, bufs, 64, NULL};
    lb_matches(&zero, 1);
    bufs[1].start = 4; /* start after end: refused by both */
    lb_matches(&zero, 2);
    free(bufs);
}

/* plan_run sets problem_bound to plan_lower_bound exactly for the
 * algorithms plan_run_reports_bound names (which `plan` and plan_program
 * then trust instead of computing the bound), and leaves it 0 for the
 * others. */
static void test_run_reports_bound(void **st) {
    (void)st;
    enum { N = 600 };
    plan_buf *bufs = calloc(N, sizeof *bufs);
    uint64_t *off = calloc(N, sizeof *off);
    uint64_t s = 5150;
    plan_problem pb;
    pt_random_problem(&s, &pb, bufs, N, 200, 0);
    uint64_t lb = plan_lower_bound(&pb);
    assert_true(lb > 0);
    int reporting = 0;
    for (int a = PLAN_NAIVE; a <= PLAN_AUTO; a++) {
        plan_options o;
        plan_options_init(&o);
        o.algo = (plan_algo)a;
        plan_search_stats ps;
        uint64_t size;
        assert_int_equal(plan_run(&pb, &o, 0, off, &size, &ps), 0);
        bool rep = plan_run_reports_bound(o.algo);
        reporting += rep;
        if (ps.problem_bound != (rep ? lb : 0))
            fail_msg("%s: problem_bound %llu, lower bound %llu",
                     plan_algo_name(o.algo),
                     (unsigned long long)ps.problem_bound,
                     (unsigned long long)lb);
    }
    assert_int_equal(reporting, 3); /* bestfit, search, auto */
    free(off);
    free(bufs);
}

/* Above 131072 buffers bestfit runs two passes: a valid plan, between
 * the lower bound and naive (the O(n log n) verifier only: the reference
 * checker is quadratic). */
static void test_bestfit_huge(void **st) {
    (void)st;
    enum { N = 140000 };
    plan_buf *bufs = calloc(N, sizeof *bufs);
    uint64_t *off = calloc(N, sizeof *off);
    uint64_t s = 4242, size, naive;
    plan_problem pb = {N, bufs, 64, NULL};
    for (uint32_t i = 0; i < N; i++) {
        bufs[i].start = i;
        bufs[i].end = i + (uint32_t)pt_below(&s, pt_below(&s, 50) ? 8 : 500);
        bufs[i].size = 64 * (1 + pt_below(&s, 32));
        bufs[i].align = 1;
        bufs[i].color = -1;
    }
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    char err[256] = "";
    if (!plan_verify_problem(&pb, off, size, err, sizeof err))
        fail_msg("seed 4242: %s", err);
    assert_true(size >= plan_lower_bound(&pb));
    assert_int_equal(plan_naive(&pb, off, &naive), 0);
    assert_true(size <= naive);
    free(bufs);
    free(off);
}

/* The work budget (PLAN_BF_WORK): all eleven passes up to 58982 buffers,
 * then pass i only while i * m < PLAN_BF_WORK, never fewer than the
 * first three (size, contention, start) up to PLAN_BF_LARGE, two above;
 * the count never grows with m, and the passes before the last place
 * fewer than PLAN_BF_WORK buffers. */
static void test_bestfit_work_budget(void **st) {
    (void)st;
    assert_int_equal(plan_bf_npasses(1), 11);
    assert_int_equal(plan_bf_npasses(58982), 11);
    assert_int_equal(plan_bf_npasses(58983), 10);
    assert_int_equal(plan_bf_npasses(100000), 6);
    assert_int_equal(plan_bf_npasses(PLAN_BF_LARGE), 5);
    assert_int_equal(plan_bf_npasses(PLAN_BF_LARGE + 1), 2);
    assert_int_equal(plan_bf_npasses(UINT32_MAX), 2);
    int prev = 11;
    for (uint32_t m = 1; m <= PLAN_BF_LARGE; m++) {
        int np = plan_bf_npasses(m);
        if (np > prev || np < 3 ||
            (np < 11 && (uint64_t)np * m < PLAN_BF_WORK) ||
            (uint64_t)(np - 1) * m >= PLAN_BF_WORK)
            fail_msg("m %u: %d passes after %d", m, np, prev);
        prev = np;
    }
}

/* Between 58982 buffers and PLAN_BF_LARGE, fewer passes: still a valid
 * plan between the lower bound and naive (the O(n log n) verifier). */
static void test_bestfit_budgeted(void **st) {
    (void)st;
    enum { N = 90000 };
    plan_buf *bufs = calloc(N, sizeof *bufs);
    uint64_t *off = calloc(N, sizeof *off);
    uint64_t s = 777, size, naive;
    plan_problem pb = {N, bufs, 64, NULL};
    for (uint32_t i = 0; i < N; i++) {
        bufs[i].start = i;
        bufs[i].end = i + (uint32_t)pt_below(&s, pt_below(&s, 50) ? 8 : 300);
        bufs[i].size = 64 * (1 + pt_below(&s, 32));
        bufs[i].align = 1;
        bufs[i].color = -1;
    }
    assert_int_equal(plan_bf_npasses(N), 7);
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    char err[256] = "";
    if (!plan_verify_problem(&pb, off, size, err, sizeof err))
        fail_msg("seed 777: %s", err);
    assert_true(size >= plan_lower_bound(&pb));
    assert_int_equal(plan_naive(&pb, off, &naive), 0);
    assert_true(size <= naive);
    free(bufs);
    free(off);
}

/* The start-order pass with a stop (array and treap): at the top it
 * gives with none (t1, offsets o1) or below, it ends at a top >= the stop
 * (at most t1) and writes no offset; just above, it is the whole pass. */
static void start_pass_stops(const plan_problem *pb, const uint32_t *order,
                             uint32_t maxlive, uint64_t cap, uint64_t t1,
                             const uint64_t *o1) {
    uint32_t n = pb->n;
    uint64_t *o = malloc(n * sizeof *o);
    const uint32_t lives[] = {maxlive, UINT32_MAX};
    for (int v = 0; v < 2; v++) {
        const uint64_t stops[] = {t1 / 2, t1, t1 + 1};
        for (int k = 0; k < 3; k++) {
            memset(o, 0xab, n * sizeof *o);
            uint64_t t =
                plan_bf_start_pass(pb, order, n, lives[v], cap, stops[k], o);
            if (k < 2) {
                assert_true(t >= stops[k] && t <= t1);
                for (uint32_t i = 0; i < n; i++)
                    assert_true(o[i] == UINT64_C(0xabababababababab));
            } else {
                assert_true(t == t1);
                assert_memory_equal(o, o1, n * sizeof *o);
            }
        }
    }
    free(o);
}

/* The start-order pass keeps few live blocks in a sorted array, many in
 * a treap: both give the same offsets (lowest and two-sided), on random
 * instances with up to ~200 buffers live at once and mixed alignments. */
static void test_start_pass_array_is_treap(void **st) {
    (void)st;
    enum { N = 3000, T = 1000 };
    plan_buf *b = calloc(N, sizeof *b);
    uint64_t *o1 = calloc(N, sizeof *o1), *o2 = calloc(N, sizeof *o2);
    uint32_t *order = calloc(N, sizeof *order), live[T + 300];
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t s = seed;
        memset(live, 0, sizeof live);
        for (uint32_t i = 0; i < N; i++) { /* already in start order */
            b[i] = nb(1 + pt_below(&s, seed % 2 ? 5000 : 64 * 1024), i * T / N,
                      i * T / N + (uint32_t)pt_below(&s, 1 + seed * 25), i);
            b[i].align = pt_below(&s, 4) == 0 ? 256 : 1;
            order[i] = i;
            for (uint32_t t = b[i].start; t <= b[i].end; t++)
                live[t]++;
        }
        uint32_t maxlive = 0;
        for (uint32_t t = 0; t < T + 300; t++)
            maxlive = live[t] > maxlive ? live[t] : maxlive;
        assert_true(maxlive <= 256);
        plan_problem pb = {N, b, 64, NULL};
        uint64_t caps[] = {0, plan_lower_bound(&pb)};
        for (int k = 0; k < 2; k++) {
            uint64_t t1 = plan_bf_start_pass(&pb, order, N, maxlive, caps[k],
                                             UINT64_MAX, o1);
            uint64_t t2 = plan_bf_start_pass(&pb, order, N, UINT32_MAX, caps[k],
                                             UINT64_MAX, o2);
            if (t1 != t2 || memcmp(o1, o2, N * sizeof *o1) != 0)
                fail_msg("seed %llu cap %llu: array top %llu, treap %llu",
                         (unsigned long long)seed, (unsigned long long)caps[k],
                         (unsigned long long)t1, (unsigned long long)t2);
            assert_true(pt_check_slow(&pb, o1, (t1 + 63) / 64 * 64));
            start_pass_stops(&pb, order, maxlive, caps[k], t1, o1);
        }
    }
    free(b);
    free(o1);
    free(o2);
    free(order);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_naive_and_lower_bound),
        cmocka_unit_test(test_first_oversize),
        cmocka_unit_test(test_bestfit_chain_hits_lower_bound),
        cmocka_unit_test(test_buffer_alignment),
        cmocka_unit_test(test_bestfit_large_random),
        cmocka_unit_test(test_bestfit_reports_lower_bound),
        cmocka_unit_test(test_run_reports_bound),
        cmocka_unit_test(test_bestfit_huge),
        cmocka_unit_test(test_bestfit_work_budget),
        cmocka_unit_test(test_bestfit_budgeted),
        cmocka_unit_test(test_start_pass_array_is_treap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

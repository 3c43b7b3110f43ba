/*
 * tests/planner/test_limits.c - the layer-1 API at the edge of 64 bits.
 *
 * Problems whose naive plan passes PLAN_MAX_POOL_SIZE (sizes near 2^63
 * and 2^64, alignments of 2^62, many buffers whose sizes sum past 2^64)
 * or that are malformed (an alignment that is not a power of two, start >
 * end) are refused by every algorithm called directly (plan_naive,
 * plan_reuse, plan_tree, plan_tree_pools, plan_bestfit, plan_search,
 * plan_run) with -1 and nothing written; a problem exactly at the limit
 * still plans.  plan_lower_bound saturates instead of wrapping and the
 * verifier never wraps.  The ASan/UBSan build runs these (UB aborts).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

#define MAXP PLAN_MAX_POOL_SIZE
#define P62 (UINT64_C(1) << 62)
#define P63 (UINT64_C(1) << 63)
#define SENTINEL UINT64_C(0x5a5a5a5a5a5a5a5a)

static plan_buf lb_buf(uint64_t size, uint32_t s, uint32_t e, uint64_t align,
                       int32_t color) {
    plan_buf x;
    memset(&x, 0, sizeof x);
    x.size = size;
    x.align = align;
    x.start = s;
    x.end = e;
    x.reuse_key = 1;
    x.color = color;
    return x;
}

typedef int (*algo_fn)(const plan_problem *, uint64_t *, uint64_t *);

static const algo_fn algos[] = {plan_naive, plan_reuse, plan_tree,
                                plan_bestfit};
static const char *const algo_names[] = {"naive", "reuse", "tree", "bestfit"};
#define NALGO (sizeof algos / sizeof algos[0])

/* Every entry point refuses pb: -1, offsets and size untouched. */
static void expect_refused(const plan_problem *pb, const char *what) {
    uint32_t n = pb->n;
    uint64_t *off = malloc(((size_t)n + 1) * sizeof *off);
    uint32_t *sub = malloc(((size_t)n + 1) * sizeof *sub);
    uint64_t *ssz = malloc(((size_t)n + 1) * sizeof *ssz);
    assert_non_null(off);
    assert_non_null(sub);
    assert_non_null(ssz);
    assert_false(plan_problem_ok(pb));
    for (size_t k = 0; k < NALGO; k++) {
        for (uint32_t i = 0; i < n; i++)
            off[i] = SENTINEL;
        uint64_t size = SENTINEL;
        if (algos[k](pb, off, &size) != -1)
            fail_msg("%s: %s accepted it", what, algo_names[k]);
        assert_int_equal(size, SENTINEL);
        for (uint32_t i = 0; i < n; i++)
            assert_int_equal(off[i], SENTINEL);
    }
    uint32_t nsub = 7;
    assert_int_equal(
        plan_tree_pools(pb, NULL, PLAN_MP_INTERMEDIATES, off, sub, ssz, &nsub),
        -1);
    assert_int_equal(nsub, 7);
    /* the search, minimising and with every kind of capacity */
    static const uint64_t caps[] = {0, 1, MAXP, P63, UINT64_MAX};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        plan_search_opts so = {.budget = 1000, .capacity = caps[c]};
        plan_search_stats st;
        memset(&st, 0x5a, sizeof st);
        uint64_t size = SENTINEL;
        if (plan_search(pb, &so, off, &size, &st) != -1)
            fail_msg("%s: search (capacity %llu) accepted it", what,
                     (unsigned long long)caps[c]);
        assert_int_equal(size, SENTINEL);
        assert_int_equal(st.steps, 0);
        assert_false(st.fits);
    }
    uint64_t sz = SENTINEL;
    assert_int_equal(plan_search(pb, NULL, off, &sz, NULL), -1);
    assert_int_equal(sz, SENTINEL);
    /* plan_run, for every algorithm */
    for (int a = PLAN_NAIVE; a <= PLAN_SEARCH; a++) {
        plan_options o;
        plan_options_init(&o);
        o.algo = (plan_algo)a;
        uint64_t size = SENTINEL;
        if (plan_run(pb, &o, UINT64_MAX, off, &size, NULL) != -1)
            fail_msg("%s: plan_run %s accepted it", what,
                     plan_algo_name((plan_algo)a));
        assert_int_equal(size, SENTINEL);
    }
    free(off);
    free(sub);
    free(ssz);
}

/* Every algorithm plans pb: 0, a valid plan within PLAN_MAX_POOL_SIZE;
 * returns the sizes (naive, reuse, tree, bestfit, search). */
static void expect_planned(const plan_problem *pb, uint64_t sizes[5]) {
    uint32_t n = pb->n;
    uint64_t *off = calloc((size_t)n + 1, sizeof *off);
    assert_non_null(off);
    assert_true(plan_problem_ok(pb));
    char err[256];
    for (size_t k = 0; k < NALGO; k++) {
        uint64_t size = SENTINEL;
        assert_int_equal(algos[k](pb, off, &size), 0);
        if (!plan_verify_problem(pb, off, size, err, sizeof err))
            fail_msg("%s: %s", algo_names[k], err);
        if (!pt_check_slow(pb, off, size))
            fail_msg("%s: reference checker rejects the plan", algo_names[k]);
        assert_true(size <= MAXP);
        sizes[k] = size;
    }
    plan_search_opts so = {.budget = 2000};
    plan_search_stats st;
    uint64_t size = SENTINEL;
    assert_int_equal(plan_search(pb, &so, off, &size, &st), 0);
    assert_true(plan_verify_problem(pb, off, size, err, sizeof err));
    assert_true(size <= MAXP);
    assert_true(size <= st.start_size);
    sizes[4] = size;
    /* capacity = UINT64_MAX: met at once by the best-fit plan */
    so.capacity = UINT64_MAX;
    assert_int_equal(plan_search(pb, &so, off, &size, &st), 0);
    assert_true(plan_verify_problem(pb, off, size, err, sizeof err));
    assert_true(st.fits);
    assert_false(st.infeasible);
    assert_int_equal(size, st.start_size);
    for (int a = PLAN_NAIVE; a <= PLAN_SEARCH; a++) {
        plan_options o;
        plan_options_init(&o);
        o.algo = (plan_algo)a;
        o.search.budget = 2000;
        assert_int_equal(plan_run(pb, &o, UINT64_MAX, off, &size, NULL), 0);
        assert_true(plan_verify_problem(pb, off, size, err, sizeof err));
        assert_true(size <= MAXP);
    }
    free(off);
}

/* ---- refused: sizes near 2^63 and 2^64 ---- */

static void test_refuse_huge_sizes(void **st) {
    (void)st;
    plan_buf b[3];
    plan_problem pb = {1, b, 1, NULL};
    b[0] = lb_buf(P63, 0, 1, 1, -1); /* one byte over the limit */
    expect_refused(&pb, "2^63");
    b[0].size = UINT64_MAX;
    expect_refused(&pb, "2^64 - 1");
    b[0].size = UINT64_MAX - 63;
    pb.align = 64; /* rounds up to 2^64 */
    expect_refused(&pb, "2^64 - 63, pool alignment 64");
    /* MAX itself fits with alignment 1, not once rounded up to 64 */
    b[0].size = MAXP;
    expect_refused(&pb, "2^63 - 1, pool alignment 64");
    /* three buffers of 2^63 - 1: their sum wraps past 2^64 */
    pb.align = 1;
    pb.n = 3;
    b[0] = lb_buf(MAXP, 0, 2, 1, -1);
    b[1] = lb_buf(MAXP, 1, 3, 1, -1);
    b[2] = lb_buf(MAXP, 4, 5, 1, -1); /* time-disjoint: naive counts it */
    expect_refused(&pb, "3 x (2^63 - 1)");
    /* with stream colours (the colour-class driver) */
    b[0].color = 0;
    b[1].color = 1;
    b[2].color = -2;
    expect_refused(&pb, "3 x (2^63 - 1), coloured");
}

/* ---- refused: many buffers whose sum overflows ---- */

static void test_refuse_many_buffers(void **st) {
    (void)st;
    enum { N = 1100 }; /* 1100 x 2^54 > 2^64 > 2^63 */
    plan_buf *b = calloc(N, sizeof *b);
    assert_non_null(b);
    for (uint32_t i = 0; i < N; i++)
        b[i] = lb_buf(UINT64_C(1) << 54, i % 7, i % 7 + 3, 1, -1);
    plan_problem pb = {N, b, 64, NULL};
    assert_int_equal(plan_first_oversize(&pb), 511);
    expect_refused(&pb, "1100 x 2^54");
    /* 511 of them fit (511 x 2^54 < 2^63) and plan */
    pb.n = 511;
    uint64_t sizes[5];
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[0], 511 * (UINT64_C(1) << 54));
    free(b);
}

/* ---- refused: alignments of 2^62 ---- */

static void test_refuse_alignment(void **st) {
    (void)st;
    plan_buf b[3];
    plan_problem pb = {3, b, 1, NULL};
    /* three buffers aligned to 2^62: the third one's offset is 2^63 */
    for (uint32_t i = 0; i < 3; i++)
        b[i] = lb_buf(1, 0, 1, P62, -1);
    expect_refused(&pb, "3 buffers aligned to 2^62");
    /* two fit: offsets 0 and 2^62 */
    pb.n = 2;
    uint64_t sizes[5];
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[0], P62 + 1);
    /* the pool alignment 2^62: 2^62 + 1 rounds up to 2^63 */
    pb.align = P62;
    expect_refused(&pb, "pool alignment 2^62");
    /* pool alignment 2^63: nothing nonempty fits */
    pb.align = P63;
    pb.n = 1;
    expect_refused(&pb, "pool alignment 2^63");
    /* alignments that are not powers of two */
    pb.align = 3;
    expect_refused(&pb, "pool alignment 3");
    pb.align = 1;
    b[0].align = UINT64_MAX;
    expect_refused(&pb, "buffer alignment 2^64 - 1");
    b[0].align = 1;
    b[0].start = 2; /* start after end */
    expect_refused(&pb, "start > end");
    /* 0 and 1 mean "no alignment" */
    b[0].start = 0;
    b[0].align = 0;
    pb.align = 0;
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[3], 1);
}

/* ---- exactly at the limit ---- */

static void test_exactly_at_limit(void **st) {
    (void)st;
    plan_buf b[3];
    uint64_t sizes[5];
    /* one buffer of 2^63 - 1 bytes */
    plan_problem pb = {1, b, 1, NULL};
    b[0] = lb_buf(MAXP, 0, 1, 1, -1);
    expect_planned(&pb, sizes);
    for (int k = 0; k < 5; k++)
        assert_int_equal(sizes[k], MAXP);
    assert_int_equal(plan_lower_bound(&pb), MAXP);
    /* two overlapping buffers summing to 2^63 - 1, the first aligned to
     * 2^62: every plan is MAX bytes, and it is the lower bound */
    pb.n = 2;
    b[0] = lb_buf(P62, 0, 2, P62, -1);
    b[1] = lb_buf(P62 - 1, 1, 3, 1, -1);
    expect_planned(&pb, sizes);
    for (int k = 0; k < 5; k++)
        assert_int_equal(sizes[k], MAXP);
    /* time-disjoint: they share bytes, the naive plan is still at the
     * limit */
    b[1].start = 3;
    b[1].end = 4;
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[0], MAXP);
    assert_int_equal(sizes[3], P62);
    assert_int_equal(sizes[4], P62);
    /* pool alignment 64: 2^63 - 64 bytes is the largest pool */
    pb.align = 64;
    pb.n = 1;
    b[0] = lb_buf(MAXP - 63, 0, 1, 1, -1);
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[3], MAXP - 63);
    b[0].size = MAXP - 62; /* rounds up to 2^63 */
    expect_refused(&pb, "2^63 - 62, pool alignment 64");
}

/* ---- search capacity near 2^64 ---- */

static void test_search_capacity_limits(void **st) {
    (void)st;
    plan_buf b[2] = {lb_buf(P62, 0, 2, P62, -1), lb_buf(P62 - 1, 1, 3, 1, -1)};
    plan_problem pb = {2, b, 1, NULL};
    uint64_t off[2], size;
    plan_search_stats ss;
    char line[512];
    static const uint64_t fit[] = {MAXP, P63, UINT64_MAX - 1, UINT64_MAX};
    for (size_t k = 0; k < sizeof fit / sizeof fit[0]; k++) {
        plan_search_opts so = {.capacity = fit[k]};
        assert_int_equal(plan_search(&pb, &so, off, &size, &ss), 0);
        assert_int_equal(size, MAXP);
        assert_true(ss.fits);
        assert_true(ss.optimal);
        assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
        plan_search_describe(line, sizeof line, size, &so, &ss);
        assert_non_null(strstr(line, "fits in"));
    }
    /* one byte less: the lower bound proves it infeasible */
    plan_search_opts so = {.capacity = MAXP - 1};
    assert_int_equal(plan_search(&pb, &so, off, &size, &ss), 0);
    assert_false(ss.fits);
    assert_true(ss.infeasible);
    assert_int_equal(ss.lower_bound, MAXP);
    assert_true(plan_verify_problem(&pb, off, size, NULL, 0));

    /* A search that runs (best-fit is not optimal) with capacity 2^64 - 1
     * and with capacities below the best-fit size, on sizes near 2^61. */
    plan_buf c[6];
    const uint64_t q = UINT64_C(1) << 58;
    for (uint32_t i = 0; i < 6; i++)
        c[i] = lb_buf(q * (1 + i % 3), i, i + 2, 1, -1);
    plan_problem pc = {6, c, 64, NULL};
    uint64_t off6[6];
    static const uint64_t caps[] = {UINT64_MAX, UINT64_MAX - 64, MAXP, 0, 1,
                                    5 * q};
    for (size_t k = 0; k < sizeof caps / sizeof caps[0]; k++) {
        plan_search_opts o6 = {.budget = 5000, .capacity = caps[k]};
        assert_int_equal(plan_search(&pc, &o6, off6, &size, &ss), 0);
        char err[256];
        if (!plan_verify_problem(&pc, off6, size, err, sizeof err))
            fail_msg("capacity %llu: %s", (unsigned long long)caps[k], err);
        assert_true(size <= MAXP);
        assert_true(ss.lower_bound <= size);
        if (caps[k] >= ss.start_size)
            assert_true(ss.fits);
        plan_search_describe(line, sizeof line, size, &o6, &ss);
    }
}

/* ---- lower bound: saturates, never wraps ---- */

static void test_lower_bound_saturates(void **st) {
    (void)st;
    plan_buf b[4];
    plan_problem pb = {2, b, 1, NULL};
    /* 2^63 + 2^63 live at statement 1: exactly 2^64 (used to wrap to 0,
     * giving 2^63) */
    b[0] = lb_buf(P63, 0, 1, 1, -1);
    b[1] = lb_buf(P63, 1, 2, 1, -1);
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX);
    /* saturates at a multiple of the pool alignment */
    pb.align = 64;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX - 63);
    /* 2^63 + (2^63 - 64) fits in 64 bits: exact */
    b[1].size = P63 - 64;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX - 63);
    b[1].size = P63 - 128;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX - 127);
    /* time-disjoint halves: the peak is below 2^64 although the sizes
     * sum past it */
    b[1].start = 2;
    b[1].size = UINT64_MAX - 100;
    pb.align = 1;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX - 100);
    /* a single size that rounds up past 2^64 */
    b[1].size = UINT64_MAX - 10;
    pb.align = 64;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX - 63);
    /* four buffers of 2^64 - 1, all live at once: far past 2^64 */
    pb.n = 4;
    pb.align = 1;
    for (uint32_t i = 0; i < 4; i++)
        b[i] = lb_buf(UINT64_MAX, i, 9, 1, -1);
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX);
    /* ... and one dies before the others start: still saturated, then
     * exact again for two of them */
    b[0].end = 0;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX);
    b[0].size = b[1].size = 5;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX);
    b[2].size = 7;
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX);
    b[3].size = 9;
    assert_int_equal(plan_lower_bound(&pb), 21);
    /* a buffer with start > end is live nowhere (used to wrap the running
     * sum below zero and report ~2^64) */
    pb.n = 2;
    b[0] = lb_buf(100, 5, 2, 1, -1);
    b[1] = lb_buf(64, 0, 9, 1, -1);
    assert_int_equal(plan_lower_bound(&pb), 64);
}

/* ---- many buffers whose sum overflows: lower bound exact/saturated ---- */

static void test_lower_bound_many(void **st) {
    (void)st;
    enum { N = 3000 };
    plan_buf *b = calloc(N, sizeof *b);
    assert_non_null(b);
    /* 3000 x 2^53 live at once: 3000 / 2048 x 2^64 */
    for (uint32_t i = 0; i < N; i++)
        b[i] = lb_buf(UINT64_C(1) << 53, 0, 1, 1, -1);
    plan_problem pb = {N, b, 1, NULL};
    assert_int_equal(plan_lower_bound(&pb), UINT64_MAX);
    /* 1500 at [0, 1], 1500 at [2, 3]: 1500 x 2^53 < 2^64 each */
    for (uint32_t i = N / 2; i < N; i++)
        b[i].start = 2, b[i].end = 3;
    assert_int_equal(plan_lower_bound(&pb), 1500 * (UINT64_C(1) << 53));
    free(b);
}

/* ---- tree: huge alignments blow the tree up, never wrap ---- */

static void test_tree_huge_alignment(void **st) {
    (void)st;
    /* Five overlapping 64-byte buffers, the first aligned to 2^62: naive
     * needs 320 bytes, but the tree aligns every split to 2^62 (offsets 0,
     * 2^62, 2^63, 3 x 2^62, 2^64: used to wrap into an invalid plan). */
    plan_buf b[5];
    for (uint32_t i = 0; i < 5; i++)
        b[i] = lb_buf(64, 0, 3, i == 0 ? P62 : 1, -1);
    plan_problem pb = {5, b, 64, NULL};
    uint64_t sizes[5];
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[0], 320);
    assert_int_equal(sizes[2], 320); /* the naive fallback */
    /* three of them: the tree needs 2^63 + 64 bytes, past the limit */
    pb.n = 3;
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[2], 192);
    /* two: the tree's own layout, 2^62 + 64 bytes, within the limit */
    pb.n = 2;
    expect_planned(&pb, sizes);
    assert_int_equal(sizes[2], P62 + 64);
    /* plan_tree_pools reports the blown-up pool saturated */
    pb.n = 5;
    uint64_t off[5], ssz[5];
    uint32_t sub[5], nsub = 0;
    assert_int_equal(
        plan_tree_pools(&pb, NULL, PLAN_MP_INTERMEDIATES, off, sub, ssz, &nsub),
        0);
    assert_int_equal(nsub, 1);
    assert_int_equal(ssz[0], UINT64_MAX);
    /* with colours: every class falls back, then the classes stack */
    for (uint32_t i = 0; i < 5; i++)
        b[i].color = i < 3 ? 0 : 1;
    b[3].align = P62;
    expect_planned(&pb, sizes);
    assert_true(sizes[2] <= sizes[0]);
}

/* ---- best-fit: alignment padding in another order than naive's ---- */

static void test_bestfit_padding_past_limit(void **st) {
    (void)st;
    /* Naive: B (aligned to 2^62) at 0, A at 2^62 - 2: 2^63 - 1 bytes.
     * Size order puts A first, then B at 2^63: past the limit (the pass
     * is dropped, never wraps). */
    plan_buf b[3] = {lb_buf(P62 - 2, 0, 1, P62, -1),
                     lb_buf(P62 + 1, 0, 1, 1, -1), lb_buf(0, 0, 1, 1, -1)};
    plan_problem pb = {3, b, 1, NULL};
    uint64_t sizes[5];
    expect_planned(&pb, sizes);
    for (int k = 0; k < 5; k++)
        assert_int_equal(sizes[k], MAXP);
    /* a 2^63-aligned buffer too: greedy orders push it to 2^63 */
    plan_buf c[3] = {lb_buf(1, 0, 1, P63, -1), lb_buf(P62 / 4, 0, 1, P62, -1),
                     lb_buf(P62 / 4 + 1, 0, 1, 1, -1)};
    plan_problem pc = {3, c, 1, NULL};
    expect_planned(&pc, sizes);
    assert_true(sizes[3] <= sizes[0]);
}

/* ---- colour classes stacked past the limit ---- */

static void test_classes_stacked_past_limit(void **st) {
    (void)st;
    /* Naive: A 0, C 2^62, B 2^62 + 1 (2^62 + 2 bytes).  Stacking the
     * colour classes (B; A; C) pads A to 2^62 and C to 2^63: past the
     * limit, so every algorithm keeps the naive plan. */
    plan_buf b[3] = {lb_buf(1, 0, 1, P62, 1), lb_buf(1, 0, 1, P62, 2),
                     lb_buf(1, 0, 1, 1, 0)};
    plan_problem pb = {3, b, 1, NULL};
    uint64_t sizes[5];
    expect_planned(&pb, sizes);
    for (int k = 0; k < 5; k++)
        assert_int_equal(sizes[k], P62 + 2);
}

/* ---- the verifier never wraps ---- */

static void test_verifier_past_2_64(void **st) {
    (void)st;
    plan_buf b[2] = {lb_buf(UINT64_MAX, 0, 1, 1, -1), lb_buf(2, 2, 3, 1, -1)};
    plan_problem pb = {2, b, 1, NULL};
    uint64_t off[2] = {1, 0};
    char err[256];
    /* [1, 2^64): past 2^64, even with the largest pool */
    assert_false(plan_verify_problem(&pb, off, UINT64_MAX, err, sizeof err));
    assert_non_null(strstr(err, "end past 2^64"));
    assert_non_null(strstr(err, "[1, 1 + 18446744073709551615)"));
    /* at 0 it ends at 2^64 - 1: inside a pool of 2^64 - 1 bytes */
    off[0] = 0;
    assert_true(plan_verify_problem(&pb, off, UINT64_MAX, err, sizeof err));
    /* but not inside a smaller pool */
    assert_false(
        plan_verify_problem(&pb, off, UINT64_MAX - 1, err, sizeof err));
    assert_non_null(strstr(err, "outside the pool"));
    /* an offset past the pool, and an offset near 2^64 */
    pb.n = 2;
    b[0].size = 1;
    off[0] = 0;
    off[1] = UINT64_MAX - 1;
    assert_false(plan_verify_problem(&pb, off, 100, err, sizeof err));
    assert_non_null(strstr(err, "outside the pool of 100 bytes"));
    assert_false(plan_verify_problem(&pb, off, UINT64_MAX, err, sizeof err));
    assert_non_null(strstr(err, "end past 2^64"));
    off[1] = UINT64_MAX - 2; /* ends at 2^64 - 1 exactly */
    assert_true(plan_verify_problem(&pb, off, UINT64_MAX, err, sizeof err));
}

int main(int argc, char **argv) {
    if (argc > 1)
        cmocka_set_test_filter(argv[1]); /* e.g. test_lower_bound* */
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_refuse_huge_sizes),
        cmocka_unit_test(test_refuse_many_buffers),
        cmocka_unit_test(test_refuse_alignment),
        cmocka_unit_test(test_exactly_at_limit),
        cmocka_unit_test(test_search_capacity_limits),
        cmocka_unit_test(test_lower_bound_saturates),
        cmocka_unit_test(test_lower_bound_many),
        cmocka_unit_test(test_tree_huge_alignment),
        cmocka_unit_test(test_bestfit_padding_past_limit),
        cmocka_unit_test(test_classes_stacked_past_limit),
        cmocka_unit_test(test_verifier_past_2_64),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/planner/test_compare.c - the simulations of `plan --compare`
 * (planner/compare.h) on hand-worked traces: the caching allocator's
 * rounding, pools, segment sizes, splits and merges at their boundaries;
 * TFLite Micro's and ExecuTorch's greedy planners on small cases worked
 * out by hand from their algorithms; and every simulated plan of random
 * problems proved by the verifier.
 */
#include "plan_test_util.h"
#include "planner/compare.h"

#include <setjmp.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#define KiB UINT64_C(1024)
#define MiB (UINT64_C(1024) * 1024)

typedef struct tr {
    plan_buf b[64];
    plan_problem pb;
} tr;

static void tr_init(tr *t, uint64_t align) {
    memset(t, 0, sizeof *t);
    t->pb.bufs = t->b;
    t->pb.align = align;
}

/* A buffer of `size` bytes allocated at `start`, freed after `end`. */
static void tr_add(tr *t, uint64_t size, uint32_t start, uint32_t end) {
    plan_buf *b = &t->b[t->pb.n++];
    b->size = size;
    b->align = 1;
    b->start = start;
    b->end = end;
    b->color = -1;
}

static plan_ca_stats ca(const tr *t) {
    plan_ca_stats s, v;
    assert_int_equal(plan_caching_allocator(&t->pb, PLAN_CA_FREE_IN_ORDER, &s),
                     0);
    /* frees of one time never interleave with allocations, and merging
     * is order-independent: the article's order cannot change anything */
    assert_int_equal(
        plan_caching_allocator(&t->pb, PLAN_CA_FREE_MOST_SPACE_FIRST, &v), 0);
    assert_int_equal(v.reserved_peak, s.reserved_peak);
    assert_int_equal(v.allocated_peak, s.allocated_peak);
    assert_int_equal(v.segments, s.segments);
    return s;
}

/* 512-byte rounding; small requests share one 2 MiB segment. */
static void test_ca_rounding(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 1, 0, 3);   /* 512 */
    tr_add(&t, 512, 0, 3); /* 512 */
    tr_add(&t, 513, 0, 3); /* 1024 */
    tr_add(&t, 0, 0, 3);   /* no request */
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.allocated_peak, 2048);
    assert_int_equal(s.reserved_peak, 2 * MiB);
    assert_int_equal(s.segments, 1);
}

/* Exactly 1 MiB is small (2 MiB segment), one byte more is large
 * (20 MiB segment). */
static void test_ca_1mib_boundary(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, MiB, 0, 1);
    tr_add(&t, MiB + 1, 0, 1);
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.segments, 2);
    assert_int_equal(s.reserved_peak, 22 * MiB);
    assert_int_equal(s.allocated_peak, 2 * MiB + 512);
}

/* Below 10 MiB: a 20 MiB segment; 10 MiB and above: rounded up to 2 MiB;
 * a large remainder of exactly 1 MiB is not split off. */
static void test_ca_10mib_boundary(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 10 * MiB - 512, 0, 3); /* 20 MiB segment, 10 MiB+512 left */
    tr_add(&t, 10 * MiB, 0, 3);       /* fits the remainder: no segment */
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.segments, 1);
    assert_int_equal(s.reserved_peak, 20 * MiB);
    /* remainder 512 of the large pool: not split, the whole block counts */
    assert_int_equal(s.allocated_peak, 20 * MiB);

    tr_init(&t, 1);
    tr_add(&t, 10 * MiB, 0, 3);     /* segment of exactly 10 MiB */
    tr_add(&t, 11 * MiB, 0, 3);     /* 12 MiB segment, 1 MiB left: not split */
    tr_add(&t, 10 * MiB + 1, 0, 3); /* 10 MiB+512 -> 12 MiB, split */
    tr_add(&t, 512 * KiB, 0, 3);    /* small: its own 2 MiB segment */
    s = ca(&t);
    assert_int_equal(s.segments, 4);
    assert_int_equal(s.reserved_peak, (10 + 12 + 12 + 2) * MiB);
    assert_int_equal(s.allocated_peak,
                     10 * MiB + 12 * MiB + 10 * MiB + 512 + 512 * KiB);
}

/* A small segment filled exactly: the remainder 0 is not split, the next
 * request needs a new segment. */
static void test_ca_small_split(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, MiB, 0, 2);
    tr_add(&t, MiB, 0, 2);
    tr_add(&t, 512, 1, 2);
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.segments, 2);
    assert_int_equal(s.reserved_peak, 4 * MiB);
    assert_int_equal(s.allocated_peak, 2 * MiB + 512);
}

/* Freed neighbours merge: two freed 8 MiB blocks and the 4 MiB remainder
 * become one 20 MiB block that serves 16 MiB. */
static void test_ca_merge(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 8 * MiB, 0, 1);
    tr_add(&t, 8 * MiB, 0, 1);
    tr_add(&t, 16 * MiB, 2, 3);
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.segments, 1);
    assert_int_equal(s.reserved_peak, 20 * MiB);
    assert_int_equal(s.allocated_peak, 16 * MiB);

    /* only the first freed: 8 MiB free next to the busy second block,
     * no 16 MiB block anywhere -> a new 16 MiB segment */
    tr_init(&t, 1);
    tr_add(&t, 8 * MiB, 0, 1);
    tr_add(&t, 8 * MiB, 0, 3);
    tr_add(&t, 16 * MiB, 2, 3);
    s = ca(&t);
    assert_int_equal(s.segments, 2);
    assert_int_equal(s.reserved_peak, 36 * MiB);
    assert_int_equal(s.allocated_peak, 24 * MiB);
}

/* Best fit: free blocks of 3, 6 and 7 MiB; 6 MiB takes the 6 MiB block
 * (not the 7 MiB one), so 7 MiB still fits: no new segment. */
static void test_ca_best_fit(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 3 * MiB, 0, 1); /* @0 */
    tr_add(&t, 2 * MiB, 0, 9); /* @3 */
    tr_add(&t, 6 * MiB, 0, 1); /* @5 */
    tr_add(&t, 2 * MiB, 0, 9); /* @11; 7 MiB left @13 */
    tr_add(&t, 6 * MiB, 2, 9);
    tr_add(&t, 7 * MiB, 3, 9);
    tr_add(&t, 3 * MiB, 4, 9);
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.segments, 1);
    assert_int_equal(s.reserved_peak, 20 * MiB);
    assert_int_equal(s.allocated_peak, 20 * MiB);
}

/* At one time, allocations come before frees: a buffer ending at t and
 * one starting at t coexist. */
static void test_ca_event_order(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 2 * MiB, 0, 1);
    tr_add(&t, 2 * MiB, 1, 2); /* overlaps at 1 */
    tr_add(&t, 2 * MiB, 2, 3); /* the first is free again */
    plan_ca_stats s = ca(&t);
    assert_int_equal(s.segments, 1);
    assert_int_equal(s.allocated_peak, 4 * MiB);
}

static void check_plan(const plan_problem *pb,
                       int (*fn)(const plan_problem *, uint64_t *, uint64_t *),
                       const uint64_t *want, uint64_t want_size) {
    uint64_t off[64], size = 0;
    assert_int_equal(fn(pb, off, &size), 0);
    assert_true(plan_verify_problem(pb, off, size, NULL, 0));
    assert_true(pt_check_slow(pb, off, size));
    for (uint32_t i = 0; i < pb->n; i++)
        assert_int_equal(off[i], want[i]);
    assert_int_equal(size, want_size);
}

/* Sorted a100 c80 b50 d30; b goes above a and c (equal offsets 0), d above
 * b. */
static void test_tflm_stack(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 100, 0, 1); /* a */
    tr_add(&t, 50, 1, 2);  /* b */
    tr_add(&t, 80, 2, 3);  /* c */
    tr_add(&t, 30, 0, 3);  /* d */
    uint64_t want[] = {0, 100, 0, 150};
    check_plan(&t.pb, plan_tflm_greedy, want, 180);
}

/* A gap below a placed buffer is taken; sizes count rounded up to the
 * pool alignment; equal sizes keep index order. */
static void test_tflm_gap(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 16);
    tr_add(&t, 100, 0, 0); /* 112: @0 */
    tr_add(&t, 60, 0, 2);  /* 64: above the first, @112 */
    tr_add(&t, 40, 2, 2);  /* 48: the gap [0, 112) under the second */
    tr_add(&t, 60, 3, 3);  /* 64: alone, @0 */
    uint64_t want[] = {0, 112, 0, 0};
    check_plan(&t.pb, plan_tflm_greedy, want, 176);
}

/* Closest size among the available objects (the first available one,
 * 200, is larger than 140, so the scan keeps its size and moves on to the
 * closer 100); objects laid out in creation order. */
static void test_executorch_closest(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 200, 0, 1); /* obj0 */
    tr_add(&t, 100, 1, 2); /* obj1 (obj0 busy at 1) */
    tr_add(&t, 150, 2, 3); /* obj0, the only one free */
    tr_add(&t, 90, 3, 4);  /* obj1 (obj0 busy at 3) */
    tr_add(&t, 140, 5, 5); /* both free: obj1, grown to 140 */
    uint64_t want[] = {0, 200, 0, 200, 200};
    check_plan(&t.pb, plan_executorch_greedy, want, 340);
}

/* ExecuTorch updates every object that is the best so far during the
 * scan: obj0 (100) is picked first and grown to 280, after which obj1
 * (300, |300-280| = 20) no longer beats it (|280-280| = 0). */
static void test_executorch_scan_updates(void **state) {
    (void)state;
    tr t;
    tr_init(&t, 1);
    tr_add(&t, 100, 0, 0);
    tr_add(&t, 300, 0, 0);
    tr_add(&t, 280, 1, 1);
    uint64_t want[] = {0, 280, 0};
    check_plan(&t.pb, plan_executorch_greedy, want, 580);
}

/* Random problems (colours, alignments, zero sizes): every plan of the
 * comparison verifies (plan_compare_problem proves them), the caching
 * allocator reserves at least what it allocates, and both free orders
 * agree. */
static void test_random(void **state) {
    (void)state;
    uint64_t seed = 20261124;
    printf("seed %" PRIu64 "\n", seed);
    static plan_buf bufs[300];
    for (int it = 0; it < 300; it++) {
        plan_problem pb;
        uint32_t n = 1 + (uint32_t)pt_below(&seed, 300);
        pt_random_problem(&seed, &pb, bufs, n, 1 + n / 2, it % 2);
        plan_compare c;
        char err[512] = "";
        int rc = plan_compare_problem(&pb, 0, true, &c, err, sizeof err);
        if (rc != 0)
            fail_msg("iteration %d: %s", it, err);
        assert_true(c.caching.reserved_peak >= c.caching.allocated_peak);
        assert_int_equal(c.caching.reserved_peak,
                         c.caching_article.reserved_peak);
        assert_true(c.naive >= c.inductor_reuse);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ca_rounding),
        cmocka_unit_test(test_ca_1mib_boundary),
        cmocka_unit_test(test_ca_10mib_boundary),
        cmocka_unit_test(test_ca_small_split),
        cmocka_unit_test(test_ca_merge),
        cmocka_unit_test(test_ca_best_fit),
        cmocka_unit_test(test_ca_event_order),
        cmocka_unit_test(test_tflm_stack),
        cmocka_unit_test(test_tflm_gap),
        cmocka_unit_test(test_executorch_closest),
        cmocka_unit_test(test_executorch_scan_updates),
        cmocka_unit_test(test_random),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

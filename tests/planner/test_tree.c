/*
 * tests/planner/test_tree.c - Inductor AllocationTree conformance (MP-1..MP-10,
 * CB-1, CB-2; planner/tree.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

typedef struct tree_out {
    uint64_t off[8];
    uint32_t sub[8];
    uint64_t subsize[8];
    uint32_t nsub;
} tree_out;

static void run_tree(plan_buf *bufs, uint32_t n, const bool *outs,
                     plan_memory_pool mode, tree_out *t) {
    plan_problem pb = {n, bufs, 64, NULL};
    assert_int_equal(
        plan_tree_pools(&pb, outs, mode, t->off, t->sub, t->subsize, &t->nsub),
        0);
}

/* ---- tree: conformance cases (docs/planning.md, "tree") ---- */

static void test_mp1_single(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 2)};
    tree_out t;
    run_tree(b, 1, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.subsize[0], 1024);
    assert_int_equal(t.off[0], 0);
}

static void test_mp2_time_disjoint(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 2), ib(1024, 2, 3)};
    tree_out t;
    run_tree(b, 2, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.subsize[0], 1024);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[1], 0);
}

static void test_mp3_overlap_at_end(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 3), ib(512, 2, 4)};
    tree_out t;
    run_tree(b, 2, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[1], 1024);
    assert_int_equal(t.subsize[0], 1536);
}

static void test_mp4_alignment(void **st) {
    (void)st;
    plan_buf b[] = {ib(100, 1, 3), ib(100, 2, 4)};
    tree_out t;
    run_tree(b, 2, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[1], 128);
    assert_int_equal(t.subsize[0], 228);
    /* plan_tree rounds the pool up to its alignment */
    plan_problem pb = {2, b, 64, NULL};
    uint64_t off[2], size;
    assert_int_equal(plan_tree(&pb, off, &size), 0);
    assert_int_equal(size, 256);
    assert_int_equal(off[1], 128);
}

static void test_mp5_fill_remainder(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 2), ib(512, 2, 3), ib(512, 2, 3)};
    tree_out t;
    run_tree(b, 3, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[1], 0);
    assert_int_equal(t.off[2], 512);
    assert_int_equal(t.subsize[0], 1024);
}

static void test_mp6_grow_right(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 2), ib(768, 3, 4), ib(512, 3, 4)};
    tree_out t;
    run_tree(b, 3, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[1], 0);
    assert_int_equal(t.off[2], 768);
    assert_int_equal(t.subsize[0], 1280);
    /* memory_pool="none": the growth is refused, Z gets pool1 */
    run_tree(b, 3, NULL, PLAN_MP_NONE, &t);
    assert_int_equal(t.nsub, 2);
    assert_int_equal(t.subsize[0], 1024);
    assert_int_equal(t.subsize[1], 512);
    assert_int_equal(t.sub[2], 1);
    assert_int_equal(t.off[2], 0);
}

static void test_mp7_none_mode(void **st) {
    (void)st;
    plan_buf a[] = {ib(1024, 1, 3), ib(512, 2, 4)};
    tree_out t;
    run_tree(a, 2, NULL, PLAN_MP_NONE, &t);
    assert_int_equal(t.nsub, 2);
    assert_int_equal(t.subsize[0], 1024);
    assert_int_equal(t.subsize[1], 512);
    assert_int_equal(t.sub[0], 0);
    assert_int_equal(t.sub[1], 1);
    plan_buf b[] = {ib(1024, 1, 2), ib(512, 3, 4)};
    run_tree(b, 2, NULL, PLAN_MP_NONE, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.subsize[0], 1024);
    assert_int_equal(t.off[1], 0);
}

/* MP-8..MP-10: I [1,3], J [2,4], O (output) [3,5] with F = 5. */
static void test_mp8_outputs_intermediates(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 3), ib(512, 2, 4), ib(1024, 3, 5)};
    bool outs[] = {false, false, true};
    tree_out t;
    run_tree(b, 3, outs, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 2);
    assert_int_equal(t.sub[2], 0); /* O: pool0 */
    assert_int_equal(t.sub[0], 0); /* I joins pool0 @0 */
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.sub[1], 1); /* J: pool1 */
    assert_int_equal(t.off[1], 0);
    assert_int_equal(t.subsize[0], 1024);
    assert_int_equal(t.subsize[1], 512);
}

static void test_mp9_combined(void **st) {
    (void)st;
    plan_buf b[] = {ib(1024, 1, 3), ib(512, 2, 4), ib(1024, 3, 5)};
    bool outs[] = {false, false, true};
    tree_out t;
    run_tree(b, 3, outs, PLAN_MP_COMBINED, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[2], 0);
    assert_int_equal(t.off[1], 1024);
    assert_int_equal(t.subsize[0], 1536);
}

static void test_mp10_outputs_mode(void **st) {
    (void)st;
    /* O1 f32[256] [2,F], O2 f32[64] [3,F], I f32[256] [1,2], F = 5 */
    plan_buf b[] = {ib(1024, 2, 5), ib(256, 3, 5), ib(1024, 1, 2)};
    bool outs[] = {true, true, false};
    tree_out t;
    run_tree(b, 3, outs, PLAN_MP_OUTPUTS, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.off[1], 0);   /* O2 creates pool0 */
    assert_int_equal(t.off[0], 256); /* O1 at end */
    assert_int_equal(t.off[2], 0);   /* I joins @0 */
    assert_int_equal(t.subsize[0], 1280);
    run_tree(b, 3, outs, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 2);
    assert_int_equal(t.sub[1], 0);
    assert_int_equal(t.subsize[0], 256);
    assert_int_equal(t.sub[0], 1);
    assert_int_equal(t.subsize[1], 1024);
    assert_int_equal(t.sub[2], 1); /* I @0 in pool1 */
    assert_int_equal(t.off[2], 0);
}

static void test_cb1_cb2_comm_pools(void **st) {
    (void)st;
    /* group "0" only (group "1" is another pool: D0 alone, 2048 B) */
    plan_buf b[] = {ib(4096, 1, 2), ib(4096, 3, 4), ib(1024, 1, 3)};
    tree_out t;
    run_tree(b, 3, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.nsub, 1);
    assert_int_equal(t.off[0], 0);
    assert_int_equal(t.off[1], 0);
    assert_int_equal(t.off[2], 4096);
    assert_int_equal(t.subsize[0], 5120);
    plan_buf d[] = {ib(2048, 1, 2)};
    run_tree(d, 1, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.subsize[0], 2048);
    /* CB-2: C2 [2,3] is time-disjoint with both */
    b[2] = ib(1024, 2, 3);
    run_tree(b, 3, NULL, PLAN_MP_INTERMEDIATES, &t);
    assert_int_equal(t.off[2], 0);
    assert_int_equal(t.subsize[0], 4096);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mp1_single),
        cmocka_unit_test(test_mp2_time_disjoint),
        cmocka_unit_test(test_mp3_overlap_at_end),
        cmocka_unit_test(test_mp4_alignment),
        cmocka_unit_test(test_mp5_fill_remainder),
        cmocka_unit_test(test_mp6_grow_right),
        cmocka_unit_test(test_mp7_none_mode),
        cmocka_unit_test(test_mp8_outputs_intermediates),
        cmocka_unit_test(test_mp9_combined),
        cmocka_unit_test(test_mp10_outputs_mode),
        cmocka_unit_test(test_cb1_cb2_comm_pools),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

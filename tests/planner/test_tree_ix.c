/*
 * tests/planner/test_tree_ix.c - the chain index of `tree` (tr_seg,
 * planner/tree_ix.c) against a plain array: random range chmax, range
 * max and range min, short ranges (inside a bucket or across two) and
 * long ones, on axes that are and are not whole numbers of buckets; and
 * the search of a TemporalSplit's interval index (tr_kr_after,
 * tr_kr_overlaps) against a scan, on evenly spread and clustered ranges;
 * the node store's growth past its reservation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "plan_test_util.h"
#include "planner/tree_ix.h"

/* A random range of [0, n): mostly short (a block's), sometimes long. */
static void ix_range(uint64_t *s, uint32_t n, uint32_t *l, uint32_t *r) {
    uint32_t len = pt_rand(s) % 4 ? 1 + (uint32_t)(pt_rand(s) % 70)
                                  : 1 + (uint32_t)(pt_rand(s) % n);
    if (len > n)
        len = n;
    *l = (uint32_t)(pt_rand(s) % (n - len + 1));
    *r = *l + len - 1;
}

/* ops random operations on an axis of n positions, each checked
 * against ref (both fields per position). */
static void ix_check(uint32_t n, uint32_t ops, uint64_t seed) {
    tr_seg t;
    assert_true(tr_seg_init(&t, n));
    uint32_t *ref = calloc(2 * (size_t)n, sizeof *ref);
    assert_non_null(ref);
    uint64_t s = seed;
    for (uint32_t k = 0; k < ops; k++) {
        uint32_t l, r, op = (uint32_t)(pt_rand(&s) % 2);
        ix_range(&s, n, &l, &r);
        if (op == 0) {
            unsigned f = (unsigned)(pt_rand(&s) % 2);
            /* values as tree.c uses them: small levels in field 0,
             * UINT32_MAX - level in field 1 */
            uint32_t v = (uint32_t)(pt_rand(&s) % 200);
            if (f == 1)
                v = UINT32_MAX - v;
            tr_seg_chmax(&t, f, l, r, v);
            for (uint32_t p = l; p <= r; p++)
                if (ref[2 * p + f] < v)
                    ref[2 * p + f] = v;
        } else {
            uint32_t q[3], e[3] = {0, 0, UINT32_MAX};
            tr_seg_query(&t, l, r, q);
            for (uint32_t p = l; p <= r; p++) {
                for (unsigned f = 0; f < 2; f++)
                    if (ref[2 * p + f] > e[f])
                        e[f] = ref[2 * p + f];
                if (ref[2 * p + 1] < e[2])
                    e[2] = ref[2 * p + 1];
            }
            assert_int_equal(q[0], e[0]);
            assert_int_equal(q[1], e[1]);
            assert_int_equal(q[2], e[2]);
        }
    }
    free(ref);
    tr_seg_free(&t);
}

static void test_seg_small_axes(void **st) {
    (void)st;
    static const uint32_t ns[] = {1, 2, 31, 32, 33, 63, 64, 65, 100};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        ix_check(ns[i], 3000, 1 + i);
}

static void test_seg_large_axes(void **st) {
    (void)st;
    ix_check(1000, 20000, 11);
    ix_check(4096, 20000, 12);
    ix_check(5003, 20000, 13);
    ix_check(40000, 4000, 14); /* ranges of more than 256 buckets */
}

/* The min sees a bucket's untouched positions (0) until every position
 * of the bucket is raised; then the tags of ranges that covered it. */
static uint32_t ix_min1(const tr_seg *t, uint32_t l, uint32_t r) {
    uint32_t q[3];
    tr_seg_query(t, l, r, q);
    return q[2];
}

static void test_seg_min_partial_bucket(void **st) {
    (void)st;
    tr_seg t;
    assert_true(tr_seg_init(&t, 100));
    tr_seg_chmax(&t, 1, 0, 30, 7);
    assert_int_equal(ix_min1(&t, 0, 31), 0);
    assert_int_equal(ix_min1(&t, 0, 30), 7);
    tr_seg_chmax(&t, 1, 31, 99, 5);
    assert_int_equal(ix_min1(&t, 0, 99), 5);
    assert_int_equal(ix_min1(&t, 10, 20), 7);
    tr_seg_chmax(&t, 1, 0, 99, 6);
    assert_int_equal(ix_min1(&t, 0, 99), 6);
    uint32_t q[3];
    tr_seg_query(&t, 40, 90, q);
    assert_int_equal(q[0], 0);
    assert_int_equal(q[1], 6);
    assert_int_equal(q[2], 6);
    tr_seg_free(&t);
}

/* A TemporalSplit whose index holds n disjoint ranges of distinct
 * children, spread evenly or clustered (most of them packed at the start
 * of the axis, the rest far apart); lo/hi get the ranges. */
static uint32_t ix_ts(tr_ctx *c, uint32_t n, bool clustered, uint64_t *s,
                      uint32_t *lo, uint32_t *hi) {
    uint32_t id = tr_new(c, false), t = 0;
    assert_int_not_equal(id, UINT32_MAX);
    for (uint32_t i = 0; i < n; i++) {
        bool far = clustered ? i % 16 == 15 : true;
        t += (uint32_t)(pt_rand(s) % (far ? 1000 : 2));
        lo[i] = t;
        hi[i] = t + (uint32_t)(pt_rand(s) % 5);
        t = hi[i] + 2; /* a gap: no two entries merge */
        tr_kr_add(c, id, (tr_range){lo[i], (uint64_t)hi[i] + 1}, TR_LEAF | i);
    }
    assert_int_equal(tr_nkr(&c->nodes[id]), n);
    return id;
}

/* tr_kr_after and tr_kr_overlaps against a scan of the ranges. */
static void test_kr_search(void **st) {
    (void)st;
    static const uint32_t ns[] = {1, 2, 16, 17, 18, 100, 1000, 5000};
    uint64_t s = 5;
    uint32_t *lo = malloc(5000 * sizeof *lo), *hi = malloc(5000 * sizeof *hi);
    assert_true(lo && hi);
    for (size_t k = 0; k < 2 * sizeof ns / sizeof ns[0]; k++) {
        uint32_t n = ns[k / 2];
        tr_ctx c;
        memset(&c, 0, sizeof c);
        tr_arena_init(&c.kra, sizeof(tr_kre));
        uint32_t id = ix_ts(&c, n, k % 2, &s, lo, hi);
        uint64_t top = (uint64_t)hi[n - 1] + 3;
        for (uint32_t q = 0; q < 3000; q++) {
            uint64_t a = pt_rand(&s) % top, b = a + 1 + pt_rand(&s) % 8;
            uint32_t want = 0, nov = 0, first = 0;
            while (want < n && hi[want] < a)
                want++;
            assert_int_equal(tr_kr_after(&c, id, a), want);
            for (uint32_t i = 0; i < n; i++)
                if (lo[i] < b && a <= hi[i] && nov++ == 0)
                    first = TR_LEAF | i;
            uint32_t ov = 0, pos = 0;
            uint32_t got = tr_kr_overlaps(&c, id, (tr_range){a, b}, &ov, &pos);
            assert_int_equal(got, nov > 1 ? 2 : nov);
            assert_int_equal(pos, want);
            if (nov)
                assert_int_equal(ov, first);
        }
        assert_false(c.oom);
        tr_arena_free(&c.kra);
        base_huge_free(c.nodes);
        base_huge_free(c.cold);
    }
    free(lo);
    free(hi);
}

/* Nodes past the reservation: the arrays grow by copying (the node array
 * stays 64-byte aligned, two nodes a cache line) and keep every node. */
static void test_node_growth(void **st) {
    (void)st;
    tr_ctx c;
    memset(&c, 0, sizeof c);
    assert_true(tr_reserve(&c, 3));
    assert_true(c.capnodes >= 3 && c.capnodes % 2 == 0);
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t id = tr_new(&c, i % 3 == 0);
        assert_int_equal(id, i);
        c.nodes[id].hint = 7 * (uint64_t)i + 1;
        c.cold[id].lvl = i;
        assert_int_equal((uintptr_t)c.nodes % 64, 0);
    }
    assert_true(c.capnodes >= 1000);
    for (uint32_t i = 0; i < 1000; i++) {
        assert_int_equal(c.nodes[i].hint, 7 * (uint64_t)i + 1);
        assert_int_equal(c.cold[i].lvl, i);
        assert_int_equal(!!(c.nodes[i].w & TR_F_SS), i % 3 == 0);
        assert_true(c.nodes[i].dlo > c.nodes[i].dhi); /* no dead interval */
    }
    assert_false(c.oom);
    base_huge_free(c.nodes);
    base_huge_free(c.cold);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_seg_small_axes),
        cmocka_unit_test(test_seg_large_axes),
        cmocka_unit_test(test_seg_min_partial_bucket),
        cmocka_unit_test(test_kr_search),
        cmocka_unit_test(test_node_growth),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

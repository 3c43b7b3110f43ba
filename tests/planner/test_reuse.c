/*
 * tests/planner/test_reuse.c - Inductor memory_plan_reuse conformance
 * (planner/reuse.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"
#include "reuse_ref.h"

/* RU-10: the peak check rejects reuse across a peak. */
static void test_ru10_peak_check(void **st) {
    (void)st;
    plan_buf b[] = {
        nb(1024, 0, 1, 1),  /* buf0 A */
        nb(64, 1, 2, 2),    /* buf1 C */
        nb(16384, 2, 3, 3), /* buf2 X */
        nb(64, 3, 4, 2),    /* buf3 D */
        nb(1024, 4, 5, 1),  /* buf4 B: same key as buf0, rejected */
        nb(64, 5, 5, 2),    /* buf5 O: output, lives to the end */
    };
    plan_problem pb = {6, b, 1, NULL};
    uint64_t off[6], size;
    assert_int_equal(plan_reuse(&pb, off, &size), 0);
    assert_int_equal(off[3], off[1]); /* buf3 = buf1 (adjacent) */
    assert_int_equal(off[5], off[1]); /* buf5 = buf3 (adjacent) */
    assert_int_not_equal(off[4], off[0]);
    assert_int_equal(size, 1024 + 64 + 16384 + 1024);
    assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
}

/* RU-1: adjacent exact reuse; RU-4: equal bytes, other key: no reuse. */
static void test_ru1_ru4_keys(void **st) {
    (void)st;
    plan_buf b[] = {nb(1024, 0, 1, 7), nb(1024, 1, 2, 7), nb(1024, 2, 3, 7)};
    plan_problem pb = {3, b, 64, NULL};
    uint64_t off[3], size;
    assert_int_equal(plan_reuse(&pb, off, &size), 0);
    assert_int_equal(off[2], off[0]);
    assert_int_equal(size, 2048);
    b[2].reuse_key = 8; /* bf16[1024] after f32[512] */
    assert_int_equal(plan_reuse(&pb, off, &size), 0);
    assert_int_equal(size, 3072);
}

/* LIFO: the most recently freed candidate is taken first; when it fails
 * the peak check, deeper candidates are scanned (no section-8 defect). */
static void test_ru_lifo_and_scan(void **st) {
    (void)st;
    plan_buf b[] = {nb(256, 0, 1, 5), nb(256, 0, 2, 5), nb(256, 3, 4, 5)};
    plan_problem pb = {3, b, 1, NULL};
    uint64_t off[3], size;
    assert_int_equal(plan_reuse(&pb, off, &size), 0);
    assert_int_equal(off[2], off[1]); /* b1 freed last: top of the stack */
    assert_int_equal(size, 512);
}

/* Comm isolation comes from the keys (RU-11) and the colours. */
static void test_ru_colors(void **st) {
    (void)st;
    plan_buf b[] = {nb(256, 0, 1, 5), nb(256, 2, 3, 5)};
    b[0].color = 0;
    b[1].color = 1;
    plan_problem pb = {2, b, 1, NULL};
    uint64_t off[2], size;
    assert_int_equal(plan_reuse(&pb, off, &size), 0);
    assert_int_not_equal(off[0], off[1]);
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    assert_int_equal(size, 512);
    b[1].color = 0;
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    assert_int_equal(size, 256);
    b[1].color = -2;
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    assert_int_equal(size, 512);
    assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
    off[1] = off[0];
    assert_false(plan_verify_problem(&pb, off, size, NULL, 0));
}

/* One random instance from seed s: n buffers over a horizon, sizes from a
 * few classes or free, keys that fix the size or not, alignments per
 * buffer and pool, a few zero sizes, stream colours sometimes, times
 * sometimes up to UINT32_MAX. */
static void random_instance(uint64_t *s, plan_problem *pb, plan_buf *b,
                            uint32_t n) {
    static const uint64_t aligns[] = {0, 1, 16, 64, 256};
    uint32_t horizon = 1 + (uint32_t)pt_below(s, 2 * (uint64_t)n);
    uint32_t life = 1 + (uint32_t)pt_below(s, 40);
    uint64_t nkeys = 1 + pt_below(s, 6);
    bool key_is_size = pt_below(s, 2), colors = pt_below(s, 4) == 0;
    bool mixed_align = pt_below(s, 2);
    for (uint32_t i = 0; i < n; i++) {
        plan_buf *x = &b[i];
        memset(x, 0, sizeof *x);
        x->start = (uint32_t)pt_below(s, horizon);
        x->end = x->start + (uint32_t)pt_below(s, pt_below(s, 8) == 0
                                                      ? 4 * (uint64_t)life
                                                      : life);
        uint64_t k = pt_below(s, nkeys);
        x->size = key_is_size ? (uint64_t)64 << k : 1 + pt_below(s, 4096);
        if (pt_below(s, 30) == 0)
            x->size = 0;
        x->reuse_key = key_is_size ? k : pt_below(s, nkeys);
        x->align = mixed_align ? aligns[pt_below(s, 5)] : 0;
        x->color = colors ? (int32_t)pt_below(s, 3) - 1 : -1;
        if (colors && pt_below(s, 10) == 0)
            x->color = -2;
    }
    if (pt_below(s, 8) == 0) { /* the last end at UINT32_MAX */
        uint32_t last = 0;
        for (uint32_t i = 0; i < n; i++)
            last = b[i].end > last ? b[i].end : last;
        for (uint32_t i = 0; i < n; i++) {
            b[i].start += UINT32_MAX - last;
            b[i].end += UINT32_MAX - last;
        }
    }
    *pb = (plan_problem){n, b, pt_below(s, 2) ? 64 : 1, NULL};
}

/* The indexed reuse gives the reference scan's offsets and size on every
 * random instance (tests/planner/reuse_ref.c). */
static void test_ru_same_as_scan(void **st) {
    (void)st;
    enum { MAXN = 400 };
    static plan_buf b[MAXN];
    static uint64_t off[MAXN], want[MAXN];
    uint32_t reused = 0;
    for (uint64_t seed = 1; seed <= 4000; seed++) {
        uint64_t s = seed;
        uint32_t n = 1 + (uint32_t)pt_below(&s, seed % 10 == 0 ? MAXN : 60);
        plan_problem pb;
        random_instance(&s, &pb, b, n);
        uint64_t size = 0, wsize = 0, naive = 0;
        assert_int_equal(ref_reuse(&pb, want, &wsize), 0);
        assert_int_equal(plan_reuse(&pb, off, &size), 0);
        if (size != wsize || memcmp(off, want, n * sizeof *off) != 0)
            fail_msg("seed %llu: n %u size %llu, the scan %llu",
                     (unsigned long long)seed, n, (unsigned long long)size,
                     (unsigned long long)wsize);
        assert_true(plan_verify_problem(&pb, off, size, NULL, 0));
        assert_int_equal(plan_naive(&pb, want, &naive), 0);
        reused += size < naive;
    }
    assert_true(reused > 1000); /* the instances do reuse */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ru10_peak_check),
        cmocka_unit_test(test_ru1_ru4_keys),
        cmocka_unit_test(test_ru_lifo_and_scan),
        cmocka_unit_test(test_ru_colors),
        cmocka_unit_test(test_ru_same_as_scan),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

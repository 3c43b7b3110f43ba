/*
 * tests/planner/test_layer1.c - the one-pool algorithms: naive, reuse
 * (Inductor memory_plan_reuse conformance), tree (Inductor AllocationTree
 * conformance MP-1..MP-10, CB-1, CB-2), bestfit, the lower bound and the
 * verifier, plus property tests on seeded random problems.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

/* Inductor timesteps [b, e] (e = the run of the free) become the
 * inclusive interval [b, e - 1]. */
static plan_buf ib(uint64_t size, uint32_t b, uint32_t e) {
    plan_buf x;
    memset(&x, 0, sizeof x);
    x.size = size;
    x.align = 1;
    x.start = b;
    x.end = e - 1;
    x.reuse_key = size;
    x.color = -1;
    return x;
}

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

/* ---- reuse: memory_plan_reuse ---- */

static plan_buf nb(uint64_t size, uint32_t s, uint32_t e, uint64_t key) {
    plan_buf x = ib(size, s, e + 1);
    x.reuse_key = key;
    return x;
}

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
        cmocka_unit_test(test_ru10_peak_check),
        cmocka_unit_test(test_ru1_ru4_keys),
        cmocka_unit_test(test_ru_lifo_and_scan),
        cmocka_unit_test(test_ru_colors),
        cmocka_unit_test(test_naive_and_lower_bound),
        cmocka_unit_test(test_first_oversize),
        cmocka_unit_test(test_bestfit_chain_hits_lower_bound),
        cmocka_unit_test(test_buffer_alignment),
        cmocka_unit_test(test_verifier_rejects),
        cmocka_unit_test(test_verifier_end_of_address_space),
        cmocka_unit_test(test_random_properties),
        cmocka_unit_test(test_verifier_cross_check),
        cmocka_unit_test(test_bestfit_large_random),
        cmocka_unit_test(test_bestfit_huge),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/planner/test_oom.c - planning reports out of memory, it never
 * ends the process: bestfit's large path and tree return -1 and
 * plan_program reports "out of memory" when their huge-page blocks
 * (base_huge_alloc) cannot be had, and the verifier says "out of
 * memory" apart from "does not verify" (verify_oom); the lower bound
 * tells out of memory apart from a bound of 0 (lower_bound_oom).  alloc_fail.h
 * (tests/base) makes base's mmap and calloc fail from a size on: the
 * blocks these tests make
 * fail are larger than any chunk of an arena, so that an arena allocation
 * failing instead (base_oom: exit 1) or none failing ends the test with a
 * failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "alloc_fail.h"
#include "ir/ir.h"
#include "plan_test_util.h"

#define MIB ((size_t)1 << 20)

/* 140,000 buffers, above PLAN_BF_LARGE (131,072): bestfit's large path,
 * whose arrays (44 bytes a buffer: 6 MB) are one huge block. */
#define OOM_BUFS 140000u

static void make_problem(plan_problem *pb, plan_buf *bufs) {
    memset(pb, 0, sizeof *pb);
    pb->n = OOM_BUFS;
    pb->bufs = bufs;
    pb->align = 64;
    for (uint32_t i = 0; i < OOM_BUFS; i++) {
        memset(&bufs[i], 0, sizeof bufs[i]);
        bufs[i].start = i;
        bufs[i].end = i + i % 50;
        bufs[i].size = 64 * (1 + i % 7);
        bufs[i].align = 1;
        bufs[i].color = -1;
    }
}

/* The problem, the plan fn makes of it when memory is there (verified)
 * and room for another. */
typedef struct oom_case {
    plan_problem pb;
    plan_buf *bufs;
    uint64_t *want, *off;
    uint64_t want_size, size;
} oom_case;

typedef int (*oom_plan_fn)(const plan_problem *, uint64_t *, uint64_t *);

/* Plans with fn as memory allows; then again with no mapping, which
 * falls back to calloc: the same plan. */
static void oom_case_init(oom_case *t, oom_plan_fn fn) {
    t->bufs = malloc(OOM_BUFS * sizeof *t->bufs);
    t->want = malloc(OOM_BUFS * sizeof *t->want);
    t->off = malloc(OOM_BUFS * sizeof *t->off);
    assert_non_null(t->bufs);
    assert_non_null(t->want);
    assert_non_null(t->off);
    make_problem(&t->pb, t->bufs);
    alloc_fail_reset();
    assert_int_equal(fn(&t->pb, t->want, &t->want_size), 0);
    assert_true(alloc_fail_mmaps >= 1); /* the block was mapped */
    char err[256];
    assert_true(
        plan_verify_problem(&t->pb, t->want, t->want_size, err, sizeof err));

    alloc_fail_reset();
    alloc_fail_mmap_from = 0;
    assert_int_equal(fn(&t->pb, t->off, &t->size), 0);
    assert_int_equal(t->size, t->want_size);
    assert_memory_equal(t->off, t->want, OOM_BUFS * sizeof *t->off);
    alloc_fail_reset();
}

static void oom_case_free(oom_case *t) {
    free(t->bufs);
    free(t->want);
    free(t->off);
}

static void bestfit_large_oom(void **state) {
    (void)state;
    oom_case t;
    oom_case_init(&t, plan_bestfit);
    /* no block at all: -1, and the process goes on */
    alloc_fail_reset();
    alloc_fail_mmap_from = alloc_fail_calloc_from = 2 * MIB;
    assert_int_equal(plan_bestfit(&t.pb, t.off, &t.size), -1);
    assert_int_equal(alloc_fail_mmaps, 1);
    assert_int_equal(alloc_fail_callocs, 1);
    alloc_fail_reset();
    oom_case_free(&t);
}

/* tree: its large arrays (the nodes, 32 bytes each and about three a
 * buffer: 13 MB here) come from base_huge_alloc.  With every mmap, calloc
 * and malloc failing from a limit on (64 KiB up to 64 MiB), plan_tree
 * returns -1 or the same plan, never ends the process (nor leaks:
 * LeakSanitizer). */
static void tree_oom(void **state) {
    (void)state;
    oom_case t;
    oom_case_init(&t, plan_tree);
    unsigned failed = 0;
    for (size_t lim = 64 * 1024; lim <= 64 * MIB; lim *= 2) {
        alloc_fail_reset();
        alloc_fail_mmap_from = alloc_fail_calloc_from = lim;
        alloc_fail_malloc_from = lim;
        int rc = plan_tree(&t.pb, t.off, &t.size);
        alloc_fail_reset();
        if (rc == 0) {
            assert_int_equal(t.size, t.want_size);
            assert_memory_equal(t.off, t.want, OOM_BUFS * sizeof *t.off);
        } else {
            assert_int_equal(rc, -1);
            failed++;
        }
        /* 13 MB of nodes: every limit up to 8 MiB fails, 64 MiB does not */
        assert_int_equal(rc, lim <= 8 * MIB ? -1 : lim == 64 * MIB ? 0 : rc);
    }
    assert_true(failed >= 8);
    oom_case_free(&t);
}

/* A program of 10,000 storages and 620,000 statements: plan_program's
 * scratch block starts with a word per statement (5 MB, mapped as 6 MiB
 * and 2 MiB of slack), more than an arena chunk (4 MiB, mapped with the
 * same slack) or its own blocks here (the storages: under 1 MB, calloc). */
#define OOM_STORAGES 10000u
#define OOM_CALLS 60u

static void plan_program_oom(void **state) {
    (void)state;
    base_sb b = {0};
    base_sb_puts(&b, "model big\n");
    for (uint32_t i = 0; i < OOM_STORAGES; i++) {
        base_sb_printf(&b, "alloc b%u f32[16]\n", i);
        for (uint32_t k = 0; k < OOM_CALLS; k++)
            base_sb_printf(&b, "call k(b%u)\n", i);
        base_sb_printf(&b, "free b%u\n", i);
    }
    size_t len;
    char *text = base_sb_take(&b, &len);
    base_arena *a = base_arena_new();
    char *msg = NULL;
    size_t mlen = 0;
    FILE *f = open_memstream(&msg, &mlen);
    assert_non_null(f);
    base_diag *d = base_diag_new(f, 0);
    base_diag_set_source(d, "big.pw", text, len);
    ir_program *p = ir_parse(a, "big.pw", text, len, d);
    assert_non_null(p);
    assert_true(ir_check(p, d));
    plan_options o;
    plan_options_init(&o);

    alloc_fail_reset();
    alloc_fail_mmap_from = 7 * MIB;
    alloc_fail_calloc_from = 2 * MIB;
    assert_null(plan_program(a, p, &o, d));
    assert_int_equal(base_diag_errors(d), 1);
    alloc_fail_reset();
    fflush(f);
    assert_non_null(strstr(msg, "big.pw: error: out of memory"));

    /* the same program plans when memory is there */
    plan *pl = plan_program(a, p, &o, d);
    assert_non_null(pl);
    assert_int_equal(pl->nstorages, OOM_STORAGES);
    assert_int_equal(base_diag_errors(d), 1);
    base_diag_free(d);
    fclose(f);
    free(msg);
    base_arena_free(a);
    free(text);
}

/* The verifier tells out of memory (its scratch: malloc, 1 MiB and more
 * for OOM_BUFS buffers) apart from a plan that does not verify. */
static void verify_oom(void **state) {
    (void)state;
    plan_buf *bufs = malloc(OOM_BUFS * sizeof *bufs);
    uint64_t *off = malloc(OOM_BUFS * sizeof *off);
    assert_non_null(bufs);
    assert_non_null(off);
    plan_problem pb;
    make_problem(&pb, bufs);
    uint64_t size;
    assert_int_equal(plan_naive(&pb, off, &size), 0);
    char err[200];
    alloc_fail_reset();
    alloc_fail_malloc_from = MIB;
    assert_int_equal(
        plan_verify_problem_status(&pb, off, size, err, sizeof err), -1);
    assert_string_equal(err, "out of memory");
    assert_false(plan_verify_problem(&pb, off, size, NULL, 0));
    alloc_fail_reset();
    assert_int_equal(
        plan_verify_problem_status(&pb, off, size, err, sizeof err), 1);
    off[2] = off[1]; /* buffers 1 ([1, 2]) and 2 ([2, 4]) overlap */
    assert_int_equal(
        plan_verify_problem_status(&pb, off, size, err, sizeof err), 0);
    assert_string_not_equal(err, "out of memory");
    free(off);
    free(bufs);
}

/* The lower bound's one block (malloc: three words a buffer, 3 MiB for
 * OOM_BUFS buffers): plan_lower_bound_status says out of memory (-1,
 * *lb untouched) where plan_lower_bound can only answer 0, and gives
 * plan_lower_bound's bound when memory is there. */
static void lower_bound_oom(void **state) {
    (void)state;
    plan_buf *bufs = malloc(OOM_BUFS * sizeof *bufs);
    assert_non_null(bufs);
    plan_problem pb;
    make_problem(&pb, bufs);
    uint64_t want = plan_lower_bound(&pb), lb = 7;
    assert_true(want > 0);
    alloc_fail_reset();
    alloc_fail_malloc_from = MIB;
    assert_int_equal(plan_lower_bound_status(&pb, &lb), -1);
    assert_int_equal(lb, 7);
    assert_int_equal(plan_lower_bound(&pb), 0);
    alloc_fail_reset();
    assert_int_equal(plan_lower_bound_status(&pb, &lb), 0);
    assert_int_equal(lb, want);
    free(bufs);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(verify_oom),        cmocka_unit_test(lower_bound_oom),
        cmocka_unit_test(bestfit_large_oom), cmocka_unit_test(plan_program_oom),
        cmocka_unit_test(tree_oom),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

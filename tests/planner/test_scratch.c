/*
 * tests/planner/test_scratch.c - caller-provided scratch (plan_X_in,
 * plan_X_scratch_size; docs/architecture.md, "Scratch"): each _in function
 * with a block of exactly plan_X_scratch_size bytes (ASan catches an
 * overrun) gives the same result as the malloc'ing wrapper, whether the
 * block is zeroed or filled with 0xA5 (no reliance on zeroed memory); a
 * block one byte short aborts; the size arithmetic saturates at SIZE_MAX.
 * Seeds are printed on failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"
#include "planner/plan_internal.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#define NSEEDS 300
#define MAXN 160

/* A block of exactly `bytes` (at least 1 for malloc) filled with `fill`. */
static void *block_of(size_t bytes, int fill) {
    void *p = malloc(bytes ? bytes : 1);
    assert_non_null(p);
    memset(p, fill, bytes);
    return p;
}

static const int fills[] = {0x00, 0xA5, 0xFF};
#define NFILLS (sizeof fills / sizeof *fills)

static void random_problem(uint64_t seed, plan_problem *pb, plan_buf *bufs) {
    uint64_t s = seed;
    uint32_t n = (uint32_t)pt_below(&s, MAXN + 1);
    uint32_t horizon = 1 + (uint32_t)pt_below(&s, 3 * MAXN);
    pt_random_problem(&s, pb, bufs, n, horizon, (int)(seed % 2));
}

typedef void (*algo_in_fn)(const plan_problem *, void *, size_t, uint64_t *,
                           uint64_t *);
typedef int (*algo_fn)(const plan_problem *, uint64_t *, uint64_t *);
typedef size_t (*algo_size_fn)(const plan_problem *);

static void check_algo(const char *name, algo_fn fn, algo_in_fn fn_in,
                       algo_size_fn size_fn) {
    plan_buf bufs[MAXN];
    uint64_t want[MAXN + 1], got[MAXN + 1];
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        plan_problem pb;
        random_problem(seed, &pb, bufs);
        uint64_t wsize = 0;
        if (fn(&pb, want, &wsize) != 0)
            fail_msg("%s: seed %llu: the wrapper failed", name,
                     (unsigned long long)seed);
        size_t bytes = size_fn(&pb);
        assert_true(bytes != SIZE_MAX);
        for (size_t f = 0; f < NFILLS; f++) {
            void *scratch = block_of(bytes, fills[f]);
            uint64_t gsize = ~wsize;
            memset(got, 0x5A, sizeof got);
            fn_in(&pb, scratch, bytes, got, &gsize);
            free(scratch);
            if (gsize != wsize || memcmp(got, want, pb.n * sizeof *got) != 0)
                fail_msg("%s: seed %llu fill 0x%02X: the _in result differs",
                         name, (unsigned long long)seed, fills[f]);
        }
        char err[256];
        if (!plan_verify_problem(&pb, want, wsize, err, sizeof err))
            fail_msg("%s: seed %llu: %s", name, (unsigned long long)seed, err);
    }
}

static void test_naive_in(void **st) {
    (void)st;
    check_algo("naive", plan_naive, plan_naive_in, plan_naive_scratch_size);
}

static void test_reuse_in(void **st) {
    (void)st;
    check_algo("reuse", plan_reuse, plan_reuse_in, plan_reuse_scratch_size);
}

/* The lower bound against a reference written from its definition: the
 * most bytes (each size rounded up to the pool alignment) live at one
 * statement, rounded up to the pool alignment. */
static uint64_t slow_lower_bound(const plan_problem *pb) {
    uint64_t a = pb->align ? pb->align : 1, best = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        uint64_t t = pb->bufs[i].start, live = 0;
        for (uint32_t j = 0; j < pb->n; j++) {
            const plan_buf *b = &pb->bufs[j];
            if (b->size && b->start <= t && t <= b->end)
                live += (b->size + a - 1) / a * a;
        }
        best = live > best ? live : best;
    }
    return best;
}

static void test_lower_bound_in(void **st) {
    (void)st;
    plan_buf bufs[MAXN];
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        plan_problem pb;
        random_problem(seed, &pb, bufs);
        uint64_t want = plan_lower_bound(&pb);
        if (want != slow_lower_bound(&pb))
            fail_msg("seed %llu: lower bound %llu, reference %llu",
                     (unsigned long long)seed, (unsigned long long)want,
                     (unsigned long long)slow_lower_bound(&pb));
        size_t bytes = plan_lower_bound_scratch_size(&pb);
        for (size_t f = 0; f < NFILLS; f++) {
            void *scratch = block_of(bytes, fills[f]);
            uint64_t got = plan_lower_bound_in(&pb, scratch, bytes);
            free(scratch);
            if (got != want)
                fail_msg("seed %llu fill 0x%02X: %llu, wrapper %llu",
                         (unsigned long long)seed, fills[f],
                         (unsigned long long)got, (unsigned long long)want);
        }
    }
}

/* The verifier's verdict and message, valid plans and broken ones (a
 * buffer moved onto another's bytes, or misaligned), with the wrapper's. */
static void test_verify_in(void **st) {
    (void)st;
    plan_buf bufs[MAXN];
    uint64_t off[MAXN + 1];
    const char *names[MAXN];
    char nm[MAXN][8];
    for (uint32_t i = 0; i < MAXN; i++) {
        snprintf(nm[i], sizeof nm[i], "b%u", i);
        names[i] = nm[i];
    }
    uint32_t nvalid = 0, ninvalid = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        plan_problem pb;
        random_problem(seed, &pb, bufs);
        pb.names = seed % 3 ? names : NULL;
        uint64_t size = 0, s = seed;
        assert_int_equal(plan_reuse(&pb, off, &size), 0);
        if (pb.n && seed % 2) /* break it */
            off[pt_below(&s, pb.n)] = seed % 4 == 1 ? off[0] : 1;
        char want[256] = "", got[256] = "";
        bool v = plan_verify_problem(&pb, off, size, want, sizeof want);
        v ? nvalid++ : ninvalid++;
        size_t bytes = plan_verify_problem_scratch_size(&pb);
        for (size_t f = 0; f < NFILLS; f++) {
            void *scratch = block_of(bytes, fills[f]);
            got[0] = '\0';
            bool g = plan_verify_problem_in(&pb, scratch, bytes, off, size, got,
                                            sizeof got);
            free(scratch);
            if (g != v || strcmp(got, want) != 0)
                fail_msg("seed %llu fill 0x%02X: %d '%s', wrapper %d '%s'",
                         (unsigned long long)seed, fills[f], g, got, v, want);
        }
    }
    /* both verdicts were exercised */
    assert_true(nvalid > NSEEDS / 4 && ninvalid > NSEEDS / 4);
}

/* A plan of one or two pools from a random problem (its reuse layout),
 * for the donor sweep: storage k is buffer k, in pool k % npools. */
static void donor_plan(uint64_t seed, plan *pl, plan_storage *sg,
                       plan_buf *bufs) {
    plan_problem pb;
    random_problem(seed, &pb, bufs);
    uint64_t off[MAXN + 1], size = 0;
    for (uint32_t i = 0; i < pb.n; i++)
        bufs[i].color = -1;
    assert_int_equal(plan_bestfit(&pb, off, &size), 0);
    memset(pl, 0, sizeof *pl);
    pl->nstorages = pb.n;
    pl->storages = sg;
    pl->npools = 1 + (uint32_t)(seed % 2);
    for (uint32_t i = 0; i < pb.n; i++) {
        sg[i] = (plan_storage){.value = (int32_t)i,
                               .pool = (int32_t)(i % pl->npools),
                               .offset = off[i],
                               .size = bufs[i].size,
                               .start = bufs[i].start,
                               .end = bufs[i].end,
                               .dies_at = i % 5 ? (int32_t)bufs[i].end : -1};
        if (pl->npools == 2) /* the other pool: a layout of its own */
            sg[i].offset = off[i] + (i % 2) * 7;
    }
}

static void test_donors_in(void **st) {
    (void)st;
    plan_buf bufs[MAXN];
    plan_storage sg[MAXN + 1], want[MAXN + 1];
    uint32_t ndonors = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        plan pl;
        donor_plan(seed, &pl, sg, bufs);
        base_arena *a = base_arena_new();
        assert_true(plan_donors_build(a, &pl));
        memcpy(want, sg, pl.nstorages * sizeof *sg);
        uint32_t nd = pl.ndonors;
        plan_donor *wd = pl.donors;
        ndonors += nd;
        size_t bytes = plan_donors_scratch_size(&pl);
        for (size_t f = 0; f < NFILLS; f++) {
            void *scratch = block_of(bytes, fills[f]);
            plan_donors_build_in(a, &pl, scratch, bytes);
            free(scratch);
            bool same = pl.ndonors == nd;
            for (uint32_t k = 0; same && k < nd; k++)
                same = pl.donors[k].storage == wd[k].storage &&
                       pl.donors[k].lo == wd[k].lo &&
                       pl.donors[k].hi == wd[k].hi;
            for (uint32_t k = 0; same && k < pl.nstorages; k++)
                same = sg[k].reuse_of == want[k].reuse_of &&
                       sg[k].donor_begin == want[k].donor_begin &&
                       sg[k].ndonors == want[k].ndonors;
            if (!same)
                fail_msg("seed %llu fill 0x%02X: other donors",
                         (unsigned long long)seed, fills[f]);
        }
        base_arena_free(a);
    }
    print_message("%u donors\n", ndonors);
    assert_true(ndonors > NSEEDS); /* the sweep found donors */
}

/* The banked greedy (planner/spill.c) with a capacity from a tenth of
 * the naive size to all of it. */
static void test_spill_banked_in(void **st) {
    (void)st;
    plan_buf bufs[MAXN];
    uint64_t want[MAXN + 1], got[MAXN + 1];
    bool wfast[MAXN + 1], gfast[MAXN + 1];
    uint32_t nslow = 0;
    for (uint64_t seed = 1; seed <= NSEEDS; seed++) {
        plan_problem pb;
        random_problem(seed, &pb, bufs);
        uint64_t naive = 0, s = seed, wf = 0, ws = 0;
        assert_int_equal(plan_naive(&pb, want, &naive), 0);
        uint64_t cap = naive / 10 * (1 + pt_below(&s, 10));
        memset(want, 0x5A, sizeof want);
        assert_int_equal(plan_spill_banked(&pb, cap, wfast, want, &wf, &ws), 0);
        for (uint32_t i = 0; i < pb.n; i++)
            nslow += !wfast[i];
        size_t bytes = plan_spill_banked_scratch_size(&pb);
        for (size_t f = 0; f < NFILLS; f++) {
            void *scratch = block_of(bytes, fills[f]);
            uint64_t gf = ~wf, gs = ~ws;
            memset(got, 0x5A, sizeof got);
            memset(gfast, fills[f] & 1, sizeof gfast);
            plan_spill_banked_in(&pb, scratch, bytes, cap, gfast, got, &gf,
                                 &gs);
            free(scratch);
            if (gf != wf || gs != ws ||
                memcmp(got, want, pb.n * sizeof *got) != 0 ||
                memcmp(gfast, wfast, pb.n * sizeof *gfast) != 0)
                fail_msg("seed %llu fill 0x%02X: the _in result differs",
                         (unsigned long long)seed, fills[f]);
        }
    }
    assert_true(nslow > 0); /* both banks were used */
}

/* Runs `body` in a child; true when the child aborted (PW_ASSERT). */
static bool aborts(void (*body)(size_t), size_t arg) {
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        freopen("/dev/null", "w", stderr); /* the assertion's message */
        body(arg);
        _exit(0);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT;
}

/* reuse with a block of `cut` bytes fewer than it needs */
static void reuse_short(size_t cut) {
    plan_buf bufs[MAXN];
    plan_problem pb;
    random_problem(7, &pb, bufs);
    uint64_t off[MAXN + 1], size;
    size_t bytes = plan_reuse_scratch_size(&pb) - cut;
    void *scratch = block_of(bytes, 0);
    plan_reuse_in(&pb, scratch, bytes, off, &size);
    free(scratch);
}

static void verify_short(size_t cut) {
    plan_buf bufs[MAXN];
    plan_problem pb;
    random_problem(7, &pb, bufs);
    uint64_t off[MAXN + 1], size;
    assert_int_equal(plan_naive(&pb, off, &size), 0);
    size_t bytes = plan_verify_problem_scratch_size(&pb) - cut;
    void *scratch = block_of(bytes, 0);
    plan_verify_problem_in(&pb, scratch, bytes, off, size, NULL, 0);
    free(scratch);
}

static void test_short_block_aborts(void **st) {
    (void)st;
    assert_false(aborts(reuse_short, 0));
    assert_true(aborts(reuse_short, 1));
    assert_false(aborts(verify_short, 0));
    assert_true(aborts(verify_short, 1));
}

/* The size arithmetic saturates at SIZE_MAX instead of wrapping, and a
 * problem of 2^32 - 1 buffers gets a size that does not wrap (on a 64-bit
 * size_t none can overflow: then the size is at least a few bytes a
 * buffer). */
static void test_size_overflow(void **st) {
    (void)st;
    assert_int_equal(plan_scratch_add(0, SIZE_MAX / 2, 8), SIZE_MAX);
    assert_int_equal(plan_scratch_add(SIZE_MAX, 0, 1), SIZE_MAX);
    assert_int_equal(plan_scratch_add(SIZE_MAX - 8, 1, 16), SIZE_MAX);
    assert_int_equal(plan_scratch_add(16, 3, 4), 32);
    assert_int_equal(plan_scratch_add(0, 0, 8), 0);
    plan_carver c = plan_carver_measure();
    assert_null(PLAN_CARVE(&c, SIZE_MAX / 4, uint64_t));
    assert_null(PLAN_CARVE(&c, 1, uint64_t));
    assert_int_equal(c.used, SIZE_MAX); /* stays saturated */
    assert_int_equal(plan_colored_scratch_size(10, SIZE_MAX), SIZE_MAX);

    plan_problem huge = {UINT32_MAX, NULL, 64, NULL};
    plan sizes_of = {0};
    sizes_of.nstorages = UINT32_MAX;
    size_t per_buf_min = 16;
    size_t got[] = {plan_reuse_scratch_size(&huge),
                    plan_lower_bound_scratch_size(&huge),
                    plan_verify_problem_scratch_size(&huge),
                    plan_donors_scratch_size(&sizes_of),
                    plan_spill_banked_scratch_size(&huge)};
    for (size_t i = 0; i < sizeof got / sizeof *got; i++)
        assert_true(got[i] == SIZE_MAX ||
                    (SIZE_MAX / per_buf_min > UINT32_MAX &&
                     got[i] >= (size_t)UINT32_MAX * per_buf_min));
    /* a size_t of 32 bits overflows: the sizes saturate */
    if (SIZE_MAX <= UINT32_MAX)
        for (size_t i = 0; i < sizeof got / sizeof *got; i++)
            assert_int_equal(got[i], SIZE_MAX);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_naive_in),
        cmocka_unit_test(test_reuse_in),
        cmocka_unit_test(test_lower_bound_in),
        cmocka_unit_test(test_verify_in),
        cmocka_unit_test(test_donors_in),
        cmocka_unit_test(test_spill_banked_in),
        cmocka_unit_test(test_short_block_aborts),
        cmocka_unit_test(test_size_overflow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/runtime/test_runtime.c - unit tests of the runtime (planwrap_rt):
 * bounds and alignment checks, the lifetime tracker (overlap, poison,
 * reset, limit) and the communication-pool hooks.
 *
 * Built with PW_RT_CHECKS, PW_RT_TRACK and PW_TRACK_MAX_LIVE=8.  Aborting
 * paths run in a forked child whose stderr is captured: the test checks
 * that the child died of SIGABRT and that the message names what matters.
 */
#include "planwrap_rt.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#if PW_TRACK_MAX_LIVE != 8
#error "the limit test expects PW_TRACK_MAX_LIVE=8"
#endif

/* 64-byte aligned backing store for the pools of the tests. */
static union {
    unsigned char bytes[1024];
    long double align_ld;
    void *align_p;
} store_a, store_b;

static pw_pool pool_a(void) {
    pw_pool p = {store_a.bytes, 256, 16, "sram"};
    return p;
}

static pw_pool pool_b(void) {
    pw_pool p = {store_b.bytes, 256, 16, "dram"};
    return p;
}

/* ---- running a function that must abort, in a child ---------------- */

typedef void (*child_fn)(void);

typedef struct child_result {
    int aborted;     /* died of SIGABRT */
    int exit_status; /* exit status when it exited, else -1 */
    char err[2048];  /* what it printed on stderr */
} child_result;

static void run_child(child_fn fn, child_result *res) {
    int fds[2];
    memset(res, 0, sizeof *res);
    res->exit_status = -1;
    assert_int_equal(pipe(fds), 0);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 2);
        close(fds[1]);
        fn();
        _exit(0);
    }
    close(fds[1]);
    size_t len = 0;
    for (;;) {
        ssize_t n = read(fds[0], res->err + len, sizeof res->err - 1 - len);
        if (n <= 0)
            break;
        len += (size_t)n;
        if (len == sizeof res->err - 1)
            break;
    }
    res->err[len] = '\0';
    close(fds[0]);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFSIGNALED(status))
        res->aborted = WTERMSIG(status) == SIGABRT;
    else if (WIFEXITED(status))
        res->exit_status = WEXITSTATUS(status);
}

static void expect_abort(child_fn fn, const char *const *needles) {
    child_result r;
    run_child(fn, &r);
    if (!r.aborted)
        fail_msg("child did not abort (exit %d), stderr: %s", r.exit_status,
                 r.err);
    for (; *needles != NULL; needles++)
        if (strstr(r.err, *needles) == NULL)
            fail_msg("stderr lacks '%s': %s", *needles, r.err);
}

static void expect_ok(child_fn fn) {
    child_result r;
    run_child(fn, &r);
    if (r.aborted || r.exit_status != 0)
        fail_msg("child failed (exit %d), stderr: %s", r.exit_status, r.err);
}

/* ---- checks ------------------------------------------------------- */

static void test_alloc_in_bounds(void **state) {
    (void)state;
    pw_pool p = pool_a();
    assert_ptr_equal(alloc_from_pool(&p, 0, 256), store_a.bytes);
    assert_ptr_equal(alloc_from_pool(&p, 64, 16), store_a.bytes + 64);
    assert_ptr_equal(alloc_from_pool(&p, 256, 0), store_a.bytes + 256);
}

static void child_out_of_bounds(void) {
    pw_pool p = pool_a();
    (void)alloc_from_pool(&p, 240, 32);
}

static void child_offset_past_end(void) {
    pw_pool p = pool_a();
    (void)alloc_from_pool(&p, 300, 0);
}

static void child_huge_size(void) {
    pw_pool p = pool_a();
    /* offset + nbytes wraps around: must still be caught */
    (void)alloc_from_pool(&p, 16, SIZE_MAX - 8);
}

static void child_misaligned(void) {
    pw_pool p = {store_a.bytes + 4, 128, 16, "tcm"};
    (void)alloc_from_pool(&p, 0, 8);
}

static void child_null_pool(void) {
    pw_pool p = {NULL, 128, 16, "psram"};
    (void)alloc_from_pool(&p, 0, 8);
}

static void test_checks_abort(void **state) {
    (void)state;
    static const char *const oob[] = {"buffer outside its pool", "'sram'",
                                      "offset 240", "32 bytes", NULL};
    static const char *const past[] = {"outside its pool", "offset 300", NULL};
    static const char *const huge[] = {"outside its pool", "offset 16", NULL};
    static const char *const mis[] = {"not aligned", "'tcm'", "align 16", NULL};
    static const char *const null[] = {"pool is NULL", "'psram'", NULL};
    expect_abort(child_out_of_bounds, oob);
    expect_abort(child_offset_past_end, past);
    expect_abort(child_huge_size, huge);
    expect_abort(child_misaligned, mis);
    expect_abort(child_null_pool, null);
}

static void child_fail(void) {
    pw_pool p = pool_a();
    pw_rt_fail("custom", &p, 8, 4, "conv1");
}

static void test_fail_message(void **state) {
    (void)state;
    /* pw_rt_fail names the buffer when given one */
    static const char *const need[] = {"planwrap runtime: custom",
                                       "buffer 'conv1'",
                                       "'sram'",
                                       "offset 8",
                                       "4 bytes",
                                       NULL};
    expect_abort(child_fail, need);
}

/* ---- tracker ------------------------------------------------------ */

static void child_overlap(void) {
    pw_pool p = pool_a();
    pw_track_alloc(&p, 0, 64, "conv1_out");
    pw_track_alloc(&p, 64, 32, "relu1_out"); /* adjacent: fine */
    pw_track_alloc(&p, 80, 16, "pool1_out"); /* overlaps relu1_out */
}

static void child_contained(void) {
    pw_pool p = pool_a();
    pw_track_alloc(&p, 16, 128, "big");
    pw_track_alloc(&p, 32, 8, "small"); /* inside big */
}

static void child_one_byte(void) {
    pw_pool p = pool_a();
    pw_track_alloc(&p, 64, 64, "hi");
    pw_track_alloc(&p, 0, 64, "lo");    /* touches hi: fine */
    pw_track_alloc(&p, 127, 1, "last"); /* last byte of hi */
}

static void child_one_byte_below(void) {
    pw_pool p = pool_a();
    pw_track_alloc(&p, 64, 64, "hi");
    pw_track_alloc(&p, 0, 65, "lo"); /* first byte of hi */
}

static void test_track_overlap(void **state) {
    (void)state;
    static const char *const need[] = {"overlaps live buffer 'relu1_out'",
                                       "[64, 96)",
                                       "buffer 'pool1_out'",
                                       "'sram'",
                                       "offset 80",
                                       NULL};
    static const char *const need2[] = {"'big'", "'small'", NULL};
    expect_abort(child_overlap, need);
    expect_abort(child_contained, need2);
    static const char *const need3[] = {"'hi'", "'last'", NULL};
    static const char *const need4[] = {"'hi'", "'lo'", NULL};
    expect_abort(child_one_byte, need3);
    expect_abort(child_one_byte_below, need4);
}

static void child_disjoint(void) {
    pw_pool a = pool_a(), b = pool_b();
    pw_track_alloc(&a, 0, 64, "x");
    pw_track_alloc(&b, 0, 64, "y");  /* other pool, same offsets */
    pw_track_alloc(&a, 64, 0, "e");  /* empty: overlaps nothing */
    pw_track_alloc(&a, 32, 0, "e2"); /* empty inside x */
    pw_track_alloc(&a, 64, 64, "z"); /* adjacent */
    pw_track_death(&a, 0, 64, "x");  /* x dies ... */
    pw_track_alloc(&a, 0, 48, "x2"); /* ... and its bytes are reused */
    pw_track_death(&a, 64, 64, "z");
    pw_track_death(&a, 0, 48, "x2");
    pw_track_death(&a, 64, 0, "e");
    pw_track_death(&a, 32, 0, "e2");
    pw_track_death(&b, 0, 64, "y");
    if (pw_track_live(NULL) != 0)
        abort();
}

static void test_track_disjoint_ok(void **state) {
    (void)state;
    expect_ok(child_disjoint);
}

static void test_track_poison(void **state) {
    (void)state;
    pw_pool p = pool_a();
    memset(store_a.bytes, 0x11, sizeof store_a.bytes);
    pw_track_alloc(&p, 32, 16, "t");
    pw_track_alloc(&p, 48, 16, "u");
    memset(store_a.bytes + 32, 0x22, 32);
    pw_track_death(&p, 32, 16, "t");
    for (size_t i = 0; i < 32; i++)
        assert_int_equal(store_a.bytes[i], 0x11);
    for (size_t i = 32; i < 48; i++)
        assert_int_equal(store_a.bytes[i], PW_TRACK_POISON);
    for (size_t i = 48; i < 64; i++)
        assert_int_equal(store_a.bytes[i], 0x22); /* u still live */
    for (size_t i = 64; i < sizeof store_a.bytes; i++)
        assert_int_equal(store_a.bytes[i], 0x11);
    assert_int_equal(pw_track_live(&p), 1);
    pw_track_death(&p, 48, 16, "u");
    assert_int_equal(store_a.bytes[63], PW_TRACK_POISON);
    assert_int_equal(pw_track_live(&p), 0);
}

static void test_track_reset(void **state) {
    (void)state;
    pw_pool a = pool_a(), b = pool_b();
    pw_track_alloc(&a, 0, 64, "a0");
    pw_track_alloc(&a, 64, 64, "a1");
    pw_track_alloc(&b, 0, 64, "b0");
    assert_int_equal(pw_track_live(&a), 2);
    assert_int_equal(pw_track_live(&b), 1);
    assert_int_equal(pw_track_live(NULL), 3);
    pw_track_reset(&a);
    assert_int_equal(pw_track_live(&a), 0);
    assert_int_equal(pw_track_live(&b), 1);
    /* a's bytes are free again; b's are not */
    pw_track_alloc(&a, 0, 128, "a2");
    pw_track_reset(&a);
    pw_track_reset(&b);
    pw_track_reset(NULL); /* no-op */
    assert_int_equal(pw_track_live(NULL), 0);
    /* a copy of a descriptor denotes the same pool (keyed by base) */
    pw_pool a_copy = a;
    a_copy.name = "copy";
    pw_track_alloc(&a, 0, 8, "first");
    assert_int_equal(pw_track_live(&a_copy), 1);
    pw_track_death(&a_copy, 0, 8, "first");
    assert_int_equal(pw_track_live(&a), 0);
}

static void child_limit(void) {
    pw_pool p = pool_a();
    size_t i;
    for (i = 0; i < PW_TRACK_MAX_LIVE; i++)
        pw_track_alloc(&p, i * 8, 8, "fits");
    /* a death frees a slot that a later alloc takes */
    pw_track_death(&p, 0, 8, "fits");
    pw_track_alloc(&p, 0, 8, "again");
    pw_track_alloc(&p, 128, 8, "one_too_many");
}

static void child_dead_not_live(void) {
    pw_pool p = pool_a();
    pw_track_alloc(&p, 0, 64, "w");
    pw_track_death(&p, 0, 32, "w_part"); /* not the recorded range */
}

static void child_track_oob(void) {
    pw_pool p = pool_a();
    pw_track_alloc(&p, 200, 100, "too_far");
}

static void test_track_limits(void **state) {
    (void)state;
    static const char *const lim[] = {
        "too many live buffers", "PW_TRACK_MAX_LIVE", "'one_too_many'", NULL};
    static const char *const dead[] = {"not live", "'w_part'", NULL};
    static const char *const oob[] = {"outside its pool", "'too_far'", NULL};
    expect_abort(child_limit, lim);
    expect_abort(child_dead_not_live, dead);
    expect_abort(child_track_oob, oob);
}

/* ---- comm hooks --------------------------------------------------- */

typedef struct hook_log {
    int allocs, frees;
    size_t last_size;
    char last_comm[32], last_group[32];
    void *user_seen;
} hook_log;

static unsigned char hook_mem[64];

static int my_alloc(void **ptr, size_t size, const char *comm,
                    const char *group, void *user) {
    hook_log *log = user;
    log->allocs++;
    log->last_size = size;
    snprintf(log->last_comm, sizeof log->last_comm, "%s", comm);
    snprintf(log->last_group, sizeof log->last_group, "%s", group);
    log->user_seen = user;
    if (size > sizeof hook_mem)
        return 7;
    *ptr = hook_mem;
    return 0;
}

static int my_free(void *ptr, size_t size, const char *comm, const char *group,
                   void *user) {
    hook_log *log = user;
    (void)comm;
    (void)group;
    log->frees++;
    log->last_size = size;
    return ptr == hook_mem ? 0 : 9;
}

static void test_comm_hooks(void **state) {
    (void)state;
    hook_log log;
    memset(&log, 0, sizeof log);
    void *p = &log;

    /* C-only default: an error, and a NULL pointer */
    pw_set_comm_hooks(NULL, NULL, NULL);
    assert_int_not_equal(pw_comm_alloc(&p, 32, "symm", "tp0"), 0);
    assert_null(p);
    assert_int_equal(pw_comm_free(NULL, 0, "symm", "tp0"), 0);
    assert_int_not_equal(pw_comm_alloc(NULL, 32, "symm", "tp0"), 0);

    pw_set_comm_hooks(my_alloc, my_free, &log);
    assert_int_equal(pw_comm_alloc(&p, 48, "symm", "tp1"), 0);
    assert_ptr_equal(p, hook_mem);
    assert_int_equal(log.allocs, 1);
    assert_int_equal(log.last_size, 48);
    assert_string_equal(log.last_comm, "symm");
    assert_string_equal(log.last_group, "tp1");
    assert_ptr_equal(log.user_seen, &log);
    assert_int_equal(pw_comm_alloc(&p, 1000, "nvls", "dp"), 7);
    assert_int_equal(pw_comm_free(hook_mem, 48, "symm", "tp1"), 0);
    assert_int_equal(log.frees, 1);
    assert_int_equal(pw_comm_free(&log, 48, "symm", "tp1"), 9);

    /* NULL restores the default */
    pw_set_comm_hooks(NULL, NULL, NULL);
    assert_int_not_equal(pw_comm_alloc(&p, 32, "symm", "tp0"), 0);
    assert_int_equal(log.allocs, 2);
}

static int lookup_calls;
static void *my_lookup(const char *group, void *user) {
    lookup_calls++;
    return strcmp(group, "tp0") == 0 ? user : NULL;
}

static void test_nccl_lookup(void **state) {
    (void)state;
    int comm_obj = 0;
    assert_null(pw_nccl_comm_for_group("tp0"));
    pw_set_nccl_comm_lookup(my_lookup, &comm_obj);
    assert_ptr_equal(pw_nccl_comm_for_group("tp0"), &comm_obj);
    assert_null(pw_nccl_comm_for_group("dp"));
    assert_int_equal(lookup_calls, 2);
    pw_set_nccl_comm_lookup(NULL, NULL);
    assert_null(pw_nccl_comm_for_group("tp0"));
    assert_string_equal(pw_rt_version(), PW_RT_VERSION);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alloc_in_bounds),
        cmocka_unit_test(test_checks_abort),
        cmocka_unit_test(test_fail_message),
        cmocka_unit_test(test_track_overlap),
        cmocka_unit_test(test_track_disjoint_ok),
        cmocka_unit_test(test_track_poison),
        cmocka_unit_test(test_track_reset),
        cmocka_unit_test(test_track_limits),
        cmocka_unit_test(test_comm_hooks),
        cmocka_unit_test(test_nccl_lookup),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/runtime/test_runtime_off.c - with PW_RT_CHECKS and PW_RT_TRACK
 * undefined the runtime costs nothing: alloc_from_pool is the bare
 * addition (no check runs, even for a buffer outside its pool) and the
 * tracker macros do not even evaluate their arguments.
 */
#include "planwrap_rt.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#if defined(PW_RT_CHECKS) || defined(PW_RT_TRACK)
#error "this test is built without PW_RT_CHECKS and PW_RT_TRACK"
#endif

static unsigned char backing[256];
static int evaluated;

static const char *side_effect(void) {
    evaluated++;
    return "x";
}

static void test_no_checks(void **state) {
    (void)state;
    /* the descriptor says 16 bytes; the checks would abort */
    pw_pool p = {backing, 16, 16, "small"};
    assert_ptr_equal(alloc_from_pool(&p, 32, 64), backing + 32);
    pw_pool misaligned = {backing + 1, 16, 16, "odd"};
    assert_ptr_equal(alloc_from_pool(&misaligned, 0, 8), backing + 1);
}

static void test_track_macros_vanish(void **state) {
    (void)state;
    pw_pool p = {backing, 256, 16, "pool"};
    memset(backing, 0x11, sizeof backing);
    PW_TRACK_ALLOC(&p, 0, 64, side_effect());
    PW_TRACK_ALLOC(&p, 0, 64, side_effect()); /* overlap: not tracked */
    PW_TRACK_DEATH(&p, 0, 64, side_effect());
    PW_TRACK_RESET(&p);
    /* the macros expand to ((void)0): nothing refers to these any more */
    (void)p;
    (void)side_effect;
    assert_int_equal(evaluated, 0);
    assert_int_equal(backing[0], 0x11); /* no poison */
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_checks),
        cmocka_unit_test(test_track_macros_vanish),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

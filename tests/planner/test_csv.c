/*
 * tests/planner/test_csv.c - plan_read_csv: conversion of minimalloc rows
 * and every error (message and FILE:LINE:COL).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "planner/planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads `text` and returns the diagnostics printed (malloc'ed). */
static char *read_csv(const char *text, size_t len, bool *ok, plan_problem *pb,
                      base_arena *a) {
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    base_diag *d = base_diag_new(f, 0);
    *ok = plan_read_csv(a, "t.csv", text, len, pb, d);
    base_diag_free(d);
    fclose(f);
    return buf;
}

static void test_valid(void **st) {
    (void)st;
    const char *t = "id,lower,upper,size\r\n7,0,3,100\n\nb,2,4,0\n";
    base_arena *a = base_arena_new();
    plan_problem pb;
    bool ok;
    char *msg = read_csv(t, strlen(t), &ok, &pb, a);
    assert_true(ok);
    assert_string_equal(msg, "");
    assert_int_equal(pb.n, 2);
    assert_string_equal(pb.names[0], "7");
    assert_int_equal(pb.bufs[0].start, 0);
    assert_int_equal(pb.bufs[0].end, 2); /* [0,3) -> [0,2] */
    assert_int_equal(pb.bufs[0].size, 100);
    assert_int_equal(pb.bufs[1].size, 0);
    assert_int_equal(pb.align, 1);
    free(msg);
    base_arena_free(a);
}

typedef struct bad_case {
    const char *text;
    size_t len;
    const char *where; /* "t.csv:LINE:COL: error: " prefix */
    const char *what;  /* substring of the message */
} bad_case;

static void test_errors(void **st) {
    (void)st;
    static const bad_case cases[] = {
        {"", 0, "t.csv:1:1: error: ", "empty file"},
        {"id,lower,upper\n", 15, "t.csv:1:15: error: ", "bad header"},
        {"id,lower,upper,size\n1,0,x,4\n", 0,
         "t.csv:2:5: error: ", "bad upper"},
        {"id,lower,upper,size\n1,5,5,4\n", 0,
         "t.csv:2:3: error: ", "lower 5 is not below upper 5"},
        {"id,lower,upper,size\n1,0,5,4\n1,1,2,3\n", 0,
         "t.csv:3:1: error: ", "duplicate id '1' (first on line 2)"},
        {"id,lower,upper,size\n1,0,5\n", 0, "t.csv:2:6: error: ", "fewer"},
        {"id,lower,upper,size\n1,0,5,4,4\n", 0, "t.csv:2:8: error: ", "more"},
        {"id,lower,upper,size\n1,0,5,99999999999999999999\n", 0,
         "t.csv:2:7: error: ", "bad size"},
        {"id,lower,upper,size\n1,0,4294967296,1\n", 0,
         "t.csv:2:5: error: ", "bad upper"},
        {"id,lower,upper,size\n,0,5,1\n", 0, "t.csv:2:1: error: ", "empty id"},
        {"id,lower,upper,size\n1,0\0,5,1\n", 28,
         "t.csv:2:4: error: ", "NUL byte"},
        {"id,lower,upper,size\n1,-1,5,1\n", 0,
         "t.csv:2:3: error: ", "bad lower"},
        {"id,lower,upper,size\na b,0,5,1\n", 0, "t.csv:2:2: error: ", "bad id"},
        {"id,lower,upper,size\n\xc3\xa9,0,5,1\n", 0,
         "t.csv:2:1: error: ", "bad id"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const bad_case *c = &cases[i];
        size_t len = c->len ? c->len : strlen(c->text);
        if (i == 0)
            len = 0;
        base_arena *a = base_arena_new();
        plan_problem pb;
        bool ok;
        char *msg = read_csv(c->text, len, &ok, &pb, a);
        if (ok || strncmp(msg, c->where, strlen(c->where)) != 0 ||
            !strstr(msg, c->what))
            fail_msg("case %zu: ok=%d, got:\n%s", i, ok, msg);
        free(msg);
        base_arena_free(a);
    }
}

/* N rows `bufI,I,I+3,SIZE`, no newline after the last; row `big` has a
 * 19-digit size, row `dup` the id of row 31 (malloc'ed). */
static char *many_rows(unsigned n, unsigned big, unsigned dup, size_t *len) {
    size_t cap = 64 + (size_t)n * 64, k = 0;
    char *t = malloc(cap);
    k += (size_t)snprintf(t, cap, "id,lower,upper,size\n");
    for (unsigned i = 0; i < n; i++)
        k += (size_t)snprintf(t + k, cap - k, "buf%u,%u,%u,%u%s%s",
                              i == dup ? 31 : i, i, i + 3, 64 * (i % 7 + 1),
                              i == big ? "0000000000000000" : "",
                              i + 1 < n ? "\n" : "");
    *len = k;
    return t;
}

/* Many rows: the fast path reads them all; a 19-digit size or a duplicate
 * id far apart sends the file to the careful path, which reads it all
 * again (and names the duplicate's line). */
static void test_many_rows(void **st) {
    (void)st;
    enum { N = 20000 };
    for (int v = 0; v < 3; v++) {
        size_t len;
        char *t = many_rows(N, v == 1 ? 12345 : N, v == 2 ? 17001 : N, &len);
        base_arena *a = base_arena_new();
        plan_problem pb;
        bool ok;
        char *msg = read_csv(t, len, &ok, &pb, a);
        if (v < 2) {
            assert_true(ok);
            assert_string_equal(msg, "");
            assert_int_equal(pb.n, N);
            assert_string_equal(pb.names[N - 1], "buf19999");
            assert_int_equal(pb.bufs[N - 1].end, N - 1 + 2);
            uint64_t sz = 64 * (12345 % 7 + 1);
            assert_int_equal(pb.bufs[12345].size,
                             v ? sz * UINT64_C(10000000000000000) : sz);
        } else {
            assert_false(ok);
            const char *want = "t.csv:17003:1: error: duplicate id 'buf31' "
                               "(first on line 33)\n";
            if (strncmp(msg, want, strlen(want)) != 0)
                fail_msg("got:\n%s", msg);
        }
        free(msg);
        free(t);
        base_arena_free(a);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_valid),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_many_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/base/test_base.c - unit tests of base/: arena, string builder,
 * file reader, binary search, comparator, diagnostics limit.
 */
#include "base/base.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static void arena_zeroed_aligned(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    for (size_t n = 0; n < 300000; n = n * 2 + 1) {
        unsigned char *p = base_arena_alloc(a, n);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xAB, n);
    }
    assert_string_equal(base_arena_printf(a, "%s-%d", "x", 42), "x-42");
    assert_string_equal(base_arena_strndup(a, "abcdef", 3), "abc");
    base_arena_free(a);
    base_arena_free(NULL);
    /* 8-byte blocks: consecutive small blocks are 8 bytes apart. */
    a = base_arena_new_aligned(8);
    char *p = base_arena_alloc(a, 3), *q = base_arena_alloc(a, 8);
    assert_int_equal(q - p, 8);
    assert_int_equal((uintptr_t)q % 8, 0);
    base_arena_free(a);
}

static void sb_builds(void **state) {
    (void)state;
    base_sb b = {0};
    assert_string_equal(base_sb_str(&b), "");
    base_sb_puts(&b, "x =");
    base_sb_spaces(&b, 2);
    base_sb_u64(&b, UINT64_MAX);
    base_sb_putc(&b, ';');
    base_sb_printf(&b, " %s%d", "n", 7);
    assert_string_equal(base_sb_str(&b), "x =  18446744073709551615; n7");
    for (int i = 0; i < 1000; i++)
        base_sb_u64(&b, 0);
    assert_int_equal(b.len, 29 + 1000);
    size_t len = 0;
    char *s = base_sb_take(&b, &len);
    assert_int_equal(len, 1029);
    assert_int_equal(s[1028], '0');
    assert_null(b.p);
    free(s);
    base_sb_clear(&b);
    base_sb_free(&b);
}

static void read_file_errors(void **state) {
    (void)state;
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    assert_false(base_read_file("/nonexistent/x", &text, &len, &err));
    assert_int_equal(err, ENOENT);
    assert_false(base_read_file("/", &text, &len, &err));
    assert_int_equal(err, EISDIR);
    assert_true(base_read_file(__FILE__, &text, &len, &err));
    assert_true(len > 100);
    assert_int_equal(text[len], '\0');
    assert_memory_equal(text, "/*\n * tests/base/test_base.c", 27);
    free(text);
}

static void search_and_compare(void **state) {
    (void)state;
    uint64_t a[] = {9, 3, 3, 1, UINT64_MAX};
    qsort(a, 5, sizeof a[0], base_cmp_u64);
    assert_int_equal(a[0], 1);
    assert_true(a[4] == UINT64_MAX);
    assert_int_equal(base_lower_bound_u64(a, 5, 0), 0);
    assert_int_equal(base_lower_bound_u64(a, 5, 3), 1);
    assert_int_equal(base_lower_bound_u64(a, 5, 4), 3);
    assert_int_equal(base_lower_bound_u64(a, 5, UINT64_MAX), 4);
    assert_int_equal(base_lower_bound_u64(a, 0, 5), 0);
    uint32_t b[] = {8, 4, UINT32_MAX, 2};
    qsort(b, 4, sizeof b[0], base_cmp_u32);
    assert_int_equal(b[0], 2);
    assert_int_equal(b[1], 4);
    assert_true(b[3] == UINT32_MAX);
    b[2] = 4;
    b[3] = 8;
    assert_int_equal(base_lower_bound_u32(b, 4, 4), 1);
    assert_int_equal(base_lower_bound_u32(b, 4, 9), 4);
}

static void diag_limit(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    base_diag *d = base_diag_new(mem, 2);
    base_diag_set_source(d, "f.pw", "abc\ndef\n", 8);
    base_diag_report(d, BASE_SEV_ERROR, 2, 2, "bad %s", "e");
    base_diag_report(d, BASE_SEV_WARNING, 0, 0, "w");
    base_diag_report(d, BASE_SEV_ERROR, 1, 1, "second");
    base_diag_report(d, BASE_SEV_ERROR, 1, 1, "third");
    assert_int_equal(base_diag_errors(d), 3);
    assert_int_equal(base_diag_warnings(d), 1);
    base_diag_free(d);
    fclose(mem);
    assert_non_null(strstr(buf, "f.pw:2:2: error: bad e\n"));
    assert_non_null(strstr(buf, "f.pw:1:1: error: second\n"));
    assert_null(strstr(buf, "third"));
    free(buf);
}

static void fprint_ratio(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    base_fprint_ratio(mem, 5, 4);
    fputc(' ', mem);
    base_fprint_ratio(mem, 0, 0);
    fputc(' ', mem);
    base_fprint_ratio(mem, 7, 0);
    fputc(' ', mem);
    base_fprint_ratio(mem, 2, 3);
    fclose(mem);
    assert_string_equal(buf, "1.250 1.000 inf 0.667");
    free(buf);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_zeroed_aligned),
        cmocka_unit_test(sb_builds),
        cmocka_unit_test(read_file_errors),
        cmocka_unit_test(search_and_compare),
        cmocka_unit_test(diag_limit),
        cmocka_unit_test(fprint_ratio),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

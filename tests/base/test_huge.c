/*
 * tests/base/test_huge.c - base_huge_alloc: zeroed blocks aligned as
 * asked (16 to 4096), big ones mapped alone on a 2 MiB boundary; NULL,
 * never an exit, for sizes that cannot be rounded up and when memory is
 * short (alloc_fail.h makes mmap and calloc fail on purpose); a
 * diagnostic reported without memory for its quote is one line, not
 * base_oom's exit.
 */
#include "base/base.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <cmocka.h>

#include "alloc_fail.h"

#define MIB ((size_t)1 << 20)

/* Every byte of p[0..n) is 0 (sampled every 4 KiB, and the last). */
static void assert_zero(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i += 4096)
        assert_int_equal(p[i], 0);
    if (n)
        assert_int_equal(p[n - 1], 0);
}

/* Small blocks come from calloc, blocks of 1 MiB and more from a mapping
 * of their own whose start (the block's header) is 2 MiB-aligned; every
 * block aligned as asked.  The blocks of one alignment stay allocated
 * together: eight calloc'ed blocks 16-aligned (all that calloc promises)
 * would not all be 64-aligned by chance, nor one 4096-aligned.  The last
 * byte is written (the sanitizer checks it is in the block). */
static void huge_sizes(void **state) {
    (void)state;
    const size_t sizes[] = {0,   1,           100,     MIB / 2,    MIB - 8192,
                            MIB, 2 * MIB - 5, 2 * MIB, 5 * MIB + 3};
    const size_t aligns[] = {0, 1, 16, 32, 64, 256, 4096};
    enum { NS = sizeof sizes / sizeof *sizes };
    for (size_t a = 0; a < sizeof aligns / sizeof *aligns; a++) {
        size_t al = aligns[a] < 16 ? 16 : aligns[a];
        unsigned char *p[NS];
        for (size_t k = 0; k < NS; k++) {
            size_t n = sizes[k];
            alloc_fail_reset();
            p[k] = base_huge_alloc(n, aligns[a]);
            assert_non_null(p[k]);
            assert_int_equal((uintptr_t)p[k] % al, 0);
            assert_zero(p[k], n);
            if (n >= MIB) {
                assert_int_equal(alloc_fail_mmaps, 1);
                assert_int_equal(alloc_fail_callocs, 0);
                /* the header, then the first aligned byte */
                assert_true(((uintptr_t)p[k] & (2 * MIB - 1)) <=
                            (al > 64 ? al : 64));
            } else {
                assert_int_equal(alloc_fail_mmaps, 0);
                assert_int_equal(alloc_fail_callocs, 1);
            }
            if (n) {
                p[k][0] = 1;
                p[k][n - 1] = 2;
            }
        }
        for (size_t k = 0; k < NS; k++)
            base_huge_free(p[k]);
    }
    base_huge_free(NULL);
}

/* A size whose round-up to 2 MiB (with the header) would wrap: NULL, no
 * allocation tried. */
static void huge_too_large(void **state) {
    (void)state;
    const size_t sizes[] = {SIZE_MAX, SIZE_MAX - 15, SIZE_MAX - 2 * MIB,
                            SIZE_MAX - 2 * MIB - 64};
    for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
        alloc_fail_reset();
        assert_null(base_huge_alloc(sizes[k], 16));
        assert_null(base_huge_alloc(sizes[k], 4096));
        assert_int_equal(alloc_fail_mmaps + alloc_fail_callocs, 0);
    }
}

/* Memory short: a failed mapping falls back to calloc; both failing give
 * NULL (the arena would have ended the process). */
static void huge_out_of_memory(void **state) {
    (void)state;
    alloc_fail_reset();
    alloc_fail_mmap_from = 0;
    unsigned char *p = base_huge_alloc(3 * MIB, 4096);
    assert_non_null(p);
    assert_int_equal(alloc_fail_mmaps, 1);
    assert_int_equal(alloc_fail_callocs, 1);
    assert_int_equal((uintptr_t)p % 4096, 0);
    assert_zero(p, 3 * MIB);
    p[3 * MIB - 1] = 1;
    base_huge_free(p);

    alloc_fail_reset();
    alloc_fail_mmap_from = alloc_fail_calloc_from = MIB;
    assert_null(base_huge_alloc(3 * MIB, 16));
    assert_null(base_huge_alloc(MIB, 64));
    p = base_huge_alloc(MIB / 2, 64); /* below the limit: still there */
    assert_non_null(p);
    base_huge_free(p);
    alloc_fail_reset();

#ifndef __SANITIZE_ADDRESS__
    /* The real thing: 2^62 bytes are more than any machine maps.  (The
     * sanitizer's calloc reports such a size instead of failing.) */
    assert_null(base_huge_alloc((size_t)1 << 62, 64));
#endif
}

/* The quoted line needs an index of the source's lines (a word a line):
 * without the memory for it, the message comes alone. */
static void diag_quote_without_memory(void **state) {
    (void)state;
    base_sb b = {0};
    for (int i = 0; i < 20000; i++)
        base_sb_puts(&b, "x,1,2\n");
    size_t len;
    char *text = base_sb_take(&b, &len);
    for (int fail = 0; fail < 2; fail++) {
        char *out = NULL;
        size_t olen = 0;
        FILE *f = open_memstream(&out, &olen);
        assert_non_null(f);
        base_diag *d = base_diag_new(f, 0);
        base_diag_set_source(d, "t.csv", text, len);
        alloc_fail_reset();
        if (fail)
            alloc_fail_malloc_from = 64 * 1024; /* the index: 160 KB */
        base_diag_report(d, BASE_SEV_ERROR, 2, 3, "out of memory");
        alloc_fail_reset();
        base_diag_free(d);
        fclose(f);
        assert_string_equal(out, fail ? "t.csv:2:3: error: out of memory\n"
                                      : "t.csv:2:3: error: out of memory\n"
                                        "x,1,2\n"
                                        "  ^\n");
        free(out);
    }
    free(text);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(huge_sizes),
        cmocka_unit_test(huge_too_large),
        cmocka_unit_test(huge_out_of_memory),
        cmocka_unit_test(diag_quote_without_memory),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

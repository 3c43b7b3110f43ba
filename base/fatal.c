/*
 * base/fatal.c - the out-of-memory abort, allocation that cannot fail,
 * PW_ASSERT's report, and the qsort comparators (u64, u32, strings).
 */
#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Out of memory is an error like any other for the user: a message and
 * exit status 1 (not abort's 134).  It is printed here, not through a
 * diagnostics sink: it can happen anywhere (inside the sink too, or
 * before a command made its sink), the process stops at once, and it
 * needs no memory.  The same holds for the internal-error aborts below:
 * they are bugs, not reports on the input. */
_Noreturn void base_oom(void) {
    fputs("planwrap: error: out of memory\n", stderr);
    exit(1);
}

void *base_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q)
        base_oom();
    return q;
}

void *base_xmalloc(size_t n) {
    return base_xrealloc(NULL, n);
}

void *base_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size ? size : 1);
    if (!p)
        base_oom();
    return p;
}

_Noreturn void base_assert_fail(const char *cond, const char *file, int line) {
    fprintf(stderr, "planwrap: internal error: %s:%d: assertion `%s' failed\n",
            file, line, cond);
    abort();
}

_Noreturn void base_vbug(const char *file, int line, const char *fmt,
                         va_list ap) {
    fprintf(stderr, "planwrap: internal error at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    abort();
}

int base_cmp_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int base_cmp_u32(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

int base_cmp_str(const void *a, const void *b) {
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

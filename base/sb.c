/*
 * base/sb.c - the string builder.
 */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void base_sb_reserve(base_sb *b, size_t n) {
    if (n > SIZE_MAX - b->len - 1)
        base_oom();
    size_t need = b->len + n + 1;
    if (need <= b->cap)
        return;
    size_t cap = b->cap ? b->cap : 64;
    while (cap < need)
        cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    b->p = base_xrealloc(b->p, cap);
    b->cap = cap;
}

void base_sb_spaces(base_sb *b, size_t n) {
    base_sb_reserve(b, n);
    memset(b->p + b->len, ' ', n);
    b->len += n;
    b->p[b->len] = '\0';
}

/* The tables of base_u64_at (base.h). */
const char base_digits2[201] = "00010203040506070809"
                               "10111213141516171819"
                               "20212223242526272829"
                               "30313233343536373839"
                               "40414243444546474849"
                               "50515253545556575859"
                               "60616263646566676869"
                               "70717273747576777879"
                               "80818283848586878889"
                               "90919293949596979899";

const uint64_t base_pow10[20] = {1ull,
                                 10ull,
                                 100ull,
                                 1000ull,
                                 10000ull,
                                 100000ull,
                                 1000000ull,
                                 10000000ull,
                                 100000000ull,
                                 1000000000ull,
                                 10000000000ull,
                                 100000000000ull,
                                 1000000000000ull,
                                 10000000000000ull,
                                 100000000000000ull,
                                 1000000000000000ull,
                                 10000000000000000ull,
                                 100000000000000000ull,
                                 1000000000000000000ull,
                                 10000000000000000000ull};

void base_sb_u64(base_sb *b, uint64_t x) {
    base_sb_end(b, base_u64_at(base_sb_room(b, BASE_U64_MAX_DIGITS), x));
}

void base_sb_vprintf(base_sb *b, const char *fmt, va_list ap) {
    va_list aq;
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, aq);
    va_end(aq);
    if (n < 0)
        base_oom();
    base_sb_reserve(b, (size_t)n);
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
}

void base_sb_printf(base_sb *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(b, fmt, ap);
    va_end(ap);
}

const char *base_sb_str(const base_sb *b) {
    return b->p ? b->p : "";
}

void base_sb_clear(base_sb *b) {
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
}

char *base_sb_take(base_sb *b, size_t *len) {
    if (!b->p)
        base_sb_reserve(b, 0);
    char *p = b->p;
    if (len)
        *len = b->len;
    b->p = NULL;
    b->len = b->cap = 0;
    return p;
}

void base_sb_free(base_sb *b) {
    free(b->p);
    b->p = NULL;
    b->len = b->cap = 0;
}

void base_fprint_ratio(FILE *f, uint64_t num, uint64_t den) {
    if (den == 0)
        fputs(num == 0 ? "1.000" : "inf", f);
    else
        fprintf(f, "%.3f", (double)num / (double)den);
}

/*
 * tests/ir/fuzz_ir.c - libFuzzer target: parse + check + print arbitrary
 * bytes; when the input is valid, its canonical print must parse, check
 * and print to the same text (a fixed point).  The same bytes also go
 * through the recovering parser of ir_load and the checker, broken
 * statements and all: the verdict must be the same.  Diagnostics go to a
 * null stream.  Any crash, sanitizer report, leak or abort is a bug.
 */
#include "ir/intern.h" /* ir_parse_recover */
#include "ir/ir.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *fuzz_print(const ir_program *p, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    if (!f)
        abort();
    ir_print(f, p);
    fclose(f);
    return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    FILE *sink = fopen("/dev/null", "w");
    if (!sink)
        abort();
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(sink, 0);
    base_diag_set_source(d, "fuzz.pw", (const char *)data, size);
    ir_program *p = ir_parse(a, "fuzz.pw", (const char *)data, size, d);
    bool valid = p && ir_check(p, d);
    {
        /* what ir_load does: check after syntax errors too */
        base_arena *ar = base_arena_new();
        base_diag *dr = base_diag_new(sink, 0);
        base_diag_set_source(dr, "fuzz.pw", (const char *)data, size);
        ir_program *pr =
            ir_parse_recover(ar, "fuzz.pw", (const char *)data, size, dr);
        bool valid_r = pr && ir_check(pr, dr) && pr->syntax_errors == 0;
        if (valid_r != valid)
            abort(); /* both agree on what is valid */
        if (pr && !p && pr->syntax_errors == 0)
            abort(); /* ir_parse drops only programs with syntax errors */
        base_diag_free(dr);
        base_arena_free(ar);
    }
    if (valid) {
        size_t len1, len2;
        char *t1 = fuzz_print(p, &len1);
        base_arena *a2 = base_arena_new();
        base_diag *d2 = base_diag_new(sink, 0);
        base_diag_set_source(d2, "print.pw", t1, len1);
        ir_program *p2 = ir_parse(a2, "print.pw", t1, len1, d2);
        if (!p2 || !ir_check(p2, d2))
            abort(); /* the canonical form of a valid program is valid */
        char *t2 = fuzz_print(p2, &len2);
        if (len1 != len2 || memcmp(t1, t2, len1) != 0)
            abort(); /* print is a fixed point */
        if (p2->nvalues != p->nvalues)
            abort();
        free(t2);
        base_diag_free(d2);
        base_arena_free(a2);
        free(t1);
    }
    base_diag_free(d);
    base_arena_free(a);
    fclose(sink);
    return 0;
}

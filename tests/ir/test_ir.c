/*
 * tests/ir/test_ir.c - unit tests of the IR front end: arena, diagnostics,
 * lexer and parser, checker, printer, and the real models.
 */
#include "ir/intern.h" /* ir_parse_recover */
#include "ir/ir.h"

#include <dirent.h>
#include <inttypes.h>
#include <unistd.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* ------------------------------------------------------------------ */
/* Helpers: parse (+ check) a text, capturing the diagnostics. */

typedef struct fixture {
    base_arena *a;
    base_diag *d;
    FILE *mem;
    char *out; /* diagnostics text, after fx_diags() */
    size_t outlen;
    ir_program *p;
    bool checked;
} fixture;

static fixture *fx_new(unsigned max_errors) {
    fixture *f = calloc(1, sizeof *f);
    assert_non_null(f);
    f->a = base_arena_new();
    f->mem = open_memstream(&f->out, &f->outlen);
    assert_non_null(f->mem);
    f->d = base_diag_new(f->mem, max_errors);
    return f;
}

static void fx_free(fixture *f) {
    base_diag_free(f->d);
    fclose(f->mem);
    free(f->out);
    base_arena_free(f->a);
    free(f);
}

/* Parses and, when that succeeds, checks `len` bytes of `text`. */
static fixture *fx_run_n(const char *text, size_t len, unsigned max_errors) {
    fixture *f = fx_new(max_errors);
    base_diag_set_source(f->d, "t.pw", text, len);
    f->p = ir_parse(f->a, "t.pw", text, len, f->d);
    if (f->p)
        f->checked = ir_check(f->p, f->d);
    fflush(f->mem);
    return f;
}

static fixture *fx_run(const char *text) {
    return fx_run_n(text, strlen(text), 0);
}

/* The diagnostics printed so far. */
static const char *fx_diags(fixture *f) {
    fflush(f->mem);
    return f->out ? f->out : "";
}

static void assert_valid(const char *text) {
    fixture *f = fx_run(text);
    if (!f->checked)
        fail_msg("expected a valid program, got:\n%s", fx_diags(f));
    fx_free(f);
}

/* Asserts that the first diagnostic line is exactly `first`. */
static void assert_first_error(const char *text, const char *first) {
    fixture *f = fx_run(text);
    assert_false(f->checked);
    const char *d = fx_diags(f);
    size_t n = strcspn(d, "\n");
    if (strlen(first) != n || memcmp(d, first, n) != 0)
        fail_msg("expected first diagnostic\n  %s\ngot\n%s", first, d);
    fx_free(f);
}

static size_t count_substr(const char *s, const char *sub) {
    size_t n = 0;
    for (const char *p = strstr(s, sub); p; p = strstr(p + 1, sub))
        n++;
    return n;
}

static const ir_value *value_named(const ir_program *p, const char *name) {
    int32_t id = ir_find_value(p, name);
    assert_true(id >= 0);
    return &p->values[id];
}

/* ------------------------------------------------------------------ */
/* Arena and small helpers. */

static void test_arena(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    for (int i = 0; i < 1000; i++) {
        unsigned char *p = base_arena_alloc(a, (size_t)i * 7 + 1);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (int k = 0; k < i * 7 + 1; k++)
            assert_int_equal(p[k], 0);
        memset(p, 0xAB, (size_t)i * 7 + 1);
    }
    char *big = base_arena_alloc(a, 1 << 20);
    big[(1 << 20) - 1] = 1;
    assert_string_equal(base_arena_strdup(a, "abc"), "abc");
    assert_string_equal(base_arena_strndup(a, "abcdef", 2), "ab");
    assert_string_equal(base_arena_printf(a, "%d-%s", 42, "x"), "42-x");
    uint64_t *arr = base_arena_array(a, 10, sizeof *arr);
    assert_int_equal(arr[9], 0);
    base_arena_free(a);
    base_arena_free(NULL);
}

static void test_dtypes_devices(void **state) {
    (void)state;
    static const unsigned sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};
    static const char *const names[] = {"f64", "f32", "f16", "bf16", "i64",
                                        "i32", "i16", "i8",  "u8",   "bool"};
    for (int t = 0; t < IR_DTYPE_COUNT; t++) {
        assert_int_equal(ir_dtype_size((ir_dtype)t), sizes[t]);
        assert_string_equal(ir_dtype_name((ir_dtype)t), names[t]);
    }
    char buf[24];
    ir_device cpu = {IR_DEV_CPU, 0}, cuda = {IR_DEV_CUDA, 3};
    assert_string_equal(ir_device_str(cpu, buf, sizeof buf), "cpu");
    assert_string_equal(ir_device_str(cuda, buf, sizeof buf), "cuda:3");
}

/* ------------------------------------------------------------------ */
/* Diagnostics. */

/* Every C11 keyword is one (ir/lex.c filters by first byte and length
 * before comparing), and names close to one are not. */
static void test_c_keywords(void **state) {
    (void)state;
    static const char *const kw[] = {
        "auto",       "break",     "case",           "char",
        "const",      "continue",  "default",        "do",
        "double",     "else",      "enum",           "extern",
        "float",      "for",       "goto",           "if",
        "inline",     "int",       "long",           "register",
        "restrict",   "return",    "short",          "signed",
        "sizeof",     "static",    "struct",         "switch",
        "typedef",    "union",     "unsigned",       "void",
        "volatile",   "while",     "_Alignas",       "_Alignof",
        "_Atomic",    "_Bool",     "_Complex",       "_Generic",
        "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local"};
    for (size_t i = 0; i < sizeof kw / sizeof kw[0]; i++)
        assert_true(ir_is_c_keyword(kw[i]));
    static const char *const not_kw[] = {"autos",         "Int", "in",    "x",
                                         "_Boo",          "dou", "whilE", "i",
                                         "layer0_weight", "_"};
    for (size_t i = 0; i < sizeof not_kw / sizeof not_kw[0]; i++)
        assert_false(ir_is_c_keyword(not_kw[i]));
}

static void test_diag_format(void **state) {
    (void)state;
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    base_diag *d = base_diag_new(mem, 3);
    const char *src = "model m\n\tfoo  bar\nlast";
    base_diag_set_source(d, "f.pw", src, strlen(src));
    base_diag_report(d, BASE_SEV_ERROR, 2, 6, "bad %s", "bar");
    base_diag_report(d, BASE_SEV_NOTE, 1, 1, "here");
    base_diag_report(d, BASE_SEV_WARNING, 3, 5, "end");
    base_diag_report(d, BASE_SEV_ERROR, 0, 0, "global");
    for (int i = 0; i < 5; i++)
        base_diag_report(d, BASE_SEV_ERROR, 1, 1, "more %d", i);
    base_diag_report(d, BASE_SEV_NOTE, 1, 1, "note of a suppressed error");
    fclose(mem);
    assert_string_equal(out, "f.pw:2:6: error: bad bar\n"
                             "\tfoo  bar\n"
                             "\t    ^\n"
                             "f.pw:1:1: note: here\n"
                             "model m\n"
                             "^\n"
                             "f.pw:3:5: warning: end\n"
                             "last\n"
                             "    ^\n"
                             "f.pw: error: global\n"
                             "f.pw:1:1: error: more 0\n"
                             "model m\n"
                             "^\n"
                             "planwrap: error: too many errors (limit 3), "
                             "stopping\n");
    assert_int_equal(base_diag_errors(d), 7);
    assert_int_equal(base_diag_warnings(d), 1);
    base_diag_free(d);
    free(out);
}

static void test_diag_long_line_window(void **state) {
    (void)state;
    size_t n = 100000;
    char *src = malloc(n + 1);
    memset(src, 'a', n);
    memcpy(src + 50000, "XYZ", 3);
    src[n] = '\0';
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    base_diag *d = base_diag_new(mem, 0);
    base_diag_set_source(d, "f.pw", src, n);
    base_diag_report(d, BASE_SEV_ERROR, 1, 50001, "here");
    fclose(mem);
    /* A window, not the whole line; the caret under the X. */
    assert_true(len < 400);
    char *line2 = strchr(out, '\n') + 1;
    char *line3 = strchr(line2, '\n') + 1;
    size_t xcol = (size_t)(strchr(line2, 'X') - line2);
    assert_int_equal(strchr(line3, '^') - line3, xcol);
    assert_memory_equal(line2, "...", 3);
    base_diag_free(d);
    free(out);
    free(src);
}

/* ------------------------------------------------------------------ */
/* Parser. */

static void test_parse_locations(void **state) {
    (void)state;
    fixture *f = fx_run("# header\n"
                        "model m\n"
                        "\n"
                        "  input  x f32[2,3] device=cuda:1\r\n"
                        "call k(x, -3, 2.5, \"a\\tb\")   stream=7 # c\n"
                        "kernel k(in, scalar, scalar, scalar)\n"
                        "free x\n");
    assert_true(f->checked);
    ir_program *p = f->p;
    assert_int_equal(p->nstmts, 5);
    assert_string_equal(p->model, "m");
    ir_stmt *in = &p->stmts[1];
    assert_int_equal(in->kind, IR_INPUT);
    assert_int_equal(in->index, 1);
    assert_int_equal(in->loc.line, 4);
    assert_int_equal(in->loc.col, 3);
    assert_int_equal(in->name.loc.col, 10);
    assert_int_equal(in->type.loc.col, 12);
    assert_int_equal(in->type.ndim, 2);
    assert_int_equal(in->type.dims[1], 3);
    assert_true(in->has_device);
    assert_int_equal(in->device.kind, IR_DEV_CUDA);
    assert_int_equal(in->device.index, 1);
    ir_stmt *c = &p->stmts[2];
    assert_int_equal(c->kind, IR_CALL);
    assert_int_equal(c->nargs, 4);
    assert_int_equal(c->args[0].kind, IR_ARG_BUFFER);
    assert_int_equal(c->args[0].col, 8);
    assert_int_equal(c->args[1].kind, IR_ARG_INT);
    assert_int_equal(c->args[1].ival, -3);
    assert_int_equal(c->args[2].kind, IR_ARG_FLOAT);
    assert_true(c->args[2].fval == 2.5);
    assert_string_equal(c->args[2].text, "2.5");
    assert_int_equal(c->args[3].kind, IR_ARG_STRING);
    assert_string_equal(c->args[3].sval, "a\tb");
    assert_true(c->has_stream);
    assert_int_equal(c->stream, 7);
    assert_int_equal(c->stream_loc.col, 30);
    assert_int_equal(c->args[0].value, 0);
    assert_int_equal(c->args[1].value, -1);
    assert_true(p->has_streams);
    ir_stmt *k = &p->stmts[3];
    assert_int_equal(k->nmodes, 4);
    assert_int_equal(k->modes[0], IR_MODE_IN);
    assert_int_equal(k->modes[3], IR_MODE_SCALAR);
    assert_int_equal(k->mode_locs[1].col, 14);
    fx_free(f);
}

static void test_parse_all_errors_reported(void **state) {
    (void)state;
    fixture *f = fx_run("model m\n"
                        "alloc a f32[4\n"
                        "alloc b f32[-1]\n"
                        "frob\n"
                        "alloc c f32[4] align=3 align=4\n"
                        "alloc d f32[4]\n");
    assert_null(f->p);
    const char *d = fx_diags(f);
    assert_int_equal(count_substr(d, ": error: "), 4);
    assert_non_null(strstr(d, "t.pw:2:14: error: missing ']'"));
    assert_non_null(strstr(d, "t.pw:3:13: error: dimension must not be"));
    assert_non_null(strstr(d, "t.pw:4:1: error: unknown statement 'frob'"));
    assert_non_null(strstr(d, "t.pw:5:22: error: alignment 3 is not a power"));
    assert_int_equal(base_diag_errors(f->d), 4);
    fx_free(f);
}

static void test_parse_max_errors(void **state) {
    (void)state;
    size_t n = 200;
    char *src = malloc(n * 8 + 16);
    size_t len = (size_t)sprintf(src, "model m\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)sprintf(src + len, "bogus\n");
    fixture *f = fx_run_n(src, len, 5);
    assert_null(f->p);
    assert_int_equal(base_diag_errors(f->d), 200);
    const char *d = fx_diags(f);
    assert_int_equal(count_substr(d, ": error: unknown statement"), 5);
    assert_int_equal(count_substr(d, "too many errors"), 1);
    fx_free(f);
    free(src);
}

static void test_parse_lexical_errors(void **state) {
    (void)state;
    assert_first_error("model m\nalloc x f32[4] $\n",
                       "t.pw:2:16: error: unexpected character '$'");
    assert_first_error("model m\nalloc x f32[4] \xc3\xa9\n",
                       "t.pw:2:16: error: unexpected character U+00E9");
    assert_first_error("model m\ninput x f32[4] d\xc3\xa9vice=cpu\n",
                       "t.pw:2:17: error: unexpected character U+00E9 in a "
                       "name");
    assert_first_error("model m\nalloc x\x01 f32[4]\n",
                       "t.pw:2:8: error: unexpected control character 0x01");
    assert_first_error("model m\ncall k(\"a\\\")\n",
                       "t.pw:2:8: error: unterminated string");
    assert_first_error("model m\ncall k(1e999)\n",
                       "t.pw:2:8: error: float literal out of range");
    assert_first_error("model m\ncall k(1.2.3)\n",
                       "t.pw:2:8: error: invalid number '1.2.3'");
    assert_first_error("model m\nalloc x f32[4] stride=[1\n",
                       "t.pw:2:25: error: missing ']' to close '[' at "
                       "column 23");
    assert_first_error("model m\nkernel k(in\n",
                       "t.pw:2:12: error: missing ')' to close '(' at "
                       "column 9");
    assert_first_error("model m\nfree\n",
                       "t.pw:2:5: error: expected a buffer name but found "
                       "end of line");
    assert_first_error("model m\nalias a b\n",
                       "t.pw:2:9: error: expected '=' after the alias name "
                       "but found 'b'");
    assert_first_error("model m\ndevice cuda:99999999999\n",
                       "t.pw:2:8: error: CUDA device number too large");
    assert_first_error("model m\ninput x f32[4] device=cuda\n",
                       "t.pw:2:23: error: unknown device 'cuda' (expected "
                       "cpu or cuda:N)");
    assert_first_error("model m\nspace s capacity=-1\n",
                       "t.pw:2:18: error: capacity must not be negative");
    assert_first_error("model m\ncall k() stream=x\n",
                       "t.pw:2:17: error: expected an integer (stream) but "
                       "found 'x'");
    assert_first_error("model m\nalloc x f32 [4] align\n",
                       "t.pw:2:22: error: expected '=' after 'align' but "
                       "found end of line");
    assert_first_error("model m\nalloc _Bool f32[4]\n",
                       "t.pw:2:7: error: '_Bool' is a C keyword and cannot "
                       "be used as a name");
    assert_first_error("model m\n(\n",
                       "t.pw:2:1: error: expected a statement but found "
                       "'('");
    assert_first_error("model m\ncall k(a,)\n",
                       "t.pw:2:10: error: expected an argument (a buffer "
                       "name, a number or a string) but found ')'");
    assert_first_error("model m\nkernel k(in out)\n",
                       "t.pw:2:13: error: expected ',' or ')' but found "
                       "'out'");
    /* Every list (brackets, kernel modes, call arguments) ends the same
     * way: after ',' or after an element, at the end of the line or at a
     * wrong token. */
    assert_first_error("model m\nalloc x f32[4 4]\n",
                       "t.pw:2:15: error: expected ',' or ']' but found "
                       "'4'");
    assert_first_error("model m\nalloc x f32[4,\n",
                       "t.pw:2:15: error: missing ']' to close '[' at "
                       "column 12");
    assert_first_error("model m\nkernel k(in,\n",
                       "t.pw:2:13: error: missing ')' to close '(' at "
                       "column 9");
    assert_first_error("model m\ncall k(a\n",
                       "t.pw:2:9: error: missing ')' to close '(' at "
                       "column 7");
    assert_first_error("model m\ncall k(a,\n",
                       "t.pw:2:10: error: missing ')' to close '(' at "
                       "column 7");
    assert_first_error("model m\ncall k(a b)\n",
                       "t.pw:2:10: error: expected ',' or ')' but found "
                       "'b'");
}

static void test_parse_nul_and_utf8(void **state) {
    (void)state;
    const char src[] = "model m\ninput x f32[4]\0\nfree x\n";
    fixture *f = fx_run_n(src, sizeof src - 1, 0);
    assert_null(f->p);
    assert_non_null(strstr(fx_diags(f), "t.pw:2:15: error: NUL byte"));
    fx_free(f);
    /* Overlong encoding, surrogate, truncated sequence, lone continuation. */
    static const char *const bad[] = {"\xc0\xaf", "\xed\xa0\x80", "\xe2\x82",
                                      "\x80", "\xf5\x80\x80\x80"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[64];
        snprintf(buf, sizeof buf, "model m # %s\n", bad[i]);
        fixture *g = fx_run(buf);
        assert_null(g->p);
        assert_non_null(strstr(fx_diags(g), "t.pw:1:11: error: invalid UTF-8"));
        fx_free(g);
    }
    assert_valid("model m # \xf0\x9f\x98\x80 \xe2\x82\xac\n");
}

static void test_parse_ten_mb_lines(void **state) {
    (void)state;
    size_t big = 10u << 20;
    char *src = malloc(big + 200);
    /* A 10 MB comment: valid. */
    size_t len = (size_t)sprintf(src, "model m\n#");
    memset(src + len, 'c', big);
    len += big;
    len += (size_t)sprintf(src + len, "\ninput x f32[1]\nfree x\n");
    fixture *f = fx_run_n(src, len, 0);
    assert_true(f->checked);
    fx_free(f);
    /* A 10 MB string argument: one error (C compilers need accept only
     * 4,095 characters), short message. */
    len = (size_t)sprintf(src, "model m\ninput x f32[1]\ncall k(x, \"");
    memset(src + len, 's', big);
    len += big;
    len += (size_t)sprintf(src + len, "\")\nfree x\n");
    f = fx_run_n(src, len, 0);
    assert_null(f->p);
    assert_int_equal(base_diag_errors(f->d), 1);
    assert_true(strlen(fx_diags(f)) < 600);
    assert_non_null(strstr(fx_diags(f), "string too long (10485760 bytes"));
    fx_free(f);
    /* A 10 MB name: one error, short message, short quote. */
    len = (size_t)sprintf(src, "model m\ninput ");
    memset(src + len, 'n', big);
    len += big;
    len += (size_t)sprintf(src + len, " f32[1]\n");
    f = fx_run_n(src, len, 0);
    assert_null(f->p);
    assert_int_equal(base_diag_errors(f->d), 1);
    assert_true(strlen(fx_diags(f)) < 600);
    assert_non_null(strstr(fx_diags(f), "is too long (10485760 bytes"));
    fx_free(f);
    /* A 10 MB line of garbage digits: integer too large. */
    len = (size_t)sprintf(src, "model m\nalloc x f32[");
    memset(src + len, '9', big);
    len += big;
    len += (size_t)sprintf(src + len, "]\n");
    f = fx_run_n(src, len, 0);
    assert_null(f->p);
    assert_int_equal(base_diag_errors(f->d), 1);
    assert_non_null(strstr(fx_diags(f), "integer literal too large"));
    fx_free(f);
    free(src);
}

static void test_parse_crlf_and_no_final_newline(void **state) {
    (void)state;
    fixture *f = fx_run("model m\r\ninput x f32[4]\r\n\r\nfree x");
    assert_true(f->checked);
    assert_int_equal(f->p->nstmts, 3);
    assert_int_equal(f->p->stmts[2].loc.line, 4);
    fx_free(f);
    /* A lone CR inside a line is not a line ending. */
    assert_first_error("model m\rinput x f32[4]\n",
                       "t.pw:1:8: error: unexpected control character 0x0D");
}

static void test_parse_integers(void **state) {
    (void)state;
    fixture *f = fx_run("model m\ninput x u8[9223372036854775807]\n"
                        "call k(x, -9223372036854775807, 0007)\nfree x\n");
    assert_true(f->checked);
    assert_int_equal(f->p->stmts[1].type.dims[0], INT64_MAX);
    assert_true(f->p->stmts[2].args[1].ival == -INT64_MAX);
    assert_int_equal(f->p->stmts[2].args[2].ival, 7);
    fx_free(f);
    assert_first_error("model m\ncall k(-9223372036854775808)\n",
                       "t.pw:2:8: error: integer literal too large "
                       "(integers must fit in 63 bits, at most "
                       "9223372036854775807)");
}

/* ------------------------------------------------------------------ */
/* Checker. */

static void test_check_values(void **state) {
    (void)state;
    fixture *f = fx_run("model m\n"
                        "device cuda:2\n"
                        "space sram capacity=4096\n"
                        "input x f32[4,4] device=cpu\n"
                        "alloc a f16[3,5] stride=[10,1] align=64 space=sram\n"
                        "alias v = a u8[6] offset=2\n"
                        "alias w = v i16[1] offset=1\n"
                        "alloc cb f32[2] comm=symm group=tp0\n"
                        "alias cv = cb\n"
                        "call k(x, a, cb) stream=1\n"
                        "free a\n"
                        "free v x\n"
                        "free cv cb\n"
                        "output w\n");
    assert_true(f->checked);
    ir_program *p = f->p;
    assert_int_equal(p->nvalues, 6);
    const ir_value *x = value_named(p, "x");
    assert_int_equal(x->kind, IR_VAL_INPUT);
    assert_int_equal(x->device.kind, IR_DEV_CPU);
    assert_int_equal(x->bytes, 64);
    assert_int_equal(x->root, ir_find_value(p, "x"));
    assert_int_equal(x->freed_at, 11);
    const ir_value *a = value_named(p, "a");
    assert_int_equal(a->device.kind, IR_DEV_CUDA);
    assert_int_equal(a->device.index, 2);
    assert_string_equal(a->space, "sram");
    assert_int_equal(a->align, 64);
    assert_int_equal(ir_value_elements(a), 1 + 2 * 10 + 4 * 1);
    assert_int_equal(a->bytes, 50);
    assert_int_equal(a->nstrides, 2);
    assert_int_equal(a->freed_at, 10);
    /* a dies when w, the last name referring to it, ... is never freed:
     * it is an output, so the storage lives to the end. */
    assert_int_equal(a->storage_end, -1);
    const ir_value *v = value_named(p, "v");
    assert_int_equal(v->kind, IR_VAL_ALIAS);
    assert_int_equal(v->alias_of, ir_find_value(p, "a"));
    assert_int_equal(v->root, ir_find_value(p, "a"));
    assert_int_equal(v->byte_offset, 2);
    assert_int_equal(v->bytes, 6);
    assert_string_equal(v->space, "sram");
    assert_int_equal(v->align, 64);
    assert_int_equal(v->storage_end, -1);
    const ir_value *w = value_named(p, "w");
    assert_int_equal(w->alias_of, ir_find_value(p, "v"));
    assert_int_equal(w->root, ir_find_value(p, "a"));
    assert_int_equal(w->byte_offset, 4);
    assert_int_equal(w->output_index, 0);
    assert_int_equal(w->freed_at, -1);
    const ir_value *cb = value_named(p, "cb");
    assert_string_equal(cb->comm, "symm");
    assert_string_equal(cb->group, "tp0");
    assert_int_equal(cb->storage_end, 12);
    const ir_value *cv = value_named(p, "cv");
    assert_string_equal(cv->comm, "symm");
    assert_int_equal(cv->ndim, 1);
    assert_int_equal(cv->bytes, 8);
    assert_int_equal(p->nspaces, 1);
    assert_string_equal(p->spaces[0].name, "sram");
    assert_true(p->spaces[0].has_capacity);
    assert_int_equal(p->spaces[0].capacity, 4096);
    assert_int_equal(p->spaces[0].stmt, 2);
    assert_int_equal(p->nkernels, 1);
    assert_string_equal(p->kernels[0].name, "k");
    assert_int_equal(p->kernels[0].sig_stmt, -1);
    assert_int_equal(p->kernels[0].first_call, 9);
    assert_int_equal(p->output_stmt, 13);
    assert_int_equal(p->stmts[13].name_values[0], ir_find_value(p, "w"));
    assert_int_equal(p->stmts[12].name_values[1], ir_find_value(p, "cb"));
    assert_int_equal(p->stmts[3].value, ir_find_value(p, "x"));
    assert_int_equal(p->stmts[9].args[2].value, ir_find_value(p, "cb"));
    assert_int_equal(ir_find_value(p, "nope"), -1);
    assert_int_equal(base_diag_warnings(f->d), 0);
    fx_free(f);
}

static void test_check_storage_death_follows_aliases(void **state) {
    (void)state;
    fixture *f = fx_run("model m\n"
                        "alloc buf0 f32[4]\n"
                        "alias buf1 = buf0\n"
                        "alias buf2 = buf1\n"
                        "free buf0\n"
                        "call k(buf1)\n"
                        "free buf2\n"
                        "call k(buf1)\n"
                        "free buf1\n");
    assert_true(f->checked);
    const ir_value *b0 = value_named(f->p, "buf0");
    assert_int_equal(b0->freed_at, 4);
    assert_int_equal(b0->storage_end, 8);
    assert_int_equal(value_named(f->p, "buf2")->freed_at, 6);
    assert_int_equal(base_diag_warnings(f->d), 0);
    fx_free(f);
}

static void test_check_kernels(void **state) {
    (void)state;
    fixture *f = fx_run("model m\n"
                        "input x f32[4]\n"
                        "call b(x)\n"
                        "kernel a(in, scalar)\n"
                        "call a(x, 1.5)\n"
                        "kernel b(inout)\n"
                        "call b(x)\n"
                        "free x\n");
    assert_true(f->checked);
    assert_int_equal(f->p->nkernels, 2);
    assert_string_equal(f->p->kernels[0].name, "b");
    assert_int_equal(f->p->kernels[0].sig_stmt, 5);
    assert_int_equal(f->p->kernels[0].first_call, 2);
    assert_string_equal(f->p->kernels[1].name, "a");
    assert_int_equal(f->p->kernels[1].sig_stmt, 3);
    assert_false(f->p->has_streams);
    fx_free(f);
}

static void test_check_errors(void **state) {
    (void)state;
    assert_first_error("model m\nalloc a f32[4]\nalias b = a\nfree a\n"
                       "free a\n",
                       "t.pw:5:6: error: double free of 'a'");
    assert_first_error("model m\nalloc a f32[4]\nfree a\ncall k(a)\n",
                       "t.pw:4:8: error: use of 'a' after it was freed");
    assert_first_error("model m\ninput i f32[4]\nfree i\nalias j = i\n",
                       "t.pw:4:11: error: alias of 'i' after it was freed");
    assert_first_error("model m\nalias a = b\nalias b = a\n",
                       "t.pw:2:11: error: alias cycle: 'a' -> 'b' -> 'a'");
    assert_first_error("model m\nalloc a f32[2,2]\nalias b = a f64[1] "
                       "offset=2\n",
                       "t.pw:3:20: error: alias 'b' does not fit its "
                       "storage: it needs 8 bytes at byte offset 16 but 'a' "
                       "has 16 bytes");
    assert_first_error("model m\nalloc a u8[2]\nalias b = a u8[1] "
                       "offset=9223372036854775807\nalias c = b f64[1] "
                       "offset=9223372036854775807\n",
                       "t.pw:3:19: error: alias 'b' does not fit its "
                       "storage: it needs 1 byte at byte offset "
                       "9223372036854775807 but 'a' has 2 bytes");
    assert_first_error("model m\nalloc a f32[4] device=cuda:0\nalias b = a "
                       "device=cpu\n",
                       "t.pw:3:13: error: alias 'b' is on device cpu but its "
                       "storage 'a' is on cuda:0");
    assert_first_error("model m\nalloc a f32[1,1,1] stride=[1,1,"
                       "18446744073709551615]\n",
                       "t.pw:2:32: error: integer literal too large (integers "
                       "must fit in 63 bits, at most 9223372036854775807)");
    assert_first_error("model m\nalloc a f32[3,3] stride=[9223372036854775807,"
                       "9223372036854775807]\n",
                       "t.pw:2:18: error: byte size of 'a' overflows 64 "
                       "bits");
    assert_first_error("model m\nalloc cb f32[4] comm=c group=g\noutput cb\n",
                       "t.pw:3:8: error: communication buffer 'cb' (comm=c "
                       "group=g) cannot be an output");
    assert_first_error("output x\n",
                       "t.pw:1:1: error: missing 'model NAME' statement (it "
                       "must come first)");
    /* Errors do not cascade: a bad definition still defines the name. */
    fixture *f = fx_run("model m\nalloc a f32[4] space=nowhere\n"
                        "alias b = zz f32[2]\ncall k(a, b)\nfree a b\n");
    assert_false(f->checked);
    assert_int_equal(base_diag_errors(f->d), 2);
    fx_free(f);
}

static void test_check_warnings(void **state) {
    (void)state;
    fixture *f = fx_run("model m\ninput x f32[4]\nconst w f32[4]\n"
                        "alloc a f32[4]\nalloc o f32[4]\nalias oo = o\n"
                        "output oo\n");
    assert_true(f->checked);
    assert_int_equal(base_diag_warnings(f->d), 1);
    assert_non_null(strstr(fx_diags(f), "t.pw:4:7: warning: storage 'a' is "
                                        "never freed"));
    fx_free(f);
}

static void test_check_large_program_linear(void **state) {
    (void)state;
    /* 200,000 statements with long chains of aliases: must be fast. */
    size_t n = 50000;
    size_t cap = n * 120 + 64;
    char *src = malloc(cap);
    size_t len = (size_t)sprintf(src, "model big\nkernel k(in, out)\n");
    for (size_t i = 0; i < n; i++)
        len += (size_t)snprintf(src + len, cap - len,
                                "alloc t%zu f32[8,8]\nalias u%zu = t%zu\n"
                                "call k(u%zu, t%zu)\nfree t%zu u%zu\n",
                                i, i, i, i, i, i, i);
    fixture *f = fx_run_n(src, len, 0);
    assert_true(f->checked);
    assert_int_equal(f->p->nstmts, 4 * n + 2);
    assert_int_equal(f->p->nvalues, 2 * n);
    fx_free(f);
    free(src);
}

/* ------------------------------------------------------------------ */
/* Printer, design examples, models. */

static char *print_to_string(const ir_program *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    ir_print(m, p);
    fclose(m);
    return buf;
}

static void test_print_canonical(void **state) {
    (void)state;
    fixture *f = fx_run("model   m # c\n"
                        "\tinput x f32[ 2 , 2 ] device = cuda : 1\n"
                        "alloc y bool[] comm=c group=g align=8 space=s\n"
                        "space s\n"
                        "call k(x, 00, -1, .5, 1e3, \"q\\\"\\\\\\n\\t\")\n"
                        "alias z = y i8[1] offset=0\n"
                        "free x y z\n");
    assert_false(f->checked); /* space s used before its declaration */
    fx_free(f);
    f = fx_run("model   m # c\n"
               "space s\n"
               "\tinput x f32[ 2 , 2 ] device = cuda : 1\n"
               "alloc y bool[] comm=c group=g align=8 space=s\n"
               "call k(x, 00, -1, .5, 1e3, \"q\\\"\\\\\\n\\t\")\n"
               "alias z = y i8[1] offset=0\n"
               "free x y z\n");
    assert_true(f->checked);
    char *s = print_to_string(f->p);
    assert_string_equal(s, "model m  # c\n"
                           "space  s\n"
                           "input  x f32[2,2] device=cuda:1\n"
                           "alloc  y bool[] space=s align=8 comm=c group=g\n"
                           "call   k(x, 0, -1, .5, 1e3, \"q\\\"\\\\\\n\\t\")\n"
                           "alias  z = y i8[1] offset=0\n"
                           "free   x y z\n");
    fixture *g = fx_run(s);
    assert_true(g->checked);
    char *s2 = print_to_string(g->p);
    assert_string_equal(s, s2);
    free(s2);
    fx_free(g);
    free(s);
    fx_free(f);
}

/* The example of design/ir.md, verbatim. */
static const char design_example[] =
    "model tiny\n"
    "input  x    f32[4,4]\n"
    "const  w    f32[4,4]\n"
    "alloc  buf0 f32[4,4]\n"
    "call   matmul(x, w, buf0)\n"
    "free   x\n"
    "alloc  buf1 f32[4,4]\n"
    "call   relu(buf0, buf1)\n"
    "free   buf0\n"
    "alias  buf2 = buf1                 # add_ mutates buf1 in place\n"
    "call   add_(buf2, w)\n"
    "free   buf1 w\n"
    "alloc  cb0  f32[4,4] comm=symm group=tp0\n"
    "call   copy(buf2, cb0)\n"
    "call   all_reduce(cb0, \"sum\", \"tp0\")\n"
    "alloc  buf3 f32[4,4]\n"
    "call   copy(cb0, buf3)\n"
    "free   cb0 buf2\n"
    "output buf3\n";

static void test_design_examples(void **state) {
    (void)state;
    fixture *f = fx_run(design_example);
    assert_true(f->checked);
    assert_int_equal(base_diag_warnings(f->d), 0);
    const ir_value *b1 = value_named(f->p, "buf1");
    assert_int_equal(b1->freed_at, 11);
    assert_int_equal(b1->storage_end, 17); /* buf2 freed last */
    assert_int_equal(value_named(f->p, "buf3")->output_index, 0);
    fx_free(f);
    /* The statement forms of the contract, each in a minimal program. */
    assert_valid("model m\ndevice cuda:0\ndevice cpu\n");
    assert_valid("model m\nspace sram capacity=262144\n"
                 "alloc a f32[4] space=sram\nfree a\n");
    assert_valid("model m\nkernel k(in, out, inout, scalar)\n"
                 "input a f32[1]\nalloc b f32[1]\nalias c = b\n"
                 "call k(a, b, c, 1)\nfree a b c\n");
    assert_valid("model m\ninput x f32[]\nconst y f32[0]\nfree x y\n");
    assert_valid("model m\ninput x f32[4]\nalias v = x f32[2] offset=2\n"
                 "free x v\n");
    assert_valid("model m\nalloc a f32[4] stride=[2] align=16\nfree a\n");
    assert_valid("model m\nalloc a f32[4] comm=symm group=tp0\nfree a\n");
    assert_valid("model m\ncall k(\"\")\n"); /* empty string first */
    assert_valid("model m\ninput x f32[1]\ncall k(x, 1, 0.5, 1e-3, -2.0, "
                 "\"s\") stream=1\nfree x\n");
}

static void test_real_models(void **state) {
    (void)state;
    static const char *const models[] = {"alexnet", "mnasnet0_5", "resnet34",
                                         "vgg11"};
    for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/%s.pw", PW_MODELS_DIR, models[i]);
        fixture *f = fx_new(0);
        f->p = ir_load(f->a, path, f->d);
        if (!f->p)
            fail_msg("%s:\n%s", path, fx_diags(f));
        assert_int_equal(base_diag_errors(f->d), 0);
        assert_int_equal(base_diag_warnings(f->d), 0);
        assert_string_equal(f->p->model, models[i]);
        assert_true(f->p->output_stmt >= 0);
        /* print is a fixed point on real models too */
        char *s1 = print_to_string(f->p);
        fixture *g = fx_run(s1);
        assert_true(g->checked);
        char *s2 = print_to_string(g->p);
        assert_string_equal(s1, s2);
        free(s1);
        free(s2);
        fx_free(g);
        fx_free(f);
    }
}

/* A program built without the parser (names not interned, equal names
 * in different strings) checks the same; checking twice gives the same. */
static void test_check_hand_built_program(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    ir_program *p = base_arena_alloc(a, sizeof *p);
    p->arena = a;
    p->filename = "hand.pw";
    p->nstmts = 4;
    p->stmts = base_arena_array(a, 4, sizeof *p->stmts);
    ir_stmt *st = p->stmts;
    for (uint32_t i = 0; i < 4; i++) {
        st[i].index = i;
        st[i].loc.line = i + 1;
        st[i].loc.col = 1;
        st[i].value = -1;
    }
    st[0].kind = IR_MODEL;
    st[0].name.name = base_arena_strdup(a, "hand");
    st[1].kind = IR_ALLOC;
    st[1].name.name = base_arena_strdup(a, "buf");
    st[1].has_type = true;
    st[1].type.dtype = IR_F32;
    st[1].type.ndim = 1;
    st[1].type.dims = base_arena_array(a, 1, sizeof(uint64_t));
    st[1].type.dims[0] = 8;
    st[2].kind = IR_CALL;
    st[2].name.name = base_arena_strdup(a, "k");
    st[2].nargs = 1;
    st[2].args = base_arena_array(a, 1, sizeof *st[2].args);
    st[2].args[0].kind = IR_ARG_BUFFER;
    st[2].args[0].text = base_arena_strdup(a, "buf");
    st[3].kind = IR_FREE;
    st[3].nnames = 1;
    st[3].names = base_arena_array(a, 1, sizeof *st[3].names);
    st[3].names[0].name = base_arena_strdup(a, "buf");
    st[3].names[0].loc.line = 4;
    st[3].names[0].loc.col = 6;
    p->model = st[0].name.name;
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    base_diag *d = base_diag_new(mem, 0);
    base_diag_set_source(d, "hand.pw", NULL, 0);
    for (int run = 0; run < 2; run++) {
        assert_true(ir_check(p, d));
        assert_int_equal(p->nvalues, 1);
        assert_int_equal(p->values[0].bytes, 32);
        assert_int_equal(p->values[0].freed_at, 3);
        assert_int_equal(p->values[0].storage_end, 3);
        assert_int_equal(st[2].args[0].value, 0);
        assert_int_equal(p->nkernels, 1);
    }
    /* A double free added afterwards is found by a third run. */
    st[2].kind = IR_FREE;
    st[2].nnames = 1;
    st[2].names = st[3].names;
    assert_false(ir_check(p, d));
    fclose(mem);
    assert_non_null(strstr(out, "hand.pw:4:6: error: double free of 'buf'"));
    base_diag_free(d);
    free(out);
    base_arena_free(a);
}

/* The type of a statement in its short and canonical text, at each
 * digit count's edges (ir/print.c writes small dimensions apart from
 * large ones): the digits as printf spells them. */
static void test_print_type_digits(void **state) {
    (void)state;
    static const uint64_t dims[] = {
        0,      1,           9,           10,        99,    100,
        999,    1000,        9999,        10000,     65535, 99999,
        100000, 4294967295u, 4294967296u, UINT64_MAX};
    size_t nd = sizeof dims / sizeof dims[0];
    char want[1024];
    int w = snprintf(want, sizeof want, "alloc b u8[");
    for (size_t i = 0; i < nd; i++)
        w += snprintf(want + w, sizeof want - (size_t)w, "%s%" PRIu64,
                      i ? "," : "", dims[i]);
    snprintf(want + w, sizeof want - (size_t)w, "]");
    ir_stmt st = {0};
    st.kind = IR_ALLOC;
    st.name.name = "b";
    st.has_type = true;
    st.type.dtype = IR_U8;
    st.type.ndim = (uint32_t)nd;
    st.type.dims = (uint64_t *)dims;
    for (int mode = 0; mode < 2; mode++) {
        base_sb b = {0};
        base_sb_puts(&b, "x"); /* appended after text already there */
        ir_stmt_text(&b, &st, mode ? IR_TEXT_CANONICAL : IR_TEXT_SHORT, NULL);
        const char *got = base_sb_str(&b) + 1;
        if (mode) /* the keyword padded to 7 columns */
            assert_true(strncmp(got, "alloc  b ", 9) == 0 &&
                        strcmp(got + 9, want + 8) == 0);
        else
            assert_string_equal(got, want);
        assert_int_equal(b.len, strlen(b.p));
        base_sb_free(&b);
    }
}

/* A program of more statements than a value id (28 bits in ir_arg) can
 * number is refused before anything is read; an argument holds the
 * largest value id and -1. */
static void test_check_too_many_statements(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    ir_program *p = base_arena_alloc(a, sizeof *p);
    p->arena = a;
    p->filename = "big.pw";
    p->nstmts = IR_MAX_STATEMENTS + 1; /* stmts never read */
    p->output_stmt = -1;
    char *out = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&out, &len);
    base_diag *d = base_diag_new(mem, 0);
    base_diag_set_source(d, "big.pw", NULL, 0);
    assert_false(ir_check(p, d));
    fclose(mem);
    assert_non_null(strstr(out, "error: input too large (at most 268435455 "
                                "statements"));
    base_diag_free(d);
    free(out);
    base_arena_free(a);
    ir_arg g = {.kind = IR_ARG_BUFFER, .value = -1};
    assert_int_equal(g.value, -1);
    g.value = (int32_t)IR_MAX_STATEMENTS - 1;
    assert_int_equal(g.value, IR_MAX_STATEMENTS - 1);
    assert_int_equal(g.kind, IR_ARG_BUFFER);
}

/* ------------------------------------------------------------------ */
/* After a syntax error: the recovering parser and ir_load. */

/* ir_load of `text` (through a temporary file); diagnostics in f->out. */
static fixture *fx_load(const char *text, unsigned max_errors) {
    fixture *f = fx_new(max_errors);
    char path[] = "/tmp/pw-test-ir-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *fp = fdopen(fd, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    fclose(fp);
    f->p = ir_load(f->a, path, f->d);
    remove(path);
    fflush(f->mem);
    return f;
}

/* The diagnostics of ir_load(text), without the file name and the quoted
 * lines: "LINE:COL: error: MESSAGE\n" for each diagnostic. */
static char *load_diags(const char *text, unsigned max_errors) {
    fixture *f = fx_load(text, max_errors);
    assert_null(f->p);
    const char *d = fx_diags(f);
    char *out = calloc(1, strlen(d) + 1);
    assert_non_null(out);
    size_t n = 0;
    for (const char *line = d; *line;) {
        size_t len = strcspn(line, "\n");
        const char *colon = memchr(line, ':', len);
        if (strncmp(line, "/tmp/pw-test-ir-", 16) == 0 && colon) {
            memcpy(out + n, colon + 1, (size_t)(line + len - colon - 1));
            n += (size_t)(line + len - colon - 1);
            out[n++] = '\n';
        } else if (strncmp(line, "planwrap:", 9) == 0) {
            memcpy(out + n, line, len);
            n += len;
            out[n++] = '\n';
        }
        line += len + (line[len] == '\n');
    }
    fx_free(f);
    return out;
}

/* The firmware fields of a checked program: spill chains, planned
 * buffers, state/next pairs and resolved data files (docs/firmware.md). */
static void test_firmware_fields(void **state) {
    (void)state;
    char path[] = "/tmp/pw_fw_XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "0123456789abcdef", 16), 16);
    close(fd);
    char text[1024];
    assert_true(snprintf(text, sizeof text,
                         "model m\nspace a capacity=64 spill=b\n"
                         "space b capacity=128 spill=c\nspace c\n"
                         "input x f32[2] planned\n"
                         "const w f32[2] data=\"%s\" at=8\n"
                         "state h f32[2] next=y\nalloc y f32[2]\n"
                         "call k(x, w, h, y)\nfree x w h\noutput y\n",
                         path) > 0);
    fixture *f = fx_run(text);
    if (!f->checked)
        fail_msg("%s", fx_diags(f));
    ir_program *p = f->p;
    assert_int_equal(p->nspaces, 3);
    assert_int_equal(p->spaces[0].spill, 1);
    assert_int_equal(p->spaces[1].spill, 2);
    assert_int_equal(p->spaces[2].spill, -1);
    int32_t x = ir_find_value(p, "x"), w = ir_find_value(p, "w");
    int32_t h = ir_find_value(p, "h"), y = ir_find_value(p, "y");
    assert_true(p->values[x].planned);
    assert_false(p->values[y].planned);
    assert_string_equal(p->values[w].data_path, path);
    assert_int_equal(p->values[w].data_at, 8);
    assert_null(p->values[x].data_path);
    assert_int_equal(p->values[h].kind, IR_VAL_STATE);
    assert_int_equal(p->values[h].state_next, y);
    assert_int_equal(p->values[y].next_of, h);
    assert_int_equal(p->values[x].next_of, -1);
    fx_free(f);
    /* the same bytes one offset further do not fit */
    assert_true(snprintf(text, sizeof text,
                         "model m\nconst w f32[2] data=\"%s\" at=9\n",
                         path) > 0);
    f = fx_run(text);
    assert_false(f->checked);
    assert_non_null(strstr(fx_diags(f), "needs 8 bytes at offset 9"));
    fx_free(f);
    unlink(path);
}

static void assert_load_diags(const char *text, const char *expected) {
    char *got = load_diags(text, 0);
    if (strcmp(got, expected) != 0)
        fail_msg("for\n%s\nexpected\n%s\ngot\n%s", text, expected, got);
    free(got);
}

/* ir_parse keeps its contract; the recovering parser keeps each broken
 * line's kind and name, and the place of the lines it could not read. */
static void test_recover_parse(void **state) {
    (void)state;
    static const char text[] = "model m\n"
                               "alloc x f32[4,\n"   /* broken, named */
                               "frob y\n"           /* unread */
                               "alloc int f32[4]\n" /* broken, nameless */
                               "# comment \xff\n"   /* nothing lost */
                               "free x # \xff\n"    /* broken, all parsed */
                               "alloc z\xff f32[4]\n"
                               "[\n"; /* unread, after every statement */
    fixture *f = fx_new(0);
    base_diag_set_source(f->d, "t.pw", text, sizeof text - 1);
    assert_null(ir_parse(f->a, "t.pw", text, sizeof text - 1, f->d));
    assert_int_equal(base_diag_errors(f->d), 7);
    ir_program *p = ir_parse_recover(f->a, "t.pw", text, sizeof text - 1, f->d);
    assert_non_null(p);
    assert_int_equal(base_diag_errors(f->d), 14); /* reported again */
    assert_int_equal(p->syntax_errors, 7);
    assert_int_equal(p->nstmts, 5);
    assert_false(p->stmts[0].broken);
    assert_true(p->stmts[1].broken);
    assert_int_equal(p->stmts[1].kind, IR_ALLOC);
    assert_string_equal(p->stmts[1].name.name, "x");
    assert_int_equal(p->stmts[1].loc.line, 2);
    assert_true(p->stmts[2].broken);
    assert_int_equal(p->stmts[2].kind, IR_ALLOC);
    assert_null(p->stmts[2].name.name);
    assert_true(p->stmts[3].broken);
    assert_int_equal(p->stmts[3].kind, IR_FREE);
    assert_int_equal(p->stmts[3].loc.line, 6);
    assert_true(p->stmts[4].broken); /* the cut word is no name */
    assert_int_equal(p->stmts[4].kind, IR_ALLOC);
    assert_null(p->stmts[4].name.name);
    assert_int_equal(p->nunread, 2);
    assert_int_equal(p->unread[0], 2); /* frob: before statement 2 */
    assert_int_equal(p->unread[1], 5); /* [: after the last one */
    assert_string_equal(p->model, "m");
    /* ir_check never accepts it, even when nothing else is wrong */
    assert_false(ir_check(p, f->d));
    fx_free(f);

    /* a valid program: the same from both */
    static const char ok[] = "model m\ninput x f32[4]\nfree x\n";
    f = fx_new(0);
    p = ir_parse_recover(f->a, "t.pw", ok, sizeof ok - 1, f->d);
    assert_non_null(p);
    assert_int_equal(p->syntax_errors, 0);
    assert_int_equal(p->nunread, 0);
    assert_true(ir_check(p, f->d));
    fx_free(f);
}

static void test_load_checks_after_syntax_errors(void **state) {
    (void)state;
    /* both errors, the parser's first */
    assert_load_diags("model m\ninput x f32[4]\nalloc y f32[4,,4]\nfree x\n"
                      "call k(x)\n",
                      "3:15: error: empty dimension\n"
                      "5:8: error: use of 'x' after it was freed\n"
                      "4:6: note: 'x' was freed here\n");
    /* a broken definition defines its name, poisoned */
    assert_load_diags("model m\nalloc x f32[4,\ncall k(x)\nalias v = x "
                      "f32[1000] offset=3\noutput v x\nfree x\nfree x\n",
                      "2:15: error: missing ']' to close '[' at column 12\n"
                      "7:6: error: double free of 'x'\n"
                      "6:6: note: first freed here\n");
    /* a broken alias too; its OLD is not looked at */
    assert_load_diags("model m\nalias y = nothere f32[\ncall k(y)\nfree y\n",
                      "2:23: error: missing ']' to close '[' at column 22\n");
    /* a nameless broken alias neither, and it may define any name */
    assert_load_diags("model m\nalias (y) = x\ncall k(y)\nfree y\n",
                      "2:7: error: expected a buffer name but found '('\n");
    /* a line with an invalid byte is parsed up to it, silently */
    assert_load_diags("model m\nalloc x f32[4] align=4 align=8 \xff\n"
                      "free x\nfree x\n",
                      "2:32: error: invalid UTF-8 byte 0xFF\n"
                      "4:6: error: double free of 'x'\n"
                      "3:6: note: first freed here\n");
    /* a broken alias is in no alias cycle */
    assert_load_diags("model m\nalias a = b\nalias b = a f32[\nfree a b\n",
                      "3:17: error: missing ']' to close '[' at column 16\n"
                      "2:11: error: alias of undefined name 'b'\n");
    /* a broken kernel signature checks no call */
    assert_load_diags("model m\nkernel k(in, out\ncall k(1, 2, 3)\n"
                      "kernel j(in)\ncall j(1)\n",
                      "2:17: error: missing ')' to close '(' at column 9\n"
                      "5:8: error: argument 1 of 'j' must be a buffer (the "
                      "signature declares it 'in') but a literal was given\n"
                      "4:10: note: declared 'in' here\n");
    /* a broken call uses nothing, a broken output lists nothing but is
     * an output statement */
    assert_load_diags("model m\ninput x f32[4]\nfree x\ncall k(x, )\n"
                      "output x,\noutput x\n",
                      "4:11: error: expected an argument (a buffer name, a "
                      "number or a string) but found ')'\n"
                      "5:9: error: expected end of line but found ','\n"
                      "6:1: error: second 'output' statement (it may appear "
                      "once)\n"
                      "5:1: note: previous 'output' statement here\n");
    /* no "missing model" when the model line is broken or unread */
    assert_load_diags("model\ninput x f32[4]\nfree x\n",
                      "1:6: error: expected a model name but found end of "
                      "line\n");
    assert_load_diags("modle m\n",
                      "1:1: error: unknown statement 'modle'; did you mean "
                      "'model'?\n");
    assert_load_diags("zzz m\n",
                      "1:1: error: unknown statement 'zzz' (expected model, "
                      "device, space, kernel, input, const, alloc, state, "
                      "alias, call, free or output)\n");
    assert_load_diags("input x f32[4\n",
                      "1:14: error: missing ']' to close '[' at column 12\n"
                      "1:1: error: missing 'model NAME' statement (it must "
                      "come first)\n");
    /* a nameless broken definition or an unread line may define any
     * name after it: no "undefined" error; before it, yes */
    assert_load_diags("model m\ncall k(a)\nalloc (b) f32[4]\ncall k(b)\n"
                      "free b\noutput b\nalias c = b\n",
                      "3:7: error: expected a buffer name but found '('\n"
                      "2:8: error: use of undefined name 'a'\n");
    assert_load_diags("model m\nallco b f32[4]\ncall k(b)\nfree b\n",
                      "2:1: error: unknown statement 'allco'; did you mean "
                      "'alloc'?\n");
    /* spaces: a broken named one is declared, a nameless one may be any */
    assert_load_diags("model m\nalloc a f32[4] space=s0\nspace s1 capacity=-1\n"
                      "alloc b f32[4] space=s1\nalloc c f32[4] space=s2\n"
                      "space 9\nalloc d f32[4] space=s3\nfree a b c d\n",
                      "3:19: error: capacity must not be negative\n"
                      "6:7: error: expected a memory space name but found "
                      "'9'\n"
                      "2:22: error: undeclared memory space 's0'\n"
                      "5:22: error: undeclared memory space 's2'\n");
    /* the default device of a broken or unread line is unknown until the
     * next device statement */
    assert_load_diags("model m\ndevice cuda:x\nalloc a f32[4]\n"
                      "alias b = a device=cuda:1\ndevize cuda:2\n"
                      "alloc c f32[4]\nalias d = c device=cuda:0\n"
                      "device cpu\nalloc e f32[4]\nalias f = e device=cuda:0\n",
                      "2:13: error: expected an integer (CUDA device number) "
                      "but found 'x'\n"
                      "5:1: error: unknown statement 'devize'; did you "
                      "mean 'device'?\n"
                      "10:13: error: alias 'f' is on device cuda:0 but its "
                      "storage 'e' is on cpu\n");
    /* no warning after a syntax error (a broken free may free x) */
    assert_load_diags("model m\nalloc x f32[4]\nfree x,\n",
                      "3:7: error: expected end of line but found ','\n");
    /* the error limit counts both */
    assert_load_diags("model m\nalloc a f32[\ninput x f32[4]\nfree x\n"
                      "free x\nfree x\n",
                      "2:13: error: missing ']' to close '[' at column 12\n"
                      "5:6: error: double free of 'x'\n"
                      "4:6: note: first freed here\n"
                      "6:6: error: double free of 'x'\n"
                      "4:6: note: first freed here\n");
    char *got = load_diags("model m\nalloc a f32[\ninput x f32[4]\nfree x\n"
                           "free x\nfree x\n",
                           2);
    assert_string_equal(got,
                        "2:13: error: missing ']' to close '[' at column 12\n"
                        "5:6: error: double free of 'x'\n"
                        "4:6: note: first freed here\n"
                        "planwrap: error: too many errors (limit 2), "
                        "stopping\n");
    free(got);
}

static void test_read_file_errors(void **state) {
    (void)state;
    char *out = NULL, *text = NULL;
    size_t len = 0, tlen = 0;
    FILE *mem = open_memstream(&out, &len);
    base_diag *d = base_diag_new(mem, 0);
    assert_false(ir_read_file("/nonexistent/x.pw", &text, &tlen, d));
    assert_false(ir_read_file("/", &text, &tlen, d));
    assert_int_equal(base_diag_errors(d), 2);
    base_diag_free(d);
    fclose(mem);
    assert_string_equal(out, "planwrap: error: cannot read /nonexistent/x.pw: "
                             "No such file or directory\n"
                             "planwrap: error: cannot read /: Is a "
                             "directory\n");
    free(out);
    fixture *f = fx_new(0);
    assert_null(ir_load(f->a, "/nonexistent/x.pw", f->d));
    fx_free(f);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arena),
        cmocka_unit_test(test_dtypes_devices),
        cmocka_unit_test(test_c_keywords),
        cmocka_unit_test(test_diag_format),
        cmocka_unit_test(test_diag_long_line_window),
        cmocka_unit_test(test_parse_locations),
        cmocka_unit_test(test_parse_all_errors_reported),
        cmocka_unit_test(test_parse_max_errors),
        cmocka_unit_test(test_parse_lexical_errors),
        cmocka_unit_test(test_parse_nul_and_utf8),
        cmocka_unit_test(test_parse_ten_mb_lines),
        cmocka_unit_test(test_parse_crlf_and_no_final_newline),
        cmocka_unit_test(test_parse_integers),
        cmocka_unit_test(test_check_values),
        cmocka_unit_test(test_check_storage_death_follows_aliases),
        cmocka_unit_test(test_check_kernels),
        cmocka_unit_test(test_check_errors),
        cmocka_unit_test(test_check_warnings),
        cmocka_unit_test(test_check_large_program_linear),
        cmocka_unit_test(test_print_canonical),
        cmocka_unit_test(test_design_examples),
        cmocka_unit_test(test_real_models),
        cmocka_unit_test(test_check_hand_built_program),
        cmocka_unit_test(test_check_too_many_statements),
        cmocka_unit_test(test_print_type_digits),
        cmocka_unit_test(test_recover_parse),
        cmocka_unit_test(test_load_checks_after_syntax_errors),
        cmocka_unit_test(test_read_file_errors),
        cmocka_unit_test(test_firmware_fields),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/codegen/test_view.c - the plan view (docs/view.md): kernel
 * prototypes, identifier mangling, events per statement, literals and
 * errors, on small programs through the real parser, checker and planner.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen/codegen.h"
#include "cnames.h"
#include "view_internal.h" /* cg_keyset, to leave "name" out */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fixture {
    base_arena *a;
    base_diag *d;
    json_t *view;
} fixture;

/* Parses, checks and plans the n bytes of `text` ("t.pw") in a, with
 * the default options but memory_pool (NULL: the default). */
static plan *plan_text(base_arena *a, base_diag *d, const char *text, size_t n,
                       const char *memory_pool) {
    ir_program *p = ir_parse(a, "t.pw", text, n, d);
    assert_non_null(p);
    assert_true(ir_check(p, d));
    plan_options o;
    plan_options_init(&o);
    if (memory_pool)
        assert_true(plan_memory_pool_parse(memory_pool, &o.memory_pool));
    plan *pl = plan_program(a, p, &o, d);
    assert_non_null(pl);
    return pl;
}

/* Parses, checks and plans `text`, then builds the view (NULL on error).
 * Diagnostics go to a memory stream so that tests stay quiet. */
static json_t *build(fixture *f, const char *text, const char *target,
                     bool kernel_status, const char *memory_pool) {
    f->a = base_arena_new();
    f->d = base_diag_new(stderr, 0);
    base_diag_set_source(f->d, "t.pw", text, strlen(text));
    plan *pl = plan_text(f->a, f->d, text, strlen(text), memory_pool);
    cg_view_options vo = {.kernel_status = kernel_status};
    cg_target t;
    f->view = cg_target_parse(target, &t) ? cg_build_view_opts(pl, t, &vo, f->d)
                                          : NULL;
    return f->view;
}

static void done(fixture *f) {
    json_decref(f->view);
    base_diag_free(f->d);
    base_arena_free(f->a);
}

static const char *str(json_t *o, const char *key) {
    json_t *s = json_object_get(o, key);
    assert_true(json_is_string(s));
    return json_string_value(s);
}

/* The kernel named `name` in the view. */
static json_t *kernel(json_t *view, const char *name) {
    json_t *ks = json_object_get(view, "kernels");
    for (size_t i = 0; i < json_array_size(ks); i++)
        if (strcmp(str(json_array_get(ks, i), "name"), name) == 0)
            return json_array_get(ks, i);
    fail_msg("no kernel %s", name);
    return NULL;
}

/* The events of the statement on IR line `line`. */
static json_t *events_at(json_t *view, int line) {
    json_t *ss = json_object_get(view, "statements");
    for (size_t i = 0; i < json_array_size(ss); i++) {
        json_t *s = json_array_get(ss, i);
        if (json_integer_value(json_object_get(s, "line")) == line)
            return json_object_get(s, "events");
    }
    fail_msg("no statement on line %d", line);
    return NULL;
}

static const char *kind_of(json_t *ev) {
    return str(ev, "kind");
}

static void test_prototypes(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "kernel conv(in, in, out, scalar)\n"
                      "input x f32[4]\n"
                      "const w f32[4]\n"
                      "alloc y f32[4]\n"
                      "call conv(x, w, y, 3)\n"
                      "alloc z i32[4]\n"
                      "call mix(y, 2, \"s\")\n"
                      "call mix(z, 2.5, \"t\")\n"
                      "call nop()\n"
                      "free x w z\n"
                      "output y\n",
                      "c", false, NULL);
    assert_non_null(v);
    json_t *k = kernel(v, "conv");
    assert_string_equal(str(k, "params_decl"),
                        "const float *, const float *, float *, int64_t");
    assert_string_equal(str(k, "return"), "void");
    json_t *params = json_object_get(k, "params");
    assert_int_equal(json_array_size(params), 4);
    assert_false(
        json_is_true(json_object_get(json_array_get(params, 2), "last")));
    assert_true(
        json_is_true(json_object_get(json_array_get(params, 3), "last")));
    /* no signature: buffers inout; f32 vs i32 disagree; int and float
     * literals make a double */
    assert_string_equal(str(kernel(v, "mix"), "params_decl"),
                        "void *, double, const char *");
    assert_string_equal(str(kernel(v, "nop"), "params_decl"), "void");
    assert_string_equal(str(kernel(v, "nop"), "params_decl_stream"),
                        "cudaStream_t");
    /* call expressions: inputs bound const, literals as spelled */
    json_t *ev = events_at(v, 6);
    json_t *call = json_object_get(json_array_get(ev, 0), "call");
    assert_non_null(call);
    assert_string_equal(str(call, "expr"), "conv(b_x, b_w, b_y, 3)");
    json_t *args = json_object_get(call, "args");
    assert_string_equal(str(json_array_get(args, 0), "mode"), "in");
    assert_string_equal(str(json_array_get(args, 2), "mode"), "out");
    assert_string_equal(str(json_array_get(args, 2), "ctype"), "float *");
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(args, 2), "bytes")),
        16);
    assert_string_equal(str(json_array_get(args, 3), "kind"), "int");
    call = json_object_get(json_array_get(events_at(v, 8), 0), "call");
    assert_string_equal(str(call, "expr"), "mix(b_y, 2, \"s\")");
    done(&f);
}

static void test_kernel_status(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f, "model m\nalloc y f32[4]\ncall k(y)\noutput y\n", "c",
                      true, NULL);
    assert_non_null(v);
    assert_string_equal(str(kernel(v, "k"), "return"), "int");
    json_t *call = json_object_get(json_array_get(events_at(v, 3), 0), "call");
    assert_true(json_is_true(json_object_get(call, "status")));
    done(&f);
}

/* The name lists of codegen/cnames.c are sorted (bsearch needs it) and
 * hold what the probe found. */
static void test_cnames(void **state) {
    (void)state;
    assert_true(cg_cnames_sorted());
    const char *lib[] = {"clog",    "conj",    "creal",    "cabs",
                         "sqrtl",   "isprint", "vfprintf", "strtoll",
                         "lroundf", "exp",     "NULL"};
    for (size_t i = 0; i < sizeof lib / sizeof *lib; i++)
        assert_true(cg_is_c_library_name(lib[i]));
    const char *mac[] = {"NULL",      "SIZE_MAX", "INT8_MAX", "PTRDIFF_MAX",
                         "WCHAR_MIN", "linux",    "unix"};
    for (size_t i = 0; i < sizeof mac / sizeof *mac; i++)
        assert_true(cg_is_header_macro(mac[i]));
    const char *cxx[] = {"class",    "new",      "this",
                         "template", "delete",   "namespace",
                         "operator", "typename", "nullptr"};
    for (size_t i = 0; i < sizeof cxx / sizeof *cxx; i++)
        assert_true(cg_is_cxx_keyword(cxx[i]));
    assert_false(cg_is_c_library_name("conv2d"));
    assert_false(cg_is_header_macro("x"));
    assert_false(cg_is_cxx_keyword("relu"));
}

static void test_names(void **state) {
    (void)state;
    fixture f;
    /* buffer `add` vs kernel `add`; kernel `exp` (C library) and `m_run`
     * (the API) renamed; kernel `b_x` pushes the local of x aside; kernel
     * `in` pushes the parameter aside. */
    json_t *v = build(&f,
                      "model m\n"
                      "input x f32[4]\n"
                      "alloc add f32[4]\n"
                      "call add(x, add)\n"
                      "call exp(add)\n"
                      "call m_run(add)\n"
                      "call b_x(add)\n"
                      "call in(add)\n"
                      "free x\n"
                      "output add\n",
                      "c", false, NULL);
    assert_non_null(v);
    assert_string_equal(str(kernel(v, "add"), "c_name"), "add");
    assert_string_equal(str(kernel(v, "exp"), "c_name"), "m_k_exp");
    assert_true(json_is_true(json_object_get(kernel(v, "exp"), "renamed")));
    assert_string_equal(str(kernel(v, "m_run"), "c_name"), "m_k_m_run");
    assert_string_equal(str(kernel(v, "b_x"), "c_name"), "b_x");
    json_t *names = json_object_get(v, "names");
    assert_string_equal(str(names, "in"), "in_2");
    assert_string_equal(str(names, "run"), "m_run");
    json_t *call = json_object_get(json_array_get(events_at(v, 4), 0), "call");
    assert_string_equal(str(call, "expr"), "add((float *)b_x_2, b_add)");
    /* struct fields keep the IR names */
    json_t *in0 = json_array_get(json_object_get(v, "inputs"), 0);
    assert_string_equal(str(in0, "field"), "x");
    assert_string_equal(str(in0, "size_macro"), "m_INPUT_X_SIZE");
    done(&f);
}

static void test_events(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"                     /* 1 */
                      "input x f32[16]\n"             /* 2 */
                      "alloc a f32[16]\n"             /* 3 */
                      "call k(x, a)\n"                /* 4 */
                      "alloc b f32[16]\n"             /* 5 */
                      "call k(a, b)\n"                /* 6 */
                      "alias v = b i32[4] offset=4\n" /* 7 */
                      "free a x\n"                    /* 8 */
                      "alloc c f32[16]\n"             /* 9 */
                      "call k(v, c)\n"                /* 10 */
                      "free b v\n"                    /* 11 */
                      "output c\n",                   /* 12 */
                      "c", false, NULL);
    assert_non_null(v);
    /* input: bound from the inputs struct */
    json_t *bind = json_object_get(json_array_get(events_at(v, 2), 0), "bind");
    assert_string_equal(str(bind, "decl"), "const float *b_x");
    assert_string_equal(str(bind, "expr"), "in->x");
    /* a pooled alloc */
    json_t *alloc =
        json_object_get(json_array_get(events_at(v, 3), 0), "alloc");
    assert_non_null(alloc);
    assert_string_equal(str(alloc, "offset_macro"), "m_BUF_A_OFFSET");
    assert_string_equal(str(alloc, "ptr_type"), "float *");
    /* a reinterpreting view: 4 i32 elements = 16 bytes into b */
    json_t *alias =
        json_object_get(json_array_get(events_at(v, 7), 0), "alias");
    assert_string_equal(
        str(alias, "comment"),
        "/* alias: v = b i32[4] offset=4, bytes [16,32) of b */");
    assert_string_equal(str(alias, "expr"),
                        "(int32_t *)(void *)((unsigned char *)b_b + 16)");
    /* free a x: two del lines, then a's storage dies (x is caller's) */
    json_t *ev = events_at(v, 8);
    assert_int_equal(json_array_size(ev), 3);
    assert_string_equal(kind_of(json_array_get(ev, 0)), "del");
    assert_string_equal(
        str(json_object_get(json_array_get(ev, 0), "del"), "comment"),
        "/* del a */");
    assert_string_equal(kind_of(json_array_get(ev, 1)), "del");
    assert_string_equal(kind_of(json_array_get(ev, 2)), "death");
    assert_string_equal(
        str(json_object_get(json_array_get(ev, 2), "death"), "name"), "a");
    /* c is the caller's output: no pool, no reuse */
    ev = events_at(v, 9);
    assert_int_equal(json_array_size(ev), 1);
    json_t *ao = json_object_get(json_array_get(ev, 0), "alloc_output");
    assert_non_null(ao);
    assert_string_equal(str(ao, "expr"), "out->c");
    /* free b v: b dies with its last name */
    ev = events_at(v, 11);
    assert_int_equal(json_array_size(ev), 3);
    assert_string_equal(kind_of(json_array_get(ev, 2)), "death");
    done(&f);
}

static void test_reuse(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "alloc a f32[16]\n"
                      "call init(a)\n"
                      "alloc b f32[16]\n"
                      "call k(a, b)\n"
                      "free a\n"
                      "alloc c f32[16]\n"
                      "call k(b, c)\n"
                      "free b\n"
                      "alloc d f32[16]\n"
                      "call k(c, d)\n"
                      "free c\n"
                      "output d\n",
                      "c", false, NULL);
    assert_non_null(v);
    /* c lands on a's bytes (the only dead storage) */
    json_t *ev = events_at(v, 7);
    assert_int_equal(json_array_size(ev), 2);
    json_t *r = json_object_get(json_array_get(ev, 0), "reuse");
    assert_non_null(r);
    assert_string_equal(str(r, "old"), "a");
    long long off = json_integer_value(json_object_get(r, "offset"));
    char want[128];
    snprintf(want, sizeof want, "/* reuse: c takes %s[%lld,%lld) from a */",
             str(r, "pool"), off, off + 64);
    assert_string_equal(str(r, "comment"), want);
    json_t *from = json_object_get(r, "from");
    assert_int_equal(json_array_size(from), 1);
    assert_string_equal(str(json_array_get(from, 0), "name"), "a");
    done(&f);
}

static void test_strings(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\nalloc y u8[4]\n"
                      "call k(y, \"a\\\"b\\\\c\\n*/?\?=\")\noutput y\n",
                      "c", false, NULL);
    assert_non_null(v);
    json_t *call = json_object_get(json_array_get(events_at(v, 3), 0), "call");
    assert_string_equal(str(call, "expr"),
                        "k(b_y, \"a\\\"b\\\\c\\n*/\\?\\?=\")");
    /* the comment cannot be closed by the string */
    json_t *ss = json_object_get(v, "statements");
    const char *c = str(json_array_get(ss, 2), "comment");
    assert_ptr_equal(strstr(c, "*/"), c + strlen(c) - 2);
    done(&f);
}

/* The errors of ir_check and cg_check_target that `text` has (the view
 * assumes a program that passed both). */
static unsigned rejected(const char *text, cg_target t) {
    base_arena *a = base_arena_new();
    FILE *sink = fopen("/dev/null", "w");
    assert_non_null(sink);
    base_diag *d = base_diag_new(sink, 0);
    ir_program *p = ir_parse(a, "t.pw", text, strlen(text), d);
    assert_non_null(p);
    if (ir_check(p, d))
        cg_check_target(p, t, NULL, d);
    unsigned n = base_diag_errors(d);
    base_diag_free(d);
    fclose(sink);
    base_arena_free(a);
    return n;
}

static void test_errors(void **state) {
    (void)state;
    fixture f;
    /* what the view cannot express is rejected before it: arity differs
     * between calls of a kernel without signature */
    assert_int_equal(rejected("model m\nalloc y f32[4]\ncall k(y)\n"
                              "call k(y, y)\noutput y\n",
                              CG_TARGET_C),
                     1);
    /* a buffer and a literal at the same position */
    assert_int_equal(rejected("model m\nalloc y f32[4]\ncall k(y, y)\n"
                              "call k(y, 1)\noutput y\n",
                              CG_TARGET_C),
                     1);
    /* 64 distinct streams: fine in C, too many for CUDA */
    char text[4096];
    int n = snprintf(text, sizeof text, "model m\nalloc y f32[4]\n");
    for (int i = 0; i < 64; i++)
        n += snprintf(text + n, sizeof text - (size_t)n,
                      "call k(y) stream=%d\n", i);
    snprintf(text + n, sizeof text - (size_t)n, "output y\n");
    assert_int_equal(rejected(text, CG_TARGET_C), 0);
    assert_int_equal(rejected(text, CG_TARGET_CUDA), 1);
    /* an unknown target */
    assert_null(build(&f, "model m\nalloc y f32[4]\ncall k(y)\noutput y\n",
                      "fortran", false, NULL));
    done(&f);
}

static void test_streams(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "device cuda:0\n"
                      "alloc a f32[4]\n"
                      "call k(a) stream=3\n"
                      "alloc b f32[4]\n"
                      "call k(b) stream=1\n"
                      "call j(a, b)\n"
                      "free a b\n"
                      "alloc y f32[4]\n"
                      "call k(y)\n"
                      "output y\n",
                      "cuda", false, NULL);
    assert_non_null(v);
    json_t *st = json_object_get(v, "streams");
    assert_int_equal(json_array_size(st), 2);
    assert_int_equal(
        json_integer_value(json_object_get(json_array_get(st, 0), "index")), 1);
    /* j (caller's stream) uses a (written on stream 3, slot 1) and b
     * (stream 1, slot 0): 2 waits, in stream order */
    json_t *ev = events_at(v, 7);
    assert_int_equal(json_array_size(ev), 3);
    json_t *w = json_object_get(json_array_get(ev, 0), "wait");
    assert_non_null(w);
    assert_string_equal(str(w, "from"), "ctx->streams[0]");
    assert_string_equal(str(w, "to"), "stream");
    assert_string_equal(str(w, "buffer"), "b");
    w = json_object_get(json_array_get(ev, 1), "wait");
    assert_string_equal(str(w, "from"), "ctx->streams[1]");
    assert_string_equal(str(w, "buffer"), "a");
    json_t *call = json_object_get(json_array_get(ev, 2), "call");
    assert_string_equal(str(call, "expr_stream"), "j(b_a, b_b, stream)");
    assert_int_equal(json_integer_value(json_object_get(v, "nevents")), 2);
    call = json_object_get(json_array_get(events_at(v, 4), 0), "call");
    assert_string_equal(str(call, "expr_stream"), "k(b_a, ctx->streams[1])");
    done(&f);

    /* reads on two streams need no order; a write after them waits for
     * both readers */
    v = build(&f,
              "model m\n"               /* 1 */
              "device cuda:0\n"         /* 2 */
              "kernel r(in, out)\n"     /* 3 */
              "input x f32[4]\n"        /* 4 */
              "alloc a f32[4]\n"        /* 5 */
              "call r(x, a) stream=1\n" /* 6 */
              "alloc b f32[4]\n"        /* 7 */
              "call r(x, b) stream=2\n" /* 8 */
              "call w(x)\n"             /* 9 */
              "free x\n"                /* 10 */
              "call s(a, b)\n"          /* 11 */
              "free a\n"                /* 12 */
              "output b\n",             /* 13 */
              "cuda", false, NULL);
    assert_non_null(v);
    assert_int_equal(json_array_size(events_at(v, 8)), 1);
    ev = events_at(v, 9);
    assert_int_equal(json_array_size(ev), 3);
    assert_string_equal(
        str(json_object_get(json_array_get(ev, 0), "wait"), "from"),
        "ctx->streams[0]");
    assert_string_equal(
        str(json_object_get(json_array_get(ev, 1), "wait"), "from"),
        "ctx->streams[1]");
    done(&f);
}

/* Struct fields: a C keyword or one of view.c's extra names gets a `_`;
 * ir_is_c_keyword knows exactly the C11 keywords. */
static void test_field_names(void **state) {
    (void)state;
    assert_true(ir_is_c_keyword("int"));
    assert_true(ir_is_c_keyword("_Thread_local"));
    assert_true(ir_is_c_keyword("do"));
    assert_false(ir_is_c_keyword("bool"));
    assert_false(ir_is_c_keyword("integer"));
    assert_false(ir_is_c_keyword("in"));
    assert_false(ir_is_c_keyword(""));
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "input unused f32[4]\n"
                      "const true f32[4]\n"
                      "input x f32[4]\n"
                      "alloc bool f32[4]\n"
                      "call k(unused, true, x, bool)\n"
                      "free unused x\n"
                      "output bool\n",
                      "c", false, NULL);
    assert_non_null(v);
    json_t *ins = json_object_get(v, "inputs");
    assert_string_equal(str(json_array_get(ins, 0), "field"), "unused_");
    assert_string_equal(str(json_array_get(ins, 1), "field"), "x");
    json_t *cs = json_object_get(v, "consts");
    assert_string_equal(str(json_array_get(cs, 0), "field"), "true_");
    json_t *outs = json_object_get(v, "outputs");
    assert_string_equal(str(json_array_get(outs, 0), "field"), "bool_");
    done(&f);
}

/* The offset macro of buffer i of the view. */
static const char *buffer_macro(json_t *view, size_t i) {
    return str(json_array_get(json_object_get(view, "buffers"), i),
               "offset_macro");
}

/* Buffer macros are named after the upper-case buffer names, made
 * unique in storage order; names without upper case need no set. */
static void test_buffer_macros(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "alloc a f32[4]\n"
                      "alloc A f32[4]\n"
                      "alloc a_2 f32[4]\n"
                      "call k(a, A, a_2)\n"
                      "output a A a_2\n",
                      "c", false, "combined");
    assert_non_null(v);
    assert_string_equal(buffer_macro(v, 0), "m_BUF_A_OFFSET");
    assert_string_equal(buffer_macro(v, 1), "m_BUF_A_2_OFFSET");
    assert_string_equal(buffer_macro(v, 2), "m_BUF_A_2_2_OFFSET");
    done(&f);
    v = build(&f,
              "model m\n"
              "alloc a_2 f32[4]\n"
              "alloc x1 f32[4]\n"
              "call k(a_2, x1)\n"
              "output a_2 x1\n",
              "c", false, "combined");
    assert_non_null(v);
    assert_string_equal(buffer_macro(v, 0), "m_BUF_A_2_OFFSET");
    assert_string_equal(buffer_macro(v, 1), "m_BUF_X1_OFFSET");
    done(&f);
}

/* The size macros of inputs and consts: upper-case names made unique in
 * their section, through a set when a name has upper case. */
static void test_io_macros(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "input a f32[4]\n"
                      "input A f32[4]\n"
                      "const a_2 f32[4]\n"
                      "const b f32[4]\n"
                      "alloc o f32[4]\n"
                      "call k(a, A, a_2, b, o)\n"
                      "free a A\n"
                      "output o\n",
                      "c", false, NULL);
    assert_non_null(v);
    json_t *ins = json_object_get(v, "inputs");
    assert_string_equal(str(json_array_get(ins, 0), "size_macro"),
                        "m_INPUT_A_SIZE");
    assert_string_equal(str(json_array_get(ins, 1), "size_macro"),
                        "m_INPUT_A_2_SIZE");
    assert_string_equal(str(json_array_get(ins, 1), "field"), "A");
    json_t *cs = json_object_get(v, "consts");
    assert_string_equal(str(json_array_get(cs, 0), "size_macro"),
                        "m_CONST_A_2_SIZE");
    assert_string_equal(str(json_array_get(cs, 1), "size_macro"),
                        "m_CONST_B_SIZE");
    assert_string_equal(str(json_array_get(cs, 1), "field"), "b");
    done(&f);
}

/* has_copies looks at every output: here the copied one (an input) comes
 * after a planned output, which the "outputs" section leaves out. */
static void test_has_copies(void **state) {
    (void)state;
    fixture f;
    json_t *v = build(&f,
                      "model m\n"
                      "input x f32[4]\n"
                      "alloc p f32[4] planned\n"
                      "call k(x, p)\n"
                      "output p x\n",
                      "c", false, NULL);
    assert_non_null(v);
    json_t *outs = json_object_get(v, "outputs");
    assert_int_equal(json_array_size(outs), 1);
    assert_string_equal(str(json_array_get(outs, 0), "name"), "x");
    assert_true(
        json_is_true(json_object_get(json_array_get(outs, 0), "copied")));
    assert_true(json_is_true(json_object_get(v, "has_copies")));
    done(&f);
}

/* A view built with the key set of the built-in templates leaves keys
 * out, yet every built-in template renders exactly as with the complete
 * view. */
/* The view written element by element is the text of the whole
 * document. */
static void expect_written(const cg_view *v, json_t *doc) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(cg_view_write(v, f));
    fclose(f);
    char *want = json_dumps(doc, JSON_INDENT(2));
    assert_non_null(want);
    assert_string_equal(buf, want);
    free(want);
    free(buf);
}

/* The files rendered from the streaming view (lists built element by
 * element) equal the templates rendered against the whole document. */
static void expect_streamed(json_t *doc, cg_target target, const cg_file *ff,
                            size_t nf) {
    static const char *const names[2][3] = {
        {"c/model.h", "c/kernels.h", "c/model.c"},
        {"cuda/model.h", "cuda/kernels.h", "cuda/model.cu"}};
    assert_int_equal(nf, 3);
    mst_loader ld = mst_dir_loader(NULL, true);
    mst_options o = {.no_escape = true, .strict = true};
    for (size_t i = 0; i < nf; i++) {
        size_t len = 0;
        const char *src = mst_builtin(names[target][i], &len);
        assert_non_null(src);
        mst_error err;
        mst_template *t = mst_compile(names[target][i], src, len, &err);
        assert_non_null(t);
        char *out = NULL;
        size_t olen = 0;
        assert_int_equal(mst_render(t, doc, &ld, &o, &out, &olen, &err), 0);
        assert_int_equal(olen, ff[i].len);
        assert_memory_equal(out, ff[i].data, olen);
        free(out);
        mst_template_free(t);
    }
}

/* Two renderings a[0, na) and b[0, nb) are the same files, byte for
 * byte; both freed. */
static void expect_same_files(cg_file *a, size_t na, cg_file *b, size_t nb) {
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(na, nb);
    for (size_t i = 0; i < na; i++) {
        assert_string_equal(a[i].name, b[i].name);
        assert_int_equal(a[i].len, b[i].len);
        assert_memory_equal(a[i].data, b[i].data, a[i].len);
    }
    cg_files_free(a, na);
    cg_files_free(b, nb);
}

static void test_keep(void **state) {
    (void)state;
    static const struct {
        const char *target, *text;
    } cases[] = {
        {"c", "model m\n"
              "kernel r(in, out)\n"
              "input x f32[4]\n"
              "const w f32[4]\n"
              "alloc a f32[4]\n"
              "call r(x, a)\n"
              "alias c = a\n"
              "alloc b f32[8]\n"
              "call s(c, w, b, 3)\n"
              "free x a c\n"
              "output b\n"},
        {"cuda", "model m\n"
                 "device cuda:0\n"
                 "kernel r(in, out)\n"
                 "input x f32[4]\n"
                 "alloc a f32[4]\n"
                 "call r(x, a) stream=1\n"
                 "alloc b f32[4]\n"
                 "call r(x, b) stream=2\n"
                 "call w(x)\n"
                 "free x\n"
                 "call s(a, b)\n"
                 "free a\n"
                 "output b\n"},
    };
    cg_keyset *keys = cg_builtin_keys();
    assert_non_null(keys);
    for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
        for (int ks = 0; ks < 2; ks++) {
            const char *text = cases[c].text;
            cg_target target;
            assert_true(cg_target_parse(cases[c].target, &target));
            base_arena *a = base_arena_new();
            base_diag *d = base_diag_new(stderr, 0);
            plan *pl = plan_text(a, d, text, strlen(text), NULL);
            cg_view_options all = {.kernel_status = ks != 0, .keep = NULL};
            cg_view_options some = {.kernel_status = ks != 0, .keep = keys};
            json_t *full = cg_build_view_opts(pl, target, &all, d);
            json_t *part = cg_build_view_opts(pl, target, &some, d);
            assert_non_null(full);
            assert_non_null(part);
            char *jf = json_dumps(full, JSON_COMPACT);
            char *jp = json_dumps(part, JSON_COMPACT);
            assert_true(strlen(jp) < strlen(jf));
            free(jf);
            free(jp);
            size_t nf = 0, np = 0;
            cg_view *vf = cg_view_new(pl, target, &all, d);
            cg_view *vp = cg_view_new(pl, target, &some, d);
            cg_file *ff = cg_render_target(vf, target, NULL, &nf, d);
            cg_file *fp = cg_render_target(vp, target, NULL, &np, d);
            expect_written(vf, full);
            expect_written(vp, part);
            cg_view_free(vf);
            cg_view_free(vp);
            expect_streamed(full, target, ff, nf);
            assert_true(nf >= 3);
            expect_same_files(ff, nf, fp, np);
            json_decref(full);
            json_decref(part);
            base_diag_free(d);
            base_arena_free(a);
        }
    }
    cg_keyset_free(keys);
    cg_keyset_free(NULL);
}

/* The firmware keys of a buffer and the root's kinds follow the buffer's
 * value, whether or not the key set keeps the buffer's "name": a key set
 * without it (no built-in one leaves it out) gives the keys of the
 * complete view. */
static void test_fw_keys_without_name(void **state) {
    (void)state;
    static const char text[] = "model acc\n"
                               "kernel add(in, in, out)\n"
                               "input  x f32[16] planned\n"
                               "input  m f32[16]\n"
                               "state  s f32[16]\n"
                               "alloc  t f32[16]\n"
                               "call   add(x, m, t)\n"
                               "free   x m\n"
                               "call   add(s, t, s)\n"
                               "alloc  y f32[16] planned\n"
                               "call   add(s, t, y)\n"
                               "free   t s\n"
                               "output y\n";
    cg_keyset *keys = cg_builtin_keys();
    assert_non_null(keys);
    cg_key *e = NULL;
    HASH_FIND(hh, keys->head, "name", 4, e);
    assert_non_null(e);
    HASH_DEL(keys->head, e);
    free(e);
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(stderr, 0);
    plan *pl = plan_text(a, d, text, strlen(text), NULL);
    cg_view_options all = {.keep = NULL}, some = {.keep = keys};
    json_t *full = cg_build_view_opts(pl, CG_TARGET_C, &all, d);
    json_t *part = cg_build_view_opts(pl, CG_TARGET_C, &some, d);
    assert_non_null(full);
    assert_non_null(part);
    static const char *const root[] = {"has_planned_inputs", "has_states",
                                       "has_planned_outputs",
                                       "needs_static_pools_fn"};
    for (size_t k = 0; k < sizeof root / sizeof *root; k++) {
        assert_true(json_is_true(json_object_get(full, root[k])));
        assert_true(json_equal(json_object_get(full, root[k]),
                               json_object_get(part, root[k])));
    }
    static const char *const keys_of[] = {"is_planned_input", "is_state",
                                          "zero_at_init", "is_planned_output",
                                          "accessor"};
    json_t *bf = json_object_get(full, "buffers");
    json_t *bp = json_object_get(part, "buffers");
    assert_int_equal(json_array_size(bf), json_array_size(bp));
    unsigned seen = 0;
    for (size_t i = 0; i < json_array_size(bf); i++) {
        json_t *f = json_array_get(bf, i), *q = json_array_get(bp, i);
        assert_null(json_object_get(q, "name"));
        for (size_t k = 0; k < sizeof keys_of / sizeof *keys_of; k++) {
            json_t *x = json_object_get(f, keys_of[k]);
            assert_non_null(x);
            assert_true(json_equal(x, json_object_get(q, keys_of[k])));
            seen |= json_is_true(x) ? 1u << k : 0u;
        }
    }
    assert_int_equal(seen, 0xfu); /* each kind and a zeroed buffer */
    json_decref(full);
    json_decref(part);
    base_diag_free(d);
    base_arena_free(a);
    cg_keyset_free(keys);
}

/* The statements' texts and input hash made ahead (cg_texts_start: in a
 * thread of their own from 20,000 statements on) give the view what it
 * makes itself: the same root and the same files; texts no view took
 * are freed alone. */
static void test_texts_ahead(void **state) {
    (void)state;
    for (int big = 0; big < 2; big++) {
        base_sb text = {0};
        base_sb_puts(&text, "model m\nkernel r(in, out)\ninput x f32[4]\n");
        uint32_t n = big ? 7000 : 3; /* three statements each */
        for (uint32_t i = 0; i < n; i++)
            base_sb_printf(&text,
                           "alloc a%u f32[4]\ncall r(x, a%u) # /* c */\n"
                           "free a%u\n",
                           i, i, i);
        base_sb_puts(&text, "alloc y f32[4]\ncall r(x, y)\noutput y\n");
        base_arena *a = base_arena_new();
        base_diag *d = base_diag_new(stderr, 0);
        plan *pl = plan_text(a, d, base_sb_str(&text), text.len, NULL);
        const ir_program *p = pl->prog;
        assert_true(p->nstmts >= (big ? 20000u : 10u));
        cg_texts_free(cg_texts_start(p)); /* taken by no view */
        cg_texts_free(NULL);
        cg_view_options now = {.keep = NULL};
        cg_view_options ahead = {.keep = NULL, .texts = cg_texts_start(p)};
        cg_view *vn = cg_view_new(pl, CG_TARGET_C, &now, d);
        cg_view *va = cg_view_new(pl, CG_TARGET_C, &ahead, d); /* takes */
        char *jn = json_dumps(cg_view_root(vn), JSON_COMPACT);
        char *ja = json_dumps(cg_view_root(va), JSON_COMPACT);
        assert_string_equal(jn, ja);
        size_t nn = 0, na = 0;
        cg_file *fn = cg_render_target(vn, CG_TARGET_C, NULL, &nn, d);
        cg_file *fa = cg_render_target(va, CG_TARGET_C, NULL, &na, d);
        expect_same_files(fn, nn, fa, na);
        free(jn);
        free(ja);
        cg_view_free(vn);
        cg_view_free(va);
        base_diag_free(d);
        base_arena_free(a);
        base_sb_free(&text);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_prototypes),
        cmocka_unit_test(test_kernel_status),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_cnames),
        cmocka_unit_test(test_events),
        cmocka_unit_test(test_reuse),
        cmocka_unit_test(test_strings),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_field_names),
        cmocka_unit_test(test_has_copies),
        cmocka_unit_test(test_buffer_macros),
        cmocka_unit_test(test_io_macros),
        cmocka_unit_test(test_keep),
        cmocka_unit_test(test_fw_keys_without_name),
        cmocka_unit_test(test_texts_ahead),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * tests/templates/test_mustache.c - unit tests of the mustache engine
 * beyond the spec: options (strict, no-escape, limits), error locations,
 * overrides of built-ins, robustness (size, nesting, recursion, bytes).
 */
#include "templates/mustache.h"
#include "tests/templates/spec_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Renders `tpl` with `data` (JSON text) and partials (JSON object text or
 * NULL).  Returns the output (caller frees) or NULL with *err filled. */
static char *render_ex(const char *tpl, size_t tlen, const char *data,
                       const char *partials, const mst_options *o,
                       size_t *outlen, mst_error *err) {
    json_error_t jerr;
    json_t *d = json_loads(data, JSON_DECODE_ANY | JSON_ALLOW_NUL, &jerr);
    assert_non_null(d);
    json_t *p = partials ? json_loads(partials, 0, &jerr) : NULL;
    mst_loader ld = {spec_load_json, p, NULL};
    char *out = NULL;
    memset(err, 0, sizeof *err);
    mst_template *t = mst_compile("t", tpl, tlen, err);
    if (t) {
        if (mst_render(t, d, &ld, o, &out, outlen, err) != 0)
            assert_null(out);
        mst_template_free(t);
    }
    json_decref(d);
    json_decref(p);
    return out;
}

static char *render(const char *tpl, const char *data, const char *partials,
                    const mst_options *o, mst_error *err) {
    size_t len;
    return render_ex(tpl, strlen(tpl), data, partials, o, &len, err);
}

static void expect(const char *tpl, const char *data, const char *partials,
                   const mst_options *o, const char *want) {
    mst_error err;
    char *out = render(tpl, data, partials, o, &err);
    if (!out) {
        char buf[1024];
        fail_msg("%s", mst_error_format(&err, buf, sizeof buf));
    }
    assert_string_equal(out, want);
    free(out);
}

/* Expects an error formatted exactly as `want`. */
static void expect_error(const char *tpl, const char *data,
                         const char *partials, const mst_options *o,
                         const char *want) {
    mst_error err;
    char *out = render(tpl, data, partials, o, &err);
    if (out) {
        fail_msg("expected an error, got \"%s\"", out);
        free(out);
    }
    char buf[1024];
    assert_string_equal(mst_error_format(&err, buf, sizeof buf), want);
}

static void test_no_escape(void **state) {
    (void)state;
    const char *data = "{\"e\": \"a < b && &x > \\\"q\\\"\"}";
    mst_options o = {0};
    expect("{{e}}", data, NULL, &o,
           "a &lt; b &amp;&amp; &amp;x &gt; &quot;q&quot;");
    expect("{{{e}}}|{{&e}}", data, NULL, &o,
           "a < b && &x > \"q\"|a < b && &x > \"q\"");
    o.no_escape = true;
    expect("{{e}}", data, NULL, &o, "a < b && &x > \"q\"");
}

static void test_numbers(void **state) {
    (void)state;
    expect("{{a}} {{b}} {{c}} {{d}} {{e}} {{f}} {{g}} {{h}}",
           "{\"a\": 85, \"b\": 1.21, \"c\": 1e100, \"d\": -7, \"e\": 0.1, "
           "\"f\": 1.0, \"g\": 9007199254740993, \"h\": 2.5e-7}",
           NULL, NULL, "85 1.21 1e+100 -7 0.1 1 9007199254740993 2.5e-07");
    expect("{{t}} {{f}} [{{n}}]", "{\"t\": true, \"f\": false, \"n\": null}",
           NULL, NULL, "true false []");
}

/* A lookup that falls through frames pushed for other values at the
 * same depth, from inside a section that pushes a value without keys
 * (each element of l; x, then y, from the same tag of partial p): no
 * answer is kept from one of those frames for the next. */
static void test_lookup_cache(void **state) {
    (void)state;
    const char *data = "{\"yes\": true, \"a\": 0, \"l\": [{\"a\": 1}, "
                       "{\"a\": 2}, {}], \"x\": {\"a\": 3}, "
                       "\"y\": {\"a\": 4}}";
    expect("{{#l}}{{#yes}}{{a}}{{/yes}}{{/l}}", data, NULL, NULL, "120");
    expect("{{#x}}{{>p}}{{/x}}{{#y}}{{>p}}{{/y}}{{>p}}", data,
           "{\"p\": \"{{#yes}}{{a}}{{/yes}}\"}", NULL, "340");
}

static void test_strict(void **state) {
    (void)state;
    mst_options o = {.strict = true};
    expect_error("ok\n  {{nope}}", "{}", NULL, &o,
                 "t:2:3: error: unknown name 'nope'");
    expect_error("{{a.b}}", "{\"a\": {}}", NULL, &o,
                 "t:1:1: error: unknown name 'a.b'");
    expect_error("{{#s}}x{{/s}}", "{}", NULL, &o,
                 "t:1:1: error: unknown name 's'");
    expect_error("x{{>p}}", "{}", "{}", &o,
                 "t:1:2: error: unknown partial 'p'");
    expect_error("{{>p}}", "{}", "{\"p\": \"\\n {{q}}\"}", &o,
                 "p:2:2: error: unknown name 'q'");
    expect_error("{{o}}", "{\"o\": {}}", NULL, &o,
                 "t:1:1: error: cannot interpolate 'o': it is an object");
    /* present values are fine, even null and false */
    expect("[{{n}}]{{^f}}no{{/f}}{{#a}}{{.}}{{/a}}",
           "{\"n\": null, \"f\": false, \"a\": [1, 2]}", NULL, &o, "[]no12");
    /* the same templates are lenient without strict */
    expect("[{{nope}}{{>p}}]", "{}", "{}", NULL, "[]");
}

static void test_dynamic_and_builtin_names(void **state) {
    (void)state;
    mst_options o = {.strict = true};
    expect_error("{{>*d}}", "{}", "{}", &o,
                 "t:1:1: error: dynamic partial name 'd' is unknown");
    expect_error("x\n {{>*d}}", "{\"d\": 1}", "{}", &o,
                 "t:2:2: error: dynamic partial name 'd' is not a string");
    expect("{{>*d}}|{{>*e}}", "{\"d\": \"p\", \"e\": 1}", "{\"p\": \"P\"}",
           NULL, "P|");
    /* builtin:NAME outside a directory loader is just an unknown name */
    expect("[{{>builtin:no/such}}]", "{}", "{}", NULL, "[]");
}

/* Standalone partials with \r\n line ends keep them, indented. */
static void test_crlf_indentation(void **state) {
    (void)state;
    expect("a\r\n  {{>p}}\r\nb", "{\"v\": \"1\\r\\n2\"}",
           "{\"p\": \"x\\r\\n{{v}}\\r\\ny\\r\\n\"}", NULL,
           "a\r\n  x\r\n  1\r\n2\r\n  y\r\nb");
    /* nested standalone partials add up their indentation */
    expect("  {{>p}}\n", "{}",
           "{\"p\": \"p\\n  {{>q}}\\n\", \"q\": \"q1\\nq2\\n\"}", NULL,
           "  p\n    q1\n    q2\n");
}

static void test_error_locations(void **state) {
    (void)state;
    expect_error("a\n  {{#s}}\nb", "{}", NULL, NULL,
                 "t:2:3: error: unclosed section {{#s}}");
    expect_error("{{#a}}\n{{^b}}{{/a}}", "{}", NULL, NULL,
                 "t:2:7: error: closing tag {{/a}} does not match {{^b}} "
                 "opened at line 2, column 1");
    expect_error("x {{/a}}", "{}", NULL, NULL,
                 "t:1:3: error: closing tag {{/a}} without an open section");
    expect_error("a\nb {{name", "{}", NULL, NULL,
                 "t:2:3: error: unclosed tag: missing '}}'");
    expect_error("{{{x}}", "{}", NULL, NULL,
                 "t:1:1: error: unclosed tag: missing '}}}'");
    expect_error("{{=<% %>=}}\n<%x}}", "{}", NULL, NULL,
                 "t:2:1: error: unclosed tag: missing '%>'");
    expect_error("{{= <% =}}", "{}", NULL, NULL,
                 "t:1:1: error: bad set-delimiter tag: expected two "
                 "delimiters without spaces or '=' (like {{=<% %>=}})");
    expect_error("{{=<% %>", "{}", NULL, NULL,
                 "t:1:1: error: unclosed set-delimiter tag: missing '=}}'");
    expect_error("{{ }}", "{}", NULL, NULL, "t:1:1: error: empty tag");
    expect_error("{{#}}{{/}}", "{}", NULL, NULL, "t:1:1: error: empty tag");
    expect_error("{{a b}}", "{}", NULL, NULL,
                 "t:1:1: error: bad tag name 'a b': contains whitespace");
    expect_error("{{a..b}}", "{}", NULL, NULL,
                 "t:1:1: error: bad name 'a..b': empty part in a dotted name");
    /* an error in a partial names the partial */
    expect_error("{{>p}}", "{}", "{\"p\": \"ok\\n{{#x}}\"}", NULL,
                 "p:2:1: error: unclosed section {{#x}}");
    /* multi-line comments count lines */
    expect_error("{{!\n\n}} {{/z}}", "{}", NULL, NULL,
                 "t:3:4: error: closing tag {{/z}} without an open section");
}

static void test_render_many(void **state) {
    (void)state;
    mst_error err;
    mst_template *t = mst_compile("t", "{{#xs}}{{.}},{{/xs}}", 20, &err);
    assert_non_null(t);
    json_t *d = json_pack("{s:[i,i,i]}", "xs", 1, 2, 3);
    for (int i = 0; i < 3; i++) {
        char *out;
        size_t len;
        assert_int_equal(mst_render(t, d, NULL, NULL, &out, &len, &err), 0);
        assert_string_equal(out, "1,2,3,");
        assert_int_equal(len, 6);
        free(out);
    }
    json_decref(d);
    mst_template_free(t);
}

/* ~10 MB of template: many lines with tags, compiled and rendered. */
static void test_big_template(void **state) {
    (void)state;
    const char *line = "int v{{i}} = {{#on}}1{{/on}}{{^on}}0{{/on}};\n";
    size_t ll = strlen(line), n = 10 * 1024 * 1024 / ll + 1;
    char *tpl = malloc(n * ll + 1);
    assert_non_null(tpl);
    for (size_t i = 0; i < n; i++)
        memcpy(tpl + i * ll, line, ll);
    tpl[n * ll] = '\0';
    mst_error err;
    size_t len;
    char *out = render_ex(tpl, n * ll, "{\"i\": 7, \"on\": true}", NULL, NULL,
                          &len, &err);
    assert_non_null(out);
    assert_int_equal(len, n * strlen("int v7 = 1;\n"));
    assert_memory_equal(out, "int v7 = 1;\nint v7 = 1;\n", 24);
    free(out);
    free(tpl);
}

/* A lazy list for test_lazy_lists: n elements {name, sub: {x}}, each
 * built on demand; built counts the calls, live the elements not yet
 * released (each is checked at the next call: only the engine held it). */
typedef struct lazy_fixture {
    size_t n, built, fail_at;
    json_t *last;
} lazy_fixture;

static size_t lazy_count(void *ctx) {
    return ((lazy_fixture *)ctx)->n;
}

static size_t lazy_count_3(void *ctx) {
    (void)ctx;
    return 3;
}

static json_t *lazy_element(void *ctx, size_t i) {
    lazy_fixture *f = ctx;
    if (f->last) { /* the previous element was released by the engine */
        assert_int_equal(f->last->refcount, 1);
        json_decref(f->last);
    }
    f->built++;
    if (i == f->fail_at) {
        f->last = NULL;
        return NULL;
    }
    json_t *e = json_pack("{s:s+, s:{s:i}}", "name", "e", i == 0 ? "0" : "n",
                          "sub", "x", (int)(i * 10));
    f->last = json_incref(e);
    return e;
}

static char *render_lazy(const char *tpl, lazy_fixture *f, mst_error *err) {
    json_t *marker = json_array();
    json_t *d = json_pack("{s:o, s:s, s:{s:s}}", "items", marker, "title", "T",
                          "meta", "k", "M");
    mst_lazy_list lz = {marker, lazy_count, lazy_element, f, NULL, NULL, NULL};
    mst_options o = {.strict = true, .lazy = &lz, .nlazy = 1};
    mst_template *t = mst_compile("t", tpl, strlen(tpl), err);
    assert_non_null(t);
    char *out = NULL;
    size_t len;
    if (mst_render(t, d, NULL, &o, &out, &len, err) != 0)
        assert_null(out);
    mst_template_free(t);
    json_decref(d);
    json_decref(f->last);
    f->last = NULL;
    return out;
}

/* A lookup from the elements of a lazy list that falls through to
 * frames pushed for other values at the same depth (x, then y): the
 * cache of the lookups below the elements (rctx.lm) must tell x and y
 * apart, though the same tag of partial p looks a up in both. */
static void test_lazy_lookup_cache(void **state) {
    (void)state;
    json_t *marker = json_array();
    json_t *d = json_pack("{s:o, s:{s:i}, s:{s:i}}", "items", marker, "x", "a",
                          3, "y", "a", 4);
    json_t *partials = json_pack("{s:s}", "p", "{{#items}}{{a}}{{/items}};");
    lazy_fixture f = {2, 0, SIZE_MAX, NULL};
    mst_lazy_list lz = {marker, lazy_count, lazy_element, &f, NULL, NULL, NULL};
    mst_options o = {.strict = true, .lazy = &lz, .nlazy = 1};
    mst_loader ld = {spec_load_json, partials, NULL};
    const char *tpl = "{{#x}}{{>p}}{{/x}}{{#y}}{{>p}}{{/y}}";
    mst_error err;
    mst_template *t = mst_compile("t", tpl, strlen(tpl), &err);
    assert_non_null(t);
    char *out = NULL;
    size_t len;
    assert_int_equal(mst_render(t, d, &ld, &o, &out, &len, &err), 0);
    assert_string_equal(out, "33;44;");
    free(out);
    mst_template_free(t);
    json_decref(d);
    json_decref(partials);
    json_decref(f.last);
}

/* Lists built on demand (mst_options.lazy): elements in order, lookups
 * falling through to the root, dotted names inside elements (the cache of
 * dotted lookups must not serve a released element's value to the next
 * one at the same address, while it keeps the root's values: meta.k),
 * truthiness, and a failing element. */
static void test_lazy_lists(void **state) {
    (void)state;
    const char *tpl = "{{#items}}{{name}}:{{sub.x}}:{{title}}:{{meta.k}};"
                      "{{/items}}"
                      "{{^items}}none{{/items}}";
    mst_error err;
    lazy_fixture f = {3, 0, SIZE_MAX, NULL};
    char *out = render_lazy(tpl, &f, &err);
    assert_non_null(out);
    assert_string_equal(out, "e0:0:T:M;en:10:T:M;en:20:T:M;");
    assert_int_equal(f.built, 3);
    free(out);
    lazy_fixture none = {0, 0, SIZE_MAX, NULL};
    out = render_lazy(tpl, &none, &err);
    assert_non_null(out);
    assert_string_equal(out, "none");
    assert_int_equal(none.built, 0);
    free(out);
    lazy_fixture bad = {3, 0, 1, NULL};
    assert_null(render_lazy(tpl, &bad, &err));
    char buf[512];
    assert_string_equal(mst_error_format(&err, buf, sizeof buf),
                        "t:1:1: error: cannot build element 1 of 'items'");
}

/* One element object for every index, its sub.x replaced each time (the
 * old x is kept alive, so that the new one has another address): a dotted
 * lookup through an element must not be served from the cache once the
 * element is released. */
typedef struct reused_fixture {
    json_t *e, *old[3];
} reused_fixture;

static json_t *reused_element(void *ctx, size_t i) {
    reused_fixture *f = ctx;
    json_t *sub = json_object_get(f->e, "sub");
    f->old[i] = json_incref(json_object_get(sub, "x"));
    json_object_set_new(sub, "x", json_integer((json_int_t)i * 10));
    return json_incref(f->e);
}

static void test_lazy_reused_element(void **state) {
    (void)state;
    const char *tpl = "{{#items}}{{sub.x}}:{{meta.k}};{{/items}}";
    reused_fixture f = {json_pack("{s:{s:i}}", "sub", "x", -1), {NULL}};
    json_t *marker = json_array();
    json_t *d = json_pack("{s:o, s:{s:s}}", "items", marker, "meta", "k", "M");
    mst_lazy_list lz = {marker, lazy_count_3, reused_element, &f, NULL,
                        NULL,   NULL};
    mst_options o = {.strict = true, .lazy = &lz, .nlazy = 1};
    mst_error err;
    mst_template *t = mst_compile("t", tpl, strlen(tpl), &err);
    assert_non_null(t);
    char *out = NULL;
    size_t len;
    assert_int_equal(mst_render(t, d, NULL, &o, &out, &len, &err), 0);
    assert_string_equal(out, "0:M;10:M;20:M;");
    free(out);
    mst_template_free(t);
    json_decref(d);
    json_decref(f.e);
    for (size_t i = 0; i < 3; i++)
        json_decref(f.old[i]);
}

/* Many lazy lists (found through mst_lazy_index), one inside each
 * element of an ordinary array, as the view has two per pool: each
 * section iterates its own list, and a marker that is no list's value
 * renders as the placeholder it is. */
static size_t many_count(void *ctx) {
    return (size_t)(*(const int *)ctx % 3); /* 0, 1 or 2 elements */
}

static json_t *many_element(void *ctx, size_t i) {
    return json_integer(*(const int *)ctx * 100 + (json_int_t)i);
}

static void test_lazy_many_lists(void **state) {
    (void)state;
    enum { N = 9 };
    int n[N];
    mst_lazy_list lz[N];
    json_t *pools = json_array();
    for (int k = 0; k < N; k++) {
        n[k] = k;
        json_t *marker = json_array();
        lz[k] = (mst_lazy_list){marker, many_count, many_element, &n[k],
                                NULL,   NULL,       NULL};
        json_array_append_new(pools,
                              json_pack("{s:i, s:o}", "k", k, "items", marker));
    }
    mst_lazy_index *ix = mst_lazy_index_new(lz, N);
    for (int k = 0; k < N; k++)
        assert_ptr_equal(mst_lazy_index_find(ix, lz[k].marker), &lz[k]);
    assert_null(mst_lazy_index_find(ix, pools));
    assert_null(mst_lazy_index_find(ix, NULL));
    mst_lazy_index_free(ix);
    json_t *d = json_pack("{s:o}", "pools", pools);
    const char *tpl = "{{#pools}}{{k}}[{{#items}}{{.}},{{/items}}"
                      "{{^items}}-{{/items}}]{{/pools}}";
    mst_options o = {.strict = true, .lazy = lz, .nlazy = N};
    mst_error err;
    mst_template *t = mst_compile("t", tpl, strlen(tpl), &err);
    assert_non_null(t);
    char *out = NULL;
    size_t len;
    assert_int_equal(mst_render(t, d, NULL, &o, &out, &len, &err), 0);
    assert_string_equal(out, "0[-]1[100,]2[200,201,]3[-]4[400,]"
                             "5[500,501,]6[-]7[700,]8[800,801,]");
    free(out);
    mst_template_free(t);
    json_decref(d);
}

static char *nested(size_t depth, const char *open, const char *mid,
                    const char *close) {
    size_t ol = strlen(open), ml = strlen(mid), cl = strlen(close);
    char *s = malloc(depth * (ol + cl) + ml + 1), *p = s;
    assert_non_null(s);
    for (size_t i = 0; i < depth; i++, p += ol)
        memcpy(p, open, ol);
    memcpy(p, mid, ml);
    p += ml;
    for (size_t i = 0; i < depth; i++, p += cl)
        memcpy(p, close, cl);
    *p = '\0';
    return s;
}

static void test_deep_sections(void **state) {
    (void)state;
    char *tpl = nested(10000, "{{#a}}", "x", "{{/a}}");
    expect(tpl, "{\"a\": true}", NULL, NULL, "x");
    free(tpl);
    /* deeper than the limit: a clear error, at the innermost section */
    mst_options o = {.max_depth = 100};
    tpl = nested(101, "{{#a}}", "x", "{{/a}}");
    expect_error(tpl, "{\"a\": true}", NULL, &o,
                 "t:1:601: error: nesting deeper than 100 (sections, "
                 "partials and blocks)");
    free(tpl);
    /* unclosed deep nesting fails at compile time */
    tpl = nested(20000, "{{^a}}", "", "");
    expect_error(tpl, "{}", NULL, NULL,
                 "t:1:119995: error: unclosed section {{^a}}");
    free(tpl);
}

static void test_partial_recursion(void **state) {
    (void)state;
    /* 1,000 levels of data-driven recursion render correctly */
    json_t *d = json_object(), *cur = d;
    for (int i = 0; i < 1000; i++) {
        json_t *k = json_object();
        json_object_set_new(cur, "n", k);
        cur = k;
    }
    /* the innermost level must say so: a missing "n" would be found
     * further down the context stack */
    json_object_set_new(cur, "n", json_false());
    char *data = json_dumps(d, 0);
    json_decref(d);
    char *want = nested(1000, "<", "", ">");
    expect("{{>node}}", data, "{\"node\": \"{{#n}}<{{>node}}>{{/n}}\"}", NULL,
           want);
    free(want);
    free(data);
    /* endless recursion stops at the depth limit */
    mst_options o = {.max_depth = 1000};
    expect_error("{{>self}}", "{}", "{\"self\": \"a{{>self}}\"}", &o,
                 "self:1:2: error: nesting deeper than 1000 (sections, "
                 "partials and blocks)");
    /* a limit above MST_MAX_DEPTH is clamped: no stack overflow */
    mst_options deep = {.max_depth = 60000};
    expect_error("{{>self}}", "{}", "{\"self\": \"{{>self}}\"}", &deep,
                 "self:1:1: error: nesting deeper than 10000 (sections, "
                 "partials and blocks)");
    /* exponential recursion stops at the depth limit too */
    expect_error("{{>p}}", "{}", "{\"p\": \"{{>p}}{{>p}}\"}", &o,
                 "p:1:1: error: nesting deeper than 1000 (sections, "
                 "partials and blocks)");
}

/* Runaway loops stop at the output limit, or at the work limit when they
 * print nothing. */
static void test_limits(void **state) {
    (void)state;
    json_t *l = json_array();
    for (int i = 0; i < 100; i++)
        json_array_append_new(l, json_integer(i));
    json_t *d = json_pack("{s:o}", "l", l);
    char *data = json_dumps(d, 0);
    json_decref(d);
    mst_options o = {.max_output = 1 << 20};
    expect_error("{{#l}}{{#l}}{{#l}}{{#l}}x{{/l}}{{/l}}{{/l}}{{/l}}", data,
                 NULL, &o,
                 "t:1:25: error: output larger than the limit of 1048576 "
                 "bytes");
    mst_error err;
    char *out = render("{{#l}}{{#l}}{{#l}}{{#l}}{{/l}}{{/l}}{{/l}}{{/l}}", data,
                       NULL, &o, &err);
    assert_null(out);
    assert_non_null(strstr(err.text, "steps"));
    /* within the limits the same data renders */
    expect("{{#l}}{{#l}}{{/l}}{{/l}}.", data, NULL, &o, ".");
    free(data);
}

static void test_bytes(void **state) {
    (void)state;
    /* invalid UTF-8 and NUL bytes in text pass through byte for byte */
    const char tpl[] = "\xff\xfe{{x}}\0mid\xc3{{#t}}\0{{/t}}";
    size_t tl = sizeof tpl - 1, len;
    mst_error err;
    char *out = render_ex(tpl, tl, "{\"x\": \"a\\u0000b\", \"t\": true}", NULL,
                          NULL, &len, &err);
    assert_non_null(out);
    const char want[] = "\xff\xfe"
                        "a\0b\0mid\xc3\0";
    assert_int_equal(len, sizeof want - 1);
    assert_memory_equal(out, want, len);
    free(out);
    /* a NUL inside a tag name is just an unknown name */
    const char t2[] = "[{{a\0b}}]";
    out = render_ex(t2, sizeof t2 - 1, "{\"a\": 1}", NULL, NULL, &len, &err);
    assert_non_null(out);
    assert_string_equal(out, "[]");
    free(out);
    mst_options o = {.strict = true};
    out = render_ex(t2, sizeof t2 - 1, "{\"a\": 1}", NULL, &o, &len, &err);
    assert_null(out);
    assert_int_equal(err.col, 2);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* DIR/NAME.mustache overrides a built-in, and can extend the original. */
static void test_override_builtin(void **state) {
    (void)state;
    char dir[] = "/tmp/pw-mst-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512];
    snprintf(path, sizeof path, "%s/base.mustache", dir);
    write_text(path, "<{{$head}}H{{/head}}|{{$body}}B{{/body}}>");
    snprintf(path, sizeof path, "%s/page.mustache", dir);
    write_text(path, "{{<base}}{{$body}}mine{{/body}}{{/base}}");
    mst_loader ld = mst_dir_loader(dir, true);
    mst_error err;
    size_t len;
    char *out;
    mst_template *t = mst_compile("t", "{{>page}}", 9, &err);
    assert_non_null(t);
    assert_int_equal(mst_render(t, NULL, &ld, NULL, &out, &len, &err), 0);
    assert_string_equal(out, "<H|mine>");
    free(out);
    mst_template_free(t);

    const char *b = mst_builtin_name(0);
    if (b) {
        /* DIR/B.mustache wins over the built-in B and extends it */
        size_t blen;
        const char *btext = mst_builtin(b, &blen);
        assert_non_null(btext);
        t = mst_compile(b, btext, blen, &err);
        assert_non_null(t);
        char *direct;
        assert_int_equal(mst_render(t, NULL, &ld, NULL, &direct, &len, &err),
                         0);
        mst_template_free(t);
        snprintf(path, sizeof path, "%s/%s.mustache", dir, b);
        char *slash = strrchr(path, '/');
        *slash = '\0';
        char cmd[700];
        snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
        assert_int_equal(system(cmd), 0);
        *slash = '/';
        char text[700];
        snprintf(text, sizeof text, "[{{<builtin:%s}}{{/builtin:%s}}]", b, b);
        write_text(path, text);
        snprintf(text, sizeof text, "{{>%s}}", b);
        t = mst_compile("t", text, strlen(text), &err);
        assert_non_null(t);
        assert_int_equal(mst_render(t, NULL, &ld, NULL, &out, &len, &err), 0);
        assert_int_equal(len, strlen(direct) + 2);
        assert_int_equal(out[0], '[');
        assert_memory_equal(out + 1, direct, len - 2);
        assert_int_equal(out[len - 1], ']');
        free(out);
        free(direct);
        /* without built-ins, builtin:B is unknown */
        mst_loader plain = mst_dir_loader(dir, false);
        assert_int_equal(mst_render(t, NULL, &plain, NULL, &out, &len, &err),
                         0);
        assert_string_equal(out, "[]");
        free(out);
        mst_template_free(t);
    }
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    assert_int_equal(system(path), 0);
}

/* An override that exists but cannot be read (here a directory named
 * B.mustache) is an error naming the reason, never a silent fall back to
 * the built-in B; one that does not exist falls back. */
static void test_unreadable_override(void **state) {
    (void)state;
    const char *b = mst_builtin_name(0);
    if (!b)
        return; /* no built-ins to override */
    char dir[] = "/tmp/pw-mst-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[512], cmd[700];
    snprintf(path, sizeof path, "%s/%s.mustache", dir, b);
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
    assert_int_equal(system(cmd), 0);

    mst_loader ld = mst_dir_loader(dir, true);
    char text[300];
    snprintf(text, sizeof text, "{{>%s}}", b);
    mst_error err;
    mst_template *t = mst_compile("t", text, strlen(text), &err);
    assert_non_null(t);
    char *out = NULL;
    size_t len = 0;
    mst_options lax = {0};
    assert_int_equal(mst_render(t, NULL, &ld, &lax, &out, &len, &err), -1);
    assert_null(out);
    char want[1024];
    snprintf(want, sizeof want, "cannot read partial '%s': %s", b,
             strerror(EISDIR));
    assert_string_equal(err.text, want);
    assert_string_equal(err.source, "t");
    assert_int_equal(err.line, 1);
    assert_int_equal(err.col, 1);
    mst_template_free(t);

    char why[1024];
    assert_true(mst_dir_unreadable(dir, b, why, sizeof why));
    snprintf(want, sizeof want, "cannot read %s: %s", path, strerror(EISDIR));
    assert_string_equal(why, want);
    /* missing: no file, or a missing directory on the way */
    assert_false(mst_dir_unreadable(dir, "no-such", why, sizeof why));
    assert_false(mst_dir_unreadable(dir, "no/such", why, sizeof why));
    assert_false(mst_dir_unreadable(NULL, b, why, sizeof why));
    /* builtin:B still loads the built-in */
    snprintf(text, sizeof text, "{{>builtin:%s}}", b);
    t = mst_compile("t", text, strlen(text), &err);
    assert_non_null(t);
    assert_int_equal(mst_render(t, NULL, &ld, &lax, &out, &len, &err), 0);
    free(out);
    mst_template_free(t);

    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    assert_int_equal(system(cmd), 0);
}

/* The generated table is sorted, and every entry is found by name. */
static void test_builtin_table(void **state) {
    (void)state;
    const char *prev = NULL, *name;
    for (size_t i = 0; (name = mst_builtin_name(i)) != NULL; i++) {
        size_t len = 0;
        const char *text = mst_builtin(name, &len);
        assert_non_null(text);
        assert_int_equal(text[len], '\0');
        if (prev)
            assert_true(strcmp(prev, name) < 0);
        prev = name;
    }
    assert_null(mst_builtin("no/such/template", NULL));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_escape),
        cmocka_unit_test(test_numbers),
        cmocka_unit_test(test_lookup_cache),
        cmocka_unit_test(test_strict),
        cmocka_unit_test(test_dynamic_and_builtin_names),
        cmocka_unit_test(test_crlf_indentation),
        cmocka_unit_test(test_error_locations),
        cmocka_unit_test(test_render_many),
        cmocka_unit_test(test_big_template),
        cmocka_unit_test(test_lazy_lists),
        cmocka_unit_test(test_lazy_lookup_cache),
        cmocka_unit_test(test_lazy_reused_element),
        cmocka_unit_test(test_lazy_many_lists),
        cmocka_unit_test(test_deep_sections),
        cmocka_unit_test(test_partial_recursion),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_override_builtin),
        cmocka_unit_test(test_unreadable_override),
        cmocka_unit_test(test_builtin_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

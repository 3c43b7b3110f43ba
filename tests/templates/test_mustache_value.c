/*
 * tests/templates/test_mustache_value.c - the data interface of the
 * mustache engine (templates/mustache.h): native objects and lists, their
 * jansson form, and lazy lists whose elements are served natively
 * (element_val and release), nested in their own body.
 */
#include "templates/mustache.h"
#include "base/base.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KEY(s) (s), (sizeof(s) - 1)

/* Keys keep their first place when set again; the jansson form has the
 * same keys in the same order; lookups see the last value. */
static void test_native_object(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    mst_val o = mst_v_object(a);
    mst_v_set(a, o, KEY("b"), mst_v_int(1));
    mst_v_set(a, o, KEY("a_long_key_name"), mst_v_str(KEY("x")));
    mst_v_set(a, o, KEY("b"), mst_v_int(2));
    mst_val l = mst_v_list(a);
    mst_v_append(a, l, mst_v_bool(true));
    mst_v_append(a, l, mst_v_null());
    mst_v_set(a, o, KEY("l"), l);
    assert_int_equal(mst_v_get(o, KEY("b")).u.i, 2);
    assert_int_equal(mst_v_get(o, KEY("a_long_key_nameX")).type, MST_MISSING);
    assert_int_equal(mst_v_get(o, KEY("a_long_key_name")).type, MST_STRING);
    json_t *j = mst_v_to_json(o);
    char *text = json_dumps(j, JSON_COMPACT);
    assert_string_equal(
        text, "{\"b\":2,\"a_long_key_name\":\"x\",\"l\":[true,null]}");
    free(text);
    json_decref(j);
    base_arena_free(a);
}

/* A lazy list served natively: elem k is {name: "eK", n: K}. */
typedef struct nat_fixture {
    base_arena *arenas[4];
    size_t live, max_live, built, released, fail_at;
    char names[4][8];
    bool rich; /* also flag and nul: true, two keys of one signature, sub */
    bool lax;  /* not strict */
} nat_fixture;

static size_t nat_count(void *ctx) {
    (void)ctx;
    return 3;
}

static mst_val nat_element(void *ctx, size_t i, const mst_names *names) {
    (void)names;
    nat_fixture *f = ctx;
    if (i == f->fail_at || f->live == 4)
        return (mst_val){.type = MST_MISSING};
    base_arena *a = f->arenas[f->live];
    base_arena_reset(a);
    char *nm = f->names[f->live++];
    if (f->live > f->max_live)
        f->max_live = f->live;
    f->built++;
    snprintf(nm, 8, "e%zu", i);
    mst_val o = mst_v_object(a);
    mst_v_set(a, o, KEY("name"), mst_v_str(nm, strlen(nm)));
    mst_v_set(a, o, KEY("n"), mst_v_int((int64_t)i));
    if (f->rich) {
        /* same first 8 bytes and length: told apart by the rest */
        mst_v_set(a, o, KEY("offset_macro"), mst_v_str(KEY("M")));
        mst_v_set(a, o, KEY("offset_maker"), mst_v_str(KEY("K")));
        mst_v_set(a, o, KEY("flag"), mst_v_bool(true));
        mst_v_set(a, o, KEY("nul"), mst_v_bool(true)); /* null at root */
        mst_val sub = mst_v_object(a);
        mst_v_set(a, sub, KEY("x"), mst_v_int((int64_t)i * 10));
        mst_v_set(a, sub, KEY("title"), mst_v_str(KEY("S")));
        mst_v_set(a, o, KEY("sub"), sub);
    }
    return o;
}

static void nat_release(void *ctx) {
    nat_fixture *f = ctx;
    f->live--;
    f->released++;
}

static char *render_nat(const char *tpl, nat_fixture *f, mst_error *err) {
    for (size_t i = 0; i < 4; i++)
        f->arenas[i] = base_arena_new();
    json_t *marker = json_array();
    json_t *d = json_pack("{s:o, s:s, s:b, s:n, s:b}", "items", marker, "title",
                          "T", "off", 0, "nul", "on", 1);
    mst_lazy_list lz = {.marker = marker,
                        .count = nat_count,
                        .ctx = f,
                        .element_val = nat_element,
                        .release = nat_release};
    mst_options o = {.strict = !f->lax, .lazy = &lz, .nlazy = 1};
    mst_template *t = mst_compile("t", tpl, strlen(tpl), err);
    assert_non_null(t);
    char *out = NULL;
    size_t len;
    if (mst_render(t, d, NULL, &o, &out, &len, err) != 0)
        assert_null(out);
    mst_template_free(t);
    json_decref(d);
    for (size_t i = 0; i < 4; i++)
        base_arena_free(f->arenas[i]);
    return out;
}

/* tpl rendered over the rich elements gives want, every element
 * released. */
static void expect_rich(const char *tpl, const char *want) {
    mst_error err;
    nat_fixture f = {.fail_at = SIZE_MAX, .rich = true};
    char *out = render_nat(tpl, &f, &err);
    assert_non_null(out);
    assert_string_equal(out, want);
    assert_int_equal(f.built, f.released);
    free(out);
}

/* Elements in order, lookups falling through to the root, a list inside
 * its own body (two elements live at once, each in its own memory), and
 * every element released once. */
static void test_native_lazy(void **state) {
    (void)state;
    mst_error err;
    nat_fixture f = {.fail_at = SIZE_MAX};
    char *out =
        render_nat("{{#items}}{{name}}{{n}}{{title}};{{/items}}", &f, &err);
    assert_non_null(out);
    assert_string_equal(out, "e00T;e11T;e22T;");
    assert_int_equal(f.built, 3);
    assert_int_equal(f.released, 3);
    free(out);
    nat_fixture g = {.fail_at = SIZE_MAX};
    out = render_nat("{{#items}}{{name}}({{#items}}{{n}}{{/items}}){{name}} "
                     "{{/items}}",
                     &g, &err);
    assert_non_null(out);
    assert_string_equal(out, "e0(012)e0 e1(012)e1 e2(012)e2 ");
    assert_int_equal(g.max_live, 2);
    assert_int_equal(g.built, g.released);
    free(out);
    nat_fixture bad = {.fail_at = 1};
    assert_null(render_nat("{{#items}}{{name}}{{/items}}", &bad, &err));
    char buf[512];
    assert_string_equal(mst_error_format(&err, buf, sizeof buf),
                        "t:1:1: error: cannot build element 1 of 'items'");
    assert_int_equal(bad.built, bad.released);
}

/* The lookups the renderer answers without walking the stack (the
 * native object on top, the one under a scalar pushed by {{#flag}}, the
 * transient frames, then the root through its memo) give what the walk
 * gives: a nested object shadows the element and the root, a name it
 * lacks comes from the element, then from the root; keys of one
 * signature are told apart. */
static void test_native_lookup_paths(void **state) {
    (void)state;
    expect_rich(
        "{{#items}}{{#flag}}{{name}}{{title}}{{/flag}}|{{#sub}}{{x}}{{title}}"
        "{{name}}{{#flag}}{{title}}{{n}}{{/flag}}{{/sub}}|{{title}}"
        "{{offset_maker}}{{offset_macro}}{{#sub}}{{sub.x}}{{/sub}};{{/items}}"
        "{{title}}",
        "e0T|0Se0S0|TKM0;e1T|10Se1S1|TKM10;e2T|20Se2S2|TKM20;T");
}

/* Sections in a row inside a lazy element (rendered as one step, the
 * ones whose name is false, null or missing below the element skipped)
 * render as one at a time would: in order, the truthy ones whichever
 * frame has their name (the element's nul shadows the root's null), a
 * missing name an error when strict (at its tag) and nothing
 * otherwise. */
static void test_native_runs(void **state) {
    (void)state;
    expect_rich(
        "{{#items}}{{#off}}A{{/off}}{{#name}}<{{name}}>{{/name}}{{#nul}}B"
        "{{/nul}}{{#on}}C{{/on}}{{#flag}}D{{#off}}E{{/off}}{{#title}}{{title}}"
        "{{/title}}{{/flag}}{{#off}}F{{/off}}{{#sub}}{{#off}}G{{/off}}{{#x}}x"
        "{{x}}{{/x}}{{/sub}};{{/items}}",
        "<e0>BCDTx0;<e1>BCDTx10;<e2>BCDTx20;");
    mst_error err;
    const char *tpl = "{{#items}}{{#off}}{{/off}}{{#nope}}x{{/nope}}{{#on}}"
                      "{{n}}{{/on}}{{/items}}";
    nat_fixture strict = {.fail_at = SIZE_MAX};
    assert_null(render_nat(tpl, &strict, &err));
    char buf[512];
    assert_string_equal(mst_error_format(&err, buf, sizeof buf),
                        "t:1:27: error: unknown name 'nope'");
    assert_int_equal(strict.built, strict.released);
    nat_fixture lax = {.fail_at = SIZE_MAX, .lax = true};
    char *out = render_nat(tpl, &lax, &err);
    assert_non_null(out);
    assert_string_equal(out, "012");
    free(out);
}

/* Interpolating a native object or list is an error in strict mode. */
static void test_native_strict(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    mst_val root = mst_v_object(a);
    mst_v_set(a, root, KEY("o"), mst_v_object(a));
    mst_v_set(a, root, KEY("l"), mst_v_list(a));
    mst_options o = {.strict = true};
    mst_error err;
    char buf[512];
    const char *tpl[] = {"{{o}}", "{{l}}", "{{x}}"};
    const char *want[] = {
        "t:1:1: error: cannot interpolate 'o': it is an object",
        "t:1:1: error: cannot interpolate 'l': it is an array",
        "t:1:1: error: unknown name 'x'"};
    for (size_t i = 0; i < 3; i++) {
        mst_template *t = mst_compile("t", tpl[i], strlen(tpl[i]), &err);
        char *out = NULL;
        assert_int_equal(mst_render_val(t, root, NULL, &o, &out, NULL, &err),
                         -1);
        assert_string_equal(mst_error_format(&err, buf, sizeof buf), want[i]);
        mst_template_free(t);
    }
    base_arena_free(a);
}

/* Rendering into a stream (mst_options.stream): the same bytes as in
 * memory, past several chunks; the output limit counts what was written;
 * a failed write is an error. */
static void test_stream(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    mst_val root = mst_v_object(a);
    mst_val l = mst_v_list(a);
    for (int i = 0; i < 300000; i++)
        mst_v_append(a, l, mst_v_int(i));
    mst_v_set(a, root, KEY("l"), l);
    const char *tpl = "{{#l}}item {{.}}\n{{/l}}";
    mst_error err;
    mst_template *t = mst_compile("t", tpl, strlen(tpl), &err);
    char *mem = NULL, *out = NULL;
    size_t mlen = 0, slen = 0;
    assert_int_equal(mst_render_val(t, root, NULL, NULL, &mem, &mlen, &err), 0);
    assert_true(mlen > 2 * MST_CHUNK);
    FILE *f = tmpfile();
    assert_non_null(f);
    mst_options o = {.stream = f};
    assert_int_equal(mst_render_val(t, root, NULL, &o, &out, &slen, &err), 0);
    assert_null(out);
    assert_int_equal(slen, mlen);
    rewind(f);
    char *back = malloc(mlen + 1);
    assert_int_equal(fread(back, 1, mlen + 1, f), mlen);
    assert_memory_equal(back, mem, mlen);
    free(back);
    fclose(f);
    char buf[512];
    f = tmpfile();
    assert_non_null(f);
    o = (mst_options){.stream = f, .max_output = MST_CHUNK + 10};
    assert_int_equal(mst_render_val(t, root, NULL, &o, &out, &slen, &err), -1);
    assert_non_null(strstr(mst_error_format(&err, buf, sizeof buf),
                           "output larger than the limit"));
    fclose(f);
    f = fopen("/dev/full", "w");
    if (f) {
        o = (mst_options){.stream = f};
        assert_int_equal(mst_render_val(t, root, NULL, &o, &out, &slen, &err),
                         -1);
        assert_string_equal(mst_error_format(&err, buf, sizeof buf),
                            "t: error: cannot write the output: No space "
                            "left on device");
        assert_true(ferror(f));
        fclose(f);
    }
    free(mem);
    mst_template_free(t);
    base_arena_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_native_object),
        cmocka_unit_test(test_native_lazy),
        cmocka_unit_test(test_native_lookup_paths),
        cmocka_unit_test(test_native_runs),
        cmocka_unit_test(test_native_strict),
        cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

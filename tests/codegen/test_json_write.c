/*
 * tests/codegen/test_json_write.c - the JSON writer of `plan --emit view`
 * (codegen/json_write.c) against jansson's json_dumps(JSON_INDENT(2)):
 * native values and jansson documents built side by side, by hand
 * (odd strings, unicode, extreme numbers, empty and missing values) and
 * at random, with lists built on demand inside a jansson root; strings
 * that are not UTF-8 fail in both.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "codegen/codegen.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A native value and the same value as a jansson document (NULL where
 * the native one has no JSON: MST_MISSING, a real that is not finite). */
typedef struct pair {
    mst_val n;
    json_t *j;
} pair;

/* The writer's text of v (NULL when it fails). */
static char *written(mst_val v) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    bool ok = cg_json_write_val(f, v);
    assert_int_equal(fclose(f), 0);
    if (!ok) {
        free(buf);
        return NULL;
    }
    assert_int_equal(strlen(buf), len); /* no NUL written */
    return buf;
}

/* The writer gives json_dumps's text for p, or fails where it fails. */
static void expect_same(pair p) {
    char *want = p.j ? json_dumps(p.j, JSON_INDENT(2) | JSON_ENCODE_ANY) : NULL;
    char *got = written(p.n);
    if (!want) {
        assert_null(got);
    } else {
        assert_non_null(got);
        assert_string_equal(got, want);
    }
    free(want);
    free(got);
}

static pair p_str(base_arena *a, const char *s, size_t n) {
    char *c = base_arena_alloc(a, n + 1);
    memcpy(c, s, n);
    c[n] = '\0';
    return (pair){mst_v_str(c, n), json_stringn_nocheck(s, n)};
}

static pair p_int(int64_t x) {
    return (pair){mst_v_int(x), json_integer((json_int_t)x)};
}

static pair p_real(double d) {
    mst_val v = {.type = MST_REAL, .u.d = d};
    return (pair){v, json_real(d)}; /* NULL when not finite */
}

static pair p_obj(base_arena *a) {
    return (pair){mst_v_object(a), json_object()};
}

static pair p_list(base_arena *a) {
    return (pair){mst_v_list(a), json_array()};
}

/* Adds x under key k: the document leaves out what has no JSON. */
static void p_set(base_arena *a, pair o, const char *k, size_t kn, pair x) {
    char *kc = base_arena_alloc(a, kn + 1);
    memcpy(kc, k, kn);
    kc[kn] = '\0';
    mst_v_set(a, o.n, kc, kn, x.n);
    if (x.j)
        json_object_setn_new_nocheck(o.j, k, kn, x.j);
}

static void p_append(base_arena *a, pair l, pair x) {
    mst_v_append(a, l.n, x.n);
    if (x.j)
        json_array_append_new(l.j, x.j);
}

#define S(s) p_str(a, "" s, sizeof("" s) - 1)

static void test_scalars(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    static const double reals[] = {
        0.0,     -0.0,     1.0,     -1.5,      0.1,
        1e21,    1e22,     1e-7,    123e300,   5e-324,
        DBL_MAX, -DBL_MIN, 1e15,    1e16,      1e17,
        100.0,   3.25e-5,  2.5e+10, 1.0 / 3.0, 1e100,
        -1e-100, 1e-5,     0.5e-4,  12345.678, 9007199254740993.0};
    for (size_t i = 0; i < sizeof reals / sizeof *reals; i++) {
        pair p = p_real(reals[i]);
        expect_same(p);
        json_decref(p.j);
    }
    static const int64_t ints[] = {0,         1,         -1,        9,
                                   10,        -10,       INT64_MAX, INT64_MIN,
                                   INT32_MAX, INT32_MIN, 1000000007};
    for (size_t i = 0; i < sizeof ints / sizeof *ints; i++) {
        pair p = p_int(ints[i]);
        expect_same(p);
        json_decref(p.j);
    }
    pair lits[] = {
        {mst_v_null(), json_null()},
        {mst_v_bool(true), json_true()},
        {mst_v_bool(false), json_false()},
        S(""),
        S("plain"),
        S("q\"uote\\back/slash"),
        S("\b\f\n\r\t\x01\x1f\x7f"),
        p_str(a, "nul\0inside", 10),
        S("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80 \xf4\x8f\xbf\xbf"),
        S("\xef\xbb\xbf\xe2\x80\xa8\xe2\x80\xa9")};
    for (size_t i = 0; i < sizeof lits / sizeof *lits; i++) {
        expect_same(lits[i]);
        json_decref(lits[i].j);
    }
    base_arena_free(a);
}

/* Bytes that are not UTF-8: json_dumps fails, and so does the writer,
 * in a string and in a key. */
static void test_bad_utf8(void **state) {
    (void)state;
    static const char *const bad[] = {"\x80",
                                      "a\xbf",
                                      "\xc0\x80",
                                      "\xc1\xbf",
                                      "\xe0\x80\x80",
                                      "\xed\xa0\x80",
                                      "\xed\xbf\xbf",
                                      "\xf4\x90\x80\x80",
                                      "\xf5\x80\x80\x80",
                                      "\xe2\x82",
                                      "\xf0\x9f\x98",
                                      "\xc3",
                                      "\xff",
                                      "ok\xc3\x28"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        base_arena *a = base_arena_new();
        pair s = p_str(a, bad[i], strlen(bad[i]));
        expect_same(s);
        /* json_dumps writes a broken text for such a key (jansson 2.14
         * ignores the failure): the writer fails */
        pair o = p_obj(a);
        p_set(a, o, bad[i], strlen(bad[i]), p_int(1));
        assert_null(written(o.n));
        pair l = p_list(a);
        p_append(a, l, s);
        assert_null(written(l.n));
        json_decref(l.j);
        json_decref(o.j);
        base_arena_free(a);
    }
}

/* Empty containers, values with no JSON, JSON inside native data, a key
 * set twice (it keeps its place). */
static void test_shapes(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    pair o = p_obj(a);
    p_set(a, o, "empty_obj", 9, p_obj(a));
    p_set(a, o, "empty_list", 10, p_list(a));
    p_set(a, o, "missing", 7, (pair){{.type = MST_MISSING}, NULL});
    p_set(a, o, "nan", 3, p_real(NAN));
    p_set(a, o, "inf", 3, p_real(-INFINITY));
    pair l = p_list(a);
    p_append(a, l, (pair){{.type = MST_MISSING}, NULL});
    p_append(a, l, p_int(1));
    p_append(a, l, p_real(INFINITY));
    p_append(a, l, p_list(a));
    pair gone = p_list(a); /* only values with no JSON: "[]" */
    p_append(a, gone, (pair){{.type = MST_MISSING}, NULL});
    p_append(a, l, gone);
    p_set(a, o, "list", 4, l);
    json_t *doc =
        json_pack("{s:[i,{s:s,s:{}},[]],s:f}", "a", 1, "b", "c", "d", "e", 2.5);
    p_set(a, o, "json", 4, (pair){mst_v_json(doc), json_incref(doc)});
    json_t *str = json_string("shared");
    p_set(a, o, "json_str", 8, (pair){mst_v_json(str), json_incref(str)});
    p_set(a, o, "twice", 5, p_int(1));
    p_set(a, o, "after", 5, S("x"));
    p_set(a, o, "twice", 5, S("second"));
    p_set(a, o, "\"odd\tkey\\", 10, S("v"));
    expect_same(o);
    pair only_missing = p_obj(a);
    p_set(a, only_missing, "m", 1, (pair){{.type = MST_MISSING}, NULL});
    expect_same(only_missing);
    json_decref(only_missing.j);
    /* a value with no JSON at the top: the writer fails */
    assert_null(written((mst_val){.type = MST_MISSING}));
    json_decref(o.j);
    json_decref(doc);
    json_decref(str);
    base_arena_free(a);
}

/* A small deterministic generator (xorshift64*). */
static uint64_t rng = 0x9E3779B97F4A7C15ull;

static uint64_t rnd(void) {
    rng ^= rng >> 12;
    rng ^= rng << 25;
    rng ^= rng >> 27;
    return rng * 0x2545F4914F6CDD1Dull;
}

/* A random valid UTF-8 string: ASCII (controls and escapes often),
 * and 2-, 3- and 4-byte characters. */
static pair rnd_str(base_arena *a) {
    char buf[64];
    size_t n = 0, want = rnd() % 12;
    static const char special[] = "\"\\/\b\f\n\r\t\x01\x1f\x7f";
    for (size_t i = 0; i < want; i++) {
        uint64_t r = rnd() % 10;
        if (r < 4) {
            buf[n++] = (char)('a' + rnd() % 26);
        } else if (r < 6) {
            buf[n++] = special[rnd() % (sizeof special - 1)];
        } else if (r == 6) {
            buf[n++] = (char)(rnd() % 0x20); /* any control, NUL too */
        } else {
            uint32_t cp;
            do
                cp = r == 7   ? 0x80 + (uint32_t)(rnd() % 0x780)
                     : r == 8 ? 0x800 + (uint32_t)(rnd() % 0xF800)
                              : 0x10000 + (uint32_t)(rnd() % 0x100000);
            while (cp >= 0xD800 && cp <= 0xDFFF);
            if (cp < 0x800) {
                buf[n++] = (char)(0xC0 | cp >> 6);
            } else if (cp < 0x10000) {
                buf[n++] = (char)(0xE0 | cp >> 12);
                buf[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
            } else {
                buf[n++] = (char)(0xF0 | cp >> 18);
                buf[n++] = (char)(0x80 | (cp >> 12 & 0x3F));
                buf[n++] = (char)(0x80 | (cp >> 6 & 0x3F));
            }
            if (cp >= 0x80)
                buf[n++] = (char)(0x80 | (cp & 0x3F));
        }
    }
    return p_str(a, buf, n);
}

static pair rnd_val(base_arena *a, int depth);

static pair rnd_real(void) {
    double d;
    switch (rnd() % 4) {
    case 0: /* any bit pattern, NaN and infinities included */
    {
        uint64_t bits = rnd();
        memcpy(&d, &bits, sizeof d);
        break;
    }
    case 1:
        d = (double)(int64_t)rnd() / (double)(rnd() % 1000 + 1);
        break;
    case 2:
        d = (double)(rnd() % 100000);
        break;
    default:
        d = ldexp((double)(rnd() % 1000), (int)(rnd() % 200) - 100);
    }
    return p_real(d);
}

static pair rnd_container(base_arena *a, int depth, bool object) {
    pair c = object ? p_obj(a) : p_list(a);
    for (size_t i = 0, n = rnd() % 6; i < n; i++) {
        pair x = rnd_val(a, depth + 1);
        if (!object) {
            p_append(a, c, x);
            continue;
        }
        /* unique keys: a key set twice over a value with no JSON has
         * its first place natively, its last in the document */
        pair k = rnd_str(a);
        char key[80];
        int kl = snprintf(key, sizeof key, "%zu", i);
        memcpy(key + kl, k.n.u.s, k.n.n);
        p_set(a, c, key, (size_t)kl + k.n.n, x);
        json_decref(k.j);
    }
    return c;
}

static pair rnd_val(base_arena *a, int depth) {
    uint64_t r = rnd() % (depth < 4 ? 12 : 8);
    switch (r) {
    case 0:
        return (pair){mst_v_null(), json_null()};
    case 1:
        return (pair){mst_v_bool(true), json_true()};
    case 2:
        return (pair){mst_v_bool(false), json_false()};
    case 3:
        return p_int((int64_t)rnd() >> (rnd() % 64));
    case 4:
        return rnd_real();
    case 5:
    case 6:
        return rnd_str(a);
    case 7:
        return (pair){{.type = MST_MISSING}, NULL};
    case 8: {
        /* a jansson subtree inside native data */
        pair x = rnd_container(a, depth, rnd() % 2);
        json_t *j = x.j;
        return (pair){mst_v_json(j), j};
    }
    case 9:
        return rnd_container(a, depth, false);
    default:
        return rnd_container(a, depth, true);
    }
}

static void test_random(void **state) {
    (void)state;
    for (int i = 0; i < 2000; i++) {
        base_arena *a = base_arena_new();
        pair p = rnd_container(a, 0, i % 2 == 0);
        expect_same(p);
        json_decref(p.j);
        base_arena_free(a);
    }
}

/* Lists built on demand inside a jansson root: native elements (with a
 * release after each) and jansson ones, at the top and nested, empty. */
typedef struct lazy_src {
    base_arena *a;
    json_t *docs[3][5]; /* the elements as documents, per list */
    mst_val vals[3][5];
    size_t n[3];
    int live, releases;
} lazy_src;

typedef struct lazy_ctx {
    lazy_src *src;
    int list;
} lazy_ctx;

static size_t lz_count(void *ctx) {
    lazy_ctx *c = ctx;
    return c->src->n[c->list];
}

static json_t *lz_element(void *ctx, size_t i) {
    lazy_ctx *c = ctx;
    return json_incref(c->src->docs[c->list][i]);
}

static mst_val lz_val(void *ctx, size_t i, const mst_names *names) {
    lazy_ctx *c = ctx;
    assert_null(names);
    assert_int_equal(c->src->live, 0); /* one element at a time */
    c->src->live++;
    return c->src->vals[c->list][i];
}

static void lz_release(void *ctx) {
    lazy_ctx *c = ctx;
    c->src->live--;
    c->src->releases++;
}

static void test_lazy(void **state) {
    (void)state;
    lazy_src src = {.a = base_arena_new(), .n = {5, 0, 3}};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < src.n[l]; i++) {
            pair p = rnd_container(src.a, 1, true);
            src.vals[l][i] = p.n;
            src.docs[l][i] = p.j;
        }
    lazy_ctx ctx[3] = {{&src, 0}, {&src, 1}, {&src, 2}};
    json_t *marker[3] = {json_array(), json_array(), json_array()};
    mst_lazy_list lazy[3];
    for (int l = 0; l < 3; l++)
        lazy[l] = (mst_lazy_list){.marker = marker[l],
                                  .count = lz_count,
                                  .element = lz_element,
                                  .ctx = &ctx[l],
                                  .element_val = l == 2 ? NULL : lz_val,
                                  .release = lz_release};
    json_t *root =
        json_pack("{s:s,s:O,s:[{s:O},O],s:i}", "name", "m", "native", marker[0],
                  "pools", "rows", marker[1], marker[2], "n", 7);
    /* the whole document, every list built in */
    json_t *whole = json_pack("{s:s,s:[],s:[{s:[]},[]],s:i}", "name", "m",
                              "native", "pools", "rows", "n", 7);
    json_t *lists[3] = {
        json_object_get(whole, "native"),
        json_object_get(json_array_get(json_object_get(whole, "pools"), 0),
                        "rows"),
        json_array_get(json_object_get(whole, "pools"), 1)};
    for (int l = 0; l < 3; l++)
        for (size_t i = 0; i < src.n[l]; i++)
            json_array_append(lists[l], src.docs[l][i]);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    assert_non_null(f);
    assert_true(cg_json_write(f, root, lazy, 3));
    fclose(f);
    char *want = json_dumps(whole, JSON_INDENT(2));
    assert_string_equal(buf, want);
    assert_int_equal(src.releases, 5); /* each native element released */
    free(want);
    free(buf);
    json_decref(root);
    json_decref(whole);
    for (int l = 0; l < 3; l++) {
        json_decref(marker[l]);
        for (size_t i = 0; i < src.n[l]; i++)
            json_decref(src.docs[l][i]);
    }
    base_arena_free(src.a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scalars), cmocka_unit_test(test_bad_utf8),
        cmocka_unit_test(test_shapes),  cmocka_unit_test(test_random),
        cmocka_unit_test(test_lazy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

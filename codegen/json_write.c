/*
 * codegen/json_write.c - JSON text of a root object whose large lists are
 * built element by element (mst_lazy_list), written as it goes: the text
 * is byte for byte what json_dumps(JSON_INDENT(2)) gives for the document
 * with every list built in, but no more than one element exists at a
 * time (`plan --emit view` and `plan --emit plan-json`).
 *
 * The writer prints both kinds of data itself: jansson values (the root,
 * the small sections, the kernels) and native ones (mst_val: the
 * statements, buffers, inputs, consts, outputs and pool tables), the
 * latter without any jansson document.  What json_dumps does, it does:
 * keys in insertion order, ", " and ": " separators with a two-space
 * indent, "{}" and "[]" for empty containers, strings escaped as jansson
 * escapes them (\" \\ \b \f \n \r \t, other control characters as
 * \u00XX, everything else verbatim) and rejected when they are not valid
 * UTF-8 (a key too, where jansson 2.14 writes a broken text), reals as "%.17g"
 * with ".0" added to an integral value and the exponent without '+' or leading
 * zeros.  Native values that mst_v_to_json cannot express (MST_MISSING, a
 * non-finite real) are left out of their object or list, as they are from its
 * document.
 */
#include "codegen/codegen.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Bytes gathered before each fwrite. */
#define JW_CHUNK 65536

typedef struct jw {
    FILE *f;
    const mst_lazy_index *ix;
    size_t len;
    bool ok; /* false after a failed write, an element that could not be
                built or a string that is not UTF-8 */
    char buf[JW_CHUNK];
} jw;

static void jw_flush(jw *w) {
    if (w->len && fwrite(w->buf, 1, w->len, w->f) != w->len)
        w->ok = false;
    w->len = 0;
}

static void jw_put(jw *w, const char *s, size_t n) {
    while (n > JW_CHUNK - w->len) {
        size_t k = JW_CHUNK - w->len;
        memcpy(w->buf + w->len, s, k);
        w->len += k;
        s += k;
        n -= k;
        jw_flush(w);
    }
    memcpy(w->buf + w->len, s, n);
    w->len += n;
}

static inline void jw_c(jw *w, char c) {
    if (w->len == JW_CHUNK)
        jw_flush(w);
    w->buf[w->len++] = c;
}

#define jw_lit(w, s) jw_put((w), "" s, sizeof("" s) - 1)

/* A newline and `indent` spaces. */
static void jw_nl(jw *w, int indent) {
    static const char sp[] = "\n                                ";
    size_t n = (size_t)indent + 1;
    if (n <= sizeof sp - 1) {
        jw_put(w, sp, n);
        return;
    }
    jw_c(w, '\n');
    for (int i = 0; i < indent; i++)
        jw_c(w, ' ');
}

/* The length of the UTF-8 sequence at s[0, n) as jansson's
 * utf8_iterate accepts it (no overlong form, no surrogate, at most
 * U+10FFFF), 0 when it is not one. */
static size_t jw_utf8(const unsigned char *s, size_t n) {
    unsigned char u = s[0];
    size_t len;
    uint32_t cp;
    if (u >= 0xC2 && u <= 0xDF)
        len = 2, cp = u & 0x1Fu;
    else if (u >= 0xE0 && u <= 0xEF)
        len = 3, cp = u & 0x0Fu;
    else if (u >= 0xF0 && u <= 0xF4)
        len = 4, cp = u & 0x07u;
    else
        return 0;
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if (s[i] < 0x80 || s[i] > 0xBF)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3Fu);
    }
    static const uint32_t min[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

/* The string s[0, n), quoted and escaped as jansson's dump_string. */
static void jw_str(jw *w, const char *s, size_t n) {
    const unsigned char *p = (const unsigned char *)s;
    jw_c(w, '"');
    size_t run = 0; /* start of the bytes not yet written */
    for (size_t i = 0; i < n;) {
        unsigned char c = p[i];
        if (c >= 0x20 && c != '"' && c != '\\' && c < 0x80) {
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t k = jw_utf8(p + i, n - i);
            if (!k) {
                w->ok = false;
                return;
            }
            i += k;
            continue;
        }
        jw_put(w, s + run, i - run);
        /* the short escapes of json_dumps, else \u00XX */
        static const char from[] = "\"\\\b\f\n\r\t", to[] = "\"\\bfnrt";
        const char *q = c ? strchr(from, c) : NULL;
        char esc[8] = {'\\', q ? to[q - from] : 0};
        size_t el = 2;
        if (!q) {
            snprintf(esc, sizeof esc, "\\u%04X", (unsigned)c);
            el = 6;
        }
        jw_put(w, esc, el);
        run = ++i;
    }
    jw_put(w, s + run, n - run);
    jw_c(w, '"');
}

static void jw_int(jw *w, int64_t x) {
    char d[24];
    size_t k = sizeof d;
    uint64_t u = x < 0 ? 0 - (uint64_t)x : (uint64_t)x;
    do {
        d[--k] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (x < 0)
        d[--k] = '-';
    jw_put(w, d + k, sizeof d - k);
}

/* A finite real as jansson's jsonp_dtostr with precision 17 ("C"
 * locale: the CLI never sets another). */
static void jw_real(jw *w, double x) {
    char b[40];
    int r = snprintf(b, sizeof b - 3, "%.17g", x);
    size_t n = r > 0 ? (size_t)r : 0;
    if (!strchr(b, '.') && !strchr(b, 'e')) {
        memcpy(b + n, ".0", 3);
        n += 2;
    }
    char *e = strchr(b, 'e');
    if (e) {
        char *start = e + 1, *end = e + 2;
        if (*start == '-')
            start++;
        while (*end == '0')
            end++;
        if (end != start) {
            memmove(start, end, n - (size_t)(end - b) + 1);
            n -= (size_t)(end - start);
        }
    }
    jw_put(w, b, n);
}

static void jw_json(jw *w, const json_t *j, int indent);
static void jw_val(jw *w, mst_val v, int indent);

/* Whether native value v has a place in its document (mst_v_to_json
 * gives it a value). */
static bool jw_present(mst_val v) {
    if (v.type == MST_MISSING)
        return false;
    return v.type != MST_REAL || isfinite(v.u.d);
}

/* Before a member of a container at depth `indent`: its opening
 * bracket or a comma, then the member's line. */
static void jw_member(jw *w, bool *first, char open, int indent) {
    jw_c(w, *first ? open : ',');
    *first = false;
    jw_nl(w, indent + 2);
}

/* After the last member ("{}" or "[]" when there was none). */
static void jw_close(jw *w, bool first, const char *brackets, int indent) {
    if (first)
        jw_c(w, brackets[0]);
    else
        jw_nl(w, indent);
    jw_c(w, brackets[1]);
}

static void jw_native_object(jw *w, const mst_obj *o, int indent) {
    bool first = true;
    for (const mst_field *f = o->head; f; f = f->next) {
        if (!jw_present(f->v))
            continue;
        jw_member(w, &first, '{', indent);
        jw_str(w, f->k, f->kl);
        jw_lit(w, ": ");
        jw_val(w, f->v, indent + 2);
    }
    jw_close(w, first, "{}", indent);
}

static void jw_native_list(jw *w, mst_val l, int indent) {
    bool first = true;
    const void *it = NULL;
    mst_val x;
    while (mst_v_next(l, &it, &x)) {
        if (!jw_present(x))
            continue;
        jw_member(w, &first, '[', indent);
        jw_val(w, x, indent + 2);
    }
    jw_close(w, first, "[]", indent);
}

/* Native value v at depth `indent` (its first line already indented). */
static void jw_val(jw *w, mst_val v, int indent) {
    switch (v.type) {
    case MST_NULL:
        jw_lit(w, "null");
        return;
    case MST_FALSE:
        jw_lit(w, "false");
        return;
    case MST_TRUE:
        jw_lit(w, "true");
        return;
    case MST_INT:
        jw_int(w, v.u.i);
        return;
    case MST_REAL:
        jw_real(w, v.u.d);
        return;
    case MST_STRING:
        jw_str(w, v.u.s, v.n);
        return;
    case MST_LIST:
        jw_native_list(w, v, indent);
        return;
    case MST_OBJECT:
        jw_native_object(w, v.u.obj, indent);
        return;
    case MST_JSON:
        jw_json(w, v.u.json, indent);
        return;
    default:
        w->ok = false; /* a value jw_present leaves out */
    }
}

/* Element i of lazy list lz, built, written and released. */
static void jw_element(jw *w, const mst_lazy_list *lz, size_t i, int indent) {
    if (lz->element_val) {
        mst_val e = lz->element_val(lz->ctx, i, NULL);
        if (e.type == MST_MISSING) {
            w->ok = false;
            return;
        }
        if (jw_present(e))
            jw_val(w, e, indent);
        else
            w->ok = false;
        if (lz->release)
            lz->release(lz->ctx);
        return;
    }
    json_t *e = lz->element(lz->ctx, i);
    if (!e) {
        w->ok = false;
        return;
    }
    jw_json(w, e, indent);
    json_decref(e);
}

/* A lazy list as a value at depth `indent`. */
static void jw_lazy(jw *w, const mst_lazy_list *lz, int indent) {
    bool first = true;
    for (size_t i = 0, n = lz->count(lz->ctx); i < n && w->ok; i++) {
        jw_member(w, &first, '[', indent);
        jw_element(w, lz, i, indent + 2);
    }
    jw_close(w, first, "[]", indent);
}

static void jw_json_object(jw *w, const json_t *j, int indent) {
    bool first = true;
    /* insertion order: json_dumps iterates the same way */
    for (void *it = json_object_iter((json_t *)j); it && w->ok;
         it = json_object_iter_next((json_t *)j, it)) {
        jw_member(w, &first, '{', indent);
        jw_str(w, json_object_iter_key(it), json_object_iter_key_len(it));
        jw_lit(w, ": ");
        jw_json(w, json_object_iter_value(it), indent + 2);
    }
    jw_close(w, first, "{}", indent);
}

static void jw_json_array(jw *w, const json_t *j, int indent) {
    bool first = true;
    for (size_t i = 0, n = json_array_size(j); i < n && w->ok; i++) {
        jw_member(w, &first, '[', indent);
        jw_json(w, json_array_get(j, i), indent + 2);
    }
    jw_close(w, first, "[]", indent);
}

/* Jansson value j at depth `indent`: a lazy list's marker stands for
 * the whole list. */
static void jw_json(jw *w, const json_t *j, int indent) {
    const mst_lazy_list *lz = w->ix ? mst_lazy_index_find(w->ix, j) : NULL;
    if (lz) {
        jw_lazy(w, lz, indent);
        return;
    }
    switch (json_typeof(j)) {
    case JSON_OBJECT:
        jw_json_object(w, j, indent);
        return;
    case JSON_ARRAY:
        jw_json_array(w, j, indent);
        return;
    case JSON_STRING:
        jw_str(w, json_string_value(j), json_string_length(j));
        return;
    case JSON_INTEGER:
        jw_int(w, (int64_t)json_integer_value(j));
        return;
    case JSON_REAL:
        jw_real(w, json_real_value(j));
        return;
    case JSON_TRUE:
        jw_lit(w, "true");
        return;
    case JSON_FALSE:
        jw_lit(w, "false");
        return;
    default:
        jw_lit(w, "null");
        return;
    }
}

/* A writer of f (its buffer is too large for the stack). */
static jw *jw_new(FILE *f, const mst_lazy_index *ix) {
    jw *w = base_xmalloc(sizeof *w);
    w->f = f;
    w->ix = ix;
    w->len = 0;
    w->ok = true;
    return w;
}

/* Flushes and frees w: whether everything was written. */
static bool jw_done(jw *w) {
    jw_flush(w);
    bool ok = w->ok && !ferror(w->f);
    free(w);
    return ok;
}

bool cg_json_write(FILE *f, const json_t *root, const mst_lazy_list *lazy,
                   size_t nlazy) {
    mst_lazy_index *ix = mst_lazy_index_new(lazy, nlazy);
    jw *w = jw_new(f, ix);
    jw_json(w, root, 0);
    bool ok = jw_done(w);
    mst_lazy_index_free(ix);
    return ok;
}

bool cg_json_write_val(FILE *f, mst_val v) {
    jw *w = jw_new(f, NULL);
    if (jw_present(v))
        jw_val(w, v, 0);
    else
        w->ok = false;
    return jw_done(w);
}

bool cg_view_write(const cg_view *v, FILE *f) {
    const mst_lazy_list *lazy;
    size_t n;
    cg_view_lists(v, &lazy, &n);
    return cg_json_write(f, cg_view_root(v), lazy, n);
}

/*
 * codegen/view_fmt.c - formatting for the view: C types, a string
 * builder with an inline buffer, vfmt (printf into the view's arena) and C
 * string literals.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small helpers. */

const char *cg_ctype_of(ir_dtype t) {
    switch (t) {
    case IR_F64:
        return "double";
    case IR_F32:
        return "float";
    case IR_F16:
    case IR_BF16:
        return "uint16_t";
    case IR_I64:
        return "int64_t";
    case IR_I32:
        return "int32_t";
    case IR_I16:
        return "int16_t";
    case IR_I8:
        return "int8_t";
    case IR_U8:
        return "uint8_t";
    case IR_BOOL:
        return "bool";
    default:
        return "unsigned char";
    }
}

void cg_sb_init(sbuf *b) {
    b->p = b->inl;
    b->len = 0;
    b->cap = sizeof b->inl;
    b->p[0] = '\0';
}

void cg_sb_grow(sbuf *b, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap * 2;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *nb = b->p == b->inl ? malloc(nc) : realloc(b->p, nc);
        if (!nb)
            base_oom();
        if (b->p == b->inl)
            memcpy(nb, b->inl, b->len + 1);
        b->p = nb;
        b->cap = nc;
    }
}

void cg_sb_free(sbuf *b) {
    if (b->p != b->inl)
        free(b->p);
    cg_sb_init(b);
}

const char *cg_sb_done(const vw *v, sbuf *b) {
    const char *r = base_arena_strndup(v->str, b->p, b->len);
    if (b->p != b->inl)
        free(b->p);
    cg_sb_init(b);
    return r;
}

/* Appends n spaces. */
static void sb_spaces(sbuf *b, size_t n) {
    static const char sp[] = "                                ";
    while (n) {
        size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
        cg_sb_put(b, sp, k);
        n -= k;
    }
}

/* Appends the decimal digits of x, written in place (base_u64_at). */
void cg_sb_u64(sbuf *b, uint64_t x) {
    if (BASE_U64_MAX_DIGITS >= b->cap - b->len)
        cg_sb_grow(b, BASE_U64_MAX_DIGITS);
    char *e = base_u64_at(b->p + b->len, x);
    *e = '\0';
    b->len = (size_t)(e - b->p);
}

/* Appends x in decimal, a '-' first when negative (base_i64_at). */
static void cg_sb_i64(sbuf *b, int64_t x) {
    if (BASE_U64_MAX_DIGITS + 1 >= b->cap - b->len)
        cg_sb_grow(b, BASE_U64_MAX_DIGITS + 1);
    char *e = base_i64_at(b->p + b->len, x);
    *e = '\0';
    b->len = (size_t)(e - b->p);
}

/* printf into the arena without the cost of stdio (the view formats
 * tens of thousands of short strings): %s, %%, and %d / %u with the
 * length modifiers l, ll and z are appended by the string builder;
 * anything else (flags, widths, other conversions) falls back to
 * vsnprintf for the whole string. */
const char *cg_vfmt(const vw *v, const char *f, ...) {
    sbuf b;
    cg_sb_init(&b);
    va_list ap;
    va_start(ap, f);
    for (const char *p = f; *p;) {
        /* the text up to the next '%' (formats are short: no strchr) */
        const char *pct = p;
        while (*pct && *pct != '%')
            pct++;
        cg_sb_put(&b, p, (size_t)(pct - p));
        if (!*pct)
            break;
        p = pct + 1;
        int lmod = 0; /* 0 int, 1 long, 2 long long, 3 size_t */
        for (; *p == 'l' && lmod < 2; p++)
            lmod++;
        if (*p == 'z' && lmod == 0) {
            lmod = 3;
            p++;
        }
        char conv = *p ? *p++ : '\0';
        if (conv == 's' && lmod == 0) {
            cg_sb_puts(&b, va_arg(ap, const char *));
        } else if (conv == '%' && lmod == 0) {
            cg_sb_put(&b, "%", 1);
        } else if (conv == 'u') {
            cg_sb_u64(&b, lmod == 0   ? va_arg(ap, unsigned)
                          : lmod == 1 ? va_arg(ap, unsigned long)
                          : lmod == 2 ? va_arg(ap, unsigned long long)
                                      : va_arg(ap, size_t));
        } else if (conv == 'd') {
            int64_t x = lmod == 0   ? va_arg(ap, int)
                        : lmod == 1 ? va_arg(ap, long)
                        : lmod == 2 ? va_arg(ap, long long)
                                    : (int64_t)va_arg(ap, size_t);
            cg_sb_i64(&b, x);
        } else {
            /* not handled here: let stdio format the whole string */
            va_end(ap);
            if (b.p != b.inl)
                free(b.p);
            va_start(ap, f);
            base_sb out = {0};
            base_sb_vprintf(&out, f, ap);
            va_end(ap);
            const char *r =
                base_arena_strndup(v->str, base_sb_str(&out), out.len);
            base_sb_free(&out);
            return r;
        }
    }
    va_end(ap);
    return cg_sb_done(v, &b);
}

/* Appends s left-aligned in a field of `width` bytes (right-aligned when
 * `right`). */
void cg_sb_pad(sbuf *b, const char *s, size_t width, bool right) {
    size_t n = strlen(s), pad = width > n ? width - n : 0;
    if (right)
        sb_spaces(b, pad);
    cg_sb_put(b, s, n);
    if (!right)
        sb_spaces(b, pad);
}

/* Appends `s` to a C string literal body (or a comment when `comment`):
 * escapes quotes, backslashes, '?' (trigraphs), control and non-ASCII
 * bytes; in comments also breaks up the pair that would close it. */
/* The C escape of the byte at p (a string literal, or text inside a
 * comment when `comment`: no comment opener or closer), written to tmp;
 * its length in *n. */
static const char *cg_escape_at(const unsigned char *p, bool comment,
                                char tmp[8], size_t *n) {
    unsigned char ch = *p;
    *n = 2;
    if (ch == '\\')
        return "\\\\";
    if (ch == '"')
        return "\\\"";
    if (ch == '\n')
        return "\\n";
    if (ch == '\t')
        return "\\t";
    if (ch == '?')
        return "\\?";
    if (ch == '*' && comment && p[1] == '/')
        return "*\\";
    if (ch == '/' && comment && p[1] == '*')
        return "/\\"; /* no comment opener inside a comment */
    if (ch < 0x20 || ch >= 0x7f) {
        snprintf(tmp, 8, "\\%03o", (unsigned)ch);
        *n = 4;
        return tmp;
    }
    *n = 1;
    return (const char *)p;
}

/* Whether ch is copied as it is whatever its neighbours (cg_escape_at
 * may change every other byte, '*' and '/' depending on the next one). */
static inline bool plain_byte(unsigned char ch) {
    return ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"' && ch != '?' &&
           ch != '*' && ch != '/';
}

/* The run of plain bytes at p: names and most texts are one run, copied
 * at once. */
static inline size_t plain_run(const unsigned char *p) {
    const unsigned char *q = p;
    while (plain_byte(*q))
        q++;
    return (size_t)(q - p);
}

/* The next piece of the escaped form of the text at *p (not at its NUL):
 * a run of plain bytes as they are, or one byte's escape (in tmp);
 * advances *p past it. */
static inline const char *escape_piece(const unsigned char **p, bool comment,
                                       char tmp[8], size_t *n) {
    size_t run = plain_run(*p);
    if (!run)
        return cg_escape_at((*p)++, comment, tmp, n);
    const char *s = (const char *)*p;
    *p += run;
    *n = run;
    return s;
}

void cg_sb_escape(sbuf *b, const char *s, bool comment) {
    char tmp[8];
    size_t n;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const char *e = escape_piece(&p, comment, tmp, &n);
        cg_sb_put(b, e, n);
    }
}

void cg_comment_escape(base_sb *out, const char *s) {
    char tmp[8];
    size_t n;
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const char *e = escape_piece(&p, true, tmp, &n);
        base_sb_put(out, e, n);
    }
}

const char *cg_c_string(vw *v, const char *s, bool comment) {
    sbuf b;
    cg_sb_init(&b);
    cg_sb_put(&b, "\"", 1);
    cg_sb_escape(&b, s, comment);
    cg_sb_put(&b, "\"", 1);
    return cg_sb_done(v, &b);
}

void cg_keep_epoch_next(vw *v) {
    static uint64_t last; /* 0 is no epoch: a site's before its first use */
    v->keep_epoch = ++last;
}

/* keep_key past its fast path: the answer for a new section or key,
 * from the memo table (view_internal.h). */
bool cg_keep_key_slow(vw *v, const char *k, size_t n) {
    if (v->dm_epoch != v->keep_epoch) {
        memset(v->keep_dm, 0, sizeof v->keep_dm);
        v->dm_epoch = v->keep_epoch;
    }
    unsigned h = ptr_hash(k);
    unsigned set = h & (CG_KEEP_DM - 1);
    for (int w = 0; w < 2; w++)
        if (v->keep_dm[set][w].k == k)
            return v->keep_dm[set][w].keep;
    keep_memo *m = NULL;
    HASH_FIND_BYHASHVALUE(hh, v->keep_memo, &k, sizeof k, h, m);
    if (!m) {
        m = base_arena_alloc(v->a, sizeof *m);
        m->k = k;
        m->keep = keyset_has(v->keep, k, n);
        m->internal = cg_key_internal(k, n);
        HASH_ADD_BYHASHVALUE(hh, v->keep_memo, k, sizeof m->k, h, m);
    }
    bool keep = m->keep &&
                (m->internal || !v->section || mst_names_has(v->section, k, n));
    /* the newest answer first, the one it displaces second */
    v->keep_dm[set][1] = v->keep_dm[set][0];
    v->keep_dm[set][0].k = k;
    v->keep_dm[set][0].keep = keep;
    return keep;
}

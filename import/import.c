/*
 * import/import.c - the importer's driver (read -> infer -> memory ->
 * emit), its arena, its error exit, text buffers and C identifiers.
 *
 * Errors leave through imp_fail (longjmp back to imp_import): everything
 * allocated lives in the context's arena or in buffers the context owns,
 * so the one cleanup path frees it all.
 */
#include "imp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct imp_blk {
    imp_blk *next;
    max_align_t data[];
};

static _Noreturn void imp_oom(void) {
    fputs("planwrap: fatal: out of memory\n", stderr);
    abort();
}

void *imp_alloc(imp_ctx *c, size_t n) {
    imp_blk *b = calloc(1, sizeof *b + n);
    if (!b)
        imp_oom();
    b->next = c->blocks;
    c->blocks = b;
    return b->data;
}

char *imp_strdup(imp_ctx *c, const char *s) {
    size_t n = strlen(s);
    char *d = imp_alloc(c, n + 1);
    memcpy(d, s, n);
    return d;
}

static char *imp_vasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));
static char *imp_vasprintf(const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    char *s = malloc((size_t)n + 1);
    if (!s)
        imp_oom();
    vsnprintf(s, (size_t)n + 1, fmt, ap);
    return s;
}

static char *imp_asprintf(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static char *imp_asprintf(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = imp_vasprintf(fmt, ap);
    va_end(ap);
    return s;
}

void imp_printf(imp_buf *b, const char *fmt, ...) {
    va_list ap, ap2;
    va_start(ap, fmt);
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (b->len + (size_t)n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + (size_t)n + 1)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s)
            imp_oom();
        b->s = s;
        b->cap = cap;
    }
    vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    va_end(ap);
}

const char *imp_fmt(imp_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *s = imp_vasprintf(fmt, ap);
    va_end(ap);
    const char *r = imp_strdup(c, s);
    free(s);
    return r;
}

void imp_buf_free(imp_buf *b) {
    free(b->s);
    b->s = NULL;
    b->len = b->cap = 0;
}

/* ONNX names may hold any bytes: messages and comments show printable
 * ASCII and '?' for the rest. */
const char *imp_printable(imp_ctx *c, const char *s) {
    char *d = imp_strdup(c, s);
    for (char *p = d; *p; p++)
        if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
            *p = '?';
    return d;
}

void imp_bug(const char *file, int line, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "planwrap: internal error at %s:%d: ", file, line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

void imp_fail(imp_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = imp_vasprintf(fmt, ap);
    va_end(ap);
    imp_buf b = {0};
    imp_printf(&b, "%s: error: ", c->file);
    if (c->cur >= 0) {
        const imp_node *n = &c->nodes[c->cur];
        imp_printf(&b, "node '%s' (%s): ", imp_printable(c, n->name),
                   imp_printable(c, n->op));
    }
    for (char *p = msg; *p; p++) /* one line, whatever the names hold */
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            *p = '?';
    imp_printf(&b, "%s", msg);
    free(msg);
    c->err = b.s;
    longjmp(c->fail, 1);
}

void imp_options_init(imp_options *o) {
    memset(o, 0, sizeof *o);
    o->inplace = true;
    o->concat = true;
}

bool imp_parse_binding(char *arg, imp_binding *b, char **err) {
    memset(b, 0, sizeof *b);
    char *eq = strrchr(arg, '=');
    if (!eq || eq == arg) {
        *err = imp_asprintf("--input '%s' is not NAME=D0,D1,...", arg);
        return false;
    }
    *eq = '\0';
    b->name = arg;
    char *p = eq + 1;
    while (*p) {
        char *end;
        if (*p < '0' || *p > '9' || b->rank == IMP_MAX_RANK)
            goto bad;
        long long d = strtoll(p, &end, 10);
        if (d < 0 || d > (1LL << 40))
            goto bad;
        b->dims[b->rank++] = d;
        p = end;
        if (*p == ',' && p[1])
            p++;
        else if (*p)
            goto bad;
    }
    return true;
bad:
    *eq = '=';
    *err = imp_asprintf("--input '%s' is not NAME=D0,D1,... (at most "
                        "%d decimal dims, each at most 2^40)",
                        arg, IMP_MAX_RANK);
    return false;
}

/* --- identifiers ---------------------------------------------------- */

static const char *const imp_keywords[] = {
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
    "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
};

static uint64_t imp_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The slot of key in map m (grown as needed): *slot is NULL when the
 * key is new; the caller then stores the key in slot[0] and its value in
 * slot[1]. */
const char **imp_map_slot(imp_ctx *c, imp_map *m, const char *key) {
    if (2 * (m->n + 1) > m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 1024;
        const char **t = imp_alloc(c, 2 * cap * sizeof *t);
        for (size_t i = 0; i < m->cap; i++) {
            if (!m->slots[2 * i])
                continue;
            size_t j = imp_hash(m->slots[2 * i]) & (cap - 1);
            while (t[2 * j])
                j = (j + 1) & (cap - 1);
            t[2 * j] = m->slots[2 * i];
            t[2 * j + 1] = m->slots[2 * i + 1];
        }
        m->slots = t;
        m->cap = cap;
    }
    size_t j = imp_hash(key) & (m->cap - 1);
    for (; m->slots[2 * j]; j = (j + 1) & (m->cap - 1))
        if (strcmp(m->slots[2 * j], key) == 0)
            return &m->slots[2 * j];
    m->n++;
    return &m->slots[2 * j];
}

static bool imp_id_insert(imp_ctx *c, const char *s) {
    const char **slot = imp_map_slot(c, &c->ids, s);
    if (*slot)
        return false;
    slot[0] = s;
    return true;
}

/* A C identifier from an ONNX name: bytes outside [A-Za-z0-9_] become
 * '_', a leading digit or an empty name gets a 'v' in front, a C keyword
 * a '_' after it, at most 240 bytes; a name already taken gets the
 * first free suffix _2, _3, ...  Deterministic: names are made in graph
 * order. */
const char *imp_unique_ident(imp_ctx *c, const char *onnx_name) {
    size_t n = strlen(onnx_name);
    if (n > 240)
        n = 240;
    char *s = imp_alloc(c, n + 24);
    size_t k = 0;
    if (n == 0 || (onnx_name[0] >= '0' && onnx_name[0] <= '9'))
        s[k++] = 'v';
    for (size_t i = 0; i < n; i++) {
        char ch = onnx_name[i];
        bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
                  (ch >= '0' && ch <= '9') || ch == '_';
        s[k++] = ok ? ch : '_';
    }
    s[k] = '\0';
    for (size_t i = 0; i < sizeof imp_keywords / sizeof *imp_keywords; i++)
        if (strcmp(s, imp_keywords[i]) == 0)
            s[k++] = '_';
    s[k] = '\0';
    if (imp_id_insert(c, s))
        return s;
    for (unsigned suffix = 2;; suffix++) {
        snprintf(s + k, 24, "_%u", suffix);
        if (imp_id_insert(c, s))
            return s;
    }
}

/* --- driver --------------------------------------------------------- */

static void imp_cleanup(imp_ctx *c) {
    if (c->model)
        onnx__model_proto__free_unpacked(c->model, NULL);
    while (c->blocks) {
        imp_blk *b = c->blocks;
        c->blocks = b->next;
        free(b);
    }
    imp_buf_free(&c->sigs);
    imp_buf_free(&c->args);
    imp_buf_free(&c->modes);
    imp_buf_free(&c->body);
}

char *imp_import(const char *file, const uint8_t *data, size_t len,
                 const imp_options *o, size_t *out_len, char **err) {
    imp_ctx *c = calloc(1, sizeof *c);
    if (!c)
        imp_oom();
    c->file = file;
    c->opt = o;
    c->cur = -1;
    char *text = NULL;
    *err = NULL;
    if (setjmp(c->fail) == 0) {
        imp_read(c, data, len);
        imp_infer(c);
        imp_memory(c);
        imp_emit(c);
        text = c->body.s; /* imp_emit leaves the whole text in body */
        *out_len = c->body.len;
        c->body.s = NULL;
    } else {
        *err = c->err;
    }
    imp_cleanup(c);
    free(c);
    return text;
}

/*
 * import/import.c - the importer's driver (read -> infer -> memory ->
 * emit), its arena, its error exit, text buffers and C identifiers.
 *
 * Errors leave through imp_fail (longjmp back to imp_import): everything
 * allocated lives in the context's arena or in buffers the context owns,
 * so the one cleanup path frees it all.
 */
#include "imp.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *imp_alloc(imp_ctx *c, size_t n) {
    return base_arena_alloc(c->arena, n);
}

char *imp_strdup(imp_ctx *c, const char *s) {
    return base_arena_strdup(c->arena, s);
}

/* A malloc'd copy of the formatted text. */
static char *imp_vasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));
static char *imp_vasprintf(const char *fmt, va_list ap) {
    base_sb b = {0};
    base_sb_vprintf(&b, fmt, ap);
    return base_sb_take(&b, NULL);
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
    va_list ap;
    va_start(ap, fmt);
    base_sb_vprintf(b, fmt, ap);
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
    base_sb_free(b);
}

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
    base_vbug(file, line, fmt, ap);
}

void imp_fail(imp_ctx *c, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *msg = imp_vasprintf(fmt, ap);
    va_end(ap);
    imp_buf b = {0};
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
    c->err = base_sb_take(&b, NULL);
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
    if (ir_is_c_keyword(s))
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
    base_arena_free(c->arena);
    imp_buf_free(&c->sigs);
    imp_buf_free(&c->args);
    imp_buf_free(&c->modes);
    imp_buf_free(&c->body);
}

char *imp_import(const char *file, const uint8_t *data, size_t len,
                 const imp_options *o, size_t *out_len, char **err) {
    imp_ctx *c = base_xcalloc(1, sizeof *c);
    c->arena = base_arena_new();
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
        /* imp_emit leaves the whole text in body */
        text = base_sb_take(&c->body, out_len);
    } else {
        *err = c->err;
    }
    imp_cleanup(c);
    free(c);
    return text;
}

/*
 * codegen/view_stmt_text.c - the one-line text of IR statements for the
 * comments of generated code, and the input hash over those lines.  The
 * text is ir/print.c's short mode (ir_stmt_text, IR_TEXT_SHORT) with call
 * arguments escaped for a C comment; the input hash of every emitted file
 * depends on its exact bytes.  `gen` makes them ahead, in a thread of
 * their own while the program is planned (cg_texts_start).
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <threads.h>

static bool emits_text(const ir_stmt *s) {
    return s->kind != IR_MODEL && s->kind != IR_DEVICE && s->kind != IR_SPACE &&
           s->kind != IR_KERNEL;
}

/* Whether byte c (followed by `next`) stands for itself in a comment
 * (cg_comment_escape): printable ASCII but a backslash, a quote, '?'
 * and the first byte of a comment's opener or closer. */
static bool comment_plain(unsigned char c, unsigned char next) {
    return c >= 0x20 && c < 0x7f && c != '\\' && c != '"' && c != '?' &&
           !(c == '*' && next == '/') && !(c == '/' && next == '*');
}

/* The length of the run of plain bytes (comment_plain) at the start of
 * u: a byte at or above '@' is plain but DEL and a backslash, one below
 * it when printable and not one of  " * / ?  (bits 2, 10, 15 and 31 of
 * the mask, from ' '); a '*' or a '/' is asked about with its next byte. */
static size_t plain_run(const unsigned char *u) {
    size_t n = 0;
    for (;; n++) {
        unsigned c = u[n];
        if (c >= 0x40 ? c < 0x7f && c != '\\'
                      : c >= 0x20 && !((0x80008404u >> (c - 0x20)) & 1))
            continue;
        if (!c || !comment_plain(u[n], u[n + 1]))
            return n;
    }
}

/* cg_comment_escape of s, with the common case (every byte plain: call
 * arguments are names and numbers) put in one piece rather than byte by
 * byte: the same text. */
static void text_escape(base_sb *out, const char *s) {
    size_t n = plain_run((const unsigned char *)s);
    if (s[n])
        cg_comment_escape(out, s);
    else
        base_sb_put(out, s, n);
}

/* The one-line text of statement s and its length (NULL for statements
 * that emit no comment: model, device, space, kernel): the one
 * cg_input_hash kept, or made now in v->str. */
const char *cg_stmt_text(vw *v, const ir_stmt *s, size_t *len) {
    if (!emits_text(s))
        return NULL;
    if (v->stmt_off) {
        uint32_t at = v->stmt_off[s->index];
        *len = v->stmt_off[s->index + 1] - at - 1;
        return v->stmt_txt + at;
    }
    base_sb b = {0};
    ir_stmt_text(&b, s, IR_TEXT_SHORT, text_escape);
    const char *r = base_arena_strndup(v->str, base_sb_str(&b), b.len);
    *len = b.len;
    base_sb_free(&b);
    return r;
}

/* cg_texts_start makes the texts in a thread from this many statements
 * on (one costs some 30 ns; a thread some 50 us to start) */
#define CG_TEXTS_THREAD_FROM 20000u

/* The statements' texts and the input hash (codegen.h), made by
 * texts_make; `a` holds the texts' block (the view's arena when the
 * view makes them itself, else an arena of their own). */
struct cg_texts {
    const ir_program *prog;
    base_arena *a;
    base_arena *own; /* a, when the texts' own (freed with them) */
    char *txt;
    size_t len, cap;
    uint32_t *off; /* NULL: not kept (cg_stmt_text prints them again) */
    uint64_t hash;
    bool running; /* made by `thread`, not joined yet */
    thrd_t thread;
};

/* Room for `need` more bytes of statement text in t->txt: a new block
 * from t->a twice as large (or more), the text so far copied into it.
 * Out of line: the first block (texts_make) holds most programs'
 * text. */
static void texts_grow(cg_texts *t, size_t need) {
    size_t cap = 2 * t->cap + need;
    char *p = base_arena_alloc(t->a, cap);
    if (t->len)
        memcpy(p, t->txt, t->len);
    t->txt = p;
    t->cap = cap;
}

/* FNV-1a over the short text of every statement, each followed by a
 * newline.  Each text is printed into a small buffer (hot in the cache:
 * the hash reads it there), and the texts of the statements that emit
 * one are kept, one after the other in t->txt (about 25 bytes a
 * statement), for their comments: printing each twice cost more than
 * holding them, and their lengths come with them (no strlen per
 * comment).  Their offsets and the texts share one block of t->a,
 * sized for 32 bytes a statement: 2 MiB or more is mapped for huge
 * pages (base/arena.c), where a buffer grown by realloc cost a page
 * fault per 4 KiB written (some 3,000 at 10^5 kernels, half of them in
 * copying it as it doubled).  Not kept past 4 GiB of text: the
 * comments print theirs again. */
static void texts_make(cg_texts *t) {
    const ir_program *prog = t->prog;
    uint64_t h = 0xcbf29ce484222325u;
    uint32_t n = prog->nstmts;
    size_t est = (size_t)n * 32 + 64;
    uint32_t *off = base_arena_alloc(t->a, ((size_t)n + 1) * sizeof *off + est);
    t->txt = (char *)(off + n + 1);
    t->len = 0;
    t->cap = est;
    base_sb b = {0};
    for (uint32_t i = 0; i < n; i++) {
        const ir_stmt *s = &prog->stmts[i];
        b.len = 0;
        ir_stmt_text(&b, s, IR_TEXT_SHORT, text_escape);
        for (size_t k = 0; k < b.len; k++) {
            h ^= (unsigned char)b.p[k];
            h *= 0x100000001b3u;
        }
        h ^= '\n';
        h *= 0x100000001b3u;
        if (off && emits_text(s)) { /* keep the text and its NUL */
            if (b.len + 1 > t->cap - t->len)
                texts_grow(t, b.len + 1);
            memcpy(t->txt + t->len, b.p, b.len + 1);
            t->len += b.len + 1;
            if (t->len > UINT32_MAX)
                off = NULL;
        }
        if (off)
            off[i + 1] = (uint32_t)t->len;
    }
    base_sb_free(&b);
    t->off = off;
    t->hash = h;
}

static int texts_thread(void *t) {
    texts_make(t);
    return 0;
}

cg_texts *cg_texts_start(const ir_program *p) {
    cg_texts *t = base_xcalloc(1, sizeof *t);
    t->prog = p;
    t->a = t->own = base_arena_new();
    if (p->nstmts >= CG_TEXTS_THREAD_FROM &&
        thrd_create(&t->thread, texts_thread, t) == thrd_success)
        t->running = true;
    else
        texts_make(t);
    return t;
}

/* Waits for t's thread, if any. */
static void texts_join(cg_texts *t) {
    if (t->running)
        thrd_join(t->thread, NULL);
    t->running = false;
}

void cg_texts_free(cg_texts *t) {
    if (!t)
        return;
    texts_join(t);
    base_arena_free(t->own);
    free(t);
}

/* The input hash (16 hex digits) and the statements' texts for their
 * comments (v->stmt_txt, v->stmt_off): those made ahead for this
 * program (cg_view_options.texts), else made now in the view's arena. */
const char *cg_input_hash(vw *v) {
    cg_texts now = {.prog = v->prog, .a = v->a};
    cg_texts *t = v->texts && v->texts->prog == v->prog ? v->texts : &now;
    if (t == &now)
        texts_make(t);
    else
        texts_join(t);
    v->stmt_txt = t->txt;
    v->stmt_off = t->off;
    return cg_vfmt(v, "%016" PRIx64, t->hash);
}

const char *cg_base_name(const char *path) {
    if (!path)
        return "<input>";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

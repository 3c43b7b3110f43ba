/*
 * codegen/view_stmt_text.c - the one-line text of IR statements for the
 * comments of generated code, and the input hash over those lines.  The
 * text is ir/print.c's short mode (ir_stmt_text, IR_TEXT_SHORT) with call
 * arguments escaped for a C comment; the input hash of every emitted file
 * depends on its exact bytes.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Room for `need` more bytes of statement text in v->stmt_txt: a new
 * block from v->a twice as large (or more), the text so far copied into
 * it.  Out of line: the first block (cg_input_hash) holds most
 * programs' text. */
static void stmt_txt_grow(vw *v, size_t need) {
    size_t cap = 2 * v->stmt_cap + need;
    char *p = base_arena_alloc(v->a, cap);
    if (v->stmt_len)
        memcpy(p, v->stmt_txt, v->stmt_len);
    v->stmt_txt = p;
    v->stmt_cap = cap;
}

/* FNV-1a over the short text of every statement, each followed by a
 * newline.  Each text is printed into a small buffer (hot in the cache:
 * the hash reads it there), and the texts of the statements that emit
 * one are kept, one after the other in v->stmt_txt (about 25 bytes a
 * statement), for their comments: printing each twice cost more than
 * holding them, and their lengths come with them (no strlen per
 * comment).  Their offsets and the texts share one block of the view's
 * arena, sized for 32 bytes a statement: 2 MiB or more is mapped for
 * huge pages (base/arena.c), where a buffer grown by realloc cost a
 * page fault per 4 KiB written (some 3,000 at 10^5 kernels, half of
 * them in copying it as it doubled).  Not kept past 4 GiB of text: the
 * comments print theirs again. */
const char *cg_input_hash(vw *v) {
    uint64_t h = 0xcbf29ce484222325u;
    uint32_t n = v->prog->nstmts;
    size_t est = (size_t)n * 32 + 64;
    uint32_t *off = base_arena_alloc(v->a, ((size_t)n + 1) * sizeof *off + est);
    v->stmt_txt = (char *)(off + n + 1);
    v->stmt_len = 0;
    v->stmt_cap = est;
    base_sb b = {0};
    for (uint32_t i = 0; i < n; i++) {
        const ir_stmt *s = &v->prog->stmts[i];
        b.len = 0;
        ir_stmt_text(&b, s, IR_TEXT_SHORT, text_escape);
        for (size_t k = 0; k < b.len; k++) {
            h ^= (unsigned char)b.p[k];
            h *= 0x100000001b3u;
        }
        h ^= '\n';
        h *= 0x100000001b3u;
        if (off && emits_text(s)) { /* keep the text and its NUL */
            if (b.len + 1 > v->stmt_cap - v->stmt_len)
                stmt_txt_grow(v, b.len + 1);
            memcpy(v->stmt_txt + v->stmt_len, b.p, b.len + 1);
            v->stmt_len += b.len + 1;
            if (v->stmt_len > UINT32_MAX)
                off = NULL;
        }
        if (off)
            off[i + 1] = (uint32_t)v->stmt_len;
    }
    base_sb_free(&b);
    v->stmt_off = off;
    return cg_vfmt(v, "%016" PRIx64, h);
}

const char *cg_base_name(const char *path) {
    if (!path)
        return "<input>";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

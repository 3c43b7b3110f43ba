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

/* The one-line text of statement s (NULL for statements that emit no
 * comment: model, device, space, kernel), in v->str: not kept (the input
 * hash and the statement's element each compute it, so that no text of
 * every statement is held). */
const char *cg_stmt_text(vw *v, const ir_stmt *s) {
    if (s->kind == IR_MODEL || s->kind == IR_DEVICE || s->kind == IR_SPACE ||
        s->kind == IR_KERNEL)
        return NULL;
    base_sb b = {0};
    ir_stmt_text(&b, s, IR_TEXT_SHORT, cg_comment_escape);
    const char *r = base_arena_strndup(v->str, base_sb_str(&b), b.len);
    base_sb_free(&b);
    return r;
}

/* FNV-1a over the short text of every statement, each followed by a
 * newline; each line is hashed and forgotten. */
const char *cg_input_hash(vw *v) {
    uint64_t h = 0xcbf29ce484222325u;
    base_sb b = {0};
    for (uint32_t i = 0; i < v->prog->nstmts; i++) {
        base_sb_clear(&b);
        ir_stmt_text(&b, &v->prog->stmts[i], IR_TEXT_SHORT, cg_comment_escape);
        for (const unsigned char *p = (const unsigned char *)base_sb_str(&b);
             *p; p++) {
            h ^= *p;
            h *= 0x100000001b3u;
        }
        h ^= '\n';
        h *= 0x100000001b3u;
    }
    base_sb_free(&b);
    return cg_vfmt(v, "%016" PRIx64, h);
}

const char *cg_base_name(const char *path) {
    if (!path)
        return "<input>";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

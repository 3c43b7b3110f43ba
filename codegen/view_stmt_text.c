/*
 * codegen/view_stmt_text.c - the one-line text of IR statements for the
 * comments of generated code, and the input hash over the canonical
 * lines.  Keywords come from ir_stmt_keyword; the text itself is still a
 * printer of its own (issue 9 item 3: it is due to become a short mode of
 * ir/print.c, with `plan --emit lines`; the input hash of every emitted
 * file depends on its exact bytes).
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Statement text for comments (a one-line rendering of the IR). */

static const char *type_text(vw *v, const ir_type *t) {
    sbuf out;
    cg_sb_init(&out);
    const char *n = ir_dtype_name(t->dtype);
    cg_sb_put(&out, n, strlen(n));
    cg_sb_put(&out, "[", 1);
    for (uint32_t i = 0; i < t->ndim; i++) {
        if (i)
            cg_sb_put(&out, ",", 1);
        cg_sb_u64(&out, t->dims[i]);
    }
    cg_sb_put(&out, "]", 1);
    return cg_sb_done(v, &out);
}

/* " stride=[...]" of a statement that has one. */
static const char *stride_text(vw *v, const ir_stmt *s) {
    sbuf out;
    cg_sb_init(&out);
    cg_sb_put(&out, " stride=[", 9);
    for (uint32_t i = 0; i < s->nstrides; i++) {
        if (i)
            cg_sb_put(&out, ",", 1);
        cg_sb_u64(&out, s->attrs->strides[i]);
    }
    cg_sb_put(&out, "]", 1);
    return cg_sb_done(v, &out);
}

/* The firmware attributes, in ir_print's order (docs/firmware.md). */
static void fw_attrs_text(sbuf *out, const ir_fw_attrs *fw) {
    if (!fw)
        return;
    if (fw->planned)
        cg_sb_puts(out, " planned");
    if (fw->data) {
        cg_sb_puts(out, " data=\"");
        cg_sb_escape(out, fw->data, true);
        cg_sb_puts(out, "\"");
    }
    if (fw->has_at) {
        cg_sb_puts(out, " at=");
        cg_sb_u64(out, fw->at);
    }
    if (fw->next.name) {
        cg_sb_puts(out, " next=");
        cg_sb_puts(out, fw->next.name);
    }
}

/* The buffer attributes of a statement, each preceded by a space. */
static const char *attrs_text(vw *v, const ir_stmt *s) {
    sbuf out;
    cg_sb_init(&out);
    char tmp[64];
    if (s->has_device && s->kind != IR_DEVICE) {
        char dev[24];
        int k = snprintf(tmp, sizeof tmp, " device=%s",
                         ir_device_str(s->device, dev, sizeof dev));
        cg_sb_put(&out, tmp, (size_t)k);
    }
    const ir_attrs *at = s->attrs;
    if (at && at->space.name) {
        cg_sb_put(&out, " space=", 7);
        cg_sb_put(&out, at->space.name, strlen(at->space.name));
    }
    if (s->has_stride) {
        const char *st = stride_text(v, s);
        cg_sb_put(&out, st, strlen(st));
    }
    if (s->align) {
        cg_sb_put(&out, " align=", 7);
        cg_sb_u64(&out, s->align);
    }
    if (at && at->comm.name) {
        cg_sb_put(&out, " comm=", 6);
        cg_sb_put(&out, at->comm.name, strlen(at->comm.name));
    }
    if (at && at->group.name) {
        cg_sb_put(&out, " group=", 7);
        cg_sb_put(&out, at->group.name, strlen(at->group.name));
    }
    fw_attrs_text(&out, s->fw);
    return cg_sb_done(v, &out);
}

static const char *stmt_text_of(vw *v, const ir_stmt *s) {
    switch (s->kind) {
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        return cg_vfmt(v, "%s %s %s%s", ir_stmt_keyword(s->kind), s->name.name,
                       type_text(v, &s->type), attrs_text(v, s));
    case IR_ALIAS: {
        const char *t = s->has_type ? type_text(v, &s->type) : NULL;
        const char *st = s->has_stride ? stride_text(v, s) : "";
        if (s->has_offset)
            return cg_vfmt(v, "alias %s = %s%s%s offset=%" PRIu64 "%s",
                           s->name.name, s->old.name, t ? " " : "", t ? t : "",
                           s->offset, st);
        return cg_vfmt(v, "alias %s = %s%s%s%s", s->name.name, s->old.name,
                       t ? " " : "", t ? t : "", st);
    }
    case IR_CALL: {
        sbuf out;
        cg_sb_init(&out);
        const char *pre = "call ";
        cg_sb_put(&out, pre, strlen(pre));
        cg_sb_put(&out, s->name.name, strlen(s->name.name));
        cg_sb_put(&out, "(", 1);
        for (uint32_t i = 0; i < s->nargs; i++) {
            if (i)
                cg_sb_put(&out, ", ", 2);
            const ir_arg *g = &s->args[i];
            if (g->kind == IR_ARG_STRING) {
                cg_sb_put(&out, "\"", 1);
                cg_sb_escape(&out, g->sval ? g->sval : "", true);
                cg_sb_put(&out, "\"", 1);
            } else {
                cg_sb_escape(&out, g->text ? g->text : "", true);
            }
        }
        cg_sb_put(&out, ")", 1);
        if (s->has_stream) {
            cg_sb_put(&out, " stream=", 8);
            cg_sb_u64(&out, s->stream);
        }
        return cg_sb_done(v, &out);
    }
    case IR_FREE:
    case IR_OUTPUT: {
        sbuf out;
        cg_sb_init(&out);
        const char *kw = ir_stmt_keyword(s->kind);
        cg_sb_put(&out, kw, strlen(kw));
        for (uint32_t i = 0; i < s->nnames; i++) {
            cg_sb_put(&out, " ", 1);
            cg_sb_put(&out, s->names[i].name, strlen(s->names[i].name));
        }
        return cg_sb_done(v, &out);
    }
    default:
        return NULL;
    }
}

/* The one-line text of statement s (NULL for statements that emit no
 * comment), in v->str: not kept (the input hash and the statement's
 * element each compute it, so that no text of every statement is held). */
const char *cg_stmt_text(vw *v, const ir_stmt *s) {
    return stmt_text_of(v, s);
}

/* ------------------------------------------------------------------ */
static const char *canon_line(vw *v, const ir_stmt *s) {
    const char *t = cg_stmt_text(v, s);
    if (t)
        return t;
    char dev[24];
    switch (s->kind) {
    case IR_MODEL:
        return cg_vfmt(v, "model %s", s->name.name);
    case IR_DEVICE:
        return cg_vfmt(v, "device %s",
                       ir_device_str(s->device, dev, sizeof dev));
    case IR_SPACE:
        return cg_vfmt(v, "space %s capacity=%" PRIu64, s->name.name,
                       s->capacity);
    case IR_KERNEL: {
        sbuf out;
        cg_sb_init(&out);
        cg_sb_put(&out, "kernel ", 7);
        cg_sb_put(&out, s->name.name, strlen(s->name.name));
        for (uint32_t i = 0; i < s->nmodes; i++) {
            const char *m = ir_mode_name(s->modes[i]);
            cg_sb_put(&out, i ? ", " : "(", i ? 2 : 1);
            cg_sb_put(&out, m, strlen(m));
        }
        cg_sb_put(&out, s->nmodes ? ")" : "()", s->nmodes ? 1 : 2);
        return cg_sb_done(v, &out);
    }
    default:
        return "";
    }
}

const char *cg_input_hash(vw *v) {
    uint64_t h = 0xcbf29ce484222325u;
    base_arena *str = v->str;
    v->str = v->scratch; /* each line is hashed and forgotten */
    for (uint32_t i = 0; i < v->prog->nstmts; i++) {
        base_arena_reset(v->scratch);
        const char *t = canon_line(v, &v->prog->stmts[i]);
        for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
            h ^= *p;
            h *= 0x100000001b3u;
        }
        h ^= '\n';
        h *= 0x100000001b3u;
    }
    v->str = str;
    return cg_vfmt(v, "%016" PRIx64, h);
}

const char *cg_base_name(const char *path) {
    if (!path)
        return "<input>";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/*
 * ir/print.c - the one statement printer, in three modes
 * (ir_stmt_text):
 *
 * - canonical (IR_TEXT_CANONICAL, what `fmt` writes, ir_print): one
 *   statement per line, the keyword padded to 7 columns (`model` is
 *   followed by one space), single spaces elsewhere, `, ` between list
 *   items inside parentheses, `,` inside brackets, attributes in a fixed
 *   order, integers in decimal, floats as spelled in the source, strings
 *   re-escaped.  Comments are printed back where they were (a trailing
 *   one two spaces after its statement), runs of blank lines as one blank
 *   line, none at the start or the end.  print(parse(print(p))) ==
 *   print(p).
 * - short (IR_TEXT_SHORT): the line the comments of generated code show
 *   and the input hash reads: single spaces, the placement and firmware
 *   attributes, call arguments and data= as spelled (through the caller's
 *   escape), `space NAME capacity=N`.  The input hash of every generated
 *   file depends on these exact bytes.
 * - lines (IR_TEXT_LINES, `plan --emit lines`): the keyword and the name,
 *   calls, aliases and frees in full, control bytes as \xHH.
 */
#include "ir/ir.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* The short text of every statement is made once per `gen` (the input
 * hash), mostly of types, names and small numbers: written in place
 * (base_sb_room, base_u64_at), without an append per byte. */

/* "DTYPE[D,D,...]", reserved once and written in place. */
static void pr_type(base_sb *out, const ir_type *t) {
    const char *dn = ir_dtype_name(t->dtype);
    size_t dl = strlen(dn);
    char *p =
        base_sb_room(out, dl + 2 + (size_t)t->ndim * (BASE_U64_MAX_DIGITS + 1));
    base_copy(p, dn, dl);
    p += dl;
    *p++ = '[';
    for (uint32_t i = 0; i < t->ndim; i++) {
        if (i)
            *p++ = ',';
        p = base_u64_at(p, t->dims[i]);
    }
    *p++ = ']';
    base_sb_end(out, p);
}

static void pr_strides(base_sb *out, const ir_stmt *st) {
    base_sb_puts(out, " stride=[");
    for (uint32_t i = 0; i < st->attrs->nstrides; i++) {
        if (i)
            base_sb_putc(out, ',');
        base_sb_u64(out, st->attrs->strides[i]);
    }
    base_sb_putc(out, ']');
}

/* Control bytes as \xHH (the IR's escape), so that a raw ESC or BEL
 * does not act on a terminal. */
static void pr_control(base_sb *out, unsigned char c) {
    if (c < 0x20 || c == 0x7f)
        base_sb_printf(out, "\\x%02x", (unsigned)c);
    else
        base_sb_putc(out, (char)c);
}

static void pr_string(base_sb *out, const char *s) {
    base_sb_putc(out, '"');
    for (; *s; s++) {
        switch (*s) {
        case '\\':
            base_sb_puts(out, "\\\\");
            break;
        case '"':
            base_sb_puts(out, "\\\"");
            break;
        case '\n':
            base_sb_puts(out, "\\n");
            break;
        case '\t':
            base_sb_puts(out, "\\t");
            break;
        default:
            pr_control(out, (unsigned char)*s);
        }
    }
    base_sb_putc(out, '"');
}

/* The firmware attributes (docs/firmware.md); canonical mode re-escapes
 * data=, short mode spells it through the caller's escape. */
static void pr_fw_attrs(base_sb *out, const ir_fw_attrs *fw, bool canon,
                        ir_text_escape esc) {
    if (!fw)
        return;
    if (fw->planned)
        base_sb_puts(out, " planned");
    if (fw->data && canon) {
        base_sb_puts(out, " data=");
        pr_string(out, fw->data);
    } else if (fw->data) {
        base_sb_puts(out, " data=\"");
        if (esc)
            esc(out, fw->data);
        else
            base_sb_puts(out, fw->data);
        base_sb_putc(out, '"');
    }
    if (fw->has_at)
        base_sb_printf(out, " at=%" PRIu64, fw->at);
    if (fw->next.name)
        base_sb_printf(out, " next=%s", fw->next.name);
}

/* The placement attributes of a buffer or alias statement in canonical
 * order, then the firmware ones; canonical mode adds an alias's offset=
 * (short mode spells an alias's offset itself) and writes comm= with its
 * group=. */
static void pr_attrs(base_sb *out, const ir_stmt *st, bool canon,
                     ir_text_escape esc) {
    char dev[24];
    if (canon && st->kind == IR_ALIAS && st->has_offset)
        base_sb_printf(out, " offset=%" PRIu64, st->attrs->offset);
    if (st->has_device)
        base_sb_printf(out, " device=%s",
                       ir_device_str(st->device, dev, sizeof dev));
    const ir_attrs *at = st->attrs;
    if (at && at->space.name)
        base_sb_printf(out, " space=%s", at->space.name);
    if (st->has_stride)
        pr_strides(out, st);
    if (st->kind != IR_ALIAS && st->align)
        base_sb_printf(out, " align=%" PRIu64, st->align);
    if (canon && at && at->comm.name)
        base_sb_printf(out, " comm=%s group=%s", at->comm.name, at->group.name);
    if (!canon && at && at->comm.name)
        base_sb_printf(out, " comm=%s", at->comm.name);
    if (!canon && at && at->group.name)
        base_sb_printf(out, " group=%s", at->group.name);
    pr_fw_attrs(out, st->fw, canon, esc);
}

/* " NAME": the statements' names without printf (gen prints every
 * statement once for its comment), with one reserve. */
static void pr_word(base_sb *out, const char *name) {
    size_t n = strlen(name);
    char *p = base_sb_room(out, n + 1);
    *p = ' ';
    base_copy(p + 1, name, n);
    base_sb_end(out, p + 1 + n);
}

/* Short and lines: " NEW = OLD [TYPE] [offset=N] [stride=[...]]". */
static void pr_alias_short(base_sb *out, const ir_stmt *st) {
    pr_word(out, st->name.name);
    base_sb_puts(out, " =");
    pr_word(out, st->old.name);
    if (st->has_type) {
        base_sb_putc(out, ' ');
        pr_type(out, &st->type);
    }
    if (st->has_offset) {
        base_sb_puts(out, " offset=");
        base_sb_u64(out, st->attrs->offset);
    }
    if (st->has_stride)
        pr_strides(out, st);
}

/* The arguments of a call, "(a, b)", each as the mode spells it. */
static void pr_args(base_sb *out, const ir_stmt *st, ir_text_mode mode,
                    ir_text_escape esc) {
    base_sb_putc(out, '(');
    for (uint32_t i = 0; i < st->nargs; i++) {
        const ir_arg *a = &st->args[i];
        if (i)
            base_sb_puts(out, ", ");
        if (mode == IR_TEXT_LINES) {
            for (const char *s = a->text; *s; s++)
                pr_control(out, (unsigned char)*s);
        } else if (mode == IR_TEXT_SHORT) {
            bool str = a->kind == IR_ARG_STRING;
            const char *s = str ? a->sval : a->text;
            if (str)
                base_sb_putc(out, '"');
            if (esc)
                esc(out, s ? s : "");
            else
                base_sb_puts(out, s ? s : "");
            if (str)
                base_sb_putc(out, '"');
        } else if (a->kind == IR_ARG_INT) {
            base_sb_printf(out, "%" PRId64, a->ival);
        } else if (a->kind == IR_ARG_STRING) {
            pr_string(out, a->sval);
        } else {
            base_sb_puts(out, a->text);
        }
    }
    base_sb_putc(out, ')');
    if (st->has_stream)
        base_sb_printf(out, " stream=%" PRIu64, st->stream);
}

/* The keyword: padded to 7 columns in canonical mode. */
static void pr_keyword(base_sb *out, const ir_stmt *st, ir_text_mode mode) {
    const char *kw = ir_stmt_keyword(st->kind);
    base_sb_puts(out, kw);
    if (mode == IR_TEXT_CANONICAL && st->kind != IR_MODEL &&
        st->kind != IR_DEVICE)
        for (size_t n = strlen(kw); n < 6; n++)
            base_sb_putc(out, ' ');
}

/* Lines mode names a declaration without its type or attributes. */
static bool pr_name_only(const ir_stmt *st, ir_text_mode mode) {
    if (mode != IR_TEXT_LINES)
        return false;
    switch (st->kind) {
    case IR_SPACE:
    case IR_KERNEL:
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        return true;
    default:
        return false;
    }
}

void ir_stmt_text(base_sb *out, const ir_stmt *st, ir_text_mode mode,
                  ir_text_escape esc) {
    char dev[24];
    bool canon = mode == IR_TEXT_CANONICAL;
    pr_keyword(out, st, mode);
    if (pr_name_only(st, mode)) {
        pr_word(out, st->name.name);
        return;
    }
    switch (st->kind) {
    case IR_MODEL:
        base_sb_printf(out, " %s", st->name.name);
        return;
    case IR_DEVICE:
        base_sb_printf(out, " %s", ir_device_str(st->device, dev, sizeof dev));
        return;
    case IR_SPACE:
        base_sb_printf(out, " %s", st->name.name);
        if (!canon || st->has_capacity)
            base_sb_printf(out, " capacity=%" PRIu64, st->capacity);
        if (canon && st->fw && st->fw->spill.name)
            base_sb_printf(out, " spill=%s", st->fw->spill.name);
        return;
    case IR_KERNEL:
        base_sb_printf(out, " %s(", st->name.name);
        for (uint32_t i = 0; i < st->nmodes; i++)
            base_sb_printf(out, "%s%s", i ? ", " : "",
                           ir_mode_name(st->modes[i]));
        base_sb_putc(out, ')');
        if (canon && st->nocapture)
            base_sb_puts(out, " nocapture");
        return;
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        pr_word(out, st->name.name);
        base_sb_putc(out, ' ');
        pr_type(out, &st->type);
        pr_attrs(out, st, canon, esc);
        return;
    case IR_ALIAS:
        if (!canon) {
            pr_alias_short(out, st);
            return;
        }
        base_sb_printf(out, " %s = %s", st->name.name, st->old.name);
        if (st->has_type) {
            base_sb_putc(out, ' ');
            pr_type(out, &st->type);
        }
        pr_attrs(out, st, true, esc);
        return;
    case IR_CALL:
        pr_word(out, st->name.name);
        pr_args(out, st, mode, esc);
        return;
    case IR_FREE:
    case IR_OUTPUT:
        for (uint32_t i = 0; i < st->nnames; i++)
            pr_word(out, st->names[i].name);
        return;
    }
}

/* Prints the comments and blank lines that precede statement `before`
 * (from *c on); at the end, drops a final blank line. */
static void ir_print_comments(FILE *out, const ir_program *p, uint32_t *c,
                              uint32_t before) {
    while (*c < p->ncomments && p->comments[*c].before == before &&
           !p->comments[*c].trailing) {
        const ir_comment *k = &p->comments[(*c)++];
        if (k->text)
            fprintf(out, "%s\n", k->text);
        else if (before < p->nstmts || *c < p->ncomments)
            fputc('\n', out);
    }
}

void ir_print(FILE *out, const ir_program *p) {
    uint32_t c = 0;
    base_sb line = {0};
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_print_comments(out, p, &c, i);
        base_sb_clear(&line);
        ir_stmt_text(&line, &p->stmts[i], IR_TEXT_CANONICAL, NULL);
        fwrite(line.p, 1, line.len, out);
        if (c < p->ncomments && p->comments[c].trailing &&
            p->comments[c].before == i)
            fprintf(out, "  %s", p->comments[c++].text);
        fputc('\n', out);
    }
    base_sb_free(&line);
    ir_print_comments(out, p, &c, p->nstmts);
}

/*
 * ir/print.c - the canonical printer.
 *
 * One statement per line, the keyword padded to 7 columns (`model` is
 * followed by one space), single spaces elsewhere, `, ` between list
 * items inside parentheses, `,` inside brackets, attributes in a fixed
 * order, integers in decimal, floats as spelled in the source, strings
 * re-escaped.  Comments are printed back where they were (a trailing one
 * two spaces after its statement), runs of blank lines as one blank line,
 * none at the start or the end.  print(parse(print(p))) == print(p).
 */
#include "ir/ir.h"

#include <inttypes.h>
#include <stdio.h>

static void ir_print_type(FILE *out, const ir_type *t) {
    fprintf(out, "%s[", ir_dtype_name(t->dtype));
    for (uint32_t i = 0; i < t->ndim; i++)
        fprintf(out, "%s%" PRIu64, i ? "," : "", t->dims[i]);
    fputc(']', out);
}

static void ir_print_string(FILE *out, const char *s) {
    fputc('"', out);
    for (; *s; s++) {
        switch (*s) {
        case '\\':
            fputs("\\\\", out);
            break;
        case '"':
            fputs("\\\"", out);
            break;
        case '\n':
            fputs("\\n", out);
            break;
        case '\t':
            fputs("\\t", out);
            break;
        default:
            /* other control bytes would act on a terminal: \xHH */
            if ((unsigned char)*s < 0x20 || *s == 0x7f)
                fprintf(out, "\\x%02x", (unsigned)(unsigned char)*s);
            else
                fputc(*s, out);
        }
    }
    fputc('"', out);
}

/* Buffer/alias placement attributes, in canonical order. */
static void ir_print_attrs(FILE *out, const ir_stmt *st) {
    char dev[24];
    if (st->kind == IR_ALIAS && st->has_offset)
        fprintf(out, " offset=%" PRIu64, st->offset);
    if (st->has_device)
        fprintf(out, " device=%s", ir_device_str(st->device, dev, sizeof dev));
    const ir_attrs *at = st->attrs;
    if (at && at->space.name)
        fprintf(out, " space=%s", at->space.name);
    if (st->has_stride) {
        fputs(" stride=[", out);
        for (uint32_t i = 0; i < st->nstrides; i++)
            fprintf(out, "%s%" PRIu64, i ? "," : "", at->strides[i]);
        fputc(']', out);
    }
    if (st->align)
        fprintf(out, " align=%" PRIu64, st->align);
    if (at && at->comm.name)
        fprintf(out, " comm=%s group=%s", at->comm.name, at->group.name);
    if (!st->fw)
        return;
    if (st->fw->planned)
        fputs(" planned", out);
    if (st->fw->data) {
        fputs(" data=", out);
        ir_print_string(out, st->fw->data);
    }
    if (st->fw->has_at)
        fprintf(out, " at=%" PRIu64, st->fw->at);
    if (st->fw->next.name)
        fprintf(out, " next=%s", st->fw->next.name);
}

static void ir_print_stmt(FILE *out, const ir_stmt *st) {
    char dev[24];
    switch (st->kind) {
    case IR_MODEL:
        fprintf(out, "model %s", st->name.name);
        return;
    case IR_DEVICE:
        fprintf(out, "device %s", ir_device_str(st->device, dev, sizeof dev));
        return;
    case IR_SPACE:
        fprintf(out, "space  %s", st->name.name);
        if (st->has_capacity)
            fprintf(out, " capacity=%" PRIu64, st->capacity);
        if (st->fw && st->fw->spill.name)
            fprintf(out, " spill=%s", st->fw->spill.name);
        return;
    case IR_KERNEL:
        fprintf(out, "kernel %s(", st->name.name);
        for (uint32_t i = 0; i < st->nmodes; i++)
            fprintf(out, "%s%s", i ? ", " : "", ir_mode_name(st->modes[i]));
        fputc(')', out);
        if (st->nocapture)
            fputs(" nocapture", out);
        return;
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        fprintf(out, "%-6s %s ", ir_stmt_keyword(st->kind), st->name.name);
        ir_print_type(out, &st->type);
        ir_print_attrs(out, st);
        return;
    case IR_ALIAS:
        fprintf(out, "alias  %s = %s", st->name.name, st->old.name);
        if (st->has_type) {
            fputc(' ', out);
            ir_print_type(out, &st->type);
        }
        ir_print_attrs(out, st);
        return;
    case IR_CALL:
        fprintf(out, "call   %s(", st->name.name);
        for (uint32_t i = 0; i < st->nargs; i++) {
            const ir_arg *a = &st->args[i];
            if (i)
                fputs(", ", out);
            switch (a->kind) {
            case IR_ARG_BUFFER:
            case IR_ARG_FLOAT:
                fputs(a->text, out);
                break;
            case IR_ARG_INT:
                fprintf(out, "%" PRId64, a->ival);
                break;
            case IR_ARG_STRING:
                ir_print_string(out, a->sval);
                break;
            }
        }
        fputc(')', out);
        if (st->has_stream)
            fprintf(out, " stream=%" PRIu64, st->stream);
        return;
    case IR_FREE:
    case IR_OUTPUT:
        fprintf(out, "%-6s", ir_stmt_keyword(st->kind));
        for (uint32_t i = 0; i < st->nnames; i++)
            fprintf(out, " %s", st->names[i].name);
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
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_print_comments(out, p, &c, i);
        ir_print_stmt(out, &p->stmts[i]);
        if (c < p->ncomments && p->comments[c].trailing &&
            p->comments[c].before == i)
            fprintf(out, "  %s", p->comments[c++].text);
        fputc('\n', out);
    }
    ir_print_comments(out, p, &c, p->nstmts);
}

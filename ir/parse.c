/*
 * ir/parse.c - recursive-descent parser for IR v1: statements and the
 * line loop (the lexer is ir/lex.c; names, types, devices and attributes
 * are ir/parse_attrs.c; their shared state is ir/parse_internal.h).
 *
 * The input is processed one line at a time: a line is first validated
 * (no NUL byte, valid UTF-8 everywhere, comments and strings included),
 * then lexed on demand with one token of lookahead and parsed.  The first
 * error of a line is reported and the rest of the line is skipped, so every
 * line with an error gets exactly one diagnostic and parsing recovers at
 * the next line.  Each parse function names its rule of the grammar in
 * docs/ir.md.  Every token records its line and column (1-based, bytes).
 *
 * A line with an error is not lost for the checker (ir_parse_recover, used
 * by ir_load): once its keyword was read it becomes a statement marked
 * `broken`, with the fields parsed before the error (its name, above all);
 * a line whose keyword could not be read is recorded as "unread" (its
 * position among the statements).  A line with an invalid byte is parsed
 * up to that byte, further errors muted.  ir_parse itself still returns
 * NULL after any syntax error.
 */
#include "parse_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small helpers shared with the rest of the module. */

const char *const ir_dtype_names[] = {"f64", "f32", "f16", "bf16", "i64",
                                      "i32", "i16", "i8",  "u8",   "bool"};
static const unsigned ir_dtype_sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};

_Static_assert(sizeof ir_dtype_names / sizeof ir_dtype_names[0] ==
                   IR_DTYPE_COUNT,
               "a name per ir_dtype");
_Static_assert(sizeof ir_dtype_sizes / sizeof ir_dtype_sizes[0] ==
                   IR_DTYPE_COUNT,
               "a size per ir_dtype");
/* ir/ir.h claims 104 bytes per statement (64-bit targets). */
_Static_assert(sizeof(void *) < 8 || sizeof(ir_stmt) <= 104,
               "ir_stmt stays small: one per line of input");
_Static_assert(sizeof(void *) < 8 || sizeof(ir_arg) <= 24,
               "ir_arg stays small: several per call");

unsigned ir_dtype_size(ir_dtype t) {
    return (unsigned)t < IR_DTYPE_COUNT ? ir_dtype_sizes[t] : 0;
}

const char *ir_dtype_name(ir_dtype t) {
    return (unsigned)t < IR_DTYPE_COUNT ? ir_dtype_names[t] : "?";
}

static const char *const ir_mode_names[] = {"in", "out", "inout", "scalar"};
_Static_assert(sizeof ir_mode_names / sizeof ir_mode_names[0] ==
                   IR_MODE_SCALAR + 1,
               "a name per ir_mode");

static const char *const ir_stmt_keywords[] = {
    "model", "device", "space", "kernel", "input",  "const",
    "alloc", "alias",  "call",  "free",   "output", "state",
};
_Static_assert(sizeof ir_stmt_keywords / sizeof ir_stmt_keywords[0] ==
                   IR_STATE + 1,
               "a keyword per ir_stmt_kind");

const char *ir_stmt_keyword(ir_stmt_kind k) {
    return (unsigned)k <= IR_STATE ? ir_stmt_keywords[k] : "?";
}

const char *ir_mode_name(ir_mode m) {
    return (unsigned)m <= IR_MODE_SCALAR ? ir_mode_names[m] : "?";
}

const char *ir_device_str(ir_device d, char *buf, size_t size) {
    if (d.kind == IR_DEV_CUDA)
        snprintf(buf, size, "cuda:%u", (unsigned)d.index);
    else
        snprintf(buf, size, "cpu");
    return buf;
}

/* line = [ statement ] [ comment ] EOL ;  the part after a statement:
 * nothing but a comment may follow it. */
static bool ir_parse_eol(ir_parser *P) {
    const ir_token *t = &P->tok;
    if (t->kind == TK_EOL)
        return true;
    if (t->kind == TK_RPAREN) {
        ir_perr(P, t->col, "unmatched ')'");
        return false;
    }
    if (t->kind == TK_RBRACK) {
        ir_perr(P, t->col, "unmatched ']'");
        return false;
    }
    return ir_expected(P, "end of line");
}

/* model_stmt = "model" NAME ; */
static bool ir_parse_model(ir_parser *P, ir_stmt *st) {
    return ir_parse_name(P, &st->name, "a model name");
}

/* device_stmt = "device" DEVICE ; */
static bool ir_parse_device_stmt(ir_parser *P, ir_stmt *st) {
    st->has_device = true;
    ir_loc loc;
    return ir_parse_device(P, &st->device, &loc);
}

/* space_stmt = "space" NAME [ "capacity" "=" INT [ "spill" "=" NAME ] ] ;
 * (the two attributes in any order) */
static bool ir_parse_space(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a memory space name"))
        return false;
    return ir_parse_attrs(P, st, (1u << IR_AT_CAPACITY) | (1u << IR_AT_SPILL),
                          "space");
}

/* kernel_stmt = "kernel" NAME "(" [ MODE { "," MODE } ] ")" [ "nocapture" ] ;
 * MODE = "in" | "out" | "inout" | "scalar" ; */
static bool ir_parse_kernel(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a kernel name"))
        return false;
    uint32_t open = P->tok.col;
    if (!ir_expect(P, TK_LPAREN, "'(' after the kernel name"))
        return false;
    size_t n = 0, cap = 0;
    ir_mode *modes = NULL;
    ir_loc *locs = NULL;
    bool ok = true;
    if (P->tok.kind == TK_RPAREN) {
        ir_next(P);
    } else {
        for (;;) {
            const ir_token *t = &P->tok;
            if (t->kind == TK_EOL) {
                ok = ir_unclosed(P, TK_RPAREN, open);
                break;
            }
            int m = -1;
            for (int k = IR_MODE_IN; k <= IR_MODE_SCALAR; k++)
                if (ir_tok_is(t, ir_mode_names[k]))
                    m = k;
            const char *dym =
                t->kind == TK_IDENT ? ir_suggest(t, ir_mode_names, 4) : NULL;
            if (m < 0 && dym) {
                ir_perr(P, t->col, "unknown mode '%.*s'; did you mean '%s'?",
                        t->len > 32 ? 32 : (int)t->len, t->s, dym);
                ok = false;
                break;
            }
            if (m < 0) {
                if (t->kind == TK_IDENT)
                    ir_perr(P, t->col,
                            "unknown mode '%.*s' (expected in, out, inout or "
                            "scalar)",
                            t->len > 32 ? 32 : (int)t->len, t->s);
                else
                    ir_expected(P, "a mode (in, out, inout or scalar)");
                ok = false;
                break;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                modes = base_xrealloc(modes, cap * sizeof *modes);
                locs = base_xrealloc(locs, cap * sizeof *locs);
            }
            modes[n] = (ir_mode)m;
            locs[n] = ir_tok_loc(P, t);
            n++;
            ir_next(P);
            int sep = ir_list_sep(P, TK_RPAREN, open);
            if (sep > 0)
                continue;
            ok = sep == 0;
            break;
        }
    }
    if (ok) {
        st->nmodes = (uint32_t)n;
        st->modes = base_arena_array(P->a, n, sizeof *st->modes);
        st->mode_locs = base_arena_array(P->a, n, sizeof *st->mode_locs);
        if (n) {
            memcpy(st->modes, modes, n * sizeof *modes);
            memcpy(st->mode_locs, locs, n * sizeof *locs);
        }
    }
    free(modes);
    free(locs);
    if (ok && P->tok.kind == TK_IDENT && ir_tok_is(&P->tok, "nocapture")) {
        st->nocapture = true;
        ir_next(P);
    }
    return ok;
}

/* A stride= has one entry per dimension of the statement's type. */
static bool ir_stride_rank_ok(ir_parser *P, const ir_stmt *st) {
    if (st->has_stride && st->attrs->nstrides != st->type.ndim) {
        uint32_t n = st->attrs->nstrides;
        ir_perr(P, st->attrs->stride_loc.col,
                "stride has %u entr%s but the type has %u dimension%s",
                (unsigned)n, n == 1 ? "y" : "ies", (unsigned)st->type.ndim,
                st->type.ndim == 1 ? "" : "s");
        return false;
    }
    return true;
}

/* buffer_stmt = ( "input" | "const" | "alloc" | "state" ) NAME type attrs ;
 * (input and alloc also take `planned`, const `data` and `at`, state
 * `next` and no comm/group) */
static bool ir_parse_buffer(ir_parser *P, ir_stmt *st, const char *kw) {
    if (!ir_parse_name(P, &st->name, "a buffer name"))
        return false;
    st->has_type = true;
    if (!ir_parse_type(P, &st->type))
        return false;
    unsigned allowed =
        st->kind == IR_STATE ? IR_ATTRS_STATE
        : st->kind == IR_CONST
            ? IR_ATTRS_BUFFER | (1u << IR_AT_DATA) | (1u << IR_AT_AT)
            : IR_ATTRS_BUFFER | (1u << IR_AT_PLANNED);
    if (!ir_parse_attrs(P, st, allowed, kw))
        return false;
    return ir_stride_rank_ok(P, st);
}

/* alias_stmt = "alias" NAME "=" NAME [ type ] attrs ;
 * (attrs: offset, stride, and device/space/comm/group which must match
 * OLD's) */
static bool ir_parse_alias(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a buffer name"))
        return false;
    if (!ir_expect(P, TK_EQ, "'=' after the alias name"))
        return false;
    if (!ir_parse_name(P, &st->old, "the name of the aliased buffer"))
        return false;
    if (P->tok.kind == TK_IDENT && ir_peek(P)->kind != TK_EQ) {
        st->has_type = true;
        if (!ir_parse_type(P, &st->type))
            return false;
    }
    if (!ir_parse_attrs(P, st, IR_ATTRS_ALIAS, "alias"))
        return false;
    if (st->has_stride && !st->has_type) {
        ir_perr(P, st->attrs->stride_loc.col,
                "a strided alias needs a type (alias NEW = OLD f32[4,4] "
                "stride=[1,4])");
        return false;
    }
    return ir_stride_rank_ok(P, st);
}

/* call_stmt = "call" NAME "(" [ arg { "," arg } ] ")" [ "stream" "=" INT ] ;
 * arg = NAME | [ "-" ] ( INT | FLOAT ) | STRING ; */
static bool ir_parse_call(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a kernel name"))
        return false;
    uint32_t open = P->tok.col;
    if (!ir_expect(P, TK_LPAREN, "'(' after the kernel name"))
        return false;
    size_t n = 0;
    bool ok = true;
    if (P->tok.kind == TK_RPAREN) {
        ir_next(P);
    } else {
        for (;;) {
            const ir_token *t = &P->tok;
            if (t->kind == TK_EOL) {
                ok = ir_unclosed(P, TK_RPAREN, open);
                break;
            }
            ir_arg arg;
            memset(&arg, 0, sizeof arg);
            arg.col = t->col;
            arg.value = -1;
            if (t->kind == TK_IDENT) {
                ir_ident id;
                if (!ir_parse_name(P, &id, "an argument")) {
                    ok = false;
                    break;
                }
                arg.kind = IR_ARG_BUFFER;
                arg.text = id.name;
            } else if (t->kind == TK_INT) {
                arg.kind = IR_ARG_INT;
                arg.ival = t->neg ? -(int64_t)t->ival : (int64_t)t->ival;
                arg.text = ir_intern_recent(P, t->s, t->len);
                ir_next(P);
            } else if (t->kind == TK_FLOAT) {
                arg.kind = IR_ARG_FLOAT;
                arg.fval = t->fval;
                arg.text = ir_intern_recent(P, t->s, t->len);
                ir_next(P);
            } else if (t->kind == TK_STRING) {
                arg.kind = IR_ARG_STRING;
                arg.text = ir_intern_recent(P, t->s, t->len);
                arg.sval = ir_intern_recent(P, t->slen ? P->sbuf + t->sbeg : "",
                                            t->slen);
                ir_next(P);
            } else {
                ir_expected(P, "an argument (a buffer name, a number or a "
                               "string)");
                ok = false;
                break;
            }
            if (n == P->cargv) {
                P->cargv = P->cargv ? P->cargv * 2 : 16;
                P->argv = base_xrealloc(P->argv, P->cargv * sizeof *P->argv);
            }
            P->argv[n++] = arg;
            int sep = ir_list_sep(P, TK_RPAREN, open);
            if (sep > 0)
                continue;
            ok = sep == 0;
            break;
        }
    }
    if (ok) {
        st->nargs = (uint32_t)n;
        st->args = base_arena_array(P->a, n, sizeof *st->args);
        if (n)
            memcpy(st->args, P->argv, n * sizeof *st->args);
        ok = ir_parse_attrs(P, st, 1u << IR_AT_STREAM, "call");
    }
    return ok;
}

/* free_stmt = "free" NAME { NAME } ;  output_stmt = "output" NAME { NAME } ; */
static bool ir_parse_names(ir_parser *P, ir_stmt *st) {
    size_t n = 0;
    bool ok = true;
    do {
        ir_ident id;
        if (!ir_parse_name(P, &id, "a buffer name")) {
            ok = false;
            break;
        }
        if (n == P->cidv) {
            P->cidv = P->cidv ? P->cidv * 2 : 16;
            P->idv = base_xrealloc(P->idv, P->cidv * sizeof *P->idv);
        }
        P->idv[n++] = id;
    } while (P->tok.kind == TK_IDENT);
    if (ok) {
        st->nnames = (uint32_t)n;
        st->names = base_arena_array(P->a, n, sizeof *st->names);
        memcpy(st->names, P->idv, n * sizeof *st->names);
    }
    return ok;
}

/* Records that the current line holds a statement whose keyword could
 * not be read: it comes before statement P->nstmts. */
static void ir_add_unread(ir_parser *P) {
    if (P->nunread && P->unread[P->nunread - 1] == P->nstmts)
        return;
    if (P->nunread == P->cunread) {
        P->cunread = P->cunread ? P->cunread * 2 : 16;
        P->unread = base_xrealloc(P->unread, P->cunread * sizeof *P->unread);
    }
    P->unread[P->nunread++] = P->nstmts;
}

/* statement = model_stmt | device_stmt | space_stmt | kernel_stmt
 *           | buffer_stmt | alias_stmt | call_stmt | free_stmt
 *           | output_stmt ; */
static void ir_parse_statement(ir_parser *P) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_IDENT) {
        ir_expected(P, "a statement");
        ir_add_unread(P);
        return;
    }
    int k = -1;
    for (int i = 0; i <= IR_STATE; i++)
        if (ir_tok_is(t, ir_stmt_keywords[i]))
            k = i;
    const char *dym =
        k < 0 ? ir_suggest(t, ir_stmt_keywords, IR_STATE + 1) : NULL;
    if (dym) {
        ir_perr(P, t->col, "unknown statement '%.*s'; did you mean '%s'?",
                t->len > 32 ? 32 : (int)t->len, t->s, dym);
        ir_add_unread(P);
        return;
    }
    if (k < 0) {
        ir_perr(P, t->col,
                "unknown statement '%.*s' (expected model, device, space, "
                "kernel, input, const, alloc, state, alias, call, free or "
                "output)",
                t->len > 32 ? 32 : (int)t->len, t->s);
        ir_add_unread(P);
        return;
    }
    if (P->nstmts >= P->maxstmts)
        abort(); /* the pre-count is an upper bound */
    ir_stmt *st = &P->stmts[P->nstmts];
    memset(st, 0, sizeof *st);
    st->kind = (ir_stmt_kind)k;
    st->index = P->nstmts;
    st->loc = ir_tok_loc(P, t);
    st->value = -1;
    ir_next(P);
    bool ok;
    switch (st->kind) {
    case IR_MODEL:
        ok = ir_parse_model(P, st);
        break;
    case IR_DEVICE:
        ok = ir_parse_device_stmt(P, st);
        break;
    case IR_SPACE:
        ok = ir_parse_space(P, st);
        break;
    case IR_KERNEL:
        ok = ir_parse_kernel(P, st);
        break;
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        ok = ir_parse_buffer(P, st, ir_stmt_keywords[k]);
        break;
    case IR_ALIAS:
        ok = ir_parse_alias(P, st);
        break;
    case IR_CALL:
        ok = ir_parse_call(P, st);
        break;
    case IR_FREE:
    case IR_OUTPUT:
        ok = ir_parse_names(P, st);
        break;
    default:
        abort();
    }
    /* A line with an error stays a statement, marked broken, for the
     * checker (ir_parse drops the whole program). */
    st->broken = !(ok && ir_parse_eol(P) && !P->failed);
    P->nstmts++;
}

/* Validates the bytes of a line: no NUL, valid UTF-8.  Returns the
 * offset of the first bad byte (reported), or the length of the line. */
static size_t ir_check_line_bytes(ir_parser *P) {
    const unsigned char *s = (const unsigned char *)P->line;
    size_t n = P->len;
    const uint64_t ones = 0x0101010101010101u, highs = 0x8080808080808080u;
    for (size_t i = 0; i < n;) {
        /* Eight bytes at a time while they are ASCII and none is NUL. */
        while (n - i >= 8) {
            uint64_t w;
            memcpy(&w, s + i, 8);
            if (((w - ones) & ~w & highs) | (w & highs))
                break;
            i += 8;
        }
        if (i >= n)
            break;
        unsigned c = s[i];
        if (c == 0) {
            ir_perr(P, (uint32_t)(i + 1), "NUL byte in input");
            return i;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        unsigned cp;
        size_t len = base_utf8_decode(s + i, n - i, &cp);
        if (len == 0) {
            ir_perr(P, (uint32_t)(i + 1), "invalid UTF-8 byte 0x%02X", c);
            return i;
        }
        i += len;
    }
    return n;
}

/* After the invalid byte at offset `bad` of the current line (reported):
 * parses the valid bytes before it, errors muted, so that the checker
 * learns the statement's kind and name (a broken statement) or that a
 * statement could not be read at all.  A word the bad byte cuts is left
 * out: it is no name.  A line that is a comment by then holds nothing. */
static void ir_parse_valid_prefix(ir_parser *P, size_t bad) {
    size_t cut = bad;
    while (cut > 0 && ir_is_id_char((unsigned char)P->line[cut - 1]))
        cut--;
    P->len = cut;
    ir_next(P);
    if (P->tok.kind != TK_EOL)
        ir_parse_statement(P);
    else if (P->tok.s == P->line + P->len)
        ir_add_unread(P); /* no '#' before the bad byte */
}

/* Records a comment (text, n bytes from '#') or, when text is NULL, a
 * blank line, for the printer. */
static void ir_add_comment(ir_parser *P, uint32_t before, bool trailing,
                           const char *text, size_t n) {
    if (P->ncomments == P->ccomments) {
        P->ccomments = P->ccomments ? P->ccomments * 2 : 16;
        P->comments =
            base_xrealloc(P->comments, P->ccomments * sizeof *P->comments);
    }
    ir_comment *c = &P->comments[P->ncomments++];
    c->before = before;
    c->trailing = trailing;
    c->text = NULL;
    if (text) {
        while (n > 1 && (text[n - 1] == ' ' || text[n - 1] == '\t' ||
                         text[n - 1] == '\r'))
            n--;
        c->text = base_arena_strndup(P->a, text, n);
    }
}

/* An upper bound of the number of statements: lines whose first
 * non-blank byte does not start a comment. */
static size_t ir_count_statements(const char *text, size_t len) {
    size_t n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i < len && text[i] != '#' && text[i] != '\n' && text[i] != '\r')
            n++;
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            break;
        i = (size_t)(nl - text) + 1;
    }
    return n;
}

/* program = { line } ;  line = [ statement ] [ comment ] EOL ;
 * comment = "#" { any character } ;  EOL = "\n" | "\r\n" | end of input ;
 * With `recover`, a program with syntax errors is returned too (its
 * broken statements and unread lines recorded); without, NULL. */
static ir_program *ir_parse_lines(base_arena *a, const char *filename,
                                  const char *text, size_t len, base_diag *d,
                                  bool recover) {
    ir_parser P;
    memset(&P, 0, sizeof P);
    P.a = a;
    P.d = d;
    size_t maxst = ir_count_statements(text, len);
    if (maxst > IR_MAX_STATEMENTS || len > UINT32_MAX) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "input too large (at most %u statements and 4 GiB)",
                         IR_MAX_STATEMENTS);
        return NULL;
    }
    P.maxstmts = (uint32_t)maxst;
    P.stmts = base_arena_array(a, maxst, sizeof(ir_stmt));
    size_t i = 0;
    uint32_t lineno = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        lineno++;
        P.line = text + i;
        P.len = end - i;
        if (P.len > 0 && P.line[P.len - 1] == '\r')
            P.len--;
        P.lineno = lineno;
        P.pos = 0;
        P.failed = false;
        P.has_ahead = false;
        size_t bad = ir_check_line_bytes(&P);
        if (bad < P.len) {
            ir_parse_valid_prefix(&P, bad);
        } else {
            ir_next(&P);
            const char *line_end = P.line + P.len;
            if (P.tok.kind != TK_EOL) {
                uint32_t before = P.nstmts;
                ir_parse_statement(&P);
                if (P.nstmts > before && !P.failed && P.tok.kind == TK_EOL &&
                    P.tok.s < line_end)
                    ir_add_comment(&P, before, true, P.tok.s,
                                   (size_t)(line_end - P.tok.s));
                P.seen_content = true;
                P.last_blank = false;
            } else if (P.tok.s < line_end) {
                ir_add_comment(&P, P.nstmts, false, P.tok.s,
                               (size_t)(line_end - P.tok.s));
                P.seen_content = true;
                P.last_blank = false;
            } else {
                if (P.seen_content && !P.last_blank)
                    ir_add_comment(&P, P.nstmts, false, NULL, 0);
                P.last_blank = true;
            }
        }
        i = end + 1;
        if (!nl)
            break;
    }
    free(P.sbuf);
    free(P.nums);
    free(P.argv);
    free(P.idv);
    ir_intern_free(&P.names);
    if (P.errors && !recover) {
        free(P.comments);
        free(P.unread);
        return NULL;
    }
    ir_program *p = base_arena_alloc(a, sizeof *p);
    p->arena = a;
    p->filename = base_arena_strdup(a, filename ? filename : "<input>");
    p->nstmts = P.nstmts;
    p->stmts = P.stmts;
    p->output_stmt = -1;
    p->names_interned = true;
    p->ncomments = (uint32_t)P.ncomments;
    p->comments = base_arena_array(a, P.ncomments, sizeof *p->comments);
    if (P.ncomments)
        memcpy(p->comments, P.comments, P.ncomments * sizeof *P.comments);
    free(P.comments);
    p->syntax_errors = P.errors;
    p->nunread = (uint32_t)P.nunread;
    p->unread = base_arena_array(a, P.nunread, sizeof *p->unread);
    if (P.nunread)
        memcpy(p->unread, P.unread, P.nunread * sizeof *P.unread);
    free(P.unread);
    for (uint32_t k = 0; k < P.nstmts; k++)
        if (P.stmts[k].kind == IR_MODEL && !P.stmts[k].broken && !p->model)
            p->model = P.stmts[k].name.name;
    return p;
}

ir_program *ir_parse(base_arena *a, const char *filename, const char *text,
                     size_t len, base_diag *d) {
    return ir_parse_lines(a, filename, text, len, d, false);
}

ir_program *ir_parse_recover(base_arena *a, const char *filename,
                             const char *text, size_t len, base_diag *d) {
    return ir_parse_lines(a, filename, text, len, d, true);
}

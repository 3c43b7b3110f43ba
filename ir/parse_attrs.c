/*
 * ir/parse_attrs.c - the parts of a statement that several statements
 * share: names (interned), integers and integer lists, types, devices,
 * and the attributes after a statement (device=, space=, stride=, ...).
 */
#include "parse_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ir_intern_recent(ir_parser *P, const char *s, size_t n) {
    uint32_t h = ir_name_hash(s, n);
    ir_name_rec **slot = &P->recent[h & (IR_RECENT - 1)];
    ir_name_rec *r = *slot;
    if (r && r->hash == h && r->len == n && memcmp(r->name, s, n) == 0)
        return r->name;
    const char *name = ir_intern_hashed(P->a, &P->names, s, n, h);
    *slot = ir_name_rec_of(name);
    return name;
}

/* NAME = ( letter | "_" ) { letter | digit | "_" } ;
 * at most 255 bytes, not a C keyword. */
bool ir_parse_name(ir_parser *P, ir_ident *out, const char *what) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_IDENT)
        return ir_expected(P, what);
    if (t->len > IR_NAME_MAX) {
        ir_perr(P, t->col,
                "name '%.32s...' is too long (%zu bytes, at most %d)", t->s,
                t->len, IR_NAME_MAX);
        return false;
    }
    if (ir_is_c_keyword_n(t->s, t->len)) {
        ir_perr(P, t->col, "'%.*s' is a C keyword and cannot be used as a name",
                (int)t->len, t->s);
        return false;
    }
    out->name = ir_intern_recent(P, t->s, t->len);
    out->loc = ir_tok_loc(P, t);
    ir_next(P);
    return true;
}

/* INT = digit { digit } ;  non-negative, at most 63 bits (the lexer checks
 * the range); `what` names the value in messages. */
static bool ir_parse_uint(ir_parser *P, uint64_t *out, const char *what) {
    const ir_token *t = &P->tok;
    if (t->kind == TK_INT && t->neg) {
        ir_perr(P, t->col, "%s must not be negative", what);
        return false;
    }
    if (t->kind == TK_FLOAT) {
        ir_perr(P, t->col, "%s must be an integer", what);
        return false;
    }
    if (t->kind != TK_INT) {
        char buf[80];
        snprintf(buf, sizeof buf, "an integer (%s)", what);
        return ir_expected(P, buf);
    }
    *out = t->ival;
    ir_next(P);
    return true;
}

/* Reports the end of the line inside a list opened at column `open` and
 * closed by `close` (TK_RPAREN or TK_RBRACK). */
bool ir_unclosed(ir_parser *P, ir_tok_kind close, uint32_t open) {
    bool paren = close == TK_RPAREN;
    ir_perr(P, P->tok.col, "missing '%c' to close '%c' at column %u",
            paren ? ')' : ']', paren ? '(' : '[', (unsigned)open);
    return false;
}

/* The token after an element of a list opened at column `open` and closed
 * by `close`: consumes a ',' (returns 1, more elements follow) or the
 * closing token (returns 0); anything else is an error (returns -1). */
int ir_list_sep(ir_parser *P, ir_tok_kind close, uint32_t open) {
    ir_tok_kind k = P->tok.kind;
    if (k == TK_COMMA || k == close) {
        ir_next(P);
        return k == TK_COMMA;
    }
    if (k == TK_EOL)
        ir_unclosed(P, close, open);
    else
        ir_expected(P, close == TK_RPAREN ? "',' or ')'" : "',' or ']'");
    return -1;
}

/* int_list = "[" [ INT { "," INT } ] "]" ;
 * Leaves the numbers in P->nums.  `what` names one element. */
static bool ir_parse_int_list(ir_parser *P, const char *what) {
    P->nnums = 0;
    uint32_t open = P->tok.col;
    if (!ir_expect(P, TK_LBRACK, "'['"))
        return false;
    if (P->tok.kind == TK_RBRACK) {
        ir_next(P);
        return true;
    }
    for (;;) {
        if (P->tok.kind == TK_COMMA || P->tok.kind == TK_RBRACK) {
            ir_perr(P, P->tok.col, "empty %s", what);
            return false;
        }
        if (P->tok.kind == TK_EOL)
            return ir_unclosed(P, TK_RBRACK, open);
        uint64_t v = 0;
        if (!ir_parse_uint(P, &v, what))
            return false;
        ir_nums_put(P, v);
        int sep = ir_list_sep(P, TK_RBRACK, open);
        if (sep <= 0)
            return sep == 0;
    }
}

/* The numbers of P->nums in the arena.  A program repeats a few shapes
 * and strides many times: an array equal to one stored recently (a
 * direct-mapped cache by hash) is shared rather than copied. */
static uint64_t *ir_copy_nums(ir_parser *P) {
    size_t n = P->nnums;
    uint64_t h = 0x9e3779b97f4a7c15u * (n + 1);
    for (size_t i = 0; i < n; i++)
        h = (h ^ P->nums[i]) * 0x100000001b3u;
    size_t slot = (size_t)(h >> 40) % IR_NUMS_CACHE;
    uint64_t *v = P->nums_cache[slot];
    if (v && P->nums_cache_n[slot] == n &&
        (n == 0 || memcmp(v, P->nums, n * sizeof *v) == 0))
        return v;
    v = base_arena_array(P->a, n, sizeof *v);
    if (n)
        memcpy(v, P->nums, n * sizeof *v);
    P->nums_cache[slot] = v;
    P->nums_cache_n[slot] = n;
    return v;
}

/* type = DTYPE "[" [ dim { "," dim } ] "]" ;
 * DTYPE = "f64" | "f32" | "f16" | "bf16" | "i64" | "i32" | "i16" | "i8"
 *       | "u8" | "bool" ; */
bool ir_parse_type(ir_parser *P, ir_type *ty) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_IDENT)
        return ir_expected(P, "a type such as f32[4,4]");
    int found = -1;
    for (int i = 0; i < IR_DTYPE_COUNT; i++)
        if (ir_tok_is(t, ir_dtype_names[i]))
            found = i;
    if (found < 0) {
        const char *dym = ir_suggest(t, ir_dtype_names, IR_DTYPE_COUNT);
        if (dym)
            ir_perr(P, t->col, "unknown dtype '%.*s'; did you mean '%s'?",
                    t->len > 32 ? 32 : (int)t->len, t->s, dym);
        else
            ir_perr(P, t->col,
                    "unknown dtype '%.*s' (expected f64, f32, f16, bf16, "
                    "i64, i32, i16, i8, u8 or bool)",
                    t->len > 32 ? 32 : (int)t->len, t->s);
        return false;
    }
    ty->dtype = (ir_dtype)found;
    ty->loc = ir_tok_loc(P, t);
    ir_next(P);
    if (P->tok.kind != TK_LBRACK)
        return ir_expected(P, "'[' after the dtype");
    if (!ir_parse_int_list(P, "dimension"))
        return false;
    ty->ndim = (uint32_t)P->nnums;
    ty->dims = ir_copy_nums(P);
    return true;
}

/* DEVICE = "cpu" | "cuda" ":" INT ; */
bool ir_parse_device(ir_parser *P, ir_device *dev, ir_loc *loc) {
    const ir_token *t = &P->tok;
    *loc = ir_tok_loc(P, t);
    if (ir_tok_is(t, "cpu")) {
        dev->kind = IR_DEV_CPU;
        dev->index = 0;
        ir_next(P);
        return true;
    }
    if (ir_tok_is(t, "cuda") && ir_peek(P)->kind == TK_COLON) {
        ir_next(P);
        ir_next(P);
        uint64_t v = 0;
        if (!ir_parse_uint(P, &v, "CUDA device number"))
            return false;
        if (v > UINT32_MAX) {
            ir_perr(P, loc->col, "CUDA device number too large");
            return false;
        }
        dev->kind = IR_DEV_CUDA;
        dev->index = (uint32_t)v;
        return true;
    }
    if (t->kind == TK_IDENT) {
        ir_perr(P, t->col, "unknown device '%.*s' (expected cpu or cuda:N)",
                t->len > 32 ? 32 : (int)t->len, t->s);
        return false;
    }
    return ir_expected(P, "a device (cpu or cuda:N)");
}

static const char *const ir_attr_names[] = {
    "device",   "space",  "stride", "align", "comm", "group", "offset",
    "capacity", "stream", "spill",  "next",  "data", "at",    "planned"};
_Static_assert(sizeof ir_attr_names / sizeof ir_attr_names[0] == IR_AT_COUNT,
               "a name per attribute");

static void ir_attr_list(unsigned allowed, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < IR_AT_COUNT; i++)
        if (allowed & (1u << i))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
                                  ir_attr_names[i]);
}

/* The statement's rarely given attributes, allocated on first use. */
static ir_attrs *ir_attrs_of(ir_parser *P, ir_stmt *st) {
    if (!st->attrs)
        st->attrs = base_arena_alloc(P->a, sizeof *st->attrs);
    return st->attrs;
}

/* The statement's firmware attributes, allocated on first use. */
static ir_fw_attrs *ir_fw(ir_parser *P, ir_stmt *st) {
    if (!st->fw)
        st->fw = base_arena_alloc(P->a, sizeof *st->fw);
    return st->fw;
}

/* data = STRING: a file name, not empty. */
static bool ir_parse_data(ir_parser *P, ir_fw_attrs *fw) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_STRING)
        return ir_expected(P, "a file name string after 'data='");
    if (t->slen == 0) {
        ir_perr(P, t->col, "empty data file name");
        return false;
    }
    fw->data = base_arena_strndup(P->a, P->sbuf + t->sbeg, t->slen);
    fw->data_loc = ir_tok_loc(P, t);
    ir_next(P);
    return true;
}

/* Attributes that need another one: spill= needs capacity=, at= needs
 * data=. */
static bool ir_attrs_pairs(ir_parser *P, const ir_stmt *st,
                           const ir_loc *seen) {
    if (seen[IR_AT_SPILL].line && !st->has_capacity) {
        ir_perr(P, seen[IR_AT_SPILL].col,
                "attribute 'spill' requires a 'capacity' attribute");
        return false;
    }
    if (seen[IR_AT_AT].line && !seen[IR_AT_DATA].line) {
        ir_perr(P, seen[IR_AT_AT].col,
                "attribute 'at' requires a 'data' attribute");
        return false;
    }
    return true;
}

/* The value of attribute k (its key at kloc, the '=' consumed) into st. */
static bool ir_parse_attr_value(ir_parser *P, ir_stmt *st, int k, ir_loc kloc) {
    bool ok = true;
    switch (k) {
    case IR_AT_DEVICE:
        st->has_device = true;
        ok = ir_parse_device(P, &st->device, &ir_attrs_of(P, st)->device_loc);
        st->attrs->device_loc = kloc;
        break;
    case IR_AT_SPACE:
        ok =
            ir_parse_name(P, &ir_attrs_of(P, st)->space, "a memory space name");
        break;
    case IR_AT_STRIDE:
        ok = ir_parse_int_list(P, "stride");
        st->has_stride = true;
        ir_attrs_of(P, st)->nstrides = (uint32_t)P->nnums;
        st->attrs->strides = ir_copy_nums(P);
        st->attrs->stride_loc = kloc;
        break;
    case IR_AT_ALIGN: {
        uint32_t col = P->tok.col;
        ok = ir_parse_uint(P, &st->align, "alignment");
        if (ok && (st->align == 0 || (st->align & (st->align - 1)))) {
            ir_perr(P, col, "alignment %llu is not a power of two",
                    (unsigned long long)st->align);
            ok = false;
        }
        st->align_loc = kloc;
        break;
    }
    case IR_AT_COMM:
        ok = ir_parse_name(P, &ir_attrs_of(P, st)->comm,
                           "a communication type name");
        st->attrs->comm.loc = kloc;
        break;
    case IR_AT_GROUP:
        ok = ir_parse_name(P, &ir_attrs_of(P, st)->group, "a group name");
        st->attrs->group.loc = kloc;
        break;
    case IR_AT_OFFSET:
        st->has_offset = true;
        ok = ir_parse_uint(P, &ir_attrs_of(P, st)->offset, "offset");
        st->attrs->offset_loc = kloc;
        break;
    case IR_AT_CAPACITY:
        st->has_capacity = true;
        ok = ir_parse_uint(P, &st->capacity, "capacity");
        break;
    case IR_AT_STREAM:
        st->has_stream = true;
        ok = ir_parse_uint(P, &st->stream, "stream");
        st->stream_loc = kloc;
        break;
    case IR_AT_SPILL:
        ok = ir_parse_name(P, &ir_fw(P, st)->spill, "a memory space name");
        break;
    case IR_AT_NEXT:
        ok = ir_parse_name(P, &ir_fw(P, st)->next, "a buffer name");
        break;
    case IR_AT_DATA:
        ok = ir_parse_data(P, ir_fw(P, st));
        break;
    case IR_AT_AT:
        ir_fw(P, st)->has_at = true;
        st->fw->at_loc = kloc;
        ok = ir_parse_uint(P, &st->fw->at, "data offset");
        break;
    default:
        abort();
    }
    return ok;
}

/* The attribute key of token `key`, allowed on the statement (`allowed`
 * bits); -1 after reporting an unknown or disallowed one. */
static int ir_attr_key(ir_parser *P, const ir_token *key, unsigned allowed,
                       const char *stmt_name) {
    int k = -1;
    for (int i = 0; i < IR_AT_COUNT; i++)
        if (ir_tok_is(key, ir_attr_names[i]))
            k = i;
    if (k >= 0 && (allowed & (1u << k)))
        return k;
    char list[128];
    ir_attr_list(allowed, list, sizeof list);
    const char *ok_names[IR_AT_COUNT];
    for (int i = 0; i < IR_AT_COUNT; i++)
        ok_names[i] = allowed & (1u << i) ? ir_attr_names[i] : NULL;
    const char *dym = k < 0 ? ir_suggest(key, ok_names, IR_AT_COUNT) : NULL;
    if (dym)
        ir_perr(P, key->col,
                "unknown attribute '%.*s' for '%s'; did you mean '%s'?",
                key->len > 32 ? 32 : (int)key->len, key->s, stmt_name, dym);
    else
        ir_perr(P, key->col, "unknown attribute '%.*s' for '%s' (expected %s)",
                key->len > 32 ? 32 : (int)key->len, key->s, stmt_name, list);
    return -1;
}

/* comm= and group= come together. */
static bool ir_attrs_comm_group(ir_parser *P, const ir_stmt *st) {
    const ir_attrs *at = st->attrs;
    if (at && at->comm.name && !at->group.name) {
        ir_perr(P, at->comm.loc.col,
                "attribute 'comm' requires a 'group' attribute");
        return false;
    }
    if (at && at->group.name && !at->comm.name) {
        ir_perr(P, at->group.loc.col,
                "attribute 'group' requires a 'comm' attribute");
        return false;
    }
    return true;
}

/* attrs = { attr } ;
 * attr  = "device" "=" DEVICE | "space" "=" NAME
 *       | "stride" "=" "[" [ INT { "," INT } ] "]" | "align" "=" INT
 *       | "comm" "=" NAME | "group" "=" NAME | "offset" "=" INT
 *       | "capacity" "=" INT | "stream" "=" INT
 *       | "spill" "=" NAME | "next" "=" NAME | "data" "=" STRING
 *       | "at" "=" INT | "planned" ;
 * Only the keys in `allowed` are accepted; each at most once. */
bool ir_parse_attrs(ir_parser *P, ir_stmt *st, unsigned allowed,
                    const char *stmt_name) {
    ir_loc seen[IR_AT_COUNT] = {{0, 0}};
    while (P->tok.kind == TK_IDENT) {
        const ir_token key = P->tok;
        int k = ir_attr_key(P, &key, allowed, stmt_name);
        if (k < 0)
            return false;
        ir_loc kloc = ir_tok_loc(P, &key);
        if (seen[k].line) {
            bool muted = P->failed; /* before an invalid byte: no note */
            ir_perr(P, key.col, "duplicate attribute '%s'", ir_attr_names[k]);
            if (!muted)
                base_diag_report(P->d, BASE_SEV_NOTE, seen[k].line, seen[k].col,
                                 "first given here");
            return false;
        }
        seen[k] = kloc;
        ir_next(P);
        if (k == IR_AT_PLANNED) { /* a flag: no value */
            ir_fw(P, st)->planned = true;
            st->fw->planned_loc = kloc;
            continue;
        }
        if (P->tok.kind != TK_EQ) {
            char what[64];
            snprintf(what, sizeof what, "'=' after '%s'", ir_attr_names[k]);
            return ir_expected(P, what);
        }
        ir_next(P);
        if (!ir_parse_attr_value(P, st, k, kloc))
            return false;
    }
    return ir_attrs_comm_group(P, st) && ir_attrs_pairs(P, st, seen);
}

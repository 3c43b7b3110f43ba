/*
 * codegen/view_stmts.c - the "statements" section: per IR statement its
 * events (bind, reuse, alloc, alias, call, wait, death, output, ...).
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* keep_key's answers by key (cg_keep_site). */
static cg_keep_site site_decl;
static cg_keep_site site_name_str;
static cg_keep_site site_comment;
static cg_keep_site site_args;
static cg_keep_site site_expr;
static cg_keep_site site_expr_stream;
static cg_keep_site site_size_text;
static cg_keep_site site_from;

/* ------------------------------------------------------------------ */
/* Statements and events. */

const char *const cg_event_kinds[] = {
    "bind", "reuse", "alloc", "alloc_output", "alias",
    "call", "del",   "death", "output",       "wait",
};
_Static_assert(sizeof cg_event_kinds / sizeof cg_event_kinds[0] ==
                   CG_NEVENT_KINDS,
               "the event kinds of docs/view.md");
const size_t cg_nevent_kinds = CG_NEVENT_KINDS;

/* An event: {kind: KIND, KIND: {fields}}.  The root of the view holds
 * KIND: false for every kind, so that a strict template may test any kind
 * inside any event (the lookup falls through to the root). */
mst_val cg_event_n(vw *v, const char *kind, size_t kn, uint64_t h,
                   uint64_t bits, mst_val *body) {
    static cg_keep_site site;
    mst_val e = nobj(v);
    if (keep_at(v, &site, "kind", 4))
        mst_v_set(v->el, e, "kind", 4, mst_v_str(kind, kn));
    /* event kinds are always kept (cg_keep_internal); b, not *body, is
     * set: *body's two stores read back at once stalled (no forwarding) */
    mst_val b = nobj(v);
    *body = b;
    mst_v_set_hashed(v->el, e, kind, kn, h, bits, b);
    return e;
}

/* "decl" of value val: "PTR_TYPE LOCAL", made in v->str only when kept,
 * from parts whose lengths are known.  Made at each use (the event of
 * the value's definition asks once): kept for the view's life, a copy
 * per value cost more in pages first touched than making it again. */
static void nset_decl(vw *v, mst_val o, int32_t val) {
    if (o.type != MST_OBJECT || !keep_at(v, &site_decl, "decl", 4))
        return;
    const char *t = cg_ptr_type(v, val);
    cg_part x[] = {{t, cg_lasting_len(v, t)},
                   {v->local[val], cg_local_len(v, val)}};
    size_t n;
    const char *d = cg_catn(v, x, 2, &n);
    mst_v_set(v->el, o, "decl", 4, mst_v_str(d, n));
}

/* The bytes that are a letter, a digit or '_', by bit (byte c: bit
 * c & 63 of word c >> 6): a name of only those is its own C string
 * literal body. */
static const uint64_t cg_name_bytes[4] = {
    0x03FF000000000000u, /* '0'-'9' */
    0x07FFFFFE87FFFFFEu, /* 'A'-'Z', '_', 'a'-'z' */
    0, 0};

/* "name_str" of an IR name: its C string literal (cg_c_string), made
 * only when kept; a name of letters, digits and '_' (most) needs no
 * escape: quoted as it is. */
static void nset_name_str(vw *v, mst_val o, const char *name) {
    if (o.type != MST_OBJECT || !keep_at(v, &site_name_str, "name_str", 8))
        return;
    size_t n = ir_name_len(name);
    unsigned other = 0; /* a byte not a letter, digit or '_': no branch
                           per byte (names mix letters and digits) */
    for (size_t i = 0; i < n; i++) {
        unsigned c = (unsigned char)name[i];
        other |= (unsigned)~(cg_name_bytes[c >> 6] >> (c & 63)) & 1u;
    }
    if (other) {
        const char *q = cg_c_string(v, name, false);
        mst_v_set(v->el, o, "name_str", 8, mst_v_str(q, strlen(q)));
        return;
    }
    cg_part x[] = {CG_LIT("\""), {name, n}, CG_LIT("\"")};
    const char *q = cg_catn(v, x, 3, &n);
    mst_v_set(v->el, o, "name_str", 8, mst_v_str(q, n));
}

/* An event's "comment", TEXT between comment delimiters, written
 * straight into the element's arena: comment_room returns room for the
 * text of at most max bytes (cg_text_*_max), NULL when the key set
 * leaves "comment" out (nothing to write); comment_end sets the comment
 * whose text ends at e.  The bytes reserved past its end stay unused. */
static char *comment_room(vw *v, size_t max) {
    if (!keep_at(v, &site_comment, "comment", 7))
        return NULL;
    char *c = base_arena_alloc_aligned(v->el, max + 3 + 3 + 1, 1);
    base_copy(c, "/* ", 3);
    return c + 3;
}

static void comment_end(vw *v, mst_val o, char *text, char *e) {
    base_copy(e, " */", 3);
    e[3] = '\0';
    char *c = text - 3;
    nset(v, o, "comment", mst_v_str(c, (size_t)(e + 3 - c)));
}

/* The statement's "comment", "/\* line LINE: TEXT *\/", made only when
 * kept, straight into the element's arena (no builder, no copy: one per
 * statement), with room for the most digits a line number can have: the
 * few bytes past its end are left unused, and the digits are written by
 * base_u64_at (no division). */
static void nset_stmt_comment(vw *v, mst_val o, uint32_t line, const char *txt,
                              size_t tn) {
    if (o.type != MST_OBJECT || !keep_at(v, &site_comment, "comment", 7))
        return;
    char *c = base_arena_alloc_aligned(
        v->el, 8 + BASE_U64_MAX_DIGITS + 2 + tn + 3 + 1, 1);
    base_copy(c, "/* line ", 8);
    char *q = base_u64_at(c + 8, line);
    base_copy(q, ": ", 2);
    base_copy(q + 2, txt, tn);
    base_copy(q + 2 + tn, " */", 3);
    size_t n = (size_t)(q + 2 + tn + 3 - c);
    c[n] = '\0';
    mst_v_set(v->el, o, "comment", 7, mst_v_str(c, n));
}

/* The "wait" events of call s on stream expression `to` (the plan's
 * waits: one per stream, in stream order; a wait's index is its CUDA
 * event). */
static void wait_events(vw *v, const ir_stmt *s, const char *to,
                        mst_val events) {
    const plan_sync *sy = v->sync;
    if (!sy->wait_begin)
        return;
    for (uint32_t i = sy->wait_begin[s->index];
         i < sy->wait_begin[s->index + 1]; i++) {
        const plan_wait *pw = &sy->waits[i];
        mst_val wb;
        mst_val w = cg_event(v, "wait", &wb);
        nsetk(v, wb, "event",
              cg_vfmt(v, "%s->events[%" PRIu32 "]", v->p_ctx, i));
        nset(v, wb, "index", mst_v_int(i));
        nsetk(v, wb, "from",
              cg_stream_expr(
                  v, pw->bit == 0 ? -1 : (int64_t)v->stream_ids[pw->bit - 1]));
        nsetk(v, wb, "to", to);
        nsetname(v, wb, "buffer", v->prog->values[pw->value].name);
        nappend(v, events, w);
    }
}

/* "(TYPE)LOCAL", the local of value val cast to a kernel's parameter
 * type, made in v->str from known lengths; its length in *n. */
static const char *cast_local(vw *v, const char *type, int32_t val, size_t *n) {
    cg_part x[] = {CG_LIT("("),
                   {type, cg_lasting_len(v, type)},
                   CG_LIT(")"),
                   {v->local[val], cg_local_len(v, val)}};
    return cg_catn(v, x, 4, n);
}

/* The decimal literal of x (no octal 010) in v->str; its length in
 * *n. */
static const char *int_literal(vw *v, int64_t x, size_t *n) {
    char *c = base_arena_alloc_aligned(v->str, BASE_U64_MAX_DIGITS + 2, 1);
    char *e = base_i64_at(c, x);
    *e = '\0';
    *n = (size_t)(e - c);
    return c;
}

/* The keys of argument j of call s (kernel k, `ok` as call_arg's) into
 * object q, its C expression ex of n bytes. */
static void call_arg_keys(vw *v, const ir_stmt *s, uint32_t j, int32_t k,
                          bool ok, mst_val q, const char *ex, size_t n) {
    const ir_arg *g = &s->args[j];
    if (g->kind == IR_ARG_BUFFER && g->value >= 0) {
        const ir_value *iv = &v->prog->values[g->value];
        nsetk(v, q, "kind", "buffer");
        nsetname(v, q, "buffer", iv->name);
        nsetl(v, q, "dtype", ir_dtype_name(iv->dtype));
        nset(v, q, "bytes", nu64(iv->bytes));
    } else if (g->kind == IR_ARG_STRING) {
        nsetk(v, q, "kind", "string");
    } else if (g->kind == IR_ARG_INT) {
        nsetk(v, q, "kind", "int");
    } else {
        nsetk(v, q, "kind", "float");
    }
    nsetkn(v, q, "expr", ex, n);
    nsetl(v, q, "ctype", ok ? v->kptype[k][j] : "");
    ir_mode m = cg_param_mode(v, ok ? k : -1, j);
    nsetl(v, q, "mode", g->kind != IR_ARG_BUFFER ? "scalar" : ir_mode_name(m));
    nset(v, q, "last", mst_v_bool(j + 1 == s->nargs));
}

/* The C expression of argument j of call s (kernel k; `ok` when the
 * call matches the kernel's arity), its length in *n (most lengths are
 * the view's: no strlen), and its keys into q when an object (the
 * key set keeps "args"; else only the expression is made). */
static const char *call_arg(vw *v, const ir_stmt *s, uint32_t j, int32_t k,
                            bool ok, mst_val q, size_t *n) {
    const ir_arg *g = &s->args[j];
    const char *ex;
    if (g->kind == IR_ARG_BUFFER && g->value >= 0) {
        int32_t val = g->value;
        if (ok && v->is_const[val] && !v->kconst[k][j]) {
            ex = cast_local(v, v->kptype[k][j], val, n);
        } else {
            ex = v->local[val];
            *n = cg_local_len(v, val);
        }
    } else if (g->kind == IR_ARG_STRING) {
        ex = cg_c_string(v, g->sval ? g->sval : "", false);
        *n = strlen(ex);
    } else if (g->kind == IR_ARG_INT) {
        ex = int_literal(v, g->ival, n);
    } else {
        ex = g->text ? g->text : "";
        *n = strlen(ex);
    }
    if (q.type == MST_OBJECT)
        call_arg_keys(v, s, j, k, ok, q, ex, *n);
    return ex;
}

/* The "call" event of s, after its "wait" events (appended to events). */
/* --guard-bytes: the pooled storages call `s` can write (buffer arguments
 * not declared `in`), each once, in argument order: their guards are
 * checked after the call. */
static mst_val guards_json(vw *v, const ir_stmt *s, int32_t k) {
    mst_val arr = nlist(v);
    for (uint32_t j = 0; j < s->nargs; j++) {
        const ir_arg *g = &s->args[j];
        if (g->kind != IR_ARG_BUFFER || g->value < 0 ||
            cg_param_mode(v, k, j) == IR_MODE_IN)
            continue;
        int32_t sid = v->pl->storage_of_value[g->value];
        if (sid < 0 || v->spool[sid] < 0)
            continue;
        bool seen = false;
        for (uint32_t i = 0; i < j && !seen; i++)
            seen = s->args[i].kind == IR_ARG_BUFFER && s->args[i].value >= 0 &&
                   cg_param_mode(v, k, i) != IR_MODE_IN &&
                   v->pl->storage_of_value[s->args[i].value] == sid;
        if (seen)
            continue;
        const char *nm = v->prog->values[v->pl->storages[sid].value].name;
        mst_val o = nobj(v);
        nsetk(v, o, "name_str", cg_c_string(v, nm, false));
        nsetl(v, o, "pool_local", v->pool_local[v->spool[sid]]);
        nsetm(v, o, "offset_macro", (uint32_t)sid, CG_MACRO_OFFSET);
        nsetm(v, o, "size_macro", (uint32_t)sid, CG_MACRO_SIZE);
        nsetk(v, o, "kernel_str", cg_c_string(v, s->name.name, false));
        nset(v, o, "line", mst_v_int(s->loc.line));
        nappend(v, arr, o);
    }
    return arr;
}

/* "NAME(X0, X1, ...)" of a call's n argument expressions x, or with
 * `tail` (tl bytes) "NAME(X0, ..., TAIL)", in v->str.  Not through
 * cg_catn: its parts with the separators between them cost some 145
 * instructions more a call (callgrind). */
static mst_val call_text(vw *v, const char *name, size_t nl, const cg_part *x,
                         uint32_t n, const char *tail, size_t tl) {
    size_t len = nl + 2 + (tail ? tl + 2 : 0);
    for (uint32_t j = 0; j < n; j++)
        len += x[j].n + 2;
    char *c = base_arena_alloc_aligned(v->str, len + 1, 1), *q = c;
    base_copy(q, name, nl);
    q += nl;
    *q++ = '(';
    for (uint32_t j = 0; j < n; j++) {
        if (j) {
            base_copy(q, ", ", 2);
            q += 2;
        }
        base_copy(q, x[j].p, x[j].n);
        q += x[j].n;
    }
    if (tail) {
        if (n) {
            base_copy(q, ", ", 2);
            q += 2;
        }
        base_copy(q, tail, tl);
        q += tl;
    }
    *q++ = ')';
    *q = '\0';
    return mst_v_str(c, (size_t)(q - c));
}

static mst_val call_event(vw *v, const ir_stmt *s, mst_val events) {
    int32_t k = s->kernel; /* ir_check's */
    mst_val b;
    mst_val e = cg_event(v, "call", &b);
    nsetname(v, b, "kernel", s->name.name);
    nsetl(v, b, "c_name", k >= 0 ? v->kname[k] : s->name.name);
    nset(v, b, "status", mst_v_bool(v->kernel_status));
    nset(v, b, "has_stream", mst_v_bool(s->has_stream));
    nset(v, b, "stream", s->has_stream ? nu64(s->stream) : mst_v_null());
    const char *sx = cg_stream_expr(v, s->has_stream ? (int64_t)s->stream : -1);
    nsetk(v, b, "stream_expr", sx);

    /* the arguments' expressions, then from their lengths "NAME(ARGS)"
     * and "NAME(ARGS, STREAM)" (CUDA's), each only when kept */
    const char *name = k >= 0 ? v->kname[k] : s->name.name;
    size_t nl = k >= 0 ? cg_lasting_len(v, name) : ir_name_len(name);
    cg_part *x = base_arena_array(v->el, (size_t)s->nargs + 1, sizeof *x);
    mst_val arr = nlist(v);
    bool want_args = keep_at(v, &site_args, "args", 4);
    bool ok = k >= 0 && s->nargs == v->knparams[k];
    for (uint32_t j = 0; j < s->nargs; j++) {
        mst_val q = want_args ? nobj(v) : nmissing();
        x[j].p = call_arg(v, s, j, k, ok, q, &x[j].n);
        if (want_args)
            nappend(v, arr, q);
    }
    wait_events(v, s, sx, events);
    nset(v, b, "args", arr);
    if (v->pl->opts.guard_bytes)
        nset(v, b, "guards", guards_json(v, s, ok ? k : -1));
    if (keep_at(v, &site_expr, "expr", 4))
        nset(v, b, "expr", call_text(v, name, nl, x, s->nargs, NULL, 0));
    if (keep_at(v, &site_expr_stream, "expr_stream", 11))
        nset(v, b, "expr_stream",
             call_text(v, name, nl, x, s->nargs, sx, strlen(sx)));
    return e;
}

static void death_event(vw *v, mst_val events, int32_t s) {
    const plan_storage *st = &v->pl->storages[s];
    int32_t pi = v->spool[s];
    if (pi < 0)
        return;
    mst_val b;
    mst_val e = cg_event(v, "death", &b);
    const char *nm = v->prog->values[st->value].name;
    nsetname(v, b, "name", nm);
    nset_name_str(v, b, nm);
    nsetl(v, b, "pool_local", v->pool_local[pi]);
    nsetm(v, b, "offset_macro", (uint32_t)s, CG_MACRO_OFFSET);
    nsetm(v, b, "size_macro", (uint32_t)s, CG_MACRO_SIZE);
    char *c = comment_room(v, cg_text_death_max(v->pl, st->value));
    if (c)
        comment_end(v, b, c, cg_text_death_at(c, v->pl, st->value));
    nappend(v, events, e);
}

/* "P->FIELD" of two strings that live as long as the view (a parameter
 * and a struct field), in v->str from their lengths. */
static mst_val arrow(vw *v, const char *p, const char *field) {
    cg_part x[] = {{p, cg_lasting_len(v, p)},
                   CG_LIT("->"),
                   {field, cg_lasting_len(v, field)}};
    size_t n;
    const char *c = cg_catn(v, x, 3, &n);
    return mst_v_str(c, n);
}

/* The "bind" event of an input or const statement. */
static void bind_event(vw *v, const ir_stmt *s, mst_val events) {
    const ir_program *p = v->prog;
    if (s->value < 0)
        return;
    mst_val b;
    mst_val e = cg_event(v, "bind", &b);
    nsetname(v, b, "name", p->values[s->value].name);
    nsetlocal(v, b, "local", s->value);
    nset_decl(v, b, s->value);
    const char *field = v->io_field[s->value];
    nset(v, b, "expr", arrow(v, s->kind == IR_INPUT ? v->p_in : v->p_c, field));
    nset(v, b, "unused", mst_v_bool(!v->used[s->value]));
    nsetl(v, b, "field", field);
    nappend(v, events, e);
}

/* The "alloc_output" event of value val: storage sid is an output's
 * memory. */
static void alloc_output_event(vw *v, int32_t val, int32_t sid,
                               mst_val events) {
    const ir_program *p = v->prog;
    mst_val b;
    mst_val e = cg_event(v, "alloc_output", &b);
    int32_t hv = v->pl->storages[sid].owner;
    nsetname(v, b, "name", p->values[val].name);
    nsetname(v, b, "output", p->values[hv].name);
    nsetlocal(v, b, "local", val);
    nset_decl(v, b, val);
    nsetl(v, b, "ptr_type", cg_ptr_type(v, val));
    const char *field = v->out_field[v->pl->storages[sid].owner_pos];
    nsetl(v, b, "field", field);
    uint64_t sz = v->pl->storages[sid].size;
    if (keep_at(v, &site_size_text, "size_text", 9))
        nsetk(v, b, "size_text",
              cg_vfmt(v, "%" PRIu64 " byte%s", sz, sz == 1 ? "" : "s"));
    bool same = p->values[hv].dtype == p->values[val].dtype;
    nset(v, b, "same_type", mst_v_bool(same));
    nset(v, b, "unused", mst_v_bool(!v->used[val]));
    const char *ex = cg_vfmt(v, "%s->%s", v->p_out, field);
    if (!same)
        ex = cg_vfmt(v, "(%s)(void *)%s", cg_ptr_type(v, val), ex);
    nsetk(v, b, "expr", ex);
    nappend(v, events, e);
}

/* The "reuse" event (when the storage takes a dead one's bytes) and the
 * "alloc" event of value val in pooled storage sid. */
static void alloc_events(vw *v, int32_t val, int32_t sid, mst_val events) {
    const ir_program *p = v->prog;
    const plan_storage *st = &v->pl->storages[sid];
    int32_t pi = v->spool[sid];
    if (st->reuse_of >= 0) {
        const plan_storage *old = &v->pl->storages[st->reuse_of];
        mst_val b;
        mst_val e = cg_event(v, "reuse", &b);
        nsetname(v, b, "new", p->values[val].name);
        nsetname(v, b, "old", p->values[old->value].name);
        nsetl(v, b, "pool", v->pool_name[pi]);
        nset(v, b, "offset", nu64(st->offset));
        if (keep_at(v, &site_from, "from", 4)) { /* not built in vain */
            mst_val from = nlist(v);
            for (uint32_t i = 0; i < st->ndonors; i++) {
                const plan_donor *d = &v->pl->donors[st->donor_begin + i];
                mst_val o = nobj(v);
                nsetname(v, o, "name",
                         p->values[v->pl->storages[d->storage].value].name);
                nset(v, o, "lo", nu64(d->lo));
                nset(v, o, "hi", nu64(d->hi));
                nappend(v, from, o);
            }
            nset(v, b, "from", from);
        }
        char *c = comment_room(v, cg_text_reuse_max(v->pl, sid));
        if (c)
            comment_end(v, b, c, cg_text_reuse_at(c, v->pl, sid));
        nappend(v, events, e);
    }
    mst_val b;
    mst_val e = cg_event(v, "alloc", &b);
    nsetname(v, b, "name", p->values[val].name);
    nset_name_str(v, b, p->values[val].name);
    nsetlocal(v, b, "local", val);
    nset_decl(v, b, val);
    nsetl(v, b, "ptr_type", cg_ptr_type(v, val));
    nsetl(v, b, "pool", v->pool_name[pi]);
    nsetl(v, b, "pool_local", v->pool_local[pi]);
    nsetm(v, b, "offset_macro", (uint32_t)sid, CG_MACRO_OFFSET);
    nsetm(v, b, "size_macro", (uint32_t)sid, CG_MACRO_SIZE);
    nset(v, b, "offset", nu64(st->offset));
    nset(v, b, "size", nu64(st->size));
    char *c = comment_room(v, cg_text_alloc_max(v->pl, sid));
    if (c)
        comment_end(v, b, c, cg_text_alloc_at(c, v->pl, sid));
    nset(v, b, "unused", mst_v_bool(!v->used[val]));
    nappend(v, events, e);
}

/* The "alias" event of an alias statement. */
static void alias_event(vw *v, const ir_stmt *s, mst_val events) {
    int32_t val = s->value;
    if (val < 0)
        return;
    mst_val b;
    mst_val e = cg_event(v, "alias", &b);
    nsetname(v, b, "new", s->name.name);
    nsetname(v, b, "old", s->old.name);
    char *c = comment_room(v, cg_text_alias_max(v->pl, s));
    if (c)
        comment_end(v, b, c, cg_text_alias_at(c, v->pl, s));
    nsetlocal(v, b, "local", val);
    nset_decl(v, b, val);
    nsetk(v, b, "expr", cg_alias_expr(v, val));
    nset(v, b, "unused", mst_v_bool(!v->used[val]));
    nappend(v, events, e);
}

/* The "del" events of a free statement and the "output" events of the
 * output statement. */
static void names_events(vw *v, const ir_stmt *s, mst_val events) {
    for (uint32_t j = 0; j < s->nnames; j++) {
        mst_val b;
        if (s->kind == IR_FREE) {
            mst_val e = cg_event(v, "del", &b);
            nsetname(v, b, "name", s->names[j].name);
            char *c = comment_room(v, cg_text_del_max(v->pl, s, j));
            if (c)
                comment_end(v, b, c, cg_text_del_at(c, v->pl, s, j));
            nappend(v, events, e);
            continue;
        }
        int32_t val = cg_output_value_at(v, j);
        if (plan_planned_output(v->pl, val))
            continue; /* the caller reads it in the pools */
        mst_val e = cg_event(v, "output", &b);
        nsetname(v, b, "name", s->names[j].name);
        nsetlocal(v, b, "src", val);
        nset(v, b, "copied", mst_v_bool(v->out_copy[j]));
        nset(v, b, "dst", arrow(v, v->p_out, v->out_field[j]));
        nsetl(v, b, "size_macro", v->out_size_macro[j]);
        nappend(v, events, e);
    }
}

/* The events of statement s, in order, before its deaths. */
static void stmt_events(vw *v, const ir_stmt *s, mst_val events) {
    const plan *pl = v->pl;
    switch (s->kind) {
    case IR_INPUT:
    case IR_CONST:
        /* a planned input is in the pools (docs/firmware.md) */
        if (s->value < 0 || pl->storage_of_value[s->value] < 0) {
            bind_event(v, s, events);
            break;
        }
        /* fall through */
    case IR_STATE:
    case IR_ALLOC: {
        int32_t val = s->value;
        int32_t sid = val < 0 ? -1 : pl->storage_of_value[val];
        if (sid < 0)
            break;
        if (v->spool[sid] < 0)
            alloc_output_event(v, val, sid, events);
        else
            alloc_events(v, val, sid, events);
        break;
    }
    case IR_ALIAS:
        alias_event(v, s, events);
        break;
    case IR_CALL:
        nappend(v, events, call_event(v, s, events));
        break;
    case IR_FREE:
    case IR_OUTPUT:
        names_events(v, s, events);
        break;
    default:
        break;
    }
}

void cg_plan_statements(vw *v) {
    const ir_program *p = v->prog;
    const plan *pl = v->pl;
    /* deaths by statement, and the statements' IR lines (live_at's):
     * one block, which at 10^5 kernels is large enough to be mapped for
     * huge pages (base/arena.c), where three arrays of their own cost
     * a page fault per 4 KiB */
    size_t ns = (size_t)p->nstmts + 1, nst = (size_t)pl->nstorages + 1;
    int32_t *blk = base_arena_array(v->a, 2 * ns + nst, sizeof(int32_t));
    v->death_head = blk;
    v->death_next = blk + ns;
    uint32_t *line = (uint32_t *)(blk + ns + nst);
    for (uint32_t i = 0; i < p->nstmts; i++) {
#if defined(__GNUC__)
        /* the records are read one after the other, but missed */
        if (i + CG_PASS_AHEAD < p->nstmts)
            __builtin_prefetch(&p->stmts[i + CG_PASS_AHEAD].loc.line);
#endif
        v->death_head[i] = -1;
        line[i] = p->stmts[i].loc.line;
    }
    v->stmt_line = line;
    for (uint32_t s = pl->nstorages; s-- > 0;) {
        int32_t at = pl->storages[s].dies_at;
        v->death_next[s] = -1;
        if (at >= 0 && (uint32_t)at < p->nstmts) {
            v->death_next[s] = v->death_head[at];
            v->death_head[at] = (int32_t)s;
        }
    }
}

/* How many statements ahead prefetch_stmt asks for the records an
 * element reads, in three steps: the statement's own record (104 bytes,
 * CG_STMT_AHEAD3), then what it points to (its arguments or the values
 * it frees, and its value's storage: CG_STMT_AHEAD2), then the value
 * records those name (CG_STMT_AHEAD).  Each step reads only what the
 * one before asked for. */
#define CG_STMT_AHEAD 8u
#define CG_STMT_AHEAD2 12u
#define CG_STMT_AHEAD3 16u

/* Asks the cache for the value records statement s's element will read
 * (its value's, its arguments', the names it frees): in value order but
 * some 150 bytes apart, and reached through the statement, a cache miss
 * each when the element is built.  A freed name's record is asked for
 * at its storage_end too (the del comment reads it, 112 bytes on). */
static inline void prefetch_stmt(const vw *v, const ir_stmt *s) {
#if defined(__GNUC__)
    const ir_value *vals = v->prog->values;
    if (s->value >= 0)
        __builtin_prefetch(&vals[s->value]);
    cg_prefetch_call_args(vals, s);
    if (s->kind == IR_FREE && s->name_values) {
        for (uint32_t j = 0; j < s->nnames; j++) { /* no branch: as above */
            int32_t x = s->name_values[j];
            const ir_value *r = &vals[x < 0 ? 0 : x];
            __builtin_prefetch(r);
            __builtin_prefetch(&r->storage_end);
        }
    }
#else
    (void)v;
    (void)s;
#endif
}

/* The steps before prefetch_stmt: the record of statement s (far), and
 * what the record of statement s (near) points to. */
static inline void prefetch_stmt_far(const vw *v, const ir_stmt *far,
                                     const ir_stmt *near) {
#if defined(__GNUC__)
    __builtin_prefetch(far);
    __builtin_prefetch((const char *)far + sizeof *far - 1);
    if (near->kind == IR_CALL && near->nargs)
        __builtin_prefetch(near->args);
    else if (near->kind == IR_FREE && near->name_values)
        __builtin_prefetch(near->name_values);
    else if (near->value >= 0)
        __builtin_prefetch(&v->pl->storage_of_value[near->value]);
#else
    (void)v;
    (void)far;
    (void)near;
#endif
}

mst_val cg_statement_val(vw *v, uint32_t i) {
    const ir_stmt *s = &v->prog->stmts[i];
    if (i + CG_STMT_AHEAD3 < v->prog->nstmts)
        prefetch_stmt_far(v, &v->prog->stmts[i + CG_STMT_AHEAD3],
                          &v->prog->stmts[i + CG_STMT_AHEAD2]);
    if (i + CG_STMT_AHEAD < v->prog->nstmts)
        prefetch_stmt(v, &v->prog->stmts[i + CG_STMT_AHEAD]);
    mst_val o = nobj(v);
    mst_val events = nlist(v);
    nset(v, o, "index", mst_v_int(i));
    nset(v, o, "line", mst_v_int(s->loc.line));
    size_t tn = 0;
    const char *txt = cg_stmt_text(v, s, &tn);
    nset(v, o, "emit", mst_v_bool(txt != NULL));
    nset(v, o, "ir", mst_v_str(txt ? txt : "", tn));
    if (!txt)
        nsetk(v, o, "comment", "");
    else
        nset_stmt_comment(v, o, s->loc.line, txt, tn);
    stmt_events(v, s, events);
    for (int32_t d = v->death_head[i]; d >= 0; d = v->death_next[d])
        death_event(v, events, d);
    nset(v, o, "events", events);
    if (v->npairs)           /* no state pairs: nothing to change */
        cg_fw_stmt(v, o);    /* fw_view.c */
    cg_graphs_stmt(v, o, i); /* view_graphs.c */
    return o;
}

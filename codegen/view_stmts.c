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

void cg_recycle_free(vw *v) {
    for (size_t k = 0; k < CG_NEVENT_KINDS; k++) {
        struct cg_rec_pool *p = &v->rec[k];
        for (size_t i = 0; i < p->n; i++) {
            json_decref(p->e[i]);
            json_decref(p->body[i]);
        }
        free(p->e);
        free(p->body);
        memset(p, 0, sizeof *p);
    }
    json_decref(v->rec_stmt);
    json_decref(v->rec_events);
    json_decref(v->rec_buffer);
    v->rec_stmt = v->rec_events = v->rec_buffer = NULL;
}

void cg_recycle_begin(vw *v, bool on) {
    v->recycle = on;
    if (on && v->rec_section != v->section) {
        cg_recycle_free(v); /* built with other keys */
        v->rec_section = v->section;
    }
    for (size_t k = 0; k < CG_NEVENT_KINDS; k++)
        v->rec[k].used = 0;
}

json_t *cg_reuse(vw *v, json_t **slot) {
    if (!v->recycle)
        return NULL;
    if (*slot && (*slot)->refcount == 1)
        return json_incref(*slot);
    json_decref(*slot); /* still held elsewhere: let it go */
    *slot = NULL;
    return NULL;
}

/* o, new, kept in *slot while recycling. */
static json_t *keep_for_reuse(const vw *v, json_t **slot, json_t *o) {
    if (v->recycle) {
        json_decref(*slot);
        *slot = json_incref(o);
    }
    return o;
}

/* The index of event kind `kind` in cg_event_kinds. */
static size_t event_kind_index(const char *kind) {
    size_t k = 0;
    while (k + 1 < CG_NEVENT_KINDS && strcmp(cg_event_kinds[k], kind) != 0)
        k++;
    return k;
}

/* An event: {kind: KIND, KIND: {fields}}.  The root of the view holds
 * KIND: false for every kind, so that a strict template may test any kind
 * inside any event (the lookup falls through to the root).  While
 * recycling, the next of the last element's events of this kind whose
 * body is free is refilled. */
json_t *cg_event(vw *v, const char *kind, json_t **body) {
    struct cg_rec_pool *p = v->recycle ? &v->rec[event_kind_index(kind)] : NULL;
    if (p && p->used < p->n) {
        size_t i = p->used;
        /* free: held by the pool only (the body also by its event) */
        if (p->e[i]->refcount == 1 && p->body[i]->refcount == 2) {
            p->used++;
            *body = p->body[i];
            return json_incref(p->e[i]);
        }
        for (size_t j = i; j < p->n; j++) { /* still held: let them go */
            json_decref(p->e[j]);
            json_decref(p->body[j]);
        }
        p->n = i;
    }
    json_t *e = json_object();
    setk(v, e, "kind", kind);
    /* e holds the body (event kinds are always kept: cg_keep_internal) */
    *body = json_object();
    set_n(v, e, kind, strlen(kind), *body);
    if (p && p->used == p->n) {
        if (p->n == p->cap) {
            p->cap = p->cap ? 2 * p->cap : 4;
            p->e = base_xrealloc(p->e, p->cap * sizeof *p->e);
            p->body = base_xrealloc(p->body, p->cap * sizeof *p->body);
        }
        p->e[p->n] = json_incref(e);
        p->body[p->n] = json_incref(*body);
        p->n++;
        p->used++;
    }
    return e;
}

/* An event's "comment", TEXT between comment delimiters, written
 * straight into v->csb
 * and from there into its json string: comment_begin starts it (false
 * when the key set leaves "comment" out: nothing to write), the caller
 * appends TEXT, comment_end sets it on o. */
static bool comment_begin(vw *v) {
    if (!keep_key(v, "comment", 7))
        return false;
    base_sb_clear(&v->csb);
    base_sb_puts(&v->csb, "/* ");
    return true;
}

static void comment_end(vw *v, json_t *o) {
    base_sb_puts(&v->csb, " */");
    set(v, o, "comment", json_stringn_nocheck(v->csb.p, v->csb.len));
}

/* The "wait" events of call s on stream expression `to` (the plan's
 * waits: one per stream, in stream order; a wait's index is its CUDA
 * event). */
static void wait_events(vw *v, const ir_stmt *s, const char *to,
                        json_t *events) {
    const plan_sync *sy = v->sync;
    for (uint32_t i = sy->wait_begin[s->index];
         i < sy->wait_begin[s->index + 1]; i++) {
        const plan_wait *pw = &sy->waits[i];
        json_t *wb;
        json_t *w = cg_event(v, "wait", &wb);
        sets(v, wb, "event",
             cg_vfmt(v, "%s->events[%" PRIu32 "]", v->p_ctx, i));
        set(v, wb, "index", json_integer(i));
        sets(v, wb, "from",
             cg_stream_expr(
                 v, pw->bit == 0 ? -1 : (int64_t)v->stream_ids[pw->bit - 1]));
        sets(v, wb, "to", to);
        sets(v, wb, "buffer", v->prog->values[pw->value].name);
        json_array_append_new(events, w);
    }
}

/* The view of argument j of call s (kernel k; `ok` when the call matches
 * the kernel's arity), into q (NULL: not kept); returns its C
 * expression. */
static const char *call_arg(vw *v, const ir_stmt *s, uint32_t j, int32_t k,
                            bool ok, json_t *q) {
    const ir_arg *g = &s->args[j];
    const char *ex = g->text ? g->text : "";
    const char *ptype = ok ? v->kptype[k][j] : "";
    ir_mode m = cg_param_mode(v, ok ? k : -1, j);
    if (g->kind == IR_ARG_BUFFER && g->value >= 0) {
        int32_t val = g->value;
        const ir_value *iv = &v->prog->values[val];
        ex = v->local[val];
        if (ok && v->is_const[val] && !v->kconst[k][j])
            ex = cg_vfmt(v, "(%s)%s", ptype, ex);
        sets(v, q, "kind", "buffer");
        setk(v, q, "buffer", iv->name);
        setk(v, q, "dtype", ir_dtype_name(iv->dtype));
        set(v, q, "bytes", ju64(iv->bytes));
    } else if (g->kind == IR_ARG_STRING) {
        ex = cg_c_string(v, g->sval ? g->sval : "", false);
        sets(v, q, "kind", "string");
    } else if (g->kind == IR_ARG_INT) {
        ex = cg_vfmt(v, "%" PRId64, g->ival); /* decimal: no octal 010 */
        sets(v, q, "kind", "int");
    } else {
        sets(v, q, "kind", "float");
    }
    sets(v, q, "expr", ex);
    sets(v, q, "ctype", ptype);
    sets(v, q, "mode", g->kind != IR_ARG_BUFFER ? "scalar" : ir_mode_name(m));
    set(v, q, "last", json_boolean(j + 1 == s->nargs));
    return ex;
}

/* The "call" event of s, after its "wait" events (appended to events). */
/* --guard-bytes: the pooled storages call `s` can write (buffer arguments
 * not declared `in`), each once, in argument order: their guards are
 * checked after the call. */
static json_t *guards_json(vw *v, const ir_stmt *s, int32_t k) {
    json_t *arr = json_array();
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
        json_t *o = json_object();
        sets(v, o, "name_str", cg_c_string(v, nm, false));
        sets(v, o, "pool_local", v->pool_local[v->spool[sid]]);
        setk(v, o, "offset_macro", v->off_macro[sid]);
        setk(v, o, "size_macro", v->size_macro[sid]);
        sets(v, o, "kernel_str", cg_c_string(v, s->name.name, false));
        set(v, o, "line", json_integer(s->loc.line));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *call_event(vw *v, const ir_stmt *s, json_t *events) {
    int32_t k = v->kernel_of_stmt[s->index];
    json_t *b;
    json_t *e = cg_event(v, "call", &b);
    setk(v, b, "kernel", s->name.name);
    sets(v, b, "c_name", k >= 0 ? v->kname[k] : s->name.name);
    set(v, b, "status", json_boolean(v->kernel_status));
    set(v, b, "has_stream", json_boolean(s->has_stream));
    set(v, b, "stream", s->has_stream ? ju64(s->stream) : json_null());
    const char *sx = cg_stream_expr(v, s->has_stream ? (int64_t)s->stream : -1);
    sets(v, b, "stream_expr", sx);

    sbuf args;
    cg_sb_init(&args);
    json_t *arr = json_array();
    bool want_args = keep_key(v, "args", 4);
    bool ok = k >= 0 && s->nargs == v->knparams[k];
    for (uint32_t j = 0; j < s->nargs; j++) {
        json_t *q = want_args ? json_object() : NULL;
        const char *ex = call_arg(v, s, j, k, ok, q);
        if (q)
            json_array_append_new(arr, q);
        if (j)
            cg_sb_put(&args, ", ", 2);
        cg_sb_put(&args, ex, strlen(ex));
    }
    wait_events(v, s, sx, events);
    set(v, b, "args", arr);
    if (v->pl->opts.guard_bytes)
        set(v, b, "guards", guards_json(v, s, ok ? k : -1));
    const char *cn = k >= 0 ? v->kname[k] : s->name.name;
    const char *as = cg_sb_done(v, &args);
    sets(v, b, "expr", cg_cat(v, 4, cn, "(", as, ")"));
    sets(v, b, "expr_stream",
         cg_cat(v, 6, cn, "(", as, s->nargs ? ", " : "", sx, ")"));
    return e;
}

static void death_event(vw *v, json_t *events, int32_t s) {
    const plan_storage *st = &v->pl->storages[s];
    int32_t pi = v->spool[s];
    if (pi < 0)
        return;
    json_t *b;
    json_t *e = cg_event(v, "death", &b);
    const char *nm = v->prog->values[st->value].name;
    setk(v, b, "name", nm);
    sets(v, b, "name_str", cg_c_string(v, nm, false));
    setk(v, b, "pool_local", v->pool_local[pi]);
    setk(v, b, "offset_macro", v->off_macro[s]);
    setk(v, b, "size_macro", v->size_macro[s]);
    if (comment_begin(v)) {
        cg_text_death_to(&v->csb, v->pl, st->value);
        comment_end(v, b);
    }
    json_array_append_new(events, e);
}

/* The "bind" event of an input or const statement. */
static void bind_event(vw *v, const ir_stmt *s, json_t *events) {
    const ir_program *p = v->prog;
    if (s->value < 0)
        return;
    json_t *b;
    json_t *e = cg_event(v, "bind", &b);
    setk(v, b, "name", p->values[s->value].name);
    setk(v, b, "local", v->local[s->value]);
    setk(v, b, "decl", cg_decl_of(v, s->value));
    const char *field = v->io_field[s->value];
    sets(v, b, "expr",
         cg_vfmt(v, "%s->%s", s->kind == IR_INPUT ? v->p_in : v->p_c, field));
    set(v, b, "unused", json_boolean(!v->used[s->value]));
    setk(v, b, "field", field);
    json_array_append_new(events, e);
}

/* The "alloc_output" event of value val: storage sid is an output's
 * memory. */
static void alloc_output_event(vw *v, int32_t val, int32_t sid,
                               json_t *events) {
    const ir_program *p = v->prog;
    json_t *b;
    json_t *e = cg_event(v, "alloc_output", &b);
    int32_t hv = v->pl->storages[sid].owner;
    setk(v, b, "name", p->values[val].name);
    setk(v, b, "output", p->values[hv].name);
    setk(v, b, "local", v->local[val]);
    setk(v, b, "decl", cg_decl_of(v, val));
    setk(v, b, "ptr_type", cg_ptr_type(v, val));
    const char *field = v->out_field[v->pl->storages[sid].owner_pos];
    setk(v, b, "field", field);
    uint64_t sz = v->pl->storages[sid].size;
    sets(v, b, "size_text",
         cg_vfmt(v, "%" PRIu64 " byte%s", sz, sz == 1 ? "" : "s"));
    bool same = p->values[hv].dtype == p->values[val].dtype;
    set(v, b, "same_type", json_boolean(same));
    set(v, b, "unused", json_boolean(!v->used[val]));
    const char *ex = cg_vfmt(v, "%s->%s", v->p_out, field);
    if (!same)
        ex = cg_vfmt(v, "(%s)(void *)%s", cg_ptr_type(v, val), ex);
    sets(v, b, "expr", ex);
    json_array_append_new(events, e);
}

/* The "reuse" event (when the storage takes a dead one's bytes) and the
 * "alloc" event of value val in pooled storage sid. */
static void alloc_events(vw *v, int32_t val, int32_t sid, json_t *events) {
    const ir_program *p = v->prog;
    const plan_storage *st = &v->pl->storages[sid];
    int32_t pi = v->spool[sid];
    if (st->reuse_of >= 0) {
        const plan_storage *old = &v->pl->storages[st->reuse_of];
        json_t *b;
        json_t *e = cg_event(v, "reuse", &b);
        setk(v, b, "new", p->values[val].name);
        setk(v, b, "old", p->values[old->value].name);
        setk(v, b, "pool", v->pool_name[pi]);
        set(v, b, "offset", ju64(st->offset));
        json_t *from = json_array();
        for (uint32_t i = 0; i < st->ndonors; i++) {
            const plan_donor *d = &v->pl->donors[st->donor_begin + i];
            json_t *o = json_object();
            sets(v, o, "name",
                 p->values[v->pl->storages[d->storage].value].name);
            set(v, o, "lo", ju64(d->lo));
            set(v, o, "hi", ju64(d->hi));
            json_array_append_new(from, o);
        }
        set(v, b, "from", from);
        if (comment_begin(v)) {
            cg_text_reuse_to(&v->csb, v->pl, sid);
            comment_end(v, b);
        }
        json_array_append_new(events, e);
    }
    json_t *b;
    json_t *e = cg_event(v, "alloc", &b);
    setk(v, b, "name", p->values[val].name);
    sets(v, b, "name_str", cg_c_string(v, p->values[val].name, false));
    setk(v, b, "local", v->local[val]);
    setk(v, b, "decl", cg_decl_of(v, val));
    setk(v, b, "ptr_type", cg_ptr_type(v, val));
    setk(v, b, "pool", v->pool_name[pi]);
    setk(v, b, "pool_local", v->pool_local[pi]);
    setk(v, b, "offset_macro", v->off_macro[sid]);
    setk(v, b, "size_macro", v->size_macro[sid]);
    set(v, b, "offset", ju64(st->offset));
    set(v, b, "size", ju64(st->size));
    if (comment_begin(v)) {
        cg_text_alloc_to(&v->csb, v->pl, sid);
        comment_end(v, b);
    }
    set(v, b, "unused", json_boolean(!v->used[val]));
    json_array_append_new(events, e);
}

/* The "alias" event of an alias statement. */
static void alias_event(vw *v, const ir_stmt *s, json_t *events) {
    int32_t val = s->value;
    if (val < 0)
        return;
    json_t *b;
    json_t *e = cg_event(v, "alias", &b);
    setk(v, b, "new", s->name.name);
    setk(v, b, "old", s->old.name);
    if (comment_begin(v)) {
        cg_text_alias_to(&v->csb, v->pl, s);
        comment_end(v, b);
    }
    setk(v, b, "local", v->local[val]);
    setk(v, b, "decl", cg_decl_of(v, val));
    sets(v, b, "expr", cg_alias_expr(v, val));
    set(v, b, "unused", json_boolean(!v->used[val]));
    json_array_append_new(events, e);
}

/* The "del" events of a free statement and the "output" events of the
 * output statement. */
static void names_events(vw *v, const ir_stmt *s, json_t *events) {
    for (uint32_t j = 0; j < s->nnames; j++) {
        json_t *b;
        if (s->kind == IR_FREE) {
            json_t *e = cg_event(v, "del", &b);
            setk(v, b, "name", s->names[j].name);
            if (comment_begin(v)) {
                cg_text_del_to(&v->csb, v->pl, s, j);
                comment_end(v, b);
            }
            json_array_append_new(events, e);
            continue;
        }
        int32_t val = cg_output_value_at(v, j);
        if (plan_planned_output(v->pl, val))
            continue; /* the caller reads it in the pools */
        json_t *e = cg_event(v, "output", &b);
        setk(v, b, "name", s->names[j].name);
        setk(v, b, "src", v->local[val]);
        set(v, b, "copied", json_boolean(v->out_copy[j]));
        sets(v, b, "dst", cg_vfmt(v, "%s->%s", v->p_out, v->out_field[j]));
        setk(v, b, "size_macro", v->out_size_macro[j]);
        json_array_append_new(events, e);
    }
}

/* The events of statement s, in order, before its deaths. */
static void stmt_events(vw *v, const ir_stmt *s, json_t *events) {
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
        json_array_append_new(events, call_event(v, s, events));
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
    /* deaths by statement */
    v->death_head = base_arena_array(v->a, p->nstmts + 1, sizeof(int32_t));
    v->death_next = base_arena_array(v->a, pl->nstorages + 1, sizeof(int32_t));
    for (uint32_t i = 0; i < p->nstmts; i++)
        v->death_head[i] = -1;
    for (uint32_t s = pl->nstorages; s-- > 0;) {
        int32_t at = pl->storages[s].dies_at;
        v->death_next[s] = -1;
        if (at >= 0 && (uint32_t)at < p->nstmts) {
            v->death_next[s] = v->death_head[at];
            v->death_head[at] = (int32_t)s;
        }
    }
}

json_t *cg_statement_json(vw *v, uint32_t i) {
    const ir_stmt *s = &v->prog->stmts[i];
    json_t *o = cg_reuse(v, &v->rec_stmt);
    /* the events array: held by the statement and the pool */
    json_t *events = o && v->rec_events && v->rec_events->refcount == 2
                         ? json_incref(v->rec_events)
                         : NULL;
    if (events) {
        json_array_clear(events); /* frees its events for cg_event */
    } else {
        json_decref(o);
        o = keep_for_reuse(v, &v->rec_stmt, json_object());
        events = keep_for_reuse(v, &v->rec_events, json_array());
    }
    set(v, o, "index", json_integer(i));
    set(v, o, "line", json_integer(s->loc.line));
    const char *txt = cg_stmt_text(v, s);
    set(v, o, "emit", json_boolean(txt != NULL));
    sets(v, o, "ir", txt ? txt : "");
    if (!txt) {
        setk(v, o, "comment", "");
    } else if (comment_begin(v)) {
        base_sb_puts(&v->csb, "line ");
        base_sb_u64(&v->csb, s->loc.line);
        base_sb_puts(&v->csb, ": ");
        base_sb_puts(&v->csb, txt);
        comment_end(v, o);
    }
    stmt_events(v, s, events);
    for (int32_t d = v->death_head[i]; d >= 0; d = v->death_next[d])
        death_event(v, events, d);
    set(v, o, "events", events);
    cg_fw_stmt(v, o);        /* fw_view.c */
    cg_graphs_stmt(v, o, i); /* view_graphs.c */
    return o;
}

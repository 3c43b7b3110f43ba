/*
 * ir/check.c - the semantic checker of IR v1 (docs/ir.md, "Meaning").
 *
 * One pass over the statements in order (the time axis) resolves every
 * name to a value, computes sizes and placements, and tracks liveness per
 * name and per storage; two small pre-passes collect kernel signatures
 * (so that a call may precede its signature) and detect alias cycles.
 * Names are interned (ir/intern.h): a name's state is in its record, O(1)
 * per lookup without hashing, O(n) for the whole program; output never
 * depends on hash order.  Buffers and aliases are checked in
 * ir/check_values.c, calls and kernels in ir/check_calls.c.
 *
 * After an error the checker keeps going: a name whose definition is wrong
 * is still defined (as a "poisoned" value) so that later uses of it do not
 * cascade into further errors.
 *
 * After a syntax error (ir_load checks the program of the recovering
 * parser) the same holds for the lines the parser could not read: a broken
 * statement counts by its kind and name only (a name it defines is
 * poisoned, its other fields are never read), and the errors a dropped
 * statement could have caused are not reported: "undefined" names and
 * spaces after a statement whose name was lost, kernel signatures that are
 * broken, storages placed by a broken `device`, "missing model" when some
 * line could be it, and every warning (docs/ir.md, "After a syntax
 * error").
 */
#include "check_internal.h"

#include <stdlib.h>
#include <string.h>

void ir_cerr(ir_checker *C, ir_loc loc, const char *fmt, ...) {
    C->errors++;
    va_list ap;
    va_start(ap, fmt);
    base_diag_vreport(C->d, BASE_SEV_ERROR, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

void ir_cnote(ir_checker *C, ir_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_diag_vreport(C->d, BASE_SEV_NOTE, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

ir_slot *ir_insert(const ir_checker *C, int ns, const char *name, int32_t id,
                   int32_t first) {
    ir_slot *e = ir_slot_of(C, ns, name);
    e->id = id;
    e->first = first;
    return e;
}

/* Makes every name of a program not made by ir_parse point into name
 * records, as ir_parse does. */
static void ir_intern_program(ir_program *p) {
    ir_intern_table t = {0};
    base_arena *a = p->arena;
#define IR_INTERN(s)                                                           \
    do {                                                                       \
        if (s)                                                                 \
            (s) = ir_intern(a, &t, (s), strlen(s));                            \
    } while (0)
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_stmt *st = &p->stmts[i];
        IR_INTERN(st->name.name);
        if (st->attrs) {
            IR_INTERN(st->attrs->space.name);
            IR_INTERN(st->attrs->comm.name);
            IR_INTERN(st->attrs->group.name);
        }
        if (st->kind == IR_ALIAS)
            IR_INTERN(st->old.name);
        for (uint32_t k = 0; k < st->nargs; k++)
            if (st->args[k].kind == IR_ARG_BUFFER)
                IR_INTERN(st->args[k].text);
        if (st->kind == IR_FREE || st->kind == IR_OUTPUT)
            for (uint32_t k = 0; k < st->nnames; k++)
                IR_INTERN(st->names[k].name);
    }
#undef IR_INTERN
    ir_intern_free(&t);
    p->names_interned = true;
}

/* The live buffer name closest to `name` ("did you mean"), or NULL.  Scans
 * the names defined so far; at most 64 searches per program, so that a
 * file of undefined names stays linear. */
static const char *ir_suggest_value(ir_checker *C, const char *name) {
    const ir_program *p = C->p;
    if (C->suggestions >= 64 || p->nvalues == 0)
        return NULL;
    C->suggestions++;
    const char **cands = base_xcalloc(p->nvalues, sizeof *cands);
    for (uint32_t i = 0; i < p->nvalues; i++)
        if (p->values[i].freed_at < 0)
            cands[i] = p->values[i].name;
    size_t k = base_closest(name, strlen(name), cands, p->nvalues);
    const char *s = k == SIZE_MAX ? NULL : cands[k];
    free(cands);
    return s;
}

/* "use of undefined name 'x'", with "; did you mean 'y'?" when a live name
 * is close. */
void ir_undefined(ir_checker *C, ir_loc loc, const char *what,
                  const char *name) {
    const char *dym = ir_suggest_value(C, name);
    if (dym)
        ir_cerr(C, loc, "%s undefined name '%s'; did you mean '%s'?", what,
                name, dym);
    else
        ir_cerr(C, loc, "%s undefined name '%s'", what, name);
}

/* Looks up a buffer name used at `id`; reports undefined names and uses
 * after free.  `what` completes "use of" / "... after free" messages.
 * Returns the value id, or -1 after an error. */
int32_t ir_use(ir_checker *C, const ir_ident *id, const char *what) {
    ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, id->name);
    if (!e || e->id < 0) {
        if (!C->lost_values)
            ir_undefined(C, id->loc, what, id->name);
        return -1;
    }
    ir_value *v = &C->p->values[e->id];
    if (v->freed_at >= 0) {
        ir_cerr(C, id->loc, "%s '%s' after it was freed", what, id->name);
        ir_cnote(C, ir_free_loc(C, e->id), "'%s' was freed here", id->name);
        return -1;
    }
    return e->id;
}

/* Defines a value for statement `st`; reports redefinitions.  Returns the
 * new value, or NULL when the name was already defined. */
ir_value *ir_define(ir_checker *C, ir_stmt *st, ir_value_kind kind) {
    ir_program *p = C->p;
    ir_name_ent *e = ir_slot_of(C, IR_NS_VALUE, st->name.name);
    if (e->first != (int32_t)st->index) {
        ir_cerr(C, st->name.loc, "redefinition of '%s'", st->name.name);
        ir_cnote(C, p->stmts[e->first].name.loc, "previously defined here");
        return NULL;
    }
    int32_t id = (int32_t)p->nvalues++;
    ir_value *v = &p->values[id];
    v->name = st->name.name;
    v->kind = kind;
    v->def = st->index;
    v->alias_of = -1;
    v->root = id;
    v->freed_at = -1;
    v->output_index = -1;
    v->storage_end = -1;
    v->state_next = -1;
    v->next_of = -1;
    st->value = id;
    e->id = id;
    return v;
}

static void ir_check_free(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    st->name_values = base_arena_array(p->arena, st->nnames, sizeof(int32_t));
    for (uint32_t i = 0; i < st->nnames; i++)
        st->name_values[i] = -1;
    if (st->broken)
        return; /* which names it frees is unknown */
    for (uint32_t i = 0; i < st->nnames; i++) {
        const ir_ident *id = &st->names[i];
        st->name_values[i] = -1;
        ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, id->name);
        if (!e || e->id < 0) {
            if (!C->lost_values)
                ir_undefined(C, id->loc, "free of", id->name);
            continue;
        }
        ir_value *v = &p->values[e->id];
        if (v->freed_at >= 0) {
            ir_cerr(C, id->loc, "double free of '%s'", id->name);
            ir_cnote(C, ir_free_loc(C, e->id), "first freed here");
            continue;
        }
        st->name_values[i] = e->id;
        v->freed_at = (int32_t)st->index;
        C->free_pos[e->id] = i;
        if (C->live[v->root] > 0 && --C->live[v->root] == 0)
            p->values[v->root].storage_end = (int32_t)st->index;
    }
}

static void ir_check_output(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    st->name_values = base_arena_array(p->arena, st->nnames, sizeof(int32_t));
    for (uint32_t i = 0; i < st->nnames; i++)
        st->name_values[i] = -1;
    if (p->output_stmt >= 0) {
        ir_cerr(C, st->loc, "second 'output' statement (it may appear once)");
        ir_cnote(C, p->stmts[p->output_stmt].loc,
                 "previous 'output' statement here");
        return;
    }
    p->output_stmt = (int32_t)st->index;
    if (st->broken)
        return; /* which names it lists is unknown */
    for (uint32_t i = 0; i < st->nnames; i++) {
        const ir_ident *id = &st->names[i];
        ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, id->name);
        if (!e || e->id < 0) {
            if (!C->lost_values)
                ir_undefined(C, id->loc, "output of", id->name);
            continue;
        }
        ir_value *v = &p->values[e->id];
        if (v->freed_at >= 0) {
            ir_cerr(C, id->loc, "output of dead name '%s': it was freed",
                    id->name);
            ir_cnote(C, ir_free_loc(C, e->id), "'%s' was freed here", id->name);
            continue;
        }
        if (v->output_index >= 0) {
            ir_cerr(C, id->loc, "'%s' is output twice", id->name);
            ir_cnote(C, st->names[v->output_index].loc, "first output here");
            continue;
        }
        if (v->comm) {
            ir_cerr(C, id->loc,
                    "communication buffer '%s' (comm=%s group=%s) cannot be "
                    "an output",
                    id->name, v->comm, v->group);
            continue;
        }
        if (p->values[v->root].kind == IR_VAL_STATE) {
            ir_cerr(C, id->loc,
                    "state '%s' cannot be an output (an output becomes the "
                    "next state with 'state %s TYPE next=OUTPUT')",
                    id->name, p->values[v->root].name);
            continue;
        }
        st->name_values[i] = e->id;
        v->output_index = (int32_t)i;
        C->root_output[v->root] = true;
    }
}

static void ir_check_stmt(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    /* An unread line before this statement may have been anything. */
    while (C->unread_next < p->nunread &&
           p->unread[C->unread_next] <= st->index) {
        C->lost_values = C->lost_spaces = C->device_unknown = true;
        C->unread_next++;
    }
    switch (st->kind) {
    case IR_MODEL:
        if (C->model_stmt >= 0) {
            ir_cerr(C, st->loc, "'model' given twice");
            ir_cnote(C, p->stmts[C->model_stmt].loc, "previously given here");
        } else {
            C->model_stmt = (int32_t)st->index;
            if (st->index != 0)
                ir_cerr(C, st->loc, "'model' must be the first statement");
        }
        break;
    case IR_DEVICE:
        if (st->broken) {
            C->device_unknown = true;
            break;
        }
        C->device = st->device;
        C->device_unknown = false;
        break;
    case IR_SPACE: {
        if (!st->name.name) {
            C->lost_spaces = true; /* a broken line: its name is unknown */
            break;
        }
        ir_name_ent *e = ir_lookup(C, IR_NS_SPACE, st->name.name);
        if (e) {
            ir_cerr(C, st->name.loc, "redefinition of memory space '%s'",
                    st->name.name);
            ir_cnote(C, p->stmts[p->spaces[e->id].stmt].name.loc,
                     "previously defined here");
            break;
        }
        ir_space *s = &p->spaces[p->nspaces];
        s->name = st->name.name;
        s->has_capacity = st->has_capacity && !st->broken;
        s->capacity = st->capacity;
        s->stmt = st->index;
        s->spill = -1;
        ir_insert(C, IR_NS_SPACE, s->name, (int32_t)p->nspaces, -1);
        p->nspaces++;
        break;
    }
    case IR_KERNEL:
        ir_check_signature(C, st);
        break;
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        ir_check_buffer(C, st);
        break;
    case IR_ALIAS:
        ir_check_alias(C, st);
        break;
    case IR_CALL:
        ir_check_call(C, st);
        break;
    case IR_FREE:
        ir_check_free(C, st);
        break;
    case IR_OUTPUT:
        ir_check_output(C, st);
        break;
    }
}

/* Each storage's item_align: the largest item size among its own dtype
 * and its views' dtypes, so that a view at an offset that is a multiple
 * of its item size (ir_check_view_align) is aligned in memory too, even
 * under --align 1 or a smaller align=. */
static void ir_item_aligns(ir_program *p) {
    for (uint32_t i = 0; i < p->nvalues; i++)
        p->values[i].item_align = 0;
    for (uint32_t i = 0; i < p->nvalues; i++) {
        const ir_value *v = &p->values[i];
        ir_value *r = &p->values[v->root];
        unsigned item = ir_dtype_size(v->dtype);
        if (item > r->item_align)
            r->item_align = (uint8_t)item;
    }
}

static void ir_warn_leaks(ir_checker *C) {
    ir_program *p = C->p;
    int32_t *kept_by = base_xcalloc(p->nvalues, sizeof *kept_by);
    for (uint32_t i = 0; i < p->nvalues; i++)
        kept_by[i] = -1;
    for (uint32_t i = 0; i < p->nvalues; i++) {
        const ir_value *v = &p->values[i];
        if (v->freed_at < 0 && kept_by[v->root] < 0)
            kept_by[v->root] = (int32_t)i;
    }
    for (uint32_t i = 0; i < p->nvalues; i++) {
        const ir_value *v = &p->values[i];
        if (v->kind != IR_VAL_ALLOC || v->storage_end >= 0 ||
            C->root_output[i] || C->poisoned[i])
            continue;
        base_diag_report(C->d, BASE_SEV_WARNING, p->stmts[v->def].name.loc.line,
                         p->stmts[v->def].name.loc.col,
                         "storage '%s' is never freed and is not an output; it "
                         "lives to the end of the program",
                         v->name);
        int32_t k = kept_by[i];
        if (k >= 0 && k != (int32_t)i)
            base_diag_report(
                C->d, BASE_SEV_NOTE, p->stmts[p->values[k].def].name.loc.line,
                p->stmts[p->values[k].def].name.loc.col,
                "its alias '%s' is never freed", p->values[k].name);
    }
    free(kept_by);
}

/* ir/ir.h claims 144 bytes per value (64-bit targets). */
_Static_assert(sizeof(void *) < 8 || sizeof(ir_value) <= 144,
               "ir_value stays small: one per buffer and alias");

bool ir_check(ir_program *p, base_diag *d) {
    if (p->nstmts > IR_MAX_STATEMENTS) { /* a program built by hand */
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "input too large (at most %u statements and 4 GiB)",
                         IR_MAX_STATEMENTS);
        return false;
    }
    ir_checker C;
    memset(&C, 0, sizeof C);
    C.p = p;
    C.d = d;
    C.model_stmt = -1;
    if (!p->names_interned)
        ir_intern_program(p);
    C.gen = ++p->check_gen;
    C.device.kind = IR_DEV_CPU;
    uint32_t nv = 0, ns = 0, nk = 0;
    bool broken = false;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_stmt_kind k = p->stmts[i].kind;
        nv += k == IR_INPUT || k == IR_CONST || k == IR_ALLOC ||
              k == IR_ALIAS || k == IR_STATE;
        ns += k == IR_SPACE;
        nk += k == IR_CALL;
        broken |= p->stmts[i].broken;
    }
    C.after_syntax = broken || p->syntax_errors > 0 || p->nunread > 0;
    p->nvalues = 0;
    p->values = base_arena_array(p->arena, nv, sizeof *p->values);
    p->nspaces = 0;
    p->spaces = base_arena_array(p->arena, ns, sizeof *p->spaces);
    p->nkernels = 0;
    p->kernels = base_arena_array(p->arena, nk, sizeof *p->kernels);
    p->output_stmt = -1;
    p->has_streams = false;
    C.live = base_xcalloc(nv, sizeof *C.live);
    C.free_pos = base_xcalloc(nv, sizeof *C.free_pos);
    C.poisoned = base_xcalloc(nv, sizeof *C.poisoned);
    C.root_output = base_xcalloc(nv, sizeof *C.root_output);
    C.in_cycle = base_xcalloc(p->nstmts, sizeof *C.in_cycle);
    C.cycle_head = base_xcalloc(p->nstmts, sizeof *C.cycle_head);
    if (C.after_syntax)
        C.dev_unknown = base_xcalloc(nv, sizeof *C.dev_unknown);
    C.kcalls = base_xcalloc(nk, sizeof *C.kcalls);
    C.scratch = base_arena_new();

    /* An unread line may be the model statement (a broken one is one):
     * then it is not missing. */
    if (p->nstmts == 0 && p->nunread == 0)
        ir_cerr(&C, (ir_loc){0, 0}, "missing 'model NAME' statement");
    else if (p->nstmts > 0 && p->stmts[0].kind != IR_MODEL && p->nunread == 0) {
        bool any = false;
        for (uint32_t i = 0; i < p->nstmts && !any; i++)
            any = p->stmts[i].kind == IR_MODEL;
        if (!any)
            ir_cerr(&C, p->stmts[0].loc,
                    "missing 'model NAME' statement (it must come first)");
    }
    ir_collect_signatures(&C);
    ir_collect_names(&C);
    for (uint32_t i = 0; i < p->nstmts; i++)
        ir_check_stmt(&C, &p->stmts[i]);
    ir_check_double_ints(&C);
    ir_item_aligns(p);
    C.errors += ir_check_fw_spills(p, d, C.lost_spaces);
    C.errors += ir_check_fw_states(p, d, C.poisoned, C.lost_values);
    /* After a syntax error a dropped free or output may be the cause. */
    if (C.errors == 0 && !C.after_syntax) {
        ir_warn_leaks(&C);
        ir_warn_unsigned_kernels(&C);
    }

    free(C.live);
    free(C.free_pos);
    free(C.poisoned);
    free(C.root_output);
    free(C.in_cycle);
    free(C.cycle_head);
    free(C.dev_unknown);
    free(C.kcalls);
    base_arena_free(C.scratch);
    return C.errors == 0 && !C.after_syntax;
}

int32_t ir_find_value(const ir_program *p, const char *name) {
    for (uint32_t i = p->nvalues; i-- > 0;)
        if (strcmp(p->values[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

ir_program *ir_load(base_arena *a, const char *path, base_diag *d) {
    size_t len = 0;
    /* The diagnostics quote the source: it lives in the arena. */
    char *copy = base_read_file_arena(a, path, &len);
    if (!copy) {
        char *text;
        if (!ir_read_file(path, &text, &len, d))
            return NULL;
        copy = base_arena_alloc(a, len + 1);
        memcpy(copy, text, len);
        free(text);
    }
    /* "-" is shown as "<stdin>", in diagnostics and read errors alike. */
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    base_diag_set_source(d, shown, copy, len);
    /* After syntax errors the checker still runs, on the broken
     * statements, so that the semantic errors are reported too. */
    ir_program *p = ir_parse_recover(a, shown, copy, len, d);
    if (!p)
        return NULL;
    if (!ir_check(p, d) || p->syntax_errors > 0)
        return NULL;
    return p;
}

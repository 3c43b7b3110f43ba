/*
 * ir/check.c - the semantic checker of IR v1 (docs/ir.md, "Meaning").
 *
 * One pass over the statements in order (the time axis) resolves every
 * name to a value, computes sizes and placements, and tracks liveness per
 * name and per storage; two small pre-passes collect kernel signatures
 * (so that a call may precede its signature) and detect alias cycles.
 * Names are looked up in uthash tables keyed by the name: O(1) expected
 * per lookup, O(n) for the whole program.  The tables are emptied before
 * returning; output never depends on hash order.
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
#include "intern.h"
#include "ir/ir.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* Names are interned (ir/intern.h): the state of a name in a namespace
 * is an ir_slot in its record.  Buffers: `first` is the first statement
 * defining the name, `id` its value once the main pass has reached that
 * statement (-1 before).  Kernels: `first` is the first signature (-1 if
 * none), `id` the ir_kernel once called.  Spaces: `id` is the ir_space. */
typedef ir_slot ir_name_ent;

/* What the calls of one kernel must agree on (kernels without a
 * signature: the arity; all kernels: the kind of each argument, since a
 * parameter has one C type).  Set by the first call. */
typedef enum ir_arg_class {
    IR_CLASS_NONE,
    IR_CLASS_BUFFER,
    IR_CLASS_NUMBER, /* int or float literals: a double or int64_t */
    IR_CLASS_STRING,
} ir_arg_class;

typedef struct ir_kcalls {
    uint32_t nargs;   /* arity of the first call (or the signature) */
    ir_loc first;     /* the first call's kernel name */
    uint8_t *cls;     /* per argument: its ir_arg_class */
    ir_loc *cls_at;   /* per argument: where its class was set */
    ir_loc *float_at; /* per argument: the first float literal passed
                         there (line 0: none), which makes it a double */
} ir_kcalls;

typedef struct ir_checker {
    ir_program *p;
    ir_diag *d;
    unsigned errors;
    uint32_t gen;      /* this run's generation, for lazy slot resets */
    uint32_t *live;    /* per root value: names alive */
    ir_loc *free_loc;  /* per value: where its name was freed */
    ir_loc *out_loc;   /* per value: where it was output */
    bool *poisoned;    /* per value: its definition had an error */
    bool *root_output; /* per root value: some name of it is an output */
    bool *in_cycle;    /* per statement: alias part of a cycle */
    bool *cycle_head;  /* per statement: first alias of a cycle */
    ir_kcalls *kcalls; /* per kernel: what its calls agree on */
    ir_arena *scratch; /* the kcalls' arrays */
    ir_device device;  /* current default device */
    int32_t model_stmt;

    /* After syntax errors (all false/NULL without). */
    bool after_syntax;    /* the program has a syntax error */
    bool lost_values;     /* some earlier line may define a name unknown here */
    bool lost_spaces;     /* the same for memory spaces */
    bool device_unknown;  /* the default device comes from a broken line */
    bool *dev_unknown;    /* per value: its device is that unknown default */
    uint32_t unread_next; /* next entry of p->unread */
    unsigned suggestions; /* "did you mean" searches so far (capped) */
} ir_checker;

static void *ir_xcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p)
        base_oom();
    return p;
}

static void ir_cerr(ir_checker *C, ir_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ir_cerr(ir_checker *C, ir_loc loc, const char *fmt, ...) {
    C->errors++;
    va_list ap;
    va_start(ap, fmt);
    ir_diag_vreport(C->d, IR_SEV_ERROR, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

static void ir_cnote(ir_checker *C, ir_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ir_cnote(ir_checker *C, ir_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ir_diag_vreport(C->d, IR_SEV_NOTE, loc.line, loc.col, fmt, ap);
    va_end(ap);
}

/* The slot of `name` in namespace `ns`, reset on first use in this run. */
static ir_slot *ir_slot_of(const ir_checker *C, int ns, const char *name) {
    ir_name_rec *r = ir_name_rec_of(name);
    if (r->gen != C->gen) {
        r->gen = C->gen;
        for (int k = 0; k < IR_NS_COUNT; k++)
            r->ns[k].id = r->ns[k].first = -1;
    }
    return &r->ns[ns];
}

/* The slot of a name when it is known in `ns`, else NULL. */
static ir_slot *ir_lookup(const ir_checker *C, int ns, const char *name) {
    ir_slot *e = ir_slot_of(C, ns, name);
    return e->id < 0 && e->first < 0 ? NULL : e;
}

static ir_slot *ir_insert(const ir_checker *C, int ns, const char *name,
                          int32_t id, int32_t first) {
    ir_slot *e = ir_slot_of(C, ns, name);
    e->id = id;
    e->first = first;
    return e;
}

/* Makes every name of a program not made by ir_parse point into name
 * records, as ir_parse does. */
static void ir_intern_program(ir_program *p) {
    ir_intern_table t = {0};
    ir_arena *a = p->arena;
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
        for (uint32_t k = 0; k < st->nnames; k++)
            IR_INTERN(st->names[k].name);
    }
#undef IR_INTERN
    ir_intern_free(&t);
    p->names_interned = true;
}

/* elements = product of dims, or with strides 1 + sum (d_i - 1) * s_i (0 if
 * some d_i is 0).  Returns false on 64-bit overflow. */
static bool ir_elements(uint32_t ndim, const uint64_t *dims, uint32_t nstrides,
                        const uint64_t *strides, uint64_t *out) {
    for (uint32_t i = 0; i < ndim; i++)
        if (dims[i] == 0) {
            *out = 0;
            return true;
        }
    uint64_t e = 1;
    if (nstrides == 0) {
        for (uint32_t i = 0; i < ndim; i++) {
            if (e > UINT64_MAX / dims[i])
                return false;
            e *= dims[i];
        }
    } else {
        for (uint32_t i = 0; i < ndim; i++) {
            uint64_t d = dims[i] - 1, s = strides[i];
            if (s != 0 && d > UINT64_MAX / s)
                return false;
            if (e > UINT64_MAX - d * s)
                return false;
            e += d * s;
        }
    }
    *out = e;
    return true;
}

/* Fills v's size fields from its type; reports overflow at `loc`. */
static bool ir_size_value(ir_checker *C, ir_value *v, ir_loc loc) {
    uint64_t e;
    unsigned item = ir_dtype_size(v->dtype);
    if (!ir_elements(v->ndim, v->dims, v->nstrides, v->strides, &e) ||
        e > UINT64_MAX / item) {
        ir_cerr(C, loc, "byte size of '%s' overflows 64 bits", v->name);
        return false;
    }
    v->elements = e;
    v->bytes = e * item;
    return true;
}

static void ir_pool_str(const char *comm, const char *group, char *buf,
                        size_t size) {
    if (comm)
        snprintf(buf, size, "communication pool %s/%s", comm, group);
    else
        snprintf(buf, size, "ordinary memory");
}

static bool ir_streq(const char *a, const char *b) {
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

/* The live buffer name closest to `name` ("did you mean"), or NULL.  Scans
 * the names defined so far; at most 64 searches per program, so that a
 * file of undefined names stays linear. */
static const char *ir_suggest_value(ir_checker *C, const char *name) {
    const ir_program *p = C->p;
    if (C->suggestions >= 64 || p->nvalues == 0)
        return NULL;
    C->suggestions++;
    const char **cands = ir_xcalloc(p->nvalues, sizeof *cands);
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
static void ir_undefined(ir_checker *C, ir_loc loc, const char *what,
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
static int32_t ir_use(ir_checker *C, const ir_ident *id, const char *what) {
    ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, id->name);
    if (!e || e->id < 0) {
        if (!C->lost_values)
            ir_undefined(C, id->loc, what, id->name);
        return -1;
    }
    ir_value *v = &C->p->values[e->id];
    if (v->freed_at >= 0) {
        ir_cerr(C, id->loc, "%s '%s' after it was freed", what, id->name);
        ir_cnote(C, C->free_loc[e->id], "'%s' was freed here", id->name);
        return -1;
    }
    return e->id;
}

/* Defines a value for statement `st`; reports redefinitions.  Returns the
 * new value, or NULL when the name was already defined. */
static ir_value *ir_define(ir_checker *C, ir_stmt *st, ir_value_kind kind) {
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

static void ir_check_buffer(ir_checker *C, ir_stmt *st) {
    ir_value_kind kind = st->kind == IR_INPUT   ? IR_VAL_INPUT
                         : st->kind == IR_CONST ? IR_VAL_CONST
                         : st->kind == IR_STATE ? IR_VAL_STATE
                                                : IR_VAL_ALLOC;
    if (!st->name.name) {
        C->lost_values = true; /* a broken line: its name is unknown */
        return;
    }
    ir_value *v = ir_define(C, st, kind);
    if (!v)
        return;
    int32_t id = st->value;
    C->live[id] = 1;
    if (st->broken) {
        /* Defined, and nothing else known: no size, no placement. */
        C->poisoned[id] = true;
        v->device = C->device;
        return;
    }
    if (C->device_unknown && !st->has_device)
        C->dev_unknown[id] = true;
    v->dtype = st->type.dtype;
    v->ndim = st->type.ndim;
    v->dims = st->type.dims;
    v->nstrides = st->has_stride ? st->nstrides : 0;
    const ir_attrs *at = ir_attrs_or_none(st);
    v->strides = st->has_stride ? at->strides : NULL;
    v->device = st->has_device ? st->device : C->device;
    v->comm = at->comm.name;
    v->group = at->group.name;
    v->align = st->align;
    v->planned = st->fw && st->fw->planned;
    if (at->space.name) {
        if (!ir_lookup(C, IR_NS_SPACE, at->space.name)) {
            if (!C->lost_spaces)
                ir_cerr(C, at->space.loc, "undeclared memory space '%s'",
                        at->space.name);
            C->poisoned[id] = true;
        }
        v->space = at->space.name;
    }
    /* With strides, a dimension of 1 contributes nothing whatever its
     * stride; a zero-size stride= is reported like dims. */
    if (!ir_size_value(C, v, v->nstrides ? at->stride_loc : st->type.loc))
        C->poisoned[id] = true;
    else if (st->fw && st->fw->data)
        C->errors += ir_check_fw_data(C->p, C->d, st, v);
}

static int32_t ir_alias_next(ir_checker *C, int32_t s);

/* Reports the alias cycle starting at statement `first`:
 * 'a' -> 'b' -> 'a', at most 8 names shown. */
static void ir_report_cycle(ir_checker *C, int32_t first) {
    const ir_program *p = C->p;
    char msg[1024];
    size_t n = 0, shown = 0;
    int32_t k = first;
    do {
        n += (size_t)snprintf(msg + n, sizeof msg - n, "'%.64s' -> ",
                              p->stmts[k].name.name);
        k = ir_alias_next(C, k);
    } while (k != first && ++shown < 8);
    if (k != first)
        n += (size_t)snprintf(msg + n, sizeof msg - n, "... -> ");
    snprintf(msg + n, sizeof msg - n, "'%.64s'", p->stmts[first].name.name);
    ir_cerr(C, p->stmts[first].old.loc, "alias cycle: %s", msg);
}

/* A view's first byte must be aligned for its element type: its byte
 * offset in the storage is a multiple of the dtype's size (the storage's
 * base is at least that aligned: planned buffers by the pool, caller
 * buffers by their own element type).  Reported at the alias line. */
static void ir_check_view_align(ir_checker *C, const ir_stmt *st, ir_value *v,
                                const ir_value *r) {
    uint64_t item = ir_dtype_size(v->dtype);
    if (v->byte_offset % item == 0)
        return;
    ir_loc loc = st->has_offset ? st->offset_loc
                 : st->has_type ? st->type.loc
                                : st->old.loc;
    ir_cerr(C, loc,
            "alias '%s' is misaligned: it starts at byte offset %llu of '%s', "
            "but %s needs an alignment of %llu bytes",
            v->name, (unsigned long long)v->byte_offset, r->name,
            ir_dtype_name(v->dtype), (unsigned long long)item);
    C->poisoned[st->value] = true;
}

static void ir_check_alias(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    if (!st->name.name) {
        C->lost_values = true; /* a broken line: its name is unknown */
        return;
    }
    if (C->cycle_head[st->index])
        ir_report_cycle(C, (int32_t)st->index);
    ir_value *v = ir_define(C, st, IR_VAL_ALIAS);
    if (!v)
        return;
    int32_t id = st->value;
    int32_t old = -1;
    if (st->broken) {
        /* Its OLD name and type may be partial: not read. */
        C->poisoned[id] = true;
        v->dtype = IR_U8;
        return;
    }
    if (C->in_cycle[st->index]) {
        C->poisoned[id] = true;
    } else {
        ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, st->old.name);
        if (!e || e->id < 0 || e->id == id) {
            if (!C->lost_values)
                ir_undefined(C, st->old.loc, "alias of", st->old.name);
        } else if (p->values[e->id].freed_at >= 0) {
            ir_cerr(C, st->old.loc, "alias of '%s' after it was freed",
                    st->old.name);
            ir_cnote(C, C->free_loc[e->id], "'%s' was freed here",
                     st->old.name);
        } else {
            old = e->id;
        }
    }
    if (old < 0) {
        /* Keep the name usable without further errors. */
        C->poisoned[id] = true;
        v->dtype = st->has_type ? st->type.dtype : IR_U8;
        v->ndim = st->has_type ? st->type.ndim : 0;
        v->dims = st->has_type ? st->type.dims : NULL;
        return;
    }
    const ir_value *o = &p->values[old];
    const ir_value *r = &p->values[o->root];
    v->alias_of = old;
    v->root = o->root;
    v->device = r->device;
    v->space = r->space;
    v->comm = r->comm;
    v->group = r->group;
    v->align = r->align;
    C->live[o->root]++;
    if (C->poisoned[old])
        C->poisoned[id] = true;
    if (st->has_type) {
        v->dtype = st->type.dtype;
        v->ndim = st->type.ndim;
        v->dims = st->type.dims;
        v->nstrides = st->has_stride ? st->nstrides : 0;
        v->strides = st->has_stride ? st->attrs->strides : NULL;
        if (!ir_size_value(C, v,
                           v->nstrides ? st->attrs->stride_loc : st->type.loc))
            C->poisoned[id] = true;
    } else {
        v->dtype = o->dtype;
        v->ndim = o->ndim;
        v->dims = o->dims;
        v->nstrides = o->nstrides;
        v->strides = o->strides;
        v->elements = o->elements;
        v->bytes = o->bytes;
    }
    if (p->stmts[r->def].broken) {
        /* The storage's line is broken: its placement and size are
         * unknown, nothing to compare with. */
        C->poisoned[id] = true;
        return;
    }
    char a[64], b[64];
    const ir_attrs *at = ir_attrs_or_none(st);
    if (st->has_device && !(C->dev_unknown && C->dev_unknown[o->root]) &&
        (st->device.kind != r->device.kind ||
         st->device.index != r->device.index)) {
        ir_cerr(C, at->device_loc,
                "alias '%s' is on device %s but its storage '%s' is on %s",
                v->name, ir_device_str(st->device, a, sizeof a), r->name,
                ir_device_str(r->device, b, sizeof b));
        C->poisoned[id] = true;
    }
    if (at->space.name && !ir_streq(at->space.name, r->space)) {
        ir_cerr(C, at->space.loc,
                "alias '%s' is in memory space '%s' but its storage '%s' is "
                "in %s%s%s",
                v->name, at->space.name, r->name, r->space ? "'" : "",
                r->space ? r->space : "the default space", r->space ? "'" : "");
        C->poisoned[id] = true;
    }
    if (at->comm.name && (!ir_streq(at->comm.name, r->comm) ||
                          !ir_streq(at->group.name, r->group))) {
        ir_pool_str(at->comm.name, at->group.name, a, sizeof a);
        ir_pool_str(r->comm, r->group, b, sizeof b);
        ir_cerr(C, at->comm.loc,
                "alias '%s' is in %s but its storage '%s' is in %s", v->name, a,
                r->name, b);
        C->poisoned[id] = true;
    }
    if (C->poisoned[id])
        return;
    /* Placement inside the storage. */
    uint64_t item = ir_dtype_size(v->dtype);
    uint64_t off = o->byte_offset;
    bool fits = true;
    if (st->has_offset) {
        if (st->offset > (UINT64_MAX - off) / item)
            fits = false;
        else
            off += st->offset * item;
    }
    v->byte_offset = off;
    if (!fits) {
        ir_cerr(C, st->offset_loc,
                "alias '%s' does not fit its storage: its offset overflows "
                "64 bits",
                v->name);
        C->poisoned[id] = true;
        return;
    }
    if (off > r->bytes || v->bytes > r->bytes - off) {
        ir_loc loc = st->has_offset   ? st->offset_loc
                     : st->has_stride ? at->stride_loc
                     : st->has_type   ? st->type.loc
                                      : st->old.loc;
        ir_cerr(C, loc,
                "alias '%s' does not fit its storage: it needs %llu byte%s at "
                "byte offset %llu but '%s' has %llu byte%s",
                v->name, (unsigned long long)v->bytes, v->bytes == 1 ? "" : "s",
                (unsigned long long)off, r->name, (unsigned long long)r->bytes,
                r->bytes == 1 ? "" : "s");
        C->poisoned[id] = true;
        return;
    }
    ir_check_view_align(C, st, v, r);
}

static const char *const ir_class_names[] = {"nothing", "a buffer", "a number",
                                             "a string"};
_Static_assert(sizeof ir_class_names / sizeof ir_class_names[0] ==
                   IR_CLASS_STRING + 1,
               "a name per argument class");

static ir_arg_class ir_class_of(ir_arg_kind k) {
    return k == IR_ARG_BUFFER                     ? IR_CLASS_BUFFER
           : k == IR_ARG_INT || k == IR_ARG_FLOAT ? IR_CLASS_NUMBER
                                                  : IR_CLASS_STRING;
}

/* The first call of a kernel (with its signature, if any) sets what the
 * later calls must agree on. */
static void ir_kcalls_init(ir_checker *C, ir_kcalls *kc, const ir_stmt *st,
                           const ir_stmt *sig) {
    kc->nargs = sig ? sig->nmodes : st->nargs;
    kc->first = st->loc;
    kc->cls = ir_arena_array(C->scratch, kc->nargs + 1, sizeof *kc->cls);
    kc->cls_at = ir_arena_array(C->scratch, kc->nargs + 1, sizeof *kc->cls_at);
    kc->float_at =
        ir_arena_array(C->scratch, kc->nargs + 1, sizeof *kc->float_at);
}

/* Argument i of call st has the class of that argument at the kernel's
 * other calls (a parameter has one C type: a pointer, a number or a
 * string); reports it otherwise.  The first call to pass it sets it. */
static bool ir_same_class(ir_checker *C, ir_kcalls *kc, const ir_stmt *st,
                          uint32_t i) {
    const ir_arg *arg = &st->args[i];
    ir_arg_class c = ir_class_of(arg->kind);
    if (kc->cls[i] == IR_CLASS_NONE) {
        kc->cls[i] = (uint8_t)c;
        kc->cls_at[i] = arg->loc;
    } else if (kc->cls[i] != c) {
        ir_cerr(C, arg->loc,
                "argument %u of kernel '%s' has different kinds at different "
                "calls (buffer, number, string)",
                (unsigned)(i + 1), st->name.name);
        ir_cnote(C, kc->cls_at[i], "it is %s here", ir_class_names[kc->cls[i]]);
        return false;
    }
    if (arg->kind == IR_ARG_FLOAT && kc->float_at[i].line == 0)
        kc->float_at[i] = arg->loc;
    return true;
}

/* After the main pass: an integer literal passed where some call of the
 * same kernel passes a float is converted to the parameter's C type,
 * double; it must convert exactly (|n| <= 2^53).  Reported at the
 * integer, with a note at the first float. */
static void ir_check_double_ints(ir_checker *C) {
    const ir_program *p = C->p;
    const int64_t lim = (int64_t)1 << 53;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        if (st->kind != IR_CALL || st->broken)
            continue;
        const ir_name_ent *ke = ir_lookup(C, IR_NS_KERNEL, st->name.name);
        if (!ke || ke->id < 0)
            continue;
        const ir_kcalls *kc = &C->kcalls[ke->id];
        if (st->nargs != kc->nargs)
            continue;
        for (uint32_t j = 0; j < st->nargs; j++) {
            const ir_arg *g = &st->args[j];
            if (g->kind != IR_ARG_INT || kc->float_at[j].line == 0 ||
                (g->ival <= lim && g->ival >= -lim))
                continue;
            ir_cerr(C, g->loc,
                    "integer %lld cannot be passed exactly as argument %u of "
                    "kernel '%s', a double (other calls pass floats there): "
                    "integers above 2^53 lose digits; write it as a float",
                    (long long)g->ival, (unsigned)(j + 1), st->name.name);
            ir_cnote(C, kc->float_at[j], "argument %u is a float here",
                     (unsigned)(j + 1));
        }
    }
}

static void ir_check_call(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    if (st->broken)
        return; /* its arguments may be partial: not read */
    if (st->has_stream)
        p->has_streams = true;
    ir_name_ent *ke = ir_lookup(C, IR_NS_KERNEL, st->name.name);
    if (!ke)
        ke = ir_insert(C, IR_NS_KERNEL, st->name.name, -1, -1);
    const ir_stmt *sig = ke->first >= 0 ? &p->stmts[ke->first] : NULL;
    /* A broken signature's modes and arity are unknown: nothing to check
     * against, and the calls need not agree with each other. */
    bool sig_broken = sig && sig->broken;
    if (sig_broken)
        sig = NULL;
    if (ke->id < 0) {
        ir_kernel *k = &p->kernels[p->nkernels];
        k->name = st->name.name;
        k->sig_stmt = ke->first;
        k->first_call = st->index;
        ke->id = (int32_t)p->nkernels++;
        ir_kcalls_init(C, &C->kcalls[ke->id], st, sig);
    }
    ir_kcalls *kc = &C->kcalls[ke->id];
    bool arity_ok = true;
    if (sig && sig->nmodes != st->nargs) {
        ir_cerr(
            C, st->name.loc, "kernel '%s' takes %u argument%s but %u %s given",
            st->name.name, (unsigned)sig->nmodes, sig->nmodes == 1 ? "" : "s",
            (unsigned)st->nargs, st->nargs == 1 ? "was" : "were");
        ir_cnote(C, sig->name.loc, "signature of '%s' declared here",
                 st->name.name);
        arity_ok = false;
    } else if (sig_broken) {
        arity_ok = false;
    } else if (!sig && kc->nargs != st->nargs) {
        ir_cerr(C, st->loc,
                "kernel '%s' is called with %u arguments here and %u "
                "elsewhere",
                st->name.name, (unsigned)st->nargs, (unsigned)kc->nargs);
        ir_cnote(C, kc->first, "'%s' is first called with %u argument%s here",
                 st->name.name, (unsigned)kc->nargs, kc->nargs == 1 ? "" : "s");
        arity_ok = false;
    }
    for (uint32_t i = 0; i < st->nargs; i++) {
        ir_arg *arg = &st->args[i];
        arg->value = -1;
        if (sig && arity_ok) {
            ir_mode m = sig->modes[i];
            bool is_buf = arg->kind == IR_ARG_BUFFER;
            if (m == IR_MODE_SCALAR && is_buf) {
                ir_cerr(C, arg->loc,
                        "argument %u of '%s' must be a literal (the signature "
                        "declares it 'scalar') but '%s' is a buffer",
                        (unsigned)(i + 1), st->name.name, arg->text);
                ir_cnote(C, sig->mode_locs[i], "declared 'scalar' here");
                continue;
            }
            if (m != IR_MODE_SCALAR && !is_buf) {
                ir_cerr(C, arg->loc,
                        "argument %u of '%s' must be a buffer (the signature "
                        "declares it '%s') but a literal was given",
                        (unsigned)(i + 1), st->name.name, ir_mode_name(m));
                ir_cnote(C, sig->mode_locs[i], "declared '%s' here",
                         ir_mode_name(m));
                continue;
            }
        }
        if (arity_ok && !ir_same_class(C, kc, st, i))
            continue;
        if (arg->kind != IR_ARG_BUFFER)
            continue;
        ir_ident id = {arg->text, arg->loc};
        arg->value = ir_use(C, &id, "use of");
    }
}

static void ir_check_free(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    st->name_values = ir_arena_array(p->arena, st->nnames, sizeof(int32_t));
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
            ir_cnote(C, C->free_loc[e->id], "first freed here");
            continue;
        }
        st->name_values[i] = e->id;
        v->freed_at = (int32_t)st->index;
        C->free_loc[e->id] = id->loc;
        if (C->live[v->root] > 0 && --C->live[v->root] == 0)
            p->values[v->root].storage_end = (int32_t)st->index;
    }
}

static void ir_check_output(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    st->name_values = ir_arena_array(p->arena, st->nnames, sizeof(int32_t));
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
            ir_cnote(C, C->free_loc[e->id], "'%s' was freed here", id->name);
            continue;
        }
        if (v->output_index >= 0) {
            ir_cerr(C, id->loc, "'%s' is output twice", id->name);
            ir_cnote(C, C->out_loc[e->id], "first output here");
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
        C->out_loc[e->id] = id->loc;
        C->root_output[v->root] = true;
    }
}

/* Kernel signatures: the first one of each kernel name counts (a call may
 * come before the signature); redefinitions are reported in order by the
 * main pass. */
static void ir_collect_signatures(ir_checker *C) {
    ir_program *p = C->p;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_stmt *st = &p->stmts[i];
        if (st->kind == IR_KERNEL && st->name.name &&
            !ir_lookup(C, IR_NS_KERNEL, st->name.name))
            ir_insert(C, IR_NS_KERNEL, st->name.name, -1, (int32_t)i);
    }
}

static void ir_check_signature(ir_checker *C, ir_stmt *st) {
    if (!st->name.name)
        return; /* a broken line without its name */
    ir_name_ent *e = ir_lookup(C, IR_NS_KERNEL, st->name.name);
    if (e->first != (int32_t)st->index) {
        ir_cerr(C, st->name.loc, "redefinition of kernel signature '%s'",
                st->name.name);
        ir_cnote(C, C->p->stmts[e->first].name.loc, "previously defined here");
    }
}

/* Alias cycles: `alias a = b` ... `alias b = a`.  Each alias statement
 * has at most one successor: the statement that first defines its OLD
 * name, when that is an alias too.  A walk per unvisited statement with
 * colours finds every cycle in O(n).  Each cycle is reported once, at its
 * first statement; its statements are marked so that the main pass does
 * not report their OLD names as undefined. */
static int32_t ir_alias_next(ir_checker *C, int32_t s) {
    const ir_program *p = C->p;
    ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, p->stmts[s].old.name);
    if (!e || p->stmts[e->first].kind != IR_ALIAS || p->stmts[e->first].broken)
        return -1;
    return e->first;
}

/* Enters every buffer name with its first definition, then finds the
 * alias cycles. */
static void ir_collect_names(ir_checker *C) {
    ir_program *p = C->p;
    bool any = false;
    /* colour: 0 unvisited, else the number of the walk that visited it;
     * aliases that are not the first definition of their name are left
     * out (UINT32_MAX). */
    uint32_t *colour = ir_xcalloc(p->nstmts, sizeof *colour);
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_stmt *st = &p->stmts[i];
        if ((st->kind != IR_INPUT && st->kind != IR_CONST &&
             st->kind != IR_ALLOC && st->kind != IR_ALIAS &&
             st->kind != IR_STATE) ||
            !st->name.name)
            continue;
        ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, st->name.name);
        if (!e)
            e = ir_insert(C, IR_NS_VALUE, st->name.name, -1, (int32_t)i);
        if (st->kind == IR_ALIAS) {
            any = true;
            if (e->first != (int32_t)i || st->broken)
                colour[i] = UINT32_MAX;
        }
    }
    if (!any) {
        free(colour);
        return;
    }
    uint32_t walk = 0;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        /* a broken alias has no known OLD: in no cycle */
        if (p->stmts[i].kind != IR_ALIAS || p->stmts[i].broken || colour[i])
            continue;
        walk++;
        int32_t cur = (int32_t)i;
        while (cur >= 0 && !colour[cur]) {
            colour[cur] = walk;
            cur = ir_alias_next(C, cur);
        }
        if (cur < 0 || colour[cur] != walk)
            continue;
        int32_t first = cur, k = cur;
        do {
            if (k < first)
                first = k;
            C->in_cycle[k] = true;
            k = ir_alias_next(C, k);
        } while (k != cur);
        C->cycle_head[first] = true;
    }
    free(colour);
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

/* Storages never freed and not outputs live to the end: a warning. */
/* A called kernel without a signature, in a program that declares some,
 * whose name is close to a declared one: likely a typo ('call reul' for
 * 'kernel relu'), and its calls go unchecked.  A warning at its first
 * call. */
static void ir_warn_unsigned_kernels(ir_checker *C) {
    const ir_program *p = C->p;
    size_t unsigned_calls = 0;
    for (uint32_t k = 0; k < p->nkernels; k++)
        unsigned_calls += p->kernels[k].sig_stmt < 0;
    if (unsigned_calls == 0)
        return;
    size_t nsig = 0;
    const char **sigs = NULL;
    for (uint32_t i = 0; i < p->nstmts; i++)
        nsig += p->stmts[i].kind == IR_KERNEL;
    if (nsig == 0)
        return;
    sigs = ir_xcalloc(nsig, sizeof *sigs);
    nsig = 0;
    for (uint32_t i = 0; i < p->nstmts; i++)
        if (p->stmts[i].kind == IR_KERNEL)
            sigs[nsig++] = p->stmts[i].name.name;
    for (uint32_t k = 0; k < p->nkernels && C->suggestions < 64; k++) {
        const ir_kernel *kk = &p->kernels[k];
        if (kk->sig_stmt >= 0)
            continue;
        C->suggestions++;
        size_t i = base_closest(kk->name, strlen(kk->name), sigs, nsig);
        if (i == SIZE_MAX)
            continue;
        const ir_stmt *call = &p->stmts[kk->first_call];
        ir_diag_report(C->d, IR_SEV_WARNING, call->name.loc.line,
                       call->name.loc.col,
                       "kernel '%s' has no signature, so its calls are not "
                       "checked; did you mean '%s'?",
                       kk->name, sigs[i]);
    }
    free(sigs);
}

static void ir_warn_leaks(ir_checker *C) {
    ir_program *p = C->p;
    int32_t *kept_by = ir_xcalloc(p->nvalues, sizeof *kept_by);
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
        ir_diag_report(C->d, IR_SEV_WARNING, p->stmts[v->def].name.loc.line,
                       p->stmts[v->def].name.loc.col,
                       "storage '%s' is never freed and is not an output; it "
                       "lives to the end of the program",
                       v->name);
        int32_t k = kept_by[i];
        if (k >= 0 && k != (int32_t)i)
            ir_diag_report(C->d, IR_SEV_NOTE,
                           p->stmts[p->values[k].def].name.loc.line,
                           p->stmts[p->values[k].def].name.loc.col,
                           "its alias '%s' is never freed", p->values[k].name);
    }
    free(kept_by);
}

bool ir_check(ir_program *p, ir_diag *d) {
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
    p->values = ir_arena_array(p->arena, nv, sizeof *p->values);
    p->nspaces = 0;
    p->spaces = ir_arena_array(p->arena, ns, sizeof *p->spaces);
    p->nkernels = 0;
    p->kernels = ir_arena_array(p->arena, nk, sizeof *p->kernels);
    p->output_stmt = -1;
    p->has_streams = false;
    C.live = ir_xcalloc(nv, sizeof *C.live);
    C.free_loc = ir_xcalloc(nv, sizeof *C.free_loc);
    C.out_loc = ir_xcalloc(nv, sizeof *C.out_loc);
    C.poisoned = ir_xcalloc(nv, sizeof *C.poisoned);
    C.root_output = ir_xcalloc(nv, sizeof *C.root_output);
    C.in_cycle = ir_xcalloc(p->nstmts, sizeof *C.in_cycle);
    C.cycle_head = ir_xcalloc(p->nstmts, sizeof *C.cycle_head);
    if (C.after_syntax)
        C.dev_unknown = ir_xcalloc(nv, sizeof *C.dev_unknown);
    C.kcalls = ir_xcalloc(nk, sizeof *C.kcalls);
    C.scratch = ir_arena_new();

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
    C.errors += ir_check_fw_spills(p, d, C.lost_spaces);
    C.errors += ir_check_fw_states(p, d, C.poisoned, C.lost_values);
    /* After a syntax error a dropped free or output may be the cause. */
    if (C.errors == 0 && !C.after_syntax) {
        ir_warn_leaks(&C);
        ir_warn_unsigned_kernels(&C);
    }

    free(C.live);
    free(C.free_loc);
    free(C.out_loc);
    free(C.poisoned);
    free(C.root_output);
    free(C.in_cycle);
    free(C.cycle_head);
    free(C.dev_unknown);
    free(C.kcalls);
    ir_arena_free(C.scratch);
    return C.errors == 0 && !C.after_syntax;
}

int32_t ir_find_value(const ir_program *p, const char *name) {
    for (uint32_t i = p->nvalues; i-- > 0;)
        if (strcmp(p->values[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* Reads a regular file straight into the arena (no second copy of a big
 * file).  NULL when that is not possible (stdin, pipes, errors, a file
 * changing while read, a file over the input size limit): the caller falls
 * back to ir_read_file, which reports the limit. */
static char *ir_read_into_arena(ir_arena *a, const char *path, size_t *len) {
    if (strcmp(path, "-") == 0)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size <= base_max_input()) {
        size_t size = (size_t)st.st_size;
        buf = ir_arena_alloc(a, size + 1);
        if (fread(buf, 1, size, f) != size || fgetc(f) != EOF || ferror(f))
            buf = NULL; /* the arena keeps the block: a rare case */
        else
            *len = size;
    }
    fclose(f);
    return buf;
}

ir_program *ir_load(ir_arena *a, const char *path, ir_diag *d) {
    size_t len = 0;
    /* The diagnostics quote the source: it lives in the arena. */
    char *copy = ir_read_into_arena(a, path, &len);
    if (!copy) {
        char *text;
        if (!ir_read_file(path, &text, &len, stderr))
            return NULL;
        copy = ir_arena_alloc(a, len + 1);
        memcpy(copy, text, len);
        free(text);
    }
    /* "-" is shown as "<stdin>", in diagnostics and read errors alike. */
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    ir_diag_set_source(d, shown, copy, len);
    /* After syntax errors the checker still runs, on the broken
     * statements, so that the semantic errors are reported too. */
    ir_program *p = ir_parse_recover(a, shown, copy, len, d);
    if (!p)
        return NULL;
    if (!ir_check(p, d) || p->syntax_errors > 0)
        return NULL;
    return p;
}

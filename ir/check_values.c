/*
 * ir/check_values.c - the checker's rules for buffers and aliases
 * (docs/ir.md): sizes and strides, placement (device, space, comm group),
 * alias cycles, and where an alias sits inside its storage.
 */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

void ir_check_buffer(ir_checker *C, ir_stmt *st) {
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
    v->nstrides = st->has_stride ? st->attrs->nstrides : 0;
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
    ir_loc loc = st->has_offset ? st->attrs->offset_loc
                 : st->has_type ? st->type.loc
                                : st->old.loc;
    ir_cerr(C, loc,
            "alias '%s' is misaligned: it starts at byte offset %llu of '%s', "
            "but %s needs an alignment of %llu bytes",
            v->name, (unsigned long long)v->byte_offset, r->name,
            ir_dtype_name(v->dtype), (unsigned long long)item);
    C->poisoned[st->value] = true;
}

/* The value an alias's OLD name names, or -1 after reporting why there
 * is none (undefined, freed, part of a cycle). */
static int32_t ir_alias_old(ir_checker *C, const ir_stmt *st, int32_t id) {
    const ir_program *p = C->p;
    if (C->in_cycle[st->index])
        return -1;
    ir_name_ent *e = ir_lookup(C, IR_NS_VALUE, st->old.name);
    if (!e || e->id < 0 || e->id == id) {
        if (!C->lost_values)
            ir_undefined(C, st->old.loc, "alias of", st->old.name);
        return -1;
    }
    if (p->values[e->id].freed_at >= 0) {
        ir_cerr(C, st->old.loc, "alias of '%s' after it was freed",
                st->old.name);
        ir_cnote(C, ir_free_loc(C, e->id), "'%s' was freed here", st->old.name);
        return -1;
    }
    return e->id;
}

/* The alias takes its storage's placement, and its own type (sized here)
 * or OLD's shape. */
static void ir_alias_shape(ir_checker *C, const ir_stmt *st, ir_value *v,
                           const ir_value *o, const ir_value *r) {
    v->device = r->device;
    v->space = r->space;
    v->comm = r->comm;
    v->group = r->group;
    v->align = r->align;
    if (st->has_type) {
        v->dtype = st->type.dtype;
        v->ndim = st->type.ndim;
        v->dims = st->type.dims;
        v->nstrides = st->has_stride ? st->attrs->nstrides : 0;
        v->strides = st->has_stride ? st->attrs->strides : NULL;
        if (!ir_size_value(C, v,
                           v->nstrides ? st->attrs->stride_loc : st->type.loc))
            C->poisoned[st->value] = true;
    } else {
        v->dtype = o->dtype;
        v->ndim = o->ndim;
        v->dims = o->dims;
        v->nstrides = o->nstrides;
        v->strides = o->strides;
        v->bytes = o->bytes;
    }
}

/* device=, space= and comm=/group= given on an alias match its storage
 * r's (whose value is o->root). */
static void ir_alias_same_place(ir_checker *C, const ir_stmt *st, ir_value *v,
                                const ir_value *o, const ir_value *r) {
    char a[64], b[64];
    const ir_attrs *at = ir_attrs_or_none(st);
    if (st->has_device && !(C->dev_unknown && C->dev_unknown[o->root]) &&
        (st->device.kind != r->device.kind ||
         st->device.index != r->device.index)) {
        ir_cerr(C, at->device_loc,
                "alias '%s' is on device %s but its storage '%s' is on %s",
                v->name, ir_device_str(st->device, a, sizeof a), r->name,
                ir_device_str(r->device, b, sizeof b));
        C->poisoned[st->value] = true;
    }
    if (at->space.name && !ir_streq(at->space.name, r->space)) {
        ir_cerr(C, at->space.loc,
                "alias '%s' is in memory space '%s' but its storage '%s' is "
                "in %s%s%s",
                v->name, at->space.name, r->name, r->space ? "'" : "",
                r->space ? r->space : "the default space", r->space ? "'" : "");
        C->poisoned[st->value] = true;
    }
    if (at->comm.name && (!ir_streq(at->comm.name, r->comm) ||
                          !ir_streq(at->group.name, r->group))) {
        ir_pool_str(at->comm.name, at->group.name, a, sizeof a);
        ir_pool_str(r->comm, r->group, b, sizeof b);
        ir_cerr(C, at->comm.loc,
                "alias '%s' is in %s but its storage '%s' is in %s", v->name, a,
                r->name, b);
        C->poisoned[st->value] = true;
    }
}

/* Placement inside the storage: the alias's byte offset (OLD's plus
 * offset=) and size fit the storage r; then its alignment. */
static void ir_alias_fits(ir_checker *C, const ir_stmt *st, ir_value *v,
                          const ir_value *o, const ir_value *r) {
    uint64_t item = ir_dtype_size(v->dtype);
    uint64_t off = o->byte_offset;
    bool fits = true;
    if (st->has_offset) {
        if (st->attrs->offset > (UINT64_MAX - off) / item)
            fits = false;
        else
            off += st->attrs->offset * item;
    }
    v->byte_offset = off;
    if (!fits) {
        ir_cerr(C, st->attrs->offset_loc,
                "alias '%s' does not fit its storage: its offset overflows "
                "64 bits",
                v->name);
        C->poisoned[st->value] = true;
        return;
    }
    if (off > r->bytes || v->bytes > r->bytes - off) {
        ir_loc loc = st->has_offset   ? st->attrs->offset_loc
                     : st->has_stride ? st->attrs->stride_loc
                     : st->has_type   ? st->type.loc
                                      : st->old.loc;
        ir_cerr(C, loc,
                "alias '%s' does not fit its storage: it needs %llu byte%s at "
                "byte offset %llu but '%s' has %llu byte%s",
                v->name, (unsigned long long)v->bytes, v->bytes == 1 ? "" : "s",
                (unsigned long long)off, r->name, (unsigned long long)r->bytes,
                r->bytes == 1 ? "" : "s");
        C->poisoned[st->value] = true;
        return;
    }
    ir_check_view_align(C, st, v, r);
}

/* alias NEW = OLD [TYPE] [attrs]: resolve OLD, take its storage's
 * placement and a shape, check the attributes against the storage, then
 * the placement inside it.  A name with an error stays usable (poisoned:
 * no cascades). */
void ir_check_alias(ir_checker *C, ir_stmt *st) {
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
    if (st->broken) {
        /* Its OLD name and type may be partial: not read. */
        C->poisoned[id] = true;
        v->dtype = IR_U8;
        return;
    }
    int32_t old = ir_alias_old(C, st, id);
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
    C->live[o->root]++;
    if (C->poisoned[old])
        C->poisoned[id] = true;
    ir_alias_shape(C, st, v, o, r);
    if (p->stmts[r->def].broken) {
        /* The storage's line is broken: its placement and size are
         * unknown, nothing to compare with. */
        C->poisoned[id] = true;
        return;
    }
    ir_alias_same_place(C, st, v, o, r);
    if (!C->poisoned[id])
        ir_alias_fits(C, st, v, o, r);
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
void ir_collect_names(ir_checker *C) {
    ir_program *p = C->p;
    bool any = false;
    /* colour: 0 unvisited, else the number of the walk that visited it;
     * aliases that are not the first definition of their name are left
     * out (UINT32_MAX). */
    uint32_t *colour = base_xcalloc(p->nstmts, sizeof *colour);
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

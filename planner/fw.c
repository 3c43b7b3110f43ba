/*
 * planner/fw.c - the firmware passes of plan_program (docs/firmware.md):
 * accessed bytes and spill along the spill= chains of memory spaces.
 * The selection inside one pool is planner/spill.c's.
 */
#include "base/base.h"
#include "plan_internal.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

void plan_fw_access(plan *pl, const bool *pooled) {
    const ir_program *p = pl->prog;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        if (st->kind != IR_CALL)
            continue;
        for (uint32_t k = 0; k < st->nargs; k++) {
            int32_t v = st->args[k].value;
            if (st->args[k].kind != IR_ARG_BUFFER || v < 0)
                continue;
            int32_t s = pl->storage_of_value[v];
            if (s < 0)
                continue;
            uint64_t *acc = &pl->storages[s].accessed;
            uint64_t b = p->values[v].bytes;
            *acc = b > UINT64_MAX - *acc ? UINT64_MAX : *acc + b;
        }
    }
    pl->accessed = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        if (pooled[s]) {
            uint64_t b = pl->storages[s].accessed;
            pl->accessed =
                b > UINT64_MAX - pl->accessed ? UINT64_MAX : pl->accessed + b;
        }
}

static bool fw_streq(const char *a, const char *b) {
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

/* Same pool key but the space: device, comm, group, outputs pool. */
static bool fw_same_group(const plan *pl, const bool *outputs, uint32_t s,
                          uint32_t t) {
    const ir_value *a = &pl->prog->values[pl->storages[s].value];
    const ir_value *b = &pl->prog->values[pl->storages[t].value];
    return a->device.kind == b->device.kind &&
           a->device.index == b->device.index && fw_streq(a->comm, b->comm) &&
           fw_streq(a->group, b->group) && outputs[s] == outputs[t];
}

/* Order of the spaces along the chains: a space comes after every space
 * that spills into it (rank = longest chain leading to it).  ir_check
 * rejects cycles, so ranks stay below nspaces. */
static void fw_ranks(const ir_program *p, uint32_t *rank) {
    for (uint32_t i = 0; i < p->nspaces; i++)
        rank[i] = 0;
    for (uint32_t round = 0; round < p->nspaces; round++)
        for (uint32_t i = 0; i < p->nspaces; i++) {
            int32_t t = p->spaces[i].spill;
            if (t >= 0 && rank[t] < rank[i] + 1)
                rank[t] = rank[i] + 1;
        }
}

/* One group (storages members[0..n) of one pool of space `sp`). */
static bool fw_spill_group(plan *pl, const ir_space *sp, const char *target,
                           const uint32_t *members, uint32_t n,
                           const int32_t *color, bool *fixed, base_diag *d) {
    const ir_program *p = pl->prog;
    const ir_value *v0 = &p->values[pl->storages[members[0]].value];
    plan_problem pb = {
        n, NULL, plan_pool_align(&pl->opts, v0->device.kind == IR_DEV_CUDA),
        NULL};
    pb.bufs = calloc((size_t)n + 1, sizeof *pb.bufs);
    uint64_t *acc = calloc((size_t)n + 1, sizeof *acc);
    uint64_t *off = calloc((size_t)n + 1, sizeof *off);
    bool *keep = calloc((size_t)n + 1, sizeof *keep);
    uint64_t size = 0;
    bool ok = pb.bufs && acc && off && keep;
    for (uint32_t k = 0; ok && k < n; k++) {
        const plan_storage *st = &pl->storages[members[k]];
        const ir_value *v = &p->values[st->value];
        plan_buf *b = &pb.bufs[k];
        b->size = st->size + pl->opts.guard_bytes; /* guards are planned */
        uint64_t va = plan_value_align(v);
        b->align = va > pb.align ? va : pb.align;
        b->start = st->start;
        b->end = st->end;
        b->color = color[members[k]];
        acc[k] = st->accessed;
    }
    if (ok && plan_spill_select(&pb, acc, sp->capacity, keep, off, &size) != 0)
        ok = false;
    for (uint32_t k = 0; ok && k < n; k++) {
        plan_storage *st = &pl->storages[members[k]];
        if (keep[k]) {
            st->offset = off[k];
            fixed[members[k]] = true;
        } else {
            st->space = target;
            st->spilled = true;
        }
    }
    if (!ok)
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "out of memory (or a pool too large) while choosing "
                         "what spills from space '%s'",
                         sp->name);
    free(pb.bufs);
    free(acc);
    free(off);
    free(keep);
    return ok;
}

/* Spills the pooled storages placed in space `si`, group by group. */
static bool fw_spill_space(plan *pl, uint32_t si, const bool *pooled,
                           const bool *outputs, const int32_t *color,
                           bool *fixed, uint32_t *members, bool *done,
                           base_diag *d) {
    const ir_program *p = pl->prog;
    const ir_space *sp = &p->spaces[si];
    const char *target = p->spaces[sp->spill].name;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        done[s] = !pooled[s] || !fw_streq(pl->storages[s].space, sp->name);
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        if (done[s])
            continue;
        uint32_t n = 0;
        for (uint32_t t = s; t < pl->nstorages; t++)
            if (!done[t] && fw_same_group(pl, outputs, s, t)) {
                members[n++] = t;
                done[t] = true;
            }
        if (!fw_spill_group(pl, sp, target, members, n, color, fixed, d))
            return false;
    }
    return true;
}

bool plan_fw_spill(plan *pl, const bool *pooled, const bool *outputs,
                   const int32_t *color, bool *fixed, base_diag *d) {
    const ir_program *p = pl->prog;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        pl->storages[s].space = p->values[pl->storages[s].value].space;
    bool any = false;
    for (uint32_t i = 0; i < p->nspaces; i++)
        any |= p->spaces[i].spill >= 0;
    if (!any)
        return true;
    uint32_t *rank = calloc(p->nspaces + 1, sizeof *rank);
    uint32_t *members = calloc((size_t)pl->nstorages + 1, sizeof *members);
    bool *done = calloc((size_t)pl->nstorages + 1, sizeof *done);
    bool ok = rank && members && done;
    if (!ok)
        base_diag_report(d, BASE_SEV_ERROR, 0, 0, "out of memory");
    if (ok)
        fw_ranks(p, rank);
    for (uint32_t r = 0; ok && r < p->nspaces; r++)
        for (uint32_t i = 0; ok && i < p->nspaces; i++)
            if (rank[i] == r && p->spaces[i].spill >= 0)
                ok = fw_spill_space(pl, i, pooled, outputs, color, fixed,
                                    members, done, d);
    free(rank);
    free(members);
    free(done);
    return ok;
}

static int32_t fw_space_index(const ir_program *p, const char *name) {
    for (uint32_t i = 0; name && i < p->nspaces; i++)
        if (strcmp(p->spaces[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* Counts spilled storage st in r (space `name`) when its way down the
 * chain, from its declared space to the one it was placed in, leaves
 * `name` (r->nspilled) or enters it (r->nreceived); true when it did. */
static bool fw_hops(const ir_program *p, const plan_storage *st,
                    const char *name, plan_space_report *r) {
    int32_t x = fw_space_index(p, name);
    int32_t i = fw_space_index(p, p->values[st->value].space);
    int32_t f = fw_space_index(p, st->space);
    bool hit = false;
    for (uint32_t steps = 0; x >= 0 && i >= 0 && i != f && steps < p->nspaces;
         steps++) {
        if (i == x) {
            r->nspilled++;
            hit = true;
        }
        i = p->spaces[i].spill;
        if (i == x) {
            r->nreceived++;
            hit = true;
        }
    }
    return hit;
}

/* Fills the report of space `name` (NULL = default); false when the
 * space has nothing to report. */
static bool fw_report(const plan *pl, const char *name, plan_space_report *r) {
    const ir_program *p = pl->prog;
    memset(r, 0, sizeof *r);
    r->name = name;
    bool any = false;
    for (uint32_t i = 0; i < p->nspaces && name; i++)
        if (strcmp(p->spaces[i].name, name) == 0) {
            r->has_capacity = p->spaces[i].has_capacity;
            r->capacity = p->spaces[i].capacity;
            if (p->spaces[i].spill >= 0)
                r->spill = p->spaces[p->spaces[i].spill].name;
            any = r->has_capacity;
        }
    for (uint32_t i = 0; i < pl->npools; i++)
        if (fw_streq(pl->pools[i].space, name)) {
            r->size += pl->pools[i].size;
            any = true;
        }
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        if (st->pool < 0)
            continue;
        if (fw_streq(st->space, name))
            r->accessed += st->accessed;
        if (st->spilled && fw_hops(p, st, name, r))
            any = true;
    }
    if (r->has_capacity && r->capacity > r->size)
        r->headroom = r->capacity - r->size;
    if (pl->accessed)
        r->npermille = (uint32_t)((long double)r->accessed * 1000.0L /
                                  (long double)pl->accessed);
    return any;
}

uint32_t plan_space_reports(const plan *pl, base_arena *a,
                            plan_space_report **out) {
    const ir_program *p = pl->prog;
    *out = base_arena_array(a, p->nspaces + 1, sizeof **out);
    uint32_t n = 0;
    if (fw_report(pl, NULL, &(*out)[n]))
        n++;
    for (uint32_t i = 0; i < p->nspaces; i++)
        if (fw_report(pl, p->spaces[i].name, &(*out)[n]))
            n++;
    return n;
}

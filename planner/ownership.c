/*
 * planner/ownership.c - what the plan records for code generation
 * besides offsets (plan_record): who holds the memory of each unpooled
 * storage, and the extra pools.  (The kernel of each call is ir_check's:
 * ir_stmt.kernel.)
 *
 * A storage that is not pooled (a caller-owned output in intermediates
 * mode, or every storage with --memory-pool none) lives in the caller's
 * output memory when an output names the whole storage (the first such
 * output owns it), else in an extra pool of its own (pl->extras, in
 * storage order, after the plan's pools).
 */
#include "plan_internal.h"

#include "base/base.h"

#include <string.h>

/* Caller-owned outputs: the first output naming the whole storage. */
static void record_owners(plan *pl) {
    const ir_program *p = pl->prog;
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        pl->storages[s].owner = -1;
        pl->storages[s].owner_pos = -1;
    }
    if (p->output_stmt < 0)
        return;
    const ir_stmt *os = &p->stmts[p->output_stmt];
    for (uint32_t i = 0; i < os->nnames; i++) {
        int32_t val = os->name_values[i];
        if (val < 0)
            continue;
        int32_t s = pl->storage_of_value[val];
        if (s < 0)
            continue;
        plan_storage *st = &pl->storages[s];
        if (st->pool >= 0 || st->owner >= 0)
            continue;
        const ir_value *iv = &p->values[val];
        if (iv->byte_offset == 0 && iv->bytes == st->size) {
            st->owner = val;
            st->owner_pos = (int32_t)i;
        }
    }
}

/* An extra pool for every storage neither pooled nor owned by an
 * output. */
static void record_extras(base_arena *a, plan *pl) {
    uint32_t n = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        if (pl->storages[s].pool < 0 && pl->storages[s].owner < 0)
            n++;
    pl->nextras = n;
    pl->extras = base_arena_array(a, n + 1, sizeof *pl->extras);
    n = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        if (st->pool >= 0 || st->owner >= 0)
            continue;
        plan_extra *e = &pl->extras[n++];
        e->storage = s;
        e->size = st->size + pl->opts.guard_bytes;
        e->align = plan_value_align(&pl->prog->values[st->value]);
    }
}

void plan_record(base_arena *a, plan *pl) {
    record_owners(pl);
    record_extras(a, pl);
}

bool plan_planned_output(const plan *pl, int32_t val) {
    const ir_value *iv = &pl->prog->values[val];
    int32_t s = pl->storage_of_value[val];
    return iv->kind == IR_VAL_ALLOC && iv->next_of < 0 && s >= 0 &&
           pl->storages[s].pool >= 0 &&
           pl->opts.memory_pool == PLAN_MP_INTERMEDIATES;
}

/*
 * planner/ownership.c - what the plan records for code generation
 * besides offsets (plan_record): the kernel of each call, who holds the
 * memory of each unpooled storage, and the extra pools.
 *
 * A storage that is not pooled (a caller-owned output in intermediates
 * mode, or every storage with --memory-pool none) lives in the caller's
 * output memory when an output names the whole storage (the first such
 * output owns it), else in an extra pool of its own (pl->extras, in
 * storage order, after the plan's pools).
 */
#include "plan_internal.h"

#include "base/base.h"
#include "base/hash.h"

#include <string.h>

/* The kernel of each call, by name (kernels are few: a temporary hash
 * keyed by name, and a cache by the name's address, since the checker
 * gives a call the kernel's interned name). */
static const int32_t *record_kernels(base_arena *a, const ir_program *p) {
    typedef struct kn {
        const char *name;
        uint32_t k;
        UT_hash_handle hh;
    } kn;
    kn *map = NULL;
    for (uint32_t k = 0; k < p->nkernels; k++) {
        kn *e = base_arena_alloc(a, sizeof *e);
        e->name = p->kernels[k].name;
        e->k = k;
        HASH_ADD_KEYPTR(hh, map, e->name, strlen(e->name), e);
    }
    int32_t *of = base_arena_array(a, p->nstmts + 1, sizeof *of);
    kn *seen[64] = {0}; /* by name pointer: repeated names skip the hash */
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        kn *e = NULL;
        if (s->kind == IR_CALL) {
            const char *nm = s->name.name;
            size_t slot = ((uintptr_t)nm >> 4) & 63;
            if (seen[slot] && seen[slot]->name == nm)
                e = seen[slot];
            else
                HASH_FIND_STR(map, nm, e);
            if (e && e->name == nm)
                seen[slot] = e;
        }
        of[i] = e ? (int32_t)e->k : -1;
    }
    HASH_CLEAR(hh, map); /* the entries live in the arena */
    return of;
}

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
    pl->kernel_of_stmt = record_kernels(a, pl->prog);
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

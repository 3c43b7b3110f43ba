/*
 * codegen/view_ownership.c - which output owns a storage, the extra
 * pools of unpooled storages (with the planner's default alignment,
 * plan_pool_align) and the buffer macros.  Output ownership and the extra
 * pools are planning decisions still made here (issue 9 item 2: due to
 * move to the program planner).
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Pools and storages. */

int32_t cg_output_value_at(const vw *v, uint32_t i) {
    const ir_program *p = v->prog;
    return p->stmts[p->output_stmt].name_values[i];
}

void cg_plan_pools(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    uint32_t ns = pl->nstorages;
    v->spool = base_arena_array(v->a, ns + 1, sizeof *v->spool);
    v->home_value = base_arena_array(v->a, ns + 1, sizeof *v->home_value);
    v->home_pos = base_arena_array(v->a, ns + 1, sizeof *v->home_pos);
    v->salign = base_arena_array(v->a, ns + 1, sizeof *v->salign);
    for (uint32_t s = 0; s < ns; s++) {
        v->home_value[s] = -1;
        v->spool[s] = pl->storages[s].pool;
    }
    /* Caller-owned outputs: the first output naming the whole storage. */
    if (p->output_stmt >= 0) {
        const ir_stmt *os = &p->stmts[p->output_stmt];
        for (uint32_t i = 0; i < os->nnames; i++) {
            int32_t val = cg_output_value_at(v, i);
            if (val < 0)
                continue;
            int32_t s = pl->storage_of_value[val];
            if (s < 0 || pl->storages[s].pool >= 0 || v->home_value[s] >= 0)
                continue;
            const ir_value *iv = &p->values[val];
            if (iv->byte_offset == 0 && iv->bytes == pl->storages[s].size) {
                v->home_value[s] = val;
                v->home_pos[s] = (int32_t)i;
            }
        }
    }
    uint32_t nsyn = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (v->spool[s] < 0 && v->home_value[s] < 0)
            nsyn++;
    uint32_t np = pl->npools + nsyn;
    v->npools = np;
    v->pool_name = base_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_local = base_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_upper = base_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_size = base_arena_array(v->a, np + 1, sizeof(uint64_t));
    v->pool_align = base_arena_array(v->a, np + 1, sizeof(uint64_t));
    v->pool_plan = base_arena_array(v->a, np + 1, sizeof(int32_t));
    v->pool_storage = base_arena_array(v->a, np + 1, sizeof(int32_t));
    cg_nameset fields = {NULL}, stems = {NULL};
    for (uint32_t i = 0; i < pl->npools; i++) {
        const plan_pool *pp = &pl->pools[i];
        v->pool_name[i] = cg_set_unique(v, &fields, cg_field_base(v, pp->name));
        v->pool_size[i] = pp->size;
        v->pool_align[i] = pp->base_align > pp->align ? pp->base_align
                           : pp->align                ? pp->align
                                                      : 1;
        v->pool_plan[i] = (int32_t)i;
        v->pool_storage[i] = -1;
    }
    /* the target's default, as the planner's for the device */
    uint64_t dalign = plan_pool_align(&pl->opts, v->cuda);
    uint32_t k = pl->npools;
    for (uint32_t s = 0; s < ns; s++) {
        if (v->spool[s] >= 0 || v->home_value[s] >= 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        const ir_value *iv = &p->values[st->value];
        v->pool_name[k] = cg_set_unique(v, &fields, cg_field_base(v, iv->name));
        v->pool_size[k] = st->size + pl->opts.guard_bytes;
        uint64_t va = plan_value_align(iv);
        uint64_t al = va > dalign ? va : dalign;
        v->pool_align[k] = al;
        v->pool_plan[k] = -1;
        v->pool_storage[k] = (int32_t)s;
        v->spool[s] = (int32_t)k;
        k++;
    }
    for (uint32_t i = 0; i < np; i++) {
        v->pool_upper[i] =
            cg_set_unique(v, &stems, cg_upper(v, v->pool_name[i]));
        v->pool_local[i] =
            cg_set_unique(v, &v->ids, cg_vfmt(v, "pool_%s", v->pool_name[i]));
    }
    cg_set_clear(&fields);
    cg_set_clear(&stems);

    v->off_macro = base_arena_array(v->a, ns + 1, sizeof(char *));
    v->size_macro = base_arena_array(v->a, ns + 1, sizeof(char *));
    v->align_macro = base_arena_array(v->a, ns + 1, sizeof(char *));
    cg_nameset bufs = {NULL};
    for (uint32_t s = 0; s < ns; s++) {
        if (v->spool[s] < 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        const ir_value *iv = &p->values[st->value];
        const char *stem = cg_set_unique(v, &bufs, cg_upper(v, iv->name));
        v->off_macro[s] = cg_vfmt(v, "%s_BUF_%s_OFFSET", v->M, stem);
        v->size_macro[s] = cg_vfmt(v, "%s_BUF_%s_SIZE", v->M, stem);
        v->align_macro[s] = cg_vfmt(v, "%s_BUF_%s_ALIGN", v->M, stem);
        int32_t pk = v->pool_plan[v->spool[s]];
        uint64_t pa = pk >= 0 ? (pl->pools[pk].align ? pl->pools[pk].align : 1)
                              : v->pool_align[v->spool[s]];
        v->salign[s] = iv->align > pa ? iv->align : pa;
    }
    cg_set_clear(&bufs);
}

bool cg_planned_output(const vw *v, int32_t val) {
    const ir_value *iv = &v->prog->values[val];
    int32_t s = v->pl->storage_of_value[val];
    return iv->kind == IR_VAL_ALLOC && iv->next_of < 0 && s >= 0 &&
           v->pl->storages[s].pool >= 0 &&
           v->pl->opts.memory_pool == PLAN_MP_INTERMEDIATES;
}

void cg_plan_outputs(vw *v) {
    const ir_program *p = v->prog;
    uint32_t n = p->output_stmt >= 0 ? p->stmts[p->output_stmt].nnames : 0;
    v->out_copy = base_arena_array(v->a, n + 1, sizeof(bool));
    v->out_field = base_arena_array(v->a, n + 1, sizeof(char *));
    v->out_size_macro = base_arena_array(v->a, n + 1, sizeof(char *));
    for (uint32_t i = 0; i < n; i++) {
        int32_t val = cg_output_value_at(v, i);
        int32_t s = v->pl->storage_of_value[val];
        v->out_copy[i] =
            !(s >= 0 && v->home_value[s] == val) && !cg_planned_output(v, val);
        v->used[val] = v->used[val] || v->out_copy[i];
    }
}

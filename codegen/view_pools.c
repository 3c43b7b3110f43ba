/*
 * codegen/view_pools.c - the view's pools: the plan's pools, then its
 * extra pools (planner/ownership.c: which output owns an unpooled
 * storage, which storages get a pool of their own), their names, and the
 * buffer macros.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int32_t cg_output_value_at(const vw *v, uint32_t i) {
    const ir_program *p = v->prog;
    return p->stmts[p->output_stmt].name_values[i];
}

const char cg_macro_suffix[3][8] = {"_OFFSET", "_SIZE", "_ALIGN"};

/* cg_buf_macro of a storage whose prefix is not in the memo: made and
 * remembered. */
const char *cg_buf_macro_new(const vw *v, uint32_t s, int which, size_t *n) {
    /* every vw is mutable: only the memo changes */
    struct cg_macro_memo *e =
        (struct cg_macro_memo *)&v->macro_memo[s % CG_MACRO_MEMO];
    /* "M_BUF_STEM": the stem is the IR's name itself when bstem_lower,
     * upper-cased here without a branch per byte (names mix letters and
     * digits) */
    const char *stem = v->bstem[s];
    size_t sn = v->bstem_lower ? ir_name_len(stem) : strlen(stem);
    cg_part x[] = {{v->M, v->Mlen},
                   CG_LIT("_BUF_"),
                   {stem, sn},
                   {cg_macro_suffix[which], cg_macro_suffix_len(which)}};
    char *m = cg_catn(v, x, 4, n);
    size_t pl = v->Mlen + 5 + sn;
    /* the memo is written from the parts and with the upper-cased bytes
     * themselves: copied from m, its wide loads met m's byte stores
     * still in flight (a store-forwarding stall per new prefix) */
    bool keep = pl <= sizeof e->p;
    if (keep) {
        base_copy(e->p, v->M, v->Mlen);
        base_copy(e->p + v->Mlen, "_BUF_", 5);
        e->n = (uint32_t)pl;
        e->of = s + 1;
    }
    char *c = m + v->Mlen + 5, *k = keep ? e->p + v->Mlen + 5 : NULL;
    for (size_t i = 0; i < sn; i++) {
        char b = stem[i];
        if (v->bstem_lower)
            b = (char)(b ^ ((unsigned)(b - 'a') < 26u ? 0x20 : 0));
        c[i] = b;
        if (k)
            k[i] = b;
    }
    return m;
}

/* Whether name has an upper-case letter. */
static bool has_upper(const char *name) {
    for (const char *c = name; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            return true;
    return false;
}

/* Pooled storage s in view pool k (pa: its alignment): its pool, its
 * alignment and its stem, its name's (buffer_stems makes the stems
 * unique when some name has an upper-case letter); false when its name
 * has one. */
static bool pool_storage(vw *v, uint32_t s, int32_t k, uint64_t pa) {
    const ir_value *iv = &v->prog->values[v->pl->storages[s].value];
    v->spool[s] = k;
    v->salign[s] = iv->align > pa ? iv->align : pa;
    v->bstem[s] = iv->name;
    return !has_upper(iv->name);
}

/* When some pooled storage's name has an upper-case letter, the stems
 * of the buffer macros: upper-case names made unique in storage order
 * (NAME, NAME_2, ...).  Otherwise the names themselves, upper-cased
 * where the macros are made: the IR's names are distinct, so are their
 * upper-case forms (bstem_lower). */
static void buffer_stems(vw *v, bool lower) {
    const plan *pl = v->pl;
    v->bstem_lower = lower;
    if (lower)
        return;
    cg_nameset bufs = {0};
    for (uint32_t s = 0; s < pl->nstorages; s++)
        if (v->spool[s] >= 0)
            v->bstem[s] = cg_set_unique(
                v, &bufs,
                cg_upper(v, v->prog->values[pl->storages[s].value].name));
    cg_set_clear(&bufs);
}

/* Every storage's view pool, alignment and macro stem: one pass over the
 * storages (and their values' names and alignments), then the extra
 * pools' storages. */
static void pool_storages(vw *v) {
    const plan *pl = v->pl;
    uint32_t ns = pl->nstorages;
    v->bstem = base_arena_array(v->a, ns + 1, sizeof(char *));
    bool lower = true;
    for (uint32_t s = 0; s < ns; s++) {
        if (s + CG_PASS_AHEAD < ns)
            cg_prefetch_storage(v, s + CG_PASS_AHEAD, s + CG_PASS_AHEAD / 2);
        int32_t pk = pl->storages[s].pool;
        if (pk < 0)
            v->spool[s] = -1;
        else
            lower &= pool_storage(
                v, s, pk, pl->pools[pk].align ? pl->pools[pk].align : 1);
    }
    for (uint32_t e = 0; e < pl->nextras; e++) {
        uint32_t k = pl->npools + e;
        lower &= pool_storage(v, pl->extras[e].storage, (int32_t)k,
                              v->pool_align[k]);
    }
    buffer_stems(v, lower);
}

void cg_plan_pools(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    uint32_t ns = pl->nstorages;
    v->spool = base_arena_array(v->a, ns + 1, sizeof *v->spool);
    v->salign = base_arena_array(v->a, ns + 1, sizeof *v->salign);
    uint32_t np = pl->npools + pl->nextras;
    v->npools = np;
    v->pool_name = base_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_local = base_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_upper = base_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_size = base_arena_array(v->a, np + 1, sizeof(uint64_t));
    v->pool_align = base_arena_array(v->a, np + 1, sizeof(uint64_t));
    v->pool_plan = base_arena_array(v->a, np + 1, sizeof(int32_t));
    v->pool_storage = base_arena_array(v->a, np + 1, sizeof(int32_t));
    cg_nameset fields = {0}, stems = {0};
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
    for (uint32_t e = 0; e < pl->nextras; e++) {
        const plan_extra *x = &pl->extras[e];
        const ir_value *iv = &p->values[pl->storages[x->storage].value];
        uint32_t k = pl->npools + e;
        v->pool_name[k] = cg_set_unique(v, &fields, cg_field_base(v, iv->name));
        v->pool_size[k] = x->size;
        v->pool_align[k] = plan_extra_align(pl, x, v->cuda);
        v->pool_plan[k] = -1;
        v->pool_storage[k] = (int32_t)x->storage;
    }
    for (uint32_t i = 0; i < np; i++) {
        v->pool_upper[i] =
            cg_set_unique(v, &stems, cg_upper(v, v->pool_name[i]));
        v->pool_local[i] =
            cg_set_unique(v, &v->ids, cg_vfmt(v, "pool_%s", v->pool_name[i]));
    }
    cg_set_clear(&fields);
    cg_set_clear(&stems);

    pool_storages(v);
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
        v->out_copy[i] = !(s >= 0 && v->pl->storages[s].owner == val) &&
                         !plan_planned_output(v->pl, val);
        v->used[val] = v->used[val] || v->out_copy[i];
    }
}

/*
 * codegen/event_text.c - the inspection texts of plan events, one
 * printer for both readers: the comments of generated code (the "comment"
 * of the view's events, docs/view.md) and `plan --emit lines`.  Byte
 * ranges are half-open, [first byte, end), in the pool's offsets.
 */
#include "codegen/codegen.h"

#include "base/base.h"

#include <inttypes.h>
#include <string.h>

static const char *et_take(base_arena *a, base_sb *b) {
    char *s = base_arena_strdup(a, base_sb_str(b));
    base_sb_free(b);
    return s;
}

/* "POOL[lo,hi)" */
static void et_range(base_sb *b, const plan *pl, const plan_storage *st,
                     uint64_t lo, uint64_t hi) {
    base_sb_printf(b, "%s[%" PRIu64 ",%" PRIu64 ")", pl->pools[st->pool].name,
                   lo, hi);
}

const char *cg_text_alloc(base_arena *a, const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    base_sb b = {0};
    base_sb_printf(&b, "alloc: %s, %" PRIu64 " byte%s",
                   pl->prog->values[st->value].name, st->size,
                   st->size == 1 ? "" : "s");
    if (st->pool >= 0 && st->size) {
        base_sb_puts(&b, " at ");
        et_range(&b, pl, st, st->offset, st->offset + st->size);
    }
    return et_take(a, &b);
}

const char *cg_text_reuse(base_arena *a, const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    if (st->ndonors == 0)
        return NULL;
    base_sb b = {0};
    base_sb_printf(&b, "reuse: %s takes", pl->prog->values[st->value].name);
    for (uint32_t i = 0; i < st->ndonors; i++) {
        const plan_donor *d = &pl->donors[st->donor_begin + i];
        base_sb_puts(&b, i ? ", " : " ");
        et_range(&b, pl, st, d->lo, d->hi);
        base_sb_printf(&b, " from %s",
                       pl->prog->values[pl->storages[d->storage].value].name);
    }
    return et_take(a, &b);
}

const char *cg_text_alias(base_arena *a, const plan *pl, const ir_stmt *s) {
    const ir_program *p = pl->prog;
    const ir_value *v = &p->values[s->value];
    base_sb b = {0};
    base_sb_printf(&b, "alias: %s = %s %s[", s->name.name, s->old.name,
                   ir_dtype_name(v->dtype));
    for (uint32_t i = 0; i < v->ndim; i++)
        base_sb_printf(&b, "%s%" PRIu64, i ? "," : "", v->dims[i]);
    base_sb_printf(&b, "] offset=%" PRIu64, s->has_offset ? s->offset : 0);
    if (v->nstrides) {
        base_sb_puts(&b, " stride=[");
        for (uint32_t i = 0; i < v->nstrides; i++)
            base_sb_printf(&b, "%s%" PRIu64, i ? "," : "", v->strides[i]);
        base_sb_putc(&b, ']');
    }
    base_sb_printf(&b, ", bytes [%" PRIu64 ",%" PRIu64 ") of %s",
                   v->byte_offset, v->byte_offset + v->bytes,
                   p->values[v->root].name);
    return et_take(a, &b);
}

const char *cg_text_del(base_arena *a, const plan *pl, const ir_stmt *s,
                        uint32_t k) {
    const ir_program *p = pl->prog;
    const char *name = s->names[k].name;
    int32_t v = s->name_values ? s->name_values[k] : -1;
    const ir_value *r = v >= 0 ? &p->values[p->values[v].root] : NULL;
    if (!r || r->storage_end == (int32_t)s->index)
        return base_arena_printf(a, "del %s", name);
    if (r->storage_end < 0)
        return base_arena_printf(
            a, "del %s: a name only, storage %s lives to the end", name,
            r->name);
    /* the name whose free ends the storage */
    const ir_stmt *e = &p->stmts[r->storage_end];
    const char *last = NULL;
    for (uint32_t j = 0; j < e->nnames && !last; j++)
        if (e->name_values && e->name_values[j] >= 0 &&
            &p->values[p->values[e->name_values[j]].root] == r)
            last = e->names[j].name;
    return base_arena_printf(
        a,
        "del %s: a name only, storage %s lives until free %s (line %" PRIu32
        ")",
        name, r->name, last ? last : "?", e->loc.line);
}

const char *cg_text_death(base_arena *a, const plan *pl, int32_t root) {
    int32_t sid = pl->storage_of_value[root];
    const char *name = pl->prog->values[root].name;
    if (sid < 0 || pl->storages[sid].pool < 0 || !pl->storages[sid].size)
        return base_arena_printf(a, "storage %s dies", name);
    const plan_storage *st = &pl->storages[sid];
    base_sb b = {0};
    base_sb_printf(&b, "storage %s dies: ", name);
    et_range(&b, pl, st, st->offset, st->offset + st->size);
    base_sb_puts(&b, " is free");
    return et_take(a, &b);
}

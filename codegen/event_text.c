/*
 * codegen/event_text.c - the inspection texts of plan events, one
 * printer for both readers: the comments of generated code (the "comment"
 * of the view's events, docs/view.md) and `plan --emit lines`.  Byte
 * ranges are half-open, [first byte, end), in the pool's offsets.
 */
#include "codegen/codegen.h"

#include "base/base.h"

#include <string.h>

static const char *et_take(base_arena *a, base_sb *b) {
    char *s = base_arena_strdup(a, base_sb_str(b));
    base_sb_free(b);
    return s;
}

/* The texts are built with puts and u64 appends, not printf: gen
 * formats several per kernel call. */

/* Appends a name of the (checked) program: its length is in its record
 * (ir_name_len), no strlen. */
static void et_name(base_sb *b, const char *name) {
    base_sb_put(b, name, ir_name_len(name));
}

/* The most bytes of "[lo,hi)". */
#define ET_BYTES_MAX (2 * BASE_U64_MAX_DIGITS + 3)

/* "[lo,hi)" at p (room for ET_BYTES_MAX bytes); returns the end. */
static char *et_bytes_at(char *p, uint64_t lo, uint64_t hi) {
    *p++ = '[';
    p = base_u64_at(p, lo);
    *p++ = ',';
    p = base_u64_at(p, hi);
    *p++ = ')';
    return p;
}

/* "POOL[lo,hi)", reserved once and written in place (gen writes one or
 * more per alloc, reuse and death event). */
static void et_range(base_sb *b, const plan *pl, const plan_storage *st,
                     uint64_t lo, uint64_t hi) {
    const char *pool = pl->pools[st->pool].name;
    size_t n = strlen(pool);
    char *p = base_sb_room(b, n + ET_BYTES_MAX);
    base_copy(p, pool, n);
    base_sb_end(b, et_bytes_at(p + n, lo, hi));
}

/* "[lo,hi)" */
static void et_bytes(base_sb *b, uint64_t lo, uint64_t hi) {
    base_sb_end(b, et_bytes_at(base_sb_room(b, ET_BYTES_MAX), lo, hi));
}

/* The u64 list "x,y,z", reserved once and written in place. */
static void et_list(base_sb *b, const uint64_t *x, uint32_t n) {
    char *p = base_sb_room(b, (size_t)n * (BASE_U64_MAX_DIGITS + 1));
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            *p++ = ',';
        p = base_u64_at(p, x[i]);
    }
    base_sb_end(b, p);
}

void cg_text_alloc_to(base_sb *b, const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    base_sb_puts(b, "alloc: ");
    et_name(b, pl->prog->values[st->value].name);
    base_sb_puts(b, ", ");
    base_sb_u64(b, st->size);
    base_sb_puts(b, st->size == 1 ? " byte" : " bytes");
    if (st->pool >= 0 && st->size) {
        base_sb_puts(b, " at ");
        et_range(b, pl, st, st->offset, st->offset + st->size);
    }
}

void cg_text_reuse_to(base_sb *b, const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    base_sb_puts(b, "reuse: ");
    et_name(b, pl->prog->values[st->value].name);
    base_sb_puts(b, " takes");
    for (uint32_t i = 0; i < st->ndonors; i++) {
        const plan_donor *d = &pl->donors[st->donor_begin + i];
        base_sb_puts(b, i ? ", " : " ");
        et_range(b, pl, st, d->lo, d->hi);
        base_sb_puts(b, " from ");
        et_name(b, pl->prog->values[pl->storages[d->storage].value].name);
    }
}

void cg_text_alias_to(base_sb *b, const plan *pl, const ir_stmt *s) {
    const ir_program *p = pl->prog;
    const ir_value *v = &p->values[s->value];
    base_sb_puts(b, "alias: ");
    et_name(b, s->name.name);
    base_sb_puts(b, " = ");
    et_name(b, s->old.name);
    base_sb_putc(b, ' ');
    base_sb_puts(b, ir_dtype_name(v->dtype));
    base_sb_putc(b, '[');
    et_list(b, v->dims, v->ndim);
    base_sb_puts(b, "] offset=");
    base_sb_u64(b, s->has_offset ? s->attrs->offset : 0);
    if (v->nstrides) {
        base_sb_puts(b, " stride=[");
        et_list(b, v->strides, v->nstrides);
        base_sb_putc(b, ']');
    }
    base_sb_puts(b, ", bytes ");
    et_bytes(b, v->byte_offset, v->byte_offset + v->bytes);
    base_sb_puts(b, " of ");
    et_name(b, p->values[v->root].name);
}

void cg_text_del_to(base_sb *b, const plan *pl, const ir_stmt *s, uint32_t k) {
    const ir_program *p = pl->prog;
    const char *name = s->names[k].name;
    int32_t v = s->name_values ? s->name_values[k] : -1;
    const ir_value *r = v >= 0 ? &p->values[p->values[v].root] : NULL;
    base_sb_puts(b, "del ");
    et_name(b, name);
    if (!r || r->storage_end == (int32_t)s->index)
        return;
    base_sb_puts(b, ": a name only, storage ");
    et_name(b, r->name);
    if (r->storage_end < 0) {
        base_sb_puts(b, " lives to the end");
        return;
    }
    /* the name whose free ends the storage */
    const ir_stmt *e = &p->stmts[r->storage_end];
    const char *last = NULL;
    for (uint32_t j = 0; j < e->nnames && !last; j++)
        if (e->name_values && e->name_values[j] >= 0 &&
            &p->values[p->values[e->name_values[j]].root] == r)
            last = e->names[j].name;
    base_sb_puts(b, " lives until free ");
    base_sb_puts(b, last ? last : "?");
    base_sb_puts(b, " (line ");
    base_sb_u64(b, e->loc.line);
    base_sb_putc(b, ')');
}

void cg_text_death_to(base_sb *b, const plan *pl, int32_t root) {
    int32_t sid = pl->storage_of_value[root];
    base_sb_puts(b, "storage ");
    et_name(b, pl->prog->values[root].name);
    base_sb_puts(b, " dies");
    if (sid < 0 || pl->storages[sid].pool < 0 || !pl->storages[sid].size)
        return;
    const plan_storage *st = &pl->storages[sid];
    base_sb_puts(b, ": ");
    et_range(b, pl, st, st->offset, st->offset + st->size);
    base_sb_puts(b, " is free");
}

const char *cg_text_alloc(base_arena *a, const plan *pl, int32_t sid) {
    base_sb b = {0};
    cg_text_alloc_to(&b, pl, sid);
    return et_take(a, &b);
}

const char *cg_text_reuse(base_arena *a, const plan *pl, int32_t sid) {
    if (pl->storages[sid].ndonors == 0)
        return NULL;
    base_sb b = {0};
    cg_text_reuse_to(&b, pl, sid);
    return et_take(a, &b);
}

const char *cg_text_alias(base_arena *a, const plan *pl, const ir_stmt *s) {
    base_sb b = {0};
    cg_text_alias_to(&b, pl, s);
    return et_take(a, &b);
}

const char *cg_text_del(base_arena *a, const plan *pl, const ir_stmt *s,
                        uint32_t k) {
    base_sb b = {0};
    cg_text_del_to(&b, pl, s, k);
    return et_take(a, &b);
}

const char *cg_text_death(base_arena *a, const plan *pl, int32_t root) {
    base_sb b = {0};
    cg_text_death_to(&b, pl, root);
    return et_take(a, &b);
}

/*
 * codegen/event_text.c - the inspection texts of plan events, one
 * printer for both readers: the comments of generated code (the "comment"
 * of the view's events, docs/view.md) and `plan --emit lines`.  Byte
 * ranges are half-open, [first byte, end), in the pool's offsets.
 *
 * Each text is written in place: its most bytes are counted first
 * (cg_text_*_max: the names' lengths from their records, 20 digits a
 * number), then it is written at a pointer with room for them
 * (cg_text_*_at), without a test of room or a NUL per append.  gen
 * writes one or two per statement straight into the element's arena
 * (codegen/view_stmts.c); the arena versions write into an arena.
 */
#include "codegen/codegen.h"

#include "base/base.h"

#include <string.h>

/* s[0, n) at p; returns the end. */
static inline char *et_put(char *p, const char *s, size_t n) {
    base_copy(p, s, n);
    return p + n;
}

/* A string literal at p. */
#define ET_LIT(p, s) et_put((p), "" s, sizeof("" s) - 1)

/* A name of the (checked) program at p: its length is in its record
 * (ir_name_len), no strlen. */
static inline char *et_name(char *p, const char *name) {
    return et_put(p, name, ir_name_len(name));
}

/* The most bytes of "[lo,hi)". */
#define ET_BYTES_MAX (2 * BASE_U64_MAX_DIGITS + 3)

/* "[lo,hi)" at p; returns the end. */
static char *et_bytes(char *p, uint64_t lo, uint64_t hi) {
    *p++ = '[';
    p = base_u64_at(p, lo);
    *p++ = ',';
    p = base_u64_at(p, hi);
    *p++ = ')';
    return p;
}

/* "POOL[lo,hi)" at p, the pool's name of n bytes. */
static char *et_range(char *p, const char *pool, size_t n, uint64_t lo,
                      uint64_t hi) {
    return et_bytes(et_put(p, pool, n), lo, hi);
}

/* The u64 list "x,y,z" at p (at most n * (BASE_U64_MAX_DIGITS + 1)
 * bytes). */
static char *et_list(char *p, const uint64_t *x, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (i)
            *p++ = ',';
        p = base_u64_at(p, x[i]);
    }
    return p;
}

/* The name of the value of storage s. */
static const char *et_storage_name(const plan *pl, int32_t s) {
    return pl->prog->values[pl->storages[s].value].name;
}

/* The pool of storage st, its name's length in *n (NULL: none). */
static const char *et_pool(const plan *pl, const plan_storage *st, size_t *n) {
    if (st->pool < 0) {
        *n = 0;
        return NULL;
    }
    const plan_pool *pp = &pl->pools[st->pool];
    *n = pp->name_len;
    return pp->name;
}

/* alloc: "alloc: NAME, N bytes at POOL[lo,hi)" */

size_t cg_text_alloc_max(const plan *pl, int32_t sid) {
    size_t n;
    et_pool(pl, &pl->storages[sid], &n);
    return sizeof "alloc: , " + ir_name_len(et_storage_name(pl, sid)) +
           BASE_U64_MAX_DIGITS + sizeof " bytes at " + n + ET_BYTES_MAX;
}

char *cg_text_alloc_at(char *p, const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    p = ET_LIT(p, "alloc: ");
    p = et_name(p, et_storage_name(pl, sid));
    p = ET_LIT(p, ", ");
    p = base_u64_at(p, st->size);
    p = st->size == 1 ? ET_LIT(p, " byte") : ET_LIT(p, " bytes");
    if (st->pool >= 0 && st->size) {
        size_t n;
        const char *pool = et_pool(pl, st, &n);
        p = ET_LIT(p, " at ");
        p = et_range(p, pool, n, st->offset, st->offset + st->size);
    }
    return p;
}

/* reuse: "reuse: NAME takes POOL[lo,hi) from OLD, ..." */

size_t cg_text_reuse_max(const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    size_t n;
    et_pool(pl, st, &n);
    size_t m = sizeof "reuse:  takes" + ir_name_len(et_storage_name(pl, sid));
    for (uint32_t i = 0; i < st->ndonors; i++) {
        const plan_donor *d = &pl->donors[st->donor_begin + i];
        m += sizeof ",  from " + n + ET_BYTES_MAX +
             ir_name_len(et_storage_name(pl, d->storage));
    }
    return m;
}

char *cg_text_reuse_at(char *p, const plan *pl, int32_t sid) {
    const plan_storage *st = &pl->storages[sid];
    size_t n;
    const char *pool = et_pool(pl, st, &n);
    p = ET_LIT(p, "reuse: ");
    p = et_name(p, et_storage_name(pl, sid));
    p = ET_LIT(p, " takes");
    for (uint32_t i = 0; i < st->ndonors; i++) {
        const plan_donor *d = &pl->donors[st->donor_begin + i];
        p = i ? ET_LIT(p, ", ") : ET_LIT(p, " ");
        p = et_range(p, pool, n, d->lo, d->hi);
        p = ET_LIT(p, " from ");
        p = et_name(p, et_storage_name(pl, d->storage));
    }
    return p;
}

/* alias: "alias: NEW = OLD T[dims] offset=N [stride=[..]], bytes [lo,hi)
 * of ROOT" */

size_t cg_text_alias_max(const plan *pl, const ir_stmt *s) {
    const ir_program *p = pl->prog;
    const ir_value *v = &p->values[s->value];
    return sizeof "alias:  =  [] offset=" + ir_name_len(s->name.name) +
           ir_name_len(s->old.name) + strlen(ir_dtype_name(v->dtype)) +
           (size_t)(v->ndim + 1) * (BASE_U64_MAX_DIGITS + 1) +
           sizeof " stride=[]" +
           (size_t)v->nstrides * (BASE_U64_MAX_DIGITS + 1) +
           sizeof ", bytes  of " + ET_BYTES_MAX +
           ir_name_len(p->values[v->root].name);
}

char *cg_text_alias_at(char *q, const plan *pl, const ir_stmt *s) {
    const ir_program *p = pl->prog;
    const ir_value *v = &p->values[s->value];
    q = ET_LIT(q, "alias: ");
    q = et_name(q, s->name.name);
    q = ET_LIT(q, " = ");
    q = et_name(q, s->old.name);
    *q++ = ' ';
    const char *t = ir_dtype_name(v->dtype);
    q = et_put(q, t, strlen(t));
    *q++ = '[';
    q = et_list(q, v->dims, v->ndim);
    q = ET_LIT(q, "] offset=");
    q = base_u64_at(q, s->has_offset ? s->attrs->offset : 0);
    if (v->nstrides) {
        q = ET_LIT(q, " stride=[");
        q = et_list(q, v->strides, v->nstrides);
        *q++ = ']';
    }
    q = ET_LIT(q, ", bytes ");
    q = et_bytes(q, v->byte_offset, v->byte_offset + v->bytes);
    q = ET_LIT(q, " of ");
    return et_name(q, p->values[v->root].name);
}

/* del: "del NAME", or "del NAME: a name only, storage R lives until free
 * X (line L)" (or "... lives to the end").  The storage's root r when
 * the free of name k of s does not end it (NULL: a plain del), and then
 * in *last the name whose free ends it ("?" when none, NULL when it
 * lives to the end). */
static const ir_value *et_del_root(const plan *pl, const ir_stmt *s, uint32_t k,
                                   const char **last) {
    const ir_program *p = pl->prog;
    int32_t v = s->name_values ? s->name_values[k] : -1;
    const ir_value *r = v >= 0 ? &p->values[p->values[v].root] : NULL;
    *last = NULL;
    if (!r || r->storage_end == (int32_t)s->index)
        return NULL;
    if (r->storage_end < 0)
        return r;
    const ir_stmt *e = &p->stmts[r->storage_end];
    for (uint32_t j = 0; j < e->nnames && !*last; j++)
        if (e->name_values && e->name_values[j] >= 0 &&
            &p->values[p->values[e->name_values[j]].root] == r)
            *last = e->names[j].name;
    if (!*last)
        *last = "?";
    return r;
}

size_t cg_text_del_max(const plan *pl, const ir_stmt *s, uint32_t k) {
    size_t m = sizeof "del " + ir_name_len(s->names[k].name);
    const char *last;
    const ir_value *r = et_del_root(pl, s, k, &last);
    if (r)
        m += sizeof ": a name only, storage " + ir_name_len(r->name) +
             sizeof " lives until free  (line )" + (last ? strlen(last) : 0) +
             BASE_U64_MAX_DIGITS;
    return m;
}

char *cg_text_del_at(char *p, const plan *pl, const ir_stmt *s, uint32_t k) {
    p = ET_LIT(p, "del ");
    p = et_name(p, s->names[k].name);
    const char *last;
    const ir_value *r = et_del_root(pl, s, k, &last);
    if (!r)
        return p;
    p = ET_LIT(p, ": a name only, storage ");
    p = et_name(p, r->name);
    if (!last)
        return ET_LIT(p, " lives to the end");
    p = ET_LIT(p, " lives until free ");
    p = et_put(p, last, strlen(last));
    p = ET_LIT(p, " (line ");
    p = base_u64_at(p, pl->prog->stmts[r->storage_end].loc.line);
    *p++ = ')';
    return p;
}

/* death: "storage R dies: POOL[lo,hi) is free" */

size_t cg_text_death_max(const plan *pl, int32_t root) {
    int32_t sid = pl->storage_of_value[root];
    size_t n = 0;
    if (sid >= 0)
        et_pool(pl, &pl->storages[sid], &n);
    return sizeof "storage  dies:  is free" +
           ir_name_len(pl->prog->values[root].name) + n + ET_BYTES_MAX;
}

char *cg_text_death_at(char *p, const plan *pl, int32_t root) {
    int32_t sid = pl->storage_of_value[root];
    p = ET_LIT(p, "storage ");
    p = et_name(p, pl->prog->values[root].name);
    p = ET_LIT(p, " dies");
    if (sid < 0 || pl->storages[sid].pool < 0 || !pl->storages[sid].size)
        return p;
    const plan_storage *st = &pl->storages[sid];
    size_t n;
    const char *pool = et_pool(pl, st, &n);
    p = ET_LIT(p, ": ");
    p = et_range(p, pool, n, st->offset, st->offset + st->size);
    return ET_LIT(p, " is free");
}

/* The texts in an arena: room for the most bytes, the text, its NUL
 * (the arena's bytes are zero: written anyway, as a string's end). */

const char *cg_text_alloc(base_arena *a, const plan *pl, int32_t sid) {
    char *s = base_arena_alloc_aligned(a, cg_text_alloc_max(pl, sid) + 1, 1);
    *cg_text_alloc_at(s, pl, sid) = '\0';
    return s;
}

const char *cg_text_reuse(base_arena *a, const plan *pl, int32_t sid) {
    if (pl->storages[sid].ndonors == 0)
        return NULL;
    char *s = base_arena_alloc_aligned(a, cg_text_reuse_max(pl, sid) + 1, 1);
    *cg_text_reuse_at(s, pl, sid) = '\0';
    return s;
}

const char *cg_text_alias(base_arena *a, const plan *pl, const ir_stmt *s) {
    char *t = base_arena_alloc_aligned(a, cg_text_alias_max(pl, s) + 1, 1);
    *cg_text_alias_at(t, pl, s) = '\0';
    return t;
}

const char *cg_text_del(base_arena *a, const plan *pl, const ir_stmt *s,
                        uint32_t k) {
    char *t = base_arena_alloc_aligned(a, cg_text_del_max(pl, s, k) + 1, 1);
    *cg_text_del_at(t, pl, s, k) = '\0';
    return t;
}

const char *cg_text_death(base_arena *a, const plan *pl, int32_t root) {
    char *s = base_arena_alloc_aligned(a, cg_text_death_max(pl, root) + 1, 1);
    *cg_text_death_at(s, pl, root) = '\0';
    return s;
}

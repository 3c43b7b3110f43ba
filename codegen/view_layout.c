/*
 * codegen/view_layout.c - values (locals, declarations, alias
 * expressions) and the "pools", "buffers", "inputs", "consts" and
 * "outputs" sections.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* keep_key's answers by key (cg_keep_site). */
static cg_keep_site site_row;
static cg_keep_site site_live;
static cg_keep_site site_table;
static cg_keep_site site_buffers;
static cg_keep_site site_assert_id;

/* ------------------------------------------------------------------ */
/* Values: locals and their declarations. */

/* "TYPE *" or "const TYPE *" in the view's lasting strings.  Out of
 * line: cg_ptr_type is called per element, this once per kind. */
__attribute__((noinline)) static const char *
ptr_type_make(const vw *v, bool is_const, ir_dtype t) {
    base_arena *s = cg_str_persist(v);
    cg_part x[] = {is_const ? CG_LIT("const ") : CG_LIT(""),
                   CG_STR(cg_ctype_of(t)), CG_LIT(" *")};
    size_t n;
    const char *r = cg_catn(v, x, 3, &n);
    cg_str_restore(v, s);
    return r;
}

/* One string per const-ness and dtype, made on first use. */
const char *cg_ptr_type(const vw *v, int32_t val) {
    const ir_value *iv = &v->prog->values[val];
    int d = iv->dtype < IR_DTYPE_COUNT ? (int)iv->dtype : IR_DTYPE_COUNT;
    const char **p = (const char **)&v->ptr_of[v->is_const[val]][d];
    if (!*p)
        *p = ptr_type_make(v, v->is_const[val], iv->dtype);
    return *p;
}

/* The inputs and consts not planned into the arena (cg_plan_values
 * found them, in IR order: value ids are in definition order): the
 * lists of their sections. */
static void io_values(vw *v, const uint32_t *io, uint32_t all,
                      const uint32_t n[2]) {
    const ir_program *p = v->prog;
    for (int s = 0; s < 2; s++) {
        v->io_list[s] = base_arena_array(v->a, n[s] + 1, sizeof(uint32_t));
        v->nio[s] = 0;
    }
    for (uint32_t i = 0; i < all; i++) {
        int s = p->values[io[i]].kind == IR_VAL_CONST;
        v->io_list[s][v->nio[s]++] = io[i];
    }
}

/* b_NAME of a value named `name`, in v->str. */
static const char *plain_local(vw *v, const char *name) {
    cg_part x[] = {CG_LIT("b_"), {name, ir_name_len(name)}};
    size_t n;
    return cg_catn(v, x, 2, &n);
}

/* The values' locals and const-ness, the roots that aliases read
 * (v->used), and the inputs' and consts' sections (io_values): one pass
 * over the values, which at 10^5 kernels are some 18 MB, each pass over
 * them about a millisecond. */
void cg_plan_values(vw *v) {
    const ir_program *p = v->prog;
    const int32_t *sov = v->pl->storage_of_value;
    uint32_t nv = p->nvalues;
    v->local = base_arena_array(v->a, nv + 1, sizeof(char *));
    v->is_const = base_arena_array(v->a, nv + 1, sizeof(bool));
    uint32_t *io = base_xcalloc((size_t)nv + 1, sizeof *io);
    uint32_t n[2] = {0, 0}, all = 0;
    /* The IR's value names are distinct, so are their b_NAME: when no
     * identifier so far starts with b_, every value keeps b_NAME, and
     * the set is not needed (the values are the last names in it). */
    bool fresh = !cg_set_has_prefix(&v->ids, "b_");
    v->locals_plain = fresh;
    for (uint32_t i = 0; i < nv; i++) {
        const ir_value *iv = &p->values[i];
        v->local[i] = fresh
                          ? plain_local(v, iv->name)
                          : cg_set_unique(v, &v->ids, plain_local(v, iv->name));
        const ir_value *r = &p->values[iv->root >= 0 ? iv->root : (int32_t)i];
        v->is_const[i] = r->kind == IR_VAL_INPUT || r->kind == IR_VAL_CONST;
        /* A local is used when a call (marked by cg_plan_kernels), an
         * alias or an output copy (cg_plan_outputs) reads it. */
        if (iv->kind == IR_VAL_ALIAS && iv->root >= 0)
            v->used[iv->root] = true;
        if ((iv->kind == IR_VAL_INPUT || iv->kind == IR_VAL_CONST) &&
            sov[i] < 0) { /* else a planned input */
            io[all++] = i;
            n[iv->kind == IR_VAL_CONST]++;
        }
    }
    io_values(v, io, all, n);
    free(io);
}

/* The expression of an alias: its root's local, offset and cast. */
const char *cg_alias_expr(const vw *v, int32_t val) {
    const ir_value *iv = &v->prog->values[val];
    int32_t r = iv->root;
    const ir_value *rv = &v->prog->values[r];
    bool c = v->is_const[val];
    if (iv->byte_offset == 0 && iv->dtype == rv->dtype)
        return v->local[r];
    if (iv->byte_offset == 0)
        return cg_vfmt(v, "(%s)(%svoid *)%s", cg_ptr_type(v, val),
                       c ? "const " : "", v->local[r]);
    return cg_vfmt(v, "(%s)(%svoid *)((%sunsigned char *)%s + %" PRIu64 ")",
                   cg_ptr_type(v, val), c ? "const " : "", c ? "const " : "",
                   v->local[r], iv->byte_offset);
}

/* ------------------------------------------------------------------ */
/* JSON sections. */

/* Appends "A-B" at q, the IR lines of statements start and end (0 past
 * the end); returns the end. */
static char *live_at(vw *v, char *q, uint32_t start, uint32_t end) {
    const ir_program *p = v->prog;
    /* the lines one after the other (cg_plan_statements): the live
     * ranges of the buffers, in offset order, look up two each, all
     * over the statements, whose lines are each on a cache line of
     * their own */
    const uint32_t *line = v->stmt_line;
    uint32_t a = start < p->nstmts ? line[start] : 0;
    uint32_t b = end < p->nstmts ? line[end] : 0;
    q = base_u64_at(q, a);
    *q++ = '-';
    return base_u64_at(q, b);
}

/* n spaces at q; returns the end. */
static char *spaces_at(char *q, size_t n) {
    static const char sp[] = "                                ";
    if (n <= sizeof sp - 1)
        base_copy(q, sp, n);
    else
        memset(q, ' ', n);
    return q + n;
}

/* The live range of a storage, "A-B" (IR lines), in v->str: formatted
 * without a format string (buffers are rendered several times). */
static mst_val live_text(vw *v, uint32_t start, uint32_t end) {
    char *r = base_arena_alloc_aligned(v->str, 2 * 10 + 2, 1);
    char *e = live_at(v, r, start, end);
    *e = '\0';
    return mst_v_str(r, (size_t)(e - r));
}

/* Appends s (n bytes) at q in a field of `width` bytes, left-aligned;
 * returns the end. */
static char *pad_at(char *q, const char *s, size_t n, size_t width) {
    base_copy(q, s, n);
    return spaces_at(q + n, width > n ? width - n : 0);
}

/* x (n digits) right-aligned in width columns at q; returns the end. */
static char *num_at(char *q, uint64_t x, size_t n, size_t width) {
    q = spaces_at(q, width > n ? width - n : 0);
    return base_u64_at(q, x);
}

/* A pool's list built on demand: its table rows or its buffers. */
typedef struct pool_list {
    vw *v;
    uint32_t pool;
} pool_list;

static size_t pool_list_count(void *ctx) {
    const pool_list *l = ctx;
    return l->v->pool_buf_begin[l->pool + 1] - l->v->pool_buf_begin[l->pool];
}

/* Row k of the comment table of pool l, natively: {row}. */
static mst_val pool_row(const pool_list *l, size_t k) {
    vw *v = l->v;
    const uint32_t *w = v->pool_w[l->pool];
    const uint32_t *b = v->pool_buf + v->pool_buf_begin[l->pool];
    uint32_t s = b[k];
    const plan_storage *st = &v->pl->storages[s];
    mst_val r = nobj(v);
    if (!keep_at(v, &site_row, "row", 3))
        return r;
    uint32_t nb = v->pool_buf_begin[l->pool + 1] - v->pool_buf_begin[l->pool];
    if (k + CG_PREFETCH_AHEAD < nb)
        cg_prefetch_storage(v, b[k + CG_PREFETCH_AHEAD],
                            b[k + CG_PREFETCH_AHEAD / 2]);
    /* name, offset and size in their columns, then the live range */
    const char *name = v->prog->values[st->value].name;
    /* the numbers are written in place (num_at): made on the stack and
     * copied, they were read back while their stores were in flight */
    size_t nl = ir_name_len(name), ol = base_u64_len(st->offset),
           sl = base_u64_len(st->size);
    size_t cap = (nl > w[0] ? nl : w[0]) + (ol > w[1] ? ol : w[1]) +
                 (sl > w[2] ? sl : w[2]) + 4 + 2 * 10 + 2;
    char *row = base_arena_alloc_aligned(v->str, cap, 1), *q = row;
    q = pad_at(q, name, nl, w[0]);
    *q++ = ' ';
    q = num_at(q, st->offset, ol, w[1]);
    *q++ = ' ';
    q = num_at(q, st->size, sl, w[2]);
    *q++ = ' ';
    *q++ = ' ';
    q = live_at(v, q, st->start, st->end);
    *q = '\0';
    nset(v, r, "row", mst_v_str(row, (size_t)(q - row)));
    return r;
}

/* Buffer k of pool l, natively: {name, offset, size, live}. */
static mst_val pool_buffer(const pool_list *l, size_t k) {
    vw *v = l->v;
    uint32_t s = v->pool_buf[v->pool_buf_begin[l->pool] + k];
    const plan_storage *st = &v->pl->storages[s];
    mst_val b = nobj(v);
    nsetname(v, b, "name", v->prog->values[st->value].name);
    nset(v, b, "offset", nu64(st->offset));
    nset(v, b, "size", nu64(st->size));
    if (b.type == MST_OBJECT && keep_at(v, &site_live, "live", 4))
        mst_v_set(v->el, b, "live", 4, live_text(v, st->start, st->end));
    return b;
}

/* Element k of a pool's list (built by build) in an arena of its own
 * (cg_el_begin), its strings there too, for a section whose body looks
 * up `names` (NULL: the whole element); pool_release ends it. */
static mst_val pool_native(pool_list *l,
                           mst_val (*build)(const pool_list *, size_t),
                           size_t k, const mst_names *names) {
    vw *v = l->v;
    cg_el_begin(v);
    v->str = v->el;
    cg_set_section(v, names, k);
    mst_val e = build(l, k);
    cg_element_end(v);
    return e;
}

static void pool_release(void *ctx) {
    cg_el_end(((pool_list *)ctx)->v);
}

static mst_val pool_row_val(void *ctx, size_t k, const mst_names *names) {
    return pool_native(ctx, pool_row, k, names);
}

static mst_val pool_buffer_val(void *ctx, size_t k, const mst_names *names) {
    return pool_native(ctx, pool_buffer, k, names);
}

/* A pool's list served natively: its placeholder. */
static json_t *pool_lazy(vw *v, pool_list *l,
                         mst_val (*val)(void *, size_t, const mst_names *)) {
    json_t *marker = cg_lazy_add(v, pool_list_count, NULL, l, NULL);
    v->lazy[v->nlazy - 1].element_val = val;
    v->lazy[v->nlazy - 1].release = pool_release;
    return marker;
}

/* The comment table of view pool i (its buffers, offsets, sizes and live
 * ranges, in aligned columns: widths from cg_plan_buffers) and its
 * "buffers", into o: both lists built on demand. */
static void pool_table(vw *v, uint32_t i, json_t *o) {
    const uint32_t *w = v->pool_w[i];
    sbuf row;
    cg_sb_init(&row);
    cg_sb_pad(&row, "buffer", w[0], false);
    cg_sb_put(&row, " ", 1);
    cg_sb_pad(&row, "offset", w[1], true);
    cg_sb_put(&row, " ", 1);
    cg_sb_pad(&row, "size", w[2], true);
    cg_sb_puts(&row, "  live (IR lines)");
    sets(v, o, "table_header", cg_sb_done(v, &row));
    pool_list *l = base_arena_alloc(v->a, sizeof *l);
    l->v = v;
    l->pool = i;
    if (keep_at(v, &site_table, "table", 5))
        set(v, o, "table", pool_lazy(v, l, pool_row_val));
    if (keep_at(v, &site_buffers, "buffers", 7))
        set(v, o, "buffers", pool_lazy(v, l, pool_buffer_val));
    set(v, o, "nbuffers",
        json_integer(v->pool_buf_begin[i + 1] - v->pool_buf_begin[i]));
}

json_t *cg_pools_json(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    json_t *arr = json_array();
    for (uint32_t i = 0; i < v->npools; i++) {
        json_t *o = json_object();
        int32_t pi = v->pool_plan[i];
        const plan_pool *pp = pi >= 0 ? &pl->pools[pi] : NULL;
        sets(v, o, "name", v->pool_name[i]);
        sets(v, o, "field", v->pool_name[i]);
        sets(v, o, "local", v->pool_local[i]);
        const char *U = v->pool_upper[i];
        sets(v, o, "size_macro", cg_vfmt(v, "%s_POOL_%s_SIZE", v->M, U));
        sets(v, o, "align_macro", cg_vfmt(v, "%s_POOL_%s_ALIGN", v->M, U));
        sets(v, o, "attr_macro", cg_vfmt(v, "%s_POOL_%s_ATTR", v->M, U));
        sets(v, o, "static_name",
             cg_vfmt(v, "%s_pool_%s", v->M, v->pool_name[i]));
        set(v, o, "size", ju64(v->pool_size[i]));
        set(v, o, "align", ju64(v->pool_align[i]));
        set(v, o, "lower_bound", ju64(pp ? pp->lower_bound : v->pool_size[i]));
        set(v, o, "naive_size", ju64(pp ? pp->naive_size : v->pool_size[i]));
        set(v, o, "has_capacity", json_boolean(pp && pp->has_capacity));
        set(v, o, "capacity",
            pp && pp->has_capacity ? ju64(pp->capacity) : json_null());
        char dev[24];
        ir_device d =
            pp ? pp->device
               : p->values[pl->storages[v->pool_storage[i]].value].device;
        sets(v, o, "device", ir_device_str(d, dev, sizeof dev));
        const char *space =
            pp ? pp->space
               : p->values[pl->storages[v->pool_storage[i]].value].space;
        set(v, o, "space", space ? jstr(space) : json_null());
        const char *comm = pp ? pp->comm : NULL;
        const char *group = pp ? pp->group : NULL;
        set(v, o, "is_comm", json_boolean(comm != NULL));
        /* CUDA: an ordinary cpu pool is pinned host memory */
        set(v, o, "is_host",
            json_boolean(comm == NULL && d.kind != IR_DEV_CUDA));
        set(v, o, "comm", comm ? jstr(comm) : json_null());
        set(v, o, "group", group ? jstr(group) : json_null());
        sets(v, o, "comm_str", comm ? cg_c_string(v, comm, false) : "NULL");
        sets(v, o, "group_str", group ? cg_c_string(v, group, false) : "NULL");
        set(v, o, "outputs", json_boolean(pp && pp->outputs));
        set(v, o, "synthetic", json_boolean(pp == NULL));
        sets(v, o, "name_str", cg_c_string(v, v->pool_name[i], false));

        pool_table(v, i, o);
        set(v, o, "last", json_boolean(i + 1 == v->npools));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* The storages of each view pool, in storage order, and the widths of
 * the columns of its comment table. */
static void plan_pool_tables(vw *v) {
    const plan *pl = v->pl;
    uint32_t np = v->npools;
    v->pool_buf_begin = base_arena_array(v->a, np + 2, sizeof(uint32_t));
    v->pool_buf = base_arena_array(v->a, v->nbuffers + 1, sizeof(uint32_t));
    v->pool_w = base_arena_array(v->a, np + 1, sizeof *v->pool_w);
    for (uint32_t i = 0; i < np; i++) {
        v->pool_w[i][0] = (uint32_t)strlen("buffer");
        v->pool_w[i][1] = (uint32_t)strlen("offset");
        v->pool_w[i][2] = (uint32_t)strlen("size");
    }
    for (uint32_t k = 0; k < v->nbuffers; k++) {
        uint32_t s = v->buffer_storage[k];
        if (k + CG_PASS_AHEAD < v->nbuffers)
            cg_prefetch_storage(v, v->buffer_storage[k + CG_PASS_AHEAD],
                                v->buffer_storage[k + CG_PASS_AHEAD / 2]);
        const plan_storage *st = &pl->storages[s];
        uint32_t *w = v->pool_w[v->spool[s]];
        uint32_t n = (uint32_t)ir_name_len(v->prog->values[st->value].name);
        uint32_t lo = (uint32_t)base_u64_len(st->offset);
        uint32_t ls = (uint32_t)base_u64_len(st->size);
        w[0] = n > w[0] ? n : w[0];
        w[1] = lo > w[1] ? lo : w[1];
        w[2] = ls > w[2] ? ls : w[2];
        v->pool_buf_begin[v->spool[s] + 1]++;
    }
    for (uint32_t i = 0; i < np; i++)
        v->pool_buf_begin[i + 1] += v->pool_buf_begin[i];
    uint32_t *at = base_arena_array(v->a, np + 1, sizeof(uint32_t));
    memcpy(at, v->pool_buf_begin, np * sizeof(uint32_t));
    for (uint32_t k = 0; k < v->nbuffers; k++) {
        uint32_t s = v->buffer_storage[k];
        v->pool_buf[at[v->spool[s]]++] = s;
    }
}

void cg_plan_buffers(vw *v) {
    const plan *pl = v->pl;
    v->psize = base_arena_array(v->a, v->npools + 1, sizeof *v->psize);
    v->buffer_storage =
        base_arena_array(v->a, pl->nstorages + 1, sizeof *v->buffer_storage);
    for (uint32_t s = 0; s < pl->nstorages; s++)
        if (v->spool[s] >= 0)
            v->buffer_storage[v->nbuffers++] = s;
    for (uint32_t i = 0; i < v->npools; i++)
        v->psize[i] = cg_vfmt(v, "%s_POOL_%s_SIZE", v->M, v->pool_upper[i]);
    plan_pool_tables(v);
}

/* "M_buffer_K_fits", the name of buffer k's static assertion, made
 * only when looked up (cg_vfmt took some 400 instructions a buffer). */
static mst_val assert_id(vw *v, uint32_t k) {
    /* k in place: its digits made on the stack and copied were read
     * back while their stores were in flight (a store-forwarding stall) */
    char *c = base_arena_alloc_aligned(
        v->str, v->Mlen + 8 + BASE_U64_MAX_DIGITS + 5 + 1, 1);
    base_copy(c, v->M, v->Mlen);
    base_copy(c + v->Mlen, "_buffer_", 8);
    char *q = base_u64_at(c + v->Mlen + 8, k);
    base_copy(q, "_fits", 5);
    q[5] = '\0';
    return mst_v_str(c, (size_t)(q + 5 - c));
}

mst_val cg_buffer_val(vw *v, uint32_t k) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    uint32_t s = v->buffer_storage[k];
    const plan_storage *st = &pl->storages[s];
    const ir_value *iv = &p->values[st->value];
    if (k + CG_PREFETCH_AHEAD < v->nbuffers)
        cg_prefetch_storage(v, v->buffer_storage[k + CG_PREFETCH_AHEAD],
                            v->buffer_storage[k + CG_PREFETCH_AHEAD / 2]);
    int32_t pi = v->spool[s];
    mst_val o = nobj(v);
    nsetname(v, o, "name", iv->name);
    nsetlocal(v, o, "local", st->value);
    nsetl(v, o, "dtype", ir_dtype_name(iv->dtype));
    nsetl(v, o, "ctype", cg_ctype_of(iv->dtype));
    nsetl(v, o, "pool", v->pool_name[pi]);
    nsetl(v, o, "pool_local", v->pool_local[pi]);
    nsetl(v, o, "pool_size_macro", v->psize[pi]);
    nset(v, o, "offset", nu64(st->offset));
    nset(v, o, "size", nu64(st->size));
    nset(v, o, "align", nu64(v->salign[s]));
    nsetm(v, o, "offset_macro", s, CG_MACRO_OFFSET);
    nsetm(v, o, "size_macro", s, CG_MACRO_SIZE);
    nsetm(v, o, "align_macro", s, CG_MACRO_ALIGN);
    if (o.type == MST_OBJECT && keep_at(v, &site_assert_id, "assert_id", 9))
        mst_v_set(v->el, o, "assert_id", 9, assert_id(v, k));
    nset(v, o, "start", mst_v_int(st->start));
    nset(v, o, "end", mst_v_int(st->end));
    /* not formatted in vain: 6 passes in gen */
    if (o.type == MST_OBJECT && keep_at(v, &site_live, "live", 4))
        mst_v_set(v->el, o, "live", 4, live_text(v, st->start, st->end));
    nset(v, o, "is_output", mst_v_bool(st->is_output));
    nset(v, o, "last", mst_v_bool(k + 1 == v->nbuffers));
    cg_fw_buffer(v, o, s); /* fw_view.c */
    return o;
}

/* Whether names[0, n) (distinct, the IR's) are their own struct fields
 * (cg_field_base) and have no upper-case letter: then fields and stems
 * are distinct without a set. */
static bool io_plain(vw *v, const char *const *names, uint32_t n) {
    for (uint32_t i = 0; i < n; i++) {
        if (cg_field_base(v, names[i]) != names[i])
            return false;
        for (const char *c = names[i]; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                return false;
    }
    return true;
}

/* M_KIND_STEM_SIZE, STEM upper-cased from name (n bytes), in v->sa. */
static const char *io_macro(vw *v, const char *kind, const char *name,
                            size_t n) {
    size_t ml = v->Mlen, kl = strlen(kind);
    char *m = base_arena_alloc(v->sa, ml + kl + n + 8);
    char *q = m;
    memcpy(q, v->M, ml);
    q[ml] = '_';
    q += ml + 1;
    memcpy(q, kind, kl);
    q[kl] = '_';
    q += kl + 1;
    for (size_t k = 0; k < n; k++)
        q[k] = name[k] >= 'a' && name[k] <= 'z' ? (char)(name[k] - 'a' + 'A')
                                                : name[k];
    memcpy(q + n, "_SIZE", 6);
    return m;
}

/* The struct fields and size macros of a section's names[0, n), in
 * order, made unique in the section (NAME, NAME_2, ...): through sets
 * only when some name is reserved or has an upper-case letter. */
static void io_names(vw *v, const char *kind, const char *const *names,
                     uint32_t n, const char **field, const char **macro) {
    if (io_plain(v, names, n)) {
        for (uint32_t i = 0; i < n; i++) {
            field[i] = names[i];
            macro[i] = io_macro(v, kind, names[i], ir_name_len(names[i]));
        }
        return;
    }
    cg_nameset fields = {0}, stems = {0};
    for (uint32_t i = 0; i < n; i++) {
        field[i] = cg_set_unique(v, &fields, cg_field_base(v, names[i]));
        const char *stem = cg_set_unique(v, &stems, cg_upper(v, names[i]));
        macro[i] = io_macro(v, kind, stem, strlen(stem));
    }
    cg_set_clear(&fields);
    cg_set_clear(&stems);
}

/* The outputs not planned into the pools: their positions. */
static void io_outputs(vw *v) {
    const ir_program *p = v->prog;
    uint32_t no = p->output_stmt >= 0 ? p->stmts[p->output_stmt].nnames : 0;
    v->io_list[CG_IO_OUTPUTS] =
        base_arena_array(v->a, no + 1, sizeof(uint32_t));
    v->nio[CG_IO_OUTPUTS] = 0;
    for (uint32_t i = 0; i < no; i++)
        if (!plan_planned_output(v->pl, cg_output_value_at(v, i)))
            v->io_list[CG_IO_OUTPUTS][v->nio[CG_IO_OUTPUTS]++] = i;
}

/* The elements of section s (cg_io_item), its fields and macros made. */
static void io_items(vw *v, int s, const char *kind) {
    uint32_t n = v->nio[s];
    const char **names = base_xcalloc((size_t)n + 1, sizeof *names);
    const char **field = base_xcalloc((size_t)n + 1, sizeof *field);
    const char **macro = base_xcalloc((size_t)n + 1, sizeof *macro);
    cg_io_item *it = base_arena_array(v->a, n + 1, sizeof *it);
    v->io_item[s] = it;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = v->io_list[s][i];
        int32_t val =
            s == CG_IO_OUTPUTS ? cg_output_value_at(v, x) : (int32_t)x;
        const ir_value *iv = &v->prog->values[val];
        names[i] = iv->name;
        it[i].x = x;
        it[i].bytes = iv->bytes;
        it[i].dtype = iv->dtype;
    }
    io_names(v, kind, names, n, field, macro);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t x = it[i].x;
        if (s == CG_IO_OUTPUTS) {
            v->out_field[x] = field[i];
            v->out_size_macro[x] = macro[i];
        } else {
            v->io_field[x] = field[i];
        }
        it[i].name = names[i];
        it[i].name_len = (uint32_t)ir_name_len(names[i]);
        it[i].field = field[i];
        it[i].field_len =
            field[i] == names[i] ? it[i].name_len : (uint32_t)strlen(field[i]);
        it[i].macro = macro[i];
        it[i].macro_len = (uint32_t)strlen(macro[i]);
    }
    free(names);
    free(field);
    free(macro);
}

void cg_plan_io(vw *v) {
    static const char *const kind[] = {"INPUT", "CONST", "OUTPUT"};
    io_outputs(v); /* the inputs and consts: cg_plan_values */
    for (int s = CG_IO_INPUTS; s <= CG_IO_OUTPUTS; s++)
        io_items(v, s, kind[s]);
}

mst_val cg_io_val(vw *v, cg_io_kind k, uint32_t i) {
    const cg_io_item *it = &v->io_item[k][i];
    mst_val o = nobj(v);
    nset(v, o, "name", mst_v_str(it->name, it->name_len));
    nset(v, o, "field", mst_v_str(it->field, it->field_len));
    nsetl(v, o, "ctype", cg_ctype_of(it->dtype));
    nsetl(v, o, "dtype", ir_dtype_name(it->dtype));
    nset(v, o, "size_macro", mst_v_str(it->macro, it->macro_len));
    nset(v, o, "bytes", nu64(it->bytes));
    if (k == CG_IO_OUTPUTS)
        nset(v, o, "copied", mst_v_bool(v->out_copy[it->x]));
    nset(v, o, "last", mst_v_bool(i + 1 == v->nio[k]));
    return o;
}

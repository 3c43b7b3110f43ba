/*
 * codegen/fw_view.c - the firmware keys of the plan view (docs/view.md,
 * docs/firmware.md): the build-time report per memory space, the total
 * of static bytes, and the embedded weights.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* keep_key's answers by key (cg_keep_site). */
static cg_keep_site site_offset_expr;
static cg_keep_site site_offset_macro;
static cg_keep_site site_names;
static cg_keep_site site_p;

static void cg_fw_set_str(json_t *o, const char *key, const char *val) {
    json_object_set_new(o, key, json_string(val));
}

enum { CG_FW_COLS = 6 };

/* The report's cells: a row of text per space under a header row. */
typedef struct {
    char cell[CG_FW_COLS][304];
} cg_fw_cells;

/* One row of the report table, columns aligned as in the pool table: each
 * column is at least its usual width (w) and widens to its longest cell,
 * so a long entry such as "3 in, 1 to dram" never pushes the next column. */
static json_t *cg_fw_row(const cg_fw_cells *c, const int w[CG_FW_COLS]) {
    char buf[2048];
    snprintf(buf, sizeof buf, "%-*s %*s %*s %*s %*s %*s", w[0], c->cell[0],
             w[1], c->cell[1], w[2], c->cell[2], w[3], c->cell[3], w[4],
             c->cell[4], w[5], c->cell[5]);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == ' ')
        buf[--n] = '\0';
    json_t *o = json_object();
    cg_fw_set_str(o, "row", buf);
    return o;
}

/* The cells of space report r. */
static void cg_fw_cells_of(const plan_space_report *r, cg_fw_cells *c) {
    char *spill = c->cell[4];
    size_t cap = sizeof c->cell[4];
    snprintf(c->cell[0], sizeof c->cell[0], "%.200s",
             r->name ? r->name : "default");
    snprintf(c->cell[1], sizeof c->cell[1], "%" PRIu64, r->size);
    snprintf(c->cell[2], sizeof c->cell[2], "%" PRIu64, r->capacity);
    snprintf(c->cell[3], sizeof c->cell[3], "%" PRIu64, r->headroom);
    if (!r->has_capacity) {
        strcpy(c->cell[2], "-");
        strcpy(c->cell[3], "-");
    }
    int k = r->nreceived ? snprintf(spill, cap, "%" PRIu32 " in%s",
                                    r->nreceived, r->spill ? ", " : "")
                         : 0;
    if (r->spill)
        snprintf(spill + k, cap - (size_t)k, "%" PRIu32 " to %.200s",
                 r->nspilled, r->spill);
    else if (!k)
        strcpy(spill, "-");
    snprintf(c->cell[5], sizeof c->cell[5], "%u.%u%%", r->npermille / 10,
             r->npermille % 10);
}

static json_t *cg_fw_report(const plan *pl) {
    base_arena *a = base_arena_new();
    plan_space_report *r;
    uint32_t n = plan_space_reports(pl, a, &r);
    cg_fw_cells *c = base_arena_array(a, (size_t)n + 1, sizeof *c);
    static const char *const head[] = {"space",    "size",    "capacity",
                                       "headroom", "spilled", "accessed"};
    int w[] = {12, 12, 12, 12, 14, 8};
    _Static_assert(sizeof head / sizeof head[0] == CG_FW_COLS &&
                       sizeof w / sizeof w[0] == CG_FW_COLS,
                   "a heading and a width per column");
    for (int j = 0; j < CG_FW_COLS; j++)
        snprintf(c[0].cell[j], sizeof c[0].cell[j], "%s", head[j]);
    for (uint32_t i = 0; i < n; i++)
        cg_fw_cells_of(&r[i], &c[i + 1]);
    for (uint32_t i = 0; i <= n; i++)
        for (int j = 0; j < CG_FW_COLS; j++) {
            int len = (int)strlen(c[i].cell[j]);
            w[j] = len > w[j] ? len : w[j];
        }
    json_t *rows = json_array();
    for (uint32_t i = 0; i <= n; i++)
        json_array_append_new(rows, cg_fw_row(&c[i], w));
    base_arena_free(a);
    return rows;
}

/* a + b, saturating at the largest JSON integer. */
static uint64_t cg_fw_add(uint64_t a, uint64_t b) {
    const uint64_t max = (uint64_t)INT64_MAX;
    return a > max || b > max - a ? max : a + b;
}

/* vw.fw_flags: the value is a state pair's output (next_of >= 0), its
 * buffer is zeroed at init; the bits below are cg_fw_kind's. */
#define CG_FW_NEXT_OF 8u

/* The kind of value val among the buffers: bit 0 a planned input, bit 1
 * a state, bit 2 a planned output (an output in the pools in
 * intermediates mode); val -1 is none. */
static unsigned cg_fw_kind(const plan *pl, int32_t val) {
    const ir_program *p = pl->prog;
    ir_value_kind k = val >= 0 ? p->values[val].kind : IR_VAL_ALLOC;
    bool out = k == IR_VAL_ALLOC && val >= 0 &&
               p->values[val].output_index >= 0 && p->values[val].next_of < 0 &&
               pl->opts.memory_pool == PLAN_MP_INTERMEDIATES;
    return (k == IR_VAL_INPUT ? 1u : 0u) | (k == IR_VAL_STATE ? 2u : 0u) |
           (out ? 4u : 0u);
}

/* The "offset_expr" of buffer b: its offset macro, or for either
 * buffer of a state pair the phase-dependent choice (NULL when b has no
 * offset macro and is not in a pair, as the key set decides). */
static const char *cg_fw_offset_expr(vw *v, const char *name, const char *macro,
                                     char *buf, size_t size) {
    const char *r = macro;
    for (uint32_t i = 0; name && i < v->npairs; i++) {
        const cg_pair *q = &v->pairs[i];
        bool is_h = strcmp(name, q->hn) == 0;
        if (!is_h && strcmp(name, q->yn) != 0)
            continue;
        snprintf(buf, size, "((pools)->phase ? %s : %s)", is_h ? q->yo : q->ho,
                 is_h ? q->ho : q->yo);
        r = buf;
    }
    return r;
}

/* Runs once per buffer: the keys go through the key set (set, sets) and
 * nothing is formatted unless the buffer is an input, state or output.
 * The buffer's value is its storage's, whether or not the key set keeps
 * the buffer's "name": the kinds never depend on what is formatted. */
void cg_fw_buffer(vw *v, mst_val b, uint32_t sid) {
    const plan *pl = v->pl;
    const ir_program *p = pl->prog;
    int32_t val = pl->storages[sid].value;
    const char *name = val >= 0 ? p->values[val].name : NULL;
    /* cg_fw_kind(pl, val) and next_of >= 0 (cg_fw_plan) */
    unsigned flags = val >= 0 ? v->fw_flags[sid] : 0u;
    bool in = flags & 1u, st = flags & 2u, out = flags & 4u;
    char buf[600];
    size_t mn;
    const char *macro =
        keep_at(v, &site_offset_expr, "offset_expr", 11) && v->bstem[sid]
            ? cg_buf_macro(v, sid, CG_MACRO_OFFSET, &mn)
            : NULL;
    const char *oe = cg_fw_offset_expr(v, name, macro, buf, sizeof buf);
    if (oe && oe == macro) /* made in the element's arena: not copied */
        nsetkn(v, b, "offset_expr", macro, mn);
    else if (oe)
        nsets(v, b, "offset_expr", oe);
    nset(v, b, "is_planned_input", mst_v_bool(in));
    nset(v, b, "is_state", mst_v_bool(st));
    nset(v, b, "zero_at_init", mst_v_bool(st || (flags & CG_FW_NEXT_OF)));
    nset(v, b, "is_planned_output", mst_v_bool(out));
    if (in || st || out) {
        snprintf(buf, sizeof buf, "%s_%s_%s", v->M,
                 in    ? "input"
                 : out ? "output"
                       : "state",
                 name ? name : "");
        nsets(v, b, "accessor", buf);
    } else {
        nsets(v, b, "accessor", "");
    }
    int32_t s = val >= 0 ? pl->storage_of_value[val] : -1;
    int32_t pi = s >= 0 ? pl->storages[s].pool : -1;
    /* a buffer's "pool" is its view pool's name, when the key set keeps
     * it (whatever the section looks up) */
    static cg_keep_site site_pool_global;
    if (site_pool_global.epoch != v->keep_epoch) {
        site_pool_global.keep = cg_keep_global(v, "pool", 4);
        site_pool_global.epoch = v->keep_epoch;
    }
    const char *pool = site_pool_global.keep ? v->pool_name[v->spool[sid]] : "";
    /* both live as long as the view: not copied */
    nsetl(v, b, "pool_field", pi >= 0 ? pl->pools[pi].name : pool);
}

/* Called only when there are state pairs (cg_statement_val tests
 * v->npairs: most programs have none). */
void cg_fw_stmt(const vw *v, mst_val s) {
    mst_val events = mst_v_get(s, "events", 6);
    for (uint32_t i = 0; i < v->npairs; i++) {
        const cg_pair *q = &v->pairs[i];
        mst_val e;
        for (const void *it = NULL; mst_v_next(events, &it, &e);) {
            mst_val b = mst_v_get(e, "alloc", 5);
            mst_val name = mst_v_get(b, "name", 4);
            const char *n = name.type == MST_STRING ? name.u.s : NULL;
            if (!n || (strcmp(n, q->hn) != 0 && strcmp(n, q->yn) != 0))
                continue;
            bool is_h = strcmp(n, q->hn) == 0;
            const char *ex =
                base_arena_printf(v->el, "(%s->phase ? %s : %s)", v->p_p,
                                  is_h ? q->yo : q->ho, is_h ? q->ho : q->yo);
            mst_v_set(v->el, b, "offset_macro", 12, mst_v_str(ex, strlen(ex)));
        }
    }
}

/* The offset macro of the buffer named by value val (NULL: no buffer of
 * that name, or the key set leaves the macro out). */
static const char *cg_fw_off_macro(vw *v, int32_t val) {
    int32_t sid = v->pl->storage_of_value[val];
    if (sid < 0 || v->spool[sid] < 0 || v->pl->storages[sid].value != val ||
        !keep_at(v, &site_offset_macro, "offset_macro", 12))
        return NULL;
    size_t n;
    return cg_buf_macro(v, (uint32_t)sid, CG_MACRO_OFFSET, &n);
}

void cg_fw_plan(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = pl->prog;
    v->fw_flags = base_arena_array(v->a, (size_t)pl->nstorages + 1, 1);
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        if (v->spool[s] < 0)
            continue;
        int32_t val = pl->storages[s].value;
        unsigned kind = cg_fw_kind(pl, val);
        bool next_of = val >= 0 && p->values[val].next_of >= 0;
        v->fw_flags[s] = (uint8_t)(kind | (next_of ? CG_FW_NEXT_OF : 0u));
        v->fw_kinds |= kind;
    }
    /* A state ... next= pair swaps its two regions between runs: the
     * offsets of both depend on the pools' phase (docs/firmware.md). */
    bool have_p =
        keep_at(v, &site_names, "names", 5) && keep_at(v, &site_p, "p", 1);
    /* a pair needs its state's own pooled storage (cg_fw_off_macro),
     * whose kind the pass above saw: without one, no pass over every
     * value record (144 bytes each, 43 MB at 10^5 kernels) */
    if (!(v->fw_kinds & 2u))
        have_p = false;
    for (uint32_t h = 0; have_p && h < p->nvalues; h++) {
        int32_t y = p->values[h].state_next;
        if (p->values[h].kind != IR_VAL_STATE || y < 0)
            continue;
        const char *ho = cg_fw_off_macro(v, (int32_t)h);
        const char *yo = cg_fw_off_macro(v, y);
        if (!ho || !yo)
            continue;
        if (v->npairs == v->pairs_cap) {
            cg_pair *np =
                base_arena_array(v->a, 2 * v->pairs_cap + 4, sizeof *np);
            if (v->npairs)
                memcpy(np, v->pairs, v->npairs * sizeof *np);
            v->pairs = np;
            v->pairs_cap = 2 * v->pairs_cap + 4;
        }
        v->pairs[v->npairs++] =
            (cg_pair){p->values[h].name, p->values[y].name, ho, yo};
    }
}

void cg_fw_root(const vw *v, json_t *view, bool shared_pools) {
    const plan *pl = v->pl;
    const ir_program *p = pl->prog;
    const char *M = json_string_value(json_object_get(view, "model"));
    if (!M)
        return;
    char buf[1200];
    uint64_t weights = 0, pools = 0;
    for (uint32_t x = 0; x < p->nvalues; x++)
        if (p->values[x].data_path)
            weights = cg_fw_add(weights, p->values[x].bytes);
    for (uint32_t i = 0; i < pl->npools && !shared_pools; i++)
        pools = cg_fw_add(pools, pl->pools[i].size);
    bool has_weights = cg_has_weights(p);
    json_object_set_new(view, "shared_pools", json_boolean(shared_pools));
    json_object_set_new(view, "shared_header", json_string(""));
    json_object_set_new(view, "has_weights", json_boolean(has_weights));
    json_t *names = json_object_get(view, "names");
    if (names) {
        snprintf(buf, sizeof buf, "%s_default_consts", M);
        cg_fw_set_str(names, "default_consts", buf);
        snprintf(buf, sizeof buf, "%s_STATIC_BYTES", M);
        cg_fw_set_str(names, "static_bytes_macro", buf);
    }
    snprintf(buf, sizeof buf, "%s_weights.c", M);
    cg_fw_set_str(view, "weights_file", buf);
    json_object_set_new(view, "weights_bytes",
                        json_integer((json_int_t)weights));
    json_object_set_new(view, "static_bytes",
                        json_integer((json_int_t)cg_fw_add(pools, weights)));
    unsigned kinds = v->fw_kinds;
    json_object_set_new(view, "has_planned_inputs", json_boolean(kinds & 1));
    json_object_set_new(view, "has_states", json_boolean(kinds & 2));
    json_object_set_new(view, "has_planned_outputs", json_boolean(kinds & 4));
    json_object_set_new(view, "needs_static_pools_fn", json_boolean(kinds));
    json_object_set_new(view, "has_pairs", json_boolean(v->npairs > 0));
    if (names) {
        snprintf(buf, sizeof buf, "%s_init_state", M);
        cg_fw_set_str(names, "init_state", buf);
        snprintf(buf, sizeof buf, "%s_static_pools", M);
        cg_fw_set_str(names, "static_pools_fn", buf);
        snprintf(buf, sizeof buf, "%s_swap_state", M);
        cg_fw_set_str(names, "swap_state", buf);
        snprintf(buf, sizeof buf, "%s_static_phase", M);
        cg_fw_set_str(names, "static_phase", buf);
    }
    json_object_set_new(view, "has_space_report", json_boolean(p->nspaces > 0));
    json_object_set_new(view, "space_report",
                        p->nspaces ? cg_fw_report(pl) : json_array());
}

/*
 * codegen/fw_view.c - the firmware keys of the plan view (docs/view.md,
 * docs/firmware.md): the build-time report per memory space, the total
 * of static bytes, and the embedded weights.
 */
#include "base/base.h"
#include "codegen/codegen.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void cg_fw_set_str(json_t *o, const char *key, const char *val) {
    json_object_set_new(o, key, json_string(val));
}

/* One row of the report table, columns aligned as in the pool table. */
static json_t *cg_fw_row(const char *fmt_space, const char *size,
                         const char *cap, const char *head, const char *spill,
                         const char *acc) {
    char buf[512];
    snprintf(buf, sizeof buf, "%-12s %12s %12s %12s %14s %8s", fmt_space, size,
             cap, head, spill, acc);
    size_t n = strlen(buf);
    while (n && buf[n - 1] == ' ')
        buf[--n] = '\0';
    json_t *o = json_object();
    cg_fw_set_str(o, "row", buf);
    return o;
}

static json_t *cg_fw_report(const plan *pl) {
    base_arena *a = base_arena_new();
    plan_space_report *r;
    uint32_t n = plan_space_reports(pl, a, &r);
    json_t *rows = json_array();
    json_array_append_new(rows, cg_fw_row("space", "size", "capacity",
                                          "headroom", "spilled", "accessed"));
    for (uint32_t i = 0; i < n; i++) {
        char size[24], cap[24], head[24], spill[300], acc[16];
        snprintf(size, sizeof size, "%" PRIu64, r[i].size);
        snprintf(cap, sizeof cap, "%" PRIu64, r[i].capacity);
        snprintf(head, sizeof head, "%" PRIu64, r[i].headroom);
        if (!r[i].has_capacity) {
            strcpy(cap, "-");
            strcpy(head, "-");
        }
        if (r[i].spill)
            snprintf(spill, sizeof spill, "%" PRIu32 " to %.200s",
                     r[i].nspilled, r[i].spill);
        else
            strcpy(spill, "-");
        snprintf(acc, sizeof acc, "%u.%u%%", r[i].npermille / 10,
                 r[i].npermille % 10);
        json_array_append_new(rows, cg_fw_row(r[i].name ? r[i].name : "default",
                                              size, cap, head, spill, acc));
    }
    base_arena_free(a);
    return rows;
}

/* a + b, saturating at the largest JSON integer. */
static uint64_t cg_fw_add(uint64_t a, uint64_t b) {
    const uint64_t max = (uint64_t)INT64_MAX;
    return a > max || b > max - a ? max : a + b;
}

/* Marks the planned inputs and the states among the buffers, with the
 * name of the header macro that finds them in the pools; returns whether
 * there is one of each kind (bit 0: planned input, bit 1: state, bit 2:
 * planned output: an output in the pools in intermediates mode). */
static unsigned cg_fw_buffers(json_t *view, const plan *pl, const char *M) {
    const ir_program *p = pl->prog;
    unsigned kinds = 0;
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(view, "buffers"), i, b) {
        const char *name = json_string_value(json_object_get(b, "name"));
        int32_t v = name ? ir_find_value(p, name) : -1;
        ir_value_kind k = v >= 0 ? p->values[v].kind : IR_VAL_ALLOC;
        bool in = k == IR_VAL_INPUT, st = k == IR_VAL_STATE;
        bool out = k == IR_VAL_ALLOC && p->values[v].output_index >= 0 &&
                   p->values[v].next_of < 0 &&
                   pl->opts.memory_pool == PLAN_MP_INTERMEDIATES;
        char buf[600];
        snprintf(buf, sizeof buf, "%s_%s_%s", M,
                 in    ? "input"
                 : out ? "output"
                       : "state",
                 name ? name : "");
        json_object_set(b, "offset_expr", json_object_get(b, "offset_macro"));
        json_object_set_new(b, "is_planned_input", json_boolean(in));
        json_object_set_new(b, "is_state", json_boolean(st));
        json_object_set_new(
            b, "zero_at_init",
            json_boolean(st || (v >= 0 && p->values[v].next_of >= 0)));
        json_object_set_new(b, "is_planned_output", json_boolean(out));
        json_object_set_new(b, "accessor",
                            json_string(in || st || out ? buf : ""));
        int32_t sid = v >= 0 ? pl->storage_of_value[v] : -1;
        int32_t pi = sid >= 0 ? pl->storages[sid].pool : -1;
        json_t *pool = json_object_get(b, "pool");
        json_object_set_new(b, "pool_field",
                            pi >= 0 ? json_string(pl->pools[pi].name)
                            : pool  ? json_incref(pool)
                                    : json_string(""));
        kinds |= (in ? 1u : 0u) | (st ? 2u : 0u) | (out ? 4u : 0u);
    }
    return kinds;
}

/* The offset macro of the storage of value v (from the buffers). */
static const char *cg_fw_off_macro(json_t *view, const char *name) {
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(view, "buffers"), i, b) {
        const char *n = json_string_value(json_object_get(b, "name"));
        if (n && strcmp(n, name) == 0)
            return json_string_value(json_object_get(b, "offset_macro"));
    }
    return NULL;
}

/* A state ... next= pair swaps its two regions between runs: the offsets
 * of both depend on the pools' phase (docs/firmware.md).  Rewrites the
 * alloc events and buffer entries of both; returns whether there is a
 * pair. */
static bool cg_fw_pairs(json_t *view, const plan *pl) {
    const ir_program *p = pl->prog;
    const char *pp =
        json_string_value(json_object_get(json_object_get(view, "names"), "p"));
    bool any = false;
    char buf[2400];
    for (uint32_t h = 0; h < p->nvalues; h++) {
        int32_t y = p->values[h].state_next;
        if (p->values[h].kind != IR_VAL_STATE || y < 0)
            continue;
        const char *hn = p->values[h].name, *yn = p->values[y].name;
        const char *ho = cg_fw_off_macro(view, hn);
        const char *yo = cg_fw_off_macro(view, yn);
        if (!ho || !yo || !pp)
            continue;
        any = true;
        size_t i, j;
        json_t *st, *e;
        json_array_foreach(json_object_get(view, "statements"), i, st) {
            json_array_foreach(json_object_get(st, "events"), j, e) {
                json_t *b = json_object_get(e, "alloc");
                const char *n =
                    b ? json_string_value(json_object_get(b, "name")) : NULL;
                if (!n || (strcmp(n, hn) != 0 && strcmp(n, yn) != 0))
                    continue;
                bool is_h = strcmp(n, hn) == 0;
                snprintf(buf, sizeof buf, "(%s->phase ? %s : %s)", pp,
                         is_h ? yo : ho, is_h ? ho : yo);
                json_object_set_new(b, "offset_macro", json_string(buf));
            }
        }
        json_array_foreach(json_object_get(view, "buffers"), i, e) {
            const char *n = json_string_value(json_object_get(e, "name"));
            if (!n || (strcmp(n, hn) != 0 && strcmp(n, yn) != 0))
                continue;
            bool is_h = strcmp(n, hn) == 0;
            snprintf(buf, sizeof buf, "((pools)->phase ? %s : %s)",
                     is_h ? yo : ho, is_h ? ho : yo);
            json_object_set_new(e, "offset_expr", json_string(buf));
        }
    }
    return any;
}

void cg_view_firmware(json_t *view, const plan *pl, bool shared_pools) {
    const ir_program *p = pl->prog;
    const char *M = json_string_value(json_object_get(view, "model"));
    if (!M)
        return;
    char buf[1200];
    uint64_t weights = 0, pools = 0;
    for (uint32_t v = 0; v < p->nvalues; v++)
        if (p->values[v].data_path)
            weights = cg_fw_add(weights, p->values[v].bytes);
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
    unsigned kinds = cg_fw_buffers(view, pl, M);
    json_object_set_new(view, "has_planned_inputs", json_boolean(kinds & 1));
    json_object_set_new(view, "has_states", json_boolean(kinds & 2));
    json_object_set_new(view, "has_planned_outputs", json_boolean(kinds & 4));
    json_object_set_new(view, "needs_static_pools_fn", json_boolean(kinds));
    json_object_set_new(view, "has_pairs", json_boolean(cg_fw_pairs(view, pl)));
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

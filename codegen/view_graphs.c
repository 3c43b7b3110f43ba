/*
 * codegen/view_graphs.c - the CUDA graph partitions of the view
 * (`gen --target cuda --cuda-graphs`, docs/codegen.md and docs/view.md).
 *
 * A partition is a maximal run of calls of capturable kernels (every
 * kernel but those whose signature says `nocapture`): it begins at its
 * first call's statement and ends at its last call's.  The statements in
 * between only compute pointers into pools fixed at init, so the
 * templates capture the partition's launches into a CUDA graph once and
 * replay it, and run the other calls eagerly between launches.
 */
#include "view_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether the call at statement i may be captured. */
static bool cg_capturable(const ir_program *p, uint32_t i) {
    const ir_stmt *st = &p->stmts[i];
    for (uint32_t k = 0; k < p->nkernels; k++)
        if (strcmp(p->kernels[k].name, st->name.name) == 0)
            return p->kernels[k].sig_stmt < 0 ||
                   !p->stmts[p->kernels[k].sig_stmt].nocapture;
    return true;
}

/* {index: k} in the element's arena. */
static mst_val cg_graph_mark(const vw *v, int64_t k) {
    mst_val o = mst_v_object(v->el);
    mst_v_set(v->el, o, "index", 5, mst_v_int(k));
    return o;
}

/* The partitions: begin[i] (end[i]) is the partition that statement i
 * begins (ends), -1 for none; returns their number. */
static int64_t cg_ends(const plan *pl, bool on, int64_t *begin, int64_t *end) {
    const ir_program *p = pl->prog;
    int64_t n = 0, first = -1, last = -1;
    for (uint32_t i = 0; i <= p->nstmts; i++) {
        bool call = i < p->nstmts && p->stmts[i].kind == IR_CALL;
        if (call && on && cg_capturable(p, i)) {
            first = first < 0 ? i : first;
            last = i;
            continue;
        }
        if ((call || i == p->nstmts) && first >= 0) {
            begin[first] = n;
            end[last] = n++;
            first = -1;
        }
    }
    return n;
}

void cg_graphs_plan(vw *v, bool on) {
    const ir_program *p = v->prog;
    /* the caller ran cg_check_target with cuda_graphs, which refuses
     * calls on several streams with their location */
    PW_ASSERT(!on || !p->has_streams);
    size_t n = (size_t)p->nstmts + 1;
    v->graph_begin = base_arena_array(v->a, n, sizeof *v->graph_begin);
    v->graph_end = base_arena_array(v->a, n, sizeof *v->graph_end);
    v->captured = base_arena_array(v->a, n, sizeof *v->captured);
    memset(v->graph_begin, 0xff, n * sizeof *v->graph_begin);
    memset(v->graph_end, 0xff, n * sizeof *v->graph_end);
    v->ngraphs = cg_ends(v->pl, on, v->graph_begin, v->graph_end);
    v->graphs_on = on;
    bool inside = false;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        inside = inside || v->graph_begin[i] >= 0;
        v->captured[i] = inside;
        inside = inside && v->graph_end[i] < 0;
    }
}

void cg_graphs_stmt(const vw *v, mst_val s, uint32_t i) {
    if (!v->graph_begin)
        return;
    int64_t b = v->graph_begin[i], e = v->graph_end[i];
    mst_v_set(v->el, s, "graph_begin", 11,
              b >= 0 ? cg_graph_mark(v, b) : mst_v_bool(false));
    mst_v_set(v->el, s, "graph_end", 9,
              e >= 0 ? cg_graph_mark(v, e) : mst_v_bool(false));
    mst_val events = mst_v_get(s, "events", 6), ev;
    for (const void *it = NULL; mst_v_next(events, &it, &ev);) {
        mst_val call = mst_v_get(ev, "call", 4);
        if (call.type == MST_OBJECT)
            mst_v_set(v->el, call, "captured", 8, mst_v_bool(v->captured[i]));
    }
}

void cg_graphs_root(const vw *v, json_t *root) {
    json_object_set_new(root, "cuda_graphs", json_boolean(v->graphs_on));
    json_object_set_new(root, "ngraphs", json_integer(v->ngraphs));
    json_object_set_new(root, "has_graphs", json_boolean(v->ngraphs > 0));
    json_object_set_new(root, "captured", json_false());
    json_object_set_new(root, "graph_begin", json_false());
    json_object_set_new(root, "graph_end", json_false());
}

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
#include "codegen/codegen.h"

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

static json_t *cg_graph_mark(int64_t k) {
    json_t *o = json_object();
    json_object_set_new(o, "index", json_integer(k));
    return o;
}

/* Marks the call events of statement entry `s` as captured or not. */
static void cg_mark_calls(json_t *s, bool captured) {
    json_t *events = json_object_get(s, "events");
    for (size_t e = 0; e < json_array_size(events); e++) {
        json_t *call = json_object_get(json_array_get(events, e), "call");
        if (json_is_object(call))
            json_object_set_new(call, "captured", json_boolean(captured));
    }
}

/* The statement entry of each call in the view, per statement index. */
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

bool cg_view_add_graphs(json_t *root, const plan *pl, bool on, ir_diag *d) {
    const ir_program *p = pl->prog;
    if (on && p->has_streams) {
        const char *msg = "--cuda-graphs needs the calls on one stream (a "
                          "call has stream=)";
        if (d)
            ir_diag_report(d, IR_SEV_ERROR, 0, 0, "%s", msg);
        else
            fprintf(stderr, "planwrap: error: %s\n", msg);
        return false;
    }
    int64_t *begin = calloc((size_t)p->nstmts + 1, sizeof *begin);
    int64_t *end = calloc((size_t)p->nstmts + 1, sizeof *end);
    if (!begin || !end) {
        free(begin);
        free(end);
        return false;
    }
    memset(begin, 0xff, ((size_t)p->nstmts + 1) * sizeof *begin);
    memset(end, 0xff, ((size_t)p->nstmts + 1) * sizeof *end);
    int64_t n = cg_ends(pl, on, begin, end);
    json_t *stmts = json_object_get(root, "statements");
    bool inside = false;
    for (size_t j = 0; j < json_array_size(stmts); j++) {
        json_t *s = json_array_get(stmts, j);
        json_int_t i = json_integer_value(json_object_get(s, "index"));
        bool ok = i >= 0 && (uint64_t)i < p->nstmts;
        int64_t b = ok ? begin[i] : -1, e = ok ? end[i] : -1;
        inside = inside || b >= 0;
        json_object_set_new(s, "graph_begin",
                            b >= 0 ? cg_graph_mark(b) : json_false());
        json_object_set_new(s, "graph_end",
                            e >= 0 ? cg_graph_mark(e) : json_false());
        cg_mark_calls(s, inside);
        inside = inside && e < 0;
    }
    json_object_set_new(root, "cuda_graphs", json_boolean(on));
    json_object_set_new(root, "ngraphs", json_integer(n));
    json_object_set_new(root, "has_graphs", json_boolean(n > 0));
    json_object_set_new(root, "captured", json_false());
    json_object_set_new(root, "graph_begin", json_false());
    json_object_set_new(root, "graph_end", json_false());
    free(begin);
    free(end);
    return true;
}

/*
 * ir/target.c - the limits of a code generation target that the IR does
 * not have (ir_check_target; codegen's cg_target_limits gives them per
 * target, `planwrap check --target T` and `gen` run it): streams (one
 * stream for CUDA graphs), devices, state swaps, state with shared pools,
 * the outputs that generated code returns.
 */
#include "ir/ir.h"

#include <stdlib.h>

static void *ir_tcalloc(size_t n, size_t size) {
    void *p = calloc(n ? n : 1, size);
    if (!p)
        base_oom();
    return p;
}

uint32_t ir_stream_ids(const ir_program *p, uint64_t *ids) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nstmts; i++)
        if (p->stmts[i].kind == IR_CALL && p->stmts[i].has_stream)
            ids[n++] = p->stmts[i].stream;
    qsort(ids, n, sizeof *ids, base_cmp_u64);
    uint32_t nd = 0;
    for (uint32_t i = 0; i < n; i++)
        if (nd == 0 || ids[nd - 1] != ids[i])
            ids[nd++] = ids[i];
    return nd;
}

/* With CUDA graphs, the first call that carries stream= is reported. */
static bool ir_graph_streams_ok(const ir_program *p,
                                const ir_target_limits *lim, base_diag *d) {
    if (!lim->cuda_graphs || !p->has_streams)
        return true;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        if (s->kind == IR_CALL && s->has_stream) {
            base_diag_report(d, BASE_SEV_ERROR, s->stream_loc.line,
                             s->stream_loc.col,
                             "--cuda-graphs needs the calls on one stream, but "
                             "this call has stream=");
            return false;
        }
    }
    return true;
}

/* The number of distinct stream= numbers is counted in statement order:
 * the call that brings the first one over the limit is reported. */
static bool ir_streams_ok(const ir_program *p, const ir_target_limits *lim,
                          base_diag *d) {
    if (!lim->max_streams || !p->has_streams)
        return true;
    uint64_t *ids = ir_tcalloc(p->nstmts, sizeof *ids);
    uint32_t nd = ir_stream_ids(p, ids);
    bool ok = nd <= lim->max_streams;
    if (!ok) {
        bool *seen = ir_tcalloc(nd, sizeof *seen);
        uint32_t count = 0;
        for (uint32_t i = 0; i < p->nstmts; i++) {
            const ir_stmt *s = &p->stmts[i];
            if (s->kind != IR_CALL || !s->has_stream)
                continue;
            uint32_t j = base_lower_bound_u64(ids, nd, s->stream);
            if (seen[j])
                continue;
            seen[j] = true;
            if (++count > lim->max_streams) {
                base_diag_report(d, BASE_SEV_ERROR, s->stream_loc.line,
                                 s->stream_loc.col,
                                 "more than %u distinct stream= numbers: "
                                 "target '%s' has at most %u streams",
                                 (unsigned)lim->max_streams, lim->target,
                                 (unsigned)lim->max_streams);
                break;
            }
        }
        free(seen);
    }
    free(ids);
    return ok;
}

/* A host-only target refuses the first buffer on a cuda device; a cuda
 * target warns when no buffer is on one (its cpu pools are then pinned
 * host memory). */
static bool ir_devices_ok(const ir_program *p, const ir_target_limits *lim,
                          base_diag *d) {
    bool any_cuda = false;
    for (uint32_t i = 0; i < p->nvalues; i++) {
        const ir_value *v = &p->values[i];
        if (v->kind == IR_VAL_ALIAS || v->device.kind != IR_DEV_CUDA)
            continue;
        any_cuda = true;
        if (!lim->cuda) {
            const ir_stmt *s = &p->stmts[v->def];
            char dev[24];
            base_diag_report(d, BASE_SEV_ERROR, s->loc.line, s->loc.col,
                             "'%s' is on device %s but --target %s generates "
                             "host code only (use --target cuda)",
                             v->name, ir_device_str(v->device, dev, sizeof dev),
                             lim->target);
            return false;
        }
    }
    if (lim->cuda && !any_cuda)
        base_diag_report(d, BASE_SEV_WARNING, 0, 0,
                         "no buffer is on a cuda device: --target cuda keeps "
                         "every pool in pinned host memory (declare 'device "
                         "cuda:0' to plan buffers in device memory)");
    return true;
}

/* `state S ... next=` swaps pointers in C only. */
static bool ir_state_next_ok(const ir_program *p, const ir_target_limits *lim,
                             base_diag *d) {
    for (uint32_t v = 0; lim->no_state_swap && v < p->nvalues; v++)
        if (p->values[v].state_next >= 0) {
            const ir_stmt *st = &p->stmts[p->values[v].def];
            base_diag_report(d, BASE_SEV_ERROR, st->loc.line, st->loc.col,
                             "the swap of 'state %s ... next=' needs "
                             "--target c",
                             p->values[v].name);
            return false;
        }
    return true;
}

/* Shared pools: the first state is reported (at its statement). */
static bool ir_shared_state_ok(const ir_program *p, const ir_target_limits *lim,
                               base_diag *d) {
    for (uint32_t v = 0; lim->shared_pools && v < p->nvalues; v++)
        if (p->values[v].kind == IR_VAL_STATE) {
            const ir_stmt *st = &p->stmts[p->values[v].def];
            base_diag_report(d, BASE_SEV_ERROR, st->loc.line, st->loc.col,
                             "--shared-pools cannot keep state '%s' across "
                             "runs (the other models reuse its bytes)",
                             p->values[v].name);
            return false;
        }
    return true;
}

static bool ir_outputs_ok(const ir_program *p, const ir_target_limits *lim,
                          base_diag *d) {
    if (!lim->needs_outputs || p->output_stmt >= 0)
        return true;
    base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                     "no 'output' statement: gen needs the model's outputs "
                     "(add 'output NAME ...')");
    return false;
}

bool ir_check_target(const ir_program *p, const ir_target_limits *lim,
                     base_diag *d) {
    bool ok = ir_shared_state_ok(p, lim, d);
    ok = ir_graph_streams_ok(p, lim, d) && ok;
    ok = ir_streams_ok(p, lim, d) && ok;
    ok = ir_devices_ok(p, lim, d) && ok;
    ok = ir_state_next_ok(p, lim, d) && ok;
    return ir_outputs_ok(p, lim, d) && ok;
}

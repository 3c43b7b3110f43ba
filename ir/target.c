/*
 * ir/target.c - the limits of a code generation target that the IR does
 * not have (ir_check_target; codegen's cg_target_limits gives them per
 * target, `planwrap check --target T` and `gen` run it): streams,
 * devices, state swaps, integers a double parameter cannot hold.
 */
#include "ir/ir.h"
#include "base/hash.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

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

/* The number of distinct stream= numbers is counted in statement order:
 * the call that brings the first one over the limit is reported. */
static bool ir_streams_ok(const ir_program *p, const ir_target_limits *lim,
                          ir_diag *d) {
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
                ir_diag_report(d, IR_SEV_ERROR, s->stream_loc.line,
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
                          ir_diag *d) {
    bool any_cuda = false;
    for (uint32_t i = 0; i < p->nvalues; i++) {
        const ir_value *v = &p->values[i];
        if (v->kind == IR_VAL_ALIAS || v->device.kind != IR_DEV_CUDA)
            continue;
        any_cuda = true;
        if (!lim->cuda) {
            const ir_stmt *s = &p->stmts[v->def];
            char dev[24];
            ir_diag_report(d, IR_SEV_ERROR, s->loc.line, s->loc.col,
                           "'%s' is on device %s but --target %s generates "
                           "host code only (use --target cuda)",
                           v->name, ir_device_str(v->device, dev, sizeof dev),
                           lim->target);
            return false;
        }
    }
    if (lim->cuda && !any_cuda)
        ir_diag_report(d, IR_SEV_WARNING, 0, 0,
                       "no buffer is on a cuda device: --target cuda keeps "
                       "every pool in pinned host memory (declare 'device "
                       "cuda:0' to plan buffers in device memory)");
    return true;
}

/* `state S ... next=` swaps pointers in C only. */
static bool ir_state_next_ok(const ir_program *p, const ir_target_limits *lim,
                             ir_diag *d) {
    for (uint32_t v = 0; lim->no_state_swap && v < p->nvalues; v++)
        if (p->values[v].state_next >= 0) {
            const ir_stmt *st = &p->stmts[p->values[v].def];
            ir_diag_report(d, IR_SEV_ERROR, st->loc.line, st->loc.col,
                           "the swap of 'state %s ... next=' needs "
                           "--target c",
                           p->values[v].name);
            return false;
        }
    return true;
}

/* An integer passed where other calls of its kernel pass floats (the C
 * parameter is a double) must convert exactly: |n| <= 2^53.  Kernels by
 * name in a temporary hash; O(arguments). */
static bool ir_double_ints_ok(const ir_program *p, ir_diag *d) {
    typedef struct kf {
        const char *name;
        uint32_t n;
        bool *is_float; /* per position: some call passes a float */
        UT_hash_handle hh;
    } kf;
    kf *map = NULL, *all = ir_tcalloc(p->nkernels + 1, sizeof *all);
    uint32_t nk = 0;
    bool ok = true;
    for (int pass = 0; pass < 2; pass++)
        for (uint32_t i = 0; i < p->nstmts; i++) {
            const ir_stmt *s = &p->stmts[i];
            if (s->kind != IR_CALL || s->broken)
                continue;
            kf *e = NULL;
            HASH_FIND_STR(map, s->name.name, e);
            if (!e && nk < p->nkernels) {
                e = &all[nk++];
                e->name = s->name.name;
                HASH_ADD_KEYPTR(hh, map, e->name, strlen(e->name), e);
            }
            if (!e)
                continue;
            if (s->nargs > e->n) {
                bool *f = ir_tcalloc(s->nargs, sizeof *f);
                if (e->n)
                    memcpy(f, e->is_float, e->n * sizeof *f);
                free(e->is_float);
                e->is_float = f;
                e->n = s->nargs;
            }
            for (uint32_t j = 0; j < s->nargs; j++) {
                const ir_arg *g = &s->args[j];
                const int64_t lim = (int64_t)1 << 53;
                if (pass == 0 && g->kind == IR_ARG_FLOAT)
                    e->is_float[j] = true;
                if (pass == 1 && g->kind == IR_ARG_INT && e->is_float[j] &&
                    (g->ival > lim || g->ival < -lim)) {
                    ok = false;
                    ir_diag_report(
                        d, IR_SEV_ERROR, g->loc.line, g->loc.col,
                        "integer %" PRId64 " cannot be passed exactly as "
                        "argument %" PRIu32 " of kernel '%s', a double "
                        "(other calls pass floats there): integers above "
                        "2^53 lose digits; write it as a float",
                        g->ival, j + 1, s->name.name);
                }
            }
        }
    HASH_CLEAR(hh, map);
    for (uint32_t k = 0; k < nk; k++)
        free(all[k].is_float);
    free(all);
    return ok;
}

bool ir_check_target(const ir_program *p, const ir_target_limits *lim,
                     ir_diag *d) {
    bool ok = ir_streams_ok(p, lim, d);
    ok = ir_devices_ok(p, lim, d) && ok;
    ok = ir_state_next_ok(p, lim, d) && ok;
    return ir_double_ints_ok(p, d) && ok;
}

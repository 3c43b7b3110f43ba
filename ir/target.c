/*
 * ir/target.c - the limits of a code generation target that the IR does
 * not have (ir_check_target; codegen's cg_target_limits gives them per
 * target, `planwrap check --target T` and `gen` run it).
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

/* The number of distinct stream= numbers is counted in statement order:
 * the call that brings the first one over the limit is reported. */
bool ir_check_target(const ir_program *p, const ir_target_limits *lim,
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

/*
 * codegen/view_streams.c - CUDA streams: the distinct stream= numbers
 * and their expressions, and the "streams" section.  Which call waits for
 * which stream is the plan's (planner/sync.c); the 63-stream limit of
 * CUDA is a target check (ir_check_target).
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint32_t cg_stream_slot(const vw *v, uint64_t st) {
    return base_lower_bound_u64(v->stream_ids, v->nstreams, st);
}

/* The CUDA stream of calls with stream=st (st < 0: the caller's). */
const char *cg_stream_expr(const vw *v, int64_t st) {
    if (st < 0)
        return v->p_stream;
    return cg_vfmt(v, "%s->streams[%" PRIu32 "]", v->p_ctx,
                   cg_stream_slot(v, (uint64_t)st));
}

/* Distinct stream numbers of the calls, ascending (the plan's). */
void cg_view_streams(vw *v) {
    const plan_sync *sy = v->pl->sync;
    PW_ASSERT(sy); /* plan_program records it */
    v->sync = sy;
    v->stream_ids = sy->stream_ids;
    v->nstreams = sy->nstreams;
}

json_t *cg_streams_json(vw *v) {
    const uint64_t *ids = v->stream_ids;
    uint32_t n = v->nstreams;
    json_t *arr = json_array();
    for (uint32_t j = 0; j < n; j++) {
        json_t *o = json_object();
        set(v, o, "index", ju64(ids[j]));
        set(v, o, "slot", json_integer(j));
        sets(v, o, "expr", cg_stream_expr(v, (int64_t)ids[j]));
        set(v, o, "event_index", json_integer(j));
        set(v, o, "last", json_boolean(j + 1 == n));
        json_array_append_new(arr, o);
    }
    return arr;
}

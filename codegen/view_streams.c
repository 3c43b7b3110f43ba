/*
 * codegen/view_streams.c - CUDA streams: the distinct stream= numbers,
 * their expressions, the cross-stream synchronisation (which call waits
 * for which event) and the "streams" section.  The synchronisation is a
 * planning decision and the 63-stream limit a target check (issue 9
 * items 1 and 2 move them to planner/ and ir/check.c); they are kept
 * here, apart, until then.
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

/* The key of a buffer's memory in stream_state: its storage, or for
 * caller memory its root value after the storages. */
int32_t cg_stream_key(const vw *v, int32_t val) {
    int32_t sid = v->pl->storage_of_value[val];
    if (sid >= 0)
        return sid;
    int32_t r = v->prog->values[val].root;
    return (int32_t)v->pl->nstorages + (r >= 0 ? r : val);
}

/* Distinct stream numbers of the calls, ascending. */
void cg_view_streams(vw *v) {
    const ir_program *p = v->prog;
    uint64_t *ids = ir_arena_array(v->a, p->nstmts + 1, sizeof(uint64_t));
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        if (s->kind != IR_CALL || !s->has_stream)
            continue;
        bool seen = false;
        for (uint32_t j = 0; j < n && !seen; j++)
            seen = ids[j] == s->stream;
        if (!seen) {
            uint32_t j = n++;
            while (j > 0 && ids[j - 1] > s->stream) {
                ids[j] = ids[j - 1];
                j--;
            }
            ids[j] = s->stream;
        }
    }
    v->stream_ids = ids;
    v->nstreams = n;
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

/* ------------------------------------------------------------------ */
/* Cross-stream synchronisation. */

void cg_sync_init(vw *v, stream_state *ss) {
    uint32_t nkeys = v->pl->nstorages + v->prog->nvalues;
    ss->writer = ir_arena_array(v->a, nkeys + 1, sizeof(int32_t));
    ss->readers = ir_arena_array(v->a, nkeys + 1, sizeof(uint64_t));
    ss->nevents = 0;
    ss->off = v->nstreams > PLAN_MAX_STREAMS;
    for (uint32_t i = 0; i < nkeys; i++)
        ss->writer[i] = -1;
}

/* The bit of the stream of call s: 0 for the caller's stream, SLOT+1 for
 * a context stream. */
static int32_t sync_bit(const vw *v, const ir_stmt *s) {
    if (!s->has_stream)
        return 0;
    return (int32_t)cg_stream_slot(v, s->stream) + 1;
}

uint64_t cg_sync_before_call(const vw *v, const stream_state *ss,
                             const ir_stmt *s, int32_t k, bool ok,
                             const char **why) {
    int32_t mybit = sync_bit(v, s);
    uint64_t need = 0;
    for (uint32_t j = 0; j < s->nargs && !ss->off; j++) {
        const ir_arg *g = &s->args[j];
        if (g->kind != IR_ARG_BUFFER || g->value < 0)
            continue;
        ir_mode m = cg_param_mode(v, ok ? k : -1, j);
        int32_t key = cg_stream_key(v, g->value);
        uint64_t before = need;
        int32_t w = ss->writer[key];
        if (w >= 0 && w != mybit)
            need |= (uint64_t)1 << w;
        if (m != IR_MODE_IN)
            need |= ss->readers[key] & ~((uint64_t)1 << mybit);
        for (uint32_t bit = 0; bit < CG_SYNC_BITS; bit++)
            if (((need & ~before) >> bit) & 1)
                why[bit] = v->prog->values[g->value].name;
    }
    return need;
}

void cg_sync_after_call(const vw *v, stream_state *ss, const ir_stmt *s,
                        int32_t k, bool ok) {
    int32_t mybit = sync_bit(v, s);
    for (uint32_t j = 0; j < s->nargs && !ss->off; j++) {
        const ir_arg *g = &s->args[j];
        if (g->kind != IR_ARG_BUFFER || g->value < 0)
            continue;
        ir_mode m = cg_param_mode(v, ok ? k : -1, j);
        int32_t key = cg_stream_key(v, g->value);
        if (m == IR_MODE_IN) {
            ss->readers[key] |= (uint64_t)1 << mybit;
        } else {
            ss->writer[key] = mybit;
            ss->readers[key] = 0;
        }
    }
}

void cg_sync_reuse(stream_state *ss, int32_t sid, int32_t old) {
    ss->writer[sid] = ss->writer[old];
    ss->readers[sid] = ss->readers[old];
}

/*
 * planner/sync.c - cross-stream synchronisation: which call waits for
 * which stream, computed once per plan (plan_sync_build).
 *
 * Streams are numbered by bit: 0 is the caller's stream, SLOT+1 the
 * context stream of the SLOT-th distinct stream= number.  Per storage (or
 * per root value for caller memory) the pass keeps the stream of the last
 * write and the streams that read since.  A call waits for the last writer
 * on another stream before reading, and for every other stream that
 * touched the storage since its last write before writing.  A storage
 * that takes dead ones' bytes inherits their history: the last writer of
 * the one that gave most bytes, and as readers every other stream that
 * touched any of them, so that its first write waits for all.  With more than
 * PLAN_MAX_STREAMS distinct numbers nothing is tracked (the CUDA target
 * rejects such programs; the C target runs calls in order).
 */
#include "planner/planner.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

typedef struct sync_state {
    const plan *pl;
    plan_sync *sy;
    int32_t *writer;     /* per key: bit of the last writer, -1 */
    uint64_t *readers;   /* per key: bits of the readers since */
    const ir_stmt **sig; /* per statement: the signature of a call, NULL */
    plan_wait *waits;    /* growing */
    uint32_t cap;
} sync_state;

/* Distinct stream numbers of the calls, ascending (none allocated
 * without streams: an array per statement that stays empty). */
static void sync_streams(base_arena *a, plan_sync *sy, const ir_program *p) {
    if (!p->has_streams)
        return;
    uint64_t *ids = base_arena_array(a, p->nstmts + 1, sizeof *ids);
    sy->nstreams = ir_stream_ids(p, ids);
    sy->stream_ids = ids;
}

/* The signature of each call's kernel (ir_stmt.kernel). */
static void sync_signatures(sync_state *S, base_arena *a) {
    const ir_program *p = S->pl->prog;
    S->sig = base_arena_array(a, p->nstmts + 1, sizeof *S->sig);
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        int32_t k = st->kind == IR_CALL ? st->kernel : -1;
        int32_t sig = k >= 0 ? p->kernels[k].sig_stmt : -1;
        S->sig[i] = sig >= 0 ? &p->stmts[sig] : NULL;
    }
}

uint32_t plan_sync_bit(const plan_sync *sy, const ir_stmt *s) {
    if (!s->has_stream)
        return 0;
    return base_lower_bound_u64(sy->stream_ids, sy->nstreams, s->stream) + 1;
}

/* The key of a buffer's memory: its storage, or for caller memory its
 * root value after the storages. */
static int32_t sync_key(const plan *pl, int32_t val) {
    int32_t sid = pl->storage_of_value[val];
    if (sid >= 0)
        return sid;
    int32_t r = pl->prog->values[val].root;
    return (int32_t)pl->nstorages + (r >= 0 ? r : val);
}

/* Argument j of call s is read only (a signature says `in`). */
static bool sync_reads_only(const sync_state *S, const ir_stmt *s, uint32_t j) {
    const ir_stmt *sig = S->sig[s->index];
    return sig && j < sig->nmodes && sig->modes[j] == IR_MODE_IN;
}

static void sync_wait(sync_state *S, uint32_t bit, int32_t value) {
    if (S->sy->nwaits == S->cap) {
        S->cap = S->cap ? 2 * S->cap : 64;
        S->waits = realloc(S->waits, (size_t)S->cap * sizeof *S->waits);
        if (!S->waits)
            base_oom();
    }
    S->waits[S->sy->nwaits++] = (plan_wait){bit, value};
}

/* The waits of call s (one per stream, in stream order, each naming the
 * first buffer that needs it), then its effect on the state. */
static void sync_call(sync_state *S, const ir_stmt *s) {
    uint32_t mybit = plan_sync_bit(S->sy, s);
    uint64_t need = 0;
    int32_t why[PLAN_SYNC_BITS];
    for (uint32_t j = 0; j < s->nargs; j++) {
        const ir_arg *g = &s->args[j];
        if (g->kind != IR_ARG_BUFFER || g->value < 0)
            continue;
        int32_t key = sync_key(S->pl, g->value);
        uint64_t before = need;
        int32_t w = S->writer[key];
        if (w >= 0 && (uint32_t)w != mybit)
            need |= (uint64_t)1 << w;
        if (!sync_reads_only(S, s, j))
            need |= S->readers[key] & ~((uint64_t)1 << mybit);
        for (uint32_t bit = 0; bit < PLAN_SYNC_BITS; bit++)
            if (((need & ~before) >> bit) & 1)
                why[bit] = g->value;
    }
    for (uint32_t bit = 0; bit < PLAN_SYNC_BITS; bit++)
        if ((need >> bit) & 1)
            sync_wait(S, bit, why[bit]);
    for (uint32_t j = 0; j < s->nargs; j++) {
        const ir_arg *g = &s->args[j];
        if (g->kind != IR_ARG_BUFFER || g->value < 0)
            continue;
        int32_t key = sync_key(S->pl, g->value);
        if (sync_reads_only(S, s, j)) {
            S->readers[key] |= (uint64_t)1 << mybit;
        } else {
            S->writer[key] = (int32_t)mybit;
            S->readers[key] = 0;
        }
    }
}

/* Storage sid takes the bytes of its donors (planner/donors.c). */
static void sync_inherit(sync_state *S, int32_t sid) {
    const plan *pl = S->pl;
    const plan_storage *st = &pl->storages[sid];
    if (st->reuse_of < 0)
        return;
    int32_t w = S->writer[st->reuse_of];
    uint64_t r = 0;
    for (uint32_t i = 0; i < st->ndonors; i++) {
        int32_t d = pl->donors[st->donor_begin + i].storage;
        r |= S->readers[d];
        if (S->writer[d] >= 0 && S->writer[d] != w)
            r |= (uint64_t)1 << S->writer[d];
    }
    S->writer[sid] = w;
    S->readers[sid] = r;
}

const plan_sync *plan_sync_build(base_arena *a, const plan *pl) {
    const ir_program *p = pl->prog;
    plan_sync *sy = base_arena_alloc(a, sizeof *sy);
    sync_streams(a, sy, p);
    if (sy->nstreams == 0 || sy->nstreams > PLAN_MAX_STREAMS)
        return sy; /* no waits, no wait_begin */
    sy->wait_begin = base_arena_array(a, p->nstmts + 1, sizeof *sy->wait_begin);
    sync_state S = {.pl = pl, .sy = sy};
    uint32_t nkeys = pl->nstorages + p->nvalues;
    S.writer = base_arena_array(a, nkeys + 1, sizeof *S.writer);
    S.readers = base_arena_array(a, nkeys + 1, sizeof *S.readers);
    for (uint32_t i = 0; i < nkeys; i++)
        S.writer[i] = -1;
    sync_signatures(&S, a);
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        sy->wait_begin[i] = sy->nwaits;
        if (s->kind == IR_CALL && !s->broken) {
            sync_call(&S, s);
        } else if (s->kind == IR_ALLOC && s->value >= 0) {
            int32_t sid = pl->storage_of_value[s->value];
            if (sid >= 0)
                sync_inherit(&S, sid);
        }
    }
    sy->wait_begin[p->nstmts] = sy->nwaits;
    sy->waits = base_arena_array(a, sy->nwaits + 1, sizeof *sy->waits);
    if (sy->nwaits)
        memcpy(sy->waits, S.waits, sy->nwaits * sizeof *S.waits);
    free(S.waits);
    return sy;
}

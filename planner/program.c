/*
 * planner/program.c - planning a checked program (layer 2).
 *
 * 1. Storages: one per `alloc`.  A storage lives from its alloc statement
 *    to the statement that frees its last name (its own or any alias,
 *    transitively: ir_check resolves every alias to its root); a storage
 *    with a name never freed, or holding an output, lives to the last
 *    statement.  Zero-size storages take no space (offset 0).
 * 2. Pools: one per (device, space, comm, group), in order of first
 *    appearance, named `pool_DEVICE[_SPACE][_COMM_GROUP][_outputs]` (a
 *    numeric suffix keeps them unique).  The memory-pool mode decides
 *    where outputs go: `intermediates` leaves them to the caller (pool -1),
 *    `outputs` gives them pools of their own, `combined` pools them with
 *    the intermediates, `none` pools nothing.
 * 3. Streams: when isolating, each storage gets the colour of the one
 *    stream whose calls touch it (calls without stream= run on stream 0),
 *    or -2 when several streams touch it; storages of different colours
 *    never share bytes.
 * 4. One algorithm run per pool, the capacity check of named spaces, the
 *    donors of every storage (planner/donors.c: its reuse events), and
 *    the verifier (always in debug builds).
 */
#include "plan_internal.h"
#include "base/base.h"

#include "base/hash.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Exact reuse keys.  Two storages may take each other's bytes under
 * `reuse` only when (device, dtype, elements, comm, group, stream colour)
 * are equal.  The key's bytes are the fields in a fixed layout, each string
 * preceded by a presence byte and ended by its NUL; a uthash table over
 * those bytes (hashed from the fields, pp_key_hash) gives each distinct
 * key a dense id in order of first appearance, which becomes
 * plan_buf.reuse_key.  uthash compares whole keys, so equal ids mean
 * equal keys: no hash collision can let two different kinds of storage
 * share bytes. */
typedef struct pp_reuse_class {
    UT_hash_handle hh;
    uint64_t id;
    unsigned char key[];
} pp_reuse_class;

/* The keys without comm and group met lately, by their fields (the
 * table's answer, remembered: building a key's bytes, hashing and
 * finding them cost about 1 ms at 10^5 kernels, where most storages
 * share a few shapes).  id1: the id plus 1, 0 when empty. */
#define PP_KEY_MEMO 64u
typedef struct pp_key_memo {
    uint64_t elements, id1;
    int64_t index;
    int32_t kind, dtype, color;
} pp_key_memo;

typedef struct pp_reuse_keys {
    base_arena *arena;
    pp_reuse_class *table;
    uint64_t next;
    pp_key_memo memo[PP_KEY_MEMO];
} pp_reuse_keys;

static size_t pp_key_put(unsigned char *out, size_t at, const void *p,
                         size_t n) {
    if (out)
        memcpy(out + at, p, n);
    return at + n;
}

static size_t pp_key_str(unsigned char *out, size_t at, const char *s) {
    unsigned char present = s != NULL;
    at = pp_key_put(out, at, &present, 1);
    return s ? pp_key_put(out, at, s, strlen(s) + 1) : at;
}

/* Writes the key of `val` with colour `color` into out (when not NULL)
 * and returns its length. */
static size_t pp_key_bytes(unsigned char *out, const ir_value *val,
                           int32_t color) {
    int32_t kind = (int32_t)val->device.kind;
    int64_t index = (int64_t)val->device.index;
    int32_t dtype = (int32_t)val->dtype;
    uint64_t elements = ir_value_elements(val);
    size_t at = 0;
    at = pp_key_put(out, at, &kind, sizeof kind);
    at = pp_key_put(out, at, &index, sizeof index);
    at = pp_key_put(out, at, &dtype, sizeof dtype);
    at = pp_key_put(out, at, &elements, sizeof elements);
    at = pp_key_put(out, at, &color, sizeof color);
    at = pp_key_str(out, at, val->comm);
    return pp_key_str(out, at, val->group);
}

/* The table's hash of a key: its fixed fields mixed by multiplication
 * (a few steps, where FNV takes one per byte), the strings by FNV-1a. */
static unsigned pp_key_hash(const ir_value *val, int32_t color) {
    uint64_t h = 0x9E3779B97F4A7C15ull;
    uint64_t f[] = {(uint64_t)val->device.kind, (uint64_t)val->device.index,
                    (uint64_t)val->dtype, ir_value_elements(val),
                    (uint64_t)(uint32_t)color};
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        h = (h ^ f[i]) * 0xff51afd7ed558ccdull;
    const char *str[] = {val->comm, val->group};
    for (size_t i = 0; i < 2; i++)
        for (const char *c = str[i]; c && *c; c++)
            h = (h ^ (unsigned char)*c) * 0x100000001b3ull;
    return (unsigned)((h ^ (h >> 32)) * 0x9E3779B97F4A7C15ull >> 32);
}

static uint64_t pp_reuse_key_slow(pp_reuse_keys *k, const ir_value *val,
                                  int32_t color) {
    unsigned char scratch[512];
    size_t len = pp_key_bytes(NULL, val, color);
    unsigned char *key =
        len <= sizeof scratch ? scratch : base_arena_alloc(k->arena, len);
    pp_key_bytes(key, val, color);
    unsigned hv = pp_key_hash(val, color);
    pp_reuse_class *found = NULL;
    HASH_FIND_BYHASHVALUE(hh, k->table, key, len, hv, found);
    if (found)
        return found->id;
    pp_reuse_class *c = base_arena_alloc(k->arena, sizeof *c + len);
    memcpy(c->key, key, len);
    c->id = k->next++;
    HASH_ADD_KEYPTR_BYHASHVALUE(hh, k->table, c->key, len, hv, c);
    return c->id;
}

/* The id of val's key with colour `color` (the table's, through the
 * memo when val has no comm and no group: the same ids). */
static uint64_t pp_reuse_key(pp_reuse_keys *k, const ir_value *val,
                             int32_t color) {
    if (val->comm || val->group)
        return pp_reuse_key_slow(k, val, color);
    pp_key_memo m = {ir_value_elements(val),     0,
                     (int64_t)val->device.index, (int32_t)val->device.kind,
                     (int32_t)val->dtype,        color};
    uint64_t h = (m.elements * 0x9E3779B97F4A7C15ull) ^
                 ((uint64_t)(uint32_t)m.dtype << 8) ^
                 (uint64_t)(uint32_t)color ^ ((uint64_t)m.index << 16) ^
                 ((uint64_t)(uint32_t)m.kind << 24);
    pp_key_memo *e = &k->memo[(h ^ h >> 29) % PP_KEY_MEMO];
    if (e->id1 && e->elements == m.elements && e->index == m.index &&
        e->kind == m.kind && e->dtype == m.dtype && e->color == m.color)
        return e->id1 - 1;
    m.id1 = pp_reuse_key_slow(k, val, color) + 1;
    *e = m;
    return m.id1 - 1;
}

static bool pp_streq(const char *a, const char *b) {
    if (!a || !b)
        return a == b;
    return strcmp(a, b) == 0;
}

static bool pp_same_dev(ir_device a, ir_device b) {
    return a.kind == b.kind && a.index == b.index;
}

/* Appends a C-identifier-safe copy of s to buf. */
static void pp_cat_ident(char *buf, size_t len, const char *s) {
    size_t k = strlen(buf);
    for (; *s && k + 1 < len; s++)
        buf[k++] = (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
                           (*s >= '0' && *s <= '9') || *s == '_'
                       ? *s
                       : '_';
    buf[k] = '\0';
}

static int32_t pp_find_pool(plan *pl, uint32_t npools, ir_device dev,
                            const char *space, const char *comm,
                            const char *group, bool outputs) {
    for (uint32_t i = 0; i < npools; i++) {
        const plan_pool *p = &pl->pools[i];
        if (pp_same_dev(p->device, dev) && pp_streq(p->space, space) &&
            pp_streq(p->comm, comm) && pp_streq(p->group, group) &&
            p->outputs == outputs)
            return (int32_t)i;
    }
    return -1;
}

static void pp_name_pool(base_arena *a, plan *pl, uint32_t i) {
    plan_pool *p = &pl->pools[i];
    char buf[1200];
    snprintf(buf, sizeof buf, "%s",
             p->device.kind == IR_DEV_CPU ? "cpu" : "cuda");
    if (p->device.kind == IR_DEV_CUDA) {
        size_t k = strlen(buf);
        snprintf(buf + k, sizeof buf - k, "%" PRIu32, p->device.index);
    }
    if (p->space) {
        pp_cat_ident(buf, sizeof buf, "_");
        pp_cat_ident(buf, sizeof buf, p->space);
    }
    if (p->comm) {
        pp_cat_ident(buf, sizeof buf, "_");
        pp_cat_ident(buf, sizeof buf, p->comm);
        pp_cat_ident(buf, sizeof buf, "_");
        pp_cat_ident(buf, sizeof buf, p->group ? p->group : "");
    }
    if (p->outputs)
        pp_cat_ident(buf, sizeof buf, "_outputs");
    const char *name = base_arena_strdup(a, buf);
    for (unsigned k = 2;; k++) {
        bool clash = false;
        for (uint32_t j = 0; j < i && !clash; j++)
            clash = strcmp(pl->pools[j].name, name) == 0;
        if (!clash)
            break;
        name = base_arena_printf(a, "%s_%u", buf, k);
    }
    p->name = name;
    p->name_len = strlen(name);
}

/* Stream colour of each storage: the one stream whose calls touch it
 * (stream= absent = stream 0), -2 when several, -1 when none.  streams:
 * the caller's scratch of nstmts + 1 entries. */
static void pp_colors(const ir_program *p, const int32_t *storage_of_value,
                      int32_t *color, uint64_t *streams) {
    uint32_t nstreams = 0;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        if (st->kind != IR_CALL)
            continue;
        uint64_t sv = st->has_stream ? st->stream : 0;
        int32_t c = -1;
        for (uint32_t k = 0; k < nstreams; k++)
            if (streams[k] == sv)
                c = (int32_t)k;
        if (c < 0) {
            streams[nstreams] = sv;
            c = (int32_t)nstreams++;
        }
        for (uint32_t k = 0; k < st->nargs; k++) {
            int32_t v = st->args[k].value;
            if (st->args[k].kind != IR_ARG_BUFFER || v < 0)
                continue;
            int32_t s = storage_of_value[v];
            if (s < 0)
                continue;
            if (color[s] == -1)
                color[s] = c;
            else if (color[s] != c)
                color[s] = -2;
        }
    }
}

/* Whether storages get stream colours: --streams isolate, or auto and a
 * call has stream=. */
static bool pp_isolate(const plan_options *o, const ir_program *p) {
    return o->streams == PLAN_STREAMS_ISOLATE ||
           (o->streams == PLAN_STREAMS_AUTO && p->has_streams);
}

int plan_run(const plan_problem *pb, const plan_options *o, uint64_t capacity,
             uint64_t *off, uint64_t *size, plan_search_stats *st) {
    plan_search_stats local;
    if (!st)
        st = &local;
    memset(st, 0, sizeof *st);
    switch (o->algo) {
    case PLAN_NAIVE:
        return plan_naive(pb, off, size);
    case PLAN_REUSE:
        return plan_reuse(pb, off, size);
    case PLAN_TREE:
        return plan_tree(pb, off, size);
    case PLAN_BESTFIT: {
        int rc = plan_bestfit_lb(pb, off, size, &st->lower_bound);
        st->problem_bound = st->lower_bound;
        return rc;
    }
    case PLAN_SEARCH:
    case PLAN_AUTO: {
        plan_search_opts so = o->search;
        if (capacity && (so.capacity == 0 || capacity < so.capacity))
            so.capacity = capacity;
        return o->algo == PLAN_AUTO ? plan_auto(pb, &so, off, size, st)
                                    : plan_search(pb, &so, off, size, st);
    }
    }
    return -1;
}

bool plan_run_reports_bound(plan_algo a) {
    return a == PLAN_BESTFIT || a == PLAN_SEARCH || a == PLAN_AUTO;
}

/* The capacity a pool must fit: its space's capacity and --capacity, the
 * smaller of the two; 0 = none. */
static uint64_t pp_capacity(const plan_pool *pool, const plan_options *o) {
    uint64_t cap = pool->has_capacity ? pool->capacity : 0;
    if (o->search.capacity && (cap == 0 || o->search.capacity < cap))
        cap = o->search.capacity;
    return cap;
}

/* The values that get a storage: allocs, states, and inputs planned into
 * the arena (`planned` or --plan-inputs). */
static bool pp_is_storage(const plan_options *o, const ir_value *v) {
    return v->kind == IR_VAL_ALLOC || v->kind == IR_VAL_STATE ||
           (v->kind == IR_VAL_INPUT && (v->planned || o->plan_inputs));
}

/* Storages live from statement 0: planned inputs and states (written
 * before the run) and the outputs that become the next state. */
static bool pp_from_start(const ir_value *v) {
    return v->kind != IR_VAL_ALLOC || v->next_of >= 0;
}

/* Whether storage s is pooled, and (*outputs) in the outputs pool. */
static bool pp_pooled(const plan_options *o, const plan *pl, uint32_t s,
                      bool *outputs) {
    const plan_storage *st = &pl->storages[s];
    const ir_value *v = &pl->prog->values[st->value];
    *outputs = false;
    if (o->memory_pool == PLAN_MP_NONE)
        return false;
    if (!st->is_output)
        return true;
    if (o->memory_pool == PLAN_MP_INTERMEDIATES)
        return v->planned || o->plan_outputs || v->next_of >= 0;
    *outputs = o->memory_pool == PLAN_MP_OUTPUTS;
    return true;
}

/* The state of one plan_program run, shared by its steps. */
typedef struct pp_run {
    base_arena *a;
    plan *pl;
    const plan_options *o;
    base_diag *d;
    int32_t *color; /* per storage: stream colour (step 3) */
    bool *pooled;   /* per storage: pooled */
    bool *outs;     /* per storage: in the outputs pool */
    bool *fixed;    /* per storage: placed by plan_fw_spill */
    pp_reuse_keys keys;
    plan_options po; /* o with what is left of --time-limit */
    double t0;
    void *scratch; /* one block for every step below (pp_scratch_size) */
    size_t scratch_size;
} pp_run;

/* A pool's arrays in the scratch (pp_plan_pool): the storage of each of
 * its buffers, then the lower bound's arrays, whose room then holds the
 * offsets.  n: the pool's storages. */
typedef struct pp_pool_arrays {
    uint32_t *members;
    void *rest; /* the lower bound's scratch, then the offsets */
    size_t rest_size;
} pp_pool_arrays;

static void pp_pool_layout(plan_carver *c, uint32_t n, pp_pool_arrays *w) {
    plan_problem pb = {n, NULL, 0, NULL};
    size_t need = plan_lower_bound_scratch_size(&pb);
    size_t offs = plan_scratch_add(0, (size_t)n + 1, sizeof(uint64_t));
    w->members = PLAN_CARVE(c, (size_t)n + 1, uint32_t);
    w->rest = plan_carve_rest(c, need > offs ? need : offs, &w->rest_size);
}

/* The scratch of plan_program, allocated once and reused by each step:
 * the stream numbers, each pool's arrays (pp_pool_layout, sized for all
 * the storages, so for the largest pool) and the donor sweep. */
static size_t pp_scratch_size(const plan *pl) {
    plan_carver c = plan_carver_measure();
    pp_pool_arrays w;
    pp_pool_layout(&c, pl->nstorages, &w);
    size_t need[] = {
        plan_scratch_add(0, (size_t)pl->prog->nstmts + 1, sizeof(uint64_t)),
        c.used,
        plan_donors_scratch_size(pl),
    };
    size_t most = 0;
    for (size_t i = 0; i < sizeof need / sizeof *need; i++)
        most = need[i] > most ? need[i] : most;
    return most;
}

/* dies_at while pp_storages runs: a name of the storage is never freed. */
#define PP_NEVER_FREED INT32_MIN

/* Step 1: one storage per alloc, state or planned input, live from its
 * definition (or statement 0) to the statement freeing its last name.
 * storage_of_value first holds the storage of each root, then of every
 * name (a root is its own root, so its entry is read before it could
 * change; a root comes before its names). */
static void pp_storages(pp_run *R) {
    base_arena *a = R->a;
    plan *pl = R->pl;
    const ir_program *p = pl->prog;
    uint32_t last = p->nstmts ? p->nstmts - 1 : 0;
    int32_t *sov = base_arena_array(a, p->nvalues + 1, sizeof(int32_t));
    pl->storage_of_value = sov;
    uint32_t ns = 0;
    for (uint32_t v = 0; v < p->nvalues; v++)
        if (pp_is_storage(R->o, &p->values[v]))
            ns++;
    pl->storages = base_arena_array(a, ns + 1, sizeof *pl->storages);
    pl->nstorages = ns;
    /* each storage made at its root, then the liveness of every name:
     * a root comes before its names (ir_value's invariant in ir/ir.h:
     * root <= id), so one pass over the values does both */
    ns = 0;
    for (uint32_t v = 0; v < p->nvalues; v++) {
        const ir_value *val = &p->values[v];
        if (pp_is_storage(R->o, val)) {
            plan_storage *s = &pl->storages[ns];
            s->value = (int32_t)v;
            s->pool = -1;
            s->size = val->bytes;
            /* the caller writes planned inputs and states before the
             * run, and a next= output is the next run's state: live
             * from 0 */
            s->start = pp_from_start(val) ? 0 : val->def;
            s->dies_at = -1;
            s->reuse_of = -1;
            sov[v] = (int32_t)ns++;
        } else {
            sov[v] = -1;
        }
        PW_ASSERT(val->root <= (int32_t)v); /* -1, itself or a root before */
        int32_t s = val->root >= 0 ? sov[val->root] : -1;
        sov[v] = s;
        if (s < 0)
            continue;
        plan_storage *st = &pl->storages[s];
        if (val->output_index >= 0)
            st->is_output = true;
        if (val->freed_at < 0)
            st->dies_at = PP_NEVER_FREED;
        else if (st->dies_at != PP_NEVER_FREED && val->freed_at > st->dies_at)
            st->dies_at = val->freed_at;
    }
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        plan_storage *st = &pl->storages[s];
        const ir_value *rv = &p->values[st->value];
        if (st->dies_at == PP_NEVER_FREED || st->is_output ||
            rv->kind == IR_VAL_STATE)
            st->dies_at = -1;
        st->end = st->dies_at >= 0 ? (uint32_t)st->dies_at : last;
        if (st->end < st->start)
            st->end = st->start;
    }
}

/* Room for pool np in pl->pools, a malloc'ed array of *cap pools while
 * pp_pools runs: the new pool zeroed. */
static void pp_pool_room(plan *pl, uint32_t np, uint32_t *cap) {
    if (np == *cap) {
        *cap = *cap ? 2 * *cap : 4;
        pl->pools = base_xrealloc(pl->pools, *cap * sizeof *pl->pools);
    }
    memset(&pl->pools[np], 0, sizeof *pl->pools);
}

/* Step 2: the pools, one per (device, space, comm, group, outputs) in
 * order of first appearance, and each pooled storage's pool.  The pools
 * are few: a growing array, copied into the arena at the end. */
static void pp_pools(pp_run *R) {
    plan *pl = R->pl;
    const ir_program *p = pl->prog;
    pl->pools = NULL;
    uint32_t np = 0, cap = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        plan_storage *st = &pl->storages[s];
        const ir_value *val = &p->values[st->value];
        bool outputs = R->outs[s];
        if (!R->pooled[s])
            continue;
        int32_t pi = pp_find_pool(pl, np, val->device, st->space, val->comm,
                                  val->group, outputs);
        if (pi < 0) {
            pp_pool_room(pl, np, &cap);
            plan_pool *pool = &pl->pools[np];
            pool->device = val->device;
            pool->space = st->space;
            pool->comm = val->comm;
            pool->group = val->group;
            pool->outputs = outputs;
            pool->align =
                plan_pool_align(R->o, val->device.kind == IR_DEV_CUDA);
            pool->base_align = pool->align;
            for (uint32_t k = 0; st->space && k < p->nspaces; k++)
                if (strcmp(p->spaces[k].name, st->space) == 0 &&
                    p->spaces[k].has_capacity) {
                    pool->has_capacity = true;
                    pool->capacity = p->spaces[k].capacity;
                }
            pp_name_pool(R->a, pl, np);
            pi = (int32_t)np++;
        }
        st->pool = pi;
        pl->pools[pi].nstorages++;
        if (plan_value_align(val) > pl->pools[pi].base_align)
            pl->pools[pi].base_align = plan_value_align(val);
    }
    plan_pool *pools = base_arena_array(R->a, np + 1, sizeof *pools);
    if (np)
        memcpy(pools, pl->pools, np * sizeof *pools);
    free(pl->pools);
    pl->pools = pools;
    pl->npools = np;
}

/* Step 4a: pool pi's layer-1 problem; members[k] is the storage of
 * buffer k.  Reports a pool too large for 64-bit sizes and returns
 * false. */
static bool pp_pool_problem(pp_run *R, uint32_t pi, plan_problem *pb,
                            uint32_t *members) {
    plan *pl = R->pl;
    const ir_program *p = pl->prog;
    plan_pool *pool = &pl->pools[pi];
    memset(pb, 0, sizeof *pb);
    pb->align = pool->align;
    pb->bufs = base_arena_array(R->a, pool->nstorages + 1, sizeof *pb->bufs);
    pb->names = base_arena_array(R->a, pool->nstorages + 1, sizeof *pb->names);
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        plan_storage *st = &pl->storages[s];
        if (st->pool != (int32_t)pi)
            continue;
        const ir_value *val = &p->values[st->value];
        plan_buf *b = &pb->bufs[pb->n];
        b->size = st->size + R->o->guard_bytes; /* guards are planned */
        uint64_t va = plan_value_align(val);
        b->align = va > pool->align ? va : pool->align;
        b->start = st->start;
        b->end = st->end;
        b->color = R->color[s];
        b->reuse_key = pp_reuse_key(&R->keys, val, R->color[s]);
        pb->names[pb->n] = val->name;
        members[pb->n++] = s;
    }
    uint32_t big = plan_first_oversize(pb);
    if (big == UINT32_MAX)
        return true;
    const ir_value *val = &p->values[pl->storages[members[big]].value];
    const ir_stmt *ast = &p->stmts[val->def];
    base_diag_report(R->d, BASE_SEV_ERROR, ast->loc.line, ast->loc.col,
                     "pool %s is too large: with '%s' its storages need "
                     "more than %" PRIu64 " bytes",
                     pool->name, val->name, PLAN_MAX_POOL_SIZE);
    return false;
}

/* Step 4b: runs the algorithm on pool pi's problem (in a space with
 * spill=, takes the layout plan_fw_spill chose when --algo's passes the
 * capacity) and records the pool's search note. */
static bool pp_pool_run(pp_run *R, uint32_t pi, const plan_problem *pb,
                        const uint32_t *members, uint64_t *off, uint64_t *size,
                        plan_search_stats *st) {
    plan *pl = R->pl;
    const plan_options *o = R->o;
    plan_pool *pool = &pl->pools[pi];
    uint64_t cap = pp_capacity(pool, o);
    if (o->search.time_limit > 0) {
        double left = o->search.time_limit - (base_now() - R->t0);
        R->po.search.time_limit = left > 1e-9 ? left : 1e-9;
    }
    *size = 0;
    if (plan_run(pb, &R->po, cap, off, size, st) != 0) {
        base_diag_report(R->d, BASE_SEV_ERROR, 0, 0,
                         "out of memory while planning pool %s", pool->name);
        return false;
    }
    bool algo_layout = true; /* else plan_fw_spill's selection's */
    if (pb->n && R->fixed[members[0]] && *size > pool->capacity) {
        /* a space with spill=: --algo's layout passes the capacity,
         * the selection's (plan_fw_spill) fits */
        algo_layout = false;
        *size = 0;
        for (uint32_t k = 0; k < pb->n; k++) {
            off[k] = pl->storages[members[k]].offset;
            if (pb->bufs[k].size && off[k] + pb->bufs[k].size > *size)
                *size = off[k] + pb->bufs[k].size;
        }
        *size = plan_align_up(*size, pb->align);
    }
    if (st->time_limit_hit)
        pl->search_time_limit_hit = true;
    if ((o->algo == PLAN_SEARCH || o->algo == PLAN_AUTO) && algo_layout) {
        char buf[512];
        plan_search_opts so = o->search;
        so.capacity = cap;
        if (o->algo == PLAN_AUTO)
            plan_auto_describe(buf, sizeof buf, *size, &so, st);
        else
            plan_search_describe(buf, sizeof buf, *size, &so, st);
        pool->search_note = base_arena_strdup(R->a, buf);
    }
    return true;
}

/* Step 4c: a pool over its space's capacity or over --capacity is an
 * error (with the search's note). */
static bool pp_pool_fits(pp_run *R, const plan_pool *pool) {
    const ir_program *p = R->pl->prog;
    const plan_options *o = R->o;
    uint64_t cap = pp_capacity(pool, o);
    if (pool->has_capacity && pool->size > pool->capacity) {
        const ir_space *sp = NULL;
        for (uint32_t k = 0; k < p->nspaces; k++)
            if (strcmp(p->spaces[k].name, pool->space) == 0)
                sp = &p->spaces[k];
        const ir_stmt *sst = sp ? &p->stmts[sp->stmt] : NULL;
        base_diag_report(R->d, BASE_SEV_ERROR, sst ? sst->loc.line : 0,
                         sst ? sst->loc.col : 0,
                         "space '%s' is too small: pool %s needs %" PRIu64
                         " bytes (algorithm %s; lower bound %" PRIu64
                         " bytes) but the capacity is %" PRIu64 " bytes",
                         pool->space, pool->name, pool->size,
                         plan_algo_name(o->algo), pool->lower_bound,
                         pool->capacity);
    } else if (cap && pool->size > cap) {
        base_diag_report(R->d, BASE_SEV_ERROR, 0, 0,
                         "pool %s does not fit in --capacity %" PRIu64
                         " bytes: it needs %" PRIu64
                         " bytes (algorithm %s; lower bound %" PRIu64 " bytes)",
                         pool->name, cap, pool->size, plan_algo_name(o->algo),
                         pool->lower_bound);
    } else {
        return true;
    }
    if (pool->search_note)
        base_diag_report(R->d, BASE_SEV_NOTE, 0, 0, "%s %s: %s",
                         plan_algo_name(o->algo), pool->name,
                         pool->search_note);
    return false;
}

/* Step 4: plans pool pi: its problem, its lower bound (`bestfit`, and
 * `search` and `auto` through their best-fit start, compute it on the
 * way and report it; computed here for the others), the algorithm, the
 * offsets of its storages, its naive size, the capacity check.  The
 * members live in the scratch until the offsets are copied into the
 * storages; the offsets take the room of the lower bound's arrays. */
static bool pp_plan_pool(pp_run *R, uint32_t pi) {
    plan *pl = R->pl;
    plan_pool *pool = &pl->pools[pi];
    plan_problem pb;
    plan_carver c = plan_carver_of(R->scratch, R->scratch_size);
    pp_pool_arrays w;
    pp_pool_layout(&c, pool->nstorages, &w);
    if (!pp_pool_problem(R, pi, &pb, w.members))
        return false;
    bool by_run = plan_run_reports_bound(R->o->algo);
    if (!by_run)
        pool->lower_bound = plan_lower_bound_in(&pb, w.rest, w.rest_size);
    uint64_t *off = w.rest, size = 0;
    plan_search_stats st;
    if (!pp_pool_run(R, pi, &pb, w.members, off, &size, &st))
        return false;
    if (by_run)
        pool->lower_bound = st.problem_bound;
    for (uint32_t k = 0; k < pb.n; k++)
        pl->storages[w.members[k]].offset = off[k];
    plan_problem *kept = base_arena_alloc(R->a, sizeof *kept);
    *kept = pb;
    pool->problem = kept;
    pool->size = size;
    /* plan_naive's size: pp_pool_problem checked plan_first_oversize */
    pool->naive_size =
        plan_problem_shape_ok(&pb) ? plan_naive_size(&pb, NULL) : 0;
    return pp_pool_fits(R, pool);
}

/* The steps of the file comment after the storages: stream colours,
 * which storages are pooled (then spill), the pools, one algorithm run
 * per pool (--time-limit covers all of them), reuse_of, the verifier,
 * and what the plan records for code generation. */
static bool pp_plan(pp_run *R) {
    base_arena *a = R->a;
    plan *pl = R->pl;
    const plan_options *o = R->o;
    const ir_program *p = pl->prog;
    uint32_t ns = pl->nstorages;

    /* streams */
    R->color = base_arena_array(a, ns + 1, sizeof *R->color);
    for (uint32_t s = 0; s < ns; s++)
        R->color[s] = -1;
    if (pp_isolate(o, p))
        pp_colors(p, pl->storage_of_value, R->color, R->scratch);

    /* which storages are pooled, and in which kind of pool; then spill */
    R->pooled = base_arena_array(a, ns + 1, sizeof *R->pooled);
    R->outs = base_arena_array(a, ns + 1, sizeof *R->outs);
    R->fixed = base_arena_array(a, ns + 1, sizeof *R->fixed);
    for (uint32_t s = 0; s < ns; s++)
        R->pooled[s] = pp_pooled(o, pl, s, &R->outs[s]);
    plan_fw_access(pl, R->pooled);
    if (!plan_fw_spill(pl, R->pooled, R->outs, R->color, R->fixed, R->d))
        return false;

    pp_pools(R);
    bool ok = true;
    R->po = *o;
    R->po.search.lower_bound = 0; /* each pool's: its run computes it */
    R->t0 = base_now();
    for (uint32_t pi = 0; pi < pl->npools && ok; pi++)
        ok = pp_plan_pool(R, pi);
    HASH_CLEAR(hh, R->keys.table); /* the entries live in the arena */
    if (!ok)
        return false;

    plan_donors_build_in(a, pl, R->scratch, R->scratch_size);
    if (pl->opts.verify) {
        char err[512];
        if (!plan_verify(pl, err, sizeof err)) {
            base_diag_report(R->d, BASE_SEV_ERROR, 0, 0,
                             "internal error: the plan does not verify: %s",
                             err);
            return false;
        }
    }
    plan_record(a, pl);
    pl->sync = plan_sync_build(a, pl);
    return true;
}

/* Storages and liveness, then the steps of pp_plan over one scratch
 * block (their only out-of-memory error).  The block comes from
 * base_huge_alloc: that large, it is mapped alone and offered to the
 * kernel for huge pages (base/arena.c), where malloc's 4 KiB pages cost
 * some 1,300 page faults at 10^5 kernels, a tenth of the planning time. */
plan *plan_program(base_arena *a, const ir_program *p, const plan_options *o,
                   base_diag *d) {
    plan *pl = base_arena_alloc(a, sizeof *pl);
    pl->prog = p;
    pl->opts = *o;
#ifdef PW_DEBUG_VERIFY
    pl->opts.verify = true;
#endif
    pp_run R = {.a = a, .pl = pl, .o = o, .d = d, .keys = {a, NULL, 0}};
    pp_storages(&R);
    R.scratch_size = pp_scratch_size(pl);
    R.scratch = base_huge_alloc(R.scratch_size, 16); /* NULL for SIZE_MAX */
    if (!R.scratch) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0, "out of memory");
        return NULL;
    }
    bool ok = pp_plan(&R);
    base_huge_free(R.scratch);
    return ok ? pl : NULL;
}

/* plan_verify's scratch: the stream colours and numbers, one pool's
 * problem (sized for all the storages, so for the largest pool) and the
 * verifier's arrays. */
typedef struct pv_arrays {
    int32_t *color;
    uint64_t *streams;
    plan_buf *bufs;
    uint64_t *off;
    const char **names;
    void *vs;
    size_t vsize;
} pv_arrays;

static void pv_layout(plan_carver *c, const plan *pl, pv_arrays *w) {
    size_t n1 = (size_t)pl->nstorages + 1;
    plan_problem all = {pl->nstorages, NULL, 0, NULL};
    w->color = PLAN_CARVE(c, n1, int32_t);
    w->streams = PLAN_CARVE(c, (size_t)pl->prog->nstmts + 1, uint64_t);
    w->bufs = PLAN_CARVE(c, n1, plan_buf);
    w->off = PLAN_CARVE(c, n1, uint64_t);
    w->names = PLAN_CARVE(c, n1, const char *);
    w->vs =
        plan_carve_rest(c, plan_verify_problem_scratch_size(&all), &w->vsize);
}

static bool plan_verify_pools(const plan *pl, const pv_arrays *w, char *err,
                              size_t errlen);

/* Whether a storage of space `from` may be in space `to`: the same, or
 * reached along the spill= chain (at most nspaces steps: no cycle can
 * loop). */
static bool pp_space_reaches(const ir_program *p, const char *from,
                             const char *to) {
    for (uint32_t step = 0; step <= p->nspaces; step++) {
        if (pp_streq(from, to))
            return true;
        int32_t k = -1;
        for (uint32_t i = 0; from && i < p->nspaces; i++)
            if (strcmp(p->spaces[i].name, from) == 0)
                k = p->spaces[i].spill;
        if (k < 0)
            return false;
        from = p->spaces[k].name;
    }
    return false;
}

bool plan_verify(const plan *pl, char *err, size_t errlen) {
    plan_carver c = plan_carver_measure();
    pv_arrays w;
    pv_layout(&c, pl, &w);
    size_t bytes = c.used;
    void *scratch = plan_scratch_new(bytes);
    if (!scratch) {
        snprintf(err, errlen, "out of memory");
        return false;
    }
    c = plan_carver_of(scratch, bytes);
    pv_layout(&c, pl, &w);
    for (uint32_t s = 0; s < pl->nstorages; s++)
        w.color[s] = -1;
    if (pp_isolate(&pl->opts, pl->prog))
        pp_colors(pl->prog, pl->storage_of_value, w.color, w.streams);
    bool res = plan_verify_pools(pl, &w, err, errlen);
    free(scratch);
    return res;
}

/* Pool pi's storages as a problem in w (*k of them), each checked to
 * belong in the pool; false with the reason in err. */
static bool pv_pool_problem(const plan *pl, uint32_t pi, const pv_arrays *w,
                            uint32_t *k, char *err, size_t errlen) {
    const ir_program *p = pl->prog;
    const plan_pool *pool = &pl->pools[pi];
    *k = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        if (st->pool != (int32_t)pi)
            continue;
        const ir_value *v = &p->values[st->value];
        if (!pp_same_dev(v->device, pool->device) ||
            !pp_space_reaches(p, v->space, pool->space) ||
            !pp_streq(v->comm, pool->comm) ||
            !pp_streq(v->group, pool->group)) {
            snprintf(err, errlen,
                     "storage %s is in pool %s of another device, space "
                     "or communication group",
                     v->name, pool->name);
            return false;
        }
        if (st->is_output && !v->planned && v->next_of < 0 &&
            !pl->opts.plan_outputs &&
            pl->opts.memory_pool == PLAN_MP_INTERMEDIATES) {
            snprintf(err, errlen, "output %s is pooled", v->name);
            return false;
        }
        uint64_t va = plan_value_align(v);
        if (va > pool->base_align) {
            snprintf(err, errlen,
                     "pool %s's base is aligned to %llu but storage %s "
                     "needs align=%llu",
                     pool->name, (unsigned long long)pool->base_align, v->name,
                     (unsigned long long)va);
            return false;
        }
        w->bufs[*k] = (plan_buf){
            .size = st->size + pl->opts.guard_bytes, /* guards too */
            .align = va > pool->align ? va : pool->align,
            .start = st->start,
            .end = st->end,
            .color = w->color[s],
        };
        w->off[*k] = st->offset;
        w->names[(*k)++] = v->name;
    }
    return true;
}

static bool plan_verify_pools(const plan *pl, const pv_arrays *w, char *err,
                              size_t errlen) {
    const ir_program *p = pl->prog;
    /* every pool on its own */
    for (uint32_t pi = 0; pi < pl->npools; pi++) {
        const plan_pool *pool = &pl->pools[pi];
        if (pool->has_capacity && pool->size > pool->capacity) {
            snprintf(err, errlen,
                     "pool %s has %" PRIu64 " bytes, over the capacity %" PRIu64
                     " of its space",
                     pool->name, pool->size, pool->capacity);
            return false;
        }
        uint32_t k = 0;
        if (!pv_pool_problem(pl, pi, w, &k, err, errlen))
            return false;
        plan_problem pb = {k, w->bufs, pool->align, w->names};
        char sub[400];
        if (!plan_verify_problem_in(&pb, w->vs, w->vsize, w->off, pool->size,
                                    sub, sizeof sub)) {
            snprintf(err, errlen, "pool %s: %s", pool->name, sub);
            return false;
        }
    }
    /* aliases inside their storage */
    for (uint32_t v = 0; v < p->nvalues; v++) {
        const ir_value *val = &p->values[v];
        int32_t s = pl->storage_of_value[v];
        if (val->kind != IR_VAL_ALIAS || s < 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        if (val->byte_offset > st->size ||
            val->bytes > st->size - val->byte_offset) {
            snprintf(err, errlen,
                     "alias %s (bytes %" PRIu64 "..%" PRIu64
                     ") is outside its storage of %" PRIu64 " bytes",
                     val->name, val->byte_offset, val->byte_offset + val->bytes,
                     st->size);
            return false;
        }
    }
    return true;
}

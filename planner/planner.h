/*
 * planner/planner.h - memory planning: live ranges, pools, algorithms,
 * verifier.
 *
 * Two layers:
 *  1. The neutral problem (plan_problem): one pool's storages as
 *     (size, alignment, inclusive live interval [start, end]).  Every
 *     algorithm works on it, as does the CSV front end (minimalloc
 *     instances, `id,lower,upper,size` with [lower, upper) -> [lower,
 *     upper-1]).  Two storages conflict when their intervals overlap
 *     (inclusive) or when either carries a different non-negative
 *     `color` (see plan_buf.color).
 *  2. The program plan (plan_program): liveness with alias forwarding,
 *     pool split by (device, space, comm, group), memory-pool modes,
 *     stream isolation, one algorithm run per pool, the verifier, and the
 *     reuse/del events that code generation comments on.
 *
 * Determinism: every function here gives the same result for the same
 * input and options; nothing depends on time, addresses or hash order
 * (plan_search's --time-limit is a safety stop that is reported).
 */
#ifndef PLANWRAP_PLANNER_H
#define PLANWRAP_PLANNER_H

#include "ir/ir.h"
#include "planner/schedule.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* Layer 1: the neutral problem. */

typedef struct plan_buf {
    uint64_t size;  /* bytes; 0 = takes no space (offset 0) */
    uint64_t align; /* required alignment of the offset (power of two, >=1) */
    uint32_t start; /* first statement where it is live */
    uint32_t end;   /* last statement where it is live (inclusive) */
    /* Exact-reuse class for the `reuse` algorithm: two storages may
     * reuse each other's bytes only when their keys are equal (device,
     * dtype, elements, comm, group, stream: plan_program gives every
     * distinct tuple its own id, compared exactly, never hashed). */
    uint64_t reuse_key;
    /* Stream colour: -1 = none.  Buffers with different colours never
     * share bytes; colour -2 = "used on several streams": shares bytes
     * with nothing. */
    int32_t color;
} plan_buf;

typedef struct plan_problem {
    uint32_t n;
    plan_buf *bufs;
    uint64_t align;     /* pool alignment; every offset is a multiple */
    const char **names; /* optional, for messages (may be NULL) */
} plan_problem;

typedef enum plan_algo {
    PLAN_NAIVE,
    PLAN_REUSE,
    PLAN_TREE,
    PLAN_BESTFIT,
    PLAN_SEARCH,
    PLAN_AUTO, /* the default: bestfit, then search within a small budget */
} plan_algo;

/* "naive", "reuse", ...; parse returns false for unknown names. */
const char *plan_algo_name(plan_algo a);
bool plan_algo_parse(const char *s, plan_algo *out);

/* Max over time of the sum of live sizes (each rounded up to the pool's
 * alignment; a buffer's own larger alignment is not counted, as it does
 * not always cost padding), rounded up to the pool's alignment.  No valid
 * plan is smaller.  O(n log n).  Defined for every problem, even one that
 * fails plan_problem_ok: the sums are exact (no wrap-around) and the
 * result saturates at the largest multiple of the pool alignment that
 * fits in 64 bits (still a lower bound); a buffer with start > end is
 * live nowhere.  Returns 0 on out-of-memory (of its one scratch block),
 * which a caller cannot tell from a bound of 0: one that shows the bound
 * takes it from plan_lower_bound_status, which returns 0 and sets *lb,
 * or -1 on out-of-memory (*lb untouched).  plan_lower_bound_in, with the
 * caller's scratch, cannot fail. */
uint64_t plan_lower_bound(const plan_problem *pb);
int plan_lower_bound_status(const plan_problem *pb, uint64_t *lb);
size_t plan_lower_bound_scratch_size(const plan_problem *pb);
uint64_t plan_lower_bound_in(const plan_problem *pb, void *scratch,
                             size_t scratch_size);

/* Each algorithm fills offsets[0..n) and *size (the pool size, a multiple
 * of pb->align, at most PLAN_MAX_POOL_SIZE); returns 0, or -1 on
 * out-of-memory or when the problem fails plan_problem_ok (too large for
 * 64-bit arithmetic, or malformed).  O(...) per algorithm as documented
 * in its source file.  plan_naive also takes NULL offsets: the naive size
 * alone, with no array to fill. */
int plan_naive(const plan_problem *pb, uint64_t *offsets, uint64_t *size);
int plan_reuse(const plan_problem *pb, uint64_t *offsets, uint64_t *size);

/* Caller-provided scratch (docs/architecture.md, "Scratch"), as TensorFlow
 * Lite Micro's planner takes it: plan_X_scratch_size(pb) is the bytes
 * plan_X_in needs, computed from pb->n alone and never smaller for a
 * larger n (so one block sized for the largest of several problems
 * serves each of them); SIZE_MAX when that overflows size_t.  plan_X_in
 * takes a block of at least that many bytes, aligned as malloc's memory,
 * holding anything (it initialises what it reads), and cannot fail: pb
 * must pass plan_problem_ok (plan_X checks it) and the block must be
 * large enough (asserted).  plan_X is one malloc of the block, plan_X_in
 * and free: out of memory is its one failure besides plan_problem_ok.
 * Results are the same as plan_X's, byte for byte.  The algorithms not
 * listed here (tree, bestfit, search, auto) still allocate as they go. */
size_t plan_naive_scratch_size(const plan_problem *pb);
void plan_naive_in(const plan_problem *pb, void *scratch, size_t scratch_size,
                   uint64_t *offsets, uint64_t *size);
size_t plan_reuse_scratch_size(const plan_problem *pb);
void plan_reuse_in(const plan_problem *pb, void *scratch, size_t scratch_size,
                   uint64_t *offsets, uint64_t *size);
int plan_tree(const plan_problem *pb, uint64_t *offsets, uint64_t *size);
int plan_bestfit(const plan_problem *pb, uint64_t *offsets, uint64_t *size);
/* plan_bestfit (the same plan), and plan_lower_bound(pb) into
 * *lower_bound: bestfit's passes compute the bound anyway, so a caller
 * that needs both (`plan` reports it) does not pay for it twice.
 * Returns 0 or -1 as plan_bestfit (also when the bound's scratch cannot
 * be allocated). */
int plan_bestfit_lb(const plan_problem *pb, uint64_t *offsets, uint64_t *size,
                    uint64_t *lower_bound);

/* The progress of a running search, for a caller's display: the best
 * pool found so far, the lower bound, the steps and seconds since the
 * start; `done` on the last call, after which the display can be
 * cleared.  plan_search calls it after one second, then at most every
 * quarter of a second, and once with done when it called it before. */
typedef struct plan_search_progress {
    uint64_t best, lower_bound, steps;
    double secs;
    bool done;
} plan_search_progress;
typedef void (*plan_search_progress_fn)(void *ctx,
                                        const plan_search_progress *p);

typedef struct plan_search_opts {
    uint64_t budget;   /* search steps; 0 = default */
    uint64_t capacity; /* 0 = minimise; else find a plan of <= capacity */
    double time_limit; /* seconds, 0 = none (safety stop only) */
    plan_search_progress_fn progress; /* NULL: none; the planner prints
                                         nothing itself */
    void *progress_ctx;
    /* the budget the minimisation's schedule is cut for (the share of
     * each attempt); 0 = the default budget, with a first attempt at the
     * lower bound.  Independent of `budget`, so that a larger budget only
     * runs longer (planner/search.c). */
    uint64_t schedule;
    /* plan_lower_bound(pb) when the caller has it; 0 = unknown: the
     * best-fit start computes it (plan_bestfit_lb). */
    uint64_t lower_bound;
} plan_search_opts;

typedef struct plan_search_stats {
    uint64_t steps;
    uint64_t lower_bound;
    /* plan_lower_bound(pb) itself: lower_bound before the exact search
     * raised it (a proof that no plan fits below) */
    uint64_t problem_bound;
    uint64_t start_size; /* size of the best-fit start plan */
    bool optimal;        /* proved optimal (size == lower bound or
                            search space exhausted) */
    bool fits;           /* capacity mode: a plan within capacity found */
    bool infeasible;     /* capacity mode: proved none exists */
    bool budget_hit;
    bool time_limit_hit;
} plan_search_stats;

/* Anytime search (planner/search.c): always returns a valid plan, the
 * best found; starts from plan_bestfit.  Returns 0, or -1 on out-of-memory
 * or when pb fails plan_problem_ok (*st is zeroed).  Any capacity up to
 * UINT64_MAX is accepted: a capacity at or above the best-fit size is met
 * at once. */
int plan_search(const plan_problem *pb, const plan_search_opts *o,
                uint64_t *offsets, uint64_t *size, plan_search_stats *st);

/* `auto` (planner/auto.c): plan_bestfit, then, when that plan is above
 * the lower bound (or the capacity), plan_search from it within
 * o->budget steps or PLAN_AUTO_BUDGET when 0, its minimisation cut for
 * PLAN_AUTO_SCHEDULE steps (attempts of a quarter of it, descending
 * from the best-fit size).  Never larger than plan_bestfit; returns 0 or -1 as
 * plan_search. */
#define PLAN_AUTO_BUDGET 150000u
#define PLAN_AUTO_SCHEDULE 120000u
int plan_auto(const plan_problem *pb, const plan_search_opts *o,
              uint64_t *offsets, uint64_t *size, plan_search_stats *st);

/* The `auto` outcome of a pool as one line: which algorithm won, for
 * example "search won: 1025024 bytes (bestfit 1291264, lower bound
 * 986112, budget exhausted, 120000 of 120000 steps)" or "bestfit won: 4096
 * bytes (lower bound 4096, optimal)".  snprintf semantics. */
size_t plan_auto_describe(char *buf, size_t len, uint64_t size,
                          const plan_search_opts *o,
                          const plan_search_stats *st);

/* One line (no newline) describing a plan_search outcome for a pool of
 * `size` bytes, for the CLI: "fits in C bytes: N bytes (lower bound L,
 * optimal, S steps)", "does not fit: smallest found N bytes, lower bound
 * L, capacity C, searched S steps (proved infeasible|budget exhausted|
 * time limit hit)", or in minimisation "N bytes (best-fit B, lower bound
 * L, optimal|budget exhausted|..., S steps)".  snprintf semantics:
 * returns the length it needed. */
size_t plan_search_describe(char *buf, size_t len, uint64_t size,
                            const plan_search_opts *o,
                            const plan_search_stats *st);

/* Independent verifier: offsets aligned, no two conflicting buffers
 * sharing a byte, all inside `size`.  Returns true when the plan is valid;
 * otherwise writes a one-line reason into err (if non-NULL).  Accepts any
 * problem and any `size` up to UINT64_MAX (no PLAN_MAX_POOL_SIZE check)
 * and never wraps: a buffer whose offset + size passes `size`, or 2^64,
 * is rejected.  "out of memory" (of its one scratch block) is the one
 * verdict that is not about the plan; plan_verify_problem_in, with the
 * caller's scratch (the convention of plan_naive_in above, any problem
 * accepted), cannot fail. */
bool plan_verify_problem(const plan_problem *pb, const uint64_t *offsets,
                         uint64_t size, char *err, size_t errlen);
/* plan_verify_problem telling its verdicts apart: 1 valid, 0 not (the
 * reason in err), -1 out of memory (err "out of memory"), so that a
 * caller reports the last as what it is, not as a plan that does not
 * verify. */
int plan_verify_problem_status(const plan_problem *pb, const uint64_t *offsets,
                               uint64_t size, char *err, size_t errlen);
size_t plan_verify_problem_scratch_size(const plan_problem *pb);
bool plan_verify_problem_in(const plan_problem *pb, void *scratch,
                            size_t scratch_size, const uint64_t *offsets,
                            uint64_t size, char *err, size_t errlen);

/* Reads a minimalloc CSV (`id,lower,upper,size` header, one buffer a
 * row) into `pb` (allocated in `a`); ids go to pb->names.  Errors name
 * FILE:LINE:COL via `d`.  Returns false on error. */
bool plan_read_csv(base_arena *a, const char *filename, const char *text,
                   size_t len, plan_problem *pb, base_diag *d);

/* ------------------------------------------------------------------ */
/* Layer 2: planning a checked program. */

typedef enum plan_memory_pool {
    PLAN_MP_NONE,          /* every storage its own allocation (no pools) */
    PLAN_MP_INTERMEDIATES, /* intermediates pooled, outputs caller-owned */
    PLAN_MP_OUTPUTS,       /* outputs in their own pool, intermediates pooled */
    PLAN_MP_COMBINED,      /* outputs and intermediates in one pool */
} plan_memory_pool;

const char *plan_memory_pool_name(plan_memory_pool m);
bool plan_memory_pool_parse(const char *s, plan_memory_pool *out);

typedef enum plan_streams {
    PLAN_STREAMS_AUTO, /* isolate when any call has stream= */
    PLAN_STREAMS_ISOLATE,
    PLAN_STREAMS_SHARE,
} plan_streams;

typedef struct plan_options {
    plan_algo algo;               /* default PLAN_AUTO */
    uint64_t align;               /* 0 = 64 on cpu, 256 on cuda */
    plan_memory_pool memory_pool; /* default PLAN_MP_INTERMEDIATES */
    plan_streams streams;
    bool verify; /* always on in debug builds */
    plan_search_opts search;
    /* --order (default keep): the call order; not used by plan_program,
     * the CLI reorders the program first (planner/schedule.h) */
    plan_order order;
    /* bytes left unused right after every planned buffer (gen
     * --guard-bytes): planned as part of the buffer, so no other buffer
     * live at the same time overlaps them.  0 = none. */
    uint64_t guard_bytes;
    /* Firmware (docs/firmware.md): plan every input into the arena (as
     * `planned` does for one), and keep every output in it. */
    bool plan_inputs;
    bool plan_outputs;
} plan_options;

void plan_options_init(plan_options *o);

/* Runs o->algo on one pool's problem.  `capacity` (0 = none) is the
 * pool's capacity, combined with o->search.capacity (the smaller wins):
 * the search tries to fit it; other algorithms ignore it (the caller
 * checks the size).  With PLAN_SEARCH or PLAN_AUTO, *st (may be NULL)
 * gets the search's statistics; with PLAN_BESTFIT, st->lower_bound gets
 * plan_lower_bound(pb) (plan_bestfit_lb); with all three,
 * st->problem_bound gets plan_lower_bound(pb) (computed on the way by
 * bestfit's passes, so the caller need not compute it again); otherwise
 * *st is zeroed.  Returns 0,
 * or -1 on out-of-memory or when pb fails plan_problem_ok (every
 * algorithm checks it at entry). */
int plan_run(const plan_problem *pb, const plan_options *o, uint64_t capacity,
             uint64_t *offsets, uint64_t *size, plan_search_stats *st);
/* Whether plan_run of algorithm a sets st->problem_bound (bestfit and
 * the searches that start from it): then a caller takes the pool's lower
 * bound from there instead of computing it again. */
bool plan_run_reports_bound(plan_algo a);

typedef struct plan_pool {
    const char *name; /* C identifier, unique, deterministic */
    size_t name_len;  /* strlen(name), for the texts that print it */
    ir_device device;
    const char *space; /* NULL = default */
    const char *comm;  /* NULL = ordinary */
    const char *group;
    bool outputs;   /* the pool of outputs (PLAN_MP_OUTPUTS) */
    uint64_t align; /* every buffer's offset is a multiple of it */
    /* the alignment the pool's base must have: align, or the largest
     * align= of its buffers when larger (so that each buffer gets its own) */
    uint64_t base_align;
    uint64_t size;
    uint64_t lower_bound;
    uint64_t naive_size;
    bool has_capacity;
    uint64_t capacity;
    uint32_t nstorages;
    /* --algo search: plan_search_describe's line for this pool (in the
     * plan's arena), else NULL.  (Added by the planner engineer.) */
    const char *search_note;
    /* The layer-1 problem this pool was planned as (in the plan's arena;
     * buffers in alloc order), for plan --compare and pictures. */
    const plan_problem *problem;
} plan_pool;

/* One planned storage: an `alloc`, a `state`, or an input planned into
 * the arena (`planned`, --plan-inputs). */
typedef struct plan_storage {
    int32_t value; /* the root value id */
    int32_t pool;  /* pool index, -1 when not pooled (caller-owned
                      output, or PLAN_MP_NONE) */
    uint64_t offset;
    uint64_t size;   /* bytes */
    uint32_t start;  /* alloc statement */
    uint32_t end;    /* statement freeing its last name (inclusive);
                        the last statement when never freed/output */
    int32_t dies_at; /* statement at which it dies, -1 = never */
    bool is_output;
    bool spilled;         /* placed in a spill= space, not its own */
    int32_t reuse_of;     /* the storage that gave it most bytes (the
                             first of its donors on ties), -1 = none */
    uint32_t donor_begin; /* its donors: plan.donors[donor_begin ..  */
    uint32_t ndonors;     /*   donor_begin + ndonors), by offset */
    /* An unpooled storage held by the caller's memory of an output: the
     * first output naming the whole storage (its value id and position
     * among the outputs), else -1 (planner/ownership.c). */
    int32_t owner;
    int32_t owner_pos;
    const char *space; /* the space it is placed in: its value's, or the
                          one it spilled to (NULL = default) */
    uint64_t accessed; /* bytes of the call arguments naming it */
} plan_storage;

/* A byte range [lo, hi) of its pool that a storage takes from the
 * storage that last held it (planner/donors.c). */
typedef struct plan_donor {
    int32_t storage;
    uint64_t lo, hi;
} plan_donor;

/* An extra pool: the memory of one storage neither pooled nor held by
 * an output (planner/ownership.c).  Code generation places these after
 * the plan's pools. */
typedef struct plan_extra {
    uint32_t storage;
    uint64_t size;  /* the storage's size plus the guard bytes */
    uint64_t align; /* plan_value_align of its value */
} plan_extra;

/* The default alignment of a pool (--align overrides it): a cache line
 * on the CPU, the alignment of cudaMalloc on CUDA devices. */
#define PLAN_DEFAULT_ALIGN_CPU 64u
#define PLAN_DEFAULT_ALIGN_CUDA 256u

/* The alignment value v's storage needs of its own: its align= and the
 * item size of its dtype and of its views' dtypes (ir_value.item_align),
 * whichever is larger; the pool's alignment comes on top. */
static inline uint64_t plan_value_align(const ir_value *v) {
    return v->align > v->item_align ? v->align : v->item_align;
}

/* A pool's alignment: o->align when set, else the default for a CUDA
 * device (`cuda`) or the CPU. */
static inline uint64_t plan_pool_align(const plan_options *o, bool cuda) {
    return o->align ? o->align
           : cuda   ? PLAN_DEFAULT_ALIGN_CUDA
                    : PLAN_DEFAULT_ALIGN_CPU;
}

/* Cross-stream synchronisation tracks streams in 64-bit masks: bit 0 is
 * the caller's stream, so at most 63 context streams (with more, there is
 * no synchronisation: the CUDA target rejects such programs). */
#define PLAN_SYNC_BITS 64u
#define PLAN_MAX_STREAMS (PLAN_SYNC_BITS - 1u)

/* A call waits for stream `bit` (0: the caller's stream, SLOT+1: the
 * context stream of stream_ids[SLOT]) because of buffer `value`. */
typedef struct plan_wait {
    uint32_t bit;
    int32_t value;
} plan_wait;

/* Cross-stream synchronisation (planner/sync.c): the distinct stream=
 * numbers and, per statement i, its waits waits[wait_begin[i] ..
 * wait_begin[i + 1]) in stream order.  No waits without streams or with
 * more than PLAN_MAX_STREAMS of them. */
typedef struct plan_sync {
    uint32_t nstreams;
    const uint64_t *stream_ids; /* ascending; NULL without streams */
    uint32_t nwaits;
    plan_wait *waits;
    uint32_t *wait_begin; /* nstmts + 1 entries; NULL when no waits are
                             tracked (then nwaits is 0) */
} plan_sync;

typedef struct plan {
    const ir_program *prog;
    plan_options opts;
    uint32_t npools;
    plan_pool *pools;
    uint32_t nstorages;
    plan_storage *storages;     /* in alloc order */
    int32_t *storage_of_value;  /* value id -> storage id of its root, -1 */
    bool search_time_limit_hit; /* reported by plan_search */
    const plan_sync *sync;      /* plan_program sets it */
    uint64_t accessed;          /* accessed bytes of all pooled storages */
    uint32_t ndonors;           /* the donors of every storage, by */
    plan_donor *donors;         /*   storage then offset */
    uint32_t nextras;           /* the extra pools, in storage order */
    plan_extra *extras;
} plan;

/* The alignment of extra pool e for a CUDA target (`cuda`) or the C
 * target: the target's default pool alignment (--align overrides it), or
 * the value's own (plan_value_align) when larger. */
static inline uint64_t plan_extra_align(const plan *pl, const plan_extra *e,
                                        bool cuda) {
    uint64_t d = plan_pool_align(&pl->opts, cuda);
    return e->align > d ? e->align : d;
}

/* Output value val is a planned output (docs/firmware.md): an alloc kept
 * in the pools in intermediates mode (`planned`, --plan-outputs), read
 * by the caller there: nothing copied.  A next= output is not (it is
 * copied to the caller's output). */
bool plan_planned_output(const plan *pl, int32_t val);

/* Plans a checked program.  Allocates in `a`.  Errors (a pool over its
 * space capacity, verifier failure, out of memory) are reported to `d`
 * and give NULL.  (Only `a` itself, an arena, ends the process when it
 * cannot grow, as every arena does: base_oom.) */
plan *plan_program(base_arena *a, const ir_program *p, const plan_options *o,
                   base_diag *d);

/* The cross-stream synchronisation of a plan (plan_program records it in
 * pl->sync; it reads each call's ir_stmt.kernel), allocated in `a`.  O(n) plus
 * a sort of the stream numbers. */
const plan_sync *plan_sync_build(base_arena *a, const plan *pl);
/* The stream bit of call s (0 without stream=). */
uint32_t plan_sync_bit(const plan_sync *sy, const ir_stmt *s);

/* Verifies a whole program plan (every pool with plan_verify_problem,
 * aliases inside their storage, comm isolation). */
bool plan_verify(const plan *pl, char *err, size_t errlen);

/* ------------------------------------------------------------------ */
/* Additions (planner engineer). */

/* Inductor's AllocationTree with its list of pools (planner/tree.c), for
 * the conformance cases: outputs (is_output may be NULL) are placed
 * first as Inductor's `memory_pool` mode `mode` does, then the other
 * buffers, first fit over the pools, only the last one growing.  Fills
 * offsets[i] (inside its sub-pool), subpool[i] (UINT32_MAX for zero-size
 * buffers), subpool_size[0..*nsubpools) (Inductor's unrounded pool
 * sizes, saturating at UINT64_MAX; arrays of n entries).  Returns 0 or -1
 * (out of memory, or pb fails plan_problem_ok). */
int plan_tree_pools(const plan_problem *pb, const bool *is_output,
                    plan_memory_pool mode, uint64_t *offsets, uint32_t *subpool,
                    uint64_t *subpool_size, uint32_t *nsubpools);

/* The build-time report of one memory space (docs/firmware.md): what
 * `plan` prints and the generated header's comment shows. */
typedef struct plan_space_report {
    const char *name;  /* NULL: the default space */
    const char *spill; /* its spill= space, NULL when none */
    uint64_t size;     /* the sum of its pools' sizes */
    bool has_capacity;
    uint64_t capacity;
    uint64_t headroom;  /* capacity - size (0 without a capacity) */
    uint32_t nspilled;  /* storages this space's selection moved to its
                           spill= space (declared here or received) */
    uint32_t nreceived; /* storages moved here from the spaces before */
    uint64_t accessed;  /* accessed bytes of the storages placed here */
    uint32_t npermille; /* accessed * 1000 / pl->accessed, rounded down */
} plan_space_report;

/* One report per memory space that has a pool, a capacity or spilled
 * storages: the default space first, then the declared ones in order.
 * Returns the count; *out is allocated in `a`. */
uint32_t plan_space_reports(const plan *pl, base_arena *a,
                            plan_space_report **out);

/* Spill selection for one pool whose space has a capacity and a spill=
 * space (planner/spill.c, docs/firmware.md): keep[i] tells whether
 * buffer i stays, offsets[i] its offset when it does, *size the pool
 * size (a multiple of pb->align, at most `capacity`).  Chooses to keep
 * as many accessed bytes (access[i] per buffer) as it can with a total
 * (this pool and the spilled buffers, planned with the better of best
 * fit and first fit by size) no larger than plan_spill_banked's: so
 * never fewer accessed bytes kept nor a larger total than the banked
 * greedy.  Never fails for lack of room (keeping nothing fits).
 * Returns 0, or -1 on out of memory or when pb fails plan_problem_ok. */
int plan_spill_select(const plan_problem *pb, const uint64_t *access,
                      uint64_t capacity, bool *keep, uint64_t *offsets,
                      uint64_t *size);

/* The spilled buffers (spilled[i]) planned as plan_spill_select counts
 * them in its totals: the better of best fit and first fit by size
 * descending (ties: best fit).  offsets[i] of the others untouched.
 * Returns 0, or -1 on out of memory or when pb fails plan_problem_ok. */
int plan_spill_slow(const plan_problem *pb, const bool *spilled,
                    uint64_t *offsets, uint64_t *size);

/* A banked greedy on two banks, written from the description of
 * ExecuTorch's `banked_greedy` (PR #21821; no code copied): buffers by
 * size descending (then index), each at the lowest aligned offset of the
 * fast bank where it conflicts with no buffer placed there and ends
 * within `capacity` (fast[i] true), else at the lowest such offset of
 * the slow bank, which has no capacity.  offsets[i] is in buffer i's
 * bank; the banks' sizes are multiples of pb->align.  The reference of
 * plan_spill_select and of bench/firmware.  Returns 0, or -1 on out of
 * memory or when pb fails plan_problem_ok. */
int plan_spill_banked(const plan_problem *pb, uint64_t capacity, bool *fast,
                      uint64_t *offsets, uint64_t *fast_size,
                      uint64_t *slow_size);
/* The same with the caller's scratch (the convention of plan_naive_in;
 * pb must pass plan_problem_ok): cannot fail. */
size_t plan_spill_banked_scratch_size(const plan_problem *pb);
void plan_spill_banked_in(const plan_problem *pb, void *scratch,
                          size_t scratch_size, uint64_t capacity, bool *fast,
                          uint64_t *offsets, uint64_t *fast_size,
                          uint64_t *slow_size);

/* The largest pool planwrap plans: sizes and offsets are printed as
 * signed 64-bit JSON integers, and the algorithms sum sizes. */
#define PLAN_MAX_POOL_SIZE ((uint64_t)INT64_MAX)

/* Checks, before planning, that the naive plan of `pb` (every buffer at
 * its own aligned offset, in order) fits in PLAN_MAX_POOL_SIZE bytes, which
 * keeps the algorithms' offsets and size sums well inside 64 bits.  Returns
 * UINT32_MAX when it fits, else the index of the first buffer that
 * does not.  O(n).  (Added by the planner reviewer.) */
uint32_t plan_first_oversize(const plan_problem *pb);

/* The precondition of every layer-1 algorithm: the pool alignment and
 * every buffer's alignment are 0, 1 or a power of two, every buffer has
 * start <= end, and plan_first_oversize(pb) == UINT32_MAX.  plan_naive,
 * plan_reuse, plan_tree, plan_tree_pools, plan_bestfit and plan_search
 * (so plan_run too) check it at entry and return -1 when it fails,
 * without computing anything (offsets and size are left untouched): then
 * every offset, size and sum they compute stays below 2^64 and their
 * pools within PLAN_MAX_POOL_SIZE.  O(n). */
bool plan_problem_ok(const plan_problem *pb);

#endif /* PLANWRAP_PLANNER_H */

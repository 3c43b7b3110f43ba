/*
 * planner/schedule.h - memory-aware operator ordering (docs/schedule.md).
 *
 * A checked program's calls form a dependency graph (plan_sched_graph):
 * a call reads its `in`/`inout` buffers and writes its `out`/`inout`
 * ones (every buffer argument is `inout` without a signature); aliases
 * name their storage; read-after-write, write-after-read and
 * write-after-write on a storage are edges; calls that touch a
 * communication buffer keep their relative order; the first call using a
 * planned storage (its "definer") precedes every other user.  Any
 * topological order of the graph computes the same values.
 *
 * The memory model: a planned storage (an `alloc`) is live from its
 * definer to its last user (outputs and storages never freed: to the
 * end); inputs and constants are caller memory and cost nothing.  The
 * peak of an order is the largest sum of live bytes while a call runs.
 *
 * Orders: `keep` (the given one), Inductor's three topological sorts
 * (`lpmf`, `bfs`, `dfs`, torch/_inductor/memory.py), XLA's list
 * scheduler (`list`) and `best` (ours: never worse than any of those,
 * exact search over ready sets per segment between cut points, beam
 * search within a budget otherwise, then a bounded local search).
 *
 * Determinism: every function gives the same result for the same input
 * and options; nothing depends on time, addresses or hash order.
 */
#ifndef PLANWRAP_SCHEDULE_H
#define PLANWRAP_SCHEDULE_H

#include "ir/ir.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum plan_order {
    PLAN_ORDER_KEEP,
    PLAN_ORDER_LPMF,
    PLAN_ORDER_BFS,
    PLAN_ORDER_DFS,
    PLAN_ORDER_LIST,
    PLAN_ORDER_BEST,
    PLAN_ORDER_PARTITIONS,
    PLAN_ORDER_COUNT
} plan_order;

/* "keep", "lpmf", "bfs", "dfs", "list", "best", "partitions"; parse
 * returns false for other names. */
const char *plan_order_name(plan_order o);
bool plan_order_parse(const char *s, plan_order *out);

/* The dependency graph and memory model of a program's calls.  Node i is
 * the i-th call in the given order; arrays in CSR form (x_off has n + 1
 * entries).  Owned by the caller: plan_sched_graph_free. */
typedef struct plan_sched_graph {
    uint32_t n;                /* nodes (calls) */
    uint32_t nstor;            /* storages (root values: input, const, alloc) */
    uint32_t *pred_off, *pred; /* predecessors, ascending, no duplicates */
    uint32_t *succ_off, *succ; /* successors, ascending */
    uint32_t *use_off, *use;   /* storages each node touches, ascending */
    uint8_t *use_mode;         /* per use: bit 0 read, bit 1 write */
    uint32_t *user_off, *user; /* nodes touching each storage, ascending */
    uint64_t *size;            /* bytes of each storage (0: caller memory) */
    int32_t *def;              /* definer node of each storage, -1 */
    bool *keep;                /* live to the end (output, never freed) */
    bool *comm;                /* communication storage */
    uint64_t *alloc;           /* per node: bytes of the storages it defines */
    bool *nocapture;           /* per node: its kernel is `nocapture` */
    uint64_t base;             /* bytes of kept storages no call touches */
    uint64_t unused_max;       /* largest other storage no call touches */
    /* from a program: the statement of each node, the root value of each
     * storage (NULL for a graph built with plan_sched_graph_new) */
    uint32_t *stmt;
    int32_t *root;
} plan_sched_graph;

/* Builds the graph of a checked program.  NULL on out of memory. O(n +
 * uses log uses + edges log edges). */
plan_sched_graph *plan_sched_graph_build(const ir_program *p);

/* A graph from raw parts, for tests and benchmarks: node i touches
 * storages use[use_off[i] .. use_off[i+1]) with modes use_mode (bit 0
 * read, bit 1 write); sizes and keep flags per storage.  Dependencies
 * are derived as for a program (no communication storages).  NULL on out
 * of memory. */
plan_sched_graph *plan_sched_graph_new(uint32_t n, uint32_t nstor,
                                       const uint32_t *use_off,
                                       const uint32_t *use,
                                       const uint8_t *use_mode,
                                       const uint64_t *size, const bool *keep);
void plan_sched_graph_free(plan_sched_graph *g);

/* Peak live bytes of `order` (a permutation of the nodes; not checked).
 * O(n + uses). */
uint64_t plan_sched_peak(const plan_sched_graph *g, const uint32_t *order);

/* Independent verifier: `order` is a permutation of the nodes and, for
 * every storage, each read stays between the same two writes and the
 * writes keep their order (checked from the accesses, not from the
 * edges); calls touching communication storages keep their order.
 * Returns true when it holds; otherwise writes a reason into err (if
 * non-NULL).  O(n + uses). */
bool plan_sched_verify(const plan_sched_graph *g, const uint32_t *order,
                       char *err, size_t errlen);

/* The default budget of `best`: PLAN_SCHED_BUDGET_BASE steps plus
 * PLAN_SCHED_BUDGET_PER_NODE per node (call). */
#define PLAN_SCHED_BUDGET_BASE 4000000u
#define PLAN_SCHED_BUDGET_PER_NODE 2000u

typedef struct plan_sched_opts {
    /* `best`: search steps (state expansions and move evaluations);
     * 0 = the default (PLAN_SCHED_BUDGET_BASE + _PER_NODE per node). */
    uint64_t budget;
} plan_sched_opts;

typedef struct plan_sched_stats {
    uint64_t peak_given;               /* peak of the given order */
    uint64_t peak[PLAN_ORDER_COUNT];   /* per order computed (else 0) */
    bool ran[PLAN_ORDER_COUNT];        /* which orders were computed */
    plan_order winner;                 /* the order returned */
    const char *won_by;                /* best: the method that gave it */
    uint64_t steps;                    /* best: steps used */
    uint32_t segments, exact_segments; /* best: segments, solved exactly */
    uint32_t parts_given, parts;       /* runs of capturable calls */
} plan_sched_stats;

/* Computes order `alg` into order[0..n).  For PLAN_ORDER_BEST the four
 * baselines and the given order run too (their peaks in *st) and the
 * result is never worse than any of them.  Returns 0, or -1 on out of
 * memory.  Deterministic. */
int plan_sched_order(const plan_sched_graph *g, plan_order alg,
                     const plan_sched_opts *o, uint32_t *order,
                     plan_sched_stats *st);

/* The four baselines (planner/sched_base.c); each returns 0 or -1. */
int plan_sched_lpmf(const plan_sched_graph *g, uint32_t *order);
int plan_sched_bfs(const plan_sched_graph *g, uint32_t *order);
int plan_sched_dfs(const plan_sched_graph *g, uint32_t *order);
int plan_sched_list(const plan_sched_graph *g, uint32_t *order);

/* Inductor's reorder_for_minimizing_partition: a breadth-first sort with
 * two queues by given position, draining the `nocapture` calls first,
 * then the capturable ones, in turns; the fewest runs of capturable calls
 * (CUDA graphs).  plan_sched_order keeps the given order instead when the
 * peak would grow more than 1.1 times (maybe_reorder_for_minimizing_
 * partition).  Returns 0 or -1. */
int plan_sched_partitions(const plan_sched_graph *g, uint32_t *order);

/* The number of maximal runs of capturable calls in `order`. */
uint32_t plan_sched_count_partitions(const plan_sched_graph *g,
                                     const uint32_t *order);

/* Rewrites `p` (checked) in the node order `order` of its graph `g`:
 * declarations first (model, spaces, kernels, inputs, constants, with
 * `device` lines where needed), storages no call touches next, then the
 * calls, each preceded by the allocs and aliases of the storages it is
 * the first to touch and followed by one `free` of the names whose
 * storage it is the last to touch; the output statement last (frees of
 * output names after it).  Statements keep their source locations and
 * comments (a comment on a line that moves goes with it).  The result
 * (in `a`) is checked with ir_check into `d`; NULL when that fails (a
 * bug) or on out of memory.  It shares p's interned names, so p's
 * checker generation (p->check_gen) advances. */
ir_program *plan_sched_rewrite(base_arena *a, const ir_program *p,
                               const plan_sched_graph *g, const uint32_t *order,
                               base_diag *d);

/* Reorders a checked program with `alg` (plan_sched_graph_build,
 * plan_sched_order, plan_sched_verify, plan_sched_rewrite); with
 * PLAN_ORDER_KEEP only allocs and frees move.  Errors (a failed verification,
 * out of memory) are reported to `d` and give NULL.  *st may be NULL. */
ir_program *plan_sched_program(base_arena *a, const ir_program *p,
                               plan_order alg, const plan_sched_opts *o,
                               base_diag *d, plan_sched_stats *st);

#endif /* PLANWRAP_SCHEDULE_H */

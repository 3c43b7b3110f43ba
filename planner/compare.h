/*
 * planner/compare.h - what other allocators would need for the same
 * program (`planwrap plan --compare`, docs/planning.md).
 *
 * Simulations of other planners and allocators on a layer-1 problem
 * (planner/planner.h): PyTorch's CUDA caching allocator replaying the
 * alloc/free events (compare_caching.c), TFLite Micro's greedy planner
 * and ExecuTorch's greedy planner (compare_greedy.c).  Facts learned from
 * their public sources; no code copied.  Deterministic; no global state.
 */
#ifndef PLANWRAP_COMPARE_H
#define PLANWRAP_COMPARE_H

#include "planner/planner.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* PyTorch's CUDA caching allocator (CUDACachingAllocator.cpp), default
 * settings, one stream, nothing returned to the device.  The problem's
 * buffers are requests: buffer i is allocated at time start and freed
 * after time end (at each time, the allocations starting then come
 * before the frees ending then; a zero-size buffer makes no request).
 *
 *  - a request is rounded up to a multiple of 512 bytes (at least 512);
 *  - up to 1 MiB it is served from the small pool, above from the large;
 *  - the free block chosen is the smallest of its pool that fits, the
 *    lowest address among equal sizes (segments get increasing addresses
 *    in creation order);
 *  - with none, a segment is reserved: 2 MiB for a small request, 20 MiB
 *    for a request below 10 MiB, else the request rounded up to 2 MiB;
 *  - a block is split when the remainder is at least 512 bytes (small
 *    pool) or more than 1 MiB (large pool); otherwise the whole block is
 *    allocated (and counted as allocated);
 *  - a freed block merges with the free neighbours of its segment.
 *
 * O(n log n + n * F), F the number of free blocks. */

#define PLAN_CA_ROUND 512u
#define PLAN_CA_SMALL_SIZE (UINT64_C(1) << 20)       /* 1 MiB */
#define PLAN_CA_SMALL_BUFFER (UINT64_C(2) << 20)     /* 2 MiB */
#define PLAN_CA_LARGE_BUFFER (UINT64_C(20) << 20)    /* 20 MiB */
#define PLAN_CA_MIN_LARGE_ALLOC (UINT64_C(10) << 20) /* 10 MiB */
#define PLAN_CA_ROUND_LARGE (UINT64_C(2) << 20)      /* 2 MiB */

typedef struct plan_ca_stats {
    uint64_t allocated_peak; /* highest sum of allocated block sizes */
    uint64_t reserved_peak;  /* bytes of all segments (never released) */
    uint32_t segments;       /* segments reserved (cudaMalloc calls) */
} plan_ca_stats;

/* The order in which the buffers freed at one time are freed. */
typedef enum plan_ca_free_order {
    PLAN_CA_FREE_IN_ORDER, /* buffer index order */
    /* The seed article's proposal: first the buffer whose block has the
     * most free bytes around it (its free neighbours in its segment),
     * recomputed after each free; ties in index order. */
    PLAN_CA_FREE_MOST_SPACE_FIRST,
} plan_ca_free_order;

/* Replays pb's events through the caching allocator.  Returns 0, or -1 on
 * out of memory (or a request past 2^63 bytes). */
int plan_caching_allocator(const plan_problem *pb, plan_ca_free_order order,
                           plan_ca_stats *st);

/* ------------------------------------------------------------------ */
/* Greedy planners (compare_greedy.c).  Both fill offsets and *size like
 * the algorithms of planner.h (a pool size that is a multiple of
 * pb->align), plan every colour class on its own (stacked), and return
 * 0, or -1 on out of memory or when pb fails plan_problem_ok.  A buffer's
 * size counts rounded up to its alignment (as the callers of both
 * planners align sizes before planning). */

/* TFLite Micro's GreedyMemoryPlanner: buffers in order of size descending
 * (stable: equal sizes in index order); each goes into the first gap, in
 * offset order, between the placed buffers that overlap it in time, big
 * enough for it, or after the last of them.  O(n^2). */
int plan_tflm_greedy(const plan_problem *pb, uint64_t *offsets, uint64_t *size);

/* ExecuTorch's greedy planner (exir/memory_planning.py, `greedy` with
 * `pick_shared_obj` by closest size): buffers in order of start (ties in
 * index order); each takes the shared object, among those whose last use
 * is before its start, with the size closest to its own (the first on
 * ties), growing it if needed, or a new object; objects are then laid out
 * one after the other.  As in ExecuTorch, every object that is the best
 * so far during the scan has its last use and size updated, even when a
 * later one is closer.  O(n * objects). */
int plan_executorch_greedy(const plan_problem *pb, uint64_t *offsets,
                           uint64_t *size);

/* ------------------------------------------------------------------ */
/* One pool's comparison. */

typedef struct plan_compare {
    uint64_t planwrap; /* the pool's own size */
    uint64_t naive;
    uint64_t inductor_reuse;
    uint64_t tflm_greedy;
    uint64_t executorch_greedy;
    bool has_caching; /* false for a communication pool */
    plan_ca_stats caching;
    plan_ca_stats caching_article; /* PLAN_CA_FREE_MOST_SPACE_FIRST */
} plan_compare;

/* Runs every comparison on one pool's problem (`own` is planwrap's pool
 * size; `caching` false skips the caching allocator, for communication
 * buffers).  Every plan of naive, reuse and the greedy planners is proved
 * by the verifier.  Returns 0; -1 on out of memory (the verifier's
 * too); -2 when a simulated plan does not verify (an internal error,
 * described in err). */
int plan_compare_problem(const plan_problem *pb, uint64_t own, bool caching,
                         plan_compare *out, char *err, size_t errlen);

/* plan_compare_problem on pool `pool` of a program plan (communication
 * pools without the caching allocator). */
int plan_compare_pool(const plan *pl, uint32_t pool, plan_compare *out,
                      char *err, size_t errlen);

#endif /* PLANWRAP_COMPARE_H */

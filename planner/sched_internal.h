/*
 * planner/sched_internal.h - helpers shared by the scheduling files
 * (planner/sched_*.c); not part of the public API.
 */
#ifndef PLANWRAP_SCHED_INTERNAL_H
#define PLANWRAP_SCHED_INTERNAL_H

#include "planner/schedule.h"

#include <stddef.h>
#include <stdint.h>

/* The storages node v touches, as a range of g->use. */
#define SCHED_USES(g, v, k)                                                    \
    for (uint32_t k = (g)->use_off[v]; k < (g)->use_off[(v) + 1]; k++)

/* Per storage: users other than its definer, plus one when it is kept to
 * the end (Inductor's outdegree, XLA's unscheduled use count).  The array
 * is malloc'ed; NULL on out of memory. */
uint32_t *plan_sched_outdegree(const plan_sched_graph *g);

/* Memory after each step of `order` and before it: prof[t] is the live
 * bytes while order[t] runs.  Returns the peak. */
uint64_t plan_sched_profile(const plan_sched_graph *g, const uint32_t *order,
                            uint64_t *prof);

/* The exact and beam search of `best` over one segment (sched_beam.c):
 * nodes seg[0..m) (a set closed under the graph's order between two cut
 * points, given in some valid order), everything scheduled before them
 * given by `done` (per node), memory `mem0` live at the start.  Writes
 * the order found into out[0..m) and its peak into *peak; *exact is set
 * when no state was pruned (then the order is optimal).  `width` bounds
 * the states kept per step; *steps counts expansions.  Returns 0 or -1
 * (out of memory). */
int plan_sched_beam(const plan_sched_graph *g, const uint32_t *seg, uint32_t m,
                    const uint8_t *done, uint64_t mem0, uint32_t width,
                    uint32_t *out, uint64_t *peak, bool *exact,
                    uint64_t *steps);

/* A deterministic 64-bit mixer (splitmix64). */
static inline uint64_t plan_sched_mix(uint64_t x) {
    x += 0x9e3779b97f4a7c15u;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    return x ^ (x >> 31);
}

#endif /* PLANWRAP_SCHED_INTERNAL_H */

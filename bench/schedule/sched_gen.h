/*
 * bench/schedule/sched_gen.h - random irregular graphs for the schedule
 * benchmark and the property tests (tests/planner/test_schedule.c).
 *
 * A generated graph is a DAG of calls; call i writes its own storage i
 * (an `out`) and reads the storages of its inputs.  Calls are numbered in
 * breadth-first order (Kahn's algorithm, FIFO, sources by index): the
 * order a naive exporter writes.  Deterministic for a seed.
 */
#ifndef PLANWRAP_SCHED_GEN_H
#define PLANWRAP_SCHED_GEN_H

#include "planner/schedule.h"

#include <stdint.h>

typedef enum sgen_kind {
    SGEN_RANDWIRE, /* small-world (Watts-Strogatz) DAG, RandWire-style */
    SGEN_NAS,      /* stacked NAS-style cells */
    SGEN_FUSED,    /* fused-read chains: r buffers, then one reader */
    SGEN_RANDOM,   /* layered random DAG, for property tests */
    SGEN_KIND_COUNT
} sgen_kind;

const char *sgen_name(sgen_kind k);

typedef struct sgen_graph {
    uint32_t n;
    uint32_t *in_off, *in; /* inputs of each call (CSR), call ids < i */
    uint64_t *size;        /* bytes of each call's storage */
    bool *output;          /* storage kept to the end */
} sgen_graph;

/* Generates about `n` calls (at least 2).  false on out of memory. */
bool sgen_make(sgen_kind k, uint32_t n, uint64_t seed, sgen_graph *out);
void sgen_free(sgen_graph *g);

/* The dependency graph of a generated graph.  With `inout_every` > 0,
 * every inout_every-th call also writes its first input in place (an
 * `inout`: WAR and WAW edges).  NULL on out of memory. */
plan_sched_graph *sgen_sched_graph(const sgen_graph *g, uint32_t inout_every);

#endif /* PLANWRAP_SCHED_GEN_H */

/*
 * planner/search_internal.h - the exact search of `search` (not part of
 * the public API), shared by its three files:
 *
 *  - search_setup.c: one colour class as a search problem (sections,
 *    partitions, overlaps, preorder ranks);
 *  - search_core.c: the depth-first search over canonical solutions and
 *    its undo trail (one node is one step);
 *  - search.c: the driver (colour classes, minimisation and capacity
 *    schedules, the large-neighbourhood pass, statistics).
 *
 * The algorithm is described in planner/search.c and docs/search.md.
 */
#ifndef PLANWRAP_SEARCH_INTERNAL_H
#define PLANWRAP_SEARCH_INTERNAL_H

#include "plan_internal.h"

#include <time.h>

#define SEARCH_MAX_PART 2048u
/* adjacency entries (2 per overlapping pair) over all searchable parts */
#define SEARCH_MAX_EDGES 4000000u
#define NHEUR 3
#define UNPLACED UINT64_MAX
/* section totals are also kept per block of SEARCH_BLK sections (their
 * maximum), for the room test of search_core.c */
#define SEARCH_BLK_SHIFT 4u
#define SEARCH_BLK (1u << SEARCH_BLK_SHIFT)

enum { R_FOUND = 1, R_NONE = 0, R_ABORT = -1, R_OOM = -2 };

typedef struct tr_ent {
    uint64_t *p;
    uint64_t old;
} tr_ent;

typedef struct cand {
    uint64_t off;
    uint32_t rank;
    uint32_t id;
} cand;

typedef struct part {
    uint32_t s0, s1;   /* section range [s0, s1) */
    uint32_t beg, cnt; /* members: pmem[beg .. beg+cnt) */
    uint64_t lb;       /* max section total (a proven lower bound) */
    bool searchable;
} part;

typedef struct rk {
    uint64_t k[3];
    uint32_t id;
} rk;

/* One colour class, as a search problem with local buffer ids. */
typedef struct sr {
    uint32_t m;
    uint64_t *size; /* rounded up to the pool alignment */
    uint64_t *align;
    uint32_t *slo, *shi;
    uint32_t nsec;
    uint32_t *adj_beg, *adj;     /* time overlaps, CSR (searchable parts) */
    uint32_t *sec_beg, *sec_mem; /* members of each section, CSR */
    uint64_t *width;             /* lifespan in statements */
    uint64_t *rank; /* working ranks of the current heuristic (trailed) */
    int heur;
    uint64_t seed;  /* perturbs the preorder keys (0: none) */
    uint64_t work;  /* buffers and sections scanned, not yet counted */
    struct rk *rks; /* scratch for re-ranking */
    uint32_t npart;
    part *parts;
    uint32_t *pmem;
    uint64_t gran; /* every height is a multiple of it */
    bool uniform;  /* every buffer has the same alignment */

    /* search state */
    uint64_t *off, *minoff, *floor, *total, *cut;
    uint64_t *bmax; /* per block of SEARCH_BLK sections: the largest total */
    uint64_t cap;
    tr_ent *trail;
    size_t ntrail, captrail;
    uint32_t *stk;
    size_t nstk, capstk;
    cand *cst;
    size_t ncst, capcst;
    uint32_t *chg;   /* scratch: buffers whose minimum offset rose */
    uint64_t *watch; /* per section: an unplaced buffer at its floor */
    uint64_t *wcnt;  /* per buffer: sections it is the watch of */

    /* the current best layout of the class */
    uint64_t *best;
} sr;

/* Shared by every class of one plan_search call. */
typedef struct ctl {
    uint64_t steps, limit, budget_end;
    uint64_t nodes;    /* search nodes (a step counts work too) */
    uint64_t schedule; /* plan_search_opts.schedule */
    double time_limit;
    bool timed_out;
    plan_search_progress_fn progress;
    void *progress_ctx;
    double t0;        /* base_now() at the start */
    double last_call; /* seconds of the last progress call, 0: none */
    uint64_t show_best, show_lb;
    uint64_t luby_runs; /* Luby runs so far, every attempt and class */
    uint64_t probe;     /* > 0: one run per preorder of probe_order, each
                           within `probe` steps, instead of restarts */
} ctl;

/* search_setup.c: builds the search problem of the buffers ids[0..m) of
 * pb (all of size > 0 and of one colour class) with start layout
 * start[0..m).  Returns 0 or -1 (out of memory; the caller still calls
 * plan_sr_free). */
int plan_sr_init(sr *s, const plan_problem *pb, const uint32_t *ids, uint32_t m,
                 const uint64_t *start);
void plan_sr_free(sr *s);
/* The preorder keys of buffer i under heuristic h, from the current
 * section totals. */
void plan_sr_keys(const sr *s, int h, uint32_t i, rk *out);
int plan_sr_rk_cmp(const void *a, const void *b);

/* search_core.c: tries to bring every partition to height <= cap (on
 * R_FOUND the layout is in s->best); R_NONE proves that none exists,
 * R_ABORT: out of steps (c->budget_end) or time, R_OOM. */
int plan_sr_attempt(sr *s, ctl *c, uint64_t cap);
/* The height of s->best over partition p / over the class; of a layout
 * `off` of the class (sizes rounded up to the pool alignment). */
uint64_t plan_sr_part_height(const sr *s, const part *p);
uint64_t plan_sr_height(const sr *s);
uint64_t plan_sr_height_of(const sr *s, const uint64_t *off);

/* search.c: called every 1024 steps: false when the time limit is hit
 * (c->timed_out); reports progress. */
bool plan_sr_tick(ctl *c);

#endif /* PLANWRAP_SEARCH_INTERNAL_H */

/*
 * planner/plan_internal.h - helpers shared by the planner's source files
 * (not part of the public API).
 */
#ifndef PLANWRAP_PLAN_INTERNAL_H
#define PLANWRAP_PLAN_INTERNAL_H

#include "base/base.h"
#include "planner/planner.h"

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

/* ---- caller-provided scratch (docs/architecture.md, "Scratch") ----
 *
 * An algorithm's working arrays come from one block that its caller
 * provides, as TensorFlow Lite Micro's planner takes its scratch:
 * plan_X_scratch_size(pb) is the block's size, plan_X_in(pb, scratch,
 * scratch_size, ...) carves its arrays from the block and cannot fail,
 * and plan_X mallocs the block, calls plan_X_in and frees it (its one
 * failure).  An algorithm describes its arrays once, in a layout function
 * over a plan_carver: run on a measuring carver it gives the size, on a
 * block it gives the arrays, so that the two cannot disagree.  Every array
 * starts at a multiple of PLAN_SCRATCH_ALIGN from the block's start (the
 * block itself must be so aligned: malloc's memory is).  A block may hold
 * anything: plan_X_in initialises every array it reads. */
#define PLAN_SCRATCH_ALIGN ((size_t) _Alignof(max_align_t))
_Static_assert((PLAN_SCRATCH_ALIGN & (PLAN_SCRATCH_ALIGN - 1)) == 0,
               "PLAN_SCRATCH_ALIGN is a power of two");
_Static_assert(_Alignof(uint64_t) <= PLAN_SCRATCH_ALIGN &&
                   _Alignof(plan_buf) <= PLAN_SCRATCH_ALIGN,
               "every array carved from scratch is aligned");

/* total + count * elem rounded up to PLAN_SCRATCH_ALIGN; SIZE_MAX when
 * that overflows size_t (SIZE_MAX stays SIZE_MAX: it means "too large"). */
static inline size_t plan_scratch_add(size_t total, size_t count, size_t elem) {
    const size_t a = PLAN_SCRATCH_ALIGN;
    if (total == SIZE_MAX || (elem && count > (SIZE_MAX - a) / elem))
        return SIZE_MAX;
    size_t bytes = (count * elem + a - 1) & ~(a - 1);
    return bytes >= SIZE_MAX - total ? SIZE_MAX : total + bytes;
}

/* A block of `bytes` from malloc (released with free); NULL when bytes is
 * SIZE_MAX (the size overflowed) or memory is short: a wrapper's one
 * failure. */
static inline void *plan_scratch_new(size_t bytes) {
    return bytes == SIZE_MAX ? NULL : malloc(bytes);
}

/* Carves arrays from a block, or only counts their bytes. */
typedef struct plan_carver {
    unsigned char *block;
    size_t used; /* bytes carved so far (SIZE_MAX: overflow) */
    size_t size; /* the block's size */
    bool measuring;
} plan_carver;

static inline plan_carver plan_carver_measure(void) {
    return (plan_carver){NULL, 0, 0, true};
}

static inline plan_carver plan_carver_of(void *scratch, size_t size) {
    PW_ASSERT(scratch != NULL || size == 0);
    PW_ASSERT((uintptr_t)scratch % PLAN_SCRATCH_ALIGN == 0);
    return (plan_carver){scratch, 0, size, false};
}

/* The next array of count elements of elem bytes; NULL when measuring.
 * Asserts that the block holds it. */
static inline void *plan_carve(plan_carver *c, size_t count, size_t elem) {
    size_t at = c->used;
    c->used = plan_scratch_add(c->used, count, elem);
    if (c->measuring)
        return NULL;
    PW_ASSERT(c->used <= c->size); /* SIZE_MAX (overflow) fails too */
    return c->block + at;
}
#define PLAN_CARVE(c, count, T) ((T *)plan_carve((c), (count), sizeof(T)))

/* The rest of the block, at least `need` bytes (a callee's scratch);
 * *rest gets its size.  Measuring, counts `need` and returns NULL. */
static inline void *plan_carve_rest(plan_carver *c, size_t need, size_t *rest) {
    if (c->measuring) {
        c->used = plan_scratch_add(c->used, need, 1);
        *rest = need;
        return NULL;
    }
    PW_ASSERT(c->used <= c->size && c->size - c->used >= need);
    *rest = c->size - c->used;
    void *p = c->block + c->used;
    c->used = c->size;
    return p;
}

/* plan_problem_ok without plan_first_oversize (for a caller that has
 * checked that already): the alignments and start <= end. */
bool plan_problem_shape_ok(const plan_problem *pb);

/* The naive plan (plan_naive, on a problem that passes plan_problem_ok):
 * its size, and its offsets into `offsets` unless that is NULL. */
uint64_t plan_naive_size(const plan_problem *pb, uint64_t *offsets);

/* Rounds v up to a multiple of a (a power of two >= 1); saturates at
 * UINT64_MAX rounded down. */
uint64_t plan_align_up(uint64_t v, uint64_t a);

/* The alignment a buffer's offset needs in `pb`: max(pb->align, b->align). */
uint64_t plan_buf_align(const plan_problem *pb, const plan_buf *b);

/* The core of an algorithm: plans a problem whose buffers are all
 * colour-compatible (one colour class). */
typedef int (*plan_core_fn)(const plan_problem *pb, uint64_t *offsets,
                            uint64_t *size);

/* Whether every buffer that takes space is in one colour class (then
 * plan_run_colored calls its core directly). */
bool plan_one_class(const plan_problem *pb);

/* Runs `fn` once per colour class (-1 first, then colours ascending, then
 * each colour -2 buffer alone) and stacks the classes in the pool, so
 * that buffers of different classes never share bytes.  When there is a
 * single class, calls `fn` directly.  Returns 0 or -1 (out of memory). */
int plan_run_colored(const plan_problem *pb, plan_core_fn fn, uint64_t *offsets,
                     uint64_t *size);

/* The core of an algorithm that takes its scratch from the caller: plans
 * a one-class problem and cannot fail (asserts that the scratch holds its
 * arrays). */
typedef void (*plan_core_in_fn)(const plan_problem *pb, void *scratch,
                                size_t scratch_size, uint64_t *offsets,
                                uint64_t *size);

/* The scratch of plan_run_colored_in for n buffers over a core that needs
 * core_size bytes for n buffers (a class has at most n); SIZE_MAX on
 * overflow. */
size_t plan_colored_scratch_size(uint32_t n, size_t core_size);

/* plan_run_colored over a core that takes its scratch: its own arrays
 * are carved from `scratch`, each class's core gets the rest.  Cannot
 * fail; pb must pass plan_problem_ok (its caller checks it). */
void plan_run_colored_in(const plan_problem *pb, plan_core_in_fn fn,
                         void *scratch, size_t scratch_size, uint64_t *offsets,
                         uint64_t *size);

/* Sorts `n` uint32 indices with a comparison on a context (stable merge
 * sort); returns -1 on out-of-memory. */
typedef int (*plan_cmp_fn)(const void *ctx, uint32_t a, uint32_t b);
int plan_sort_idx(uint32_t *idx, uint32_t n, plan_cmp_fn cmp, const void *ctx);
/* The same sort with the caller's n entries of tmp: cannot fail. */
void plan_sort_idx_in(uint32_t *idx, uint32_t n, uint32_t *tmp, plan_cmp_fn cmp,
                      const void *ctx);

/* Fills every storage's donors (pl->donors, allocated in `a`) and its
 * reuse_of from the offsets and live ranges (planner/donors.c).
 * O(n log n + donors); deterministic.  False on out of memory (of its
 * one scratch block). */
bool plan_donors_build(base_arena *a, plan *pl);
/* The same with the caller's scratch (plan_donors_scratch_size(pl) bytes,
 * from pl->nstorages alone; SIZE_MAX on overflow): cannot fail. */
size_t plan_donors_scratch_size(const plan *pl);
void plan_donors_build_in(base_arena *a, plan *pl, void *scratch,
                          size_t scratch_size);

/* A segment tree over [0, n) positions with range add and range max
 * (values int64).  Non-lazy tags: O(log n) per operation. */
typedef struct plan_segtree {
    uint32_t n;
    int64_t *mx; /* subtree max including own tag */
    int64_t *tag;
} plan_segtree;

int plan_segtree_init(plan_segtree *t, uint32_t n);
/* The nodes a tree over n positions addresses: below 2^(depth + 1), at
 * most 4n.  Only these are zeroed (and so touched): a calloc'ed tree's
 * other pages are never written. */
static inline size_t plan_segtree_nodes(uint32_t n) {
    size_t p = 1;
    while (p < n)
        p *= 2;
    return 2 * p < 4 * (size_t)n ? 2 * p : 4 * (size_t)(n ? n : 1);
}
/* The same over the caller's arrays of 4 * max(n, 1) entries each
 * (zeroed here: plan_segtree_nodes(n) of them). */
void plan_segtree_init_in(plan_segtree *t, uint32_t n, int64_t *mx,
                          int64_t *tag);
void plan_segtree_free(plan_segtree *t);
/* Adds v to every position in [l, r] (inclusive). */
void plan_segtree_add(plan_segtree *t, uint32_t l, uint32_t r, int64_t v);
/* Max over [l, r] (inclusive). */
int64_t plan_segtree_max(const plan_segtree *t, uint32_t l, uint32_t r);

/* Compressed time axis of a problem: the sorted distinct values of every
 * start and end.  Returns the count (or UINT32_MAX on out-of-memory);
 * *out is malloc'ed. */
uint32_t plan_time_axis(const plan_problem *pb, uint32_t **out);
/* Index of t in the axis (t must be present). */
uint32_t plan_time_index(const uint32_t *axis, uint32_t n, uint32_t t);

/* plan_lower_bound over the problem's time axis (plan_time_axis), for a
 * caller that already has it.  Returns 0 or -1 (out of memory). */
int plan_lower_bound_axis(const plan_problem *pb, const uint32_t *axis,
                          uint32_t m, uint64_t *lb);

/* Lifetime buckets of the conflict scans (bestfit, lns): bucket k holds
 * the buffers whose end - start + 1 is in [4^k, 4^(k+1)). */
#define PLAN_LIFE_BUCKETS 17
static inline uint32_t plan_life_bucket(const plan_buf *b) {
    uint64_t len = (uint64_t)b->end - b->start + 1;
    uint32_t k = 0;
    while (len >= 4) {
        len /= 4;
        k++;
    }
    return k;
}

/* plan_lower_bound from the buffers of nonzero size (m of them) sorted
 * by start (st) and by end (en): time << 32 | buffer index. */
uint64_t plan_lower_bound_sorted(const plan_problem *pb, const uint64_t *st,
                                 const uint64_t *en, size_t m);

/* Sorts v[0..n) by the high 32 bits of each word, stably (planner/radix.c,
 * O(n)); returns -1 on out-of-memory. */
int plan_radix_sort_hi(uint64_t *v, size_t n);
/* The same with the caller's n entries of tmp and PLAN_RADIX_COUNTS of
 * cnt: cannot fail. */
#define PLAN_RADIX_COUNTS 2048u
void plan_radix_sort_hi_in(uint64_t *v, size_t n, uint64_t *tmp, uint32_t *cnt);
/* The same on bits lo..hi-1 of each word (lo <= hi <= 64; the bits below
 * lo: the payload, its order kept; the caller knows the bits from hi up
 * to be the same in every word, or wants them left out). */
void plan_radix_sort_bits_in(uint64_t *v, size_t n, unsigned lo, unsigned hi,
                             uint64_t *tmp, uint32_t *cnt);

/* bestfit's start-order pass (planner/bestfit_start.c): places the m
 * buffers of `order` (non-decreasing starts) each in the lowest gap among
 * the blocks live at its start, or with `cap` (nonzero: two-sided) in the
 * highest gap under cap when the lowest is not at offset 0; maxlive: the
 * most buffers live at once.  Offsets into off[buffer].  Returns the pool
 * top, PLAN_BF_OVER when a buffer would end past PLAN_MAX_POOL_SIZE, or
 * UINT64_MAX when out of memory.  The top only grows: as soon as it
 * reaches `stop` (the size of a plan the caller has already; UINT64_MAX:
 * none), the pass cannot give a smaller plan, so it ends there and returns
 * that top (>= stop) without writing `off`.  O(n log n). */
#define PLAN_BF_OVER (UINT64_MAX - 1)
uint64_t plan_bf_start_pass(const plan_problem *pb, const uint32_t *order,
                            uint32_t m, uint32_t maxlive, uint64_t cap,
                            uint64_t stop, uint64_t *off);

/* bestfit above PLAN_BF_LARGE nonzero buffers
 * (planner/bestfit_large.c): the plan of bestfit's general path (its two
 * passes; the start pass only when the size pass is more than
 * 1/PLAN_BF_CLOSE above the lower bound), offsets into offsets[buffer]
 * (pb->n words, its scratch first: the zero-size ones 0 on return, also
 * on failure), the pool top into *best
 * (UINT64_MAX when every pass passed PLAN_MAX_POOL_SIZE), the lower
 * bound it computes on the way (plan_lower_bound) into *lb when it
 * returns 0, the sum of the sizes into *total (it counts the nonzero
 * buffers itself).  Returns 0, 1 (this path does not apply, at most
 * PLAN_BF_LARGE nonzero buffers among them: run the general one) or -1
 * (out of memory). */
#define PLAN_BF_LARGE 131072
#define PLAN_BF_CLOSE 100
/* The work budget of bestfit's general path up to PLAN_BF_LARGE buffers,
 * in buffer placements: of its eleven passes, pass i (from 0) runs only
 * while i * m < PLAN_BF_WORK (4.5 * PLAN_BF_LARGE), so all eleven run up
 * to 58982 buffers, six at 10^5, five at PLAN_BF_LARGE: the time stays
 * flat up to PLAN_BF_LARGE instead of growing with m to eleven passes
 * against plan_bf_large's two or fewer.  plan_bf_npasses(m): how
 * many passes that leaves for m nonzero buffers (2 above PLAN_BF_LARGE). */
#define PLAN_BF_WORK ((uint64_t)PLAN_BF_LARGE * 9 / 2)
int plan_bf_npasses(uint32_t m);
int plan_bf_large(const plan_problem *pb, uint64_t *offsets, uint64_t *best,
                  uint64_t *lb, uint64_t *total);
/* plan_bestfit without plan_bf_large (its general path at every size),
 * for the tests that compare the two. */
int plan_bestfit_general(const plan_problem *pb, uint64_t *offsets,
                         uint64_t *size);

/* What a bestfit pass in any order returns when it has visited more than
 * PLAN_BF_VISITS(m) candidates (about 100 conflicts per buffer): it gives
 * up, and the start-order pass decides. */
#define PLAN_BF_GAVE_UP (UINT64_MAX - 2)
#define PLAN_BF_VISITS(m) ((uint64_t)(m)*256 + 65536)
/* What plan_bf_block_pass returns when its lists would be too long. */
#define PLAN_BF_NO_LAYOUT (UINT64_MAX - 3)

/* bestfit's greedy pass in `order` over time blocks
 * (planner/bestfit_blocks.c): the m nonzero buffers, byst in start order
 * (ties in buffer order) with their starts sst, each placed in the lowest
 * aligned gap among its placed conflicts; offsets into off[buffer].
 * Returns the pool top, PLAN_BF_OVER, PLAN_BF_GAVE_UP, PLAN_BF_NO_LAYOUT,
 * or UINT64_MAX when out of memory. */
uint64_t plan_bf_block_pass(const plan_problem *pb, const uint32_t *byst,
                            const uint32_t *sst, uint32_t m,
                            const uint32_t *order, uint64_t *off);

/* The block pass's input: the m nonzero buffers by position in start
 * order (byst: position -> buffer), with per position its life [s, e],
 * the first and last of the nblk blocks of PLAN_BK_STARTS starts it
 * overlaps (k0, k1), its size and the log2 of its alignment (lga: 9
 * bytes a buffer where a size and an alignment took 16); and the pass
 * order as positions. */
#define PLAN_BK_STARTS 64
typedef struct plan_bk_in {
    uint32_t m, nblk;
    const uint32_t *order, *byst;
    const uint32_t *s, *e, *k0, *k1;
    const uint64_t *size;
    const uint8_t *lga;
} plan_bk_in;

/* The log2 of a power of two. */
static inline uint8_t plan_log2(uint64_t a) {
    uint8_t k = 0;
    while (a >>= 1)
        k++;
    return k;
}

/* The block pass on that input, reading it in place (no copy in pass
 * order).  The offsets go by position into the scratch opos[position]
 * (which may be in->size: a position's size is read before its offset
 * is written), then, when the pass places every buffer, by buffer into
 * off[in->byst[position]] in one pass in start order, not one scattered
 * write per placement; a pass that fails leaves off as it was.  Returns
 * as plan_bf_block_pass. */
uint64_t plan_bf_block_run(const plan_bk_in *in, uint64_t *opos, uint64_t *off);

/* Reorders `order` (m nonzero buffers; byst and sst as above) to sweep
 * time (planner/bestfit_blocks.c).  `exact`: every buffer stays after
 * each buffer that overlaps it and precedes it in `order`, so a greedy
 * pass gives the same offsets (or `order` is left as it is); otherwise
 * close to that.  Returns 0 or -1 (out of memory; `order` unchanged). */
int plan_bf_sweep_order(const plan_problem *pb, const uint32_t *byst,
                        const uint32_t *sst, uint32_t m, uint32_t *order,
                        bool exact);

/* The sweep of plan_bf_sweep_order (not exact) from a pass order given
 * as words sorted ascending: bits 0..pbits-1 a position in start order
 * (the m nonzero buffers, sst their starts and ends their ends by
 * position), bits 0..rbits-1 the rank in the pass order (a priority above
 * the position), and above them the position / PLAN_SW_CHUNK.  The
 * positions in sweep order into out.  Returns 0 or -1 (out of memory). */
#define PLAN_SW_CHUNK 4096
int plan_bf_sweep_words(const uint64_t *w, uint32_t m, unsigned rbits,
                        unsigned pbits, const uint32_t *sst,
                        const uint32_t *ends, uint32_t *out);

/* Large-neighbourhood search (planner/lns.c) on a plan of one colour
 * class (colours are not looked at): `offsets` and `*size` hold a valid
 * plan and are replaced by a smaller one when one is found, never by a
 * larger one.  Stops at the lower bound, after `budget` steps or after
 * `time_limit` seconds (0 = none).  Returns 0 or -1 (out of memory; the
 * plan is left as it was). */
typedef struct plan_lns_opts {
    uint64_t budget;
    uint64_t lower_bound;
    double time_limit;
} plan_lns_opts;

typedef struct plan_lns_out {
    uint64_t steps, moves;
    bool optimal, budget_hit, time_limit_hit;
} plan_lns_out;

int plan_lns(const plan_problem *pb, uint64_t *offsets, uint64_t *size,
             const plan_lns_opts *o, plan_lns_out *out);

/* plan_lns on the buffers ids[0..m) of pb, one colour class, with every
 * size rounded up to the pool alignment (as plan_search counts them):
 * start[i] is the offset of ids[i], improved in place. */
int plan_lns_class(const plan_problem *pb, const uint32_t *ids, uint32_t m,
                   uint64_t *start, const plan_lns_opts *o, plan_lns_out *out);

/* A window for plan_window_solve (planner/window.c): k lifted buffers
 * (sizes, alignments), conf[i] bit j when i and j overlap in time, and
 * per buffer the address intervals [lo, hi) it must avoid: obs[q] for q in
 * [obs_beg[i], obs_beg[i+1]), sorted, disjoint. */
#define PLAN_WIN_MAX 24
typedef struct plan_iv {
    uint64_t lo, hi;
} plan_iv;

typedef struct plan_win {
    uint32_t k;
    uint64_t size[PLAN_WIN_MAX], align[PLAN_WIN_MAX];
    uint32_t conf[PLAN_WIN_MAX];
    uint32_t obs_beg[PLAN_WIN_MAX + 1];
    /* time sections: sec_mask[j] = the lifted buffers live in section j,
     * whose obstacles (the fixed buffers live in it) are obs[q] for q in
     * [sec_beg[j], sec_beg[j+1]), sorted, disjoint */
    uint32_t nsec;
    uint32_t sec_mask[2 * PLAN_WIN_MAX];
    uint32_t sec_beg[2 * PLAN_WIN_MAX + 1];
    const plan_iv *obs;
    uint64_t *out; /* k offsets: the layout found */
} plan_win;

/* Searches for a layout of the window whose every top is below `bound`,
 * the lowest it finds within `limit` nodes (exact when it ends before
 * the limit).  Returns true and fills w->out when it found one; *nodes
 * gets the nodes used (<= limit).  Deterministic; no allocation. */
bool plan_window_solve(const plan_win *w, uint64_t bound, uint64_t limit,
                       uint64_t *nodes);

/* plan_search from a valid plan (offsets, *size: the best-fit plan, whose
 * size becomes stats.start_size), without running plan_bestfit again
 * (planner/search.c). */
int plan_search_from(const plan_problem *pb, const plan_search_opts *o,
                     uint64_t *offsets, uint64_t *size, plan_search_stats *st);

/* ---- firmware passes of plan_program (planner/fw.c) ---- */

/* Accessed bytes: each storage's (st->accessed: the bytes of every call
 * argument naming it, saturating) and the plan's total over the pooled
 * ones (pooled[s]). */
void plan_fw_access(plan *pl, const bool *pooled);

/* Spill (docs/firmware.md): sets st->space of every storage (its value's
 * space), then, space by space along the spill= chains, chooses with
 * plan_spill_select which pooled storages of a space with a spill=
 * stay: those get their offset and fixed[s] = true; the others move to
 * the spill space (st->spilled).  `outputs[s]` is the storage's pool
 * kind (PLAN_MP_OUTPUTS), `color[s]` its stream colour.  Returns false
 * after reporting an error to `d`. */
bool plan_fw_spill(plan *pl, const bool *pooled, const bool *outputs,
                   const int32_t *color, bool *fixed, base_diag *d);

/* ---- what plan_program records for code generation (ownership.c) ---- */

/* Sets each storage's owner and owner_pos, and the extra pools (after
 * the pools are planned). */
void plan_record(base_arena *a, plan *pl);

/* PLAN_DEFINE_SORT(name, T, less) defines `static void name(T *v, size_t
 * n)`, sorting v[0..n) by `bool less(const T *, const T *)`: quicksort
 * on the median of three with the comparison inline, on the smaller side
 * recursively (O(log n) stack), insertion sort below 16 elements; not
 * stable.  For hot loops that sort small arrays, where qsort's calls
 * through a pointer were most of the time. */
#define PLAN_DEFINE_SORT(name, T, less)                                        \
    static void name(T *v, size_t n) {                                         \
        while (n > 16) {                                                       \
            size_t m = n / 2, i = 0, j = n - 1;                                \
            T t;                                                               \
            if (less(&v[m], &v[0]))                                            \
                t = v[m], v[m] = v[0], v[0] = t;                               \
            if (less(&v[n - 1], &v[0]))                                        \
                t = v[n - 1], v[n - 1] = v[0], v[0] = t;                       \
            if (less(&v[n - 1], &v[m]))                                        \
                t = v[n - 1], v[n - 1] = v[m], v[m] = t;                       \
            T p = v[m];                                                        \
            for (;;) { /* Hoare: v[0] <= p <= v[n - 1] stop both scans */      \
                while (less(&v[i], &p))                                        \
                    i++;                                                       \
                while (less(&p, &v[j]))                                        \
                    j--;                                                       \
                if (i >= j)                                                    \
                    break;                                                     \
                t = v[i], v[i++] = v[j], v[j--] = t;                           \
            }                                                                  \
            if (j + 1 < n - j - 1) { /* recurse on the smaller side */         \
                name(v, j + 1);                                                \
                v += j + 1;                                                    \
                n -= j + 1;                                                    \
            } else {                                                           \
                name(v + j + 1, n - j - 1);                                    \
                n = j + 1;                                                     \
            }                                                                  \
        }                                                                      \
        for (size_t i = 1; i < n; i++) {                                       \
            T t = v[i];                                                        \
            size_t j = i;                                                      \
            for (; j > 0 && less(&t, &v[j - 1]); j--)                          \
                v[j] = v[j - 1];                                               \
            v[j] = t;                                                          \
        }                                                                      \
    }

#endif /* PLANWRAP_PLAN_INTERNAL_H */

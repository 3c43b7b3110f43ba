/*
 * planner/reuse.c - `reuse`: PyTorch Inductor's memory_plan_reuse.
 *
 * Walks the statements in order.  When a storage dies it is pushed on the
 * stack of its reuse key (device, dtype, elements, comm, group, stream:
 * an exact class id that the caller puts in plan_buf.reuse_key); when a
 * storage is
 * allocated, the stack of its key is scanned from the top (most recently
 * freed first, Inductor's LIFO) and the first dead storage that passes
 * Inductor's peak check gives its bytes to the new one.  The peak check
 * (EfficientPeakEstimate): reuse is accepted when the two statements are
 * adjacent, or when the new size plus the highest memory in the gap
 * between the free and the allocation stays within the overall peak of
 * the no-reuse profile; an accepted reuse keeps the bytes alive through
 * the gap, so its size is added over the gap (a range-add / range-max
 * segment tree).
 *
 * Differences from Inductor (docs/planning.md, "reuse"): every
 * candidate of the stack is tried, not only the top; storages never freed
 * live to the end; outputs stay live to the end in the estimate.  Frees
 * within one statement are pushed in buffer order, not in string order.
 *
 * The scan needs no scan.  Frees are pushed in order of their end, so a
 * stack is sorted by end, bottom to top; a deeper candidate's gap holds
 * a shallower one's, so its peak check passes only if the shallower one's
 * does.  The scan's choice is therefore the topmost candidate whose slot
 * is large and aligned enough, when that one passes the peak check, and
 * none otherwise.  Each key's stack is split by slot class (size,
 * alignment): a candidate is the top of its class's stack, so the choice
 * is the most recently pushed top among the key's classes that fit.
 *
 * Every chain of reuses is one "slot"; slots are laid out one after the
 * other in buffer order.  O(n log n + n * classes per key): a class per
 * distinct (size, alignment) of a key's slots, one in the usual case.
 */
#include "plan_internal.h"
#include "base/base.h"

#include <stdlib.h>
#include <string.h>

typedef struct ru_ctx {
    const plan_buf *bufs;
} ru_ctx;

static int ru_cmp_key(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const ru_ctx *)ctx)->bufs;
    if (bf[a].reuse_key != bf[b].reuse_key)
        return bf[a].reuse_key < bf[b].reuse_key ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int ru_cmp_start(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const ru_ctx *)ctx)->bufs;
    if (bf[a].start != bf[b].start)
        return bf[a].start < bf[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int ru_cmp_end(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const ru_ctx *)ctx)->bufs;
    if (bf[a].end != bf[b].end)
        return bf[a].end < bf[b].end ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The state of one run: per buffer and per slot arrays, the time axis
 * and the no-reuse profile. */
typedef struct ru_state {
    const plan_problem *pb;
    uint32_t n;
    uint32_t *bykey, *keyid, *bystart, *byend;
    uint32_t *slot, *slot_creator, *sort_tmp;
    /* the stacks: per key its first class; per class its slot size and
     * alignment, its top and the key's next class; per dead storage the
     * one below it and when it was pushed */
    uint32_t *key_first, *cls_next, *cls_top, *below, *pushed_at, *slot_cls;
    uint64_t *cls_size, *cls_align;
    uint64_t *slot_size, *slot_align, *slot_off;
    uint64_t *ax; /* the time axis: m points */
    uint32_t m;
    int64_t *mem;
    int64_t peak;
    int64_t *st_mx, *st_tag; /* the segment tree's arrays */
    plan_segtree st;
} ru_state;

/* Every array of a run, carved from the caller's scratch: n + 1 entries
 * per buffer or slot, 2n + 2 axis points, a segment tree over them. */
static void ru_layout(plan_carver *c, size_t n, ru_state *R) {
    size_t n1 = n + 1, na = 2 * n + 2;
    R->slot_size = PLAN_CARVE(c, n1, uint64_t);
    R->slot_align = PLAN_CARVE(c, n1, uint64_t);
    R->slot_off = PLAN_CARVE(c, n1, uint64_t);
    R->cls_size = PLAN_CARVE(c, n1, uint64_t);
    R->cls_align = PLAN_CARVE(c, n1, uint64_t);
    R->ax = PLAN_CARVE(c, na, uint64_t);
    R->mem = PLAN_CARVE(c, na, int64_t);
    R->st_mx = PLAN_CARVE(c, 4 * na, int64_t);
    R->st_tag = PLAN_CARVE(c, 4 * na, int64_t);
    uint32_t **u32[] = {&R->bykey,    &R->keyid,     &R->bystart,
                        &R->byend,    &R->slot,      &R->slot_creator,
                        &R->sort_tmp, &R->key_first, &R->cls_next,
                        &R->cls_top,  &R->below,     &R->pushed_at,
                        &R->slot_cls};
    for (size_t i = 0; i < sizeof u32 / sizeof *u32; i++)
        *u32[i] = PLAN_CARVE(c, n1, uint32_t);
}

static size_t ru_core_scratch_size(size_t n) {
    plan_carver c = plan_carver_measure();
    ru_state R;
    ru_layout(&c, n, &R);
    return c.used;
}

/* Step 1: the buffers in key, start and end order, a dense id per key,
 * no class yet. */
static void ru_keys(ru_state *R) {
    const plan_buf *bf = R->pb->bufs;
    ru_ctx ctx = {bf};
    for (uint32_t i = 0; i < R->n; i++)
        R->bykey[i] = R->bystart[i] = R->byend[i] = i;
    plan_sort_idx_in(R->bykey, R->n, R->sort_tmp, ru_cmp_key, &ctx);
    plan_sort_idx_in(R->bystart, R->n, R->sort_tmp, ru_cmp_start, &ctx);
    plan_sort_idx_in(R->byend, R->n, R->sort_tmp, ru_cmp_end, &ctx);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < R->n; i++) {
        if (i == 0 ||
            bf[R->bykey[i]].reuse_key != bf[R->bykey[i - 1]].reuse_key)
            R->key_first[nk++] = UINT32_MAX;
        R->keyid[R->bykey[i]] = nk - 1;
    }
}

/* Step 2: the time axis (every start and every end + 1, so that the live
 * set is constant between two consecutive points), the no-reuse memory
 * profile in the segment tree, and its peak. */
static void ru_profile(ru_state *R) {
    const plan_buf *bf = R->pb->bufs;
    uint64_t *ax = R->ax;
    uint32_t na = 0;
    for (uint32_t i = 0; i < R->n; i++) {
        ax[na++] = bf[i].start;
        ax[na++] = (uint64_t)bf[i].end + 1;
    }
    qsort(ax, na, sizeof *ax, base_cmp_u64);
    uint32_t m = 0;
    for (uint32_t i = 0; i < na; i++)
        if (m == 0 || ax[m - 1] != ax[i])
            ax[m++] = ax[i];
    R->m = m;
    plan_segtree_init_in(&R->st, m, R->st_mx, R->st_tag);
    memset(R->mem, 0, ((size_t)m + 1) * sizeof *R->mem);
    for (uint32_t i = 0; i < R->n; i++) {
        if (bf[i].size == 0)
            continue;
        R->mem[base_lower_bound_u64(ax, m, bf[i].start)] += (int64_t)bf[i].size;
        R->mem[base_lower_bound_u64(ax, m, (uint64_t)bf[i].end + 1)] -=
            (int64_t)bf[i].size;
    }
    int64_t cur = 0;
    R->peak = 0;
    for (uint32_t i = 0; i < m; i++) {
        cur += R->mem[i];
        if (cur > R->peak)
            R->peak = cur;
        plan_segtree_add(&R->st, i, i, cur);
    }
}

/* Step 3a: the dead storage f's slot for buffer b, when its size and
 * alignment suffice and the peak check passes (then the bytes stay live
 * through the gap). */
static bool ru_try(ru_state *R, uint32_t f, uint32_t b, uint64_t need_align) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t s = R->slot[f];
    if (R->slot_size[s] < bf[b].size || R->slot_align[s] < need_align)
        return false;
    uint32_t lo = base_lower_bound_u64(R->ax, R->m, (uint64_t)bf[f].end + 1);
    uint32_t hi = base_lower_bound_u64(R->ax, R->m, bf[b].start);
    if ((uint64_t)bf[f].end + 1 != bf[b].start && lo < hi &&
        (int64_t)bf[b].size + plan_segtree_max(&R->st, lo, hi - 1) > R->peak)
        return false;
    if (lo < hi)
        plan_segtree_add(&R->st, lo, hi - 1, (int64_t)bf[b].size);
    return true;
}

/* Buffer b opens a new slot, of a class of its key (found or added). */
static uint32_t ru_new_slot(ru_state *R, uint32_t b, uint64_t align,
                            uint32_t nslots, uint32_t *ncls) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t *first = &R->key_first[R->keyid[b]], c = *first;
    while (c != UINT32_MAX &&
           (R->cls_size[c] != bf[b].size || R->cls_align[c] != align))
        c = R->cls_next[c];
    if (c == UINT32_MAX) {
        c = (*ncls)++;
        R->cls_size[c] = bf[b].size;
        R->cls_align[c] = align;
        R->cls_top[c] = UINT32_MAX;
        R->cls_next[c] = *first;
        *first = c;
    }
    R->slot[b] = nslots;
    R->slot_size[nslots] = bf[b].size;
    R->slot_align[nslots] = align;
    R->slot_creator[nslots] = b;
    R->slot_cls[nslots] = c;
    return nslots + 1;
}

/* The candidate the scan from the top of b's key's stack would try
 * first: the most recently pushed top of a class whose slots are large
 * and aligned enough (its class in *cls); UINT32_MAX when none. */
static uint32_t ru_candidate(const ru_state *R, uint32_t b, uint64_t align,
                             uint32_t *cls) {
    uint64_t size = R->pb->bufs[b].size;
    uint32_t best = UINT32_MAX;
    for (uint32_t c = R->key_first[R->keyid[b]]; c != UINT32_MAX;
         c = R->cls_next[c]) {
        uint32_t f = R->cls_top[c];
        if (f == UINT32_MAX || R->cls_size[c] < size || R->cls_align[c] < align)
            continue;
        if (best == UINT32_MAX || R->pushed_at[f] > R->pushed_at[best]) {
            best = f;
            *cls = c;
        }
    }
    return best;
}

/* Step 3: the walk in start order: frees push on their slot class's
 * stack; each allocation takes the candidate that the scan of its key's
 * stack from the top would take (see the file comment), or opens a new
 * slot.  Returns the number of slots. */
static uint32_t ru_assign(ru_state *R) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t n = R->n, nslots = 0, ncls = 0, fe = 0;
    for (uint32_t si = 0; si < n; si++) {
        uint32_t b = R->bystart[si];
        if (bf[b].size == 0) {
            R->slot[b] = UINT32_MAX;
            continue;
        }
        /* free every storage that died before this statement */
        for (; fe < n && bf[R->byend[fe]].end < bf[b].start; fe++) {
            uint32_t f = R->byend[fe];
            if (bf[f].size == 0)
                continue;
            uint32_t c = R->slot_cls[R->slot[f]];
            R->below[f] = R->cls_top[c];
            R->pushed_at[f] = fe;
            R->cls_top[c] = f;
        }
        uint64_t need_align = plan_buf_align(R->pb, &bf[b]);
        uint32_t c = 0, f = ru_candidate(R, b, need_align, &c);
        if (f != UINT32_MAX && ru_try(R, f, b, need_align)) {
            R->slot[b] = R->slot[f];
            R->cls_top[c] = R->below[f];
        } else {
            nslots = ru_new_slot(R, b, need_align, nslots, &ncls);
        }
    }
    return nslots;
}

/* The steps above, then the layout: the slots in the order of their
 * first buffer's index (the naive order), so that the pool is never
 * larger than the naive one: each slot is one of naive's buffers, at an
 * offset no higher. */
static void plan_reuse_core(const plan_problem *pb, void *scratch,
                            size_t scratch_size, uint64_t *offsets,
                            uint64_t *size) {
    ru_state R = {.pb = pb, .n = pb->n};
    plan_carver c = plan_carver_of(scratch, scratch_size);
    ru_layout(&c, R.n, &R);
    ru_keys(&R);
    ru_profile(&R);
    ru_assign(&R);
    uint64_t top = 0;
    for (uint32_t i = 0; i < R.n; i++) {
        uint32_t s = R.slot[i];
        if (s == UINT32_MAX || R.slot_creator[s] != i)
            continue;
        R.slot_off[s] = plan_align_up(top, R.slot_align[s]);
        top = R.slot_off[s] + R.slot_size[s];
    }
    for (uint32_t i = 0; i < R.n; i++)
        offsets[i] = R.slot[i] == UINT32_MAX ? 0 : R.slot_off[R.slot[i]];
    *size = plan_align_up(top, pb->align ? pb->align : 1);
}

size_t plan_reuse_scratch_size(const plan_problem *pb) {
    return plan_colored_scratch_size(pb->n, ru_core_scratch_size(pb->n));
}

void plan_reuse_in(const plan_problem *pb, void *scratch, size_t scratch_size,
                   uint64_t *offsets, uint64_t *size) {
    PW_ASSERT(scratch_size >= plan_reuse_scratch_size(pb));
    plan_run_colored_in(pb, plan_reuse_core, scratch, scratch_size, offsets,
                        size);
}

int plan_reuse(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    size_t bytes = plan_reuse_scratch_size(pb);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return -1;
    plan_reuse_in(pb, scratch, bytes, offsets, size);
    free(scratch);
    return 0;
}

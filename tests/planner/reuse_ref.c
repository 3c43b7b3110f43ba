/*
 * tests/planner/reuse_ref.c - the reference for `reuse` (planner/reuse.c):
 * a test-only copy of its first implementation, which scans every
 * candidate of a key's stack from the top (O(n^2) at worst).  The
 * planner's indexed version must give the same offsets on every input
 * (test_reuse's random instances).
 */
#include "reuse_ref.h"

#include "planner/plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct rf_ctx {
    const plan_buf *bufs;
} rf_ctx;

static int rf_cmp_key(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const rf_ctx *)ctx)->bufs;
    if (bf[a].reuse_key != bf[b].reuse_key)
        return bf[a].reuse_key < bf[b].reuse_key ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int rf_cmp_start(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const rf_ctx *)ctx)->bufs;
    if (bf[a].start != bf[b].start)
        return bf[a].start < bf[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int rf_cmp_end(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ((const rf_ctx *)ctx)->bufs;
    if (bf[a].end != bf[b].end)
        return bf[a].end < bf[b].end ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The state of one run: per buffer and per slot arrays, the time axis
 * and the no-reuse profile. */
typedef struct rf_state {
    const plan_problem *pb;
    uint32_t n;
    uint32_t *bykey, *keyid, *kbase, *klen, *stack, *bystart, *byend;
    uint32_t *slot, *slot_creator, *sort_tmp;
    uint64_t *slot_size, *slot_align, *slot_off;
    uint64_t *ax; /* the time axis: m points */
    uint32_t m;
    int64_t *mem;
    int64_t peak;
    int64_t *st_mx, *st_tag; /* the segment tree's arrays */
    plan_segtree st;
} rf_state;

/* Every array of a run, carved from the caller's scratch: n + 1 entries
 * per buffer or slot, 2n + 2 axis points, a segment tree over them. */
static void rf_layout(plan_carver *c, size_t n, rf_state *R) {
    size_t n1 = n + 1, na = 2 * n + 2;
    R->slot_size = PLAN_CARVE(c, n1, uint64_t);
    R->slot_align = PLAN_CARVE(c, n1, uint64_t);
    R->slot_off = PLAN_CARVE(c, n1, uint64_t);
    R->ax = PLAN_CARVE(c, na, uint64_t);
    R->mem = PLAN_CARVE(c, na, int64_t);
    R->st_mx = PLAN_CARVE(c, 4 * na, int64_t);
    R->st_tag = PLAN_CARVE(c, 4 * na, int64_t);
    uint32_t **u32[] = {&R->bykey,        &R->keyid,   &R->kbase, &R->klen,
                        &R->stack,        &R->bystart, &R->byend, &R->slot,
                        &R->slot_creator, &R->sort_tmp};
    for (size_t i = 0; i < sizeof u32 / sizeof *u32; i++)
        *u32[i] = PLAN_CARVE(c, n1, uint32_t);
}

static size_t ref_reuse_core_scratch_size(size_t n) {
    plan_carver c = plan_carver_measure();
    rf_state R;
    rf_layout(&c, n, &R);
    return c.used;
}

/* Step 1: the buffers in key, start and end order; the buffers of one
 * reuse key are bykey[kbase[k] .. kbase[k + 1]). */
static void rf_keys(rf_state *R) {
    const plan_buf *bf = R->pb->bufs;
    rf_ctx ctx = {bf};
    for (uint32_t i = 0; i < R->n; i++)
        R->bykey[i] = R->bystart[i] = R->byend[i] = i;
    plan_sort_idx_in(R->bykey, R->n, R->sort_tmp, rf_cmp_key, &ctx);
    plan_sort_idx_in(R->bystart, R->n, R->sort_tmp, rf_cmp_start, &ctx);
    plan_sort_idx_in(R->byend, R->n, R->sort_tmp, rf_cmp_end, &ctx);
    uint32_t nk = 0;
    for (uint32_t i = 0; i < R->n; i++) {
        if (i == 0 ||
            bf[R->bykey[i]].reuse_key != bf[R->bykey[i - 1]].reuse_key)
            R->kbase[nk++] = i;
        R->keyid[R->bykey[i]] = nk - 1;
    }
    R->kbase[nk] = R->n;
    memset(R->klen, 0, ((size_t)nk + 1) * sizeof *R->klen);
}

/* Step 2: the time axis (every start and every end + 1, so that the live
 * set is constant between two consecutive points), the no-reuse memory
 * profile in the segment tree, and its peak. */
static void rf_profile(rf_state *R) {
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
static bool rf_try(rf_state *R, uint32_t f, uint32_t b, uint64_t need_align) {
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

/* Step 3: the walk in start order: frees push on their key's stack;
 * each allocation takes the first dead storage from the top that passes
 * rf_try, or opens a new slot.  Returns the number of slots. */
static uint32_t rf_assign(rf_state *R) {
    const plan_buf *bf = R->pb->bufs;
    uint32_t n = R->n, nslots = 0, fe = 0;
    for (uint32_t si = 0; si < n; si++) {
        uint32_t b = R->bystart[si];
        if (bf[b].size == 0) {
            R->slot[b] = UINT32_MAX;
            continue;
        }
        /* free every storage that died before this statement */
        while (fe < n && bf[R->byend[fe]].end < bf[b].start) {
            uint32_t f = R->byend[fe++];
            if (bf[f].size == 0)
                continue;
            uint32_t k = R->keyid[f];
            R->stack[R->kbase[k] + R->klen[k]++] = f;
        }
        uint32_t k = R->keyid[b];
        uint32_t *stk = R->stack + R->kbase[k];
        uint64_t need_align = plan_buf_align(R->pb, &bf[b]);
        bool taken = false;
        for (uint32_t j = R->klen[k]; j-- > 0 && !taken;) {
            if (!rf_try(R, stk[j], b, need_align))
                continue;
            R->slot[b] = R->slot[stk[j]];
            memmove(stk + j, stk + j + 1, (R->klen[k] - j - 1) * sizeof *stk);
            R->klen[k]--;
            taken = true;
        }
        if (!taken) {
            R->slot[b] = nslots;
            R->slot_size[nslots] = bf[b].size;
            R->slot_align[nslots] = need_align;
            R->slot_creator[nslots] = b;
            nslots++;
        }
    }
    return nslots;
}

/* The steps above, then the layout: the slots in the order of their
 * first buffer's index (the naive order), so that the pool is never
 * larger than the naive one: each slot is one of naive's buffers, at an
 * offset no higher. */
static void ref_reuse_core(const plan_problem *pb, void *scratch,
                           size_t scratch_size, uint64_t *offsets,
                           uint64_t *size) {
    rf_state R = {.pb = pb, .n = pb->n};
    plan_carver c = plan_carver_of(scratch, scratch_size);
    rf_layout(&c, R.n, &R);
    rf_keys(&R);
    rf_profile(&R);
    rf_assign(&R);
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

int ref_reuse(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    if (!plan_problem_ok(pb))
        return -1;
    size_t bytes =
        plan_colored_scratch_size(pb->n, ref_reuse_core_scratch_size(pb->n));
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return -1;
    plan_run_colored_in(pb, ref_reuse_core, scratch, bytes, offsets, size);
    free(scratch);
    return 0;
}

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
 * Every chain of reuses is one "slot"; slots are laid out one after the
 * other in buffer order.  O(n log n + candidates scanned * log n).
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

static int plan_reuse_core(const plan_problem *pb, uint64_t *offsets,
                           uint64_t *size) {
    uint32_t n = pb->n;
    const plan_buf *bf = pb->bufs;
    int rc = -1;
    uint32_t *bykey = malloc((size_t)n * sizeof *bykey);
    uint32_t *keyid = malloc((size_t)n * sizeof *keyid);
    uint32_t *kbase = malloc(((size_t)n + 1) * sizeof *kbase);
    uint32_t *klen = calloc((size_t)n + 1, sizeof *klen);
    uint32_t *stack = malloc((size_t)n * sizeof *stack);
    uint32_t *bystart = malloc((size_t)n * sizeof *bystart);
    uint32_t *byend = malloc((size_t)n * sizeof *byend);
    uint32_t *slot = malloc((size_t)n * sizeof *slot);
    uint64_t *slot_size = malloc((size_t)n * sizeof *slot_size);
    uint64_t *slot_align = malloc((size_t)n * sizeof *slot_align);
    uint64_t *slot_off = malloc((size_t)n * sizeof *slot_off);
    uint32_t *slot_creator = malloc((size_t)n * sizeof *slot_creator);
    uint64_t *ax = malloc(((size_t)n * 2 + 1) * sizeof *ax);
    int64_t *mem = NULL;
    plan_segtree st = {0, NULL, NULL};
    if (!bykey || !keyid || !kbase || !klen || !stack || !bystart || !byend ||
        !slot || !slot_size || !slot_align || !slot_off || !slot_creator || !ax)
        goto out;
    ru_ctx ctx = {bf};
    for (uint32_t i = 0; i < n; i++)
        bykey[i] = bystart[i] = byend[i] = i;
    if (plan_sort_idx(bykey, n, ru_cmp_key, &ctx) ||
        plan_sort_idx(bystart, n, ru_cmp_start, &ctx) ||
        plan_sort_idx(byend, n, ru_cmp_end, &ctx))
        goto out;
    uint32_t nk = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i == 0 || bf[bykey[i]].reuse_key != bf[bykey[i - 1]].reuse_key)
            kbase[nk++] = i;
        keyid[bykey[i]] = nk - 1;
    }
    kbase[nk] = n;

    /* Time axis: every start and every end + 1, so that the live set is
     * constant between two consecutive points. */
    uint32_t na = 0;
    for (uint32_t i = 0; i < n; i++) {
        ax[na++] = bf[i].start;
        ax[na++] = (uint64_t)bf[i].end + 1;
    }
    qsort(ax, na, sizeof *ax, base_cmp_u64);
    uint32_t m = 0;
    for (uint32_t i = 0; i < na; i++)
        if (m == 0 || ax[m - 1] != ax[i])
            ax[m++] = ax[i];
    mem = calloc((size_t)m + 1, sizeof *mem);
    if (!mem || plan_segtree_init(&st, m ? m : 1) != 0)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        if (bf[i].size == 0)
            continue;
        mem[base_lower_bound_u64(ax, m, bf[i].start)] += (int64_t)bf[i].size;
        mem[base_lower_bound_u64(ax, m, (uint64_t)bf[i].end + 1)] -=
            (int64_t)bf[i].size;
    }
    int64_t cur = 0, peak = 0;
    for (uint32_t i = 0; i < m; i++) {
        cur += mem[i];
        if (cur > peak)
            peak = cur;
        plan_segtree_add(&st, i, i, cur);
    }

    uint32_t nslots = 0, fe = 0;
    for (uint32_t si = 0; si < n; si++) {
        uint32_t b = bystart[si];
        if (bf[b].size == 0) {
            slot[b] = UINT32_MAX;
            continue;
        }
        /* free every storage that died before this statement */
        while (fe < n && bf[byend[fe]].end < bf[b].start) {
            uint32_t f = byend[fe++];
            if (bf[f].size == 0)
                continue;
            uint32_t k = keyid[f];
            stack[kbase[k] + klen[k]++] = f;
        }
        uint32_t k = keyid[b];
        uint32_t *stk = stack + kbase[k];
        uint64_t need_align = plan_buf_align(pb, &bf[b]);
        bool taken = false;
        for (uint32_t j = klen[k]; j-- > 0;) {
            uint32_t f = stk[j];
            uint32_t s = slot[f];
            if (slot_size[s] < bf[b].size || slot_align[s] < need_align)
                continue;
            bool ok;
            uint32_t lo = base_lower_bound_u64(ax, m, (uint64_t)bf[f].end + 1);
            uint32_t hi = base_lower_bound_u64(ax, m, bf[b].start);
            if ((uint64_t)bf[f].end + 1 == bf[b].start || lo >= hi)
                ok = true;
            else
                ok = (int64_t)bf[b].size + plan_segtree_max(&st, lo, hi - 1) <=
                     peak;
            if (!ok)
                continue;
            if (lo < hi)
                plan_segtree_add(&st, lo, hi - 1, (int64_t)bf[b].size);
            memmove(stk + j, stk + j + 1, (klen[k] - j - 1) * sizeof *stk);
            klen[k]--;
            slot[b] = s;
            taken = true;
            break;
        }
        if (!taken) {
            slot[b] = nslots;
            slot_size[nslots] = bf[b].size;
            slot_align[nslots] = need_align;
            slot_creator[nslots] = b;
            nslots++;
        }
    }
    /* Lay the slots out in the order of their first buffer's index (the
     * naive order), so that the pool is never larger than the naive one:
     * each slot is one of naive's buffers, at an offset no higher. */
    uint64_t top = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = slot[i];
        if (s == UINT32_MAX || slot_creator[s] != i)
            continue;
        slot_off[s] = plan_align_up(top, slot_align[s]);
        top = slot_off[s] + slot_size[s];
    }
    for (uint32_t i = 0; i < n; i++)
        offsets[i] = slot[i] == UINT32_MAX ? 0 : slot_off[slot[i]];
    *size = plan_align_up(top, pb->align ? pb->align : 1);
    rc = 0;
out:
    free(bykey);
    free(keyid);
    free(kbase);
    free(klen);
    free(stack);
    free(bystart);
    free(byend);
    free(slot);
    free(slot_size);
    free(slot_align);
    free(slot_off);
    free(slot_creator);
    free(ax);
    free(mem);
    plan_segtree_free(&st);
    return rc;
}

int plan_reuse(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_reuse_core, offsets, size);
}

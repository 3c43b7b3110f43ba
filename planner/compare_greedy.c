/*
 * planner/compare_greedy.c - TFLite Micro's and ExecuTorch's greedy
 * planners, for `plan --compare` (compare.h).
 *
 * TFLite Micro (tensorflow/lite/micro/memory_planner/
 * greedy_memory_planner.cc, GreedyMemoryPlanner::CalculateOffsetsIfNeeded):
 * the buffers are sorted by size descending with a stable sort
 * (ReverseSortInPlace); the first goes at offset 0; each next one walks
 * the placed buffers in offset order (a list kept sorted by offset, a new
 * entry going after the entries of equal offset), considers only those
 * that overlap it in time (inclusive first/last use), and takes the first
 * gap between the end of the previous such buffer (the highest end seen so
 * far) and the next one's offset that is big enough, or the end of the
 * last one.  TFLite Micro's allocator rounds sizes up to its buffer
 * alignment before planning; here a size is rounded up to the buffer's
 * alignment, and a candidate offset to it (which TFLite Micro, whose
 * alignment is one constant, does not need).
 *
 * ExecuTorch (exir/memory_planning.py, `greedy` with the `pick_shared_obj`
 * that picks by closest size): the tensor specs in graph order (here:
 * start, then index); each scans the shared objects in creation order,
 * and among those whose last_used_index is before its first use keeps
 * the one whose size differs least from its own (strictly less: the
 * first on ties).  The scan updates every object that becomes the best
 * so far (last_used_index := the spec's last use, size := max), even one
 * a later object then beats: ExecuTorch's own behaviour, kept.  With no
 * object available a new one is made.  materialize_buffer then lays the
 * objects out one after the other (here each aligned to its largest
 * member alignment), and every spec sits at its object's offset.
 */
#include "planner/compare.h"
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t gr_size(const plan_problem *pb, const plan_buf *b) {
    return plan_align_up(b->size, plan_buf_align(pb, b));
}

typedef struct gr_ctx {
    const plan_problem *pb;
} gr_ctx;

static int gr_cmp_size_desc(const void *ctx, uint32_t a, uint32_t b) {
    const gr_ctx *c = ctx;
    uint64_t x = gr_size(c->pb, &c->pb->bufs[a]);
    uint64_t y = gr_size(c->pb, &c->pb->bufs[b]);
    if (x != y)
        return x > y ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int gr_cmp_start(const void *ctx, uint32_t a, uint32_t b) {
    const gr_ctx *c = ctx;
    const plan_buf *bf = c->pb->bufs;
    if (bf[a].start != bf[b].start)
        return bf[a].start < bf[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The sorted order of the non-empty buffers; *m gets their count. */
static uint32_t *gr_order(const plan_problem *pb, plan_cmp_fn cmp,
                          uint32_t *m) {
    uint32_t *idx = malloc(((size_t)pb->n + 1) * sizeof *idx);
    if (!idx)
        return NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < pb->n; i++)
        if (pb->bufs[i].size)
            idx[k++] = i;
    gr_ctx c = {pb};
    if (plan_sort_idx(idx, k, cmp, &c) != 0) {
        free(idx);
        return NULL;
    }
    *m = k;
    return idx;
}

static bool gr_overlap(const plan_buf *a, const plan_buf *b) {
    return a->start <= b->end && b->start <= a->end;
}

/* TFLite Micro's gap search for buffer `id` over the placed list. */
static uint64_t tflm_place(const plan_problem *pb, const uint32_t *placed,
                           uint32_t np, const uint64_t *off, uint32_t id) {
    const plan_buf *w = &pb->bufs[id];
    uint64_t al = plan_buf_align(pb, w), need = gr_size(pb, w);
    uint64_t cand = 0;
    for (uint32_t k = 0; k < np; k++) {
        const plan_buf *e = &pb->bufs[placed[k]];
        if (!gr_overlap(e, w))
            continue;
        uint64_t at = plan_align_up(cand, al);
        if (off[placed[k]] >= at && off[placed[k]] - at >= need)
            break;
        uint64_t end = off[placed[k]] + gr_size(pb, e);
        if (end > cand)
            cand = end;
    }
    return plan_align_up(cand, al);
}

static int tflm_core(const plan_problem *pb, uint64_t *offsets,
                     uint64_t *size) {
    uint32_t m = 0;
    uint32_t *order = gr_order(pb, gr_cmp_size_desc, &m);
    uint32_t *placed = malloc(((size_t)m + 1) * sizeof *placed);
    if (!order || !placed) {
        free(order);
        free(placed);
        return -1;
    }
    for (uint32_t i = 0; i < pb->n; i++)
        offsets[i] = 0;
    uint64_t top = 0;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t id = order[i];
        uint64_t at = tflm_place(pb, placed, i, offsets, id);
        offsets[id] = at;
        /* insert after every entry whose offset is <= at */
        uint32_t k = i;
        while (k > 0 && offsets[placed[k - 1]] > at) {
            placed[k] = placed[k - 1];
            k--;
        }
        placed[k] = id;
        uint64_t end = at + gr_size(pb, &pb->bufs[id]);
        if (end > top)
            top = end;
    }
    *size = plan_align_up(top, pb->align ? pb->align : 1);
    free(order);
    free(placed);
    return top > PLAN_MAX_POOL_SIZE ? -1 : 0;
}

int plan_tflm_greedy(const plan_problem *pb, uint64_t *offsets,
                     uint64_t *size) {
    return plan_run_colored(pb, tflm_core, offsets, size);
}

static uint64_t gr_absdiff(uint64_t a, uint64_t b) {
    return a > b ? a - b : b - a;
}

typedef struct et_obj {
    uint64_t size, align, offset;
    uint32_t last;
} et_obj;

/* pick_shared_obj by closest size; returns the object index, or -1 when
 * a new one is needed. */
static int32_t et_pick(et_obj *obj, uint32_t nobj, const plan_buf *b,
                       uint64_t sz) {
    int32_t picked = -1;
    for (uint32_t k = 0; k < nobj; k++) {
        if (!(b->start > obj[k].last))
            continue;
        if (picked < 0 ||
            gr_absdiff(obj[k].size, sz) < gr_absdiff(obj[picked].size, sz)) {
            picked = (int32_t)k;
            obj[k].last = b->end;
            if (sz > obj[k].size)
                obj[k].size = sz;
        }
    }
    return picked;
}

static int et_core(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    uint32_t m = 0;
    uint32_t *order = gr_order(pb, gr_cmp_start, &m);
    et_obj *obj = malloc(((size_t)m + 1) * sizeof *obj);
    uint32_t *of = malloc(((size_t)pb->n + 1) * sizeof *of);
    int rc = -1;
    if (!order || !obj || !of)
        goto out;
    uint32_t nobj = 0;
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[order[i]];
        uint64_t sz = gr_size(pb, b), al = plan_buf_align(pb, b);
        int32_t k = et_pick(obj, nobj, b, sz);
        if (k < 0) {
            k = (int32_t)nobj++;
            obj[k] = (et_obj){sz, al, 0, b->end};
        }
        if (al > obj[k].align)
            obj[k].align = al;
        of[order[i]] = (uint32_t)k;
    }
    uint64_t total = 0; /* materialize_buffer */
    for (uint32_t k = 0; k < nobj; k++) {
        obj[k].offset = plan_align_up(total, obj[k].align);
        if (obj[k].offset > PLAN_MAX_POOL_SIZE ||
            obj[k].size > PLAN_MAX_POOL_SIZE - obj[k].offset)
            goto out; /* the grown objects pass the pool limit */
        total = obj[k].offset + obj[k].size;
    }
    for (uint32_t i = 0; i < pb->n; i++)
        offsets[i] = pb->bufs[i].size ? obj[of[i]].offset : 0;
    *size = plan_align_up(total, pb->align ? pb->align : 1);
    rc = 0;
out:
    free(order);
    free(obj);
    free(of);
    return rc;
}

int plan_executorch_greedy(const plan_problem *pb, uint64_t *offsets,
                           uint64_t *size) {
    return plan_run_colored(pb, et_core, offsets, size);
}

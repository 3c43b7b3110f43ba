/*
 * planner/verify.c - the independent verifier of a one-pool plan.
 *
 * Written apart from the algorithms and sharing no code with them: it
 * proves that every offset is aligned, every buffer lies inside the pool,
 * no two buffers live at the same statement share a byte, and buffers of
 * different stream colours (or of colour -2) never share a byte.
 *
 * Time conflicts, O(n log n): visit the buffers by increasing offset; a
 * segment tree over the (compressed) time axis keeps, per statement, the
 * highest end address of the buffers visited so far.  A buffer is in
 * conflict exactly when the max over its live interval exceeds its own
 * offset.  Colour conflicts: one sweep over addresses keeping the two
 * highest end addresses of distinct colour classes.
 */
#include "plan_internal.h"
#include "base/base.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A buffer and its offset, sorted by offset then index (the key is in
 * the element: qsort has no context argument). */
typedef struct vf_at {
    uint64_t off;
    uint32_t i;
} vf_at;

static int vf_cmp_at(const void *a, const void *b) {
    const vf_at *x = a, *y = b;
    if (x->off != y->off)
        return x->off < y->off ? -1 : 1;
    return x->i < y->i ? -1 : x->i > y->i;
}

static void vf_err(char *err, size_t len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void vf_err(char *err, size_t len, const char *fmt, ...) {
    if (!err || len == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, len, fmt, ap);
    va_end(ap);
}

static const char *vf_name(const plan_problem *pb, uint32_t i, char *buf,
                           size_t len) {
    if (pb->names && pb->names[i])
        return pb->names[i];
    snprintf(buf, len, "#%" PRIu32, i);
    return buf;
}

/* Segment tree with "chmax on a range" and "max over a range". */
typedef struct vf_tree {
    uint32_t n;
    uint64_t *mx, *tag;
} vf_tree;

static void vf_update(vf_tree *t, size_t node, uint32_t lo, uint32_t hi,
                      uint32_t l, uint32_t r, uint64_t v) {
    if (r < lo || hi < l)
        return;
    if (v > t->mx[node])
        t->mx[node] = v;
    if (l <= lo && hi <= r) {
        if (v > t->tag[node])
            t->tag[node] = v;
        return;
    }
    uint32_t mid = lo + (hi - lo) / 2;
    vf_update(t, 2 * node, lo, mid, l, r, v);
    vf_update(t, 2 * node + 1, mid + 1, hi, l, r, v);
}

static uint64_t vf_query(const vf_tree *t, size_t node, uint32_t lo,
                         uint32_t hi, uint32_t l, uint32_t r) {
    if (r < lo || hi < l)
        return 0;
    if (l <= lo && hi <= r)
        return t->mx[node];
    uint32_t mid = lo + (hi - lo) / 2;
    uint64_t a = vf_query(t, 2 * node, lo, mid, l, r);
    uint64_t b = vf_query(t, 2 * node + 1, mid + 1, hi, l, r);
    uint64_t m = a > b ? a : b;
    return m > t->tag[node] ? m : t->tag[node];
}

/* Colour class key: -1 is compatible with every class but -2; each -2
 * buffer is a class of its own. */
static int64_t vf_class(const plan_buf *b, uint32_t i) {
    return b->color == -2 ? -3 - (int64_t)i : b->color;
}

/* Step 1: the pool alignment and size, and each buffer on its own:
 * start <= end, offset aligned, bytes inside the pool (never wrapping).
 * Sets *m to the number of buffers that take space. */
static bool vf_bounds(const plan_problem *pb, const uint64_t *offsets,
                      uint64_t size, char *err, size_t errlen, uint32_t *m) {
    char n1[24];
    uint64_t pa = pb->align ? pb->align : 1;
    if (pa & (pa - 1)) {
        vf_err(err, errlen, "pool alignment %" PRIu64 " is not a power of two",
               pa);
        return false;
    }
    if (size % pa != 0) {
        vf_err(err, errlen,
               "pool size %" PRIu64 " is not a multiple of its alignment "
               "%" PRIu64,
               size, pa);
        return false;
    }
    *m = 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *b = &pb->bufs[i];
        uint64_t a = b->align > pa ? b->align : pa;
        if (b->start > b->end) {
            vf_err(err, errlen,
                   "buffer %s: start %" PRIu32 " after end %" PRIu32,
                   vf_name(pb, i, n1, sizeof n1), b->start, b->end);
            return false;
        }
        if (b->size == 0)
            continue;
        (*m)++;
        if (offsets[i] % a != 0) {
            vf_err(err, errlen,
                   "buffer %s: offset %" PRIu64
                   " is not a multiple of %" PRIu64,
                   vf_name(pb, i, n1, sizeof n1), offsets[i], a);
            return false;
        }
        /* no wrap: offset + size is formed only when it is <= size */
        if (b->size > UINT64_MAX - offsets[i]) {
            vf_err(err, errlen,
                   "buffer %s: bytes [%" PRIu64 ", %" PRIu64 " + %" PRIu64
                   ") end past 2^64, outside the pool of %" PRIu64 " bytes",
                   vf_name(pb, i, n1, sizeof n1), offsets[i], offsets[i],
                   b->size, size);
            return false;
        }
        if (offsets[i] + b->size > size) {
            vf_err(err, errlen,
                   "buffer %s: bytes [%" PRIu64 ", %" PRIu64
                   ") outside the pool of %" PRIu64 " bytes",
                   vf_name(pb, i, n1, sizeof n1), offsets[i],
                   offsets[i] + b->size, size);
            return false;
        }
    }
    return true;
}

/* Step 2: time conflicts over the m nonempty buffers idx[] (by
 * increasing offset), the time axis ax[0..u) compressed.  A nonempty
 * buffer ends above 0, so 0 in the tree means "nothing". */
static bool vf_time(const plan_problem *pb, const uint64_t *offsets,
                    const uint32_t *idx, uint32_t m, const uint32_t *ax,
                    uint32_t u, vf_tree *t, char *err, size_t errlen) {
    char n1[24], n2[24];
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[idx[i]];
        uint32_t l = base_lower_bound_u32(ax, u, b->start),
                 r = base_lower_bound_u32(ax, u, b->end);
        uint64_t hi = vf_query(t, 1, 0, u - 1, l, r);
        if (hi > offsets[idx[i]]) {
            /* find the culprit for the message (linear, error path only) */
            uint32_t c = idx[i];
            for (uint32_t j = 0; j < i; j++) {
                const plan_buf *o = &pb->bufs[idx[j]];
                if (o->start <= b->end && b->start <= o->end &&
                    offsets[idx[j]] + o->size > offsets[idx[i]]) {
                    c = idx[j];
                    break;
                }
            }
            vf_err(err, errlen,
                   "buffers %s and %s are live at the same time and share "
                   "bytes at offset %" PRIu64,
                   vf_name(pb, c, n1, sizeof n1),
                   vf_name(pb, idx[i], n2, sizeof n2), offsets[idx[i]]);
            return false;
        }
        vf_update(t, 1, 0, u - 1, l, r, offsets[idx[i]] + b->size);
    }
    return true;
}

/* Step 3: colour conflicts, one sweep by increasing offset: the highest
 * end so far of two distinct classes, and separately the highest ends of
 * colour -1 and colour -2. */
static bool vf_colours(const plan_problem *pb, const uint64_t *offsets,
                       const uint32_t *idx, uint32_t m, char *err,
                       size_t errlen) {
    char n1[24], n2[24];
    uint64_t e1 = 0, e2 = 0, em1 = 0, em2 = 0;
    int64_t c1 = 0;
    uint32_t w1 = 0, w2 = 0, wm1 = 0, wm2 = 0;
    bool h1 = false, h2 = false;
    for (uint32_t i = 0; i < m; i++) {
        uint32_t bi = idx[i];
        const plan_buf *b = &pb->bufs[bi];
        uint64_t o = offsets[bi], end = o + b->size;
        int32_t who = -1;
        if (b->color == -1) {
            if (em2 > o)
                who = (int32_t)wm2;
        } else {
            int64_t c = vf_class(b, bi);
            if (h1 && c1 != c && e1 > o)
                who = (int32_t)w1;
            else if (h1 && c1 == c && h2 && e2 > o)
                who = (int32_t)w2;
            if (b->color == -2 && em1 > o)
                who = (int32_t)wm1;
            /* keep (e1,c1) the highest, (e2,c2) the highest of
             * another class */
            if (!h1) {
                e1 = end, c1 = c, w1 = bi, h1 = true;
            } else if (c == c1) {
                if (end > e1)
                    e1 = end, w1 = bi;
            } else if (end > e1) {
                e2 = e1, w2 = w1, h2 = true;
                e1 = end, c1 = c, w1 = bi;
            } else if (!h2 || end > e2) {
                e2 = end, w2 = bi, h2 = true;
            }
        }
        if (who >= 0) {
            vf_err(err, errlen,
                   "buffers %s and %s are on different streams and "
                   "share bytes at offset %" PRIu64,
                   vf_name(pb, (uint32_t)who, n1, sizeof n1),
                   vf_name(pb, bi, n2, sizeof n2), o);
            return false;
        }
        if (b->color == -1 && end > em1) {
            em1 = end;
            wm1 = bi;
        }
        if (b->color == -2 && end > em2) {
            em2 = end;
            wm2 = bi;
        }
    }
    return true;
}

/* The verifier's arrays for n buffers: the nonempty ones by offset, the
 * time axis (two points each) and the segment tree over it (4 nodes a
 * point).  The (offset, buffer) pairs sorted before the tree is built
 * live in the tree's first array (16 bytes a buffer, fewer than its 64). */
typedef struct vf_arrays {
    uint32_t *idx, *ax;
    uint64_t *mx, *tag;
    size_t nodes;
} vf_arrays;

static void vf_layout(plan_carver *c, size_t n, vf_arrays *w) {
    _Static_assert(sizeof(vf_at) <= 4 * 2 * sizeof(uint64_t),
                   "the pairs fit in the tree's first array");
    w->nodes = 4 * (2 * n + 1);
    w->idx = PLAN_CARVE(c, n + 1, uint32_t);
    w->ax = PLAN_CARVE(c, 2 * n + 1, uint32_t);
    w->mx = PLAN_CARVE(c, w->nodes, uint64_t);
    w->tag = PLAN_CARVE(c, w->nodes, uint64_t);
}

size_t plan_verify_problem_scratch_size(const plan_problem *pb) {
    plan_carver c = plan_carver_measure();
    vf_arrays w;
    vf_layout(&c, pb->n, &w);
    return c.used;
}

/* The nonempty buffers by increasing offset into w->idx (m of them) and
 * the compressed time axis into w->ax; returns its length. */
static uint32_t vf_order(const plan_problem *pb, const uint64_t *offsets,
                         uint32_t m, const vf_arrays *w) {
    vf_at *at = (vf_at *)(void *)w->mx;
    uint32_t *ax = w->ax;
    uint32_t k = 0, na = 0;
    for (uint32_t i = 0; i < pb->n; i++)
        if (pb->bufs[i].size) {
            at[k++] = (vf_at){offsets[i], i};
            ax[na++] = pb->bufs[i].start;
            ax[na++] = pb->bufs[i].end;
        }
    qsort(ax, na, sizeof *ax, base_cmp_u32);
    uint32_t u = 0;
    for (uint32_t i = 0; i < na; i++)
        if (u == 0 || ax[u - 1] != ax[i])
            ax[u++] = ax[i];
    qsort(at, m, sizeof *at, vf_cmp_at);
    for (uint32_t i = 0; i < m; i++)
        w->idx[i] = at[i].i;
    return u;
}

/* The steps of the file comment: bounds, then the nonempty buffers by
 * increasing offset over the compressed time axis, time conflicts, then
 * colour conflicts. */
bool plan_verify_problem_in(const plan_problem *pb, void *scratch,
                            size_t scratch_size, const uint64_t *offsets,
                            uint64_t size, char *err, size_t errlen) {
    plan_carver c = plan_carver_of(scratch, scratch_size);
    vf_arrays w;
    vf_layout(&c, pb->n, &w);
    uint32_t m = 0;
    if (!vf_bounds(pb, offsets, size, err, errlen, &m))
        return false;
    if (m == 0)
        return true;
    uint32_t u = vf_order(pb, offsets, m, &w);
    vf_tree t = {u, w.mx, w.tag};
    /* the nodes addressed: below 2^(depth + 1), no more than 4u (the
     * others, never written, stay untouched pages) */
    size_t nodes = 1;
    while (nodes < u)
        nodes *= 2;
    nodes = 2 * nodes < 4 * (size_t)u ? 2 * nodes : 4 * (size_t)u;
    memset(t.mx, 0, nodes * sizeof *t.mx);
    memset(t.tag, 0, nodes * sizeof *t.tag);
    return vf_time(pb, offsets, w.idx, m, w.ax, u, &t, err, errlen) &&
           vf_colours(pb, offsets, w.idx, m, err, errlen);
}

int plan_verify_problem_status(const plan_problem *pb, const uint64_t *offsets,
                               uint64_t size, char *err, size_t errlen) {
    size_t bytes = plan_verify_problem_scratch_size(pb);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch) {
        vf_err(err, errlen, "out of memory");
        return -1;
    }
    bool ok =
        plan_verify_problem_in(pb, scratch, bytes, offsets, size, err, errlen);
    free(scratch);
    return ok;
}

bool plan_verify_problem(const plan_problem *pb, const uint64_t *offsets,
                         uint64_t size, char *err, size_t errlen) {
    return plan_verify_problem_status(pb, offsets, size, err, errlen) == 1;
}

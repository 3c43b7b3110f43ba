/*
 * planner/donors.c - which earlier storages a storage takes its bytes
 * from (the `reuse:` lines of `plan --emit lines` and of the generated
 * code's comments, and the history a storage inherits in planner/sync.c).
 *
 * A byte's donor is the storage that last held it before: in a valid plan
 * the storages holding one byte have disjoint lifetimes, so the last one
 * allocated before a storage is also the last one to die, and it is dead
 * when the storage is allocated.  A sweep per pool in allocation order
 * over a segment tree on the pool's compressed byte coordinates (the
 * offsets and ends of its storages): each storage first reads the owners
 * of its byte range, piece by piece in offset order, then paints the
 * range with itself.  A read visits O((k + 1) log n) nodes for k pieces
 * and a paint replaces the k pieces it covers by one, so the sweep is
 * O(n log n) for n storages.  Its fixed arrays come from one scratch
 * block (plan_donors_build_in); the pieces read and the donors found grow
 * as they go (out of memory aborts there).
 */
#include "plan_internal.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* Node colours: a storage id, or one of these. */
#define DN_EMPTY (-1) /* never held */
#define DN_MIXED (-2) /* the children differ */

typedef struct dn_tree {
    uint32_t n; /* elementary segments */
    int32_t *c; /* colour per node, 4n nodes */
} dn_tree;

static void dn_paint(dn_tree *t, size_t node, uint32_t lo, uint32_t hi,
                     uint32_t l, uint32_t r, int32_t id) {
    if (r < lo || hi < l)
        return;
    if (l <= lo && hi <= r) {
        t->c[node] = id;
        return;
    }
    if (t->c[node] != DN_MIXED) /* push the uniform colour down */
        t->c[2 * node] = t->c[2 * node + 1] = t->c[node];
    uint32_t mid = lo + (hi - lo) / 2;
    dn_paint(t, 2 * node, lo, mid, l, r, id);
    dn_paint(t, 2 * node + 1, mid + 1, hi, l, r, id);
    t->c[node] =
        t->c[2 * node] == t->c[2 * node + 1] ? t->c[2 * node] : DN_MIXED;
}

/* The pieces being read: (colour, first segment, last segment), adjacent
 * pieces of one colour merged. */
typedef struct dn_reader {
    int32_t *col;
    uint32_t *first, *last;
    uint32_t n, cap;
} dn_reader;

static void dn_piece(dn_reader *rd, int32_t col, uint32_t a, uint32_t b) {
    if (rd->n && rd->col[rd->n - 1] == col && rd->last[rd->n - 1] + 1 == a) {
        rd->last[rd->n - 1] = b;
        return;
    }
    if (rd->n == rd->cap) {
        rd->cap = rd->cap ? 2 * rd->cap : 16;
        rd->col = base_xrealloc(rd->col, rd->cap * sizeof *rd->col);
        rd->first = base_xrealloc(rd->first, rd->cap * sizeof *rd->first);
        rd->last = base_xrealloc(rd->last, rd->cap * sizeof *rd->last);
    }
    rd->col[rd->n] = col;
    rd->first[rd->n] = a;
    rd->last[rd->n++] = b;
}

static void dn_read(const dn_tree *t, dn_reader *rd, size_t node, uint32_t lo,
                    uint32_t hi, uint32_t l, uint32_t r) {
    if (r < lo || hi < l)
        return;
    if (t->c[node] != DN_MIXED) {
        dn_piece(rd, t->c[node], lo > l ? lo : l, hi < r ? hi : r);
        return;
    }
    uint32_t mid = lo + (hi - lo) / 2;
    dn_read(t, rd, 2 * node, lo, mid, l, r);
    dn_read(t, rd, 2 * node + 1, mid + 1, hi, l, r);
}

static int dn_cmp_start(const void *ctx, uint32_t a, uint32_t b) {
    const plan_storage *st = ctx;
    return st[a].start < st[b].start ? -1 : st[a].start > st[b].start;
}

/* The donors of storage sid appended to `out` (the pieces read whose
 * owner died before it started); reuse_of is the one that gave most
 * bytes (the lowest offset on ties).  gave[] is all zero before and
 * after. */
typedef struct dn_out {
    plan_donor *d;
    uint32_t n, cap;
    uint64_t *gave; /* per storage: bytes given to the current one */
} dn_out;

static void dn_take(plan *pl, uint32_t sid, const dn_reader *rd,
                    const uint64_t *co, dn_out *out) {
    plan_storage *st = &pl->storages[sid];
    st->donor_begin = out->n;
    for (uint32_t i = 0; i < rd->n; i++) {
        int32_t o = rd->col[i];
        if (o < 0 || pl->storages[o].dies_at < 0 ||
            (uint32_t)pl->storages[o].dies_at >= st->start)
            continue; /* never held, or (invalid plan) still live */
        if (out->n == out->cap) {
            out->cap = out->cap ? 2 * out->cap : 16;
            out->d = base_xrealloc(out->d, out->cap * sizeof *out->d);
        }
        plan_donor *d = &out->d[out->n++];
        *d = (plan_donor){o, co[rd->first[i]], co[rd->last[i] + 1]};
        out->gave[o] += d->hi - d->lo;
    }
    uint64_t most = 0;
    for (uint32_t j = st->donor_begin; j < out->n; j++)
        if (out->gave[out->d[j].storage] > most) {
            most = out->gave[out->d[j].storage];
            st->reuse_of = out->d[j].storage;
        }
    for (uint32_t j = st->donor_begin; j < out->n; j++)
        out->gave[out->d[j].storage] = 0;
    st->ndonors = out->n - st->donor_begin;
}

/* One pool: its storages' ids in `ids` (m of them, non-empty). */
static void dn_pool(plan *pl, uint32_t *ids, uint32_t m, uint64_t *co,
                    dn_tree *t, dn_reader *rd, dn_out *out) {
    uint32_t nc = 0;
    for (uint32_t i = 0; i < m; i++) {
        co[nc++] = pl->storages[ids[i]].offset;
        co[nc++] = pl->storages[ids[i]].offset + pl->storages[ids[i]].size;
    }
    qsort(co, nc, sizeof *co, base_cmp_u64);
    uint32_t k = 0;
    for (uint32_t i = 0; i < nc; i++)
        if (k == 0 || co[k - 1] != co[i])
            co[k++] = co[i];
    t->n = k - 1; /* k >= 2: sizes are > 0 */
    for (size_t i = 0; i < 4 * (size_t)t->n; i++)
        t->c[i] = DN_EMPTY;
    for (uint32_t q = 0; q < m; q++) {
        uint32_t sid = ids[q];
        const plan_storage *st = &pl->storages[sid];
        uint32_t l = base_lower_bound_u64(co, k, st->offset);
        uint32_t r = base_lower_bound_u64(co, k, st->offset + st->size) - 1;
        rd->n = 0;
        dn_read(t, rd, 1, 0, t->n - 1, l, r);
        dn_take(pl, sid, rd, co, out);
        dn_paint(t, 1, 0, t->n - 1, l, r, (int32_t)sid);
    }
}

/* The sweep's arrays for n storages: a pool's storage ids and the sort's
 * temporary, its byte coordinates (two per storage), each storage's
 * bytes given, the tree (at most 2n - 1 elementary segments: 8n nodes). */
typedef struct dn_arrays {
    uint32_t *ids, *tmp;
    uint64_t *co, *gave;
    int32_t *c;
} dn_arrays;

static void dn_layout(plan_carver *c, size_t n, dn_arrays *w) {
    w->ids = PLAN_CARVE(c, n + 1, uint32_t);
    w->tmp = PLAN_CARVE(c, n + 1, uint32_t);
    w->co = PLAN_CARVE(c, 2 * n + 1, uint64_t);
    w->gave = PLAN_CARVE(c, n + 1, uint64_t);
    w->c = PLAN_CARVE(c, 8 * n + 8, int32_t);
}

size_t plan_donors_scratch_size(const plan *pl) {
    plan_carver c = plan_carver_measure();
    dn_arrays w;
    dn_layout(&c, pl->nstorages, &w);
    return c.used;
}

void plan_donors_build_in(base_arena *a, plan *pl, void *scratch,
                          size_t scratch_size) {
    uint32_t n = pl->nstorages;
    plan_carver c = plan_carver_of(scratch, scratch_size);
    dn_arrays w;
    dn_layout(&c, n, &w);
    memset(w.gave, 0, ((size_t)n + 1) * sizeof *w.gave);
    dn_tree t = {0, w.c};
    dn_reader rd = {0};
    dn_out out = {NULL, 0, 0, w.gave};
    for (uint32_t s = 0; s < n; s++) {
        pl->storages[s].reuse_of = -1;
        pl->storages[s].donor_begin = pl->storages[s].ndonors = 0;
    }
    for (uint32_t pi = 0; pi < pl->npools; pi++) {
        uint32_t m = 0;
        for (uint32_t s = 0; s < n; s++)
            if (pl->storages[s].pool == (int32_t)pi && pl->storages[s].size)
                w.ids[m++] = s;
        if (m == 0)
            continue;
        plan_sort_idx_in(w.ids, m, w.tmp, dn_cmp_start, pl->storages);
        dn_pool(pl, w.ids, m, w.co, &t, &rd, &out);
    }
    pl->ndonors = out.n;
    pl->donors = base_arena_array(a, out.n + 1, sizeof *pl->donors);
    if (out.n)
        memcpy(pl->donors, out.d, out.n * sizeof *out.d);
    free(rd.col);
    free(rd.first);
    free(rd.last);
    free(out.d);
}

bool plan_donors_build(base_arena *a, plan *pl) {
    size_t bytes = plan_donors_scratch_size(pl);
    void *scratch = plan_scratch_new(bytes);
    if (!scratch)
        return false;
    plan_donors_build_in(a, pl, scratch, bytes);
    free(scratch);
    return true;
}

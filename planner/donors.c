/*
 * planner/donors.c - which earlier storages a storage takes its bytes
 * from (the `reuse:` lines of `plan --emit lines` and of the generated
 * code's comments, and the history a storage inherits in planner/sync.c).
 *
 * A byte's donor is the storage that last held it before: in a valid plan
 * the storages holding one byte have disjoint lifetimes, so the last one
 * allocated before a storage is also the last one to die, and it is dead
 * when the storage is allocated.  A sweep per pool in allocation order
 * over the pool's compressed byte coordinates (the offsets and ends of
 * its storages) cut into runs, each held by one storage or by none: each
 * storage first reads the runs over its byte range, in offset order, then
 * paints the range with itself (one run).  The runs' first segments are
 * a 64-ary tree of bit words, so that finding the run around a segment
 * or the next run costs O(log64 n); a paint removes the k runs it covers,
 * each once, so the sweep is O(n log64 n) for n storages after the sort
 * of the coordinates (a radix sort when they fit in 32 bits).  Its fixed
 * arrays come from one scratch block (plan_donors_build_in); the pieces
 * read and the donors found grow as they go (out of memory aborts
 * there).
 */
#include "plan_internal.h"

#include "base/base.h"

#include <stdlib.h>
#include <string.h>

/* The colour of a run that no storage has held yet. */
#define DN_EMPTY (-1)

/* A set of elementary segments, the first segment of each run (a
 * maximal range painted by one storage, or never painted), with
 * predecessor and successor queries: a 64-ary tree of bit words (level 0
 * has a bit per segment, level j + 1 a bit per non-zero word of level j).
 * Each query or update visits one word per level: O(log64 n). */
#define DN_LEVELS 6 /* 64^6 > 2^33: every segment index of a pool */
#define DN_NONE UINT64_MAX

typedef struct dn_bits {
    uint64_t *w[DN_LEVELS];
    uint64_t nw[DN_LEVELS]; /* words per level */
    uint32_t nlev;          /* levels in use; the top one has one word */
} dn_bits;

/* The levels for n bits over the words at `words` (dn_bits_words(n) of
 * them), all clear. */
static uint64_t dn_bits_words(uint64_t n) {
    uint64_t total = 0;
    do {
        n = (n + 63) / 64;
        total += n;
    } while (n > 1);
    return total;
}

static void dn_bits_init(dn_bits *b, uint64_t n, uint64_t *words) {
    b->nlev = 0;
    do {
        n = (n + 63) / 64;
        b->w[b->nlev] = words;
        b->nw[b->nlev++] = n;
        memset(words, 0, n * sizeof *words);
        words += n;
    } while (n > 1);
}

static void dn_bits_set(dn_bits *b, uint64_t i) {
    for (uint32_t lev = 0; lev < b->nlev; lev++, i >>= 6) {
        uint64_t was = b->w[lev][i >> 6];
        b->w[lev][i >> 6] = was | (1ull << (i & 63));
        if (was)
            return;
    }
}

static void dn_bits_clear(dn_bits *b, uint64_t i) {
    for (uint32_t lev = 0; lev < b->nlev; lev++, i >>= 6)
        if ((b->w[lev][i >> 6] &= ~(1ull << (i & 63))) != 0)
            return;
}

/* The smallest member >= i, DN_NONE when there is none. */
static uint64_t dn_bits_next(const dn_bits *b, uint64_t i) {
    uint32_t lev = 0;
    for (;; lev++) {
        if (lev == b->nlev || (i >> 6) >= b->nw[lev])
            return DN_NONE;
        uint64_t m = b->w[lev][i >> 6] & (~0ull << (i & 63));
        if (m) {
            i = (i & ~63ull) | (uint64_t)__builtin_ctzll(m);
            break;
        }
        i = (i >> 6) + 1;
    }
    while (lev-- > 0)
        i = (i << 6) | (uint64_t)__builtin_ctzll(b->w[lev][i]);
    return i;
}

/* The largest member <= i, DN_NONE when there is none. */
static uint64_t dn_bits_prev(const dn_bits *b, uint64_t i) {
    uint32_t lev = 0;
    for (;; lev++) {
        if (lev == b->nlev)
            return DN_NONE;
        uint64_t m = b->w[lev][i >> 6] & (~0ull >> (63 - (i & 63)));
        if (m) {
            i = (i & ~63ull) | (uint64_t)(63 - __builtin_clzll(m));
            break;
        }
        if ((i >> 6) == 0)
            return DN_NONE;
        i = (i >> 6) - 1;
    }
    while (lev-- > 0)
        i = (i << 6) | (uint64_t)(63 - __builtin_clzll(b->w[lev][i]));
    return i;
}

/* The runs of a pool's n elementary segments: their first segments and
 * the colour of each run at its first segment (a storage id or
 * DN_EMPTY).  No two adjacent runs have one colour: each storage paints
 * one range once, and nothing is painted empty. */
typedef struct dn_runs {
    uint64_t n;
    dn_bits starts;
    int32_t *col; /* per segment, valid where a run starts */
} dn_runs;

/* The pieces being read: (colour, first segment, last segment). */
typedef struct dn_reader {
    int32_t *col;
    uint32_t *first, *last;
    uint32_t n, cap;
} dn_reader;

static void dn_piece(dn_reader *rd, int32_t col, uint32_t a, uint32_t b) {
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

/* The runs over segments l..r, clipped to them, in order. */
static void dn_read(const dn_runs *t, dn_reader *rd, uint32_t l, uint32_t r) {
    uint64_t at = dn_bits_prev(&t->starts, l); /* segment 0 starts a run */
    uint32_t from = l;
    for (;;) {
        uint64_t nx = dn_bits_next(&t->starts, (uint64_t)from + 1);
        uint32_t to = nx == DN_NONE || nx > r ? r : (uint32_t)nx - 1;
        dn_piece(rd, t->col[at], from, to);
        if (to == r)
            return;
        at = nx;
        from = (uint32_t)nx;
    }
}

/* Segments l..r become one run of colour id. */
static void dn_paint(dn_runs *t, uint32_t l, uint32_t r, int32_t id) {
    uint64_t after = (uint64_t)r + 1;
    if (after < t->n && dn_bits_prev(&t->starts, after) != after) {
        /* the run around r goes on after it: split there */
        t->col[after] = t->col[dn_bits_prev(&t->starts, r)];
        dn_bits_set(&t->starts, after);
    }
    for (uint64_t i = dn_bits_next(&t->starts, (uint64_t)l + 1);
         i != DN_NONE && i <= r; i = dn_bits_next(&t->starts, i + 1))
        dn_bits_clear(&t->starts, i);
    dn_bits_set(&t->starts, l);
    t->col[l] = id;
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

/* The sweep's arrays for n storages: the storages by pool (their ids,
 * where each pool's begin, the sort keys and the sort's temporary), the
 * byte coordinates (two per storage, their sort keys, the segments of
 * each storage), each storage's bytes given, the
 * runs (at most 2n - 1 elementary segments) and the radix counts. */
typedef struct dn_arrays {
    uint32_t *ids, *pbeg, *cnt, *seg;
    uint64_t *key, *co, *pk, *tmp, *gave, *words;
    int32_t *col;
} dn_arrays;

/* One pool: its storages' ids in `ids` (m of them, non-empty, in start
 * order). */
/* The pool's distinct byte coordinates in w->co (returns how many) and
 * the first and last elementary segment of each of its m storages (ids
 * in w->ids order: seg[2q], seg[2q + 1]).  A radix sort of (coordinate,
 * end point) pairs when every coordinate fits in 32 bits, else qsort and
 * binary searches. */
static uint32_t dn_coords(const plan *pl, const uint32_t *ids, uint32_t m,
                          const dn_arrays *w) {
    uint64_t *co = w->co, most = 0;
    uint32_t nc = 2 * m, k = 0;
    for (uint32_t q = 0; q < m; q++) {
        const plan_storage *st = &pl->storages[ids[q]];
        co[2 * q] = st->offset;
        co[2 * q + 1] = st->offset + st->size;
        most = co[2 * q + 1] > most ? co[2 * q + 1] : most;
    }
    if (most > UINT32_MAX) {
        qsort(co, nc, sizeof *co, base_cmp_u64);
        for (uint32_t i = 0; i < nc; i++)
            if (k == 0 || co[k - 1] != co[i])
                co[k++] = co[i];
        for (uint32_t q = 0; q < m; q++) {
            const plan_storage *st = &pl->storages[ids[q]];
            w->seg[2 * q] = base_lower_bound_u64(co, k, st->offset);
            w->seg[2 * q + 1] =
                base_lower_bound_u64(co, k, st->offset + st->size) - 1;
        }
        return k;
    }
    for (uint32_t i = 0; i < nc; i++)
        w->pk[i] = co[i] << 32 | i;
    plan_radix_sort_hi_in(w->pk, nc, w->tmp, w->cnt);
    for (uint32_t i = 0; i < nc; i++) {
        uint64_t v = w->pk[i] >> 32;
        uint32_t e = (uint32_t)w->pk[i];
        if (k == 0 || co[k - 1] != v)
            co[k++] = v;
        /* a start begins its segment; an end closes the one before */
        w->seg[e] = (e & 1) ? k - 2 : k - 1;
    }
    return k;
}

/* One pool: its storages' ids in `ids` (m of them, non-empty, in start
 * order). */
static void dn_pool(plan *pl, const uint32_t *ids, uint32_t m,
                    const dn_arrays *w, dn_reader *rd, dn_out *out) {
    const uint64_t *co = w->co;
    uint32_t k = dn_coords(pl, ids, m, w);
    dn_runs t = {.n = k - 1, .col = w->col}; /* k >= 2: sizes are > 0 */
    dn_bits_init(&t.starts, t.n, w->words);
    dn_bits_set(&t.starts, 0);
    t.col[0] = DN_EMPTY;
    for (uint32_t q = 0; q < m; q++) {
        uint32_t sid = ids[q], l = w->seg[2 * q], r = w->seg[2 * q + 1];
        rd->n = 0;
        dn_read(&t, rd, l, r);
        dn_take(pl, sid, rd, co, out);
        dn_paint(&t, l, r, (int32_t)sid);
    }
}

static void dn_layout(plan_carver *c, size_t n, dn_arrays *w) {
    w->ids = PLAN_CARVE(c, n + 1, uint32_t);
    w->pbeg = PLAN_CARVE(c, n + 2, uint32_t);
    w->cnt = PLAN_CARVE(c, PLAN_RADIX_COUNTS, uint32_t);
    w->seg = PLAN_CARVE(c, 2 * n + 1, uint32_t);
    w->pk = PLAN_CARVE(c, 2 * n + 1, uint64_t);
    w->tmp = PLAN_CARVE(c, 2 * n + 1, uint64_t);
    /* fewer pages to touch: the start order's keys are done with before
     * the coordinates' keys are made, and the distinct coordinates are
     * written once the sort's temporary is free (dn_coords) */
    w->key = w->pk;
    w->co = w->tmp;
    w->gave = PLAN_CARVE(c, n + 1, uint64_t);
    w->words = PLAN_CARVE(c, dn_bits_words(2 * (uint64_t)n + 1), uint64_t);
    w->col = PLAN_CARVE(c, 2 * n + 1, int32_t);
}

size_t plan_donors_scratch_size(const plan *pl) {
    plan_carver c = plan_carver_measure();
    dn_arrays w;
    dn_layout(&c, pl->nstorages, &w);
    return c.used;
}

/* The storages of each pool (with bytes), in start order then id order:
 * pool pi's are ids[pbeg[pi] .. pbeg[pi + 1]). */
static void dn_by_pool(const plan *pl, const dn_arrays *w) {
    uint32_t n = pl->nstorages, np = pl->npools;
    memset(w->pbeg, 0, ((size_t)np + 2) * sizeof *w->pbeg);
    for (uint32_t s = 0; s < n; s++)
        if (pl->storages[s].pool >= 0 && pl->storages[s].size)
            w->pbeg[pl->storages[s].pool + 2]++;
    for (uint32_t pi = 0; pi < np; pi++)
        w->pbeg[pi + 2] += w->pbeg[pi + 1];
    for (uint32_t s = 0; s < n; s++)
        if (pl->storages[s].pool >= 0 && pl->storages[s].size)
            w->ids[w->pbeg[pl->storages[s].pool + 1]++] = s;
    for (uint32_t pi = 0; pi < np; pi++) {
        uint32_t b = w->pbeg[pi], m = w->pbeg[pi + 1] - b;
        bool sorted = true; /* storages are mostly made in start order */
        for (uint32_t i = 0; i < m; i++) {
            w->key[i] = (uint64_t)pl->storages[w->ids[b + i]].start << 32 |
                        w->ids[b + i];
            sorted = sorted && (i == 0 || w->key[i] > w->key[i - 1]);
        }
        if (sorted)
            continue;
        plan_radix_sort_hi_in(w->key, m, w->tmp, w->cnt);
        for (uint32_t i = 0; i < m; i++)
            w->ids[b + i] = (uint32_t)w->key[i];
    }
}

void plan_donors_build_in(base_arena *a, plan *pl, void *scratch,
                          size_t scratch_size) {
    uint32_t n = pl->nstorages;
    plan_carver c = plan_carver_of(scratch, scratch_size);
    dn_arrays w;
    dn_layout(&c, n, &w);
    memset(w.gave, 0, ((size_t)n + 1) * sizeof *w.gave);
    dn_reader rd = {0};
    dn_out out = {NULL, 0, 0, w.gave};
    for (uint32_t s = 0; s < n; s++) {
        pl->storages[s].reuse_of = -1;
        pl->storages[s].donor_begin = pl->storages[s].ndonors = 0;
    }
    dn_by_pool(pl, &w);
    for (uint32_t pi = 0; pi < pl->npools; pi++)
        if (w.pbeg[pi + 1] > w.pbeg[pi])
            dn_pool(pl, w.ids + w.pbeg[pi], w.pbeg[pi + 1] - w.pbeg[pi], &w,
                    &rd, &out);
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

/*
 * planner/compare_caching.c - PyTorch's CUDA caching allocator, simulated.
 *
 * The rules (compare.h) are those of CUDACachingAllocator.cpp with its
 * default settings: round_size (512-byte multiples), get_pool (small up
 * to 1 MiB), get_allocation_size (2 MiB / 20 MiB / 2 MiB multiples),
 * get_free_block (best fit by (size, address)), should_split and
 * free_block's merge with the neighbours.  Nothing is ever returned to
 * the device, so the reserved bytes only grow.
 *
 * Blocks live in one array; each segment's blocks form an address-ordered
 * doubly linked list; the free blocks of each pool are kept in an
 * unordered array scanned for the best fit.  Addresses are virtual: a
 * segment starts where the previous one ended.
 */
#include "planner/compare.h"
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

typedef struct ca_block {
    uint64_t addr, size;
    int32_t prev, next; /* neighbours in the segment, -1 */
    int32_t slot;       /* position in its pool's free array, -1 = in use */
    bool small;
} ca_block;

typedef struct ca_sim {
    ca_block *b;
    uint32_t nb, cap;
    int32_t *freeb[2]; /* free block ids: [0] large pool, [1] small */
    uint32_t nfree[2];
    uint64_t reserved, allocated;
    plan_ca_stats st;
} ca_sim;

static int32_t ca_new_block(ca_sim *s, uint64_t addr, uint64_t size,
                            bool small) {
    if (s->nb == s->cap) {
        uint32_t cap = s->cap ? s->cap * 2 : 16;
        ca_block *nb = realloc(s->b, (size_t)cap * sizeof *nb);
        int32_t *f0 = realloc(s->freeb[0], (size_t)cap * sizeof *f0);
        if (f0)
            s->freeb[0] = f0;
        int32_t *f1 = realloc(s->freeb[1], (size_t)cap * sizeof *f1);
        if (f1)
            s->freeb[1] = f1;
        if (nb)
            s->b = nb;
        if (!nb || !f0 || !f1)
            return -1;
        s->cap = cap;
    }
    ca_block *k = &s->b[s->nb];
    k->addr = addr;
    k->size = size;
    k->prev = k->next = -1;
    k->slot = -1;
    k->small = small;
    return (int32_t)s->nb++;
}

static void ca_free_add(ca_sim *s, int32_t id) {
    int p = s->b[id].small;
    s->b[id].slot = (int32_t)s->nfree[p];
    s->freeb[p][s->nfree[p]++] = id;
}

static void ca_free_remove(ca_sim *s, int32_t id) {
    int p = s->b[id].small;
    int32_t at = s->b[id].slot;
    int32_t last = s->freeb[p][--s->nfree[p]];
    s->freeb[p][at] = last;
    s->b[last].slot = at;
    s->b[id].slot = -1;
}

/* get_free_block: the smallest free block of the pool that fits, the
 * lowest address among equal sizes; -1 when none. */
static int32_t ca_best_fit(const ca_sim *s, bool small, uint64_t size) {
    int32_t best = -1;
    int p = small;
    for (uint32_t i = 0; i < s->nfree[p]; i++) {
        const ca_block *k = &s->b[s->freeb[p][i]];
        if (k->size < size)
            continue;
        const ca_block *bb = best >= 0 ? &s->b[best] : NULL;
        if (!bb || k->size < bb->size ||
            (k->size == bb->size && k->addr < bb->addr))
            best = s->freeb[p][i];
    }
    return best;
}

static uint64_t ca_round(uint64_t size) {
    if (size < PLAN_CA_ROUND)
        return PLAN_CA_ROUND;
    return plan_align_up(size, PLAN_CA_ROUND);
}

static uint64_t ca_segment_size(uint64_t rounded) {
    if (rounded <= PLAN_CA_SMALL_SIZE)
        return PLAN_CA_SMALL_BUFFER;
    if (rounded < PLAN_CA_MIN_LARGE_ALLOC)
        return PLAN_CA_LARGE_BUFFER;
    return plan_align_up(rounded, PLAN_CA_ROUND_LARGE);
}

/* should_split */
static bool ca_should_split(bool small, uint64_t remaining) {
    return small ? remaining >= PLAN_CA_ROUND : remaining > PLAN_CA_SMALL_SIZE;
}

/* Allocates `request` bytes; returns the block id, or -1 on out of
 * memory. */
static int32_t ca_malloc(ca_sim *s, uint64_t request) {
    uint64_t size = ca_round(request);
    bool small = size <= PLAN_CA_SMALL_SIZE;
    int32_t id = ca_best_fit(s, small, size);
    if (id < 0) {
        uint64_t seg = ca_segment_size(size);
        id = ca_new_block(s, s->reserved, seg, small);
        if (id < 0)
            return -1;
        s->reserved += seg;
        s->st.segments++;
        if (s->reserved > s->st.reserved_peak)
            s->st.reserved_peak = s->reserved;
    } else {
        ca_free_remove(s, id);
    }
    uint64_t rem = s->b[id].size - size;
    if (ca_should_split(small, rem)) {
        int32_t r = ca_new_block(s, s->b[id].addr + size, rem, small);
        if (r < 0)
            return -1;
        ca_block *k = &s->b[id];
        s->b[r].prev = id;
        s->b[r].next = k->next;
        if (k->next >= 0)
            s->b[k->next].prev = r;
        k->next = r;
        k->size = size;
        ca_free_add(s, r);
    }
    s->allocated += s->b[id].size;
    if (s->allocated > s->st.allocated_peak)
        s->st.allocated_peak = s->allocated;
    return id;
}

/* Merges block `src` (free, a neighbour of dst) into `dst`. */
static void ca_absorb(ca_sim *s, int32_t dst, int32_t src) {
    ca_block *d = &s->b[dst], *o = &s->b[src];
    ca_free_remove(s, src);
    if (o->addr < d->addr) {
        d->addr = o->addr;
        d->prev = o->prev;
        if (o->prev >= 0)
            s->b[o->prev].next = dst;
    } else {
        d->next = o->next;
        if (o->next >= 0)
            s->b[o->next].prev = dst;
    }
    d->size += o->size;
}

static void ca_release(ca_sim *s, int32_t id) {
    s->allocated -= s->b[id].size;
    int32_t p = s->b[id].prev, n = s->b[id].next;
    if (p >= 0 && s->b[p].slot >= 0)
        ca_absorb(s, id, p);
    if (n >= 0 && s->b[n].slot >= 0)
        ca_absorb(s, id, n);
    ca_free_add(s, id);
}

/* Free bytes around block `id`: its free neighbours' sizes. */
static uint64_t ca_space_around(const ca_sim *s, int32_t id) {
    uint64_t v = 0;
    int32_t p = s->b[id].prev, n = s->b[id].next;
    if (p >= 0 && s->b[p].slot >= 0)
        v += s->b[p].size;
    if (n >= 0 && s->b[n].slot >= 0)
        v += s->b[n].size;
    return v;
}

/* Frees the blocks of buffers list[0..k) (ids in blk[]), in the given
 * order. */
static void ca_free_batch(ca_sim *s, uint32_t *list, uint32_t k,
                          const int32_t *blk, plan_ca_free_order order) {
    for (uint32_t done = 0; done < k; done++) {
        uint32_t pick = done;
        if (order == PLAN_CA_FREE_MOST_SPACE_FIRST) {
            uint64_t best = ca_space_around(s, blk[list[done]]);
            for (uint32_t j = done + 1; j < k; j++) {
                uint64_t v = ca_space_around(s, blk[list[j]]);
                if (v > best || (v == best && list[j] < list[pick])) {
                    best = v;
                    pick = j;
                }
            }
        }
        uint32_t t = list[pick];
        list[pick] = list[done];
        list[done] = t;
        ca_release(s, blk[t]);
    }
}

static int ca_cmp_start(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ctx;
    if (bf[a].start != bf[b].start)
        return bf[a].start < bf[b].start ? -1 : 1;
    return a < b ? -1 : a > b;
}

static int ca_cmp_end(const void *ctx, uint32_t a, uint32_t b) {
    const plan_buf *bf = ctx;
    if (bf[a].end != bf[b].end)
        return bf[a].end < bf[b].end ? -1 : 1;
    return a < b ? -1 : a > b;
}

/* The event sweep: at each time, the allocations starting then, then the
 * frees ending then (as one batch). */
static int ca_replay(ca_sim *s, const plan_problem *pb, uint32_t *bys,
                     uint32_t *bye, int32_t *blk, plan_ca_free_order order) {
    uint32_t n = pb->n, i = 0, j = 0;
    const plan_buf *bf = pb->bufs;
    while (i < n || j < n) {
        uint32_t t = j < n ? bf[bye[j]].end : UINT32_MAX;
        if (i < n && bf[bys[i]].start <= t)
            t = bf[bys[i]].start;
        for (; i < n && bf[bys[i]].start == t; i++) {
            blk[bys[i]] = -1;
            if (bf[bys[i]].size == 0)
                continue;
            if (bf[bys[i]].size > PLAN_MAX_POOL_SIZE)
                return -1;
            blk[bys[i]] = ca_malloc(s, bf[bys[i]].size);
            if (blk[bys[i]] < 0)
                return -1;
        }
        uint32_t k = 0, j0 = j;
        for (; j < n && bf[bye[j]].end == t; j++)
            if (blk[bye[j]] >= 0)
                bye[j0 + k++] = bye[j];
        ca_free_batch(s, bye + j0, k, blk, order);
    }
    return 0;
}

int plan_caching_allocator(const plan_problem *pb, plan_ca_free_order order,
                           plan_ca_stats *st) {
    ca_sim s;
    memset(&s, 0, sizeof s);
    memset(st, 0, sizeof *st);
    uint32_t n = pb->n;
    uint32_t *bys = malloc(((size_t)n + 1) * sizeof *bys);
    uint32_t *bye = malloc(((size_t)n + 1) * sizeof *bye);
    int32_t *blk = malloc(((size_t)n + 1) * sizeof *blk);
    int rc = -1;
    if (!bys || !bye || !blk)
        goto out;
    for (uint32_t i = 0; i < n; i++) {
        bys[i] = bye[i] = i;
        blk[i] = -1;
    }
    if (plan_sort_idx(bys, n, ca_cmp_start, pb->bufs) != 0 ||
        plan_sort_idx(bye, n, ca_cmp_end, pb->bufs) != 0)
        goto out;
    rc = ca_replay(&s, pb, bys, bye, blk, order);
    if (rc == 0)
        *st = s.st;
out:
    free(bys);
    free(bye);
    free(blk);
    free(s.b);
    free(s.freeb[0]);
    free(s.freeb[1]);
    return rc;
}

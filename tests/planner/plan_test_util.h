/*
 * tests/planner/plan_test_util.h - helpers shared by the planner tests: a
 * seeded PRNG, an O(n^2) reference checker (kept deliberately simple, to
 * cross-check the O(n log n) verifier) and problem builders.
 */
#ifndef PLAN_TEST_UTIL_H
#define PLAN_TEST_UTIL_H

#include "planner/planner.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static inline uint64_t pt_rand(uint64_t *s) {
    /* splitmix64 */
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static inline uint64_t pt_below(uint64_t *s, uint64_t n) {
    return n ? pt_rand(s) % n : 0;
}

/* Do two buffers of a problem conflict (must not share a byte)? */
static inline int pt_conflict(const plan_buf *a, const plan_buf *b) {
    if (a->start <= b->end && b->start <= a->end)
        return 1;
    if (a->color == -2 || b->color == -2)
        return 1;
    if (a->color >= 0 && b->color >= 0 && a->color != b->color)
        return 1;
    return 0;
}

/* The O(n^2) reference checker. */
static inline int pt_check_slow(const plan_problem *pb, const uint64_t *off,
                                uint64_t size) {
    uint64_t pa = pb->align ? pb->align : 1;
    if (size % pa)
        return 0;
    for (uint32_t i = 0; i < pb->n; i++) {
        const plan_buf *a = &pb->bufs[i];
        if (a->size == 0)
            continue;
        uint64_t al = a->align > pa ? a->align : pa;
        if (off[i] % al || off[i] + a->size > size)
            return 0;
        for (uint32_t j = 0; j < i; j++) {
            const plan_buf *b = &pb->bufs[j];
            if (b->size == 0 || !pt_conflict(a, b))
                continue;
            if (off[i] < off[j] + b->size && off[j] < off[i] + a->size)
                return 0;
        }
    }
    return 1;
}

/* A random problem: n buffers over `horizon` statements. */
static inline void pt_random_problem(uint64_t *seed, plan_problem *pb,
                                     plan_buf *bufs, uint32_t n,
                                     uint32_t horizon, int colors) {
    memset(pb, 0, sizeof *pb);
    pb->n = n;
    pb->bufs = bufs;
    static const uint64_t aligns[] = {1, 8, 64, 256};
    pb->align = aligns[pt_below(seed, 3)];
    for (uint32_t i = 0; i < n; i++) {
        plan_buf *b = &bufs[i];
        memset(b, 0, sizeof *b);
        b->start = (uint32_t)pt_below(seed, horizon);
        uint32_t len = (uint32_t)pt_below(
            seed, pt_below(seed, 4) == 0 ? horizon : 1 + horizon / 8);
        b->end = b->start + len;
        uint64_t kind = pt_below(seed, 10);
        b->size = kind == 0  ? 0
                  : kind < 4 ? 1 + pt_below(seed, 100)
                             : 64 * (1 + pt_below(seed, 64));
        b->align = pt_below(seed, 8) == 0 ? aligns[pt_below(seed, 4)] : 1;
        b->reuse_key = pt_below(seed, 4) ? b->size : b->size + 1;
        b->color = -1;
        if (colors) {
            uint64_t c = pt_below(seed, 8);
            b->color = c == 0 ? -2 : c < 3 ? -1 : (int32_t)(c % 3);
        }
    }
}

/* Inductor timesteps [b, e] (e = the run of the free) become the
 * inclusive interval [b, e - 1]. */
static inline plan_buf ib(uint64_t size, uint32_t b, uint32_t e) {
    plan_buf x;
    memset(&x, 0, sizeof x);
    x.size = size;
    x.align = 1;
    x.start = b;
    x.end = e - 1;
    x.reuse_key = size;
    x.color = -1;
    return x;
}

/* A buffer live over the inclusive interval [s, e] with reuse key `key`. */
static inline plan_buf nb(uint64_t size, uint32_t s, uint32_t e, uint64_t key) {
    plan_buf x = ib(size, s, e + 1);
    x.reuse_key = key;
    return x;
}

#endif /* PLAN_TEST_UTIL_H */

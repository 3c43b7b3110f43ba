/*
 * tests/planner/search/test_window.c - the exact window re-solve
 * (plan_window_solve) and the large-neighbourhood search around it
 * (plan_lns).
 *
 * Random windows of up to 5 buffers among random obstacles are solved by
 * an exhaustive enumeration of every aligned offset written here (no
 * canonical-solution reasoning), so the optimum is independent of the
 * solver.  Seeds are printed.
 */
#include "planner/plan_internal.h"
#include "planner/planner.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

static uint64_t rng_state;

static uint64_t rnd(void) {
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 2685821657736338717ull;
}

static uint64_t rnd_in(uint64_t lo, uint64_t hi) { /* [lo, hi] */
    return lo + rnd() % (hi - lo + 1);
}

#define MAXK 5
#define NFIX 8
#define SPAN 64 /* every top tried up to it: above every obstacle */
#ifndef DENSE_N
#define DENSE_N 3000u
#define DENSE_SEED 1u
#define DENSE_BUDGET 40000u
#endif

typedef struct inst {
    plan_win w;
    plan_iv obs[(MAXK + 11) * NFIX]; /* per buffer, per time point */
    uint64_t out[PLAN_WIN_MAX];
    uint64_t off[PLAN_WIN_MAX], best;
} inst;

static bool fits(const inst *t, uint32_t i, uint64_t o) {
    const plan_win *w = &t->w;
    if (o % w->align[i])
        return false;
    for (uint32_t q = w->obs_beg[i]; q < w->obs_beg[i + 1]; q++)
        if (o < t->obs[q].hi && t->obs[q].lo < o + w->size[i])
            return false;
    for (uint32_t j = 0; j < i; j++)
        if ((w->conf[i] >> j & 1) && o < t->off[j] + w->size[j] &&
            t->off[j] < o + w->size[i])
            return false;
    return true;
}

/* Every offset of every buffer: the lowest highest top. */
static void brute(inst *t, uint32_t i, uint64_t top) {
    if (top >= t->best)
        return;
    if (i == t->w.k) {
        t->best = top;
        return;
    }
    for (uint64_t o = 0; o + t->w.size[i] <= SPAN; o++)
        if (fits(t, i, o)) {
            t->off[i] = o;
            uint64_t h = o + t->w.size[i];
            brute(t, i + 1, h > top ? h : top);
        }
}

static int iv_cmp(const void *a, const void *b) {
    const plan_iv *x = a, *y = b;
    return x->lo < y->lo ? -1 : x->lo > y->lo;
}

/* Appends the fixed buffers live somewhere in [s, e], sorted, merged. */
static uint32_t add_obs(inst *t, uint32_t q, const plan_buf *fix,
                        const uint64_t *foff, uint32_t s, uint32_t e) {
    uint32_t beg = q;
    for (uint32_t f = 0; f < NFIX; f++)
        if (fix[f].start <= e && s <= fix[f].end) {
            t->obs[q].lo = foff[f];
            t->obs[q++].hi = foff[f] + fix[f].size;
        }
    qsort(t->obs + beg, q - beg, sizeof *t->obs, iv_cmp);
    uint32_t w = beg;
    for (uint32_t r = beg; r < q; r++)
        if (w > beg && t->obs[r].lo <= t->obs[w - 1].hi) {
            if (t->obs[r].hi > t->obs[w - 1].hi)
                t->obs[w - 1].hi = t->obs[r].hi;
        } else {
            t->obs[w++] = t->obs[r];
        }
    return w;
}

/* A random window: lifted buffers and fixed ones (the obstacles, which
 * may overlap each other) with lifetimes in [0, 7]. */
static void make(inst *t) {
    memset(t, 0, sizeof *t);
    plan_win *w = &t->w;
    plan_buf lift[MAXK], fix[NFIX];
    uint64_t foff[NFIX];
    w->k = (uint32_t)rnd_in(1, MAXK);
    for (uint32_t i = 0; i < w->k + NFIX; i++) {
        plan_buf *b = i < w->k ? &lift[i] : &fix[i - w->k];
        b->start = (uint32_t)rnd_in(0, 7);
        b->end = b->start + (uint32_t)rnd_in(0, 3);
        b->size = rnd_in(1, 6);
        if (i >= w->k)
            foff[i - w->k] = rnd_in(0, 12);
    }
    uint32_t q = 0;
    for (uint32_t i = 0; i < w->k; i++) {
        w->size[i] = lift[i].size;
        w->align[i] = rnd() % 3 == 0 ? 2 : 1;
        w->obs_beg[i] = q;
        q = add_obs(t, q, fix, foff, lift[i].start, lift[i].end);
        for (uint32_t j = 0; j < w->k; j++)
            if (j != i && lift[i].start <= lift[j].end &&
                lift[j].start <= lift[i].end)
                w->conf[i] |= 1u << j;
    }
    w->obs_beg[w->k] = q;
    for (uint32_t p = 0; p <= 10; p++) { /* every time point as a section */
        uint32_t mask = 0;
        for (uint32_t i = 0; i < w->k; i++)
            if (lift[i].start <= p && p <= lift[i].end)
                mask |= 1u << i;
        if (!mask)
            continue;
        w->sec_mask[w->nsec] = mask;
        w->sec_beg[w->nsec++] = q;
        q = add_obs(t, q, fix, foff, p, p);
    }
    w->sec_beg[w->nsec] = q;
    w->obs = t->obs;
    w->out = t->out;
}

static void test_exact_vs_brute(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 400; seed++) {
        rng_state = seed * 0x9e3779b97f4a7c15ull;
        inst t;
        make(&t);
        t.best = UINT64_MAX;
        brute(&t, 0, 0);
        assert_true(t.best != UINT64_MAX); /* SPAN leaves room */
        /* bound = brute optimum + 1: found, and at the optimum */
        uint64_t nodes = 0;
        bool ok = plan_window_solve(&t.w, t.best + 1, 1000000, &nodes);
        if (!ok)
            print_message("seed %llu: optimum %llu not found\n",
                          (unsigned long long)seed, (unsigned long long)t.best);
        assert_true(ok);
        assert_true(nodes < 1000000);
        uint64_t top = 0;
        for (uint32_t i = 0; i < t.w.k; i++) {
            t.off[i] = t.out[i];
            assert_true(fits(&t, i, t.out[i]));
            if (t.out[i] + t.w.size[i] > top)
                top = t.out[i] + t.w.size[i];
        }
        assert_int_equal(top, t.best);
        /* bound = the optimum: nothing lower exists */
        assert_false(plan_window_solve(&t.w, t.best, 1000000, &nodes));
    }
}

/* The node limit is honoured, and a larger limit never finds a higher
 * layout (branch and bound over the same order). */
static void test_node_limit(void **state) {
    (void)state;
    for (uint64_t seed = 1; seed <= 200; seed++) {
        rng_state = seed * 0xbf58476d1ce4e5b9ull;
        inst t;
        make(&t);
        uint64_t prev = UINT64_MAX;
        for (uint64_t lim = 1; lim <= 64; lim *= 2) {
            uint64_t nodes = 0, top = 0;
            bool ok = plan_window_solve(&t.w, SPAN + 1, lim, &nodes);
            assert_true(nodes <= lim);
            if (!ok) {
                assert_int_equal(prev, UINT64_MAX);
                continue;
            }
            for (uint32_t i = 0; i < t.w.k; i++)
                if (t.out[i] + t.w.size[i] > top)
                    top = t.out[i] + t.w.size[i];
            assert_true(top <= prev);
            prev = top;
        }
    }
}

/* plan_lns on random instances: always valid, never larger, monotone in
 * the budget (including budgets that cut the greedy starts short). */
static void test_lns_monotone(void **state) {
    (void)state;
    const uint64_t budgets[] = {0, 100, 250, 700, 1500, 5000, 20000};
    for (uint64_t seed = 1; seed <= 6; seed++) {
        rng_state = seed * 0x94d049bb133111ebull;
        uint32_t n = 200;
        plan_buf *b = calloc(n, sizeof *b);
        assert_non_null(b);
        for (uint32_t i = 0; i < n; i++) {
            uint32_t s = (uint32_t)rnd_in(0, 100);
            b[i] = (plan_buf){.size = 64 * rnd_in(1, 40),
                              .align = 1,
                              .start = s,
                              .end = s + (uint32_t)rnd_in(0, 20),
                              .color = -1};
        }
        plan_problem pb = {n, b, 64, NULL};
        uint64_t *off = calloc(n, sizeof *off), bf = 0, prev = UINT64_MAX;
        uint64_t *o2 = calloc(n, sizeof *o2);
        assert_non_null(off);
        assert_non_null(o2);
        assert_int_equal(plan_bestfit(&pb, off, &bf), 0);
        for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++) {
            memcpy(o2, off, n * sizeof *o2);
            uint64_t size = bf;
            plan_lns_opts o = {budgets[k], plan_lower_bound(&pb), 0};
            plan_lns_out out;
            assert_int_equal(plan_lns(&pb, o2, &size, &o, &out), 0);
            char err[256];
            assert_true(plan_verify_problem(&pb, o2, size, err, sizeof err));
            assert_true(size <= bf && size <= prev);
            assert_true(out.steps <= budgets[k]);
            prev = size;
        }
        print_message("seed %llu: bestfit %llu, lns %llu\n",
                      (unsigned long long)seed, (unsigned long long)bf,
                      (unsigned long long)prev);
        free(off);
        free(o2);
        free(b);
    }
}

/* A dense instance (as bench/planner's: about 60 buffers live at once,
 * sizes over 16 octaves), above LNS_REBUILD_MAX (no greedy starts: only
 * the moves). */
static plan_buf *dense(uint32_t n, uint64_t seed) {
    rng_state = seed * 0x94d049bb133111ebull;
    plan_buf *b = calloc(n, sizeof *b);
    assert_non_null(b);
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = (uint32_t)rnd_in(0, n - 1);
        uint64_t life = rnd_in(1, (uint64_t)1 << rnd_in(0, 8));
        if (rnd() % 100 == 0)
            life = rnd_in(256, 4096);
        b[i] = (plan_buf){.size = 64 * rnd_in(1, (uint64_t)1 << rnd_in(0, 16)),
                          .align = 1,
                          .start = s,
                          .end = s + (uint32_t)life - 1,
                          .color = -1};
    }
    return b;
}

/* plan_lns on a dense instance (every kind of move, the repack among
 * them): strictly below bestfit within the budget, never larger with a
 * larger budget, and the same offsets on a second run (deterministic in
 * steps). */
static void test_lns_dense(void **state) {
    (void)state;
    const uint64_t budgets[] = {DENSE_BUDGET / 4, DENSE_BUDGET / 2,
                                DENSE_BUDGET};
    uint32_t n = DENSE_N;
    plan_buf *b = dense(n, DENSE_SEED);
    plan_problem pb = {n, b, 64, NULL};
    uint64_t *off = calloc(n, sizeof *off), bf = 0, prev = UINT64_MAX;
    uint64_t *o2 = calloc(n, sizeof *o2), *o3 = calloc(n, sizeof *o3);
    assert_true(off && o2 && o3);
    assert_int_equal(plan_bestfit(&pb, off, &bf), 0);
    for (size_t k = 0; k < sizeof budgets / sizeof *budgets; k++) {
        uint64_t size = bf, size3 = bf;
        plan_lns_opts o = {budgets[k], plan_lower_bound(&pb), 0};
        plan_lns_out out;
        memcpy(o2, off, n * sizeof *o2);
        memcpy(o3, off, n * sizeof *o3);
        assert_int_equal(plan_lns(&pb, o2, &size, &o, &out), 0);
        assert_int_equal(plan_lns(&pb, o3, &size3, &o, &out), 0);
        assert_int_equal(size, size3);
        assert_memory_equal(o2, o3, n * sizeof *o2);
        char err[256];
        assert_true(plan_verify_problem(&pb, o2, size, err, sizeof err));
        assert_true(size <= prev);
        prev = size;
        print_message("budget %llu: bestfit %llu, lns %llu, lower bound "
                      "%llu\n",
                      (unsigned long long)budgets[k], (unsigned long long)bf,
                      (unsigned long long)size,
                      (unsigned long long)plan_lower_bound(&pb));
    }
    assert_true(prev < bf);
    free(off);
    free(o2);
    free(o3);
    free(b);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_exact_vs_brute),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_lns_monotone),
        cmocka_unit_test(test_lns_dense),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

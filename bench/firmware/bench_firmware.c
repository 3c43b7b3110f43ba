/*
 * bench/firmware/bench_firmware.c - spill: planwrap's selection
 * (plan_spill_select, docs/firmware.md) against a banked greedy in the
 * manner of ExecuTorch's `banked_greedy` (PR #21821), on the same
 * buffers, live ranges and accessed bytes.
 *
 *   bench_firmware FILE.pw...   real and generated models, then seeded
 *                               synthetic programs
 *
 * A model's pooled buffers (default options) form one problem; its fast
 * memory gets a capacity of 25%, 50% and 75% of the best-fit pool size,
 * the slow memory none.  Reported per case: the share of accessed bytes
 * in fast memory and the total of both pools, for both planners.
 *
 * The banked greedy is the planner's plan_spill_banked (written from the
 * PR's description: buffers by size descending, each at the lowest
 * aligned offset of the fast bank where it fits, else of the slow bank);
 * planwrap's totals count the spilled buffers as plan_spill_select does
 * (plan_spill_slow).
 */
#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct result {
    uint64_t fast_acc, fast_size, slow_size;
} result;

static void *xcalloc(size_t n, size_t size) {
    void *p = calloc(n + 1, size);
    if (!p)
        abort();
    return p;
}

static result banked_greedy(const plan_problem *pb, const uint64_t *acc,
                            uint64_t cap) {
    bool *fast = xcalloc(pb->n, sizeof *fast);
    uint64_t *off = xcalloc(pb->n, sizeof *off);
    result r = {0, 0, 0};
    if (plan_spill_banked(pb, cap, fast, off, &r.fast_size, &r.slow_size))
        abort();
    for (uint32_t i = 0; i < pb->n; i++)
        r.fast_acc += fast[i] ? acc[i] : 0;
    free(fast);
    free(off);
    return r;
}

static result ours(const plan_problem *pb, const uint64_t *acc, uint64_t cap) {
    bool *keep = xcalloc(pb->n, sizeof *keep);
    bool *out = xcalloc(pb->n, sizeof *out);
    uint64_t *off = xcalloc(pb->n, sizeof *off);
    result r = {0, 0, 0};
    if (plan_spill_select(pb, acc, cap, keep, off, &r.fast_size) != 0)
        abort();
    for (uint32_t i = 0; i < pb->n; i++) {
        r.fast_acc += keep[i] ? acc[i] : 0;
        out[i] = !keep[i];
    }
    if (plan_spill_slow(pb, out, off, &r.slow_size) != 0)
        abort();
    free(keep);
    free(out);
    free(off);
    return r;
}

typedef struct totals {
    int cases, more_acc, equal_acc, le_total;
    double log_acc, log_total;
} totals;

static void compare(const char *name, const plan_problem *pb,
                    const uint64_t *acc, totals *t, bool print) {
    uint64_t full, all = 0;
    uint64_t *off = calloc(pb->n + 1, sizeof *off);
    plan_bestfit(pb, off, &full);
    free(off);
    for (uint32_t i = 0; i < pb->n; i++)
        all += acc[i];
    static const int pct[] = {25, 50, 75};
    for (int k = 0; k < 3; k++) {
        uint64_t cap = full * (uint64_t)pct[k] / 100;
        result o = ours(pb, acc, cap), b = banked_greedy(pb, acc, cap);
        double ao = all ? 100.0 * (double)o.fast_acc / (double)all : 0;
        double ab = all ? 100.0 * (double)b.fast_acc / (double)all : 0;
        uint64_t to = o.fast_size + o.slow_size, tb = b.fast_size + b.slow_size;
        if (print)
            printf("%-18s %3d%% %10llu %7.1f%% %7.1f%% %10llu %10llu\n", name,
                   pct[k], (unsigned long long)cap, ao, ab,
                   (unsigned long long)to, (unsigned long long)tb);
        t->cases++;
        t->more_acc += o.fast_acc > b.fast_acc;
        t->equal_acc += o.fast_acc == b.fast_acc;
        t->le_total += to <= tb;
        if (o.fast_acc && b.fast_acc)
            t->log_acc += log((double)o.fast_acc / (double)b.fast_acc);
        if (to && tb)
            t->log_total += log((double)to / (double)tb);
    }
}

static void summary(const char *what, const totals *t) {
    printf("%s: %d cases; fast accessed bytes ours/banked geomean %.3fx "
           "(more in %d, equal in %d, fewer in %d); total ours/banked "
           "geomean %.3fx (equal or smaller in %d)\n",
           what, t->cases, exp(t->log_acc / t->cases), t->more_acc,
           t->equal_acc, t->cases - t->more_acc - t->equal_acc,
           exp(t->log_total / t->cases), t->le_total);
}

/* The pooled buffers of a model, with their accessed bytes. */
static bool model_problem(const char *path, base_arena *a, plan_problem *pb,
                          uint64_t **acc) {
    base_diag *d = base_diag_new(stderr, 0);
    ir_program *p = ir_load(a, path, d);
    plan_options o;
    plan_options_init(&o);
    plan *pl = p ? plan_program(a, p, &o, d) : NULL;
    base_diag_free(d);
    if (!pl)
        return false;
    memset(pb, 0, sizeof *pb);
    pb->align = 64;
    pb->bufs = base_arena_array(a, pl->nstorages + 1, sizeof *pb->bufs);
    *acc = base_arena_array(a, pl->nstorages + 1, sizeof **acc);
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        if (st->pool < 0)
            continue;
        plan_buf *b = &pb->bufs[pb->n];
        b->size = st->size;
        b->align = 64;
        b->start = st->start;
        b->end = st->end;
        b->color = -1;
        (*acc)[pb->n++] = st->accessed;
    }
    return true;
}

static uint64_t rnd(uint64_t *s) {
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A synthetic program: n buffers over 4n statements, mostly short lives
 * and a few long ones, sizes over three orders of magnitude, each
 * accessed by 2 to 9 calls. */
static void synthetic(uint64_t *seed, uint32_t n, plan_problem *pb,
                      plan_buf *bufs, uint64_t *acc) {
    memset(pb, 0, sizeof *pb);
    pb->n = n;
    pb->bufs = bufs;
    pb->align = 64;
    for (uint32_t i = 0; i < n; i++) {
        plan_buf *b = &bufs[i];
        memset(b, 0, sizeof *b);
        b->start = (uint32_t)(rnd(seed) % (4 * n));
        uint32_t len = rnd(seed) % 8 == 0 ? (uint32_t)(rnd(seed) % (2 * n))
                                          : (uint32_t)(rnd(seed) % 16);
        b->end = b->start + len;
        b->size = 64 << (rnd(seed) % 11);
        b->align = 64;
        b->color = -1;
        acc[i] = b->size * (2 + rnd(seed) % 8);
    }
}

int main(int argc, char **argv) {
    totals tm = {0}, ts = {0};
    printf("%-18s %4s %10s %8s %8s %10s %10s\n", "model", "fast", "capacity",
           "acc_ours", "acc_bank", "tot_ours", "tot_bank");
    for (int i = 1; i < argc; i++) {
        base_arena *a = base_arena_new();
        plan_problem pb;
        uint64_t *acc;
        if (!model_problem(argv[i], a, &pb, &acc)) {
            base_arena_free(a);
            return 1;
        }
        const char *base = strrchr(argv[i], '/');
        compare(base ? base + 1 : argv[i], &pb, acc, &tm, true);
        base_arena_free(a);
    }
    summary("models", &tm);
    enum { N = 300, RUNS = 100 };
    static plan_buf bufs[N];
    static uint64_t acc[N];
    uint64_t seed = 2026;
    for (int r = 0; r < RUNS; r++) {
        plan_problem pb;
        synthetic(&seed, N, &pb, bufs, acc);
        compare("synthetic", &pb, acc, &ts, false);
    }
    summary("synthetic (100 programs of 300 buffers)", &ts);
    return 0;
}

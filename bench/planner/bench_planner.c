/*
 * bench/planner/bench_planner.c - planner benchmarks.
 *
 *   bench_planner csv FILE.csv...    per algorithm: pool size, size / lower
 *                                    bound, time; geometric means
 *   bench_planner scale              bestfit on synthetic instances of
 *                                    10^3..10^6 buffers; fitted exponent
 *   bench_planner models FILE.pw...  bestfit vs the lower bound per pool
 *
 * Figures are measured in this run; targets are printed next to them.
 */
#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID,
                  &ts); /* CPU time: the machine is shared */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef int (*algo_fn)(const plan_problem *, uint64_t *, uint64_t *);

static int run_csv(int argc, char **argv) {
    static const algo_fn fns[] = {plan_naive, plan_reuse, plan_tree,
                                  plan_bestfit};
    static const char *const names[] = {"naive", "reuse", "tree", "bestfit"};
    double logsum[4] = {0}, worst_ms[4] = {0};
    int count = 0, bad = 0;
    printf("%-18s %-8s %12s %12s %8s %10s\n", "instance", "algo", "size",
           "lower", "ratio", "time_ms");
    for (int i = 0; i < argc; i++) {
        char *text;
        size_t len;
        if (!ir_read_file(argv[i], &text, &len, stderr))
            return 1;
        ir_arena *a = ir_arena_new();
        ir_diag *d = ir_diag_new(stderr, 0);
        plan_problem pb;
        if (!plan_read_csv(a, argv[i], text, len, &pb, d)) {
            free(text);
            ir_diag_free(d);
            ir_arena_free(a);
            return 1;
        }
        const char *base = strrchr(argv[i], '/');
        base = base ? base + 1 : argv[i];
        uint64_t lb = plan_lower_bound(&pb);
        uint64_t *off = calloc((size_t)pb.n + 1, sizeof *off);
        for (int k = 0; k < 4; k++) {
            uint64_t size = 0;
            /* best of 5 runs */
            double best = 1e30;
            for (int r = 0; r < 5; r++) {
                double t0 = now();
                fns[k](&pb, off, &size);
                double t = now() - t0;
                if (t < best)
                    best = t;
            }
            if (!plan_verify_problem(&pb, off, size, NULL, 0)) {
                printf("%s %s: INVALID PLAN\n", base, names[k]);
                bad = 1;
            }
            double ratio = (double)size / (double)lb;
            logsum[k] += log(ratio);
            if (best * 1e3 > worst_ms[k])
                worst_ms[k] = best * 1e3;
            printf("%-18s %-8s %12llu %12llu %8.3f %10.3f\n", base, names[k],
                   (unsigned long long)size, (unsigned long long)lb, ratio,
                   best * 1e3);
        }
        count++;
        free(off);
        free(text);
        ir_diag_free(d);
        ir_arena_free(a);
    }
    printf("\ngeometric mean of size / lower bound over %d instances:\n",
           count);
    for (int k = 0; k < 4; k++)
        printf("  %-8s %.3fx  (slowest instance %.3f ms)\n", names[k],
               exp(logsum[k] / count), worst_ms[k]);
    double g = exp(logsum[3] / count), gt = exp(logsum[2] / count);
    printf("bestfit: %.3fx vs target 1.30x (ratio %.3f; references: TFLM "
           "1.34x, XLA 1.35x, ExecuTorch 1.50x, Inductor tree 2.08x)\n",
           g, g / 1.30);
    printf("bestfit: slowest instance %.3f ms vs target 5 ms (ratio %.3f)\n",
           worst_ms[3], worst_ms[3] / 5.0);
    printf("tree: %.3fx vs Inductor's AllocationTree 2.08x (ratio %.3f)\n", gt,
           gt / 2.08);
    return bad;
}

static uint64_t rnd(uint64_t *s) {
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* A synthetic schedule: n buffers over n statements; most live a few
 * statements, a few live long (weights, skip connections). */
static void synth(plan_problem *pb, uint32_t n, uint64_t seed) {
    uint64_t s = seed;
    pb->n = n;
    pb->align = 64;
    pb->names = NULL;
    pb->bufs = calloc(n, sizeof *pb->bufs);
    for (uint32_t i = 0; i < n; i++) {
        plan_buf *b = &pb->bufs[i];
        b->start = i;
        uint64_t r = rnd(&s) % 100;
        uint32_t len = r < 90   ? 1 + (uint32_t)(rnd(&s) % 8)
                       : r < 99 ? 1 + (uint32_t)(rnd(&s) % 64)
                                : 1 + (uint32_t)(rnd(&s) % 1024);
        b->end = i + len;
        b->size = 64 * (1 + rnd(&s) % 256);
        b->align = 1;
        b->reuse_key = b->size;
        b->color = -1;
    }
}

static int run_scale(void) {
    uint32_t ns[] = {1000, 10000, 100000, 1000000};
    double t[4];
    printf("%-10s %12s %12s %8s %10s\n", "buffers", "size", "lower", "ratio",
           "time_s");
    for (int k = 0; k < 4; k++) {
        plan_problem pb;
        synth(&pb, ns[k], 42 + (uint64_t)k);
        uint64_t *off = calloc(ns[k], sizeof *off);
        uint64_t size = 0;
        double t0 = now();
        plan_bestfit(&pb, off, &size);
        t[k] = now() - t0;
        uint64_t lb = plan_lower_bound(&pb);
        int ok = plan_verify_problem(&pb, off, size, NULL, 0);
        printf("%-10u %12llu %12llu %8.3f %10.3f%s\n", ns[k],
               (unsigned long long)size, (unsigned long long)lb,
               (double)size / (double)lb, t[k], ok ? "" : "  INVALID");
        free(off);
        free(pb.bufs);
        if (!ok)
            return 1;
    }
    /* least-squares slope of log t against log n, on the time per pass
     * (bestfit runs 11 passes up to 131072 buffers, 2 above) */
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (int k = 0; k < 4; k++) {
        double tp = t[k] / (ns[k] > 131072 ? 2.0 : 11.0);
        double x = log((double)ns[k]), y = log(tp > 1e-9 ? tp : 1e-9);
        sx += x;
        sy += y;
        sxx += x * x;
        sxy += x * y;
    }
    double slope = (4 * sxy - sx * sy) / (4 * sxx - sx * sx);
    printf("fitted exponent of the time per pass: n^%.2f (n log n is about "
           "n^1.05-1.1 here; a plain first fit took 35 s at 10^6, "
           "quadratic)\n",
           slope);
    printf("bestfit at 10^6 buffers: %.3f s vs target 2 s (ratio %.3f)\n", t[3],
           t[3] / 2.0);
    return 0;
}

static int run_models(int argc, char **argv) {
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        ir_arena *a = ir_arena_new();
        ir_diag *d = ir_diag_new(stderr, 0);
        FILE *null = fopen("/dev/null", "w");
        ir_diag *quiet = ir_diag_new(null ? null : stderr, 0);
        ir_program *p = ir_load(a, argv[i], quiet);
        if (!p) {
            ir_diag_free(quiet);
            if (null)
                fclose(null);
            ir_diag_free(d);
            ir_arena_free(a);
            fprintf(stderr, "%s: does not check\n", argv[i]);
            return 1;
        }
        plan_options o;
        plan_options_init(&o);
        o.verify = true;
        double t0 = now();
        plan *pl = plan_program(a, p, &o, d);
        double dt = now() - t0;
        for (uint32_t k = 0; pl && k < pl->npools; k++) {
            const plan_pool *pool = &pl->pools[k];
            printf("%-14s %-22s bestfit %10llu lower %10llu ratio %.4f "
                   "naive %10llu  %.2f ms%s\n",
                   p->model, pool->name, (unsigned long long)pool->size,
                   (unsigned long long)pool->lower_bound,
                   (double)pool->size / (double)pool->lower_bound,
                   (unsigned long long)pool->naive_size, dt * 1e3,
                   pool->size == pool->lower_bound ? "  = lower bound" : "");
        }
        if (!pl)
            bad = 1;
        ir_diag_free(quiet);
        if (null)
            fclose(null);
        ir_diag_free(d);
        ir_arena_free(a);
    }
    return bad;
}

int main(int argc, char **argv) {
    if (argc >= 2 && strcmp(argv[1], "csv") == 0)
        return run_csv(argc - 2, argv + 2);
    if (argc >= 2 && strcmp(argv[1], "scale") == 0)
        return run_scale();
    if (argc >= 2 && strcmp(argv[1], "models") == 0)
        return run_models(argc - 2, argv + 2);
    fprintf(stderr, "usage: bench_planner csv FILE...|scale|models FILE...\n");
    return 2;
}

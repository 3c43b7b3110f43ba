/*
 * bench/schedule/bench_schedule.c - peak memory and time of every order
 * (docs/schedule.md, "Benchmarks").
 *
 *   bench_schedule graphs SEEDS N...   random irregular graphs in
 *                                      breadth-first order
 *   bench_schedule models FILE.pw...   programs in their given order
 *   bench_schedule models-bfs FILE.pw... the same programs rewritten in
 *                                      breadth-first order (Kahn, FIFO)
 *
 * Prints, per graph, the peak of the given order, lpmf, bfs, dfs, list
 * and best, best / the best baseline, and the CPU time of best (baselines
 * included).  `graphs` ends with the targets as ratios: geomean of best /
 * best baseline <= 0.90, best never above a baseline, 1,000 calls < 1 s,
 * 10,000 < 10 s; exit status 1 when one is missed.
 */
#define _POSIX_C_SOURCE 200809L
#include "sched_gen.h"

#include "planner/schedule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double bench_now(void) {
    struct timespec ts;
    clock_gettime(
        CLOCK_PROCESS_CPUTIME_ID,
        &ts); /* single-threaded: CPU time, steady on a shared machine */
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

typedef struct bench_acc {
    double log_ratio;
    unsigned count, above;
    double worst_time[2]; /* up to 1,000 and up to 10,000 calls */
} bench_acc;

/* One row; returns best / best baseline (0 when it could not run). */
static double bench_row(const char *name, const plan_sched_graph *g,
                        bench_acc *acc) {
    uint32_t *order = malloc(((size_t)g->n + 1) * sizeof *order);
    plan_sched_stats st;
    double t0 = bench_now();
    if (!order || plan_sched_order(g, PLAN_ORDER_BEST, NULL, order, &st)) {
        free(order);
        printf("%-24s out of memory\n", name);
        return 0;
    }
    double dt = bench_now() - t0;
    uint64_t base = UINT64_MAX;
    for (plan_order a = PLAN_ORDER_LPMF; a < PLAN_ORDER_BEST; a++)
        base = st.peak[a] < base ? st.peak[a] : base;
    uint64_t best = st.peak[PLAN_ORDER_BEST];
    double r = base ? (double)best / (double)base : 1.0;
    printf(
        "%-24s %6u %10.3f %6.3f %6.3f %6.3f %6.3f %6.3f %8.3f %-5s %3u/%-3u\n",
        name, g->n, (double)st.peak_given / 1024.0,
        (double)st.peak[PLAN_ORDER_LPMF] / st.peak_given,
        (double)st.peak[PLAN_ORDER_BFS] / st.peak_given,
        (double)st.peak[PLAN_ORDER_DFS] / st.peak_given,
        (double)st.peak[PLAN_ORDER_LIST] / st.peak_given, r, dt,
        st.won_by ? st.won_by : "?", st.exact_segments, st.segments);
    if (acc) {
        acc->log_ratio += log(r);
        acc->count++;
        for (plan_order a = PLAN_ORDER_KEEP; a < PLAN_ORDER_BEST; a++)
            acc->above += best > st.peak[a];
        int k = g->n <= 1100 ? 0 : 1;
        acc->worst_time[k] = dt > acc->worst_time[k] ? dt : acc->worst_time[k];
    }
    char err[256];
    if (!plan_sched_verify(g, order, err, sizeof err)) {
        printf("  VERIFY FAILED: %s\n", err);
        if (acc)
            acc->above++;
    }
    free(order);
    return r;
}

static void bench_header(void) {
    printf("%-24s %6s %10s %6s %6s %6s %6s %6s %8s %-5s %s\n", "graph", "calls",
           "given KiB", "lpmf", "bfs", "dfs", "list", "best/b", "cpu s", "won",
           "exact/segments");
    printf("(lpmf..list: peak / given; best/b: best / best of the four "
           "baselines)\n");
}

static int bench_graphs(unsigned seeds, int argc, char **argv) {
    bench_acc acc = {0};
    bench_header();
    for (int i = 0; i < argc; i++) {
        uint32_t n = (uint32_t)strtoul(argv[i], NULL, 10);
        for (sgen_kind k = SGEN_RANDWIRE; k <= SGEN_FUSED; k++)
            for (unsigned s = 1; s <= seeds; s++) {
                sgen_graph gg;
                plan_sched_graph *g = NULL;
                if (sgen_make(k, n, s, &gg))
                    g = sgen_sched_graph(&gg, 0);
                char name[64];
                snprintf(name, sizeof name, "%s-%u-s%u", sgen_name(k), n, s);
                if (g)
                    bench_row(name, g, &acc);
                plan_sched_graph_free(g);
                sgen_free(&gg);
            }
    }
    double gm = acc.count ? exp(acc.log_ratio / acc.count) : 1.0;
    printf("\ntargets (as ratios, 1.00 or less meets the target):\n");
    printf("  geomean best / best baseline over %u graphs: %.3f; / 0.90 = "
           "%.3f\n",
           acc.count, gm, gm / 0.90);
    printf("  best above a baseline (or failed verification): %u times "
           "(target 0)\n",
           acc.above);
    printf("  worst time <= 1,000 calls: %.3f s; / 1 s = %.3f\n",
           acc.worst_time[0], acc.worst_time[0]);
    printf("  worst time <= 10,000 calls: %.3f s; / 10 s = %.3f\n",
           acc.worst_time[1], acc.worst_time[1] / 10.0);
    return gm <= 0.90 && acc.above == 0 && acc.worst_time[0] < 1.0 &&
                   acc.worst_time[1] < 10.0
               ? 0
               : 1;
}

/* g renumbered in breadth-first order (a valid order: the dependencies
 * derived again from it are the same). */
static plan_sched_graph *bench_bfs(const plan_sched_graph *g) {
    uint32_t n = g->n, *q = malloc((n + 1) * sizeof *q);
    uint32_t *indeg = malloc((n + 1) * sizeof *indeg);
    uint32_t *off = malloc((n + 1) * sizeof *off);
    uint32_t *use = malloc((g->use_off[n] + 1) * sizeof *use);
    uint8_t *mode = malloc(g->use_off[n] + 1);
    plan_sched_graph *b = NULL;
    if (q && indeg && off && use && mode) {
        uint32_t qt = 0, k = 0;
        for (uint32_t v = 0; v < n; v++)
            if ((indeg[v] = g->pred_off[v + 1] - g->pred_off[v]) == 0)
                q[qt++] = v;
        for (uint32_t qh = 0; qh < qt; qh++) {
            uint32_t v = q[qh];
            for (uint32_t e = g->succ_off[v]; e < g->succ_off[v + 1]; e++)
                if (--indeg[g->succ[e]] == 0)
                    q[qt++] = g->succ[e];
            off[qh] = k;
            for (uint32_t u = g->use_off[v]; u < g->use_off[v + 1]; u++) {
                use[k] = g->use[u];
                mode[k++] = g->use_mode[u];
            }
        }
        off[n] = k;
        b = plan_sched_graph_new(n, g->nstor, off, use, mode, g->size, g->keep);
    }
    free(q);
    free(indeg);
    free(off);
    free(use);
    free(mode);
    return b;
}

static int bench_models(int argc, char **argv, bool bfs) {
    bench_header();
    int rc = 0;
    for (int i = 0; i < argc; i++) {
        base_arena *a = base_arena_new();
        base_diag *d = base_diag_new(stderr, 0);
        ir_program *p = ir_load(a, argv[i], d);
        plan_sched_graph *g = p ? plan_sched_graph_build(p) : NULL;
        if (g && bfs) {
            plan_sched_graph *h = bench_bfs(g);
            plan_sched_graph_free(g);
            g = h;
        }
        const char *b = strrchr(argv[i], '/');
        if (g)
            bench_row(b ? b + 1 : argv[i], g, NULL);
        else
            rc = 1;
        plan_sched_graph_free(g);
        base_diag_free(d);
        base_arena_free(a);
    }
    return rc;
}

int main(int argc, char **argv) {
    if (argc >= 3 && strcmp(argv[1], "graphs") == 0)
        return bench_graphs((unsigned)strtoul(argv[2], NULL, 10), argc - 3,
                            argv + 3);
    if (argc >= 2 && strcmp(argv[1], "models") == 0)
        return bench_models(argc - 2, argv + 2, false);
    if (argc >= 2 && strcmp(argv[1], "models-bfs") == 0)
        return bench_models(argc - 2, argv + 2, true);
    fprintf(stderr, "usage: bench_schedule graphs SEEDS N... | models "
                    "FILE.pw... | models-bfs FILE.pw...\n");
    return 2;
}

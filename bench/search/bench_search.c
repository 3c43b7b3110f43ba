/*
 * bench/search/bench_search.c - figures for the search planner.
 *
 *   bench_search fit CAPACITY BUDGET TIME_LIMIT FILE.csv...
 *       capacity mode on minimalloc instances: fits?, time, lower bound
 *   bench_search min BUDGET TIME_LIMIT FILE.csv...
 *       minimisation: smallest pool found, lower bound, time
 *   bench_search auto FILE.csv...
 *       `auto` (the default algorithm) per instance: size / 1048576,
 *       size / lower bound, CPU and wall time (the fastest of 3 runs),
 *       which won; geometric means
 *   bench_search auto-budget BUDGET FILE.csv...
 *       `auto` within BUDGET steps: size / lower bound per instance, and
 *       their geometric mean (one run each)
 *   bench_search vs FILE.csv...
 *       `auto` against `bestfit` on (synthetic) instances: size ratio
 *   bench_search models BUDGET FILE.pw...
 *       every pool of real models: auto and search vs bestfit (never
 *       worse), auto / lower bound
 *
 * BUDGET 0 = the default; TIME_LIMIT 0 = none (a safety stop only).
 */
#include "planner/planner.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *base(const char *p) {
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

typedef enum { RUN_SEARCH, RUN_AUTO, RUN_BESTFIT } run_kind;

static int run_algo(run_kind k, const plan_problem *pb,
                    const plan_search_opts *o, uint64_t *off, uint64_t *size,
                    plan_search_stats *st) {
    memset(st, 0, sizeof *st);
    if (k == RUN_BESTFIT)
        return plan_bestfit(pb, off, size);
    return k == RUN_AUTO ? plan_auto(pb, o, off, size, st)
                         : plan_search(pb, o, off, size, st);
}

/* The wall time of the fastest of the last one_k's runs. */
typedef struct wall_out {
    double secs;
} wall_out;

/* Runs one instance `reps` times (CPU time, the fastest run; the fastest
 * wall time into *wall when not NULL); returns 0 when the plan
 * verifies. */
static int one_kw(const char *path, run_kind k, int reps,
                  const plan_search_opts *o, double *secs, uint64_t *size_out,
                  plan_search_stats *st, wall_out *wall) {
    size_t len = 0;
    char *text;
    base_diag *d = base_diag_new(stderr, 10);
    if (!ir_read_file(path, &text, &len, d)) {
        base_diag_free(d);
        return 1;
    }
    base_arena *a = base_arena_new();
    plan_problem pb;
    int rc = 1;
    if (plan_read_csv(a, path, text, len, &pb, d)) {
        uint64_t *off = calloc((size_t)pb.n + 1, sizeof *off), size = 0;
        int r = off ? 0 : -1;
        *secs = 1e30;
        double w = 1e30;
        for (int i = 0; i < reps && r == 0; i++) {
            double t0 = cpu_now(), w0 = now();
            r = run_algo(k, &pb, o, off, &size, st);
            double t = cpu_now() - t0, tw = now() - w0;
            *secs = t < *secs ? t : *secs;
            w = tw < w ? tw : w;
        }
        if (wall)
            wall->secs = w;
        if (r == 0) {
            *size_out = size;
            char err[256];
            if (plan_verify_problem(&pb, off, size, err, sizeof err))
                rc = 0;
            else
                fprintf(stderr, "%s: INVALID PLAN: %s\n", path, err);
        }
        free(off);
    }
    base_diag_free(d);
    base_arena_free(a);
    free(text);
    return rc;
}

static int one_k(const char *path, run_kind k, int reps,
                 const plan_search_opts *o, double *secs, uint64_t *size_out,
                 plan_search_stats *st) {
    return one_kw(path, k, reps, o, secs, size_out, st, NULL);
}

/* plan_search, CPU time of one run. */
static int one(const char *path, const plan_search_opts *o, double *secs,
               uint64_t *size_out, plan_search_stats *st) {
    return one_k(path, RUN_SEARCH, 1, o, secs, size_out, st);
}

static int run_fit(int argc, char **argv) {
    plan_search_opts o = {0};
    o.capacity = strtoull(argv[0], NULL, 10);
    o.budget = strtoull(argv[1], NULL, 10);
    o.time_limit = atof(argv[2]);
    double total = 0;
    int solved = 0, n = 0, bad = 0;
    for (int i = 3; i < argc; i++) {
        double t = 0;
        uint64_t size = 0;
        plan_search_stats st;
        if (one(argv[i], &o, &t, &size, &st)) {
            bad = 1;
            continue;
        }
        char msg[300];
        plan_search_describe(msg, sizeof msg, size, &o, &st);
        printf("%-16s %-6s %7.2f s  lower bound %8llu  best-fit %8llu  %s\n",
               base(argv[i]), st.fits ? "FITS" : "NO", t,
               (unsigned long long)st.lower_bound,
               (unsigned long long)st.start_size, msg);
        fflush(stdout);
        total += t;
        n++;
        solved += st.fits;
    }
    printf("solved %d/%d, total %.2f s; target all solved in < 36 s "
           "(ratio %.2f)\n",
           solved, n, total, total / 36.0);
    return bad;
}

static int run_min(int argc, char **argv) {
    plan_search_opts o = {0};
    o.budget = strtoull(argv[0], NULL, 10);
    o.time_limit = atof(argv[1]);
    int bad = 0;
    for (int i = 2; i < argc; i++) {
        double t = 0;
        uint64_t size = 0;
        plan_search_stats st;
        if (one(argv[i], &o, &t, &size, &st)) {
            bad = 1;
            continue;
        }
        char msg[300];
        plan_search_describe(msg, sizeof msg, size, &o, &st);
        printf("%-16s smallest %8llu  lower bound %8llu  ratio %.4f  "
               "%6.2f s  %s\n",
               base(argv[i]), (unsigned long long)size,
               (unsigned long long)st.lower_bound,
               (double)size / (double)st.lower_bound, t, msg);
        fflush(stdout);
    }
    return bad;
}

#define MM_CAP 1048576.0 /* every minimalloc instance fits in it */

/* auto (fastest of reps runs: CPU *t, wall *w) and bestfit (one run) on
 * one instance. */
static int auto_and_bestfit(const char *path, int reps, double *t,
                            uint64_t *size, plan_search_stats *st, double *tb,
                            uint64_t *bsize, wall_out *w) {
    plan_search_stats sb;
    return one_kw(path, RUN_AUTO, reps, NULL, t, size, st, w) ||
           one_k(path, RUN_BESTFIT, 1, NULL, tb, bsize, &sb);
}

static int run_auto(int argc, char **argv) {
    double lc = 0, ll = 0, lb = 0, slow = 0, slow_w = 0;
    int n = 0, bad = 0;
    printf("%-15s %9s %9s %8s %8s %8s %6s %6s  %s\n", "instance", "bestfit",
           "auto", "/1048576", "/lower", "bf/1M", "ms", "wall", "outcome");
    for (int i = 0; i < argc; i++) {
        double t = 0, tb = 0;
        uint64_t size = 0, bsize = 0;
        plan_search_stats st;
        wall_out w = {0};
        if (auto_and_bestfit(argv[i], 3, &t, &size, &st, &tb, &bsize, &w)) {
            bad = 1;
            continue;
        }
        char msg[300];
        plan_auto_describe(msg, sizeof msg, size, NULL, &st);
        double rc = (double)size / MM_CAP;
        double rl = (double)size / (double)st.lower_bound;
        printf("%-15s %9llu %9llu %8.4f %8.4f %8.4f %6.1f %6.1f  %s\n",
               base(argv[i]), (unsigned long long)bsize,
               (unsigned long long)size, rc, rl, (double)bsize / MM_CAP,
               t * 1e3, w.secs * 1e3, msg);
        fflush(stdout);
        lc += log(rc);
        ll += log(rl);
        lb += log((double)bsize / MM_CAP);
        slow = t > slow ? t : slow;
        slow_w = w.secs > slow_w ? w.secs : slow_w;
        n++;
    }
    if (n == 0)
        return 1;
    double gc = exp(lc / n), gl = exp(ll / n), gb = exp(lb / n);
    printf("auto geomean over %d: %.4fx of the lower bound (target 1.05x: "
           "ratio %.3f), %.4fx of 1048576 (ratio %.3f); bestfit %.4fx of "
           "1048576\n",
           n, gl, gl / 1.05, gc, gc / 1.05, gb);
    printf("auto slowest instance %.1f ms CPU (target 50 ms: ratio %.2f), "
           "%.1f ms wall (ratio %.2f), the fastest of 3 runs\n",
           slow * 1e3, slow * 1e3 / 50.0, slow_w * 1e3, slow_w * 1e3 / 50.0);
    return bad;
}

/* auto within --search-budget BUDGET: size / lower bound per instance
 * (one run each) and their geometric mean. */
static int run_auto_budget(uint64_t budget, int argc, char **argv) {
    double ll = 0;
    int n = 0, bad = 0;
    printf("budget %8llu:", (unsigned long long)budget);
    for (int i = 0; i < argc; i++) {
        double t = 0;
        uint64_t size = 0;
        plan_search_stats st;
        plan_search_opts o = {.budget = budget};
        if (one_k(argv[i], RUN_AUTO, 1, &o, &t, &size, &st)) {
            bad = 1;
            continue;
        }
        double rl = (double)size / (double)st.lower_bound;
        printf(" %.3f", rl);
        ll += log(rl);
        n++;
    }
    if (n == 0)
        return 1;
    printf("  geomean %.4fx of the lower bound\n", exp(ll / n));
    return bad;
}

static int run_vs(int argc, char **argv) {
    int bad = 0;
    for (int i = 0; i < argc; i++) {
        double t = 0, tb = 0;
        uint64_t size = 0, bsize = 0;
        plan_search_stats st;
        if (auto_and_bestfit(argv[i], 1, &t, &size, &st, &tb, &bsize, NULL)) {
            bad = 1;
            continue;
        }
        printf("%-22s auto / bestfit %.4f (auto %llu, bestfit %llu, lower "
               "bound %llu; %llu steps; %.0f ms vs %.0f ms)\n",
               base(argv[i]), (double)size / (double)bsize,
               (unsigned long long)size, (unsigned long long)bsize,
               (unsigned long long)st.lower_bound, (unsigned long long)st.steps,
               t * 1e3, tb * 1e3);
        if (size > bsize)
            bad = 1;
    }
    return bad;
}

static const char *model_verdict(const plan_pool *b, const plan_pool *x) {
    return x->size > b->size           ? "WORSE THAN BESTFIT"
           : x->size == x->lower_bound ? "= lower bound"
           : x->size < b->size         ? "better"
                                       : "same";
}

/* Every pool of real models: bestfit, search (BUDGET) and auto; auto's
 * ratio to the lower bound. */
static int run_models(int argc, char **argv) {
    int bad = 0, pools = 0, at_lb = 0;
    uint64_t budget = strtoull(argv[0], NULL, 10);
    static const plan_algo algos[3] = {PLAN_BESTFIT, PLAN_SEARCH, PLAN_AUTO};
    for (int i = 1; i < argc; i++) {
        base_arena *a = base_arena_new();
        base_diag *d = base_diag_new(stderr, 10);
        ir_program *p = ir_load(a, argv[i], d);
        plan *pl[3] = {NULL, NULL, NULL};
        double t[3] = {0, 0, 0};
        for (int k = 0; p && k < 3; k++) {
            plan_options o;
            plan_options_init(&o);
            o.verify = true;
            o.algo = algos[k];
            o.search.budget = k == 1 ? budget : 0;
            double t0 = now();
            pl[k] = plan_program(a, p, &o, d);
            t[k] = now() - t0;
        }
        bool ok = pl[0] && pl[1] && pl[2] && pl[0]->npools == pl[1]->npools &&
                  pl[0]->npools == pl[2]->npools;
        if (!ok) {
            fprintf(stderr, "%s: cannot plan\n", argv[i]);
            bad = 1;
        }
        for (uint32_t k = 0; ok && k < pl[0]->npools; k++) {
            const plan_pool *b = &pl[0]->pools[k], *s = &pl[1]->pools[k],
                            *u = &pl[2]->pools[k];
            double r =
                u->lower_bound ? (double)u->size / (double)u->lower_bound : 1.0;
            printf("%-18s %-12s bestfit %10llu search %10llu (%s) auto "
                   "%10llu (%s), auto / lower bound %.4f (%.2f s)\n",
                   base(argv[i]), s->name, (unsigned long long)b->size,
                   (unsigned long long)s->size, model_verdict(b, s),
                   (unsigned long long)u->size, model_verdict(b, u), r, t[2]);
            if (s->size > b->size || u->size > b->size)
                bad = 1;
            pools++;
            at_lb += u->size == u->lower_bound;
        }
        base_diag_free(d);
        base_arena_free(a);
    }
    printf("models: auto at the lower bound on %d of %d pools (target: "
           "all)\n",
           at_lb, pools);
    return bad;
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "fit") == 0)
        return run_fit(argc - 2, argv + 2);
    if (argc >= 4 && strcmp(argv[1], "min") == 0)
        return run_min(argc - 2, argv + 2);
    if (argc >= 3 && strcmp(argv[1], "models") == 0)
        return run_models(argc - 2, argv + 2);
    if (argc >= 3 && strcmp(argv[1], "auto") == 0)
        return run_auto(argc - 2, argv + 2);
    if (argc >= 3 && strcmp(argv[1], "vs") == 0)
        return run_vs(argc - 2, argv + 2);
    if (argc >= 4 && strcmp(argv[1], "auto-budget") == 0)
        return run_auto_budget(strtoull(argv[2], NULL, 10), argc - 3, argv + 3);
    fprintf(stderr, "usage: bench_search fit CAP BUDGET TIME FILE...|"
                    "min BUDGET TIME FILE...|models BUDGET FILE...|"
                    "auto FILE...|vs FILE...|auto-budget BUDGET FILE...\n");
    return 2;
}

/*
 * bench/search/bench_search.c - figures for the search planner.
 *
 *   bench_search fit CAPACITY BUDGET TIME_LIMIT FILE.csv...
 *       capacity mode on minimalloc instances: fits?, time, lower bound
 *   bench_search min BUDGET TIME_LIMIT FILE.csv...
 *       minimisation: smallest pool found, lower bound, time
 *   bench_search models BUDGET FILE.pw...
 *       every pool of real models: search vs bestfit (never worse)
 *
 * BUDGET 0 = the default; TIME_LIMIT 0 = none (a safety stop only).
 */
#include "planner/planner.h"

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

/* Runs one instance; returns 0 when the plan verifies. */
static int one(const char *path, const plan_search_opts *o, double *secs,
               uint64_t *size_out, plan_search_stats *st) {
    size_t len = 0;
    char *text;
    if (!ir_read_file(path, &text, &len, stderr))
        return 1;
    ir_arena *a = ir_arena_new();
    ir_diag *d = ir_diag_new(stderr, 10);
    plan_problem pb;
    int rc = 1;
    if (plan_read_csv(a, path, text, len, &pb, d)) {
        uint64_t *off = calloc((size_t)pb.n + 1, sizeof *off), size = 0;
        double t0 = now();
        if (off && plan_search(&pb, o, off, &size, st) == 0) {
            *secs = now() - t0;
            *size_out = size;
            char err[256];
            if (plan_verify_problem(&pb, off, size, err, sizeof err))
                rc = 0;
            else
                fprintf(stderr, "%s: INVALID PLAN: %s\n", path, err);
        }
        free(off);
    }
    ir_diag_free(d);
    ir_arena_free(a);
    free(text);
    return rc;
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

static int run_models(int argc, char **argv) {
    int bad = 0;
    uint64_t budget = strtoull(argv[0], NULL, 10);
    for (int i = 1; i < argc; i++) {
        ir_arena *a = ir_arena_new();
        ir_diag *d = ir_diag_new(stderr, 10);
        ir_program *p = ir_load(a, argv[i], d);
        plan *pl[2] = {NULL, NULL};
        double t[2] = {0, 0};
        for (int k = 0; p && k < 2; k++) {
            plan_options o;
            plan_options_init(&o);
            o.verify = true;
            o.algo = k ? PLAN_SEARCH : PLAN_BESTFIT;
            o.search.budget = budget;
            double t0 = now();
            pl[k] = plan_program(a, p, &o, d);
            t[k] = now() - t0;
        }
        if (!pl[0] || !pl[1] || pl[0]->npools != pl[1]->npools) {
            fprintf(stderr, "%s: cannot plan\n", argv[i]);
            bad = 1;
        }
        for (uint32_t k = 0; !bad && k < pl[0]->npools; k++) {
            const plan_pool *b = &pl[0]->pools[k], *s = &pl[1]->pools[k];
            bool worse = s->size > b->size;
            printf("%-24s %-20s bestfit %10llu search %10llu lower %10llu "
                   "%s  (%.2f s)\n",
                   base(argv[i]), s->name, (unsigned long long)b->size,
                   (unsigned long long)s->size,
                   (unsigned long long)s->lower_bound,
                   worse                       ? "WORSE THAN BESTFIT"
                   : s->size == s->lower_bound ? "= lower bound"
                   : s->size < b->size         ? "better"
                                               : "same",
                   t[1]);
            if (worse)
                bad = 1;
        }
        ir_diag_free(d);
        ir_arena_free(a);
    }
    return bad;
}

int main(int argc, char **argv) {
    if (argc >= 5 && strcmp(argv[1], "fit") == 0)
        return run_fit(argc - 2, argv + 2);
    if (argc >= 4 && strcmp(argv[1], "min") == 0)
        return run_min(argc - 2, argv + 2);
    if (argc >= 3 && strcmp(argv[1], "models") == 0)
        return run_models(argc - 2, argv + 2);
    fprintf(stderr, "usage: bench_search fit CAP BUDGET TIME FILE...|"
                    "min BUDGET TIME FILE...|models BUDGET FILE...\n");
    return 2;
}

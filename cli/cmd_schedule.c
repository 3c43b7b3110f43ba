/*
 * cli/cmd_schedule.c - `planwrap schedule`: reorder a program's calls
 * for a lower peak memory and write it back as IR (docs/schedule.md).
 *
 *   planwrap schedule [--order O] [--budget N] [-o OUT.pw] FILE.pw
 *
 * The program is written atomically (default stdout); one summary line
 * goes to stderr.  Nothing is written on an error.
 */
#include "base/base.h"
#include "cli/cli.h"

#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The help below gives the default budget in words. */
_Static_assert(PLAN_SCHED_BUDGET_BASE == 4000000 &&
                   PLAN_SCHED_BUDGET_PER_NODE == 2000,
               "--budget's help names the default budget");

static void cli_schedule_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap schedule [options] FILE.pw\n"
            "\n"
            "Reorders the calls of a checked IR v1 program for a lower peak\n"
            "memory, keeping every dependency, and prints the program with\n"
            "allocs moved just before their first use and frees just after\n"
            "their last.  One summary line goes to standard error: the peak\n"
            "of the given order and of the result, and which order won.\n"
            "FILE `-` is standard input.  Exit status: 0 ok, 1 invalid\n"
            "input, 2 bad usage.\n"
            "\n"
            "options:\n"
            "  --order O            keep, lpmf, bfs, dfs, list, best "
            "(default) or\n"
            "                       partitions (fewest runs of capturable "
            "calls)\n"
            "  --budget N           best: search steps (default 4000000 + "
            "2000 per call)\n"
            "  -q, --quiet          no summary line\n"
            "  -o, --output OUT     write to OUT (default `-`, stdout)\n"
            "  -h, --help           show this help\n");
}

/* planwrap: schedule: peak GIVEN -> PEAK bytes (RATIO), order O (won by
 * W); lpmf P, bfs P, dfs P, list P; segments S (E exact), steps N */
static void cli_schedule_summary(FILE *f, plan_order alg,
                                 const plan_sched_stats *st) {
    uint64_t peak = st->peak[alg];
    fprintf(f, "planwrap: schedule: peak %" PRIu64 " -> %" PRIu64 " bytes (",
            st->peak_given, peak);
    base_fprint_ratio(f, peak, st->peak_given);
    fprintf(f, "x), order %s", plan_order_name(alg));
    if (alg == PLAN_ORDER_PARTITIONS) {
        fprintf(f, "%s; partitions %" PRIu32 " -> %" PRIu32 "\n",
                strcmp(st->won_by, "keep") == 0
                    ? " (kept the given order: the peak would grow more than "
                      "1.1x)"
                    : "",
                st->parts_given, st->parts);
        return;
    }
    if (alg != PLAN_ORDER_BEST) {
        fputc('\n', f);
        return;
    }
    fprintf(f, " (won by %s);", st->won_by ? st->won_by : "?");
    for (plan_order a = PLAN_ORDER_LPMF; a < PLAN_ORDER_BEST; a++)
        fprintf(f, " %s %" PRIu64 "%s", plan_order_name(a), st->peak[a],
                a + 1 < PLAN_ORDER_BEST ? "," : ";");
    fprintf(f, " segments %" PRIu32 " (%" PRIu32 " exact), steps %" PRIu64 "\n",
            st->segments, st->exact_segments, st->steps);
}

static int cli_schedule_run(base_diag *d, const char *path, plan_order alg,
                            const plan_sched_opts *so, bool quiet,
                            const char *outpath) {
    base_arena *a = base_arena_new();
    int status = 1;
    plan_sched_stats st;
    ir_program *p = ir_load(a, path, d);
    ir_program *np = p ? plan_sched_program(a, p, alg, so, d, &st) : NULL;
    if (np) {
        status = cli_write_program(outpath, np, d) ? 0 : 1;
        if (status == 0 && !quiet)
            cli_schedule_summary(stderr, alg, &st);
    }
    base_arena_free(a);
    return status;
}

int cli_cmd_schedule(base_diag *d, int argc, char **argv) {
    static const struct option longopts[] = {
        {"order", required_argument, NULL, 'O'},
        {"budget", required_argument, NULL, 'b'},
        {"quiet", no_argument, NULL, 'q'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    plan_order alg = PLAN_ORDER_BEST;
    plan_sched_opts so = {0};
    bool quiet = false;
    const char *outpath = "-";
    cli_opts o;
    cli_opts_init(&o, d, "schedule", argc, argv, ":o:qh", longopts);
    int c;
    while ((c = cli_opts_next(&o)) != -1) {
        switch (c) {
        case 'O':
            if (!plan_order_parse(optarg, &alg))
                return cli_usage_error(d, "schedule",
                                       "invalid value '%s' for --order: "
                                       "expected keep, lpmf, bfs, dfs, list, "
                                       "best or partitions",
                                       optarg);
            break;
        case 'b': {
            char *end = NULL;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (!*optarg || *end || optarg[0] == '-' || v == 0 || v > INT64_MAX)
                return cli_usage_error(d, "schedule",
                                       "invalid value '%s' for --budget: "
                                       "expected a positive integer",
                                       optarg);
            so.budget = v;
            break;
        }
        case 'q':
            quiet = true;
            break;
        case 'o':
            outpath = optarg;
            break;
        case 'h':
            cli_schedule_usage(stdout);
            return 0;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    const char *path = cli_opts_operand(&o, "FILE.pw");
    if (!path)
        return 2;
    return cli_schedule_run(d, path, alg, &so, quiet, outpath);
}

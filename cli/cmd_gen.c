/*
 * cli/cmd_gen.c - `planwrap gen MODEL.pw --target c|cuda -o DIR`.
 *
 * The whole pipeline in one function: load (parse + check) -> plan ->
 * view -> render every template of the target -> write.  Files are
 * written (each atomically) only after every earlier step succeeded, so a
 * failing run leaves DIR as it was.
 */
#include "cli/cli.h"
#include "templates/mustache.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

static void cli_gen_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap gen MODEL.pw [--target c|cuda] -o DIR "
            "[options]\n"
            "\n"
            "Plans MODEL.pw and writes wrapper sources into DIR (created "
            "when missing):\n"
            "MODEL.h, MODEL_kernels.h and MODEL.c (or MODEL.cu).\n"
            "\n"
            "options:\n"
            "  -t, --target T       c (default) or cuda\n"
            "  -o, --output DIR     output directory (required)\n"
            "  --templates DIR      templates in DIR/<target>/NAME.mustache "
            "override\n"
            "                       the built-in ones of the same name\n"
            "  --kernel-status      kernels return int; a non-zero result "
            "is returned\n"
            "                       by the run function at once\n"
            "  --cuda-graphs        cuda: capture each run of capturable "
            "calls into a\n"
            "                       CUDA graph once and replay it\n"
            "  -h, --help           show this help\n"
            "\n"
            "planning options:\n%s",
            cli_plan_options_help);
}

/* PLANWRAP_TIMES=1 in the environment prints the CPU and wall time of
 * every phase of `gen` to stderr (for bench/codegen/run.sh). */
typedef struct cli_clock {
    bool on;
    double cpu, wall;
} cli_clock;

static void cli_clock_now(double *cpu, double *wall, long *rss) {
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    *rss = ru.ru_maxrss;
    *cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e3 +
           (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-3;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    *wall = (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void cli_clock_lap(cli_clock *c, const char *phase) {
    if (!c->on)
        return;
    double cpu, wall;
    long rss;
    cli_clock_now(&cpu, &wall, &rss);
    if (phase)
        fprintf(stderr,
                "planwrap: time: %-8s cpu %7.1f ms, wall %7.1f ms, "
                "max rss %6.1f MB\n",
                phase, cpu - c->cpu, wall - c->wall, (double)rss / 1024.0);
    c->cpu = cpu;
    c->wall = wall;
}

int cli_cmd_gen(int argc, char **argv) {
    static const struct option longopts[] = {
        {"target", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"templates", required_argument, NULL, 'T'},
        {"kernel-status", no_argument, NULL, 'k'},
        {"cuda-graphs", no_argument, NULL, 'G'},
        {"help", no_argument, NULL, 'h'},
        CLI_PLAN_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *target_name = "c", *outdir = NULL, *tdir = NULL;
    cg_view_options vo = {.kernel_status = false};
    plan_options po;
    plan_options_init(&po);
    po.search.progress = true; /* plan_search prints only to a terminal */
    cli_opts o;
    cli_opts_init(&o, "gen", argc, argv, ":t:o:h", longopts);
    int c;
    while ((c = cli_opts_next(&o)) != -1) {
        switch (c) {
        case 't':
            target_name = optarg;
            break;
        case 'o':
            outdir = optarg;
            break;
        case 'T':
            tdir = optarg;
            break;
        case 'k':
            vo.kernel_status = true;
            break;
        case 'G':
            vo.cuda_graphs = true;
            break;
        case 'h':
            cli_gen_usage(stdout);
            return 0;
        case CLI_PLAN_OPT_VAL:
            if (cli_plan_option(&po, longopts[o.longindex].name, optarg) != 0)
                return cli_usage_hint("gen");
            break;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    const char *path = cli_opts_operand(&o, "MODEL.pw");
    if (!path)
        return 2;
    cg_target target;
    if (!cg_target_parse(target_name, &target))
        return cli_usage_error("gen",
                               "invalid value '%s' for --target: expected c "
                               "or cuda",
                               target_name);
    if (vo.cuda_graphs && target != CG_TARGET_CUDA)
        return cli_usage_error("gen", "--cuda-graphs needs --target cuda");
    if (vo.cuda_graphs && vo.kernel_status)
        return cli_usage_error("gen", "--cuda-graphs and --kernel-status "
                                      "cannot be combined (a captured run "
                                      "returns no kernel status)");
    if (po.guard_bytes && target != CG_TARGET_C)
        return cli_usage_error("gen",
                               "--guard-bytes needs --target c (the guards are "
                               "checked by the host in pool memory)");
    if (!outdir || strcmp(outdir, "-") == 0 || !*outdir)
        return cli_usage_error("gen", "gen needs an output directory (-o DIR)");
    if (tdir && !cli_usage_dir("gen", "--templates", tdir))
        return 2;
    if (tdir)
        cg_warn_overrides(tdir, cg_target_name(target));

    int status = 1;
    ir_arena *a = ir_arena_new();
    ir_diag *d = ir_diag_new(stderr, 0);
    json_t *view = NULL;
    size_t nfiles = 0;
    cg_file *files = NULL;
    bool arena_on = false;
    cg_keyset *keep = NULL;

    const char *times = getenv("PLANWRAP_TIMES");
    cli_clock clk = {.on = times && *times && strcmp(times, "0") != 0};
    cli_clock_lap(&clk, NULL);

    ir_program *prog = cli_plan_order(a, ir_load(a, path, d), &po, d);
    if (!prog)
        goto done;
    cli_clock_lap(&clk, "load");
    if (!cg_target_devices_ok(prog, cg_target_name(target), d))
        goto done;
    plan *pl = plan_program(a, prog, &po, d);
    if (!pl || !cg_gen_supported(pl, d))
        goto done;
    cli_clock_lap(&clk, "plan");
    cg_json_arena_begin();
    arena_on = true;
    /* With the built-in templates only, the view needs no key that none
     * of them names (cg_builtin_keys): a third less to build. */
    if (!tdir)
        vo.keep = keep = cg_builtin_keys();
    view = cg_build_view_opts(pl, target, &vo, d);
    if (!view)
        goto done;
    cli_clock_lap(&clk, "view");
    files = cg_render_target(view, target, tdir, &nfiles);
    if (!files)
        goto done;
    cli_clock_lap(&clk, "render");
    if (cli_write_files(outdir, files, nfiles, path))
        status = 0;
    cli_clock_lap(&clk, "write");

done:
    cg_files_free(files, nfiles);
    /* The view lives in the arena (json_decref would walk a million
     * values to free nothing): it is released in one call. */
    if (arena_on)
        cg_json_arena_end();
    cg_keyset_free(keep);
    ir_diag_free(d);
    ir_arena_free(a);
    return status;
}

/*
 * cli/cmd_gen.c - `planwrap gen MODEL.pw --target c|cuda -o DIR`.
 *
 * The whole pipeline in one function: load (parse + check) -> plan ->
 * view -> render every template of the target, each written as it
 * renders into a temporary file beside its destination.  The files are
 * renamed over their destinations only once every one is complete, so a
 * failing run leaves DIR as it was (a DIR it created is removed).
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
#include <unistd.h>

static void cli_gen_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap gen MODEL.pw [--target c|cuda] -o DIR "
            "[options]\n"
            "       planwrap gen A.pw B.pw ... --shared-pools -o DIR "
            "[options]\n"
            "\n"
            "Plans MODEL.pw and writes wrapper sources into DIR (created "
            "when missing):\n"
            "MODEL.h, MODEL_kernels.h and MODEL.c (or MODEL.cu), and "
            "MODEL_weights.c\n"
            "when a const has data=.  With --shared-pools, every model, and "
            "planwrap_shared.h\n"
            "and planwrap_shared.c: one static pool per pool of the models, "
            "sized to the\n"
            "largest, used by every model's run_static (one model at a "
            "time).\n"
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
            "  --shared-pools       several models share their static pools "
            "(target c)\n"
            "  --times              print the CPU and wall time of each "
            "phase to stderr\n"
            "  -h, --help           show this help\n"
            "\n"
            "planning options:\n%s",
            cli_plan_options_help);
}

/* --times prints the CPU and wall time of every phase of `gen` to stderr
 * (for bench/codegen/run.sh). */
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
    *wall = base_now() * 1e3;
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

/* One `gen` run: its models, options and outputs. */
typedef struct cli_gen_run {
    char **paths;
    size_t npaths;
    cg_target target;
    const char *tdir, *outdir;
    bool shared;
    cg_view_options *vo;
    const plan_options *po;
    cli_clock *clk;
    base_diag *d; /* every error of the run */
} cli_gen_run;

/* Appends files[0..n) to *all (the array is grown; the files moved). */
static void cli_gen_take(cg_file **all, size_t *nall, cg_file *files,
                         size_t n) {
    *all = base_xrealloc(*all, (*nall + n + 1) * sizeof **all);
    memcpy(*all + *nall, files, n * sizeof *files);
    *nall += n;
    free(files);
}

/* Loads, plans and builds the view of every model; false after an error
 * (reported).  Two models of one name would write the same files. */
static bool cli_gen_views(const cli_gen_run *r, base_arena *a, base_diag *d,
                          plan **plans, cg_view **views) {
    for (size_t i = 0; i < r->npaths; i++) {
        ir_program *prog =
            cli_plan_order(a, ir_load(a, r->paths[i], d), r->po, d);
        cg_check_opts co = {r->vo->cuda_graphs, r->shared};
        if (!prog || !cg_check_target(prog, r->target, &co, d))
            return false;
        for (size_t j = 0; j < i; j++)
            if (strcmp(plans[j]->prog->model, prog->model) == 0) {
                base_diag_msg(d, BASE_SEV_ERROR,
                              "%s and %s are both model '%s' (their files "
                              "would clash)",
                              cli_display_name(r->paths[j]),
                              cli_display_name(r->paths[i]), prog->model);
                return false;
            }
        cli_clock_lap(r->clk, "load");
        /* the statements' texts and input hash, made while it plans */
        cg_view_options vo = *r->vo;
        vo.texts = cg_texts_start(prog);
        plans[i] = plan_program(a, prog, r->po, d);
        if (!plans[i]) {
            cg_texts_free(vo.texts);
            return false;
        }
        cli_clock_lap(r->clk, "plan");
        views[i] = cg_view_new(plans[i], r->target, &vo, d); /* takes them */
        PW_ASSERT(views[i]); /* NULL only for a NULL plan */
        if (r->shared)
            cg_view_share_pools(views[i]);
        cli_clock_lap(r->clk, "view");
    }
    return true;
}

/* The weights file of model i under DIR (malloc'ed), NULL without one. */
static char *cli_gen_weights_path(const cli_gen_run *r, plan **plans,
                                  cg_view **views, size_t i) {
    if (!cg_has_weights(plans[i]->prog))
        return NULL;
    base_sb path = {0};
    base_sb_printf(&path, "%s/%s", r->outdir,
                   json_string_value(json_object_get(cg_view_root(views[i]),
                                                     "weights_file")));
    return base_sb_take(&path, NULL);
}

/* Whether an output (a file or a weights file under DIR) is one of the
 * inputs: a model, or a const's data= file; then reports it.  Each path
 * is stat'ed once. */
static bool cli_gen_clobbers(const cli_gen_run *r, plan **plans,
                             cg_view **views, const cg_file *files,
                             size_t nfiles) {
    size_t nout = nfiles + r->npaths;
    char **out = base_xcalloc(nout, sizeof *out);
    struct stat *ost = base_xcalloc(nout, sizeof *ost);
    bool *exists = base_xcalloc(nout, sizeof *exists);
    for (size_t i = 0; i < nfiles; i++) {
        base_sb p = {0};
        base_sb_printf(&p, "%s/%s", r->outdir, files[i].name);
        out[i] = base_sb_take(&p, NULL);
    }
    for (size_t i = 0; i < r->npaths; i++)
        out[nfiles + i] = cli_gen_weights_path(r, plans, views, i);
    for (size_t i = 0; i < nout; i++)
        exists[i] = out[i] && stat(out[i], &ost[i]) == 0;
    const char *hit = NULL, *in = NULL;
    for (size_t m = 0; m < r->npaths && !hit; m++) {
        const ir_program *p = plans[m]->prog;
        for (uint32_t v = 0; v <= p->nvalues && !hit; v++) {
            /* the model file first, then its data= files */
            const char *ip = v == 0 ? r->paths[m] : p->values[v - 1].data_path;
            struct stat st;
            if (!ip || strcmp(ip, "-") == 0 || stat(ip, &st) != 0)
                continue;
            for (size_t k = 0; k < nout && !hit; k++)
                if (exists[k] && ost[k].st_dev == st.st_dev &&
                    ost[k].st_ino == st.st_ino) {
                    hit = out[k];
                    in = ip;
                }
        }
    }
    if (hit)
        base_diag_msg(r->d, BASE_SEV_ERROR,
                      "output %s is the input %s: it would be overwritten "
                      "(write the output elsewhere)",
                      hit, in);
    for (size_t i = 0; i < nout; i++)
        free(out[i]);
    free(out);
    free(ost);
    free(exists);
    return hit != NULL;
}

/* The output files of a run, opened (base_out) as they are written. */
typedef struct cli_gen_outs {
    const char *outdir;
    base_out **o;
    size_t n, cap; /* o[0, n) open, room for cap */
    base_diag *d;
} cli_gen_outs;

/* Opens DIR/name for writing (cg_open_fn). */
static FILE *cli_gen_open(void *ctx, const char *name) {
    cli_gen_outs *w = ctx;
    base_sb p = {0};
    base_sb_printf(&p, "%s/%s", w->outdir, name);
    char *path = base_sb_take(&p, NULL);
    base_out *o = base_out_open(path, w->d);
    free(path);
    if (!o)
        return NULL;
    PW_ASSERT(w->n < w->cap); /* the files cg_target_files listed */
    w->o[w->n++] = o;
    return base_out_stream(o);
}

/* Writes the embedded weights (streamed from their data files) and the
 * rendered files[0, n) (the shared files) into w. */
static bool cli_gen_write_first(const cli_gen_run *r, plan **plans,
                                cg_view **views, const cg_file *files, size_t n,
                                cli_gen_outs *w) {
    for (size_t i = 0; i < r->npaths; i++) {
        char *ps = cli_gen_weights_path(r, plans, views, i);
        if (!ps)
            continue;
        base_out *o = base_out_open(ps, r->d);
        free(ps);
        if (!o)
            return false;
        PW_ASSERT(w->n < w->cap);
        w->o[w->n++] = o;
        if (!cg_write_weights(views[i], base_out_stream(o), r->d))
            return false;
    }
    for (size_t i = 0; i < n; i++) {
        FILE *f = cli_gen_open(w, files[i].name);
        if (!f)
            return false;
        if (files[i].len &&
            fwrite(files[i].data, 1, files[i].len, f) != files[i].len) {
            base_diag_msg(r->d, BASE_SEV_ERROR, "cannot write %s: %s",
                          base_out_path(w->o[w->n - 1]), strerror(errno));
            return false;
        }
    }
    return true;
}

/* Writes the files: the embedded weights first, then the nshared files
 * already rendered (--shared-pools), then every model's files as they
 * render; all renamed together once complete: a failure leaves DIR
 * without a new file.  files[nshared, nfiles) are the models' files,
 * names only, checked before anything is written. */
static bool cli_gen_write(const cli_gen_run *r, plan **plans, cg_view **views,
                          const cg_file *files, size_t nshared, size_t nfiles) {
    struct stat st;
    bool had_dir = stat(r->outdir, &st) == 0;
    if (!cli_check_outputs(r->outdir, files, nfiles,
                           r->npaths == 1 ? r->paths[0] : NULL, r->d) ||
        cli_gen_clobbers(r, plans, views, files, nfiles)) {
        if (!had_dir)
            rmdir(r->outdir);
        return false;
    }
    size_t cap = nfiles + r->npaths;
    cli_gen_outs w = {r->outdir, base_xcalloc(cap + 1, sizeof *w.o), 0, cap,
                      r->d};
    bool ok = cli_gen_write_first(r, plans, views, files, nshared, &w);
    for (size_t i = 0; i < r->npaths && ok; i++)
        ok = cg_render_target_to(views[i], r->target, r->tdir, cli_gen_open, &w,
                                 r->d);
    cli_clock_lap(r->clk, "render");
    if (ok) {
        ok = base_out_commit_all(w.o, w.n, r->d);
    } else {
        for (size_t i = 0; i < w.n; i++)
            base_out_discard(w.o[i]);
        if (!had_dir)
            rmdir(r->outdir); /* only when empty */
    }
    free(w.o);
    return ok;
}

static int cli_gen(const cli_gen_run *r) {
    int status = 1;
    base_arena *a = base_arena_new();
    base_diag *d = r->d;
    plan **plans = base_xcalloc(r->npaths, sizeof *plans);
    cg_view **views = base_xcalloc(r->npaths, sizeof *views);
    cg_file *all = NULL, *files = NULL;
    size_t nall = 0, nfiles = 0;
    cg_keyset *keep = NULL;
    /* With the built-in templates only, the view needs no key that none
     * of them names (cg_builtin_keys): a third less to build. */
    if (!r->tdir)
        r->vo->keep = keep = cg_builtin_keys();
    if (!cli_gen_views(r, a, d, plans, views))
        goto done;
    if (r->shared) { /* small: rendered in memory */
        json_t **roots = base_xcalloc(r->npaths, sizeof *roots);
        for (size_t j = 0; j < r->npaths; j++)
            roots[j] = cg_view_root(views[j]);
        json_t *sview = cg_shared_view(roots, r->npaths);
        free(roots);
        files = cg_render_shared(sview, r->tdir, &nfiles, d);
        json_decref(sview);
        if (!files)
            goto done;
        cli_gen_take(&all, &nall, files, nfiles);
    }
    size_t nshared = nall;
    for (size_t i = 0; i < r->npaths; i++) {
        files = cg_target_files(views[i], r->target, &nfiles);
        cli_gen_take(&all, &nall, files, nfiles);
    }
    if (cli_gen_write(r, plans, views, all, nshared, nall))
        status = 0;
    cli_clock_lap(r->clk, "write");
done:
    cg_files_free(all, nall);
    for (size_t i = 0; i < r->npaths; i++)
        cg_view_free(views[i]);
    cg_keyset_free(keep);
    free(plans);
    free(views);
    base_arena_free(a);
    return status;
}

int cli_cmd_gen(base_diag *d, int argc, char **argv) {
    static const struct option longopts[] = {
        {"target", required_argument, NULL, 't'},
        {"output", required_argument, NULL, 'o'},
        {"templates", required_argument, NULL, 'T'},
        {"kernel-status", no_argument, NULL, 'k'},
        {"cuda-graphs", no_argument, NULL, 'G'},
        {"shared-pools", no_argument, NULL, 'S'},
        {"times", no_argument, NULL, 'M'},
        {"help", no_argument, NULL, 'h'},
        CLI_PLAN_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    const char *target_name = "c", *outdir = NULL, *tdir = NULL;
    bool shared = false;
    cg_view_options vo = {.kernel_status = false};
    cli_clock clk = {.on = false};
    plan_options po;
    plan_options_init(&po);
    cli_plan_progress(&po); /* a long search shows progress on a tty */
    cli_opts o;
    cli_opts_init(&o, d, "gen", argc, argv, ":t:o:h", longopts);
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
        case 'S':
            shared = true;
            break;
        case 'M':
            clk.on = true;
            break;
        case 'h':
            cli_gen_usage(stdout);
            return 0;
        case CLI_PLAN_OPT_VAL:
            if (cli_plan_option(&po, longopts[o.longindex].name, optarg, d) !=
                0)
                return cli_usage_hint(d, "gen");
            break;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    const char *one = shared ? NULL : cli_opts_operand(&o, "MODEL.pw");
    if (!shared && !one)
        return 2;
    if (shared && optind >= argc)
        return cli_usage_error(d, "gen", "gen needs a MODEL.pw");
    char **paths = shared ? argv + optind : (char **)&one;
    size_t npaths = shared ? (size_t)(argc - optind) : 1;
    cg_target target;
    if (!cg_target_parse(target_name, &target))
        return cli_usage_error(d, "gen",
                               "invalid value '%s' for --target: expected c "
                               "or cuda",
                               target_name);
    if (vo.cuda_graphs && target != CG_TARGET_CUDA)
        return cli_usage_error(d, "gen", "--cuda-graphs needs --target cuda");
    if (vo.cuda_graphs && vo.kernel_status)
        return cli_usage_error(d, "gen",
                               "--cuda-graphs and --kernel-status "
                               "cannot be combined (a captured run "
                               "returns no kernel status)");
    if (po.guard_bytes && target != CG_TARGET_C)
        return cli_usage_error(d, "gen",
                               "--guard-bytes needs --target c (the guards are "
                               "checked by the host in pool memory)");
    if (!outdir || strcmp(outdir, "-") == 0 || !*outdir)
        return cli_usage_error(d, "gen",
                               "gen needs an output directory (-o DIR)");
    if (tdir && !cli_usage_dir(d, "gen", "--templates", tdir))
        return 2;
    if (tdir)
        cg_warn_overrides(tdir, cg_target_name(target), d);
    if (shared && target != CG_TARGET_C)
        return cli_usage_error(d, "gen", "--shared-pools needs --target c");

    cli_clock_lap(&clk, NULL);
    cli_gen_run r = {paths,  npaths, target, tdir, outdir,
                     shared, &vo,    &po,    &clk, d};
    return cli_gen(&r);
}

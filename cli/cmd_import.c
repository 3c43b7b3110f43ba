/*
 * cli/cmd_import.c - `planwrap import MODEL.onnx [--input NAME=DIMS]...
 * [--weights FILE.bin] [-o OUT]`: ONNX to IR v1 (import/import.h), the
 * weights streamed to FILE.bin.  On any error nothing is written (the two
 * files are renamed together once complete) and the exit status is 1;
 * bad usage exits 2.
 */
#define _DEFAULT_SOURCE /* realpath */
#include "cli/cli.h"
#include "base/base.h"
#include "import/import.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* The help below gives the alignment of the weights file in words. */
_Static_assert(IMP_WEIGHTS_ALIGN == 64, "--weights' help names the alignment");

static void cli_import_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap import [options] MODEL.onnx\n"
            "\n"
            "Turns an ONNX model (opsets 7 to 17) into IR v1 for check, plan\n"
            "and gen: one kernel call per node, views as aliases, frees after\n"
            "each value's last use.  See docs/import.md.\n"
            "\n"
            "options:\n"
            "  --input NAME=D0,D1,...  the shape of graph input NAME (its\n"
            "                          ONNX name): binds its dynamic dims;\n"
            "                          once per input\n"
            "  --no-inplace            no in-place elementwise kernels\n"
            "  --no-concat-elim        keep every Concat as a copy\n"
            "  --weights FILE          write the initializers' bytes to FILE\n"
            "                          (64-byte aligned) and name them in\n"
            "                          the IR: const ... data=FILE at=N\n"
            "  -o, --output OUT        write to OUT instead of standard\n"
            "                          output (`-` is standard output)\n"
            "  -h, --help              show this help\n");
}

/* "DIR/" of path ("./" without a slash), malloc'd, canonical; NULL with
 * errno set when the folder does not exist. */
static char *cli_import_realdir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path + 1)) : strdup(".");
    if (!dir)
        base_oom();
    char *real = realpath(dir, NULL);
    free(dir);
    if (!real)
        return NULL;
    base_sb b = {0};
    base_sb_puts(&b, real);
    if (b.len == 0 || b.p[b.len - 1] != '/')
        base_sb_putc(&b, '/');
    free(real);
    return base_sb_take(&b, NULL);
}

/* The weights file as the IR at `outpath` names it: relative to the IR
 * file's folder (to the current folder for standard output), from the
 * canonical folders, so the same layout gives the same text.  NULL after
 * an error message. */
static char *cli_import_weights_ref(const char *weights, const char *outpath,
                                    base_diag *d) {
    const char *ir = strcmp(outpath, "-") == 0 ? "x" : outpath;
    char *a = cli_import_realdir(ir),
         *b = a ? cli_import_realdir(weights) : NULL;
    if (!b) {
        base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: %s",
                      a ? weights : outpath, strerror(errno));
        free(a);
        return NULL;
    }
    size_t p = 0, cut = 0;
    for (; a[p] && a[p] == b[p]; p++)
        if (a[p] == '/')
            cut = p + 1;
    base_sb r = {0};
    for (const char *s = a + cut; *s; s++)
        if (*s == '/')
            base_sb_puts(&r, "../");
    const char *slash = strrchr(weights, '/');
    base_sb_printf(&r, "%s%s", b + cut, slash ? slash + 1 : weights);
    free(a);
    free(b);
    return base_sb_take(&r, NULL);
}

/* Refuses a --weights file that is standard output, the model or the IR
 * output; false after the message. */
static bool cli_import_weights_ok(const char *path, const char *outpath,
                                  const char *weights, base_diag *d) {
    const char *clash =
        strcmp(weights, "-") == 0      ? "standard output"
        : cli_same_file(weights, path) ? "the model"
        : (strcmp(weights, outpath) == 0 || cli_same_file(weights, outpath))
            ? "the IR output"
            : NULL;
    if (clash)
        base_diag_msg(d, BASE_SEV_ERROR,
                      "--weights %s is %s: the weights need a file of their "
                      "own",
                      weights, clash);
    return clash == NULL;
}

/* Opens the weights file and sets the options that write it; false after
 * the message. */
static bool cli_import_weights_open(const char *path, const char *outpath,
                                    const char *weights, imp_options *o,
                                    base_out **wout, char **ref, char **dir,
                                    base_diag *d) {
    if (!cli_import_weights_ok(path, outpath, weights, d))
        return false;
    *ref = cli_import_weights_ref(weights, outpath, d);
    *wout = *ref ? base_out_open(weights, d) : NULL;
    if (!*wout)
        return false;
    const char *slash = strrchr(path, '/');
    *dir = strcmp(path, "-") == 0 ? NULL
           : slash                ? strndup(path, (size_t)(slash - path + 1))
                                  : strdup(".");
    if (strcmp(path, "-") != 0 && !*dir)
        base_oom();
    o->weights = base_out_stream(*wout);
    o->weights_ref = *ref;
    o->data_dir = *dir;
    return true;
}

/* The IR text (and the weights) to their files, renamed together. */
static bool cli_import_write(const char *outpath, const char *text, size_t tlen,
                             base_out *wout, base_diag *d) {
    base_out *outs[2] = {wout, base_out_open(outpath, d)};
    bool ok = outs[1] != NULL;
    if (ok && tlen && fwrite(text, 1, tlen, base_out_stream(outs[1])) != tlen) {
        base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: %s", outpath,
                      strerror(errno));
        ok = false;
    }
    if (ok)
        return wout ? base_out_commit_all(outs, 2, d)
                    : base_out_commit(outs[1], d);
    base_out_discard(outs[0]);
    base_out_discard(outs[1]);
    return false;
}

static int cli_import_run(base_diag *d, const char *path, const char *outpath,
                          const char *weights, imp_options *o) {
    struct stat st;
    if (strcmp(outpath, "-") != 0 && stat(outpath, &st) == 0 &&
        S_ISDIR(st.st_mode)) {
        base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: it is a directory",
                      outpath);
        return 1;
    }
    base_out *wout = NULL;
    char *ref = NULL, *dir = NULL;
    if (weights && !cli_import_weights_open(path, outpath, weights, o, &wout,
                                            &ref, &dir, d))
        return 1;
    const void *data;
    size_t len, tlen = 0;
    bool mapped;
    int rerr;
    char *err = NULL, *text = NULL;
    if (!base_map_file(path, &data, &len, &mapped, &rerr)) {
        base_diag_msg(d, BASE_SEV_ERROR, "cannot read %s: %s",
                      cli_display_name(path), strerror(rerr));
    } else {
        text = imp_import(cli_display_name(path), data, len, o, &tlen, &err);
        base_unmap_file(data, len, mapped);
    }
    if (err) {
        base_diag_report_in(d, BASE_SEV_ERROR, cli_display_name(path), 0, 0,
                            "%s", err);
        free(err);
    }
    int status = 1;
    if (text)
        status = cli_import_write(outpath, text, tlen, wout, d) ? 0 : 1;
    else
        base_out_discard(wout);
    free(text);
    free(ref);
    free(dir);
    return status;
}

/* Whether the last of the n bindings names an input bound before. */
static bool cli_import_bound_twice(const imp_binding *b, size_t n) {
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(b[i].name, b[n - 1].name) == 0)
            return true;
    return false;
}

int cli_cmd_import(base_diag *d, int argc, char **argv) {
    enum { OPT_INPUT = 0x100, OPT_NO_INPLACE, OPT_NO_CONCAT, OPT_WEIGHTS };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"input", required_argument, NULL, OPT_INPUT},
        {"no-inplace", no_argument, NULL, OPT_NO_INPLACE},
        {"no-concat-elim", no_argument, NULL, OPT_NO_CONCAT},
        {"weights", required_argument, NULL, OPT_WEIGHTS},
        {NULL, 0, NULL, 0},
    };
    const char *outpath = "-", *weights = NULL;
    imp_options o;
    imp_options_init(&o);
    imp_binding *b = base_xcalloc((size_t)argc + 1, sizeof *b);
    o.inputs = b;
    cli_opts g;
    cli_opts_init(&g, d, "import", argc, argv, ":ho:", longopts);
    int c, status = -1;
    char *err;
    while (status < 0 && (c = cli_opts_next(&g)) != -1) {
        switch (c) {
        case 'h':
            cli_import_usage(stdout);
            status = 0;
            break;
        case 'o':
            outpath = optarg;
            break;
        case OPT_INPUT:
            if (!imp_parse_binding(optarg, &b[o.n_inputs++], &err)) {
                status = cli_usage_error(d, "import", "%s", err);
                free(err);
            } else if (cli_import_bound_twice(b, o.n_inputs)) {
                status =
                    cli_usage_error(d, "import", "--input %s is given twice",
                                    b[o.n_inputs - 1].name);
            }
            break;
        case OPT_NO_INPLACE:
            o.inplace = false;
            break;
        case OPT_NO_CONCAT:
            o.concat = false;
            break;
        case OPT_WEIGHTS:
            weights = optarg;
            break;
        default: /* CLI_OPT_FAIL: reported */
            status = 2;
        }
    }
    const char *path = status < 0 ? cli_opts_operand(&g, "MODEL") : NULL;
    if (status < 0)
        status = path ? cli_import_run(d, path, outpath, weights, &o) : 2;
    free(b);
    return status;
}

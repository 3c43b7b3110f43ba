/*
 * cli/cmd_import.c - `planwrap import MODEL.onnx [--input NAME=DIMS]...
 * [-o OUT]`: ONNX to IR v1 (import/import.h).  On any error nothing is
 * written and the exit status is 1; bad usage exits 2.
 */
#include "cli/cli.h"
#include "base/base.h"
#include "import/import.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
            "  -o, --output OUT        write to OUT instead of standard\n"
            "                          output (`-` is standard output)\n"
            "  -h, --help              show this help\n");
}

static int cli_import_run(const char *path, const char *outpath,
                          const imp_options *o) {
    struct stat st;
    if (strcmp(outpath, "-") != 0 && stat(outpath, &st) == 0 &&
        S_ISDIR(st.st_mode)) {
        fprintf(stderr, "planwrap: error: cannot write %s: it is a directory\n",
                outpath);
        return 1;
    }
    char *data;
    size_t len, tlen = 0;
    int rerr;
    if (!base_read_file(path, &data, &len, &rerr)) {
        fprintf(stderr, "planwrap: error: cannot read %s: %s\n",
                cli_display_name(path), strerror(rerr));
        return 1;
    }
    char *err = NULL;
    char *text = imp_import(cli_display_name(path), (const uint8_t *)data, len,
                            o, &tlen, &err);
    free(data);
    if (!text) {
        fprintf(stderr, "%s\n", err);
        free(err);
        return 1;
    }
    int status = cli_write_file_atomic(outpath, text, tlen) ? 0 : 1;
    free(text);
    return status;
}

/* Whether the last of the n bindings names an input bound before. */
static bool cli_import_bound_twice(const imp_binding *b, size_t n) {
    for (size_t i = 0; i + 1 < n; i++)
        if (strcmp(b[i].name, b[n - 1].name) == 0)
            return true;
    return false;
}

int cli_cmd_import(int argc, char **argv) {
    enum { OPT_INPUT = 0x100, OPT_NO_INPLACE, OPT_NO_CONCAT };
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {"input", required_argument, NULL, OPT_INPUT},
        {"no-inplace", no_argument, NULL, OPT_NO_INPLACE},
        {"no-concat-elim", no_argument, NULL, OPT_NO_CONCAT},
        {NULL, 0, NULL, 0},
    };
    const char *outpath = "-";
    imp_options o;
    imp_options_init(&o);
    imp_binding *b = calloc((size_t)argc + 1, sizeof *b);
    if (!b) {
        fputs("planwrap: fatal: out of memory\n", stderr);
        abort();
    }
    o.inputs = b;
    cli_opts g;
    cli_opts_init(&g, "import", argc, argv, ":ho:", longopts);
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
                status = cli_usage_error("import", "%s", err);
                free(err);
            } else if (cli_import_bound_twice(b, o.n_inputs)) {
                status = cli_usage_error("import", "--input %s is given twice",
                                         b[o.n_inputs - 1].name);
            }
            break;
        case OPT_NO_INPLACE:
            o.inplace = false;
            break;
        case OPT_NO_CONCAT:
            o.concat = false;
            break;
        default: /* CLI_OPT_FAIL: reported */
            status = 2;
        }
    }
    const char *path = status < 0 ? cli_opts_operand(&g, "MODEL") : NULL;
    if (status < 0)
        status = path ? cli_import_run(path, outpath, &o) : 2;
    free(b);
    return status;
}

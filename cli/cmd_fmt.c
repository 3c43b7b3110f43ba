/*
 * cli/cmd_fmt.c - `planwrap fmt FILE [-o OUT]`: print a valid IR file
 * in canonical form (ir_print).  The file is parsed and checked first;
 * on any error nothing is written and the exit status is 1.  Output goes
 * to stdout, or atomically to OUT.
 */
#include "cli/cli.h"
#include "base/base.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

static void cli_fmt_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap fmt [options] FILE\n"
            "\n"
            "Prints an IR v1 file in canonical form (comments are kept,\n"
            "runs of blank lines become one).  FILE `-` is standard input.\n"
            "Nothing is written when the file has an error (exit status 1).\n"
            "\n"
            "options:\n"
            "  -o, --output OUT  write to OUT instead of standard output\n"
            "                    (`-` is standard output)\n"
            "  -h, --help        show this help\n");
}

int cli_cmd_fmt(base_diag *d, int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"output", required_argument, NULL, 'o'},
        {NULL, 0, NULL, 0},
    };
    const char *outpath = "-";
    cli_opts o;
    cli_opts_init(&o, d, "fmt", argc, argv, ":ho:", longopts);
    int c;
    while ((c = cli_opts_next(&o)) != -1) {
        switch (c) {
        case 'h':
            cli_fmt_usage(stdout);
            return 0;
        case 'o':
            outpath = optarg;
            break;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    const char *path = cli_opts_operand(&o, "FILE");
    if (!path || !cli_usage_not_input(d, "fmt", outpath, path))
        return 2;
    base_arena *a = base_arena_new();
    ir_program *p = ir_load(a, path, d);
    int status = 1;
    if (p)
        status = cli_write_program(outpath, p, d) ? 0 : 1;
    base_arena_free(a);
    return status;
}

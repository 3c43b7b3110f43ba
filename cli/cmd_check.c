/*
 * cli/cmd_check.c - `planwrap check [--max-errors N] [--target T
 * [--cuda-graphs] [--shared-pools]] FILE`: parse and check an IR file
 * (and, with --target, the target's limits; with --cuda-graphs, those of
 * CUDA graph capture; with --shared-pools, those of pools shared between
 * models), print its diagnostics to stderr.  Exit 0 when there is
 * no error (warnings allowed), 1 on invalid input, 2 on bad usage.
 */
#include "cli/cli.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void cli_check_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap check [options] FILE\n"
            "\n"
            "Parses and checks an IR v1 file and prints its diagnostics.\n"
            "FILE `-` is standard input.  Exit status: 0 valid (warnings\n"
            "allowed), 1 invalid input, 2 bad usage.\n"
            "\n"
            "options:\n"
            "  --max-errors N  stop printing errors after N (default %u)\n"
            "  -t, --target T  also check the limits of target T (c or\n"
            "                  cuda), as `gen --target T` does\n"
            "  --cuda-graphs   with --target cuda: also check what\n"
            "                  `gen --cuda-graphs` needs (one stream)\n"
            "  --shared-pools  also check what `gen --shared-pools` needs\n"
            "                  (target c, no state)\n"
            "  -h, --help      show this help\n",
            BASE_DIAG_DEFAULT_MAX_ERRORS);
}

/* The largest --max-errors. */
#define CLI_MAX_ERRORS_LIMIT 1000000u

/* Parses a positive count for --max-errors; false when invalid. */
static bool cli_parse_count(const char *s, unsigned *out) {
    if (!*s)
        return false;
    unsigned long v = 0;
    for (const char *c = s; *c; c++) {
        if (*c < '0' || *c > '9')
            return false;
        v = v * 10 + (unsigned long)(*c - '0');
        if (v > CLI_MAX_ERRORS_LIMIT)
            return false;
    }
    if (v == 0)
        return false;
    *out = (unsigned)v;
    return true;
}

int cli_cmd_check(base_diag *d, int argc, char **argv) {
    static const struct option longopts[] = {
        {"help", no_argument, NULL, 'h'},
        {"max-errors", required_argument, NULL, 'm'},
        {"target", required_argument, NULL, 't'},
        {"cuda-graphs", no_argument, NULL, 'G'},
        {"shared-pools", no_argument, NULL, 'S'},
        {NULL, 0, NULL, 0},
    };
    unsigned max_errors = BASE_DIAG_DEFAULT_MAX_ERRORS;
    const char *target_name = NULL;
    cg_check_opts co = {false, false};
    cli_opts o;
    cli_opts_init(&o, d, "check", argc, argv, ":ht:", longopts);
    int c;
    while ((c = cli_opts_next(&o)) != -1) {
        switch (c) {
        case 'h':
            cli_check_usage(stdout);
            return 0;
        case 'm':
            if (!cli_parse_count(optarg, &max_errors))
                return cli_usage_error(d, "check",
                                       "invalid value '%s' for --max-errors: "
                                       "expected a positive integer up to "
                                       "%u",
                                       optarg, CLI_MAX_ERRORS_LIMIT);
            break;
        case 't':
            target_name = optarg;
            break;
        case 'G':
            co.cuda_graphs = true;
            break;
        case 'S':
            co.shared_pools = true;
            break;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    const char *path = cli_opts_operand(&o, "FILE");
    if (!path)
        return 2;
    cg_target target = CG_TARGET_C;
    if (target_name && !cg_target_parse(target_name, &target))
        return cli_usage_error(d, "check",
                               "invalid value '%s' for --target: expected c "
                               "or cuda",
                               target_name);
    if (co.cuda_graphs && (!target_name || target != CG_TARGET_CUDA))
        return cli_usage_error(d, "check", "--cuda-graphs needs --target cuda");
    if (co.shared_pools && target != CG_TARGET_C)
        return cli_usage_error(d, "check", "--shared-pools needs --target c");
    base_arena *a = base_arena_new();
    base_diag_set_max_errors(d, max_errors);
    ir_program *p = ir_load(a, path, d);
    bool target_check = target_name || co.shared_pools; /* gen's default c */
    if (p && target_check && !cg_check_target(p, target, &co, d))
        p = NULL;
    int status = p ? 0 : 1;
    if (p && p->output_stmt < 0)
        base_diag_report(d, BASE_SEV_WARNING, 0, 0,
                         "no 'output' statement: the program computes nothing "
                         "a caller can read (gen refuses it)");
    base_arena_free(a);
    return status;
}

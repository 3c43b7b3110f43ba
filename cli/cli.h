/*
 * cli/cli.h - the command line: `planwrap COMMAND ...`, option parsing,
 * the planning options shared by `plan` and `gen`, and output files.
 *
 * cli/ is the top module: it may include every other module's public
 * header (base/base.h, ir/ir.h, planner/planner.h, templates/mustache.h,
 * codegen/codegen.h) and nothing includes cli/.  main.c is the entry,
 * cli.c the dispatch, cmd_NAME.c one file per command.
 */
#ifndef PLANWRAP_CLI_H
#define PLANWRAP_CLI_H

#include "base/base.h"
#include "codegen/codegen.h"
#include "ir/ir.h"
#include "planner/planner.h"

#include <stdbool.h>
#include <stddef.h>

/* The CLI: `planwrap COMMAND ...`.  Each returns the process exit
 * status: 0 ok, 1 invalid input, 2 bad usage.  A command reports every
 * error to `d`, the sink cli_main made (stderr), once. */
int cli_main(int argc, char **argv);
int cli_cmd_check(base_diag *d, int argc, char **argv);
int cli_cmd_fmt(base_diag *d, int argc, char **argv);
int cli_cmd_plan(base_diag *d, int argc, char **argv);
int cli_cmd_render(base_diag *d, int argc, char **argv);
int cli_cmd_gen(base_diag *d, int argc, char **argv);
int cli_cmd_schedule(base_diag *d, int argc, char **argv);
int cli_cmd_import(base_diag *d, int argc, char **argv);

/* ------------------------------------------------------------------ */
/* Command-line parsing shared by the commands (cli/cli_opts.c).  A
 * usage error is one report "planwrap: error: ..." then the hint "Run
 * 'planwrap CMD --help' for usage." to the sink, and exit status 2.
 * Options are named as the user spelled them ("-o", "--output", "--out").
 *
 *   cli_opts o;
 *   cli_opts_init(&o, d, "fmt", argc, argv, "+:ho:", longopts);
 *   while ((c = cli_opts_next(&o)) != -1) switch (c) { ...
 *       case CLI_OPT_FAIL: return 2; }
 *   const char *file = cli_opts_operand(&o, "FILE");
 *
 * optstring must start with ":" (or "+:" to stop at the first operand).
 * longopts (entries with flag NULL) needs <getopt.h>.  An option given
 * twice takes its last value, so that a later flag overrides an earlier
 * one (PLANWRAP_FLAGS="--align 64" ... --align 128). */
#define CLI_OPT_FAIL (-2)
struct option;
typedef struct cli_opts {
    base_diag *d;    /* where usage errors go */
    const char *cmd; /* "fmt": named in the messages */
    int argc;
    char **argv;
    const char *optstring;
    const struct option *longopts;
    int nlong;
    /* Of the option cli_opts_next returned last: */
    int longindex;    /* its longopts entry (also for "-o"), or -1 */
    char spelled[64]; /* as written: "-o", "--out" (without "=VALUE") */
} cli_opts;

/* Starts a scan of argv[1..argc-1] (argv[0] is the command name). */
void cli_opts_init(cli_opts *o, base_diag *d, const char *cmd, int argc,
                   char **argv, const char *optstring,
                   const struct option *longopts);
/* The next option's val (optarg set as by getopt_long), -1 after the last
 * option, or CLI_OPT_FAIL after reporting a usage error: a missing value,
 * an unknown or ambiguous option, a value for an option that takes none. */
int cli_opts_next(cli_opts *o);
/* After the options, exactly one operand must be left (`what` names it in
 * the messages: "FILE").  Returns it, or NULL after printing "CMD needs a
 * WHAT" or "unexpected argument 'X' (CMD takes one WHAT)" (with "+":
 * "unexpected argument '-X' after WHAT (options go before WHAT)"). */
const char *cli_opts_operand(const cli_opts *o, const char *what);
/* Reports "planwrap: error: MESSAGE" and the Run line to d; returns 2. */
int cli_usage_error(base_diag *d, const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports only the Run line (after a message reported elsewhere); returns
 * 2. */
int cli_usage_hint(base_diag *d, const char *cmd);
/* How a FILE argument is shown in messages: "<stdin>" for "-", else the
 * path itself. */
const char *cli_display_name(const char *path);
/* True when `dir` (the value of option `opt`) is a directory; otherwise
 * reports "cannot use OPT DIR: REASON" and the Run line, and returns
 * false (the caller exits with status 2). */
bool cli_usage_dir(base_diag *d, const char *cmd, const char *opt,
                   const char *dir);
/* Whether paths a and b name one file (the same path, or the same device
 * and inode); "-" is never a file. */
bool cli_same_file(const char *a, const char *b);
/* True when output `out` is not input `in` (NULL: none); otherwise reports
 * "output OUT is the input IN: it would be overwritten ..." as a usage
 * error and returns false. */
bool cli_usage_not_input(base_diag *d, const char *cmd, const char *out,
                         const char *in);

/* Writes `len` bytes to `path` through a temporary file in the same
 * directory and rename(2), so that `path` holds either the old content
 * or the new, never a partial file.  "-" writes to stdout.  On failure
 * reports "cannot write PATH: REASON" to d, removes the temporary file
 * and returns false. */
bool cli_write_file_atomic(const char *path, const char *data, size_t len,
                           base_diag *d);
/* Prints `p` in canonical form (ir_print) and writes it to `path` with
 * cli_write_file_atomic.  Aborts on out of memory. */
bool cli_write_program(const char *path, const ir_program *p, base_diag *d);

/* Creates outdir and checks, before anything is written, that no file
 * of files[0, n) (names only) under it is the input or a directory;
 * false after reporting one. */
bool cli_check_outputs(const char *outdir, const cg_file *files, size_t n,
                       const char *input, base_diag *d);

/* ------------------------------------------------------------------ */
/* Planning options shared by `plan` and `gen` (cli/plan_opts.c).
 * CLI_PLAN_LONG_OPTIONS expands to the `struct option` entries (flag NULL,
 * val CLI_PLAN_OPT_VAL) of --algo, --align, --memory-pool, --streams,
 * --verify, --plan-inputs, --plan-outputs, --capacity, --search-budget,
 * --time-limit, --order and
 * --guard-bytes: put it in a getopt_long table (which needs <getopt.h>) and
 * pass every option whose val is CLI_PLAN_OPT_VAL to cli_plan_option with its
 * long name. cli_plan_option returns 0 when applied, -1 after reporting
 * "invalid value ..." to d for a bad value. */
#define CLI_PLAN_OPT_VAL 0x1000
#define CLI_PLAN_LONG_OPTIONS                                                  \
    {"algo", required_argument, NULL, CLI_PLAN_OPT_VAL},                       \
        {"align", required_argument, NULL, CLI_PLAN_OPT_VAL},                  \
        {"memory-pool", required_argument, NULL, CLI_PLAN_OPT_VAL},            \
        {"streams", required_argument, NULL, CLI_PLAN_OPT_VAL},                \
        {"verify", no_argument, NULL, CLI_PLAN_OPT_VAL},                       \
        {"plan-inputs", no_argument, NULL, CLI_PLAN_OPT_VAL},                  \
        {"plan-outputs", no_argument, NULL, CLI_PLAN_OPT_VAL},                 \
        {"capacity", required_argument, NULL, CLI_PLAN_OPT_VAL},               \
        {"search-budget", required_argument, NULL, CLI_PLAN_OPT_VAL},          \
        {"time-limit", required_argument, NULL, CLI_PLAN_OPT_VAL},             \
        {"order", required_argument, NULL, CLI_PLAN_OPT_VAL}, {                \
        "guard-bytes", required_argument, NULL, CLI_PLAN_OPT_VAL               \
    }
int cli_plan_option(plan_options *o, const char *name, const char *value,
                    base_diag *d);
/* Applies --order to a loaded program (planner/schedule.h): returns `p`
 * for `keep`, the reordered program, or NULL after reporting an error. */
ir_program *cli_plan_order(base_arena *a, ir_program *p, const plan_options *o,
                           base_diag *d);
/* Shows the progress of a long search on stderr when it is a terminal:
 * sets o->search.progress (nothing otherwise). */
void cli_plan_progress(plan_options *o);
/* Help text for those options, one per line, indented by two spaces. */
extern const char cli_plan_options_help[];

#endif /* PLANWRAP_CLI_H */

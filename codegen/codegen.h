/*
 * codegen/codegen.h - the plan view, rendering, output files and the CLI.
 *
 * Pipeline: checked IR -> plan -> view (a json_t describing the planned
 * program, documented in docs/view.md) -> mustache templates (strict,
 * no-escape) -> files written atomically.
 */
#ifndef PLANWRAP_CODEGEN_H
#define PLANWRAP_CODEGEN_H

#include "ir/ir.h"
#include "planner/planner.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* The CLI: `planwrap COMMAND ...`.  Each returns the process exit
 * status: 0 ok, 1 invalid input, 2 bad usage. */
int cg_main(int argc, char **argv);
int cg_cmd_check(int argc, char **argv);
int cg_cmd_fmt(int argc, char **argv);
int cg_cmd_plan(int argc, char **argv);
int cg_cmd_render(int argc, char **argv);
int cg_cmd_gen(int argc, char **argv);

/* ------------------------------------------------------------------ */
/* Command-line parsing shared by the commands (codegen/cli_opts.c).  A
 * usage error is one line "planwrap: error: ..." then "Run 'planwrap CMD
 * --help' for usage." on stderr, and exit status 2.  Options are named as
 * the user spelled them ("-o", "--output", "--out").
 *
 *   cg_opts o;
 *   cg_opts_init(&o, "fmt", argc, argv, "+:ho:", longopts);
 *   while ((c = cg_opts_next(&o)) != -1) switch (c) { ...
 *       case CG_OPT_FAIL: return 2; }
 *   const char *file = cg_opts_operand(&o, "FILE");
 *
 * optstring must start with ":" (or "+:" to stop at the first operand).
 * longopts (entries with flag NULL) needs <getopt.h>.  An option given
 * twice takes its last value, so that a later flag overrides an earlier
 * one (PLANWRAP_FLAGS="--align 64" ... --align 128). */
#define CG_OPT_FAIL (-2)
struct option;
typedef struct cg_opts {
    const char *cmd; /* "fmt": named in the messages */
    int argc;
    char **argv;
    const char *optstring;
    const struct option *longopts;
    int nlong;
    /* Of the option cg_opts_next returned last: */
    int longindex;    /* its longopts entry (also for "-o"), or -1 */
    char spelled[64]; /* as written: "-o", "--out" (without "=VALUE") */
} cg_opts;

/* Starts a scan of argv[1..argc-1] (argv[0] is the command name). */
void cg_opts_init(cg_opts *o, const char *cmd, int argc, char **argv,
                  const char *optstring, const struct option *longopts);
/* The next option's val (optarg set as by getopt_long), -1 after the last
 * option, or CG_OPT_FAIL after printing a usage error: a missing value,
 * an unknown or ambiguous option, a value for an option that takes none. */
int cg_opts_next(cg_opts *o);
/* After the options, exactly one operand must be left (`what` names it in
 * the messages: "FILE").  Returns it, or NULL after printing "CMD needs a
 * WHAT" or "unexpected argument 'X' (CMD takes one WHAT)" (with "+":
 * "unexpected argument '-X' after WHAT (options go before WHAT)"). */
const char *cg_opts_operand(const cg_opts *o, const char *what);
/* Prints "planwrap: error: MESSAGE" and the Run line; returns 2. */
int cg_usage_error(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Prints only the Run line (after a message printed elsewhere); returns
 * 2. */
int cg_usage_hint(const char *cmd);
/* How a FILE argument is shown in messages: "<stdin>" for "-", else the
 * path itself. */
const char *cg_display_name(const char *path);
/* True when `dir` (the value of option `opt`) is a directory; otherwise
 * prints "cannot use OPT DIR: REASON" and the Run line, and returns
 * false (the caller exits with status 2). */
bool cg_usage_dir(const char *cmd, const char *opt, const char *dir);

/* Writes `len` bytes to `path` through a temporary file in the same
 * directory and rename(2), so that `path` holds either the old content
 * or the new, never a partial file.  "-" writes to stdout.  On failure
 * prints "planwrap: error: cannot write PATH: REASON" to stderr, removes
 * the temporary file and returns false. */
bool cg_write_file_atomic(const char *path, const char *data, size_t len);

/* `plan --compare` (codegen/compare_out.c): what other allocators need,
 * per pool, as summary lines or as a "compare" object added to each pool
 * of a plan-json root.  False after printing an error (out of memory, or
 * an internal error: a simulated plan that does not verify). */
bool cg_compare_summary(FILE *f, const plan *pl);
bool cg_compare_json(json_t *root, const plan *pl);

/* `plan --emit svg|html` (codegen/picture.c, docs/pictures.md): the
 * picture of `pl`, or with `algos` ("naive,reuse,...", may be NULL) the
 * plans of those algorithms side by side at one scale (each planned in
 * `a` with pl's other options; errors reported to `d`).  *out gets the
 * malloc'ed text.  Deterministic.  False after printing an error. */
bool cg_picture_emit(ir_arena *a, const plan *pl, const char *algos, bool html,
                     ir_diag *d, char **out, size_t *outlen);
/* Is `list` a comma-separated list of algorithm names (at most 16)? */
bool cg_picture_algos_ok(const char *list);

/* The plan view of a planned program (see docs/view.md). */
json_t *cg_build_view(const plan *pl, const char *target);

#endif /* PLANWRAP_CODEGEN_H */

/* ------------------------------------------------------------------ */
/* Planning options shared by `plan` and `gen` (codegen/plan_opts.c).
 * CG_PLAN_LONG_OPTIONS expands to the `struct option` entries (flag NULL,
 * val CG_PLAN_OPT_VAL) of --algo, --align, --memory-pool, --streams,
 * --verify, --capacity, --search-budget and --time-limit: put it in a
 * getopt_long table (which needs <getopt.h>) and pass every option whose
 * val is CG_PLAN_OPT_VAL to cg_plan_option with its long name.
 * cg_plan_option returns 0 when applied, -1 after printing
 * "planwrap: error: ..." for a bad value. */
#define CG_PLAN_OPT_VAL 0x1000
#define CG_PLAN_LONG_OPTIONS                                                   \
    {"algo", required_argument, NULL, CG_PLAN_OPT_VAL},                        \
        {"align", required_argument, NULL, CG_PLAN_OPT_VAL},                   \
        {"memory-pool", required_argument, NULL, CG_PLAN_OPT_VAL},             \
        {"streams", required_argument, NULL, CG_PLAN_OPT_VAL},                 \
        {"verify", no_argument, NULL, CG_PLAN_OPT_VAL},                        \
        {"capacity", required_argument, NULL, CG_PLAN_OPT_VAL},                \
        {"search-budget", required_argument, NULL, CG_PLAN_OPT_VAL}, {         \
        "time-limit", required_argument, NULL, CG_PLAN_OPT_VAL                 \
    }
int cg_plan_option(plan_options *o, const char *name, const char *value);
/* Help text for those options, one per line, indented by two spaces. */
extern const char cg_plan_options_help[];

/* ------------------------------------------------------------------ */
/* Code generation (codegen/view.c, codegen/gen.c; docs/view.md,
 * docs/codegen.md). */

/* A set of view keys (codegen/view.c). */
typedef struct cg_keyset cg_keyset;

/* Options of the view that change generated code. */
typedef struct cg_view_options {
    bool kernel_status; /* kernels return int; non-zero stops the run */
    /* NULL: the complete view.  Otherwise the view leaves out every key
     * not in the set (and its value); for `gen` with the built-in
     * templates, which look up no other key. */
    const cg_keyset *keep;
} cg_view_options;

/* The keys that the built-in templates (all targets, all partials) can
 * look up, plus those the view builder and gen read back.  NULL when a
 * built-in template does not compile (or out of memory): then build the
 * complete view.  Free with cg_keyset_free (NULL is a no-op). */
cg_keyset *cg_builtin_keys(void);
void cg_keyset_free(cg_keyset *s);

/* cg_build_view with options.  Problems the C output cannot express (a
 * kernel called with different arities, or with a buffer and a literal
 * at the same position) are reported to `d` (stderr when NULL) and give
 * NULL.  `target` is "c" or "cuda".  The caller owns the result
 * (json_decref).  Deterministic: IR order only, never hash order. */
json_t *cg_build_view_opts(const plan *pl, const char *target,
                           const cg_view_options *o, ir_diag *d);

/* Renders every built-in template of `target` ("c" or "cuda") against
 * `view`, templates in `tdir` (may be NULL) overriding built-ins of the
 * same name, strict and without escaping.  On success returns true with
 * *nfiles files: names[i] (e.g. "M.c") and contents[i] (lengths lens[i]),
 * all malloc'ed; free them with cg_free_files.  On error prints
 * "TEMPLATE:LINE:COL: error: ..." to stderr and returns false with
 * nothing to free. */
bool cg_render_target(json_t *view, const char *target, const char *tdir,
                      size_t *nfiles, char ***names, char ***contents,
                      size_t **lens);
void cg_free_files(size_t nfiles, char **names, char **contents, size_t *lens);

/* Between begin and end, every jansson value is carved out of a bump
 * arena and json_decref frees nothing; end releases it all.  For one
 * large, short-lived view (`gen`): no json value may outlive end.  Not
 * thread-safe (jansson's allocator is process-wide). */
void cg_json_arena_begin(void);
void cg_json_arena_end(void);

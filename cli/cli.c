/*
 * cli/cli.c - `planwrap COMMAND [options]`: dispatch, --help, --version.
 * Each command lives in its own cmd_*.c file.  cli_main makes the
 * diagnostics sink of the run (stderr) and hands it to the command: every
 * message for the user goes through it (base/base.h, "The one error
 * path").
 */
#include "cli/cli.h"

#include <stdio.h>
#include <string.h>

typedef struct cli_command {
    const char *name;
    int (*run)(base_diag *d, int argc, char **argv);
    const char *summary;
} cli_command;

static const cli_command cli_commands[] = {
    {"check", cli_cmd_check, "check an IR file and print its diagnostics"},
    {"fmt", cli_cmd_fmt, "print an IR file in canonical form"},
    {"plan", cli_cmd_plan, "plan memory and print the plan"},
    {"gen", cli_cmd_gen, "generate C or CUDA wrapper sources"},
    {"schedule", cli_cmd_schedule, "reorder the calls for a lower peak memory"},
    {"render", cli_cmd_render, "render a mustache template with JSON data"},
    {"import", cli_cmd_import, "turn an ONNX model into IR"},
};

static void cli_usage(FILE *out) {
    fprintf(out, "usage: planwrap COMMAND [options] [FILE]\n"
                 "\n"
                 "Turns a model's execution schedule (IR v1) into planned "
                 "wrapper code.\n"
                 "\n"
                 "commands:\n");
    for (size_t i = 0; i < sizeof cli_commands / sizeof cli_commands[0]; i++)
        fprintf(out, "  %-8s %s\n", cli_commands[i].name,
                cli_commands[i].summary);
    fprintf(out, "\n"
                 "options:\n"
                 "  -h, --help     show this help\n"
                 "  --version      show the version\n"
                 "\n"
                 "`planwrap COMMAND --help` describes a command. FILE `-` is "
                 "standard input.\n");
}

/* Runs the command argv[1] with sink d. */
static int cli_run(base_diag *d, int argc, char **argv) {
    if (argc < 2) {
        cli_usage(stderr); /* the usage text, not a message: no sink */
        return 2;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return 0;
    }
    if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "version") == 0) {
        printf("planwrap %s\n", PLANWRAP_VERSION);
        return 0;
    }
    for (size_t i = 0; i < sizeof cli_commands / sizeof cli_commands[0]; i++)
        if (strcmp(cmd, cli_commands[i].name) == 0)
            return cli_commands[i].run(d, argc - 1, argv + 1);
    base_diag_msg(d, BASE_SEV_ERROR, "unknown command '%s'", cmd);
    base_diag_hint(d, "Run 'planwrap --help' for the list of commands.");
    return 2;
}

int cli_main(int argc, char **argv) {
    base_diag *d = base_diag_new(stderr, 0);
    int status = cli_run(d, argc, argv);
    base_diag_free(d);
    return status;
}

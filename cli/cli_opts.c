/*
 * cli/cli_opts.c - command-line parsing shared by the five commands,
 * so that every usage error reads the same (docs/codegen.md, "Command
 * line"):
 *
 *   planwrap: error: option '--output' needs a value
 *   Run 'planwrap fmt --help' for usage.
 *
 * (reported to the command's sink) and exits with status 2.  Options are named
 * as the user spelled them
 * ("-o", "--output" or an abbreviation such as "--out").
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int cli_usage_hint(base_diag *d, const char *cmd) {
    base_diag_hint(d, "Run 'planwrap %s --help' for usage.", cmd);
    return 2;
}

int cli_usage_error(base_diag *d, const char *cmd, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_diag_vmsg(d, BASE_SEV_ERROR, fmt, ap);
    va_end(ap);
    return cli_usage_hint(d, cmd);
}

const char *cli_display_name(const char *path) {
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

bool cli_usage_dir(base_diag *d, const char *cmd, const char *opt,
                   const char *dir) {
    struct stat st;
    int err = stat(dir, &st) != 0 ? errno : S_ISDIR(st.st_mode) ? 0 : ENOTDIR;
    if (err)
        cli_usage_error(d, cmd, "cannot use %s %s: %s", opt, dir,
                        strerror(err));
    return err == 0;
}

bool cli_same_file(const char *a, const char *b) {
    if (strcmp(a, "-") == 0 || strcmp(b, "-") == 0)
        return false;
    if (strcmp(a, b) == 0)
        return true;
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

bool cli_usage_not_input(base_diag *d, const char *cmd, const char *out,
                         const char *in) {
    if (!in || !cli_same_file(out, in))
        return true;
    cli_usage_error(d, cmd,
                    "output %s is the input %s: it would be overwritten "
                    "(write the output elsewhere)",
                    out, in);
    return false;
}

void cli_opts_init(cli_opts *o, base_diag *d, const char *cmd, int argc,
                   char **argv, const char *optstring,
                   const struct option *longopts) {
    memset(o, 0, sizeof *o);
    o->d = d;
    o->cmd = cmd;
    o->argc = argc;
    o->argv = argv;
    o->optstring = optstring;
    o->longopts = longopts;
    o->longindex = -1;
    while (longopts[o->nlong].name)
        o->nlong++;
    /* 0, not 1: glibc then forgets the state of an earlier scan (a
     * half-read cluster of short options, the permutation mode). */
    optind = 0;
    opterr = 0;
}

/* "--name..." (not "--" alone): a long option as getopt_long sees it. */
static bool cli_is_long(const char *s) {
    return s[0] == '-' && s[1] == '-' && s[2] != '\0';
}

/* Copies the option name of a long option word ("--out=x" -> "--out"). */
static void cli_spell_long(cli_opts *o, const char *word) {
    size_t n = strcspn(word, "=");
    if (n >= sizeof o->spelled)
        n = sizeof o->spelled - 1;
    memcpy(o->spelled, word, n);
    o->spelled[n] = '\0';
}

static void cli_spell_short(cli_opts *o, int c) {
    o->spelled[0] = '-';
    o->spelled[1] = (char)c;
    o->spelled[2] = '\0';
}

/* The entry of longopts whose val is c, or -1. */
static int cli_long_of(const cli_opts *o, int c) {
    for (int i = 0; i < o->nlong; i++)
        if (o->longopts[i].flag == NULL && o->longopts[i].val == c)
            return i;
    return -1;
}

/* How many long options o->spelled ("--pre") names: 1 for an exact
 * match, else the number of options it is a prefix of. */
static int cli_prefix_matches(const cli_opts *o) {
    const char *name = o->spelled + 2;
    size_t n = strlen(name);
    int matches = 0;
    for (int i = 0; i < o->nlong; i++) {
        if (strcmp(o->longopts[i].name, name) == 0)
            return 1;
        matches += strncmp(o->longopts[i].name, name, n) == 0;
    }
    return matches;
}

static void cli_ambiguous(const cli_opts *o) {
    const char *name = o->spelled + 2;
    size_t n = strlen(name);
    base_sb list = {0};
    for (int i = 0; i < o->nlong; i++)
        if (strncmp(o->longopts[i].name, name, n) == 0)
            base_sb_printf(&list, "%s--%s", list.len ? ", " : "",
                           o->longopts[i].name);
    base_diag_msg(o->d, BASE_SEV_ERROR, "option '%s' is ambiguous (%s)",
                  o->spelled, base_sb_str(&list));
    base_sb_free(&list);
}

/* "unknown option '--algp'", with "; did you mean '--algo'?" when a long
 * option of the command is close. */
static void cli_unknown_long(const cli_opts *o, const char *word) {
    const char *name = word + 2;
    size_t len = strcspn(name, "=");
    const char *cands[64] = {NULL};
    int n = o->nlong < 64 ? o->nlong : 64;
    for (int i = 0; i < n; i++)
        cands[i] = o->longopts[i].name;
    size_t k = base_closest(name, len, cands, (size_t)n);
    if (k == SIZE_MAX)
        base_diag_msg(o->d, BASE_SEV_ERROR, "unknown option '%s'", word);
    else
        base_diag_msg(o->d, BASE_SEV_ERROR,
                      "unknown option '%s'; did you mean '--%s'?", word,
                      cands[k]);
}

/* getopt_long returned '?' for a long option word: unknown, ambiguous,
 * or given a value it does not take (optopt is then its val). */
static void cli_bad_long(const cli_opts *o, const char *word) {
    if (optopt != 0)
        base_diag_msg(o->d, BASE_SEV_ERROR, "option '%s' doesn't allow a value",
                      o->spelled);
    else if (cli_prefix_matches(o) == 0)
        cli_unknown_long(o, word);
    else
        cli_ambiguous(o);
}

int cli_opts_next(cli_opts *o) {
    /* Whether the option word was long is told by where optind moved: a
     * long option always moves it past its word, which starts with "--";
     * a short option inside a cluster ("-sx") leaves it, and a word of
     * short options starts with a single '-'. */
    int before = optind < 1 ? 1 : optind;
    int li = -1;
    int c = getopt_long(o->argc, o->argv, o->optstring, o->longopts, &li);
    o->longindex = -1;
    o->spelled[0] = '\0';
    if (c == -1)
        return -1;
    const char *word =
        optind > before && optind - 1 < o->argc ? o->argv[optind - 1] : "";
    bool is_long = optind > before && cli_is_long(word);
    if (c == ':' || c == '?') {
        if (is_long)
            cli_spell_long(o, word);
        else
            cli_spell_short(o, optopt);
        if (c == ':')
            base_diag_msg(o->d, BASE_SEV_ERROR, "option '%s' needs a value",
                          o->spelled);
        else if (is_long)
            cli_bad_long(o, word);
        else
            base_diag_msg(o->d, BASE_SEV_ERROR, "unknown option '%s'",
                          o->spelled);
        cli_usage_hint(o->d, o->cmd);
        return CLI_OPT_FAIL;
    }
    if (li >= 0) {
        /* "--opt VALUE": the word is the one before the value. */
        const char *w = o->argv[optind - 1];
        if (optarg && optarg == o->argv[optind - 1] && optind >= 2)
            w = o->argv[optind - 2];
        cli_spell_long(o, w);
        o->longindex = li;
        /* glibc takes a prefix of several options that share has_arg and
         * val (the planning options) as the first of them: refuse it. */
        if (cli_prefix_matches(o) > 1) {
            cli_ambiguous(o);
            cli_usage_hint(o->d, o->cmd);
            return CLI_OPT_FAIL;
        }
    } else {
        cli_spell_short(o, c);
        o->longindex = cli_long_of(o, c);
    }
    /* -o '' names no file: say so before anything tries to write "" */
    if (c == 'o' && optarg && !*optarg) {
        cli_usage_error(o->d, o->cmd, "%s needs a %s name, not an empty string",
                        o->spelled,
                        strcmp(o->cmd, "gen") == 0 ? "directory" : "file");
        return CLI_OPT_FAIL;
    }
    return c;
}

const char *cli_opts_operand(const cli_opts *o, const char *what) {
    if (optind >= o->argc) {
        cli_usage_error(o->d, o->cmd, "%s needs a %s", o->cmd, what);
        return NULL;
    }
    if (optind + 1 < o->argc) {
        const char *extra = o->argv[optind + 1];
        /* With "+", options after the operand are operands too. */
        if (o->optstring[0] == '+' && extra[0] == '-' && extra[1] != '\0')
            cli_usage_error(o->d, o->cmd,
                            "unexpected argument '%s' after %s (options go "
                            "before %s)",
                            extra, what, what);
        else
            cli_usage_error(o->d, o->cmd,
                            "unexpected argument '%s' (%s takes one %s)", extra,
                            o->cmd, what);
        return NULL;
    }
    return o->argv[optind];
}

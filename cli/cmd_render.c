/*
 * cli/cmd_render.c - `planwrap render TEMPLATE --data DATA.json`: a
 * general mustache renderer with spec semantics by default, for trying
 * templates (and overrides of the built-in ones) by hand.
 */
#include "cli/cli.h"
#include "templates/mustache.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void render_usage(FILE *out) {
    fputs("usage: planwrap render TEMPLATE --data DATA.json [options]\n"
          "\n"
          "Renders the mustache template TEMPLATE (a file, `-` for standard\n"
          "input, or builtin:NAME for a built-in template) against the JSON\n"
          "value in DATA.json.  Spec semantics unless told otherwise.\n"
          "\n"
          "options:\n"
          "  -d, --data FILE      the JSON data (required; `-` is stdin)\n"
          "  -p, --partials DIR   look partials and parents up as\n"
          "                       DIR/NAME.mustache, then among the "
          "built-ins\n"
          "  -s, --strict         an unknown name or partial is an error\n"
          "  -n, --no-escape      do not HTML-escape {{name}}\n"
          "      --max-depth N    nesting limit for sections and partials\n"
          "  -o, --output FILE    write here (default `-`: stdout); "
          "written\n"
          "                       atomically, and not at all on error\n"
          "      --list           list the built-in templates and exit\n"
          "      --show builtin:NAME  print a built-in template's source "
          "and exit\n"
          "  -h, --help           show this help\n"
          "\n"
          "exit status: 0 ok, 1 bad template or data, 2 bad usage.\n",
          out);
}

/* "no built-in template 'NAME'", with the closest built-in name when one
 * is close, else the list of them. */
static void cli_no_builtin(base_diag *d, const char *name) {
    const char *names[64] = {NULL};
    size_t n = 0;
    while (n < 64 && mst_builtin_name(n)) {
        names[n] = mst_builtin_name(n);
        n++;
    }
    size_t k = base_closest(name, strlen(name), names, n);
    if (k != SIZE_MAX) {
        base_diag_msg(d, BASE_SEV_ERROR,
                      "no built-in template '%s'; did you mean 'builtin:%s'?",
                      name, names[k]);
        return;
    }
    base_sb list = {0};
    for (size_t i = 0; i < n; i++)
        base_sb_printf(&list, " %s", names[i]);
    base_diag_msg(d, BASE_SEV_ERROR, "no built-in template '%s' (built-ins:%s)",
                  name, base_sb_str(&list));
    base_sb_free(&list);
}

/* --show builtin:NAME: the built-in's source on stdout (exit 0), or an
 * error (exit 1). */
static int cli_show_builtin(base_diag *d, const char *arg) {
    const char *name = strncmp(arg, "builtin:", 8) == 0 ? arg + 8 : arg;
    size_t len = 0;
    const char *text = mst_builtin(name, &len);
    if (!text) {
        cli_no_builtin(d, name);
        return 1;
    }
    return cli_write_file_atomic("-", text, len, d) ? 0 : 1;
}

/* The options of `render`. */
typedef struct cli_render_args {
    const char *data_path, *dir, *out_path, *tpath;
    mst_options opts;
} cli_render_args;

/* Parses the options into r.  Returns -1 to go on, else the exit status
 * (--help, --list, --show, usage errors). */
static int cli_render_parse(base_diag *d, int argc, char **argv,
                            cli_render_args *r) {
    static const struct option longopts[] = {
        {"data", required_argument, NULL, 'd'},
        {"partials", required_argument, NULL, 'p'},
        {"strict", no_argument, NULL, 's'},
        {"no-escape", no_argument, NULL, 'n'},
        {"max-depth", required_argument, NULL, 'D'},
        {"output", required_argument, NULL, 'o'},
        {"list", no_argument, NULL, 'l'},
        {"show", required_argument, NULL, 'S'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    cli_opts o;
    cli_opts_init(&o, d, "render", argc, argv, ":d:p:snD:o:h", longopts);
    int c;
    while ((c = cli_opts_next(&o)) != -1) {
        switch (c) {
        case 'd':
            r->data_path = optarg;
            break;
        case 'p':
            r->dir = optarg;
            break;
        case 's':
            r->opts.strict = true;
            break;
        case 'n':
            r->opts.no_escape = true;
            break;
        case 'o':
            r->out_path = optarg;
            break;
        case 'D': {
            char *end;
            errno = 0;
            unsigned long v = strtoul(optarg, &end, 10);
            if (errno || *end || end == optarg || v == 0 || v > MST_MAX_DEPTH ||
                optarg[0] == '-')
                return cli_usage_error(
                    d, "render",
                    "invalid value '%s' for --max-depth: expected 1 to %u "
                    "(deeper nesting could overflow the stack)",
                    optarg, MST_MAX_DEPTH);
            r->opts.max_depth = (unsigned)v;
            break;
        }
        case 'S':
            return cli_show_builtin(d, optarg);
        case 'l':
            for (size_t i = 0; mst_builtin_name(i); i++)
                printf("%s\n", mst_builtin_name(i));
            return 0;
        case 'h':
            render_usage(stdout);
            return 0;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    r->tpath = cli_opts_operand(&o, "TEMPLATE");
    return r->tpath ? -1 : 2;
}

/* The operands and options that cannot go together: the exit status of
 * a usage error, or -1. */
static int cli_render_check(base_diag *d, const cli_render_args *r) {
    if (!r->data_path)
        return cli_usage_error(d, "render", "render needs --data DATA.json");
    if (strcmp(r->tpath, "-") == 0 && strcmp(r->data_path, "-") == 0)
        return cli_usage_error(d, "render",
                               "TEMPLATE and --data cannot both be "
                               "'-' (standard input)");
    if (r->dir && !cli_usage_dir(d, "render", "--partials", r->dir))
        return 2;
    if (!cli_usage_not_input(d, "render", r->out_path, r->tpath) ||
        !cli_usage_not_input(d, "render", r->out_path, r->data_path))
        return 2;
    return -1;
}

/* The template's text: a built-in's, or read into *owned.  NULL after
 * an error (reported). */
static const char *cli_render_template(base_diag *d, const char *tpath,
                                       char **owned, size_t *tlen) {
    *owned = NULL;
    if (strncmp(tpath, "builtin:", 8) == 0) {
        const char *text = mst_builtin(tpath + 8, tlen);
        if (!text)
            cli_no_builtin(d, tpath + 8);
        return text;
    }
    if (!ir_read_file(tpath, owned, tlen, d))
        return NULL;
    return *owned;
}

/* jansson's error in the data at `path`, at its line and column. */
static void cli_data_error(base_diag *d, const char *path,
                           const json_error_t *e) {
    base_diag_report_in(d, BASE_SEV_ERROR, cli_display_name(path),
                        e->line > 0 ? (uint32_t)e->line : 1,
                        e->column > 0 ? (uint32_t)e->column : 1, "%s", e->text);
}

/* A data file streamed to jansson (json_load_callback), so that its text
 * never sits in memory beside the document it becomes. */
typedef struct cli_data_src {
    FILE *f;
    size_t n, limit; /* bytes read, base_max_input() */
    int err;         /* errno of a failed read, 0 */
} cli_data_src;

static size_t cli_data_read(void *buf, size_t len, void *ctx) {
    cli_data_src *s = ctx;
    if (len > s->limit + 1 - s->n)
        len = s->limit + 1 - s->n; /* one byte past the limit tells */
    errno = 0;
    size_t got = len ? fread(buf, 1, len, s->f) : 0;
    s->n += got;
    if (got == 0 && ferror(s->f))
        s->err = errno ? errno : EIO;
    else if (s->n > s->limit)
        s->err = EFBIG;
    return s->err ? (size_t)-1 : got;
}

/* The data of a regular file, streamed: NULL after an error (reported),
 * or with *fallback set when `path` is not a regular file that can be
 * opened (the caller reads it whole, which says why it cannot). */
static json_t *cli_render_stream(base_diag *d, const char *path,
                                 bool *fallback) {
    struct stat st;
    FILE *f = fopen(path, "rb");
    *fallback = !f || fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode) ||
                (uint64_t)st.st_size > base_max_input();
    if (*fallback) {
        if (f)
            fclose(f);
        return NULL;
    }
    cli_data_src s = {f, 0, base_max_input(), 0};
    json_error_t jerr;
    json_t *data =
        json_load_callback(cli_data_read, &s, JSON_DECODE_ANY, &jerr);
    fclose(f);
    if (s.err) { /* a read error (or a file growing past the limit) */
        json_decref(data);
        base_diag_msg(d, BASE_SEV_ERROR, "cannot read %s: %s", path,
                      strerror(s.err));
        return NULL;
    }
    if (!data)
        cli_data_error(d, path, &jerr);
    return data;
}

/* The data, read like every input file (so that a read error says
 * "cannot read PATH: REASON" and stdin is "<stdin>"); a regular file is
 * streamed (cli_render_stream).  NULL after an error (reported). */
static json_t *cli_render_data(base_diag *d, const char *data_path) {
    bool fallback = true;
    if (strcmp(data_path, "-") != 0) {
        json_t *data = cli_render_stream(d, data_path, &fallback);
        if (!fallback)
            return data;
    }
    char *dtext = NULL;
    size_t dlen = 0;
    if (!ir_read_file(data_path, &dtext, &dlen, d))
        return NULL;
    json_error_t jerr;
    json_t *data = json_loadb(dtext, dlen, JSON_DECODE_ANY, &jerr);
    free(dtext);
    if (!data)
        cli_data_error(d, data_path, &jerr);
    return data;
}

/* Renders t against data to r->out_path: a file as it renders (through
 * base_out, renamed once complete: the text is never held whole),
 * standard output only once all of it rendered (nothing on an error).
 * Returns the exit status. */
static int cli_render_to(base_diag *d, const mst_template *t, json_t *data,
                         const mst_loader *loader, const cli_render_args *r) {
    mst_error err;
    char *out = NULL;
    size_t outlen = 0;
    int status = 1;
    if (strcmp(r->out_path, "-") == 0) {
        if (mst_render(t, data, loader, &r->opts, &out, &outlen, &err) != 0)
            cg_report_mst(d, &err);
        else if (cli_write_file_atomic(r->out_path, out, outlen, d))
            status = 0;
        free(out);
        return status;
    }
    base_out *o = base_out_open(r->out_path, d);
    if (!o)
        return 1;
    mst_options opts = r->opts;
    opts.stream = base_out_stream(o);
    if (mst_render(t, data, loader, &opts, &out, &outlen, &err) == 0)
        return base_out_commit(o, d) ? 0 : 1;
    if (ferror(opts.stream)) { /* "cannot write the output: REASON" */
        const char *why = strstr(err.text, ": ");
        base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s%s", r->out_path,
                      why ? why : "");
    } else {
        cg_report_mst(d, &err);
    }
    base_out_discard(o);
    return 1;
}

int cli_cmd_render(base_diag *d, int argc, char **argv) {
    cli_render_args r = {.out_path = "-"};
    int rc = cli_render_parse(d, argc, argv, &r);
    if (rc < 0)
        rc = cli_render_check(d, &r);
    if (rc >= 0)
        return rc;
    size_t tlen = 0;
    char *owned = NULL; /* the text read from a file or stdin */
    const char *text = cli_render_template(d, r.tpath, &owned, &tlen);
    if (!text)
        return 1;
    json_t *data = cli_render_data(d, r.data_path);
    if (!data) {
        free(owned);
        return 1;
    }
    mst_error err;
    mst_template *t = mst_compile(cli_display_name(r.tpath), text, tlen, &err);
    free(owned);
    if (!t) {
        cg_report_mst(d, &err);
        json_decref(data);
        return 1;
    }
    mst_loader loader = mst_dir_loader(r.dir, true);
    cg_warn_blocks(t, cli_display_name(r.tpath), &loader, d);
    int status = cli_render_to(d, t, data, &loader, &r);
    mst_template_free(t);
    json_decref(data);
    return status;
}

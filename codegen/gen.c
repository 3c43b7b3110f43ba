/*
 * codegen/gen.c - rendering a target's templates against the plan view.
 *
 * A target is a fixed list of templates (below templates/<target>/), each
 * giving one output file named after the model.  Every template is
 * rendered strict (an unknown name is an error, never an empty string) and
 * without HTML escaping; the caller writes the files only when every
 * render succeeded.
 */
#include "codegen/codegen.h"
#include "templates/mustache.h"
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <dirent.h>
#include <string.h>

typedef struct cg_tfile {
    const char *template_name; /* below templates/, without .mustache */
    const char *suffix;        /* output file: MODEL + suffix */
} cg_tfile;

static const cg_tfile cg_c_files[] = {
    {"c/model.h", ".h"},
    {"c/kernels.h", "_kernels.h"},
    {"c/model.c", ".c"},
};

static const cg_tfile cg_cuda_files[] = {
    {"cuda/model.h", ".h"},
    {"cuda/kernels.h", "_kernels.h"},
    {"cuda/model.cu", ".cu"},
};

static const char *const cg_target_names[] = {"c", "cuda"};
_Static_assert(sizeof cg_target_names / sizeof cg_target_names[0] ==
                   CG_TARGET_COUNT,
               "a name per target");

bool cg_target_parse(const char *name, cg_target *t) {
    for (int i = 0; i < CG_TARGET_COUNT; i++)
        if (strcmp(name, cg_target_names[i]) == 0) {
            *t = (cg_target)i;
            return true;
        }
    return false;
}

const char *cg_target_name(cg_target t) {
    PW_ASSERT((unsigned)t < CG_TARGET_COUNT);
    return cg_target_names[t];
}

ir_target_limits cg_target_limits(cg_target t) {
    ir_target_limits lim = {.target = cg_target_name(t), .needs_outputs = true};
    if (t == CG_TARGET_CUDA) {
        lim.max_streams = PLAN_MAX_STREAMS;
        lim.cuda = true;
        lim.no_state_swap = true;
    }
    return lim;
}

bool cg_check_target(const ir_program *p, cg_target t, const cg_check_opts *o,
                     base_diag *d) {
    ir_target_limits lim = cg_target_limits(t);
    lim.cuda_graphs = o && o->cuda_graphs;
    lim.shared_pools = o && o->shared_pools;
    return ir_check_target(p, &lim, d);
}

void cg_files_free(cg_file *files, size_t nfiles) {
    if (!files)
        return;
    for (size_t i = 0; i < nfiles; i++) {
        free(files[i].name);
        free(files[i].data);
    }
    free(files);
}

/* The data of a render: a root and the lists built on demand in it. */
typedef struct cg_data {
    json_t *root;
    const mst_lazy_list *lazy;
    size_t nlazy;
} cg_data;

void cg_report_mst(base_diag *d, const mst_error *e) {
    if (e->source[0])
        base_diag_report_in(d, BASE_SEV_ERROR, e->source, e->line, e->col, "%s",
                            e->text);
    else
        base_diag_msg(d, BASE_SEV_ERROR, "%s", e->text);
}

static char *cg_file_name(const char *model, const cg_tfile *tf) {
    base_sb name = {0};
    base_sb_puts(&name, model);
    base_sb_puts(&name, tf->suffix);
    return base_sb_take(&name, NULL);
}

/* Loads and compiles template `tf` and renders it against `view` into
 * *out (named after `model`), or when `stream` is set, into stream (out
 * gets the name and length only).  False after reporting the error to
 * d. */
static bool cg_render_one(const cg_data *view, const cg_tfile *tf,
                          const char *model, const char *tdir,
                          mst_loader *loader, cg_file *out, FILE *stream,
                          base_diag *d) {
    size_t tlen = 0;
    char *text = loader->load(loader->ctx, tf->template_name, &tlen);
    if (!text) {
        /* errno set: the override DIR/NAME.mustache exists but cannot
         * be read, which is an error, not a reason to fall back. */
        char why[1024];
        if (errno != 0 && tdir &&
            mst_dir_unreadable(tdir, tf->template_name, why, sizeof why))
            base_diag_msg(d, BASE_SEV_ERROR, "%s", why);
        else
            base_diag_msg(d, BASE_SEV_ERROR, "template '%s' not found",
                          tf->template_name);
        return false;
    }
    mst_error err;
    /* a user's file is named by its path in messages, not by the name of
     * the built-in it replaces */
    char *src = mst_dir_source(tdir, tf->template_name);
    mst_template *t =
        mst_compile(src ? src : tf->template_name, text, tlen, &err);
    free(text);
    if (!t) {
        free(src);
        cg_report_mst(d, &err);
        return false;
    }
    if (src)
        cg_warn_blocks(t, src, loader, d);
    free(src);
    mst_options opts = {.no_escape = true,
                        .strict = true,
                        .lazy = view->lazy,
                        .nlazy = view->nlazy,
                        .stream = stream};
    char *data = NULL;
    size_t len = 0;
    bool ok = mst_render(t, view->root, loader, &opts, &data, &len, &err) == 0;
    mst_template_free(t);
    if (!ok && stream && ferror(stream)) {
        const char *why = strstr(err.text, ": ");
        base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s%s%s", model,
                      tf->suffix, why ? why : "");
        return false;
    }
    if (!ok) {
        cg_report_mst(d, &err);
        return false;
    }
    free(out->name);
    out->name = cg_file_name(model, tf);
    out->data = data;
    out->len = len;
    return true;
}

/* The templates of `target`: *n of them. */
static const cg_tfile *cg_target_templates(cg_target target, size_t *n) {
    switch (target) {
    case CG_TARGET_C:
        *n = sizeof cg_c_files / sizeof cg_c_files[0];
        return cg_c_files;
    case CG_TARGET_CUDA:
        *n = sizeof cg_cuda_files / sizeof cg_cuda_files[0];
        return cg_cuda_files;
    default:
        PW_ASSERT(!"a known target");
        return NULL;
    }
}

/* The data of rendering view v, and its model's name. */
static cg_data cg_data_of(const cg_view *v, const char **model) {
    cg_data view = {cg_view_root(v), NULL, 0};
    cg_view_lists(v, &view.lazy, &view.nlazy);
    *model = json_string_value(json_object_get(view.root, "model"));
    if (!*model)
        *model = "model";
    return view;
}

cg_file *cg_target_files(const cg_view *v, cg_target target, size_t *nfiles) {
    size_t n = 0;
    const cg_tfile *files = cg_target_templates(target, &n);
    const char *model;
    (void)cg_data_of(v, &model);
    cg_file *out = base_xcalloc(n, sizeof *out);
    for (size_t i = 0; i < n; i++)
        out[i].name = cg_file_name(model, &files[i]);
    *nfiles = n;
    return out;
}

cg_file *cg_render_target(const cg_view *v, cg_target target, const char *tdir,
                          size_t *nfiles, base_diag *d) {
    size_t n = 0;
    const cg_tfile *files = cg_target_templates(target, &n);
    const char *model;
    cg_data view = cg_data_of(v, &model);
    cg_file *out = base_xcalloc(n, sizeof *out);
    mst_loader loader = mst_dir_loader(tdir, true);
    for (size_t i = 0; i < n; i++)
        if (!cg_render_one(&view, &files[i], model, tdir, &loader, &out[i],
                           NULL, d)) {
            cg_files_free(out, n);
            return NULL;
        }
    *nfiles = n;
    return out;
}

bool cg_render_target_to(const cg_view *v, cg_target target, const char *tdir,
                         cg_open_fn open, void *ctx, base_diag *d) {
    size_t n = 0;
    const cg_tfile *files = cg_target_templates(target, &n);
    const char *model;
    cg_data view = cg_data_of(v, &model);
    mst_loader loader = mst_dir_loader(tdir, true);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        cg_file one = {cg_file_name(model, &files[i]), NULL, 0};
        FILE *f = open(ctx, one.name);
        ok = f &&
             cg_render_one(&view, &files[i], model, tdir, &loader, &one, f, d);
        free(one.name);
    }
    return ok;
}

/* The built-in names of `target` ("c/model.c", ...) joined by ", ". */
static void cg_builtin_list(const char *target, char *buf, size_t size) {
    size_t n = 0, tl = strlen(target);
    buf[0] = '\0';
    for (size_t i = 0; mst_builtin_name(i); i++) {
        const char *b = mst_builtin_name(i);
        if (strncmp(b, target, tl) == 0 && b[tl] == '/' && n < size)
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "", b);
    }
}

void cg_warn_overrides(const char *tdir, const char *target, base_diag *d) {
    char list[256], path[4096];
    cg_builtin_list(target, list, sizeof list);
    snprintf(path, sizeof path, "%s/%s", tdir, target);
    DIR *dir = opendir(path);
    if (!dir) {
        base_diag_msg(d, BASE_SEV_WARNING,
                      "--templates %s has no %s/ folder: no built-in template "
                      "is overridden (the %s templates are %s)",
                      tdir, target, target, list);
        return;
    }
    char **names = NULL;
    size_t n = 0, cap = 0;
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        size_t len = strlen(e->d_name);
        if (len <= 9 || strcmp(e->d_name + len - 9, ".mustache") != 0)
            continue;
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            char **nn = realloc(names, cap * sizeof *names);
            if (!nn)
                break;
            names = nn;
        }
        names[n] = strdup(e->d_name);
        if (names[n])
            n++;
    }
    closedir(dir);
    qsort(names, n, sizeof *names, base_cmp_str); /* never in readdir order */
    const char *bnames[64] = {NULL};
    size_t nb = 0;
    for (size_t i = 0; mst_builtin_name(i) && nb < 64; i++)
        bnames[nb++] = mst_builtin_name(i);
    for (size_t i = 0; i < n; i++) {
        char bname[512];
        snprintf(bname, sizeof bname, "%s/%.*s", target,
                 (int)(strlen(names[i]) - 9), names[i]);
        size_t blen = 0;
        /* a name far from every built-in is taken for a partial */
        size_t k = mst_builtin(bname, &blen)
                       ? SIZE_MAX
                       : base_closest(bname, strlen(bname), bnames, nb);
        if (k != SIZE_MAX)
            base_diag_msg(d, BASE_SEV_WARNING,
                          "%s/%s matches no built-in template, so it "
                          "overrides nothing; did you mean %s.mustache? (the "
                          "%s templates are %s)",
                          path, names[i], bnames[k], target, list);
        free(names[i]);
    }
    free(names);
}

static const cg_tfile cg_shared_files[] = {
    {"c/shared.h", ".h"},
    {"c/shared.c", ".c"},
};

cg_file *cg_render_shared(json_t *view, const char *tdir, size_t *nfiles,
                          base_diag *d) {
    size_t n = sizeof cg_shared_files / sizeof cg_shared_files[0];
    cg_file *out = base_xcalloc(n, sizeof *out);
    mst_loader loader = mst_dir_loader(tdir, true);
    cg_data data = {view, NULL, 0};
    for (size_t i = 0; i < n; i++)
        if (!cg_render_one(&data, &cg_shared_files[i], CG_SHARED_NAME, tdir,
                           &loader, &out[i], NULL, d)) {
            cg_files_free(out, n);
            return NULL;
        }
    *nfiles = n;
    return out;
}

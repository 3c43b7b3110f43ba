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

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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

/* ------------------------------------------------------------------ */
/* A bump allocator for jansson: a large view is a million small values,
 * and malloc/free of each one dominates `gen` (glibc consolidates its
 * fast bins at every large request).  Values are carved out of 1 MiB
 * chunks; jansson's free is a no-op; cg_json_arena_end releases every
 * chunk at once. */

typedef struct cg_chunk {
    struct cg_chunk *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
} cg_chunk;

static cg_chunk *cg_chunks;

#define CG_CHUNK_SIZE ((size_t)1 << 20)

static void *cg_arena_malloc(size_t n) {
    /* 8 bytes is enough for every jansson type (pointers, sizes,
     * doubles); 16 would waste ~5% of a view. */
    n = (n + 7) & ~(size_t)7;
    if (!cg_chunks || cg_chunks->size - cg_chunks->used < n) {
        size_t size = n > CG_CHUNK_SIZE ? n : CG_CHUNK_SIZE;
        cg_chunk *c = malloc(sizeof *c + size);
        if (!c)
            return NULL; /* jansson reports the failure */
        c->size = size;
        c->used = 0;
        c->next = cg_chunks;
        cg_chunks = c;
    }
    void *p = cg_chunks->data + cg_chunks->used;
    cg_chunks->used += n;
    return p;
}

static void cg_arena_free(void *p) {
    (void)p;
}

void cg_json_arena_begin(void) {
    json_set_alloc_funcs(cg_arena_malloc, cg_arena_free);
}

void cg_json_arena_end(void) {
    json_set_alloc_funcs(malloc, free);
    while (cg_chunks) {
        cg_chunk *n = cg_chunks->next;
        free(cg_chunks);
        cg_chunks = n;
    }
}

void cg_free_files(size_t nfiles, char **names, char **contents, size_t *lens) {
    for (size_t i = 0; i < nfiles; i++) {
        if (names)
            free(names[i]);
        if (contents)
            free(contents[i]);
    }
    free(names);
    free(contents);
    free(lens);
}

bool cg_render_target(json_t *view, const char *target, const char *tdir,
                      size_t *nfiles, char ***names, char ***contents,
                      size_t **lens) {
    const cg_tfile *files;
    size_t n;
    if (strcmp(target, "c") == 0) {
        files = cg_c_files;
        n = sizeof cg_c_files / sizeof cg_c_files[0];
    } else if (strcmp(target, "cuda") == 0) {
        files = cg_cuda_files;
        n = sizeof cg_cuda_files / sizeof cg_cuda_files[0];
    } else {
        fprintf(stderr, "planwrap: error: unknown target '%s' (c, cuda)\n",
                target);
        return false;
    }
    const char *model = json_string_value(json_object_get(view, "model"));
    if (!model)
        model = "model";
    char **nm = calloc(n, sizeof *nm);
    char **ct = calloc(n, sizeof *ct);
    size_t *ln = calloc(n, sizeof *ln);
    if (!nm || !ct || !ln) {
        fprintf(stderr, "planwrap: error: out of memory\n");
        cg_free_files(0, nm, ct, ln);
        return false;
    }
    mst_loader loader = mst_dir_loader(tdir, true);
    mst_options opts = {.no_escape = true, .strict = true, .max_depth = 0};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        size_t tlen = 0;
        char *text = loader.load(loader.ctx, files[i].template_name, &tlen);
        if (!text) {
            /* errno set: the override DIR/NAME.mustache exists but cannot
             * be read, which is an error, not a reason to fall back. */
            char why[1024];
            if (errno != 0 && tdir &&
                mst_dir_unreadable(tdir, files[i].template_name, why,
                                   sizeof why))
                fprintf(stderr, "planwrap: error: %s\n", why);
            else
                fprintf(stderr, "planwrap: error: template '%s' not found\n",
                        files[i].template_name);
            ok = false;
            break;
        }
        mst_error err;
        char msg[1024];
        mst_template *t = mst_compile(files[i].template_name, text, tlen, &err);
        free(text);
        if (!t) {
            fprintf(stderr, "%s\n", mst_error_format(&err, msg, sizeof msg));
            ok = false;
            break;
        }
        char *out = NULL;
        size_t olen = 0;
        if (mst_render(t, view, &loader, &opts, &out, &olen, &err) != 0) {
            fprintf(stderr, "%s\n", mst_error_format(&err, msg, sizeof msg));
            ok = false;
        } else {
            size_t sz = strlen(model) + strlen(files[i].suffix) + 1;
            nm[i] = malloc(sz);
            if (!nm[i]) {
                free(out);
                fprintf(stderr, "planwrap: error: out of memory\n");
                ok = false;
            } else {
                snprintf(nm[i], sz, "%s%s", model, files[i].suffix);
                ct[i] = out;
                ln[i] = olen;
            }
        }
        mst_template_free(t);
    }
    if (!ok) {
        cg_free_files(n, nm, ct, ln);
        return false;
    }
    *nfiles = n;
    *names = nm;
    *contents = ct;
    *lens = ln;
    return true;
}

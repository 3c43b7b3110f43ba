/*
 * codegen/codegen.h - the rendering API: the plan view and the rendering
 * of a target's templates against it (docs/view.md, docs/codegen.md).
 *
 * Pipeline: checked IR -> plan -> view (a json_t describing the planned
 * program, documented in docs/view.md) -> mustache templates (strict,
 * no-escape) -> files, which the caller (cli/) writes.
 */
#ifndef PLANWRAP_CODEGEN_H
#define PLANWRAP_CODEGEN_H

#include "ir/ir.h"
#include "planner/planner.h"
#include "templates/mustache.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* ------------------------------------------------------------------ */
/* Targets. */

typedef enum cg_target {
    CG_TARGET_C,
    CG_TARGET_CUDA,
    CG_TARGET_COUNT
} cg_target;

/* "c" -> CG_TARGET_C, "cuda" -> CG_TARGET_CUDA; false for any other
 * name (*t unchanged). */
bool cg_target_parse(const char *name, cg_target *t);
/* The name of a target ("c", "cuda"), as in the view's "target". */
const char *cg_target_name(cg_target t);
/* The limits of a target that the IR does not have (CUDA: at most
 * PLAN_MAX_STREAMS distinct stream= numbers). */
ir_target_limits cg_target_limits(cg_target t);
/* What a run of gen asks of the target beyond its limits. */
typedef struct cg_check_opts {
    bool cuda_graphs;  /* --cuda-graphs: one stream */
    bool shared_pools; /* --shared-pools: no state */
} cg_check_opts;
/* Checks a checked program against what target t can generate
 * (ir_check_target with cg_target_limits; with o->cuda_graphs also what
 * `--cuda-graphs` needs, with o->shared_pools what `--shared-pools`
 * needs; o may be NULL), reporting to `d`: `planwrap check --target T
 * [--cuda-graphs] [--shared-pools]` and `gen` run it before planning,
 * and the view assumes it passed. */
bool cg_check_target(const ir_program *p, cg_target t, const cg_check_opts *o,
                     base_diag *d);

/* ------------------------------------------------------------------ */
/* The view (codegen/view*.c). */

/* A set of view keys. */
typedef struct cg_keyset cg_keyset;

/* Options of the view that change generated code. */
/* The one-line texts of a program's statements and its input hash
 * (docs/view.md), which the view of the program needs: made ahead, once
 * the program is loaded and checked, in a thread of their own (when one
 * can be made and the program is not small) while `gen` plans it; a
 * view given them (cg_view_options.texts) waits for that thread instead
 * of making them itself, and frees them with itself.  The program must
 * not change while they are made.  cg_texts_free frees them when no
 * view took them (NULL is a no-op). */
typedef struct cg_texts cg_texts;
cg_texts *cg_texts_start(const ir_program *p);
void cg_texts_free(cg_texts *t);

typedef struct cg_view_options {
    bool kernel_status; /* kernels return int; non-zero stops the run */
    bool cuda_graphs;   /* cuda: capture runs of capturable calls */
    /* NULL: the complete view.  Otherwise the view leaves out every key
     * not in the set (and its value); for `gen` with the built-in
     * templates, which look up no other key. */
    const cg_keyset *keep;
    /* the program's statement texts and input hash made ahead
     * (cg_texts_start; the view takes them), NULL: the view makes them */
    cg_texts *texts;
} cg_view_options;

/* The keys that the built-in templates (all targets, all partials) can
 * look up, plus those the view builder and gen read back.  NULL when a
 * built-in template does not compile (or out of memory): then build the
 * complete view.  Free with cg_keyset_free (NULL is a no-op). */
cg_keyset *cg_builtin_keys(void);
void cg_keyset_free(cg_keyset *s);

/* The plan view of a planned program (see docs/view.md).  The program
 * passed ir_check (which rejects what the output cannot express, such as
 * a kernel called with different arities) and cg_check_target for
 * `target`; every rule that can reject a program is theirs, so the
 * view itself finds no error.  NULL only when `pl` is NULL.  `o` may be
 * NULL (the complete view).
 * The caller owns the result (json_decref).  Deterministic: IR order
 * only, never hash order. */
json_t *cg_build_view_opts(const plan *pl, cg_target target,
                           const cg_view_options *o, base_diag *d);

/* The streaming view (codegen/view.c): what `gen` renders.  The root and
 * its small sections are built at once; the statements, buffers and
 * kernels, whose size grows with the program, are lists built element by
 * element while a template iterates them (mst_lazy_list) and released
 * right after, so that the whole document never exists: memory stays
 * linear in the program with a small constant (docs/architecture.md).
 * cg_view_json gives the same document as cg_build_view_opts.  NULL on
 * the errors of cg_build_view_opts.  Free with cg_view_free. */
typedef struct cg_view cg_view;
cg_view *cg_view_new(const plan *pl, cg_target target, const cg_view_options *o,
                     base_diag *d);
/* The root: the lists built on demand are empty placeholders in it. */
json_t *cg_view_root(const cg_view *v);
/* The lists built on demand, for mst_options.lazy. */
void cg_view_lists(const cg_view *v, const mst_lazy_list **lazy, size_t *nlazy);
/* The complete document (a new reference), every list built into the
 * root: cg_view_write's text read back (for tests and benchmarks; NULL
 * when it cannot be written). */
json_t *cg_view_json(cg_view *v);
/* Writes the complete document as JSON text to f (`plan --emit view`:
 * the text of json_dumps(cg_view_json(v), JSON_INDENT(2))), one element
 * of each lazy list at a time, the native ones without jansson.  False
 * as cg_json_write. */
bool cg_view_write(const cg_view *v, FILE *f);
/* Writes `root` as json_dumps(root, JSON_INDENT(2)) would with each of
 * lazy[0, nlazy) built into it where its marker is a value in the root,
 * one element at a time, native elements (element_val) printed without
 * any jansson document (codegen/json_write.c).  False on a write error,
 * an element that cannot be built, or a string that is not UTF-8 (where
 * json_dumps fails too). */
bool cg_json_write(FILE *f, const json_t *root, const mst_lazy_list *lazy,
                   size_t nlazy);
/* Writes native value v as json_dumps(mst_v_to_json(v), JSON_INDENT(2))
 * would, or false as above (also for a value that has no JSON: MST_MISSING
 * or a real that is not finite). */
bool cg_json_write_val(FILE *f, mst_val v);
/* --shared-pools: the firmware keys of a model whose static pools are
 * shared (cg_shared_view adds the rest). */
void cg_view_share_pools(cg_view *v);
/* NULL is a no-op. */
void cg_view_free(cg_view *v);

/* ------------------------------------------------------------------ */
/* Rendering (codegen/gen.c). */

/* One rendered output file. */
typedef struct cg_file {
    char *name; /* "M.c": the model name and the template's suffix */
    char *data; /* malloc'ed, NUL-terminated */
    size_t len; /* bytes of data, NUL not counted */
} cg_file;

/* Renders every built-in template of `target` against `view`, templates
 * in `tdir` (may be NULL) overriding built-ins of the same name, strict
 * and without escaping.  On success returns the *nfiles files (free with
 * cg_files_free).  On error reports "TEMPLATE:LINE:COL: error: ..." to d
 * and returns NULL with nothing to free. */
cg_file *cg_render_target(const cg_view *view, cg_target target,
                          const char *tdir, size_t *nfiles, base_diag *d);
/* The files cg_render_target gives for `view`, names only (data NULL):
 * what `gen` checks before it renders.  Free with cg_files_free. */
cg_file *cg_target_files(const cg_view *view, cg_target target, size_t *nfiles);
/* Where cg_render_target_to writes file `name`: a stream, or NULL after
 * reporting why to the caller's sink (rendering stops). */
typedef FILE *(*cg_open_fn)(void *ctx, const char *name);
/* cg_render_target with each file written as it renders to the stream
 * open(ctx, NAME) gives (a chunk of it in memory at a time, not the
 * whole text).  False after reporting the first error to d ("cannot
 * write NAME: REASON" for a failed write); the caller discards what it
 * opened. */
bool cg_render_target_to(const cg_view *view, cg_target target,
                         const char *tdir, cg_open_fn open, void *ctx,
                         base_diag *d);
/* Reports a template error to d: "SOURCE:LINE:COL: error: TEXT" (the
 * form of mst_error_format), "planwrap: error: TEXT" without a source. */
void cg_report_mst(base_diag *d, const mst_error *e);
/* Frees files[0..nfiles) and the array.  NULL is a no-op. */
void cg_files_free(cg_file *files, size_t nfiles);

/* --templates TDIR: warns (to d) when TDIR has no TARGET/ folder, and
 * for each TDIR/TARGET/NAME.mustache that matches no built-in template of
 * the target but is close to one (a typo such as model.C.mustache
 * overrides nothing; other names are taken for partials), listing the
 * valid names; in name order (codegen/gen.c). */
void cg_warn_overrides(const char *tdir, const char *target, base_diag *d);

/* Warns (to d), as "SOURCE:LINE:COL: warning: block 'B' is not a
 * block of P, so it overrides nothing; did you mean 'C'? (P has the blocks
 * ...)", for each {{$B}} inside a {{<P}} of template t (compiled from
 * the user's file SOURCE) that P (loaded through l) does not declare.
 * In source order (codegen/gen_blocks.c). */
void cg_warn_blocks(const mst_template *t, const char *source,
                    const mst_loader *l, base_diag *d);

/* Embedded weights (codegen/weights.c, docs/firmware.md).  Whether some
 * const of the program has data=. */
bool cg_has_weights(const ir_program *p);
/* Writes MODEL_weights.c to `out`: the data= bytes of every const as
 * aligned static arrays, streamed from their files, and the default
 * consts instance, with the names of view v (its consts' fields).  False
 * after reporting the error to d (a data file that cannot be read). */
bool cg_write_weights(const cg_view *v, FILE *out, base_diag *d);

/* Shared pools across models (codegen/shared.c, docs/firmware.md): one
 * static pool per pool name (device, space, ...) of the models, sized and
 * aligned to the largest, in CG_SHARED_NAME.h/.c.  cg_shared_view adds to
 * each model's view (views[i] of plans[i]) the keys of its shared pools
 * and returns the view of the shared files; cg_render_shared renders
 * them (c/shared.h, c/shared.c) like cg_render_target. */
#define CG_SHARED_NAME "planwrap_shared"
json_t *cg_shared_view(json_t *const *views, size_t n);
cg_file *cg_render_shared(json_t *view, const char *tdir, size_t *nfiles,
                          base_diag *d);

/* ------------------------------------------------------------------ */
/* Pictures and comparisons (codegen/compare_out.c, codegen/picture*.c;
 * docs/pictures.md). */

/* `plan --compare`: what other allocators need, per pool, as summary
 * lines or as a "compare" object added to each pool of a plan-json root.
 * False after reporting an error to d (out of memory while comparing, or
 * an internal error: a simulated plan that does not verify). */
bool cg_compare_summary(FILE *f, const plan *pl, base_diag *d);
bool cg_compare_json(json_t *root, const plan *pl, base_diag *d);

/* The inspection texts of plan events (codegen/event_text.c), shared by
 * the comments of generated code and `plan --emit lines`; allocated in
 * `a`, deterministic, byte ranges half-open in pool offsets:
 *   alloc  "alloc: NAME, N bytes at POOL[lo,hi)" (storage sid);
 *   reuse  "reuse: NAME takes POOL[lo,hi) from OLD, ..." for every donor
 *          by offset (plan_donor), NULL when it takes no used bytes;
 *   alias  "alias: NEW = OLD T[dims] offset=N [stride=[..]], bytes
 *          [lo,hi) of ROOT" (alias statement s);
 *   del    "del NAME", or when another name still holds the storage
 *          "del NAME: a name only, storage R lives until free X (line L)"
 *          (name k of free statement s);
 *   death  "storage R dies: POOL[lo,hi) is free" (root value `root`). */
const char *cg_text_alloc(base_arena *a, const plan *pl, int32_t sid);
const char *cg_text_reuse(base_arena *a, const plan *pl, int32_t sid);
const char *cg_text_alias(base_arena *a, const plan *pl, const ir_stmt *s);
const char *cg_text_del(base_arena *a, const plan *pl, const ir_stmt *s,
                        uint32_t k);
const char *cg_text_death(base_arena *a, const plan *pl, int32_t root);
/* The same texts written at p, which has room for the most bytes the
 * text can take (cg_text_*_max, at least its length; no NUL written):
 * each returns the text's end.  The view writes its comments this way,
 * straight into the element's arena. */
size_t cg_text_alloc_max(const plan *pl, int32_t sid);
char *cg_text_alloc_at(char *p, const plan *pl, int32_t sid);
size_t cg_text_reuse_max(const plan *pl, int32_t sid);
char *cg_text_reuse_at(char *p, const plan *pl, int32_t sid);
size_t cg_text_alias_max(const plan *pl, const ir_stmt *s);
char *cg_text_alias_at(char *p, const plan *pl, const ir_stmt *s);
size_t cg_text_del_max(const plan *pl, const ir_stmt *s, uint32_t k);
char *cg_text_del_at(char *p, const plan *pl, const ir_stmt *s, uint32_t k);
size_t cg_text_death_max(const plan *pl, int32_t root);
char *cg_text_death_at(char *p, const plan *pl, int32_t root);

/* `plan --emit svg|html`: the picture of `pl`, or with `algos`
 * ("naive,reuse,...", may be NULL) the plans of those algorithms side by
 * side at one scale (each planned in `a` with pl's other options; errors
 * reported to `d`).  *out gets the malloc'ed text.  Deterministic.  False
 * after printing an error. */
bool cg_picture_emit(base_arena *a, const plan *pl, const char *algos,
                     bool html, base_diag *d, char **out, size_t *outlen);
/* Is `list` a comma-separated list of algorithm names (at most 16)? */
bool cg_picture_algos_ok(const char *list);

#endif /* PLANWRAP_CODEGEN_H */

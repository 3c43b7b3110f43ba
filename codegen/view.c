/*
 * codegen/view.c - the plan view: a jansson object describing a planned
 * program for the templates (docs/view.md is the contract).
 *
 * Every target-specific decision that is not in a template is made by the
 * view's files (codegen/view_*.c, see view_internal.h): C types, casts,
 * identifiers (deterministically mangled so that no local collides with a
 * kernel, the runtime or a C library name), offset macros, comments and
 * separators.  Everything is emitted in IR order; hash tables are used
 * only for membership tests, never iterated for output.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The root's lists built on demand (root_json). */
enum {
    LAZY_STATEMENTS,
    LAZY_BUFFERS,
    LAZY_KERNELS,
    LAZY_INPUTS,
    LAZY_CONSTS,
    LAZY_OUTPUTS,
    LAZY_ROOT_LISTS
};

/* The root's scalar fields: version, target, model, source, options and
 * file names. */
static void root_fields(vw *v, json_t *root, cg_target target) {
    const char *M = v->M;
    sets(v, root, "planwrap_version", PLANWRAP_VERSION);
    sets(v, root, "target", cg_target_name(target));
    sets(v, root, "model", M);
    sets(v, root, "model_upper", cg_upper(v, M));
    json_t *src = json_string(cg_base_name(v->prog->filename));
    set(v, root, "source", src ? src : jstr("input")); /* not UTF-8 */
    sets(v, root, "input_hash", cg_input_hash(v));
    sets(v, root, "algo", plan_algo_name(v->pl->opts.algo));
    set(v, root, "has_guards", json_boolean(v->pl->opts.guard_bytes != 0));
    set(v, root, "guard_bytes", ju64(v->pl->opts.guard_bytes));
    sets(v, root, "memory_pool",
         plan_memory_pool_name(v->pl->opts.memory_pool));
    set(v, root, "kernel_status", json_boolean(v->kernel_status));
    sets(v, root, "kernel_return", v->kernel_status ? "int" : "void");
    sets(v, root, "header", cg_vfmt(v, "%s.h", M));
    sets(v, root, "kernels_header", cg_vfmt(v, "%s_kernels.h", M));
    sets(v, root, "source_file", cg_vfmt(v, "%s.%s", M, v->cuda ? "cu" : "c"));
}

/* The "names" section: the generated API and the fixed local names. */
static json_t *names_json(vw *v) {
    const char *M = v->M;
    json_t *names = json_object();
    sets(v, names, "inputs_t", cg_vfmt(v, "%s_inputs", M));
    sets(v, names, "consts_t", cg_vfmt(v, "%s_consts", M));
    sets(v, names, "outputs_t", cg_vfmt(v, "%s_outputs", M));
    sets(v, names, "pools_t", cg_vfmt(v, "%s_pools", M));
    sets(v, names, "ctx_t", cg_vfmt(v, "%s_ctx", M));
    sets(v, names, "run", cg_vfmt(v, "%s_run", M));
    sets(v, names, "run_static", cg_vfmt(v, "%s_run_static", M));
    sets(v, names, "init", cg_vfmt(v, "%s_init", M));
    sets(v, names, "fini", cg_vfmt(v, "%s_fini", M));
    sets(v, names, "no_static_macro", cg_vfmt(v, "%s_NO_STATIC_POOLS", M));
    sets(v, names, "assert_macro", cg_vfmt(v, "%s_STATIC_ASSERT", M));
    sets(v, names, "guard_macro", cg_vfmt(v, "%s_GUARD_BYTES", M));
    sets(v, names, "header_guard", cg_vfmt(v, "PLANWRAP_%s_H", cg_upper(v, M)));
    sets(v, names, "kernels_guard",
         cg_vfmt(v, "PLANWRAP_%s_KERNELS_H", cg_upper(v, M)));
    sets(v, names, "check_macro", v->check_macro);
    sets(v, names, "copy_fn", v->copy_fn);
    sets(v, names, "in", v->p_in);
    sets(v, names, "c", v->p_c);
    sets(v, names, "out", v->p_out);
    sets(v, names, "p", v->p_p);
    sets(v, names, "ctx", v->p_ctx);
    sets(v, names, "stream", v->p_stream);
    sets(v, names, "rc", v->rc);
    sets(v, names, "pools_var", v->pools_var);
    sets(v, names, "end_label", "end");
    return names;
}

/* The sections, each built on its own, in the order of the document;
 * lazy: the placeholders of the statements, buffers, kernels, inputs,
 * consts and outputs (LAZY_*). */
static void root_sections(vw *v, json_t *root, json_t *const *lazy) {
    json_t *pools = cg_pools_json(v);
    bool any_copy = false;
    for (uint32_t i = 0; i < v->nio[CG_IO_OUTPUTS]; i++)
        any_copy = any_copy || v->out_copy[v->io_list[CG_IO_OUTPUTS][i]];
    set(v, root, "has_pools", json_boolean(json_array_size(pools) > 0));
    set(v, root, "has_inputs", json_boolean(v->nio[CG_IO_INPUTS] > 0));
    set(v, root, "has_consts", json_boolean(v->nio[CG_IO_CONSTS] > 0));
    set(v, root, "has_outputs", json_boolean(v->nio[CG_IO_OUTPUTS] > 0));
    set(v, root, "has_copies", json_boolean(any_copy));
    set(v, root, "pools", pools);
    set(v, root, "buffers", json_incref(lazy[LAZY_BUFFERS]));
    set(v, root, "inputs", json_incref(lazy[LAZY_INPUTS]));
    set(v, root, "consts", json_incref(lazy[LAZY_CONSTS]));
    set(v, root, "outputs", json_incref(lazy[LAZY_OUTPUTS]));
    set(v, root, "kernels", json_incref(lazy[LAZY_KERNELS]));
    json_t *streams = cg_streams_json(v);
    set(v, root, "has_streams", json_boolean(json_array_size(streams) > 0));
    set(v, root, "streams", streams);
    set(v, root, "nstreams", json_integer(v->nstreams));
    /* events of the cross-stream waits */
    uint32_t nev = v->sync->nwaits; /* one wait event per CUDA event */
    set(v, root, "nevents", json_integer(nev));
    set(v, root, "has_events", json_boolean(nev > 0));
    for (size_t i = 0; i < cg_nevent_kinds; i++)
        set_n(v, root, cg_event_kinds[i], strlen(cg_event_kinds[i]),
              json_false());
    set(v, root, "statements", json_incref(lazy[LAZY_STATEMENTS]));
}

/* The lists built on demand: their lengths and elements. */
static size_t count_statements(void *ctx) {
    return ((vw *)ctx)->prog->nstmts;
}

json_t *cg_lazy_add(vw *v, size_t (*count)(void *),
                    json_t *(*element)(void *, size_t), void *ctx,
                    json_t *(*element_in)(void *, size_t, const mst_names *)) {
    if (v->nlazy == v->lazy_cap) {
        v->lazy_cap = v->lazy_cap ? 2 * v->lazy_cap : 8;
        v->lazy = base_xrealloc(v->lazy, v->lazy_cap * sizeof *v->lazy);
    }
    json_t *marker = json_array();
    v->lazy[v->nlazy] = (mst_lazy_list){.marker = marker,
                                        .count = count,
                                        .element = element,
                                        .ctx = ctx,
                                        .element_in = element_in};
    v->nlazy++;
    return json_incref(marker);
}

void cg_el_begin(vw *v) {
    if (v->live == v->nels) {
        v->els = base_xrealloc(v->els, (v->nels + 1) * sizeof *v->els);
        v->els[v->nels++] = base_arena_new();
    }
    v->el = v->els[v->live++];
    base_arena_reset(v->el);
}

void cg_el_end(vw *v) {
    PW_ASSERT(v->live > 0);
    v->live--;
    v->el = v->live ? v->els[v->live - 1] : NULL;
}

void cg_el_free(vw *v) {
    for (size_t i = 0; i < v->nels; i++)
        base_arena_free(v->els[i]);
    free(v->els);
    v->els = NULL;
    v->nels = v->live = 0;
}

/* Element i of a root list, built by build, for a section whose body
 * looks up `names` (NULL: the whole element). */
static json_t *element_of(vw *v, json_t *(*build)(vw *, uint32_t), size_t i,
                          const mst_names *names) {
    cg_element_begin(v);
    cg_set_section(v, names, i);
    json_t *e = build(v, (uint32_t)i);
    cg_element_end(v);
    return e;
}

/* Element i of a list served natively (statements, buffers), built by
 * build in an arena of its own (cg_el_begin) for a section whose body
 * looks up `names`: no jansson; native_release ends it.  Its strings
 * are made in that arena too (v->str): set uncopied (nsetk). */
static mst_val native_of(vw *v, mst_val (*build)(vw *, uint32_t), size_t i,
                         const mst_names *names) {
    cg_el_begin(v);
    v->str = v->el;
    cg_set_section(v, names, i);
    mst_val e = build(v, (uint32_t)i);
    cg_element_end(v);
    return e;
}

static void native_release(void *ctx) {
    cg_el_end(ctx);
}

static mst_val statement_val(void *ctx, size_t i, const mst_names *names) {
    return native_of(ctx, cg_statement_val, i, names);
}

static size_t count_buffers(void *ctx) {
    return ((vw *)ctx)->nbuffers;
}

static mst_val buffer_val(void *ctx, size_t i, const mst_names *names) {
    return native_of(ctx, cg_buffer_val, i, names);
}

static size_t count_kernels(void *ctx) {
    return ((vw *)ctx)->prog->nkernels;
}

static json_t *kernel_at(void *ctx, size_t i) {
    return element_of(ctx, cg_kernel_json, i, NULL);
}

static json_t *kernel_in(void *ctx, size_t i, const mst_names *names) {
    return element_of(ctx, cg_kernel_json, i, names);
}

/* The inputs, consts and outputs, served natively (cg_io_val). */
static mst_val input_of(vw *v, uint32_t i) {
    return cg_io_val(v, CG_IO_INPUTS, i);
}

static mst_val const_of(vw *v, uint32_t i) {
    return cg_io_val(v, CG_IO_CONSTS, i);
}

static mst_val output_of(vw *v, uint32_t i) {
    return cg_io_val(v, CG_IO_OUTPUTS, i);
}

static size_t count_inputs(void *ctx) {
    return ((vw *)ctx)->nio[CG_IO_INPUTS];
}

static size_t count_consts(void *ctx) {
    return ((vw *)ctx)->nio[CG_IO_CONSTS];
}

static size_t count_outputs(void *ctx) {
    return ((vw *)ctx)->nio[CG_IO_OUTPUTS];
}

static mst_val input_val(void *ctx, size_t i, const mst_names *names) {
    return native_of(ctx, input_of, i, names);
}

static mst_val const_val(void *ctx, size_t i, const mst_names *names) {
    return native_of(ctx, const_of, i, names);
}

static mst_val output_val(void *ctx, size_t i, const mst_names *names) {
    return native_of(ctx, output_of, i, names);
}

/* A root list served natively: its placeholder (a new reference).  No
 * jansson element: `plan --emit view` prints native data itself
 * (cg_json_write). */
static json_t *native_list(vw *v, size_t (*count)(void *),
                           mst_val (*val)(void *, size_t, const mst_names *)) {
    json_t *marker = cg_lazy_add(v, count, NULL, v, NULL);
    v->lazy[v->nlazy - 1].element_val = val;
    v->lazy[v->nlazy - 1].release = native_release;
    return marker;
}

/* The phases before any JSON: names, then layout and types. */
static void plan_view(vw *v) {
    cg_name_kernels(v);
    cg_name_fixed(v);
    cg_plan_pools(v);
    cg_plan_kernels(v);
    cg_plan_values(v);
    cg_plan_outputs(v);
    cg_plan_io(v);
    cg_view_streams(v);
    cg_plan_buffers(v);
    cg_plan_statements(v);
    cg_fw_plan(v);
}

/* The root, with a placeholder for each lazy list. */
static json_t *root_json(cg_view *cv, cg_target target) {
    vw *v = &cv->v;
    json_t *marker[LAZY_ROOT_LISTS];
    marker[LAZY_STATEMENTS] = native_list(v, count_statements, statement_val);
    marker[LAZY_BUFFERS] = native_list(v, count_buffers, buffer_val);
    marker[LAZY_KERNELS] =
        cg_lazy_add(v, count_kernels, kernel_at, v, kernel_in);
    marker[LAZY_INPUTS] = native_list(v, count_inputs, input_val);
    marker[LAZY_CONSTS] = native_list(v, count_consts, const_val);
    marker[LAZY_OUTPUTS] = native_list(v, count_outputs, output_val);
    json_t *root = json_object();
    root_fields(v, root, target);
    set(v, root, "names", names_json(v));
    root_sections(v, root, marker);
    for (size_t i = 0; i < LAZY_ROOT_LISTS; i++)
        json_decref(marker[i]);
    cg_fw_root(v, root, false); /* codegen/fw_view.c */
    if (v->cuda)
        cg_graphs_root(v, root);
    return root;
}

cg_view *cg_view_new(const plan *pl, cg_target target, const cg_view_options *o,
                     base_diag *d) {
    if (!pl || !pl->prog)
        return NULL;
    cg_view *cv = base_xcalloc(1, sizeof *cv);
    vw *v = &cv->v;
    v->pl = pl;
    v->prog = pl->prog;
    v->a = base_arena_new();
    v->sa = base_arena_new_aligned(1);
    v->str = v->sa;
    v->scratch = base_arena_new_aligned(1);
    v->cuda = target == CG_TARGET_CUDA;
    v->kernel_status = o && o->kernel_status;
    v->keep = o ? o->keep : NULL;
    v->texts = o ? o->texts : NULL;
    cg_keep_epoch_next(v);
    (void)d; /* kept in the API: the view finds no error of its own */
    v->M = v->prog->model ? v->prog->model : "model";
    v->Mlen = strlen(v->M);
    size_t nv = v->prog->nvalues + 1;
    v->io_field = base_arena_array(v->a, nv, sizeof *v->io_field);
    plan_view(v);
    /* the caller ran cg_check_target */
    PW_ASSERT(!v->cuda || v->nstreams <= PLAN_MAX_STREAMS);
    if (v->cuda)
        cg_graphs_plan(v, o && o->cuda_graphs);
    cv->root = root_json(cv, target);
    return cv;
}

json_t *cg_view_root(const cg_view *cv) {
    return cv->root;
}

void cg_view_share_pools(cg_view *cv) {
    cg_set_section(&cv->v, NULL, 0); /* the whole view's key set */
    cg_fw_root(&cv->v, cv->root, true);
}

/* The document is the writer's text read back: the one definition of
 * the view's JSON is cg_json_write's. */
json_t *cg_view_json(cg_view *cv) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f)
        base_oom();
    bool ok = cg_view_write(cv, f);
    if (fclose(f) != 0)
        base_oom();
    json_t *doc = ok ? json_loadb(text, len, 0, NULL) : NULL;
    free(text);
    return doc;
}

void cg_view_lists(const cg_view *cv, const mst_lazy_list **lazy,
                   size_t *nlazy) {
    *lazy = cv->v.lazy;
    *nlazy = cv->v.nlazy;
}

void cg_view_free(cg_view *cv) {
    if (!cv)
        return;
    json_decref(cv->root);
    for (size_t i = 0; i < cv->v.nlazy; i++)
        json_decref((json_t *)cv->v.lazy[i].marker);
    free(cv->v.lazy);
    cg_el_free(&cv->v);
    cg_set_clear(&cv->v.ids);
    HASH_CLEAR(hh, cv->v.keep_memo);
    cg_texts_free(cv->v.texts);
    base_arena_free(cv->v.a);
    base_arena_free(cv->v.sa);
    base_arena_free(cv->v.scratch);
    free(cv);
}

json_t *cg_build_view_opts(const plan *pl, cg_target target,
                           const cg_view_options *o, base_diag *d) {
    cg_view *cv = cg_view_new(pl, target, o, d);
    json_t *root = cv ? cg_view_json(cv) : NULL;
    cg_view_free(cv);
    return root;
}

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

/* The sections, each built on its own, in the order of the document. */
static void root_sections(vw *v, json_t *root) {
    json_t *pools = cg_pools_json(v);
    json_t *inputs = cg_io_json(v, IR_INPUT, "INPUT");
    json_t *consts = cg_io_json(v, IR_CONST, "CONST");
    json_t *outputs = cg_io_json(v, IR_OUTPUT, "OUTPUT");
    json_t *stmts = cg_statements_json(v);
    bool any_copy = false;
    for (size_t i = 0; i < json_array_size(outputs); i++)
        any_copy = any_copy || v->out_copy[i];
    set(v, root, "has_pools", json_boolean(json_array_size(pools) > 0));
    set(v, root, "has_inputs", json_boolean(json_array_size(inputs) > 0));
    set(v, root, "has_consts", json_boolean(json_array_size(consts) > 0));
    set(v, root, "has_outputs", json_boolean(json_array_size(outputs) > 0));
    set(v, root, "has_copies", json_boolean(any_copy));
    set(v, root, "pools", pools);
    set(v, root, "buffers", cg_buffers_json(v));
    set(v, root, "inputs", inputs);
    set(v, root, "consts", consts);
    set(v, root, "outputs", outputs);
    set(v, root, "kernels", cg_kernels_json(v));
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
    set(v, root, "statements", stmts);
}

json_t *cg_build_view_opts(const plan *pl, cg_target target,
                           const cg_view_options *o, ir_diag *d) {
    if (!pl || !pl->prog)
        return NULL;
    vw v;
    memset(&v, 0, sizeof v);
    v.pl = pl;
    v.prog = pl->prog;
    v.a = ir_arena_new();
    v.cuda = target == CG_TARGET_CUDA;
    v.kernel_status = o && o->kernel_status;
    v.keep = o ? o->keep : NULL;
    v.d = d;
    v.M = v.prog->model ? v.prog->model : "model";
    v.stmt_txt = ir_arena_array(v.a, v.prog->nstmts + 1, sizeof *v.stmt_txt);
    v.stmt_txt_done =
        ir_arena_array(v.a, v.prog->nstmts + 1, sizeof *v.stmt_txt_done);
    v.ptr_memo = ir_arena_array(v.a, v.prog->nvalues + 1, sizeof *v.ptr_memo);
    v.decl_memo = ir_arena_array(v.a, v.prog->nvalues + 1, sizeof *v.decl_memo);
    v.io_field = ir_arena_array(v.a, v.prog->nvalues + 1, sizeof *v.io_field);

    /* Phases: names, then layout and types, then the sections. */
    cg_name_kernels(&v);
    cg_name_fixed(&v);
    cg_plan_pools(&v);
    cg_plan_kernels(&v);
    cg_plan_values(&v);
    cg_plan_outputs(&v);
    cg_view_streams(&v);
    /* the caller ran cg_check_target */
    PW_ASSERT(!v.cuda || v.nstreams <= PLAN_MAX_STREAMS);
    json_t *root = NULL;
    if (v.errors == 0) {
        root = json_object();
        root_fields(&v, root, target);
        set(&v, root, "names", names_json(&v));
        root_sections(&v, root);
        cg_view_firmware(root, pl, false); /* codegen/fw_view.c */
    }
    if (root && v.cuda &&
        !cg_view_add_graphs(root, pl, o && o->cuda_graphs, d)) {
        json_decref(root);
        root = NULL;
    }
    cg_set_clear(&v.ids);
    HASH_CLEAR(hh, v.keep_memo);
    ir_arena_free(v.a);
    return root;
}

json_t *cg_build_view(const plan *pl, cg_target target) {
    return cg_build_view_opts(pl, target, NULL, NULL);
}

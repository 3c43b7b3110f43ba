/*
 * codegen/view_kernels.c - kernel parameter types from signatures and
 * call sites, and the "kernels" section.  The calls of a kernel agree in
 * arity and argument kind, and an integer passed as a double converts
 * exactly: ir_check rejects programs where they do not.
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Kernels: parameter types from signatures and call sites. */

/* The mode of parameter j of kernel k: from its signature, inout when it
 * has none (or k < 0). */
ir_mode cg_param_mode(const vw *v, int32_t k, uint32_t j) {
    const ir_program *p = v->prog;
    if (k < 0 || p->kernels[k].sig_stmt < 0)
        return IR_MODE_INOUT;
    return p->stmts[p->kernels[k].sig_stmt].modes[j];
}

enum { K_NONE = 0, K_BUF = 1, K_INT = 2, K_FLOAT = 4, K_STR = 8 };

void cg_plan_kernels(vw *v) {
    const ir_program *p = v->prog;
    uint32_t nk = p->nkernels;
    v->knparams = base_arena_array(v->a, nk + 1, sizeof(uint32_t));
    v->kptype = base_arena_array(v->a, nk + 1, sizeof(char **));
    v->kconst = base_arena_array(v->a, nk + 1, sizeof(bool *));
    for (uint32_t k = 0; k < nk; k++) {
        const ir_kernel *kk = &p->kernels[k];
        v->knparams[k] = kk->sig_stmt >= 0 ? p->stmts[kk->sig_stmt].nmodes
                                           : p->stmts[kk->first_call].nargs;
    }
    uint32_t **kinds = base_arena_array(v->a, nk + 1, sizeof(uint32_t *));
    int32_t **dt = base_arena_array(v->a, nk + 1, sizeof(int32_t *));
    for (uint32_t k = 0; k < nk; k++) {
        kinds[k] = base_arena_array(v->a, v->knparams[k] + 1, sizeof(uint32_t));
        dt[k] = base_arena_array(v->a, v->knparams[k] + 1, sizeof(int32_t));
        for (uint32_t j = 0; j < v->knparams[k]; j++)
            dt[k][j] = -1;
    }
    /* One pass over the calls: their kernels' parameter classes and
     * dtypes, and (for cg_plan_values) the locals they read. */
    v->used = base_arena_array(v->a, p->nvalues + 1, sizeof(bool));
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
#if defined(__GNUC__)
        /* in three steps, each reading what the one before asked for:
         * the statement's record (104 bytes), its arguments' array, then
         * (cg_prefetch_call_args) the value records that array names */
        if (i + 3 * CG_PASS_AHEAD < p->nstmts) {
            const char *far = (const char *)&p->stmts[i + 3 * CG_PASS_AHEAD];
            __builtin_prefetch(far);
            __builtin_prefetch(far + sizeof *s - 1);
        }
        if (i + 2 * CG_PASS_AHEAD < p->nstmts &&
            p->stmts[i + 2 * CG_PASS_AHEAD].nargs)
            __builtin_prefetch(p->stmts[i + 2 * CG_PASS_AHEAD].args);
#endif
        /* the records of their buffer arguments: the pass reads each
         * one's dtype (at 8 ahead, two or three calls, they still missed
         * at 10^5 kernels) */
        if (i + CG_PASS_AHEAD < p->nstmts)
            cg_prefetch_call_args(p->values, &p->stmts[i + CG_PASS_AHEAD]);
        if (s->kind != IR_CALL)
            continue;
        for (uint32_t j = 0; j < s->nargs; j++)
            if (s->args[j].kind == IR_ARG_BUFFER && s->args[j].value >= 0)
                v->used[s->args[j].value] = true;
        if (s->kernel < 0)
            continue;
        int32_t k = s->kernel;                 /* ir_check's */
        PW_ASSERT(s->nargs == v->knparams[k]); /* ir_check */
        for (uint32_t j = 0; j < s->nargs; j++) {
            const ir_arg *g = &s->args[j];
            uint32_t kind = g->kind == IR_ARG_BUFFER  ? K_BUF
                            : g->kind == IR_ARG_INT   ? K_INT
                            : g->kind == IR_ARG_FLOAT ? K_FLOAT
                                                      : K_STR;
            uint32_t prev = kinds[k][j];
            uint32_t all = prev | kind;
            /* one class per parameter: ir_check */
            PW_ASSERT(!((all & K_BUF) && (all & ~(uint32_t)K_BUF)));
            PW_ASSERT(!((all & K_STR) && (all & ~(uint32_t)K_STR)));
            kinds[k][j] = all;
            if (kind == K_BUF && g->value >= 0) {
                int32_t d = (int32_t)p->values[g->value].dtype;
                if (dt[k][j] == -1)
                    dt[k][j] = d;
                else if (dt[k][j] != d)
                    dt[k][j] = -2; /* disagree: void * */
            }
        }
    }
    /* an integer where other calls pass floats fits a double exactly:
     * ir_check (ir_check_double_ints) */
    for (uint32_t k = 0; k < nk; k++) {
        uint32_t n = v->knparams[k];
        v->kptype[k] = base_arena_array(v->a, n + 1, sizeof(char *));
        v->kconst[k] = base_arena_array(v->a, n + 1, sizeof(bool));
        for (uint32_t j = 0; j < n; j++) {
            ir_mode m = cg_param_mode(v, (int32_t)k, j);
            uint32_t kind = kinds[k][j];
            if (kind & K_BUF || (kind == K_NONE && m != IR_MODE_SCALAR)) {
                bool c = m == IR_MODE_IN;
                bool vd = dt[k][j] < 0;
                const char *t = vd ? "void" : cg_ctype_of((ir_dtype)dt[k][j]);
                v->kconst[k][j] = c;
                v->kptype[k][j] = cg_vfmt(v, "%s%s *", c ? "const " : "", t);
            } else if (kind & K_STR) {
                v->kptype[k][j] = "const char *";
            } else if (kind & K_FLOAT) {
                v->kptype[k][j] = "double";
            } else {
                v->kptype[k][j] = "int64_t";
            }
        }
    }
}

json_t *cg_kernel_json(vw *v, uint32_t k) {
    const ir_program *p = v->prog;
    {
        json_t *o = json_object();
        sets(v, o, "name", p->kernels[k].name);
        sets(v, o, "c_name", v->kname[k]);
        set(v, o, "renamed",
            json_boolean(strcmp(v->kname[k], p->kernels[k].name) != 0));
        set(v, o, "has_signature", json_boolean(p->kernels[k].sig_stmt >= 0));
        sets(v, o, "return", v->kernel_status ? "int" : "void");
        json_t *params = json_array();
        sbuf decl;
        cg_sb_init(&decl);
        uint32_t n = v->knparams[k];
        for (uint32_t j = 0; j < n; j++) {
            json_t *q = json_object();
            sets(v, q, "ctype", v->kptype[k][j]);
            sets(v, q, "mode", ir_mode_name(cg_param_mode(v, (int32_t)k, j)));
            set(v, q, "last", json_boolean(j + 1 == n));
            json_array_append_new(params, q);
            if (j)
                cg_sb_put(&decl, ", ", 2);
            cg_sb_put(&decl, v->kptype[k][j], strlen(v->kptype[k][j]));
        }
        set(v, o, "params", params);
        set(v, o, "nparams", json_integer(n));
        const char *ds = cg_sb_done(v, &decl);
        sets(v, o, "params_decl", n ? ds : "void");
        cg_part x[] = {CG_STR(ds), n ? CG_LIT(", ") : CG_LIT(""),
                       CG_LIT("cudaStream_t")};
        size_t xl;
        sets(v, o, "params_decl_stream", cg_catn(v, x, 3, &xl));
        set(v, o, "last", json_boolean(k + 1 == p->nkernels));
        return o;
    }
}

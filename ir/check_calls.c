/*
 * ir/check_calls.c - the checker's rules for calls and kernels
 * (docs/ir.md): signatures, arity and argument kinds agreed across the
 * calls of a kernel, integers passed as doubles, and the warning about
 * unsigned kernels.
 */
#include "check_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const ir_class_names[] = {"nothing", "a buffer", "a number",
                                             "a string"};
_Static_assert(sizeof ir_class_names / sizeof ir_class_names[0] ==
                   IR_CLASS_STRING + 1,
               "a name per argument class");

static ir_arg_class ir_class_of(ir_arg_kind k) {
    return k == IR_ARG_BUFFER                     ? IR_CLASS_BUFFER
           : k == IR_ARG_INT || k == IR_ARG_FLOAT ? IR_CLASS_NUMBER
                                                  : IR_CLASS_STRING;
}

/* The first call of a kernel (with its signature, if any) sets what the
 * later calls must agree on. */
static void ir_kcalls_init(ir_checker *C, ir_kcalls *kc, const ir_stmt *st,
                           const ir_stmt *sig) {
    kc->nargs = sig ? sig->nmodes : st->nargs;
    kc->first = st->loc;
    kc->cls = base_arena_array(C->scratch, kc->nargs + 1, sizeof *kc->cls);
    kc->cls_at =
        base_arena_array(C->scratch, kc->nargs + 1, sizeof *kc->cls_at);
    kc->float_at =
        base_arena_array(C->scratch, kc->nargs + 1, sizeof *kc->float_at);
}

/* Argument i of call st has the class of that argument at the kernel's
 * other calls (a parameter has one C type: a pointer, a number or a
 * string); reports it otherwise.  The first call to pass it sets it. */
static bool ir_same_class(ir_checker *C, ir_kcalls *kc, const ir_stmt *st,
                          uint32_t i) {
    const ir_arg *arg = &st->args[i];
    ir_arg_class c = ir_class_of(arg->kind);
    if (kc->cls[i] == IR_CLASS_NONE) {
        kc->cls[i] = (uint8_t)c;
        kc->cls_at[i] = ir_arg_loc(st, arg);
    } else if (kc->cls[i] != c) {
        ir_cerr(C, ir_arg_loc(st, arg),
                "argument %u of kernel '%s' has different kinds at different "
                "calls (buffer, number, string)",
                (unsigned)(i + 1), st->name.name);
        ir_cnote(C, kc->cls_at[i], "it is %s here", ir_class_names[kc->cls[i]]);
        return false;
    }
    if (arg->kind == IR_ARG_FLOAT && kc->float_at[i].line == 0) {
        kc->float_at[i] = ir_arg_loc(st, arg);
        kc->any_float = C->any_float = true;
    }
    return true;
}

/* After the main pass: an integer literal passed where some call of the
 * same kernel passes a float is converted to the parameter's C type,
 * double; it must convert exactly (|n| <= 2^53).  Reported at the
 * integer, with a note at the first float. */
void ir_check_double_ints(ir_checker *C) {
    const ir_program *p = C->p;
    const int64_t lim = (int64_t)1 << 53;
    for (uint32_t i = 0; C->any_float && i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        if (st->kind != IR_CALL || st->broken)
            continue;
        const ir_name_ent *ke = ir_lookup(C, IR_NS_KERNEL, st->name.name);
        if (!ke || ke->id < 0)
            continue;
        const ir_kcalls *kc = &C->kcalls[ke->id];
        if (!kc->any_float || st->nargs != kc->nargs)
            continue;
        for (uint32_t j = 0; j < st->nargs; j++) {
            const ir_arg *g = &st->args[j];
            if (g->kind != IR_ARG_INT || kc->float_at[j].line == 0 ||
                (g->ival <= lim && g->ival >= -lim))
                continue;
            ir_cerr(C, ir_arg_loc(st, g),
                    "integer %lld cannot be passed exactly as argument %u of "
                    "kernel '%s', a double (other calls pass floats there): "
                    "integers above 2^53 lose digits; write it as a float",
                    (long long)g->ival, (unsigned)(j + 1), st->name.name);
            ir_cnote(C, kc->float_at[j], "argument %u is a float here",
                     (unsigned)(j + 1));
        }
    }
}

void ir_check_call(ir_checker *C, ir_stmt *st) {
    ir_program *p = C->p;
    st->kernel = -1;
    if (st->broken)
        return; /* its arguments may be partial: not read */
    if (st->has_stream)
        p->has_streams = true;
    ir_name_ent *ke = ir_lookup(C, IR_NS_KERNEL, st->name.name);
    if (!ke)
        ke = ir_insert(C, IR_NS_KERNEL, st->name.name, -1, -1);
    const ir_stmt *sig = ke->first >= 0 ? &p->stmts[ke->first] : NULL;
    /* A broken signature's modes and arity are unknown: nothing to check
     * against, and the calls need not agree with each other. */
    bool sig_broken = sig && sig->broken;
    if (sig_broken)
        sig = NULL;
    if (ke->id < 0) {
        ir_kernel *k = &p->kernels[p->nkernels];
        k->name = st->name.name;
        k->sig_stmt = ke->first;
        k->first_call = st->index;
        ke->id = (int32_t)p->nkernels++;
        ir_kcalls_init(C, &C->kcalls[ke->id], st, sig);
    }
    st->kernel = ke->id;
    ir_kcalls *kc = &C->kcalls[ke->id];
    bool arity_ok = true;
    if (sig && sig->nmodes != st->nargs) {
        ir_cerr(
            C, st->name.loc, "kernel '%s' takes %u argument%s but %u %s given",
            st->name.name, (unsigned)sig->nmodes, sig->nmodes == 1 ? "" : "s",
            (unsigned)st->nargs, st->nargs == 1 ? "was" : "were");
        ir_cnote(C, sig->name.loc, "signature of '%s' declared here",
                 st->name.name);
        arity_ok = false;
    } else if (sig_broken) {
        arity_ok = false;
    } else if (!sig && kc->nargs != st->nargs) {
        ir_cerr(C, st->loc,
                "kernel '%s' is called with %u arguments here and %u "
                "elsewhere",
                st->name.name, (unsigned)st->nargs, (unsigned)kc->nargs);
        ir_cnote(C, kc->first, "'%s' is first called with %u argument%s here",
                 st->name.name, (unsigned)kc->nargs, kc->nargs == 1 ? "" : "s");
        arity_ok = false;
    }
    for (uint32_t i = 0; i < st->nargs; i++) {
        ir_arg *arg = &st->args[i];
        arg->value = -1;
        if (sig && arity_ok) {
            ir_mode m = sig->modes[i];
            bool is_buf = arg->kind == IR_ARG_BUFFER;
            if (m == IR_MODE_SCALAR && is_buf) {
                ir_cerr(C, ir_arg_loc(st, arg),
                        "argument %u of '%s' must be a literal (the signature "
                        "declares it 'scalar') but '%s' is a buffer",
                        (unsigned)(i + 1), st->name.name, arg->text);
                ir_cnote(C, sig->mode_locs[i], "declared 'scalar' here");
                continue;
            }
            if (m != IR_MODE_SCALAR && !is_buf) {
                ir_cerr(C, ir_arg_loc(st, arg),
                        "argument %u of '%s' must be a buffer (the signature "
                        "declares it '%s') but a literal was given",
                        (unsigned)(i + 1), st->name.name, ir_mode_name(m));
                ir_cnote(C, sig->mode_locs[i], "declared '%s' here",
                         ir_mode_name(m));
                continue;
            }
        }
        if (arity_ok && !ir_same_class(C, kc, st, i))
            continue;
        if (arg->kind != IR_ARG_BUFFER)
            continue;
        ir_ident id = {arg->text, ir_arg_loc(st, arg)};
        arg->value = ir_use(C, &id, "use of");
    }
}

/* Kernel signatures: the first one of each kernel name counts (a call may
 * come before the signature); redefinitions are reported in order by the
 * main pass. */
void ir_collect_signatures(ir_checker *C) {
    ir_program *p = C->p;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_stmt *st = &p->stmts[i];
        if (st->kind == IR_KERNEL && st->name.name &&
            !ir_lookup(C, IR_NS_KERNEL, st->name.name))
            ir_insert(C, IR_NS_KERNEL, st->name.name, -1, (int32_t)i);
    }
}

void ir_check_signature(ir_checker *C, ir_stmt *st) {
    if (!st->name.name)
        return; /* a broken line without its name */
    ir_name_ent *e = ir_lookup(C, IR_NS_KERNEL, st->name.name);
    if (e->first != (int32_t)st->index) {
        ir_cerr(C, st->name.loc, "redefinition of kernel signature '%s'",
                st->name.name);
        ir_cnote(C, C->p->stmts[e->first].name.loc, "previously defined here");
    }
}

/* Storages never freed and not outputs live to the end: a warning. */
/* A called kernel without a signature, in a program that declares some,
 * whose name is close to a declared one: likely a typo ('call reul' for
 * 'kernel relu'), and its calls go unchecked.  A warning at its first
 * call. */
void ir_warn_unsigned_kernels(ir_checker *C) {
    const ir_program *p = C->p;
    size_t unsigned_calls = 0;
    for (uint32_t k = 0; k < p->nkernels; k++)
        unsigned_calls += p->kernels[k].sig_stmt < 0;
    if (unsigned_calls == 0)
        return;
    size_t nsig = 0;
    const char **sigs = NULL;
    for (uint32_t i = 0; i < p->nstmts; i++)
        nsig += p->stmts[i].kind == IR_KERNEL;
    if (nsig == 0)
        return;
    sigs = base_xcalloc(nsig, sizeof *sigs);
    nsig = 0;
    for (uint32_t i = 0; i < p->nstmts; i++)
        if (p->stmts[i].kind == IR_KERNEL)
            sigs[nsig++] = p->stmts[i].name.name;
    for (uint32_t k = 0; k < p->nkernels && C->suggestions < 64; k++) {
        const ir_kernel *kk = &p->kernels[k];
        if (kk->sig_stmt >= 0)
            continue;
        C->suggestions++;
        size_t i = base_closest(kk->name, strlen(kk->name), sigs, nsig);
        if (i == SIZE_MAX)
            continue;
        const ir_stmt *call = &p->stmts[kk->first_call];
        base_diag_report(C->d, BASE_SEV_WARNING, call->name.loc.line,
                         call->name.loc.col,
                         "kernel '%s' has no signature, so its calls are not "
                         "checked; did you mean '%s'?",
                         kk->name, sigs[i]);
    }
    free(sigs);
}

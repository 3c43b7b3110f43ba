/*
 * ir/check_internal.h - private to the checker of ir/ (ir/check.c, the
 * driver, names, frees and outputs; ir/check_values.c, buffers and
 * aliases; ir/check_calls.c, calls and kernels): the checker's state and
 * the functions the three files share.
 */
#ifndef PLANWRAP_IR_CHECK_INTERNAL_H
#define PLANWRAP_IR_CHECK_INTERNAL_H

#include "intern.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Names are interned (ir/intern.h): the state of a name in a namespace
 * is an ir_slot in its record.  Buffers: `first` is the first statement
 * defining the name, `id` its value once the main pass has reached that
 * statement (-1 before).  Kernels: `first` is the first signature (-1 if
 * none), `id` the ir_kernel once called.  Spaces: `id` is the ir_space. */
typedef ir_slot ir_name_ent;

/* What the calls of one kernel must agree on (kernels without a
 * signature: the arity; all kernels: the kind of each argument, since a
 * parameter has one C type).  Set by the first call. */
typedef enum ir_arg_class {
    IR_CLASS_NONE,
    IR_CLASS_BUFFER,
    IR_CLASS_NUMBER, /* int or float literals: a double or int64_t */
    IR_CLASS_STRING,
} ir_arg_class;

typedef struct ir_kcalls {
    uint32_t nargs;   /* arity of the first call (or the signature) */
    ir_loc first;     /* the first call's kernel name */
    uint8_t *cls;     /* per argument: its ir_arg_class */
    ir_loc *cls_at;   /* per argument: where its class was set */
    ir_loc *float_at; /* per argument: the first float literal passed
                         there (line 0: none), which makes it a double */
    bool any_float;   /* some float_at is set */
} ir_kcalls;

typedef struct ir_checker {
    ir_program *p;
    base_diag *d;
    unsigned errors;
    uint32_t gen;        /* this run's generation, for lazy slot resets */
    uint32_t *live;      /* per root value: names alive */
    uint32_t *free_pos;  /* per freed value: the position of its name in
                            its free statement (see ir_free_loc) */
    bool *poisoned;      /* per value: its definition had an error */
    bool *root_output;   /* per root value: some name of it is an output */
    bool *in_cycle;      /* per statement: alias part of a cycle */
    bool *cycle_head;    /* per statement: first alias of a cycle */
    ir_kcalls *kcalls;   /* per kernel: what its calls agree on */
    bool any_float;      /* some kcalls[k].any_float */
    base_arena *scratch; /* the kcalls' arrays */
    ir_device device;    /* current default device */
    int32_t model_stmt;

    /* After syntax errors (all false/NULL without). */
    bool after_syntax;    /* the program has a syntax error */
    bool lost_values;     /* some earlier line may define a name unknown here */
    bool lost_spaces;     /* the same for memory spaces */
    bool device_unknown;  /* the default device comes from a broken line */
    bool *dev_unknown;    /* per value: its device is that unknown default */
    uint32_t unread_next; /* next entry of p->unread */
    unsigned suggestions; /* "did you mean" searches so far (capped) */
} ir_checker;

/* alias NEW = OLD [TYPE] attrs (ir/check_values.c). */
void ir_check_alias(ir_checker *C, ir_stmt *st);
/* input/const/alloc/state NAME TYPE attrs: defines, sizes and places
 * the value (ir/check_values.c). */
void ir_check_buffer(ir_checker *C, ir_stmt *st);
/* Pre-pass: enters every buffer name with its first definition, then
 * finds the alias cycles (ir/check_values.c). */
void ir_collect_names(ir_checker *C);
/* call KERNEL(args): arity, argument kinds, buffer uses
 * (ir/check_calls.c). */
void ir_check_call(ir_checker *C, ir_stmt *st);
/* After the main pass: integers passed as doubles convert exactly
 * (ir/check_calls.c). */
void ir_check_double_ints(ir_checker *C);
/* kernel NAME(modes): one signature per kernel (ir/check_calls.c). */
void ir_check_signature(ir_checker *C, ir_stmt *st);
/* Pre-pass: the first signature of every kernel, so that a call may
 * precede it (ir/check_calls.c). */
void ir_collect_signatures(ir_checker *C);
/* Warns about calls of kernels without a signature whose name is close
 * to a declared one (ir/check_calls.c). */
void ir_warn_unsigned_kernels(ir_checker *C);
/* Where the freed value `id` was freed. */
static inline ir_loc ir_free_loc(const ir_checker *C, int32_t id) {
    const ir_program *p = C->p;
    return p->stmts[p->values[id].freed_at].names[C->free_pos[id]].loc;
}

/* Reports an error at loc and counts it. */
void ir_cerr(ir_checker *C, ir_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Reports a note at loc (after the error it explains). */
void ir_cnote(ir_checker *C, ir_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Defines a value for statement `st`; reports redefinitions.  Returns
 * the new value, or NULL when the name was already defined. */
ir_value *ir_define(ir_checker *C, ir_stmt *st, ir_value_kind kind);
/* The slot of `name` in namespace `ns`, reset on first use in this run.
 * (This and ir_lookup are inline: the checker asks per name use.) */
static inline ir_slot *ir_slot_of(const ir_checker *C, int ns,
                                  const char *name) {
    ir_name_rec *r = ir_name_rec_of(name);
    if (r->gen != C->gen) {
        r->gen = C->gen;
        for (int k = 0; k < IR_NS_COUNT; k++)
            r->ns[k].id = r->ns[k].first = -1;
    }
    return &r->ns[ns];
}

/* The slot of a name when it is known in namespace ns (IR_NS_*), else
 * NULL. */
static inline ir_slot *ir_lookup(const ir_checker *C, int ns,
                                 const char *name) {
    ir_slot *e = ir_slot_of(C, ns, name);
    return e->id < 0 && e->first < 0 ? NULL : e;
}

/* Sets the slot of a name in namespace ns; returns it. */
ir_slot *ir_insert(const ir_checker *C, int ns, const char *name, int32_t id,
                   int32_t first);
/* "WHAT undefined name 'x'" at loc, with "; did you mean 'y'?" when a
 * live name is close. */
void ir_undefined(ir_checker *C, ir_loc loc, const char *what,
                  const char *name);
/* Looks up a buffer name used at `id`; reports undefined names and uses
 * after free ("WHAT ..." messages).  The value id, or -1 after an error. */
int32_t ir_use(ir_checker *C, const ir_ident *id, const char *what);

#endif /* PLANWRAP_IR_CHECK_INTERNAL_H */

/*
 * ir/ir.h - planwrap IR v1: data model, parser, checker and canonical
 * printer (the arena and diagnostics sink are base/'s).
 *
 * Data flows one way: text --ir_parse--> ir_program (statements) --ir_check-->
 * ir_program (statements resolved to values) --> planner.  Everything an
 * ir_program points to lives in one base_arena and is freed with it.
 *
 * The contract of the language is docs/ir.md (grammar in EBNF).
 */
#ifndef PLANWRAP_IR_H
#define PLANWRAP_IR_H

#include "base/base.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Reads a whole file ("-" = standard input) into a malloc'ed buffer with a
 * NUL appended (not counted in *len).  On failure reports "cannot read
 * PATH: REASON" to d (base_diag_msg) and returns false. */
bool ir_read_file(const char *path, char **text, size_t *len, base_diag *d);

/* ------------------------------------------------------------------ */
/* Data model. */

typedef struct ir_loc {
    uint32_t line; /* 1-based */
    uint32_t col;  /* 1-based, in bytes */
} ir_loc;

typedef enum ir_dtype {
    IR_F64,
    IR_F32,
    IR_F16,
    IR_BF16,
    IR_I64,
    IR_I32,
    IR_I16,
    IR_I8,
    IR_U8,
    IR_BOOL,
    IR_DTYPE_COUNT
} ir_dtype;

/* Bytes per element: 8,4,2,2,8,4,2,1,1,1. */
unsigned ir_dtype_size(ir_dtype t);
/* "f64", "f32", ... */
const char *ir_dtype_name(ir_dtype t);

typedef enum ir_device_kind { IR_DEV_CPU, IR_DEV_CUDA } ir_device_kind;

typedef struct ir_device {
    ir_device_kind kind;
    uint32_t index; /* N of cuda:N; 0 for cpu */
} ir_device;

/* Writes "cpu" or "cuda:N" into buf (size >= 24) and returns buf. */
const char *ir_device_str(ir_device d, char *buf, size_t size);

typedef enum ir_stmt_kind {
    IR_MODEL,
    IR_DEVICE,
    IR_SPACE,
    IR_KERNEL,
    IR_INPUT,
    IR_CONST,
    IR_ALLOC,
    IR_ALIAS,
    IR_CALL,
    IR_FREE,
    IR_OUTPUT,
    IR_STATE, /* state NAME TYPE: persists across runs (docs/firmware.md) */
} ir_stmt_kind;

typedef enum ir_mode {
    IR_MODE_IN,
    IR_MODE_OUT,
    IR_MODE_INOUT,
    IR_MODE_SCALAR,
} ir_mode;

/* "in", "out", "inout", "scalar": the word of the kernel statement. */
const char *ir_mode_name(ir_mode m);
/* The keyword of a statement kind ("model", ..., "output"): the one
 * table the parser, the printers and `plan --emit lines` use. */
const char *ir_stmt_keyword(ir_stmt_kind k);

typedef struct ir_ident {
    const char *name; /* NULL when absent */
    ir_loc loc;
} ir_ident;

typedef struct ir_type {
    ir_dtype dtype;
    uint32_t ndim;  /* 0 for DTYPE[] (a scalar: one element) */
    uint64_t *dims; /* ir_parse shares equal arrays between statements (and
                       with strides): never written after parsing */
    ir_loc loc;
} ir_type;

/* The most statements a program may have (ir_parse reports "input too
 * large" beyond). */
#define IR_MAX_STATEMENTS ((1u << 28) - 1)

typedef enum ir_arg_kind {
    IR_ARG_BUFFER,
    IR_ARG_INT,
    IR_ARG_FLOAT,
    IR_ARG_STRING,
} ir_arg_kind;

/* One argument of a call: 24 bytes, several per call (the value of a
 * literal shares its storage with those of the other kinds: read the one
 * of `kind`).  Its line is the statement's. */
typedef struct ir_arg {
    unsigned kind : 3; /* an ir_arg_kind */
    /* after ir_check: value id of a buffer arg, else -1 (value ids are
     * below IR_MAX_STATEMENTS) */
    signed value : 29;
    uint32_t col;     /* 1-based column, in bytes, on the statement's line */
    const char *text; /* buffer name, or the literal as spelled in the source */
    union {
        int64_t ival;     /* IR_ARG_INT */
        double fval;      /* IR_ARG_FLOAT */
        const char *sval; /* IR_ARG_STRING: decoded, NUL-terminated */
    };
} ir_arg;

/* The firmware attributes of a statement (docs/firmware.md), kept out of
 * ir_stmt (one pointer there, NULL when the statement has none) so that
 * ordinary statements stay small. */
typedef struct ir_fw_attrs {
    ir_ident spill;   /* space NAME capacity=BYTES spill=OTHER */
    ir_ident next;    /* state NAME TYPE next=OUTPUT */
    const char *data; /* const ... data="FILE" (decoded), NULL if absent */
    ir_loc data_loc;
    uint64_t at; /* const ... at=BYTES (offset into the data file) */
    ir_loc at_loc;
    ir_loc planned_loc; /* input/alloc ... planned */
    bool has_at;
    bool planned;
} ir_fw_attrs;

/* The attributes of a buffer or alias statement that most programs never
 * give, kept out of ir_stmt (one pointer there, NULL when the statement
 * has none of them) so that ordinary statements stay small. */
typedef struct ir_attrs {
    ir_loc device_loc; /* device= (when ir_stmt.has_device) */
    ir_ident space;    /* space=NAME */
    ir_ident comm;     /* comm=TYPE */
    ir_ident group;    /* group=NAME */
    uint64_t *strides; /* stride=[...] when has_stride: nstrides entries
                          (shared like ir_type.dims) */
    ir_loc stride_loc;
    uint32_t nstrides;
    uint64_t offset; /* alias: offset= (when has_offset), in elements of the
                        alias's TYPE (or OLD's dtype) */
    ir_loc offset_loc;
} ir_attrs;

/* One statement: one line of input, so kept small (104 bytes, asserted in
 * ir/parse.c).  The fields of one kind of statement share storage with
 * those of the others (an anonymous union): read only the fields of the
 * statement's kind, as the comment of each says; the counts and flags
 * outside the union are zero where they do not apply. */
typedef struct ir_stmt {
    uint8_t kind; /* an ir_stmt_kind */

    /* optional parts present (one bit each) */
    bool has_device : 1;
    bool has_type : 1;
    bool has_stride : 1; /* attrs->strides, attrs->nstrides */
    bool has_capacity : 1;
    bool has_offset : 1; /* attrs->offset */
    bool has_stream : 1;
    bool nocapture : 1; /* kernel statement: `nocapture` (not in a CUDA
                           graph) */

    /* The line of this statement has a syntax error (only in the programs
     * the recovering parser of ir_load builds, never in one ir_parse
     * returns).  `kind`, `index` and `loc` are right; `name` is set when
     * it was parsed before the error (NULL otherwise); every other field
     * may be partial and is not used: ir_check takes such a statement into
     * account by its kind and name only (docs/ir.md, "After a syntax
     * error"). */
    bool broken : 1;

    uint32_t index; /* 0-based position among statements: the time axis */
    ir_loc loc;     /* of the keyword */

    /* model/space/kernel/input/const/alloc/state NAME; alias NEW; call
     * KERNEL */
    ir_ident name;

    /* after ir_check: value defined by input/const/alloc/state/alias,
     * else -1 */
    int32_t value;

    /* size of args below (0 for the other kinds) */
    uint32_t nargs;

    /* device statement, or the device= attribute when has_device */
    ir_device device;

    /* space=, comm=, group=, stride=, offset= and device='s location;
     * NULL when none of them is given (buffer and alias statements) */
    ir_attrs *attrs;

    /* spill=, next=, data=, at=, planned; NULL when none given */
    ir_fw_attrs *fw;

    union {
        /* input/const/alloc/state NAME TYPE, alias NEW = OLD [TYPE] */
        struct {
            ir_type type; /* when has_type (always for buffers) */
            union {
                /* input/const/alloc/state: align=BYTES, 0 when absent */
                struct {
                    uint64_t align;
                    ir_loc align_loc;
                };
                /* alias: OLD (an alias has no align=) */
                ir_ident old;
            };
        };
        /* call KERNEL(args) [stream=N] (stream when has_stream) */
        struct {
            ir_arg *args; /* nargs entries */
            uint64_t stream;
            ir_loc stream_loc;
            /* after ir_check: its kernel, an index into
             * ir_program.kernels (-1 for a broken call) */
            int32_t kernel;
        };
        /* kernel NAME(modes) */
        struct {
            ir_mode *modes;    /* nmodes entries */
            ir_loc *mode_locs; /* nmodes entries */
            uint32_t nmodes;
        };
        /* free/output NAME... */
        struct {
            ir_ident *names;      /* nnames entries */
            int32_t *name_values; /* after ir_check: value id of each */
            uint32_t nnames;
        };
        /* space NAME capacity=BYTES, when has_capacity */
        uint64_t capacity;
    };
} ir_stmt;

typedef enum ir_value_kind {
    IR_VAL_INPUT,
    IR_VAL_CONST,
    IR_VAL_ALLOC,
    IR_VAL_ALIAS,
    IR_VAL_STATE, /* state NAME TYPE: a root, persists across runs */
} ir_value_kind;

/* A name bound to memory, after ir_check.  Value ids are indices into
 * ir_program.values, in definition order.  One per buffer and alias of
 * the program, so kept small (144 bytes, asserted in ir/check.c).
 *
 * Invariant of a program that passed ir_check: ir_check assigns the ids
 * as it walks the statements and an alias resolves OLD among the names
 * already defined, so a value comes after the values it refers to:
 * def grows with the id, alias_of < id for an alias, and root <= id
 * (root == id for an input, const, alloc or state; for an alias, the
 * root of its OLD, a value of one of those kinds).  The planner relies
 * on it (one pass over the values makes each storage at its root before
 * its aliases: planner/program.c, pp_storages).  A program rewritten in
 * a new order (planner/sched_ir.c) is checked again, so it holds there
 * too (tests/planner/test_schedule.c). */
typedef struct ir_value {
    const char *name;
    uint8_t kind;       /* an ir_value_kind */
    uint8_t dtype;      /* an ir_dtype */
    bool planned;       /* input/alloc: `planned` given (docs/firmware.md) */
    uint8_t item_align; /* storage: the largest item size of its dtype and
                           of its views' dtypes, which its offset must be
                           a multiple of whatever --align and align= say
                           (docs/planning.md, Alignment); aliases: 0 */
    uint32_t def;       /* index of the defining statement */
    int32_t alias_of;   /* IR_VAL_ALIAS: the value it names, else -1 */
    int32_t root;       /* the input/const/alloc value owning the memory
                           (itself for those kinds) */
    uint32_t ndim;
    uint32_t nstrides; /* 0 when dense */
    const uint64_t *dims;
    const uint64_t *strides;
    uint64_t bytes;       /* footprint in bytes (strides applied):
                             ir_value_elements(v) * the dtype's size */
    uint64_t byte_offset; /* offset from the root's first byte */
    int32_t freed_at;     /* statement index of the free of this name, -1 */
    int32_t output_index; /* position in the output statement, -1 */
    /* memory placement, resolved (aliases copy their root's) */
    ir_device device;
    const char *space; /* NULL = default space */
    const char *comm;  /* NULL = ordinary buffer */
    const char *group; /* NULL unless comm */
    uint64_t align;    /* align= or 0 */
    /* roots (input/const/alloc): statement index of the free after which
     * no name refers to the storage any more (aliases included), -1 when
     * the storage lives to the end of the program.  Aliases: -1. */
    int32_t storage_end;
    /* firmware (docs/firmware.md) */
    int32_t state_next;    /* state: the output given by next=, else -1 */
    int32_t next_of;       /* that output: its state, else -1 */
    const char *data_path; /* const with data=: the file, resolved against
                              the IR file's folder; NULL otherwise */
    uint64_t data_at;      /* its byte offset in that file */
} ir_value;

/* The footprint of v in elements (strides applied). */
static inline uint64_t ir_value_elements(const ir_value *v) {
    unsigned item = ir_dtype_size((ir_dtype)v->dtype);
    return item ? v->bytes / item : 0;
}

typedef struct ir_space {
    const char *name;
    bool has_capacity;
    uint64_t capacity;
    uint32_t stmt;
    int32_t spill; /* index of the spill= space, -1 when none */
} ir_space;

/* A kernel called by the program, in order of first appearance. */
typedef struct ir_kernel {
    const char *name;
    int32_t sig_stmt;    /* index of its `kernel` statement, -1 if none */
    uint32_t first_call; /* statement index of the first call */
} ir_kernel;

/* A comment or blank line, kept so that `fmt` can print it back; not part
 * of the program's meaning.  In line order. */
typedef struct ir_comment {
    uint32_t before;  /* the statement it precedes (nstmts: the end); for a
                         trailing comment, the statement on its line */
    bool trailing;    /* `STATEMENT # text` */
    const char *text; /* "# ...", trailing blanks removed; NULL: a blank
                         line (runs of blank lines count as one) */
} ir_comment;

typedef struct ir_program {
    base_arena *arena;
    const char *filename;
    const char *model; /* model NAME */
    uint32_t nstmts;
    ir_stmt *stmts;

    /* after ir_check */
    uint32_t nvalues;
    ir_value *values;
    uint32_t nspaces;
    ir_space *spaces;
    uint32_t nkernels;
    ir_kernel *kernels;
    int32_t output_stmt; /* index of the output statement, -1 */
    bool has_streams;    /* some call carries stream= */

    /* Internal to the ir module: every name of the statements points into
     * a name record of ir/intern.h (ir_parse sets this; ir_check interns
     * the names of a program built otherwise). */
    bool names_interned;
    uint32_t check_gen; /* ir_check runs on this program */

    /* comments and blank lines (ir_parse), printed back by ir_print */
    uint32_t ncomments;
    ir_comment *comments;

    /* Syntax errors, for ir_check.  All zero in a program from ir_parse
     * (it returns none with syntax errors) or built by hand; set by the
     * recovering parser of ir_load, which keeps every line whose statement
     * keyword was read as a `broken` statement.  A line where not even
     * that could be read (an unknown keyword, punctuation, an invalid
     * byte before the keyword) is "unread": it is no statement, and
     * unread[i] is the index of the statement that follows the i-th such
     * line (nstmts when none follows), in ascending order. */
    uint32_t syntax_errors;
    uint32_t nunread;
    uint32_t *unread;
} ir_program;

/* ------------------------------------------------------------------ */
/* Front end. */

/* Parses IR v1 text (need not be NUL-terminated; NUL bytes are errors).
 * Reports every syntax error to `d`.  Returns the program (allocated in
 * `a`) when there were no errors, else NULL.  O(len). */
ir_program *ir_parse(base_arena *a, const char *filename, const char *text,
                     size_t len, base_diag *d);

/* Checks every rule of docs/ir.md, reporting all errors (and warnings
 * such as storages never freed) to `d`, and fills the "after ir_check"
 * fields.  Returns true when there were no errors: never for a program
 * with syntax errors (broken statements), whose semantic errors are
 * reported without the cascades of the syntax errors.  O(n).  May be run
 * again after editing the statements; a program built by hand (not by
 * ir_parse) is fine too.  The names of a parsed program are interned:
 * after replacing a name pointer, set p->names_interned = false. */
bool ir_check(ir_program *p, base_diag *d);

/* The length of a name of a checked program (ir_check interns them, see
 * names_interned): a statement's name, old name, free or output names,
 * a value's or kernel's name.  Its record (ir/intern.h) keeps the length
 * just before the bytes, so this costs one load, not a strlen: the view
 * of a model of 10^5 calls sets some 10^6 names. */
static inline size_t ir_name_len(const char *name) {
    uint32_t n;
    memcpy(&n, name - sizeof n, sizeof n);
#ifndef NDEBUG
    PW_ASSERT(n == strlen(name));
#endif
    return n;
}

/* What a code generation target cannot do that the IR allows (codegen's
 * cg_target_limits gives them per target); 0 means no limit. */
typedef struct ir_target_limits {
    const char *target;   /* its name, for messages */
    uint32_t max_streams; /* distinct stream= numbers */
    bool cuda;            /* drives cuda devices (else host only: a buffer
                             on one is an error; with it, a warning says
                             when no buffer is on one) */
    bool no_state_swap;   /* cannot swap `state ... next=` */
    /* The calls are captured into CUDA graphs (`--cuda-graphs`), which
     * need them on one stream: no call may carry stream=. */
    bool cuda_graphs;
    /* The static pools are shared with other models (`--shared-pools`),
     * which reuse their bytes between runs: no `state`. */
    bool shared_pools;
    /* Generated code returns the outputs: a program without `output` is
     * an error (`check` without a target only warns). */
    bool needs_outputs;
} ir_target_limits;

/* The distinct stream= numbers of the calls, ascending, into ids (room
 * for nstmts entries); returns their number.  O(n log n). */
uint32_t ir_stream_ids(const ir_program *p, uint64_t *ids);

/* Checks a checked program against a target's limits, reporting each
 * violation with its location to `d` (`planwrap check --target T` and
 * `gen` run it): the streams (one with cuda_graphs), the devices,
 * state swaps, no state with shared_pools, and an `output` statement.  True
 * when it fits.  O(n log n). (An integer a double parameter cannot hold is
 * ir_check's: no target has such parameters otherwise.) */
bool ir_check_target(const ir_program *p, const ir_target_limits *lim,
                     base_diag *d);

/* The one statement printer (ir/print.c), in three modes:
 * IR_TEXT_CANONICAL, the line of ir_print (`fmt`); IR_TEXT_SHORT, the
 * one-line text of the comments of generated code and of the input hash
 * (call arguments and data= through `esc`, NULL: as spelled);
 * IR_TEXT_LINES, the statement part of `plan --emit lines`.  Appends to
 * out, no newline. */
typedef enum ir_text_mode {
    IR_TEXT_CANONICAL,
    IR_TEXT_SHORT,
    IR_TEXT_LINES,
} ir_text_mode;
typedef void (*ir_text_escape)(base_sb *out, const char *s);
void ir_stmt_text(base_sb *out, const ir_stmt *st, ir_text_mode mode,
                  ir_text_escape esc);

/* Prints the program in canonical form: parse(print(p)) has the same
 * meaning as p, and print is a fixed point.  Comments are kept (trailing
 * ones after two spaces), runs of blank lines become one, blank lines at
 * the start and the end are dropped. */
void ir_print(FILE *out, const ir_program *p);

/* Convenience: read + parse + check one file into `a`; NULL on error
 * (already reported).  The checker runs even after syntax errors, so
 * that every error of the file is reported: first the syntax errors,
 * then the semantic ones (docs/ir.md, "After a syntax error"). */
ir_program *ir_load(base_arena *a, const char *path, base_diag *d);

/* Look up a value by name among the values visible at the end of the
 * program (the latest definition).  -1 when none. */
int32_t ir_find_value(const ir_program *p, const char *name);

/* True when `name` is a C11 keyword (which IR names may not be: see
 * docs/ir.md).  Code generators use it to mangle identifiers. */
bool ir_is_c_keyword(const char *name);

#endif /* PLANWRAP_IR_H */

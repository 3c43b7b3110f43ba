/*
 * import/imp.h - internals of the ONNX importer shared by its files:
 * the graph model (values, nodes), the context with its arena and error
 * exit, and the passes (read.c -> ops.c, shape_nn.c, shape_tensor.c,
 * fold.c -> mem.c -> sig.c -> emit.c).
 */
#ifndef PLANWRAP_IMP_H
#define PLANWRAP_IMP_H

#include "base/base.h"
#include "import/import.h"
#include "onnx.pb-c.h"

#include <setjmp.h>
#include <stdarg.h>

/* ONNX TensorProto.DataType values planwrap can express. */
enum {
    IMP_FLOAT = 1,
    IMP_UINT8 = 2,
    IMP_INT8 = 3,
    IMP_INT16 = 5,
    IMP_INT32 = 6,
    IMP_INT64 = 7,
    IMP_BOOL = 9,
    IMP_FLOAT16 = 10,
    IMP_DOUBLE = 11,
    IMP_BFLOAT16 = 16,
};

/* Constant data is kept only for small tensors (shape arithmetic). */
#define IMP_FOLD_LIMIT 4096

typedef enum imp_vkind {
    IMP_V_UNDEF,  /* not defined yet */
    IMP_V_INPUT,  /* graph input */
    IMP_V_CONST,  /* initializer or Constant node */
    IMP_V_FOLDED, /* computed at import time from constants */
    IMP_V_NODE,   /* output of a node run by the wrapper */
} imp_vkind;

typedef struct imp_value {
    const char *name;  /* ONNX name */
    const char *ident; /* IR name, set when the value is emitted */
    imp_vkind kind;
    int dtype; /* ONNX elem type */
    int rank;  /* -1 while unknown */
    int64_t dims[IMP_MAX_RANK];
    int producer; /* node index, -1 */
    /* Data of constants and folded values (numel <= IMP_FOLD_LIMIT):
     * integers and bools in ival, floating types in fval. */
    bool has_data;
    int64_t *ival;
    double *fval;
    /* The tensor of an initializer or a Constant's `value`, NULL. */
    const Onnx__TensorProto *tensor;
    /* Memory layout decided by mem.c: a view of another value's storage.
     * view_of -1: own storage (alloc) */
    int view_of;
    int64_t view_off; /* elements of this value's dtype */
    bool inplace;     /* view_of is the input it overwrites */
    bool is_output;
    bool is_view;   /* Identity/Reshape/...: alias of its input */
    bool needed;    /* used as a buffer by an emitted statement */
    int last_use;   /* index of the last emitted node using it, -1 */
    int hosts;      /* number of concat views placed into it */
    int first_def;  /* node before which its alloc must come (concat) */
    int early_next; /* next value of the same c->early chain, -1 */
    int nuses;      /* uses as a buffer by emitted nodes */
    int ncat;       /* of those, by Concats of contiguous slices */
    /* of storage roots: last use of any of its names; one is an output */
    int slast;
    bool sout;
    struct imp_value *hnext; /* name hash chain */
} imp_value;

struct imp_op;
typedef struct imp_node {
    const Onnx__NodeProto *p;
    const char *name; /* node name, or its first output's */
    const char *op;
    int nin, nout;
    int *in;  /* value indices, -1 for an absent optional input */
    int *out; /* value indices, -1 for an absent optional output */
    const struct imp_op *info;
    bool folded;     /* every output folded: no statement */
    bool view;       /* an alias of input 0 */
    bool eliminated; /* a Concat whose inputs were placed in its output */
    int inplace_in;  /* input position it overwrites, -1 */
    bool *placed;    /* eliminated Concat: input i written in place */
    bool flatcat;    /* a Concat of contiguous slices (mem.c) */
    bool cview;      /* a Concat whose inputs lie in order in one storage:
                        its output is a view of that storage */
} imp_node;

/* A growable text buffer (base's string builder). */
typedef base_sb imp_buf;

/* A string map (open addressing; keys and values in the arena). */
typedef struct imp_map {
    const char **slots; /* key, value pairs */
    size_t cap, n;
} imp_map;

typedef struct imp_ctx {
    const char *file;
    const imp_options *opt;
    jmp_buf fail;
    char *err;
    base_arena *arena;
    Onnx__ModelProto *model;
    const Onnx__GraphProto *g;
    int64_t opset;
    imp_value *vals;
    int nvals, capvals;
    imp_value **htab;
    size_t hcap;
    imp_node *nodes;
    int nnodes;
    int cur;         /* node being processed, -1 */
    imp_map ids;     /* IR buffer names in use */
    imp_map kernels; /* kernel name -> its modes "(in, out, scalar)" */
    imp_buf sigs, body;
    imp_buf args, modes; /* of the call being emitted (sig.c) */
    int *early;    /* per node: first value to allocate before it (chain) */
    uint64_t wpos; /* bytes written to opt->weights */
} imp_ctx;

/* --- arena and errors (import.c) --- */
void *imp_alloc(imp_ctx *c, size_t n); /* zeroed; never NULL */
char *imp_strdup(imp_ctx *c, const char *s);
/* Ends the import with the message "node 'N' (Op): MSG" while a node is
 * being processed (c->cur >= 0), else "MSG" (the CLI prints it after
 * "FILE: error: "). */
_Noreturn void imp_fail(imp_ctx *c, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* An importer bug: prints FILE:LINE and the message, then aborts
 * (base_vbug). */
#define IMP_BUG(...) imp_bug(__FILE__, __LINE__, __VA_ARGS__)
_Noreturn void imp_bug(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void imp_printf(imp_buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void imp_buf_free(imp_buf *b);
const char *imp_fmt(imp_ctx *c, const char *fmt, ...) /* in the arena */
    __attribute__((format(printf, 2, 3)));
/* printable ASCII copy ('?' for other bytes), for messages and comments */
const char *imp_printable(imp_ctx *c, const char *s);

const char **imp_map_slot(imp_ctx *c, imp_map *m, const char *key);

/* --- graph model (read.c) --- */
void imp_read(imp_ctx *c, const uint8_t *data, size_t len);
void imp_check_value_info(imp_ctx *c); /* after imp_infer */
imp_value *imp_find(imp_ctx *c, const char *name);
const char *imp_dtype_name(int dtype); /* "f32", NULL when unsupported */
size_t imp_dtype_size(int dtype);
const char *imp_onnx_dtype_name(int dtype); /* "FLOAT", "UINT16" */
int64_t imp_numel(const imp_value *v);
/* attributes of node n */
const Onnx__AttributeProto *imp_attr(const imp_node *n, const char *name);
int64_t imp_attr_i(const imp_node *n, const char *name, int64_t def);
float imp_attr_f(const imp_node *n, const char *name, float def);
const char *imp_attr_s(imp_ctx *c, const imp_node *n, const char *name,
                       const char *def);
/* list attribute: count (or -1 when absent) and values */
int imp_attr_ints(const imp_node *n, const char *name, const int64_t **v);
/* Sets a tensor's dtype, dims and small data from a TensorProto. */
void imp_tensor_value(imp_ctx *c, imp_value *v, const Onnx__TensorProto *t);

/* --- shape inference and folding (ops.c, shape_*.c, fold.c) --- */
typedef struct imp_op {
    const char *name;
    void (*infer)(imp_ctx *c, imp_node *n);
    int cls;         /* IMP_C_*: how the call is emitted */
    unsigned params; /* bit i: input i is a parameter (must be constant) */
    int min_in, max_in;
} imp_op;
enum {
    IMP_C_FLAT,  /* elementwise, equal shapes: (bufs, n, attrs) */
    IMP_C_SHAPE, /* (bufs, dims of each buffer, attrs) */
    IMP_C_VIEW,  /* alias of input 0 */
    IMP_C_NONE,  /* Constant, Shape: always folded */
};
const imp_op *imp_op_find(const char *name);
void imp_infer(imp_ctx *c);             /* every node, in order; folds */
bool imp_fold(imp_ctx *c, imp_node *n); /* true when folded */
/* Input i of n, or NULL when absent. */
imp_value *imp_in(imp_ctx *c, const imp_node *n, int i);
imp_value *imp_out(imp_ctx *c, const imp_node *n, int i);
/* Sets the type of output i (no-op when the output is absent). */
void imp_set(imp_ctx *c, imp_node *n, int i, int dtype, int rank,
             const int64_t *dims);
void imp_need_data(imp_ctx *c, const imp_node *n, int i, const char *what);
int64_t imp_ival(const imp_value *v, int64_t k);
double imp_fval(const imp_value *v, int64_t k);
int imp_axis(imp_ctx *c, int64_t axis, int rank); /* normalised, checked */
bool imp_is_float(int dtype);

/* --- memory options (mem.c) and IR text (emit.c, sig.c) --- */
void imp_memory(imp_ctx *c);
void imp_emit(imp_ctx *c);
/* Appends the call of node n to c->body and registers its kernel. */
void imp_emit_call(imp_ctx *c, imp_node *n);
/* Declares kernel `name` with `modes` ("in, out, scalar") once; the same
 * name with other modes is an internal error. */
void imp_kernel(imp_ctx *c, const char *name, const char *modes);
const char *imp_unique_ident(imp_ctx *c, const char *onnx_name);
/* --weights (weights.c): streams the bytes of const v to opt->weights at
 * the next aligned offset and appends ` data="REF" at=OFFSET` to body. */
void imp_weights_decl(imp_ctx *c, const imp_value *v);

#endif /* PLANWRAP_IMP_H */

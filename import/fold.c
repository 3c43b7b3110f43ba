/*
 * import/fold.c - constant folding of shape arithmetic: a node whose
 * inputs all have data (initializers, Constant nodes, Shape outputs and
 * what was folded from them) and whose outputs are small gets its
 * outputs' data computed here, so that Reshape, Expand, Slice, Pad,
 * Resize and Tile downstream see concrete shapes.  Folded nodes emit no
 * statement.
 */
#include "shape.h"

#include <math.h>
#include <string.h>

/* Allocates the data of output v (false when it is too large). */
static bool imp_data_alloc(imp_ctx *c, imp_value *v) {
    int64_t n = imp_numel(v);
    if (n > IMP_FOLD_LIMIT || v->dtype == IMP_FLOAT16 ||
        v->dtype == IMP_BFLOAT16)
        return false;
    if (imp_is_float(v->dtype))
        v->fval = imp_alloc(c, (size_t)(n + 1) * sizeof(double));
    else
        v->ival = imp_alloc(c, (size_t)(n + 1) * sizeof(int64_t));
    v->has_data = true;
    return true;
}

static void imp_put(imp_value *v, int64_t k, double f, int64_t i,
                    bool from_float) {
    if (v->fval)
        v->fval[k] = from_float ? f : (double)i;
    else if (v->dtype == IMP_BOOL)
        v->ival[k] = from_float ? f != 0 : i != 0;
    else
        v->ival[k] = from_float ? (int64_t)f : i;
}

/* Element k of out (a linear index) read from in under broadcasting. */
static int64_t imp_bidx(const imp_value *in, const imp_value *out, int64_t k) {
    int64_t idx = 0, stride = 1;
    for (int a = out->rank - 1, b = in->rank - 1; a >= 0; a--, b--) {
        int64_t coord = k % out->dims[a];
        k /= out->dims[a];
        if (b >= 0) {
            if (in->dims[b] != 1)
                idx += coord * stride;
            stride *= in->dims[b];
        }
    }
    return idx;
}

static bool imp_fold_copy(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_in(c, n, 0), *o = imp_out(c, n, 0);
    if (!imp_data_alloc(c, o))
        return false;
    for (int64_t k = 0; k < imp_numel(o); k++)
        imp_put(o, k, x->fval ? x->fval[k] : 0, x->ival ? x->ival[k] : 0,
                x->fval != NULL);
    return true;
}

/* The elementwise ops folded here, in the order of imp_fold_ew_ops. */
typedef enum imp_ew {
    EW_ADD,
    EW_AND,
    EW_DIV,
    EW_EQUAL,
    EW_EXPAND,
    EW_GREATER,
    EW_LESS,
    EW_MAX,
    EW_MIN,
    EW_MOD,
    EW_MUL,
    EW_NEG,
    EW_NOT,
    EW_OR,
    EW_SQRT,
    EW_SUB,
    EW_WHERE,
} imp_ew;
static const char *const imp_fold_ew_ops[] = {
    "Add", "And", "Div", "Equal", "Expand", "Greater", "Less", "Max",   "Min",
    "Mod", "Mul", "Neg", "Not",   "Or",     "Sqrt",    "Sub",  "Where",
};

/* Floating-point folding (comparisons and logic give 0 or 1). */
static double imp_cmp(imp_ew op, double a, double b) {
    switch (op) {
    case EW_ADD:
        return a + b;
    case EW_SUB:
        return a - b;
    case EW_MUL:
        return a * b;
    case EW_DIV:
        return a / b;
    case EW_MOD:
        return fmod(a, b);
    case EW_MAX:
        return fmax(a, b);
    case EW_MIN:
        return fmin(a, b);
    case EW_SQRT:
        return sqrt(a);
    case EW_NEG:
        return -a;
    case EW_NOT:
        return a == 0;
    case EW_AND:
        return a != 0 && b != 0;
    case EW_OR:
        return a != 0 || b != 0;
    case EW_EQUAL:
        return a == b;
    case EW_LESS:
        return a < b;
    case EW_GREATER:
        return a > b;
    default:
        return 0;
    }
}

/* Integer folding; arithmetic wraps (two's complement), never overflows. */
static int64_t imp_iop(imp_ctx *c, imp_ew op, int64_t a, int64_t b) {
    uint64_t ua = (uint64_t)a, ub = (uint64_t)b;
    if ((op == EW_DIV || op == EW_MOD) && b == 0)
        imp_fail(c, "integer division by zero while folding constants");
    switch (op) {
    case EW_ADD:
        return (int64_t)(ua + ub);
    case EW_SUB:
        return (int64_t)(ua - ub);
    case EW_MUL:
        return (int64_t)(ua * ub);
    case EW_DIV:
        return b == -1 ? (int64_t)(0 - ua) : a / b;
    case EW_MOD: { /* Python's %: the sign of the divisor */
        int64_t r = b == -1 ? 0 : a % b;
        return r != 0 && (r < 0) != (b < 0) ? r + b : r;
    }
    case EW_SQRT:
        return (int64_t)sqrt((double)a);
    case EW_NEG:
        return (int64_t)(0 - ua);
    case EW_MAX:
        return a > b ? a : b;
    case EW_MIN:
        return a < b ? a : b;
    case EW_NOT:
        return a == 0;
    case EW_AND:
        return a != 0 && b != 0;
    case EW_OR:
        return a != 0 || b != 0;
    case EW_EQUAL:
        return a == b;
    case EW_LESS:
        return a < b;
    case EW_GREATER:
        return a > b;
    default:
        return 0;
    }
}

/* Elementwise ops of one or two inputs, with broadcasting; Where;
 * Expand (input 0 broadcast to the output). */
static bool imp_fold_ew(imp_ctx *c, imp_node *n, imp_ew op) {
    imp_value *o = imp_out(c, n, 0);
    imp_value *a = imp_in(c, n, 0), *b = n->nin > 1 ? imp_in(c, n, 1) : a;
    bool where = op == EW_WHERE, expand = op == EW_EXPAND;
    if (!imp_data_alloc(c, o))
        return false;
    bool fl = imp_is_float(a->dtype) || (where && imp_is_float(b->dtype));
    for (int64_t k = 0; k < imp_numel(o); k++) {
        int64_t ia = imp_bidx(a, o, k);
        if (expand) {
            imp_put(o, k, a->fval ? a->fval[ia] : 0, a->ival ? a->ival[ia] : 0,
                    a->fval != NULL);
        } else if (where) {
            imp_value *y = imp_in(c, n, 1), *z = imp_in(c, n, 2);
            imp_value *s = imp_ival(a, ia) ? y : z;
            int64_t is = imp_bidx(s, o, k);
            imp_put(o, k, s->fval ? s->fval[is] : 0, s->ival ? s->ival[is] : 0,
                    s->fval != NULL);
        } else {
            int64_t ib = imp_bidx(b, o, k);
            if (fl)
                imp_put(o, k, imp_cmp(op, imp_fval(a, ia), imp_fval(b, ib)), 0,
                        true);
            else
                imp_put(o, k, 0,
                        imp_iop(c, op, imp_ival(a, ia), imp_ival(b, ib)),
                        false);
        }
    }
    return true;
}

static void imp_copy_elem(imp_value *o, int64_t k, const imp_value *x,
                          int64_t j) {
    imp_put(o, k, x->fval ? x->fval[j] : 0, x->ival ? x->ival[j] : 0,
            x->fval != NULL);
}

static bool imp_fold_gather(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_in(c, n, 0), *ind = imp_in(c, n, 1),
              *o = imp_out(c, n, 0);
    if (!imp_data_alloc(c, o))
        return false;
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), x->rank);
    int64_t outer = 1, inner = 1, d = x->dims[axis], ni = imp_numel(ind);
    for (int i = 0; i < axis; i++)
        outer *= x->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        inner *= x->dims[i];
    for (int64_t a = 0; a < outer; a++)
        for (int64_t j = 0; j < ni; j++) {
            int64_t t = imp_ival(ind, j);
            t = t < 0 ? t + d : t;
            if (t < 0 || t >= d)
                imp_fail(c, "index %lld is out of range for an axis of %lld",
                         (long long)imp_ival(ind, j), (long long)d);
            for (int64_t k = 0; k < inner; k++)
                imp_copy_elem(o, (a * ni + j) * inner + k, x,
                              (a * d + t) * inner + k);
        }
    return true;
}

static bool imp_fold_slice(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_in(c, n, 0), *o = imp_out(c, n, 0);
    if (!imp_data_alloc(c, o))
        return false;
    int64_t st[IMP_MAX_RANK], sp[IMP_MAX_RANK], d[IMP_MAX_RANK];
    imp_slice_params(c, n, st, sp, d);
    for (int64_t k = 0; k < imp_numel(o); k++) {
        int64_t rem = k, src = 0, stride = 1;
        for (int a = x->rank - 1; a >= 0; a--) {
            int64_t coord = rem % o->dims[a];
            rem /= o->dims[a];
            src += (st[a] + coord * sp[a]) * stride;
            stride *= x->dims[a];
        }
        imp_copy_elem(o, k, x, src);
    }
    return true;
}

static bool imp_fold_concat(imp_ctx *c, imp_node *n) {
    imp_value *o = imp_out(c, n, 0);
    if (!imp_data_alloc(c, o))
        return false;
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), o->rank);
    int64_t outer = 1, k = 0;
    for (int i = 0; i < axis; i++)
        outer *= o->dims[i];
    for (int64_t a = 0; a < outer; a++)
        for (int i = 0; i < n->nin; i++) {
            imp_value *x = imp_in(c, n, i);
            int64_t chunk = imp_numel(x) / (outer ? outer : 1);
            for (int64_t j = 0; j < chunk; j++)
                imp_copy_elem(o, k++, x, a * chunk + j);
        }
    return true;
}

static bool imp_fold_transpose(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_in(c, n, 0), *o = imp_out(c, n, 0);
    if (!imp_data_alloc(c, o))
        return false;
    const int64_t *perm;
    int np = imp_attr_ints(n, "perm", &perm);
    int64_t xstride[IMP_MAX_RANK], st = 1;
    for (int a = x->rank - 1; a >= 0; a--) {
        xstride[a] = st;
        st *= x->dims[a];
    }
    for (int64_t k = 0; k < imp_numel(o); k++) {
        int64_t rem = k, src = 0;
        for (int a = o->rank - 1; a >= 0; a--) {
            int64_t p = np >= 0 ? perm[a] : o->rank - 1 - a;
            src += (rem % o->dims[a]) * xstride[p];
            rem /= o->dims[a];
        }
        imp_copy_elem(o, k, x, src);
    }
    return true;
}

static bool imp_fold_range(imp_ctx *c, imp_node *n) {
    imp_value *s = imp_in(c, n, 0), *dl = imp_in(c, n, 2),
              *o = imp_out(c, n, 0);
    if (!imp_data_alloc(c, o))
        return false;
    for (int64_t k = 0; k < imp_numel(o); k++)
        imp_put(o, k, imp_fval(s, 0) + (double)k * imp_fval(dl, 0),
                imp_ival(s, 0) + k * imp_ival(dl, 0), o->fval != NULL);
    return true;
}

static bool imp_fold_cos(imp_ctx *c, imp_node *n) {
    imp_value *o = imp_out(c, n, 0);
    const Onnx__AttributeProto *a = imp_attr(n, "value");
    imp_value val = {.name = "value", .dtype = IMP_FLOAT};
    if (a && a->t) {
        imp_tensor_value(c, &val, a->t);
        if (imp_numel(&val) != 1 || !val.has_data)
            return false;
    }
    if (!imp_data_alloc(c, o))
        return false;
    for (int64_t k = 0; k < imp_numel(o); k++)
        imp_put(o, k, val.has_data ? imp_fval(&val, 0) : 0,
                val.has_data ? imp_ival(&val, 0) : 0, true);
    return true;
}

static const char *const imp_fold_copy_ops[] = {
    "Cast", "Dropout", "Flatten", "Identity", "Reshape", "Squeeze", "Unsqueeze",
};
static bool imp_in_list(const char *op, const char *const *l, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(op, l[i]))
            return true;
    return false;
}

bool imp_fold(imp_ctx *c, imp_node *n) {
    const char *op = n->op;
    if (imp_in_list(op, imp_fold_copy_ops,
                    sizeof imp_fold_copy_ops / sizeof *imp_fold_copy_ops))
        return imp_fold_copy(c, n);
    for (size_t i = 0; i < sizeof imp_fold_ew_ops / sizeof *imp_fold_ew_ops;
         i++)
        if (!strcmp(op, imp_fold_ew_ops[i]))
            return imp_fold_ew(c, n, (imp_ew)i);
    if (!strcmp(op, "Gather"))
        return imp_fold_gather(c, n);
    if (!strcmp(op, "Slice"))
        return imp_fold_slice(c, n);
    if (!strcmp(op, "Concat"))
        return imp_fold_concat(c, n);
    if (!strcmp(op, "Range"))
        return imp_fold_range(c, n);
    if (!strcmp(op, "Transpose"))
        return imp_fold_transpose(c, n);
    if (!strcmp(op, "ConstantOfShape"))
        return imp_fold_cos(c, n);
    return false;
}

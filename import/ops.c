/*
 * import/ops.c - the operator table, shape inference of elementwise and
 * simple operators (multidirectional broadcasting), and the driver that
 * infers every node in graph order and folds constants (fold.c).
 * The other shape rules are in shape_nn.c and shape_tensor.c.
 */
#include "imp.h"
#include "shape.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

imp_value *imp_in(imp_ctx *c, const imp_node *n, int i) {
    return i < n->nin && n->in[i] >= 0 ? &c->vals[n->in[i]] : NULL;
}

imp_value *imp_out(imp_ctx *c, const imp_node *n, int i) {
    return i < n->nout && n->out[i] >= 0 ? &c->vals[n->out[i]] : NULL;
}

imp_value *imp_req(imp_ctx *c, const imp_node *n, int i) {
    imp_value *v = imp_in(c, n, i);
    if (!v)
        imp_fail(c, "input %d is missing", i);
    return v;
}

const char *imp_dims_str(imp_ctx *c, int rank, const int64_t *dims) {
    char buf[IMP_MAX_RANK * 24 + 4];
    size_t k = 0;
    buf[k++] = '[';
    for (int i = 0; i < rank; i++)
        k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", i ? "," : "",
                              (long long)dims[i]);
    snprintf(buf + k, sizeof buf - k, "]");
    return imp_strdup(c, buf);
}

void imp_set(imp_ctx *c, imp_node *n, int i, int dtype, int rank,
             const int64_t *dims) {
    imp_value *v = imp_out(c, n, i);
    if (!v)
        return;
    if (!imp_dtype_name(dtype))
        imp_fail(c,
                 "output '%s' would have data type %s, which planwrap "
                 "cannot express",
                 v->name, imp_onnx_dtype_name(dtype));
    if (rank < 0 || rank > IMP_MAX_RANK)
        imp_fail(c, "output '%s' would have rank %d (at most %d)", v->name,
                 rank, IMP_MAX_RANK);
    int64_t e = 1;
    for (int k = 0; k < rank; k++) {
        if (dims[k] < 0)
            imp_fail(c, "output '%s' would have shape %s", v->name,
                     imp_dims_str(c, rank, dims));
        e = dims[k] > 0 && e > (INT64_C(1) << 50) / dims[k] ? -1 : e * dims[k];
        if (e < 0)
            imp_fail(c, "output '%s' is too large: %s", v->name,
                     imp_dims_str(c, rank, dims));
    }
    v->dtype = dtype;
    v->rank = rank;
    memset(v->dims, 0, sizeof v->dims);
    if (rank > 0)
        memcpy(v->dims, dims, (size_t)rank * sizeof *dims);
}

void imp_set_like(imp_ctx *c, imp_node *n, int i, const imp_value *v) {
    imp_set(c, n, i, v->dtype, v->rank, v->dims);
}

void imp_need_data(imp_ctx *c, const imp_node *n, int i, const char *what) {
    imp_value *v = imp_req(c, n, i);
    if (!v->has_data)
        imp_fail(c,
                 "input %d ('%s', the %s) must be a constant or computed "
                 "from shapes: planwrap cannot infer the output shape "
                 "otherwise",
                 i, v->name, what);
}

int64_t imp_ival(const imp_value *v, int64_t k) {
    return v->ival ? v->ival[k] : (int64_t)v->fval[k];
}

double imp_fval(const imp_value *v, int64_t k) {
    return v->fval ? v->fval[k] : (double)v->ival[k];
}

int imp_axis(imp_ctx *c, int64_t axis, int rank) {
    if (axis < -rank || axis >= (rank ? rank : 1))
        imp_fail(c, "axis %lld is out of range for rank %d", (long long)axis,
                 rank);
    return (int)(axis < 0 ? axis + rank : axis);
}

/* Multidirectional (numpy) broadcasting of the given inputs. */
int imp_broadcast(imp_ctx *c, imp_value *const *vs, int nv, int64_t *out) {
    int r = 0;
    for (int i = 0; i < nv; i++)
        if (vs[i] && vs[i]->rank > r)
            r = vs[i]->rank;
    for (int k = 0; k < r; k++)
        out[k] = 1;
    for (int i = 0; i < nv; i++) {
        if (!vs[i])
            continue;
        int off = r - vs[i]->rank;
        for (int k = 0; k < vs[i]->rank; k++) {
            int64_t d = vs[i]->dims[k];
            if (d == out[off + k] || d == 1)
                continue;
            if (out[off + k] != 1)
                imp_fail(c, "cannot broadcast '%s' %s with shape %s",
                         vs[i]->name, imp_dims_str(c, vs[i]->rank, vs[i]->dims),
                         imp_dims_str(c, r, out));
            out[off + k] = d;
        }
    }
    return r;
}

/* --- elementwise rules ---------------------------------------------- */

static void sh_unary(imp_ctx *c, imp_node *n) {
    imp_set_like(c, n, 0, imp_req(c, n, 0));
}

static void sh_not(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_set(c, n, 0, IMP_BOOL, x->rank, x->dims);
}

static void sh_nary(imp_ctx *c, imp_node *n) {
    int64_t d[IMP_MAX_RANK];
    imp_value *vs[16];
    int nv = n->nin < 16 ? n->nin : 16;
    for (int i = 0; i < nv; i++)
        vs[i] = imp_in(c, n, i);
    int r = imp_broadcast(c, vs, nv, d);
    imp_set(c, n, 0, imp_req(c, n, 0)->dtype, r, d);
}

static void sh_compare(imp_ctx *c, imp_node *n) {
    int64_t d[IMP_MAX_RANK];
    imp_value *vs[2] = {imp_req(c, n, 0), imp_req(c, n, 1)};
    imp_set(c, n, 0, IMP_BOOL, imp_broadcast(c, vs, 2, d), d);
}

static void sh_where(imp_ctx *c, imp_node *n) {
    int64_t d[IMP_MAX_RANK];
    imp_value *vs[3] = {imp_req(c, n, 0), imp_req(c, n, 1), imp_req(c, n, 2)};
    imp_set(c, n, 0, vs[1]->dtype, imp_broadcast(c, vs, 3, d), d);
}

static void sh_prelu(imp_ctx *c, imp_node *n) {
    int64_t d[IMP_MAX_RANK];
    imp_value *vs[2] = {imp_req(c, n, 0), imp_req(c, n, 1)};
    imp_set(c, n, 0, vs[0]->dtype, imp_broadcast(c, vs, 2, d), d);
}

static void sh_cast(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    const Onnx__AttributeProto *to = imp_attr(n, "to");
    if (!to || !to->has_i)
        imp_fail(c, "attribute 'to' is missing");
    imp_set(c, n, 0, (int)to->i, x->rank, x->dims);
}

static void sh_castlike(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_set(c, n, 0, imp_req(c, n, 1)->dtype, x->rank, x->dims);
}

static void sh_dropout(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_value *t = imp_in(c, n, 2), *ratio = imp_in(c, n, 1);
    bool training = t && (!t->has_data || imp_ival(t, 0) != 0);
    /* training with ratio 0 (F.dropout(p=0.0) exports so) is identity */
    bool zero = ratio && ratio->has_data && imp_numel(ratio) == 1 &&
                imp_fval(ratio, 0) == 0;
    if ((training && !zero) || imp_attr_i(n, "is_test", 1) == 0)
        imp_fail(c, "training mode is not supported (only inference "
                    "Dropout)");
    imp_set_like(c, n, 0, x);
    imp_set(c, n, 1, IMP_BOOL, x->rank, x->dims);
    imp_value *m = imp_out(c, n, 1);
    if (m)
        m->kind = IMP_V_NODE;
}

static void sh_batchnorm(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    for (int i = 1; i < 5; i++)
        imp_req(c, n, i);
    if (imp_attr_i(n, "training_mode", 0) != 0 || imp_out(c, n, 1))
        imp_fail(c, "training mode is not supported");
    imp_set_like(c, n, 0, x);
}

static void sh_layernorm(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_req(c, n, 1);
    int axis = imp_axis(c, imp_attr_i(n, "axis", -1), x->rank);
    imp_set_like(c, n, 0, x);
    int64_t d[IMP_MAX_RANK];
    for (int k = 0; k < x->rank; k++)
        d[k] = k < axis ? x->dims[k] : 1;
    int st = (int)imp_attr_i(n, "stash_type", IMP_FLOAT);
    imp_set(c, n, 1, st, x->rank, d);
    imp_set(c, n, 2, st, x->rank, d);
}

static void sh_constant(imp_ctx *c, imp_node *n) {
    imp_value *v = imp_out(c, n, 0);
    const Onnx__AttributeProto *a = imp_attr(n, "value");
    if (a && a->t) {
        imp_tensor_value(c, v, a->t);
    } else if ((a = imp_attr(n, "value_float")) != NULL ||
               (a = imp_attr(n, "value_floats")) != NULL) {
        bool one = a->has_f;
        v->dtype = IMP_FLOAT;
        v->rank = one ? 0 : 1;
        v->dims[0] = one ? 1 : (int64_t)a->n_floats;
        v->fval = imp_alloc(c, (a->n_floats + 1) * sizeof(double));
        for (size_t k = 0; k < (one ? 1 : a->n_floats); k++)
            v->fval[k] = one ? a->f : a->floats[k];
        v->has_data = true;
    } else if ((a = imp_attr(n, "value_int")) != NULL ||
               (a = imp_attr(n, "value_ints")) != NULL) {
        bool one = a->has_i;
        v->dtype = IMP_INT64;
        v->rank = one ? 0 : 1;
        v->dims[0] = one ? 1 : (int64_t)a->n_ints;
        v->ival = imp_alloc(c, (a->n_ints + 1) * sizeof(int64_t));
        for (size_t k = 0; k < (one ? 1 : a->n_ints); k++)
            v->ival[k] = one ? a->i : a->ints[k];
        v->has_data = true;
    } else {
        imp_fail(c, "no value attribute planwrap can read (value, "
                    "value_float(s), value_int(s))");
    }
    v->kind = IMP_V_CONST;
}

static void sh_shape(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t start = imp_attr_i(n, "start", 0),
            end = imp_attr_i(n, "end", x->rank);
    start = start < 0 ? start + x->rank : start;
    end = end < 0 ? end + x->rank : end;
    start = start < 0 ? 0 : start > x->rank ? x->rank : start;
    end = end < start ? start : end > x->rank ? x->rank : end;
    int64_t d = end - start;
    imp_set(c, n, 0, IMP_INT64, 1, &d);
    imp_value *v = imp_out(c, n, 0);
    v->ival = imp_alloc(c, (size_t)(d + 1) * sizeof(int64_t));
    for (int64_t k = 0; k < d; k++)
        v->ival[k] = x->dims[start + k];
    v->has_data = true;
    v->kind = IMP_V_FOLDED;
}

static void sh_size(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_set(c, n, 0, IMP_INT64, 0, NULL);
    imp_value *v = imp_out(c, n, 0);
    v->ival = imp_alloc(c, sizeof(int64_t));
    v->ival[0] = imp_numel(x);
    v->has_data = true;
    v->kind = IMP_V_FOLDED;
}

/* --- the table ------------------------------------------------------ */

#define P(i) (1u << (i))
#define UN(op)                                                                 \
    { op, sh_unary, IMP_C_FLAT, 0, 1, 1 }
#define BIN(op)                                                                \
    { op, sh_nary, IMP_C_FLAT, 0, 2, 2 }
#define CMP(op)                                                                \
    { op, sh_compare, IMP_C_FLAT, 0, 2, 2 }

static const imp_op imp_ops[] = {
    /* sorted by name (bsearch) */
    UN("Abs"),
    UN("Acos"),
    UN("Acosh"),
    BIN("Add"),
    BIN("And"),
    {"ArgMax", imp_sh_argmax, IMP_C_SHAPE, 0, 1, 1},
    {"ArgMin", imp_sh_argmax, IMP_C_SHAPE, 0, 1, 1},
    UN("Asin"),
    UN("Asinh"),
    UN("Atan"),
    UN("Atanh"),
    {"AveragePool", imp_sh_pool, IMP_C_SHAPE, 0, 1, 1},
    {"BatchNormalization", sh_batchnorm, IMP_C_SHAPE, 0, 5, 5},
    {"Cast", sh_cast, IMP_C_FLAT, 0, 1, 1},
    {"CastLike", sh_castlike, IMP_C_FLAT, P(1), 2, 2},
    UN("Ceil"),
    UN("Celu"),
    {"Clip", sh_unary, IMP_C_FLAT, P(1) | P(2), 1, 3},
    {"Concat", imp_sh_concat, IMP_C_SHAPE, 0, 1, 4096},
    {"Constant", sh_constant, IMP_C_NONE, 0, 0, 0},
    {"ConstantOfShape", imp_sh_constantofshape, IMP_C_SHAPE, P(0), 1, 1},
    {"Conv", imp_sh_conv, IMP_C_SHAPE, 0, 2, 3},
    {"ConvTranspose", imp_sh_convtranspose, IMP_C_SHAPE, 0, 2, 3},
    UN("Cos"),
    UN("Cosh"),
    {"CumSum", sh_unary, IMP_C_SHAPE, P(1), 2, 2},
    {"DepthToSpace", imp_sh_depth_space, IMP_C_SHAPE, 0, 1, 1},
    BIN("Div"),
    {"Dropout", sh_dropout, IMP_C_VIEW, P(1) | P(2), 1, 3},
    {"Einsum", imp_sh_einsum, IMP_C_SHAPE, 0, 1, 2},
    UN("Elu"),
    CMP("Equal"),
    UN("Erf"),
    UN("Exp"),
    {"Expand", imp_sh_expand, IMP_C_SHAPE, P(1), 2, 2},
    {"Flatten", imp_sh_flatten, IMP_C_VIEW, 0, 1, 1},
    UN("Floor"),
    {"Gather", imp_sh_gather, IMP_C_SHAPE, 0, 2, 2},
    {"GatherElements", imp_sh_gather_elements, IMP_C_SHAPE, 0, 2, 2},
    {"GatherND", imp_sh_gather_nd, IMP_C_SHAPE, 0, 2, 2},
    UN("Gelu"),
    {"Gemm", imp_sh_gemm, IMP_C_SHAPE, 0, 2, 3},
    {"GlobalAveragePool", imp_sh_global_pool, IMP_C_SHAPE, 0, 1, 1},
    {"GlobalMaxPool", imp_sh_global_pool, IMP_C_SHAPE, 0, 1, 1},
    CMP("Greater"),
    CMP("GreaterOrEqual"),
    UN("HardSigmoid"),
    UN("HardSwish"),
    {"Hardmax", sh_unary, IMP_C_SHAPE, 0, 1, 1},
    {"Identity", sh_unary, IMP_C_VIEW, 0, 1, 1},
    {"InstanceNormalization", sh_unary, IMP_C_SHAPE, 0, 3, 3},
    {"IsInf", sh_not, IMP_C_FLAT, 0, 1, 1},
    {"IsNaN", sh_not, IMP_C_FLAT, 0, 1, 1},
    {"LRN", sh_unary, IMP_C_SHAPE, 0, 1, 1},
    {"LayerNormalization", sh_layernorm, IMP_C_SHAPE, 0, 2, 3},
    UN("LeakyRelu"),
    CMP("Less"),
    CMP("LessOrEqual"),
    UN("Log"),
    {"LogSoftmax", sh_unary, IMP_C_SHAPE, 0, 1, 1},
    {"MatMul", imp_sh_matmul, IMP_C_SHAPE, 0, 2, 2},
    {"Max", sh_nary, IMP_C_FLAT, 0, 1, 16},
    {"MaxPool", imp_sh_pool, IMP_C_SHAPE, 0, 1, 1},
    {"Mean", sh_nary, IMP_C_FLAT, 0, 1, 16},
    {"Min", sh_nary, IMP_C_FLAT, 0, 1, 16},
    UN("Mish"),
    BIN("Mod"),
    BIN("Mul"),
    UN("Neg"),
    {"Not", sh_not, IMP_C_FLAT, 0, 1, 1},
    BIN("Or"),
    {"PRelu", sh_prelu, IMP_C_FLAT, 0, 2, 2},
    {"Pad", imp_sh_pad, IMP_C_SHAPE, P(1) | P(2) | P(3), 1, 4},
    BIN("Pow"),
    {"Range", imp_sh_range, IMP_C_SHAPE, P(0) | P(1) | P(2), 3, 3},
    UN("Reciprocal"),
    {"ReduceL1", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceL2", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceLogSum", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceLogSumExp", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceMax", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceMean", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceMin", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceProd", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceSum", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    {"ReduceSumSquare", imp_sh_reduce, IMP_C_SHAPE, P(1), 1, 2},
    UN("Relu"),
    {"Reshape", imp_sh_reshape, IMP_C_VIEW, P(1), 1, 2},
    {"Resize", imp_sh_resize, IMP_C_SHAPE, P(1) | P(2) | P(3), 1, 4},
    UN("Round"),
    {"ScatterElements", imp_sh_scatternd, IMP_C_SHAPE, 0, 3, 3},
    {"ScatterND", imp_sh_scatternd, IMP_C_SHAPE, 0, 3, 3},
    UN("Selu"),
    {"Shape", sh_shape, IMP_C_NONE, 0, 1, 1},
    UN("Shrink"),
    UN("Sigmoid"),
    UN("Sign"),
    UN("Sin"),
    UN("Sinh"),
    {"Size", sh_size, IMP_C_NONE, 0, 1, 1},
    {"Slice", imp_sh_slice, IMP_C_SHAPE, P(1) | P(2) | P(3) | P(4), 1, 5},
    {"Softmax", sh_unary, IMP_C_SHAPE, 0, 1, 1},
    UN("Softplus"),
    UN("Softsign"),
    {"SpaceToDepth", imp_sh_depth_space, IMP_C_SHAPE, 0, 1, 1},
    {"Split", imp_sh_split, IMP_C_SHAPE, P(1), 1, 2},
    UN("Sqrt"),
    {"Squeeze", imp_sh_squeeze, IMP_C_VIEW, P(1), 1, 2},
    BIN("Sub"),
    {"Sum", sh_nary, IMP_C_FLAT, 0, 1, 16},
    UN("Tan"),
    UN("Tanh"),
    UN("ThresholdedRelu"),
    {"Tile", imp_sh_tile, IMP_C_SHAPE, P(1), 2, 2},
    {"TopK", imp_sh_topk, IMP_C_SHAPE, P(1), 1, 2},
    {"Transpose", imp_sh_transpose, IMP_C_SHAPE, 0, 1, 1},
    {"Trilu", sh_unary, IMP_C_SHAPE, P(1), 1, 2},
    {"Unsqueeze", imp_sh_unsqueeze, IMP_C_VIEW, P(1), 1, 2},
    {"Upsample", imp_sh_resize, IMP_C_SHAPE, P(1), 1, 2},
    {"Where", sh_where, IMP_C_FLAT, 0, 3, 3},
    BIN("Xor"),
};

static int imp_op_cmp(const void *key, const void *elem) {
    return strcmp(key, ((const imp_op *)elem)->name);
}

const imp_op *imp_op_find(const char *name) {
    return bsearch(name, imp_ops, sizeof imp_ops / sizeof *imp_ops,
                   sizeof *imp_ops, imp_op_cmp);
}

/* Opset-dependent inputs that are parameters: Resize before opset 11
 * takes (X, scales). */
static bool imp_all_inputs_data(imp_ctx *c, const imp_node *n) {
    for (int i = 0; i < n->nin; i++) {
        imp_value *v = imp_in(c, n, i);
        if (v && !v->has_data)
            return false;
    }
    return true;
}

static void imp_infer_node(imp_ctx *c, imp_node *n) {
    n->info->infer(c, n);
    for (int i = 0; i < n->nout; i++) {
        imp_value *v = imp_out(c, n, i);
        if (v && v->rank < 0)
            imp_fail(c, "output %d ('%s') is not supported by planwrap", i,
                     v->name);
    }
    bool data = true;
    for (int i = 0; i < n->nout; i++) {
        imp_value *v = imp_out(c, n, i);
        if (v && !v->has_data)
            data = false;
    }
    if (!data && imp_all_inputs_data(c, n))
        data = imp_fold(c, n);
    if (data || n->info->cls == IMP_C_NONE) { /* a Constant may lack data
                                                   (large, f16, external) */
        n->folded = true;
        for (int i = 0; i < n->nout; i++) {
            imp_value *v = imp_out(c, n, i);
            if (v && v->kind == IMP_V_NODE)
                v->kind = IMP_V_FOLDED;
        }
    } else if (n->info->cls == IMP_C_VIEW) {
        n->view = true;
        imp_value *o = imp_out(c, n, 0);
        o->is_view = true;
        o->view_of = n->in[0];
    }
}

void imp_infer(imp_ctx *c) {
    for (int k = 0; k < c->nnodes; k++) {
        c->cur = k;
        imp_infer_node(c, &c->nodes[k]);
    }
    c->cur = -1;
    imp_check_value_info(c);
}

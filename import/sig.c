/*
 * import/sig.c - the call of a compute node and its kernel signature
 * (docs/import.md is the reference).  Buffers come first: the node's
 * data inputs in ONNX order (parameter inputs such as Reshape's shape
 * are not passed: they were folded into scalars), then its outputs.
 * Then scalars: for a flat kernel (elementwise, every buffer of one
 * shape) the element count; otherwise the dims of every buffer in order.
 * Then the node's attributes, resolved (defaults, auto_pad, negative
 * axes), in the order of docs/import.md.
 *
 * Kernel names: snake_case op name, variant, dtype of the first buffer
 * (and of buffers with a type of their own, imp_name_dtypes), and for
 * shaped kernels `_r` and the rank of every buffer, so that one name
 * always has one signature; `_ipI` for the in-place form (buffer I
 * is `inout`, the output buffer is left out, the scalars are the same).
 */
#include "shape.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The buffer arguments a kernel may have (one slot more, to see that
 * there were too many). */
enum { IMP_MAX_BUF_ARGS = 63 };

typedef struct imp_call {
    imp_ctx *c;
    imp_buf *args, *modes; /* the context's: freed on every path */
    const imp_value *bufs[IMP_MAX_BUF_ARGS + 1]; /* base kernel's, dims */
    int nbufs;
} imp_call;

static void imp_arg(imp_call *k, const char *mode, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void imp_arg(imp_call *k, const char *mode, const char *fmt, ...) {
    char text[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    imp_printf(k->args, "%s%s", k->args->len ? ", " : "", text);
    imp_printf(k->modes, "%s%s", k->modes->len ? ", " : "", mode);
}

static void imp_int(imp_call *k, int64_t v) {
    imp_arg(k, "scalar", "%lld", (long long)v);
}

static void imp_ints(imp_call *k, const int64_t *v, int n) {
    for (int i = 0; i < n; i++)
        imp_int(k, v[i]);
}

/* A float literal of the IR: always with '.' or an exponent; infinities
 * become +-FLT_MAX, NaN 0.0. */
static void imp_float(imp_call *k, double f) {
    char s[64];
    if (isnan(f))
        f = 0;
    if (isinf(f))
        f = f > 0 ? FLT_MAX : -FLT_MAX;
    snprintf(s, sizeof s, "%.9g", f);
    if (!strpbrk(s, ".e"))
        strcat(s, ".0");
    imp_arg(k, "scalar", "%s", s);
}

static void imp_str(imp_call *k, const char *s) {
    imp_arg(k, "scalar", "\"%s\"", s);
}

void imp_kernel(imp_ctx *c, const char *name, const char *modes) {
    const char **slot = imp_map_slot(c, &c->kernels, name);
    if (slot[0]) {
        if (strcmp(slot[1], modes) != 0)
            IMP_BUG("kernel %s declared as (%s) and (%s)", name, slot[1],
                    modes);
        return;
    }
    slot[0] = imp_strdup(c, name);
    slot[1] = imp_strdup(c, modes);
    imp_printf(&c->sigs, "kernel %s(%s)\n", name, modes);
}

/* "BatchNormalization" -> "batch_normalization", "PRelu" -> "prelu". */
static void imp_snake(imp_buf *b, const char *op) {
    if (!strcmp(op, "MatMul")) {
        imp_printf(b, "matmul");
        return;
    }
    for (const char *p = op; *p; p++) {
        bool up = *p >= 'A' && *p <= 'Z';
        if (up && p > op &&
            ((p[-1] >= 'a' && p[-1] <= 'z') ||
             (p[1] >= 'a' && p[1] <= 'z' && p[-1] >= 'A' && p[-1] <= 'Z' &&
              p - op > 1)))
            imp_printf(b, "_");
        imp_printf(b, "%c", up ? *p - 'A' + 'a' : *p);
    }
}

static bool imp_is_param_in(const imp_node *n, int i) {
    return (n->info->params >> i) & 1u;
}

/* Variant of the kernel name for absent optional inputs and outputs. */
static const char *imp_variant(imp_ctx *c, const imp_node *n) {
    const char *op = n->op;
    if (!strcmp(op, "Conv") || !strcmp(op, "ConvTranspose"))
        return imp_in(c, n, 2) ? "_bias" : "";
    if (!strcmp(op, "Gemm"))
        return imp_in(c, n, 2) ? "_c" : "";
    if (!strcmp(op, "LayerNormalization"))
        return imp_in(c, n, 2) ? "_bias" : "";
    if (!strcmp(op, "MaxPool"))
        return imp_out(c, n, 1) ? "_indices" : "";
    if ((!strcmp(op, "Max") || !strcmp(op, "Min") || !strcmp(op, "Sum") ||
         !strcmp(op, "Mean")) &&
        n->nin != 2) /* variadic: the input count, when it is not 2 */
        return imp_fmt(c, "_n%d", n->nin);
    if ((!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax") ||
         !strcmp(op, "Hardmax")) &&
        c->opset < 13)
        return "_legacy";
    return "";
}

static double imp_param_float(imp_ctx *c, const imp_node *n, int i,
                              double def) {
    imp_value *v = imp_in(c, n, i);
    if (!v)
        return def;
    if (!v->has_data || imp_numel(v) < 1)
        imp_fail(c, "input %d ('%s') must be a constant", i, v->name);
    return imp_fval(v, 0);
}

static void imp_attrs_geom(imp_call *k, const imp_node *n, bool kernel,
                           bool dil) {
    imp_geom g;
    imp_geometry(k->c, n, &g);
    if (kernel)
        imp_ints(k, g.kernel, g.s);
    imp_ints(k, g.strides, g.s);
    imp_ints(k, g.pads, 2 * g.s);
    if (dil)
        imp_ints(k, g.dil, g.s);
    if (!strcmp(n->op, "ConvTranspose"))
        imp_ints(k, g.outpad, g.s);
}

/* Attributes of activations and the like (after n). */
static bool imp_attrs_unary(imp_call *k, const imp_node *n) {
    imp_ctx *c = k->c;
    const char *op = n->op;
    if (!strcmp(op, "LeakyRelu"))
        imp_float(k, imp_attr_f(n, "alpha", 0.01f));
    else if (!strcmp(op, "Elu") || !strcmp(op, "Celu") ||
             !strcmp(op, "ThresholdedRelu"))
        imp_float(k, imp_attr_f(n, "alpha", 1.0f));
    else if (!strcmp(op, "Selu")) {
        imp_float(k, imp_attr_f(n, "alpha", 1.67326319217681884765625f));
        imp_float(k, imp_attr_f(n, "gamma", 1.05070102214813232421875f));
    } else if (!strcmp(op, "HardSigmoid")) {
        imp_float(k, imp_attr_f(n, "alpha", 0.2f));
        imp_float(k, imp_attr_f(n, "beta", 0.5f));
    } else if (!strcmp(op, "Gelu"))
        imp_str(k, imp_attr_s(c, n, "approximate", "none"));
    else if (!strcmp(op, "Clip")) {
        bool in = c->opset >= 11;
        imp_float(k, in ? imp_param_float(c, n, 1, -INFINITY)
                        : imp_attr_f(n, "min", -FLT_MAX));
        imp_float(k, in ? imp_param_float(c, n, 2, INFINITY)
                        : imp_attr_f(n, "max", FLT_MAX));
    } else if (!strcmp(op, "Mod"))
        imp_int(k, imp_attr_i(n, "fmod", 0));
    else if (!strcmp(op, "Shrink")) {
        imp_float(k, imp_attr_f(n, "bias", 0.0f));
        imp_float(k, imp_attr_f(n, "lambd", 0.5f));
    } else if (!strcmp(op, "IsInf")) {
        imp_int(k, imp_attr_i(n, "detect_negative", 1));
        imp_int(k, imp_attr_i(n, "detect_positive", 1));
    } else
        return false;
    return true;
}

/* Attributes of the operators beyond the list. */
static void imp_attrs_more(imp_call *k, const imp_node *n, int r) {
    imp_ctx *c = k->c;
    const char *op = n->op;
    if (!strcmp(op, "GatherElements")) {
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", 0), r));
    } else if (!strcmp(op, "ScatterElements")) {
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", 0), r));
        imp_str(k, imp_attr_s(c, n, "reduction", "none"));
    } else if (!strcmp(op, "GatherND")) {
        imp_int(k, imp_attr_i(n, "batch_dims", 0));
    } else if (!strcmp(op, "DepthToSpace") || !strcmp(op, "SpaceToDepth")) {
        imp_int(k, imp_attr_i(n, "blocksize", 0));
        imp_str(k, imp_attr_s(c, n, "mode", "DCR"));
    } else if (!strcmp(op, "LRN")) {
        imp_float(k, imp_attr_f(n, "alpha", 1e-4f));
        imp_float(k, imp_attr_f(n, "beta", 0.75f));
        imp_float(k, imp_attr_f(n, "bias", 1.0f));
        imp_int(k, imp_attr_i(n, "size", 1));
    } else if (!strcmp(op, "CumSum")) {
        imp_need_data(c, n, 1, "axis");
        imp_int(k, imp_axis(c, imp_ival(imp_in(c, n, 1), 0), r));
        imp_int(k, imp_attr_i(n, "exclusive", 0));
        imp_int(k, imp_attr_i(n, "reverse", 0));
    } else if (!strcmp(op, "Trilu")) {
        imp_value *kv = imp_in(c, n, 1);
        if (kv)
            imp_need_data(c, n, 1, "k");
        imp_int(k, kv ? imp_ival(kv, 0) : 0);
        imp_int(k, imp_attr_i(n, "upper", 1));
    }
}

static void imp_attrs_tensor(imp_call *k, const imp_node *n,
                             const imp_value *x) {
    imp_ctx *c = k->c;
    const char *op = n->op;
    int r = x ? x->rank : 0;
    if (!strcmp(op, "Transpose")) {
        const int64_t *perm;
        int np = imp_attr_ints(n, "perm", &perm);
        for (int i = 0; i < r; i++)
            imp_int(k, np >= 0 ? perm[i] : r - 1 - i);
    } else if (!strcmp(op, "Concat") || !strcmp(op, "Split") ||
               !strcmp(op, "Gather")) {
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", 0), r));
    } else if (!strcmp(op, "Slice")) {
        int64_t st[IMP_MAX_RANK], sp[IMP_MAX_RANK], d[IMP_MAX_RANK];
        imp_slice_params(c, n, st, sp, d);
        imp_ints(k, st, r);
        imp_ints(k, sp, r);
    } else if (!strcmp(op, "Pad")) {
        int64_t p[2 * IMP_MAX_RANK];
        int np = imp_ints_param(c, n, c->opset >= 11 ? "pads" : "paddings", 11,
                                1, p, 2 * IMP_MAX_RANK);
        if (np < 0)
            np = imp_ints_param(c, n, "pads", 11, 1, p, 2 * IMP_MAX_RANK);
        imp_ints(k, p, np); /* begins, then ends (checked by shape) */
        imp_str(k, imp_attr_s(c, n, "mode", "constant"));
        imp_float(k, c->opset >= 11 ? imp_param_float(c, n, 2, 0)
                                    : imp_attr_f(n, "value", 0));
    } else if (!strcmp(op, "ScatterND")) {
        imp_str(k, imp_attr_s(c, n, "reduction", "none"));
    } else {
        imp_attrs_more(k, n, r);
    }
}

static void imp_attrs_nn(imp_call *k, const imp_node *n, const imp_value *x) {
    imp_ctx *c = k->c;
    const char *op = n->op;
    int r = x ? x->rank : 0;
    if (!strcmp(op, "Conv") || !strcmp(op, "ConvTranspose")) {
        imp_int(k, imp_attr_i(n, "group", 1));
        imp_attrs_geom(k, n, false, true);
    } else if (!strcmp(op, "MaxPool")) {
        imp_attrs_geom(k, n, true, true);
        if (imp_out(c, n, 1))
            imp_int(k, imp_attr_i(n, "storage_order", 0));
    } else if (!strcmp(op, "AveragePool")) {
        imp_attrs_geom(k, n, true, false);
        imp_int(k, imp_attr_i(n, "count_include_pad", 0));
    } else if (!strcmp(op, "Gemm")) {
        imp_float(k, imp_attr_f(n, "alpha", 1.0f));
        imp_float(k, imp_attr_f(n, "beta", 1.0f));
        imp_int(k, imp_attr_i(n, "transA", 0));
        imp_int(k, imp_attr_i(n, "transB", 0));
    } else if (!strcmp(op, "Einsum")) {
        imp_str(k, imp_attr_s(c, n, "equation", ""));
    } else if (!strcmp(op, "BatchNormalization") ||
               !strcmp(op, "InstanceNormalization")) {
        imp_float(k, imp_attr_f(n, "epsilon", 1e-5f));
    } else if (!strcmp(op, "LayerNormalization")) {
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", -1), r));
        imp_float(k, imp_attr_f(n, "epsilon", 1e-5f));
    } else if (!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax") ||
               !strcmp(op, "Hardmax")) {
        int64_t def = c->opset < 13 ? 1 : -1;
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", def), r));
    } else if (!strncmp(op, "Reduce", 6)) {
        imp_int(k, (int64_t)imp_reduce_mask(c, n));
    } else if (!strcmp(op, "ArgMax") || !strcmp(op, "ArgMin")) {
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", 0), r));
        imp_int(k, imp_attr_i(n, "keepdims", 1));
        imp_int(k, imp_attr_i(n, "select_last_index", 0));
    } else if (!strcmp(op, "TopK")) {
        imp_int(k, imp_axis(c, imp_attr_i(n, "axis", -1), r));
        imp_int(k, imp_attr_i(n, "largest", 1));
        imp_int(k, imp_attr_i(n, "sorted", 1));
    } else if (!strcmp(op, "Resize")) {
        imp_str(k, imp_attr_s(c, n, "mode", "nearest"));
        imp_str(k, imp_attr_s(c, n, "coordinate_transformation_mode",
                              c->opset < 11 ? "asymmetric" : "half_pixel"));
        imp_str(k, imp_attr_s(c, n, "nearest_mode", "round_prefer_floor"));
        imp_float(k, imp_attr_f(n, "cubic_coeff_a", -0.75f));
    } else if (!strcmp(op, "Upsample")) {
        imp_str(k, imp_attr_s(c, n, "mode", "nearest"));
    } else if (!strcmp(op, "Range")) {
        imp_float(k, imp_param_float(c, n, 0, 0));
        imp_float(k, imp_param_float(c, n, 2, 1));
    } else if (!strcmp(op, "ConstantOfShape")) {
        const Onnx__AttributeProto *a = imp_attr(n, "value");
        imp_value val = {.name = "value", .dtype = IMP_FLOAT};
        if (a && a->t)
            imp_tensor_value(c, &val, a->t);
        imp_float(k, val.has_data ? imp_fval(&val, 0) : 0);
    } else {
        imp_attrs_tensor(k, n, x);
    }
}

static bool imp_same_shapes(const imp_call *k) {
    for (int i = 1; i < k->nbufs; i++)
        if (k->bufs[i]->rank != k->bufs[0]->rank ||
            memcmp(k->bufs[i]->dims, k->bufs[0]->dims,
                   sizeof k->bufs[0]->dims) != 0)
            return false;
    return true;
}

/* Buffers of the base kernel: data inputs, then outputs. */
static void imp_collect(imp_ctx *c, const imp_node *n, imp_call *k) {
    for (int i = 0; i < n->nin; i++) {
        imp_value *v = imp_in(c, n, i);
        if (v && !imp_is_param_in(n, i) && k->nbufs <= IMP_MAX_BUF_ARGS)
            k->bufs[k->nbufs++] = v;
    }
    for (int i = 0; i < n->nout; i++) {
        imp_value *v = imp_out(c, n, i);
        if (v && k->nbufs <= IMP_MAX_BUF_ARGS)
            k->bufs[k->nbufs++] = v;
    }
    if (k->nbufs > IMP_MAX_BUF_ARGS)
        imp_fail(c, "more than %d buffer arguments", IMP_MAX_BUF_ARGS);
}

/* The dtypes in a kernel name: the first buffer's, except where a buffer
 * has a type of its own the first one does not fix (one name, one C
 * signature): Where is named by its data (the condition is always bool);
 * Cast adds the target, the index ops their indices' dtype (int32 or
 * int64), Pow its exponent's when it differs from the base's. */
static void imp_name_dtypes(imp_buf *b, const imp_node *n, const imp_call *k) {
    bool where = !strcmp(n->op, "Where") && k->nbufs > 1;
    imp_printf(b, "_%s", imp_dtype_name(k->bufs[where]->dtype));
    if (!strncmp(n->op, "Cast", 4)) /* Cast, CastLike */
        imp_printf(b, "_%s", imp_dtype_name(k->bufs[k->nbufs - 1]->dtype));
    bool index = !strcmp(n->op, "Gather") || !strcmp(n->op, "GatherElements") ||
                 !strcmp(n->op, "ScatterElements");
    bool pow = !strcmp(n->op, "Pow") && k->nbufs > 1 &&
               k->bufs[1]->dtype != k->bufs[0]->dtype;
    if ((index || pow) && k->nbufs > 1)
        imp_printf(b, "_%s", imp_dtype_name(k->bufs[1]->dtype));
}

static const char *imp_kernel_name(imp_ctx *c, const imp_node *n,
                                   const imp_call *k, bool flat) {
    imp_buf b = {0};
    imp_snake(&b, n->op);
    imp_printf(&b, "%s", imp_variant(c, n));
    imp_name_dtypes(&b, n, k);
    if (!flat) {
        imp_printf(&b, "_r");
        for (int i = 0; i < k->nbufs; i++)
            imp_printf(&b, "%d", k->bufs[i]->rank);
    }
    if (n->inplace_in >= 0)
        imp_printf(&b, "_ip%d", n->inplace_in);
    const char *s = imp_strdup(c, base_sb_str(&b));
    imp_buf_free(&b);
    return s;
}

void imp_emit_call(imp_ctx *c, imp_node *n) {
    imp_call k = {.c = c, .args = &c->args, .modes = &c->modes};
    base_sb_clear(&c->args);
    base_sb_clear(&c->modes);
    imp_collect(c, n, &k);
    bool flat = n->info->cls == IMP_C_FLAT &&
                (imp_same_shapes(&k) || !strncmp(n->op, "Cast", 4));
    int ndata = 0;
    for (int i = 0; i < n->nin; i++)
        if (imp_in(c, n, i) && !imp_is_param_in(n, i)) {
            imp_value *v = imp_in(c, n, i);
            if (i == n->inplace_in)
                imp_arg(&k, "inout", "%s", imp_out(c, n, 0)->ident);
            else
                imp_arg(&k, "in", "%s", v->ident);
            ndata++;
        }
    for (int i = 0; n->inplace_in < 0 && i < n->nout; i++)
        if (imp_out(c, n, i))
            imp_arg(&k, "out", "%s", imp_out(c, n, i)->ident);
    if (flat)
        imp_int(&k, imp_numel(k.bufs[k.nbufs - 1]));
    else
        for (int i = 0; i < k.nbufs; i++)
            imp_ints(&k, k.bufs[i]->dims, k.bufs[i]->rank);
    const imp_value *x = ndata ? k.bufs[0] : NULL;
    if (!imp_attrs_unary(&k, n))
        imp_attrs_nn(&k, n, x);
    const char *name = imp_kernel_name(c, n, &k, flat);
    imp_kernel(c, name, base_sb_str(&c->modes));
    imp_printf(&c->body, "call   %s(%s)  # node '%s' (%s)\n", name,
               base_sb_str(&c->args), imp_printable(c, n->name), n->op);
}

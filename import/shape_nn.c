/*
 * import/shape_nn.c - shape rules of the network operators: convolution,
 * pooling, Gemm/MatMul/Einsum, reductions, ArgMax, TopK, Resize/Upsample.
 */
#include "shape.h"

#include <math.h>
#include <string.h>

static void imp_ints_attr(imp_ctx *c, const imp_node *n, const char *name,
                          int64_t *out, int count, int64_t def) {
    const int64_t *v;
    int k = imp_attr_ints(n, name, &v);
    for (int i = 0; i < count; i++)
        out[i] = def;
    if (k < 0)
        return;
    if (k != count)
        imp_fail(c, "attribute '%s' has %d values (expected %d)", name, k,
                 count);
    memcpy(out, v, (size_t)count * sizeof *out);
}

/* SAME_UPPER / SAME_LOWER padding: the output has ceil(in / stride). */
static void imp_same_pads(const char *mode, int64_t in, int64_t s, int64_t ext,
                          int64_t *b, int64_t *e) {
    int64_t out = (in + s - 1) / s;
    int64_t total = (out - 1) * s + ext - in;
    total = total < 0 ? 0 : total;
    *b = strcmp(mode, "SAME_LOWER") == 0 ? total - total / 2 : total / 2;
    *e = total - *b;
}

void imp_geometry(imp_ctx *c, const imp_node *n, imp_geom *g) {
    imp_value *x = imp_req(c, n, 0);
    if (x->rank < 3)
        imp_fail(c,
                 "input '%s' has rank %d (expected N, C and at least one "
                 "spatial dimension)",
                 x->name, x->rank);
    int s = g->s = x->rank - 2;
    imp_value *w = strstr(n->op, "Conv") ? imp_req(c, n, 1) : NULL;
    if (w && w->rank != x->rank)
        imp_fail(c, "weight '%s' has rank %d but the input has rank %d",
                 w->name, w->rank, x->rank);
    imp_ints_attr(c, n, "kernel_shape", g->kernel, s, -1);
    for (int i = 0; i < s; i++) {
        if (g->kernel[i] < 0 && w)
            g->kernel[i] = w->dims[2 + i];
        if (g->kernel[i] <= 0)
            imp_fail(c, "kernel_shape is missing or not positive");
    }
    imp_ints_attr(c, n, "strides", g->strides, s, 1);
    imp_ints_attr(c, n, "dilations", g->dil, s, 1);
    imp_ints_attr(c, n, "pads", g->pads, 2 * s, 0);
    imp_ints_attr(c, n, "output_padding", g->outpad, s, 0);
    for (int i = 0; i < s; i++)
        if (g->strides[i] <= 0 || g->dil[i] <= 0)
            imp_fail(c, "strides and dilations must be positive");
    const char *ap = imp_attr_s(c, n, "auto_pad", "NOTSET");
    if (!strcmp(ap, "VALID")) {
        memset(g->pads, 0, sizeof g->pads);
    } else if (!strncmp(ap, "SAME_", 5) && !strcmp(n->op, "ConvTranspose")) {
        for (int i = 0; i < s; i++) {
            int64_t ext = (g->kernel[i] - 1) * g->dil[i] + 1;
            int64_t in = x->dims[2 + i], out = in * g->strides[i];
            int64_t total = g->strides[i] * (in - 1) + g->outpad[i] + ext - out;
            total = total < 0 ? 0 : total;
            g->pads[i] =
                !strcmp(ap, "SAME_UPPER") ? total / 2 : total - total / 2;
            g->pads[s + i] = total - g->pads[i];
        }
    } else if (!strncmp(ap, "SAME_", 5)) {
        for (int i = 0; i < s; i++)
            imp_same_pads(ap, x->dims[2 + i], g->strides[i],
                          (g->kernel[i] - 1) * g->dil[i] + 1, &g->pads[i],
                          &g->pads[s + i]);
    } else if (strcmp(ap, "NOTSET") != 0) {
        imp_fail(c, "auto_pad '%s' is not supported", ap);
    }
}

/* Output spatial size of a convolution or pooling window. */
static int64_t imp_window_out(imp_ctx *c, int64_t in, int64_t pb, int64_t pe,
                              int64_t ext, int64_t s, bool ceil_mode) {
    int64_t span = in + pb + pe - ext;
    if (span < 0)
        imp_fail(c,
                 "the window (%lld) is larger than the padded input "
                 "(%lld)",
                 (long long)ext, (long long)(in + pb + pe));
    int64_t out = (ceil_mode ? (span + s - 1) / s : span / s) + 1;
    if (ceil_mode && (out - 1) * s >= in + pb)
        out--;
    return out;
}

void imp_sh_conv(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0), *w = imp_req(c, n, 1);
    imp_geom g;
    imp_geometry(c, n, &g);
    int64_t grp = imp_attr_i(n, "group", 1);
    if (grp <= 0 || x->dims[1] != w->dims[1] * grp)
        imp_fail(c,
                 "input has %lld channels but weight '%s' %s with group "
                 "%lld needs %lld",
                 (long long)x->dims[1], w->name,
                 imp_dims_str(c, w->rank, w->dims), (long long)grp,
                 (long long)(w->dims[1] * grp));
    imp_value *b = imp_in(c, n, 2);
    if (b && (b->rank != 1 || b->dims[0] != w->dims[0]))
        imp_fail(c, "bias '%s' must have shape [%lld]", b->name,
                 (long long)w->dims[0]);
    int64_t d[IMP_MAX_RANK] = {x->dims[0], w->dims[0]};
    for (int i = 0; i < g.s; i++)
        d[2 + i] = imp_window_out(c, x->dims[2 + i], g.pads[i], g.pads[g.s + i],
                                  (g.kernel[i] - 1) * g.dil[i] + 1,
                                  g.strides[i], false);
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_convtranspose(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0), *w = imp_req(c, n, 1);
    imp_geom g;
    imp_geometry(c, n, &g);
    int64_t grp = imp_attr_i(n, "group", 1);
    if (grp <= 0 || x->dims[1] != w->dims[0])
        imp_fail(c, "input has %lld channels but weight '%s' has %lld",
                 (long long)x->dims[1], w->name, (long long)w->dims[0]);
    int64_t d[IMP_MAX_RANK] = {x->dims[0], w->dims[1] * grp};
    const int64_t *os;
    int nos = imp_attr_ints(n, "output_shape", &os);
    for (int i = 0; i < g.s; i++) {
        if (nos == g.s) {
            d[2 + i] = os[i];
            continue;
        }
        d[2 + i] = g.strides[i] * (x->dims[2 + i] - 1) + g.outpad[i] +
                   (g.kernel[i] - 1) * g.dil[i] + 1 - g.pads[i] -
                   g.pads[g.s + i];
    }
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_pool(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_geom g;
    imp_geometry(c, n, &g);
    bool ceil_mode = imp_attr_i(n, "ceil_mode", 0) != 0;
    int64_t d[IMP_MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int i = 0; i < g.s; i++)
        d[2 + i] = imp_window_out(c, x->dims[2 + i], g.pads[i], g.pads[g.s + i],
                                  (g.kernel[i] - 1) * g.dil[i] + 1,
                                  g.strides[i], ceil_mode);
    imp_set(c, n, 0, x->dtype, x->rank, d);
    imp_set(c, n, 1, IMP_INT64, x->rank, d);
}

void imp_sh_global_pool(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    if (x->rank < 3)
        imp_fail(c, "input '%s' has rank %d (expected at least 3)", x->name,
                 x->rank);
    int64_t d[IMP_MAX_RANK] = {x->dims[0], x->dims[1]};
    for (int i = 2; i < x->rank; i++)
        d[i] = 1;
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_gemm(imp_ctx *c, imp_node *n) {
    imp_value *a = imp_req(c, n, 0), *b = imp_req(c, n, 1);
    if (a->rank != 2 || b->rank != 2)
        imp_fail(c, "inputs must be matrices (ranks %d and %d)", a->rank,
                 b->rank);
    bool ta = imp_attr_i(n, "transA", 0), tb = imp_attr_i(n, "transB", 0);
    int64_t m = a->dims[ta ? 1 : 0], k = a->dims[ta ? 0 : 1];
    int64_t kb = b->dims[tb ? 1 : 0], nn = b->dims[tb ? 0 : 1];
    if (k != kb)
        imp_fail(c, "inner dimensions differ: %lld and %lld", (long long)k,
                 (long long)kb);
    int64_t d[2] = {m, nn};
    imp_value *cc = imp_in(c, n, 2);
    if (cc) {
        int64_t bd[IMP_MAX_RANK];
        imp_value tmp = {.name = "M x N", .rank = 2, .dims = {m, nn}};
        imp_value *vs[2] = {&tmp, cc};
        if (imp_broadcast(c, vs, 2, bd) != 2 || bd[0] != m || bd[1] != nn)
            imp_fail(c, "C '%s' does not broadcast to [%lld,%lld]", cc->name,
                     (long long)m, (long long)nn);
    }
    imp_set(c, n, 0, a->dtype, 2, d);
}

void imp_sh_matmul(imp_ctx *c, imp_node *n) {
    imp_value *a = imp_req(c, n, 0), *b = imp_req(c, n, 1);
    if (a->rank < 1 || b->rank < 1)
        imp_fail(c, "MatMul of a scalar");
    imp_value ab = *a, bb = *b; /* batch parts */
    int64_t k = a->dims[a->rank - 1];
    int64_t kb = b->dims[b->rank >= 2 ? b->rank - 2 : 0];
    if (k != kb)
        imp_fail(c, "inner dimensions differ: '%s' %s and '%s' %s", a->name,
                 imp_dims_str(c, a->rank, a->dims), b->name,
                 imp_dims_str(c, b->rank, b->dims));
    ab.rank = a->rank >= 2 ? a->rank - 2 : 0;
    bb.rank = b->rank >= 2 ? b->rank - 2 : 0;
    imp_value *vs[2] = {&ab, &bb};
    int64_t d[IMP_MAX_RANK + 2];
    int r = imp_broadcast(c, vs, 2, d);
    if (a->rank >= 2)
        d[r++] = a->dims[a->rank - 2];
    if (b->rank >= 2)
        d[r++] = b->dims[b->rank - 1];
    imp_set(c, n, 0, a->dtype, r, d);
}

/* Einsum of one or two inputs, letters only ("ij,jk->ik"). */
void imp_sh_einsum(imp_ctx *c, imp_node *n) {
    const char *eq = imp_attr_s(c, n, "equation", NULL);
    if (!eq)
        imp_fail(c, "attribute 'equation' is missing");
    int64_t size[128];
    int count[128] = {0};
    for (int i = 0; i < 128; i++)
        size[i] = -1;
    const char *p = eq;
    for (int t = 0; t < n->nin; t++) {
        imp_value *x = imp_req(c, n, t);
        int k = 0;
        for (; *p && *p != ',' && *p != '-'; p++) {
            if (*p == ' ')
                continue;
            unsigned char ch = (unsigned char)*p;
            if (!((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
                imp_fail(
                    c,
                    "equation '%s': only letters are supported (an ellipsis "
                    "is not supported)",
                    eq);
            if (k >= x->rank)
                imp_fail(c,
                         "equation '%s' has more letters than input %d has "
                         "dims",
                         eq, t);
            if (size[ch] >= 0 && size[ch] != x->dims[k])
                imp_fail(c, "equation '%s': '%c' is both %lld and %lld", eq, ch,
                         (long long)size[ch], (long long)x->dims[k]);
            size[ch] = x->dims[k++];
            count[ch]++;
        }
        if (k != x->rank)
            imp_fail(c, "equation '%s' names %d dims of input %d (rank %d)", eq,
                     k, t, x->rank);
        if (*p == ',')
            p++;
    }
    int64_t d[IMP_MAX_RANK];
    int r = 0;
    if (p[0] == '-' && p[1] == '>') {
        for (p += 2; *p; p++) {
            unsigned char ch = (unsigned char)*p;
            if (ch == ' ')
                continue;
            if (ch >= 128 || size[ch] < 0 || r == IMP_MAX_RANK)
                imp_fail(c, "equation '%s': bad output term", eq);
            d[r++] = size[ch];
        }
    } else {
        for (int ch = 0; ch < 128; ch++)
            if (count[ch] == 1 && r < IMP_MAX_RANK)
                d[r++] = size[ch];
    }
    imp_set(c, n, 0, imp_req(c, n, 0)->dtype, r, d);
}

unsigned imp_reduce_mask(imp_ctx *c, const imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t axes[IMP_MAX_RANK];
    int64_t from = !strcmp(n->op, "ReduceSum") ? 13 : 18;
    int na = imp_ints_param(c, n, "axes", from, 1, axes, IMP_MAX_RANK);
    unsigned mask = 0;
    if (na <= 0) {
        if (imp_attr_i(n, "noop_with_empty_axes", 0))
            return 0;
        return (1u << x->rank) - 1;
    }
    for (int i = 0; i < na; i++)
        mask |= 1u << imp_axis(c, axes[i], x->rank);
    return mask;
}

void imp_sh_reduce(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    unsigned mask = imp_reduce_mask(c, n);
    bool keep = imp_attr_i(n, "keepdims", 1) != 0;
    int64_t d[IMP_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (!(mask & (1u << i)))
            d[r++] = x->dims[i];
        else if (keep)
            d[r++] = 1;
    }
    imp_set(c, n, 0, x->dtype, r, d);
}

void imp_sh_argmax(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), x->rank);
    bool keep = imp_attr_i(n, "keepdims", 1) != 0;
    int64_t d[IMP_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++) {
        if (i != axis)
            d[r++] = x->dims[i];
        else if (keep)
            d[r++] = 1;
    }
    imp_set(c, n, 0, IMP_INT64, r, d);
}

void imp_sh_topk(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int axis = imp_axis(c, imp_attr_i(n, "axis", -1), x->rank);
    int64_t k;
    if (c->opset >= 10) {
        imp_need_data(c, n, 1, "k");
        k = imp_ival(imp_in(c, n, 1), 0);
    } else {
        k = imp_attr_i(n, "k", -1);
    }
    if (k < 0 || k > x->dims[axis])
        imp_fail(c, "k = %lld is out of range for an axis of %lld",
                 (long long)k, (long long)x->dims[axis]);
    int64_t d[IMP_MAX_RANK];
    memcpy(d, x->dims, sizeof d);
    d[axis] = k;
    imp_set(c, n, 0, x->dtype, x->rank, d);
    imp_set(c, n, 1, IMP_INT64, x->rank, d);
}

/* Resize (opset 10: X, scales; 11+: X, roi, scales, sizes) and Upsample
 * (opset 7: attribute scales; 9: input scales). */
void imp_sh_resize(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    bool up = !strcmp(n->op, "Upsample");
    int si = up || c->opset < 11 ? 1 : 2;
    imp_value *sizes = up || c->opset < 11 ? NULL : imp_in(c, n, 3);
    imp_value *scales = imp_in(c, n, si);
    int64_t d[IMP_MAX_RANK];
    if (sizes && imp_numel(sizes) > 0) {
        imp_need_data(c, n, 3, "sizes");
        if (imp_numel(sizes) != x->rank)
            imp_fail(c, "sizes has %lld values for rank %d",
                     (long long)imp_numel(sizes), x->rank);
        for (int i = 0; i < x->rank; i++)
            d[i] = imp_ival(sizes, i);
    } else if (scales || (up && c->opset < 9)) {
        const Onnx__AttributeProto *a = imp_attr(n, "scales");
        if (scales)
            imp_need_data(c, n, si, "scales");
        int64_t ns = scales ? imp_numel(scales) : a ? (int64_t)a->n_floats : 0;
        if (ns != x->rank)
            imp_fail(c, "scales has %lld values for rank %d", (long long)ns,
                     x->rank);
        for (int i = 0; i < x->rank; i++) {
            double s = scales ? imp_fval(scales, i) : a->floats[i];
            d[i] = (int64_t)floor((double)x->dims[i] * s);
        }
    } else {
        imp_fail(c, "neither scales nor sizes is given");
    }
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

/*
 * import/shape_tensor.c - shape rules of the tensor operators: views
 * (Reshape, Flatten, Squeeze, Unsqueeze), Transpose, Concat, Split,
 * Slice, Gather, ScatterND, Expand, Pad, Tile, Range, ConstantOfShape.
 * Shape-like inputs (Reshape's shape, Slice's starts, ...) must be
 * constants or folded from shapes (fold.c).
 */
#include "shape.h"

#include <math.h>
#include <string.h>

int imp_ints_param(imp_ctx *c, const imp_node *n, const char *name,
                   int64_t input_from, int i, int64_t *out, int max) {
    if (c->opset >= input_from) {
        imp_value *v = imp_in(c, n, i);
        if (!v)
            return -1;
        imp_need_data(c, n, i, name);
        int64_t k = imp_numel(v);
        if (k > max)
            imp_fail(c, "input %d (%s) has %lld values (at most %d)", i, name,
                     (long long)k, max);
        for (int64_t j = 0; j < k; j++)
            out[j] = imp_ival(v, j);
        return (int)k;
    }
    const int64_t *a;
    int k = imp_attr_ints(n, name, &a);
    if (k > max)
        imp_fail(c, "attribute '%s' has %d values (at most %d)", name, k, max);
    if (k > 0)
        memcpy(out, a, (size_t)k * sizeof *out);
    return k;
}

void imp_sh_reshape(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t d[IMP_MAX_RANK];
    int r = imp_ints_param(c, n, "shape", 5, 1, d, IMP_MAX_RANK);
    if (r < 0)
        imp_fail(c, "the shape is missing");
    bool allowzero = imp_attr_i(n, "allowzero", 0) != 0;
    int infer = -1;
    int64_t known = 1;
    for (int i = 0; i < r; i++) {
        if (d[i] == 0 && !allowzero) {
            if (i >= x->rank)
                imp_fail(c, "shape entry %d is 0 but the input has rank %d", i,
                         x->rank);
            d[i] = x->dims[i];
        }
        if (d[i] == -1 && infer < 0)
            infer = i;
        else if (d[i] < 0)
            imp_fail(c, "bad shape %s", imp_dims_str(c, r, d));
        else
            known *= d[i];
    }
    int64_t total = imp_numel(x);
    if (infer >= 0) {
        if (known == 0 || total % known != 0)
            imp_fail(c, "cannot reshape %s to %s",
                     imp_dims_str(c, x->rank, x->dims), imp_dims_str(c, r, d));
        d[infer] = total / known;
    } else if (known != total) {
        imp_fail(c, "cannot reshape %s (%lld elements) to %s",
                 imp_dims_str(c, x->rank, x->dims), (long long)total,
                 imp_dims_str(c, r, d));
    }
    imp_set(c, n, 0, x->dtype, r, d);
}

void imp_sh_flatten(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t axis = imp_attr_i(n, "axis", 1);
    if (axis < -x->rank || axis > x->rank)
        imp_fail(c, "axis %lld is out of range for rank %d", (long long)axis,
                 x->rank);
    if (axis < 0)
        axis += x->rank;
    int64_t d[2] = {1, 1};
    for (int i = 0; i < x->rank; i++)
        d[i < axis ? 0 : 1] *= x->dims[i];
    imp_set(c, n, 0, x->dtype, 2, d);
}

void imp_sh_squeeze(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t axes[IMP_MAX_RANK];
    int na = imp_ints_param(c, n, "axes", 13, 1, axes, IMP_MAX_RANK);
    unsigned mask = 0;
    for (int i = 0; i < na; i++) {
        int a = imp_axis(c, axes[i], x->rank);
        if (x->dims[a] != 1)
            imp_fail(c, "cannot squeeze axis %d of size %lld", a,
                     (long long)x->dims[a]);
        mask |= 1u << a;
    }
    int64_t d[IMP_MAX_RANK];
    int r = 0;
    for (int i = 0; i < x->rank; i++)
        if (na > 0 ? !(mask & (1u << i)) : x->dims[i] != 1)
            d[r++] = x->dims[i];
    imp_set(c, n, 0, x->dtype, r, d);
}

void imp_sh_unsqueeze(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t axes[IMP_MAX_RANK];
    int na = imp_ints_param(c, n, "axes", 13, 1, axes, IMP_MAX_RANK);
    if (na <= 0)
        imp_fail(c, "axes are missing");
    int r = x->rank + na;
    if (r > IMP_MAX_RANK)
        imp_fail(c, "the output would have rank %d (at most %d)", r,
                 IMP_MAX_RANK);
    unsigned mask = 0;
    for (int i = 0; i < na; i++) {
        int a = imp_axis(c, axes[i], r);
        if (mask & (1u << a))
            imp_fail(c, "axis %d is given twice", a);
        mask |= 1u << a;
    }
    int64_t d[IMP_MAX_RANK];
    for (int i = 0, k = 0; i < r; i++)
        d[i] = mask & (1u << i) ? 1 : x->dims[k++];
    imp_set(c, n, 0, x->dtype, r, d);
}

void imp_sh_transpose(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    const int64_t *perm;
    int np = imp_attr_ints(n, "perm", &perm);
    int64_t d[IMP_MAX_RANK];
    unsigned seen = 0;
    if (np >= 0 && np != x->rank)
        imp_fail(c, "perm has %d entries for rank %d", np, x->rank);
    for (int i = 0; i < x->rank; i++) {
        int64_t p = np >= 0 ? perm[i] : x->rank - 1 - i;
        if (p < 0 || p >= x->rank || (seen & (1u << p)))
            imp_fail(c, "perm is not a permutation of 0..%d", x->rank - 1);
        seen |= 1u << p;
        d[i] = x->dims[p];
    }
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_concat(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), x->rank);
    int64_t d[IMP_MAX_RANK];
    memcpy(d, x->dims, sizeof d);
    d[axis] = 0;
    for (int i = 0; i < n->nin; i++) {
        imp_value *v = imp_req(c, n, i);
        for (int k = 0; k < x->rank; k++)
            if (v->rank != x->rank || (k != axis && v->dims[k] != d[k]))
                imp_fail(c,
                         "input '%s' %s does not match '%s' %s outside "
                         "axis %d",
                         v->name, imp_dims_str(c, v->rank, v->dims), x->name,
                         imp_dims_str(c, x->rank, x->dims), axis);
        d[axis] += v->dims[axis];
    }
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_split(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), x->rank);
    int64_t sp[64];
    int ns = imp_ints_param(c, n, "split", 13, 1, sp, 64);
    if (ns < 0) {
        if (n->nout > 64 || n->nout <= 0)
            imp_fail(c, "%d outputs (at most 64)", n->nout);
        ns = n->nout;
        int64_t each = (x->dims[axis] + ns - 1) / ns;
        for (int i = 0; i < ns; i++) {
            int64_t left = x->dims[axis] - each * i;
            sp[i] = left < each ? (left < 0 ? 0 : left) : each;
        }
    }
    int64_t total = 0;
    for (int i = 0; i < ns; i++)
        total += sp[i];
    if (ns != n->nout || total != x->dims[axis])
        imp_fail(c,
                 "split sizes (%d, summing to %lld) do not match %d "
                 "outputs and an axis of %lld",
                 ns, (long long)total, n->nout, (long long)x->dims[axis]);
    for (int i = 0; i < ns; i++) {
        int64_t d[IMP_MAX_RANK];
        memcpy(d, x->dims, sizeof d);
        d[axis] = sp[i];
        imp_set(c, n, i, x->dtype, x->rank, d);
    }
}

static int64_t imp_clamp(int64_t v, int64_t lo, int64_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

void imp_slice_params(imp_ctx *c, const imp_node *n, int64_t *start,
                      int64_t *step, int64_t *dims) {
    imp_value *x = imp_req(c, n, 0);
    int64_t st[IMP_MAX_RANK], en[IMP_MAX_RANK], ax[IMP_MAX_RANK],
        sp[IMP_MAX_RANK];
    int ns = imp_ints_param(c, n, "starts", 10, 1, st, IMP_MAX_RANK);
    int ne = imp_ints_param(c, n, "ends", 10, 2, en, IMP_MAX_RANK);
    int na = imp_ints_param(c, n, "axes", 10, 3, ax, IMP_MAX_RANK);
    int np = c->opset >= 10
                 ? imp_ints_param(c, n, "steps", 10, 4, sp, IMP_MAX_RANK)
                 : -1;
    if (ns < 0 || ne != ns || (na >= 0 && na != ns) || (np >= 0 && np != ns))
        imp_fail(c, "starts, ends, axes and steps must have the same length");
    for (int i = 0; i < x->rank; i++) {
        start[i] = 0;
        step[i] = 1;
        dims[i] = x->dims[i];
    }
    unsigned seen = 0;
    for (int i = 0; i < ns; i++) {
        int a = imp_axis(c, na >= 0 ? ax[i] : i, x->rank);
        if (seen & (1u << a))
            imp_fail(c, "axis %d is sliced twice", a);
        seen |= 1u << a;
        int64_t d = x->dims[a], s = np >= 0 ? sp[i] : 1;
        if (s == 0)
            imp_fail(c, "a step is 0");
        int64_t b = st[i] < 0 ? st[i] + d : st[i];
        int64_t e = en[i] < 0 ? en[i] + d : en[i];
        b = s > 0 ? imp_clamp(b, 0, d) : imp_clamp(b, 0, d - 1);
        e = s > 0 ? imp_clamp(e, 0, d) : imp_clamp(e, -1, d - 1);
        int64_t len = s > 0 ? (e - b + s - 1) / s : (b - e + (-s) - 1) / -s;
        start[a] = b;
        step[a] = s;
        dims[a] = len < 0 ? 0 : len;
    }
}

void imp_sh_slice(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t st[IMP_MAX_RANK], sp[IMP_MAX_RANK], d[IMP_MAX_RANK];
    imp_slice_params(c, n, st, sp, d);
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_gather(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0), *idx = imp_req(c, n, 1);
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), x->rank);
    int r = x->rank - 1 + idx->rank;
    if (r > IMP_MAX_RANK)
        imp_fail(c, "the output would have rank %d", r);
    int64_t d[IMP_MAX_RANK];
    int k = 0;
    for (int i = 0; i < axis; i++)
        d[k++] = x->dims[i];
    for (int i = 0; i < idx->rank; i++)
        d[k++] = idx->dims[i];
    for (int i = axis + 1; i < x->rank; i++)
        d[k++] = x->dims[i];
    imp_set(c, n, 0, x->dtype, r, d);
}

void imp_sh_scatternd(imp_ctx *c, imp_node *n) {
    imp_set_like(c, n, 0, imp_req(c, n, 0));
    imp_req(c, n, 1);
    imp_req(c, n, 2);
}

void imp_sh_gather_elements(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0), *idx = imp_req(c, n, 1);
    imp_axis(c, imp_attr_i(n, "axis", 0), x->rank);
    if (idx->rank != x->rank)
        imp_fail(c, "indices have rank %d but the data has rank %d", idx->rank,
                 x->rank);
    imp_set(c, n, 0, x->dtype, idx->rank, idx->dims);
}

void imp_sh_gather_nd(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0), *idx = imp_req(c, n, 1);
    int64_t b = imp_attr_i(n, "batch_dims", 0);
    int q = idx->rank;
    int64_t last = q > 0 ? idx->dims[q - 1] : -1;
    if (q < 1 || b < 0 || last < 1 || b + last > x->rank ||
        q - 1 + x->rank - b - last > IMP_MAX_RANK)
        imp_fail(c, "indices %s do not fit data %s with batch_dims %lld",
                 imp_dims_str(c, q, idx->dims),
                 imp_dims_str(c, x->rank, x->dims), (long long)b);
    int64_t d[IMP_MAX_RANK];
    int r = 0;
    for (int i = 0; i < q - 1; i++)
        d[r++] = idx->dims[i];
    for (int64_t i = b + last; i < x->rank; i++)
        d[r++] = x->dims[i];
    imp_set(c, n, 0, x->dtype, r, d);
}

/* DepthToSpace and SpaceToDepth. */
void imp_sh_depth_space(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t bs = imp_attr_i(n, "blocksize", 0);
    bool to_space = !strcmp(n->op, "DepthToSpace");
    if (x->rank != 4 || bs <= 0 ||
        (to_space ? x->dims[1] % (bs * bs)
                  : x->dims[2] % bs + x->dims[3] % bs) != 0)
        imp_fail(c, "blocksize %lld does not fit input %s", (long long)bs,
                 imp_dims_str(c, x->rank, x->dims));
    int64_t d[4] = {x->dims[0], x->dims[1], x->dims[2], x->dims[3]};
    if (to_space) {
        d[1] /= bs * bs;
        d[2] *= bs;
        d[3] *= bs;
    } else {
        d[1] *= bs * bs;
        d[2] /= bs;
        d[3] /= bs;
    }
    imp_set(c, n, 0, x->dtype, 4, d);
}

void imp_sh_expand(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    imp_value sh = {.name = "shape"};
    sh.rank = imp_ints_param(c, n, "shape", 8, 1, sh.dims, IMP_MAX_RANK);
    imp_value *vs[2] = {x, &sh};
    int64_t d[IMP_MAX_RANK];
    imp_set(c, n, 0, x->dtype, imp_broadcast(c, vs, 2, d), d);
}

void imp_sh_pad(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t p[2 * IMP_MAX_RANK];
    int np = imp_ints_param(c, n, c->opset >= 11 ? "pads" : "paddings", 11, 1,
                            p, 2 * IMP_MAX_RANK);
    if (c->opset < 11 && np < 0)
        np = imp_ints_param(c, n, "pads", 11, 1, p, 2 * IMP_MAX_RANK);
    if (np != 2 * x->rank)
        imp_fail(c, "pads has %d values for rank %d", np, x->rank);
    int64_t d[IMP_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        d[i] = x->dims[i] + p[i] + p[x->rank + i];
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_tile(imp_ctx *c, imp_node *n) {
    imp_value *x = imp_req(c, n, 0);
    int64_t rep[IMP_MAX_RANK];
    int nr = imp_ints_param(c, n, "repeats", 0, 1, rep, IMP_MAX_RANK);
    if (nr != x->rank)
        imp_fail(c, "repeats has %d values for rank %d", nr, x->rank);
    int64_t d[IMP_MAX_RANK];
    for (int i = 0; i < x->rank; i++)
        d[i] = x->dims[i] * rep[i];
    imp_set(c, n, 0, x->dtype, x->rank, d);
}

void imp_sh_range(imp_ctx *c, imp_node *n) {
    imp_need_data(c, n, 0, "start");
    imp_need_data(c, n, 1, "limit");
    imp_need_data(c, n, 2, "delta");
    imp_value *s = imp_in(c, n, 0), *l = imp_in(c, n, 1), *dl = imp_in(c, n, 2);
    double start = imp_fval(s, 0), lim = imp_fval(l, 0), del = imp_fval(dl, 0);
    if (del == 0)
        imp_fail(c, "delta is 0");
    double cnt = ceil((lim - start) / del);
    int64_t d = cnt > 0 ? (int64_t)cnt : 0;
    imp_set(c, n, 0, s->dtype, 1, &d);
}

void imp_sh_constantofshape(imp_ctx *c, imp_node *n) {
    imp_value sh = {.name = "shape"};
    sh.rank = imp_ints_param(c, n, "shape", 0, 0, sh.dims, IMP_MAX_RANK);
    const Onnx__AttributeProto *a = imp_attr(n, "value");
    int dt = a && a->t && a->t->has_data_type ? a->t->data_type : IMP_FLOAT;
    imp_set(c, n, 0, dt, sh.rank, sh.dims);
}

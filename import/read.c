/*
 * import/read.c - the ONNX reader: unpacks a ModelProto with the
 * protobuf-c code generated at build time from onnx.proto, checks the
 * opset, and builds the graph model (values and nodes, in graph order)
 * with the types of graph inputs (bound by --input) and initializers.
 */
#include "imp.h"

#include <string.h>

static const struct {
    int onnx;
    const char *ir, *onnx_name;
    size_t size;
} imp_dtypes[] = {
    {0, NULL, "UNDEFINED", 0},   {1, "f32", "FLOAT", 4},
    {2, "u8", "UINT8", 1},       {3, "i8", "INT8", 1},
    {4, NULL, "UINT16", 2},      {5, "i16", "INT16", 2},
    {6, "i32", "INT32", 4},      {7, "i64", "INT64", 8},
    {8, NULL, "STRING", 0},      {9, "bool", "BOOL", 1},
    {10, "f16", "FLOAT16", 2},   {11, "f64", "DOUBLE", 8},
    {12, NULL, "UINT32", 4},     {13, NULL, "UINT64", 8},
    {14, NULL, "COMPLEX64", 8},  {15, NULL, "COMPLEX128", 16},
    {16, "bf16", "BFLOAT16", 2},
};
#define IMP_NDTYPES ((int)(sizeof imp_dtypes / sizeof *imp_dtypes))

const char *imp_dtype_name(int dtype) {
    return dtype >= 0 && dtype < IMP_NDTYPES ? imp_dtypes[dtype].ir : NULL;
}

size_t imp_dtype_size(int dtype) {
    return dtype >= 0 && dtype < IMP_NDTYPES ? imp_dtypes[dtype].size : 0;
}

const char *imp_onnx_dtype_name(int dtype) {
    return dtype >= 0 && dtype < IMP_NDTYPES ? imp_dtypes[dtype].onnx_name
                                             : "unknown";
}

bool imp_is_float(int dtype) {
    return dtype == IMP_FLOAT || dtype == IMP_DOUBLE || dtype == IMP_FLOAT16 ||
           dtype == IMP_BFLOAT16;
}

int64_t imp_numel(const imp_value *v) {
    int64_t n = 1;
    for (int i = 0; i < v->rank; i++)
        n *= v->dims[i];
    return n;
}

/* --- the value table ------------------------------------------------ */

static uint64_t imp_name_hash(const char *s) {
    uint64_t h = 1469598103934665603ULL;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

imp_value *imp_find(imp_ctx *c, const char *name) {
    size_t h = imp_name_hash(name) & (c->hcap - 1);
    for (imp_value *v = c->htab[h]; v; v = v->hnext)
        if (strcmp(v->name, name) == 0)
            return v;
    return NULL;
}

/* The value named `name`, created (IMP_V_UNDEF) when new. */
static imp_value *imp_value_get(imp_ctx *c, const char *name) {
    imp_value *v = imp_find(c, name);
    if (v)
        return v;
    if (c->nvals == c->capvals)
        IMP_BUG("value table full");
    v = &c->vals[c->nvals++];
    v->name = name;
    v->rank = -1;
    v->producer = -1;
    v->view_of = -1;
    v->last_use = -1;
    v->first_def = -1;
    size_t h = imp_name_hash(name) & (c->hcap - 1);
    v->hnext = c->htab[h];
    c->htab[h] = v;
    return v;
}

static void imp_check_dtype(imp_ctx *c, int dtype, const char *what,
                            const char *name) {
    if (!imp_dtype_name(dtype))
        imp_fail(c, "%s '%s' has data type %s, which planwrap cannot express",
                 what, name, imp_onnx_dtype_name(dtype));
}

/* --- tensors -------------------------------------------------------- */

static int64_t imp_raw_int(const uint8_t *p, size_t size, int dtype) {
    uint64_t u = 0;
    for (size_t b = 0; b < size; b++)
        u |= (uint64_t)p[b] << (8 * b);
    switch (dtype) {
    case IMP_INT8:
        return (int8_t)u;
    case IMP_INT16:
        return (int16_t)u;
    case IMP_INT32:
        return (int32_t)u;
    default:
        return (int64_t)u;
    }
}

static double imp_raw_float(const uint8_t *p, int dtype) {
    uint64_t u = 0;
    size_t size = imp_dtype_size(dtype);
    for (size_t b = 0; b < size; b++)
        u |= (uint64_t)p[b] << (8 * b);
    if (dtype == IMP_DOUBLE) {
        double d;
        memcpy(&d, &u, sizeof d);
        return d;
    }
    uint32_t w = (uint32_t)u;
    float f;
    memcpy(&f, &w, sizeof f);
    return f;
}

/* Small data of t into v (when it is present and readable). */
static void imp_tensor_data(imp_ctx *c, imp_value *v,
                            const Onnx__TensorProto *t, int64_t n) {
    int dt = v->dtype;
    size_t size = imp_dtype_size(dt);
    bool fl = imp_is_float(dt);
    if (dt == IMP_FLOAT16 || dt == IMP_BFLOAT16)
        return;
    if (fl)
        v->fval = imp_alloc(c, (size_t)(n ? n : 1) * sizeof(double));
    else
        v->ival = imp_alloc(c, (size_t)(n ? n : 1) * sizeof(int64_t));
    size_t typed = fl ? (dt == IMP_DOUBLE ? t->n_double_data : t->n_float_data)
                   : dt == IMP_INT64 ? t->n_int64_data
                                     : t->n_int32_data;
    if (t->has_raw_data) {
        if (t->raw_data.len != (size_t)n * size)
            imp_fail(c,
                     "tensor '%s' has %zu bytes of data but its type needs "
                     "%lld",
                     v->name, t->raw_data.len, (long long)((size_t)n * size));
        for (int64_t k = 0; k < n; k++) {
            const uint8_t *p = t->raw_data.data + (size_t)k * size;
            if (fl)
                v->fval[k] = imp_raw_float(p, dt);
            else
                v->ival[k] = imp_raw_int(p, size, dt);
        }
    } else if (typed == (size_t)n) {
        for (int64_t k = 0; k < n; k++) {
            if (fl)
                v->fval[k] =
                    dt == IMP_DOUBLE ? t->double_data[k] : t->float_data[k];
            else
                v->ival[k] =
                    dt == IMP_INT64 ? t->int64_data[k] : t->int32_data[k];
        }
    } else {
        if (typed != 0)
            imp_fail(c, "tensor '%s' has %zu values but its dims make %lld",
                     v->name, typed, (long long)n);
        return; /* no data given */
    }
    v->has_data = true;
}

void imp_tensor_value(imp_ctx *c, imp_value *v, const Onnx__TensorProto *t) {
    if (!t->has_data_type)
        imp_fail(c, "tensor '%s' has no data type", v->name);
    imp_check_dtype(c, t->data_type, "tensor", v->name);
    if (t->n_dims > IMP_MAX_RANK)
        imp_fail(c, "tensor '%s' has rank %zu (at most %d)", v->name, t->n_dims,
                 IMP_MAX_RANK);
    v->dtype = t->data_type;
    v->rank = (int)t->n_dims;
    v->tensor = t;
    int64_t n = 1;
    for (size_t i = 0; i < t->n_dims; i++) {
        if (t->dims[i] < 0 || t->dims[i] > (1LL << 40))
            imp_fail(c, "tensor '%s' has dimension %lld", v->name,
                     (long long)t->dims[i]);
        v->dims[i] = t->dims[i];
        n = n > (1LL << 40) ? n : n * t->dims[i];
    }
    if (n > (1LL << 40))
        imp_fail(c, "tensor '%s' is too large", v->name);
    bool external =
        t->has_data_location &&
        t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL;
    if (!external && n <= IMP_FOLD_LIMIT)
        imp_tensor_data(c, v, t, n);
}

/* --- attributes ----------------------------------------------------- */

const Onnx__AttributeProto *imp_attr(const imp_node *n, const char *name) {
    for (size_t i = 0; i < n->p->n_attribute; i++)
        if (n->p->attribute[i]->name &&
            strcmp(n->p->attribute[i]->name, name) == 0)
            return n->p->attribute[i];
    return NULL;
}

int64_t imp_attr_i(const imp_node *n, const char *name, int64_t def) {
    const Onnx__AttributeProto *a = imp_attr(n, name);
    return a && a->has_i ? a->i : def;
}

float imp_attr_f(const imp_node *n, const char *name, float def) {
    const Onnx__AttributeProto *a = imp_attr(n, name);
    return a && a->has_f ? a->f : def;
}

const char *imp_attr_s(imp_ctx *c, const imp_node *n, const char *name,
                       const char *def) {
    const Onnx__AttributeProto *a = imp_attr(n, name);
    if (!a || !a->has_s)
        return def;
    char *s = imp_alloc(c, a->s.len + 1);
    memcpy(s, a->s.data, a->s.len);
    for (size_t i = 0; i < a->s.len; i++)
        if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f ||
            s[i] == '"' || s[i] == '\\')
            s[i] = '?';
    return s;
}

int imp_attr_ints(const imp_node *n, const char *name, const int64_t **v) {
    const Onnx__AttributeProto *a = imp_attr(n, name);
    if (!a || (a->n_ints == 0 &&
               a->type != ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS))
        return -1;
    *v = a->ints;
    return (int)a->n_ints;
}

/* --- graph ---------------------------------------------------------- */

static const imp_binding *imp_binding_of(imp_ctx *c, const char *name) {
    for (size_t i = 0; i < c->opt->n_inputs; i++)
        if (strcmp(c->opt->inputs[i].name, name) == 0)
            return &c->opt->inputs[i];
    return NULL;
}

/* "--input x=D0,3,224,224": the option to add for an unbound input. */
static const char *imp_binding_hint(imp_ctx *c, const char *name,
                                    const Onnx__TensorShapeProto *s) {
    imp_buf b = {0};
    imp_printf(&b, "--input %s=", name);
    for (size_t i = 0; i < s->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
        if (d->value_case ==
                ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            d->dim_value > 0)
            imp_printf(&b, "%s%lld", i ? "," : "", (long long)d->dim_value);
        else
            imp_printf(&b, "%sD%zu", i ? "," : "", i);
    }
    const char *r = imp_strdup(c, base_sb_str(&b));
    imp_buf_free(&b);
    return r;
}

/* "('batch')", "(size 0)" or "(no size)": how the model gives a dim. */
static const char *imp_dim_symbol(imp_ctx *c,
                                  const Onnx__TensorShapeProto__Dimension *d) {
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_PARAM)
        return imp_fmt(c, "('%s')", imp_printable(c, d->dim_param));
    if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
        return imp_fmt(c, "(size %lld)", (long long)d->dim_value);
    return "(no size)";
}

static void imp_bind_input(imp_ctx *c, imp_value *v,
                           const Onnx__TensorShapeProto *s) {
    const imp_binding *b = imp_binding_of(c, v->name);
    if (!s && !b)
        imp_fail(c,
                 "input '%s' has no shape: give it with --input %s=D0,D1,...",
                 v->name, v->name);
    if (b && s && (size_t)b->rank != s->n_dim)
        imp_fail(
            c,
            "--input %s gives %d dim%s but the input has rank %zu; give all "
            "%zu: %s",
            v->name, b->rank, b->rank == 1 ? "" : "s", s->n_dim, s->n_dim,
            imp_binding_hint(c, v->name, s));
    if (!s) {
        v->rank = b->rank;
        memcpy(v->dims, b->dims, sizeof v->dims);
        return;
    }
    if (s->n_dim > IMP_MAX_RANK)
        imp_fail(c, "input '%s' has rank %zu (at most %d)", v->name, s->n_dim,
                 IMP_MAX_RANK);
    v->rank = (int)s->n_dim;
    for (size_t i = 0; i < s->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
        bool fixed = d->value_case ==
                         ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                     d->dim_value > 0;
        if (b && fixed && b->dims[i] != d->dim_value)
            imp_fail(c,
                     "--input %s gives dimension %zu as %lld but the model "
                     "fixes it to %lld",
                     v->name, i, (long long)b->dims[i],
                     (long long)d->dim_value);
        if (!b && !fixed)
            imp_fail(c,
                     "input '%s': dimension %zu %s is not fixed; bind it "
                     "with %s",
                     v->name, i, imp_dim_symbol(c, d),
                     imp_binding_hint(c, v->name, s));
        v->dims[i] = b ? b->dims[i] : d->dim_value;
    }
}

static bool imp_is_initializer(const Onnx__GraphProto *g, const char *name) {
    for (size_t i = 0; i < g->n_initializer; i++)
        if (g->initializer[i]->name && !strcmp(g->initializer[i]->name, name))
            return true;
    return false;
}

/* An --input NAME the graph has no input of: the error lists its inputs
 * (the first 8, initializers left out) so that a misspelling shows. */
_Noreturn static void imp_no_such_input(imp_ctx *c, const char *name) {
    const Onnx__GraphProto *g = c->g;
    imp_buf b = {0};
    int n = 0;
    for (size_t j = 0; j < g->n_input; j++) {
        const char *in = g->input[j]->name ? g->input[j]->name : "";
        if (imp_is_initializer(g, in))
            continue;
        if (n++ < 8)
            imp_printf(&b, "%s'%s'", n > 1 ? ", " : "", imp_printable(c, in));
    }
    if (n > 8)
        imp_printf(&b, ", ... (%d in all)", n);
    const char *list = imp_strdup(c, n ? base_sb_str(&b) : "none");
    imp_buf_free(&b);
    imp_fail(c,
             "--input %s: the graph has no input of that name (its inputs: %s)",
             imp_printable(c, name), list);
}

static void imp_read_inputs(imp_ctx *c) {
    const Onnx__GraphProto *g = c->g;
    for (size_t i = 0; i < c->opt->n_inputs; i++) {
        const char *name = c->opt->inputs[i].name;
        size_t j = 0;
        while (j < g->n_input &&
               strcmp(g->input[j]->name ? g->input[j]->name : "", name) != 0)
            j++;
        if (j == g->n_input)
            imp_no_such_input(c, name);
        if (imp_is_initializer(g, name))
            imp_fail(c,
                     "--input %s: '%s' is an initializer (a weight), "
                     "not an input: its shape is fixed",
                     imp_printable(c, name), imp_printable(c, name));
    }
    for (size_t i = 0; i < g->n_initializer; i++) {
        const Onnx__TensorProto *t = g->initializer[i];
        if (!t->name || !*t->name)
            imp_fail(c, "initializer %zu has no name", i);
        imp_value *v = imp_value_get(c, t->name);
        if (v->kind != IMP_V_UNDEF)
            imp_fail(c, "initializer '%s' is given twice", t->name);
        v->kind = IMP_V_CONST;
        imp_tensor_value(c, v, t);
    }
    for (size_t i = 0; i < g->n_input; i++) {
        const Onnx__ValueInfoProto *vi = g->input[i];
        if (!vi->name || !*vi->name)
            imp_fail(c, "graph input %zu has no name", i);
        imp_value *v = imp_value_get(c, vi->name);
        if (v->kind == IMP_V_CONST)
            continue; /* an initializer listed as input (IR < 4) */
        if (v->kind != IMP_V_UNDEF)
            imp_fail(c, "graph input '%s' is given twice", vi->name);
        const Onnx__TypeProto *tp = vi->type;
        if (!tp || tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE ||
            !tp->tensor_type->has_elem_type)
            imp_fail(c,
                     "input '%s' is not a tensor: sequences, maps and "
                     "optionals are not supported",
                     vi->name);
        v->kind = IMP_V_INPUT;
        v->dtype = tp->tensor_type->elem_type;
        imp_check_dtype(c, v->dtype, "input", vi->name);
        imp_bind_input(c, v, tp->tensor_type->shape);
    }
}

static bool imp_default_domain(const char *d) {
    return !d || !*d || strcmp(d, "ai.onnx") == 0;
}

static void imp_read_node(imp_ctx *c, int k) {
    const Onnx__NodeProto *p = c->g->node[k];
    imp_node *n = &c->nodes[k];
    n->p = p;
    n->op = p->op_type ? p->op_type : "";
    n->name = p->name && *p->name            ? p->name
              : p->n_output && *p->output[0] ? p->output[0]
                                             : "";
    n->inplace_in = -1;
    c->cur = k;
    if (!imp_default_domain(p->domain))
        imp_fail(c, "operator '%s' of domain '%s' is not supported", n->op,
                 p->domain);
    if (!strcmp(n->op, "If") || !strcmp(n->op, "Loop") ||
        !strcmp(n->op, "Scan"))
        imp_fail(c,
                 "control flow (%s) is not supported: export the model "
                 "with the branch or loop unrolled",
                 n->op);
    n->info = imp_op_find(n->op);
    if (!n->info)
        imp_fail(c,
                 "operator '%s' (domain ai.onnx, opset %lld) is not "
                 "supported",
                 n->op, (long long)c->opset);
    if ((int)p->n_input < n->info->min_in || (int)p->n_input > n->info->max_in)
        imp_fail(c, "%zu inputs (expected %d to %d)", p->n_input,
                 n->info->min_in, n->info->max_in);
    n->nin = (int)p->n_input;
    n->nout = (int)p->n_output;
    n->in = imp_alloc(c, (size_t)(n->nin + 1) * sizeof(int));
    n->out = imp_alloc(c, (size_t)(n->nout + 1) * sizeof(int));
    for (int i = 0; i < n->nin; i++) {
        n->in[i] = -1;
        if (!*p->input[i])
            continue;
        imp_value *v = imp_find(c, p->input[i]);
        if (!v || v->kind == IMP_V_UNDEF)
            imp_fail(c,
                     "input '%s' is not a graph input, an initializer or "
                     "the output of an earlier node",
                     p->input[i]);
        n->in[i] = (int)(v - c->vals);
    }
    for (int i = 0; i < n->nout; i++) {
        n->out[i] = -1;
        if (!*p->output[i])
            continue;
        imp_value *v = imp_value_get(c, p->output[i]);
        if (v->kind != IMP_V_UNDEF)
            imp_fail(c, "output '%s' is already defined", p->output[i]);
        v->kind = IMP_V_NODE;
        v->producer = k;
        n->out[i] = (int)(v - c->vals);
    }
    if (n->nout == 0 || n->out[0] < 0)
        imp_fail(c, "node has no first output");
    c->cur = -1;
}

static void imp_read_opset(imp_ctx *c) {
    const Onnx__ModelProto *m = c->model;
    c->opset = -1;
    for (size_t i = 0; i < m->n_opset_import; i++)
        if (imp_default_domain(m->opset_import[i]->domain))
            c->opset = m->opset_import[i]->version;
    if (c->opset < 0)
        imp_fail(c, "the model imports no opset of the default domain: "
                    "models of other domains only are not supported");
    if (c->opset < 7 || c->opset > 17)
        imp_fail(c,
                 "opset %lld of the default domain is not supported "
                 "(planwrap reads opsets 7 to 17)",
                 (long long)c->opset);
}

void imp_read(imp_ctx *c, const uint8_t *data, size_t len) {
    c->model = onnx__model_proto__unpack(NULL, len, data);
    if (!c->model)
        imp_fail(c, "not an ONNX model (the protobuf is truncated or "
                    "corrupt)");
    c->g = c->model->graph;
    if (!c->g)
        imp_fail(c, "not an ONNX model (it has no graph)");
    imp_read_opset(c);
    const Onnx__GraphProto *g = c->g;
    size_t nv = g->n_input + g->n_initializer + g->n_output + 1;
    for (size_t i = 0; i < g->n_node; i++)
        nv += g->node[i]->n_output;
    if (g->n_node > (1u << 24) || nv > (1u << 26))
        imp_fail(c, "the graph is too large");
    c->capvals = (int)nv;
    c->vals = imp_alloc(c, nv * sizeof *c->vals);
    for (c->hcap = 64; c->hcap < 2 * nv;)
        c->hcap *= 2;
    c->htab = imp_alloc(c, c->hcap * sizeof *c->htab);
    imp_read_inputs(c);
    c->nnodes = (int)g->n_node;
    c->nodes = imp_alloc(c, (g->n_node + 1) * sizeof *c->nodes);
    for (int k = 0; k < c->nnodes; k++)
        imp_read_node(c, k);
    if (g->n_output == 0)
        imp_fail(c, "the graph has no outputs");
    for (size_t i = 0; i < g->n_output; i++) {
        const char *name = g->output[i]->name ? g->output[i]->name : "";
        imp_value *v = imp_find(c, name);
        if (!v || v->kind == IMP_V_UNDEF)
            imp_fail(c, "graph output '%s' is not defined", name);
        if (v->is_output)
            imp_fail(c, "graph output '%s' is listed twice", name);
        v->is_output = true;
    }
}

/* value_info and typed graph outputs must agree with the inferred types. */
static void imp_check_info(imp_ctx *c, const Onnx__ValueInfoProto *vi) {
    imp_value *v = vi->name ? imp_find(c, vi->name) : NULL;
    const Onnx__TypeProto *tp = vi->type;
    if (!v || v->kind == IMP_V_UNDEF || !tp ||
        tp->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
        return;
    const Onnx__TypeProto__Tensor *tt = tp->tensor_type;
    c->cur = v->producer;
    if (tt->has_elem_type && tt->elem_type != v->dtype)
        imp_fail(c, "value_info says '%s' is %s but it is %s", v->name,
                 imp_onnx_dtype_name(tt->elem_type),
                 imp_onnx_dtype_name(v->dtype));
    const Onnx__TensorShapeProto *s = tt->shape;
    if (s && (int)s->n_dim != v->rank)
        imp_fail(c, "value_info says '%s' has rank %zu but it has rank %d",
                 v->name, s->n_dim, v->rank);
    for (size_t i = 0; s && i < s->n_dim; i++) {
        const Onnx__TensorShapeProto__Dimension *d = s->dim[i];
        if (d->value_case ==
                ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
            d->dim_value > 0 && d->dim_value != v->dims[i])
            imp_fail(c,
                     "value_info says dimension %zu of '%s' is %lld but it "
                     "is %lld",
                     i, v->name, (long long)d->dim_value,
                     (long long)v->dims[i]);
    }
    c->cur = -1;
}

void imp_check_value_info(imp_ctx *c) {
    for (size_t i = 0; i < c->g->n_value_info; i++)
        imp_check_info(c, c->g->value_info[i]);
    for (size_t i = 0; i < c->g->n_output; i++)
        imp_check_info(c, c->g->output[i]);
}

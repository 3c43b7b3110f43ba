/*
 * tests/import/sweep.c - the libonnx-testdata sweep.  For every model
 * under DATA/FOLDER/TEST/model.onnx: graph inputs are bound to the dims
 * of test_data_set_0/input_N.pb, the model is imported, the IR must check
 * clean, and every graph output must have the dtype and dims of
 * output_N.pb.  A model planwrap refuses must be refused for a reason of
 * the documented kinds (unsupported operator, data type, opset, ...);
 * any other error, a check error or a wrong output type fails the test.
 * Prints supported/total per folder.
 *
 * usage: import_sweep DATA_DIR [FOLDER...]
 */
#include "import/import.h"
#include "ir/ir.h"
#include "onnx.pb-c.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const onnx_to_ir[17] = {
    NULL,   "f32", "u8",  "i8", NULL, "i16", "i32", "i64",  NULL,
    "bool", "f16", "f64", NULL, NULL, NULL,  NULL,  "bf16",
};

/* Refusals that are documented limitations, not bugs. */
static const char *const refusals[] = {
    "not supported", "cannot express", "must be a constant",
    "is not fixed",  "has no shape",
};

static uint8_t *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = malloc(n > 0 ? (size_t)n : 1);
    *len = b ? fread(b, 1, (size_t)n, f) : 0;
    fclose(f);
    return b;
}

static Onnx__TensorProto *load_tensor(const char *dir, const char *kind,
                                      int i) {
    char path[16384];
    snprintf(path, sizeof path, "%s/test_data_set_0/%s_%d.pb", dir, kind, i);
    size_t len;
    uint8_t *b = slurp(path, &len);
    if (!b)
        return NULL;
    Onnx__TensorProto *t = onnx__tensor_proto__unpack(NULL, len, b);
    free(b);
    return t;
}

/* Binds every non-initializer input to its input_N.pb's dims. */
static size_t bind_inputs(const char *dir, const Onnx__ModelProto *m,
                          imp_binding *b) {
    const Onnx__GraphProto *g = m->graph;
    size_t nb = 0;
    int k = 0;
    for (size_t i = 0; g && i < g->n_input && nb < 64; i++) {
        bool init = false;
        for (size_t j = 0; j < g->n_initializer; j++)
            init |= !strcmp(g->initializer[j]->name, g->input[i]->name);
        if (init)
            continue;
        Onnx__TensorProto *t = load_tensor(dir, "input", k++);
        if (!t)
            continue;
        const Onnx__TypeProto *tp = g->input[i]->type;
        bool fixed = tp &&
                     tp->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
                     tp->tensor_type->shape;
        for (size_t d = 0; fixed && d < tp->tensor_type->shape->n_dim; d++)
            fixed = tp->tensor_type->shape->dim[d]->value_case ==
                        ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
                    tp->tensor_type->shape->dim[d]->dim_value > 0;
        if (fixed) { /* bind only what the model leaves open */
            onnx__tensor_proto__free_unpacked(t, NULL);
            continue;
        }
        if (t->n_dims <= IMP_MAX_RANK) {
            b[nb].name = g->input[i]->name;
            b[nb].rank = (int)t->n_dims;
            for (size_t d = 0; d < t->n_dims; d++)
                b[nb].dims[d] = t->dims[d];
            nb++;
        }
        onnx__tensor_proto__free_unpacked(t, NULL);
    }
    return nb;
}

/* Checks the IR and compares its outputs with output_N.pb; 0 when fine. */
static int verify(const char *dir, const char *text, size_t len) {
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(stderr, 5);
    ir_program *p = ir_parse(a, dir, text, len, d);
    int bad = 0;
    if (!p || !ir_check(p, d)) {
        fprintf(stderr, "%s: the imported IR does not check\n", dir);
        bad = 1;
    }
    for (uint32_t i = 0;
         !bad && p->output_stmt >= 0 && i < p->stmts[p->output_stmt].nnames;
         i++) {
        const ir_value *v = &p->values[p->stmts[p->output_stmt].name_values[i]];
        Onnx__TensorProto *t = load_tensor(dir, "output", (int)i);
        if (!t)
            continue; /* no expected tensor (a sequence, ...) */
        /* bfloat16 test tensors are stored as UINT16 bits */
        int dt = t->data_type == 4 ? 16 : t->data_type;
        const char *want = dt >= 0 && dt < 17 ? onnx_to_ir[dt] : NULL;
        bool same = want && !strcmp(want, ir_dtype_name(v->dtype)) &&
                    t->n_dims == v->ndim;
        for (uint32_t k = 0; same && k < v->ndim; k++)
            same = (uint64_t)t->dims[k] == v->dims[k];
        if (!same) {
            fprintf(stderr, "%s: output %u '%s' is %s[", dir, i, v->name,
                    ir_dtype_name(v->dtype));
            for (uint32_t k = 0; k < v->ndim; k++)
                fprintf(stderr, "%s%llu", k ? "," : "",
                        (unsigned long long)v->dims[k]);
            fprintf(stderr, "] but the expected output is %s with %zu dims\n",
                    want ? want : "?", t->n_dims);
            bad = 1;
        }
        onnx__tensor_proto__free_unpacked(t, NULL);
    }
    base_diag_free(d);
    base_arena_free(a);
    return bad;
}

/* 0 imported and verified, 1 refused for a documented reason, 2 failed. */
static int one_model(const char *dir, bool verbose) {
    char path[16384];
    snprintf(path, sizeof path, "%s/model.onnx", dir);
    size_t len;
    uint8_t *data = slurp(path, &len);
    if (!data)
        return -1;
    Onnx__ModelProto *m = onnx__model_proto__unpack(NULL, len, data);
    imp_binding b[64];
    imp_options o;
    imp_options_init(&o);
    o.inputs = b;
    o.n_inputs = m ? bind_inputs(dir, m, b) : 0;
    char *err = NULL;
    size_t tlen = 0;
    char *text = imp_import(path, data, len, &o, &tlen, &err);
    int r = 0;
    if (!text) {
        r = 2;
        for (size_t i = 0; i < sizeof refusals / sizeof *refusals; i++)
            if (strstr(err, refusals[i]))
                r = 1;
        if (r == 2 || verbose)
            fprintf(stderr, "%s%s: error: %s\n", r == 2 ? "UNEXPECTED: " : "",
                    path, err);
    } else if (verify(dir, text, tlen)) {
        r = 2;
    }
    free(err);
    free(text);
    if (m)
        onnx__model_proto__free_unpacked(m, NULL);
    free(data);
    return r;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int sweep_folder(const char *root, const char *folder, bool verbose) {
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/%s", root, folder);
    DIR *dp = opendir(dir);
    if (!dp) {
        printf("%-18s missing\n", folder);
        return 0;
    }
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(dp)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        names = realloc(names, (n + 1) * sizeof *names);
        names[n++] = strdup(e->d_name);
    }
    closedir(dp);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    int counts[3] = {0}, total = 0;
    for (size_t i = 0; i < n; i++) {
        char sub[8192];
        snprintf(sub, sizeof sub, "%s/%s", dir, names[i]);
        int r = one_model(sub, verbose);
        if (r >= 0) {
            counts[r]++;
            total++;
        }
        free(names[i]);
    }
    free(names);
    printf("%-18s supported %d/%d, refused %d, failed %d\n", folder, counts[0],
           total, counts[1], counts[2]);
    return counts[2];
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: import_sweep DATA_DIR [FOLDER...]\n");
        return 2;
    }
    static const char *const folders[] = {"node", "pytorch-converted",
                                          "pytorch-operator", "simple"};
    bool verbose = getenv("PW_SWEEP_VERBOSE") != NULL;
    int failed = 0;
    if (argc > 2)
        for (int i = 2; i < argc; i++)
            failed += sweep_folder(argv[1], argv[i], verbose);
    else
        for (size_t i = 0; i < sizeof folders / sizeof *folders; i++)
            failed += sweep_folder(argv[1], folders[i], verbose);
    return failed ? 1 : 0;
}

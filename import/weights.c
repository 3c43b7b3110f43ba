/*
 * import/weights.c - `planwrap import --weights FILE.bin`: the bytes of
 * every const, streamed to the weights file as the consts are declared
 * (declaration order), each at an offset aligned to IMP_WEIGHTS_ALIGN,
 * little-endian as ONNX's raw_data.  Sources: an initializer's or a
 * Constant's raw_data (written as it is), its typed fields (float_data,
 * int32_data, ...; converted IMP_WCHUNK bytes at a time), its external
 * data file (copied IMP_WCHUNK bytes at a time), or the values of a small
 * Constant attribute or folded value.  Nothing is held whole twice: the
 * bytes go from the unpacked model (or the external file) to the stream.
 */
#define _FILE_OFFSET_BITS 64
#include "imp.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define IMP_WCHUNK 65536

static void imp_wput(imp_ctx *c, const void *p, size_t n) {
    if (n && fwrite(p, 1, n, c->opt->weights) != n)
        imp_fail(c, "cannot write the weights file: %s", strerror(errno));
    c->wpos += n;
}

/* Zero bytes up to the next aligned offset. */
static void imp_wpad(imp_ctx *c) {
    static const unsigned char zero[IMP_WEIGHTS_ALIGN];
    size_t r = (size_t)(c->wpos % IMP_WEIGHTS_ALIGN);
    if (r)
        imp_wput(c, zero, IMP_WEIGHTS_ALIGN - r);
}

/* Element k of the typed field that holds t's values, as raw bits. */
static uint64_t imp_typed_bits(const Onnx__TensorProto *t, int dt, size_t k) {
    switch (dt) {
    case IMP_FLOAT: {
        uint32_t u;
        memcpy(&u, &t->float_data[k], sizeof u);
        return u;
    }
    case IMP_DOUBLE: {
        uint64_t u;
        memcpy(&u, &t->double_data[k], sizeof u);
        return u;
    }
    case IMP_INT64:
        return (uint64_t)t->int64_data[k];
    default: /* int32, int16, int8, uint8, bool, float16, bfloat16 */
        return (uint32_t)t->int32_data[k];
    }
}

static size_t imp_typed_count(const Onnx__TensorProto *t, int dt) {
    switch (dt) {
    case IMP_FLOAT:
        return t->n_float_data;
    case IMP_DOUBLE:
        return t->n_double_data;
    case IMP_INT64:
        return t->n_int64_data;
    default:
        return t->n_int32_data;
    }
}

/* Bits of element k of a Constant attribute's or folded value's data
 * (never float16 or bfloat16: imp_write_const refuses those). */
static uint64_t imp_value_bits(const imp_value *v, int64_t k) {
    switch (v->dtype) {
    case IMP_FLOAT: {
        float f = (float)v->fval[k];
        uint32_t u;
        memcpy(&u, &f, sizeof u);
        return u;
    }
    case IMP_DOUBLE: {
        uint64_t u;
        memcpy(&u, &v->fval[k], sizeof u);
        return u;
    }
    default:
        return (uint64_t)v->ival[k];
    }
}

/* n elements little-endian, from the typed fields of t (when t) or from
 * v's data, through a chunk buffer. */
static void imp_write_elems(imp_ctx *c, const imp_value *v,
                            const Onnx__TensorProto *t, int64_t n) {
    size_t size = imp_dtype_size(v->dtype);
    unsigned char *buf = malloc(IMP_WCHUNK);
    if (!buf)
        base_oom();
    size_t used = 0;
    for (int64_t k = 0; k < n; k++) {
        uint64_t u =
            t ? imp_typed_bits(t, v->dtype, (size_t)k) : imp_value_bits(v, k);
        for (size_t b = 0; b < size; b++)
            buf[used++] = (unsigned char)(u >> (8 * b));
        if (used + 8 > IMP_WCHUNK || k + 1 == n) {
            if (fwrite(buf, 1, used, c->opt->weights) != used) {
                free(buf);
                imp_fail(c, "cannot write the weights file: %s",
                         strerror(errno));
            }
            c->wpos += used;
            used = 0;
        }
    }
    free(buf);
}

static const char *imp_ext_key(const Onnx__TensorProto *t, const char *key) {
    for (size_t i = 0; i < t->n_external_data; i++)
        if (t->external_data[i]->key &&
            strcmp(t->external_data[i]->key, key) == 0)
            return t->external_data[i]->value ? t->external_data[i]->value : "";
    return NULL;
}

/* A non-negative decimal integer of the external data's keys, or -1. */
static int64_t imp_ext_int(const char *s) {
    char *end = NULL;
    errno = 0;
    long long x = strtoll(s, &end, 10);
    return errno || end == s || *end || x < 0 ? -1 : x;
}

/* The external data file of v, opened at its offset; checks its keys. */
static FILE *imp_ext_open(imp_ctx *c, const imp_value *v,
                          const Onnx__TensorProto *t, uint64_t bytes) {
    const char *loc = imp_ext_key(t, "location");
    const char *off = imp_ext_key(t, "offset");
    const char *len = imp_ext_key(t, "length");
    if (!loc || !*loc)
        imp_fail(c, "initializer '%s' is external data without a location",
                 v->name);
    if (!c->opt->data_dir)
        imp_fail(c,
                 "initializer '%s' is stored in external data ('%s'): read "
                 "the model from a file, not standard input",
                 v->name, imp_printable(c, loc));
    if (loc[0] == '/' || !strcmp(loc, "..") || !strncmp(loc, "../", 3) ||
        strstr(loc, "/../") ||
        (strlen(loc) >= 3 && !strcmp(loc + strlen(loc) - 3, "/..")))
        imp_fail(c,
                 "initializer '%s': external data location '%s' is outside "
                 "the model's folder",
                 v->name, imp_printable(c, loc));
    int64_t at = off ? imp_ext_int(off) : 0;
    int64_t n = len ? imp_ext_int(len) : (int64_t)bytes;
    if (at < 0 || n < 0)
        imp_fail(c,
                 "initializer '%s': external data offset or length is "
                 "not a number",
                 v->name);
    if ((uint64_t)n != bytes)
        imp_fail(c,
                 "initializer '%s': external data length %lld but its type "
                 "needs %llu bytes",
                 v->name, (long long)n, (unsigned long long)bytes);
    const char *path = imp_fmt(c, "%s/%s", c->opt->data_dir, loc);
    FILE *f = fopen(path, "rb");
    if (!f || fseeko(f, (off_t)at, SEEK_SET) != 0) {
        int e = errno;
        if (f)
            fclose(f);
        imp_fail(c, "initializer '%s': cannot read external data file %s: %s",
                 v->name, imp_printable(c, path), strerror(e));
    }
    return f;
}

static void imp_write_external(imp_ctx *c, const imp_value *v,
                               const Onnx__TensorProto *t, uint64_t bytes) {
    FILE *f = imp_ext_open(c, v, t, bytes);
    unsigned char *buf = malloc(IMP_WCHUNK);
    if (!buf)
        base_oom();
    uint64_t done = 0;
    while (done < bytes) {
        size_t want = bytes - done < IMP_WCHUNK ? (size_t)(bytes - done)
                                                : (size_t)IMP_WCHUNK;
        size_t got = fread(buf, 1, want, f);
        bool wrote = got && fwrite(buf, 1, got, c->opt->weights) == got;
        done += got;
        if (got != want || !wrote) {
            free(buf);
            fclose(f);
            if (!wrote && got)
                imp_fail(c, "cannot write the weights file: %s",
                         strerror(errno));
            imp_fail(c,
                     "initializer '%s': its external data file ends before "
                     "its %llu bytes",
                     v->name, (unsigned long long)bytes);
        }
    }
    c->wpos += bytes;
    free(buf);
    fclose(f);
}

static uint64_t imp_write_const(imp_ctx *c, const imp_value *v) {
    imp_wpad(c);
    uint64_t at = c->wpos;
    int64_t n = imp_numel(v);
    uint64_t bytes = (uint64_t)n * imp_dtype_size(v->dtype);
    const Onnx__TensorProto *t = v->tensor;
    if (t && t->has_data_location &&
        t->data_location == ONNX__TENSOR_PROTO__DATA_LOCATION__EXTERNAL) {
        imp_write_external(c, v, t, bytes);
    } else if (t && t->has_raw_data) {
        if (t->raw_data.len != bytes)
            imp_fail(c,
                     "tensor '%s' has %zu bytes of data but its type needs "
                     "%llu",
                     v->name, t->raw_data.len, (unsigned long long)bytes);
        imp_wput(c, t->raw_data.data, t->raw_data.len);
    } else if (t && imp_typed_count(t, v->dtype) == (size_t)n) {
        imp_write_elems(c, v, t, n);
    } else if (!t && v->has_data) {
        if (v->dtype == IMP_FLOAT16 || v->dtype == IMP_BFLOAT16)
            imp_fail(c,
                     "const '%s' (%s) was computed at import: planwrap "
                     "cannot write its bytes",
                     v->name, imp_onnx_dtype_name(v->dtype));
        imp_write_elems(c, v, NULL, n);
    } else {
        imp_fail(c, "const '%s' holds no data to write to the weights file",
                 v->name);
    }
    return at;
}

void imp_weights_decl(imp_ctx *c, const imp_value *v) {
    uint64_t at = imp_write_const(c, v);
    imp_printf(&c->body, " data=\"");
    for (const char *s = c->opt->weights_ref; *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == '"' || ch == '\\')
            imp_printf(&c->body, "\\%c", ch);
        else if (ch < 0x20 || ch >= 0x7f)
            imp_printf(&c->body, "\\x%02x", ch);
        else
            imp_printf(&c->body, "%c", ch);
    }
    imp_printf(&c->body, "\" at=%llu", (unsigned long long)at);
}

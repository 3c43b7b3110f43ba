/*
 * codegen/shared.c - static pools shared by several models
 * (`gen A.pw B.pw --shared-pools`, docs/firmware.md).
 *
 * A shared pool stands for every model pool of the same field name (the
 * pool's device, space, comm group and kind, as named by the view): its
 * size and alignment are the largest of those pools.  Each model's
 * run_static points its pools at the shared arrays; the models run one
 * at a time.  Order: pools in order of first appearance over the models
 * in command-line order (deterministic).
 */
#include "codegen/codegen.h"
#include "base/base.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct cg_shared_pool {
    const char *field;
    uint64_t size, align;
    json_t *row_models; /* "A 512, B 1024" as it grows */
} cg_shared_pool;

static uint64_t cg_ju64(const json_t *o, const char *key) {
    json_int_t v = json_integer_value(json_object_get(o, key));
    return v > 0 ? (uint64_t)v : 0;
}

static void cg_upper(char *dst, size_t len, const char *src) {
    size_t k = 0;
    for (; *src && k + 1 < len; src++)
        dst[k++] = (char)toupper((unsigned char)*src);
    dst[k] = '\0';
}

/* Adds the shared keys to one pool entry of a model view. */
static void cg_shared_pool_keys(json_t *pool, const char *M,
                                const char *field) {
    char up[600], buf[1400];
    cg_upper(up, sizeof up, field);
    snprintf(buf, sizeof buf, "%s_pool_%s", CG_SHARED_NAME, field);
    json_object_set_new(pool, "shared_name", json_string(buf));
    snprintf(buf, sizeof buf, "PLANWRAP_SHARED_POOL_%s_SIZE", up);
    json_object_set_new(pool, "shared_size_macro", json_string(buf));
    snprintf(buf, sizeof buf, "PLANWRAP_SHARED_POOL_%s_ALIGN", up);
    json_object_set_new(pool, "shared_align_macro", json_string(buf));
    snprintf(buf, sizeof buf, "%s_fits_shared_pool_%s", M, field);
    json_object_set_new(pool, "shared_assert_id", json_string(buf));
}

static json_t *cg_shared_pool_json(const cg_shared_pool *sp) {
    char up[600], buf[1400];
    cg_upper(up, sizeof up, sp->field);
    json_t *o = json_object();
    snprintf(buf, sizeof buf, "%s_pool_%s", CG_SHARED_NAME, sp->field);
    json_object_set_new(o, "name", json_string(buf));
    json_object_set_new(o, "field", json_string(sp->field));
    snprintf(buf, sizeof buf, "PLANWRAP_SHARED_POOL_%s_SIZE", up);
    json_object_set_new(o, "size_macro", json_string(buf));
    snprintf(buf, sizeof buf, "PLANWRAP_SHARED_POOL_%s_ALIGN", up);
    json_object_set_new(o, "align_macro", json_string(buf));
    snprintf(buf, sizeof buf, "PLANWRAP_SHARED_POOL_%s_ATTR", up);
    json_object_set_new(o, "attr_macro", json_string(buf));
    json_object_set_new(o, "size", json_integer((json_int_t)sp->size));
    json_object_set_new(o, "align", json_integer((json_int_t)sp->align));
    json_object_set_new(o, "models", json_incref(sp->row_models));
    return o;
}

json_t *cg_shared_view(json_t *const *views, size_t n) {
    size_t cap = 0, np = 0;
    for (size_t i = 0; i < n; i++)
        cap += json_array_size(json_object_get(views[i], "pools"));
    cg_shared_pool *sp = base_xcalloc(cap + 1, sizeof *sp);
    json_t *models = json_array();
    for (size_t i = 0; i < n; i++) {
        const char *M = json_string_value(json_object_get(views[i], "model"));
        json_t *m = json_object();
        json_object_set_new(m, "name", json_string(M ? M : ""));
        json_object_set_new(m, "last", json_boolean(i + 1 == n));
        json_array_append_new(models, m);
        size_t k;
        json_t *pool;
        json_object_set_new(views[i], "shared_pools", json_true());
        json_object_set_new(views[i], "shared_header",
                            json_string(CG_SHARED_NAME ".h"));
        json_array_foreach(json_object_get(views[i], "pools"), k, pool) {
            const char *field =
                json_string_value(json_object_get(pool, "field"));
            size_t j = 0;
            while (j < np && strcmp(sp[j].field, field) != 0)
                j++;
            if (j == np) {
                sp[np].field = field;
                sp[np].row_models = json_array();
                np++;
            }
            uint64_t size = cg_ju64(pool, "size"),
                     align = cg_ju64(pool, "align");
            if (size > sp[j].size)
                sp[j].size = size;
            if (align > sp[j].align)
                sp[j].align = align;
            json_t *e = json_object();
            json_object_set_new(e, "model", json_string(M ? M : ""));
            json_object_set_new(e, "size", json_integer((json_int_t)size));
            json_array_append_new(sp[j].row_models, e);
            cg_shared_pool_keys(pool, M ? M : "", field);
        }
    }
    json_t *view = json_object();
    json_object_set_new(view, "model", json_string(CG_SHARED_NAME));
    json_t *version = n ? json_object_get(views[0], "planwrap_version") : NULL;
    json_object_set_new(view, "planwrap_version",
                        version ? json_incref(version) : json_string(""));
    json_object_set_new(view, "models", models);
    json_t *pools = json_array();
    uint64_t total = 0;
    for (size_t j = 0; j < np; j++) {
        json_array_append_new(pools, cg_shared_pool_json(&sp[j]));
        uint64_t max = (uint64_t)INT64_MAX;
        total = total > max - sp[j].size ? max : total + sp[j].size;
        json_decref(sp[j].row_models);
    }
    json_object_set_new(view, "pools", pools);
    json_object_set_new(view, "has_pools", json_boolean(np > 0));
    json_object_set_new(view, "static_bytes", json_integer((json_int_t)total));
    free(sp);
    return view;
}

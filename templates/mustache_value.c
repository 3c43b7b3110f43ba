/*
 * templates/mustache_value.c - the data interface (mustache.h): native
 * objects and lists built in the caller's arena, the jansson adapter, and
 * native data as a jansson document (`plan --emit view`).
 */
#include "mustache_internal.h"

#include <string.h>

mst_val mst_v_list(base_arena *a) {
    mst_val v = {.type = MST_LIST};
    v.u.list =
        base_arena_alloc_aligned(a, sizeof *v.u.list, _Alignof(mst_list));
    return v;
}

void mst_v_append(base_arena *a, mst_val l, mst_val val) {
    PW_ASSERT(l.type == MST_LIST);
    mst_list *li = l.u.list;
    mst_item *it = base_arena_alloc_aligned(a, sizeof *it, _Alignof(mst_item));
    it->v = val;
    if (li->tail)
        li->tail->next = it;
    else
        li->head = it;
    li->tail = it;
    li->n++;
}

mst_val mst_v_json(json_t *j) {
    mst_val v = {.type = MST_MISSING};
    if (!j)
        return v;
    switch (json_typeof(j)) {
    case JSON_STRING:
        if (json_string_length(j) <= UINT32_MAX)
            return mst_v_str(json_string_value(j), json_string_length(j));
        v.type = MST_JSON; /* read through jansson */
        v.u.json = j;
        return v;
    case JSON_INTEGER:
        return mst_v_int(json_integer_value(j));
    case JSON_REAL:
        v.type = MST_REAL;
        v.u.d = json_real_value(j);
        return v;
    case JSON_TRUE:
        return mst_v_bool(true);
    case JSON_FALSE:
        return mst_v_bool(false);
    case JSON_NULL:
        return mst_v_null();
    default:
        v.type = MST_JSON;
        v.u.json = j;
        return v;
    }
}

mst_val mst_v_get(mst_val o, const char *k, size_t kn) {
    if (o.type == MST_JSON)
        return mst_v_json(json_object_getn(o.u.json, k, kn));
    mst_val none = {.type = MST_MISSING};
    if (o.type != MST_OBJECT)
        return none;
    uint64_t h = key_hash(k, kn);
    uint32_t mx = key_mix(h, kn);
    mst_part p = {k, kn, h, mst_key_tail(k, kn), mx, mst_key_bits(mx)};
    const mst_field *f = mst_obj_find(o.u.obj, &p);
    return f ? f->v : none;
}

bool mst_v_next(mst_val l, const void **it, mst_val *out) {
    if (l.type == MST_JSON) {
        size_t i = (size_t)(uintptr_t)*it;
        if (i >= json_array_size(l.u.json))
            return false;
        *out = mst_v_json(json_array_get(l.u.json, i));
        *it = (const void *)(uintptr_t)(i + 1);
        return true;
    }
    if (l.type != MST_LIST)
        return false;
    const mst_item *n = *it ? ((const mst_item *)*it)->next : l.u.list->head;
    if (!n)
        return false;
    *out = n->v;
    *it = n;
    return true;
}

json_t *mst_v_to_json(mst_val v) {
    switch (v.type) {
    case MST_NULL:
        return json_null();
    case MST_FALSE:
        return json_false();
    case MST_TRUE:
        return json_true();
    case MST_INT:
        return json_integer((json_int_t)v.u.i);
    case MST_REAL:
        return json_real(v.u.d);
    case MST_STRING:
        return json_stringn_nocheck(v.u.s, v.n);
    case MST_LIST: {
        json_t *a = json_array();
        for (const mst_item *it = v.u.list->head; it; it = it->next)
            json_array_append_new(a, mst_v_to_json(it->v));
        return a;
    }
    case MST_OBJECT: {
        json_t *o = json_object();
        for (const mst_field *f = v.u.obj->head; f; f = f->next)
            json_object_setn_new_nocheck(o, f->k, f->kl, mst_v_to_json(f->v));
        return o;
    }
    case MST_JSON:
        return json_incref(v.u.json);
    default:
        return NULL;
    }
}

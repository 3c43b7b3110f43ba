/*
 * codegen/json_write.c - JSON text of a root object whose large lists are
 * built element by element (mst_lazy_list), written as it goes: the text
 * is byte for byte what json_dumps(JSON_INDENT(2)) gives for the document
 * with every list built in, but no more than one element exists at a
 * time (`plan --emit view` and `plan --emit plan-json`).
 */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Writes v as json_dumps(JSON_INDENT(2)) does, every line after the
 * first indented by `indent` more spaces (a raw newline in the text is
 * always layout: newlines in strings are escaped). */
static bool cg_json_value(FILE *f, const json_t *v, int indent) {
    char *s = json_dumps(v, JSON_INDENT(2) | JSON_ENCODE_ANY);
    if (!s)
        return false;
    for (const char *p = s; *p; p++) {
        fputc(*p, f);
        if (*p == '\n')
            fprintf(f, "%*s", indent, "");
    }
    free(s);
    return true;
}

static bool cg_json_tree(FILE *f, const json_t *v, int indent,
                         const mst_lazy_index *ix);

/* A lazy list as a value at depth `indent`. */
static bool cg_json_list(FILE *f, const mst_lazy_list *lz, int indent) {
    size_t n = lz->count(lz->ctx);
    if (n == 0) {
        fputs("[]", f);
        return true;
    }
    fputs("[\n", f);
    for (size_t i = 0; i < n; i++) {
        json_t *e = lz->element(lz->ctx, i);
        if (!e)
            return false;
        fprintf(f, "%*s", indent + 2, "");
        bool ok = cg_json_value(f, e, indent + 2);
        json_decref(e);
        if (!ok)
            return false;
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fprintf(f, "%*s]", indent, "");
    return true;
}

/* An object's key, as json_dumps writes it. */
static bool cg_json_key(FILE *f, const char *k, size_t n) {
    json_t *key = json_stringn_nocheck(k, n);
    if (!key)
        return false;
    bool ok = cg_json_value(f, key, 0);
    json_decref(key);
    return ok;
}

/* v at depth `indent` (its first line is already indented): a list
 * built on demand, or an object or array that may hold one, written
 * member by member; anything else by json_dumps. */
static bool cg_json_tree(FILE *f, const json_t *v, int indent,
                         const mst_lazy_index *ix) {
    const mst_lazy_list *lz = mst_lazy_index_find(ix, v);
    if (lz)
        return cg_json_list(f, lz, indent);
    if (json_is_object(v) && json_object_size(v) > 0) {
        fputs("{\n", f);
        bool first = true;
        /* the document's order: json_dumps iterates the same way */
        for (void *it = json_object_iter((json_t *)v); it;
             it = json_object_iter_next((json_t *)v, it)) {
            if (!first)
                fputs(",\n", f);
            first = false;
            fprintf(f, "%*s", indent + 2, "");
            if (!cg_json_key(f, json_object_iter_key(it),
                             json_object_iter_key_len(it)))
                return false;
            fputs(": ", f);
            if (!cg_json_tree(f, json_object_iter_value(it), indent + 2, ix))
                return false;
        }
        fprintf(f, "\n%*s}", indent, "");
        return true;
    }
    if (json_is_array(v) && json_array_size(v) > 0) {
        fputs("[\n", f);
        for (size_t i = 0, n = json_array_size(v); i < n; i++) {
            fprintf(f, "%*s", indent + 2, "");
            if (!cg_json_tree(f, json_array_get(v, i), indent + 2, ix))
                return false;
            fputs(i + 1 < n ? ",\n" : "\n", f);
        }
        fprintf(f, "%*s]", indent, "");
        return true;
    }
    return cg_json_value(f, v, indent);
}

bool cg_json_write(FILE *f, const json_t *root, const mst_lazy_list *lazy,
                   size_t nlazy) {
    mst_lazy_index *ix = mst_lazy_index_new(lazy, nlazy);
    bool ok = cg_json_tree(f, root, 0, ix);
    mst_lazy_index_free(ix);
    return ok && !ferror(f);
}

bool cg_view_write(const cg_view *v, FILE *f) {
    const mst_lazy_list *lazy;
    size_t n;
    cg_view_lists(v, &lazy, &n);
    return cg_json_write(f, cg_view_root(v), lazy, n);
}

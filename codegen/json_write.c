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

/* A lazy list as the value of a key of the root. */
static bool cg_json_list(FILE *f, const mst_lazy_list *lz) {
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
        fputs("    ", f);
        bool ok = cg_json_value(f, e, 4);
        json_decref(e);
        if (!ok)
            return false;
        fputs(i + 1 < n ? ",\n" : "\n", f);
    }
    fputs("  ]", f);
    return true;
}

bool cg_json_write(FILE *f, const json_t *root, const mst_lazy_list *lazy,
                   size_t nlazy) {
    if (json_object_size(root) == 0)
        return cg_json_value(f, root, 0);
    fputs("{\n", f);
    bool first = true;
    /* the document's order: json_dumps iterates the same way */
    for (void *it = json_object_iter((json_t *)root); it;
         it = json_object_iter_next((json_t *)root, it)) {
        const json_t *v = json_object_iter_value(it);
        json_t *key = json_stringn_nocheck(json_object_iter_key(it),
                                           json_object_iter_key_len(it));
        if (!key)
            return false;
        fputs(first ? "  " : ",\n  ", f);
        first = false;
        bool ok = cg_json_value(f, key, 2);
        json_decref(key);
        fputs(": ", f);
        const mst_lazy_list *lz = NULL;
        for (size_t i = 0; i < nlazy && !lz; i++)
            if (lazy[i].marker == v)
                lz = &lazy[i];
        ok = ok && (lz ? cg_json_list(f, lz) : cg_json_value(f, v, 2));
        if (!ok)
            return false;
    }
    fputs("\n}", f);
    return !ferror(f);
}

bool cg_view_write(const cg_view *v, FILE *f) {
    const mst_lazy_list *lazy;
    size_t n;
    cg_view_lists(v, &lazy, &n);
    return cg_json_write(f, cg_view_root(v), lazy, n);
}

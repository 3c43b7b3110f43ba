/*
 * codegen/view_keys.c - key sets (cg_view_options.keep).
 */
#include "view_internal.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Key sets (cg_view_options.keep): the names that `gen` with the
 * built-in templates can look up in the view, plus the keys the view
 * builder and gen read back themselves.  A view built with a key set
 * leaves out every other key (and its value). */

static void keyset_add(void *ctx, const char *k, size_t n) {
    cg_keyset *s = ctx;
    if (s->oom || keyset_has(s, k, n))
        return;
    cg_key *e = malloc(sizeof *e + n + 1);
    if (!e) {
        s->oom = true;
        return;
    }
    memcpy(e->name, k, n);
    e->name[n] = '\0';
    HASH_ADD(hh, s->head, name[0], n, e);
}

void cg_keyset_free(cg_keyset *s) {
    if (!s)
        return;
    cg_key *e, *tmp;
    HASH_ITER(hh, s->head, e, tmp) {
        HASH_DEL(s->head, e);
        free(e);
    }
    free(s);
}

/* Keys kept whatever the templates name: "model", which gen reads back
 * (the output file names), and the event kinds (cg_event() relies on them). */
static const char *const cg_keep_internal[] = {
    "model", "bind", "reuse", "alloc",  "alloc_output", "alias",
    "call",  "del",  "death", "output", "wait",
};

/* Keys of an element the view reads back while building it (the
 * firmware and CUDA-graph keys of a statement: cg_fw_stmt, cg_graphs_stmt):
 * kept whatever a section looks up. */
static const char *const cg_read_back[] = {"events", "name"};

bool cg_key_internal(const char *k, size_t n) {
    for (size_t i = 0; i < sizeof cg_keep_internal / sizeof *cg_keep_internal;
         i++)
        if (strlen(cg_keep_internal[i]) == n &&
            memcmp(cg_keep_internal[i], k, n) == 0)
            return true;
    for (size_t i = 0; i < sizeof cg_read_back / sizeof *cg_read_back; i++)
        if (strlen(cg_read_back[i]) == n && memcmp(cg_read_back[i], k, n) == 0)
            return true;
    return false;
}

cg_keyset *cg_builtin_keys(void) {
    cg_keyset *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < sizeof cg_keep_internal / sizeof *cg_keep_internal;
         i++)
        keyset_add(s, cg_keep_internal[i], strlen(cg_keep_internal[i]));
    for (size_t i = 0; !s->oom; i++) {
        const char *name = mst_builtin_name(i);
        if (!name)
            return s;
        size_t len = 0;
        const char *text = mst_builtin(name, &len);
        if (!text)
            break;
        mst_error err;
        mst_template *t = mst_compile(name, text, len, &err);
        if (!t)
            break;
        mst_template_names(t, keyset_add, s);
        mst_template_free(t);
    }
    cg_keyset_free(s);
    return NULL;
}

/*
 * codegen/gen_blocks.c - warnings for block overrides that override
 * nothing: a user template that extends a template ({{<builtin:c/model.c}})
 * and fills a block ({{$dell}}) the extended template does not declare.
 * The mustache spec renders such a block as nothing, so a typo would
 * silently keep the built-in's text.
 */
#include "codegen/codegen.h"
#include "templates/mustache.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct gb_block {
    const char *name, *parent;
    size_t len, plen;
    uint32_t line, col;
} gb_block;

typedef struct gb_list {
    gb_block *b;
    size_t n, cap;
} gb_list;

static void gb_add(void *ctx, const char *name, size_t len, const char *parent,
                   size_t plen, uint32_t line, uint32_t col) {
    gb_list *l = ctx;
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->b = base_xrealloc(l->b, l->cap * sizeof *l->b);
    }
    l->b[l->n++] = (gb_block){name, parent, len, plen, line, col};
}

/* The block names of template `parent` (every {{$NAME}} in it), sorted
 * and distinct, as NUL-terminated strings in *names (all in arena `a`);
 * false when it cannot be loaded or compiled (rendering reports that). */
static bool gb_parent_blocks(const mst_loader *l, const char *parent,
                             base_arena *a, char ***names, size_t *n) {
    size_t len = 0;
    char *text = l->load(l->ctx, parent, &len);
    if (!text)
        return false;
    mst_error err;
    mst_template *t = mst_compile(parent, text, len, &err);
    free(text);
    if (!t)
        return false;
    gb_list bl = {0};
    mst_template_blocks(t, gb_add, &bl);
    char **v = base_arena_array(a, bl.n + 1, sizeof *v);
    size_t k = 0;
    for (size_t i = 0; i < bl.n; i++)
        v[k++] = base_arena_strndup(a, bl.b[i].name, bl.b[i].len);
    qsort(v, k, sizeof *v, base_cmp_str);
    size_t m = 0;
    for (size_t i = 0; i < k; i++)
        if (!m || strcmp(v[m - 1], v[i]) != 0)
            v[m++] = v[i];
    free(bl.b);
    mst_template_free(t);
    *names = v;
    *n = m;
    return true;
}

/* Warns (to d) about the overrides of t (compiled from `source`) inside
 * parent `parent` (the blocks of bl that name it); strings in arena a. */
static void gb_check_parent(const mst_loader *l, const char *source,
                            const char *parent, const gb_list *bl,
                            base_arena *a, base_diag *d) {
    char **names = NULL;
    size_t n = 0;
    if (!gb_parent_blocks(l, parent, a, &names, &n))
        return;
    base_sb list = {0};
    for (size_t i = 0; i < n; i++)
        base_sb_printf(&list, "%s%s", i ? ", " : "", names[i]);
    for (size_t i = 0; i < bl->n; i++) {
        const gb_block *b = &bl->b[i];
        if (b->plen != strlen(parent) || memcmp(b->parent, parent, b->plen))
            continue;
        char *name = base_arena_strndup(a, b->name, b->len);
        const char *const *cands = (const char *const *)names;
        bool known =
            bsearch(&name, names, n, sizeof *names, base_cmp_str) != NULL;
        size_t k = known ? SIZE_MAX : base_closest(name, b->len, cands, n);
        if (!known)
            base_diag_report_in(
                d, BASE_SEV_WARNING, source, b->line, b->col,
                "block '%s' is not a block of %s, so it overrides "
                "nothing%s%s%s (%s%s%s)",
                name, parent, k != SIZE_MAX ? "; did you mean '" : "",
                k != SIZE_MAX ? names[k] : "", k != SIZE_MAX ? "'?" : "",
                parent, n ? " has the blocks " : " has no blocks",
                base_sb_str(&list));
    }
    base_sb_free(&list);
}

void cg_warn_blocks(const mst_template *t, const char *source,
                    const mst_loader *l, base_diag *d) {
    gb_list bl = {0};
    mst_template_blocks(t, gb_add, &bl);
    base_arena *a = base_arena_new();
    for (size_t i = 0; i < bl.n; i++) {
        if (!bl.b[i].parent)
            continue;
        bool seen = false; /* each parent once, in order of appearance */
        for (size_t j = 0; j < i && !seen; j++)
            seen = bl.b[j].parent && bl.b[j].plen == bl.b[i].plen &&
                   memcmp(bl.b[j].parent, bl.b[i].parent, bl.b[i].plen) == 0;
        if (!seen)
            gb_check_parent(l, source,
                            base_arena_strndup(a, bl.b[i].parent, bl.b[i].plen),
                            &bl, a, d);
    }
    base_arena_free(a);
    free(bl.b);
}

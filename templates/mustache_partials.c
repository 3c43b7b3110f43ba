/*
 * templates/mustache_partials.c - partials ({{>x}}), parents ({{<x}}) and
 * blocks ({{$x}}): loading and caching partials, indentation, overrides.
 */
#include "mustache_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Whether a partial name could reach outside the partials directory: an
 * absolute path or a ".." path component. */
static bool name_leaves_dir(const char *s, size_t n) {
    if (n > 0 && s[0] == '/')
        return true;
    for (size_t i = 0; i + 1 < n; i++)
        if (s[i] == '.' && s[i + 1] == '.' && (i == 0 || s[i - 1] == '/') &&
            (i + 2 == n || s[i + 2] == '/'))
            return true;
    return false;
}

/* Resolves a partial/parent to a compiled template (NULL when unknown;
 * *failed set on a compile error). */
MST_NOINLINE static mst_template *get_partial(rctx *r, const mst_template *t,
                                              const mst_node *n, bool *failed) {
    char small[256];
    const char *name = n->s;
    size_t nn = n->n;
    *failed = false;
    if (n->dynamic) {
        mst_val v = mst_lookup(r, n);
        if (v.type != MST_STRING) {
            if (r->strict) {
                *failed = true;
                mst_rfail(
                    r, t, n, "dynamic partial name '%.*s' %s", (int)n->n, n->s,
                    v.type != MST_MISSING ? "is not a string" : "is unknown");
            }
            return NULL;
        }
        name = v.u.s;
        nn = v.n;
    }
    char *key = nn < sizeof small ? small : base_xmalloc(nn + 1);
    memcpy(key, name, nn);
    key[nn] = '\0';
    pcache *e = NULL;
    HASH_FIND(hh, r->cache, key, nn, e);
    if (!e) {
        e = base_xmalloc(sizeof *e);
        e->name = base_xmalloc(nn + 1);
        memcpy(e->name, key, nn + 1);
        e->t = NULL;
        size_t len = 0;
        char *text = NULL;
        errno = 0;
        if (name_leaves_dir(key, nn)) {
            *failed = true;
            mst_rfail(r, t, n,
                      "partial name '%s' is refused: it must not be absolute "
                      "or contain a '..' component",
                      key);
            free(e->name);
            free(e);
            if (key != small)
                free(key);
            return NULL;
        }
        if (r->loader && r->loader->load && strlen(key) == nn)
            text = r->loader->load(r->loader->ctx, key, &len);
        int lerr = text ? 0 : errno;
        if (lerr != 0) {
            /* It exists but cannot be read: never "missing". */
            *failed = true;
            mst_rfail(r, t, n, "cannot read partial '%s': %s", key,
                      mst_strerror(lerr));
            free(e->name);
            free(e);
            if (key != small)
                free(key);
            return NULL;
        }
        if (text) {
            mst_error cerr;
            char *src = r->loader->source
                            ? r->loader->source(r->loader->ctx, key)
                            : NULL;
            e->t = mst_compile(src ? src : key, text, len, &cerr);
            free(src);
            free(text);
            if (!e->t) {
                if (r->err)
                    *r->err = cerr;
                *failed = true;
                free(e->name);
                free(e);
                if (key != small)
                    free(key);
                return NULL;
            }
        }
        HASH_ADD_KEYPTR(hh, r->cache, e->name, nn, e);
    }
    if (!e->t && r->strict) {
        *failed = true;
        mst_rfail(r, t, n, "unknown partial '%s'", key);
    }
    if (key != small)
        free(key);
    return e->t;
}

static void push_indent(rctx *r, const char *s, size_t n) {
    grow((void **)&r->ind, &r->ind_cap, r->ind_len + n, 1);
    if (n)
        memcpy(r->ind + r->ind_len, s, n);
    r->ind_len += n;
}

int mst_include(rctx *r, const mst_template *t, const mst_node *n) {
    bool failed;
    mst_template *p = get_partial(r, t, n, &failed);
    if (failed)
        return -1;
    if (!p)
        return 0;
    if (!n->standalone && mst_flush_indent(r, t, n))
        return -1;
    if (mst_enter(r, t, n))
        return -1;
    size_t save_start = r->ind_start, save_len = r->ind_len;
    if (n->standalone) {
        push_indent(r, n->indent, n->indent_len);
        r->need_indent = true;
    } else {
        r->ind_start = r->ind_len;
    }
    if (n->kind == N_PARENT) {
        grow((void **)&r->ov, &r->ovcap, r->nov + 1, sizeof *r->ov);
        r->ov[r->nov].parent = n;
        r->ov[r->nov].t = t;
        r->nov++;
    }
    int rc = mst_render_nodes(r, p, p->nodes, p->nnodes);
    if (n->kind == N_PARENT)
        r->nov--;
    r->ind_start = save_start;
    r->ind_len = save_len;
    r->depth--;
    return rc;
}

int mst_block(rctx *r, const mst_template *t, const mst_node *n) {
    const mst_node *body = n;
    const mst_template *bt = t;
    for (size_t i = 0; i < r->nov && body == n; i++) {
        const mst_node *pn = r->ov[i].parent;
        for (size_t k = 0; k < pn->nkids; k++) {
            const mst_node *b = &pn->kids[k];
            if (b->kind == N_BLOCK && b->n == n->n &&
                memcmp(b->s, n->s, n->n) == 0) {
                body = b;
                bt = r->ov[i].t;
                break;
            }
        }
    }
    if (mst_enter(r, t, n))
        return -1;
    size_t save_len = r->ind_len;
    if (n->standalone) {
        push_indent(r, n->indent, n->indent_len);
        r->need_indent = true;
    }
    int rc = mst_render_nodes(r, bt, body->kids, body->nkids);
    r->ind_len = save_len;
    r->depth--;
    return rc;
}

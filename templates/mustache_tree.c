/*
 * templates/mustache_tree.c - compile pass 4: the node tree (texts merged,
 * blocks dedented); mst_compile, mst_template_free, mst_template_names.
 */
#include "mustache_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Pass 4: the tree                                                    */

/* The common leading whitespace of the non-blank lines of src[from, to). */
static void margin_of(const char *src, size_t from, size_t to, const char **m,
                      size_t *mlen) {
    bool any = false;
    *m = NULL;
    *mlen = 0;
    size_t p = from;
    while (p < to) {
        size_t e = p;
        while (e < to && src[e] != '\n')
            e++;
        size_t w = p;
        while (w < e && is_ws(src[w]))
            w++;
        bool blank = w == e || (w + 1 == e && src[w] == '\r');
        if (!blank) {
            if (!any) {
                *m = src + p;
                *mlen = w - p;
                any = true;
            } else {
                size_t k = 0;
                while (k < *mlen && k < w - p && src[p + k] == (*m)[k])
                    k++;
                *mlen = k;
            }
        }
        p = e + 1;
    }
}

/* Strips the prefix of s that matches margin m. */
static void strip_margin(const char **s, size_t *n, const char *m,
                         size_t mlen) {
    size_t k = 0;
    while (k < mlen && k < *n && (*s)[k] == m[k])
        k++;
    if (k == 0)
        return; /* *s may be NULL (empty text): no NULL + 0 */
    *s += k;
    *n -= k;
}

typedef struct level {
    size_t open;    /* token index of the opener; SIZE_MAX = top */
    mst_node *kids; /* children so far (malloc'ed, moved to the arena) */
    size_t nkids, cap;
    const char *margin; /* dedent margin in effect inside */
    size_t margin_len;
    mst_part *pieces; /* pending text run */
    size_t npieces, pcap;
    uint32_t pline, pcol; /* where the run starts */
} level;

static bool run_member(const mst_node *n) {
    return n->kind == N_SECTION && n->nparts == 1;
}

void mst_mark_runs(mst_node *ns, size_t count) {
    for (size_t i = count; i-- > 0;) {
        mst_node *n = &ns[i];
        if (!run_member(n))
            continue;
        bool more = i + 1 < count && ns[i + 1].run > 0 && ns[i + 1].run < 64;
        n->run = more ? (uint8_t)(ns[i + 1].run + 1) : 1;
    }
}

static mst_node *level_add(level *l) {
    grow((void **)&l->kids, &l->cap, l->nkids + 1, sizeof *l->kids);
    mst_node *n = &l->kids[l->nkids++];
    memset(n, 0, sizeof *n);
    return n;
}

static void flush_text(compiler *c, level *l) {
    if (l->npieces == 0)
        return;
    size_t total = 0;
    for (size_t i = 0; i < l->npieces; i++)
        total += l->pieces[i].n;
    const char *s = l->pieces[0].s;
    if (l->npieces > 1) {
        char *buf = base_arena_alloc(c->arena, total);
        size_t off = 0;
        for (size_t i = 0; i < l->npieces; i++) {
            memcpy(buf + off, l->pieces[i].s, l->pieces[i].n);
            off += l->pieces[i].n;
        }
        s = buf;
    }
    l->npieces = 0;
    if (total == 0)
        return;
    mst_node *n = level_add(l);
    n->kind = N_TEXT;
    n->s = s;
    n->n = total;
    n->one_line = !memchr(s, '\n', total - 1);
    n->line = l->pline;
    n->col = l->pcol;
}

static void add_piece(level *l, const char *s, size_t n) {
    if (n == 0)
        return;
    if (l->npieces &&
        l->pieces[l->npieces - 1].s + l->pieces[l->npieces - 1].n == s) {
        l->pieces[l->npieces - 1].n += n;
        return;
    }
    grow((void **)&l->pieces, &l->pcap, l->npieces + 1, sizeof *l->pieces);
    l->pieces[l->npieces].s = s;
    l->pieces[l->npieces].n = n;
    l->npieces++;
}

static int split_name(compiler *c, const tok *t, mst_node *n) {
    n->s = t->s;
    n->n = t->n;
    if (t->n == 1 && t->s[0] == '.') {
        n->nparts = 0;
        return 0;
    }
    uint32_t np = 1;
    for (size_t i = 0; i < t->n; i++)
        np += t->s[i] == '.';
    n->parts = base_arena_alloc(c->arena, np * sizeof *n->parts);
    n->nparts = np;
    size_t start = 0, k = 0;
    for (size_t i = 0; i <= t->n; i++) {
        if (i == t->n || t->s[i] == '.') {
            if (i == start) {
                mst_set_error(c->err, c->name, t->line, t->col,
                              "bad name '%.*s': empty part in a dotted name",
                              (int)t->n, t->s);
                return -1;
            }
            n->parts[k].s = t->s + start;
            n->parts[k].n = i - start;
            n->parts[k].h = key_hash(n->parts[k].s, n->parts[k].n);
            n->parts[k].t = mst_key_tail(n->parts[k].s, n->parts[k].n);
            n->parts[k].mx = key_mix(n->parts[k].h, n->parts[k].n);
            n->parts[k].bm = mst_key_bits(n->parts[k].mx);
            k++;
            start = i + 1;
        }
    }
    n->key = n->parts[0];
    return 0;
}

static void free_levels(level *lv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(lv[i].kids);
        free(lv[i].pieces);
    }
}

/* A closer {{/x}} ends the innermost level lv[nl - 1]: its node is added
 * to the level above, with its children. */
static int close_level(compiler *c, level *lv, size_t nl, const tok *k) {
    level *l = &lv[nl - 1];
    int rc = 0;
    tok *o = &c->toks[k->match];
    mst_node *kids = NULL;
    size_t nk = l->nkids;
    if (nk) {
        kids = base_arena_alloc(c->arena, nk * sizeof *kids);
        memcpy(kids, l->kids, nk * sizeof *kids);
    }
    mst_mark_runs(kids, nk);
    free(l->kids);
    free(l->pieces);
    nl--;
    level *up = &lv[nl - 1];
    mst_node *n = level_add(up);
    n->line = o->line;
    n->col = o->col;
    n->dynamic = o->dynamic;
    n->standalone = o->standalone;
    switch (o->kind) {
    case T_SECTION:
        n->kind = N_SECTION;
        break;
    case T_INVERTED:
        n->kind = N_INVERTED;
        break;
    case T_PARENT:
        n->kind = N_PARENT;
        break;
    default:
        n->kind = N_BLOCK;
        break;
    }
    n->kids = kids;
    n->nkids = nk;
    if (o->kind == T_PARENT || o->kind == T_BLOCK) {
        n->s = o->s;
        n->n = o->n;
        if (o->dynamic)
            rc = split_name(c, o, n);
    } else {
        rc = split_name(c, o, n);
    }
    const char *ind = o->indent;
    size_t il = o->indent_len;
    strip_margin(&ind, &il, up->margin, up->margin_len);
    if (o->kind == T_BLOCK && o->standalone) {
        /* Relative indentation at the site of expansion: the
         * margin of the default content, else the whitespace
         * before the tag. */
        const char *m = l->margin;
        size_t ml = l->margin_len;
        if (ml != up->margin_len || m != up->margin) {
            strip_margin(&m, &ml, up->margin, up->margin_len);
            ind = m;
            il = ml;
        }
    }
    n->indent = ind;
    n->indent_len = il;
    return rc;
}

static int build(compiler *c, mst_template *t) {
    level *lv = NULL;
    size_t nl = 0, lcap = 0;
    grow((void **)&lv, &lcap, 1, sizeof *lv);
    memset(&lv[0], 0, sizeof lv[0]);
    lv[0].open = SIZE_MAX;
    nl = 1;
    int rc = 0;
    for (size_t i = 0; i < c->ntoks && rc == 0; i++) {
        tok *k = &c->toks[i];
        level *l = &lv[nl - 1];
        if (k->removed || k->kind == T_COMMENT || k->kind == T_DELIM)
            continue;
        if (k->kind == T_TEXT) {
            const char *s = k->s;
            size_t n = k->n;
            if (k->bol && l->margin_len) {
                if (ws_text(k)) { /* a blank line loses all indentation */
                    while (n && is_ws(*s)) {
                        s++;
                        n--;
                    }
                } else {
                    strip_margin(&s, &n, l->margin, l->margin_len);
                }
            }
            if (l->npieces == 0) {
                l->pline = k->line;
                l->pcol = k->col;
            }
            add_piece(l, s, n);
            continue;
        }
        flush_text(c, l);
        if (k->kind == T_CLOSE) {
            rc = close_level(c, lv, nl--, k);
            continue;
        }
        if (is_opener(k->kind)) {
            if (nl + 1 > lcap)
                grow((void **)&lv, &lcap, nl + 1, sizeof *lv);
            l = &lv[nl - 1];
            level *nw = &lv[nl++];
            memset(nw, 0, sizeof *nw);
            nw->open = i;
            nw->margin = l->margin;
            nw->margin_len = l->margin_len;
            if (k->kind == T_BLOCK && k->standalone) {
                tok *cl = &c->toks[k->match];
                size_t from = k->line_removed ? k->le : k->end;
                size_t to = cl->line_removed ? cl->ls : cl->pos;
                const char *m;
                size_t ml;
                margin_of(c->src, from, to < from ? from : to, &m, &ml);
                if (ml) {
                    nw->margin = m;
                    nw->margin_len = ml;
                }
            }
            continue;
        }
        /* VAR, RAW, PARTIAL */
        mst_node *n = level_add(l);
        n->line = k->line;
        n->col = k->col;
        n->kind = k->kind == T_VAR   ? N_VAR
                  : k->kind == T_RAW ? N_RAW
                                     : N_PARTIAL;
        n->dynamic = k->dynamic;
        n->standalone = k->standalone;
        if (n->kind != N_PARTIAL || k->dynamic) {
            rc = split_name(c, k, n);
        } else {
            n->s = k->s;
            n->n = k->n;
        }
        const char *ind = k->indent;
        size_t il = k->indent_len;
        strip_margin(&ind, &il, l->margin, l->margin_len);
        n->indent = ind;
        n->indent_len = il;
    }
    if (rc == 0) {
        level *l = &lv[0];
        flush_text(c, l);
        if (l->nkids) {
            t->nodes = base_arena_alloc(c->arena, l->nkids * sizeof *t->nodes);
            memcpy(t->nodes, l->kids, l->nkids * sizeof *t->nodes);
            t->nnodes = l->nkids;
            mst_mark_runs(t->nodes, t->nnodes);
        }
    }
    free_levels(lv, nl);
    free(lv);
    return rc;
}

mst_template *mst_compile(const char *name, const char *text, size_t len,
                          mst_error *err) {
    if (!name)
        name = "<template>";
    mst_template *t = base_xmalloc(sizeof *t);
    memset(t, 0, sizeof *t);
    size_t nlen = strlen(name);
    t->name = base_xmalloc(nlen + 1);
    memcpy(t->name, name, nlen + 1);
    t->arena = base_arena_new();
    t->src = base_xmalloc(len + 1);
    if (len)
        memcpy(t->src, text, len);
    t->src[len] = '\0';
    t->len = len;
    compiler c = {.name = t->name,
                  .src = t->src,
                  .len = len,
                  .err = err,
                  .arena = t->arena};
    int rc = mst_tokenize(&c);
    if (rc == 0)
        rc = mst_match_sections(&c);
    if (rc == 0) {
        mst_standalone(&c);
        rc = build(&c, t);
    }
    free(c.toks);
    if (rc != 0) {
        mst_template_free(t);
        return NULL;
    }
    return t;
}

void mst_template_free(mst_template *t) {
    if (!t)
        return;
    base_arena_free(t->arena);
    free(t->src);
    free(t->name);
    free(t);
}

/* Calls visit(ctx, n, parent) for every node of t in document order;
 * `parent` is the static parent tag ({{<name}}) whose children n is
 * among, else NULL.  Iterative: templates may nest 100,000 sections
 * deep. */
typedef void (*mst_visit_fn)(void *ctx, const mst_node *n,
                             const mst_node *parent);

static void mst_walk_nodes(const mst_node *ns, size_t count, mst_visit_fn visit,
                           void *ctx) {
    typedef struct walk {
        const mst_node *ns, *parent;
        size_t count, i;
    } walk;
    size_t sp = 0, cap = 0;
    walk *st = NULL;
    grow((void **)&st, &cap, 1, sizeof *st);
    st[sp++] = (walk){ns, NULL, count, 0};
    while (sp) {
        walk *w = &st[sp - 1];
        if (w->i == w->count) {
            sp--;
            continue;
        }
        const mst_node *n = &w->ns[w->i++];
        visit(ctx, n, w->parent);
        if (n->nkids) {
            bool is_parent = n->kind == N_PARENT && !n->dynamic;
            grow((void **)&st, &cap, sp + 1, sizeof *st);
            st[sp++] = (walk){n->kids, is_parent ? n : NULL, n->nkids, 0};
        }
    }
    free(st);
}

static void mst_walk(const mst_template *t, mst_visit_fn visit, void *ctx) {
    mst_walk_nodes(t->nodes, t->nnodes, visit, ctx);
}

typedef struct {
    void (*fn)(void *ctx, const char *name, size_t len);
    void *ctx;
} mst_names_ctx;

static void mst_visit_names(void *ctx, const mst_node *n,
                            const mst_node *parent) {
    (void)parent;
    const mst_names_ctx *c = ctx;
    bool looks_up =
        n->kind == N_VAR || n->kind == N_RAW || n->kind == N_SECTION ||
        n->kind == N_INVERTED ||
        ((n->kind == N_PARTIAL || n->kind == N_PARENT) && n->dynamic);
    if (looks_up)
        for (uint32_t k = 0; k < n->nparts; k++)
            c->fn(c->ctx, n->parts[k].s, n->parts[k].n);
}

void mst_template_names(const mst_template *t,
                        void (*fn)(void *ctx, const char *name, size_t len),
                        void *ctx) {
    if (!t || !fn)
        return;
    mst_names_ctx c = {fn, ctx};
    mst_walk(t, mst_visit_names, &c);
}

typedef struct {
    mst_block_fn fn;
    void *ctx;
} mst_blocks_ctx;

static void mst_visit_blocks(void *ctx, const mst_node *n, const mst_node *pa) {
    const mst_blocks_ctx *c = ctx;
    if (n->kind == N_BLOCK)
        c->fn(c->ctx, n->s, n->n, pa ? pa->s : NULL, pa ? pa->n : 0, n->line,
              n->col);
}

void mst_template_blocks(const mst_template *t, mst_block_fn fn, void *ctx) {
    if (!t || !fn)
        return;
    mst_blocks_ctx c = {fn, ctx};
    mst_walk(t, mst_visit_blocks, &c);
}

/* ------------------------------------------------------------------ */
/* The names a section's body can look up (mst_lazy_list.element_in). */

struct mst_names {
    size_t mask;           /* slots - 1 */
    const mst_part **slot; /* open addressing by mx; NULL = empty */
    size_t n;
    bool open; /* a partial or parent inside: any name */
};

typedef struct {
    mst_names *s;
} mst_names_build;

static void names_put(mst_names *s, const mst_part *p) {
    if (2 * (s->n + 1) > s->mask + 1) {
        size_t slots = (s->mask + 1) * 2;
        const mst_part **old = s->slot;
        size_t oldn = s->mask + 1;
        s->slot = base_xcalloc(slots, sizeof *s->slot);
        s->mask = slots - 1;
        for (size_t i = 0; i < oldn; i++)
            if (old[i]) {
                size_t at = old[i]->mx & s->mask;
                while (s->slot[at])
                    at = (at + 1) & s->mask;
                s->slot[at] = old[i];
            }
        free(old);
    }
    size_t at = p->mx & s->mask;
    for (; s->slot[at]; at = (at + 1) & s->mask)
        if (s->slot[at]->n == p->n && memcmp(s->slot[at]->s, p->s, p->n) == 0)
            return;
    s->slot[at] = p;
    s->n++;
}

static void mst_visit_section_names(void *ctx, const mst_node *n,
                                    const mst_node *parent) {
    (void)parent;
    mst_names *s = ((mst_names_build *)ctx)->s;
    if (n->kind == N_PARTIAL || n->kind == N_PARENT)
        s->open = true;
    else if (n->kind == N_VAR || n->kind == N_RAW || n->kind == N_SECTION ||
             n->kind == N_INVERTED)
        for (uint32_t k = 0; k < n->nparts; k++)
            names_put(s, &n->parts[k]);
}

mst_names *mst_section_names(const mst_node *n) {
    mst_names *s = base_xcalloc(1, sizeof *s);
    s->mask = 15;
    s->slot = base_xcalloc(s->mask + 1, sizeof *s->slot);
    mst_names_build b = {s};
    mst_walk_nodes(n->kids, n->nkids, mst_visit_section_names, &b);
    return s;
}

bool mst_names_open(const mst_names *s) {
    return s->open;
}

void mst_names_free(mst_names *s) {
    if (!s)
        return;
    free(s->slot);
    free(s);
}

bool mst_names_has(const mst_names *s, const char *name, size_t len) {
    if (!s || s->open)
        return true;
    uint32_t mx = key_mix(key_hash(name, len), len);
    for (size_t at = mx & s->mask; s->slot[at]; at = (at + 1) & s->mask)
        if (s->slot[at]->n == len && memcmp(s->slot[at]->s, name, len) == 0)
            return true;
    return false;
}

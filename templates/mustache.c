/*
 * templates/mustache.c - the mustache engine: compile and render.
 *
 * Compilation runs in four passes over the source, none of them recursive:
 *
 *   1. tokenize: text (split after every '\n') and tags, applying set-
 *      delimiter tags as they come;
 *   2. match: pair every {{/x}} with its opener (errors for mismatches);
 *   3. standalone: a line holding only whitespace and one non-interpolation
 *      tag is removed (its indentation kept for partials, parents and
 *      blocks), plus the pairs of the ~inheritance spec;
 *   4. build: the node tree, with adjacent texts merged, and the text of
 *      standalone blocks "dedented" (block indentation is removed at the
 *      site of definition and added at the site of expansion).
 *
 * Rendering walks the tree with a context stack of json_t values.  Partial
 * indentation is applied at render time: the renderer remembers that it is
 * at the start of a template line (`need_indent`) and writes the current
 * indentation before the next output, so interpolated values are never
 * re-indented, exactly as if the partial's source had been indented.
 */
#include "templates/mustache.h"

#include "base/base.h"
#include "base/hash.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MST_DEFAULT_MAX_DEPTH MST_MAX_DEPTH
#define MST_MAX_NESTING 100000u
#define MST_DEFAULT_MAX_OUTPUT ((size_t)1 << 30)

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

/* Grows *p (elements of size `sz`) so that it holds at least `need`. */
static void grow(void **p, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap)
        return;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    *p = base_xrealloc(*p, nc * sz);
    *cap = nc;
}

#if defined(__GNUC__)
#define MST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MST_PRINTF(f, a)
#endif

static void set_error(mst_error *e, const char *source, uint32_t line,
                      uint32_t col, const char *fmt, ...) MST_PRINTF(5, 6);

static void set_error(mst_error *e, const char *source, uint32_t line,
                      uint32_t col, const char *fmt, ...) {
    if (!e)
        return;
    snprintf(e->source, sizeof e->source, "%s", source ? source : "");
    e->line = line;
    e->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}

const char *mst_error_format(const mst_error *e, char *buf, size_t size) {
    if (!buf || size == 0)
        return buf;
    if (e->line)
        snprintf(buf, size, "%s:%u:%u: error: %s", e->source, e->line, e->col,
                 e->text);
    else if (e->source[0])
        snprintf(buf, size, "%s: error: %s", e->source, e->text);
    else
        snprintf(buf, size, "error: %s", e->text);
    return buf;
}

static bool is_ws(char c) {
    return c == ' ' || c == '\t';
}

static bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Finds needle (nlen > 0) in hay[from, hlen); returns offset or SIZE_MAX. */
static size_t find(const char *hay, size_t hlen, size_t from,
                   const char *needle, size_t nlen) {
    if (nlen == 0 || hlen < nlen)
        return SIZE_MAX;
    size_t last = hlen - nlen;
    while (from <= last) {
        const char *p = memchr(hay + from, needle[0], last - from + 1);
        if (!p)
            return SIZE_MAX;
        size_t at = (size_t)(p - hay);
        if (memcmp(p, needle, nlen) == 0)
            return at;
        from = at + 1;
    }
    return SIZE_MAX;
}

/* Nodes, name parts and merged text live in a base_arena, freed at
 * once. */

/* ------------------------------------------------------------------ */
/* Compiled form                                                       */

enum {
    N_TEXT,
    N_VAR,      /* {{x}} */
    N_RAW,      /* {{{x}}} {{&x}} */
    N_SECTION,  /* {{#x}} */
    N_INVERTED, /* {{^x}} */
    N_PARTIAL,  /* {{>x}} */
    N_PARENT,   /* {{<x}} */
    N_BLOCK,    /* {{$x}} */
};

typedef struct mst_part {
    const char *s;
    size_t n;
    uint64_t h;  /* key_hash(s, n) */
    uint32_t mx; /* key_mix(h, n): picks the slot in a frame's index */
} mst_part;

/* The signature of a key in the render-time object index: its first 8
 * bytes (zero-padded).  Keys of up to 8 bytes compare by signature and
 * length alone. */
static uint64_t key_hash(const char *s, size_t n) {
    /* Fixed-size loads only: a variable-length memcpy into h followed by
     * an 8-byte read of it stalls store forwarding on every lookup. */
    const unsigned char *u = (const unsigned char *)s;
    if (n >= 8) {
        uint64_t h;
        memcpy(&h, s, 8);
        return h;
    }
    if (n >= 4) { /* two overlapping 4-byte loads */
        uint32_t lo, hi;
        memcpy(&lo, s, 4);
        memcpy(&hi, s + n - 4, 4);
        return (uint64_t)lo | ((uint64_t)hi << (8 * (n - 4)));
    }
    if (n == 0)
        return 0;
    return (uint64_t)u[0] | ((uint64_t)u[n / 2] << (8 * (n / 2))) |
           ((uint64_t)u[n - 1] << (8 * (n - 1)));
}

/* Mixes a signature and length into 32 bits (the high bits of a
 * Fibonacci hash) for the open-addressing index of a frame. */
static uint32_t key_mix(uint64_t h, size_t n) {
    return (uint32_t)(((h ^ ((uint64_t)n << 56)) * 0x9E3779B97F4A7C15ull) >>
                      32);
}

typedef struct mst_node mst_node;
struct mst_node {
    uint8_t kind;
    bool standalone; /* partial/parent/block: indentation applies */
    bool dynamic;    /* partial/parent name is looked up ({{>*x}}) */
    uint32_t line, col;
    const char *s; /* text, or the tag's name */
    size_t n;
    mst_part *parts; /* dotted name; nparts 0 = "." */
    uint32_t nparts;
    const char *indent; /* standalone partial/parent/block indentation */
    size_t indent_len;
    mst_node *kids;
    size_t nkids;
};

struct mst_template {
    char *name;
    char *src; /* a copy of the source: names and texts point here */
    size_t len;
    base_arena *arena;
    mst_node *nodes;
    size_t nnodes;
};

/* ------------------------------------------------------------------ */
/* Pass 1: tokens                                                      */

enum {
    T_TEXT,
    T_VAR,
    T_RAW,
    T_SECTION,
    T_INVERTED,
    T_CLOSE,
    T_COMMENT,
    T_DELIM,
    T_PARTIAL,
    T_PARENT,
    T_BLOCK,
};

typedef struct tok {
    uint8_t kind;
    bool bol;          /* text: starts a source line */
    bool removed;      /* dropped by the standalone rule */
    bool standalone;   /* tag: standalone (indentation semantics) */
    bool line_removed; /* tag: its whole line was removed */
    bool dynamic;
    uint32_t line, col;
    const char *s; /* text slice, or tag name (trimmed) */
    size_t n;
    size_t pos, end;    /* source offsets of the token */
    size_t ls, le;      /* standalone tag: its line's [start, end) */
    const char *indent; /* whitespace before a standalone tag */
    size_t indent_len;
    size_t match; /* opener <-> closer index */
} tok;

typedef struct compiler {
    const char *name;
    const char *src;
    size_t len;
    tok *toks;
    size_t ntoks, cap;
    mst_error *err;
    base_arena *arena;
} compiler;

static tok *push_tok(compiler *c) {
    grow((void **)&c->toks, &c->cap, c->ntoks + 1, sizeof *c->toks);
    tok *t = &c->toks[c->ntoks++];
    memset(t, 0, sizeof *t);
    t->match = SIZE_MAX;
    return t;
}

/* Emits src[from, to) as text tokens split after each '\n'; advances the
 * line counter. */
static void emit_text_toks(compiler *c, size_t from, size_t to, uint32_t *line,
                           size_t *line_start) {
    while (from < to) {
        const char *nl = memchr(c->src + from, '\n', to - from);
        size_t end = nl ? (size_t)(nl - c->src) + 1 : to;
        tok *t = push_tok(c);
        t->kind = T_TEXT;
        t->bol = from == *line_start;
        t->s = c->src + from;
        t->n = end - from;
        t->pos = from;
        t->end = end;
        t->line = *line;
        t->col = (uint32_t)(from - *line_start + 1);
        if (nl) {
            (*line)++;
            *line_start = end;
        }
        from = end;
    }
}

static void trim(const char **s, size_t *n) {
    while (*n && is_space(**s)) {
        (*s)++;
        (*n)--;
    }
    while (*n && is_space((*s)[*n - 1]))
        (*n)--;
}

static int tokenize(compiler *c) {
    const char *src = c->src;
    size_t len = c->len;
    const char *otag = "{{", *ctag = "}}";
    size_t olen = 2, clen = 2;
    char closebuf[2 + 256];
    uint32_t line = 1;
    size_t line_start = 0, pos = 0;

    while (pos < len) {
        size_t at = find(src, len, pos, otag, olen);
        emit_text_toks(c, pos, at == SIZE_MAX ? len : at, &line, &line_start);
        if (at == SIZE_MAX)
            break;
        uint32_t tline = line, tcol = (uint32_t)(at - line_start + 1);
        size_t p = at + olen;
        char sig = p < len ? src[p] : '\0';
        uint8_t kind;
        size_t cstart, cend, tend;
        if (sig == '{' || sig == '=') {
            /* "}" + ctag or "=" + ctag */
            closebuf[0] = sig == '{' ? '}' : '=';
            memcpy(closebuf + 1, ctag, clen);
            size_t e = find(src, len, p + 1, closebuf, clen + 1);
            if (e == SIZE_MAX) {
                set_error(c->err, c->name, tline, tcol,
                          sig == '{' ? "unclosed tag: missing '}%.*s'"
                                     : "unclosed set-delimiter tag: missing "
                                       "'=%.*s'",
                          (int)clen, ctag);
                return -1;
            }
            kind = sig == '{' ? T_RAW : T_DELIM;
            cstart = p + 1;
            cend = e;
            tend = e + 1 + clen;
        } else {
            size_t e = find(src, len, p, ctag, clen);
            if (e == SIZE_MAX) {
                set_error(c->err, c->name, tline, tcol,
                          "unclosed tag: missing '%.*s'", (int)clen, ctag);
                return -1;
            }
            cstart = p + 1;
            cend = e;
            tend = e + clen;
            switch (sig) {
            case '#':
                kind = T_SECTION;
                break;
            case '^':
                kind = T_INVERTED;
                break;
            case '/':
                kind = T_CLOSE;
                break;
            case '!':
                kind = T_COMMENT;
                break;
            case '>':
                kind = T_PARTIAL;
                break;
            case '<':
                kind = T_PARENT;
                break;
            case '$':
                kind = T_BLOCK;
                break;
            case '&':
                kind = T_RAW;
                break;
            default:
                kind = T_VAR;
                cstart = p;
                break;
            }
            if (cstart > cend) /* "{{}}" with a one-char sigil overlap */
                cstart = cend;
        }
        tok *t = push_tok(c);
        t->kind = kind;
        t->line = tline;
        t->col = tcol;
        t->pos = at;
        t->end = tend;
        const char *name = src + cstart;
        size_t nn = cend - cstart;
        trim(&name, &nn);
        /* Newlines inside the tag (comments, multi-line tags). */
        for (size_t i = at; i < tend; i++)
            if (src[i] == '\n') {
                line++;
                line_start = i + 1;
            }
        pos = tend;
        if (kind == T_COMMENT)
            continue;
        if (kind == T_DELIM) {
            size_t i = 0;
            while (i < nn && !is_space(name[i]))
                i++;
            size_t j = i;
            while (j < nn && is_space(name[j]))
                j++;
            const char *o = name, *cl = name + j;
            size_t on = i, cn = nn - j;
            bool bad = on == 0 || cn == 0 || on > 255 || cn > 255;
            for (size_t k = 0; !bad && k < on; k++)
                bad = o[k] == '=';
            for (size_t k = 0; !bad && k < cn; k++)
                bad = is_space(cl[k]) || cl[k] == '=';
            if (bad) {
                set_error(c->err, c->name, tline, tcol,
                          "bad set-delimiter tag: expected two delimiters "
                          "without spaces or '=' (like {{=<%% %%>=}})");
                return -1;
            }
            otag = o;
            olen = on;
            ctag = cl;
            clen = cn;
            continue;
        }
        if ((kind == T_PARTIAL || kind == T_PARENT) && nn && name[0] == '*') {
            t->dynamic = true;
            name++;
            nn--;
            trim(&name, &nn);
        }
        if (nn == 0) {
            set_error(c->err, c->name, tline, tcol, "empty tag");
            return -1;
        }
        for (size_t k = 0; k < nn; k++)
            if (is_space(name[k])) {
                /* a line break or another opening delimiter inside the
                 * name: this tag's closing delimiter is missing and the
                 * next tag's was taken */
                if (memchr(name, '\n', nn) ||
                    find(name, nn, 0, otag, olen) != SIZE_MAX)
                    set_error(c->err, c->name, tline, tcol,
                              "unclosed tag: missing '%.*s'", (int)clen, ctag);
                else
                    set_error(c->err, c->name, tline, tcol,
                              "bad tag name '%.*s': contains whitespace",
                              (int)nn, name);
                return -1;
            }
        t->s = name;
        t->n = nn;
    }
    return 0;
}

/* ------------------------------------------------------------------ */
/* Pass 2: pair closers with openers                                   */

static bool is_opener(uint8_t k) {
    return k == T_SECTION || k == T_INVERTED || k == T_PARENT || k == T_BLOCK;
}

static const char *sigil(uint8_t k) {
    switch (k) {
    case T_SECTION:
        return "#";
    case T_INVERTED:
        return "^";
    case T_PARENT:
        return "<";
    case T_BLOCK:
        return "$";
    default:
        return "";
    }
}

static int match_sections(compiler *c) {
    size_t *stack = NULL, sp = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; i < c->ntoks && rc == 0; i++) {
        tok *t = &c->toks[i];
        if (is_opener(t->kind)) {
            if (sp >= MST_MAX_NESTING) {
                set_error(c->err, c->name, t->line, t->col,
                          "sections nested deeper than %u", MST_MAX_NESTING);
                rc = -1;
                break;
            }
            grow((void **)&stack, &cap, sp + 1, sizeof *stack);
            stack[sp++] = i;
        } else if (t->kind == T_CLOSE) {
            if (sp == 0) {
                set_error(c->err, c->name, t->line, t->col,
                          "closing tag {{/%.*s}} without an open section",
                          (int)t->n, t->s);
                rc = -1;
                break;
            }
            tok *o = &c->toks[stack[sp - 1]];
            bool same =
                o->n == t->n && memcmp(o->s, t->s, t->n) == 0 && !o->dynamic;
            if (o->dynamic) /* {{<*x}} closes with {{/x}} or with the star */
                same = (t->n == o->n && memcmp(o->s, t->s, t->n) == 0) ||
                       (t->n == o->n + 1 && t->s[0] == '*' &&
                        memcmp(o->s, t->s + 1, o->n) == 0);
            if (!same) {
                set_error(c->err, c->name, t->line, t->col,
                          "closing tag {{/%.*s}} does not match "
                          "{{%s%.*s}} opened at line %u, column %u",
                          (int)t->n, t->s, sigil(o->kind), (int)o->n, o->s,
                          o->line, o->col);
                rc = -1;
                break;
            }
            o->match = i;
            t->match = stack[sp - 1];
            sp--;
        }
    }
    if (rc == 0 && sp > 0) {
        tok *o = &c->toks[stack[sp - 1]];
        set_error(c->err, c->name, o->line, o->col,
                  "unclosed section {{%s%.*s}}", sigil(o->kind), (int)o->n,
                  o->s);
        rc = -1;
    }
    free(stack);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Pass 3: standalone lines                                            */

static bool ws_text(const tok *t) {
    size_t n = t->n;
    if (n && t->s[n - 1] == '\n') {
        n--;
        if (n && t->s[n - 1] == '\r')
            n--;
    }
    for (size_t i = 0; i < n; i++)
        if (!is_ws(t->s[i]))
            return false;
    return true;
}

static bool can_stand_alone(uint8_t k) {
    return k != T_TEXT && k != T_VAR && k != T_RAW;
}

static void standalone(compiler *c) {
    size_t i = 0;
    while (i < c->ntoks) {
        size_t j = i;
        while (j < c->ntoks && !(c->toks[j].kind == T_TEXT && c->toks[j].n &&
                                 c->toks[j].s[c->toks[j].n - 1] == '\n'))
            j++;
        if (j == c->ntoks)
            j--;
        /* The line is toks[i..j]. */
        size_t ntags = 0, t1 = 0, t2 = 0;
        bool ws = true;
        for (size_t k = i; k <= j; k++) {
            tok *t = &c->toks[k];
            if (t->kind == T_TEXT) {
                ws = ws && ws_text(t);
            } else {
                if (ntags == 0)
                    t1 = k;
                else if (ntags == 1)
                    t2 = k;
                ntags++;
            }
        }
        size_t ls = c->toks[i].pos, le = c->toks[j].end;
        tok *lead = c->toks[i].kind == T_TEXT ? &c->toks[i] : NULL;
        tok *trail = c->toks[j].kind == T_TEXT && j != i ? &c->toks[j] : NULL;
        if (lead && lead == &c->toks[j]) /* text only: nothing to do */
            trail = NULL;
        tok *a = &c->toks[t1], *b = &c->toks[t2];
        int mode = 0; /* 1 remove line; 2 keep the newline */
        if (ws && ntags == 1 && can_stand_alone(a->kind)) {
            mode = 1;
        } else if (ws && ntags == 2 && t2 == t1 + 1) {
            if (a->kind == T_BLOCK && a->match == t2)
                mode = 2; /* {{$b}}{{/b}}: the block is standalone */
            else if (a->kind == T_PARENT && a->match == t2)
                mode = 1; /* {{<p}}{{/p}} */
            else if (a->kind == T_PARENT && b->kind == T_BLOCK)
                mode = 1; /* {{<p}}{{$b}} */
            else if (a->kind == T_CLOSE && b->kind == T_CLOSE &&
                     c->toks[a->match].kind == T_BLOCK &&
                     c->toks[b->match].kind == T_PARENT)
                mode = 1; /* {{/b}}{{/p}} */
        }
        if (mode) {
            a->standalone = true;
            a->ls = ls;
            a->le = le;
            a->line_removed = mode == 1;
            if (lead) {
                a->indent = lead->s;
                a->indent_len = lead->n;
                if (lead->n && lead->s[lead->n - 1] == '\n')
                    a->indent_len = 0; /* cannot happen: tag follows */
                lead->removed = true;
            }
            if (ntags == 2) {
                b->standalone = true;
                b->ls = ls;
                b->le = le;
                b->line_removed = mode == 1;
            }
            if (trail) {
                if (mode == 1) {
                    trail->removed = true;
                } else {
                    /* keep only the line terminator */
                    size_t n = trail->n, k = n;
                    if (k && trail->s[k - 1] == '\n') {
                        k--;
                        if (k && trail->s[k - 1] == '\r')
                            k--;
                    }
                    trail->s += k;
                    trail->n -= k;
                    trail->bol = false;
                    if (trail->n == 0)
                        trail->removed = true;
                }
            }
        }
        i = j + 1;
    }
}

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
                set_error(c->err, c->name, t->line, t->col,
                          "bad name '%.*s': empty part in a dotted name",
                          (int)t->n, t->s);
                return -1;
            }
            n->parts[k].s = t->s + start;
            n->parts[k].n = i - start;
            n->parts[k].h = key_hash(n->parts[k].s, n->parts[k].n);
            n->parts[k].mx = key_mix(n->parts[k].h, n->parts[k].n);
            k++;
            start = i + 1;
        }
    }
    return 0;
}

static void free_levels(level *lv, size_t n) {
    for (size_t i = 0; i < n; i++) {
        free(lv[i].kids);
        free(lv[i].pieces);
    }
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
            tok *o = &c->toks[k->match];
            mst_node *kids = NULL;
            size_t nk = l->nkids;
            if (nk) {
                kids = base_arena_alloc(c->arena, nk * sizeof *kids);
                memcpy(kids, l->kids, nk * sizeof *kids);
            }
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
    int rc = tokenize(&c);
    if (rc == 0)
        rc = match_sections(&c);
    if (rc == 0) {
        standalone(&c);
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

void mst_template_names(const mst_template *t,
                        void (*fn)(void *ctx, const char *name, size_t len),
                        void *ctx) {
    if (!t || !fn)
        return;
    /* iterative: templates may nest 100,000 sections deep */
    typedef struct walk {
        const mst_node *ns;
        size_t count, i;
    } walk;
    size_t sp = 0, cap = 0;
    walk *st = NULL;
    grow((void **)&st, &cap, 1, sizeof *st);
    st[sp++] = (walk){t->nodes, t->nnodes, 0};
    while (sp) {
        walk *w = &st[sp - 1];
        if (w->i == w->count) {
            sp--;
            continue;
        }
        const mst_node *n = &w->ns[w->i++];
        bool looks_up =
            n->kind == N_VAR || n->kind == N_RAW || n->kind == N_SECTION ||
            n->kind == N_INVERTED ||
            ((n->kind == N_PARTIAL || n->kind == N_PARENT) && n->dynamic);
        if (looks_up)
            for (uint32_t k = 0; k < n->nparts; k++)
                fn(ctx, n->parts[k].s, n->parts[k].n);
        if (n->nkids) {
            grow((void **)&st, &cap, sp + 1, sizeof *st);
            st[sp++] = (walk){n->kids, n->nkids, 0};
        }
    }
    free(st);
}

void mst_template_blocks(const mst_template *t, mst_block_fn fn, void *ctx) {
    if (!t || !fn)
        return;
    /* iterative, as mst_template_names; `parent` is the static parent tag
     * whose children are being walked, else NULL */
    typedef struct walk {
        const mst_node *ns, *parent;
        size_t count, i;
    } walk;
    size_t sp = 0, cap = 0;
    walk *st = NULL;
    grow((void **)&st, &cap, 1, sizeof *st);
    st[sp++] = (walk){t->nodes, NULL, t->nnodes, 0};
    while (sp) {
        walk *w = &st[sp - 1];
        if (w->i == w->count) {
            sp--;
            continue;
        }
        const mst_node *n = &w->ns[w->i++];
        const mst_node *pa = w->parent;
        if (n->kind == N_BLOCK)
            fn(ctx, n->s, n->n, pa ? pa->s : NULL, pa ? pa->n : 0, n->line,
               n->col);
        if (n->nkids) {
            bool is_parent = n->kind == N_PARENT && !n->dynamic;
            grow((void **)&st, &cap, sp + 1, sizeof *st);
            st[sp++] = (walk){n->kids, is_parent ? n : NULL, n->nkids, 0};
        }
    }
    free(st);
}

/* ------------------------------------------------------------------ */
/* Rendering                                                           */

typedef struct pcache {
    char *name;
    mst_template *t; /* NULL: not found */
    UT_hash_handle hh;
} pcache;

typedef struct ov_frame {
    const mst_node *parent;
    const mst_template *t;
} ov_frame;

#define MST_DCACHE 256u

typedef struct rctx {
    const mst_loader *loader;
    bool no_escape, strict;
    unsigned max_depth, depth;
    size_t max_out;
    uint64_t steps, max_steps;
    mst_error *err;
    /* output */
    char *out;
    size_t len, cap;
    /* context stack */
    struct frame *stack;
    size_t sp, scap;
    /* indentation: ind[ind_start, ind_len) */
    char *ind;
    size_t ind_start, ind_len, ind_cap;
    bool need_indent;
    /* block overrides, outermost first */
    ov_frame *ov;
    size_t nov, ovcap;
    pcache *cache;
    /* A small direct-mapped cache of (object, key) -> value for the
     * parts after the first of dotted names ({{names.x}}). */
    struct dcache {
        const json_t *o;
        const mst_part *p;
        json_t *v;
    } dc[MST_DCACHE];
} rctx;

/* Objects with more keys than this are searched with json_object_getn
 * (through the cache of rctx.dc). */
#define MST_INDEX_MAX_KEYS 32u
/* Objects of up to this many keys are scanned, larger ones indexed. */
#define MST_SCAN_MAX_KEYS 8u
/* Slots of a frame's index: a power of two >= 2 * MST_INDEX_MAX_KEYS. */
#define MST_INDEX_SLOTS 64u

/* A key of a context object: its signature, the key and the value. */
typedef struct okey {
    uint64_t h;
    const char *k;
    size_t kl;
    json_t *v;
} okey;

/* A context stack entry.  The keys of an object are listed the first
 * time a name is looked up in it, into a buffer owned by the stack slot
 * (reused by the next push at that depth), so that a lookup, hit or miss,
 * is a short scan of hot memory instead of a jansson string hash. */
typedef struct frame {
    json_t *v;
    bool built;
    uint32_t n; /* keys in buf; > MAX: not listed (large object) */
    okey *buf;
    size_t cap;
    /* open-addressing index of buf: slot[mx & mask] holds 1 + the
     * position of the key in buf, 0 = empty; linear probing */
    uint32_t mask;
    uint8_t slot[MST_INDEX_SLOTS];
} frame;

static int rfail(rctx *r, const mst_template *t, const mst_node *n,
                 const char *fmt, ...) MST_PRINTF(4, 5);

static int rfail(rctx *r, const mst_template *t, const mst_node *n,
                 const char *fmt, ...) {
    if (r->err) {
        snprintf(r->err->source, sizeof r->err->source, "%s", t->name);
        r->err->line = n ? n->line : 0;
        r->err->col = n ? n->col : 0;
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(r->err->text, sizeof r->err->text, fmt, ap);
        va_end(ap);
    }
    return -1;
}

static int out_reserve(rctx *r, const mst_template *t, const mst_node *n,
                       size_t extra) {
    if (r->len + extra > r->max_out)
        return rfail(r, t, n, "output larger than the limit of %zu bytes",
                     r->max_out);
    if (r->len + extra + 1 > r->cap) {
        size_t nc = r->cap ? r->cap : 4096;
        while (nc < r->len + extra + 1)
            nc *= 2;
        r->out = base_xrealloc(r->out, nc);
        r->cap = nc;
    }
    return 0;
}

static int put(rctx *r, const mst_template *t, const mst_node *n, const char *s,
               size_t k) {
    if (r->len + k + 1 > r->cap || r->len + k > r->max_out)
        if (out_reserve(r, t, n, k))
            return -1;
    if (k)
        memcpy(r->out + r->len, s, k);
    r->len += k;
    return 0;
}

static int flush_indent(rctx *r, const mst_template *t, const mst_node *n) {
    if (!r->need_indent)
        return 0;
    r->need_indent = false;
    if (r->ind_len == r->ind_start)
        return 0; /* r->ind may be NULL: no NULL + 0 */
    return put(r, t, n, r->ind + r->ind_start, r->ind_len - r->ind_start);
}

static int put_text(rctx *r, const mst_template *t, const mst_node *n) {
    const char *s = n->s;
    size_t k = n->n;
    if (r->ind_len == r->ind_start) {
        if (put(r, t, n, s, k))
            return -1;
        r->need_indent = s[k - 1] == '\n';
        return 0;
    }
    while (k) {
        if (flush_indent(r, t, n))
            return -1;
        const char *nl = memchr(s, '\n', k);
        size_t m = nl ? (size_t)(nl - s) + 1 : k;
        if (put(r, t, n, s, m))
            return -1;
        if (nl)
            r->need_indent = true;
        s += m;
        k -= m;
    }
    return 0;
}

static int put_escaped(rctx *r, const mst_template *t, const mst_node *n,
                       const char *s, size_t k) {
    size_t run = 0;
    for (size_t i = 0; i < k; i++) {
        const char *rep;
        size_t rl;
        switch (s[i]) {
        case '&':
            rep = "&amp;", rl = 5;
            break;
        case '<':
            rep = "&lt;", rl = 4;
            break;
        case '>':
            rep = "&gt;", rl = 4;
            break;
        case '"':
            rep = "&quot;", rl = 6;
            break;
        default:
            continue;
        }
        if (put(r, t, n, s + run, i - run) || put(r, t, n, rep, rl))
            return -1;
        run = i + 1;
    }
    return put(r, t, n, s + run, k - run);
}

/* Formats a real with the fewest digits that read back the same. */
static size_t fmt_real(double d, char *buf, size_t size) {
    int len = 0;
    for (int prec = 1; prec <= 17; prec++) {
        len = snprintf(buf, size, "%.*g", prec, d);
        if (strtod(buf, NULL) == d)
            break;
    }
    return len > 0 ? (size_t)len : 0;
}

static bool key_eq(const okey *k, const mst_part *p) {
    return k->h == p->h && k->kl == p->n &&
           (p->n <= 8 || memcmp(k->k + 8, p->s + 8, p->n - 8) == 0);
}

/* A lookup in a large object, through the direct-mapped cache of
 * (object, name part) -> value: the data does not change during a render,
 * and the same few names are looked up in the same large objects (the
 * root above all) again and again. */
static json_t *cached_get(rctx *r, const json_t *o, const mst_part *p) {
    uintptr_t h = ((uintptr_t)o >> 4) * 31u + ((uintptr_t)p >> 3);
    struct dcache *c = &r->dc[h & (MST_DCACHE - 1)];
    if (c->o == o && c->p == p)
        return c->v;
    c->o = o;
    c->p = p;
    c->v = json_object_getn(o, p->s, p->n);
    return c->v;
}

static json_t *frame_get(rctx *r, frame *f, const mst_part *p) {
    if (!f->built) {
        f->built = true;
        f->n = 0;
        f->mask = 0;
        f->slot[0] = 0;
        if (!json_is_object(f->v))
            return NULL;
        size_t size = json_object_size(f->v);
        if (size > MST_INDEX_MAX_KEYS) {
            f->n = MST_INDEX_MAX_KEYS + 1;
        } else if (size > 0) {
            grow((void **)&f->buf, &f->cap, size, sizeof *f->buf);
            for (void *it = json_object_iter(f->v); it;
                 it = json_object_iter_next(f->v, it)) {
                okey *k = &f->buf[f->n++];
                k->k = json_object_iter_key(it);
                k->kl = json_object_iter_key_len(it);
                k->h = key_hash(k->k, k->kl);
                k->v = json_object_iter_value(it);
                if (f->n == size)
                    break;
            }
            if (size > MST_SCAN_MAX_KEYS) {
                uint32_t slots = 4;
                while (slots < 2 * size)
                    slots *= 2;
                f->mask = slots - 1;
                memset(f->slot, 0, slots);
                for (uint32_t i = 0; i < f->n; i++) {
                    const okey *k = &f->buf[i];
                    uint32_t at = key_mix(k->h, k->kl) & f->mask;
                    while (f->slot[at])
                        at = (at + 1) & f->mask;
                    f->slot[at] = (uint8_t)(i + 1);
                }
            }
        }
    }
    if (f->n <= MST_SCAN_MAX_KEYS) {
        for (uint32_t i = 0; i < f->n; i++)
            if (key_eq(&f->buf[i], p))
                return f->buf[i].v;
        return NULL;
    }
    if (f->n > MST_INDEX_MAX_KEYS)
        return cached_get(r, f->v, p);
    for (uint32_t at = p->mx & f->mask; f->slot[at]; at = (at + 1) & f->mask) {
        const okey *k = &f->buf[f->slot[at] - 1];
        if (key_eq(k, p))
            return k->v;
    }
    return NULL;
}

static json_t *member(rctx *r, const json_t *o, const mst_part *p) {
    if (!json_is_object(o))
        return NULL;
    return cached_get(r, o, p);
}

/* Looks a name up on the context stack; NULL when missing. */
static json_t *lookup(rctx *r, const mst_node *n) {
    if (n->nparts == 0)
        return r->stack[r->sp - 1].v;
    json_t *v = NULL;
    for (size_t i = r->sp; i-- > 0;)
        if ((v = frame_get(r, &r->stack[i], &n->parts[0])) != NULL)
            break;
    for (uint32_t k = 1; v && k < n->nparts; k++)
        v = member(r, v, &n->parts[k]);
    return v;
}

static bool truthy(const json_t *v) {
    if (!v || json_is_false(v) || json_is_null(v))
        return false;
    if (json_is_array(v))
        return json_array_size(v) > 0;
    return true;
}

static int push_ctx(rctx *r, json_t *v) {
    if (r->sp == r->scap) {
        size_t old = r->scap;
        grow((void **)&r->stack, &r->scap, r->sp + 1, sizeof *r->stack);
        memset(r->stack + old, 0, (r->scap - old) * sizeof *r->stack);
    }
    frame *f = &r->stack[r->sp++];
    f->v = v;
    f->built = false;
    return 0;
}

static int render_nodes(rctx *r, const mst_template *t, const mst_node *ns,
                        size_t count);

static int interpolate(rctx *r, const mst_template *t, const mst_node *n) {
    json_t *v = lookup(r, n);
    if (!v && r->strict)
        return rfail(r, t, n, "unknown name '%.*s'", (int)n->n, n->s);
    if (flush_indent(r, t, n))
        return -1;
    if (!v)
        return 0;
    bool esc = n->kind == N_VAR && !r->no_escape;
    char buf[64];
    switch (json_typeof(v)) {
    case JSON_STRING:
        if (esc)
            return put_escaped(r, t, n, json_string_value(v),
                               json_string_length(v));
        return put(r, t, n, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: {
        json_int_t x = json_integer_value(v);
        unsigned long long u =
            x < 0 ? 0ull - (unsigned long long)x : (unsigned long long)x;
        char *e = buf + sizeof buf, *p = e;
        do {
            *--p = (char)('0' + u % 10);
            u /= 10;
        } while (u);
        if (x < 0)
            *--p = '-';
        return put(r, t, n, p, (size_t)(e - p));
    }
    case JSON_REAL:
        return put(r, t, n, buf, fmt_real(json_real_value(v), buf, sizeof buf));
    case JSON_TRUE:
        return put(r, t, n, "true", 4);
    case JSON_FALSE:
        return put(r, t, n, "false", 5);
    case JSON_NULL:
        return 0;
    default:
        if (r->strict)
            return rfail(r, t, n, "cannot interpolate '%.*s': it is %s",
                         (int)n->n, n->s,
                         json_is_object(v) ? "an object" : "an array");
        return 0;
    }
}

static int enter(rctx *r, const mst_template *t, const mst_node *n) {
    if (r->depth >= r->max_depth)
        return rfail(r, t, n,
                     "nesting deeper than %u (sections, partials "
                     "and blocks)",
                     r->max_depth);
    r->depth++;
    return 0;
}

/* Prefetching for a section over a large array.  The values of a view
 * are allocated element after element (in `gen` from a bump arena), so
 * the memory between the json_t of element i+1 and that of element i+2
 * holds one element's keys, values and strings: fetching that range
 * while element i renders turns the pointer chasing of the next lookups
 * into streaming reads.  Prefetches never fault; the range is capped, and
 * skipped when the elements are not in ascending order. */
#define MST_PREFETCH_MAX 16384u

static void prefetch_next(const json_t *arr, size_t i, size_t sz) {
#if defined(__GNUC__)
    if (i + 2 >= sz)
        return;
    /* compared as integers: the two values are different objects */
    uintptr_t a = (uintptr_t)json_array_get(arr, i + 1);
    uintptr_t b = (uintptr_t)json_array_get(arr, i + 2);
    if (b <= a || b - a > MST_PREFETCH_MAX)
        return;
    for (uintptr_t p = a; p < b; p += 64)
        __builtin_prefetch((const void *)p);
#else
    (void)arr;
    (void)i;
    (void)sz;
#endif
}

static int section(rctx *r, const mst_template *t, const mst_node *n) {
    json_t *v = lookup(r, n);
    if (!v && r->strict)
        return rfail(r, t, n, "unknown name '%.*s'", (int)n->n, n->s);
    bool yes = truthy(v);
    if (n->kind == N_INVERTED) {
        if (yes)
            return 0;
        if (enter(r, t, n))
            return -1;
        int rc = render_nodes(r, t, n->kids, n->nkids);
        r->depth--;
        return rc;
    }
    if (!yes)
        return 0;
    if (enter(r, t, n))
        return -1;
    int rc = 0;
    if (json_is_array(v)) {
        size_t sz = json_array_size(v);
        for (size_t i = 0; i < sz && rc == 0; i++) {
            prefetch_next(v, i, sz);
            push_ctx(r, json_array_get(v, i));
            rc = render_nodes(r, t, n->kids, n->nkids);
            r->sp--;
        }
    } else {
        push_ctx(r, v);
        rc = render_nodes(r, t, n->kids, n->nkids);
        r->sp--;
    }
    r->depth--;
    return rc;
}

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
static mst_template *get_partial(rctx *r, const mst_template *t,
                                 const mst_node *n, bool *failed) {
    char small[256];
    const char *name = n->s;
    size_t nn = n->n;
    *failed = false;
    if (n->dynamic) {
        json_t *v = lookup(r, n);
        if (!json_is_string(v)) {
            if (r->strict) {
                *failed = true;
                rfail(r, t, n, "dynamic partial name '%.*s' %s", (int)n->n,
                      n->s, v ? "is not a string" : "is unknown");
            }
            return NULL;
        }
        name = json_string_value(v);
        nn = json_string_length(v);
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
            rfail(r, t, n,
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
            rfail(r, t, n, "cannot read partial '%s': %s", key,
                  mst_strerror(lerr));
            free(e->name);
            free(e);
            if (key != small)
                free(key);
            return NULL;
        }
        if (text) {
            mst_error cerr;
            e->t = mst_compile(key, text, len, &cerr);
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
        rfail(r, t, n, "unknown partial '%s'", key);
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

static int include(rctx *r, const mst_template *t, const mst_node *n) {
    bool failed;
    mst_template *p = get_partial(r, t, n, &failed);
    if (failed)
        return -1;
    if (!p)
        return 0;
    if (!n->standalone && flush_indent(r, t, n))
        return -1;
    if (enter(r, t, n))
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
    int rc = render_nodes(r, p, p->nodes, p->nnodes);
    if (n->kind == N_PARENT)
        r->nov--;
    r->ind_start = save_start;
    r->ind_len = save_len;
    r->depth--;
    return rc;
}

static int block(rctx *r, const mst_template *t, const mst_node *n) {
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
    if (enter(r, t, n))
        return -1;
    size_t save_len = r->ind_len;
    if (n->standalone) {
        push_indent(r, n->indent, n->indent_len);
        r->need_indent = true;
    }
    int rc = render_nodes(r, bt, body->kids, body->nkids);
    r->ind_len = save_len;
    r->depth--;
    return rc;
}

static int render_nodes(rctx *r, const mst_template *t, const mst_node *ns,
                        size_t count) {
    r->steps += count + 1;
    if (r->steps > r->max_steps)
        return rfail(r, t, count ? ns : NULL,
                     "rendering takes more than %llu steps",
                     (unsigned long long)r->max_steps);
    for (size_t i = 0; i < count; i++) {
        const mst_node *n = &ns[i];
        int rc;
        switch (n->kind) {
        case N_TEXT:
            rc = put_text(r, t, n);
            break;
        case N_VAR:
        case N_RAW:
            rc = interpolate(r, t, n);
            break;
        case N_SECTION:
        case N_INVERTED:
            rc = section(r, t, n);
            break;
        case N_PARTIAL:
        case N_PARENT:
            rc = include(r, t, n);
            break;
        default:
            rc = block(r, t, n);
            break;
        }
        if (rc)
            return rc;
    }
    return 0;
}

int mst_render(const mst_template *t, json_t *data, const mst_loader *loader,
               const mst_options *opts, char **out, size_t *outlen,
               mst_error *err) {
    rctx r;
    memset(&r, 0, sizeof r);
    r.loader = loader;
    r.err = err;
    r.no_escape = opts && opts->no_escape;
    r.strict = opts && opts->strict;
    r.max_depth =
        opts && opts->max_depth ? opts->max_depth : MST_DEFAULT_MAX_DEPTH;
    if (r.max_depth > MST_MAX_DEPTH)
        r.max_depth = MST_MAX_DEPTH; /* the C stack bounds the recursion */
    r.max_out =
        opts && opts->max_output ? opts->max_output : MST_DEFAULT_MAX_OUTPUT;
    /* Work limit: bounds templates that loop without output. */
    r.max_steps = (uint64_t)r.max_out * 2 + ((uint64_t)1 << 20);
    if (r.max_steps > ((uint64_t)1 << 30))
        r.max_steps = (uint64_t)1 << 30;
    r.need_indent = true;
    push_ctx(&r, data ? data : json_null());
    int rc = out_reserve(&r, t, NULL, 0);
    if (rc == 0)
        rc = render_nodes(&r, t, t->nodes, t->nnodes);
    pcache *e, *tmp;
    HASH_ITER(hh, r.cache, e, tmp) {
        HASH_DEL(r.cache, e);
        mst_template_free(e->t);
        free(e->name);
        free(e);
    }
    for (size_t i = 0; i < r.scap; i++)
        free(r.stack[i].buf);
    free(r.stack);
    free(r.ind);
    free(r.ov);
    if (rc) {
        free(r.out);
        if (out)
            *out = NULL;
        if (outlen)
            *outlen = 0;
        return -1;
    }
    r.out[r.len] = '\0';
    if (out)
        *out = r.out;
    else
        free(r.out);
    if (outlen)
        *outlen = r.len;
    return 0;
}

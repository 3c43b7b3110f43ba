/*
 * templates/mustache_lex.c - compile passes 1-3: tokens, pairing of
 * closers with openers, the standalone-line rule (see mustache.c).
 */
#include "mustache_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Pass 1: tokens                                                      */

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

/* The kind of a tag {{X...}} after `{{` by its sigil X (not '{' or
 * '='). */
static uint8_t tag_kind(char sig) {
    switch (sig) {
    case '#':
        return T_SECTION;
    case '^':
        return T_INVERTED;
    case '/':
        return T_CLOSE;
    case '!':
        return T_COMMENT;
    case '>':
        return T_PARTIAL;
    case '<':
        return T_PARENT;
    case '$':
        return T_BLOCK;
    case '&':
        return T_RAW;
    default:
        return T_VAR;
    }
}

/* The delimiters in effect. */
typedef struct delims {
    const char *otag, *ctag;
    size_t olen, clen;
} delims;

/* A set-delimiter tag {{=O C=}} with content name[0, nn): sets *d. */
static int set_delims(compiler *c, const char *name, size_t nn, const tok *t,
                      delims *d) {
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
        mst_set_error(c->err, c->name, t->line, t->col,
                      "bad set-delimiter tag: expected two delimiters "
                      "without spaces or '=' (like {{=<%% %%>=}})");
        return -1;
    }
    *d = (delims){o, cl, on, cn};
    return 0;
}

int mst_tokenize(compiler *c) {
    const char *src = c->src;
    size_t len = c->len;
    delims d = {"{{", "}}", 2, 2};
    char closebuf[2 + 256];
    uint32_t line = 1;
    size_t line_start = 0, pos = 0;

    while (pos < len) {
        size_t at = mst_find(src, len, pos, d.otag, d.olen);
        emit_text_toks(c, pos, at == SIZE_MAX ? len : at, &line, &line_start);
        if (at == SIZE_MAX)
            break;
        uint32_t tline = line, tcol = (uint32_t)(at - line_start + 1);
        size_t p = at + d.olen;
        char sig = p < len ? src[p] : '\0';
        uint8_t kind;
        size_t cstart, cend, tend;
        if (sig == '{' || sig == '=') {
            /* "}" + ctag or "=" + ctag */
            closebuf[0] = sig == '{' ? '}' : '=';
            memcpy(closebuf + 1, d.ctag, d.clen);
            size_t e = mst_find(src, len, p + 1, closebuf, d.clen + 1);
            if (e == SIZE_MAX) {
                mst_set_error(c->err, c->name, tline, tcol,
                              sig == '{'
                                  ? "unclosed tag: missing '}%.*s'"
                                  : "unclosed set-delimiter tag: missing "
                                    "'=%.*s'",
                              (int)d.clen, d.ctag);
                return -1;
            }
            kind = sig == '{' ? T_RAW : T_DELIM;
            cstart = p + 1;
            cend = e;
            tend = e + 1 + d.clen;
        } else {
            size_t e = mst_find(src, len, p, d.ctag, d.clen);
            if (e == SIZE_MAX) {
                mst_set_error(c->err, c->name, tline, tcol,
                              "unclosed tag: missing '%.*s'", (int)d.clen,
                              d.ctag);
                return -1;
            }
            cstart = p + 1;
            cend = e;
            tend = e + d.clen;
            kind = tag_kind(sig);
            if (kind == T_VAR)
                cstart = p;
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
            if (set_delims(c, name, nn, t, &d))
                return -1;
            continue;
        }
        if ((kind == T_PARTIAL || kind == T_PARENT) && nn && name[0] == '*') {
            t->dynamic = true;
            name++;
            nn--;
            trim(&name, &nn);
        }
        if (nn == 0) {
            mst_set_error(c->err, c->name, tline, tcol, "empty tag");
            return -1;
        }
        for (size_t k = 0; k < nn; k++)
            if (is_space(name[k])) {
                /* a line break or another opening delimiter inside the
                 * name: this tag's closing delimiter is missing and the
                 * next tag's was taken */
                if (memchr(name, '\n', nn) ||
                    mst_find(name, nn, 0, d.otag, d.olen) != SIZE_MAX)
                    mst_set_error(c->err, c->name, tline, tcol,
                                  "unclosed tag: missing '%.*s'", (int)d.clen,
                                  d.ctag);
                else
                    mst_set_error(c->err, c->name, tline, tcol,
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

int mst_match_sections(compiler *c) {
    size_t *stack = NULL, sp = 0, cap = 0;
    int rc = 0;
    for (size_t i = 0; i < c->ntoks && rc == 0; i++) {
        tok *t = &c->toks[i];
        if (is_opener(t->kind)) {
            if (sp >= MST_MAX_NESTING) {
                mst_set_error(c->err, c->name, t->line, t->col,
                              "sections nested deeper than %u",
                              MST_MAX_NESTING);
                rc = -1;
                break;
            }
            grow((void **)&stack, &cap, sp + 1, sizeof *stack);
            stack[sp++] = i;
        } else if (t->kind == T_CLOSE) {
            if (sp == 0) {
                mst_set_error(c->err, c->name, t->line, t->col,
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
                mst_set_error(c->err, c->name, t->line, t->col,
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
        mst_set_error(c->err, c->name, o->line, o->col,
                      "unclosed section {{%s%.*s}}", sigil(o->kind), (int)o->n,
                      o->s);
        rc = -1;
    }
    free(stack);
    return rc;
}

/* ------------------------------------------------------------------ */
/* Pass 3: standalone lines                                            */

static bool can_stand_alone(uint8_t k) {
    return k != T_TEXT && k != T_VAR && k != T_RAW;
}

void mst_standalone(compiler *c) {
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

/*
 * templates/mustache_internal.h - private to the mustache engine
 * (templates/mustache*.c): the compiled form, the compiler's tokens and
 * the renderer's state, shared by its files:
 *
 *   mustache.c           errors and small helpers;
 *   mustache_lex.c       compile passes 1-3: tokens, matching, standalone;
 *   mustache_tree.c      compile pass 4 (the node tree) and mst_compile;
 *   mustache_render.c    rendering: output, the context stack, lookups,
 *                        interpolation, sections and lazy lists;
 *   mustache_partials.c  partials, parents and blocks (inheritance);
 *   mustache_value.c     the data interface: native objects and lists,
 *                        the jansson adapter (mst_val, mustache.h).
 */
#ifndef PLANWRAP_TEMPLATES_MUSTACHE_INTERNAL_H
#define PLANWRAP_TEMPLATES_MUSTACHE_INTERNAL_H

#include "templates/mustache.h"

#include "base/base.h"
#include "base/hash.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MST_DEFAULT_MAX_DEPTH MST_MAX_DEPTH
#define MST_MAX_NESTING 100000u
#define MST_DEFAULT_MAX_OUTPUT ((size_t)1 << 30)

#if defined(__GNUC__)
#define MST_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define MST_PRINTF(f, a)
#endif

/* For a helper of a recursive render function whose locals must not
 * stay on the stack while the recursion runs (MST_MAX_DEPTH levels). */
#if defined(__GNUC__)
#define MST_NOINLINE __attribute__((noinline))
#else
#define MST_NOINLINE
#endif

/* Grows *p (elements of size `sz`) so that it holds at least `need`. */
static inline void grow(void **p, size_t *cap, size_t need, size_t sz) {
    if (need <= *cap)
        return;
    size_t nc = *cap ? *cap : 16;
    while (nc < need)
        nc *= 2;
    *p = base_xrealloc(*p, nc * sz);
    *cap = nc;
}

void mst_set_error(mst_error *e, const char *source, uint32_t line,
                   uint32_t col, const char *fmt, ...) MST_PRINTF(5, 6);

static inline bool is_ws(char c) {
    return c == ' ' || c == '\t';
}

static inline bool is_space(char c) {
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Finds needle (nlen > 0) in hay[from, hlen); returns offset or SIZE_MAX. */
size_t mst_find(const char *hay, size_t hlen, size_t from, const char *needle,
                size_t nlen);

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
    uint64_t t;  /* mst_key_tail(s, n) */
    uint32_t mx; /* key_mix(h, n): picks the slot in a frame's index */
    uint64_t bm; /* mst_key_bits(mx): its bits in a bloom */
} mst_part;

/* The signature and mix of a key (mustache.h: mst_key_hash, mst_key_mix). */
static inline uint64_t key_hash(const char *s, size_t n) {
    return mst_key_hash(s, n);
}

static inline uint32_t key_mix(uint64_t h, size_t n) {
    return mst_key_mix(h, n);
}

/* Native data (mustache.h, mustache_value.c): singly linked fields (their
 * layout in mustache.h, for the inline mst_v_set) and items in an arena. */
typedef struct mst_item {
    struct mst_item *next;
    mst_val v;
} mst_item;

struct mst_list {
    mst_item *head, *tail;
    size_t n;
};

/* Whether key k (of p's signature and length) is p: past the first 8
 * bytes, the tail of a key of up to 16 bytes in one load (p->t), no
 * memcmp. */
static inline bool mst_part_rest_eq(const char *k, const mst_part *p) {
    if (p->n <= 8)
        return true;
    if (p->n <= 16)
        return mst_key_tail(k, p->n) == p->t;
    return memcmp(k + 8, p->s + 8, p->n - 8) == 0;
}

/* A field of native object o matching part p, or NULL.  Inline: most
 * lookups of a render end here, most of them in the first fields. */
static inline const mst_field *mst_obj_find(const mst_obj *o,
                                            const mst_part *p) {
    if ((o->bloom & p->bm) != p->bm)
        return NULL;
    for (const mst_field *f = o->head; f; f = f->next)
        if (f->h == p->h && f->kl == p->n && mst_part_rest_eq(f->k, p))
            return f;
    return NULL;
}

typedef struct mst_node mst_node;
struct mst_node {
    uint8_t kind;
    bool standalone; /* partial/parent/block: indentation applies */
    bool dynamic;    /* partial/parent name is looked up ({{>*x}}) */
    bool one_line;   /* text: no newline but maybe the last byte */
    uint32_t line, col;
    /* A section {{#x}} of a one-part name: how many such sections are
     * in a row among its siblings from it on (at most 64; 1 when the
     * next sibling is not one), rendered as one step (a run: see
     * run_todo in mustache_render.c).  0 for any other node. */
    uint8_t run;
    mst_part key;  /* parts[0] when nparts > 0: no load of parts */
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

static inline bool is_opener(uint8_t k) {
    return k == T_SECTION || k == T_INVERTED || k == T_PARENT || k == T_BLOCK;
}

static inline bool ws_text(const tok *t) {
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

/* Sets mst_node.run of the nodes ns[0, count) (mustache_tree.c). */
void mst_mark_runs(mst_node *ns, size_t count);

/* The compile passes (mustache_lex.c); each returns 0 or -1 with c->err
 * filled. */
int mst_tokenize(compiler *c);
int mst_match_sections(compiler *c);
void mst_standalone(compiler *c);

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
#define MST_LMEMO 256u
#define MST_RMEMO_BITS 4
#define MST_RMEMO (1u << MST_RMEMO_BITS)
#define MST_BMEMO_BITS 6
#define MST_BMEMO (1u << MST_BMEMO_BITS)

typedef struct rctx {
    const mst_loader *loader;
    bool no_escape, strict;
    unsigned max_depth, depth;
    size_t max_out;
    uint64_t steps, max_steps;
    mst_error *err;
    /* output: out[0, len) not yet written; `flushed` bytes before it
     * written to `stream` (mst_options.stream) */
    char *out;
    size_t len, cap;
    /* len may grow to lim without a check: min(cap - 1, max_out -
     * flushed), kept by out_limit (0 before the first buffer) */
    size_t lim;
    FILE *stream;
    size_t flushed;
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
    /* lists built on demand (mst_options.lazy) */
    const mst_lazy_list *lazy;
    size_t nlazy;
    mst_lazy_index *lazy_ix; /* when nlazy > 4 */
    /* the names of the lazy sections rendered so far (NULL: open) */
    struct sec_names {
        const mst_node *n;
        mst_names *names;
    } * secs;
    size_t nsecs, secs_cap;
    /* bumped whenever a lazy element is released: entries of dc from an
     * older generation are stale (a new element may reuse the address) */
    uint32_t gen;
    /* lazy elements on the context stack now */
    uint32_t nlive;
    /* A small direct-mapped cache of (object, key) -> value for the
     * parts after the first of dotted names ({{names.x}}). */
    struct dcache {
        const json_t *o;
        const mst_part *p;
        json_t *v;
        uint32_t gen;
        /* o was reached from a frame that is not transient: it lives
         * until the render ends, and the entry stays valid whatever gen */
        bool lasting;
    } dc[MST_DCACHE];
    /* Bumped at every push: a frame's serial names it and, since the
     * frames below a frame stay while it is on the stack, the whole
     * stack from it down. */
    uint64_t serial;
    /* A direct-mapped cache of (tag, lasting frame) -> value: the
     * lookup of the first part of tag n's name from the highest frame
     * that is not transient down to the root.  Those frames and their
     * values stay until the render ends, so the answer does too; the
     * names that elements do not have (the event kinds of a view, tested
     * in every event and found at the root) are looked up once. */
    struct lmemo {
        const mst_node *n;
        uint64_t serial;
        mst_val v;
    } lm[MST_LMEMO];
    /* A direct-mapped cache of (run of sections, lasting frame) -> the
     * sections of the run whose name, looked up from that frame down to
     * the root, is false, null or (unless strict) missing: bit j for
     * section j.  Valid as long as the lmemo entries it comes from. */
    struct rmemo {
        const mst_node *n;
        uint64_t serial;
        uint64_t skip;
    } rm[MST_RMEMO];
    /* A direct-mapped cache of (run of sections, bloom of the transient
     * frames on top) -> the sections of the run whose name passes that
     * bloom (bit j for section j): the events of one kind have the same
     * keys, so a handful of blooms come back element after element. */
    struct bmemo {
        const mst_node *n;
        uint64_t tbloom;
        uint64_t in;
    } bm[MST_BMEMO];
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
    mst_val v;
    bool built;
    uint32_t n; /* keys in buf; > MAX: not listed (large object) */
    okey *buf;
    size_t cap;
    /* open-addressing index of buf: slot[mx & mask] holds 1 + the
     * position of the key in buf, 0 = empty; linear probing */
    uint32_t mask;
    /* the bits (mst_key_bits) of each listed key: a name with a bit
     * clear is not in the object */
    uint64_t bloom;
    /* pushed while a lazy element was on the stack: its value (and any
     * value reached from it) may be released before the render ends */
    bool transient;
    /* A transient frame: the OR of the blooms of the native objects
     * among the transient frames from it down (a name whose bit is clear
     * is in none of them), all bits when one of them is a list or JSON
     * value; all bits in a frame that is not transient.  tlow is the
     * position of the lowest of those transient frames, lserial the
     * serial of the frame below it (the first that is not transient). */
    uint64_t tbloom;
    uint32_t tlow;
    uint64_t lserial;
    uint64_t serial; /* rctx.serial when pushed */
    uint8_t slot[MST_INDEX_SLOTS];
} frame;

/* mustache_tree.c: the names the body of section n can look up
 * (mst_names_has); open when the body holds a partial or parent, whose
 * names are not followed. */
mst_names *mst_section_names(const mst_node *n);
bool mst_names_open(const mst_names *s);
void mst_names_free(mst_names *s);

/* Fills r->err at node n (NULL: no location); returns -1. */
int mst_rfail(rctx *r, const mst_template *t, const mst_node *n,
              const char *fmt, ...) MST_PRINTF(4, 5);
int mst_flush_indent(rctx *r, const mst_template *t, const mst_node *n);
/* Looks a name up on the context stack; MST_MISSING when missing. */
mst_val mst_lookup(rctx *r, const mst_node *n);
/* One level deeper (sections, partials, blocks); -1 past max_depth. */
int mst_enter(rctx *r, const mst_template *t, const mst_node *n);
int mst_render_nodes(rctx *r, const mst_template *t, const mst_node *ns,
                     size_t count);
/* mustache_partials.c: {{>x}} and {{<x}}, and {{$x}}. */
int mst_include(rctx *r, const mst_template *t, const mst_node *n);
int mst_block(rctx *r, const mst_template *t, const mst_node *n);

#endif /* PLANWRAP_TEMPLATES_MUSTACHE_INTERNAL_H */

/*
 * templates/mustache.h - a mustache template engine in C over jansson or
 * native data.
 *
 * Compile a template once into a node list, render it many times against a
 * json_t context or native data (mst_val).  Passes the official mustache spec
 * (interpolation, sections, inverted, comments, partials, delimiters,
 * ~inheritance, ~dynamic-names; not ~lambdas).  Extra options for code
 * generation: no-escape and strict.  See docs/templates.md.
 */
#ifndef PLANWRAP_MUSTACHE_H
#define PLANWRAP_MUSTACHE_H

#include "base/base.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Where an error happened: TEMPLATE:LINE:COL: error: TEXT. */
typedef struct mst_error {
    char source[256]; /* template (or partial) name */
    uint32_t line;    /* 1-based; 0 = no location */
    uint32_t col;
    char text[512];
} mst_error;

/* Formats the error as "SOURCE:LINE:COL: error: TEXT" into buf. */
const char *mst_error_format(const mst_error *e, char *buf, size_t size);

/* Resolves a partial or parent name to its source text.  Returns a
 * malloc'ed buffer (caller frees) with *len set.  NULL with errno 0 when
 * NAME is unknown (rendered as nothing, or an error when strict); NULL
 * with errno set when NAME exists but cannot be read (rendering stops
 * with "cannot read partial 'NAME': REASON" at the tag, strict or not). */
typedef char *(*mst_load_fn)(void *ctx, const char *name, size_t *len);

/* The name messages give a partial or parent NAME that load found: a
 * malloc'ed string (caller frees), or NULL to use NAME itself.  A
 * folder loader gives the file's path, so that an error in a user's
 * partial names the user's file. */
typedef char *(*mst_source_fn)(void *ctx, const char *name);

typedef struct mst_loader {
    mst_load_fn load;
    void *ctx;
    mst_source_fn source; /* optional */
} mst_loader;

/* ------------------------------------------------------------------ */
/* The data interface.  The renderer reads its data as mst_val values:
 * a jansson document (`mst_render`, `render --data`) is read through a
 * thin adapter (MST_JSON: an object or array of it; its scalars read as
 * the native kinds), and a caller can serve data natively, built in its
 * own arena without jansson (the elements of a lazy list, element_val):
 * objects keep their keys in insertion order, a key set twice keeps its
 * first place and takes the new value (like json_object_set).  Strings
 * are not copied: they must live as long as the value. */
typedef enum mst_type {
    MST_MISSING, /* no value (a name not found) */
    MST_NULL,
    MST_FALSE,
    MST_TRUE,
    MST_INT,
    MST_REAL,
    MST_STRING,
    MST_LIST,   /* native list */
    MST_OBJECT, /* native object */
    MST_JSON,   /* a jansson object or array */
} mst_type;

typedef struct mst_obj mst_obj;
typedef struct mst_list mst_list;

/* 16 bytes, returned in two registers: no store and reload per lookup. */
typedef struct mst_val {
    uint32_t type; /* mst_type */
    uint32_t n;    /* MST_STRING: bytes (below 4 GiB) */
    union {
        int64_t i;
        double d;
        const char *s;
        mst_obj *obj;
        mst_list *list;
        json_t *json;
    } u;
} mst_val;

/* A string of n < 2^32 bytes. */
static inline mst_val mst_v_str(const char *s, size_t n) {
    mst_val v = {.type = MST_STRING, .n = (uint32_t)n, .u.s = s};
    return v;
}
static inline mst_val mst_v_int(int64_t i) {
    mst_val v = {.type = MST_INT, .u.i = i};
    return v;
}
static inline mst_val mst_v_bool(bool b) {
    mst_val v = {.type = b ? MST_TRUE : MST_FALSE};
    return v;
}
static inline mst_val mst_v_null(void) {
    mst_val v = {.type = MST_NULL};
    return v;
}
/* An empty native list allocated in a (freed with it); mst_v_object, the
 * same for an object, is below its layout. */
mst_val mst_v_list(base_arena *a);

/* The signature of a key in the render-time object index: its first 8
 * bytes (zero-padded).  Keys of up to 8 bytes compare by signature and
 * length alone. */
static inline uint64_t mst_key_hash(const char *s, size_t n) {
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

/* The last 8 bytes of a key of n > 8 bytes (0 for a shorter one): with
 * the signature, a key of up to 16 bytes compares without memcmp. */
static inline uint64_t mst_key_tail(const char *s, size_t n) {
    uint64_t t = 0;
    if (n > 8)
        memcpy(&t, s + n - 8, 8);
    return t;
}

/* Whether key a equals key b, both of n bytes and of the same signature
 * (mst_key_hash): the bytes past the first 8, in one load up to 16 bytes
 * (most keys of a view), else memcmp. */
static inline bool mst_key_rest_eq(const char *a, const char *b, size_t n) {
    if (n <= 8 || a == b)
        return true;
    if (n <= 16)
        return mst_key_tail(a, n) == mst_key_tail(b, n);
    return memcmp(a + 8, b + 8, n - 8) == 0;
}

/* Mixes a signature and length into 32 bits (the high bits of a
 * Fibonacci hash) for the open-addressing index of a frame. */
static inline uint32_t mst_key_mix(uint64_t h, size_t n) {
    return (uint32_t)(((h ^ ((uint64_t)n << 56)) * 0x9E3779B97F4A7C15ull) >>
                      32);
}

/* A key's two bits in a bloom (mst_key_mix's bits 0-5 and 6-11): with
 * one bit, keys an element's template asks for collided with keys of the
 * objects it asks ("death" with one of a statement's four, "alias"
 * with "call"), and every such lookup walked the object in vain. */
static inline uint64_t mst_key_bits(uint32_t mx) {
    return (1ull << (mx & 63)) | (1ull << ((mx >> 6) & 63));
}

/* The layout of a native object, for the inline mst_v_set only (the
 * rest of the engine's data is private: templates/mustache_internal.h):
 * singly linked fields in an arena; the bloom has the bits
 * (mst_key_bits) of each key. */
typedef struct mst_field {
    struct mst_field *next;
    const char *k;
    size_t kl;
    uint64_t h; /* mst_key_hash(k, kl) */
    mst_val v;
} mst_field;

struct mst_obj {
    mst_field *head, *tail;
    uint64_t bloom;
};

/* An empty native object allocated in a (freed with it).  Inline: a view
 * makes one or two per event. */
static inline mst_val mst_v_object(base_arena *a) {
    mst_val v = {.type = MST_OBJECT};
    v.u.obj = (mst_obj *)base_arena_alloc_aligned(a, sizeof *v.u.obj,
                                                  _Alignof(mst_obj));
    return v;
}

/* Sets key k (kn bytes, not copied) of native object o, whose signature
 * h (mst_key_hash) and bloom bits (mst_key_bits of its mix) the caller
 * has made: for a key that varies at run time among a few known ones
 * (an event's kind), each with its h and bits folded at compile time. */
static inline void mst_v_set_hashed(base_arena *a, mst_val o, const char *k,
                                    size_t kn, uint64_t h, uint64_t bits,
                                    mst_val val) {
    PW_ASSERT(o.type == MST_OBJECT);
    mst_obj *ob = o.u.obj;
    if ((ob->bloom & bits) == bits)
        for (mst_field *f = ob->head; f; f = f->next)
            if (f->h == h && f->kl == kn && mst_key_rest_eq(f->k, k, kn)) {
                f->v = val;
                return;
            }
    mst_field *f = (mst_field *)base_arena_alloc_aligned(a, sizeof *f,
                                                         _Alignof(mst_field));
    f->k = k;
    f->kl = kn;
    f->h = h;
    f->v = val;
    if (ob->tail)
        ob->tail->next = f;
    else
        ob->head = f;
    ob->tail = f;
    ob->bloom |= bits;
}

/* Sets key k (kn bytes, not copied) of native object o.  Inline: a
 * view sets some ten keys per element, most of them string literals
 * whose signature folds at compile time. */
static inline void mst_v_set(base_arena *a, mst_val o, const char *k, size_t kn,
                             mst_val val) {
    uint64_t h = mst_key_hash(k, kn);
    mst_v_set_hashed(a, o, k, kn, h, mst_key_bits(mst_key_mix(h, kn)), val);
}
/* Appends val to native list l. */
void mst_v_append(base_arena *a, mst_val l, mst_val val);
/* Key k of object o (native or JSON), MST_MISSING when absent. */
mst_val mst_v_get(mst_val o, const char *k, size_t kn);
/* Items of list l (native or a JSON array) in order: *it starts NULL;
 * false past the end. */
bool mst_v_next(mst_val l, const void **it, mst_val *out);
/* The value of a jansson value (NULL: MST_MISSING). */
mst_val mst_v_json(json_t *j);
/* A native value as a new jansson document (the same keys in the same
 * order; JSON values are shared, with a new reference). */
json_t *mst_v_to_json(mst_val v);

/* A list built element by element while it renders (a streaming view,
 * docs/templates.md): where the value of a section is `marker` (a
 * placeholder in the data, matched by address), the section iterates
 * count(ctx) elements, each built by element(ctx, i) just before it
 * renders and released (json_decref) right after, so that the whole list
 * never exists at once.  The section is truthy when count is not 0.
 * element returns a new reference, or NULL to stop rendering with an
 * error; it may be NULL itself when element_val is set.  Any other use
 * of the marker sees the placeholder itself. */
typedef struct mst_names mst_names;

typedef struct mst_lazy_list {
    const json_t *marker;
    size_t (*count)(void *ctx);
    json_t *(*element)(void *ctx, size_t i);
    void *ctx;
    /* Optional: used instead of element when rendering, with the names
     * the section's body can look up (NULL: any name), so that the
     * element may leave out every key that is not among them
     * (mst_names_has).  NULL when the body holds a partial or parent, or
     * while a parent's blocks are overridden. */
    json_t *(*element_in)(void *ctx, size_t i, const mst_names *names);
    /* Optional, used before both when rendering: element i as native
     * data (MST_MISSING: stop with an error; returned in registers, not
     * through memory: its two 8-byte halves stored and read back as one
     * 16-byte load stalled the render at each element), valid and unchanged
     * (no key added: the renderer keeps the blooms of the objects on its
     * context stack) until the release(ctx) that follows its body (NULL:
     * nothing to release).
     * An element of the same list may be asked for while one is live (a
     * section over the list inside its own body). */
    mst_val (*element_val)(void *ctx, size_t i, const mst_names *names);
    void (*release)(void *ctx);
} mst_lazy_list;

/* Whether `name` (len bytes) is among names: a tag in the section's body
 * looks it up (as a name or as any part of a dotted name).  True for any
 * name when names is NULL.  Valid during the element_in call only. */
bool mst_names_has(const mst_names *names, const char *name, size_t len);

/* The lists of lazy[0, n) by marker, to find the list of a value among
 * many (a view has two per pool): lazy must outlive it.  find returns
 * NULL when v is no list's marker. */
typedef struct mst_lazy_index mst_lazy_index;
mst_lazy_index *mst_lazy_index_new(const mst_lazy_list *lazy, size_t n);
const mst_lazy_list *mst_lazy_index_find(const mst_lazy_index *ix,
                                         const json_t *v);
void mst_lazy_index_free(mst_lazy_index *ix);

typedef struct mst_options {
    bool no_escape;     /* {{x}} is not HTML-escaped (code generation) */
    bool strict;        /* unknown name or missing partial is an error */
    unsigned max_depth; /* partial/section nesting limit; 0 = default;
                           at most MST_MAX_DEPTH (larger is clamped) */
    size_t max_output;  /* output size limit in bytes; 0 = default (1 GiB) */
    const mst_lazy_list *lazy; /* lazy[0, nlazy): lists built on demand */
    size_t nlazy;
    /* When set, the output is written to `stream` as it renders (in
     * chunks of about MST_CHUNK bytes) instead of returned: *out is NULL
     * and *outlen the bytes written.  A failed write stops rendering
     * with "cannot write the output: REASON" (ferror(stream) set). */
    FILE *stream;
} mst_options;

/* The output kept in memory while rendering to mst_options.stream. */
#define MST_CHUNK ((size_t)1 << 20)

typedef struct mst_template mst_template;

/* Compiles `text` (need not be NUL-terminated).  `name` is used in error
 * messages.  NULL on error, with *err filled. */
mst_template *mst_compile(const char *name, const char *text, size_t len,
                          mst_error *err);
void mst_template_free(mst_template *t);

/* Renders `t` against `data`.  Partials and parents are resolved through
 * `loader` (may be NULL: none).  On success returns 0 and a malloc'ed,
 * NUL-terminated *out (length *outlen); on error returns -1, *out = NULL,
 * and fills *err.  Deterministic. */
int mst_render(const mst_template *t, json_t *data, const mst_loader *loader,
               const mst_options *opts, char **out, size_t *outlen,
               mst_error *err);

/* mst_render against data served natively (the data interface above):
 * the same output as mst_render of the same document in JSON. */
int mst_render_val(const mst_template *t, mst_val data,
                   const mst_loader *loader, const mst_options *opts,
                   char **out, size_t *outlen, mst_error *err);

/* Built-in templates, compiled into the binary from templates/ (name is
 * the path below templates/ without ".mustache", e.g. "c/model.c").
 * Returns NULL when there is no such template. */
const char *mst_builtin(const char *name, size_t *len);

/* A loader that looks up NAME as DIR/NAME.mustache first (when dir is
 * non-NULL) and then among the built-ins.  `dir` must outlive it.  Only a
 * DIR/NAME.mustache that does not exist (ENOENT, ENOTDIR) falls back to
 * the built-in: one that exists but cannot be read (a directory, no
 * permission, a read error) fails the load with errno set. */
mst_loader mst_dir_loader(const char *dir, bool with_builtins);

/* True when DIR/NAME.mustache exists but cannot be read; then writes
 * "cannot read DIR/NAME.mustache: REASON" into why.  Tells, after a load
 * failed, why (planwrap gen names the file this way). */
bool mst_dir_unreadable(const char *dir, const char *name, char *why,
                        size_t size);

/* The name of built-in template number i (in sorted order), or NULL when
 * i is past the end: lists the built-ins. */
const char *mst_builtin_name(size_t i);

/* Reads a whole regular file (binary).  Returns a malloc'ed,
 * NUL-terminated buffer with *len set, or NULL (errno set) when it cannot
 * be read: EISDIR for a directory, MST_ENOTREG for a FIFO, socket or
 * device (never opened for blocking: a FIFO without a writer does not
 * hang), EFBIG when larger than PLANWRAP_MAX_INPUT bytes (default 1 GiB). */
char *mst_read_file(const char *path, size_t *len);

/* The deepest nesting rendering allows (and the default): rendering
 * recurses once per level, and deeper could overflow an 8 MB stack. */
#define MST_MAX_DEPTH 10000u

/* errno of mst_read_file for a file that is not a regular file. */
#define MST_ENOTREG 0x7f0001
/* strerror(err), with a message for MST_ENOTREG and EFBIG. */
const char *mst_strerror(int err);

/* With mst_dir_loader(dir, true), the name "builtin:NAME" always loads the
 * built-in NAME, so that DIR/NAME.mustache can override NAME and still
 * extend the original with {{<builtin:NAME}}...{{/builtin:NAME}}. */

/* Calls fn for every name that rendering `t` can look up in its data:
 * each part of each dotted name of a tag (variables, sections, inverted
 * sections, dynamic partial and parent names), in source order, with
 * repeats.  Names in partials and parents are not followed. */
void mst_template_names(const mst_template *t,
                        void (*fn)(void *ctx, const char *name, size_t len),
                        void *ctx);

/* Calls fn for every block tag {{$NAME}} of `t`, in source order, with
 * its line and column.  `parent` (plen bytes) is the name of the parent
 * tag the block is directly inside ({{<parent}}{{$NAME}}: an override of
 * that parent's block NAME), NULL for a block the template declares (or
 * one inside a dynamic parent).  Parents are not followed. */
typedef void (*mst_block_fn)(void *ctx, const char *name, size_t len,
                             const char *parent, size_t plen, uint32_t line,
                             uint32_t col);
void mst_template_blocks(const mst_template *t, mst_block_fn fn, void *ctx);

/* DIR/NAME.mustache (malloc'ed) when a mst_dir_loader(dir, ...) takes
 * NAME from DIR (the file exists; never for "builtin:" names), else NULL:
 * the name to compile a user's template under, so that its errors name
 * the user's file. */
char *mst_dir_source(const char *dir, const char *name);

#endif /* PLANWRAP_MUSTACHE_H */

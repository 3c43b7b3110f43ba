/*
 * codegen/view_internal.h - private to the view (codegen/view*.c): the
 * builder's state `vw`, the key-set filter, the string builder and the
 * functions the view's files share (prefix cg_).
 *
 * The view is built in phases over one vw: names (view_names.c), pools
 * (view_pools.c), kernels (view_kernels.c), values (view_layout.c),
 * streams (view_streams.c), the firmware and CUDA graph plans (fw_view.c,
 * view_graphs.c); then the root and its small sections (pools, inputs, consts,
 * outputs, streams).  The statements, buffers and kernels are lists built on
 * demand (struct cg_view): one element at a time, by cg_statement_val (native),
 * cg_buffer_val (native) and cg_kernel_json, the one place each element's
 * fields are defined.
 */
#ifndef PLANWRAP_CODEGEN_VIEW_INTERNAL_H
#define PLANWRAP_CODEGEN_VIEW_INTERNAL_H

#include "codegen/codegen.h"
#include "base/base.h"
#include "base/hash.h"
#include "templates/mustache.h"

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A set of names (view_names.c): open addressing with linear probing,
 * at most half full; slot i holds hash[i] (0 = empty) and name[i]. */
typedef struct cg_nameset {
    uint32_t *hash;
    const char **name;
    size_t cap, n;
} cg_nameset;

/* Whether a key (a string literal, by address) is in the key set. */
typedef struct keep_memo {
    const char *k;
    bool keep;
    bool internal; /* read back by the view itself: kept in any section */
    UT_hash_handle hh;
} keep_memo;

/* An element of the "inputs", "consts" or "outputs" section as
 * cg_io_val reads it, packed in section order (cg_plan_io): rendering a
 * section walks these in order, not the IR's values (some 150 bytes
 * apart, a cache miss each in every section over the consts). */
typedef struct cg_io_item {
    const char *name, *field, *macro; /* the macro: M_KIND_STEM_SIZE */
    uint64_t bytes;
    uint32_t name_len, field_len, macro_len;
    uint32_t x; /* io_list[k][i]: the value, or the output position */
    uint8_t dtype;
} cg_io_item;

/* A state ... next= pair (fw_view.c): the names and offset macros of
 * both. */
typedef struct cg_pair {
    const char *hn, *yn, *ho, *yo;
} cg_pair;

/* The number of kinds of event (cg_event_kinds). */
#define CG_NEVENT_KINDS 10

/* Slots of vw.lcache (a power of two). */
#define CG_LCACHE 256u

/* Slots of vw.macro_memo (a power of two). */
#define CG_MACRO_MEMO 64u

/* Sets of vw.keep_dm (a power of two), of two entries each. */
#define CG_KEEP_DM 1024u

typedef struct vw {
    const plan *pl;
    const ir_program *prog;
    base_arena *a;
    /* the strings that live as long as the view, unaligned: packed
     * together, no padding after each (most are short names) */
    base_arena *sa;
    /* where strings go: `sa`, or while an element of a list built on
     * demand is built, a scratch arena emptied before the next one (its
     * strings are copied into the element) */
    base_arena *str;
    base_arena *scratch;
    bool cuda;
    bool kernel_status;
    const char *M; /* model prefix */

    /* file-scope and local C identifiers (the value locals only when
     * they could collide: cg_plan_values) */
    cg_nameset ids;

    /* per value */
    const char **local;
    bool *
        used; /* read by a call (cg_plan_kernels), an alias or an output copy */
    bool *is_const; /* root is an input or const */

    /* per storage */
    int32_t *spool; /* view pool index, -1 = an output's memory (owner) */
    /* the stem of its buffer macros (cg_buf_macro; NULL when not
     * pooled), to be upper-cased when bstem_lower */
    const char **bstem;
    bool bstem_lower;
    uint64_t *salign;

    /* view pools: plan pools then one per unpooled storage */
    uint32_t npools;
    const char **pool_name;  /* struct field / display name */
    const char **pool_local; /* pw_pool local */
    const char **pool_upper; /* macro stem */
    uint64_t *pool_size, *pool_align;
    int32_t *pool_plan;    /* plan pool index, -1 synthetic */
    int32_t *pool_storage; /* synthetic: its storage */

    /* per kernel */
    const char **kname; /* C name */
    uint32_t *knparams;
    const char ***kptype; /* parameter C types */
    bool **kconst;        /* parameter is a pointer to const */

    /* streams: distinct stream= numbers, ascending */
    const uint64_t *stream_ids;
    const plan_sync *sync; /* the plan's (pl->sync) */
    uint32_t nstreams;

    /* parameters and fixed names */
    const char *p_in, *p_c, *p_out, *p_p, *p_ctx, *p_stream, *rc, *copy_fn;
    const char *pools_var, *check_macro;

    /* outputs */
    bool *out_copy; /* per output position: copied at the output stmt */
    /* per output position: struct field and size macro (cg_plan_io) */
    const char **out_field, **out_size_macro;
    /* per input or const value: struct field (cg_plan_io) */
    const char **io_field;
    /* the "inputs", "consts" and "outputs" sections (cg_plan_io), served
     * natively (cg_io_val): per section (cg_io_kind) its elements in
     * order, the input or const values or the output positions
     * (planned outputs left out) and their size macros */
    uint32_t *io_list[3];
    uint32_t nio[3];
    /* per section, its elements in order: what cg_io_val reads */
    struct cg_io_item *io_item[3];

    /* the lengths of strings that live as long as the view and repeat
     * across elements (pool names, types, fields, macros), by address
     * (nsetl): no strlen each time an element sets one */
    struct cg_lcache {
        const char *s;
        size_t n;
    } lcache[CG_LCACHE];
    /* strlen(M) */
    size_t Mlen;
    /* every local is b_NAME (cg_plan_values): its length is the name's
     * plus 2 (cg_local_len) */
    bool locals_plain;

    /* cg_ptr_type by [const][dtype]: one string each */
    const char *ptr_of[2][IR_DTYPE_COUNT + 1];

    /* "M_BUF_STEM", the prefix of the macros of storage `of` - 1 (0:
     * none), of the last storage s met at s % CG_MACRO_MEMO whose prefix
     * fits (cg_buf_macro): a storage's macros are asked for one after
     * the other, interleaved with a few other storages' */
    struct cg_macro_memo {
        uint32_t of, n;
        char p[56];
    } macro_memo[CG_MACRO_MEMO];

    /* the one-line texts of the statements (cg_input_hash; NULL before):
     * statement i's at stmt_txt + stmt_off[i], NUL-terminated, its
     * length stmt_off[i + 1] - stmt_off[i] - 1 (0 - 1 for none); both
     * in the arena `a`, or in `texts` (made ahead, cg_texts_start) */
    char *stmt_txt;
    uint32_t *stmt_off;
    cg_texts *texts;
    /* per statement: its IR line (live_at's; cg_plan_statements) */
    uint32_t *stmt_line;

    /* the keys to keep (NULL: all) and keep_key's answers: a two-way
     * cache by key address in front of the memo table (direct-mapped,
     * two keys of one element that met in a slot, which the layout of
     * string literals decides, cost a memo search per element) */
    const cg_keyset *keep;
    keep_memo *keep_memo;
    struct {
        const char *k;
        bool keep;
    } keep_dm[CG_KEEP_DM][2];
    /* while an element is built for a section (mst_lazy_list.element_in,
     * with a key set only): the names its body can look up, which
     * narrow the key set (NULL: no narrowing) */
    const mst_names *section;
    /* Names the pair (key set, section) keep_key answers for: a new one
     * (cg_keep_epoch_next, unique in the process) whenever section
     * changes and at the first element of every section's pass
     * (cg_set_section).  keep_dm holds the answers of dm_epoch; a
     * call site of nset and its kin remembers its answer with its epoch
     * (cg_keep_site). */
    uint64_t keep_epoch, dm_epoch;

    /* the element builders' data, computed once (cg_view_new) */
    int32_t *death_head, *death_next; /* deaths by statement */
    uint32_t nbuffers;
    uint32_t *buffer_storage; /* the storage of buffer k (pooled ones) */
    const char **psize;       /* per view pool: its size macro */
    /* cuda: the graph partitions (view_graphs.c); NULL otherwise */
    int64_t *graph_begin, *graph_end, ngraphs;
    bool *captured, graphs_on;
    /* firmware (fw_view.c): kinds among the buffers, state pairs, and
     * per pooled storage its value's kind bits and zero_at_init (read
     * once in storage order: a buffer's element reads them from here,
     * not from the value's record, two cache lines past its name) */
    unsigned fw_kinds;
    uint8_t *fw_flags;
    cg_pair *pairs;
    uint32_t npairs, pairs_cap;
    /* the pooled storages of view pool i, in storage order:
     * pool_buf[pool_buf_begin[i], pool_buf_begin[i + 1]); and the widths
     * of the columns of its comment table (name, offset, size) */
    uint32_t *pool_buf, *pool_buf_begin;
    uint32_t (*pool_w)[3];
    /* Native elements (statements, buffers): built as mst_val into `el`, the
     * arena of the innermost element being built; els[0, nels) are the
     * arenas, one per element live at once (a section over the list
     * inside its own body asks for another while one is live), the
     * first `live` of them in use. */
    base_arena *el;
    base_arena **els;
    size_t nels, live;
    /* the lists built on demand (cg_lazy_add), malloc'ed: the root's
     * statements, buffers and kernels, then each pool's table and
     * buffers */
    mst_lazy_list *lazy;
    size_t nlazy, lazy_cap;
} vw;

/* The streaming view (codegen.h): the builder's state and the root with
 * a placeholder for each list built on demand (v.lazy). */
struct cg_view {
    vw v;
    json_t *root;
};

/* A list built on demand: returns its placeholder, to put where the
 * list belongs (a new reference; the view holds its own until
 * cg_view_free).  element(ctx, i) builds element i between
 * cg_element_begin and cg_element_end; NULL for a list served natively
 * (then set its element_val and release). */
json_t *cg_lazy_add(vw *v, size_t (*count)(void *),
                    json_t *(*element)(void *, size_t), void *ctx,
                    json_t *(*element_in)(void *, size_t, const mst_names *));

/* An element's strings go to the scratch arena, emptied first (the
 * previous element's JSON holds copies). */
static inline void cg_element_begin(vw *v) {
    base_arena_reset(v->scratch);
    v->str = v->scratch;
}

static inline void cg_element_end(vw *v) {
    v->str = v->sa;
}

/* For a value memoized across elements: its strings go to the builder's
 * own arena until cg_str_restore. */
static inline base_arena *cg_str_persist(const vw *v) {
    vw *m = (vw *)v; /* every vw is mutable: only the memos change */
    base_arena *s = m->str;
    m->str = m->sa;
    return s;
}

static inline void cg_str_restore(const vw *v, base_arena *s) {
    ((vw *)v)->str = s;
}

const char *cg_vfmt(const vw *v, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

/* Strings of the view are ASCII (IR names, escaped literals), so the
 * UTF-8 validation of json_string is skipped; a NULL is "". */
static inline json_t *jstr(const char *s) {
    return s ? json_string_nocheck(s) : json_string_nocheck("");
}

static inline json_t *ju64(uint64_t x) {
    return json_integer((json_int_t)x);
}

typedef struct cg_key {
    UT_hash_handle hh;
    char name[]; /* the key, NUL-terminated */
} cg_key;

struct cg_keyset {
    cg_key *head;
    bool oom;
};

static inline bool keyset_has(const cg_keyset *s, const char *k, size_t n) {
    cg_key *f = NULL;
    HASH_FIND(hh, s->head, k, n, f);
    return f != NULL;
}

/* The uthash hash value of a pointer key: one multiplication, cheaper
 * than FNV over its bytes (keep_key runs for every key of the view).
 * Every lookup and insertion in a table keyed this way must use it
 * (HASH_FIND_BYHASHVALUE and HASH_ADD_BYHASHVALUE). */
static inline unsigned ptr_hash(const void *p) {
    return (unsigned)((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull >> 32);
}

/* Whether key k (n bytes) is one the view reads back from an element
 * or gen from the root (view_keys.c): never left out by a section. */
bool cg_key_internal(const char *k, size_t n);

/* set and sets take a string literal as the key (its length is known
 * at compile time: no strlen per key in a view of a million values).
 * Whether a key is kept is remembered per literal address in
 * v->keep_memo, so that the key set is searched once per literal. */
bool cg_keep_key_slow(vw *v, const char *k, size_t n);

/* The fast path inline (the key set off, or an answer in keep_dm for
 * the same section); the rest out of line (view_fmt.c), so that the
 * caller pays no prologue for the hash table it rarely reaches. */
static inline bool keep_key(vw *v, const char *k, size_t n) {
    if (!v->keep)
        return true;
    unsigned set = ptr_hash(k) & (CG_KEEP_DM - 1);
    if (v->keep_epoch == v->dm_epoch) {
        if (v->keep_dm[set][0].k == k)
            return v->keep_dm[set][0].keep;
        if (v->keep_dm[set][1].k == k)
            return v->keep_dm[set][1].keep;
    }
    return cg_keep_key_slow(v, k, n);
}

/* A new keep_key epoch for v (vw.keep_epoch). */
void cg_keep_epoch_next(vw *v);

/* v->section = names for element i of a section, with a new epoch when
 * that changes it or when i is 0: a section's pass starts at its first
 * element, and a later render's names may reuse the address of a freed
 * one. */
static inline void cg_set_section(vw *v, const mst_names *names, size_t i) {
    if (v->section != names || i == 0) {
        v->section = names;
        cg_keep_epoch_next(v);
    }
}

/* keep_key's answer at one call site (a static of the site: nset and its
 * kin), valid while v->keep_epoch is its epoch: a field of every element
 * asks the same question again and again. */
typedef struct cg_keep_site {
    uint64_t epoch;
    bool keep;
} cg_keep_site;

static inline bool keep_at(vw *v, cg_keep_site *site, const char *k, size_t n) {
    if (site->epoch != v->keep_epoch) {
        site->keep = keep_key(v, k, n);
        site->epoch = v->keep_epoch;
    }
    return site->keep;
}

/* Declares the site of the nset below that expands it. */
#define CG_SITE static cg_keep_site cg_site_

/* Whether the key set keeps key k, whatever the section looks up (a
 * value derived from another key). */
static inline bool cg_keep_global(vw *v, const char *k, size_t n) {
    if (!v->keep || !v->section)
        return keep_key(v, k, n);
    keep_memo *m = NULL;
    HASH_FIND_BYHASHVALUE(hh, v->keep_memo, &k, sizeof k, ptr_hash(k), m);
    return m ? m->keep : keyset_has(v->keep, k, n);
}

static inline void set_n(vw *v, json_t *o, const char *k, size_t kn,
                         json_t *val) {
    if (!o || !keep_key(v, k, kn)) {
        json_decref(val);
        return;
    }
    json_object_setn_new_nocheck(o, k, kn, val);
}

#define set(v, o, k, val) set_n((v), (o), "" k, sizeof("" k) - 1, (val))

static inline void sets_n(vw *v, json_t *o, const char *k, size_t kn,
                          const char *s) {
    if (o && keep_key(v, k, kn))
        json_object_setn_new_nocheck(o, k, kn, jstr(s));
}

#define sets(v, o, k, s) sets_n((v), (o), "" k, sizeof("" k) - 1, (s))

/* Native elements (mst_val) built into v->el: the same key set and
 * section filter as set and sets.  nsets copies the string into
 * v->el; nsetk does not: a string that lives as long as the element,
 * either as long as the view or made in v->str while the element is built
 * (native_of points v->str at v->el), never one in a temporary buffer. */
static inline mst_val nmissing(void) {
    mst_val m = {.type = MST_MISSING};
    return m;
}

static inline mst_val nobj(vw *v) {
    return mst_v_object(v->el);
}

static inline mst_val nlist(vw *v) {
    return mst_v_list(v->el);
}

static inline mst_val nu64(uint64_t x) {
    return mst_v_int((int64_t)x);
}

static inline void nappend(vw *v, mst_val l, mst_val x) {
    mst_v_append(v->el, l, x);
}

/* The nset family always inline: each expands once per key of the view,
 * and an out-of-line copy (gcc's choice once a builder grows) costs a
 * call and the key's signature at run time. */
#if defined(__GNUC__)
#define CG_INLINE static inline __attribute__((always_inline))
#else
#define CG_INLINE static inline
#endif

CG_INLINE void nset_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                      size_t kn, mst_val val) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn, val);
}

#define nset(v, o, k, val)                                                     \
    do {                                                                       \
        CG_SITE;                                                               \
        nset_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (val));            \
    } while (0)

/* A copy of s ("" for NULL) in v->el. */
static inline mst_val nstr(vw *v, const char *s) {
    size_t n = s ? strlen(s) : 0;
    return mst_v_str(n ? base_arena_strndup(v->el, s, n) : "", n);
}

static inline void nsets_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                           size_t kn, const char *s) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn, nstr(v, s));
}

#define nsets(v, o, k, s)                                                      \
    do {                                                                       \
        CG_SITE;                                                               \
        nsets_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (s));             \
    } while (0)

CG_INLINE void nsetk_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                       size_t kn, const char *s) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn,
                  s ? mst_v_str(s, strlen(s)) : mst_v_str("", 0));
}

#define nsetk(v, o, k, s)                                                      \
    do {                                                                       \
        CG_SITE;                                                               \
        nsetk_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (s));             \
    } while (0)

/* nsetk of a string of n bytes. */
CG_INLINE void nsetkn_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                        size_t kn, const char *s, size_t n) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn, mst_v_str(s, n));
}

#define nsetkn(v, o, k, s, n)                                                  \
    do {                                                                       \
        CG_SITE;                                                               \
        nsetkn_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (s), (n));       \
    } while (0)

/* nsetk of a name of the IR (never NULL): its length from its record
 * (ir_name_len), no strlen. */
CG_INLINE void nsetname_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                          size_t kn, const char *name) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn, mst_v_str(name, ir_name_len(name)));
}

#define nsetname(v, o, k, name)                                                \
    do {                                                                       \
        CG_SITE;                                                               \
        nsetname_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (name));       \
    } while (0)

/* The length of s (never NULL), a string that lives as long as the view
 * and never changes, through v->lcache: most are set again and again
 * (the pool of every alloc, the type of every buffer). */
static inline size_t cg_lasting_len(vw *v, const char *s) {
    struct cg_lcache *c = &v->lcache[ptr_hash(s) & (CG_LCACHE - 1)];
    if (c->s != s) {
        c->s = s;
        c->n = strlen(s);
    }
    return c->n;
}

/* nsetk of a string that lives as long as the view (never NULL; not
 * one made in v->str for the element, whose address a later element
 * reuses): its length through cg_lasting_len. */
CG_INLINE void nsetl_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                       size_t kn, const char *s) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn, mst_v_str(s, cg_lasting_len(v, s)));
}

#define nsetl(v, o, k, s)                                                      \
    do {                                                                       \
        CG_SITE;                                                               \
        nsetl_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (s));             \
    } while (0)

/* The length of v->local[val]. */
static inline size_t cg_local_len(const vw *v, int32_t val) {
    return v->locals_plain ? 2 + ir_name_len(v->prog->values[val].name)
                           : strlen(v->local[val]);
}

/* nsetk of the local of value val. */
CG_INLINE void nsetlocal_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                           size_t kn, int32_t val) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn))
        mst_v_set(v->el, o, k, kn,
                  mst_v_str(v->local[val], cg_local_len(v, val)));
}

#define nsetlocal(v, o, k, val)                                                \
    do {                                                                       \
        CG_SITE;                                                               \
        nsetlocal_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (val));       \
    } while (0)

/* Asks the cache for what building the element of storage s will read
 * (its value's record, some 150 bytes apart in IR order, and its name),
 * a few elements ahead of its use: a section over the buffers or the
 * pools' rows reads one value each, a cache miss each without it.  The
 * record is asked for `ahead` elements early, the name (read from the
 * record, which should be there by then) half as early. */
static inline void cg_prefetch_storage(const vw *v, uint32_t s_far,
                                       uint32_t s_near) {
#if defined(__GNUC__)
    const ir_value *far = &v->prog->values[v->pl->storages[s_far].value];
    const ir_value *near = &v->prog->values[v->pl->storages[s_near].value];
    __builtin_prefetch(far);
    __builtin_prefetch(&far->align); /* its second line (pool_storage) */
    __builtin_prefetch(near->name);
#else
    (void)v;
    (void)s_far;
    (void)s_near;
#endif
}

/* How many elements ahead cg_prefetch_storage asks for a record. */
#define CG_PREFETCH_AHEAD 8u
/* The same for the view's passes over every storage or buffer, whose
 * steps are a few times shorter than an element's: 8 ahead, the records
 * still missed at 10^5 kernels. */
#define CG_PASS_AHEAD 32u

/* Asks the cache for the value records of statement s's buffer
 * arguments when s is a call (nothing otherwise): in value order but
 * some 150 bytes apart, a cache miss each without it.  The records are
 * 144 bytes in a 16-aligned array, so a field in the first 16 bytes
 * (name, kind, dtype) is on the line of the record's start.  For the
 * pass over the calls (view_kernels.c, which reads their dtype) and the
 * statements' elements (view_stmts.c, prefetch_stmt, which also asks for
 * the records of its value and of the names a free frees). */
static inline void cg_prefetch_call_args(const ir_value *vals,
                                         const ir_stmt *s) {
#if defined(__GNUC__)
    if (s->kind != IR_CALL)
        return;
    /* without a branch per argument (a buffer's value id, else -1: the
     * record of value 0 is asked for then, harmless): the test of each
     * argument's kind mispredicted */
    for (uint32_t j = 0; j < s->nargs; j++) {
        int32_t x = s->args[j].value;
        __builtin_prefetch(&vals[x < 0 ? 0 : x]);
    }
#else
    (void)vals;
    (void)s;
#endif
}

/* Buffer macro `which` (M_BUF_<stem>_OFFSET, _SIZE, _ALIGN) of pooled
 * storage s, made in v->str at each use (view_pools.c: three per storage
 * kept for the view's life cost more in pages first touched), its length
 * in *n. */
#define CG_MACRO_OFFSET 0
#define CG_MACRO_SIZE 1
#define CG_MACRO_ALIGN 2
const char *cg_buf_macro_new(const vw *v, uint32_t s, int which, size_t *n);
/* The suffixes of the buffer macros by `which`, each with its NUL in 8
 * bytes: one store writes it; and their lengths (inline: `which` is a
 * constant at most call sites). */
extern const char cg_macro_suffix[3][8];
static inline size_t cg_macro_suffix_len(int which) {
    return which == CG_MACRO_OFFSET ? 7u : which == CG_MACRO_SIZE ? 5u : 6u;
}
static inline const char *cg_buf_macro(const vw *v, uint32_t s, int which,
                                       size_t *n) {
    const struct cg_macro_memo *e = &v->macro_memo[s % CG_MACRO_MEMO];
    if (e->of != s + 1)
        return cg_buf_macro_new(v, s, which, n);
    /* the prefix remembered, then the suffix and its NUL in one store
     * (up to two bytes past them unused) */
    size_t pl = e->n;
    char *c = base_arena_alloc_aligned(v->str, pl + 8, 1);
    base_copy(c, e->p, pl);
    memcpy(c + pl, cg_macro_suffix[which], 8);
    *n = pl + cg_macro_suffix_len(which);
    return c;
}

/* nset of buffer macro `which` of storage s, made only when kept. */
CG_INLINE void nsetm_n(vw *v, cg_keep_site *site, mst_val o, const char *k,
                       size_t kn, uint32_t s, int which) {
    if (o.type == MST_OBJECT && keep_at(v, site, k, kn)) {
        size_t n;
        const char *m = cg_buf_macro(v, s, which, &n);
        mst_v_set(v->el, o, k, kn, mst_v_str(m, n));
    }
}

#define nsetm(v, o, k, s, which)                                               \
    do {                                                                       \
        CG_SITE;                                                               \
        nsetm_n((v), &cg_site_, (o), "" k, sizeof("" k) - 1, (s), (which));    \
    } while (0)

/* A string builder: small strings stay in the inline buffer, so that
 * building most view strings costs no malloc; sb_done copies the result
 * into the view's arena. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    char inl[256];
} sbuf;

/* view_names.c */
void cg_set_clear(cg_nameset *s);
const char *cg_set_unique(vw *v, cg_nameset *s, const char *base);
/* Whether some name in s starts with prefix. */
bool cg_set_has_prefix(const cg_nameset *s, const char *prefix);
const char *cg_field_base(vw *v, const char *name);
char *cg_upper(vw *v, const char *s);
void cg_name_kernels(vw *v);
void cg_name_fixed(vw *v);

/* view_fmt.c */
const char *cg_ctype_of(ir_dtype t);
void cg_sb_init(sbuf *b);
/* Room for n more bytes and the NUL (out of line: rarely needed). */
void cg_sb_grow(sbuf *b, size_t n);
/* put and puts inline: the view's strings are many short appends. */
static inline void cg_sb_put(sbuf *b, const char *s, size_t n) {
    if (n >= b->cap - b->len)
        cg_sb_grow(b, n);
    base_copy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static inline void cg_sb_puts(sbuf *b, const char *s) {
    cg_sb_put(b, s, strlen(s));
}
const char *cg_sb_done(const vw *v, sbuf *b);
/* Frees b's buffer (when it grew past the inline one) and empties it. */
void cg_sb_free(sbuf *b);
void cg_sb_u64(sbuf *b, uint64_t x);
void cg_sb_pad(sbuf *b, const char *s, size_t width, bool right);
/* A string and its length. */
typedef struct cg_part {
    const char *p;
    size_t n;
} cg_part;
/* A part of a string literal, and of any string (its strlen). */
#define CG_LIT(s) ((cg_part){"" s, sizeof("" s) - 1})
#define CG_STR(s) ((cg_part){(s), strlen(s)})
/* The n parts one after the other into v->str, NUL-terminated; the
 * length in *len.  Inline: most callers are hot (a local, a cast, a
 * buffer macro per use) and join a few parts whose count and literal
 * lengths fold at compile time. */
static inline char *cg_catn(const vw *v, const cg_part *parts, size_t n,
                            size_t *len) {
    size_t t = 0;
    for (size_t i = 0; i < n; i++)
        t += parts[i].n;
    char *c = base_arena_alloc_aligned(v->str, t + 1, 1), *q = c;
    for (size_t i = 0; i < n; i++) {
        base_copy(q, parts[i].p, parts[i].n);
        q += parts[i].n;
    }
    *q = '\0';
    *len = t;
    return c;
}
void cg_sb_escape(sbuf *b, const char *s, bool comment);
/* cg_sb_escape for a C comment, into a base_sb (ir_stmt_text's escape). */
void cg_comment_escape(base_sb *out, const char *s);
const char *cg_c_string(vw *v, const char *s, bool comment);

/* view_stmt_text.c */
const char *cg_stmt_text(vw *v, const ir_stmt *s, size_t *len);
const char *cg_input_hash(vw *v);
const char *cg_base_name(const char *path);

/* view_pools.c */
int32_t cg_output_value_at(const vw *v, uint32_t i);
void cg_plan_pools(vw *v);
void cg_plan_outputs(vw *v);

/* view_kernels.c */
ir_mode cg_param_mode(const vw *v, int32_t k, uint32_t j);
void cg_plan_kernels(vw *v);
json_t *cg_kernel_json(vw *v, uint32_t k);

/* view_layout.c */
const char *cg_ptr_type(const vw *v, int32_t val);
void cg_plan_values(vw *v);
const char *cg_alias_expr(const vw *v, int32_t val);
json_t *cg_pools_json(vw *v);
void cg_plan_buffers(vw *v);
/* Buffer k as native data in v->el (cg_el_begin). */
mst_val cg_buffer_val(vw *v, uint32_t k);
/* The sections of cg_plan_io, in the order of the root. */
typedef enum cg_io_kind {
    CG_IO_INPUTS,
    CG_IO_CONSTS,
    CG_IO_OUTPUTS
} cg_io_kind;
/* Names the inputs, consts and outputs (struct fields, size macros) in
 * IR order and lists each section's elements. */
void cg_plan_io(vw *v);
/* Element i of section k as native data in v->el (cg_el_begin). */
mst_val cg_io_val(vw *v, cg_io_kind k, uint32_t i);

/* view_streams.c */
uint32_t cg_stream_slot(const vw *v, uint64_t st);
const char *cg_stream_expr(const vw *v, int64_t st);
void cg_view_streams(vw *v);
json_t *cg_streams_json(vw *v);

/* view_stmts.c */
/* An event of kind `kind` (kn bytes), h its signature (mst_key_hash) and
 * bits its bloom bits (mst_key_bits). */
mst_val cg_event_n(vw *v, const char *kind, size_t kn, uint64_t h,
                   uint64_t bits, mst_val *body);
/* An event of kind KIND (a string literal): cg_event_n with its length,
 * signature and bloom bits folded at compile time. */
#define cg_event(v, kind, body)                                                \
    cg_event_n(                                                                \
        (v), "" kind, sizeof("" kind) - 1,                                     \
        mst_key_hash("" kind, sizeof("" kind) - 1),                            \
        mst_key_bits(mst_key_mix(mst_key_hash("" kind, sizeof("" kind) - 1),   \
                                 sizeof("" kind) - 1)),                        \
        (body))
void cg_plan_statements(vw *v);
/* Statement i as native data in v->el (cg_el_begin). */
mst_val cg_statement_val(vw *v, uint32_t i);
/* Starts building a native element: v->el is an emptied arena of its
 * own until cg_el_end (nested: the element of a section inside the
 * body of another). */
void cg_el_begin(vw *v);
void cg_el_end(vw *v);
void cg_el_free(vw *v);

/* view_graphs.c: the CUDA graph partitions (docs/view.md): `cuda_graphs`,
 * `ngraphs`, `has_graphs` on the root, per statement `graph_begin` and
 * `graph_end` ({index} or false), per call `captured`.  With `on` false
 * every statement is outside any graph.  The caller ran cg_check_target,
 * which refuses --cuda-graphs with calls on several streams. */
void cg_graphs_plan(vw *v, bool on);
void cg_graphs_stmt(const vw *v, mst_val s, uint32_t i);
void cg_graphs_root(const vw *v, json_t *root);

/* fw_view.c: the firmware keys (docs/view.md, docs/firmware.md): planned
 * once (cg_fw_plan), then on the root, on buffer b of storage sid and on
 * each statement (the alloc events of state pairs). */
void cg_fw_plan(vw *v);
void cg_fw_root(const vw *v, json_t *root, bool shared_pools);
void cg_fw_buffer(vw *v, mst_val b, uint32_t sid);
void cg_fw_stmt(const vw *v, mst_val s);
/* The kinds of event (docs/view.md, "Statements and events"). */
extern const char *const cg_event_kinds[CG_NEVENT_KINDS];
extern const size_t cg_nevent_kinds;

#endif /* PLANWRAP_CODEGEN_VIEW_INTERNAL_H */

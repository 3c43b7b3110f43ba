/*
 * templates/mustache_render.c - rendering: the output buffer, the context
 * stack and its lookups, interpolation, sections; mst_render.
 */
#include "mustache_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */

int mst_rfail(rctx *r, const mst_template *t, const mst_node *n,
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

/* rctx.lim after out, cap or flushed changed: the largest len that
 * leaves room for the NUL and stays within max_out. */
static void out_limit(rctx *r) {
    size_t room = r->cap ? r->cap - 1 : 0;
    size_t left = r->max_out - r->flushed;
    r->lim = room < left ? room : left;
}

/* Writes out[0, len) to the stream. */
static int out_flush(rctx *r, const mst_template *t) {
    if (r->len && fwrite(r->out, 1, r->len, r->stream) != r->len)
        return mst_rfail(r, t, NULL, "cannot write the output: %s",
                         strerror(errno));
    r->flushed += r->len;
    r->len = 0;
    out_limit(r);
    return 0;
}

static int out_reserve(rctx *r, const mst_template *t, const mst_node *n,
                       size_t extra) {
    if (r->flushed + r->len + extra > r->max_out)
        return mst_rfail(r, t, n, "output larger than the limit of %zu bytes",
                         r->max_out);
    if (r->stream && r->len + extra + 1 > r->cap && out_flush(r, t))
        return -1;
    if (r->len + extra + 1 > r->cap) {
        size_t nc = r->cap ? r->cap : 4096;
        while (nc < r->len + extra + 1)
            nc *= 2;
        r->out = base_xrealloc(r->out, nc);
        r->cap = nc;
    }
    out_limit(r);
    return 0;
}

static MST_NOINLINE int put_slow(rctx *r, const mst_template *t,
                                 const mst_node *n, const char *s, size_t k) {
    if (out_reserve(r, t, n, k))
        return -1;
    if (k)
        memcpy(r->out + r->len, s, k);
    r->len += k;
    return 0;
}

/* Copies s[0, k) to d: up to 32 bytes inline (base_copy, or two
 * overlapping 16-byte moves: most texts and values of a view are a line
 * or a name), longer ones with memcpy. */
static inline void out_copy(char *d, const char *s, size_t k) {
    if (k <= 16) {
        base_copy(d, s, k);
    } else if (k <= 32) {
        memcpy(d, s, 16);
        memcpy(d + k - 16, s + k - 16, 16);
    } else {
        memcpy(d, s, k);
    }
}

/* Appends s[0, k): one test on the way (rctx.lim), inline; k == 0
 * (s may be NULL) wraps around and takes the slow path. */
static inline int put(rctx *r, const mst_template *t, const mst_node *n,
                      const char *s, size_t k) {
    if (k - 1 >= r->lim - r->len)
        return put_slow(r, t, n, s, k);
    out_copy(r->out + r->len, s, k);
    r->len += k;
    return 0;
}

int mst_flush_indent(rctx *r, const mst_template *t, const mst_node *n) {
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
    if (n->one_line) { /* the loop below in one step, no search */
        if (mst_flush_indent(r, t, n) || put(r, t, n, s, k))
            return -1;
        if (s[k - 1] == '\n')
            r->need_indent = true;
        return 0;
    }
    while (k) {
        if (mst_flush_indent(r, t, n))
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
    return k->h == p->h && k->kl == p->n && mst_part_rest_eq(k->k, p);
}

/* A lookup in a large object, through the direct-mapped cache of
 * (object, name part) -> value: the data does not change during a render,
 * and the same few names are looked up in the same large objects (the
 * root above all) again and again. */
static json_t *cached_get(rctx *r, const json_t *o, const mst_part *p,
                          bool lasting) {
    uintptr_t h = ((uintptr_t)o >> 4) * 31u + ((uintptr_t)p >> 3);
    struct dcache *c = &r->dc[h & (MST_DCACHE - 1)];
    if (c->o == o && c->p == p && (c->lasting || c->gen == r->gen))
        return c->v;
    c->o = o;
    c->p = p;
    c->gen = r->gen;
    c->lasting = lasting;
    c->v = json_object_getn(o, p->s, p->n);
    return c->v;
}

static json_t *frame_get_json(rctx *r, frame *f, const mst_part *p) {
    if (!f->built) {
        f->built = true;
        f->n = 0;
        f->mask = 0;
        f->slot[0] = 0;
        f->bloom = 0;
        if (!json_is_object(f->v.u.json))
            return NULL;
        json_t *o = f->v.u.json;
        size_t size = json_object_size(o);
        if (size > MST_INDEX_MAX_KEYS) {
            f->n = MST_INDEX_MAX_KEYS + 1;
        } else if (size > 0) {
            grow((void **)&f->buf, &f->cap, size, sizeof *f->buf);
            for (void *it = json_object_iter(o); it;
                 it = json_object_iter_next(o, it)) {
                okey *k = &f->buf[f->n++];
                k->k = json_object_iter_key(it);
                k->kl = json_object_iter_key_len(it);
                k->h = key_hash(k->k, k->kl);
                k->v = json_object_iter_value(it);
                f->bloom |= mst_key_bits(key_mix(k->h, k->kl));
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
    if (f->n <= MST_INDEX_MAX_KEYS && (f->bloom & p->bm) != p->bm)
        return NULL; /* not among the keys: most lookups pass a frame */
    if (f->n <= MST_SCAN_MAX_KEYS) {
        for (uint32_t i = 0; i < f->n; i++)
            if (key_eq(&f->buf[i], p))
                return f->buf[i].v;
        return NULL;
    }
    if (f->n > MST_INDEX_MAX_KEYS)
        return cached_get(r, f->v.u.json, p, !f->transient);
    for (uint32_t at = p->mx & f->mask; f->slot[at]; at = (at + 1) & f->mask) {
        const okey *k = &f->buf[f->slot[at] - 1];
        if (key_eq(k, p))
            return k->v;
    }
    return NULL;
}

/* Key p of frame f's value (native or JSON); MST_MISSING when absent.
 * Inline: the common miss in a native object is one test, no call. */
static inline mst_val frame_get(rctx *r, frame *f, const mst_part *p) {
    mst_val none = {.type = MST_MISSING};
    if (f->v.type == MST_OBJECT) {
        const mst_field *k = mst_obj_find(f->v.u.obj, p);
        return k ? k->v : none;
    }
    if (f->v.type != MST_JSON)
        return none;
    return mst_v_json(frame_get_json(r, f, p));
}

static mst_val member(rctx *r, mst_val o, const mst_part *p, bool lasting) {
    mst_val none = {.type = MST_MISSING};
    if (o.type == MST_OBJECT) {
        const mst_field *k = mst_obj_find(o.u.obj, p);
        return k ? k->v : none;
    }
    if (o.type != MST_JSON || !json_is_object(o.u.json))
        return none;
    return mst_v_json(cached_get(r, o.u.json, p, lasting));
}

/* lasting_get past its cache: the walk, remembered in m. */
static MST_NOINLINE mst_val lasting_fill(rctx *r, size_t top, const mst_node *n,
                                         struct lmemo *m) {
    mst_val v = {.type = MST_MISSING};
    for (size_t i = top + 1; i-- > 0;) {
        v = frame_get(r, &r->stack[i], &n->key);
        if (v.type != MST_MISSING)
            break;
    }
    m->n = n;
    m->serial = r->stack[top].serial;
    m->v = v;
    return v;
}

/* The first part of tag n's name looked up from frame `top`, which is
 * not transient, down to the root, through the cache of rctx.lm (the
 * hit inline: the renderer asks for most names an event tests). */
static inline mst_val lasting_get_at(rctx *r, size_t top, uint64_t s,
                                     const mst_node *n) {
    uintptr_t h = ((uintptr_t)n >> 4) ^ ((uintptr_t)n >> 11) ^ (uintptr_t)s;
    struct lmemo *m = &r->lm[h & (MST_LMEMO - 1)];
    if (m->n == n && m->serial == s)
        return m->v;
    return lasting_fill(r, top, n, m);
}

/* lasting_get_at of frame top's serial. */
static inline mst_val lasting_get(rctx *r, size_t top, const mst_node *n) {
    return lasting_get_at(r, top, r->stack[top].serial, n);
}

/* Looks a name up on the context stack; MST_MISSING when missing. */
mst_val mst_lookup(rctx *r, const mst_node *n) {
    if (n->nparts == 0)
        return r->stack[r->sp - 1].v;
    mst_val v = {.type = MST_MISSING};
    bool lasting = true;
    for (size_t i = r->sp; i-- > 0;) {
        /* the frames below one that is not transient are not either
         * (rctx.nlive counts the lazy elements on the stack): the walk
         * below the elements of a lazy list goes through the cache (the
         * walk below the elements of a list that is not lazy would miss
         * it: a new frame, and serial, for each element) */
        if (!r->stack[i].transient && i + 1 < r->sp &&
            r->stack[i + 1].transient) {
            v = lasting_get(r, i, n);
            break;
        }
        v = frame_get(r, &r->stack[i], &n->key);
        if (v.type != MST_MISSING) {
            lasting = !r->stack[i].transient;
            break;
        }
    }
    for (uint32_t k = 1; v.type != MST_MISSING && k < n->nparts; k++)
        v = member(r, v, &n->parts[k], lasting);
    return v;
}

/* mst_lookup with its commonest case inline: a plain name found in the
 * native object on top of the stack (a field of the element or event
 * being rendered) needs no walk, and no call.  A scalar on top (the
 * value of {{#flag}}) has no names: the frame below it is tried. */
static inline mst_val lookup(rctx *r, const mst_node *n) {
    if (n->nparts != 1)
        return mst_lookup(r, n);
    /* the transient frames on top, while they are native objects or
     * scalars (no names), then the memo of the walk below them */
    const frame *top = &r->stack[r->sp - 1];
    if ((top->tbloom & n->key.bm) != n->key.bm)
        /* in none of the transient frames: most names an event tests */
        return lasting_get_at(r, top->tlow - 1, top->lserial, n);
    size_t i = r->sp;
    for (; i > 0 && r->stack[i - 1].transient; i--) {
        const frame *f = &r->stack[i - 1];
        if (f->v.type == MST_OBJECT) {
            const mst_field *k = mst_obj_find(f->v.u.obj, &n->key);
            if (k)
                return k->v;
        } else if (f->v.type >= MST_LIST) { /* the kinds before: scalars */
            return mst_lookup(r, n);
        }
    }
    if (i > 0 && i < r->sp)
        return lasting_get(r, i - 1, n);
    return mst_lookup(r, n);
}

static bool truthy(mst_val v) {
    switch (v.type) {
    case MST_MISSING:
    case MST_NULL:
    case MST_FALSE:
        return false;
    case MST_LIST:
        return v.u.list->n > 0;
    case MST_JSON:
        return !json_is_array(v.u.json) || json_array_size(v.u.json) > 0;
    default:
        return true;
    }
}

/* Room for one more frame on the context stack. */
static MST_NOINLINE void grow_stack(rctx *r) {
    size_t old = r->scap;
    grow((void **)&r->stack, &r->scap, r->sp + 1, sizeof *r->stack);
    memset(r->stack + old, 0, (r->scap - old) * sizeof *r->stack);
}

/* Pushes v on the context stack.  Inline: a push per element of every
 * list, and per section entered. */
static inline int push_ctx(rctx *r, mst_val v) {
    if (r->sp == r->scap)
        grow_stack(r);
    frame *f = &r->stack[r->sp++];
    f->v = v;
    f->built = false;
    f->transient = r->nlive > 0;
    f->serial = ++r->serial;
    f->tbloom = ~(uint64_t)0;
    if (f->transient && r->sp > 1) { /* the root is never transient */
        const frame *below = f - 1;
        bool first = !below->transient;
        f->tlow = first ? (uint32_t)(r->sp - 1) : below->tlow;
        f->lserial = first ? below->serial : below->lserial;
        if (v.type == MST_OBJECT)
            f->tbloom = (first ? 0 : below->tbloom) | v.u.obj->bloom;
        else if (v.type < MST_LIST) /* the kinds before: scalars */
            f->tbloom = first ? 0 : below->tbloom;
    }
    return 0;
}

static int interpolate(rctx *r, const mst_template *t, const mst_node *n) {
    mst_val v = lookup(r, n);
    if (v.type == MST_MISSING && r->strict)
        return mst_rfail(r, t, n, "unknown name '%.*s'", (int)n->n, n->s);
    if (mst_flush_indent(r, t, n))
        return -1;
    bool esc = n->kind == N_VAR && !r->no_escape;
    char buf[64];
    switch (v.type) {
    case MST_STRING:
        if (esc)
            return put_escaped(r, t, n, v.u.s, v.n);
        return put(r, t, n, v.u.s, v.n);
    case MST_INT:
        /* In place when there is room: digits made in buf and then
         * copied were read back (out_copy's wide loads) while their byte
         * stores were still in flight, a store-forwarding stall each. */
        if (BASE_U64_MAX_DIGITS + 1 < r->lim - r->len) {
            char *o = r->out + r->len;
            r->len += (size_t)(base_i64_at(o, v.u.i) - o);
            return 0;
        }
        return put(r, t, n, buf, (size_t)(base_i64_at(buf, v.u.i) - buf));
    case MST_REAL:
        return put(r, t, n, buf, fmt_real(v.u.d, buf, sizeof buf));
    case MST_TRUE:
        return put(r, t, n, "true", 4);
    case MST_FALSE:
        return put(r, t, n, "false", 5);
    case MST_MISSING:
    case MST_NULL:
        return 0;
    default:
        if (v.type == MST_JSON && json_is_string(v.u.json))
            return esc ? put_escaped(r, t, n, json_string_value(v.u.json),
                                     json_string_length(v.u.json))
                       : put(r, t, n, json_string_value(v.u.json),
                             json_string_length(v.u.json));
        if (r->strict)
            return mst_rfail(r, t, n, "cannot interpolate '%.*s': it is %s",
                             (int)n->n, n->s,
                             v.type == MST_OBJECT || (v.type == MST_JSON &&
                                                      json_is_object(v.u.json))
                                 ? "an object"
                                 : "an array");
        return 0;
    }
}

int mst_enter(rctx *r, const mst_template *t, const mst_node *n) {
    if (r->depth >= r->max_depth)
        return mst_rfail(r, t, n,
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

/* ------------------------------------------------------------------ */
/* Lazy lists by marker: their addresses sorted, searched by bisection. */

struct mst_lazy_index {
    size_t n;
    const mst_lazy_list *by_marker[]; /* ascending marker addresses */
};

static int cmp_marker(const void *a, const void *b) {
    uintptr_t x = (uintptr_t)(*(const mst_lazy_list *const *)a)->marker;
    uintptr_t y = (uintptr_t)(*(const mst_lazy_list *const *)b)->marker;
    return x < y ? -1 : x > y;
}

mst_lazy_index *mst_lazy_index_new(const mst_lazy_list *lazy, size_t n) {
    mst_lazy_index *ix =
        base_xmalloc(sizeof *ix + (n ? n : 1) * sizeof ix->by_marker[0]);
    ix->n = n;
    for (size_t i = 0; i < n; i++)
        ix->by_marker[i] = &lazy[i];
    qsort(ix->by_marker, n, sizeof ix->by_marker[0], cmp_marker);
    return ix;
}

const mst_lazy_list *mst_lazy_index_find(const mst_lazy_index *ix,
                                         const json_t *v) {
    if (!ix || !v)
        return NULL;
    uintptr_t key = (uintptr_t)v;
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        uintptr_t m = (uintptr_t)ix->by_marker[mid]->marker;
        if (m == key)
            return ix->by_marker[mid];
        if (m < key)
            lo = mid + 1;
        else
            hi = mid;
    }
    return NULL;
}

void mst_lazy_index_free(mst_lazy_index *ix) {
    free(ix);
}

/* The lazy list whose placeholder is v, or NULL. */
static const mst_lazy_list *lazy_of(const rctx *r, mst_val val) {
    if (val.type != MST_JSON)
        return NULL;
    const json_t *v = val.u.json;
    if (r->nlazy <= 4) {
        for (size_t i = 0; v && i < r->nlazy; i++)
            if (r->lazy[i].marker == v)
                return &r->lazy[i];
        return NULL;
    }
    return mst_lazy_index_find(r->lazy_ix, v);
}

/* The names the body of lazy section n can look up, NULL for any: a
 * body with a partial or parent, or overridden blocks, may look up
 * anything.  Computed once per section node and render. */
static const mst_names *section_names(rctx *r, const mst_node *n) {
    if (r->nov > 0)
        return NULL;
    for (size_t i = 0; i < r->nsecs; i++)
        if (r->secs[i].n == n)
            return r->secs[i].names;
    mst_names *s = mst_section_names(n);
    if (mst_names_open(s)) {
        mst_names_free(s);
        s = NULL;
    }
    grow((void **)&r->secs, &r->secs_cap, r->nsecs + 1, sizeof *r->secs);
    r->secs[r->nsecs++] = (struct sec_names){n, s};
    return s;
}

/* The body of section n once per element of lazy list lz (count of
 * them), each built before and released after it renders. */
static int lazy_section(rctx *r, const mst_template *t, const mst_node *n,
                        const mst_lazy_list *lz, size_t count) {
    int rc = 0;
    const mst_names *names =
        lz->element_in || lz->element_val ? section_names(r, n) : NULL;
    for (size_t i = 0; i < count && rc == 0; i++) {
        json_t *e = NULL;
        mst_val ev;
        if (lz->element_val) {
            ev = lz->element_val(lz->ctx, i, names);
            if (ev.type == MST_MISSING)
                return mst_rfail(r, t, n, "cannot build element %zu of '%.*s'",
                                 i, (int)n->n, n->s);
        } else {
            e = lz->element_in ? lz->element_in(lz->ctx, i, names)
                               : lz->element(lz->ctx, i);
            if (!e)
                return mst_rfail(r, t, n, "cannot build element %zu of '%.*s'",
                                 i, (int)n->n, n->s);
            ev = mst_v_json(e);
        }
        r->nlive++; /* first: e's frame is transient */
        push_ctx(r, ev);
        rc = mst_render_nodes(r, t, n->kids, n->nkids);
        r->nlive--;
        r->sp--;
        if (e)
            json_decref(e);
        else if (lz->release)
            lz->release(lz->ctx);
        r->gen++; /* the cache may hold e's values (not lasting ones) */
    }
    return rc;
}

/* The body of section n once per item of list v (native or JSON). */
static int list_section(rctx *r, const mst_template *t, const mst_node *n,
                        mst_val v) {
    int rc = 0;
    if (v.type == MST_LIST) {
        for (const mst_item *it = v.u.list->head; it && rc == 0;
             it = it->next) {
            push_ctx(r, it->v);
            rc = mst_render_nodes(r, t, n->kids, n->nkids);
            r->sp--;
        }
        return rc;
    }
    size_t sz = json_array_size(v.u.json);
    for (size_t i = 0; i < sz && rc == 0; i++) {
        prefetch_next(v.u.json, i, sz);
        push_ctx(r, mst_v_json(json_array_get(v.u.json, i)));
        rc = mst_render_nodes(r, t, n->kids, n->nkids);
        r->sp--;
    }
    return rc;
}

static int section(rctx *r, const mst_template *t, const mst_node *n) {
    mst_val v = lookup(r, n);
    /* most sections of a view test a name that is not there (an event
     * tests every kind of event): done at once */
    if (v.type <= MST_FALSE && n->kind == N_SECTION &&
        (v.type != MST_MISSING || !r->strict))
        return 0;
    if (v.type == MST_MISSING && r->strict)
        return mst_rfail(r, t, n, "unknown name '%.*s'", (int)n->n, n->s);
    const mst_lazy_list *lz = lazy_of(r, v);
    size_t count = lz ? lz->count(lz->ctx) : 0;
    bool yes = lz ? count > 0 : truthy(v);
    if (n->kind == N_INVERTED) {
        if (yes)
            return 0;
        if (mst_enter(r, t, n))
            return -1;
        int rc = mst_render_nodes(r, t, n->kids, n->nkids);
        r->depth--;
        return rc;
    }
    if (!yes)
        return 0;
    if (mst_enter(r, t, n))
        return -1;
    int rc = 0;
    if (lz) {
        rc = lazy_section(r, t, n, lz, count);
    } else if (v.type == MST_LIST ||
               (v.type == MST_JSON && json_is_array(v.u.json))) {
        rc = list_section(r, t, n, v);
    } else {
        push_ctx(r, v);
        rc = mst_render_nodes(r, t, n->kids, n->nkids);
        r->sp--;
    }
    r->depth--;
    return rc;
}

/* ------------------------------------------------------------------ */
/* Runs of sections.  An event of a view tests every kind of event in a
 * row ({{#bind}}...{{/bind}}{{#alloc}}...), and all but one of them end
 * at once: the name is in none of the transient frames (the bloom of
 * the frame on top) and false, null or missing below them (the memo of
 * lasting_get_at).  The sections of such a run whose answer below the
 * transient frames is known to end them are remembered per run and
 * lasting frame, so that an event asks the bloom per section and
 * renders only the others, each as section() would. */

/* run_skip past its cache: each section of the run looked up below the
 * transient frames on top, remembered in m. */
static MST_NOINLINE uint64_t run_fill(rctx *r, const mst_node *n,
                                      const frame *top, struct rmemo *m) {
    uint64_t skip = 0;
    for (uint32_t j = 0; j < n->run; j++) {
        mst_val v = lasting_get_at(r, top->tlow - 1, top->lserial, &n[j]);
        if (v.type <= MST_FALSE && (v.type != MST_MISSING || !r->strict))
            skip |= 1ull << j;
    }
    m->n = n;
    m->serial = top->lserial;
    m->skip = skip;
    return skip;
}

/* The sections of the run from n whose name may be in the transient
 * frames of bloom tb (bit j for n[j]), through rctx.bm: a test per
 * section (some 70 instructions a run of ten) only when new. */
static inline uint64_t run_in(rctx *r, const mst_node *n, uint64_t tb) {
    uint64_t h = ((uint64_t)(uintptr_t)n ^ tb) * 0x9E3779B97F4A7C15ull;
    struct bmemo *b = &r->bm[h >> (64 - MST_BMEMO_BITS)];
    if (b->n == n && b->tbloom == tb)
        return b->in;
    uint64_t in = 0;
    for (uint32_t j = 0; j < n->run; j++)
        in |= (uint64_t)((tb & n[j].key.bm) == n[j].key.bm) << j;
    b->n = n;
    b->tbloom = tb;
    b->in = in;
    return in;
}

/* The sections of the run from n that end at once with the transient
 * frame `top` on the stack (bit j for n[j]). */
static inline uint64_t run_skip(rctx *r, const mst_node *n, const frame *top) {
    /* a Fibonacci hash: node addresses differ in their low bits */
    uint64_t h =
        ((uint64_t)(uintptr_t)n ^ top->lserial) * 0x9E3779B97F4A7C15ull;
    struct rmemo *m = &r->rm[h >> (64 - MST_RMEMO_BITS)];
    uint64_t skip = m->n == n && m->serial == top->lserial
                        ? m->skip
                        : run_fill(r, n, top, m);
    return skip & ~run_in(r, n, top->tbloom);
}

/* The position of the lowest set bit of x (x != 0). */
static inline unsigned ctz64(uint64_t x) {
#if defined(__GNUC__)
    return (unsigned)__builtin_ctzll(x);
#else
    unsigned k = 0;
    while (!(x & 1)) {
        x >>= 1;
        k++;
    }
    return k;
#endif
}

/* Whether the run of sections from n goes at once (run_todo): two
 * sections or more, with a transient frame on top. */
static inline bool run_at_once(const rctx *r, const mst_node *n) {
    return n->kind == N_SECTION && n->run > 1 && r->stack[r->sp - 1].transient;
}

/* The sections of the run from n (run_at_once) to render, bit j for
 * n[j]: those not skipped (run_skip). */
static inline uint64_t run_todo(rctx *r, const mst_node *n) {
    uint64_t todo = ~run_skip(r, n, &r->stack[r->sp - 1]);
    return n->run < 64 ? todo & ((1ull << n->run) - 1) : todo;
}

int mst_render_nodes(rctx *r, const mst_template *t, const mst_node *ns,
                     size_t count) {
    r->steps += count + 1;
    if (r->steps > r->max_steps)
        return mst_rfail(r, t, count ? ns : NULL,
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
        case N_INVERTED: {
            /* a run of sections at once (run_todo), else this one */
            uint64_t todo = 1;
            if (run_at_once(r, n)) {
                todo = run_todo(r, n);
                i += n->run - 1u;
            }
            rc = 0;
            while (todo && rc == 0) {
                rc = section(r, t, n + ctz64(todo));
                todo &= todo - 1;
            }
            break;
        }
        case N_PARTIAL:
        case N_PARENT:
            rc = mst_include(r, t, n);
            break;
        default:
            rc = mst_block(r, t, n);
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
    return mst_render_val(t, mst_v_json(data ? data : json_null()), loader,
                          opts, out, outlen, err);
}

int mst_render_val(const mst_template *t, mst_val data,
                   const mst_loader *loader, const mst_options *opts,
                   char **out, size_t *outlen, mst_error *err) {
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
    r.stream = opts ? opts->stream : NULL;
    r.lazy = opts ? opts->lazy : NULL;
    r.nlazy = opts && opts->lazy ? opts->nlazy : 0;
    if (r.nlazy > 4)
        r.lazy_ix = mst_lazy_index_new(r.lazy, r.nlazy);
    r.need_indent = true;
    push_ctx(&r, data);
    if (r.stream) {
        r.out = base_xmalloc(MST_CHUNK);
        r.cap = MST_CHUNK;
    }
    int rc = out_reserve(&r, t, NULL, 0);
    if (rc == 0)
        rc = mst_render_nodes(&r, t, t->nodes, t->nnodes);
    if (rc == 0 && r.stream)
        rc = out_flush(&r, t);
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
    mst_lazy_index_free(r.lazy_ix);
    for (size_t i = 0; i < r.nsecs; i++)
        mst_names_free(r.secs[i].names);
    free(r.secs);
    if (rc) {
        free(r.out);
        if (out)
            *out = NULL;
        if (outlen)
            *outlen = 0;
        return -1;
    }
    r.out[r.len] = '\0';
    if (out && !r.stream)
        *out = r.out;
    else
        free(r.out);
    if (out && r.stream)
        *out = NULL;
    if (outlen)
        *outlen = r.flushed + r.len;
    return 0;
}

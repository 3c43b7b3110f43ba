/*
 * base/arena.c - the arena: bump allocation in chunks, freed in
 * one call.  Chunks double from 64 KiB up to 4 MiB, so that a small
 * arena stays small and a large one wastes little at chunk ends; large
 * requests get a chunk of their own.
 *
 * A chunk of 2 MiB or more is mapped on its own, aligned to 2 MiB and
 * offered to the kernel for transparent huge pages (where the system has
 * them): a program of 10^6 statements fills some 300 MB of arena, and at
 * 4 KiB a page the page faults alone were a third of the time of parsing
 * and checking it.  Pages are still touched (made resident) only where
 * the arena writes.
 *
 * base_huge_alloc hands out one such chunk on its own, for a planner's
 * large working block: the same mapping, its data aligned as asked, but
 * NULL instead of base_oom, and mapped from 1 MiB on (rounded up to whole
 * 2 MiB pages).  Such a block is a working array, written throughout:
 * tree's between 1 and 2 MiB (its placement record and an index arena's
 * step at 10^5 buffers) cost some 1,100 page faults a run at 4 KiB, a
 * few percent of its time.  An arena's chunks stay calloc'ed below 2 MiB:
 * its newest chunk is mostly unused, and mapping its 1 MiB chunks as
 * huge pages raised gen's peak memory at 10^5 kernels by 8 MiB (7%).
 */
#define _DEFAULT_SOURCE /* madvise, MAP_ANONYMOUS */
#include "base.h"

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define BASE_ARENA_CHUNK ((size_t)64 * 1024)
#define BASE_ARENA_MAX_CHUNK ((size_t)4 * 1024 * 1024)
#define BASE_ARENA_HUGE ((size_t)2 * 1024 * 1024)
/* base_huge_alloc maps from this size on (see the top) */
#define BASE_HUGE_MAP_FROM (BASE_ARENA_HUGE / 2)

typedef struct base_chunk {
    struct base_chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    size_t mapped; /* bytes mapped at `map` (0: `map` is calloc'ed) */
    void *map;     /* what holds the chunk: the header need not be first */
    _Alignas(16) unsigned char data[];
} base_chunk;

#define BASE_CHUNK_HEAD offsetof(base_chunk, data)

/* A zeroed chunk of `csize` usable bytes whose data is aligned to
 * `align` (a power of two, 16 to 4096), the header right before the
 * data: mapped and 2 MiB-aligned when it is map_from bytes or more (the
 * header and the alignment's slack counted), so that the kernel can back
 * it with huge pages, else calloc'ed (calloc: a big block comes zeroed from
 * fresh pages, untouched until used).  NULL when memory is short or
 * csize is too large to round up. */
static base_chunk *chunk_try_new(size_t csize, size_t align, size_t map_from) {
    /* the data at the first aligned address after the header: at most
     * align - 16 bytes further than at 16 (mmap and calloc give 16) */
    size_t slack = align - 16;
    /* bytes rounded up to 2 MiB, plus 2 MiB of slack, stay in size_t */
    if (csize > SIZE_MAX - BASE_CHUNK_HEAD - slack - 2 * BASE_ARENA_HUGE)
        return NULL;
    size_t bytes = BASE_CHUNK_HEAD + slack + csize;
    unsigned char *m = NULL;
    size_t len = 0;
    if (bytes >= map_from) {
        /* Map the size rounded up to 2 MiB, plus 2 MiB of slack to
         * align within; the slack is unmapped again. */
        len = (bytes + BASE_ARENA_HUGE - 1) & ~(BASE_ARENA_HUGE - 1);
        void *raw = mmap(NULL, len + BASE_ARENA_HUGE, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (raw != MAP_FAILED) {
            uintptr_t at = ((uintptr_t)raw + BASE_ARENA_HUGE - 1) &
                           ~(uintptr_t)(BASE_ARENA_HUGE - 1);
            size_t head = at - (uintptr_t)raw;
            if (head)
                munmap(raw, head);
            if (BASE_ARENA_HUGE - head)
                munmap((char *)at + len, BASE_ARENA_HUGE - head);
#ifdef MADV_HUGEPAGE
            madvise((void *)at, len, MADV_HUGEPAGE); /* a hint: may fail */
#endif
            m = (unsigned char *)at;
        }
    }
    if (!m) {
        len = 0;
        m = calloc(1, bytes);
        if (!m)
            return NULL;
    }
    uintptr_t data =
        ((uintptr_t)m + BASE_CHUNK_HEAD + align - 1) & ~(uintptr_t)(align - 1);
    base_chunk *c = (base_chunk *)(data - BASE_CHUNK_HEAD);
    /* >= csize: a mapping's round-up is usable too */
    c->size = len ? (size_t)((uintptr_t)m + len - data) : csize;
    c->mapped = len;
    c->map = m;
    return c;
}

static base_chunk *base_chunk_new(size_t csize) {
    base_chunk *c = chunk_try_new(csize, 16, BASE_ARENA_HUGE);
    if (!c)
        base_oom();
    return c;
}

static void base_chunk_free(base_chunk *c) {
    if (c->mapped)
        munmap(c->map, c->mapped);
    else
        free(c->map);
}

void *base_huge_alloc(size_t size, size_t align) {
    PW_ASSERT(align <= 4096 && (align & (align - 1)) == 0);
    base_chunk *c =
        chunk_try_new(size, align < 16 ? 16 : align, BASE_HUGE_MAP_FROM);
    if (!c)
        return NULL;
    c->used = size;
    return c->data;
}

void base_huge_free(void *p) {
    if (p)
        base_chunk_free((base_chunk *)((unsigned char *)p - BASE_CHUNK_HEAD));
}

/* struct base_arena is in base.h (base_arena_alloc is inline): the
 * bytes in use of its newest chunk are a->cur - head->data, head->used
 * is brought up to date only here (arena_sync). */

static void arena_sync(base_arena *a) {
    if (a->head)
        a->head->used = (size_t)(a->cur - a->head->data);
}

static void arena_window(base_arena *a) {
    base_chunk *c = a->head;
    a->cur = c ? c->data + c->used : NULL;
    a->end = c ? c->data + c->size : NULL;
}

base_arena *base_arena_new(void) {
    return base_arena_new_aligned(16);
}

base_arena *base_arena_new_aligned(size_t align) {
    PW_ASSERT(align >= 1 && align <= 16 && (align & (align - 1)) == 0);
    base_arena *a = calloc(1, sizeof *a);
    if (!a)
        base_oom();
    a->align = align;
    a->chunk = BASE_ARENA_CHUNK;
    return a;
}

void base_arena_free(base_arena *a) {
    if (!a)
        return;
    base_chunk *c = a->head;
    while (c) {
        base_chunk *next = c->next;
        base_chunk_free(c);
        c = next;
    }
    free(a);
}

/* `size` bytes (one for 0) aligned to `align`, past the window: in
 * the newest chunk, a new one, or a chunk of their own. */
static void *arena_alloc(base_arena *a, size_t size, size_t align) {
    if (size == 0)
        size = 1;
    if (size > SIZE_MAX - 16)
        base_oom();
    base_chunk *c = a->head;
    /* the newest chunk's used bytes (arena_sync's) need not be aligned */
    size_t at = c ? (c->used + align - 1) & ~(align - 1) : 0;
    if (!c || at > c->size || c->size - at < size) {
        /* a->chunk counts the header: a 4 MiB chunk maps 4 MiB. */
        bool own = size > a->chunk / 4;
        /* whole 16 bytes: the window's end stays aligned (base.h) */
        size_t csize =
            own ? (size + 15) & ~(size_t)15 : a->chunk - BASE_CHUNK_HEAD;
        if (!own && a->chunk < BASE_ARENA_MAX_CHUNK)
            a->chunk *= 2;
        base_chunk *n = base_chunk_new(csize);
        if (own) {
            /* A big block of its own, already zero: keep the current
             * chunk on top for small requests. */
            n->used = size;
            if (c) {
                n->next = c->next;
                c->next = n;
            } else {
                n->next = NULL;
                a->head = n;
            }
            return n->data;
        }
        n->next = c;
        a->head = n;
        c = n;
        at = 0; /* data is aligned to 16 */
    }
    /* Chunks come zeroed and are never reused: no memset. */
    void *p = c->data + at;
    c->used = at + size;
    return p;
}

void *base_arena_alloc_slow(base_arena *a, size_t size, size_t align) {
    arena_sync(a);
    void *p = arena_alloc(a, size, align);
    arena_window(a);
    return p;
}

void base_arena_reset(base_arena *a) {
    base_chunk *c = a->head;
    if (!c)
        return;
    size_t used = (size_t)(a->cur - c->data); /* arena_sync's */
    for (base_chunk *n = c->next; n;) {
        base_chunk *next = n->next;
        base_chunk_free(n);
        n = next;
    }
    c->next = NULL;
    memset(c->data, 0, used); /* allocations are zeroed */
    c->used = 0;
    /* The window from what is known, not arena_window: reading c->used
     * back right after its store (one 16-byte load with c->size) cannot
     * be forwarded and waited for the memset's stores to drain, some 2%
     * of gen at 10^5 kernels (an element's arena is reset per element). */
    a->cur = c->data;
    a->end = c->data + c->size;
}

void *base_arena_array(base_arena *a, size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size)
        base_oom();
    return base_arena_alloc(a, n * size);
}

char *base_arena_strndup(base_arena *a, const char *s, size_t n) {
    if (n == SIZE_MAX)
        base_oom();
    char *p = base_arena_alloc_aligned(a, n + 1, 1); /* a string: no padding */
    base_copy(p, s, n);
    p[n] = '\0';
    return p;
}

char *base_arena_strdup(base_arena *a, const char *s) {
    return base_arena_strndup(a, s, strlen(s));
}

char *base_arena_printf(base_arena *a, const char *fmt, ...) {
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        base_oom();
    char *p = base_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return p;
}

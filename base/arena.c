/*
 * base/arena.c - the arena: bump allocation in chunks, freed in
 * one call.  Chunks double from 64 KiB up to 1 MiB, so that a small
 * arena stays small and a large one wastes little at chunk ends; large
 * requests get a chunk of their own.
 */
#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BASE_ARENA_CHUNK ((size_t)64 * 1024)
#define BASE_ARENA_MAX_CHUNK ((size_t)1024 * 1024)

typedef struct base_chunk {
    struct base_chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    _Alignas(16) unsigned char data[];
} base_chunk;

struct base_arena {
    base_chunk *head;
    size_t align; /* 16, or less for base_arena_new_aligned */
    size_t chunk; /* size of the next chunk */
};

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
        free(c);
        c = next;
    }
    free(a);
}

void *base_arena_alloc(base_arena *a, size_t size) {
    size_t need = (size + a->align - 1) & ~(a->align - 1);
    if (need < size)
        base_oom();
    if (size == 0)
        need = a->align;
    base_chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t csize = need > a->chunk / 4 ? need : a->chunk;
        if (csize == a->chunk && a->chunk < BASE_ARENA_MAX_CHUNK)
            a->chunk *= 2;
        if (csize > SIZE_MAX - sizeof(base_chunk))
            base_oom();
        /* calloc: a big block comes zeroed from fresh pages, untouched
         * until used. */
        base_chunk *n = calloc(1, sizeof(base_chunk) + csize);
        if (!n)
            base_oom();
        n->size = csize;
        n->used = 0;
        if (csize == need) {
            /* A big block of its own, already zero: keep the current
             * chunk on top for small requests. */
            n->used = need;
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
    }
    /* Chunks come zeroed from calloc and are never reused: no memset. */
    void *p = c->data + c->used;
    c->used += need;
    return p;
}

void base_arena_reset(base_arena *a) {
    base_chunk *c = a->head;
    if (!c)
        return;
    for (base_chunk *n = c->next; n;) {
        base_chunk *next = n->next;
        free(n);
        n = next;
    }
    c->next = NULL;
    memset(c->data, 0, c->used); /* allocations are zeroed */
    c->used = 0;
}

void *base_arena_array(base_arena *a, size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size)
        base_oom();
    return base_arena_alloc(a, n * size);
}

char *base_arena_strndup(base_arena *a, const char *s, size_t n) {
    if (n == SIZE_MAX)
        base_oom();
    char *p = base_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
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

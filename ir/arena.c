/*
 * ir/arena.c - the compilation arena: bump allocation in chunks, freed in
 * one call.  Large requests get a chunk of their own.
 */
#include "ir/intern.h"
#include "ir/ir.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define IR_ARENA_CHUNK ((size_t)64 * 1024)

typedef struct ir_chunk {
    struct ir_chunk *next;
    size_t size; /* usable bytes after the header */
    size_t used;
    _Alignas(16) unsigned char data[];
} ir_chunk;

struct ir_arena {
    ir_chunk *head;
};

_Noreturn void ir_oom(void) {
    fputs("planwrap: fatal: out of memory\n", stderr);
    abort();
}

ir_arena *ir_arena_new(void) {
    ir_arena *a = calloc(1, sizeof *a);
    if (!a)
        ir_oom();
    return a;
}

void ir_arena_free(ir_arena *a) {
    if (!a)
        return;
    ir_chunk *c = a->head;
    while (c) {
        ir_chunk *next = c->next;
        free(c);
        c = next;
    }
    free(a);
}

void *ir_arena_alloc(ir_arena *a, size_t size) {
    size_t need = (size + 15) & ~(size_t)15;
    if (need < size)
        ir_oom();
    if (size == 0)
        need = 16;
    ir_chunk *c = a->head;
    if (!c || c->size - c->used < need) {
        size_t csize = need > IR_ARENA_CHUNK / 4 ? need : IR_ARENA_CHUNK;
        if (csize > SIZE_MAX - sizeof(ir_chunk))
            ir_oom();
        /* calloc: a big block comes zeroed from fresh pages, untouched
         * until used. */
        ir_chunk *n = calloc(1, sizeof(ir_chunk) + csize);
        if (!n)
            ir_oom();
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

void *ir_arena_array(ir_arena *a, size_t n, size_t size) {
    if (size != 0 && n > SIZE_MAX / size)
        ir_oom();
    return ir_arena_alloc(a, n * size);
}

char *ir_arena_strndup(ir_arena *a, const char *s, size_t n) {
    if (n == SIZE_MAX)
        ir_oom();
    char *p = ir_arena_alloc(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *ir_arena_strdup(ir_arena *a, const char *s) {
    return ir_arena_strndup(a, s, strlen(s));
}

char *ir_arena_printf(ir_arena *a, const char *fmt, ...) {
    va_list ap, aq;
    va_start(ap, fmt);
    va_copy(aq, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        ir_oom();
    char *p = ir_arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, aq);
    va_end(aq);
    return p;
}

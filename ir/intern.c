/*
 * ir/intern.c - interned names (ir/intern.h): one record per distinct
 * name in the arena, found through a table of record pointers with open
 * addressing and linear probing.
 *
 * A uthash table cost 56 bytes of handle per name and a chain walk per
 * lookup; this table costs 24 bytes per name at most (12-byte slots, at
 * most half full) and compares 32-bit hashes kept in an array of their
 * own before it touches a record: a probe reads one cache line.
 */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#define IR_INTERN_MIN_CAP 1024

uint32_t ir_name_hash(const char *s, size_t n) {
    /* 64-bit multiply-xorshift over 8-byte words (FNV's constants); the
     * bytes are read with memcpy, so any alignment is fine.  The last
     * n % 8 bytes: the top of the last 8 when there are 8 (a fixed-size
     * read), else one by one (no call to memcpy for a variable size). */
    uint64_t h = 0xcbf29ce484222325u ^ (uint64_t)n;
    size_t total = n;
    while (n >= 8) {
        uint64_t w;
        memcpy(&w, s, 8);
        h = (h ^ w) * 0x100000001b3u;
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    uint64_t w = 0;
    if (n && total >= 8) {
        memcpy(&w, s + n - 8, 8);
        w >>= 8 * (8 - n);
    } else {
        for (size_t i = 0; i < n; i++)
            w |= (uint64_t)(unsigned char)s[i] << (8 * i);
    }
    h = (h ^ w) * 0x100000001b3u;
    h ^= h >> 32;
    h *= 0x9e3779b97f4a7c15u;
    return (uint32_t)(h >> 32) | 1u; /* never 0: 0 marks an empty slot */
}

/* Doubles the table (or creates it) and reinserts the records. */
static void ir_intern_grow(ir_intern_table *t) {
    size_t cap = t->cap ? t->cap * 2 : IR_INTERN_MIN_CAP;
    ir_name_rec **slots = malloc(cap * sizeof *slots);
    uint32_t *hashes = calloc(cap, sizeof *hashes);
    if (!slots || !hashes)
        base_oom();
    for (size_t i = 0; i < t->cap; i++) {
        if (!t->hashes[i])
            continue;
        ir_name_rec *r = t->slots[i];
        size_t j = r->hash & (cap - 1);
        while (hashes[j])
            j = (j + 1) & (cap - 1);
        slots[j] = r;
        hashes[j] = r->hash;
    }
    free(t->slots);
    free(t->hashes);
    t->slots = slots;
    t->hashes = hashes;
    t->cap = cap;
}

/* `size` bytes for a record, aligned as one, in the arena. */
static ir_name_rec *ir_intern_rec(base_arena *a, ir_intern_table *t,
                                  size_t size) {
    enum { IR_REC_ALIGN = _Alignof(ir_name_rec), IR_REC_BLOCK = 64 * 1024 };
    size = (size + IR_REC_ALIGN - 1) & ~(size_t)(IR_REC_ALIGN - 1);
    if (size > IR_REC_BLOCK / 8) /* a long name: on its own */
        return base_arena_alloc(a, size);
    if (t->blk_left < size) {
        t->blk = base_arena_alloc(a, IR_REC_BLOCK);
        t->blk_left = IR_REC_BLOCK;
    }
    ir_name_rec *r = (ir_name_rec *)(void *)t->blk;
    t->blk += size;
    t->blk_left -= size;
    return r;
}

const char *ir_intern_hashed(base_arena *a, ir_intern_table *t, const char *s,
                             size_t n, uint32_t hash) {
    if (2 * (t->n + 1) > t->cap)
        ir_intern_grow(t);
    size_t mask = t->cap - 1;
    size_t j = hash & mask;
    for (uint32_t hj; (hj = t->hashes[j]) != 0; j = (j + 1) & mask) {
        const ir_name_rec *r = t->slots[j];
        if (hj == hash && r->len == n && memcmp(r->name, s, n) == 0)
            return r->name;
    }
    ir_name_rec *r = ir_intern_rec(a, t, sizeof *r + n + 1);
    r->hash = hash;
    r->len = (uint32_t)n;
    memcpy(r->name, s, n);
    r->name[n] = '\0';
    for (int k = 0; k < IR_NS_COUNT; k++)
        r->ns[k].id = r->ns[k].first = -1;
    t->slots[j] = r;
    t->hashes[j] = hash;
    t->n++;
    return r->name;
}

const char *ir_intern(base_arena *a, ir_intern_table *t, const char *s,
                      size_t n) {
    return ir_intern_hashed(a, t, s, n, ir_name_hash(s, n));
}

void ir_intern_free(ir_intern_table *t) {
    free(t->slots);
    free(t->hashes);
    memset(t, 0, sizeof *t);
}

/*
 * ir/intern.h - private to the ir module: interned names.
 *
 * The parser stores every NAME once, in a record allocated in the arena;
 * equal names share one pointer.  It stores the spellings of literal
 * arguments (and decoded strings) the same way: a program repeats them
 * (0, 1, "mean"); the checker never looks them up as names.  The checker
 * reaches a name's record from the name pointer in O(1) (no hash lookup) and
 * keeps its per-namespace state there.  Records are valid while the arena
 * lives; the hash table used to find them while interning is temporary.
 */
#ifndef PLANWRAP_IR_INTERN_H
#define PLANWRAP_IR_INTERN_H

#include "ir/ir.h"

#include <stddef.h>

/* Namespaces of a name's checker state. */
enum { IR_NS_VALUE, IR_NS_KERNEL, IR_NS_SPACE, IR_NS_COUNT };

/* Checker state of a name in one namespace (-1 = none). */
typedef struct ir_slot {
    int32_t id;    /* value / ir_kernel / ir_space index */
    int32_t first; /* first defining statement / first signature */
} ir_slot;

typedef struct ir_name_rec {
    uint32_t hash; /* ir_name_hash of the name */
    uint32_t gen;  /* checker run that last reset `ns` */
    ir_slot ns[IR_NS_COUNT];
    uint32_t len; /* strlen(name), read by ir_name_len (ir.h) */
    char name[];  /* NUL-terminated */
} ir_name_rec;

_Static_assert(offsetof(ir_name_rec, name) ==
                   offsetof(ir_name_rec, len) + sizeof(uint32_t),
               "ir_name_len reads the length just before the name");

/* The table that finds a name's record while interning: open addressing
 * over record pointers and their hashes (12 bytes a slot, at most half
 * full), never iterated.  Zero-initialise; free with ir_intern_free. */
typedef struct ir_intern_table {
    ir_name_rec **slots; /* valid where hashes[i] != 0 */
    uint32_t *hashes;    /* slots[i]->hash, 0 for an empty slot */
    size_t cap;          /* a power of two, or 0 */
    size_t n;
    /* The records are carved from blocks of the arena, 4-aligned (the
     * arena aligns each allocation to 16): the rest of the current one. */
    char *blk;
    size_t blk_left;
} ir_intern_table;

/* The hash of s[0..n) the table uses: deterministic, never 0. */
uint32_t ir_name_hash(const char *s, size_t n);

/* Returns the interned copy of s[0..n) (whose ir_name_hash is `hash`),
 * adding a record in `a` to the table when it is new.  O(1) expected. */
const char *ir_intern_hashed(base_arena *a, ir_intern_table *t, const char *s,
                             size_t n, uint32_t hash);
/* ir_intern_hashed with the hash computed here. */
const char *ir_intern(base_arena *a, ir_intern_table *t, const char *s,
                      size_t n);
/* Frees the table (not the records) and zeroes it. */
void ir_intern_free(ir_intern_table *t);

/* The record of an interned name. */
static inline ir_name_rec *ir_name_rec_of(const char *name) {
    return (ir_name_rec *)(void *)(name - offsetof(ir_name_rec, name));
}

/* The location of argument `a` of call `st`. */
static inline ir_loc ir_arg_loc(const ir_stmt *st, const ir_arg *a) {
    ir_loc l = {st->loc.line, a->col};
    return l;
}

/* A statement's rarely given attributes, or an empty set when it has
 * none (never NULL). */
static inline const ir_attrs *ir_attrs_or_none(const ir_stmt *st) {
    static const ir_attrs none;
    return st->attrs ? st->attrs : &none;
}

/* ir_parse without its "NULL when there is a syntax error": returns the
 * program with its broken statements and unread lines (ir_program
 * .syntax_errors, ir/ir.h), for ir_load to check.  NULL only when the
 * input is too large to parse at all (reported). */
ir_program *ir_parse_recover(base_arena *a, const char *filename,
                             const char *text, size_t len, base_diag *d);

/* The firmware rules of ir_check (ir/check_fw.c, docs/firmware.md); each
 * returns the number of errors it reported to `d`. */
/* data="FILE" at=OFFSET of the const value `v` defined by `st` (its size
 * known): the file exists, is a regular file, and holds the range.  Sets
 * v->data_path and v->data_at.  Never reads the file. */
unsigned ir_check_fw_data(ir_program *p, base_diag *d, const ir_stmt *st,
                          ir_value *v);
/* After the main pass: spill= of every space names a declared space, and
 * the spill chains have no cycle; sets ir_space.spill. */
unsigned ir_check_fw_spills(ir_program *p, base_diag *d, bool lost_spaces);
/* After the main pass: next= of every state names an alloc that is an
 * output of the state's type and placement, the next of no other state;
 * sets state_next and next_of.  `poisoned` (per value, may be NULL) mutes
 * the values whose definition had an error.  With `lost_*` (a line that
 * could not be read may have defined it) an undefined name is no error. */
unsigned ir_check_fw_states(ir_program *p, base_diag *d, const bool *poisoned,
                            bool lost_values);

#endif /* PLANWRAP_IR_INTERN_H */

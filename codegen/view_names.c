/*
 * codegen/view_names.c - identifiers of the generated code: sets of
 * names, struct fields, reserved names, kernel names and the fixed
 * parameter and API names (deterministic: IR order, never hash order).
 */
#include "view_internal.h"
#include "cnames.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Identifier sets. */

/* The hash of a name in a set: base_hash_bytes's high half (never 0: 0
 * marks an empty slot).  The view names every value, so the set is
 * probed 10^5 times and more: open addressing keeps each probe to one
 * cache line or two. */
static uint32_t name_hash(const char *s, size_t n) {
    uint32_t r = (uint32_t)(base_hash_bytes(s, n) >> 32);
    return r ? r : 1;
}

/* The slot of name (n bytes, hash h) in s: where it is, or the empty
 * slot where it belongs.  s->cap > 0. */
static size_t set_slot(const cg_nameset *s, const char *name, size_t n,
                       uint32_t h) {
    size_t mask = s->cap - 1;
    size_t at = h & mask;
    while (s->hash[at] &&
           (s->hash[at] != h || strncmp(s->name[at], name, n) != 0 ||
            s->name[at][n] != '\0'))
        at = (at + 1) & mask;
    return at;
}

/* Doubles the slots of s (or makes its first 64). */
static void set_grow(cg_nameset *s) {
    size_t cap = s->cap ? 2 * s->cap : 64;
    uint32_t *hash = base_xcalloc(cap, sizeof *hash);
    const char **name = base_xcalloc(cap, sizeof *name);
    for (size_t i = 0; i < s->cap; i++) {
        if (!s->hash[i])
            continue;
        size_t at = s->hash[i] & (cap - 1);
        while (hash[at])
            at = (at + 1) & (cap - 1);
        hash[at] = s->hash[i];
        name[at] = s->name[i];
    }
    free(s->hash);
    free(s->name);
    s->hash = hash;
    s->name = name;
    s->cap = cap;
}

/* Adds name (n bytes) unless it is in s; true when it was added. */
static bool set_put(cg_nameset *s, const char *name, size_t n) {
    if (2 * (s->n + 1) > s->cap)
        set_grow(s);
    uint32_t h = name_hash(name, n);
    size_t at = set_slot(s, name, n, h);
    if (s->hash[at])
        return false;
    s->hash[at] = h;
    s->name[at] = name;
    s->n++;
    return true;
}

static void set_add(vw *v, cg_nameset *s, const char *name) {
    (void)v; /* the name outlives the set (the view's arena or static) */
    set_put(s, name, strlen(name));
}

void cg_set_clear(cg_nameset *s) {
    free(s->hash);
    free(s->name);
    memset(s, 0, sizeof *s);
}

/* Returns `base`, or base_2, base_3, ... : the first not in `s`; adds it.
 * `base` must live as long as the view (a literal, an IR name, or a
 * string made by cg_vfmt or cg_upper outside an element): the set and the
 * view keep it, uncopied. */
const char *cg_set_unique(vw *v, cg_nameset *s, const char *base) {
    PW_ASSERT(v->str == v->sa); /* cg_vfmt's strings outlive the view */
    size_t len = strlen(base);
    const char *cand = base;
    for (unsigned k = 2; !set_put(s, cand, len); k++) {
        cand = cg_vfmt(v, "%s_%u", base, k);
        len = strlen(cand);
    }
    return cand;
}

bool cg_set_has_prefix(const cg_nameset *s, const char *prefix) {
    size_t n = strlen(prefix);
    for (size_t i = 0; i < s->cap; i++)
        if (s->hash[i] && strncmp(s->name[i], prefix, n) == 0)
            return true;
    return false;
}

/* Names that are not C11 keywords (ir_is_c_keyword) but that a struct
 * field may not be either: <stdbool.h> macros and a name the generated
 * headers use. */
static const char *const cg_field_reserved[] = {"bool", "true", "false",
                                                "unused"};

/* A struct field name for `name`: itself unless it is a C keyword, a
 * macro of the included headers (NULL, SIZE_MAX, ...), a name the
 * generated headers use, or for CUDA a C++ keyword; then name_. */
const char *cg_field_base(vw *v, const char *name) {
    bool taken = ir_is_c_keyword(name) || cg_is_header_macro(name) ||
                 strncmp(name, "PW_", 3) == 0 ||
                 (v->cuda && cg_is_cxx_keyword(name));
    for (size_t i = 0;
         !taken && i < sizeof cg_field_reserved / sizeof *cg_field_reserved;
         i++)
        taken = strcmp(name, cg_field_reserved[i]) == 0;
    return taken ? cg_vfmt(v, "%s_", name) : name;
}

char *cg_upper(vw *v, const char *s) {
    char *u = base_arena_strdup(v->sa, s);
    for (char *p = u; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    return u;
}

/* Names a kernel may not keep: C library functions (gcc knows many as
 * built-ins with fixed types), names and macros of the headers generated
 * code includes, the runtime, C's reserved forms, and for CUDA C++
 * keywords (codegen/cnames.c). */
static bool kernel_name_reserved(const vw *v, const char *n) {
    if (cg_is_c_library_name(n) || (v->cuda && cg_is_cxx_keyword(n)))
        return true;
    if (strncmp(n, "pw_", 3) == 0 || strncmp(n, "PW_", 3) == 0 ||
        strncmp(n, "__", 2) == 0 || (n[0] == '_' && n[1] >= 'A' && n[1] <= 'Z'))
        return true;
    size_t ml = strlen(v->M);
    if (strncmp(n, v->M, ml) == 0 && n[ml] == '_') {
        /* the generated API and file-scope names: M_run, M_POOL_..., */
        static const char *const api[] = {
            "inputs",     "consts",  "outputs", "pools", "run",
            "run_static", "ctx",     "init",    "fini",  "copy_bytes",
            "pool_",      "buffer_", "k_",
        };
        const char *rest = n + ml + 1;
        if (*rest >= 'A' && *rest <= 'Z')
            return true; /* macros */
        for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) {
            size_t al = strlen(api[i]);
            if (api[i][al - 1] == '_' ? strncmp(rest, api[i], al) == 0
                                      : strcmp(rest, api[i]) == 0)
                return true;
        }
    }
    if (v->cuda && (strncmp(n, "cuda", 4) == 0 || strncmp(n, "cu", 2) == 0 ||
                    strncmp(n, "CU", 2) == 0 || strncmp(n, "nccl", 4) == 0))
        return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Naming. */

void cg_name_kernels(vw *v) {
    const ir_program *p = v->prog;
    v->kname = base_arena_array(v->a, p->nkernels, sizeof *v->kname);
    /* Kernel names that stay are taken first, so renamed ones and every
     * generated identifier avoid them. */
    for (uint32_t k = 0; k < p->nkernels; k++)
        if (!kernel_name_reserved(v, p->kernels[k].name)) {
            v->kname[k] = p->kernels[k].name;
            set_add(v, &v->ids, v->kname[k]);
        }
    for (uint32_t k = 0; k < p->nkernels; k++)
        if (!v->kname[k])
            v->kname[k] = cg_set_unique(
                v, &v->ids, cg_vfmt(v, "%s_k_%s", v->M, p->kernels[k].name));
}

void cg_name_fixed(vw *v) {
    /* API names are fixed by the contract; kernels were renamed away. */
    static const char *const api[] = {
        "inputs",     "consts", "outputs", "pools", "run",
        "run_static", "ctx",    "init",    "fini",
    };
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
        set_add(v, &v->ids, cg_vfmt(v, "%s_%s", v->M, api[i]));
    static const char *const rt[] = {"alloc_from_pool", "pw_pool", "pw_rt_fail",
                                     "pw_comm_alloc", "pw_comm_free"};
    for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++)
        set_add(v, &v->ids, rt[i]);
    v->p_in = cg_set_unique(v, &v->ids, "in");
    v->p_c = cg_set_unique(v, &v->ids, "c");
    v->p_out = cg_set_unique(v, &v->ids, "out");
    v->p_p = cg_set_unique(v, &v->ids, "p");
    v->p_ctx = cg_set_unique(v, &v->ids, "ctx");
    v->p_stream = cg_set_unique(v, &v->ids, "stream");
    v->rc = cg_set_unique(v, &v->ids, "rc");
    v->pools_var = cg_set_unique(v, &v->ids, "pools");
    v->copy_fn = cg_set_unique(v, &v->ids, cg_vfmt(v, "%s_copy_bytes", v->M));
    v->check_macro = cg_set_unique(v, &v->ids, cg_vfmt(v, "%s_CHECK", v->M));
}

/*
 * runtime/planwrap_rt.c - the runtime library that generated wrappers link:
 * check failures, the lifetime tracker (PW_RT_TRACK) and the registry of
 * communication-pool hooks.  C99 and C11, no malloc: every table is static
 * with a documented limit (docs/runtime.md).
 */
#include "planwrap_rt.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pw_rt_version(void) {
    return PW_RT_VERSION;
}

static pw_rt_fail_fn pw_fail_hook;
static void *pw_fail_user;

void pw_rt_set_fail_hook(pw_rt_fail_fn fn, void *user) {
    pw_fail_hook = fn;
    pw_fail_user = user;
}

#if defined(__GNUC__) || defined(__clang__)
#define PW_RT_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PW_RT_PRINTF(f, a)
#endif

/* Appends to msg[*n..size), truncating. */
static void pw_append(char *msg, size_t size, size_t *n, const char *fmt, ...)
    PW_RT_PRINTF(4, 5);
static void pw_append(char *msg, size_t size, size_t *n, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(msg + *n, size - *n, fmt, ap);
    va_end(ap);
    if (k > 0)
        *n = (size_t)k < size - *n ? *n + (size_t)k : size - 1;
}

void pw_rt_fail(const char *what, const pw_pool *pool, size_t offset,
                size_t nbytes, const char *name) {
    /* static: no malloc, and the stack of a failing program may be small */
    static char msg[512];
    size_t n = 0;
    pw_append(msg, sizeof msg, &n, "planwrap runtime: %s",
              what ? what : "check failed");
    if (name != NULL)
        pw_append(msg, sizeof msg, &n, ": buffer '%s'", name);
    if (pool != NULL)
        pw_append(msg, sizeof msg, &n,
                  " in pool '%s' (base %s, size %lu, align %lu)",
                  pool->name ? pool->name : "?", pool->base ? "set" : "NULL",
                  (unsigned long)pool->size, (unsigned long)pool->align);
    /* a NULL caller pointer has no place in a pool */
    if (pool != NULL || offset != 0 || nbytes != 0)
        pw_append(msg, sizeof msg, &n, " at offset %lu, %lu bytes",
                  (unsigned long)offset, (unsigned long)nbytes);
    if (pw_fail_hook != NULL)
        pw_fail_hook(msg, pw_fail_user); /* should not return */
    fflush(stdout);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    abort();
}

#ifdef PW_RT_CHECKS
void pw_guard_fill(const pw_pool *pool, size_t offset, size_t n) {
    if (pool->base == NULL || offset > pool->size || n > pool->size - offset)
        pw_rt_fail("guard bytes outside their pool", pool, offset, n, NULL);
    memset(pool->base + offset, PW_RT_GUARD_PATTERN, n);
}

void pw_guard_check(const pw_pool *pool, size_t offset, size_t n,
                    const char *name, const char *kernel, long line) {
    static char what[256];
    if (pool->base == NULL || offset > pool->size || n > pool->size - offset)
        pw_rt_fail("guard bytes outside their pool", pool, offset, n, name);
    for (size_t i = 0; i < n; i++) {
        if (pool->base[offset + i] == PW_RT_GUARD_PATTERN)
            continue;
        snprintf(what, sizeof what,
                 "guard byte %lu after the buffer overwritten by kernel "
                 "'%s' (IR line %ld)",
                 (unsigned long)i, kernel ? kernel : "?", line);
        pw_rt_fail(what, pool, offset, n, name);
    }
}
#endif

/* ------------------------------------------------------------------ */
/* Communication-pool hooks.  The defaults are pw_comm_default_alloc/free:
 * weak here (they fail: a C-only build has no device allocator), strong
 * in planwrap_rt_cuda.cu (cudaMalloc, or ncclMemAlloc with PW_WITH_NCCL).
 * Without weak symbols (non-GNU compilers) define PW_RT_NO_COMM_DEFAULTS
 * here and link planwrap_rt_cuda.cu, or install hooks. */
#ifndef PW_RT_NO_COMM_DEFAULTS
#if defined(__GNUC__) || defined(__clang__)
#define PW_RT_WEAK __attribute__((weak))
#else
#define PW_RT_WEAK
#endif

PW_RT_WEAK int pw_comm_default_alloc(void **ptr, size_t size, const char *comm,
                                     const char *group, void *user) {
    (void)size;
    (void)user;
    if (ptr != NULL)
        *ptr = NULL;
    fprintf(stderr,
            "planwrap runtime: no allocator for communication pool "
            "(comm=%s group=%s): link planwrap_rt_cuda.cu or call "
            "pw_set_comm_hooks\n",
            comm ? comm : "?", group ? group : "?");
    return -1;
}

PW_RT_WEAK int pw_comm_default_free(void *ptr, size_t size, const char *comm,
                                    const char *group, void *user) {
    (void)size;
    (void)comm;
    (void)group;
    (void)user;
    return ptr == NULL ? 0 : -1;
}
#endif

static pw_comm_alloc_fn pw_comm_alloc_hook;
static pw_comm_free_fn pw_comm_free_hook;
static void *pw_comm_user;

void pw_set_comm_hooks(pw_comm_alloc_fn alloc_fn, pw_comm_free_fn free_fn,
                       void *user) {
    pw_comm_alloc_hook = alloc_fn;
    pw_comm_free_hook = free_fn;
    pw_comm_user = user;
}

int pw_comm_alloc(void **ptr, size_t size, const char *comm,
                  const char *group) {
    if (ptr == NULL)
        return -1;
    if (pw_comm_alloc_hook != NULL)
        return pw_comm_alloc_hook(ptr, size, comm, group, pw_comm_user);
    return pw_comm_default_alloc(ptr, size, comm, group, NULL);
}

int pw_comm_free(void *ptr, size_t size, const char *comm, const char *group) {
    if (pw_comm_free_hook != NULL)
        return pw_comm_free_hook(ptr, size, comm, group, pw_comm_user);
    return pw_comm_default_free(ptr, size, comm, group, NULL);
}

/* The communicator lookup used by the NCCL defaults. */
static pw_nccl_comm_fn pw_nccl_lookup;
static void *pw_nccl_lookup_user;

void pw_set_nccl_comm_lookup(pw_nccl_comm_fn fn, void *user) {
    pw_nccl_lookup = fn;
    pw_nccl_lookup_user = user;
}

void *pw_nccl_comm_for_group(const char *group) {
    if (pw_nccl_lookup == NULL)
        return NULL;
    return pw_nccl_lookup(group, pw_nccl_lookup_user);
}

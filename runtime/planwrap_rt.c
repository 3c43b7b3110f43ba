/*
 * runtime/planwrap_rt.c - the runtime library that generated wrappers link:
 * check failures, the lifetime tracker (PW_RT_TRACK) and the registry of
 * communication-pool hooks.  C99 and C11, no malloc: every table is static
 * with a documented limit (docs/runtime.md).
 */
#include "planwrap_rt.h"

#include <stdio.h>
#include <stdlib.h>

const char *pw_rt_version(void) {
    return PW_RT_VERSION;
}

void pw_rt_fail(const char *what, const pw_pool *pool, size_t offset,
                size_t nbytes, const char *name) {
    fflush(stdout);
    fprintf(stderr, "planwrap runtime: %s", what ? what : "check failed");
    if (name != NULL)
        fprintf(stderr, ": buffer '%s'", name);
    if (pool != NULL) {
        fprintf(stderr, " in pool '%s' (base %s, size %lu, align %lu)",
                pool->name ? pool->name : "?", pool->base ? "set" : "NULL",
                (unsigned long)pool->size, (unsigned long)pool->align);
    }
    fprintf(stderr, " at offset %lu, %lu bytes\n", (unsigned long)offset,
            (unsigned long)nbytes);
    fflush(stderr);
    abort();
}

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

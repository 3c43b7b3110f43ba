/*
 * runtime/planwrap_rt.h - the small runtime that generated wrappers link.
 *
 *  - pw_pool: a pool descriptor (base, size, alignment, name).
 *  - alloc_from_pool(): a buffer at a planned offset of a pool.  Inline and
 *    free of cost; bounds- and alignment-checked when PW_RT_CHECKS is
 *    defined (a failed check calls pw_rt_fail, which reports and aborts).
 *  - PW_TRACK_ALLOC / PW_TRACK_DEATH: the lifetime tracker, compiled in
 *    only when PW_RT_TRACK is defined (zero cost otherwise).  The tracker
 *    fails loudly when a new buffer overlaps a live one of the same pool,
 *    and poisons the bytes of a dead storage so that a stale read shows.
 *  - Communication-pool hooks (CUDA targets): how pools of communication
 *    buffers are allocated; replaceable by the user.
 *
 * C99 and C11, no malloc anywhere.  See docs/runtime.md.
 */
#ifndef PLANWRAP_RT_H
#define PLANWRAP_RT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PW_RT_VERSION "0.1.0"

typedef struct pw_pool {
    unsigned char *base; /* first byte of the pool */
    size_t size;         /* bytes */
    size_t align;        /* the alignment the plan assumes for base */
    const char *name;    /* pool name, for messages */
} pw_pool;

#if defined(__GNUC__) || defined(__clang__)
#define PW_RT_NORETURN __attribute__((noreturn))
#else
#define PW_RT_NORETURN
#endif

/* Reports a runtime check failure ("planwrap runtime: WHAT") and never
 * returns: through the hook of pw_rt_set_fail_hook when one is installed,
 * else on stderr followed by abort().  Defined in planwrap_rt.c. */
PW_RT_NORETURN void pw_rt_fail(const char *what, const pw_pool *pool,
                               size_t offset, size_t nbytes, const char *name);

/* A failure hook: receives the whole message (no newline) and `user`.  It
 * should not return (reset, longjmp, halt); if it does, abort() follows. */
typedef void (*pw_rt_fail_fn)(const char *message, void *user);
/* Installs a failure hook (NULL restores fprintf + abort). */
void pw_rt_set_fail_hook(pw_rt_fail_fn fn, void *user);

/* What the inline checks call on failure.  Define PW_RT_FAIL before
 * including this header (when compiling the generated code) to route
 * failures to your own handler at compile time. */
#ifndef PW_RT_FAIL
#define PW_RT_FAIL(what, pool, offset, nbytes, name)                           \
    pw_rt_fail(what, pool, offset, nbytes, name)
#endif

/* Under PW_RT_CHECKS, fails ("WHAT: buffer 'NAME'") when ptr is NULL; the
 * generated run functions check every input, const, output and pool
 * pointer with it.  Nothing without PW_RT_CHECKS. */
#ifdef PW_RT_CHECKS
#define PW_RT_CHECK_PTR(ptr, what, name)                                       \
    do {                                                                       \
        if ((ptr) == NULL)                                                     \
            PW_RT_FAIL(what, NULL, 0, 0, name);                                \
    } while (0)
#else
#define PW_RT_CHECK_PTR(ptr, what, name) ((void)0)
#endif

/* Guard bytes (gen --guard-bytes N): the N bytes after a planned buffer
 * are filled with PW_RT_GUARD_PATTERN when it is taken from its pool and
 * checked after every call that could write it; a changed byte fails
 * naming the buffer, the kernel and the IR line of the call.  Both only
 * under PW_RT_CHECKS (planwrap_rt.c). */
#define PW_RT_GUARD_PATTERN 0xCB
#ifdef PW_RT_CHECKS
void pw_guard_fill(const pw_pool *pool, size_t offset, size_t n);
void pw_guard_check(const pw_pool *pool, size_t offset, size_t n,
                    const char *name, const char *kernel, long line);
#define PW_RT_GUARD_FILL(pool, off, n) pw_guard_fill(pool, off, n)
#define PW_RT_GUARD_CHECK(pool, off, n, name, kernel, line)                    \
    pw_guard_check(pool, off, n, name, kernel, line)
#else
#define PW_RT_GUARD_FILL(pool, off, n) ((void)0)
#define PW_RT_GUARD_CHECK(pool, off, n, name, kernel, line) ((void)0)
#endif

/* Returns the address of `nbytes` bytes at `offset` in `pool`. */
static inline void *alloc_from_pool(const pw_pool *pool, size_t offset,
                                    size_t nbytes) {
#ifndef PW_RT_CHECKS
    (void)nbytes;
#else
    if (pool->base == NULL)
        PW_RT_FAIL("pool is NULL", pool, offset, nbytes, NULL);
    if (offset > pool->size || nbytes > pool->size - offset)
        PW_RT_FAIL("buffer outside its pool", pool, offset, nbytes, NULL);
    if (pool->align != 0 && ((uintptr_t)pool->base % pool->align) != 0)
        PW_RT_FAIL("pool base is not aligned", pool, offset, nbytes, NULL);
#endif
    return (void *)(pool->base + offset);
}

#ifdef PW_RT_TRACK
/* Lifetime tracker: records [offset, offset+nbytes) of `pool` as live;
 * aborts with both names when it overlaps a live buffer. */
void pw_track_alloc(const pw_pool *pool, size_t offset, size_t nbytes,
                    const char *name);
/* Marks the storage dead and fills its bytes with PW_TRACK_POISON. */
void pw_track_death(const pw_pool *pool, size_t offset, size_t nbytes,
                    const char *name);
/* Forgets every live record of `pool` (call at the end of a run). */
void pw_track_reset(const pw_pool *pool);
#define PW_TRACK_POISON 0xA5
/* Number of buffers of all pools that can be live at once; exceeding it
 * fails loudly.  Override with -DPW_TRACK_MAX_LIVE=N (static table of N
 * records of 4 words). */
#ifndef PW_TRACK_MAX_LIVE
#define PW_TRACK_MAX_LIVE 4096
#endif
/* Number of live buffers of `pool` (all pools when NULL). */
size_t pw_track_live(const pw_pool *pool);
#define PW_TRACK_ALLOC(pool, off, n, name) pw_track_alloc(pool, off, n, name)
#define PW_TRACK_DEATH(pool, off, n, name) pw_track_death(pool, off, n, name)
#define PW_TRACK_RESET(pool) pw_track_reset(pool)
#else
#define PW_TRACK_ALLOC(pool, off, n, name) ((void)0)
#define PW_TRACK_DEATH(pool, off, n, name) ((void)0)
#define PW_TRACK_RESET(pool) ((void)0)
#endif

/* Communication pools (CUDA targets).  A pool of communication buffers
 * of type `comm` in process group `group` is allocated once by the
 * generated init function through these hooks, with the same size on
 * every rank.  Defaults (planwrap_rt_cuda.cu): cudaMalloc/cudaFree, or
 * with PW_WITH_NCCL ncclMemAlloc + registration with the group's
 * communicator.  Return 0 on success. */
typedef int (*pw_comm_alloc_fn)(void **ptr, size_t size, const char *comm,
                                const char *group, void *user);
typedef int (*pw_comm_free_fn)(void *ptr, size_t size, const char *comm,
                               const char *group, void *user);
/* Installs user hooks; NULL restores the defaults. */
void pw_set_comm_hooks(pw_comm_alloc_fn alloc_fn, pw_comm_free_fn free_fn,
                       void *user);
int pw_comm_alloc(void **ptr, size_t size, const char *comm, const char *group);
int pw_comm_free(void *ptr, size_t size, const char *comm, const char *group);

/* The defaults used when no hook is installed: weak definitions in
 * planwrap_rt.c that fail (return -1), overridden by planwrap_rt_cuda.cu
 * when it is linked. */
int pw_comm_default_alloc(void **ptr, size_t size, const char *comm,
                          const char *group, void *user);
int pw_comm_default_free(void *ptr, size_t size, const char *comm,
                         const char *group, void *user);

/* NCCL (PW_WITH_NCCL defaults): the communicator (an ncclComm_t, passed
 * as void *) of process group `group`, looked up through a user hook;
 * NULL when no hook is set or the group is unknown. */
typedef void *(*pw_nccl_comm_fn)(const char *group, void *user);
void pw_set_nccl_comm_lookup(pw_nccl_comm_fn fn, void *user);
void *pw_nccl_comm_for_group(const char *group);

/* The runtime version, PW_RT_VERSION. */
const char *pw_rt_version(void);

#ifdef __cplusplus
}
#endif

#endif /* PLANWRAP_RT_H */

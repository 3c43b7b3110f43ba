/*
 * runtime/planwrap_rt.h - the runtime that generated wrappers link:
 * pools, alloc_from_pool, communication-pool hooks, lifetime tracker.
 * (Contract being written; see docs/runtime.md.)
 */
#ifndef PLANWRAP_RT_H
#define PLANWRAP_RT_H

#include <stddef.h>
#include <stdint.h>

static inline void *alloc_from_pool(void *pool, size_t offset) {
    return (unsigned char *)pool + offset;
}

#endif /* PLANWRAP_RT_H */

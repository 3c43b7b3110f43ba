/*
 * runtime/planwrap_rt_track.c - the lifetime tracker (PW_RT_TRACK).
 *
 * Compiled in when PW_RT_TRACK is defined, or PW_RT_TRACK_ALWAYS (the
 * pw_rt library sets it, so that one installed library serves builds with
 * and without the tracker: this object is linked only when referenced).
 * In a plain build of the runtime sources without either macro it is empty and
 * costs nothing.  No malloc: one static table of PW_TRACK_MAX_LIVE records.
 */
#if defined(PW_RT_TRACK_ALWAYS) && !defined(PW_RT_TRACK)
#define PW_RT_TRACK 1
#endif
#include "planwrap_rt.h"

#include <stdio.h>
#include <string.h>

/* Lifetime tracker.  The live buffers of every pool are kept in one
 * static table of PW_TRACK_MAX_LIVE records, identified by the pool's base
 * address (so that copies of a descriptor denote the same pool).  An alloc
 * scans the live records of its pool: O(live) per event. */
#ifdef PW_RT_TRACK

typedef struct pw_track_rec {
    const unsigned char *base; /* pool base; NULL = free slot */
    size_t offset;
    size_t nbytes;
    const char *name;
} pw_track_rec;

static pw_track_rec pw_track_tab[PW_TRACK_MAX_LIVE];
static size_t pw_track_used; /* slots [0, used) may hold records */

static void pw_track_check_pool(const char *what, const pw_pool *pool,
                                size_t offset, size_t nbytes,
                                const char *name) {
    if (pool == NULL || pool->base == NULL)
        pw_rt_fail("tracker: pool is NULL", pool, offset, nbytes, name);
    if (offset > pool->size || nbytes > pool->size - offset)
        pw_rt_fail(what, pool, offset, nbytes, name);
}

void pw_track_alloc(const pw_pool *pool, size_t offset, size_t nbytes,
                    const char *name) {
    size_t i, slot = PW_TRACK_MAX_LIVE;
    pw_track_check_pool("tracker: buffer outside its pool", pool, offset,
                        nbytes, name);
    for (i = 0; i < pw_track_used; i++) {
        const pw_track_rec *r = &pw_track_tab[i];
        if (r->base == NULL) {
            if (slot == PW_TRACK_MAX_LIVE)
                slot = i;
            continue;
        }
        if (r->base != pool->base)
            continue;
        if (nbytes != 0 && r->nbytes != 0 && offset < r->offset + r->nbytes &&
            r->offset < offset + nbytes) {
            char msg[512];
            snprintf(msg, sizeof msg,
                     "tracker: buffer overlaps live buffer '%s' "
                     "[%lu, %lu)",
                     r->name ? r->name : "?", (unsigned long)r->offset,
                     (unsigned long)(r->offset + r->nbytes));
            pw_rt_fail(msg, pool, offset, nbytes, name);
        }
    }
    if (slot == PW_TRACK_MAX_LIVE) {
        if (pw_track_used == PW_TRACK_MAX_LIVE)
            pw_rt_fail("tracker: too many live buffers (raise "
                       "PW_TRACK_MAX_LIVE)",
                       pool, offset, nbytes, name);
        slot = pw_track_used++;
    }
    pw_track_tab[slot].base = pool->base;
    pw_track_tab[slot].offset = offset;
    pw_track_tab[slot].nbytes = nbytes;
    pw_track_tab[slot].name = name;
}

void pw_track_death(const pw_pool *pool, size_t offset, size_t nbytes,
                    const char *name) {
    size_t i;
    pw_track_check_pool("tracker: dead buffer outside its pool", pool, offset,
                        nbytes, name);
    for (i = 0; i < pw_track_used; i++) {
        pw_track_rec *r = &pw_track_tab[i];
        if (r->base == pool->base && r->offset == offset &&
            r->nbytes == nbytes) {
            r->base = NULL;
            r->name = NULL;
            while (pw_track_used > 0 &&
                   pw_track_tab[pw_track_used - 1].base == NULL)
                pw_track_used--;
            if (nbytes != 0)
                memset(pool->base + offset, PW_TRACK_POISON, nbytes);
            return;
        }
    }
    pw_rt_fail("tracker: death of a buffer that is not live", pool, offset,
               nbytes, name);
}

void pw_track_reset(const pw_pool *pool) {
    size_t i;
    if (pool == NULL)
        return;
    for (i = 0; i < pw_track_used; i++)
        if (pw_track_tab[i].base == pool->base) {
            pw_track_tab[i].base = NULL;
            pw_track_tab[i].name = NULL;
        }
    while (pw_track_used > 0 && pw_track_tab[pw_track_used - 1].base == NULL)
        pw_track_used--;
}

size_t pw_track_live(const pw_pool *pool) {
    size_t i, n = 0;
    for (i = 0; i < pw_track_used; i++)
        if (pw_track_tab[i].base != NULL &&
            (pool == NULL || pw_track_tab[i].base == pool->base))
            n++;
    return n;
}

#else
typedef int pw_track_unused; /* ISO C forbids an empty translation unit */
#endif /* PW_RT_TRACK */

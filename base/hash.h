/*
 * base/hash.h - the one place uthash is configured; include this, never
 * <uthash.h> directly.  FNV-1a avoids the fall-through switch of uthash's
 * default hash (clang -Wimplicit-fallthrough).  Never emit in hash order:
 * iterate in IR order or after HASH_SORT.
 */
#ifndef PLANWRAP_HASH_H
#define PLANWRAP_HASH_H

#include "base.h"

#define HASH_FUNCTION HASH_FNV
#define uthash_fatal(msg) base_oom()
#include <uthash.h>

#endif /* PLANWRAP_HASH_H */

/*
 * templates/builtin.c - lookup in the built-in template table generated at
 * build time from templates/NAME.mustache (templates/cmake/embed.cmake).
 */
#include "builtin_table.h"
#include "templates/mustache.h"

#include <string.h>

const char *mst_builtin(const char *name, size_t *len) {
    if (!name)
        return NULL;
    size_t lo = 0, hi = mst_builtin_count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(name, mst_builtin_table[mid].name);
        if (c == 0) {
            if (len)
                *len = mst_builtin_table[mid].len;
            return mst_builtin_table[mid].text;
        }
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const char *mst_builtin_name(size_t i) {
    return i < mst_builtin_count ? mst_builtin_table[i].name : NULL;
}

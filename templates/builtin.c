/* templates/builtin.c - placeholder until the built-in table is generated. */
#include "templates/mustache.h"

const char *mst_builtin(const char *name, size_t *len) {
    (void)name;
    (void)len;
    return NULL;
}

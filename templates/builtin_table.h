/*
 * templates/builtin_table.h - the generated table of built-in templates
 * (private to templates/; see templates/cmake/embed.cmake).
 */
#ifndef PLANWRAP_BUILTIN_TABLE_H
#define PLANWRAP_BUILTIN_TABLE_H

#include <stddef.h>

typedef struct mst_builtin_entry {
    const char *name; /* relative path without ".mustache" */
    const char *text; /* NUL-terminated */
    size_t len;
} mst_builtin_entry;

/* Sorted by name (strcmp order); mst_builtin_count entries. */
extern const mst_builtin_entry mst_builtin_table[];
extern const size_t mst_builtin_count;

#endif /* PLANWRAP_BUILTIN_TABLE_H */

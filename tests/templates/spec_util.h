/*
 * tests/templates/spec_util.h - shared helpers for the mustache tests: a
 * loader over a JSON object of partials.
 */
#ifndef PW_TESTS_SPEC_UTIL_H
#define PW_TESTS_SPEC_UTIL_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* mst_load_fn over a JSON object {name: text}. */
static inline char *spec_load_json(void *ctx, const char *name, size_t *len) {
    json_t *v = ctx ? json_object_get((json_t *)ctx, name) : NULL;
    if (!json_is_string(v))
        return NULL;
    size_t n = json_string_length(v);
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    memcpy(s, json_string_value(v), n + 1);
    *len = n;
    return s;
}

#endif

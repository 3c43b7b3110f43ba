/*
 * tests/templates/test_builtin_empty.c - the built-in table generated from
 * an empty list of templates builds, links and finds nothing.
 */
#include "templates/mustache.h"

#include <stdio.h>

int main(void) {
    size_t len = 123;
    if (mst_builtin("c/model.c", &len) != NULL || len != 123 ||
        mst_builtin("", NULL) != NULL || mst_builtin_name(0) != NULL) {
        fprintf(stderr, "the empty built-in table is not empty\n");
        return 1;
    }
    printf("empty built-in table: ok\n");
    return 0;
}

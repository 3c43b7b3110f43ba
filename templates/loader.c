/*
 * templates/loader.c - mst_dir_loader: DIR/NAME.mustache first, then the
 * built-in templates.  "builtin:NAME" always names the built-in, so that a
 * user file overriding NAME can still extend the original.
 */
#include "templates/mustache.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MST_BUILTIN_PREFIX "builtin:"

static char *dup_text(const char *s, size_t n, size_t *len) {
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    *len = n;
    return p;
}

char *mst_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (n + 1 < cap)
            break;
        char *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    bool bad = ferror(f) != 0;
    fclose(f);
    if (!buf || bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

static char *load_builtin(const char *name, size_t *len) {
    size_t n = 0;
    const char *s = mst_builtin(name, &n);
    return s ? dup_text(s, n, len) : NULL;
}

static char *load_dir(const char *dir, const char *name, size_t *len) {
    if (!dir)
        return NULL;
    size_t need = strlen(dir) + strlen(name) + sizeof "/.mustache";
    char *path = malloc(need);
    if (!path)
        return NULL;
    snprintf(path, need, "%s/%s.mustache", dir, name);
    char *text = mst_read_file(path, len);
    free(path);
    return text;
}

static char *load_with_builtins(void *ctx, const char *name, size_t *len) {
    size_t pl = strlen(MST_BUILTIN_PREFIX);
    if (strncmp(name, MST_BUILTIN_PREFIX, pl) == 0)
        return load_builtin(name + pl, len);
    char *text = load_dir(ctx, name, len);
    return text ? text : load_builtin(name, len);
}

static char *load_dir_only(void *ctx, const char *name, size_t *len) {
    return load_dir(ctx, name, len);
}

mst_loader mst_dir_loader(const char *dir, bool with_builtins) {
    mst_loader l = {with_builtins ? load_with_builtins : load_dir_only,
                    (void *)dir};
    return l;
}

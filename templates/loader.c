/*
 * templates/loader.c - mst_dir_loader: DIR/NAME.mustache first, then the
 * built-in templates.  "builtin:NAME" always names the built-in, so that a
 * user file overriding NAME can still extend the original.
 *
 * Only a file that does not exist (ENOENT; ENOTDIR when a directory on
 * the way is missing or a file) falls back to the built-in.  A file that
 * exists but cannot be read (a directory, no permission, a read error)
 * makes the load fail with errno set: an override is never skipped
 * silently.
 */
#include "templates/mustache.h"
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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

const char *mst_strerror(int err) {
    if (err == MST_ENOTREG)
        return "not a regular file (a FIFO, socket or device)";
    if (err == EFBIG)
        return "larger than the input size limit (PLANWRAP_MAX_INPUT)";
    return strerror(err);
}

char *mst_read_file(const char *path, size_t *len) {
    /* Only regular files (and directories, for their EISDIR): opening a
     * FIFO would wait for a writer. */
    struct stat st;
    if (stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
        errno = MST_ENOTREG;
        return NULL;
    }
    char *text = NULL;
    int err = 0;
    if (!base_read_file(path, &text, len, &err)) {
        errno = err;
        return NULL;
    }
    return text;
}

/* The built-in NAME; NULL with errno 0 when there is none. */
static char *load_builtin(const char *name, size_t *len) {
    size_t n = 0;
    const char *s = mst_builtin(name, &n);
    if (!s) {
        errno = 0;
        return NULL;
    }
    char *text = dup_text(s, n, len);
    if (!text)
        errno = ENOMEM;
    return text;
}

/* DIR/NAME.mustache (malloc'ed; NULL on out of memory). */
static char *dir_path(const char *dir, const char *name) {
    size_t need = strlen(dir) + strlen(name) + sizeof "/.mustache";
    char *path = malloc(need);
    if (path)
        snprintf(path, need, "%s/%s.mustache", dir, name);
    return path;
}

/* DIR/NAME.mustache.  NULL with errno 0 when there is no such file (or no
 * DIR); NULL with errno set when it exists but cannot be read. */
static char *load_dir(const char *dir, const char *name, size_t *len) {
    errno = 0;
    if (!dir)
        return NULL;
    char *path = dir_path(dir, name);
    if (!path) {
        errno = ENOMEM;
        return NULL;
    }
    char *text = mst_read_file(path, len);
    int err = text ? 0 : errno;
    free(path);
    if (err == ENOENT || err == ENOTDIR)
        err = 0;
    errno = err;
    return text;
}

static char *load_with_builtins(void *ctx, const char *name, size_t *len) {
    size_t pl = strlen(MST_BUILTIN_PREFIX);
    if (strncmp(name, MST_BUILTIN_PREFIX, pl) == 0)
        return load_builtin(name + pl, len);
    char *text = load_dir(ctx, name, len);
    if (text || errno != 0)
        return text;
    return load_builtin(name, len);
}

static char *load_dir_only(void *ctx, const char *name, size_t *len) {
    return load_dir(ctx, name, len);
}

bool mst_dir_unreadable(const char *dir, const char *name, char *why,
                        size_t size) {
    size_t len = 0;
    char *text = load_dir(dir, name, &len);
    int err = errno;
    free(text);
    if (text || err == 0)
        return false;
    char *path = dir_path(dir, name);
    snprintf(why, size, "cannot read %s: %s", path ? path : name,
             mst_strerror(err));
    free(path);
    return true;
}

char *mst_dir_source(const char *dir, const char *name) {
    struct stat st;
    if (!dir ||
        strncmp(name, MST_BUILTIN_PREFIX, strlen(MST_BUILTIN_PREFIX)) == 0)
        return NULL;
    char *path = dir_path(dir, name);
    if (path && stat(path, &st) != 0) {
        free(path);
        path = NULL;
    }
    return path;
}

static char *dir_source(void *ctx, const char *name) {
    return mst_dir_source(ctx, name);
}

mst_loader mst_dir_loader(const char *dir, bool with_builtins) {
    mst_loader l = {with_builtins ? load_with_builtins : load_dir_only,
                    (void *)dir, dir_source};
    return l;
}

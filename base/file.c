/*
 * base/file.c - reading a whole file, or mapping it; the monotonic clock.
 */
#define _DEFAULT_SOURCE /* mmap, open */
#include "base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

char *base_read_file_arena(base_arena *a, const char *path, size_t *len) {
    if (strcmp(path, "-") == 0)
        return NULL;
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    struct stat st;
    char *buf = NULL;
    if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 0 &&
        (uint64_t)st.st_size <= base_max_input()) {
        size_t size = (size_t)st.st_size;
        buf = base_arena_alloc(a, size + 1);
        if (fread(buf, 1, size, f) != size || fgetc(f) != EOF || ferror(f))
            buf = NULL; /* the arena keeps the block: a rare case */
        else
            *len = size;
    }
    fclose(f);
    return buf;
}

size_t base_max_input(void) {
    const char *e = getenv("PLANWRAP_MAX_INPUT");
    if (e && *e) {
        char *end = NULL;
        errno = 0;
        unsigned long long v = strtoull(e, &end, 10);
        if (errno == 0 && end && *end == '\0' && v > 0 && v < SIZE_MAX)
            return (size_t)v;
    }
    return BASE_MAX_INPUT_DEFAULT;
}

bool base_read_file(const char *path, char **text, size_t *len, int *err) {
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        *err = errno;
        return false;
    }
    /* fopen opens a directory for reading on Linux: say why up front. */
    struct stat st;
    if (!is_stdin && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        *err = EISDIR;
        return false;
    }
    size_t cap = (size_t)1 << 16, n = 0, limit = base_max_input();
    char *buf = base_xmalloc(cap);
    errno = 0;
    for (;;) {
        if (n > limit) { /* /dev/zero stops here */
            if (!is_stdin)
                fclose(f);
            free(buf);
            *err = EFBIG;
            return false;
        }
        if (cap - n < 2) {
            if (cap > SIZE_MAX / 2)
                base_oom();
            buf = base_xrealloc(buf, cap * 2);
            cap *= 2;
        }
        size_t want = cap - n - 1;
        if (want > limit + 1 - n)
            want = limit + 1 - n; /* one byte past the limit tells */
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (got == 0)
            break;
    }
    int saved = errno;
    bool failed = ferror(f) != 0;
    if (!is_stdin)
        fclose(f);
    if (failed) {
        free(buf);
        *err = saved ? saved : EIO;
        return false;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return true;
}

bool base_map_file(const char *path, const void **data, size_t *len,
                   bool *mapped, int *err) {
    *mapped = false;
    int fd = strcmp(path, "-") == 0 ? -1 : open(path, O_RDONLY);
    struct stat st;
    if (fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
        st.st_size > 0) {
        if ((uint64_t)st.st_size > base_max_input()) {
            close(fd);
            *err = EFBIG;
            return false;
        }
        void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p != MAP_FAILED) {
            *data = p;
            *len = (size_t)st.st_size;
            *mapped = true;
            return true;
        }
    } else if (fd >= 0) {
        close(fd);
    }
    char *text;
    if (!base_read_file(path, &text, len, err))
        return false;
    *data = text;
    return true;
}

void base_unmap_file(const void *data, size_t len, bool mapped) {
    if (mapped)
        munmap((void *)data, len);
    else
        free((void *)data);
}

double base_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

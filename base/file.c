/*
 * base/file.c - reading a whole file.
 */
#include "base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

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
    size_t cap = (size_t)1 << 16, n = 0;
    char *buf = base_xmalloc(cap);
    errno = 0;
    for (;;) {
        if (cap - n < 2) {
            if (cap > SIZE_MAX / 2)
                base_oom();
            buf = base_xrealloc(buf, cap * 2);
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
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

/*
 * codegen/files.c - output files: written to a temporary file in the
 * destination directory, flushed, then renamed over the destination, so a
 * reader sees the old file or the complete new one, never a partial one.
 */
#include "codegen/codegen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool cg_write_all(int fd, const char *data, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return false;
        }
        data += n;
        len -= (size_t)n;
    }
    return true;
}

bool cg_write_file_atomic(const char *path, const char *data, size_t len) {
    if (strcmp(path, "-") == 0) {
        if (fwrite(data, 1, len, stdout) != len || fflush(stdout) != 0) {
            fprintf(stderr,
                    "planwrap: error: cannot write standard output: "
                    "%s\n",
                    strerror(errno));
            return false;
        }
        return true;
    }
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
    if (!tmp) {
        fprintf(stderr, "planwrap: error: cannot write %s: out of memory\n",
                path);
        return false;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    int fd = mkstemp(tmp);
    if (fd < 0) {
        fprintf(stderr, "planwrap: error: cannot write %s: %s\n", path,
                strerror(errno));
        free(tmp);
        return false;
    }
    bool ok = cg_write_all(fd, data, len);
    int saved = errno;
    /* mkstemp creates 0600; give the file the usual permissions. */
    if (ok) {
        mode_t mask = umask(0);
        umask(mask);
        ok = fchmod(fd, 0666 & ~mask) == 0;
        saved = errno;
    }
    if (close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (ok && rename(tmp, path) != 0) {
        ok = false;
        saved = errno;
    }
    if (!ok) {
        fprintf(stderr, "planwrap: error: cannot write %s: %s\n", path,
                strerror(saved));
        unlink(tmp);
    }
    free(tmp);
    return ok;
}

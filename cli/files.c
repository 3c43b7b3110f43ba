/*
 * cli/files.c - output files: written to a temporary file in the
 * destination directory, flushed, then renamed over the destination, so a
 * reader sees the old file or the complete new one, never a partial one.
 * A destination that is a device or a FIFO (/dev/null, a pipe) is written
 * in place instead.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static bool cli_write_all(int fd, const char *data, size_t len) {
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

/* A destination that exists and is not a regular file (a character
 * device such as /dev/null, a FIFO, a socket) is written in place: renaming
 * a temporary file over it would replace the device with a regular file
 * (as root, /dev/null itself), and a reader of a FIFO would never see the
 * data.  A directory is refused here: renaming over it fails with a
 * misleading errno ("Not a directory" for `dir/`, "Device or resource
 * busy" for `.`).  Returns -1 when `path` is not such a file, else 1
 * (written) or 0 (error reported). */
static int cli_write_special(const char *path, const char *data, size_t len) {
    struct stat st;
    if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
        return -1;
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "planwrap: error: cannot write %s: %s\n", path,
                strerror(EISDIR));
        return 0;
    }
    int fd = open(path, O_WRONLY);
    bool ok = fd >= 0 && cli_write_all(fd, data, len);
    int saved = errno;
    if (fd >= 0 && close(fd) != 0 && ok) {
        ok = false;
        saved = errno;
    }
    if (!ok)
        fprintf(stderr, "planwrap: error: cannot write %s: %s\n", path,
                strerror(saved));
    return ok;
}

bool cli_write_file_atomic(const char *path, const char *data, size_t len) {
    int special =
        strcmp(path, "-") == 0 ? -1 : cli_write_special(path, data, len);
    if (special >= 0)
        return special == 1;
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
    bool ok = cli_write_all(fd, data, len);
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

/* mkdir -p: creates DIR and its missing parents. */
static bool cli_mkdirs(const char *dir) {
    size_t n = strlen(dir);
    char *buf = malloc(n + 1);
    if (!buf)
        return false;
    memcpy(buf, dir, n + 1);
    bool ok = true;
    for (size_t i = 1; i <= n && ok; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char c = buf[i];
        buf[i] = '\0';
        struct stat st;
        if (stat(buf, &st) != 0) {
            if (mkdir(buf, 0777) != 0 && errno != EEXIST)
                ok = false;
        } else if (!S_ISDIR(st.st_mode)) {
            errno = ENOTDIR;
            ok = false;
        }
        buf[i] = c;
    }
    free(buf);
    return ok;
}

bool cli_write_files(const char *outdir, const cg_file *files, size_t n,
                     const char *input) {
    if (!cli_mkdirs(outdir)) {
        fprintf(stderr, "planwrap: error: cannot create directory %s: %s\n",
                outdir, strerror(errno));
        return false;
    }
    /* Refuse before writing anything when a destination is a directory. */
    char **paths = base_xcalloc(n, sizeof *paths);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        base_sb p = {0};
        base_sb_printf(&p, "%s/%s", outdir, files[i].name);
        paths[i] = base_sb_take(&p, NULL);
        if (input && cli_same_file(paths[i], input)) {
            fprintf(stderr,
                    "planwrap: error: output %s is the input %s: it would "
                    "be overwritten (write the output elsewhere)\n",
                    paths[i], input);
            ok = false;
            break;
        }
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            fprintf(stderr, "planwrap: error: cannot write %s: %s\n", paths[i],
                    strerror(EISDIR));
            ok = false;
        }
    }
    for (size_t i = 0; i < n && ok; i++)
        ok = cli_write_file_atomic(paths[i], files[i].data, files[i].len);
    for (size_t i = 0; i < n; i++)
        free(paths[i]);
    free(paths);
    return ok;
}

bool cli_write_program(const char *path, const ir_program *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        base_oom();
    ir_print(mem, p);
    if (fclose(mem) != 0)
        base_oom();
    bool ok = cli_write_file_atomic(path, buf, len);
    free(buf);
    return ok;
}

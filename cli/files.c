/*
 * cli/files.c - output files: written to a temporary file in the
 * destination directory, flushed, then renamed over the destination, so a
 * reader sees the old file or the complete new one, never a partial one.
 * A destination that is a device or a FIFO (/dev/null, a pipe) is written
 * in place instead.  Several files (gen) are all written first and renamed
 * only when every one is complete, under an exclusive flock of the
 * destination directory so that two concurrent runs never interleave their
 * renames.  Temporary files are removed on failure and on SIGINT, SIGTERM
 * and SIGHUP.
 */
#define _DEFAULT_SOURCE /* flock */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
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

/* Temporary files alive now, removed by the signal handler. */
#define CLI_MAX_TMP 16
static char *volatile cli_tmps[CLI_MAX_TMP];

static void cli_on_signal(int sig) {
    for (int i = 0; i < CLI_MAX_TMP; i++)
        if (cli_tmps[i])
            unlink(cli_tmps[i]); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

static void cli_block_signals(bool block, sigset_t *old) {
    static bool installed;
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGHUP);
    if (block) {
        sigprocmask(SIG_BLOCK, &set, old);
        if (!installed) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = cli_on_signal;
            sigaction(SIGINT, &sa, NULL);
            sigaction(SIGTERM, &sa, NULL);
            sigaction(SIGHUP, &sa, NULL);
            installed = true;
        }
    } else {
        sigprocmask(SIG_SETMASK, old, NULL);
    }
}

/* Records (or forgets, p NULL) temporary file slot i; signals blocked. */
static void cli_track(int i, char *p) {
    sigset_t old;
    cli_block_signals(true, &old);
    cli_tmps[i] = p;
    cli_block_signals(false, &old);
}

/* Writes data to a new temporary file beside `path`, recorded in slot i;
 * returns its malloc'ed name, or NULL after printing the error. */
static char *cli_write_tmp(int i, const char *path, const char *data,
                           size_t len) {
    size_t plen = strlen(path);
    char *tmp = malloc(plen + sizeof ".tmp.XXXXXX");
    if (!tmp) {
        fprintf(stderr, "planwrap: error: cannot write %s: out of memory\n",
                path);
        return NULL;
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp.XXXXXX", sizeof ".tmp.XXXXXX");
    sigset_t old;
    cli_block_signals(true, &old); /* no window between create and record */
    int fd = mkstemp(tmp);
    if (fd >= 0)
        cli_tmps[i] = tmp;
    cli_block_signals(false, &old);
    if (fd < 0) {
        fprintf(stderr, "planwrap: error: cannot write %s: %s\n", path,
                strerror(errno));
        free(tmp);
        return NULL;
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
    if (!ok) {
        fprintf(stderr, "planwrap: error: cannot write %s: %s\n", path,
                strerror(saved));
        unlink(tmp);
        cli_track(i, NULL);
        free(tmp);
        return NULL;
    }
    return tmp;
}

/* An exclusive lock on the directory of `path` (-1 when it cannot be
 * taken: the renames then go ahead unlocked). */
static int cli_lock_dir(const char *path) {
    const char *slash = strrchr(path, '/');
    char *dir = slash ? strndup(path, (size_t)(slash - path)) : strdup(".");
    if (!dir)
        return -1;
    int fd = open(*dir ? dir : "/", O_RDONLY);
    free(dir);
    if (fd >= 0 && flock(fd, LOCK_EX) != 0) {
        close(fd);
        fd = -1;
    }
    return fd;
}

static bool cli_write_files_atomic(size_t n, char *const *paths,
                                   char *const *contents, const size_t *lens) {
    if (n > CLI_MAX_TMP) {
        fprintf(stderr, "planwrap: error: too many output files\n");
        return false;
    }
    char *tmps[CLI_MAX_TMP] = {NULL};
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        tmps[i] = cli_write_tmp((int)i, paths[i], contents[i], lens[i]);
        ok = tmps[i] != NULL;
    }
    int lock = ok && n > 0 ? cli_lock_dir(paths[0]) : -1;
    for (size_t i = 0; i < n && ok; i++) {
        if (rename(tmps[i], paths[i]) != 0) {
            fprintf(stderr, "planwrap: error: cannot write %s: %s\n", paths[i],
                    strerror(errno));
            ok = false; /* the files renamed so far stay new */
            break;
        }
        cli_track((int)i, NULL);
        free(tmps[i]);
        tmps[i] = NULL;
    }
    if (lock >= 0)
        close(lock); /* releases the flock */
    for (size_t i = 0; i < n; i++) {
        if (tmps[i]) {
            unlink(tmps[i]);
            cli_track((int)i, NULL);
            free(tmps[i]);
        }
    }
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
    char *p = (char *)path, *d = (char *)data;
    return cli_write_files_atomic(1, &p, &d, &len);
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
    if (ok) {
        char **data = base_xcalloc(n, sizeof *data);
        size_t *lens = base_xcalloc(n, sizeof *lens);
        for (size_t i = 0; i < n; i++) {
            data[i] = (char *)files[i].data;
            lens[i] = files[i].len;
        }
        ok = cli_write_files_atomic(n, paths, data, lens);
        free(data);
        free(lens);
    }
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

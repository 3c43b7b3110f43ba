/*
 * cli/files.c - output files, through base's atomic writer (base/out.c:
 * a temporary file in the destination directory renamed over the
 * destination; devices and FIFOs written in place).  Several files (gen)
 * are all written first and renamed only when every one is complete.
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

bool cli_write_file_atomic(const char *path, const char *data, size_t len,
                           base_diag *d) {
    return base_write_file_atomic(path, data, len, d);
}

/* Writes every file and commits them with the n_pre files already
 * opened (renamed first). */
static bool cli_write_files_atomic(size_t n, char *const *paths,
                                   char *const *contents, const size_t *lens,
                                   base_out **pre, size_t n_pre, base_diag *d) {
    base_out **outs = base_xcalloc(n + n_pre + 1, sizeof *outs);
    for (size_t i = 0; i < n_pre; i++)
        outs[i] = pre[i];
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        base_out *o = base_out_open(paths[i], d);
        outs[n_pre + i] = o;
        ok = o != NULL;
        if (ok && lens[i] &&
            fwrite(contents[i], 1, lens[i], base_out_stream(o)) != lens[i]) {
            base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: %s", paths[i],
                          strerror(errno));
            ok = false;
        }
    }
    if (ok)
        ok = base_out_commit_all(outs, n + n_pre, d);
    else
        for (size_t i = 0; i < n + n_pre; i++)
            base_out_discard(outs[i]);
    free(outs);
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
                     const char *input, base_diag *d) {
    return cli_write_files_with(outdir, files, n, input, NULL, 0, d);
}

/* The paths of files[0, n) under outdir (malloc'ed, as the array), or
 * NULL after reporting a path that must not be written: the input, or
 * a directory.  Creates outdir first. */
static char **cli_output_paths(const char *outdir, const cg_file *files,
                               size_t n, const char *input, base_diag *d) {
    if (!cli_mkdirs(outdir)) {
        base_diag_msg(d, BASE_SEV_ERROR, "cannot create directory %s: %s",
                      outdir, strerror(errno));
        return NULL;
    }
    /* Refuse before writing anything when a destination is a directory. */
    char **paths = base_xcalloc(n + 1, sizeof *paths);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        base_sb p = {0};
        base_sb_printf(&p, "%s/%s", outdir, files[i].name);
        paths[i] = base_sb_take(&p, NULL);
        if (input && cli_same_file(paths[i], input)) {
            base_diag_msg(d, BASE_SEV_ERROR,
                          "output %s is the input %s: it would be "
                          "overwritten (write the output elsewhere)",
                          paths[i], input);
            ok = false;
            break;
        }
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: %s", paths[i],
                          strerror(EISDIR));
            ok = false;
        }
    }
    if (!ok) {
        for (size_t i = 0; i < n; i++)
            free(paths[i]);
        free(paths);
        return NULL;
    }
    return paths;
}

bool cli_check_outputs(const char *outdir, const cg_file *files, size_t n,
                       const char *input, base_diag *d) {
    char **paths = cli_output_paths(outdir, files, n, input, d);
    bool ok = paths != NULL;
    for (size_t i = 0; ok && i < n; i++)
        free(paths[i]);
    free(paths);
    return ok;
}

bool cli_write_files_with(const char *outdir, const cg_file *files, size_t n,
                          const char *input, base_out **pre, size_t n_pre,
                          base_diag *d) {
    char **paths = cli_output_paths(outdir, files, n, input, d);
    bool ok = paths != NULL;
    if (ok) {
        char **data = base_xcalloc(n, sizeof *data);
        size_t *lens = base_xcalloc(n, sizeof *lens);
        for (size_t i = 0; i < n; i++) {
            data[i] = (char *)files[i].data;
            lens[i] = files[i].len;
        }
        ok = cli_write_files_atomic(n, paths, data, lens, pre, n_pre, d);
        n_pre = 0; /* committed or discarded */
        free(data);
        free(lens);
    }
    for (size_t i = 0; i < n_pre; i++)
        base_out_discard(pre[i]);
    for (size_t i = 0; paths && i < n; i++)
        free(paths[i]);
    free(paths);
    return ok;
}

bool cli_write_program(const char *path, const ir_program *p, base_diag *d) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    if (!mem)
        base_oom();
    ir_print(mem, p);
    if (fclose(mem) != 0)
        base_oom();
    bool ok = cli_write_file_atomic(path, buf, len, d);
    free(buf);
    return ok;
}

/*
 * cli/files.c - output files, through base's atomic writer (base/out.c:
 * a temporary file in the destination directory renamed over the
 * destination; devices and FIFOs written in place), and the checks
 * `gen` makes of its output directory before it writes anything.
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

bool cli_check_outputs(const char *outdir, const cg_file *files, size_t n,
                       const char *input, base_diag *d) {
    if (!cli_mkdirs(outdir)) {
        base_diag_msg(d, BASE_SEV_ERROR, "cannot create directory %s: %s",
                      outdir, strerror(errno));
        return false;
    }
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        base_sb p = {0};
        base_sb_printf(&p, "%s/%s", outdir, files[i].name);
        char *path = base_sb_take(&p, NULL);
        struct stat st;
        if (input && cli_same_file(path, input)) {
            base_diag_msg(d, BASE_SEV_ERROR,
                          "output %s is the input %s: it would be "
                          "overwritten (write the output elsewhere)",
                          path, input);
            ok = false;
        } else if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
            base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: %s", path,
                          strerror(EISDIR));
            ok = false;
        }
        free(path);
    }
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

/*
 * ir/file.c - reading a source file, with the message the CLI prints.
 */
#include "ir/ir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool ir_read_file(const char *path, char **text, size_t *len, base_diag *d) {
    int e = 0;
    if (base_read_file(path, text, len, &e))
        return true;
    /* Standard input is "<stdin>" in every message, as in diagnostics. */
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (e == EFBIG)
        base_diag_msg(d, BASE_SEV_ERROR,
                      "cannot read %s: larger than %zu bytes (the input size "
                      "limit; set PLANWRAP_MAX_INPUT=BYTES to change it)",
                      shown, base_max_input());
    else
        base_diag_msg(d, BASE_SEV_ERROR, "cannot read %s: %s", shown,
                      strerror(e));
    return false;
}

/*
 * ir/file.c - reading a source file, with the message the CLI prints.
 */
#include "ir/ir.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

bool ir_read_file(const char *path, char **text, size_t *len, FILE *err) {
    int e = 0;
    if (base_read_file(path, text, len, &e))
        return true;
    /* Standard input is "<stdin>" in every message, as in diagnostics. */
    const char *shown = strcmp(path, "-") == 0 ? "<stdin>" : path;
    if (e == EFBIG)
        fprintf(err,
                "planwrap: error: cannot read %s: larger than %zu bytes (the "
                "input size limit; set PLANWRAP_MAX_INPUT=BYTES to change "
                "it)\n",
                shown, base_max_input());
    else
        fprintf(err, "planwrap: error: cannot read %s: %s\n", shown,
                strerror(e));
    return false;
}

/*
 * import/import.h - ONNX models to planwrap IR v1 (`planwrap import`).
 *
 * imp_import reads an ONNX ModelProto (protobuf bytes), infers the dtype
 * and dims of every value itself (constant folding of shape arithmetic
 * included), and writes IR v1 text: one `call` per compute node with a
 * `kernel` signature, views as `alias`, frees after each value's last use.
 * The kernel signatures are documented in docs/import.md.
 *
 * Stage: first in the pipeline (models -> IR); it includes no header of a
 * later stage.  Output is deterministic: the same bytes and options give
 * the same text.
 */
#ifndef PLANWRAP_IMPORT_H
#define PLANWRAP_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define IMP_MAX_RANK 8

/* `--input NAME=D0,D1,...`: the full shape of a graph input. */
typedef struct imp_binding {
    const char *name;
    int rank;
    int64_t dims[IMP_MAX_RANK];
} imp_binding;

typedef struct imp_options {
    const imp_binding *inputs; /* bindings of graph inputs' dims */
    size_t n_inputs;
    bool inplace; /* elementwise nodes write into a dying input (default) */
    bool concat;  /* producers write into views of a Concat's output */
    /* `--weights FILE.bin`: every const's bytes are streamed to `weights`
     * (each at an offset aligned to IMP_WEIGHTS_ALIGN, in declaration
     * order, zero padding) and its declaration gets
     * `data="WEIGHTS_REF" at=OFFSET`.  NULL: consts name no data. */
    FILE *weights;
    const char *weights_ref; /* the file as the IR names it */
    /* The folder of initializers stored in external data files (the
     * model's folder); NULL refuses them when `weights` is set. */
    const char *data_dir;
} imp_options;

/* The alignment of each const's bytes in the --weights file. */
#define IMP_WEIGHTS_ALIGN 64

/* Default options: no bindings, every memory option on. */
void imp_options_init(imp_options *o);

/* Parses "NAME=D0,D1,..." (the value of --input) into *b; b->name points
 * into `arg`.  Returns false with a message in *err (malloc'd) when the
 * text is not of that form (dims are decimal integers >= 0). */
bool imp_parse_binding(char *arg, imp_binding *b, char **err);

/* Imports the ONNX model `data` (`len` bytes) read from `file` (named in
 * messages; its basename, sanitised, is the IR model name).  On success
 * returns the IR text (malloc'd, NUL-terminated, length in *out_len) and
 * sets *err to NULL.  On any error returns NULL and sets *err to a
 * malloc'd message, one line without a trailing newline ("node 'N' (Op):
 * ..." while a node is being imported), that the caller reports as
 * "FILE: error: MESSAGE" (base_diag_report_in); every error path frees
 * what it allocated.  Reads no other file, except the external
 * data of initializers when o->weights is set. */
char *imp_import(const char *file, const uint8_t *data, size_t len,
                 const imp_options *o, size_t *out_len, char **err);

#endif /* PLANWRAP_IMPORT_H */

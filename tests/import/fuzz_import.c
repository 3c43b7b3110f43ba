/*
 * tests/import/fuzz_import.c - libFuzzer target for the ONNX reader and
 * importer: arbitrary bytes must give either IR that checks clean or an
 * error message, never a crash, a leak or undefined behaviour.
 */
#include "import/import.h"
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    imp_options o;
    imp_options_init(&o);
    o.inplace = size % 2 == 0; /* both settings, from the input */
    o.concat = size % 3 != 0;
    char *err = NULL;
    size_t len = 0;
    char *text = imp_import("fuzz.onnx", data, size, &o, &len, &err);
    if (text) {
        base_arena *a = base_arena_new();
        FILE *devnull = fopen("/dev/null", "w");
        base_diag *d = base_diag_new(devnull ? devnull : stderr, 1);
        ir_program *p = ir_parse(a, "fuzz.pw", text, len, d);
        if (!p || !ir_check(p, d)) {
            fprintf(stderr, "imported IR does not check:\n%s", text);
            abort();
        }
        base_diag_free(d);
        if (devnull)
            fclose(devnull);
        base_arena_free(a);
    } else if (!err) {
        abort();
    }
    free(text);
    free(err);
    return 0;
}

#include "codegen/codegen.h"
bool cg_picture_emit(ir_arena *a, const plan *pl, const char *algos,
                     bool html, ir_diag *d, char **out, size_t *outlen) {
    (void)a; (void)pl; (void)algos; (void)html; (void)d; (void)out; (void)outlen;
    return false;
}

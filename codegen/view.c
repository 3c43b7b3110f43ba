/* codegen/view.c - the plan view (placeholder until implemented). */
#include "codegen/codegen.h"

json_t *cg_build_view(const plan *pl, const char *target) {
    (void)pl;
    (void)target;
    return NULL;
}

/* runtime/planwrap_rt.c - runtime library (contract being written). */
#include "planwrap_rt.h"

const char *pw_rt_version(void);
const char *pw_rt_version(void) { return "0.1.0"; }

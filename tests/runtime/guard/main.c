/* For guard.sh: kernels of g.pw; with -DGUARD_OVERRUN, fill(a, 1) writes
 * a fifth float past a's four.  Prints b (the output). */
#include "g.h"
#include "g_kernels.h"

#include <stdio.h>

void fill(float *out, int64_t v) {
    int n = 4;
#ifdef GUARD_OVERRUN
    if (v == 1)
        n = 5; /* the bug the guards catch */
#endif
    for (int i = 0; i < n; i++)
        out[i] = (float)v;
}

void add(const float *a, const float *b, float *out) {
    for (int i = 0; i < 4; i++)
        out[i] = a[i] + b[i];
}

int main(void) {
    static float x[4] = {1, 2, 3, 4}, y[4];
    g_inputs in = {x};
    g_consts c = {0};
    g_outputs out = {y};
    int rc = g_run_static(&in, &c, &out);
    printf("rc %d b %g %g %g %g\n", rc, (double)y[0], (double)y[1],
           (double)y[2], (double)y[3]);
    return 0;
}

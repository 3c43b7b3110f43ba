/*
 * examples/firmware/fw_kernels.c - the two kernels of the firmware
 * example, freestanding (no libc).  run.sh compiles it with
 * `-include MODEL_kernels.h`, so a signature that drifts from the IR's
 * `kernel` lines fails to compile.
 *
 * With -DFW_REENTER, relu runs the other model once from inside a run
 * when fw_reenter is set: the shared-pool guard (PW_RT_TRACK) must stop
 * the program, as models sharing pools run one at a time.
 */
#include <stdint.h>

#ifdef FW_REENTER
#include "ad.h"
int fw_reenter;
#endif

/* y[i] = b[i] + sum_j w[i][j] * x[j], i < m, j < n */
void dense(const float *x, const float *w, const float *b, float *y, int64_t m,
           int64_t n) {
    for (int64_t i = 0; i < m; i++) {
        float acc = b[i];
        for (int64_t j = 0; j < n; j++)
            acc += w[i * n + j] * x[j];
        y[i] = acc;
    }
}

void relu(const float *x, float *y, int64_t n) {
#ifdef FW_REENTER
    if (fw_reenter) {
        static float in[24], out[24];
        ad_inputs ai = {in};
        ad_outputs ao = {out};
        fw_reenter = 0;
        (void)ad_run_static(&ai, 0, &ao);
    }
#endif
    for (int64_t i = 0; i < n; i++)
        y[i] = x[i] > 0.0f ? x[i] : 0.0f;
}

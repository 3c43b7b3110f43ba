/*
 * tests/import/weights_main.c - runs lin (tests/import/weights.sh: a torch
 * MLP imported with --weights) with its embedded weights (NULL consts,
 * and run_static) and with the weights passed as caller pointers
 * (lin_expect.h, written by weights.py from the torch module): the three
 * outputs must be equal bit for bit, and match torch's output.
 */
#include "lin.h"
#include "lin_expect.h"
#include "lin_kernels.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Y = alpha * op(A) * op(B) + beta * C, C broadcast over rows. */
void gemm_c_f32_r2212(const float *a, const float *b, const float *c, float *y,
                      int64_t a0, int64_t a1, int64_t b0, int64_t b1,
                      int64_t c0, int64_t y0, int64_t y1, double alpha,
                      double beta, int64_t ta, int64_t tb) {
    int64_t k = ta ? a0 : a1;
    (void)b0;
    (void)y0;
    for (int64_t i = 0; i < (ta ? a1 : a0); i++)
        for (int64_t j = 0; j < y1; j++) {
            float s = 0;
            for (int64_t l = 0; l < k; l++)
                s += (ta ? a[l * a1 + i] : a[i * a1 + l]) *
                     (tb ? b[j * b1 + l] : b[l * b1 + j]);
            y[i * y1 + j] = (float)(alpha * s + beta * c[c0 == y1 ? j : 0]);
        }
}

void relu_f32_ip0(float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        x[i] = x[i] > 0 ? x[i] : 0;
}

int main(void) {
    static _Alignas(64) unsigned char pool[lin_POOL_CPU_SIZE];
    lin_pools p = {pool};
    lin_inputs in = {expect_x};
    lin_consts mine = {v0_weight, v0_bias, v2_weight, v2_bias};
    float y1[4], y2[4], y3[4];
    lin_outputs o1 = {y1}, o2 = {y2}, o3 = {y3};
    if (lin_run(&in, NULL, &o1, &p) || lin_run(&in, &mine, &o2, &p) ||
        lin_run_static(&in, NULL, &o3))
        return 1;
    if (memcmp(y1, y2, sizeof y1) || memcmp(y1, y3, sizeof y1)) {
        fprintf(stderr, "embedded weights differ from the caller's\n");
        return 1;
    }
    for (int i = 0; i < 4; i++) {
        printf("y[%d] = %.6f (torch %.6f)\n", i, y1[i], expect_y[i]);
        if (fabsf(y1[i] - expect_y[i]) > 1e-5f * (1 + fabsf(expect_y[i])))
            return 1;
    }
    return 0;
}

/*
 * tests/e2e/firmware/acc_main.c - runs acc.pw's wrapper: the input x is
 * written into the pools through acc_input_x, the state s persists
 * across runs, the output y is read in the pools through acc_output_y.
 * With t = x + m each run does s += t; y = s + t, so run k (from 1) gives
 * s = k t and y = (k + 1) t.  Checked for three runs with caller pools,
 * after acc_init_state, and with the static pools.
 */
#include "acc.h"

#include <stdio.h>

static float m[16];
static unsigned char pool[acc_POOL_CPU_SIZE] __attribute__((aligned(64)));

static int check(const char *what, int k, const acc_pools *p) {
    const float *y = acc_output_y(p);
    for (int i = 0; i < 16; i++) {
        float t = (float)i + 0.5f;
        if (y[i] != (float)(k + 1) * t || acc_state_s(p)[i] != (float)k * t) {
            printf("FAIL: %s run %d: y[%d] = %g, s[%d] = %g\n", what, k, i,
                   (double)y[i], i, (double)acc_state_s(p)[i]);
            return 1;
        }
    }
    return 0;
}

static int runs(const char *what, const acc_pools *p, int is_static) {
    acc_inputs in = {m};
    acc_outputs out = {0}; /* y is read in the pools */
    for (int k = 1; k <= 3; k++) {
        for (int i = 0; i < 16; i++)
            acc_input_x(p)[i] = (float)i; /* x's bytes are reused: rewrite */
        int rc = is_static ? acc_run_static(&in, NULL, &out)
                           : acc_run(&in, NULL, &out, p);
        if (rc != 0 || check(what, k, p))
            return 1;
    }
    printf("ok: %s: three runs give s = k t, y = (k + 1) t\n", what);
    return 0;
}

void add(const float *a, const float *b, float *o) {
    for (int i = 0; i < 16; i++)
        o[i] = a[i] + b[i];
}

int main(void) {
    for (int i = 0; i < 16; i++)
        m[i] = 0.5f;
    acc_pools p = {pool};
    for (unsigned i = 0; i < sizeof pool; i++)
        pool[i] = 0xee; /* garbage: acc_init_state must zero the state */
    acc_init_state(&p);
    acc_pools sp;
    acc_static_pools(&sp);
    return runs("caller pools", &p, 0) | runs("static pools", &sp, 1);
}

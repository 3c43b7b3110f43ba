/*
 * tests/e2e/firmware/rnn_main.c - runs rnn.pw's wrapper: step computes
 * h2 = h / 2 + x, and h2 is the next run's h (state h next=h2), so from
 * h = 0 the runs give x, 1.5 x, 1.75 x.  Checked with caller pools
 * (rnn_swap_state after each run, the state read through rnn_state_h)
 * and with the static pools (which swap by themselves).
 */
#include "rnn.h"

#include <stdio.h>

static unsigned char pool[rnn_POOL_CPU_SIZE + 1] __attribute__((aligned(64)));
static float x[8], y[8];

void step(const float *h, const float *xi, float *h2) {
    for (int i = 0; i < 8; i++)
        h2[i] = h[i] * 0.5f + xi[i];
}

static int check(const char *what, int k, const rnn_pools *p) {
    static const float want[] = {1.0f, 1.5f, 1.75f};
    for (int i = 0; i < 8; i++) {
        float w = want[k] * x[i];
        if (y[i] != w || rnn_state_h(p)[i] != w) {
            printf("FAIL: %s run %d: h2[%d] = %g, state %g, want %g\n", what,
                   k + 1, i, (double)y[i], (double)rnn_state_h(p)[i],
                   (double)w);
            return 1;
        }
    }
    return 0;
}

int main(void) {
    for (int i = 0; i < 8; i++)
        x[i] = (float)(i + 1);
    for (unsigned i = 0; i < sizeof pool; i++)
        pool[i] = 0xee;
    rnn_pools p = {pool, 0};
    rnn_init_state(&p);
    rnn_inputs in = {x};
    rnn_outputs out = {y};
    for (int k = 0; k < 3; k++) {
        if (rnn_run(&in, NULL, &out, &p) != 0)
            return 1;
        rnn_swap_state(&p); /* h2 is now h: no copy */
        if (check("caller pools", k, &p))
            return 1;
    }
    for (int k = 0; k < 3; k++) {
        if (rnn_run_static(&in, NULL, &out) != 0)
            return 1;
        rnn_pools sp;
        rnn_static_pools(&sp);
        if (check("static pools", k, &sp))
            return 1;
    }
    printf("ok: rnn: h2 fed back as h without a copy, three runs each\n");
    return 0;
}

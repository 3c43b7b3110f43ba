/*
 * tests/codegen/collide_main.c - links and runs the wrapper generated from
 * models/collide.pw, whose buffers and kernels are named like C library
 * functions, the runtime and the generated code's own identifiers.  The
 * kernels do simple arithmetic; main compares the wrapper's output with
 * the same sequence computed on plain arrays.
 */
#include "collide.h"
#include "collide_kernels.h"

#include <stdio.h>

#define N 8

void add(const float *a, const float *b, float *o) {
    for (int i = 0; i < N; i++)
        o[i] = a[i] + b[i];
}
void collide_k_exp(const float *a, float *o) { /* IR kernel exp */
    for (int i = 0; i < N; i++)
        o[i] = 2.0f * a[i];
}
void in(const float *a, float *o) {
    for (int i = 0; i < N; i++)
        o[i] = a[i] + 1.0f;
}
void b_index(float *x) {
    for (int i = 0; i < N; i++)
        x[i] *= 3.0f;
}
void collide_k_collide_run(float *x) { /* IR kernel collide_run */
    for (int i = 0; i < N; i++)
        x[i] -= 1.0f;
}
void collide_k_alloc_from_pool(float *x) { /* IR kernel alloc_from_pool */
    for (int i = 0; i < N; i++)
        x[i] += 10.0f;
}

int main(void) {
    float index[N], std_out[N], exit_[N], rc[N];
    float r_add[N], r_main[N], r_p[N], r_in[N], r_out[N], r_bp[N], r_pd[N],
        r_rc[N];
    for (int i = 0; i < N; i++) {
        index[i] = (float)i;
        std_out[i] = (float)(10 * i);
        exit_[i] = 0.5f * (float)i;
        rc[i] = -1.0f;
    }
    collide_inputs ins = {index, std_out};
    collide_consts cs = {exit_};
    collide_outputs outs = {rc};
    int status = collide_run_static(&ins, &cs, &outs);
    /* the reference, on plain arrays */
    add(index, std_out, r_add);
    collide_k_exp(r_add, r_main);
    in(r_main, r_p);
    add(r_p, exit_, r_in);
    collide_k_exp(r_in, r_out);
    add(r_out, r_p, r_bp);
    add(r_bp, r_out, r_pd);
    b_index(r_pd);
    collide_k_collide_run(r_pd);
    collide_k_alloc_from_pool(r_pd);
    add(r_pd, r_bp, r_rc);
    int bad = status != 0;
    for (int i = 0; i < N; i++)
        if (rc[i] != r_rc[i]) {
            printf("rc[%d] = %g, expected %g\n", i, (double)rc[i],
                   (double)r_rc[i]);
            bad = 1;
        }
    printf("collide: %s\n", bad ? "FAIL" : "ok");
    return bad;
}

/*
 * examples/lenet_kernels.c - plain-C reference kernels of the LeNet example
 * (examples/lenet.pw).  The prototypes come from the generated
 * lenet_kernels.h, so a signature that drifts from the IR's `kernel` lines
 * fails to compile.  Shapes arrive as int64_t scalar arguments; tensors are
 * NCHW, batch 1, float.  No allocation, no global state.
 */
#include "lenet_kernels.h"

#include <math.h>
#include <stdint.h>

/* y[co][oh][ow] = b[co] + sum_{ci,kh,kw} w[co][ci][kh][kw] *
 *                 x[ci][oh+kh-pad][ow+kw-pad]   (zero outside x) */
void conv2d(const float *x, const float *w, const float *b, float *y,
            int64_t c_in, int64_t h, int64_t wd, int64_t c_out, int64_t k,
            int64_t pad) {
    int64_t oh_n = h + 2 * pad - k + 1, ow_n = wd + 2 * pad - k + 1;
    for (int64_t co = 0; co < c_out; co++)
        for (int64_t oh = 0; oh < oh_n; oh++)
            for (int64_t ow = 0; ow < ow_n; ow++) {
                float acc = b[co];
                for (int64_t ci = 0; ci < c_in; ci++)
                    for (int64_t kh = 0; kh < k; kh++) {
                        int64_t ih = oh + kh - pad;
                        if (ih < 0 || ih >= h)
                            continue;
                        for (int64_t kw = 0; kw < k; kw++) {
                            int64_t iw = ow + kw - pad;
                            if (iw < 0 || iw >= wd)
                                continue;
                            acc += w[((co * c_in + ci) * k + kh) * k + kw] *
                                   x[(ci * h + ih) * wd + iw];
                        }
                    }
                y[(co * oh_n + oh) * ow_n + ow] = acc;
            }
}

void relu_(float *x, int64_t n) {
    for (int64_t i = 0; i < n; i++)
        if (!(x[i] > 0.0f))
            x[i] = 0.0f;
}

void maxpool2d(const float *x, float *y, int64_t c, int64_t h, int64_t wd) {
    int64_t oh_n = h / 2, ow_n = wd / 2;
    for (int64_t ch = 0; ch < c; ch++)
        for (int64_t oh = 0; oh < oh_n; oh++)
            for (int64_t ow = 0; ow < ow_n; ow++) {
                const float *p = x + (ch * h + 2 * oh) * wd + 2 * ow;
                float m = p[0];
                if (p[1] > m)
                    m = p[1];
                if (p[wd] > m)
                    m = p[wd];
                if (p[wd + 1] > m)
                    m = p[wd + 1];
                y[(ch * oh_n + oh) * ow_n + ow] = m;
            }
}

void linear(const float *x, const float *w, const float *b, float *y,
            int64_t in_features, int64_t out_features) {
    for (int64_t o = 0; o < out_features; o++) {
        float acc = b[o];
        for (int64_t i = 0; i < in_features; i++)
            acc += w[o * in_features + i] * x[i];
        y[o] = acc;
    }
}

void softmax(const float *x, float *y, int64_t n) {
    float m = x[0], sum = 0.0f;
    for (int64_t i = 1; i < n; i++)
        if (x[i] > m)
            m = x[i];
    for (int64_t i = 0; i < n; i++) {
        y[i] = expf(x[i] - m);
        sum += y[i];
    }
    for (int64_t i = 0; i < n; i++)
        y[i] /= sum;
}

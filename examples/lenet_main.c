/*
 * examples/lenet_main.c - runs the generated LeNet wrapper on a fixed input
 * with deterministic weights and prints the outputs and a checksum.
 *
 * Weights come from a fixed-seed xorshift32 generator scaled by
 * 1/sqrt(fan_in), the input is a synthetic ring ("a zero") drawn on a
 * 28x28 canvas: no data files.  All memory is static (the planned pools
 * too: lenet_run_static), as on a microcontroller.
 *
 * Output: one line per value ("logits[i] = %.9g"), the predicted class and
 * an FNV-1a checksum of the bytes of both outputs, so two builds whose
 * outputs differ in any bit print different text.
 */
#include "lenet.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define N_IMAGE (1 * 1 * 28 * 28)
#define N_CONV1_W (6 * 1 * 5 * 5)
#define N_CONV2_W (16 * 6 * 5 * 5)
#define N_FC1_W (120 * 400)
#define N_FC2_W (84 * 120)
#define N_FC3_W (10 * 84)

static float image[N_IMAGE];
static float conv1_w[N_CONV1_W], conv1_b[6];
static float conv2_w[N_CONV2_W], conv2_b[16];
static float fc1_w[N_FC1_W], fc1_b[120];
static float fc2_w[N_FC2_W], fc2_b[84];
static float fc3_w[N_FC3_W], fc3_b[10];
static float logits[10], probs[10];

/* The generated sizes must match the arrays above. */
typedef char check_image[sizeof image == lenet_INPUT_IMAGE_SIZE ? 1 : -1];
typedef char check_fc1[sizeof fc1_w == lenet_CONST_FC1_W_SIZE ? 1 : -1];
typedef char check_logits[sizeof logits == lenet_OUTPUT_LOGITS_SIZE ? 1 : -1];
typedef char check_probs[sizeof probs == lenet_OUTPUT_PROBS_SIZE ? 1 : -1];

static uint32_t rng_state = 2463534242u;

static float rng_uniform(void) { /* in [-1, 1) */
    uint32_t s = rng_state;
    s ^= s << 13;
    s ^= s >> 17;
    s ^= s << 5;
    rng_state = s;
    return (float)((double)s / 2147483648.0 - 1.0);
}

static void fill(float *a, size_t n, size_t fan_in) {
    float scale = 1.0f / sqrtf((float)fan_in);
    for (size_t i = 0; i < n; i++)
        a[i] = rng_uniform() * scale;
}

static void draw_ring(void) {
    for (int r = 0; r < 28; r++)
        for (int c = 0; c < 28; c++) {
            double dy = (r - 13.5) / 9.0, dx = (c - 13.5) / 6.5;
            double d = sqrt(dx * dx + dy * dy);
            double v = 1.0 - fabs(d - 1.0) * 4.0;
            image[r * 28 + c] = v > 0.0 ? (float)v : 0.0f;
        }
}

static uint32_t fnv1a(uint32_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) {
        h ^= b[i];
        h *= 16777619u;
    }
    return h;
}

int main(void) {
    lenet_inputs in;
    lenet_consts c;
    lenet_outputs out;

    draw_ring();
    fill(conv1_w, N_CONV1_W, 1 * 5 * 5);
    fill(conv1_b, 6, 1 * 5 * 5);
    fill(conv2_w, N_CONV2_W, 6 * 5 * 5);
    fill(conv2_b, 16, 6 * 5 * 5);
    fill(fc1_w, N_FC1_W, 400);
    fill(fc1_b, 120, 400);
    fill(fc2_w, N_FC2_W, 120);
    fill(fc2_b, 84, 120);
    fill(fc3_w, N_FC3_W, 84);
    fill(fc3_b, 10, 84);

    memset(&in, 0, sizeof in);
    memset(&c, 0, sizeof c);
    memset(&out, 0, sizeof out);
    in.image = image;
    c.conv1_w = conv1_w;
    c.conv1_b = conv1_b;
    c.conv2_w = conv2_w;
    c.conv2_b = conv2_b;
    c.fc1_w = fc1_w;
    c.fc1_b = fc1_b;
    c.fc2_w = fc2_w;
    c.fc2_b = fc2_b;
    c.fc3_w = fc3_w;
    c.fc3_b = fc3_b;
    out.logits = logits;
    out.probs = probs;

    int rc = lenet_run_static(&in, &c, &out);
    if (rc != 0) {
        fprintf(stderr, "lenet_run_static failed: %d\n", rc);
        return 1;
    }
    int best = 0;
    for (int i = 0; i < 10; i++) {
        printf("logits[%d] = %.9g  probs[%d] = %.9g\n", i, (double)logits[i], i,
               (double)probs[i]);
        if (probs[i] > probs[best])
            best = i;
    }
    uint32_t h = fnv1a(2166136261u, logits, sizeof logits);
    h = fnv1a(h, probs, sizeof probs);
    printf("class = %d\nchecksum = %08lx\n", best, (unsigned long)h);
    return 0;
}

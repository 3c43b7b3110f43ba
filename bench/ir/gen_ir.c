/*
 * bench/ir/gen_ir.c - writes a synthetic valid IR v1 program of N
 * statements (default 1,000,000) to stdout.  Deterministic.
 *
 * usage: gen_ir [N [sparse|dense]] > big.pw
 *
 * sparse (default): shaped like a traced CNN: per layer a weight, an
 *   output buffer, a call, frees, an in-place alias and a second call;
 *   about 3 buffers live at a time.
 * dense: about 64 buffers live at a time, longer names, calls of 6
 *   arguments reaching back over the live buffers, some buffers with
 *   space=/stride= attributes, frees of two names.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void gen_sparse(long n) {
    long count = 0;
    printf("# synthetic benchmark program: %ld statements\n", n);
    printf("model synthetic\n");
    printf("kernel conv2d(in, in, out, scalar)\n");
    printf("kernel relu_(inout)\n");
    printf("input  x f32[1,64,56,56]\n");
    count += 4;
    const char *prev = "x";
    char prevbuf[64];
    long layer = 0;
    /* Each layer is 8 statements; the last line is the output. */
    while (count + 8 + 1 <= n) {
        printf("const  layer%ld_weight f32[64,64,3,3]\n", layer);
        printf("alloc  layer%ld_conv f32[1,64,56,56] align=64\n", layer);
        printf("call   conv2d(%s, layer%ld_weight, layer%ld_conv, %ld)\n", prev,
               layer, layer, layer % 3 + 1);
        printf("free   %s layer%ld_weight\n", prev, layer);
        printf("alias  layer%ld_relu = layer%ld_conv\n", layer, layer);
        printf("call   relu_(layer%ld_relu)\n", layer);
        printf("free   layer%ld_conv\n", layer);
        printf("call   stats(layer%ld_relu, \"mean\", 0.5)\n", layer);
        snprintf(prevbuf, sizeof prevbuf, "layer%ld_relu", layer);
        prev = prevbuf;
        count += 8;
        layer++;
    }
    while (count + 1 < n) {
        printf("call   stats(%s, \"pad\", 1.5)\n", prev);
        count++;
    }
    printf("output %s\n", prev);
}

enum { LIVE = 64 };

/* The name of buffer i of the dense program. */
static const char *dense_name(long i, char *buf, size_t size) {
    snprintf(buf, size, "block%ld_activation_%ld", i / 16, i % 16);
    return buf;
}

static void gen_dense(long n) {
    long count = 0;
    printf("# synthetic dense benchmark program: %ld statements\n", n);
    printf("model synthetic_dense\n");
    printf("space scratch capacity=1099511627776\n");
    printf("kernel mix6(in, in, in, in, out, scalar)\n");
    count += 3;
    /* Buffers 0..LIVE-1 are inputs; then each group of 4 statements
     * allocates buffer b, calls mix6 on 4 older live buffers writing b,
     * frees the two oldest live ones, and (every other group) allocates
     * a second buffer so that about LIVE stay live. */
    char a[64], b[64], c[64], d[64], e[64];
    long next = 0, oldest = 0;
    for (; next < LIVE && count + 1 < n; next++, count++)
        printf("input  %s f32[%ld,256]\n", dense_name(next, a, sizeof a),
               next % 7 + 1);
    while (count + 4 + LIVE + 1 <= n) {
        long k = next++;
        if (k % 5 == 0)
            printf("alloc  %s f16[16,%ld] stride=[%ld,1] space=scratch\n",
                   dense_name(k, a, sizeof a), k % 13 + 1, k % 13 + 2);
        else
            printf("alloc  %s f32[%ld,256] align=128\n",
                   dense_name(k, a, sizeof a), k % 11 + 1);
        long live = k - oldest;
        printf("call   mix6(%s, %s, %s, %s, %s, %ld)\n",
               dense_name(oldest + (k * 7) % live, b, sizeof b),
               dense_name(oldest + (k * 13) % live, c, sizeof c),
               dense_name(oldest + (k * 29) % live, d, sizeof d),
               dense_name(oldest + live / 2, e, sizeof e),
               dense_name(k, a, sizeof a), k % 1000);
        count += 2;
        if (live >= LIVE) {
            printf("free   %s %s\n", dense_name(oldest, b, sizeof b),
                   dense_name(oldest + 1, c, sizeof c));
            oldest += 2;
            count++;
        } else {
            printf("call   mix6(%s, %s, %s, %s, %s, 0)\n",
                   dense_name(oldest, b, sizeof b),
                   dense_name(oldest, b, sizeof b),
                   dense_name(oldest, b, sizeof b),
                   dense_name(oldest, b, sizeof b), dense_name(k, a, sizeof a));
            count++;
        }
    }
    /* Pad with calls on the last buffer, then free the others. */
    const char *last = dense_name(next - 1, a, sizeof a);
    while (count + 2 < n) {
        printf("call   mix6(%s, %s, %s, %s, %s, 1)\n", last, last, last, last,
               last);
        count++;
    }
    printf("free  ");
    for (long i = oldest; i < next - 1; i++)
        printf(" %s", dense_name(i, b, sizeof b));
    printf("\noutput %s\n", last);
}

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    const char *shape = argc > 2 ? argv[2] : "sparse";
    bool dense = strcmp(shape, "dense") == 0;
    if (!dense && strcmp(shape, "sparse") != 0) {
        fprintf(stderr, "gen_ir: shape must be sparse or dense\n");
        return 2;
    }
    if (n < (dense ? 2 * LIVE : 8)) {
        fprintf(stderr, "gen_ir: N must be at least %d\n",
                dense ? 2 * LIVE : 8);
        return 2;
    }
    if (dense)
        gen_dense(n);
    else
        gen_sparse(n);
    return 0;
}

/*
 * bench/ir/gen_ir.c - writes a synthetic valid IR v1 program of N
 * statements (default 1,000,000) to stdout, shaped like a traced CNN:
 * per layer a weight, an output buffer, a call, frees, an in-place alias
 * and a second call.  Deterministic.
 *
 * usage: gen_ir [N] > big.pw
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? atol(argv[1]) : 1000000;
    if (n < 8) {
        fprintf(stderr, "gen_ir: N must be at least 8\n");
        return 2;
    }
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
    return 0;
}

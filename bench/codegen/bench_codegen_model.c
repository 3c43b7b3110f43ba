/*
 * bench/codegen/bench_codegen_model.c - `bench_codegen_model N` prints a
 * synthetic IR model with N kernel calls: a residual network-like chain
 * of differently sized activations, weights as consts, in-place aliases
 * every few calls, a skip connection held across blocks, and one output.
 * Deterministic (no randomness): the same N gives the same text.
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    long n = argc > 1 ? strtol(argv[1], NULL, 10) : 10000;
    if (n < 4) {
        fprintf(stderr, "usage: bench_codegen_model N (N >= 4)\n");
        return 2;
    }
    printf("# synthetic model: %ld kernel calls\n", n);
    printf("model synth\n");
    printf("kernel conv(in, in, out)\n");
    printf("kernel relu_(inout)\n");
    printf("kernel add(in, in, out)\n");
    printf("kernel scale(inout, scalar)\n");
    printf("input x f32[1,64,32,32]\n");
    const char *cur = "x";
    static char names[2][32];
    long calls = 0, t = 0, skip = -1;
    int sel = 0;
    while (calls < n) {
        long c = 16 + (t % 4) * 16; /* channels: 16..64 */
        char *nm = names[sel];
        sel ^= 1;
        snprintf(nm, sizeof names[0], "t%ld", t);
        if (calls + 1 < n && t % 3 == 0) {
            printf("const w%ld f32[%ld,%ld,3,3]\n", t, c, c);
            printf("alloc %s f32[1,%ld,32,32]\n", nm, c);
            printf("call conv(%s, w%ld, %s)\n", cur, t, nm);
            printf("free w%ld\n", t);
            calls++;
        } else if (calls + 1 < n && t % 3 == 1 && skip >= 0) {
            printf("alloc %s f32[1,%ld,32,32]\n", nm, c);
            printf("call add(%s, s%ld, %s)\n", cur, skip, nm);
            printf("free s%ld\n", skip);
            skip = -1;
            calls++;
        } else {
            printf("alloc %s f32[1,%ld,32,32]\n", nm, c);
            printf("call conv(%s, %s, %s)\n", cur, cur, nm);
            calls++;
            if (calls < n) {
                printf("alias %s_r = %s\n", nm, nm);
                printf("call relu_(%s_r)\n", nm);
                printf("free %s_r\n", nm);
                calls++;
            }
        }
        if (skip < 0 && t % 7 == 0 && calls + 2 < n) {
            /* a skip connection kept alive across a few calls */
            printf("alloc s%ld f32[1,16,32,32]\n", t);
            printf("call scale(s%ld, 0.5)\n", t);
            skip = t;
            calls++;
        }
        if (cur[0] != 'x')
            printf("free %s\n", cur);
        else
            printf("free x\n");
        cur = nm;
        t++;
    }
    if (skip >= 0)
        printf("free s%ld\n", skip);
    printf("output %s\n", cur);
    return 0;
}

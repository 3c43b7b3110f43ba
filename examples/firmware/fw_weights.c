/*
 * examples/firmware/fw_weights.c - writes the example's weight files:
 * `fw_weights FILE N SEED` writes N little-endian float32 values in
 * [-0.5, 0.5) from a fixed-seed xorshift32 (deterministic, no data files
 * in the repository).  Host tool, run by run.sh.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: fw_weights FILE N SEED\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "wb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    long n = strtol(argv[2], NULL, 10);
    uint32_t s = (uint32_t)strtoul(argv[3], NULL, 10) | 1u;
    for (long i = 0; i < n; i++) {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        float v = (float)((double)s / 4294967296.0 - 0.5);
        unsigned char b[4];
        uint32_t u;
        union {
            float f;
            uint32_t u;
        } pun = {v};
        u = pun.u;
        for (int k = 0; k < 4; k++)
            b[k] = (unsigned char)(u >> (8 * k));
        if (fwrite(b, 1, 4, f) != 4) {
            perror(argv[1]);
            return 1;
        }
    }
    return fclose(f) == 0 ? 0 : 1;
}

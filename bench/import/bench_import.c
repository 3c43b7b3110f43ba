/*
 * bench/import/bench_import.c - import time of one ONNX model, not
 * counting the time to read the file: the file is read once, then
 * imp_import runs REPEAT times on the bytes in memory; the best CPU time
 * of the process (CLOCK_PROCESS_CPUTIME_ID: steadier than wall time on a
 * shared machine) is printed in seconds.
 *
 * usage: bench_import MODEL.onnx [REPEAT]
 */
#include "import/import.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: bench_import MODEL.onnx [REPEAT]\n");
        return 2;
    }
    int repeat = argc > 2 ? atoi(argv[2]) : 5;
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *data = malloc((size_t)n);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    imp_options o;
    imp_options_init(&o);
    double best = 1e30;
    size_t lines = 0;
    for (int r = 0; r < repeat; r++) {
        char *err = NULL;
        size_t len = 0;
        double t0 = now();
        char *text = imp_import(argv[1], data, (size_t)n, &o, &len, &err);
        double t = now() - t0;
        if (!text) {
            fprintf(stderr, "%s: error: %s\n", argv[1], err);
            return 1;
        }
        best = t < best ? t : best;
        lines = 0;
        for (size_t i = 0; i < len; i++)
            lines += text[i] == '\n';
        free(text);
    }
    printf("%.3f %zu\n", best, lines);
    free(data);
    return 0;
}

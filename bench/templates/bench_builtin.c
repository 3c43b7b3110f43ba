/*
 * bench/templates/bench_builtin.c - the second target: compile +
 * render of the built-in C templates for a 10,000-kernel model, < 100 ms.
 *
 * Writes a synthetic model (a chain of 10,000 kernel calls over 100
 * kernel types, each with a weight constant and a planned buffer), runs
 * the real pipeline (ir_load, plan_program, cg_build_view_opts) once, then
 * times cg_render_target (load, compile and render every built-in C
 * template, strict and without escaping), best of several runs in CPU
 * time.  Also prints the output throughput of that render.
 */
#include "codegen/codegen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall time, printed next to the CPU figure. */
static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_model(const char *path, int n) {
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    fprintf(f, "model bench\ninput x f32[1,256]\n");
    for (int k = 0; k < 100; k++)
        fprintf(f, "kernel op%d(in, in, out)\n", k);
    const char *prev = "x";
    char pbuf[32];
    for (int i = 0; i < n; i++) {
        fprintf(f, "const w%d f32[256]\n", i);
        fprintf(f, "alloc t%d f32[1,256]\n", i);
        fprintf(f, "call op%d(%s, w%d, t%d)\n", i % 100, prev, i, i);
        fprintf(f, "free %s\n", prev);
        snprintf(pbuf, sizeof pbuf, "t%d", i);
        prev = pbuf;
    }
    fprintf(f, "output %s\n", prev);
    return fclose(f);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1)
        runs = 1;
    char path[] = "/tmp/pw-bench-model-XXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || close(fd) != 0 || write_model(path, 10000) != 0) {
        perror("bench_builtin: model");
        return 1;
    }
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(stderr, 0);
    plan_options po;
    plan_options_init(&po);
    cg_view_options vo = {0};
    int status = 1;
    ir_program *prog = ir_load(a, path, d);
    plan *pl = prog ? plan_program(a, prog, &po, d) : NULL;
    cg_view *view = pl ? cg_view_new(pl, CG_TARGET_C, &vo, d) : NULL;
    if (view) {
        double best = 1e9, best_wall = 1e9;
        size_t bytes = 0;
        status = 0;
        for (int r = 0; r < runs && status == 0; r++) {
            size_t nfiles = 0;
            double t0 = now(), w0 = wall();
            cg_file *files =
                cg_render_target(view, CG_TARGET_C, NULL, &nfiles, d);
            if (!files) {
                status = 1;
                break;
            }
            double dt = now() - t0, dw = wall() - w0;
            if (dt < best)
                best = dt;
            if (dw < best_wall)
                best_wall = dw;
            bytes = 0;
            for (size_t i = 0; i < nfiles; i++)
                bytes += files[i].len;
            cg_files_free(files, nfiles);
        }
        if (status == 0)
            printf("built-in C templates, 10,000-kernel model: %.1f ms "
                   "CPU compile + render (%.1f MB, %.1f MB/s; target < 100 "
                   "ms, ratio %.2f); wall %.1f ms\n",
                   best * 1e3, (double)bytes / 1e6, (double)bytes / best / 1e6,
                   100.0 / (best * 1e3), best_wall * 1e3);
        cg_view_free(view);
    } else {
        fprintf(stderr, "bench_builtin: the pipeline failed on %s\n", path);
    }
    base_diag_free(d);
    base_arena_free(a);
    unlink(path);
    return status;
}

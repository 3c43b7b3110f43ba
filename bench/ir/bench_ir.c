/*
 * bench/ir/bench_ir.c - times reading, parsing and checking one IR file and
 * reports the peak resident memory of the process (getrusage ru_maxrss).
 *
 * usage: bench_ir FILE
 * prints: statements=N values=N read_s=T parse_s=T check_s=T
 *         parse_check_s=T parse_check_cpu_s=T process_cpu_s=T peak_rss_mb=M
 * (times in seconds of wall clock, except parse_check_cpu_s: the CPU time
 * of parse+check alone, and process_cpu_s: user+system CPU time of the
 * process so far, read included; CPU times are what a busy machine does
 * not inflate; peak_rss_mb is in MiB)
 */
#include "ir/ir.h"

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double clock_s(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static double now(void) {
    return clock_s(CLOCK_MONOTONIC);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench_ir FILE\n");
        return 2;
    }
    base_diag *d = base_diag_new(stderr, 0);
    double t0 = now();
    char *text;
    size_t len;
    if (!ir_read_file(argv[1], &text, &len, d))
        return 1;
    double t1 = now();
    double c1 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    base_arena *a = base_arena_new();
    base_diag_set_source(d, argv[1], text, len);
    ir_program *p = ir_parse(a, argv[1], text, len, d);
    double t2 = now();
    bool ok = p && ir_check(p, d);
    double t3 = now();
    double c3 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    if (!ok) {
        fprintf(stderr, "bench_ir: the program is not valid\n");
        return 1;
    }
    double cpu =
        (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec * 1e-6 +
        (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec * 1e-6;
    printf("statements=%u values=%u read_s=%.3f parse_s=%.3f check_s=%.3f "
           "parse_check_s=%.3f parse_check_cpu_s=%.4f process_cpu_s=%.3f "
           "peak_rss_mb=%.1f\n",
           p->nstmts, p->nvalues, t1 - t0, t2 - t1, t3 - t2, t3 - t1, c3 - c1,
           cpu, (double)ru.ru_maxrss / 1024.0);
    base_diag_free(d);
    base_arena_free(a);
    free(text);
    return 0;
}

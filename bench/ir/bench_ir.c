/*
 * bench/ir/bench_ir.c - times reading, parsing and checking one IR file and
 * reports the peak resident memory of the process (getrusage ru_maxrss).
 *
 * usage: bench_ir FILE
 * prints: statements=N values=N read_s=T parse_s=T check_s=T
 *         parse_check_s=T parse_check_cpu_s=T process_cpu_s=T peak_rss_mb=M
 *         B/stmt: text=B stmts=B args=B values=B lists=B attrs=B rest=B
 * (times in seconds of wall clock, except parse_check_cpu_s: the CPU time
 * of parse+check alone, and process_cpu_s: user+system CPU time of the
 * process so far, read included; CPU times are what a busy machine does
 * not inflate; peak_rss_mb is in MiB.  B/stmt: the peak memory per
 * statement by structure: the input text, ir_stmt, ir_arg, ir_value, the
 * names of free/output statements, ir_attrs; rest: the peak less those
 * (name records, shapes, the checker's arrays, the process itself).)
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

/* Prints the bytes per statement of each structure of p, all on the
 * current line. */
static void print_bytes(const ir_program *p, size_t text, double peak) {
    double args = 0, lists = 0, attrs = 0;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        args += (double)st->nargs * sizeof(ir_arg);
        if (st->kind == IR_FREE || st->kind == IR_OUTPUT)
            lists += (double)st->nnames * (sizeof(ir_ident) + sizeof(int32_t));
        attrs += st->attrs ? (double)sizeof(ir_attrs) : 0;
    }
    double n = p->nstmts ? (double)p->nstmts : 1;
    double stmts = (double)p->nstmts * sizeof(ir_stmt);
    double values = (double)p->nvalues * sizeof(ir_value);
    double rest = peak - (double)text - stmts - args - values - lists - attrs;
    printf(" B/stmt: text=%.1f stmts=%.1f args=%.1f values=%.1f lists=%.1f "
           "attrs=%.1f rest=%.1f",
           (double)text / n, stmts / n, args / n, values / n, lists / n,
           attrs / n, rest / n);
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
           "peak_rss_mb=%.1f",
           p->nstmts, p->nvalues, t1 - t0, t2 - t1, t3 - t2, t3 - t1, c3 - c1,
           cpu, (double)ru.ru_maxrss / 1024.0);
    print_bytes(p, len, (double)ru.ru_maxrss * 1024.0);
    printf("\n");
    base_diag_free(d);
    base_arena_free(a);
    free(text);
    return 0;
}

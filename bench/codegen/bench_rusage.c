/*
 * bench/codegen/bench_rusage.c - `bench_rusage OUT CMD [ARGS...]` runs CMD
 * and writes "WALL_S PEAK_KB CPU_S" to the file OUT: its wall time
 * (CLOCK_MONOTONIC around the run), its peak resident set in KiB and its
 * user + system CPU time (wait4's rusage), in microseconds where
 * /usr/bin/time gives 10 ms steps (most of `check` of 10^4 kernels).
 * CMD's output passes through; the exit status is CMD's (127 when it
 * cannot be run, 128 + N when killed by signal N; OUT is then not
 * written).
 */
#define _DEFAULT_SOURCE /* wait4 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static double seconds(struct timeval t) {
    return (double)t.tv_sec + (double)t.tv_usec / 1e6;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: bench_rusage OUT CMD [ARGS...]\n");
        return 2;
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pid_t pid = fork();
    if (pid < 0) {
        perror("bench_rusage: fork");
        return 127;
    }
    if (pid == 0) {
        execvp(argv[2], argv + 2);
        fprintf(stderr, "bench_rusage: cannot run %s: %s\n", argv[2],
                strerror(errno));
        _exit(127);
    }
    int status = 0;
    struct rusage ru;
    while (wait4(pid, &status, 0, &ru) < 0) {
        if (errno != EINTR) {
            perror("bench_rusage: wait4");
            return 127;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    int rc = WEXITSTATUS(status);
    if (rc != 0)
        return rc;
    FILE *f = fopen(argv[1], "w");
    if (!f) {
        fprintf(stderr, "bench_rusage: cannot write %s: %s\n", argv[1],
                strerror(errno));
        return 127;
    }
    double wall = (double)(t1.tv_sec - t0.tv_sec) +
                  (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    fprintf(f, "%.6f %ld %.6f\n", wall, ru.ru_maxrss,
            seconds(ru.ru_utime) + seconds(ru.ru_stime));
    return fclose(f) == 0 ? 0 : 127;
}

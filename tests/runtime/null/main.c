/* For null_ptr.sh: runs m_run with one pointer set to NULL (argv[1]:
 * input, const, output, pool, inputs, none) and, with -DUSE_HOOK, a
 * failure hook installed that prints the message and exits 3. */
#include "m.h"
#include "m_kernels.h"
#include "planwrap_rt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void k(float *a, float *b, float *c) {
    for (int i = 0; i < 4; i++)
        c[i] = a[i] + b[i];
}

#ifdef USE_HOOK
static void hook(const char *message, void *user) {
    printf("hook(%s): %s\n", (const char *)user, message);
    exit(3);
}
#endif

#ifdef MY_FAIL
void my_fail(const char *what, const char *name) {
    printf("my_fail: %s %s\n", what, name ? name : "-");
    exit(4);
}
#endif

int main(int argc, char **argv) {
    static float x[4] = {1, 2, 3, 4}, w[4] = {1, 1, 1, 1}, y[4];
    static _Alignas(m_POOL_CPU_ALIGN) unsigned char pool[m_POOL_CPU_SIZE];
    const char *which = argc > 1 ? argv[1] : "none";
#ifdef USE_HOOK
    pw_rt_set_fail_hook(hook, "user");
#endif
    m_inputs in = {x};
    m_consts c = {w};
    m_outputs out = {y};
    m_pools p = {pool};
    if (strcmp(which, "input") == 0)
        in.x = NULL;
    if (strcmp(which, "const") == 0)
        c.w = NULL;
    if (strcmp(which, "output") == 0)
        out.y = NULL;
    if (strcmp(which, "pool") == 0)
        p.cpu = NULL;
    int rc = m_run(strcmp(which, "inputs") == 0 ? NULL : &in, &c, &out, &p);
    printf("rc %d y0 %g\n", rc, (double)y[0]);
    return 0;
}

/*
 * tests/e2e/cuda/comm_main.c - links the generated CUDA wrapper of comm.pw
 * with the runtime (planwrap_rt.c and planwrap_rt_cuda.cu) and checks how
 * its communication pool is allocated.  No GPU is needed.
 *
 *   comm_main hooks    user hooks from pw_set_comm_hooks hand out host
 *                      memory: init must succeed through them, fini must
 *                      free it through them (same size, comm and group);
 *                      when the run succeeds (a GPU is present) y == x.
 *   comm_main default  the defaults of planwrap_rt_cuda.cu: init succeeds
 *                      (GPU) or fails with the CUDA/NCCL error reported by
 *                      the runtime, never with the C-only default.
 *
 * Kernels are host stubs (they run on the host memory of the hooks).
 */
#include "comm.h"
#include "comm_kernels.h"
#include "planwrap_rt.h"

#include <stdio.h>
#include <string.h>

void copy(const float *src, float *dst, cudaStream_t s) {
    (void)s;
    memcpy(dst, src, 16 * sizeof(float));
}

void all_reduce(float *buf, const char *op, const char *group, cudaStream_t s) {
    (void)buf;
    (void)s;
    if (strcmp(op, "sum") != 0 || strcmp(group, "tp0") != 0)
        fprintf(stderr, "all_reduce: unexpected %s %s\n", op, group);
}

static union {
    unsigned char bytes[4096];
    double align;
} mem;
static int allocs, frees;
static size_t alloc_size, free_size;

static int my_alloc(void **ptr, size_t size, const char *comm,
                    const char *group, void *user) {
    allocs++;
    alloc_size = size;
    if (user != &mem || strcmp(comm, "symm") != 0 ||
        strcmp(group, "tp0") != 0 || size > sizeof mem.bytes)
        return 11;
    *ptr = mem.bytes;
    return 0;
}

static int my_free(void *ptr, size_t size, const char *comm, const char *group,
                   void *user) {
    (void)comm;
    (void)group;
    (void)user;
    frees++;
    free_size = size;
    return ptr == mem.bytes ? 0 : 12;
}

static int fail(const char *what) {
    fprintf(stderr, "comm_main: FAIL: %s\n", what);
    return 1;
}

int main(int argc, char **argv) {
    comm_ctx ctx;
    float x[16], y[16];
    comm_inputs in;
    comm_consts c;
    comm_outputs out;
    int rc, i;

    if (argc != 2)
        return 2;
    for (i = 0; i < 16; i++) {
        x[i] = (float)i;
        y[i] = -1.0f;
    }
    memset(&in, 0, sizeof in);
    memset(&c, 0, sizeof c);
    memset(&out, 0, sizeof out);
    in.x = x;
    out.y = y;
    memset(&ctx, 0, sizeof ctx);

    if (strcmp(argv[1], "hooks") == 0) {
        pw_set_comm_hooks(my_alloc, my_free, &mem);
        rc = comm_init(&ctx);
        if (rc != 0 || allocs != 1)
            return fail("init through the user hooks");
        if (alloc_size != comm_POOL_CPU_SYMM_TP0_SIZE)
            return fail("the hook got another size than the pool's");
        rc = comm_run(&ctx, &in, &c, &out, NULL);
        printf("run: %d (%s)\n", rc, rc == 0 ? "GPU" : "no GPU");
        if (rc == 0 && memcmp(x, y, sizeof x) != 0)
            return fail("y != x after a successful run");
        if (comm_fini(&ctx) != 0 || frees != 1 ||
            free_size != comm_POOL_CPU_SYMM_TP0_SIZE)
            return fail("fini through the user hooks");
        pw_set_comm_hooks(NULL, NULL, NULL);
        printf("ok: hooks: %d alloc, %d free of %lu bytes\n", allocs, frees,
               (unsigned long)alloc_size);
        return 0;
    }
    if (strcmp(argv[1], "default") == 0) {
        rc = comm_init(&ctx);
        printf("init: %d\n", rc);
        if (rc == 0 && comm_fini(&ctx) != 0)
            return fail("fini after a successful init");
        return 0;
    }
    return 2;
}

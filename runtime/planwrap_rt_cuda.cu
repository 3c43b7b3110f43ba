/*
 * runtime/planwrap_rt_cuda.cu - CUDA defaults of the communication-pool
 * hooks (compile with nvcc and link next to planwrap_rt.c; these strong
 * definitions replace the failing weak ones of the C runtime).
 *
 *  - default: cudaMalloc / cudaFree.
 *  - with -DPW_WITH_NCCL: ncclMemAlloc, then ncclCommRegister with the
 *    communicator of the pool's group, found through the hook installed by
 *    pw_set_nccl_comm_lookup (no hook or unknown group: the pool is
 *    allocated with ncclMemAlloc but not registered).  pw_comm_free
 *    deregisters and calls ncclMemFree.  At most PW_NCCL_MAX_REGS pools
 *    are registered at once (static table, no malloc).
 *
 * Every failure prints "planwrap runtime: ..." and returns -1.
 */
#include "planwrap_rt.h"

#include <cuda_runtime.h>
#include <stdio.h>

#ifdef PW_WITH_NCCL
#include <nccl.h>

#ifndef PW_NCCL_MAX_REGS
#define PW_NCCL_MAX_REGS 64
#endif

struct pw_nccl_reg {
    void *ptr; /* NULL: free slot */
    ncclComm_t comm;
    void *handle;
};
static struct pw_nccl_reg pw_nccl_regs[PW_NCCL_MAX_REGS];

extern "C" int pw_comm_default_alloc(void **ptr, size_t size, const char *comm,
                                     const char *group, void *user) {
    (void)user;
    *ptr = NULL;
    int slot = -1;
    for (int i = 0; i < PW_NCCL_MAX_REGS; i++)
        if (pw_nccl_regs[i].ptr == NULL) {
            slot = i;
            break;
        }
    if (slot < 0) {
        fprintf(stderr,
                "planwrap runtime: too many NCCL pools (raise "
                "PW_NCCL_MAX_REGS) for comm=%s group=%s\n",
                comm, group);
        return -1;
    }
    void *p = NULL;
    ncclResult_t r = ncclMemAlloc(&p, size == 0 ? 1 : size);
    if (r != ncclSuccess) {
        fprintf(stderr,
                "planwrap runtime: ncclMemAlloc(%lu) for comm=%s group=%s: "
                "%s\n",
                (unsigned long)size, comm, group, ncclGetErrorString(r));
        return -1;
    }
    ncclComm_t c = (ncclComm_t)pw_nccl_comm_for_group(group);
    void *handle = NULL;
    if (c != NULL) {
        r = ncclCommRegister(c, p, size == 0 ? 1 : size, &handle);
        if (r != ncclSuccess) {
            fprintf(stderr,
                    "planwrap runtime: ncclCommRegister for comm=%s "
                    "group=%s: %s\n",
                    comm, group, ncclGetErrorString(r));
            ncclMemFree(p);
            return -1;
        }
    }
    pw_nccl_regs[slot].ptr = p;
    pw_nccl_regs[slot].comm = c;
    pw_nccl_regs[slot].handle = handle;
    *ptr = p;
    return 0;
}

extern "C" int pw_comm_default_free(void *ptr, size_t size, const char *comm,
                                    const char *group, void *user) {
    (void)size;
    (void)user;
    if (ptr == NULL)
        return 0;
    int rc = 0;
    for (int i = 0; i < PW_NCCL_MAX_REGS; i++) {
        struct pw_nccl_reg *g = &pw_nccl_regs[i];
        if (g->ptr != ptr)
            continue;
        if (g->comm != NULL && g->handle != NULL) {
            ncclResult_t r = ncclCommDeregister(g->comm, g->handle);
            if (r != ncclSuccess) {
                fprintf(stderr,
                        "planwrap runtime: ncclCommDeregister for comm=%s "
                        "group=%s: %s\n",
                        comm, group, ncclGetErrorString(r));
                rc = -1;
            }
        }
        g->ptr = NULL;
        g->comm = NULL;
        g->handle = NULL;
        break;
    }
    ncclResult_t r = ncclMemFree(ptr);
    if (r != ncclSuccess) {
        fprintf(stderr,
                "planwrap runtime: ncclMemFree for comm=%s group=%s: %s\n",
                comm, group, ncclGetErrorString(r));
        rc = -1;
    }
    return rc;
}

#else /* !PW_WITH_NCCL */

extern "C" int pw_comm_default_alloc(void **ptr, size_t size, const char *comm,
                                     const char *group, void *user) {
    (void)user;
    *ptr = NULL;
    cudaError_t e = cudaMalloc(ptr, size == 0 ? 1 : size);
    if (e != cudaSuccess) {
        fprintf(stderr,
                "planwrap runtime: cudaMalloc(%lu) for comm=%s group=%s: "
                "%s\n",
                (unsigned long)size, comm, group, cudaGetErrorString(e));
        *ptr = NULL;
        return -1;
    }
    return 0;
}

extern "C" int pw_comm_default_free(void *ptr, size_t size, const char *comm,
                                    const char *group, void *user) {
    (void)size;
    (void)user;
    if (ptr == NULL)
        return 0;
    cudaError_t e = cudaFree(ptr);
    if (e != cudaSuccess) {
        fprintf(stderr, "planwrap runtime: cudaFree for comm=%s group=%s: %s\n",
                comm, group, cudaGetErrorString(e));
        return -1;
    }
    return 0;
}

#endif /* PW_WITH_NCCL */

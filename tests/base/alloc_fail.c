/*
 * tests/base/alloc_fail.c - the wrappers of alloc_fail.h (see there).
 */
#include "alloc_fail.h"

#include <errno.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/types.h>

size_t alloc_fail_mmap_from = SIZE_MAX, alloc_fail_calloc_from = SIZE_MAX,
       alloc_fail_malloc_from = SIZE_MAX;
unsigned alloc_fail_mmaps, alloc_fail_callocs;

void alloc_fail_reset(void) {
    alloc_fail_mmap_from = alloc_fail_calloc_from = SIZE_MAX;
    alloc_fail_malloc_from = SIZE_MAX;
    alloc_fail_mmaps = alloc_fail_callocs = 0;
}

/* The linker's names (--wrap): declared here, defined by it. */
void *__real_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);
void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off);
void *__real_calloc(size_t n, size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__real_malloc(size_t size);
void *__wrap_malloc(size_t size);

void *__wrap_mmap(void *addr, size_t len, int prot, int flags, int fd,
                  off_t off) {
    alloc_fail_mmaps++;
    if (len >= alloc_fail_mmap_from) {
        errno = ENOMEM;
        return MAP_FAILED;
    }
    return __real_mmap(addr, len, prot, flags, fd, off);
}

void *__wrap_calloc(size_t n, size_t size) {
    alloc_fail_callocs++;
    /* n * size wrapping is calloc's own failure */
    if (n && size >= alloc_fail_calloc_from / n) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_calloc(n, size);
}

void *__wrap_malloc(size_t size) {
    if (size >= alloc_fail_malloc_from) {
        errno = ENOMEM;
        return NULL;
    }
    return __real_malloc(size);
}

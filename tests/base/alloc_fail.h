/*
 * tests/base/alloc_fail.h - making the big allocations of base/ fail on
 * purpose: a test linked with alloc_fail.c and the linker options
 * -Wl,--wrap=mmap,--wrap=calloc,--wrap=malloc (ALLOC_FAIL_LINK_OPTIONS in
 * tests/base/CMakeLists.txt) has every mmap, calloc and malloc call of
 * the code it links (not the C library's own) go through a wrapper that
 * fails (ENOMEM) the requests of alloc_fail_*_from bytes or more and
 * counts them.  Deterministic, unlike `ulimit -v`, and it works under the
 * sanitizers.
 */
#ifndef PW_TEST_ALLOC_FAIL_H
#define PW_TEST_ALLOC_FAIL_H

#include <stddef.h>

/* mmap / calloc / malloc requests of this many bytes or more fail
 * (SIZE_MAX: none but SIZE_MAX itself). */
extern size_t alloc_fail_mmap_from, alloc_fail_calloc_from,
    alloc_fail_malloc_from;
/* Calls seen (failed or not) since the last alloc_fail_reset. */
extern unsigned alloc_fail_mmaps, alloc_fail_callocs;
/* Nothing fails; the counts are zeroed. */
void alloc_fail_reset(void);

#endif

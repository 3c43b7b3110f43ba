/*
 * tests/base/alloc_fail.h - making the big allocations of base/ fail on
 * purpose: a test linked with alloc_fail.c and the linker options
 * -Wl,--wrap=mmap,--wrap=calloc (ALLOC_FAIL_LINK_OPTIONS in
 * tests/base/CMakeLists.txt) has every mmap and calloc call of the code
 * it links (base/arena.c's chunks) go through a wrapper that fails
 * (ENOMEM) the requests of alloc_fail_from bytes or more and counts
 * them.  Deterministic, unlike `ulimit -v`, and it works under the
 * sanitizers.
 */
#ifndef PW_TEST_ALLOC_FAIL_H
#define PW_TEST_ALLOC_FAIL_H

#include <stddef.h>

/* mmap / calloc requests of this many bytes or more fail (SIZE_MAX:
 * none but SIZE_MAX itself). */
extern size_t alloc_fail_mmap_from, alloc_fail_calloc_from;
/* Calls seen (failed or not) since the last alloc_fail_reset. */
extern unsigned alloc_fail_mmaps, alloc_fail_callocs;
/* Nothing fails; the counts are zeroed. */
void alloc_fail_reset(void);

#endif

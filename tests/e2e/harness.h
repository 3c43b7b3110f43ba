/*
 * tests/e2e/harness.h - support code for the end-to-end differential tests.
 *
 * The test kernels of a model are rendered from its plan view
 * (test_kernels.c.mustache): each kernel forwards its buffer arguments to
 * pwt_kernel(), which checks the call against the table of the IR's calls
 * (kernel name, argument count), hashes every `in`/`inout` argument's bytes
 * together with the kernel and buffer names (not the call index, so that a
 * reordered program computes the same bytes), and fills every `out`/`inout`
 * argument from that hash.  So the outputs of the model are a function of all
 * the bytes every call read: any wrong reuse, overlap or stale read changes
 * them.
 */
#ifndef PWT_HARNESS_H
#define PWT_HARNESS_H

#include <stddef.h>
#include <stdint.h>

enum { PWT_IN = 0, PWT_OUT = 1, PWT_INOUT = 2 };

typedef struct pwt_arg {
    int mode;           /* PWT_IN, PWT_OUT or PWT_INOUT */
    size_t nbytes;      /* byte size of the buffer at this call */
    const char *buffer; /* IR name */
    const char *root;   /* IR name of the storage it names (aliases) */
    int read;           /* hashed: 0 no (fresh storage), 1 all bytes, 2 samples:
                           the PWT_SAMPLE bytes at each end (consts) */
} pwt_arg;

typedef struct pwt_call {
    const char *kernel;
    size_t nargs; /* buffer arguments, in order */
    const pwt_arg *args;
} pwt_call;

/* Defined by the rendered test kernels: the model's calls in IR order. */
extern const pwt_call pwt_calls[];
extern const size_t pwt_ncalls;

/* Called by each test kernel with its buffer arguments in order (scalar
 * arguments are left out).  Exits with status 3 after a message when the
 * call does not match the next entry of pwt_calls, or when an argument it
 * writes overlaps another argument of a different storage (a plan that
 * lets a kernel's output overwrite its input).  Returns 0, or PWT_STATUS
 * when the environment variable PWT_FAIL_AT names this call's index (for
 * the --kernel-status tests: the run must stop there). */
#define PWT_STATUS 42
int pwt_kernel(const char *kernel, void *const *bufs, size_t nbufs);

/* Starts a new run: the next pwt_kernel call is call 0. */
void pwt_reset(void);
/* Number of calls seen since the last reset. */
size_t pwt_calls_seen(void);

#define PWT_SAMPLE 4096

/* Fills the bytes pwt_kernel samples of an argument of `n` bytes (both
 * ends, PWT_SAMPLE bytes each) from `seed`; the rest is left as is. */
void pwt_fill_sampled(void *p, size_t n, uint64_t seed);

/* Fills `n` bytes at `p` deterministically from `seed`. */
void pwt_fill(void *p, size_t n, uint64_t seed);
/* A 64-bit hash of `n` bytes, chained from `h`. */
uint64_t pwt_hash(uint64_t h, const void *p, size_t n);

#endif

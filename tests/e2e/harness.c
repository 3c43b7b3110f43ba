/* tests/e2e/harness.c - see harness.h. */
#include "harness.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t pwt_next;

void pwt_reset(void) {
    pwt_next = 0;
}
size_t pwt_calls_seen(void) {
    return pwt_next;
}

static uint64_t pwt_mix(uint64_t x) { /* splitmix64 finalizer */
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

uint64_t pwt_hash(uint64_t h, const void *p, size_t n) {
    const unsigned char *b = p;
    size_t i = 0;
    h = pwt_mix(h ^ n);
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, b + i, 8);
        h = (h ^ w) * 0x100000001b3ull;
        h ^= h >> 29;
    }
    for (; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ull;
    return pwt_mix(h);
}

void pwt_fill(void *p, size_t n, uint64_t seed) {
    unsigned char *b = p;
    uint64_t s = pwt_mix(seed);
    size_t i = 0;
    for (; i + 8 <= n; i += 8) {
        uint64_t w = pwt_mix(s + i);
        memcpy(b + i, &w, 8);
    }
    if (i < n) {
        uint64_t w = pwt_mix(s + i);
        memcpy(b + i, &w, n - i);
    }
}

void pwt_fill_sampled(void *p, size_t n, uint64_t seed) {
    unsigned char *b = p;
    if (n <= 2 * PWT_SAMPLE) {
        pwt_fill(b, n, seed);
        return;
    }
    pwt_fill(b, PWT_SAMPLE, seed);
    pwt_fill(b + n - PWT_SAMPLE, PWT_SAMPLE, seed + 1);
}

int pwt_kernel(const char *kernel, void *const *bufs, size_t nbufs) {
    size_t idx = pwt_next++;
    if (idx >= pwt_ncalls) {
        fprintf(stderr, "e2e: call %lu to %s: the model has only %lu calls\n",
                (unsigned long)idx, kernel, (unsigned long)pwt_ncalls);
        exit(3);
    }
    const pwt_call *c = &pwt_calls[idx];
    if (strcmp(c->kernel, kernel) != 0 || c->nargs != nbufs) {
        fprintf(stderr,
                "e2e: call %lu is %s with %lu buffers, expected %s with "
                "%lu\n",
                (unsigned long)idx, kernel, (unsigned long)nbufs, c->kernel,
                (unsigned long)c->nargs);
        exit(3);
    }
    for (size_t i = 0; i < nbufs; i++) {
        const pwt_arg *x = &c->args[i];
        const unsigned char *xp = bufs[i];
        if (x->mode == PWT_IN || x->nbytes == 0)
            continue;
        for (size_t j = 0; j < nbufs; j++) {
            const pwt_arg *y = &c->args[j];
            const unsigned char *yp = bufs[j];
            if (j == i || y->nbytes == 0 || strcmp(x->root, y->root) == 0)
                continue;
            if ((uintptr_t)xp < (uintptr_t)yp + y->nbytes &&
                (uintptr_t)yp < (uintptr_t)xp + x->nbytes) {
                fprintf(stderr,
                        "e2e: call %lu (%s): argument %lu '%s' (written) "
                        "overlaps argument %lu '%s', another storage\n",
                        (unsigned long)idx, kernel, (unsigned long)i, x->buffer,
                        (unsigned long)j, y->buffer);
                exit(3);
            }
        }
    }
    /* Seeded by the call's kernel and buffer names, not its index: a
     * reordered program (--order) computes the same bytes. */
    uint64_t h = pwt_hash(0, kernel, strlen(kernel));
    for (size_t i = 0; i < nbufs; i++)
        h = pwt_hash(h, c->args[i].buffer, strlen(c->args[i].buffer) + 1);
    for (size_t i = 0; i < nbufs; i++) {
        const pwt_arg *x = &c->args[i];
        const unsigned char *xp = bufs[i];
        if (x->mode == PWT_OUT || x->read == 0 || x->nbytes == 0)
            continue;
        if (x->read == 2 && x->nbytes > 2 * PWT_SAMPLE) {
            h = pwt_hash(h, xp, PWT_SAMPLE);
            h = pwt_hash(h, xp + x->nbytes - PWT_SAMPLE, PWT_SAMPLE);
        } else {
            h = pwt_hash(h, xp, x->nbytes);
        }
    }
    for (size_t i = 0; i < nbufs; i++)
        if (c->args[i].mode != PWT_IN && c->args[i].nbytes != 0)
            pwt_fill(bufs[i], c->args[i].nbytes, h + i);
    const char *fail_at = getenv("PWT_FAIL_AT");
    if (fail_at != NULL && strtoul(fail_at, NULL, 10) == idx)
        return PWT_STATUS;
    return 0;
}

/*
 * planner/radix.c - a stable LSD radix sort of 64-bit words on their high
 * 32 bits, for the planner's large inputs (a time or a size in the high
 * half, a buffer index in the low half), or on a given range of bits.
 * Passes of 11 bits (three for 32); a pass whose digit is the same
 * in every word is skipped.  O(n).
 */
#include "plan_internal.h"

#include <stdlib.h>
#include <string.h>

#define RX_BITS 11
#define RX_SIZE (1u << RX_BITS)
_Static_assert(RX_SIZE == PLAN_RADIX_COUNTS, "the counts the caller gives");

void plan_radix_sort_bits_in(uint64_t *v, size_t n, unsigned lo, unsigned hi,
                             uint64_t *tmp, uint32_t *cnt) {
    if (n < 2)
        return;
    uint64_t *src = v, *dst = tmp;
    for (unsigned shift = lo; shift < hi; shift += RX_BITS) {
        memset(cnt, 0, RX_SIZE * sizeof *cnt);
        for (size_t i = 0; i < n; i++)
            cnt[(src[i] >> shift) & (RX_SIZE - 1)]++;
        if (cnt[(src[0] >> shift) & (RX_SIZE - 1)] == n)
            continue; /* one digit everywhere: nothing moves */
        uint32_t sum = 0;
        for (uint32_t d = 0; d < RX_SIZE; d++) {
            uint32_t c = cnt[d];
            cnt[d] = sum;
            sum += c;
        }
        for (size_t i = 0; i < n; i++)
            dst[cnt[(src[i] >> shift) & (RX_SIZE - 1)]++] = src[i];
        uint64_t *t = src;
        src = dst;
        dst = t;
    }
    if (src != v)
        memcpy(v, src, n * sizeof *v);
}

void plan_radix_sort_hi_in(uint64_t *v, size_t n, uint64_t *tmp,
                           uint32_t *cnt) {
    plan_radix_sort_bits_in(v, n, 32, 64, tmp, cnt);
}

int plan_radix_sort_hi(uint64_t *v, size_t n) {
    if (n < 2)
        return 0;
    uint64_t *tmp = malloc(n * sizeof *tmp);
    uint32_t *cnt = malloc(RX_SIZE * sizeof *cnt);
    bool ok = tmp && cnt;
    if (ok)
        plan_radix_sort_hi_in(v, n, tmp, cnt);
    free(tmp);
    free(cnt);
    return ok ? 0 : -1;
}

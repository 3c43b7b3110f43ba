/*
 * base/base.h - the bottom module: what every stage of planwrap shares.
 *
 * One arena, one out-of-memory abort, PW_ASSERT, a string builder, a
 * whole-file reader, the diagnostics sink, one binary search and one
 * uint64_t comparison.  Names carry the prefix `base_` (`pw_` belongs to
 * the runtime that generated code links); macros `PW_` / `BASE_`.  The
 * uthash configuration is base/hash.h.  base/ includes no other module.
 */
#ifndef PLANWRAP_BASE_H
#define PLANWRAP_BASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Fatal errors. */

/* Prints "planwrap: error: out of memory" to stderr and exits with
 * status 1. */
_Noreturn void base_oom(void);
/* malloc / realloc / calloc that never return NULL (base_oom instead); a
 * size of 0 allocates 1 byte. */
void *base_xmalloc(size_t n);
void *base_xrealloc(void *p, size_t n);
void *base_xcalloc(size_t n, size_t size);

/* Prints "planwrap: internal error: FILE:LINE: assertion `COND' failed"
 * and aborts.  For internal bugs only, never for bad input (that gets a
 * diagnostic).  Always on (not compiled out by NDEBUG). */
_Noreturn void base_assert_fail(const char *cond, const char *file, int line);
#define PW_ASSERT(cond)                                                        \
    ((cond) ? (void)0 : base_assert_fail(#cond, __FILE__, __LINE__))
/* Prints "planwrap: internal error at FILE:LINE: MESSAGE" and aborts: a
 * bug found with more to say than PW_ASSERT (the importer's IMP_BUG). */
_Noreturn void base_vbug(const char *file, int line, const char *fmt,
                         va_list ap) __attribute__((format(printf, 3, 0)));

/* ------------------------------------------------------------------ */
/* Arena: bump allocation in chunks, everything freed in one call. */

typedef struct base_arena base_arena;

/* The arena's state; only base/arena.c and base_arena_alloc look inside.
 * [cur, end) are the free bytes of its newest chunk (both NULL before
 * the first); cur is where the last block ended (each block is aligned
 * as it is handed out), end is aligned to 16. */
struct base_arena {
    unsigned char *cur, *end;
    struct base_chunk *head;
    size_t align; /* 16, or less for base_arena_new_aligned */
    size_t chunk; /* size of the next chunk */
};

/* Returns a new empty arena.  Aborts on out-of-memory (never NULL). */
base_arena *base_arena_new(void);
/* An arena whose blocks are aligned to `align` (a power of two up to 16)
 * only: less padding for many small blocks that need no more. */
base_arena *base_arena_new_aligned(size_t align);
/* Frees the arena and everything allocated from it.  NULL is a no-op. */
void base_arena_free(base_arena *a);
/* base_arena_alloc_aligned past its window: a size of 0, a new chunk. */
void *base_arena_alloc_slow(base_arena *a, size_t size, size_t align);
/* Returns `size` zeroed bytes aligned to `align` (a power of two up to
 * 16), valid until base_arena_free; aborts on out-of-memory or size
 * overflow.  Inline, and for callers that know the alignment they need
 * (1 for a string, _Alignof of a struct): the rounding folds at compile
 * time and a string takes no padding.  gen builds every element in an
 * arena, some ten blocks a statement, and a call cost more than the
 * bump.  The blocks of the newest chunk are zero (reset clears what it
 * used). */
static inline void *base_arena_alloc_aligned(base_arena *a, size_t size,
                                             size_t align) {
    /* end is aligned to 16: p <= end (both 0 before the first chunk) */
    uintptr_t p = ((uintptr_t)a->cur + align - 1) & ~(uintptr_t)(align - 1);
    if (size - 1 < (size_t)((uintptr_t)a->end - p)) { /* 1 <= size <= room */
        a->cur = (unsigned char *)(p + size);
        return (void *)p;
    }
    return base_arena_alloc_slow(a, size, align);
}
/* `size` zeroed bytes aligned to 16 (or the arena's alignment):
 * base_arena_alloc_aligned. */
static inline void *base_arena_alloc(base_arena *a, size_t size) {
    return base_arena_alloc_aligned(a, size, a->align);
}
/* Array helper: n * size bytes, zeroed; aborts on overflow. */
void *base_arena_array(base_arena *a, size_t n, size_t size);
/* Frees everything allocated from `a` but keeps its newest chunk for
 * reuse: a scratch arena emptied after each use. */
void base_arena_reset(base_arena *a);
/* Copies s[0..n) into the arena and NUL-terminates it (a string:
 * byte-aligned, no padding). */
char *base_arena_strndup(base_arena *a, const char *s, size_t n);
char *base_arena_strdup(base_arena *a, const char *s);
/* printf into the arena. */
char *base_arena_printf(base_arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* One large block on its own, as an arena maps its big chunks: from 1 MiB
 * on (`size` plus a header and the alignment's slack) mapped alone in
 * whole 2 MiB pages, aligned to them and offered to the kernel for
 * transparent huge pages, else calloc'ed; `size` zeroed bytes aligned to
 * `align`, a power of two up to 4096 (0 to 16: 16).  Unlike the arena it
 * returns NULL when memory is short or the size too large (near
 * SIZE_MAX), so that a caller can report it: the planner's working
 * blocks.  Release with base_huge_free (NULL is a no-op). */
void *base_huge_alloc(size_t size, size_t align);
void base_huge_free(void *p);

/* ------------------------------------------------------------------ */
/* String builder: a growing malloc'ed buffer, always NUL-terminated.
 *
 *   base_sb b = {0};
 *   base_sb_puts(&b, "x = ");
 *   base_sb_printf(&b, "%d", 42);
 *   char *s = base_sb_take(&b, NULL);   // caller frees s
 *
 * Aborts on out-of-memory. */
typedef struct base_sb {
    char *p;    /* NULL until the first byte */
    size_t len; /* bytes in p, NUL not counted */
    size_t cap;
} base_sb;

/* Copies s[0, n): up to 16 bytes with two overlapping loads and stores
 * each, inline, longer ones with memcpy.  Most appends of gen's texts
 * (a name, a number, a separator) are a few bytes, for which a call to
 * memcpy costs more than the copy. */
static inline void base_copy(char *d, const char *s, size_t n) {
    if (n >= 8 && n <= 16) {
        uint64_t a, z;
        memcpy(&a, s, 8);
        memcpy(&z, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &z, 8);
    } else if (n >= 4 && n < 8) {
        uint32_t a, z;
        memcpy(&a, s, 4);
        memcpy(&z, s + n - 4, 4);
        memcpy(d, &a, 4);
        memcpy(d + n - 4, &z, 4);
    } else if (n > 0 && n < 4) {
        d[0] = s[0];
        d[n / 2] = s[n / 2];
        d[n - 1] = s[n - 1];
    } else if (n > 16) {
        memcpy(d, s, n);
    }
}

/* Room for `n` more bytes (and the NUL). */
void base_sb_reserve(base_sb *b, size_t n);
/* put, puts and putc are inline: the texts of gen are made of many
 * short appends (a name, a separator), and a call and a reserve each
 * cost more than the copy.  The buffer always has room for len + 1
 * bytes once allocated, so that n < cap - len needs no reserve. */
static inline void base_sb_put(base_sb *b, const char *s, size_t n) {
    if (n >= b->cap - b->len)
        base_sb_reserve(b, n);
    base_copy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}
static inline void base_sb_puts(base_sb *b, const char *s) {
    base_sb_put(b, s, strlen(s));
}
static inline void base_sb_putc(base_sb *b, char c) {
    base_sb_put(b, &c, 1);
}
/* Room for n more bytes, to be written in place at the pointer
 * returned; base_sb_end then ends the text where the writing stopped
 * (at most n bytes on). */
static inline char *base_sb_room(base_sb *b, size_t n) {
    if (n >= b->cap - b->len)
        base_sb_reserve(b, n);
    return b->p + b->len;
}
static inline void base_sb_end(base_sb *b, char *e) {
    *e = '\0';
    b->len = (size_t)(e - b->p);
}
/* `n` spaces. */
void base_sb_spaces(base_sb *b, size_t n);
/* x in decimal. */
void base_sb_u64(base_sb *b, uint64_t x);
/* The most digits of a uint64_t in decimal. */
#define BASE_U64_MAX_DIGITS 20
/* "00" to "99" (and the NUL), and 10^0 to 10^19: base_u64_at's tables. */
extern const char base_digits2[201];
extern const uint64_t base_pow10[20];
/* The number of decimal digits of x, without a division: from the bit
 * length, t = bits * 1233 / 4096 (1233 / 4096 just above log10(2)) is
 * floor(log10(x)) or one more, which one comparison tells.  Also to
 * write x in place where its width must be known first (a padded
 * column). */
static inline size_t base_u64_len(uint64_t x) {
    if (x < 10)
        return 1;
    unsigned t = ((64u - (unsigned)__builtin_clzll(x)) * 1233u) >> 12;
    return t + 1 - (x < base_pow10[t]);
}
/* x in decimal at p, which has room for BASE_U64_MAX_DIGITS bytes (no
 * NUL written); returns the end.  For texts reserved once and written
 * in place (base_sb_room): gen writes several numbers per kernel call
 * (dimensions, line numbers, offsets, byte ranges).  Inline, so that a
 * number of one or two digits (most dimensions) costs two comparisons
 * and a store.  The digits are
 * counted (base_u64_len), then written from the end two a step, in
 * 32-bit arithmetic below 2^32. */
static inline char *base_u64_at(char *p, uint64_t x) {
    if (x < 100) {
        if (x < 10) {
            *p = (char)('0' + x);
            return p + 1;
        }
        memcpy(p, base_digits2 + x * 2, 2);
        return p + 2;
    }
    char *e = p + base_u64_len(x), *q = e;
    while (x > UINT32_MAX) {
        unsigned d = (unsigned)(x % 100) * 2;
        x /= 100;
        q -= 2;
        memcpy(q, base_digits2 + d, 2);
    }
    uint32_t y = (uint32_t)x;
    while (y >= 100) {
        uint32_t d = (y % 100) * 2;
        y /= 100;
        q -= 2;
        memcpy(q, base_digits2 + d, 2);
    }
    if (y >= 10)
        memcpy(q - 2, base_digits2 + y * 2, 2);
    else
        q[-1] = (char)('0' + y);
    return e;
}
/* x in decimal at p, a '-' first when negative (room for
 * BASE_U64_MAX_DIGITS + 1 bytes; no NUL written); returns the end. */
static inline char *base_i64_at(char *p, int64_t x) {
    if (x < 0)
        *p++ = '-';
    return base_u64_at(p, x < 0 ? 0u - (uint64_t)x : (uint64_t)x);
}
void base_sb_printf(base_sb *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void base_sb_vprintf(base_sb *b, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* The text so far (never NULL: "" when empty); valid until the next
 * change. */
const char *base_sb_str(const base_sb *b);
/* Empties the builder, keeping its buffer. */
void base_sb_clear(base_sb *b);
/* Hands the buffer to the caller (free it; never NULL) and resets the
 * builder.  *len (may be NULL) gets the length. */
char *base_sb_take(base_sb *b, size_t *len);
void base_sb_free(base_sb *b);

/* ------------------------------------------------------------------ */
/* Files. */

/* Reads a whole file ("-" = standard input) into a malloc'ed buffer with a
 * NUL appended (not counted in *len).  A directory fails with EISDIR.  On
 * failure returns false with *err set to the errno value, and nothing to
 * free.  Aborts on out-of-memory. */
bool base_read_file(const char *path, char **text, size_t *len, int *err);

/* A whole file, mapped read-only when it is a non-empty regular file
 * (*mapped true: its pages are the page cache's, not a copy), else read
 * with base_read_file.  Release with base_unmap_file.  The same errors
 * and size limit as base_read_file. */
bool base_map_file(const char *path, const void **data, size_t *len,
                   bool *mapped, int *err);
void base_unmap_file(const void *data, size_t len, bool mapped);

/* A regular file read straight into the arena (no second copy of a big
 * file), NUL-terminated, *len its size.  NULL when that is not possible
 * (standard input, pipes, errors, a file changing while read, a file over
 * base_max_input()), with nothing reported: the caller falls back to
 * base_read_file, which says why. */
char *base_read_file_arena(base_arena *a, const char *path, size_t *len);

/* The largest input base_read_file reads, in bytes: PLANWRAP_MAX_INPUT from
 * the environment when it is a positive decimal number, else 1 GiB.  A
 * larger input fails with EFBIG, so that reading /dev/zero stops. */
#define BASE_MAX_INPUT_DEFAULT ((size_t)1 << 30)
size_t base_max_input(void);

/* Seconds on the monotonic clock, for time limits and --times (the
 * origin is arbitrary: only differences mean anything). */
double base_now(void);

/* Output files, streamed and atomic (base/out.c): a regular or new
 * destination is written to a temporary file beside it and renamed over
 * it on commit, so that it holds the old content or the whole new one;
 * a device or FIFO (/dev/null, a pipe) is written in place; "-" is
 * standard output.  Every failure is reported to `d` as "cannot write
 * PATH: REASON".  Temporary files are removed on failure, discard and
 * SIGINT/SIGTERM/SIGHUP. */
typedef struct base_diag base_diag;
typedef struct base_out base_out;
/* NULL after the report (a directory, an unwritable folder). */
base_out *base_out_open(const char *path, base_diag *d);
/* The stream to write to (stdio buffering; errors are found on commit). */
FILE *base_out_stream(const base_out *o);
const char *base_out_path(const base_out *o);
/* Completes every file, then renames them in order under an exclusive
 * flock of the first one's folder; frees them all.  False after the
 * report: the temporary files left are removed (files renamed before
 * the failure stay new). */
bool base_out_commit_all(base_out **outs, size_t n, base_diag *d);
bool base_out_commit(base_out *o, base_diag *d);
/* Drops o and its temporary file; NULL is a no-op. */
void base_out_discard(base_out *o);
/* Writing o failed with errno value `err`: reports "cannot write PATH:
 * REASON" and discards o.  For standard output a note follows: what it
 * received before the error stays (a pipe or a terminal cannot be rolled
 * back).  base_out_commit reports its own failures the same way. */
void base_out_fail(base_out *o, int err, base_diag *d);
/* `len` bytes to `path` through base_out. */
bool base_write_file_atomic(const char *path, const void *data, size_t len,
                            base_diag *d);

/* "Did you mean": the index of the candidate closest to word[0..len) (at
 * most 1 edit for words of 3 or 4 bytes, 2 for longer ones; insertions,
 * deletions, substitutions and transpositions; the first on ties; NULL
 * candidates skipped), or SIZE_MAX when none is close. */
size_t base_closest(const char *word, size_t len, const char *const *cands,
                    size_t n);

/* Prints num/den with three decimals ("1.250"); "1.000" for 0/0 and "inf"
 * for n/0: the size-to-bound ratios of plan, schedule and --compare. */
void base_fprint_ratio(FILE *f, uint64_t num, uint64_t den);

/* ------------------------------------------------------------------ */
/* Sorting and searching. */

/* qsort comparator of uint64_t values, ascending. */
int base_cmp_u64(const void *a, const void *b);
/* The same for uint32_t values. */
int base_cmp_u32(const void *a, const void *b);
/* qsort and bsearch comparator of strings (`const char *` elements),
 * strcmp's byte order. */
int base_cmp_str(const void *a, const void *b);

/* A hash of bytes p[0..n) for the project's own name tables: FNV-1a over
 * 64 bits, then folded and multiplied so that both the low bits (a mask)
 * and the high bits (a shift) are well mixed, also for names that differ
 * only at the end (b_t1, b_t2, ...).  Never emit in hash order. */
static inline uint64_t base_hash_bytes(const void *p, size_t n) {
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ s[i]) * 0x100000001b3ull;
    return (h ^ (h >> 32)) * 0x9E3779B97F4A7C15ull;
}

/* The first index i in sorted a[0..n) with a[i] >= v (n when none). */
static inline uint32_t base_lower_bound_u64(const uint64_t *a, uint32_t n,
                                            uint64_t v) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The same over uint32_t values. */
static inline uint32_t base_lower_bound_u32(const uint32_t *a, uint32_t n,
                                            uint32_t v) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (a[mid] < v)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* ------------------------------------------------------------------ */
/* Diagnostics: a sink that prints `FILE:LINE:COL: error|warning|note: MSG`
 * followed by the source line and a caret (when the source is known),
 * and counts errors.  After `max_errors` errors further errors are
 * counted but not printed (one "too many errors" line is printed).
 *
 * The one error path: every message for the user (bad input, a file that
 * cannot be read or written, a usage error) is reported to the sink the
 * command created, once, by the function that found it; a function that
 * reports returns failure and its callers print nothing more.  Only
 * base_oom and the internal-error aborts (PW_ASSERT) print directly. */

typedef enum base_severity {
    BASE_SEV_ERROR,
    BASE_SEV_WARNING,
    BASE_SEV_NOTE,
} base_severity;

/* The error limit when the caller gives 0. */
#define BASE_DIAG_DEFAULT_MAX_ERRORS 50u

/* `out` is where messages go (usually stderr; NULL: nowhere, the reports
 * are only counted); `max_errors` 0 = BASE_DIAG_DEFAULT_MAX_ERRORS. */
base_diag *base_diag_new(FILE *out, unsigned max_errors);
void base_diag_free(base_diag *d);
/* Changes the error limit (0 = the default), e.g. after the options. */
void base_diag_set_max_errors(base_diag *d, unsigned max_errors);
/* Source used for the quoted line and caret. `text` must outlive the
 * reports (it is not copied).  `filename` is copied. */
void base_diag_set_source(base_diag *d, const char *filename, const char *text,
                          size_t len);
/* line/col are 1-based; line 0 means "no location" (prints FILE: only). */
void base_diag_report(base_diag *d, base_severity sev, uint32_t line,
                      uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void base_diag_vreport(base_diag *d, base_severity sev, uint32_t line,
                       uint32_t col, const char *fmt, va_list ap)
    __attribute__((format(printf, 5, 0)));
/* A report in another file than the source (a template, a JSON file):
 * `FILE:LINE:COL: SEVERITY: MSG` (line 0: `FILE: SEVERITY: MSG`), without
 * a quoted line.  Counted and limited like base_diag_report. */
void base_diag_report_in(base_diag *d, base_severity sev, const char *file,
                         uint32_t line, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
void base_diag_vreport_in(base_diag *d, base_severity sev, const char *file,
                          uint32_t line, uint32_t col, const char *fmt,
                          va_list ap) __attribute__((format(printf, 6, 0)));
/* A report with no place in a file: `planwrap: SEVERITY: MSG` (a file
 * that cannot be written, a usage error).  Counted and limited like
 * base_diag_report. */
void base_diag_msg(base_diag *d, base_severity sev, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void base_diag_vmsg(base_diag *d, base_severity sev, const char *fmt,
                    va_list ap) __attribute__((format(printf, 3, 0)));
/* A line printed as it is after the last report ("Run 'planwrap fmt
 * --help' for usage."); not printed when that report was not. */
void base_diag_hint(base_diag *d, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
unsigned base_diag_errors(const base_diag *d);
unsigned base_diag_warnings(const base_diag *d);

/* Length of the valid UTF-8 sequence at s[0..n) (n >= 1), its code point
 * in *cp; 0 when the bytes are not valid UTF-8 (overlong forms, surrogates
 * and code points above U+10FFFF included). */
size_t base_utf8_decode(const unsigned char *s, size_t n, unsigned *cp);

#endif /* PLANWRAP_BASE_H */

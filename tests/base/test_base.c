/*
 * tests/base/test_base.c - unit tests of base/: arena, string builder,
 * file reader, binary search, comparator, diagnostics limit, atomic
 * output files (and their blocks allocated ahead).
 */
#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include <cmocka.h>

static void arena_zeroed_aligned(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    for (size_t n = 0; n < 300000; n = n * 2 + 1) {
        unsigned char *p = base_arena_alloc(a, n);
        assert_int_equal((uintptr_t)p % 16, 0);
        for (size_t i = 0; i < n; i++)
            assert_int_equal(p[i], 0);
        memset(p, 0xAB, n);
    }
    assert_string_equal(base_arena_printf(a, "%s-%d", "x", 42), "x-42");
    assert_string_equal(base_arena_strndup(a, "abcdef", 3), "abc");
    base_arena_free(a);
    base_arena_free(NULL);
    /* 8-byte blocks: consecutive small blocks are 8 bytes apart. */
    a = base_arena_new_aligned(8);
    char *p = base_arena_alloc(a, 3), *q = base_arena_alloc(a, 8);
    assert_int_equal(q - p, 8);
    assert_int_equal((uintptr_t)q % 8, 0);
    base_arena_free(a);
}

/* The inline bump (base_arena_alloc's window) and the slow path
 * interleaved: blocks never overlap, a reset hands back zeroed memory
 * at the start of the kept chunk, and size 0 still gives a distinct
 * block. */
static void arena_window_reset(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    for (int round = 0; round < 3; round++) {
        unsigned char *prev = NULL;
        size_t prev_n = 0;
        for (size_t i = 0; i < 5000; i++) {
            size_t n = i % 7 == 0 ? 0 : (i * 37) % 300;
            if (i % 997 == 0)
                n = 100000; /* a block of its own */
            unsigned char *p = base_arena_alloc(a, n);
            assert_non_null(p);
            for (size_t k = 0; k < n; k++)
                assert_int_equal(p[k], 0);
            memset(p, 0x5A, n);
            if (prev && prev != p && prev_n && n)
                assert_true(p >= prev + prev_n || p + n <= prev);
            prev = p;
            prev_n = n;
        }
        base_arena_reset(a);
    }
    base_arena_free(a);
}

/* Every u64 as snprintf writes it (and base_u64_len its length): around
 * each power of ten, and the two-digit steps through 0..99999. */
static void sb_u64_digits(void **state) {
    (void)state;
    base_sb b = {0};
    char want[32];
    for (uint64_t x = 0; x < 100000; x++) {
        base_sb_clear(&b);
        base_sb_u64(&b, x);
        snprintf(want, sizeof want, "%llu", (unsigned long long)x);
        assert_string_equal(base_sb_str(&b), want);
        assert_int_equal(base_u64_len(x), strlen(want));
    }
    for (uint64_t p = 10; p <= 10000000000000000000ull; p *= 10) {
        for (uint64_t x = p - 2; x <= p + 2; x++) {
            base_sb_clear(&b);
            base_sb_u64(&b, x);
            snprintf(want, sizeof want, "%llu", (unsigned long long)x);
            assert_string_equal(base_sb_str(&b), want);
            assert_int_equal(base_u64_len(x), strlen(want));
        }
        if (p > UINT64_MAX / 10)
            break;
    }
    /* base_u64_at switches to 32-bit arithmetic below 2^32 */
    const uint64_t edges[] = {UINT32_MAX - 1ull, UINT32_MAX, UINT32_MAX + 1ull,
                              UINT64_MAX - 1, UINT64_MAX};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++) {
        char at[BASE_U64_MAX_DIGITS + 1];
        char *e = base_u64_at(at, edges[i]);
        *e = '\0';
        snprintf(want, sizeof want, "%llu", (unsigned long long)edges[i]);
        assert_string_equal(at, want);
        assert_int_equal(base_u64_len(edges[i]), strlen(want));
    }
    /* base_i64_at: the sign, then the magnitude (INT64_MIN's too) */
    const int64_t sedges[] = {
        INT64_MIN, INT64_MIN + 1, -100,     -99, -10, -9, -1, 0, 1, 9,
        99,        100,           INT64_MAX};
    for (size_t i = 0; i < sizeof sedges / sizeof *sedges; i++) {
        char at[BASE_U64_MAX_DIGITS + 2];
        char *e = base_i64_at(at, sedges[i]);
        *e = '\0';
        snprintf(want, sizeof want, "%lld", (long long)sedges[i]);
        assert_string_equal(at, want);
    }
    base_sb_free(&b);
}

/* base_arena_alloc_aligned: blocks of every alignment up to 16 mixed in one
 * arena (strings at 1 take no padding), each aligned as asked, zeroed
 * and apart from every other block; also right after a block of its own
 * of an odd size that opened the arena (the window then ends at that
 * chunk's end, which must stay aligned), and after a reset. */
static void arena_at_mixed(void **state) {
    (void)state;
    enum { N = 3000 };
    static unsigned char *blk[N];
    static size_t len[N];
    base_arena *a = base_arena_new();
    for (int round = 0; round < 2; round++) {
        blk[0] = base_arena_alloc_aligned(a, 100001,
                                          1); /* of its own: > chunk / 4 */
        len[0] = 100001;
        memset(blk[0], 0x11, len[0]);
        for (size_t i = 1; i < N; i++) {
            size_t al = (size_t)1 << (i % 5), n = (i * 7919) % 61;
            if (i % 500 == 0)
                n = 70001;
            unsigned char *p = base_arena_alloc_aligned(a, n, al);
            assert_non_null(p);
            assert_int_equal((uintptr_t)p % al, 0);
            for (size_t k = 0; k < n; k++)
                assert_int_equal(p[k], 0);
            memset(p, 0x5A, n);
            for (size_t j = 0; j < i; j++)
                if (n && len[j])
                    assert_true(p >= blk[j] + len[j] || p + n <= blk[j]);
            blk[i] = p;
            len[i] = n;
        }
        base_arena_reset(a);
    }
    /* consecutive strings are packed */
    char *s = base_arena_alloc_aligned(a, 3, 1),
         *t = base_arena_alloc_aligned(a, 5, 1);
    assert_ptr_equal(t, s + 3);
    assert_int_equal((uintptr_t)base_arena_alloc(a, 1) % 16, 0);
    base_arena_free(a);
}

static void sb_builds(void **state) {
    (void)state;
    base_sb b = {0};
    assert_string_equal(base_sb_str(&b), "");
    base_sb_puts(&b, "x =");
    base_sb_spaces(&b, 2);
    base_sb_u64(&b, UINT64_MAX);
    base_sb_putc(&b, ';');
    base_sb_printf(&b, " %s%d", "n", 7);
    assert_string_equal(base_sb_str(&b), "x =  18446744073709551615; n7");
    for (int i = 0; i < 1000; i++)
        base_sb_u64(&b, 0);
    assert_int_equal(b.len, 29 + 1000);
    size_t len = 0;
    char *s = base_sb_take(&b, &len);
    assert_int_equal(len, 1029);
    assert_int_equal(s[1028], '0');
    assert_null(b.p);
    free(s);
    base_sb_clear(&b);
    base_sb_free(&b);
}

static void read_file_errors(void **state) {
    (void)state;
    char *text = NULL;
    size_t len = 0;
    int err = 0;
    assert_false(base_read_file("/nonexistent/x", &text, &len, &err));
    assert_int_equal(err, ENOENT);
    assert_false(base_read_file("/", &text, &len, &err));
    assert_int_equal(err, EISDIR);
    assert_true(base_read_file(__FILE__, &text, &len, &err));
    assert_true(len > 100);
    assert_int_equal(text[len], '\0');
    assert_memory_equal(text, "/*\n * tests/base/test_base.c", 27);
    free(text);
}

/* A regular file lands in the arena whole, NUL-terminated, the same bytes
 * as base_read_file; what is not a regular file gives NULL. */
static void read_file_arena(void **state) {
    (void)state;
    base_arena *a = base_arena_new();
    char *text = NULL;
    size_t len = 0, alen = 0;
    int err = 0;
    assert_true(base_read_file(__FILE__, &text, &len, &err));
    char *in = base_read_file_arena(a, __FILE__, &alen);
    assert_non_null(in);
    assert_int_equal(alen, len);
    assert_memory_equal(in, text, len);
    assert_int_equal(in[alen], '\0');
    free(text);
    assert_null(base_read_file_arena(a, "-", &alen));
    assert_null(base_read_file_arena(a, "/", &alen));
    assert_null(base_read_file_arena(a, "/nonexistent/x", &alen));
    base_arena_free(a);
}

/* The monotonic clock never goes back. */
static void now_monotonic(void **state) {
    (void)state;
    double t0 = base_now();
    for (int i = 0; i < 1000; i++) {
        double t = base_now();
        assert_true(t >= t0);
        t0 = t;
    }
}

static void search_and_compare(void **state) {
    (void)state;
    uint64_t a[] = {9, 3, 3, 1, UINT64_MAX};
    qsort(a, 5, sizeof a[0], base_cmp_u64);
    assert_int_equal(a[0], 1);
    assert_true(a[4] == UINT64_MAX);
    assert_int_equal(base_lower_bound_u64(a, 5, 0), 0);
    assert_int_equal(base_lower_bound_u64(a, 5, 3), 1);
    assert_int_equal(base_lower_bound_u64(a, 5, 4), 3);
    assert_int_equal(base_lower_bound_u64(a, 5, UINT64_MAX), 4);
    assert_int_equal(base_lower_bound_u64(a, 0, 5), 0);
    uint32_t b[] = {8, 4, UINT32_MAX, 2};
    qsort(b, 4, sizeof b[0], base_cmp_u32);
    assert_int_equal(b[0], 2);
    assert_int_equal(b[1], 4);
    assert_true(b[3] == UINT32_MAX);
    b[2] = 4;
    b[3] = 8;
    assert_int_equal(base_lower_bound_u32(b, 4, 4), 1);
    assert_int_equal(base_lower_bound_u32(b, 4, 9), 4);
    const char *s[] = {"b", "ab", "", "a"};
    qsort(s, 4, sizeof s[0], base_cmp_str);
    assert_string_equal(s[0], "");
    assert_string_equal(s[1], "a");
    assert_string_equal(s[3], "b");
    const char *key = "ab";
    assert_ptr_equal(bsearch(&key, s, 4, sizeof s[0], base_cmp_str), &s[2]);
}

/* base_hash_bytes: equal bytes hash equal; 10^5 names that differ only
 * at the end (b_t0, b_t1, ...) spread over 2^17 slots by the low bits
 * (a mask) and by the high bits (a shift), a few to a slot at most. */
static void hash_bytes_spreads(void **state) {
    (void)state;
    assert_true(base_hash_bytes("b_t1", 4) == base_hash_bytes("b_t1x", 4));
    assert_true(base_hash_bytes("b_t1", 4) != base_hash_bytes("b_t2", 4));
    assert_true(base_hash_bytes("", 0) != base_hash_bytes("\0", 1));
    enum { N = 100000, BITS = 17 };
    uint8_t *lo = calloc(1u << BITS, 1), *hi = calloc(1u << BITS, 1);
    unsigned most = 0;
    for (unsigned i = 0; i < N; i++) {
        char name[16];
        int n = snprintf(name, sizeof name, "b_t%u", i);
        uint64_t h = base_hash_bytes(name, (size_t)n);
        unsigned a = ++lo[h & ((1u << BITS) - 1)], b = ++hi[h >> (64 - BITS)];
        most = a > most ? a : most;
        most = b > most ? b : most;
    }
    free(lo);
    free(hi);
    assert_true(most <= 10);
}

static void diag_limit(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    base_diag *d = base_diag_new(mem, 2);
    base_diag_set_source(d, "f.pw", "abc\ndef\n", 8);
    base_diag_report(d, BASE_SEV_ERROR, 2, 2, "bad %s", "e");
    base_diag_report(d, BASE_SEV_WARNING, 0, 0, "w");
    base_diag_report(d, BASE_SEV_ERROR, 1, 1, "second");
    base_diag_report(d, BASE_SEV_ERROR, 1, 1, "third");
    assert_int_equal(base_diag_errors(d), 3);
    assert_int_equal(base_diag_warnings(d), 1);
    base_diag_free(d);
    fclose(mem);
    assert_non_null(strstr(buf, "f.pw:2:2: error: bad e\n"));
    assert_non_null(strstr(buf, "f.pw:1:1: error: second\n"));
    assert_null(strstr(buf, "third"));
    free(buf);
}

/* The reports with no place in the source (base_diag_msg), in another
 * file (base_diag_report_in) and the hint line: exact text, counted with
 * the located reports, under the same limit. */
static void diag_msg(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    base_diag *d = base_diag_new(mem, 3);
    base_diag_set_source(d, "f.pw", "abc\n", 4);
    base_diag_msg(d, BASE_SEV_ERROR, "cannot write %s: %s", "o.c", "EIO");
    base_diag_hint(d, "Run 'planwrap %s --help' for usage.", "fmt");
    base_diag_msg(d, BASE_SEV_WARNING, "w%d", 1);
    base_diag_report_in(d, BASE_SEV_ERROR, "t.mustache", 3, 7, "bad tag");
    base_diag_report_in(d, BASE_SEV_NOTE, "t.mustache", 0, 0, "see %s", "x");
    base_diag_report(d, BASE_SEV_ERROR, 1, 2, "located");
    base_diag_msg(d, BASE_SEV_ERROR, "fourth"); /* over the limit */
    base_diag_hint(d, "hint of the fourth");    /* not printed either */
    base_diag_report_in(d, BASE_SEV_ERROR, "t", 1, 1, "fifth");
    base_diag_msg(d, BASE_SEV_WARNING, "late"); /* after the limit */
    assert_int_equal(base_diag_errors(d), 5);
    assert_int_equal(base_diag_warnings(d), 2);
    base_diag_free(d);
    fclose(mem);
    assert_string_equal(buf, "planwrap: error: cannot write o.c: EIO\n"
                             "Run 'planwrap fmt --help' for usage.\n"
                             "planwrap: warning: w1\n"
                             "t.mustache:3:7: error: bad tag\n"
                             "t.mustache: note: see x\n"
                             "f.pw:1:2: error: located\n"
                             "abc\n"
                             " ^\n"
                             "planwrap: error: too many errors (limit 3), "
                             "stopping\n");
    free(buf);
}

/* A sink without a stream counts and prints nothing; the limit can be
 * changed after the sink is made (check --max-errors). */
static void diag_quiet_and_limit(void **state) {
    (void)state;
    base_diag *q = base_diag_new(NULL, 1);
    base_diag_msg(q, BASE_SEV_ERROR, "a");
    base_diag_msg(q, BASE_SEV_ERROR, "b");
    base_diag_hint(q, "c");
    assert_int_equal(base_diag_errors(q), 2);
    base_diag_free(q);
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    base_diag *d = base_diag_new(mem, 0);
    base_diag_set_max_errors(d, 1);
    base_diag_msg(d, BASE_SEV_ERROR, "one");
    base_diag_msg(d, BASE_SEV_ERROR, "two");
    base_diag_set_max_errors(d, 0); /* the default */
    base_diag_free(d);
    fclose(mem);
    assert_string_equal(buf, "planwrap: error: one\n"
                             "planwrap: error: too many errors (limit 1), "
                             "stopping\n");
    free(buf);
}

static void fprint_ratio(void **state) {
    (void)state;
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    assert_non_null(mem);
    base_fprint_ratio(mem, 5, 4);
    fputc(' ', mem);
    base_fprint_ratio(mem, 0, 0);
    fputc(' ', mem);
    base_fprint_ratio(mem, 7, 0);
    fputc(' ', mem);
    base_fprint_ratio(mem, 2, 3);
    fclose(mem);
    assert_string_equal(buf, "1.250 1.000 inf 0.667");
    free(buf);
}

/* Text of file `path` ("" when it cannot be read: absent). */
static char *slurp(const char *dir, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    char *t;
    size_t n;
    int err;
    return base_read_file(path, &t, &n, &err) ? t : strdup("");
}

/* Files left in dir (temporary files included). */
static int count_files(const char *dir) {
    DIR *d = opendir(dir);
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d)) != NULL;)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n;
}

static void out_atomic(void **state) {
    (void)state;
    char dir[] = "/tmp/pw-test-out.XXXXXX", a[600], b[600];
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/a", dir);
    snprintf(b, sizeof b, "%s/b", dir);
    char *msgs = NULL;
    size_t mlen = 0;
    FILE *mem = open_memstream(&msgs, &mlen);
    assert_non_null(mem);
    base_diag *d = base_diag_new(mem, 0);
    assert_true(base_write_file_atomic(a, "old", 3, d));
    /* written, not committed: the old content stays, beside a temp */
    base_out *o[2] = {base_out_open(a, d), base_out_open(b, d)};
    assert_non_null(o[0]);
    assert_non_null(o[1]);
    fputs("new a", base_out_stream(o[0]));
    fputs("new b", base_out_stream(o[1]));
    char *t = slurp(dir, "a");
    assert_string_equal(t, "old");
    free(t);
    assert_int_equal(count_files(dir), 3);
    assert_true(base_out_commit_all(o, 2, d));
    t = slurp(dir, "a");
    assert_string_equal(t, "new a");
    free(t);
    t = slurp(dir, "b");
    assert_string_equal(t, "new b");
    free(t);
    /* discarded: nothing changes, no temporary file left */
    o[0] = base_out_open(a, d);
    fputs("lost", base_out_stream(o[0]));
    base_out_discard(o[0]);
    t = slurp(dir, "a");
    assert_string_equal(t, "new a");
    free(t);
    assert_int_equal(count_files(dir), 2);
    /* a directory and a missing folder are refused at open, each with
     * one report */
    assert_int_equal(base_diag_errors(d), 0);
    assert_null(base_out_open(dir, d));
    snprintf(a, sizeof a, "%s/none/x", dir);
    assert_null(base_out_open(a, d));
    assert_int_equal(base_diag_errors(d), 2);
    base_diag_free(d);
    fclose(mem);
    char want[1400];
    snprintf(want, sizeof want,
             "planwrap: error: cannot write %s: Is a directory\n"
             "planwrap: error: cannot write %s: No such file or directory\n",
             dir, a);
    assert_string_equal(msgs, want);
    free(msgs);
    snprintf(a, sizeof a, "%s/a", dir);
    unlink(a);
    snprintf(b, sizeof b, "%s/b", dir);
    unlink(b);
    assert_int_equal(rmdir(dir), 0);
}

/* A file written past the size from which blocks are allocated ahead (on
 * ext4, base/out.c): the same bytes, no temporary file left, and on ext4
 * no blocks beyond its end once committed. */
static void out_large(void **state) {
    (void)state;
    char dir[] = "/tmp/pw-test-out.XXXXXX", a[600];
    assert_non_null(mkdtemp(dir));
    snprintf(a, sizeof a, "%s/big", dir);
    base_diag *d = base_diag_new(stderr, 0);
    size_t len = (size_t)3 << 20, piece = 100003;
    char *data = malloc(len);
    assert_non_null(data);
    for (size_t i = 0; i < len; i++)
        data[i] = (char)('a' + (i * 7 + i / 4099) % 26);
    for (int commit = 1; commit >= 0; commit--) {
        base_out *o = base_out_open(a, d);
        assert_non_null(o);
        for (size_t at = 0; at < len; at += piece) {
            size_t n = len - at < piece ? len - at : piece;
            assert_int_equal(fwrite(data + at, 1, n, base_out_stream(o)), n);
        }
        if (!commit) {
            base_out_discard(o);
            break;
        }
        assert_true(base_out_commit(o, d));
    }
    assert_int_equal(count_files(dir), 1);
    FILE *f = fopen(a, "rb");
    assert_non_null(f);
    char *back = malloc(len + 1);
    assert_non_null(back);
    assert_int_equal(fread(back, 1, len + 1, f), len);
    fclose(f);
    assert_memory_equal(back, data, len);
    struct stat st;
    struct statfs sf;
    assert_int_equal(stat(a, &st), 0);
    /* on ext4, the blocks of 3 MiB (it can add an extent block); other
     * file systems may keep blocks beyond the end of their own (XFS) */
    if (statfs(a, &sf) == 0 && sf.f_type == 0xEF53)
        assert_true((size_t)st.st_blocks * 512 <= len + 64 * 1024);
    free(back);
    free(data);
    base_diag_free(d);
    unlink(a);
    assert_int_equal(rmdir(dir), 0);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(arena_zeroed_aligned),
        cmocka_unit_test(arena_window_reset),
        cmocka_unit_test(arena_at_mixed),
        cmocka_unit_test(sb_builds),
        cmocka_unit_test(sb_u64_digits),
        cmocka_unit_test(read_file_errors),
        cmocka_unit_test(read_file_arena),
        cmocka_unit_test(now_monotonic),
        cmocka_unit_test(search_and_compare),
        cmocka_unit_test(hash_bytes_spreads),
        cmocka_unit_test(diag_limit),
        cmocka_unit_test(diag_msg),
        cmocka_unit_test(diag_quiet_and_limit),
        cmocka_unit_test(fprint_ratio),
        cmocka_unit_test(out_atomic),
        cmocka_unit_test(out_large),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * base/diag.c - the diagnostics sink.
 *
 * A report prints `FILE:LINE:COL: SEVERITY: MESSAGE`, then the source line
 * and a caret under the column (like a C compiler).  Long lines are shown
 * as a window around the column; bytes that are not printable (control
 * characters, invalid UTF-8) are shown as '?', so a diagnostic is always
 * one readable line of text whatever the input holds.
 *
 * Every message planwrap prints for the user goes through a sink: located
 * reports in the input (base_diag_report), in another file such as a
 * template (base_diag_report_in), and the ones with no place in a file
 * (base_diag_msg: "planwrap: error: cannot write out.c: ...").  Only the
 * out-of-memory and internal-error aborts of base/fatal.c print directly.
 */
#include "base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Source lines longer than this are shown as a window around the column. */
#define BASE_DIAG_WINDOW 120

struct base_diag {
    FILE *out;
    unsigned max_errors;
    unsigned errors;
    unsigned warnings;
    bool suppressed; /* the last error/warning was not printed */
    bool said_too_many;
    char *filename;
    const char *text;
    size_t len;
    size_t *lines; /* start offset of each line, built on first use */
    size_t nlines;
};

base_diag *base_diag_new(FILE *out, unsigned max_errors) {
    base_diag *d = calloc(1, sizeof *d);
    if (!d)
        base_oom();
    d->out = out;
    d->max_errors = max_errors ? max_errors : BASE_DIAG_DEFAULT_MAX_ERRORS;
    return d;
}

void base_diag_free(base_diag *d) {
    if (!d)
        return;
    free(d->filename);
    free(d->lines);
    free(d);
}

void base_diag_set_source(base_diag *d, const char *filename, const char *text,
                          size_t len) {
    free(d->filename);
    d->filename = NULL;
    if (filename) {
        size_t n = strlen(filename);
        d->filename = malloc(n + 1);
        if (!d->filename)
            base_oom();
        memcpy(d->filename, filename, n + 1);
    }
    d->text = text;
    d->len = len;
    free(d->lines);
    d->lines = NULL;
    d->nlines = 0;
}

unsigned base_diag_errors(const base_diag *d) {
    return d->errors;
}

unsigned base_diag_warnings(const base_diag *d) {
    return d->warnings;
}

static void base_diag_index_lines(base_diag *d) {
    size_t n = 1;
    for (size_t i = 0; i < d->len; i++)
        if (d->text[i] == '\n')
            n++;
    d->lines = malloc(n * sizeof *d->lines);
    if (!d->lines)
        return; /* no quote: the message stands alone (out of memory
                   may be what it reports) */
    size_t k = 0;
    d->lines[k++] = 0;
    for (size_t i = 0; i < d->len; i++)
        if (d->text[i] == '\n')
            d->lines[k++] = i + 1;
    d->nlines = n;
}

size_t base_utf8_decode(const unsigned char *s, size_t n, unsigned *cp) {
    unsigned c = s[0];
    size_t len;
    unsigned min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
        min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        min = 0x10000;
    } else {
        return 0;
    }
    if (n < len)
        return 0;
    unsigned v = c & (0xFFu >> (len + 1));
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (s[i] & 0x3Fu);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

/* Length of the valid UTF-8 sequence at s[0..n), 0 when invalid. */
static size_t base_utf8_len(const unsigned char *s, size_t n) {
    unsigned cp;
    return base_utf8_decode(s, n, &cp);
}

/* Prints the source line and a caret under byte column `col`. */
static void base_diag_quote(base_diag *d, uint32_t line, uint32_t col) {
    if (!d->text)
        return;
    if (!d->lines)
        base_diag_index_lines(d);
    if (!d->lines || line == 0 || line > d->nlines)
        return;
    const unsigned char *s =
        (const unsigned char *)d->text + d->lines[line - 1];
    const unsigned char *end = (const unsigned char *)d->text + d->len;
    const unsigned char *e = memchr(s, '\n', (size_t)(end - s));
    if (!e)
        e = end;
    if (e > s && e[-1] == '\r')
        e--;
    size_t n = (size_t)(e - s);
    size_t c = col > 0 ? col - 1 : 0;
    if (c > n)
        c = n;
    size_t from = 0, to = n;
    if (n > BASE_DIAG_WINDOW) {
        from = c > BASE_DIAG_WINDOW / 2 ? c - BASE_DIAG_WINDOW / 2 : 0;
        to = from + BASE_DIAG_WINDOW < n ? from + BASE_DIAG_WINDOW : n;
        /* Do not start in the middle of a UTF-8 sequence. */
        while (from > 0 && from < n && (s[from] & 0xC0) == 0x80)
            from++;
    }
    const char *pre = from > 0 ? "..." : "";
    fputs(pre, d->out);
    /* The quoted line; remember for each shown byte what the caret line
     * needs (tab, space or nothing for continuation bytes). */
    size_t i = from;
    while (i < to) {
        size_t l = base_utf8_len(s + i, n - i);
        if (l > 1 && i + l <= to) {
            fwrite(s + i, 1, l, d->out);
            i += l;
        } else if (l == 1 && (s[i] == '\t' || (s[i] >= 0x20 && s[i] < 0x7F))) {
            fputc(s[i], d->out);
            i++;
        } else {
            fputc('?', d->out);
            i++;
        }
    }
    if (to < n)
        fputs("...", d->out);
    fputc('\n', d->out);
    fputs(from > 0 ? "   " : "", d->out);
    i = from;
    while (i < c) {
        size_t l = base_utf8_len(s + i, n - i);
        if (l > 1 && i + l <= to) {
            fputc(' ', d->out);
            i += l;
        } else {
            fputc(s[i] == '\t' ? '\t' : ' ', d->out);
            i++;
        }
    }
    fputs("^\n", d->out);
}

void base_diag_set_max_errors(base_diag *d, unsigned max_errors) {
    d->max_errors = max_errors ? max_errors : BASE_DIAG_DEFAULT_MAX_ERRORS;
}

/* Counts a report of severity `sev`; false when it is not to be printed
 * (beyond the error limit, or a note of such a report).  Prints the one
 * "too many errors" line. */
static bool base_diag_count(base_diag *d, base_severity sev) {
    if (sev == BASE_SEV_ERROR) {
        d->errors++;
        if (d->errors > d->max_errors) {
            d->suppressed = true;
            if (!d->said_too_many && d->out) {
                fprintf(d->out,
                        "planwrap: error: too many errors (limit %u), "
                        "stopping\n",
                        d->max_errors);
            }
            d->said_too_many = true;
            return false;
        }
        d->suppressed = false;
    } else if (sev == BASE_SEV_WARNING) {
        d->warnings++;
        d->suppressed = d->said_too_many;
    }
    /* a note follows its report: printed when that one was */
    return !d->suppressed && d->out != NULL;
}

/* "FILE:LINE:COL: SEVERITY: MESSAGE" (line 0: "FILE: SEVERITY: ...")
 * and a newline. */
static void base_diag_line(base_diag *d, base_severity sev, const char *file,
                           uint32_t line, uint32_t col, const char *fmt,
                           va_list ap) {
    static const char *const names[] = {"error", "warning", "note"};
    _Static_assert(sizeof names / sizeof names[0] == BASE_SEV_NOTE + 1,
                   "a name per severity");
    if (line == 0)
        fprintf(d->out, "%s: %s: ", file, names[sev]);
    else
        fprintf(d->out, "%s:%u:%u: %s: ", file, (unsigned)line, (unsigned)col,
                names[sev]);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
}

void base_diag_vreport(base_diag *d, base_severity sev, uint32_t line,
                       uint32_t col, const char *fmt, va_list ap) {
    if (!base_diag_count(d, sev))
        return;
    /* "<input>" only for API callers that give no file name; the CLI
     * always names the file ("<stdin>" for standard input). */
    base_diag_line(d, sev, d->filename ? d->filename : "<input>", line, col,
                   fmt, ap);
    if (line != 0)
        base_diag_quote(d, line, col);
}

void base_diag_report(base_diag *d, base_severity sev, uint32_t line,
                      uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_diag_vreport(d, sev, line, col, fmt, ap);
    va_end(ap);
}

void base_diag_vreport_in(base_diag *d, base_severity sev, const char *file,
                          uint32_t line, uint32_t col, const char *fmt,
                          va_list ap) {
    if (base_diag_count(d, sev))
        base_diag_line(d, sev, file, line, col, fmt, ap);
}

void base_diag_report_in(base_diag *d, base_severity sev, const char *file,
                         uint32_t line, uint32_t col, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_diag_vreport_in(d, sev, file, line, col, fmt, ap);
    va_end(ap);
}

void base_diag_vmsg(base_diag *d, base_severity sev, const char *fmt,
                    va_list ap) {
    base_diag_vreport_in(d, sev, "planwrap", 0, 0, fmt, ap);
}

void base_diag_msg(base_diag *d, base_severity sev, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    base_diag_vmsg(d, sev, fmt, ap);
    va_end(ap);
}

void base_diag_hint(base_diag *d, const char *fmt, ...) {
    if (d->suppressed || !d->out)
        return;
    va_list ap;
    va_start(ap, fmt);
    vfprintf(d->out, fmt, ap);
    va_end(ap);
    fputc('\n', d->out);
}

/* Optimal string alignment distance of a[0..n) and b, stopping early
 * above `cap` (returns cap + 1 then). */
static size_t base_edit_distance(const char *a, size_t n, const char *b,
                                 size_t cap) {
    size_t m = strlen(b);
    if (n > 64 || m > 64 || (n > m ? n - m : m - n) > cap)
        return cap + 1;
    size_t d[65][65];
    for (size_t i = 0; i <= n; i++)
        d[i][0] = i;
    for (size_t j = 0; j <= m; j++)
        d[0][j] = j;
    for (size_t i = 1; i <= n; i++) {
        size_t best = SIZE_MAX;
        for (size_t j = 1; j <= m; j++) {
            size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
            size_t v = d[i - 1][j - 1] + cost;
            if (d[i - 1][j] + 1 < v)
                v = d[i - 1][j] + 1;
            if (d[i][j - 1] + 1 < v)
                v = d[i][j - 1] + 1;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] &&
                a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < v)
                v = d[i - 2][j - 2] + 1; /* a transposition */
            d[i][j] = v;
            if (v < best)
                best = v;
        }
        if (best > cap)
            return cap + 1;
    }
    return d[n][m];
}

size_t base_closest(const char *word, size_t len, const char *const *cands,
                    size_t n) {
    /* close: 1 edit for 3 or 4 bytes, 2 from 5 on */
    size_t cap = len < 3 ? 0 : len < 5 ? 1 : 2;
    size_t best = SIZE_MAX, best_d = cap + 1;
    for (size_t i = 0; i < n; i++) {
        if (!cands[i])
            continue;
        size_t dist = base_edit_distance(word, len, cands[i], cap);
        if (dist < best_d && dist > 0) {
            best_d = dist;
            best = i;
        }
    }
    return best;
}

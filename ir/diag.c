/*
 * ir/diag.c - the diagnostics sink and file reading.
 *
 * A report prints `FILE:LINE:COL: SEVERITY: MESSAGE`, then the source line
 * and a caret under the column (like a C compiler).  Long lines are shown
 * as a window around the column; bytes that are not printable (control
 * characters, invalid UTF-8) are shown as '?', so a diagnostic is always
 * one readable line of text whatever the input holds.
 */
#include "ir/intern.h"
#include "ir/ir.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Source lines longer than this are shown as a window around the column. */
#define IR_DIAG_WINDOW 120

struct ir_diag {
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

ir_diag *ir_diag_new(FILE *out, unsigned max_errors) {
    ir_diag *d = calloc(1, sizeof *d);
    if (!d)
        ir_oom();
    d->out = out;
    d->max_errors = max_errors ? max_errors : 50;
    return d;
}

void ir_diag_free(ir_diag *d) {
    if (!d)
        return;
    free(d->filename);
    free(d->lines);
    free(d);
}

void ir_diag_set_source(ir_diag *d, const char *filename, const char *text,
                        size_t len) {
    free(d->filename);
    d->filename = NULL;
    if (filename) {
        size_t n = strlen(filename);
        d->filename = malloc(n + 1);
        if (!d->filename)
            ir_oom();
        memcpy(d->filename, filename, n + 1);
    }
    d->text = text;
    d->len = len;
    free(d->lines);
    d->lines = NULL;
    d->nlines = 0;
}

unsigned ir_diag_errors(const ir_diag *d) {
    return d->errors;
}

unsigned ir_diag_warnings(const ir_diag *d) {
    return d->warnings;
}

static void ir_diag_index_lines(ir_diag *d) {
    size_t n = 1;
    for (size_t i = 0; i < d->len; i++)
        if (d->text[i] == '\n')
            n++;
    d->lines = malloc(n * sizeof *d->lines);
    if (!d->lines)
        ir_oom();
    size_t k = 0;
    d->lines[k++] = 0;
    for (size_t i = 0; i < d->len; i++)
        if (d->text[i] == '\n')
            d->lines[k++] = i + 1;
    d->nlines = n;
}

size_t ir_utf8_decode(const unsigned char *s, size_t n, unsigned *cp) {
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
static size_t ir_utf8_len(const unsigned char *s, size_t n) {
    unsigned cp;
    return ir_utf8_decode(s, n, &cp);
}

/* Prints the source line and a caret under byte column `col`. */
static void ir_diag_quote(ir_diag *d, uint32_t line, uint32_t col) {
    if (!d->text)
        return;
    if (!d->lines)
        ir_diag_index_lines(d);
    if (line == 0 || line > d->nlines)
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
    if (n > IR_DIAG_WINDOW) {
        from = c > IR_DIAG_WINDOW / 2 ? c - IR_DIAG_WINDOW / 2 : 0;
        to = from + IR_DIAG_WINDOW < n ? from + IR_DIAG_WINDOW : n;
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
        size_t l = ir_utf8_len(s + i, n - i);
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
        size_t l = ir_utf8_len(s + i, n - i);
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

void ir_diag_vreport(ir_diag *d, ir_severity sev, uint32_t line, uint32_t col,
                     const char *fmt, va_list ap) {
    if (sev == IR_SEV_ERROR) {
        d->errors++;
        if (d->errors > d->max_errors) {
            d->suppressed = true;
            if (!d->said_too_many) {
                d->said_too_many = true;
                fprintf(d->out,
                        "planwrap: error: too many errors (limit %u), "
                        "stopping\n",
                        d->max_errors);
            }
            return;
        }
        d->suppressed = false;
    } else if (sev == IR_SEV_WARNING) {
        d->warnings++;
        d->suppressed = d->said_too_many;
        if (d->suppressed)
            return;
    } else if (d->suppressed) {
        return; /* a note of a suppressed report */
    }
    static const char *const names[] = {"error", "warning", "note"};
    /* "<input>" only for API callers that give no file name; the CLI
     * always names the file ("<stdin>" for standard input). */
    const char *file = d->filename ? d->filename : "<input>";
    if (line == 0)
        fprintf(d->out, "%s: %s: ", file, names[sev]);
    else
        fprintf(d->out, "%s:%u:%u: %s: ", file, (unsigned)line, (unsigned)col,
                names[sev]);
    vfprintf(d->out, fmt, ap);
    fputc('\n', d->out);
    if (line != 0)
        ir_diag_quote(d, line, col);
}

void ir_diag_report(ir_diag *d, ir_severity sev, uint32_t line, uint32_t col,
                    const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    ir_diag_vreport(d, sev, line, col, fmt, ap);
    va_end(ap);
}

bool ir_read_file(const char *path, char **text, size_t *len, FILE *err) {
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    /* Standard input is "<stdin>" in every message, as in diagnostics. */
    const char *shown = is_stdin ? "<stdin>" : path;
    if (!f) {
        fprintf(err, "planwrap: error: cannot read %s: %s\n", shown,
                strerror(errno));
        return false;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf)
        ir_oom();
    for (;;) {
        if (cap - n < 2) {
            if (cap > SIZE_MAX / 2)
                ir_oom();
            char *nb = realloc(buf, cap * 2);
            if (!nb)
                ir_oom();
            buf = nb;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0)
            break;
    }
    int saved = errno;
    bool failed = ferror(f) != 0;
    if (!is_stdin)
        fclose(f);
    if (failed) {
        fprintf(err, "planwrap: error: cannot read %s: %s\n", shown,
                strerror(saved ? saved : EIO));
        free(buf);
        return false;
    }
    buf[n] = '\0';
    *text = buf;
    *len = n;
    return true;
}

/*
 * templates/mustache.c - the mustache engine: compile and render.
 *
 * Compilation runs in four passes over the source, none of them recursive:
 *
 *   1. tokenize: text (split after every '\n') and tags, applying set-
 *      delimiter tags as they come;
 *   2. match: pair every {{/x}} with its opener (errors for mismatches);
 *   3. standalone: a line holding only whitespace and one non-interpolation
 *      tag is removed (its indentation kept for partials, parents and
 *      blocks), plus the pairs of the ~inheritance spec;
 *   4. build: the node tree, with adjacent texts merged, and the text of
 *      standalone blocks "dedented" (block indentation is removed at the
 *      site of definition and added at the site of expansion).
 *
 * Rendering walks the tree with a context stack of mst_val values.  Partial
 * indentation is applied at render time: the renderer remembers that it is
 * at the start of a template line (`need_indent`) and writes the current
 * indentation before the next output, so interpolated values are never
 * re-indented, exactly as if the partial's source had been indented.
 *
 * The engine's files are listed in mustache_internal.h.
 */
#include "mustache_internal.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */

void mst_set_error(mst_error *e, const char *source, uint32_t line,
                   uint32_t col, const char *fmt, ...) {
    if (!e)
        return;
    snprintf(e->source, sizeof e->source, "%s", source ? source : "");
    e->line = line;
    e->col = col;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->text, sizeof e->text, fmt, ap);
    va_end(ap);
}

const char *mst_error_format(const mst_error *e, char *buf, size_t size) {
    if (!buf || size == 0)
        return buf;
    if (e->line)
        snprintf(buf, size, "%s:%u:%u: error: %s", e->source, e->line, e->col,
                 e->text);
    else if (e->source[0])
        snprintf(buf, size, "%s: error: %s", e->source, e->text);
    else
        snprintf(buf, size, "error: %s", e->text);
    return buf;
}

/* Finds needle (nlen > 0) in hay[from, hlen); returns offset or SIZE_MAX. */
size_t mst_find(const char *hay, size_t hlen, size_t from, const char *needle,
                size_t nlen) {
    if (nlen == 0 || hlen < nlen)
        return SIZE_MAX;
    size_t last = hlen - nlen;
    while (from <= last) {
        const char *p = memchr(hay + from, needle[0], last - from + 1);
        if (!p)
            return SIZE_MAX;
        size_t at = (size_t)(p - hay);
        if (memcmp(p, needle, nlen) == 0)
            return at;
        from = at + 1;
    }
    return SIZE_MAX;
}

/* Nodes, name parts and merged text live in a base_arena, freed at
 * once. */

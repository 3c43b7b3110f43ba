/*
 * planner/csv.c - minimalloc CSV instances.
 *
 * Grammar (one record a line, `\n` or `\r\n`):
 *   file   = header { row } ;
 *   header = "id,lower,upper,size" ;
 *   row    = ID "," INT "," INT "," INT ;     (blank lines are skipped)
 * ID is printable ASCII without spaces or commas; INT a decimal integer.  The
 * live range [lower, upper) becomes the inclusive [lower, upper - 1]; the
 * times must fit in 32 bits, the size in 63.  Every error names
 * FILE:LINE:COL through ir_diag; all rows are checked, so several errors
 * can be reported at once.  O(n) expected (ids in a hash table).
 */
#include "planner/planner.h"

#include "base/hash.h"

#include <string.h>

typedef struct csv_id {
    const char *name;
    uint32_t line;
    UT_hash_handle hh;
} csv_id;

typedef struct csv_row {
    const char *id;
    uint64_t lower, upper, size;
    uint32_t line;
} csv_row;

/* Parses a decimal integer field [s, e); false when empty, not a number
 * or above `max`. */
static bool csv_int(const char *s, const char *e, uint64_t max, uint64_t *out) {
    if (s == e)
        return false;
    uint64_t v = 0;
    for (const char *p = s; p < e; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

bool plan_read_csv(ir_arena *a, const char *filename, const char *text,
                   size_t len, plan_problem *pb, ir_diag *d) {
    ir_diag_set_source(d, filename, text, len);
    memset(pb, 0, sizeof *pb);
    pb->align = 1;
    unsigned errs0 = ir_diag_errors(d);
    const char *nul = memchr(text, '\0', len);
    if (nul) {
        uint32_t line = 1, col = 1;
        for (const char *p = text; p < nul; p++) {
            if (*p == '\n') {
                line++;
                col = 1;
            } else {
                col++;
            }
        }
        ir_diag_report(d, IR_SEV_ERROR, line, col, "NUL byte in a CSV file");
        return false;
    }
    if (len == 0) {
        ir_diag_report(d, IR_SEV_ERROR, 1, 1,
                       "empty file: expected the header "
                       "'id,lower,upper,size'");
        return false;
    }
    /* count lines for the row array */
    size_t nlines = 1;
    for (size_t i = 0; i < len; i++)
        nlines += text[i] == '\n';
    csv_row *rows = ir_arena_array(a, nlines, sizeof *rows);
    uint32_t nrows = 0;
    csv_id *ids = NULL;

    const char *p = text, *end = text + len;
    uint32_t line = 0;
    bool header = false;
    while (p < end) {
        line++;
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        if (!eol)
            eol = end;
        if (eol > p && eol[-1] == '\r')
            eol--;
        if (!header) {
            static const char want[] = "id,lower,upper,size";
            size_t wl = sizeof want - 1;
            if ((size_t)(eol - p) != wl || memcmp(p, want, wl) != 0) {
                size_t k = 0;
                while (k < wl && p + k < eol && p[k] == want[k])
                    k++;
                ir_diag_report(d, IR_SEV_ERROR, line, (uint32_t)k + 1,
                               "bad header: expected 'id,lower,upper,size'");
                break;
            }
            header = true;
            p = next;
            continue;
        }
        if (eol == p) { /* blank line */
            p = next;
            continue;
        }
        const char *f[5];
        const char *fe[4];
        uint32_t nf = 0;
        f[nf] = p;
        for (const char *q = p; q <= eol; q++) {
            if (q == eol || *q == ',') {
                if (nf < 4)
                    fe[nf] = q;
                nf++;
                if (q == eol || nf > 4)
                    break;
                f[nf] = q + 1;
            }
        }
        if (nf != 4) {
            uint32_t col =
                nf > 4 ? (uint32_t)(fe[3] - p) + 1 : (uint32_t)(eol - p) + 1;
            ir_diag_report(d, IR_SEV_ERROR, line, col,
                           "expected 4 fields (id,lower,upper,size), got %s",
                           nf > 4 ? "more" : "fewer");
            p = next;
            continue;
        }
        csv_row *r = &rows[nrows];
        bool ok = true;
        if (fe[0] == f[0]) {
            ir_diag_report(d, IR_SEV_ERROR, line, 1, "empty id");
            ok = false;
        }
        for (const char *q = f[0]; q < fe[0] && ok; q++)
            if ((unsigned char)*q < 0x21 || (unsigned char)*q > 0x7e) {
                ir_diag_report(d, IR_SEV_ERROR, line, (uint32_t)(q - p) + 1,
                               "bad id: only printable ASCII without spaces "
                               "is allowed");
                ok = false;
            }
        static const char *const what[] = {"lower", "upper", "size"};
        uint64_t v[3] = {0, 0, 0};
        for (int k = 0; k < 3; k++) {
            uint64_t max = k < 2 ? UINT32_MAX : UINT64_C(0x7fffffffffffffff);
            if (!csv_int(f[k + 1], fe[k + 1], max, &v[k])) {
                ir_diag_report(d, IR_SEV_ERROR, line,
                               (uint32_t)(f[k + 1] - p) + 1,
                               "bad %s: expected a decimal integer below "
                               "%llu",
                               what[k], (unsigned long long)max + 1);
                ok = false;
            }
        }
        if (ok && v[0] >= v[1]) {
            ir_diag_report(d, IR_SEV_ERROR, line, (uint32_t)(f[1] - p) + 1,
                           "empty live range: lower %llu is not below upper "
                           "%llu",
                           (unsigned long long)v[0], (unsigned long long)v[1]);
            ok = false;
        }
        if (ok) {
            const char *name =
                ir_arena_strndup(a, f[0], (size_t)(fe[0] - f[0]));
            csv_id *prev = NULL;
            HASH_FIND_STR(ids, name, prev);
            if (prev) {
                ir_diag_report(d, IR_SEV_ERROR, line, 1,
                               "duplicate id '%s' (first on line %u)", name,
                               (unsigned)prev->line);
                ok = false;
            } else {
                csv_id *e = ir_arena_alloc(a, sizeof *e);
                e->name = name;
                e->line = line;
                HASH_ADD_KEYPTR(hh, ids, e->name, strlen(e->name), e);
                r->id = name;
            }
        }
        if (ok) {
            r->lower = v[0];
            r->upper = v[1];
            r->size = v[2];
            r->line = line;
            nrows++;
        }
        p = next;
    }
    HASH_CLEAR(hh, ids);
    if (!header && ir_diag_errors(d) == errs0)
        ir_diag_report(d, IR_SEV_ERROR, 1, 1,
                       "empty file: expected the header "
                       "'id,lower,upper,size'");
    if (ir_diag_errors(d) != errs0)
        return false;
    pb->n = nrows;
    pb->bufs = ir_arena_array(a, nrows ? nrows : 1, sizeof *pb->bufs);
    pb->names = ir_arena_array(a, nrows ? nrows : 1, sizeof *pb->names);
    for (uint32_t i = 0; i < nrows; i++) {
        plan_buf *b = &pb->bufs[i];
        b->size = rows[i].size;
        b->align = 1;
        b->start = (uint32_t)rows[i].lower;
        b->end = (uint32_t)(rows[i].upper - 1);
        b->reuse_key = rows[i].size;
        b->color = -1;
        pb->names[i] = rows[i].id;
    }
    return true;
}

/*
 * ir/check_fw.c - the firmware rules of the checker (docs/firmware.md):
 * spill chains of memory spaces, `state ... next=`, and the weight files
 * of `const ... data="FILE" at=OFFSET`.
 *
 * These rules look across the whole program (a space may spill into one
 * declared later; next= names an output defined later), so they run after
 * ir_check's main pass.  Spaces and states are few: their lookups are
 * linear scans (names are compared by content, so a program built by hand
 * needs no interning).
 */
#include "base/base.h"
#include "intern.h"
#include "ir/ir.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static void fw_err(base_diag *d, ir_loc loc, unsigned *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void fw_err(base_diag *d, ir_loc loc, unsigned *n, const char *fmt,
                   ...) {
    va_list ap;
    va_start(ap, fmt);
    base_diag_vreport(d, BASE_SEV_ERROR, loc.line, loc.col, fmt, ap);
    va_end(ap);
    (*n)++;
}

/* The data file's path: as written when absolute or when the IR came
 * from standard input, else relative to the IR file's folder. */
static char *fw_data_path(ir_program *p, const char *data) {
    const char *f = p->filename;
    const char *slash = f ? strrchr(f, '/') : NULL;
    if (data[0] == '/' || !slash || strcmp(f, "<stdin>") == 0)
        return base_arena_strdup(p->arena, data);
    return base_arena_printf(p->arena, "%.*s%s", (int)(slash - f + 1), f, data);
}

unsigned ir_check_fw_data(ir_program *p, base_diag *d, const ir_stmt *st,
                          ir_value *v) {
    unsigned n = 0;
    const ir_fw_attrs *fw = st->fw;
    char *path = fw_data_path(p, fw->data);
    struct stat sb;
    if (stat(path, &sb) != 0) {
        fw_err(d, fw->data_loc, &n, "cannot open data file '%s': %s", path,
               strerror(errno));
        return n;
    }
    if (!S_ISREG(sb.st_mode)) {
        fw_err(d, fw->data_loc, &n, "data file '%s' is not a regular file",
               path);
        return n;
    }
    uint64_t size = sb.st_size > 0 ? (uint64_t)sb.st_size : 0;
    uint64_t at = fw->has_at ? fw->at : 0;
    if (at > size || v->bytes > size - at) {
        fw_err(d, fw->has_at ? fw->at_loc : fw->data_loc, &n,
               "'%s' needs %" PRIu64 " bytes at offset %" PRIu64
               " of data file '%s' but the file has %" PRIu64 " bytes",
               v->name, v->bytes, at, path, size);
        return n;
    }
    v->data_path = path;
    v->data_at = at;
    return n;
}

static int32_t fw_find_space(const ir_program *p, const char *name) {
    for (uint32_t i = 0; i < p->nspaces; i++)
        if (strcmp(p->spaces[i].name, name) == 0)
            return (int32_t)i;
    return -1;
}

/* Reports the cycle through space `first` (its lowest-numbered space). */
static void fw_report_cycle(ir_program *p, base_diag *d, int32_t first,
                            unsigned *n) {
    size_t len = 0, cap = 256;
    char *buf = malloc(cap);
    if (!buf)
        base_oom();
    buf[0] = '\0';
    int32_t k = first;
    do {
        const char *name = p->spaces[k].name;
        size_t need = len + strlen(name) + 8;
        if (need > cap) {
            cap = need * 2;
            buf = realloc(buf, cap);
            if (!buf)
                base_oom();
        }
        len += (size_t)snprintf(buf + len, cap - len, "'%s' -> ", name);
        k = p->spaces[k].spill;
    } while (k != first);
    const ir_stmt *st = &p->stmts[p->spaces[first].stmt];
    fw_err(d, st->fw->spill.loc, n, "spill cycle: %s'%s'", buf,
           p->spaces[first].name);
    free(buf);
}

unsigned ir_check_fw_spills(ir_program *p, base_diag *d, bool lost_spaces) {
    unsigned n = 0;
    bool any = false;
    for (uint32_t i = 0; i < p->nspaces; i++) {
        ir_space *s = &p->spaces[i];
        const ir_stmt *st = &p->stmts[s->stmt];
        s->spill = -1;
        if (st->broken || !st->fw || !st->fw->spill.name)
            continue;
        s->spill = fw_find_space(p, st->fw->spill.name);
        if (s->spill < 0 && !lost_spaces)
            fw_err(d, st->fw->spill.loc, &n, "undeclared memory space '%s'",
                   st->fw->spill.name);
        any = true;
    }
    if (!any)
        return n;
    /* Each space has at most one spill target: a walk from every space
     * either ends or enters a cycle.  colour: walk number, 0 unvisited. */
    uint32_t *colour = calloc(p->nspaces + 1, sizeof *colour);
    if (!colour)
        base_oom();
    for (uint32_t i = 0; i < p->nspaces; i++) {
        int32_t k = (int32_t)i;
        while (k >= 0 && !colour[k]) {
            colour[k] = i + 1;
            k = p->spaces[k].spill;
        }
        if (k < 0 || colour[k] != i + 1)
            continue;
        int32_t first = k;
        for (int32_t j = p->spaces[k].spill; j != k; j = p->spaces[j].spill)
            if (j < first)
                first = j;
        fw_report_cycle(p, d, first, &n);
    }
    free(colour);
    if (n)
        for (uint32_t i = 0; i < p->nspaces; i++)
            p->spaces[i].spill = -1; /* no chain the planner could loop on */
    return n;
}

static bool fw_same_type(const ir_value *a, const ir_value *b) {
    if (a->dtype != b->dtype || a->ndim != b->ndim ||
        a->nstrides != b->nstrides || a->bytes != b->bytes)
        return false;
    for (uint32_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i])
            return false;
    for (uint32_t i = 0; i < a->nstrides; i++)
        if (a->strides[i] != b->strides[i])
            return false;
    return true;
}

static bool fw_same_place(const ir_value *a, const ir_value *b) {
    const char *sa = a->space ? a->space : "", *sb = b->space ? b->space : "";
    return a->device.kind == b->device.kind &&
           a->device.index == b->device.index && strcmp(sa, sb) == 0;
}

/* Checks the next= of state `h`; returns the output's value id or -1. */
static int32_t fw_check_next(ir_program *p, base_diag *d, const ir_value *h,
                             const ir_ident *next, const bool *poisoned,
                             bool lost, unsigned *n) {
    int32_t y = ir_find_value(p, next->name);
    if (y < 0 && lost)
        return -1;
    if (y < 0) {
        fw_err(d, next->loc, n, "next= of state '%s' names undefined '%s'",
               h->name, next->name);
        return -1;
    }
    const ir_value *v = &p->values[y];
    if (poisoned && poisoned[y])
        return -1;
    if (v->kind != IR_VAL_ALLOC) {
        fw_err(d, next->loc, n,
               "next= of state '%s' must name an alloc but '%s' is %s", h->name,
               next->name,
               v->kind == IR_VAL_ALIAS   ? "an alias"
               : v->kind == IR_VAL_INPUT ? "an input"
               : v->kind == IR_VAL_CONST ? "a const"
                                         : "a state");
    } else if (v->output_index < 0) {
        fw_err(d, next->loc, n,
               "next= of state '%s' must name an output but '%s' is not one",
               h->name, next->name);
    } else if (!fw_same_type(h, v)) {
        fw_err(d, next->loc, n,
               "'%s' (next= of state '%s') must have the state's type and "
               "strides",
               next->name, h->name);
    } else if (!fw_same_place(h, v) || v->comm) {
        fw_err(d, next->loc, n,
               "'%s' (next= of state '%s') must be on the state's device and "
               "in its memory space",
               next->name, h->name);
    } else if (v->next_of >= 0) {
        fw_err(d, next->loc, n, "'%s' is already next= of state '%s'",
               next->name, p->values[v->next_of].name);
    } else {
        return y;
    }
    return -1;
}

unsigned ir_check_fw_states(ir_program *p, base_diag *d, const bool *poisoned,
                            bool lost_values) {
    unsigned n = 0;
    for (uint32_t i = 0; i < p->nvalues; i++) {
        ir_value *h = &p->values[i];
        const ir_stmt *st = &p->stmts[h->def];
        if (h->kind != IR_VAL_STATE || st->broken || !st->fw ||
            !st->fw->next.name || (poisoned && poisoned[i]))
            continue;
        int32_t y =
            fw_check_next(p, d, h, &st->fw->next, poisoned, lost_values, &n);
        if (y >= 0) {
            h->state_next = y;
            p->values[y].next_of = (int32_t)i;
        }
    }
    return n;
}

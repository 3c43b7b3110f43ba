/*
 * codegen/picture.c - `planwrap plan --emit svg`: the plan as a picture
 * (docs/pictures.md).
 *
 * One panel per pool (a row) and per plan (a column, --compare-algos):
 * x is time (statements, labelled with their IR lines), y the byte offset
 * (0 at the bottom, one scale per row); a rectangle per storage with a
 * <title> tooltip, views as dashed rectangles inside their storage, the
 * live bytes (the lower bound over time) as a line, the pool size as a
 * dashed line, the peak statement marked.  Names are written only where
 * they fit, so 10,000 storages stay readable as thin rectangles.
 *
 * The SVG is written with fprintf into an open_memstream builder, in IR
 * and storage order only: deterministic, and linear in the number of
 * storages, views and statements (plus the call arguments, once).
 */
#include "picture.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

enum {
    PIC_ML = 84,  /* left margin: y labels */
    PIC_MR = 28,  /* right margin */
    PIC_MT = 46,  /* panel title and peak label */
    PIC_MB = 34,  /* x labels */
    PIC_PH = 260, /* plot height */
    PIC_HEAD = 62 /* picture title and legend */
};

#define PIC_NCOLORS 10

static double pic_pw(const pic_set *ps) {
    return ps->nplans > 1 ? 560.0 : 900.0;
}

void pic_esc(FILE *f, const char *s) {
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", f);
            break;
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        default:
            fputc(*s, f);
        }
    }
}

void pic_commas(FILE *f, uint64_t v) {
    char d[32];
    int n = snprintf(d, sizeof d, "%" PRIu64, v);
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0)
            fputc(',', f);
        fputc(d[i], f);
    }
}

/* The binary units of byte counts (2^64 is 16 EiB). */
static const char *const pic_units[] = {"B",   "KiB", "MiB", "GiB",
                                        "TiB", "PiB", "EiB"};
#define PIC_NUNITS (unsigned)(sizeof pic_units / sizeof pic_units[0])

/* "512 B", "1.5 KiB", "24 MiB": for axis labels. */
static void pic_human(FILE *f, uint64_t v) {
    double x = (double)v;
    unsigned u = 0;
    while (x >= 1024.0 && u < PIC_NUNITS - 1) {
        x /= 1024.0;
        u++;
    }
    if (u == 0 || x >= 100.0 || x == (double)(uint64_t)x)
        fprintf(f, "%.0f %s", x, pic_units[u]);
    else
        fprintf(f, "%.1f %s", x, pic_units[u]);
}

void pic_kernel_list(FILE *f, const pic_kernels *k) {
    for (unsigned i = 0; i < k->n; i++) {
        fputs(i ? ", " : "", f);
        pic_esc(f, k->name[i]);
    }
    if (k->more)
        fputs(", ...", f);
    if (k->n == 0)
        fputs("none", f);
}

/* 1, 2 or 5 times a power of ten, at least `raw` (and at least 1). */
static uint64_t pic_nice(uint64_t raw) {
    uint64_t p = 1;
    while (p <= UINT64_MAX / 10 && p * 10 <= raw)
        p *= 10;
    if (raw <= p)
        return p;
    if (raw <= 2 * p)
        return 2 * p;
    if (raw <= 5 * p)
        return 5 * p;
    return p <= UINT64_MAX / 10 ? 10 * p : p;
}

/* The y axis: the unit (a power of 1024 not above ymax) and a step of
 * about a fifth of ymax, 1, 2 or 5 times a power of ten of that unit
 * (0.5 MiB, 2 MiB, 20 KiB...), in bytes (at least 1). */
static uint64_t pic_ystep(uint64_t ymax, unsigned *unit) {
    double u = 1;
    *unit = 0;
    while (*unit < PIC_NUNITS - 1 && (double)ymax >= u * 1024) {
        u *= 1024;
        (*unit)++;
    }
    double raw = (double)ymax / 5 / u, p = 1;
    while (p * 10 <= raw)
        p *= 10;
    while (p > raw && p > 1e-3)
        p /= 10;
    double m = raw / p;
    double step = (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * p * u;
    return step < 1 ? 1 : (uint64_t)(step + 0.5);
}

static void pic_ylabel(FILE *f, uint64_t b, unsigned unit) {
    double x = (double)b;
    for (unsigned i = 0; i < unit; i++)
        x /= 1024;
    char buf[48];
    snprintf(buf, sizeof buf, "%.2f", x);
    size_t n = strlen(buf); /* "1.50" -> "1.5", "2.00" -> "2" */
    while (n && buf[n - 1] == '0')
        buf[--n] = '\0';
    if (n && buf[n - 1] == '.')
        buf[--n] = '\0';
    if (b == 0)
        fputs("0", f);
    else
        fprintf(f, "%s %s", buf, pic_units[unit]);
}

/* The geometry of one panel. */
typedef struct pic_geo {
    double x0, y0; /* top left of the plot area */
    double pw;     /* plot width */
    uint32_t nst;  /* statements on the x axis (at least 1) */
    uint64_t ymax; /* bytes at the top of the plot (at least 1) */
} pic_geo;

static double pic_x(const pic_geo *g, uint64_t t) {
    return g->x0 + (double)t * g->pw / (double)g->nst;
}

static double pic_y(const pic_geo *g, uint64_t b) {
    return g->y0 + PIC_PH - (double)b * PIC_PH / (double)g->ymax;
}

static uint32_t pic_line(const ir_program *p, uint32_t stmt) {
    return stmt < p->nstmts ? p->stmts[stmt].loc.line : 0;
}

/* Live bytes of pool `pi` at every statement (sizes rounded up to the
 * pool alignment, as the lower bound counts them); returns the first
 * statement of the peak.  live has nst + 1 entries. */
static uint32_t pic_live(const plan *pl, uint32_t pi, uint64_t *live,
                         uint32_t nst) {
    uint64_t a = pl->pools[pi].align ? pl->pools[pi].align : 1;
    int64_t *d = (int64_t *)live; /* difference array, then prefix sums */
    memset(live, 0, ((size_t)nst + 1) * sizeof *live);
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        if (st->pool != (int32_t)pi || st->start >= nst)
            continue;
        uint64_t sz = (st->size + a - 1) / a * a;
        d[st->start] += (int64_t)sz;
        d[st->end < nst ? st->end + 1 : nst] -= (int64_t)sz;
    }
    uint32_t peak = 0;
    int64_t run = 0;
    for (uint32_t t = 0; t < nst; t++) {
        run += d[t];
        live[t] = (uint64_t)run;
        if (live[t] > live[peak])
            peak = t;
    }
    return peak;
}

static void pic_pool_title(FILE *f, const plan *pl, uint32_t pi,
                           const char *label) {
    const plan_pool *pool = &pl->pools[pi];
    char dev[32];
    pic_esc(f, label);
    fputs(": pool ", f);
    pic_esc(f, pool->name);
    fprintf(f, " (%s", ir_device_str(pool->device, dev, sizeof dev));
    if (pool->space) {
        fputs(", space ", f);
        pic_esc(f, pool->space);
        if (pool->has_capacity) {
            fputs(" capacity ", f);
            pic_commas(f, pool->capacity);
        }
    }
    if (pool->comm) {
        fputs(", communication ", f);
        pic_esc(f, pool->comm);
        fputs(" group ", f);
        pic_esc(f, pool->group);
    }
    if (pool->outputs)
        fputs(", outputs", f);
    fputs("): size ", f);
    pic_commas(f, pool->size);
    fputs(" B, lower bound ", f);
    pic_commas(f, pool->lower_bound);
    fputs(" B, naive ", f);
    pic_commas(f, pool->naive_size);
    fprintf(f, " B, %" PRIu32 " buffer%s", pool->nstorages,
            pool->nstorages == 1 ? "" : "s");
}

static void pic_axes(FILE *f, const pic_geo *g, const ir_program *p) {
    fprintf(f,
            "<rect class=\"bg\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
            "height=\"%d\"/>\n",
            g->x0, g->y0, g->pw, PIC_PH);
    unsigned unit;
    uint64_t ys = pic_ystep(g->ymax, &unit);
    for (uint64_t b = 0; b <= g->ymax; b += ys) {
        double y = pic_y(g, b);
        fprintf(f,
                "<line class=\"grid\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                "y2=\"%.2f\"/><text class=\"yl\" x=\"%.2f\" y=\"%.2f\">",
                g->x0, y, g->x0 + g->pw, y, g->x0 - 4, y + 3.5);
        pic_ylabel(f, b, unit);
        fputs("</text>\n", f);
        if (b > UINT64_MAX - ys)
            break;
    }
    double per = g->pw / g->nst;
    uint32_t xs = (uint32_t)pic_nice((uint64_t)(70.0 / per) + 1);
    for (uint32_t t = 0; t < g->nst; t += xs) {
        double x = pic_x(g, t) + per / 2;
        fprintf(f,
                "<line class=\"ax\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
                "y2=\"%.2f\"/><text class=\"xl\" x=\"%.2f\" y=\"%.2f\">"
                "L%" PRIu32 "</text>\n",
                x, g->y0 + PIC_PH, x, g->y0 + PIC_PH + 4, x,
                g->y0 + PIC_PH + 15, pic_line(p, t));
        if (t > UINT32_MAX - xs)
            break;
    }
    fprintf(f,
            "<text class=\"xt\" x=\"%.2f\" y=\"%.2f\">IR line "
            "(statements in order)</text>\n",
            g->x0 + g->pw / 2, g->y0 + PIC_PH + 29);
}

/* The <title> of storage s. */
static void pic_storage_title(FILE *f, const pic_set *ps, const plan *pl,
                              uint32_t s) {
    const plan_storage *st = &pl->storages[s];
    const ir_program *p = pl->prog;
    fputs("<title>", f);
    pic_esc(f, p->values[st->value].name);
    fputs(": ", f);
    pic_commas(f, st->size);
    fputs(" bytes at offset ", f);
    pic_commas(f, st->offset);
    fprintf(f,
            "\nlive lines %" PRIu32 "-%" PRIu32 " (statements %" PRIu32
            "-%" PRIu32 ")%s\nkernels: ",
            pic_line(p, st->start), pic_line(p, st->end), st->start, st->end,
            st->is_output ? ", output" : "");
    pic_kernel_list(f, &ps->kern[s]);
    fputs("</title>", f);
}

static void pic_storages(FILE *f, const pic_set *ps, const plan *pl,
                         uint32_t pi, const pic_geo *g) {
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        if (st->pool != (int32_t)pi || st->size == 0)
            continue;
        double x = pic_x(g, st->start), w = pic_x(g, st->end + 1) - x;
        double top = pic_y(g, st->offset + st->size);
        double h = pic_y(g, st->offset) - top;
        if (h < 0.6) {
            top -= (0.6 - h) / 2;
            h = 0.6;
        }
        fprintf(f,
                "<rect class=\"b c%u\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                "height=\"%.2f\">",
                (unsigned)(s % PIC_NCOLORS), x, top, w, h);
        pic_storage_title(f, ps, pl, s);
        fputs("</rect>\n", f);
        const char *name = pl->prog->values[st->value].name;
        if (w >= 6.2 * (double)strlen(name) + 4 && h >= 11) {
            fprintf(f, "<text class=\"n\" x=\"%.2f\" y=\"%.2f\">", x + 2,
                    top + h / 2 + 3.5);
            pic_esc(f, name);
            fputs("</text>\n", f);
        }
    }
}

/* Views (aliases) as dashed rectangles inside their storage, over their
 * own live statements. */
static void pic_views(FILE *f, const plan *pl, uint32_t pi, const pic_geo *g) {
    const ir_program *p = pl->prog;
    for (uint32_t v = 0; v < p->nvalues; v++) {
        const ir_value *val = &p->values[v];
        int32_t s = pl->storage_of_value[v];
        if (val->kind != IR_VAL_ALIAS || s < 0 ||
            pl->storages[s].pool != (int32_t)pi || val->bytes == 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        uint32_t end = val->freed_at >= 0 ? (uint32_t)val->freed_at : st->end;
        uint64_t lo = st->offset + val->byte_offset;
        double x = pic_x(g, val->def), w = pic_x(g, end + 1) - x;
        double top = pic_y(g, lo + val->bytes), h = pic_y(g, lo) - top;
        fprintf(f,
                "<rect class=\"v\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
                "height=\"%.2f\"><title>view ",
                x, top, w, h < 0.6 ? 0.6 : h);
        pic_esc(f, val->name);
        fputs(" of ", f);
        pic_esc(f, p->values[st->value].name);
        fputs(": ", f);
        pic_commas(f, val->bytes);
        fputs(" bytes at +", f);
        pic_commas(f, val->byte_offset);
        fprintf(f, "\nlive lines %" PRIu32 "-%" PRIu32 "</title></rect>\n",
                pic_line(p, val->def), pic_line(p, end));
    }
}

/* The live-bytes step line.  With more statements than pixels, each
 * pixel column shows the highest live bytes of its statements (the upper
 * envelope: the peaks stay visible, the path stays short). */
static void pic_live_path(FILE *f, const pic_geo *g, const uint64_t *live) {
    uint32_t cols = g->nst, per = 1;
    if ((double)g->nst > g->pw) {
        cols = (uint32_t)g->pw;
        per = (g->nst + cols - 1) / cols;
        cols = (g->nst + per - 1) / per;
    }
    uint64_t prev = 0;
    for (uint32_t c = 0; c < cols; c++) {
        uint64_t m = 0;
        for (uint32_t t = c * per; t < g->nst && t < (c + 1) * per; t++)
            m = live[t] > m ? live[t] : m;
        if (c == 0)
            fprintf(f, "<path class=\"live\" d=\"M%.2f %.2f", pic_x(g, 0),
                    pic_y(g, m));
        else if (m != prev)
            fprintf(f, "H%.2fV%.2f", pic_x(g, (uint64_t)c * per), pic_y(g, m));
        prev = m;
    }
    fprintf(f,
            "H%.2f\"><title>live bytes (lower bound over time)</title>"
            "</path>\n",
            pic_x(g, g->nst));
}

/* The live-bytes line, the pool size and the peak. */
static void pic_curves(FILE *f, const plan *pl, uint32_t pi, const pic_geo *g,
                       uint64_t *live) {
    uint32_t peak = pic_live(pl, pi, live, g->nst);
    pic_live_path(f, g, live);
    double ys = pic_y(g, pl->pools[pi].size);
    fprintf(f,
            "<line class=\"size\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
            "y2=\"%.2f\"/><text class=\"sl\" x=\"%.2f\" y=\"%.2f\">pool ",
            g->x0, ys, g->x0 + g->pw, ys, g->x0 + g->pw - 3, ys + 11);
    pic_human(f, pl->pools[pi].size);
    fputs("</text>\n", f);
    double xp = (pic_x(g, peak) + pic_x(g, peak + 1)) / 2;
    fprintf(f,
            "<line class=\"peak\" x1=\"%.2f\" y1=\"%.2f\" x2=\"%.2f\" "
            "y2=\"%.2f\"/><text class=\"pl%s\" x=\"%.2f\" y=\"%.2f\">peak "
            "L%" PRIu32 ": ",
            xp, g->y0 - 2, xp, g->y0 + PIC_PH,
            xp > g->x0 + g->pw * 0.7 ? " e" : "", xp, g->y0 - 5,
            pic_line(pl->prog, peak));
    pic_human(f, live[peak]);
    fputs("</text>\n", f);
}

static void pic_panel(FILE *f, const pic_set *ps, uint32_t col, uint32_t pi,
                      const pic_geo *g, uint64_t *live) {
    const plan *pl = ps->plans[col];
    /* thin rectangles: no white borders, a thinner live line */
    fprintf(f,
            "<g class=\"panel%s\">\n<text class=\"pt\" x=\"%.2f\" "
            "y=\"%.2f\">",
            (double)g->nst > g->pw ? " dense" : "", g->x0 - PIC_ML + 8,
            g->y0 - 22);
    pic_pool_title(f, pl, pi, ps->labels[col]);
    fputs("</text>\n", f);
    pic_axes(f, g, pl->prog);
    pic_storages(f, ps, pl, pi, g);
    pic_views(f, pl, pi, g);
    pic_curves(f, pl, pi, g, live);
    fputs("</g>\n", f);
}

static const char pic_style[] =
    "<style>\n"
    "text{font-family:DejaVu Sans,Verdana,sans-serif;font-size:10px;"
    "fill:#222}\n"
    ".h{font-size:15px;font-weight:bold}.pt{font-size:11px;"
    "font-weight:bold}\n"
    ".yl{text-anchor:end}.xl,.xt{text-anchor:middle}.xt{fill:#555}\n"
    ".n{font-size:9px;fill:#111}.sl{text-anchor:end;fill:#b03a2e}"
    ".pl{fill:#c0621a}.e{text-anchor:end}\n"
    ".bg{fill:#fafafa;stroke:#999}.grid{stroke:#e4e4e4}.ax{stroke:#777}\n"
    ".b{stroke:#fff;stroke-width:.4}.b:hover{stroke:#000;stroke-width:1}\n"
    ".v{fill:none;stroke:#333;stroke-width:.8;stroke-dasharray:3 2}\n"
    ".live{fill:none;stroke:#1f4e9c;stroke-width:1.6}\n"
    ".size{stroke:#b03a2e;stroke-width:1.2;stroke-dasharray:6 3}\n"
    ".peak{stroke:#e67e22;stroke-width:1.2}\n"
    ".dense .b{stroke:none}.dense .live{stroke-width:1}\n"
    ".c0{fill:#8ecae6}.c1{fill:#ffb703}.c2{fill:#95d5b2}.c3{fill:#f4a6a6}"
    ".c4{fill:#b8b5ff}\n.c5{fill:#ffd6a5}.c6{fill:#a0c4ff}.c7{fill:#caffbf}"
    ".c8{fill:#e9c46a}.c9{fill:#d3b8ae}\n"
    "</style>\n";

static void pic_header(FILE *f, const pic_set *ps, double width) {
    const plan *pl = ps->plans[0];
    fputs("<text class=\"h\" x=\"8\" y=\"20\">model ", f);
    pic_esc(f, pl->prog->model ? pl->prog->model : "?");
    fprintf(f,
            ": memory pool %s, %" PRIu32 " pool%s, %" PRIu32
            " storage%s</text>\n",
            plan_memory_pool_name(pl->opts.memory_pool), pl->npools,
            pl->npools == 1 ? "" : "s", pl->nstorages,
            pl->nstorages == 1 ? "" : "s");
    fprintf(f, "<text x=\"8\" y=\"40\">x: statements (IR lines); y: byte "
               "offset. Rectangles: storages (hover for details); dashed: "
               "views; <tspan fill=\"#1f4e9c\">blue: live bytes</tspan>; "
               "<tspan fill=\"#b03a2e\">red dashed: pool size</tspan>; "
               "<tspan fill=\"#c0621a\">orange: peak</tspan>.</text>\n");
    (void)width;
}

void pic_svg(FILE *f, const pic_set *ps, bool standalone) {
    const plan *pl0 = ps->plans[0];
    double pw = pic_pw(ps), colw = PIC_ML + pw + PIC_MR;
    double rowh = PIC_MT + PIC_PH + PIC_MB;
    uint32_t rows = pl0->npools ? pl0->npools : 1;
    double width = colw * ps->nplans, height = PIC_HEAD + rowh * rows;
    if (standalone)
        fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
            "height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n",
            width, height, width, height);
    fputs(pic_style, f);
    fputs("<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n", f);
    pic_header(f, ps, width);
    uint32_t nst = pl0->prog->nstmts ? pl0->prog->nstmts : 1;
    uint64_t *live = malloc(((size_t)nst + 1) * sizeof *live);
    if (pl0->npools == 0 || !live)
        fprintf(f, "<text x=\"8\" y=\"%d\">%s</text>\n", PIC_HEAD + 20,
                live ? "no pooled storage to draw"
                     : "out of memory while drawing");
    for (uint32_t pi = 0; live && pi < pl0->npools; pi++) {
        uint64_t ymax = 1;
        for (uint32_t c = 0; c < ps->nplans; c++)
            if (ps->plans[c]->pools[pi].size > ymax)
                ymax = ps->plans[c]->pools[pi].size;
        for (uint32_t c = 0; c < ps->nplans; c++) {
            pic_geo g = {colw * c + PIC_ML, PIC_HEAD + rowh * pi + PIC_MT, pw,
                         nst, ymax};
            pic_panel(f, ps, c, pi, &g, live);
        }
    }
    free(live);
    fputs("</svg>\n", f);
}

/*
 * codegen/picture.h - internal to the picture writer (picture.c,
 * picture_html.c): what both the SVG and the HTML page need.
 */
#ifndef PLANWRAP_PICTURE_H
#define PLANWRAP_PICTURE_H

#include "codegen/codegen.h"

#include <stdint.h>
#include <stdio.h>

/* The kernels that touch each storage (through any of its names): up to
 * PIC_MAX_KERNELS distinct names in order of first call, `more` when
 * there were others. */
#define PIC_MAX_KERNELS 6
typedef struct pic_kernels {
    const char *name[PIC_MAX_KERNELS];
    uint8_t n;
    bool more;
} pic_kernels;

/* What a picture shows: plans of one program (same storages and pools),
 * side by side, one label each (the algorithm's name). */
typedef struct pic_set {
    const plan *const *plans;
    const char *const *labels;
    uint32_t nplans;
    pic_kernels *kern; /* per storage */
} pic_set;

/* Writes s with &, <, >, " escaped (XML and HTML text and attributes). */
void pic_esc(FILE *f, const char *s);
/* "1,234,567" */
void pic_commas(FILE *f, uint64_t v);
/* Writes the kernels of `k` as "a, b, c" (and ", ..." when more). */
void pic_kernel_list(FILE *f, const pic_kernels *k);
/* Writes the whole <svg> element (`standalone`: with the XML declaration
 * and namespace). */
void pic_svg(FILE *f, const pic_set *ps, bool standalone);
/* Writes the HTML page: the picture and a sortable table of buffers. */
void pic_html(FILE *f, const pic_set *ps);

#endif /* PLANWRAP_PICTURE_H */

/*
 * codegen/picture_html.c - `planwrap plan --emit html` (the picture and a
 * sortable table of buffers in one self-contained page: inline style and
 * script, no network), and the entry point of both pictures,
 * cg_picture_emit, which plans the --compare-algos algorithms.
 */
#include "picture.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PIC_MAX_ALGOS 16

static void pic_add_kernel(pic_kernels *k, const char *name) {
    for (unsigned i = 0; i < k->n; i++)
        if (strcmp(k->name[i], name) == 0)
            return;
    if (k->n < PIC_MAX_KERNELS)
        k->name[k->n++] = name;
    else
        k->more = true;
}

/* The kernels that touch each storage, from the calls in IR order. */
static pic_kernels *pic_find_kernels(const plan *pl) {
    pic_kernels *k = base_xcalloc((size_t)pl->nstorages + 1, sizeof *k);
    const ir_program *p = pl->prog;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        if (st->kind != IR_CALL)
            continue;
        for (uint32_t a = 0; a < st->nargs; a++) {
            int32_t v = st->args[a].value;
            int32_t s = v >= 0 ? pl->storage_of_value[v] : -1;
            if (s >= 0)
                pic_add_kernel(&k[s], st->name.name);
        }
    }
    return k;
}

static const char pic_script[] =
    "<script>\n"
    "(function(){var t=document.getElementById('bufs');\n"
    "var hs=t.tHead.rows[0].cells,dir=[];\n"
    "for(var i=0;i<hs.length;i++)(function(c){hs[c].onclick=function(){\n"
    "var b=t.tBodies[0],r=Array.prototype.slice.call(b.rows);\n"
    "var num=hs[c].className==='num';dir[c]=-(dir[c]||-1);\n"
    "r.sort(function(x,y){var a=x.cells[c].getAttribute('data-v')||"
    "x.cells[c].textContent,\n"
    "z=y.cells[c].getAttribute('data-v')||y.cells[c].textContent;\n"
    "if(num){a=Number(a);z=Number(z);}\n"
    "return (a<z?-1:a>z?1:0)*dir[c];});\n"
    "r.forEach(function(x){b.appendChild(x);});};})(i);})();\n"
    "</script>\n";

static void pic_td_num(FILE *f, uint64_t v) {
    fprintf(f, "<td data-v=\"%" PRIu64 "\">", v);
    pic_commas(f, v);
    fputs("</td>", f);
}

/* The header row: one offset column per plan (named after its algorithm
 * when there are several). */
static void pic_table_head(FILE *f, const pic_set *ps) {
    fputs("<table id=\"bufs\"><thead><tr><th>buffer</th><th>pool</th>", f);
    for (uint32_t c = 0; c < ps->nplans; c++) {
        fputs("<th class=\"num\">offset", f);
        if (ps->nplans > 1) {
            fputs(" (", f);
            pic_esc(f, ps->labels[c]);
            fputc(')', f);
        }
        fputs("</th>", f);
    }
    fputs("<th class=\"num\">size</th><th class=\"num\">first line</th>"
          "<th class=\"num\">last line</th><th>kernels</th></tr></thead>\n"
          "<tbody>\n",
          f);
}

static void pic_table(FILE *f, const pic_set *ps) {
    const plan *pl = ps->plans[0];
    const ir_program *p = pl->prog;
    pic_table_head(f, ps);
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        const plan_storage *st = &pl->storages[s];
        fputs("<tr><td>", f);
        pic_esc(f, p->values[st->value].name);
        fputs("</td><td>", f);
        if (st->pool >= 0)
            pic_esc(f, pl->pools[st->pool].name);
        else
            fputs(st->is_output ? "(caller-owned output)" : "(own allocation)",
                  f);
        fputs("</td>", f);
        for (uint32_t c = 0; c < ps->nplans; c++) {
            if (st->pool >= 0)
                pic_td_num(f, ps->plans[c]->storages[s].offset);
            else
                fputs("<td data-v=\"-1\"></td>", f);
        }
        pic_td_num(f, st->size);
        pic_td_num(f, p->stmts[st->start].loc.line);
        pic_td_num(f, p->stmts[st->end].loc.line);
        fputs("<td>", f);
        pic_kernel_list(f, &ps->kern[s]);
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

void pic_html(FILE *f, const pic_set *ps) {
    const char *model = ps->plans[0]->prog->model;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta "
          "charset=\"utf-8\">\n<title>planwrap plan: ",
          f);
    pic_esc(f, model ? model : "?");
    fputs("</title>\n<style>\n"
          "body{font-family:DejaVu Sans,Verdana,sans-serif;margin:16px}\n"
          "table{border-collapse:collapse;font-size:13px;margin-top:16px}\n"
          "th,td{border:1px solid #ccc;padding:2px 8px}\n"
          "th{background:#eee;cursor:pointer;user-select:none}\n"
          "td[data-v]{text-align:right}\n"
          "</style>\n</head>\n<body>\n",
          f);
    pic_svg(f, ps, false);
    fputs("<p>Click a column header to sort the buffers by it (again to "
          "reverse).</p>\n",
          f);
    pic_table(f, ps);
    fputs(pic_script, f);
    fputs("</body>\n</html>\n", f);
}

bool cg_picture_algos_ok(const char *list) {
    size_t n = strlen(list);
    if (n == 0 || list[0] == ',' || list[n - 1] == ',')
        return false;
    char name[32];
    unsigned count = 0;
    for (const char *s = list; *s;) {
        size_t k = strcspn(s, ",");
        plan_algo al;
        if (k == 0 || k >= sizeof name || ++count > PIC_MAX_ALGOS)
            return false;
        memcpy(name, s, k);
        name[k] = '\0';
        if (!plan_algo_parse(name, &al))
            return false;
        s += k + (s[k] == ',');
    }
    return true;
}

/* Plans every algorithm of `algos` (checked by cg_picture_algos_ok) with
 * pl's other options; returns how many, 0 on error. */
static uint32_t pic_plan_algos(base_arena *a, const plan *pl, const char *algos,
                               base_diag *d, const plan **plans,
                               const char **labels, uint32_t max) {
    uint32_t n = 0;
    char name[32];
    for (const char *s = algos; *s && n < max;) {
        size_t k = strcspn(s, ",");
        memcpy(name, s, k);
        name[k] = '\0';
        plan_options o = pl->opts;
        if (!plan_algo_parse(name, &o.algo))
            return 0;
        plans[n] = plan_program(a, pl->prog, &o, d);
        if (!plans[n])
            return 0;
        labels[n++] = plan_algo_name(o.algo);
        s += k + (s[k] == ',');
    }
    return n;
}

bool cg_picture_emit(base_arena *a, const plan *pl, const char *algos,
                     bool html, base_diag *d, char **out, size_t *outlen) {
    const plan *plans[PIC_MAX_ALGOS];
    const char *labels[PIC_MAX_ALGOS];
    uint32_t n = 1;
    plans[0] = pl;
    labels[0] = plan_algo_name(pl->opts.algo);
    if (algos) {
        n = pic_plan_algos(a, pl, algos, d, plans, labels, PIC_MAX_ALGOS);
        if (n == 0)
            return false;
    }
    pic_kernels *kern = pic_find_kernels(pl);
    FILE *f = open_memstream(out, outlen);
    if (!f)
        base_oom();
    pic_set ps = {plans, labels, n, kern};
    if (html)
        pic_html(f, &ps);
    else
        pic_svg(f, &ps, true);
    fclose(f);
    free(kern);
    return true;
}

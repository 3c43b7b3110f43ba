/*
 * bench/templates/bench_mustache.c - mustache engine benchmarks.
 *
 *   throughput: a view of 50,000 statements shaped like the plan view
 *     (allocations, kernel calls, deaths; strings precomputed), rendered
 *     with the statement loop of the built-in C template, no-escape and
 *     strict; figure: MB/s of output (target >= 200).
 *   set: a template set shaped like the built-in C templates (header,
 *     source, kernel prototypes, partials) compiled and rendered for a
 *     10,000-kernel view; figure: ms for compile + render (target < 100).
 *
 * Each figure is the best of several runs, in CPU time.  For reference the
 * throughput is also measured on a view small enough to stay in cache:
 * the difference is the cost of reading jansson's scattered heap blocks. Output
 * is checked for size and determinism so that the benchmark cannot silently
 * measure nothing.
 */
#include "templates/mustache.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* CPU time of this process: the machine is shared, and wall time would
 * measure the other users as much as the engine. */
static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Wall time, printed next to the CPU figure. */
static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Strict mode wants every section name present: an event has all kinds,
 * false but one. */
static json_t *event(json_t *e) {
    static const char *const kinds[] = {"bind", "alloc", "alias", "call",
                                        "death"};
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
        if (!json_object_get(e, kinds[i]))
            json_object_set_new(e, kinds[i], json_false());
    return e;
}

/* A view shaped like the plan view of the built-in C templates: per
 * statement a comment and events (alloc, call, death), with strings
 * precomputed in the view as codegen does. */
static json_t *make_view(int n) {
    json_t *stmts = json_array(), *bufs = json_array();
    for (int i = 0; i < n; i++) {
        char name[64], comment[128], decl[64], off[48], size[48], str[48],
            expr[160];
        snprintf(name, sizeof name, "k%d_conv2d_%d", i % 97, i);
        snprintf(comment, sizeof comment, "/* %d: %s (node %d, stream %d) */",
                 i, name, i, i % 4);
        snprintf(decl, sizeof decl, "float *t%d", i);
        snprintf(off, sizeof off, "PW_OFF_T%d", i);
        snprintf(size, sizeof size, "PW_SIZE_T%d", i);
        snprintf(str, sizeof str, "\"t%d\"", i);
        json_t *events = json_array(), *args = json_array();
        json_array_append_new(
            events, event(json_pack(
                        "{s:{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:b}}", "alloc",
                        "decl", decl, "ptr_type", "float *", "pool_local",
                        "pool0", "offset_macro", off, "size_macro", size,
                        "name_str", str, "local", decl + 7, "unused", 0)));
        int na = 2 + i % 3;
        for (int a = 0; a < na; a++) {
            char an[32];
            snprintf(an, sizeof an, "t%d", i > a ? i - a - 1 : i);
            json_array_append_new(
                args, json_pack("{s:s, s:b}", "name", an, "last", a == na - 1));
        }
        snprintf(expr, sizeof expr, "%s(ctx, t%d, w%d)", name, i, i % 97);
        json_array_append_new(
            events,
            event(json_pack("{s:{s:b, s:s, s:s, s:o}}", "call", "status", i % 2,
                            "expr", expr, "kernel", name, "args", args)));
        if (i > 0) {
            snprintf(off, sizeof off, "PW_OFF_T%d", i - 1);
            snprintf(size, sizeof size, "PW_SIZE_T%d", i - 1);
            snprintf(str, sizeof str, "\"t%d\"", i - 1);
            json_array_append_new(
                events,
                event(json_pack("{s:{s:s, s:s, s:s, s:s}}", "death",
                                "pool_local", "pool0", "offset_macro", off,
                                "size_macro", size, "name_str", str)));
        }
        json_array_append_new(stmts,
                              json_pack("{s:{s:s}, s:o}", "emit", "comment",
                                        comment, "events", events));
        json_array_append_new(bufs,
                              json_pack("{s:s, s:s, s:s, s:s}", "offset_macro",
                                        off, "size_macro", size, "align_macro",
                                        "PW_ALIGN", "assert_id", str));
    }
    return json_pack("{s:s, s:s, s:I, s:o, s:o, s:{s:s, s:s, s:s, s:s, s:s}}",
                     "model", "bench", "pool", "pool0", "pool_size",
                     (json_int_t)n * 4096, "statements", stmts, "buffers", bufs,
                     "names", "ctx", "ctx", "run", "bench_run", "rc", "rc",
                     "end_label", "end", "assert_macro", "PW_ASSERT");
}

/* The statement loop of the built-in templates/c/model.c.mustache. */
static const char wrapper_tpl[] =
    "/* model {{model}}: generated, do not edit */\n"
    "#include \"planwrap_rt.h\"\n"
    "\n"
    "{{#buffers}}\n"
    "{{names.assert_macro}}({{offset_macro}} % {{align_macro}} == 0 && "
    "{{offset_macro}} + {{size_macro}} <= PW_POOL_SIZE, {{assert_id}});\n"
    "{{/buffers}}\n"
    "\n"
    "int {{names.run}}(pw_ctx *{{names.ctx}}, unsigned char *{{pool}}) {\n"
    "    int {{names.rc}} = 0;\n"
    "{{#statements}}\n"
    "{{#emit}}\n"
    "\n"
    "    {{comment}}\n"
    "{{/emit}}\n"
    "{{#events}}\n"
    "{{#bind}}\n"
    "    {{decl}} = {{expr}};\n"
    "{{/bind}}\n"
    "{{#alloc}}\n"
    "    {{decl}} = ({{ptr_type}})alloc_from_pool(&{{pool_local}}, "
    "{{offset_macro}}, {{size_macro}});\n"
    "    PW_TRACK_ALLOC(&{{pool_local}}, {{offset_macro}}, {{size_macro}}, "
    "{{name_str}});\n"
    "{{#unused}}\n"
    "    (void){{local}};\n"
    "{{/unused}}\n"
    "{{/alloc}}\n"
    "{{#alias}}\n"
    "    {{decl}} = {{expr}};\n"
    "{{/alias}}\n"
    "{{#call}}\n"
    "{{#status}}\n"
    "    {{names.rc}} = {{expr}};\n"
    "    if ({{names.rc}} != 0)\n"
    "        goto {{names.end_label}};\n"
    "{{/status}}\n"
    "{{^status}}\n"
    "    {{expr}};\n"
    "{{/status}}\n"
    "{{/call}}\n"
    "{{#death}}\n"
    "    PW_TRACK_DEATH(&{{pool_local}}, {{offset_macro}}, {{size_macro}}, "
    "{{name_str}});\n"
    "{{/death}}\n"
    "{{/events}}\n"
    "{{/statements}}\n"
    "\n"
    "{{names.end_label}}:\n"
    "    return {{names.rc}};\n"
    "}\n";

/* A template set in the shape of the built-in C templates. */
static const char *const set_names[] = {"model.h", "model.c", "kernels.h",
                                        "arg", "call"};
static const char *const set_texts[] = {
    /* model.h */
    "#ifndef {{guard}}\n#define {{guard}}\n"
    "{{#buffers}}\n#define {{offset_macro}} 0u /* {{assert_id}} */\n"
    "{{/buffers}}\n"
    "int {{names.run}}(void *{{names.ctx}}, unsigned char *{{pool}});\n"
    "#endif\n",
    /* model.c */
    "{{<kernels.h}}{{/kernels.h}}\n"
    "{{#buffers}}\n"
    "{{names.assert_macro}}({{offset_macro}} + {{size_macro}} <= "
    "{{pool_size}}, {{assert_id}});\n"
    "{{/buffers}}\n"
    "int {{names.run}}(void *{{names.ctx}}, unsigned char *{{pool}}) {\n"
    "{{#statements}}\n"
    "{{#emit}}\n"
    "    {{comment}}\n"
    "{{/emit}}\n"
    "{{#events}}\n"
    "{{#call}}\n"
    "    {{>call}}\n"
    "{{/call}}\n"
    "{{/events}}\n"
    "{{/statements}}\n"
    "    return 0;\n}\n",
    /* kernels.h */
    "{{#statements}}\n"
    "{{#events}}\n"
    "{{#call}}\n"
    "{{$proto}}int {{kernel}}(void *ctx{{#args}}, float *{{name}}{{/args}});"
    "{{/proto}}\n"
    "{{/call}}\n"
    "{{/events}}\n"
    "{{/statements}}\n",
    /* arg */
    ", {{name}}",
    /* call */
    "{{kernel}}({{names.ctx}}{{#args}}{{>arg}}{{/args}});\n",
};

static char *set_load(void *ctx, const char *name, size_t *len) {
    (void)ctx;
    for (size_t i = 0; i < sizeof set_names / sizeof *set_names; i++)
        if (strcmp(name, set_names[i]) == 0) {
            *len = strlen(set_texts[i]);
            char *s = malloc(*len + 1);
            if (s)
                memcpy(s, set_texts[i], *len + 1);
            return s;
        }
    return NULL;
}

static int render_once(const mst_template *t, json_t *view,
                       const mst_loader *ld, const mst_options *o, char **out,
                       size_t *len) {
    mst_error err;
    if (mst_render(t, view, ld, o, out, len, &err) != 0) {
        char buf[1024];
        fprintf(stderr, "bench: %s\n", mst_error_format(&err, buf, sizeof buf));
        return -1;
    }
    return 0;
}

static int bench_throughput(int runs, int statements, bool main_figure) {
    json_t *view = make_view(statements);
    mst_error err;
    mst_template *t =
        mst_compile("wrapper", wrapper_tpl, sizeof wrapper_tpl - 1, &err);
    if (!t)
        return 1;
    mst_options o = {.no_escape = true, .strict = true};
    double best = 1e9, best_wall = 1e9;
    size_t len = 0, first_len = 0;
    char *first = NULL;
    for (int r = 0; r < runs; r++) {
        char *out;
        double t0 = now(), w0 = wall();
        if (render_once(t, view, NULL, &o, &out, &len))
            return 1;
        double dt = now() - t0, dw = wall() - w0;
        if (dt < best)
            best = dt;
        if (dw < best_wall)
            best_wall = dw;
        if (!first) {
            first = out;
            first_len = len;
        } else {
            if (len != first_len || memcmp(out, first, len) != 0) {
                fprintf(stderr, "bench: output differs between runs\n");
                return 1;
            }
            free(out);
        }
    }
    if (first_len < (size_t)statements * 200) {
        fprintf(stderr, "bench: output too small (%zu bytes)\n", first_len);
        return 1;
    }
    double mbs = (double)first_len / best / 1e6;
    if (main_figure)
        printf("render throughput: %.1f MB/s (%.1f MB in %.1f ms CPU, %d "
               "statements; target >= 200 MB/s, ratio %.2f); wall %.1f "
               "ms, %.1f MB/s\n",
               mbs, (double)first_len / 1e6, best * 1e3, statements,
               mbs / 200.0, best_wall * 1e3,
               (double)first_len / best_wall / 1e6);
    else
        printf("  for reference, a cache-resident view of %d statements: "
               "%.1f MB/s\n",
               statements, mbs);
    free(first);
    mst_template_free(t);
    json_decref(view);
    return 0;
}

static int bench_set(int runs) {
    json_t *view = make_view(10000);
    json_object_set_new(view, "guard", json_string("BENCH_MODEL_H"));
    mst_loader ld = {set_load, NULL, NULL};
    mst_options o = {.no_escape = true, .strict = true};
    double best = 1e9, best_wall = 1e9;
    size_t total = 0;
    for (int r = 0; r < runs; r++) {
        double t0 = now(), w0 = wall();
        total = 0;
        for (int k = 0; k < 3; k++) {
            mst_error err;
            mst_template *t = mst_compile(set_names[k], set_texts[k],
                                          strlen(set_texts[k]), &err);
            if (!t)
                return 1;
            char *out;
            size_t len;
            if (render_once(t, view, &ld, &o, &out, &len))
                return 1;
            total += len;
            free(out);
            mst_template_free(t);
        }
        double dt = now() - t0, dw = wall() - w0;
        if (dt < best)
            best = dt;
        if (dw < best_wall)
            best_wall = dw;
    }
    printf("template set, 10,000 kernels: %.1f ms CPU compile + render "
           "(%.1f MB; target < 100 ms, ratio %.2f); wall %.1f ms\n",
           best * 1e3, (double)total / 1e6, 100.0 / (best * 1e3),
           best_wall * 1e3);
    json_decref(view);
    return 0;
}

/* bench_mustache [RUNS [STATEMENTS]]: STATEMENTS other than 50,000 runs
 * only the throughput figure (for profiling under callgrind). */
int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 5;
    if (runs < 1)
        runs = 1;
    int stmts = argc > 2 ? atoi(argv[2]) : 50000;
    if (stmts != 50000)
        return bench_throughput(runs, stmts > 0 ? stmts : 1, true);
    return bench_throughput(runs, 50000, true) ||
           bench_throughput(runs * 20, 500, false) || bench_set(runs);
}

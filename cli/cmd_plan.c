/*
 * cli/cmd_plan.c - `planwrap plan`: plan memory and print the plan.
 *
 *   planwrap plan [options] FILE.pw
 *   planwrap plan --csv [options] FILE.csv      (minimalloc instances)
 *
 * The whole output is built in memory and written atomically (-o FILE,
 * default stdout): nothing is written when there is an error.
 */
#include "base/base.h"
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef enum cli_emit {
    CLI_EMIT_SUMMARY,
    CLI_EMIT_JSON,
    CLI_EMIT_LINES,
    CLI_EMIT_VIEW,
    CLI_EMIT_SVG,
    CLI_EMIT_HTML,
} cli_emit;

/* --compare and --compare-algos (the pictures' side by side plans). */
typedef struct cli_plan_extra {
    bool compare;
    const char *algos;
    /* -o: plan-json and the view are written there as they are built */
    const char *out_path;
    bool streamed; /* set once they were: nothing left in *out */
} cli_plan_extra;

/* Writes `root` as JSON text and a newline to `path` (through base_out:
 * a temporary file renamed when complete), its lists lazy[0, nlazy)
 * built element by element, so that the text never exists whole.  False
 * after the error message. */
static bool cli_stream_json(const char *path, const json_t *root,
                            const mst_lazy_list *lazy, size_t nlazy,
                            base_diag *d) {
    base_out *o = base_out_open(path, d);
    if (!o)
        return false;
    FILE *f = base_out_stream(o);
    bool ok = cg_json_write(f, root, lazy, nlazy) && fputc('\n', f) != EOF;
    if (!ok && ferror(f)) {
        base_out_fail(o, errno, d); /* standard output keeps a part */
        return false;
    }
    if (!ok) { /* json_dumps would fail on the same document */
        base_diag_msg(d, BASE_SEV_ERROR,
                      "cannot write %s: a string of the document is not "
                      "valid UTF-8",
                      strcmp(path, "-") ? path : "standard output");
        base_out_discard(o);
        return false;
    }
    return base_out_commit(o, d);
}

static void cli_plan_usage(FILE *out) {
    fprintf(out,
            "usage: planwrap plan [options] FILE.pw\n"
            "       planwrap plan --csv [options] FILE.csv\n"
            "\n"
            "Plans the memory of a checked IR v1 program (or of a minimalloc\n"
            "CSV instance, `id,lower,upper,size`) and prints the plan.  FILE\n"
            "`-` is standard input.  Exit status: 0 ok, 1 invalid input, 2\n"
            "bad usage.\n"
            "\n"
            "options:\n"
            "  --emit E             summary (default): per pool its size, "
            "lower bound,\n"
            "                       ratio, naive size and buffer count;\n"
            "                       plan-json: pools and buffers as JSON;\n"
            "                       lines: each statement with its events;\n"
            "                       view: the plan view that templates see;\n"
            "                       svg: a picture of the plan, a panel per "
            "pool;\n"
            "                       html: the picture and a sortable table\n"
            "  --compare            add, per pool, what other allocators "
            "need\n"
            "                       (summary and plan-json)\n"
            "  --compare-algos A,B  svg/html: the plans of these algorithms "
            "side\n"
            "                       by side, at one scale\n"
            "  --csv                FILE is a minimalloc CSV instance\n"
            "  -o, --output OUT     write to OUT (default `-`, stdout)\n"
            "  -h, --help           show this help\n"
            "\n"
            "planning options:\n"
            "%s",
            cli_plan_options_help);
}

static const char *const cli_emit_names[] = {"summary", "plan-json", "lines",
                                             "view",    "svg",       "html"};
_Static_assert(sizeof cli_emit_names / sizeof cli_emit_names[0] ==
                   CLI_EMIT_HTML + 1,
               "a name per cli_emit");

static bool cli_parse_emit(const char *s, cli_emit *e) {
    for (unsigned i = 0; i < sizeof cli_emit_names / sizeof cli_emit_names[0];
         i++)
        if (strcmp(s, cli_emit_names[i]) == 0) {
            *e = (cli_emit)i;
            return true;
        }
    return false;
}

/* The model name of a CSV instance: its file name without directory and
 * extension. */
static char *cli_csv_model(const char *path) {
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    if (strcmp(path, "-") == 0)
        b = "stdin";
    size_t n = strlen(b);
    if (n > 4 && strcmp(b + n - 4, ".csv") == 0)
        n -= 4;
    char *m = malloc(n + 1);
    if (m) {
        memcpy(m, b, n);
        m[n] = '\0';
    }
    return m;
}

/* A planned CSV instance: one pool, pool0. */
typedef struct cli_csv_plan {
    const char *model;
    const plan_problem *pb;
    const uint64_t *off;
    uint64_t size, naive, lb;
    const char *note; /* the search's line, "" when none */
    bool time_hit;
} cli_csv_plan;

/* `plan --csv` summary: the pool line and the search's note. */
static void cli_csv_summary(const cli_csv_plan *c, const plan_options *o,
                            char **out, size_t *outlen) {
    FILE *f = open_memstream(out, outlen);
    if (!f)
        base_oom();
    fprintf(f, "model %s: algorithm %s, 1 pool\n", c->model,
            plan_algo_name(o->algo));
    fprintf(f, "pool pool0: size %" PRIu64 ", lower bound %" PRIu64 ", ratio ",
            c->size, c->lb);
    base_fprint_ratio(f, c->size, c->lb);
    fprintf(f, ", naive %" PRIu64 ", %" PRIu32 " buffer%s\n", c->naive,
            c->pb->n, c->pb->n == 1 ? "" : "s");
    if (c->note[0])
        fprintf(f, "%s pool0: %s\n", plan_algo_name(o->algo), c->note);
    if (c->time_hit)
        fprintf(f, "note: the search stopped at its time limit\n");
    fclose(f);
}

/* plan-json "buffers" of a CSV instance: element i, built while the
 * text is written (cg_json_write), so that no document of n buffers
 * exists whole. */
static size_t cli_csv_count(void *ctx) {
    return ((const cli_csv_plan *)ctx)->pb->n;
}

static json_t *cli_csv_buffer(void *ctx, size_t i) {
    const cli_csv_plan *c = ctx;
    const plan_problem *pb = c->pb;
    json_t *b = json_object();
    json_object_set_new(b, "name", json_string(pb->names[i]));
    json_object_set_new(b, "pool", json_string("pool0"));
    json_object_set_new(b, "offset", json_integer((json_int_t)c->off[i]));
    json_object_set_new(b, "size", json_integer((json_int_t)pb->bufs[i].size));
    json_object_set_new(b, "start",
                        json_integer((json_int_t)pb->bufs[i].start));
    json_object_set_new(b, "end", json_integer((json_int_t)pb->bufs[i].end));
    return b;
}

/* `plan --csv --emit plan-json` to `path`: the pool and its buffers, the
 * buffers written one at a time.  False after the error message. */
static bool cli_csv_json(const cli_csv_plan *c, const plan_options *o,
                         const char *path, base_diag *d) {
    const plan_problem *pb = c->pb;
    json_t *root = json_object(), *marker = json_array();
    json_object_set_new(root, "model", json_string(c->model));
    json_object_set_new(root, "algorithm",
                        json_string(plan_algo_name(o->algo)));
    json_t *pools = json_array(), *pool = json_object();
    json_object_set_new(pool, "name", json_string("pool0"));
    json_object_set_new(pool, "device", json_string("cpu"));
    json_object_set_new(pool, "space", json_string("default"));
    json_object_set_new(pool, "comm", json_null());
    json_object_set_new(pool, "group", json_null());
    json_object_set_new(pool, "align", json_integer((json_int_t)pb->align));
    json_object_set_new(pool, "size", json_integer((json_int_t)c->size));
    json_object_set_new(pool, "lower_bound", json_integer((json_int_t)c->lb));
    json_object_set_new(pool, "naive_size", json_integer((json_int_t)c->naive));
    json_array_append_new(pools, pool);
    json_object_set_new(root, "pools", pools);
    json_object_set_new(root, "buffers", json_incref(marker));
    mst_lazy_list lz = {.marker = marker,
                        .count = cli_csv_count,
                        .element = cli_csv_buffer,
                        .ctx = (void *)c};
    bool ok = cli_stream_json(path, root, &lz, 1, d);
    json_decref(root);
    json_decref(marker);
    return ok;
}

/* `plan --csv` options that need an IR program: a usage error (exit 2),
 * else 0. */
static int cli_csv_usage(base_diag *d, const plan_options *o, cli_emit emit) {
    if (emit != CLI_EMIT_SUMMARY && emit != CLI_EMIT_JSON) {
        return cli_usage_error(d, "plan",
                               "--emit %s needs an IR program, not a CSV "
                               "instance",
                               cli_emit_names[emit]);
    }
    if (o->order != PLAN_ORDER_KEEP)
        return cli_usage_error(d, "plan",
                               "--order needs an IR program, not a CSV "
                               "instance");
    return 0;
}

/* The independent verifier on the plan of pb: out of memory reported as
 * such, not as a plan that does not verify.  False after the error. */
static bool cli_csv_verify(const plan_problem *pb, const uint64_t *off,
                           uint64_t size, base_diag *d) {
    char err[512];
    int rc = plan_verify_problem_status(pb, off, size, err, sizeof err);
    if (rc < 0)
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "out of memory while verifying the plan");
    else if (rc == 0)
        base_diag_msg(d, BASE_SEV_ERROR,
                      "internal error: the plan does not verify: %s", err);
    return rc == 1;
}

/* Plans the instance pb into c (offsets in `a`): the algorithm, the
 * naive size, the verifier, the lower bound and the capacity.  Errors go
 * to `d` (whose source is the CSV file); false after one. */
static bool cli_csv_run(base_arena *a, plan_problem *pb, const plan_options *o,
                        base_diag *d, cli_csv_plan *c, char *note,
                        size_t notelen) {
    uint32_t big = plan_first_oversize(pb);
    if (big != UINT32_MAX) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "the instance is too large: with buffer '%s' its "
                         "buffers need more than %" PRIu64 " bytes",
                         pb->names[big], PLAN_MAX_POOL_SIZE);
        return false;
    }
    uint64_t *off = base_arena_array(a, (size_t)pb->n + 1, sizeof *off);
    plan_search_stats st;
    c->pb = pb;
    c->off = off;
    if (plan_run(pb, o, 0, off, &c->size, &st) ||
        plan_naive(pb, NULL, &c->naive)) {
        /* pb passed plan_first_oversize: out of memory */
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "out of memory while planning (algorithm %s)",
                         plan_algo_name(o->algo));
        return false;
    }
    c->time_hit = st.time_limit_hit;
    if (o->algo == PLAN_SEARCH)
        plan_search_describe(note, notelen, c->size, &o->search, &st);
    else if (o->algo == PLAN_AUTO)
        plan_auto_describe(note, notelen, c->size, &o->search, &st);
    c->note = note;
    bool verify = o->verify;
#ifdef PW_DEBUG_VERIFY
    verify = true;
#endif
    if (verify && !cli_csv_verify(pb, off, c->size, d))
        return false;
    /* bestfit (the start of search and auto) computed it (plan_run) */
    c->lb = st.problem_bound;
    if (!plan_run_reports_bound(o->algo) &&
        plan_lower_bound_status(pb, &c->lb) != 0) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "out of memory while computing the lower bound");
        return false;
    }
    if (o->search.capacity && c->size > o->search.capacity) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "pool pool0 does not fit in --capacity %" PRIu64
                         " bytes: it needs %" PRIu64 " bytes (algorithm %s; "
                         "lower bound %" PRIu64 " bytes)",
                         o->search.capacity, c->size, plan_algo_name(o->algo),
                         c->lb);
        if (note[0])
            base_diag_report(d, BASE_SEV_NOTE, 0, 0, "%s pool0: %s",
                             plan_algo_name(o->algo), note);
        return false;
    }
    return true;
}

/* `plan --csv`: one pool.  Returns the exit status; *out gets the text
 * of the summary (plan-json is written to x->out_path). */
static int cli_plan_csv(base_diag *d, const char *path, const plan_options *o,
                        cli_emit emit, cli_plan_extra *x, char **out,
                        size_t *outlen) {
    int usage = cli_csv_usage(d, o, emit);
    if (usage)
        return usage;
    char *text = NULL;
    size_t len = 0;
    if (!ir_read_file(path, &text, &len, d))
        return 1;
    base_arena *a = base_arena_new();
    plan_problem pb;
    char note[512] = "";
    char *model = cli_csv_model(path);
    cli_csv_plan c = {.model = model, .note = ""};
    if (!model)
        base_oom();
    bool ok = plan_read_csv(a, cli_display_name(path), text, len, &pb, d);
    if (ok && o->align)
        pb.align = o->align;
    ok = ok && cli_csv_run(a, &pb, o, d, &c, note, sizeof note);
    if (ok && emit == CLI_EMIT_SUMMARY)
        cli_csv_summary(&c, o, out, outlen);
    else if (ok)
        ok = x->streamed = cli_csv_json(&c, o, x->out_path, d);
    free(model);
    free(text);
    base_arena_free(a);
    return ok ? 0 : 1;
}

static const char *cli_space(const char *s) {
    return s ? s : "default";
}

/* The build-time report: one line per memory space (docs/firmware.md). */
static void cli_emit_spaces(FILE *f, const plan *pl) {
    base_arena *a = base_arena_new();
    plan_space_report *r;
    uint32_t n = plan_space_reports(pl, a, &r);
    for (uint32_t i = 0; i < n; i++) {
        fprintf(f, "space %s: size %" PRIu64, cli_space(r[i].name), r[i].size);
        if (r[i].has_capacity)
            fprintf(f, ", capacity %" PRIu64 ", headroom %" PRIu64,
                    r[i].capacity, r[i].headroom);
        if (r[i].nreceived)
            fprintf(f, ", %" PRIu32 " buffer%s spilled in", r[i].nreceived,
                    r[i].nreceived == 1 ? "" : "s");
        if (r[i].spill)
            fprintf(f, ", %" PRIu32 " buffer%s spilled to %s", r[i].nspilled,
                    r[i].nspilled == 1 ? "" : "s", r[i].spill);
        fprintf(f, ", %u.%u%% of accessed bytes\n", r[i].npermille / 10,
                r[i].npermille % 10);
    }
    base_arena_free(a);
}

static void cli_emit_summary(FILE *f, const plan *pl) {
    const ir_program *p = pl->prog;
    uint32_t unpooled = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        unpooled += pl->storages[s].pool < 0;
    fprintf(f, "model %s: algorithm %s, memory pool %s, %" PRIu32 " pool%s\n",
            p->model ? p->model : "?", plan_algo_name(pl->opts.algo),
            plan_memory_pool_name(pl->opts.memory_pool), pl->npools,
            pl->npools == 1 ? "" : "s");
    uint64_t total = 0, total_lb = 0, total_naive = 0;
    for (uint32_t i = 0; i < pl->npools; i++) {
        const plan_pool *pool = &pl->pools[i];
        fprintf(f, "pool %s: size %" PRIu64 ", lower bound %" PRIu64 ", ratio ",
                pool->name, pool->size, pool->lower_bound);
        base_fprint_ratio(f, pool->size, pool->lower_bound);
        fprintf(f, ", naive %" PRIu64 ", %" PRIu32 " buffer%s",
                pool->naive_size, pool->nstorages,
                pool->nstorages == 1 ? "" : "s");
        if (pool->has_capacity)
            fprintf(f, ", capacity %" PRIu64, pool->capacity);
        fputc('\n', f);
        if (pool->search_note)
            fprintf(f, "%s %s: %s\n", plan_algo_name(pl->opts.algo), pool->name,
                    pool->search_note);
        total += pool->size;
        total_lb += pool->lower_bound;
        total_naive += pool->naive_size;
    }
    if (pl->npools > 1) {
        fprintf(f, "total: size %" PRIu64 ", lower bound %" PRIu64 ", ratio ",
                total, total_lb);
        base_fprint_ratio(f, total, total_lb);
        fprintf(f, ", naive %" PRIu64 "\n", total_naive);
    }
    if (p->nspaces)
        cli_emit_spaces(f, pl);
    if (unpooled)
        fprintf(f, "not pooled: %" PRIu32 " storage%s (%s)\n", unpooled,
                unpooled == 1 ? "" : "s",
                pl->opts.memory_pool == PLAN_MP_NONE ? "own allocations"
                                                     : "caller-owned outputs");
    if (pl->search_time_limit_hit)
        fprintf(f, "note: the search stopped at its time limit\n");
}

static json_t *cli_json_nullable(const char *s) {
    return s ? json_string(s) : json_null();
}

/* plan-json "spaces": the build-time report (docs/firmware.md). */
static json_t *cli_spaces_json(const plan *pl) {
    base_arena *a = base_arena_new();
    plan_space_report *r;
    uint32_t n = plan_space_reports(pl, a, &r);
    json_t *arr = json_array();
    for (uint32_t i = 0; i < n; i++) {
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(cli_space(r[i].name)));
        json_object_set_new(o, "size", json_integer((json_int_t)r[i].size));
        json_object_set_new(o, "capacity",
                            r[i].has_capacity
                                ? json_integer((json_int_t)r[i].capacity)
                                : json_null());
        json_object_set_new(o, "headroom",
                            r[i].has_capacity
                                ? json_integer((json_int_t)r[i].headroom)
                                : json_null());
        json_object_set_new(o, "spill", cli_json_nullable(r[i].spill));
        json_object_set_new(o, "spilled", json_integer(r[i].nspilled));
        json_object_set_new(o, "received", json_integer(r[i].nreceived));
        json_object_set_new(o, "accessed_bytes",
                            json_integer((json_int_t)r[i].accessed));
        json_array_append_new(arr, o);
    }
    base_arena_free(a);
    return arr;
}

/* The plan-json root; its "buffers" is the placeholder `buffers`,
 * written element by element (cli_buffer_json). */
static json_t *cli_emit_json(const plan *pl, json_t *buffers) {
    const ir_program *p = pl->prog;
    char dev[32];
    json_t *root = json_object();
    json_object_set_new(root, "model", json_string(p->model ? p->model : ""));
    json_object_set_new(root, "algorithm",
                        json_string(plan_algo_name(pl->opts.algo)));
    json_object_set_new(
        root, "memory_pool",
        json_string(plan_memory_pool_name(pl->opts.memory_pool)));
    json_t *pools = json_array();
    for (uint32_t i = 0; i < pl->npools; i++) {
        const plan_pool *pool = &pl->pools[i];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(pool->name));
        json_object_set_new(
            o, "device",
            json_string(ir_device_str(pool->device, dev, sizeof dev)));
        json_object_set_new(o, "space", json_string(cli_space(pool->space)));
        json_object_set_new(o, "comm", cli_json_nullable(pool->comm));
        json_object_set_new(o, "group", cli_json_nullable(pool->group));
        json_object_set_new(o, "align", json_integer((json_int_t)pool->align));
        json_object_set_new(o, "size", json_integer((json_int_t)pool->size));
        json_object_set_new(o, "lower_bound",
                            json_integer((json_int_t)pool->lower_bound));
        json_object_set_new(o, "naive_size",
                            json_integer((json_int_t)pool->naive_size));
        json_object_set_new(o, "outputs", json_boolean(pool->outputs));
        if (pool->has_capacity)
            json_object_set_new(o, "capacity",
                                json_integer((json_int_t)pool->capacity));
        json_array_append_new(pools, o);
    }
    json_object_set_new(root, "pools", pools);
    json_object_set_new(root, "buffers", json_incref(buffers));
    if (p->nspaces)
        json_object_set_new(root, "spaces", cli_spaces_json(pl));
    return root;
}

/* plan-json "buffers": element s, built while the text is written. */
static size_t cli_count_buffers(void *ctx) {
    return ((const plan *)ctx)->nstorages;
}

static json_t *cli_buffer_json(void *ctx, size_t s) {
    const plan *pl = ctx;
    const ir_program *p = pl->prog;
    {
        const plan_storage *st = &pl->storages[s];
        json_t *o = json_object();
        json_object_set_new(o, "name", json_string(p->values[st->value].name));
        if (st->pool >= 0) {
            json_object_set_new(o, "pool",
                                json_string(pl->pools[st->pool].name));
            json_object_set_new(o, "offset",
                                json_integer((json_int_t)st->offset));
        } else {
            json_object_set_new(o, "pool", json_null());
            json_object_set_new(o, "offset", json_null());
        }
        json_object_set_new(o, "size", json_integer((json_int_t)st->size));
        json_object_set_new(o, "start", json_integer((json_int_t)st->start));
        json_object_set_new(o, "end", json_integer((json_int_t)st->end));
        /* start and end count statements; these are the IR lines of
         * those statements, as the generated code's comments show them */
        json_object_set_new(
            o, "start_line",
            json_integer((json_int_t)p->stmts[st->start].loc.line));
        json_object_set_new(
            o, "end_line",
            json_integer((json_int_t)p->stmts[st->end].loc.line));
        json_object_set_new(o, "output", json_boolean(st->is_output));
        json_object_set_new(
            o, "reuse_of",
            st->reuse_of >= 0
                ? json_string(p->values[pl->storages[st->reuse_of].value].name)
                : json_null());
        return o;
    }
}

/* The events of a free: per name its "del" text, and where a storage
 * really dies, its death (codegen/event_text.c). */
static void cli_free_events(FILE *f, base_arena *a, const plan *pl,
                            const ir_stmt *st) {
    const ir_program *p = pl->prog;
    const char *sep = "  # ";
    for (uint32_t k = 0; k < st->nnames; k++) {
        fprintf(f, "%s%s", sep, cg_text_del(a, pl, st, k));
        sep = "; ";
    }
    for (uint32_t k = 0; k < st->nnames; k++) {
        int32_t v = st->name_values ? st->name_values[k] : -1;
        if (v < 0)
            continue;
        int32_t root = p->values[v].root;
        bool first = true; /* one mark per storage */
        for (uint32_t j = 0; j < k && first; j++)
            first = !(st->name_values[j] >= 0 &&
                      p->values[st->name_values[j]].root == root);
        if (first && p->values[root].storage_end == (int32_t)st->index)
            fprintf(f, "; %s", cg_text_death(a, pl, root));
    }
}

static void cli_emit_lines(FILE *f, base_arena *a, const plan *pl) {
    const ir_program *p = pl->prog;
    int32_t *alloc_storage = calloc((size_t)p->nstmts + 1, sizeof(int32_t));
    if (!alloc_storage)
        base_oom();
    for (uint32_t i = 0; i < p->nstmts; i++)
        alloc_storage[i] = -1;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        alloc_storage[p->values[pl->storages[s].value].def] = (int32_t)s;
    base_sb text = {0};
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *st = &p->stmts[i];
        /* "line N:" as in the comments of the generated code */
        base_sb_clear(&text);
        ir_stmt_text(&text, st, IR_TEXT_LINES, NULL);
        fprintf(f, "line %" PRIu32 ": %s", st->loc.line, base_sb_str(&text));
        const char *sep = "  # ";
        if (alloc_storage[i] >= 0 &&
            (st->kind == IR_ALLOC || st->kind == IR_INPUT ||
             st->kind == IR_STATE)) {
            const plan_storage *s = &pl->storages[alloc_storage[i]];
            if (s->pool >= 0) {
                const char *pn = pl->pools[s->pool].name;
                fprintf(
                    f, "%salloc_from_pool(%s, %" PRIu64 "), %" PRIu64 " byte%s",
                    sep, pn, s->offset, s->size, s->size == 1 ? "" : "s");
                const char *r = cg_text_reuse(a, pl, alloc_storage[i]);
                if (r)
                    fprintf(f, "; %s", r);
            } else if (s->is_output && pl->opts.memory_pool != PLAN_MP_NONE) {
                fprintf(f, "%scaller-owned output, %" PRIu64 " byte%s", sep,
                        s->size, s->size == 1 ? "" : "s");
            } else {
                fprintf(f, "%sown allocation", sep);
            }
        } else if (st->kind == IR_ALIAS) {
            if (st->value >= 0)
                fprintf(f, "%s%s", sep, cg_text_alias(a, pl, st));
        } else if (st->kind == IR_FREE) {
            cli_free_events(f, a, pl, st);
        }
        fputc('\n', f);
    }
    base_sb_free(&text);
    free(alloc_storage);
}

/* plan-json or the view, written to x->out_path as it is built: the
 * lists that grow with the program and the text never exist whole.
 * False after an error (reported). */
static bool cli_plan_json(const plan *pl, cli_emit emit, cli_plan_extra *x,
                          base_diag *d) {
    cg_view *view = NULL;
    json_t *marker = json_array(), *root = NULL;
    mst_lazy_list lz = {.marker = marker,
                        .count = cli_count_buffers,
                        .element = cli_buffer_json,
                        .ctx = (void *)pl};
    if (emit == CLI_EMIT_JSON) {
        root = cli_emit_json(pl, marker);
    } else {
        view = cg_view_new(pl, CG_TARGET_C, NULL, d);
        PW_ASSERT(view); /* NULL only for a NULL plan */
    }
    bool ok = !x->compare || cg_compare_json(root, pl, d);
    if (ok && view) {
        const mst_lazy_list *lazy;
        size_t nlazy;
        cg_view_lists(view, &lazy, &nlazy);
        ok = cli_stream_json(x->out_path, cg_view_root(view), lazy, nlazy, d);
    } else if (ok) {
        ok = cli_stream_json(x->out_path, root, &lz, 1, d);
    }
    x->streamed = ok;
    cg_view_free(view);
    json_decref(root);
    json_decref(marker);
    return ok;
}

static int cli_plan_ir(base_diag *d, const char *path, const plan_options *o,
                       cli_emit emit, cli_plan_extra *x, char **out,
                       size_t *outlen) {
    base_arena *a = base_arena_new();
    int status = 1;
    ir_program *p = cli_plan_order(a, ir_load(a, path, d), o, d);
    if (!p)
        goto done;
    plan *pl = plan_program(a, p, o, d);
    if (!pl)
        goto done;
    if (emit == CLI_EMIT_SVG || emit == CLI_EMIT_HTML) {
        if (!cg_picture_emit(a, pl, x->algos, emit == CLI_EMIT_HTML, d, out,
                             outlen))
            goto done;
    } else if (emit == CLI_EMIT_SUMMARY || emit == CLI_EMIT_LINES) {
        FILE *f = open_memstream(out, outlen);
        if (!f)
            base_oom();
        bool ok = true;
        if (emit == CLI_EMIT_SUMMARY) {
            cli_emit_summary(f, pl);
            ok = !x->compare || cg_compare_summary(f, pl, d);
        } else {
            cli_emit_lines(f, a, pl);
        }
        fclose(f);
        if (!ok)
            goto done;
    } else if (!cli_plan_json(pl, emit, x, d)) {
        goto done;
    }
    status = 0;
done:
    base_arena_free(a);
    return status;
}

int cli_cmd_plan(base_diag *d, int argc, char **argv) {
    static const struct option longopts[] = {
        {"emit", required_argument, NULL, 'e'},
        {"csv", no_argument, NULL, 'c'},
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {"compare", no_argument, NULL, 'C'},
        {"compare-algos", required_argument, NULL, 'A'},
        CLI_PLAN_LONG_OPTIONS,
        {NULL, 0, NULL, 0},
    };
    plan_options po;
    plan_options_init(&po);
    cli_plan_progress(&po); /* a long search shows progress on a tty */
    cli_emit emit = CLI_EMIT_SUMMARY;
    bool csv = false;
    cli_plan_extra x = {.compare = false};
    const char *outpath = "-";
    cli_opts o;
    cli_opts_init(&o, d, "plan", argc, argv, ":o:h", longopts);
    int c;
    while ((c = cli_opts_next(&o)) != -1) {
        switch (c) {
        case 'e':
            if (!cli_parse_emit(optarg, &emit))
                return cli_usage_error(d, "plan",
                                       "invalid value '%s' for --emit: "
                                       "expected summary, plan-json, lines, "
                                       "view, svg or html",
                                       optarg);
            break;
        case 'c':
            csv = true;
            break;
        case 'C':
            x.compare = true;
            break;
        case 'A':
            if (!cg_picture_algos_ok(optarg))
                return cli_usage_error(d, "plan",
                                       "invalid value '%s' for "
                                       "--compare-algos: expected 1 to 16 of "
                                       "naive, reuse, tree, bestfit, search, "
                                       "separated by commas",
                                       optarg);
            x.algos = optarg;
            break;
        case 'o':
            outpath = optarg;
            break;
        case 'h':
            cli_plan_usage(stdout);
            return 0;
        case CLI_PLAN_OPT_VAL:
            if (cli_plan_option(&po, longopts[o.longindex].name, optarg, d) !=
                0)
                return cli_usage_hint(d, "plan");
            break;
        default: /* CLI_OPT_FAIL: reported */
            return 2;
        }
    }
    const char *path = cli_opts_operand(&o, "FILE");
    if (!path || !cli_usage_not_input(d, "plan", outpath, path))
        return 2;
    if (x.compare &&
        (csv || (emit != CLI_EMIT_SUMMARY && emit != CLI_EMIT_JSON)))
        return cli_usage_error(d, "plan",
                               "--compare needs an IR program and "
                               "--emit summary or plan-json");
    if (x.algos && emit != CLI_EMIT_SVG && emit != CLI_EMIT_HTML)
        return cli_usage_error(d, "plan",
                               "--compare-algos needs --emit svg or "
                               "html");
    char *out = NULL;
    size_t outlen = 0;
    x.out_path = outpath;
    int status = csv ? cli_plan_csv(d, path, &po, emit, &x, &out, &outlen)
                     : cli_plan_ir(d, path, &po, emit, &x, &out, &outlen);
    if (status == 0 && !x.streamed &&
        !cli_write_file_atomic(outpath, out ? out : "", outlen, d))
        status = 1;
    free(out);
    return status;
}

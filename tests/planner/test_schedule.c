/*
 * tests/planner/test_schedule.c - operator ordering (planner/schedule.h):
 * dependency rules, the verifier (it can fail), each baseline's
 * tie-breaks on small graphs, `best` against an exhaustive search over
 * every topological order, and property tests on seeded random graphs
 * and random IR programs (aliases, inout, signatures, communication
 * buffers, streams): every order keeps every dependency, the rewritten
 * program checks, its own peak is the one reported, its planned lower
 * bound is that peak, and `best` is never worse than the others.
 *
 * PW_SEED=N reruns one seed of the property tests; seeds are printed on
 * failure.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "planner/planner.h"
#include "sched_gen.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Helpers. */

typedef struct loaded {
    base_arena *a;
    ir_program *p;
    char *text;
} loaded;

static ir_program *load(loaded *l, const char *text) {
    l->a = base_arena_new();
    size_t len = strlen(text);
    l->text = base_arena_strndup(l->a, text, len);
    FILE *quiet = fopen("/dev/null", "w");
    base_diag *d = base_diag_new(quiet, 0);
    base_diag_set_source(d, "t.pw", l->text, len);
    l->p = ir_parse(l->a, "t.pw", l->text, len, d);
    if (l->p && !ir_check(l->p, d))
        l->p = NULL;
    base_diag_free(d);
    fclose(quiet);
    if (!l->p)
        fail_msg("program does not check:\n%s", text);
    return l->p;
}

static char *print_prog(const ir_program *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    ir_print(f, p);
    fclose(f);
    return buf;
}

static void order_of(const plan_sched_graph *g, plan_order alg, uint32_t *ord,
                     plan_sched_stats *st) {
    assert_int_equal(plan_sched_order(g, alg, NULL, ord, st), 0);
}

/* A graph from a small table: uses[v] lists "s:m" pairs. */
static plan_sched_graph *mk(uint32_t n, uint32_t nstor, const char *const *uses,
                            const uint64_t *size, const bool *keep) {
    uint32_t off[64], use[256];
    uint8_t mode[256];
    uint32_t k = 0;
    for (uint32_t v = 0; v < n; v++) {
        off[v] = k;
        for (const char *s = uses[v]; *s;) {
            unsigned st, m;
            int adv = 0;
            assert_int_equal(sscanf(s, "%u:%u%n", &st, &m, &adv), 2);
            use[k] = st;
            mode[k++] = (uint8_t)m;
            s += adv;
            while (*s == ' ')
                s++;
        }
    }
    off[n] = k;
    plan_sched_graph *g =
        plan_sched_graph_new(n, nstor, off, use, mode, size, keep);
    assert_non_null(g);
    return g;
}

static bool has_edge(const plan_sched_graph *g, uint32_t a, uint32_t b) {
    for (uint32_t k = g->succ_off[a]; k < g->succ_off[a + 1]; k++)
        if (g->succ[k] == b)
            return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Dependency rules. */

static void test_edges(void **state) {
    (void)state;
    /* 0 writes s0; 1 reads s0; 2 reads s0; 3 writes s0 (WAR on 1, 2;
     * WAW on 0); 4 reads s0 (RAW on 3); 5 touches s1 only. */
    const char *uses[] = {"0:2", "0:1", "0:1", "0:2", "0:1", "1:3"};
    uint64_t size[] = {8, 8};
    bool keep[] = {false, false};
    plan_sched_graph *g = mk(6, 2, uses, size, keep);
    assert_true(has_edge(g, 0, 1) && has_edge(g, 0, 2) && has_edge(g, 0, 3));
    assert_true(has_edge(g, 1, 3) && has_edge(g, 2, 3) && has_edge(g, 3, 4));
    assert_false(has_edge(g, 1, 2) || has_edge(g, 2, 1));
    assert_int_equal(g->succ_off[5 + 1] - g->succ_off[5], 0);
    assert_int_equal(g->pred_off[5 + 1] - g->pred_off[5], 0);
    assert_int_equal(g->def[0], 0);
    plan_sched_graph_free(g);
}

static void test_edges_program(void **state) {
    (void)state;
    loaded l;
    ir_program *p = load(&l, "model m\n"
                             "kernel k(in, out)\n"
                             "input x f32[4]\n"
                             "alloc a f32[4]\n"
                             "alloc c f32[4] comm=symm group=g\n"
                             "call k(x, a)\n" /* 0 */
                             "alias b = a\n"  /* b names a */
                             "call u(b)\n"    /* 1: inout b */
                             "call k(a, c)\n" /* 2: RAW on 1 */
                             "call ar(c)\n"   /* 3: comm */
                             "call k(x, c)\n" /* 4: comm, WAR */
                             "free a b c x\n");
    (void)p;
    plan_sched_graph *g = plan_sched_graph_build(l.p);
    assert_non_null(g);
    assert_int_equal(g->n, 5);
    assert_true(has_edge(g, 0, 1) && has_edge(g, 1, 2));
    assert_true(has_edge(g, 2, 3) && has_edge(g, 3, 4));
    /* x is caller memory: no bytes, no definer */
    assert_int_equal(g->size[0], 0);
    assert_int_equal(g->def[0], -1);
    assert_true(g->comm[2]);
    plan_sched_graph_free(g);
    base_arena_free(l.a);
}

/* ------------------------------------------------------------------ */
/* The verifier can fail. */

static void test_verify_fails(void **state) {
    (void)state;
    const char *uses[] = {"0:2", "0:1", "0:2", "0:1"};
    uint64_t size[] = {8};
    bool keep[] = {false};
    plan_sched_graph *g = mk(4, 1, uses, size, keep);
    char err[200];
    uint32_t ok[] = {0, 1, 2, 3};
    assert_true(plan_sched_verify(g, ok, err, sizeof err));
    uint32_t raw[] = {1, 0, 2, 3}; /* read before its write */
    assert_false(plan_sched_verify(g, raw, err, sizeof err));
    assert_non_null(strstr(err, "call 1"));
    uint32_t war[] = {0, 2, 1, 3}; /* a write before a read it followed */
    assert_false(plan_sched_verify(g, war, err, sizeof err));
    uint32_t dup[] = {0, 1, 1, 3};
    assert_false(plan_sched_verify(g, dup, err, sizeof err));
    assert_non_null(strstr(err, "permutation"));
    plan_sched_graph_free(g);
}

/* ------------------------------------------------------------------ */
/* Baselines on small graphs (expected orders worked out by hand from the
 * rules in docs/schedule.md). */

/* Two independent branches from one source: 0 -> {1 (big), 2 (small)},
 * 1 -> 3, 2 -> 4, outputs 3 and 4. */
static plan_sched_graph *two_branches(void) {
    const char *uses[] = {"0:2", "0:1 1:2", "0:1 2:2", "1:1 3:2", "2:1 4:2"};
    uint64_t size[] = {10, 100, 1, 5, 5};
    bool keep[] = {false, false, false, true, true};
    return mk(5, 5, uses, size, keep);
}

static void test_baselines(void **state) {
    (void)state;
    plan_sched_graph *g = two_branches();
    uint32_t o[5];
    /* lpmf: after 0 (live 10, max 10 = outputs), 1 gives max(110, 10)
     * and 2 gives max(11, 10): 2 first, then 4 (frees 2), then 1, 3. */
    order_of(g, PLAN_ORDER_LPMF, o, NULL);
    uint32_t lpmf[] = {0, 2, 4, 1, 3};
    assert_memory_equal(o, lpmf, sizeof o);
    /* bfs: priorities [0] for 1 and 2 (index breaks the tie), then [1]
     * for 3 and [2] for 4. */
    order_of(g, PLAN_ORDER_BFS, o, NULL);
    uint32_t bfs[] = {0, 1, 2, 3, 4};
    assert_memory_equal(o, bfs, sizeof o);
    /* dfs: size_with_reads 0:10 1:110 2:11 3:105 4:6: visit 0, 4 (with
     * its ancestors 2), 2, 3 (with 1). */
    order_of(g, PLAN_ORDER_DFS, o, NULL);
    uint32_t dfs[] = {0, 2, 4, 1, 3};
    assert_memory_equal(o, dfs, sizeof o);
    /* list: after 0, 1: 0 - 100, 2: 0 - 1 (neither is the last user of
     * storage 0): 2, then 4 (5 - 5... freed 1 - 5 = -4) vs 1 (-100 + 0,
     * storage 0 now freed by 1: 10 - 100): 4, then 1, 3. */
    order_of(g, PLAN_ORDER_LIST, o, NULL);
    uint32_t list[] = {0, 2, 4, 1, 3};
    assert_memory_equal(o, list, sizeof o);
    plan_sched_stats st;
    order_of(g, PLAN_ORDER_BEST, o, &st);
    assert_int_equal(st.peak[PLAN_ORDER_BEST], plan_sched_peak(g, o));
    assert_true(st.peak[PLAN_ORDER_BEST] <= st.peak[PLAN_ORDER_BFS]);
    plan_sched_graph_free(g);
}

/* XLA's ties go to the entry inserted last: three equal ready sources. */
static void test_list_ties(void **state) {
    (void)state;
    const char *uses[] = {"0:2", "1:2", "2:2"};
    uint64_t size[] = {4, 4, 4};
    bool keep[] = {true, true, true};
    plan_sched_graph *g = mk(3, 3, uses, size, keep);
    uint32_t o[3], want[] = {2, 1, 0};
    order_of(g, PLAN_ORDER_LIST, o, NULL);
    assert_memory_equal(o, want, sizeof o);
    uint32_t want_lpmf[] = {0, 1, 2}; /* lpmf: ties by index */
    order_of(g, PLAN_ORDER_LPMF, o, NULL);
    assert_memory_equal(o, want_lpmf, sizeof o);
    plan_sched_graph_free(g);
}

/* ------------------------------------------------------------------ */
/* best is optimal on small graphs: exhaustive search. */

typedef struct exh {
    const plan_sched_graph *g;
    uint32_t *indeg, *ord;
    uint8_t *used;
    uint64_t best;
    bool parts; /* minimise the runs of capturable calls, not the peak */
} exh;

static void exh_rec(exh *E, uint32_t t) {
    const plan_sched_graph *g = E->g;
    if (t == g->n) {
        uint64_t p = E->parts ? plan_sched_count_partitions(g, E->ord)
                              : plan_sched_peak(g, E->ord);
        E->best = p < E->best ? p : E->best;
        return;
    }
    for (uint32_t v = 0; v < g->n; v++) {
        if (E->used[v] || E->indeg[v])
            continue;
        E->used[v] = 1;
        E->ord[t] = v;
        for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
            E->indeg[g->succ[k]]--;
        exh_rec(E, t + 1);
        for (uint32_t k = g->succ_off[v]; k < g->succ_off[v + 1]; k++)
            E->indeg[g->succ[k]]++;
        E->used[v] = 0;
    }
}

static uint64_t exhaustive(const plan_sched_graph *g, bool parts) {
    exh E = {.g = g, .best = UINT64_MAX, .parts = parts};
    E.indeg = calloc(g->n + 1, sizeof *E.indeg);
    E.ord = calloc(g->n + 1, sizeof *E.ord);
    E.used = calloc(g->n + 1, 1);
    for (uint32_t v = 0; v < g->n; v++)
        E.indeg[v] = g->pred_off[v + 1] - g->pred_off[v];
    exh_rec(&E, 0);
    free(E.indeg);
    free(E.ord);
    free(E.used);
    return E.best;
}

static uint64_t env_seed(uint64_t dflt_count, uint64_t *count) {
    const char *s = getenv("PW_SEED");
    *count = s ? 1 : dflt_count;
    return s ? strtoull(s, NULL, 10) : 1;
}

static void test_best_exact(void **state) {
    (void)state;
    uint64_t count, s0 = env_seed(60, &count);
    for (uint64_t seed = s0; seed < s0 + count; seed++) {
        sgen_graph gg;
        assert_true(
            sgen_make(SGEN_RANDOM, 4 + (uint32_t)(seed % 6), seed, &gg));
        plan_sched_graph *g = sgen_sched_graph(&gg, seed % 3 ? 0 : 3);
        assert_non_null(g);
        uint32_t o[16];
        plan_sched_stats st;
        order_of(g, PLAN_ORDER_BEST, o, &st);
        uint64_t opt = exhaustive(g, false);
        if (st.peak[PLAN_ORDER_BEST] != opt || st.exact_segments != st.segments)
            fail_msg("seed %llu: best %llu, optimum %llu (%u/%u exact)",
                     (unsigned long long)seed,
                     (unsigned long long)st.peak[PLAN_ORDER_BEST],
                     (unsigned long long)opt, st.exact_segments, st.segments);
        plan_sched_graph_free(g);
        sgen_free(&gg);
    }
}

/* partitions: the fewest runs of capturable calls (exhaustive search),
 * unless the given order was kept for its peak. */
static void test_partitions(void **state) {
    (void)state;
    uint64_t count, s0 = env_seed(60, &count);
    for (uint64_t seed = s0; seed < s0 + count; seed++) {
        sgen_graph gg;
        assert_true(
            sgen_make(SGEN_RANDOM, 4 + (uint32_t)(seed % 6), seed, &gg));
        plan_sched_graph *g = sgen_sched_graph(&gg, 0);
        assert_non_null(g);
        for (uint32_t v = 0; v < g->n; v++)
            g->nocapture[v] = (seed >> (v % 8) & 1) != 0;
        uint32_t o[16];
        plan_sched_stats st;
        order_of(g, PLAN_ORDER_PARTITIONS, o, &st);
        char err[200];
        assert_true(plan_sched_verify(g, o, err, sizeof err));
        assert_int_equal(st.parts, plan_sched_count_partitions(g, o));
        uint64_t opt = exhaustive(g, true);
        bool kept = strcmp(st.won_by, "keep") == 0;
        if (kept ? st.parts != st.parts_given : st.parts != opt)
            fail_msg("seed %llu: %u runs (given %u, fewest %llu, %s)",
                     (unsigned long long)seed, st.parts, st.parts_given,
                     (unsigned long long)opt, kept ? "kept" : "reordered");
        plan_sched_graph_free(g);
        sgen_free(&gg);
    }
}

/* ------------------------------------------------------------------ */
/* Property: random graphs. */

static void check_graph(const plan_sched_graph *g, unsigned long long seed,
                        const char *what) {
    uint32_t *o = malloc((g->n + 1) * sizeof *o);
    uint32_t *o2 = malloc((g->n + 1) * sizeof *o2);
    char err[256];
    plan_sched_stats st, st2;
    for (plan_order a = PLAN_ORDER_KEEP; a < PLAN_ORDER_COUNT; a++) {
        order_of(g, a, o, &st);
        if (!plan_sched_verify(g, o, err, sizeof err))
            fail_msg("seed %llu (%s), order %s: %s", seed, what,
                     plan_order_name(a), err);
        order_of(g, a, o2, &st2);
        if (memcmp(o, o2, g->n * sizeof *o) != 0)
            fail_msg("seed %llu (%s): %s is not deterministic", seed, what,
                     plan_order_name(a));
        if (a != PLAN_ORDER_BEST)
            continue;
        for (plan_order b = PLAN_ORDER_KEEP; b < PLAN_ORDER_BEST; b++)
            if (st.peak[PLAN_ORDER_BEST] > st.peak[b])
                fail_msg("seed %llu (%s): best %llu above %s %llu", seed, what,
                         (unsigned long long)st.peak[PLAN_ORDER_BEST],
                         plan_order_name(b), (unsigned long long)st.peak[b]);
    }
    free(o);
    free(o2);
}

static void test_random_graphs(void **state) {
    (void)state;
    uint64_t count, s0 = env_seed(40, &count);
    for (uint64_t seed = s0; seed < s0 + count; seed++) {
        sgen_kind k = (sgen_kind)(seed % SGEN_KIND_COUNT);
        sgen_graph gg;
        assert_true(sgen_make(k, 30 + (uint32_t)(seed * 7 % 120), seed, &gg));
        plan_sched_graph *g = sgen_sched_graph(&gg, seed % 2 ? 0 : 4);
        assert_non_null(g);
        check_graph(g, (unsigned long long)seed, sgen_name(k));
        plan_sched_graph_free(g);
        sgen_free(&gg);
    }
}

/* ------------------------------------------------------------------ */
/* Property: random programs, rewritten. */

typedef struct rp {
    char *buf;
    size_t len;
    FILE *f;
    uint64_t rng;
    uint32_t nlive, nnames;
    uint32_t live[64]; /* name ids alive */
    bool comm[512], is_input[512];
    bool allow_comm; /* odd seeds: one pool, whose lower bound is checked */
} rp;

static uint32_t rp_below(rp *r, uint32_t n) {
    uint64_t x = (r->rng += 0x9e3779b97f4a7c15u); /* splitmix64 */
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9u;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebu;
    x ^= x >> 31;
    return n ? (uint32_t)(x % n) : 0;
}

static uint32_t rp_pick(rp *r) {
    return r->live[rp_below(r, r->nlive)];
}

static void rp_new(rp *r, const char *kind, const char *extra) {
    uint32_t id = r->nnames++;
    fprintf(r->f, "%s n%u f32[%u]%s\n", kind, id, 1 + rp_below(r, 64), extra);
    r->comm[id] = *extra != '\0';
    r->is_input[id] = strcmp(kind, "alloc") != 0;
    if (r->nlive < 64)
        r->live[r->nlive++] = id;
}

static void rp_step(rp *r) {
    uint32_t a = rp_pick(r), b = rp_pick(r);
    const char *st = rp_below(r, 5) == 0 ? " stream=1" : "";
    switch (rp_below(r, 8)) {
    case 0:
    case 1:
    case 2: /* a new buffer written from two others */
        rp_new(r, "alloc", "");
        fprintf(r->f, "call w(n%u, n%u, n%u)%s\n", a, b, r->nnames - 1, st);
        break;
    case 3: /* in place, through an alias */
        if (r->is_input[a] || r->comm[a])
            break;
        fprintf(r->f, "alias n%u = n%u\n", r->nnames, a);
        r->comm[r->nnames] = false;
        r->is_input[r->nnames] = false;
        r->live[r->nlive++ % 64] = r->nnames;
        fprintf(r->f, "call u(n%u, n%u)%s\n", r->nnames++, b, st);
        break;
    case 4: /* no signature: every buffer inout */
        fprintf(r->f, "call z(n%u, n%u, 3)%s\n", a, b, st);
        break;
    case 5: /* a communication buffer and a collective */
        if (!r->allow_comm)
            break;
        rp_new(r, "alloc", " comm=symm group=g");
        fprintf(r->f, "call w(n%u, n%u, n%u)\ncall ar(n%u)\n", a, b,
                r->nnames - 1, r->nnames - 1);
        break;
    default: /* free one name */
        if (r->nlive > 3) {
            uint32_t i = rp_below(r, r->nlive);
            fprintf(r->f, "free n%u\n", r->live[i]);
            r->live[i] = r->live[--r->nlive];
        }
    }
}

static char *random_program(uint64_t seed) {
    rp r = {.rng = seed * 1000003, .allow_comm = seed % 2 == 0};
    r.f = open_memstream(&r.buf, &r.len);
    fprintf(r.f, "model r\n# a comment\nkernel w(in, in, out)\n"
                 "kernel u(inout, in)\n");
    rp_new(&r, "input", "");
    rp_new(&r, "const", "");
    uint32_t steps = 5 + rp_below(&r, 40);
    for (uint32_t i = 0; i < steps; i++)
        rp_step(&r);
    for (uint32_t i = 0; i < r.nlive; i++) /* an output: a planned name */
        if (!r.is_input[r.live[i]] && !r.comm[r.live[i]]) {
            fprintf(r.f, "output n%u  # the result\n", r.live[i]);
            break;
        }
    fclose(r.f);
    return r.buf;
}

/* The lower bound of the one pool (outputs pooled, alignment 1), or
 * UINT64_MAX when there are several (communication buffers): a sum of
 * per-pool maxima is no peak. */
static uint64_t planned_lb(base_arena *a, const ir_program *p) {
    plan_options o;
    plan_options_init(&o);
    o.align = 1;
    o.memory_pool = PLAN_MP_COMBINED;
    o.streams = PLAN_STREAMS_SHARE;
    base_diag *d = base_diag_new(stderr, 0);
    plan *pl = plan_program(a, p, &o, d);
    base_diag_free(d);
    assert_non_null(pl);
    return pl->npools == 1 ? pl->pools[0].lower_bound : UINT64_MAX;
}

/* The rewritten program is a normal form: rewriting its text again in
 * its own order gives the same text. */
static void check_fixed_point(const ir_program *np, uint64_t seed,
                              plan_order a) {
    char *text = print_prog(np);
    loaded l;
    load(&l, text);
    base_diag *d = base_diag_new(stderr, 0);
    plan_sched_stats st;
    ir_program *again =
        plan_sched_program(l.a, l.p, PLAN_ORDER_KEEP, NULL, d, &st);
    base_diag_free(d);
    assert_non_null(again);
    char *out = print_prog(again);
    if (strcmp(out, text) != 0)
        fail_msg("seed %llu, order %s: not a fixed point:\n%s\nbecomes\n%s",
                 (unsigned long long)seed, plan_order_name(a), text, out);
    free(out);
    free(text);
    base_arena_free(l.a);
}

/* ir_value's invariant (ir/ir.h), which plan_program relies on: each
 * value after the values it refers to, its root one of a root kind. */
static void check_value_order(const ir_program *p, uint64_t seed) {
    for (uint32_t v = 0; v < p->nvalues; v++) {
        const ir_value *x = &p->values[v];
        bool alias = x->kind == IR_VAL_ALIAS;
        bool ok = x->root >= 0 &&
                  (alias ? x->root < (int32_t)v : x->root == (int32_t)v);
        ok = ok && (!alias || (x->alias_of >= 0 && x->alias_of < (int32_t)v &&
                               p->values[x->alias_of].root == x->root));
        ok = ok && p->values[x->root].kind != IR_VAL_ALIAS;
        ok = ok && (v == 0 || p->values[v - 1].def < x->def);
        if (!ok)
            fail_msg("seed %llu: value %u (%s): root %d, alias of %d, def %u",
                     (unsigned long long)seed, v, x->name, x->root, x->alias_of,
                     x->def);
    }
}

static void check_program(uint64_t seed) {
    char *text = random_program(seed);
    loaded l;
    load(&l, text);
    check_value_order(l.p, seed);
    plan_sched_graph *g = plan_sched_graph_build(l.p);
    assert_non_null(g);
    for (plan_order a = PLAN_ORDER_KEEP; a < PLAN_ORDER_COUNT; a++) {
        plan_sched_stats st;
        base_diag *d = base_diag_new(stderr, 0);
        ir_program *np = plan_sched_program(l.a, l.p, a, NULL, d, &st);
        base_diag_free(d);
        if (!np)
            fail_msg("seed %llu, order %s: no program\n%s",
                     (unsigned long long)seed, plan_order_name(a), text);
        check_value_order(np, seed);
        /* the new program's calls, mapped back by source line */
        plan_sched_graph *ng = plan_sched_graph_build(np);
        assert_non_null(ng);
        assert_int_equal(ng->n, g->n);
        uint32_t *map = calloc(g->n + 1, sizeof *map);
        for (uint32_t t = 0; t < ng->n; t++) {
            uint32_t line = np->stmts[ng->stmt[t]].loc.line, v = 0;
            while (v < g->n && l.p->stmts[g->stmt[v]].loc.line != line)
                v++;
            assert_true(v < g->n);
            map[t] = v;
        }
        char err[256];
        if (!plan_sched_verify(g, map, err, sizeof err))
            fail_msg("seed %llu, order %s: %s", (unsigned long long)seed,
                     plan_order_name(a), err);
        uint64_t peak = plan_sched_peak(g, map);
        uint32_t *id = calloc(ng->n + 1, sizeof *id);
        for (uint32_t t = 0; t < ng->n; t++)
            id[t] = t;
        uint64_t own = plan_sched_peak(ng, id);
        if (peak != st.peak[a] || own != peak)
            fail_msg("seed %llu, order %s: peak %llu, reported %llu, of the "
                     "new program %llu",
                     (unsigned long long)seed, plan_order_name(a),
                     (unsigned long long)peak, (unsigned long long)st.peak[a],
                     (unsigned long long)own);
        check_fixed_point(np, seed, a);
        uint64_t lb = planned_lb(l.a, np);
        if (lb != own && lb != UINT64_MAX)
            fail_msg("seed %llu, order %s: planned lower bound %llu, peak "
                     "%llu\n%s",
                     (unsigned long long)seed, plan_order_name(a),
                     (unsigned long long)lb, (unsigned long long)own,
                     print_prog(np));
        free(id);
        free(map);
        plan_sched_graph_free(ng);
    }
    plan_sched_graph_free(g);
    base_arena_free(l.a);
    free(text);
}

static void test_random_programs(void **state) {
    (void)state;
    uint64_t count, s0 = env_seed(150, &count);
    for (uint64_t seed = s0; seed < s0 + count; seed++)
        check_program(seed);
}

/* The rewrite: allocs before first use, frees after last use, comments
 * kept, a fixed point. */
static void test_rewrite_text(void **state) {
    (void)state;
    loaded l;
    load(&l, "model m\n"
             "kernel k(in, out)\n"
             "input x f32[4]\n"
             "alloc a f32[100]\n"
             "alloc b f32[50]\n"
             "call k(x, a)  # big\n"
             "call k(x, b)\n"
             "# the small one first would be better\n"
             "alloc c f32[1]\n"
             "call k(b, c)\n"
             "free b\n"
             "alloc d f32[1]\n"
             "call k(a, d)\n"
             "free a x\n"
             "output c d\n");
    base_diag *d = base_diag_new(stderr, 0);
    plan_sched_stats st;
    ir_program *np =
        plan_sched_program(l.a, l.p, PLAN_ORDER_BEST, NULL, d, &st);
    base_diag_free(d);
    assert_non_null(np);
    char *out = print_prog(np);
    const char *want = "model m\n"
                       "kernel k(in, out)\n"
                       "input  x f32[4]\n"
                       "alloc  a f32[100]\n"
                       "call   k(x, a)  # big\n"
                       "alloc  d f32[1]\n"
                       "call   k(a, d)\n"
                       "free   a\n"
                       "alloc  b f32[50]\n"
                       "call   k(x, b)\n"
                       "free   x\n"
                       "# the small one first would be better\n"
                       "alloc  c f32[1]\n"
                       "call   k(b, c)\n"
                       "free   b\n"
                       "output c d\n";
    assert_string_equal(out, want);
    assert_int_equal(st.peak_given, 604);
    assert_int_equal(st.peak[PLAN_ORDER_BEST], 404);
    free(out);
    base_arena_free(l.a);
}

/* A kept storage no call touches: it sets the peak, and best's local
 * search (which moves calls around the peak step) finds no such step. */
static void test_untouched_peak(void **state) {
    (void)state;
    loaded l;
    load(&l, "model e\n"
             "input x f32[4]\n"
             "alloc big f32[10000]\n"
             "alloc a f32[4]\n"
             "call k(x, a)\n"
             "alloc b f32[4]\n"
             "call k(x, b)\n"
             "free a b\n"
             "output big\n");
    for (plan_order a = PLAN_ORDER_KEEP; a < PLAN_ORDER_COUNT; a++) {
        plan_sched_stats st;
        base_diag *d = base_diag_new(stderr, 0);
        assert_non_null(plan_sched_program(l.a, l.p, a, NULL, d, &st));
        base_diag_free(d);
        assert_int_equal(st.peak[a], 40016);
    }
    base_arena_free(l.a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_edges),
        cmocka_unit_test(test_edges_program),
        cmocka_unit_test(test_verify_fails),
        cmocka_unit_test(test_baselines),
        cmocka_unit_test(test_list_ties),
        cmocka_unit_test(test_best_exact),
        cmocka_unit_test(test_partitions),
        cmocka_unit_test(test_random_graphs),
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_rewrite_text),
        cmocka_unit_test(test_untouched_peak),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

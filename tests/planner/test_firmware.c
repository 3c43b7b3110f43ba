/*
 * tests/planner/test_firmware.c - the firmware parts of the planner
 * (docs/firmware.md): spill selection on random problems (capacity kept,
 * layouts checked by the O(n^2) reference checker), spill chains of a
 * program (verifier and capacities), planned inputs, states and next=
 * outputs, and the per-space report.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Kept buffers of a spill selection as a problem of their own. */
static int kept_layout_ok(const plan_problem *pb, const bool *keep,
                          const uint64_t *off, uint64_t size) {
    plan_buf *bufs = calloc(pb->n + 1, sizeof *bufs);
    uint64_t *o = calloc(pb->n + 1, sizeof *o);
    plan_problem sub = {0, bufs, pb->align, NULL};
    for (uint32_t i = 0; i < pb->n; i++)
        if (keep[i]) {
            o[sub.n] = off[i];
            bufs[sub.n++] = pb->bufs[i];
        }
    int ok = pt_check_slow(&sub, o, size);
    free(bufs);
    free(o);
    return ok;
}

/* The selection keeps no fewer accessed bytes than the banked greedy,
 * with no larger total; both banks of the banked greedy are valid. */
static void check_against_banked(const plan_problem *pb, const uint64_t *acc,
                                 uint64_t cap, const bool *keep,
                                 uint64_t size) {
    uint32_t n = pb->n;
    bool *fast = calloc(n + 1, sizeof *fast), *out = calloc(n + 1, 1);
    uint64_t *boff = calloc(n + 1, sizeof *boff);
    uint64_t fs, ss, slow, kept = 0, bkept = 0;
    assert_int_equal(plan_spill_banked(pb, cap, fast, boff, &fs, &ss), 0);
    uint64_t pa = pb->align ? pb->align : 1;
    assert_true(fs <= cap / pa * pa);
    assert_true(kept_layout_ok(pb, fast, boff, fs));
    for (uint32_t i = 0; i < n; i++) {
        out[i] = !fast[i];
        kept += keep[i] ? acc[i] : 0;
        bkept += fast[i] ? acc[i] : 0;
    }
    assert_true(kept_layout_ok(pb, out, boff, ss));
    for (uint32_t i = 0; i < n; i++)
        out[i] = !keep[i];
    assert_int_equal(plan_spill_slow(pb, out, boff, &slow), 0);
    assert_true(kept_layout_ok(pb, out, boff, slow));
    assert_true(kept >= bkept);
    assert_true(size + slow <= fs + ss);
    free(fast);
    free(out);
    free(boff);
}

static void test_spill_select_random(void **st) {
    (void)st;
    uint64_t seed = 13;
    enum { N = 60 };
    plan_buf bufs[N];
    uint64_t acc[N], off[N], boff[N];
    bool keep[N];
    for (int iter = 0; iter < 400; iter++) {
        plan_problem pb;
        uint32_t n = 1 + (uint32_t)pt_below(&seed, N);
        pt_random_problem(&seed, &pb, bufs, n, 40, iter % 2);
        for (uint32_t i = 0; i < n; i++)
            acc[i] = bufs[i].size * (1 + pt_below(&seed, 8));
        uint64_t full;
        assert_int_equal(plan_bestfit(&pb, boff, &full), 0);
        uint64_t cap = pt_below(&seed, full + full / 4 + 1);
        uint64_t size = UINT64_MAX;
        assert_int_equal(plan_spill_select(&pb, acc, cap, keep, off, &size), 0);
        assert_true(size <= cap);
        assert_true(size % (pb.align ? pb.align : 1) == 0);
        assert_true(kept_layout_ok(&pb, keep, off, size));
        check_against_banked(&pb, acc, cap, keep, size);
        if (full <= cap)
            for (uint32_t i = 0; i < n; i++)
                assert_true(keep[i]); /* everything fits: nothing spills */
        /* filled: no spilled buffer fits at 0 or at the aligned end of a
         * kept one (the only places a lowest gap can start) */
        for (uint32_t i = 0; i < n; i++) {
            if (keep[i] || !bufs[i].size)
                continue;
            uint64_t a = bufs[i].align > pb.align ? bufs[i].align : pb.align;
            a = a ? a : 1;
            keep[i] = true;
            for (uint32_t j = 0; j <= n; j++) {
                if (j < n && (!keep[j] || j == i))
                    continue;
                uint64_t at = j < n ? off[j] + bufs[j].size : 0;
                at = (at + a - 1) / a * a;
                uint64_t c =
                    cap / (pb.align ? pb.align : 1) * (pb.align ? pb.align : 1);
                if (at + bufs[i].size > c)
                    continue;
                off[i] = at;
                assert_false(kept_layout_ok(&pb, keep, off, c));
            }
            keep[i] = false;
        }
    }
}

/* Keeps the buffers of highest density when they all fit. */
static void test_spill_select_density(void **st) {
    (void)st;
    plan_buf bufs[3] = {
        {256, 1, 0, 10, 0, -1}, /* 256 B, accessed 256: density 1 */
        {128, 1, 0, 10, 0, -1}, /* 128 B, accessed 1280: 10 */
        {128, 1, 0, 10, 0, -1}, /* 128 B, accessed 640: 5 */
    };
    plan_problem pb = {3, bufs, 64, NULL};
    uint64_t acc[3] = {256, 1280, 640}, off[3], size;
    bool keep[3];
    assert_int_equal(plan_spill_select(&pb, acc, 256, keep, off, &size), 0);
    assert_false(keep[0]);
    assert_true(keep[1]);
    assert_true(keep[2]);
    assert_int_equal(size, 256);
    /* capacity 300: rounded down to the pool alignment, 256 */
    assert_int_equal(plan_spill_select(&pb, acc, 300, keep, off, &size), 0);
    assert_int_equal(size, 256);
    assert_false(keep[0]);
}

typedef struct loaded {
    base_arena *a;
    ir_program *p;
    base_diag *d;
    FILE *f;
    char *diag;
    size_t dlen;
} loaded;

static plan *load_plan(loaded *l, const char *text, const plan_options *o) {
    l->a = base_arena_new();
    l->diag = NULL;
    l->f = open_memstream(&l->diag, &l->dlen);
    l->d = base_diag_new(l->f, 0);
    size_t len = strlen(text);
    char *copy = base_arena_strndup(l->a, text, len);
    base_diag_set_source(l->d, "t.pw", copy, len);
    l->p = ir_parse(l->a, "t.pw", copy, len, l->d);
    if (!l->p || !ir_check(l->p, l->d)) {
        fflush(l->f);
        fail_msg("does not check:\n%s", l->diag);
    }
    plan *pl = plan_program(l->a, l->p, o, l->d);
    fflush(l->f);
    if (!pl)
        fail_msg("does not plan:\n%s", l->diag);
    char err[512];
    if (!plan_verify(pl, err, sizeof err))
        fail_msg("does not verify: %s", err);
    return pl;
}

static void unload(loaded *l) {
    base_diag_free(l->d);
    fclose(l->f);
    free(l->diag);
    base_arena_free(l->a);
}

static const plan_storage *storage(const plan *pl, const char *name) {
    for (uint32_t s = 0; s < pl->nstorages; s++)
        if (strcmp(pl->prog->values[pl->storages[s].value].name, name) == 0)
            return &pl->storages[s];
    fail_msg("no storage %s", name);
    return NULL;
}

static const plan_pool *pool_of(const plan *pl, const char *name) {
    const plan_storage *s = storage(pl, name);
    assert_true(s->pool >= 0);
    return &pl->pools[s->pool];
}

/* tcm -> sram -> dram: four 256-byte buffers live together. */
static const char chain_prog[] =
    "model m\n"
    "space tcm capacity=256 spill=sram\n"
    "space sram capacity=512 spill=dram\n"
    "space dram\n"
    "alloc a f32[64] space=tcm\nalloc b f32[64] space=tcm\n"
    "alloc c f32[64] space=tcm\nalloc d f32[64] space=tcm\n"
    "call k4(a, b, c, d)\ncall k(a)\ncall k(a)\ncall k(b)\ncall k(c)\n"
    "free a b c d\n";

static void test_spill_chain(void **st) {
    (void)st;
    plan_options o;
    plan_options_init(&o);
    o.verify = true;
    loaded l;
    plan *pl = load_plan(&l, chain_prog, &o);
    /* a is accessed most: it stays in tcm; b and c go to sram; d on */
    assert_string_equal(pool_of(pl, "a")->space, "tcm");
    assert_string_equal(pool_of(pl, "b")->space, "sram");
    assert_string_equal(pool_of(pl, "c")->space, "sram");
    assert_string_equal(pool_of(pl, "d")->space, "dram");
    assert_true(storage(pl, "d")->spilled);
    assert_false(storage(pl, "a")->spilled);
    for (uint32_t i = 0; i < pl->npools; i++)
        if (pl->pools[i].has_capacity)
            assert_true(pl->pools[i].size <= pl->pools[i].capacity);
    plan_space_report *r;
    uint32_t n = plan_space_reports(pl, l.a, &r);
    assert_int_equal(n, 3);
    assert_string_equal(r[0].name, "tcm");
    assert_int_equal(r[0].size, 256);
    assert_int_equal(r[0].headroom, 0);
    assert_int_equal(r[0].nspilled, 3);
    assert_int_equal(r[0].accessed, 3 * 256);
    assert_int_equal(r[0].nreceived, 0);
    /* b, c, d came from tcm; d went on to dram */
    assert_int_equal(r[1].nreceived, 3);
    assert_int_equal(r[1].nspilled, 1);
    assert_int_equal(r[2].nreceived, 1);
    assert_int_equal(r[2].nspilled, 0);
    assert_int_equal(r[2].accessed, 256);
    assert_int_equal(pl->accessed, 8 * 256);
    assert_int_equal(r[0].npermille, 375); /* 3/8 */
    unload(&l);
}

/* The pool of a space with spill= is placed with --algo when that fits
 * the capacity, else it keeps the selection's layout. */
static void test_spill_algo(void **st) {
    (void)st;
    static const char prog[] = "model m\n"
                               "space s capacity=%d spill=d\n"
                               "space d\n"
                               "alloc a f32[16] space=s\n"
                               "call k(a)\n"
                               "free a\n"
                               "alloc b f32[16] space=s\n"
                               "call k(b)\n"
                               "free b\n";
    for (int cap = 64; cap <= 1024; cap += 960) {
        char text[512];
        snprintf(text, sizeof text, prog, cap);
        plan_options o;
        plan_options_init(&o);
        o.verify = true;
        o.algo = PLAN_NAIVE;
        loaded l;
        plan *pl = load_plan(&l, text, &o);
        assert_false(storage(pl, "b")->spilled);
        /* naive: b after a (128 bytes) when 1024 fit; else the
         * selection's best fit, both at 0 */
        assert_int_equal(storage(pl, "b")->offset, cap == 64 ? 0 : 64);
        unload(&l);
    }
}

/* A planned input's bytes are reused after its last use; a state and
 * its next= output live through the whole run, in the arena. */
static const char fw_prog[] = "model m\n"                 /* 0 */
                              "input x f32[64] planned\n" /* 1 */
                              "state h f32[16] next=y\n"  /* 2 */
                              "alloc t f32[64]\n"         /* 3 */
                              "call k3(x, h, t)\n"        /* 4 */
                              "free x h\n"                /* 5 */
                              "alloc u f32[64]\n"         /* 6 */
                              "call k(t, u)\n"            /* 7 */
                              "free t\n"                  /* 8 */
                              "alloc y f32[16]\n"         /* 9 */
                              "call k(u, y)\n"            /* 10 */
                              "free u\n"                  /* 11 */
                              "output y\n";               /* 12 */

static void test_planned_and_state(void **st) {
    (void)st;
    plan_options o;
    plan_options_init(&o);
    o.verify = true;
    loaded l;
    plan *pl = load_plan(&l, fw_prog, &o);
    const plan_storage *x = storage(pl, "x"), *h = storage(pl, "h"),
                       *y = storage(pl, "y"), *u = storage(pl, "u");
    assert_int_equal(pl->nstorages, 5);
    assert_int_equal(x->start, 0);
    assert_int_equal(x->end, 5);
    assert_true(x->pool >= 0);
    assert_int_equal(u->offset, x->offset); /* x's bytes, after its free */
    assert_int_equal(h->start, 0);
    assert_int_equal(h->end, 12);
    assert_int_equal(h->dies_at, -1); /* `free h` ends a use, not the state */
    assert_int_equal(y->start, 0);
    assert_true(y->pool >= 0); /* a next= output stays in the arena */
    assert_true(h->offset + h->size <= y->offset ||
                y->offset + y->size <= h->offset);
    unload(&l);
    /* without `planned`, --plan-inputs does the same; --plan-outputs
     * pools every output */
    static const char plain[] = "model m\ninput x f32[4]\nalloc y f32[4]\n"
                                "call k(x, y)\nfree x\noutput y\n";
    pl = load_plan(&l, plain, &o);
    assert_int_equal(pl->nstorages, 1);
    assert_int_equal(storage(pl, "y")->pool, -1);
    unload(&l);
    o.plan_inputs = o.plan_outputs = true;
    pl = load_plan(&l, plain, &o);
    assert_int_equal(pl->nstorages, 2);
    assert_true(storage(pl, "x")->pool >= 0);
    assert_true(storage(pl, "y")->pool >= 0);
    unload(&l);
}

/* The verifier rejects a pool over its capacity. */
static void test_verify_capacity(void **st) {
    (void)st;
    plan_options o;
    plan_options_init(&o);
    loaded l;
    plan *pl = load_plan(&l, chain_prog, &o);
    char err[512];
    for (uint32_t i = 0; i < pl->npools; i++)
        if (pl->pools[i].has_capacity)
            pl->pools[i].capacity = pl->pools[i].size - 1;
    assert_false(plan_verify(pl, err, sizeof err));
    assert_non_null(strstr(err, "over the capacity"));
    unload(&l);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spill_select_random),
        cmocka_unit_test(test_spill_select_density),
        cmocka_unit_test(test_spill_chain),
        cmocka_unit_test(test_spill_algo),
        cmocka_unit_test(test_planned_and_state),
        cmocka_unit_test(test_verify_capacity),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

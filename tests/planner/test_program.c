/*
 * tests/planner/test_program.c - planning checked programs: liveness with
 * alias forwarding, outputs, zero-size storages, pools and their names,
 * alignment, memory-pool modes, streams, space capacity, reuse_of, and
 * property tests on seeded random programs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include "plan_test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct loaded {
    base_arena *a;
    ir_program *p;
    char *diag;
    size_t dlen;
    const char *text;
} loaded;

static ir_program *load(loaded *l, const char *text) {
    l->a = base_arena_new();
    l->diag = NULL;
    FILE *f = open_memstream(&l->diag, &l->dlen);
    base_diag *d = base_diag_new(f, 0);
    size_t len = strlen(text);
    char *copy = base_arena_strndup(l->a, text, len);
    l->text = copy;
    base_diag_set_source(d, "t.pw", copy, len);
    l->p = ir_parse(l->a, "t.pw", copy, len, d);
    if (l->p && !ir_check(l->p, d))
        l->p = NULL;
    base_diag_free(d);
    fclose(f);
    if (!l->p)
        fail_msg("program does not check:\n%s", l->diag);
    return l->p;
}

static plan *plan_it(loaded *l, const plan_options *o, char **msg) {
    char *buf = NULL;
    size_t blen = 0;
    FILE *f = open_memstream(&buf, &blen);
    base_diag *d = base_diag_new(f, 0);
    base_diag_set_source(d, "t.pw", l->text, strlen(l->text));
    plan *pl = plan_program(l->a, l->p, o, d);
    base_diag_free(d);
    fclose(f);
    if (msg)
        *msg = buf;
    else
        free(buf);
    return pl;
}

static void unload(loaded *l) {
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

static const char alias_prog[] = "model m\n"         /* 0 */
                                 "input x f32[4]\n"  /* 1 */
                                 "alloc a f32[16]\n" /* 2 */
                                 "call k(x, a)\n"    /* 3 */
                                 "alias b = a\n"     /* 4 */
                                 "free a\n"          /* 5 */
                                 "alloc c f32[16]\n" /* 6 */
                                 "call k(b, c)\n"    /* 7 */
                                 "free b\n"          /* 8 */
                                 "alloc d f32[16]\n" /* 9 */
                                 "call k(c, d)\n"    /* 10 */
                                 "free c x\n"        /* 11 */
                                 "output d\n";       /* 12 */

static void test_alias_forwarding(void **st) {
    (void)st;
    loaded l;
    load(&l, alias_prog);
    plan_options o;
    plan_options_init(&o);
    o.memory_pool = PLAN_MP_COMBINED;
    plan *pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    const plan_storage *a = storage(pl, "a"), *c = storage(pl, "c"),
                       *d = storage(pl, "d");
    assert_int_equal(pl->nstorages, 3);
    assert_int_equal(a->start, 2);
    assert_int_equal(a->end, 8); /* dies with its alias b */
    assert_int_equal(a->dies_at, 8);
    assert_int_equal(c->end, 11);
    assert_int_equal(d->end, 12);
    assert_int_equal(d->dies_at, -1);
    assert_true(d->is_output);
    assert_int_not_equal(a->offset, c->offset);
    assert_int_equal(d->offset, a->offset); /* a is dead at 9 */
    assert_int_equal(d->reuse_of, (int32_t)(a - pl->storages));
    assert_int_equal(c->reuse_of, -1);
    assert_int_equal(pl->npools, 1);
    assert_string_equal(pl->pools[0].name, "cpu");
    assert_int_equal(pl->pools[0].align, 64);
    assert_int_equal(pl->pools[0].size, 128);
    assert_int_equal(pl->pools[0].lower_bound, 128);
    assert_int_equal(pl->pools[0].naive_size, 192);
    assert_true(plan_verify(pl, NULL, 0));
    /* the value -> storage map goes through the alias */
    assert_int_equal(pl->storage_of_value[ir_find_value(l.p, "b")],
                     (int32_t)(a - pl->storages));
    assert_int_equal(pl->storage_of_value[ir_find_value(l.p, "x")], -1);

    /* default mode: the output is caller-owned */
    plan_options_init(&o);
    pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    assert_int_equal(storage(pl, "d")->pool, -1);
    assert_int_equal(pl->pools[0].nstorages, 2);
    /* outputs mode: a pool of its own */
    o.memory_pool = PLAN_MP_OUTPUTS;
    pl = plan_it(&l, &o, NULL);
    assert_int_equal(pl->npools, 2);
    assert_string_equal(pl->pools[1].name, "cpu_outputs");
    assert_true(pl->pools[1].outputs);
    assert_int_equal(storage(pl, "d")->pool, 1);
    /* none: nothing pooled */
    o.memory_pool = PLAN_MP_NONE;
    pl = plan_it(&l, &o, NULL);
    assert_int_equal(pl->npools, 0);
    assert_int_equal(storage(pl, "a")->pool, -1);
    unload(&l);
}

static void test_never_freed_and_zero_size(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "alloc a f32[16]\n"
             "call k(a)\n"
             "alloc z f32[0]\n"
             "call k(z)\n"
             "free z\n"
             "alloc b f32[16]\n"
             "call k(b)\n"
             "free b\n"
             "alloc c f32[16]\n"
             "call k(c)\n"
             "free c\n");
    plan_options o;
    plan_options_init(&o);
    plan *pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    const plan_storage *a = storage(pl, "a"), *b = storage(pl, "b"),
                       *c = storage(pl, "c"), *z = storage(pl, "z");
    assert_int_equal(a->end, l.p->nstmts - 1);
    assert_int_equal(a->dies_at, -1);
    assert_int_equal(z->size, 0);
    assert_int_equal(z->offset, 0);
    assert_int_not_equal(a->offset, b->offset);
    assert_int_equal(b->offset, c->offset);
    assert_int_equal(pl->pools[0].size, 128);
    unload(&l);
}

static void test_pools_devices_comm_align(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "alloc a f32[10]\n"
             "alloc g f32[16] device=cuda:0\n"
             "alloc h u8[3] device=cuda:0 align=1024\n"
             "alloc c0 f32[16] device=cuda:0 comm=symm group=tp0\n"
             "alloc c1 f32[16] device=cuda:0 comm=symm group=tp1\n"
             "call k(a, g, h, c0, c1)\n"
             "free a g h c0 c1\n");
    plan_options o;
    plan_options_init(&o);
    plan *pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    assert_int_equal(pl->npools, 4);
    assert_string_equal(pl->pools[0].name, "cpu");
    assert_string_equal(pl->pools[1].name, "cuda0");
    assert_string_equal(pl->pools[2].name, "cuda0_symm_tp0");
    assert_string_equal(pl->pools[3].name, "cuda0_symm_tp1");
    assert_int_equal(pl->pools[0].align, 64);
    assert_int_equal(pl->pools[1].align, 256);
    /* its base must deliver h's align=1024 */
    assert_int_equal(pl->pools[1].base_align, 1024);
    assert_int_equal(pl->pools[0].base_align, 64);
    assert_string_equal(pl->pools[2].comm, "symm");
    assert_string_equal(pl->pools[2].group, "tp0");
    assert_int_equal(storage(pl, "h")->offset % 1024, 0);
    assert_int_equal(pl->pools[1].size % 256, 0);
    assert_int_equal(pl->pools[0].size, 64);
    o.align = 16;
    pl = plan_it(&l, &o, NULL);
    assert_int_equal(pl->pools[0].align, 16);
    assert_int_equal(pl->pools[0].size, 48);
    unload(&l);
}

/* --guard-bytes: the guards after each buffer are planned (no live buffer
 * overlaps them) and the verifier checks them. */
static void test_guard_bytes(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "alloc a f32[4]\n"
             "alloc b f32[4]\n"
             "call k(a, b)\n"
             "free a b\n");
    plan_options o;
    plan_options_init(&o);
    o.align = 4;
    o.guard_bytes = 8;
    plan *pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    const plan_storage *a = storage(pl, "a"), *b = storage(pl, "b");
    assert_int_equal(a->size, 16); /* the buffer's own size */
    const plan_storage *lo = a->offset < b->offset ? a : b;
    const plan_storage *hi = lo == a ? b : a;
    assert_true(hi->offset >= lo->offset + 16 + 8);
    assert_true(pl->pools[0].size >= hi->offset + 16 + 8);
    assert_true(plan_verify(pl, NULL, 0));
    /* a buffer moved into its neighbour's guard fails verification */
    ((plan_storage *)hi)->offset = lo->offset + 16;
    char err[400];
    assert_false(plan_verify(pl, err, sizeof err));
    unload(&l);
}

static const char stream_prog[] = "model m\n"
                                  "alloc a f32[16]\n"
                                  "call k(a) stream=1\n"
                                  "free a\n"
                                  "alloc b f32[16]\n"
                                  "call k(b) stream=2\n"
                                  "free b\n"
                                  "alloc c f32[16]\n"
                                  "call k(c) stream=2\n"
                                  "free c\n"
                                  "alloc d f32[16]\n"
                                  "call k(d) stream=1\n"
                                  "call k(d) stream=2\n"
                                  "free d\n"
                                  "alloc e f32[16]\n"
                                  "call k(e) stream=1\n"
                                  "free e\n";

static void test_streams(void **st) {
    (void)st;
    loaded l;
    load(&l, stream_prog);
    plan_options o;
    plan_options_init(&o);
    plan *pl = plan_it(&l, &o, NULL); /* auto: isolate */
    assert_non_null(pl);
    const plan_storage *a = storage(pl, "a"), *b = storage(pl, "b"),
                       *c = storage(pl, "c"), *d = storage(pl, "d"),
                       *e = storage(pl, "e");
    assert_int_not_equal(a->offset, b->offset);
    assert_int_equal(b->offset, c->offset);     /* same stream */
    assert_int_equal(a->offset, e->offset);     /* same stream */
    assert_int_not_equal(d->offset, a->offset); /* several streams */
    assert_int_not_equal(d->offset, b->offset);
    assert_int_equal(pl->pools[0].size, 192);
    assert_true(plan_verify(pl, NULL, 0));
    /* synchronisation: streams 1 and 2 are bits 1 and 2; the only wait is
     * `call k(d) stream=2` (statement 12) for d's write on stream 1 (k
     * has no signature: every argument is written) */
    const plan_sync *sy = pl->sync;
    assert_int_equal(sy->nstreams, 2);
    assert_int_equal(sy->stream_ids[0], 1);
    assert_int_equal(sy->stream_ids[1], 2);
    assert_int_equal(sy->nwaits, 1);
    assert_int_equal(sy->wait_begin[12], 0);
    assert_int_equal(sy->wait_begin[13], 1);
    assert_int_equal(sy->waits[0].bit, 1);
    assert_string_equal(l.p->values[sy->waits[0].value].name, "d");
    o.streams = PLAN_STREAMS_SHARE;
    pl = plan_it(&l, &o, NULL);
    assert_int_equal(pl->pools[0].size, 64);
    /* with shared bytes each storage takes the previous one's and
     * inherits its history: b (stream 2) waits for a's writer (1), d's
     * first call (1) for c's (2), its second (2) for its first, e (1)
     * for d's last (2) */
    sy = pl->sync;
    assert_int_equal(sy->nwaits, 4);
    assert_int_equal(sy->wait_begin[5], 0);
    assert_int_equal(sy->waits[0].bit, 1);
    assert_int_equal(sy->wait_begin[15], 3);
    assert_int_equal(sy->waits[3].bit, 2);
    unload(&l);
}

/* A storage that takes the bytes of several dead ones (each last written
 * on another stream) waits for all of them before its first write, not
 * only for the one that gave most bytes. */
static void test_streams_donors(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "alloc a f32[16]\n"
             "alloc b f32[16]\n"
             "call k(a) stream=1\n"
             "call k(b) stream=2\n"
             "free a b\n"
             "alloc c f32[32]\n"
             "call k(c) stream=3\n"
             "free c\n");
    plan_options o;
    plan_options_init(&o);
    o.streams = PLAN_STREAMS_SHARE;
    plan *pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    const plan_storage *c = storage(pl, "c");
    assert_int_equal(pl->pools[0].size, 128);
    assert_int_equal(c->ndonors, 2);
    const plan_sync *sy = pl->sync;
    /* statement 7 is `call k(c) stream=3`: it waits for streams 1 and 2 */
    assert_int_equal(sy->wait_begin[8] - sy->wait_begin[7], 2);
    assert_int_equal(sy->waits[sy->wait_begin[7]].bit, 1);
    assert_int_equal(sy->waits[sy->wait_begin[7] + 1].bit, 2);
    unload(&l);
}

/* Ownership (planner/ownership.c): an unpooled storage is held by the
 * first output naming all of it, else by an extra pool of its own; the
 * kernel of each call is recorded once. */
static void test_ownership(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "kernel g(in, out)\n"
             "input x f32[4]\n"
             "alloc a f32[8] align=512\n"
             "alias h = a f32[4]\n"
             "alloc b f32[4]\n"
             "call k(x, a)\n"
             "call g(x, b)\n"
             "call k(x, b)\n"
             "output h b\n");
    plan_options o;
    plan_options_init(&o);
    plan *pl = plan_it(&l, &o, NULL); /* intermediates: outputs unpooled */
    assert_non_null(pl);
    const plan_storage *a = storage(pl, "a"), *b = storage(pl, "b");
    assert_int_equal(a->pool, -1);
    assert_int_equal(a->owner, -1); /* h is only a part of a */
    assert_string_equal(l.p->values[b->owner].name, "b");
    assert_int_equal(b->owner_pos, 1);
    assert_int_equal(pl->nextras, 1);
    assert_int_equal(pl->extras[0].storage, (uint32_t)(a - pl->storages));
    assert_int_equal(pl->extras[0].size, 32);
    assert_int_equal(pl->extras[0].align, 512);
    assert_int_equal(plan_extra_align(pl, &pl->extras[0], false), 512);
    assert_false(plan_planned_output(pl, b->value));
    uint32_t ncalls = 0;
    for (uint32_t i = 0; i < l.p->nstmts; i++) {
        if (l.p->stmts[i].kind != IR_CALL)
            continue;
        int32_t k = l.p->stmts[i].kernel;
        assert_true(k >= 0 && (uint32_t)k < l.p->nkernels);
        ncalls++;
        assert_string_equal(l.p->kernels[k].name, l.p->stmts[i].name.name);
    }
    assert_int_equal(ncalls, 3);
    o.memory_pool = PLAN_MP_NONE; /* every storage unpooled */
    o.guard_bytes = 8;
    pl = plan_it(&l, &o, NULL);
    assert_int_equal(pl->nextras, 1); /* b is still held by its output */
    assert_int_equal(pl->extras[0].size, 40);
    o.memory_pool = PLAN_MP_COMBINED; /* everything pooled */
    pl = plan_it(&l, &o, NULL);
    assert_int_equal(pl->nextras, 0);
    assert_int_equal(storage(pl, "b")->owner, -1);
    unload(&l);
}

static void test_capacity_error(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "space sram capacity=100\n"
             "alloc a f32[16] space=sram\n"
             "alloc b f32[16] space=sram\n"
             "call k(a, b)\n"
             "free a b\n");
    plan_options o;
    plan_options_init(&o);
    char *msg = NULL;
    plan *pl = plan_it(&l, &o, &msg);
    assert_null(pl);
    if (!strstr(msg, "t.pw:2:1: error: space 'sram' is too small") ||
        !strstr(msg, "needs 128 bytes") || !strstr(msg, "capacity is 100"))
        fail_msg("unexpected message:\n%s", msg);
    free(msg);
    unload(&l);
}

/* A pool whose naive plan exceeds 2^63 - 1 bytes is an error at the alloc
 * that pushes it over (it used to wrap to a pool of 0 bytes): a and b end
 * at 2^63 - 64, c does not fit after them. */
static void test_pool_too_large(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "alloc a f32[1152921504606846976]\n"
             "alloc b f32[1152921504606846960]\n"
             "alloc c f32[1152921504606846976]\n"
             "call k(a, b, c)\n"
             "free a b c\n");
    plan_options o;
    plan_options_init(&o);
    o.algo = PLAN_NAIVE;
    char *msg = NULL;
    assert_null(plan_it(&l, &o, &msg));
    if (!strstr(msg, "t.pw:4:1: error: pool cpu is too large: with 'c' its "
                     "storages need more than 9223372036854775807 bytes"))
        fail_msg("unexpected message:\n%s", msg);
    free(msg);
    unload(&l);
}

/* reuse_of ties: two storages die at the same statement and both give
 * the new one as many bytes: the lower offset wins; both are donors. */
static void test_reuse_of_tie(void **st) {
    (void)st;
    loaded l;
    load(&l, "model m\n"
             "alloc a f32[16]\n"
             "alloc b f32[16]\n"
             "call k(a, b)\n"
             "free a b\n"
             "alloc c f32[32]\n"
             "call k1(c)\n"
             "free c\n");
    plan_options o;
    plan_options_init(&o);
    plan *pl = plan_it(&l, &o, NULL);
    assert_non_null(pl);
    const plan_storage *a = storage(pl, "a"), *b = storage(pl, "b"),
                       *c = storage(pl, "c");
    assert_int_equal(c->offset, 0);
    assert_int_equal(pl->pools[0].size, 128);
    const plan_storage *low = a->offset == 0 ? a : b;
    assert_int_equal(c->reuse_of, (int32_t)(low - pl->storages));
    assert_int_equal(c->ndonors, 2);
    assert_int_equal(pl->donors[c->donor_begin].storage, c->reuse_of);
    assert_int_equal(pl->donors[c->donor_begin].lo, 0);
    assert_int_equal(pl->donors[c->donor_begin].hi, 64);
    assert_int_equal(pl->donors[c->donor_begin + 1].lo, 64);
    assert_int_equal(pl->donors[c->donor_begin + 1].hi, 128);
    unload(&l);
}

/* ---- random programs ---- */

static char *random_program(uint64_t *s, bool streams) {
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    fprintf(f, "model r\ninput x f32[8]\n");
    enum { MAXV = 64 };
    char names[MAXV][16];
    int comm[MAXV];
    int live[MAXV];
    int nv = 0, nalloc = 0;
    uint32_t steps = 10 + (uint32_t)pt_below(s, 60);
    for (uint32_t i = 0; i < steps; i++) {
        uint64_t op = pt_below(s, 10);
        int nl = 0;
        for (int v = 0; v < nv; v++)
            nl += live[v];
        if ((op < 4 || nl == 0) && nv < MAXV) {
            snprintf(names[nv], sizeof names[nv], "b%d", nalloc++);
            uint64_t kind = pt_below(s, 8);
            static const char *const types[] = {"f32", "u8", "f16", "i64"};
            fprintf(f, "alloc %s %s[%llu]", names[nv], types[pt_below(s, 4)],
                    (unsigned long long)pt_below(s, 300));
            comm[nv] = 0;
            if (kind == 0) {
                fprintf(f, " comm=symm group=g%d", (int)pt_below(s, 2));
                comm[nv] = 1;
            } else if (kind == 1) {
                fprintf(f, " align=512");
            }
            fputc('\n', f);
            live[nv++] = 1;
        } else if (op < 5 && nv < MAXV) {
            int k = (int)pt_below(s, (uint64_t)nl), v = 0;
            for (v = 0; v < nv; v++)
                if (live[v] && k-- == 0)
                    break;
            snprintf(names[nv], sizeof names[nv], "v%d", nalloc++);
            fprintf(f, "alias %s = %s\n", names[nv], names[v]);
            comm[nv] = comm[v];
            live[nv++] = 1;
        } else if (op < 8) {
            /* a kernel per arity (the calls of one kernel agree) */
            int args[MAXV], na = 0;
            for (int v = 0; v < nv; v++)
                if (live[v] && pt_below(s, 3) == 0)
                    args[na++] = v;
            fprintf(f, "call k%d(x", na);
            for (int j = 0; j < na; j++)
                fprintf(f, ", %s", names[args[j]]);
            fputc(')', f);
            if (streams && pt_below(s, 2))
                fprintf(f, " stream=%d", (int)pt_below(s, 3));
            fputc('\n', f);
        } else {
            int k = (int)pt_below(s, (uint64_t)nl), v = 0;
            for (v = 0; v < nv; v++)
                if (live[v] && k-- == 0)
                    break;
            fprintf(f, "free %s\n", names[v]);
            live[v] = 0;
        }
    }
    int first = 1;
    for (int v = 0; v < nv; v++)
        if (live[v] && !comm[v] && pt_below(s, 2)) {
            fprintf(f, "%s%s", first ? "output " : " ", names[v]);
            first = 0;
        }
    if (!first)
        fputc('\n', f);
    fclose(f);
    return text;
}

/* The donors of every storage and its reuse_of against a reference that
 * looks at every byte: a byte's donor is the storage overlapping it that
 * died last before the storage started; reuse_of gave most bytes (the
 * first donor by offset on ties). */
static void check_donors(const plan *pl, uint64_t seed) {
    for (uint32_t k = 0; k < pl->nstorages; k++) {
        const plan_storage *sg = &pl->storages[k];
        plan_donor want[4096];
        uint32_t nw = 0;
        uint64_t gave[128] = {0};
        assert_true(pl->nstorages <= 128);
        for (uint64_t b = sg->offset;
             sg->pool >= 0 && b < sg->offset + sg->size; b++) {
            int32_t own = -1;
            for (uint32_t t = 0; t < pl->nstorages; t++) {
                const plan_storage *u = &pl->storages[t];
                if (u->pool == sg->pool && u->dies_at >= 0 &&
                    (uint32_t)u->dies_at < sg->start && u->offset <= b &&
                    b < u->offset + u->size &&
                    (own < 0 || u->dies_at > pl->storages[own].dies_at))
                    own = (int32_t)t;
            }
            if (own < 0)
                continue;
            gave[own]++;
            if (nw && want[nw - 1].storage == own && want[nw - 1].hi == b)
                want[nw - 1].hi++;
            else
                want[nw++] = (plan_donor){own, b, b + 1};
        }
        int32_t most = -1;
        for (uint32_t i = 0; i < nw; i++)
            if (most < 0 || gave[want[i].storage] > gave[most])
                most = want[i].storage;
        bool same = sg->ndonors == nw && sg->reuse_of == most;
        for (uint32_t i = 0; same && i < nw; i++) {
            const plan_donor *d = &pl->donors[sg->donor_begin + i];
            same = d->storage == want[i].storage && d->lo == want[i].lo &&
                   d->hi == want[i].hi;
        }
        if (!same)
            fail_msg("seed %llu: donors of storage %u (%u, reuse_of %d) "
                     "differ from the reference (%u, reuse_of %d)",
                     (unsigned long long)seed, k, sg->ndonors, sg->reuse_of, nw,
                     most);
    }
}

static void test_random_programs(void **st) {
    (void)st;
    static const plan_algo algos[] = {PLAN_NAIVE, PLAN_REUSE, PLAN_TREE,
                                      PLAN_BESTFIT};
    for (uint64_t iter = 0; iter < 150; iter++) {
        uint64_t seed = 5000 + iter, s = seed;
        char *text = random_program(&s, iter % 2 == 0);
        loaded l;
        load(&l, text);
        for (int a = 0; a < 4; a++)
            for (int m = 0; m < 4; m++) {
                plan_options o;
                plan_options_init(&o);
                o.algo = algos[a];
                o.memory_pool = (plan_memory_pool)m;
                o.verify = true;
                char *msg = NULL;
                plan *pl = plan_it(&l, &o, &msg);
                if (!pl)
                    fail_msg("seed %llu algo %d mode %d: %s\n%s",
                             (unsigned long long)seed, a, m, msg, text);
                free(msg);
                char err[512];
                if (!plan_verify(pl, err, sizeof err))
                    fail_msg("seed %llu: %s", (unsigned long long)seed, err);
                for (uint32_t p = 0; p < pl->npools; p++) {
                    const plan_pool *pool = &pl->pools[p];
                    /* tree follows Inductor: it may exceed naive */
                    if (pool->size < pool->lower_bound ||
                        (algos[a] != PLAN_TREE &&
                         pool->size > pool->naive_size))
                        fail_msg("seed %llu algo %d mode %d pool %s: size "
                                 "%llu lb %llu naive %llu",
                                 (unsigned long long)seed, a, m, pool->name,
                                 (unsigned long long)pool->size,
                                 (unsigned long long)pool->lower_bound,
                                 (unsigned long long)pool->naive_size);
                }
                /* comm storages only in their own pools */
                for (uint32_t k = 0; k < pl->nstorages; k++) {
                    const plan_storage *sg = &pl->storages[k];
                    const ir_value *v = &l.p->values[sg->value];
                    if (sg->pool >= 0) {
                        const plan_pool *pool = &pl->pools[sg->pool];
                        assert_true((v->comm == NULL) == (pool->comm == NULL));
                    }
                }
                check_donors(pl, seed);
                plan *pl2 = plan_it(&l, &o, NULL);
                for (uint32_t k = 0; k < pl->nstorages; k++)
                    if (pl->storages[k].offset != pl2->storages[k].offset ||
                        pl->storages[k].pool != pl2->storages[k].pool)
                        fail_msg("seed %llu: not deterministic",
                                 (unsigned long long)seed);
            }
        unload(&l);
        free(text);
    }
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_alias_forwarding),
        cmocka_unit_test(test_never_freed_and_zero_size),
        cmocka_unit_test(test_pools_devices_comm_align),
        cmocka_unit_test(test_guard_bytes),
        cmocka_unit_test(test_streams),
        cmocka_unit_test(test_streams_donors),
        cmocka_unit_test(test_capacity_error),
        cmocka_unit_test(test_pool_too_large),
        cmocka_unit_test(test_reuse_of_tie),
        cmocka_unit_test(test_random_programs),
        cmocka_unit_test(test_ownership),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

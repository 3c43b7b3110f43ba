/*
 * tests/ir/test_roundtrip.c - round-trip property test.
 *
 * For many seeds, generates a random valid program (devices, memory spaces,
 * kernel signatures, inputs/consts/allocs with every attribute, aliases and
 * views of aliases, comm buffers, calls with literals and streams, frees,
 * an output statement) written with random spacing, comments, blank lines
 * and CRLF line endings.  Then:  parse+check it (must be valid), print it,
 * parse+check the print (must be valid), and print again: the two prints
 * must be identical, and both programs must mean the same (same values with
 * the same sizes, placement, offsets, lifetimes and outputs).
 *
 * The seed of a failure is printed; PW_SEED=N reruns one seed,
 * PW_ROUNDTRIP_COUNT=N changes the number of seeds (default 300).
 */
#include "ir/ir.h"

#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

/* xorshift64*: deterministic across platforms. */
typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rng_next(rng *r) {
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 2685821657736338717ull;
}

/* Uniform-ish integer in [0, n). */
static uint64_t rng_below(rng *r, uint64_t n) {
    return n ? rng_next(r) % n : 0;
}

static bool rng_chance(rng *r, unsigned percent) {
    return rng_below(r, 100) < percent;
}

/* A buffer name that is alive in the generated program. */
typedef struct gen_buf {
    char name[300];
    int root;             /* index of the root buffer in gen.bufs */
    unsigned item;        /* itemsize of this name's dtype */
    uint64_t byte_offset; /* from the root's start */
    uint64_t bytes;       /* this name's footprint */
    uint64_t root_bytes;  /* the root's footprint */
    bool comm;
    bool alive;
    bool is_output;
} gen_buf;

typedef struct gen {
    rng r;
    FILE *out;
    gen_buf *bufs;
    size_t nbufs, cap;
    unsigned nspaces;
    unsigned names; /* counter for unique names */
    bool crlf;
    /* kernel signatures: modes as a string of i/o/x/s */
    char sigs[4][8];
    unsigned nsigs;
} gen;

static const char *const dtypes[] = {"f64", "f32", "f16", "bf16", "i64",
                                     "i32", "i16", "i8",  "u8",   "bool"};
static const unsigned dsizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};

/* Random horizontal space: usually one blank, sometimes more or a tab. */
static void sp(gen *g) {
    unsigned k = (unsigned)rng_below(&g->r, 10);
    fputs(k < 6 ? " " : k < 8 ? "   " : k < 9 ? "\t" : " \t ", g->out);
}

/* Optional space (where the grammar allows none). */
static void osp(gen *g) {
    if (rng_chance(&g->r, 20))
        sp(g);
}

static void eol(gen *g) {
    if (rng_chance(&g->r, 10))
        fputs("   # a comment, with (unbalanced [ \"quotes and é", g->out);
    fputs(g->crlf ? "\r\n" : "\n", g->out);
    if (rng_chance(&g->r, 5))
        fputs(g->crlf ? "# full-line comment\r\n\r\n" : "\n# c\n", g->out);
}

static gen_buf *new_buf(gen *g) {
    if (g->nbufs == g->cap) {
        g->cap = g->cap ? g->cap * 2 : 64;
        g->bufs = realloc(g->bufs, g->cap * sizeof *g->bufs);
        assert_non_null(g->bufs);
    }
    gen_buf *b = &g->bufs[g->nbufs++];
    memset(b, 0, sizeof *b);
    if (rng_chance(&g->r, 3)) {
        /* a long name, up to the 255-byte limit */
        size_t len = 200 + (size_t)rng_below(&g->r, 40);
        int n = snprintf(b->name, sizeof b->name, "L%u_", g->names++);
        memset(b->name + n, 'x', len - (size_t)n);
        b->name[len] = '\0';
    } else {
        snprintf(b->name, sizeof b->name, "%s%u",
                 rng_chance(&g->r, 50) ? "t" : "_B", g->names++);
    }
    b->alive = true;
    return b;
}

/* A random live buffer index, or -1.  `ordinary` excludes comm buffers. */
static int pick_live(gen *g, bool ordinary) {
    if (g->nbufs == 0)
        return -1;
    for (int tries = 0; tries < 8; tries++) {
        size_t i = (size_t)rng_below(&g->r, g->nbufs);
        if (g->bufs[i].alive && !(ordinary && g->bufs[i].comm))
            return (int)i;
    }
    for (size_t i = g->nbufs; i-- > 0;)
        if (g->bufs[i].alive && !(ordinary && g->bufs[i].comm))
            return (int)i;
    return -1;
}

/* input/const/alloc NAME TYPE [attrs] */
static void gen_buffer(gen *g) {
    static const char *const kw[] = {"input", "const", "alloc"};
    unsigned k = (unsigned)rng_below(&g->r, 3);
    if (k < 2 && rng_chance(&g->r, 50))
        k = 2;
    gen_buf *b = new_buf(g);
    b->root = (int)(b - g->bufs);
    unsigned t = (unsigned)rng_below(&g->r, 10);
    b->item = dsizes[t];
    unsigned ndim = (unsigned)rng_below(&g->r, 4);
    uint64_t dims[3], strides[3];
    bool zero = false;
    for (unsigned i = 0; i < ndim; i++) {
        dims[i] = rng_below(&g->r, 7);
        if (dims[i] == 0 && !rng_chance(&g->r, 20))
            dims[i] = 1 + rng_below(&g->r, 6);
        zero |= dims[i] == 0;
    }
    bool strided = ndim > 0 && rng_chance(&g->r, 20);
    uint64_t elements = 1;
    if (strided) {
        for (unsigned i = 0; i < ndim; i++) {
            strides[i] = rng_below(&g->r, 20);
            elements += (dims[i] ? dims[i] - 1 : 0) * strides[i];
        }
    } else {
        for (unsigned i = 0; i < ndim; i++)
            elements *= dims[i];
    }
    if (zero)
        elements = 0;
    b->bytes = b->root_bytes = elements * b->item;
    fputs(kw[k], g->out);
    sp(g);
    fprintf(g->out, "%s", b->name);
    sp(g);
    fprintf(g->out, "%s", dtypes[t]);
    osp(g);
    fputc('[', g->out);
    for (unsigned i = 0; i < ndim; i++) {
        if (i) {
            osp(g);
            fputc(',', g->out);
        }
        osp(g);
        fprintf(g->out, "%" PRIu64, dims[i]);
    }
    osp(g);
    fputc(']', g->out);
    /* attributes, in random order */
    int order[6] = {0, 1, 2, 3, 4, 5};
    for (int i = 5; i > 0; i--) {
        int j = (int)rng_below(&g->r, (uint64_t)i + 1);
        int tmp = order[i];
        order[i] = order[j];
        order[j] = tmp;
    }
    for (int i = 0; i < 6; i++) {
        switch (order[i]) {
        case 0:
            if (rng_chance(&g->r, 15)) {
                sp(g);
                if (rng_chance(&g->r, 50))
                    fputs("device=cpu", g->out);
                else
                    fprintf(g->out, "device=cuda:%u",
                            (unsigned)rng_below(&g->r, 4));
            }
            break;
        case 1:
            if (g->nspaces && rng_chance(&g->r, 20)) {
                sp(g);
                fprintf(g->out, "space=s%u",
                        (unsigned)rng_below(&g->r, g->nspaces));
            }
            break;
        case 2:
            if (strided) {
                sp(g);
                fputs("stride=[", g->out);
                for (unsigned d = 0; d < ndim; d++)
                    fprintf(g->out, "%s%" PRIu64, d ? "," : "", strides[d]);
                fputc(']', g->out);
            }
            break;
        case 3:
            if (rng_chance(&g->r, 15)) {
                sp(g);
                fprintf(g->out, "align=%u", 1u << rng_below(&g->r, 10));
            }
            break;
        case 4:
            if (k == 2 && rng_chance(&g->r, 10)) {
                b->comm = true;
                sp(g);
                fprintf(g->out, "comm=symm");
            }
            break;
        case 5:
            if (k != 1 && rng_chance(&g->r, 10)) {
                sp(g);
                fputs("planned", g->out); /* a flag */
            }
            break;
        }
    }
    if (b->comm) {
        sp(g);
        fprintf(g->out, "group=tp%u", (unsigned)rng_below(&g->r, 2));
    }
    eol(g);
}

/* alias NEW = OLD [TYPE] [offset=N] that fits OLD's storage */
static void gen_alias(gen *g) {
    int oi = pick_live(g, false);
    if (oi < 0)
        return;
    gen_buf old = g->bufs[oi];
    gen_buf *b = new_buf(g);
    b->root = old.root;
    b->comm = old.comm;
    fprintf(g->out, "alias");
    sp(g);
    fprintf(g->out, "%s", b->name);
    osp(g);
    fputc('=', g->out);
    osp(g);
    fprintf(g->out, "%s", old.name);
    if (rng_chance(&g->r, 60)) {
        unsigned t = (unsigned)rng_below(&g->r, 10);
        while (old.byte_offset % dsizes[t] != 0)
            t = (t + 1) % 10; /* a view must be aligned for its dtype */
        unsigned item = dsizes[t];
        uint64_t avail = old.root_bytes - old.byte_offset;
        uint64_t off = rng_below(&g->r, avail / item + 1);
        uint64_t left = (avail - off * item) / item;
        uint64_t n = rng_below(&g->r, left + 1);
        sp(g);
        if (n == 1 && rng_chance(&g->r, 50))
            fprintf(g->out, "%s[]", dtypes[t]);
        else
            fprintf(g->out, "%s[%" PRIu64 "]", dtypes[t], n);
        if (off || rng_chance(&g->r, 20)) {
            sp(g);
            fprintf(g->out, "offset=%" PRIu64, off);
        }
        b->item = item;
        b->byte_offset = old.byte_offset + off * item;
        b->bytes = n * item;
    } else {
        b->item = old.item;
        b->byte_offset = old.byte_offset;
        b->bytes = old.bytes;
    }
    b->root_bytes = old.root_bytes;
    eol(g);
}

/* A literal argument; its class (a number: 'n', a string: 's'). */
static char gen_arg_literal(gen *g, bool number_only) {
    unsigned k = (unsigned)rng_below(&g->r, 5);
    if (number_only)
        k %= 4;
    switch (k) {
    case 0:
        fprintf(g->out, "%" PRIu64, rng_below(&g->r, 1000));
        break;
    case 1:
        fprintf(g->out, "-%" PRIu64, rng_below(&g->r, 1000));
        break;
    case 2:
        fprintf(g->out, "%s", rng_chance(&g->r, 50) ? "0.5" : "-2.5e-3");
        break;
    case 3:
        fprintf(g->out, "1e%u", (unsigned)rng_below(&g->r, 30));
        break;
    default:
        fputs(rng_chance(&g->r, 50) ? "\"sum\"" : "\"a\\\"b\\\\c\\n\\td ✓\"",
              g->out);
        return 's';
    }
    return 'n';
}

/* call KERNEL(args) [stream=N], following the signature when there is one.
 * The calls of a kernel agree in arity and argument kinds: a signature's
 * scalars are numbers, and a kernel without one is named after its
 * arguments' kinds (op_bns: a buffer, a number, a string). */
static void gen_call(gen *g) {
    bool use_sig = g->nsigs && rng_chance(&g->r, 60);
    unsigned si = use_sig ? (unsigned)rng_below(&g->r, g->nsigs) : 0;
    unsigned nargs =
        use_sig ? (unsigned)strlen(g->sigs[si]) : (unsigned)rng_below(&g->r, 5);
    if (use_sig)
        for (unsigned i = 0; i < nargs; i++)
            if (g->sigs[si][i] != 's' && pick_live(g, false) < 0)
                return;
    FILE *call = g->out;
    char *args = NULL;
    size_t argslen = 0;
    char kinds[8] = {0};
    g->out = open_memstream(&args, &argslen);
    assert_non_null(g->out);
    for (unsigned i = 0; i < nargs; i++) {
        if (i) {
            osp(g);
            fputc(',', g->out);
            osp(g);
        }
        bool buffer = use_sig ? g->sigs[si][i] != 's' : rng_chance(&g->r, 70);
        int bi = buffer ? pick_live(g, false) : -1;
        if (bi >= 0) {
            fprintf(g->out, "%s", g->bufs[bi].name);
            kinds[i] = 'b';
        } else {
            kinds[i] = gen_arg_literal(g, use_sig);
        }
    }
    fclose(g->out);
    g->out = call;
    fprintf(g->out, "call");
    sp(g);
    if (use_sig)
        fprintf(g->out, "sig%u", si);
    else
        fprintf(g->out, "op_%s", kinds);
    osp(g);
    fputc('(', g->out);
    fputs(args, g->out);
    free(args);
    osp(g);
    fputc(')', g->out);
    if (rng_chance(&g->r, 20)) {
        sp(g);
        fprintf(g->out, "stream=%u", (unsigned)rng_below(&g->r, 3));
    }
    eol(g);
}

static void gen_free(gen *g) {
    int n = 1 + (int)rng_below(&g->r, 3);
    int picked[3];
    int k = 0;
    for (int i = 0; i < n; i++) {
        int bi = pick_live(g, false);
        if (bi < 0)
            bi = pick_live(g, true);
        if (bi < 0)
            break;
        bool dup = false;
        for (int j = 0; j < k; j++)
            dup |= picked[j] == bi;
        if (dup)
            continue;
        picked[k++] = bi;
        g->bufs[bi].alive = false;
    }
    if (k == 0)
        return;
    fputs("free", g->out);
    for (int i = 0; i < k; i++) {
        sp(g);
        fputs(g->bufs[picked[i]].name, g->out);
    }
    eol(g);
}

/* Writes a random valid program for `seed` to a malloc'ed string. */
static char *gen_program(uint64_t seed, size_t *len) {
    gen g;
    memset(&g, 0, sizeof g);
    g.r.s = seed * 0x9E3779B97F4A7C15ull + 1;
    char *text = NULL;
    g.out = open_memstream(&text, len);
    assert_non_null(g.out);
    g.crlf = rng_chance(&g.r, 15);
    if (rng_chance(&g.r, 30))
        fputs("# generated\n\n", g.out);
    fprintf(g.out, "model");
    sp(&g);
    fprintf(g.out, "rt%" PRIu64, seed);
    eol(&g);
    if (rng_chance(&g.r, 30)) {
        fprintf(g.out, "device");
        sp(&g);
        fprintf(g.out, "cuda:%u", (unsigned)rng_below(&g.r, 3));
        eol(&g);
    }
    g.nspaces = (unsigned)rng_below(&g.r, 3);
    for (unsigned i = 0; i < g.nspaces; i++) {
        fprintf(g.out, "space");
        sp(&g);
        fprintf(g.out, "s%u", i);
        if (rng_chance(&g.r, 50)) {
            sp(&g);
            fprintf(g.out, "capacity=%" PRIu64, rng_below(&g.r, 1u << 20));
            if (i + 1 < g.nspaces && rng_chance(&g.r, 50)) {
                sp(&g); /* a chain s0 -> s1 -> ..., never a cycle */
                fprintf(g.out, "spill=s%u", i + 1);
            }
        }
        eol(&g);
    }
    g.nsigs = (unsigned)rng_below(&g.r, 5);
    for (unsigned i = 0; i < g.nsigs; i++) {
        static const char *const modes[] = {"in", "out", "inout", "scalar"};
        static const char letters[] = "ioxs";
        unsigned n = (unsigned)rng_below(&g.r, 5);
        fprintf(g.out, "kernel");
        sp(&g);
        fprintf(g.out, "sig%u", i);
        osp(&g);
        fputc('(', g.out);
        for (unsigned k = 0; k < n; k++) {
            unsigned m = (unsigned)rng_below(&g.r, 4);
            g.sigs[i][k] = letters[m];
            fprintf(g.out, "%s%s", k ? ", " : "", modes[m]);
        }
        g.sigs[i][n] = '\0';
        fputc(')', g.out);
        eol(&g);
    }
    unsigned nst = 5 + (unsigned)rng_below(&g.r, 80);
    for (unsigned i = 0; i < nst; i++) {
        unsigned k = (unsigned)rng_below(&g.r, 100);
        if (k < 30)
            gen_buffer(&g);
        else if (k < 50)
            gen_alias(&g);
        else if (k < 80)
            gen_call(&g);
        else
            gen_free(&g);
        if (rng_chance(&g.r, 3) && g.crlf == false)
            fputs("\n", g.out); /* blank line */
    }
    /* output: some live ordinary names, distinct */
    int outs[4], nout = 0;
    for (int i = 0; i < 4; i++) {
        int bi = pick_live(&g, true);
        if (bi < 0 || g.bufs[bi].is_output)
            continue;
        g.bufs[bi].is_output = true;
        outs[nout++] = bi;
    }
    if (nout) {
        fputs("output", g.out);
        for (int i = 0; i < nout; i++) {
            sp(&g);
            fputs(g.bufs[outs[i]].name, g.out);
        }
        eol(&g);
    }
    fclose(g.out);
    free(g.bufs);
    return text;
}

static char *print_program(const ir_program *p) {
    char *buf = NULL;
    size_t len = 0;
    FILE *m = open_memstream(&buf, &len);
    assert_non_null(m);
    ir_print(m, p);
    fclose(m);
    return buf;
}

/* Parses and checks; on failure prints the diagnostics and the text. */
static ir_program *load_text(base_arena *a, const char *text, size_t len,
                             uint64_t seed, const char *what) {
    char *diags = NULL;
    size_t dlen = 0;
    FILE *m = open_memstream(&diags, &dlen);
    base_diag *d = base_diag_new(m, 0);
    base_diag_set_source(d, what, text, len);
    ir_program *p = ir_parse(a, what, text, len, d);
    bool ok = p && ir_check(p, d);
    unsigned errors = base_diag_errors(d);
    base_diag_free(d);
    fclose(m);
    if (!ok || errors) {
        fprintf(stderr, "seed %" PRIu64 ": %s is not valid:\n%s\n%s\n", seed,
                what, diags, text);
        free(diags);
        return NULL;
    }
    free(diags);
    return p;
}

static bool same_str(const char *a, const char *b) {
    return (!a && !b) || (a && b && strcmp(a, b) == 0);
}

/* The meaning of two checked programs is the same. */
static bool same_meaning(const ir_program *p, const ir_program *q) {
    if (p->nstmts != q->nstmts || p->nvalues != q->nvalues ||
        p->nspaces != q->nspaces || p->nkernels != q->nkernels ||
        p->output_stmt != q->output_stmt || p->has_streams != q->has_streams ||
        !same_str(p->model, q->model))
        return false;
    for (uint32_t i = 0; i < p->nvalues; i++) {
        const ir_value *a = &p->values[i], *b = &q->values[i];
        if (!same_str(a->name, b->name) || a->kind != b->kind ||
            a->def != b->def || a->alias_of != b->alias_of ||
            a->root != b->root || a->dtype != b->dtype || a->ndim != b->ndim ||
            ir_value_elements(a) != ir_value_elements(b) ||
            a->bytes != b->bytes || a->byte_offset != b->byte_offset ||
            a->freed_at != b->freed_at || a->output_index != b->output_index ||
            a->device.kind != b->device.kind ||
            a->device.index != b->device.index ||
            !same_str(a->space, b->space) || !same_str(a->comm, b->comm) ||
            !same_str(a->group, b->group) || a->align != b->align ||
            a->storage_end != b->storage_end || a->planned != b->planned)
            return false;
        for (uint32_t k = 0; k < a->ndim; k++)
            if (a->dims[k] != b->dims[k])
                return false;
    }
    for (uint32_t i = 0; i < p->nspaces; i++)
        if (p->spaces[i].spill != q->spaces[i].spill)
            return false;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *a = &p->stmts[i], *b = &q->stmts[i];
        if (a->kind != b->kind || a->nargs != b->nargs ||
            a->has_stream != b->has_stream ||
            (a->has_stream && a->stream != b->stream))
            return false;
        for (uint32_t k = 0; k < a->nargs; k++) {
            const ir_arg *x = &a->args[k], *y = &b->args[k];
            if (x->kind != y->kind || x->value != y->value ||
                (x->kind == IR_ARG_INT && x->ival != y->ival) ||
                (x->kind == IR_ARG_FLOAT && x->fval != y->fval) ||
                (x->kind == IR_ARG_STRING && !same_str(x->sval, y->sval)))
                return false;
        }
    }
    return true;
}

static void roundtrip_seed(uint64_t seed) {
    size_t len;
    char *text = gen_program(seed, &len);
    base_arena *a1 = base_arena_new(), *a2 = base_arena_new(),
               *a3 = base_arena_new();
    ir_program *p1 = load_text(a1, text, len, seed, "generated.pw");
    if (!p1)
        fail_msg("seed %" PRIu64 ": generated program rejected", seed);
    char *s1 = print_program(p1);
    ir_program *p2 = load_text(a2, s1, strlen(s1), seed, "print1.pw");
    if (!p2)
        fail_msg("seed %" PRIu64 ": printed program rejected", seed);
    char *s2 = print_program(p2);
    if (strcmp(s1, s2) != 0) {
        fprintf(stderr, "seed %" PRIu64 ": print not a fixed point\n%s\n--\n%s",
                seed, s1, s2);
        fail_msg("seed %" PRIu64 ": print(parse(print(p))) != print(p)", seed);
    }
    if (!same_meaning(p1, p2))
        fail_msg("seed %" PRIu64 ": the printed program means something else",
                 seed);
    /* A third generation through the print must still agree. */
    ir_program *p3 = load_text(a3, s2, strlen(s2), seed, "print2.pw");
    if (!p3 || !same_meaning(p2, p3))
        fail_msg("seed %" PRIu64 ": third generation differs", seed);
    free(s1);
    free(s2);
    free(text);
    base_arena_free(a1);
    base_arena_free(a2);
    base_arena_free(a3);
}

static void test_roundtrip(void **state) {
    (void)state;
    const char *one = getenv("PW_SEED");
    if (one) {
        uint64_t seed = strtoull(one, NULL, 10);
        print_message("round trip: seed %" PRIu64 "\n", seed);
        roundtrip_seed(seed);
        return;
    }
    const char *cnt = getenv("PW_ROUNDTRIP_COUNT");
    uint64_t n = cnt ? strtoull(cnt, NULL, 10) : 300;
    for (uint64_t seed = 1; seed <= n; seed++)
        roundtrip_seed(seed);
    print_message("round trip: seeds 1..%" PRIu64 " passed\n", n);
}

/* The generator is not vacuous: its programs use every feature. */
static void test_generator_coverage(void **state) {
    (void)state;
    const char *const features[] = {
        "alias",  "offset=", "stride=",   "align=", "comm=symm", "group=",
        "space=", "device=", "stream=",   "kernel", "output",    "\r\n",
        "#",      "\"",      "capacity=", "free",   "const",     "input"};
    bool seen[sizeof features / sizeof features[0]] = {false};
    for (uint64_t seed = 1; seed <= 300; seed++) {
        size_t len;
        char *text = gen_program(seed, &len);
        for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
            seen[i] |= strstr(text, features[i]) != NULL;
        free(text);
    }
    for (size_t i = 0; i < sizeof features / sizeof features[0]; i++)
        if (!seen[i])
            fail_msg("no generated program uses '%s'", features[i]);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_generator_coverage),
        cmocka_unit_test(test_roundtrip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

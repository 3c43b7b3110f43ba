/*
 * planner/sched_ir.c - writes a program back in a new call order: allocs
 * just before their storage's first user, frees just after its last
 * (docs/schedule.md, "The rewritten program").
 */
#include "sched_internal.h"
#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sched_rw {
    base_arena *a;
    const ir_program *p;
    const plan_sched_graph *g;
    ir_stmt *out;
    uint32_t n, cap;
    int32_t *newpos;  /* original statement -> new index, -1 dropped */
    ir_device dev;    /* the device in effect */
    uint32_t *al_off; /* per storage: its aliases (value ids, CSR) */
    uint32_t *al;
    int32_t *stor_of;   /* value -> storage of its root */
    ir_loc *free_loc;   /* value -> location of its name in its `free` */
    uint32_t *free_at;  /* value -> statement of its `free` (UINT32_MAX) */
    uint32_t *names;    /* scratch: value ids of one free statement */
    uint64_t *free_key; /* value -> its `free` statement << 32 | place in it */
    uint64_t *keys;     /* scratch: free_key of one free statement's names */
    uint32_t *at_off;   /* per position: aliases defined before that call */
    uint32_t *at;
} sched_rw;

static ir_stmt *sched_emit(sched_rw *R, const ir_stmt *st, int32_t orig) {
    ir_stmt *o = &R->out[R->n];
    *o = *st;
    o->index = R->n;
    if (st->kind == IR_CALL && st->nargs) {
        /* ir_check writes the value ids into the arguments: a copy */
        o->args = base_arena_array(R->a, st->nargs, sizeof *o->args);
        memcpy(o->args, st->args, st->nargs * sizeof *o->args);
    }
    if (orig >= 0)
        R->newpos[orig] = (int32_t)R->n;
    R->n++;
    return o;
}

/* A buffer statement, after a `device` line when its device is not the
 * one in effect. */
static void sched_emit_buffer(sched_rw *R, uint32_t i) {
    const ir_stmt *st = &R->p->stmts[i];
    if (st->kind != IR_ALIAS && !st->has_device) {
        ir_device d = R->p->values[st->value].device;
        if (d.kind != R->dev.kind || d.index != R->dev.index) {
            ir_stmt dv = {
                .kind = IR_DEVICE, .loc = st->loc, .device = d, .value = -1};
            sched_emit(R, &dv, -1);
            R->dev = d;
        }
    }
    sched_emit(R, st, (int32_t)i);
}

/* The root statement (allocs only) and the aliases of storage s. */
static void sched_emit_storage(sched_rw *R, uint32_t s) {
    const ir_value *root = &R->p->values[R->g->root[s]];
    if (root->kind == IR_VAL_ALLOC)
        sched_emit_buffer(R, root->def);
    for (uint32_t k = R->al_off[s]; k < R->al_off[s + 1]; k++)
        sched_emit_buffer(R, R->p->values[R->al[k]].def);
}

/* Adds value v to R->names when it is freed and not an output (output
 * names are freed after the output statement). */
static uint32_t sched_freed_name(sched_rw *R, uint32_t v, uint32_t nn) {
    if (R->free_at[v] != UINT32_MAX && R->p->values[v].output_index < 0)
        R->names[nn++] = v;
    return nn;
}

/* Adds to R->names the freed names of storage s (root, then aliases). */
static uint32_t sched_freed_names(sched_rw *R, uint32_t s, uint32_t nn) {
    nn = sched_freed_name(R, (uint32_t)R->g->root[s], nn);
    for (uint32_t k = R->al_off[s]; k < R->al_off[s + 1]; k++)
        nn = sched_freed_name(R, R->al[k], nn);
    return nn;
}

/* Sorts R->names[0..nn) by where the source freed them (statement, then
 * place in it): the names keep the order they were written in, and
 * rewriting the result again gives the same text. */
static void sched_sort_names(sched_rw *R, uint32_t nn) {
    const ir_program *p = R->p;
    for (uint32_t i = 0; i < nn; i++)
        R->keys[i] = R->free_key[R->names[i]];
    qsort(R->keys, nn, sizeof *R->keys, base_cmp_u64);
    for (uint32_t i = 0; i < nn; i++)
        R->names[i] = (uint32_t)p->stmts[R->keys[i] >> 32]
                          .name_values[(uint32_t)R->keys[i]];
}

/* One `free` of the values R->names[0..nn), in source order. */
static void sched_emit_free(sched_rw *R, uint32_t nn) {
    if (nn == 0)
        return;
    sched_sort_names(R, nn);
    ir_stmt f = {.kind = IR_FREE, .value = -1, .nnames = nn};
    f.loc = R->p->stmts[R->free_at[R->names[0]]].loc;
    f.names = base_arena_array(R->a, nn, sizeof *f.names);
    for (uint32_t i = 0; i < nn; i++) {
        f.names[i].name = R->p->values[R->names[i]].name;
        f.names[i].loc = R->free_loc[R->names[i]];
    }
    sched_emit(R, &f, -1);
}

/* Declarations: model, spaces, kernels, inputs, constants. */
static void sched_emit_header(sched_rw *R) {
    const ir_program *p = R->p;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        ir_stmt_kind k = p->stmts[i].kind;
        if (k == IR_MODEL || k == IR_SPACE || k == IR_KERNEL)
            sched_emit(R, &p->stmts[i], (int32_t)i);
        else if (k == IR_INPUT || k == IR_CONST)
            sched_emit_buffer(R, i);
    }
}

static void sched_emit_body(sched_rw *R, const uint32_t *order,
                            const uint32_t *first, const uint32_t *last) {
    const plan_sched_graph *g = R->g;
    for (uint32_t s = 0; s < g->nstor; s++) /* storages no call touches */
        if (first[s] == UINT32_MAX) {
            sched_emit_storage(R, s);
            sched_emit_free(R, sched_freed_names(R, s, 0));
        }
    for (uint32_t t = 0; t < g->n; t++) {
        uint32_t v = order[t], nn = 0;
        SCHED_USES(g, v, k) {
            const ir_value *root = &R->p->values[g->root[g->use[k]]];
            if (first[g->use[k]] == t && root->kind == IR_VAL_ALLOC)
                sched_emit_buffer(R, root->def);
        }
        for (uint32_t k = R->at_off[t]; k < R->at_off[t + 1]; k++)
            sched_emit_buffer(R, R->p->values[R->at[k]].def);
        sched_emit(R, &R->p->stmts[g->stmt[v]], (int32_t)g->stmt[v]);
        SCHED_USES(g, v, k)
        if (last[g->use[k]] == t)
            nn = sched_freed_names(R, g->use[k], nn);
        sched_emit_free(R, nn);
    }
    const ir_program *p = R->p;
    if (p->output_stmt < 0)
        return;
    sched_emit(R, &p->stmts[p->output_stmt], p->output_stmt);
    uint32_t nn = 0; /* output names freed after it, in their order */
    for (uint32_t i = (uint32_t)p->output_stmt + 1; i < p->nstmts; i++)
        for (uint32_t j = 0;
             p->stmts[i].kind == IR_FREE && j < p->stmts[i].nnames; j++)
            if (p->values[p->stmts[i].name_values[j]].output_index >= 0)
                R->names[nn++] = (uint32_t)p->stmts[i].name_values[j];
    sched_emit_free(R, nn);
}

typedef struct sched_cm {
    ir_comment c;
    uint32_t seq; /* source order */
} sched_cm;

static int sched_cmp_comment(const void *a, const void *b) {
    const sched_cm *x = a, *y = b;
    if (x->c.before != y->c.before)
        return x->c.before < y->c.before ? -1 : 1;
    if (x->c.trailing != y->c.trailing)
        return x->c.trailing ? 1 : -1;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

/* Where each original statement's comments go: its new index, or for a
 * dropped statement (device, free) the next statement kept. */
static int32_t *sched_comment_targets(const sched_rw *R) {
    const ir_program *p = R->p;
    int32_t *to = malloc(((size_t)p->nstmts + 1) * sizeof *to);
    if (!to)
        return NULL;
    int32_t next = (int32_t)R->n;
    to[p->nstmts] = next;
    for (uint32_t i = p->nstmts; i-- > 0;) {
        if (R->newpos[i] >= 0)
            next = R->newpos[i];
        to[i] = next;
    }
    return to;
}

/* Comments follow their statement; those of a dropped statement go
 * before the next statement kept, in source order. */
static void sched_comments(sched_rw *R, ir_program *np) {
    const ir_program *p = R->p;
    int32_t *to = sched_comment_targets(R);
    sched_cm *cm = malloc(((size_t)p->ncomments + 1) * sizeof *cm);
    np->ncomments = 0;
    np->comments = NULL;
    if (!to || !cm) {
        free(to);
        free(cm);
        return;
    }
    uint32_t m = 0;
    for (uint32_t c = 0; c < p->ncomments; c++) {
        ir_comment k = p->comments[c];
        uint32_t b = k.before < p->nstmts ? k.before : p->nstmts;
        if (k.trailing && (b == p->nstmts || R->newpos[b] < 0))
            k.trailing = false;
        k.before = (uint32_t)to[b];
        cm[m].c = k;
        cm[m].seq = m;
        m++;
    }
    qsort(cm, m, sizeof *cm, sched_cmp_comment);
    np->comments = base_arena_array(R->a, m ? m : 1, sizeof *np->comments);
    for (uint32_t c = 0; c < m; c++)
        np->comments[c] = cm[c].c;
    np->ncomments = m;
    free(to);
    free(cm);
}

static bool sched_rw_init(sched_rw *R) {
    const ir_program *p = R->p;
    const plan_sched_graph *g = R->g;
    size_t nv = (size_t)p->nvalues + 1;
    R->cap = 2 * p->nstmts + g->n + 2;
    R->out = base_arena_array(R->a, R->cap, sizeof *R->out);
    R->newpos = malloc(((size_t)p->nstmts + 1) * sizeof *R->newpos);
    R->al_off = calloc((size_t)g->nstor + 2, sizeof *R->al_off);
    R->al = malloc(nv * sizeof *R->al);
    R->stor_of = malloc(nv * sizeof *R->stor_of);
    R->free_loc = calloc(nv, sizeof *R->free_loc);
    R->free_at = malloc(nv * sizeof *R->free_at);
    R->names = malloc(nv * sizeof *R->names);
    R->keys = malloc(nv * sizeof *R->keys);
    R->free_key = calloc(nv, sizeof *R->free_key);
    if (!R->newpos || !R->al_off || !R->al || !R->stor_of || !R->free_loc ||
        !R->free_at || !R->names || !R->keys || !R->free_key)
        return false;
    memset(R->newpos, 0xff, ((size_t)p->nstmts + 1) * sizeof *R->newpos);
    memset(R->free_at, 0xff, nv * sizeof *R->free_at);
    for (uint32_t s = 0; s < g->nstor; s++)
        R->stor_of[g->root[s]] = (int32_t)s;
    for (uint32_t v = 0; v < p->nvalues; v++) {
        R->stor_of[v] = R->stor_of[p->values[v].root];
        if (p->values[v].kind == IR_VAL_ALIAS)
            R->al_off[R->stor_of[v] + 1]++;
    }
    for (uint32_t s = 0; s < g->nstor; s++)
        R->al_off[s + 1] += R->al_off[s];
    uint32_t *fill = calloc((size_t)g->nstor + 1, sizeof *fill);
    if (!fill)
        return false;
    for (uint32_t v = 0; v < p->nvalues; v++)
        if (p->values[v].kind == IR_VAL_ALIAS) {
            uint32_t s = (uint32_t)R->stor_of[v];
            R->al[R->al_off[s] + fill[s]++] = v;
        }
    free(fill);
    for (uint32_t i = 0; i < p->nstmts; i++)
        for (uint32_t j = 0;
             p->stmts[i].kind == IR_FREE && j < p->stmts[i].nnames; j++) {
            R->free_at[p->stmts[i].name_values[j]] = i;
            R->free_loc[p->stmts[i].name_values[j]] = p->stmts[i].names[j].loc;
            R->free_key[p->stmts[i].name_values[j]] = (uint64_t)i << 32 | j;
        }
    return true;
}

static void sched_rw_free(sched_rw *R) {
    free(R->newpos);
    free(R->al_off);
    free(R->al);
    free(R->stor_of);
    free(R->free_loc);
    free(R->free_at);
    free(R->names);
    free(R->keys);
    free(R->free_key);
    free(R->at_off);
    free(R->at);
}

/* Which call each alias is defined before: the first that uses it or an
 * alias of it; an alias no call uses goes with its `old`, or with its
 * storage's first use (UINT32_MAX: a storage no call touches). */
static bool sched_alias_buckets(sched_rw *R, const uint32_t *order,
                                const uint32_t *first) {
    const ir_program *p = R->p;
    const plan_sched_graph *g = R->g;
    uint32_t *key = malloc(((size_t)p->nvalues + 1) * sizeof *key);
    R->at_off = calloc((size_t)g->n + 2, sizeof *R->at_off);
    R->at = malloc(((size_t)p->nvalues + 1) * sizeof *R->at);
    if (!key || !R->at_off || !R->at) {
        free(key);
        return false;
    }
    memset(key, 0xff, ((size_t)p->nvalues + 1) * sizeof *key);
    for (uint32_t t = 0; t < g->n; t++) {
        const ir_stmt *st = &p->stmts[g->stmt[order[t]]];
        for (uint32_t i = 0; i < st->nargs; i++)
            for (int32_t x =
                     st->args[i].kind == IR_ARG_BUFFER ? st->args[i].value : -1;
                 x >= 0 && key[x] == UINT32_MAX; x = p->values[x].alias_of)
                key[x] = t;
    }
    for (uint32_t v = 0; v < p->nvalues; v++) {
        const ir_value *val = &p->values[v];
        if (val->kind != IR_VAL_ALIAS || key[v] != UINT32_MAX)
            continue;
        key[v] = p->values[val->alias_of].kind == IR_VAL_ALIAS
                     ? key[val->alias_of]
                     : first[R->stor_of[v]];
    }
    for (uint32_t v = 0; v < p->nvalues; v++)
        if (p->values[v].kind == IR_VAL_ALIAS && key[v] != UINT32_MAX)
            R->at_off[key[v] + 1]++;
    for (uint32_t t = 0; t < g->n; t++)
        R->at_off[t + 1] += R->at_off[t];
    uint32_t *fill = calloc((size_t)g->n + 1, sizeof *fill);
    for (uint32_t v = 0; fill && v < p->nvalues; v++)
        if (p->values[v].kind == IR_VAL_ALIAS && key[v] != UINT32_MAX)
            R->at[R->at_off[key[v]] + fill[key[v]]++] = v;
    bool ok = fill != NULL;
    free(fill);
    free(key);
    return ok;
}

/* First and last position of each storage's users in `order`. */
static bool sched_spans(const plan_sched_graph *g, const uint32_t *order,
                        uint32_t **first, uint32_t **last) {
    *first = malloc(((size_t)g->nstor + 1) * sizeof **first);
    *last = malloc(((size_t)g->nstor + 1) * sizeof **last);
    if (!*first || !*last)
        return false;
    memset(*first, 0xff, ((size_t)g->nstor + 1) * sizeof **first);
    for (uint32_t t = 0; t < g->n; t++)
        SCHED_USES(g, order[t], k) {
            uint32_t s = g->use[k];
            if ((*first)[s] == UINT32_MAX)
                (*first)[s] = t;
            (*last)[s] = t;
        }
    return true;
}

ir_program *plan_sched_rewrite(base_arena *a, const ir_program *p,
                               const plan_sched_graph *g, const uint32_t *order,
                               base_diag *d) {
    sched_rw R = {.a = a, .p = p, .g = g};
    uint32_t *first = NULL, *last = NULL;
    ir_program *np = NULL;
    if (!sched_rw_init(&R) || !sched_spans(g, order, &first, &last) ||
        !sched_alias_buckets(&R, order, first))
        goto done;
    sched_emit_header(&R);
    sched_emit_body(&R, order, first, last);
    np = base_arena_alloc(a, sizeof *np);
    *np = *p;
    np->stmts = R.out;
    np->nstmts = R.n;
    sched_comments(&R, np);
    /* The names are the same interned pointers, whose checker state is
     * stamped with a generation: np's run must use a number no run on
     * these names used, and so must later rewrites of p. */
    np->check_gen = p->check_gen;
    bool ok = ir_check(np, d);
    ((ir_program *)p)->check_gen = np->check_gen;
    if (!ok)
        np = NULL;
done:
    free(first);
    free(last);
    sched_rw_free(&R);
    return np;
}

ir_program *plan_sched_program(base_arena *a, const ir_program *p,
                               plan_order alg, const plan_sched_opts *o,
                               base_diag *d, plan_sched_stats *st) {
    plan_sched_stats dummy;
    st = st ? st : &dummy;
    plan_sched_graph *g = plan_sched_graph_build(p);
    uint32_t *order = g ? malloc(((size_t)g->n + 1) * sizeof *order) : NULL;
    ir_program *np = NULL;
    char err[256];
    if (!order || plan_sched_order(g, alg, o, order, st)) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0, "out of memory");
    } else if (!plan_sched_verify(g, order, err, sizeof err)) {
        base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                         "internal error: order %s breaks a dependency: %s",
                         plan_order_name(alg), err);
    } else {
        base_diag *qd = base_diag_new(NULL, 0); /* counts, prints nothing */
        np = plan_sched_rewrite(a, p, g, order, qd);
        base_diag_free(qd);
        if (!np)
            base_diag_report(d, BASE_SEV_ERROR, 0, 0,
                             "internal error: the program reordered by %s does "
                             "not check",
                             plan_order_name(alg));
    }
    free(order);
    plan_sched_graph_free(g);
    return np;
}

/*
 * import/mem.c - uses and lifetimes of values, and the two memory options
 * beyond a literal import:
 *
 * - concat elimination: a Concat whose output has every dim before the
 *   axis equal to 1 holds each input as one contiguous slice.  An input
 *   produced by a compute node only for this Concat is written straight
 *   into a view of the output (`alias x = out TYPE offset=K` before its
 *   producer; the output is allocated before its first such producer);
 *   the other inputs are copied into their slices (`copy_DTYPE`).  The
 *   Concat call disappears.  This is the memory-efficient DenseNet layout
 *   (Inductor's NonOwningLayout).
 * - in place: an elementwise node whose input dies at that node, and
 *   whose storage is no graph input, output or constant, writes its
 *   output into that storage (`alias y = x`, a `_ipI` kernel whose
 *   argument I is `inout`), as PyTorch's relu_ does.
 *
 * Both only ever remove buffers or shorten nothing: a storage lives from
 * its first producer to its last use either way.
 */
#include "imp.h"

#include <string.h>

static bool imp_is_param(const imp_node *n, int i) {
    return (n->info->params >> i) & 1u;
}

static bool imp_emitted(const imp_node *n) {
    return !n->folded;
}

/* Uses as buffers: last_use, nuses, needed. */
static void imp_uses(imp_ctx *c) {
    for (int k = 0; k < c->nnodes; k++) {
        imp_node *n = &c->nodes[k];
        if (!imp_emitted(n))
            continue;
        c->cur = k;
        for (int i = 0; i < n->nin; i++) {
            imp_value *v = imp_in(c, n, i);
            if (!v || imp_is_param(n, i) || (n->view && i > 0))
                continue;
            v->last_use = k;
            v->nuses++;
            v->needed = true;
        }
        for (int i = 1; n->view && i < n->nout; i++) {
            imp_value *v = imp_out(c, n, i);
            if (v)
                v->kind = IMP_V_FOLDED; /* checked below: unused */
        }
    }
    c->cur = -1;
    for (int i = 0; i < c->nvals; i++) {
        imp_value *v = &c->vals[i];
        if (v->is_output)
            v->needed = true;
        if (v->kind == IMP_V_FOLDED && v->producer >= 0 && !v->has_data &&
            v->needed) {
            c->cur = v->producer;
            imp_fail(c, "output '%s' (the mask) is not supported", v->name);
        }
    }
}

static imp_value *imp_root(imp_ctx *c, imp_value *v) {
    while (v->view_of >= 0)
        v = &c->vals[v->view_of];
    return v;
}

/* Storage-level lifetimes, for the in-place rule. */
static void imp_storage(imp_ctx *c) {
    for (int i = 0; i < c->nvals; i++) {
        c->vals[i].slast = -1;
        c->vals[i].sout = false;
    }
    for (int i = 0; i < c->nvals; i++) {
        imp_value *v = &c->vals[i], *r = imp_root(c, v);
        if (v->last_use > r->slast)
            r->slast = v->last_use;
        if (v->producer > r->slast)
            r->slast = v->producer;
        r->sout |= v->is_output;
    }
}

static bool imp_placeable(imp_ctx *c, const imp_node *cat, int i, int k) {
    imp_value *x = imp_in(c, cat, i);
    if (x->kind != IMP_V_NODE || x->is_view || x->view_of >= 0 ||
        x->is_output || x->nuses != x->ncat || x->last_use != k || x->hosts > 0)
        return false;
    const imp_node *p = &c->nodes[x->producer];
    if (p->view || p->eliminated)
        return false;
    for (int j = 0; j < cat->nin; j++)
        if (j != i && cat->in[j] == cat->in[i])
            return false;
    return true;
}

/* An emitted Concat whose inputs are contiguous slices of its output:
 * every dim before the axis is 1. */
static bool imp_concat_flat(imp_ctx *c, const imp_node *n) {
    if (n->folded || strcmp(n->op, "Concat") != 0)
        return false;
    imp_value *o = imp_out(c, n, 0);
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), o->rank);
    for (int a = 0; a < axis; a++)
        if (o->dims[a] != 1)
            return false;
    return true;
}

/* An input is placed into the storage of the last flat Concat that uses
 * it, when every use of it is by such Concats (DenseNet's features). */
static void imp_concat_elim(imp_ctx *c, imp_node *n, int k) {
    imp_value *o = imp_out(c, n, 0);
    if (o->is_view || o->view_of >= 0)
        return;
    bool *placed = imp_alloc(c, (size_t)n->nin * sizeof *placed);
    int nplaced = 0, first = k;
    int64_t off = 0;
    for (int i = 0; i < n->nin; i++) {
        imp_value *x = imp_in(c, n, i);
        if (imp_placeable(c, n, i, k)) {
            placed[i] = true;
            nplaced++;
            x->view_of = (int)(o - c->vals);
            x->view_off = off;
            if (x->producer < first)
                first = x->producer;
        }
        off += imp_numel(x);
    }
    if (nplaced == 0)
        return;
    n->eliminated = true;
    n->placed = placed;
    o->hosts = nplaced;
    o->first_def = first;
}

/* A flat Concat not eliminated whose inputs were all placed, in order
 * and back to back, into one storage (an earlier Concat of DenseNet's
 * block: a prefix of the block's last one) becomes a view of it. */
static void imp_concat_view(imp_ctx *c, imp_node *n) {
    imp_value *o = imp_out(c, n, 0), *x0 = imp_in(c, n, 0);
    if (n->eliminated || o->is_output || o->view_of >= 0 || o->hosts > 0 ||
        x0->view_of < 0 || x0->inplace)
        return;
    int64_t off = x0->view_off;
    for (int i = 0; i < n->nin; i++) {
        imp_value *x = imp_in(c, n, i);
        if (x->view_of != x0->view_of || x->inplace || x->view_off != off)
            return;
        off += imp_numel(x);
    }
    n->cview = true;
    o->view_of = x0->view_of;
    o->view_off = x0->view_off;
    o->is_view = true;
}

/* Ops that may overwrite their first input only: per channel or per row
 * kernels that read what they overwrite before writing it. */
static bool imp_inplace_first(const imp_node *n) {
    static const char *const ops[] = {
        "BatchNormalization",
        "InstanceNormalization",
        "LayerNormalization",
        "LogSoftmax",
        "Softmax",
    };
    for (size_t i = 0; i < sizeof ops / sizeof *ops; i++)
        if (!strcmp(n->op, ops[i]))
            return true;
    return false;
}

static bool imp_inplace_op(const imp_node *n) {
    if (n->info->cls == IMP_C_FLAT)
        return strncmp(n->op, "Cast", 4) && strcmp(n->op, "Where") &&
               strncmp(n->op, "Is", 2);
    return imp_inplace_first(n);
}

static void imp_inplace(imp_ctx *c, imp_node *n, int k) {
    imp_value *o = imp_out(c, n, 0);
    if (!imp_inplace_op(n) || n->nout != 1 || !o || o->view_of >= 0 ||
        o->is_output || o->hosts > 0)
        return;
    int ndata = imp_inplace_first(n) ? 1 : n->nin;
    for (int i = 0; i < ndata; i++) {
        imp_value *x = imp_in(c, n, i);
        if (!x || imp_is_param(n, i) || x->dtype != o->dtype ||
            x->rank != o->rank || memcmp(x->dims, o->dims, sizeof x->dims) != 0)
            continue;
        bool twice = false;
        for (int j = 0; j < n->nin; j++)
            twice |= j != i && n->in[j] == n->in[i];
        imp_value *r = imp_root(c, x);
        if (twice || r->kind != IMP_V_NODE || r->sout || r->slast != k ||
            x->last_use != k)
            continue;
        o->view_of = (int)(x - c->vals);
        o->inplace = true;
        n->inplace_in = i;
        r->slast = o->slast > k ? o->slast : k;
        r->sout |= o->sout;
        return;
    }
}

/* Peak of the bytes of planned storages alive at a node, for the
 * current layout: a storage lives from its first producer (or the node
 * before which it is allocated) to the last use of any of its names.
 * Storages holding a graph output are the caller's and not counted. */
static int64_t imp_peak(imp_ctx *c, int64_t *diff) {
    memset(diff, 0, (size_t)(c->nnodes + 2) * sizeof *diff);
    imp_storage(c);
    for (int i = 0; i < c->nvals; i++) {
        imp_value *r = &c->vals[i];
        if (r->view_of >= 0 || r->kind != IMP_V_NODE || r->sout)
            continue;
        int start = r->first_def >= 0 ? r->first_def : r->producer;
        int end = r->slast > start ? r->slast : start;
        int64_t b = imp_numel(r) * (int64_t)imp_dtype_size(r->dtype);
        diff[start] += b;
        diff[end + 1] -= b;
    }
    int64_t live = 0, peak = 0;
    for (int k = 0; k <= c->nnodes; k++) {
        live += diff[k];
        peak = live > peak ? live : peak;
    }
    return peak;
}

typedef struct imp_layout {
    int view_of, first_def, hosts;
    int64_t view_off;
    bool is_view;
} imp_layout;

static void imp_layout_save(imp_ctx *c, imp_layout *l) {
    for (int i = 0; i < c->nvals; i++) {
        const imp_value *v = &c->vals[i];
        l[i] = (imp_layout){v->view_of, v->first_def, v->hosts, v->view_off,
                            v->is_view};
    }
}

static void imp_layout_restore(imp_ctx *c, const imp_layout *l) {
    for (int i = 0; i < c->nvals; i++) {
        imp_value *v = &c->vals[i];
        v->view_of = l[i].view_of;
        v->first_def = l[i].first_def;
        v->hosts = l[i].hosts;
        v->view_off = l[i].view_off;
        v->is_view = l[i].is_view;
    }
    for (int k = 0; k < c->nnodes; k++)
        if (c->nodes[k].cview && c->vals[c->nodes[k].out[0]].view_of < 0)
            c->nodes[k].cview = false;
}

/* Concat elimination, one Concat at a time in graph order: kept only when
 * it (with the views of earlier Concats it enables) does not raise the
 * peak of live bytes, so that the option never makes a plan larger.
 * O(concats x values); skipped on graphs where that is too much. */
static void imp_concats(imp_ctx *c) {
    int ncat = 0;
    for (int k = 0; k < c->nnodes; k++) {
        imp_node *n = &c->nodes[k];
        c->cur = k;
        if (!imp_concat_flat(c, n))
            continue;
        n->flatcat = true;
        ncat++;
        for (int i = 0; i < n->nin; i++)
            imp_in(c, n, i)->ncat++;
    }
    c->cur = -1;
    if (ncat == 0 || (int64_t)ncat * c->nvals > 50000000)
        return;
    int64_t *diff = imp_alloc(c, (size_t)(c->nnodes + 2) * sizeof *diff);
    imp_layout *saved = imp_alloc(c, (size_t)c->nvals * sizeof *saved);
    int64_t best = imp_peak(c, diff);
    for (int k = 0; k < c->nnodes; k++) {
        imp_node *n = &c->nodes[k];
        if (!n->flatcat)
            continue;
        imp_layout_save(c, saved);
        c->cur = k;
        imp_concat_elim(c, n, k);
        for (int j = 0; n->eliminated && j <= k; j++)
            if (c->nodes[j].flatcat)
                imp_concat_view(c, &c->nodes[j]);
        c->cur = -1;
        int64_t peak = n->eliminated ? imp_peak(c, diff) : best;
        if (peak <= best) {
            best = peak;
            continue;
        }
        imp_layout_restore(c, saved);
        n->eliminated = false;
        n->placed = NULL;
    }
}

void imp_memory(imp_ctx *c) {
    imp_uses(c);
    if (c->opt->concat)
        imp_concats(c);
    imp_storage(c);
    for (int k = 0; c->opt->inplace && k < c->nnodes; k++)
        if (imp_emitted(&c->nodes[k]) && !c->nodes[k].view)
            imp_inplace(c, &c->nodes[k], k);
    c->early = imp_alloc(c, (size_t)(c->nnodes + 1) * sizeof(int));
    for (int k = 0; k <= c->nnodes; k++)
        c->early[k] = -1;
    for (int i = c->nvals - 1; i >= 0; i--) {
        imp_value *v = &c->vals[i];
        v->early_next = -1;
        if (v->hosts > 0) {
            v->early_next = c->early[v->first_def];
            c->early[v->first_def] = i;
        }
    }
}

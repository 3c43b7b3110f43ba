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
    for (int i = 0; i < c->nvals; i++)
        c->vals[i].slast = -1;
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
        x->is_output || x->nuses != 1 || x->last_use != k || x->hosts > 0)
        return false;
    const imp_node *p = &c->nodes[x->producer];
    if (p->view || p->eliminated)
        return false;
    for (int j = 0; j < cat->nin; j++)
        if (j != i && cat->in[j] == cat->in[i])
            return false;
    return true;
}

static void imp_concat_elim(imp_ctx *c, imp_node *n, int k) {
    imp_value *o = imp_out(c, n, 0);
    int axis = imp_axis(c, imp_attr_i(n, "axis", 0), o->rank);
    for (int a = 0; a < axis; a++)
        if (o->dims[a] != 1)
            return;
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

static bool imp_inplace_op(const imp_node *n) {
    if (n->info->cls == IMP_C_FLAT)
        return strcmp(n->op, "Cast") && strcmp(n->op, "Where");
    return !strcmp(n->op, "BatchNormalization");
}

static void imp_inplace(imp_ctx *c, imp_node *n, int k) {
    imp_value *o = imp_out(c, n, 0);
    if (!imp_inplace_op(n) || n->nout != 1 || !o || o->view_of >= 0 ||
        o->is_output || o->hosts > 0)
        return;
    int ndata = !strcmp(n->op, "BatchNormalization") ? 1 : n->nin;
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

void imp_memory(imp_ctx *c) {
    imp_uses(c);
    for (int k = 0; c->opt->concat && k < c->nnodes; k++) {
        imp_node *n = &c->nodes[k];
        c->cur = k;
        if (imp_emitted(n) && !strcmp(n->op, "Concat"))
            imp_concat_elim(c, n, k);
    }
    c->cur = -1;
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

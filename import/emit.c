/*
 * import/emit.c - the IR text: `model`, the `kernel` signatures, inputs
 * and constants, then per node its allocs or aliases, its call (sig.c)
 * and the frees of the values whose last use it is, then `output`.
 */
#include "imp.h"

#include <string.h>

static void imp_type(imp_buf *b, const imp_value *v) {
    imp_printf(b, "%s[", imp_dtype_name(v->dtype));
    for (int i = 0; i < v->rank; i++)
        imp_printf(b, "%s%lld", i ? "," : "", (long long)v->dims[i]);
    imp_printf(b, "]");
}

static const char *imp_id(imp_ctx *c, imp_value *v) {
    if (!v->ident)
        v->ident = imp_unique_ident(c, v->name);
    return v->ident;
}

static void imp_decl(imp_ctx *c, const char *kw, imp_value *v) {
    imp_printf(&c->body, "%-6s %s ", kw, imp_id(c, v));
    imp_type(&c->body, v);
    if (c->opt->weights && strcmp(kw, "const") == 0)
        imp_weights_decl(c, v);
    if (v->kind == IMP_V_FOLDED)
        imp_printf(&c->body, "  # folded at import from shapes and constants");
    imp_printf(&c->body, "\n");
}

/* Inputs in graph order; constants used as buffers in value order; names
 * never used are freed at once. */
static void imp_emit_decls(imp_ctx *c) {
    imp_buf unused = {0};
    for (size_t i = 0; i < c->g->n_input; i++) {
        imp_value *v = imp_find(c, c->g->input[i]->name);
        if (v->kind != IMP_V_INPUT || v->ident)
            continue;
        imp_decl(c, "input", v);
        if (!v->needed)
            imp_printf(&unused, " %s", v->ident);
    }
    for (int i = 0; i < c->nvals; i++) {
        imp_value *v = &c->vals[i];
        if ((v->kind == IMP_V_CONST || v->kind == IMP_V_FOLDED) && v->needed)
            imp_decl(c, "const", v);
    }
    if (unused.len)
        imp_printf(&c->body, "free  %s\n", base_sb_str(&unused));
    imp_buf_free(&unused);
}

static void imp_emit_alloc(imp_ctx *c, imp_value *v) {
    imp_printf(&c->body, "alloc  %s ", imp_id(c, v));
    imp_type(&c->body, v);
    imp_printf(&c->body, "\n");
}

/* The statement defining output v of a compute node. */
static void imp_emit_def(imp_ctx *c, imp_value *v) {
    if (v->view_of < 0) {
        if (v->hosts == 0)
            imp_emit_alloc(c, v);
        return;
    }
    imp_value *s = &c->vals[v->view_of];
    imp_printf(&c->body, "alias  %s = %s", imp_id(c, v), imp_id(c, s));
    if (!v->inplace) {
        imp_printf(&c->body, " ");
        imp_type(&c->body, v);
        if (v->view_off)
            imp_printf(&c->body, " offset=%lld", (long long)v->view_off);
    }
    imp_printf(&c->body, "\n");
}

/* Non-placed inputs of an eliminated Concat are copied into their
 * slices of the output. */
static void imp_emit_concat_copies(imp_ctx *c, imp_node *n) {
    imp_value *o = imp_out(c, n, 0);
    int64_t off = 0;
    for (int i = 0; i < n->nin; i++) {
        imp_value *x = imp_in(c, n, i);
        if (!n->placed[i]) {
            const char *part =
                imp_unique_ident(c, imp_fmt(c, "%s_part%d", o->name, i));
            imp_printf(&c->body, "alias  %s = %s ", part, imp_id(c, o));
            imp_type(&c->body, x);
            if (off)
                imp_printf(&c->body, " offset=%lld", (long long)off);
            const char *k = imp_fmt(c, "copy_%s", imp_dtype_name(x->dtype));
            imp_kernel(c, k, "in, out, scalar");
            imp_printf(&c->body,
                       "\ncall   %s(%s, %s, %lld)  # node '%s' (Concat): "
                       "input %d into its slice\nfree   %s\n",
                       k, imp_id(c, x), part, (long long)imp_numel(x),
                       imp_printable(c, n->name), i, part);
        }
        off += imp_numel(x);
    }
}

/* free: inputs of node k whose last use it is, outputs never used. */
static void imp_emit_frees(imp_ctx *c, imp_node *n, int k) {
    imp_buf b = {0};
    for (int i = 0; i < n->nin; i++) {
        imp_value *v = imp_in(c, n, i);
        bool first = true;
        for (int j = 0; j < i; j++)
            first &= n->in[j] != n->in[i];
        if (v && first && v->last_use == k && !v->is_output && v->ident)
            imp_printf(&b, " %s", v->ident);
    }
    for (int i = 0; i < n->nout; i++) {
        imp_value *v = imp_out(c, n, i);
        if (v && v->last_use < 0 && !v->is_output && v->ident)
            imp_printf(&b, " %s", v->ident);
    }
    if (b.len)
        imp_printf(&c->body, "free  %s\n", base_sb_str(&b));
    imp_buf_free(&b);
}

static void imp_emit_node(imp_ctx *c, imp_node *n, int k) {
    for (int i = c->early[k]; i >= 0; i = c->vals[i].early_next)
        imp_emit_alloc(c, &c->vals[i]);
    if (n->view) {
        imp_value *o = imp_out(c, n, 0), *x = imp_in(c, n, 0);
        imp_printf(&c->body, "alias  %s = %s ", imp_id(c, o), imp_id(c, x));
        imp_type(&c->body, o);
        imp_printf(&c->body, "  # node '%s' (%s)\n", imp_printable(c, n->name),
                   n->op);
    } else if (n->cview) {
        imp_value *o = imp_out(c, n, 0);
        imp_emit_def(c, o);
        c->body.len--; /* the comment goes on the alias line */
        imp_printf(&c->body,
                   "  # node '%s' (Concat): its inputs lie in order in '%s'\n",
                   imp_printable(c, n->name), imp_id(c, &c->vals[o->view_of]));
    } else if (n->eliminated) {
        imp_emit_concat_copies(c, n);
    } else {
        for (int i = 0; i < n->nout; i++) {
            imp_value *o = imp_out(c, n, i);
            if (o)
                imp_emit_def(c, o);
        }
        imp_emit_call(c, n);
    }
    imp_emit_frees(c, n, k);
}

static void imp_model_name(imp_ctx *c, imp_buf *b) {
    const char *base = strrchr(c->file, '/');
    base = base ? base + 1 : c->file;
    char *s = imp_strdup(c, base);
    char *dot = strrchr(s, '.');
    if (dot && dot != s)
        *dot = '\0';
    imp_map buffers = c->ids; /* the model name has a namespace of its own */
    c->ids = (imp_map){0};
    imp_printf(b, "model %s\n", imp_unique_ident(c, s));
    c->ids = buffers;
}

void imp_emit(imp_ctx *c) {
    imp_emit_decls(c);
    for (int k = 0; k < c->nnodes; k++) {
        imp_node *n = &c->nodes[k];
        c->cur = k;
        if (!n->folded)
            imp_emit_node(c, n, k);
    }
    c->cur = -1;
    imp_printf(&c->body, "output");
    for (size_t i = 0; i < c->g->n_output; i++)
        imp_printf(&c->body, " %s",
                   imp_id(c, imp_find(c, c->g->output[i]->name)));
    imp_printf(&c->body, "\n");
    /* header + signatures + body */
    imp_buf all = {0};
    const char *base = strrchr(c->file, '/');
    imp_printf(&all, "# imported by planwrap import from %s (opset %lld)\n",
               imp_printable(c, base ? base + 1 : c->file),
               (long long)c->opset);
    imp_model_name(c, &all);
    imp_printf(&all, "%s%s", base_sb_str(&c->sigs), base_sb_str(&c->body));
    imp_buf_free(&c->body);
    c->body = all;
}

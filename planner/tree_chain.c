/*
 * planner/tree_chain.c - the chains of `tree`'s pools (planner/tree.c,
 * "chains"): a chain's start, its levels and its end; and plan_tree,
 * which stacks the pools of plan_tree_pools into one.
 */
#include "tree_chain.h"

#include <stdlib.h>
#include <string.h>

static void tr_ix_kre(const tr_ctx *c, const tr_kre *e, uint32_t *l,
                      uint32_t *h) {
    *l = tr_axis_pos(&c->axis, e->lo);
    *h = tr_axis_pos(&c->axis, e->hi);
}

/* Marks node id as level lvl (0: none) of a chain. */
static void tr_set_lvl(tr_ctx *c, uint32_t id, uint32_t lvl) {
    c->cold[id].lvl = lvl;
    if (lvl)
        c->nodes[id].w |= TR_F_CHAIN;
    else
        c->nodes[id].w &= ~(uint32_t)TR_F_CHAIN;
}

void tr_chain_drop(tr_ctx *c, tr_chain *ch) {
    for (uint32_t l = 0; l < ch->nlv; l++) {
        tr_set_lvl(c, ch->lv[l].ts, 0);
        if (l > 0)
            tr_set_lvl(c, ch->lv[l].ss, 0);
    }
    free(ch->lv);
    tr_seg_free(&ch->ix);
    memset(ch, 0, sizeof *ch);
}

/* A new chain of pool p at TemporalSplit root (its level 0); false when
 * out of memory. */
static bool tr_chain_start(tr_ctx *c, tr_pool *p, uint32_t root) {
    tr_chain *ch = &p->ch;
    if (c->axis.n == 0 && !tr_axis_init(&c->axis, c->pb))
        return false;
    if (!tr_seg_init(&ch->ix, c->axis.n))
        return false;
    void *a = NULL;
    if (!tr_grow(c, &a, &ch->cap, 16, sizeof *ch->lv))
        return false;
    ch->lv = a;
    ch->lv[0].ts = root;
    ch->nlv = 1;
    ch->fit = UINT32_MAX;
    tr_set_lvl(c, root, 1);
    const tr_kre *kr = tr_ckr(c, root);
    for (uint32_t i = 0; i < tr_nkr(&c->nodes[root]); i++) {
        uint32_t l, h;
        tr_ix_kre(c, &kr[i], &l, &h);
        tr_seg_chmax(&ch->ix, TR_OWN, l, h, 1);
    }
    return true;
}

/* allocate_at_end made t = TS([s]), s = SS(old root, TS([block range
 * br])): a new level on p's chain. */
void tr_chain_push(tr_ctx *c, tr_pool *p, uint32_t s, uint32_t t, tr_range br) {
    tr_chain *ch = &p->ch;
    if (ch->nlv == 0 && !tr_chain_start(c, p, c->nodes[s].u.ss.left)) {
        c->oom = true;
        return;
    }
    void *a = ch->lv;
    if (!tr_grow(c, &a, &ch->cap, ch->nlv + 1, sizeof *ch->lv))
        return;
    ch->lv = a;
    uint32_t k = ch->nlv - 1, l, h;
    const tr_kre *old = tr_ckr(c, ch->lv[k].ts);
    uint32_t nold = tr_nkr(&c->nodes[ch->lv[k].ts]);
    for (uint32_t i = 0; i < nold; i++) /* SS_{k+1} holds these now */
        if (k == 0 || old[i].kid != ch->lv[k].ss) {
            tr_ix_kre(c, &old[i], &l, &h);
            tr_seg_chmax(&ch->ix, TR_LOW, l, h, UINT32_MAX - (k + 1));
        }
    tr_ix_span(c, br, &l, &h);
    tr_seg_chmax(&ch->ix, TR_LOW, l, h, UINT32_MAX - (k + 1));
    ch->lv[k + 1] = (tr_lv){t, s};
    ch->nlv++;
    tr_set_lvl(c, t, k + 2);
    tr_set_lvl(c, s, k + 2);
}

static int plan_tree_core(const plan_problem *pb, uint64_t *offsets,
                          uint64_t *size) {
    uint32_t n = pb->n;
    uint32_t *sub = malloc(((size_t)n + 1) * sizeof *sub);
    uint64_t *ssz = malloc(((size_t)n + 1) * sizeof *ssz);
    uint64_t *base = malloc(((size_t)n + 1) * sizeof *base);
    uint32_t ns = 0;
    int rc = -1;
    if (!sub || !ssz || !base)
        goto out;
    if (plan_tree_pools(pb, NULL, PLAN_MP_INTERMEDIATES, offsets, sub, ssz,
                        &ns) != 0)
        goto out;
    uint64_t a = pb->align ? pb->align : 1, top = 0;
    for (uint32_t i = 0; i < n; i++)
        if (pb->bufs[i].align > a)
            a = pb->bufs[i].align;
    for (uint32_t p = 0; p < ns; p++) {
        base[p] = tr_align(top, a);
        top = tr_add(base[p], ssz[p]);
    }
    uint64_t pa = pb->align ? pb->align : 1;
    if (top > PLAN_MAX_POOL_SIZE ||
        plan_align_up(top, pa) > PLAN_MAX_POOL_SIZE) {
        /* huge alignments blew the tree up: the naive plan fits */
        rc = plan_naive(pb, offsets, size);
        goto out;
    }
    for (uint32_t i = 0; i < n; i++)
        if (sub[i] != UINT32_MAX)
            offsets[i] += base[sub[i]];
    *size = plan_align_up(top, pa);
    rc = 0;
out:
    free(sub);
    free(ssz);
    free(base);
    return rc;
}

int plan_tree(const plan_problem *pb, uint64_t *offsets, uint64_t *size) {
    return plan_run_colored(pb, plan_tree_core, offsets, size);
}

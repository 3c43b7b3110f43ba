/*
 * planner/window.c - exact re-solve of a window: k lifted buffers placed
 * among fixed obstacles so that their highest top is as low as possible.
 * The large-neighbourhood search (planner/lns.c) lifts the buffers of a
 * window around the pool's peak and calls this.
 *
 * Canonical solutions, as in the MiniMalloc solver (Moffitt, ASPLOS 2023;
 * the code is ours), extended to obstacles: the lifted buffers are placed
 * in non-decreasing offset order (ties by index), each at its minimum
 * offset: the lowest aligned offset at or above the previous one where it
 * meets neither an obstacle nor a placed lifted buffer it overlaps in
 * time.  Every layout can be turned into such a one without raising any
 * top (lowering a buffer to its minimum offset cannot hit a buffer above
 * it: any buffer it overlaps in time and placed later sits above its old
 * top), so the depth-first search over them is exact.  Pruning: a node
 * where some unplaced buffer's minimum offset already gives a top at or
 * above the best is dead; so is one where, at some time point (a
 * section), the unplaced buffers live there need more bytes than the
 * obstacles and placed buffers leave free between the last offset and the
 * best; dominance (after MiniMalloc): never place a
 * buffer at or above the top another unplaced buffer would reach at its
 * minimum offset.  Branch and bound: each layout found lowers the bound.
 *
 * One node is one step; the search stops after `limit` nodes, keeping
 * the best layout found, so the result depends only on the input and the
 * limit.  Cost per node O((k + sections) * (k + log obstacles + obstacles
 * hit)); no heap.
 */
#include "plan_internal.h"

#include <string.h>

typedef struct win_run {
    const plan_win *w;
    uint64_t off[PLAN_WIN_MAX];
    uint64_t best; /* every top of the best layout is below it */
    uint64_t nodes, limit;
    bool found;
} win_run;

static uint64_t win_align(uint64_t v, uint64_t a) {
    uint64_t r = v % a;
    return r ? v + (a - r) : v;
}

/* The first of the sorted disjoint iv[0..n) that ends above x. */
static uint32_t win_first(const plan_iv *iv, uint32_t n, uint64_t x) {
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (iv[mid].hi <= x)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The lowest aligned offset >= from where u fits; placed: bit mask. */
static uint64_t win_min(const win_run *r, uint32_t u, uint64_t from,
                        uint32_t placed) {
    const plan_win *w = r->w;
    uint64_t a = w->align[u], sz = w->size[u];
    uint64_t o = win_align(from, a);
    const plan_iv *ob = w->obs + w->obs_beg[u];
    uint32_t n = w->obs_beg[u + 1] - w->obs_beg[u];
    uint32_t lo = win_first(ob, n, o);
    uint32_t mask = w->conf[u] & placed;
    for (bool moved = true; moved;) {
        moved = false;
        for (; lo < n && ob[lo].lo < o + sz; lo++)
            if (ob[lo].hi > o) {
                o = win_align(ob[lo].hi, a);
                moved = true;
            }
        for (uint32_t m = mask; m; m &= m - 1) {
            uint32_t j = (uint32_t)__builtin_ctz(m);
            if (r->off[j] < o + sz && r->off[j] + w->size[j] > o) {
                o = win_align(r->off[j] + w->size[j], a);
                moved = true;
            }
        }
    }
    return o;
}

/* The bytes of [lo, hi) covered by the sorted disjoint ivs[0..n). */
static uint64_t win_cover(const plan_iv *iv, uint32_t n, uint64_t lo,
                          uint64_t hi) {
    uint32_t a = win_first(iv, n, lo);
    uint64_t c = 0;
    for (; a < n && iv[a].lo < hi; a++)
        c += (iv[a].hi < hi ? iv[a].hi : hi) - (iv[a].lo > lo ? iv[a].lo : lo);
    return c;
}

/* Section inference: in every section, the unplaced buffers (all at or
 * above last, all below best) must fit in the bytes of [last, best - 1)
 * that neither obstacles nor placed buffers cover. */
static bool win_room(const win_run *r, uint32_t placed, uint64_t last) {
    const plan_win *w = r->w;
    if (r->best == 0)
        return false;
    uint64_t hi = r->best - 1;
    for (uint32_t j = 0; j < w->nsec; j++) {
        uint64_t need = 0;
        for (uint32_t m = w->sec_mask[j] & ~placed; m; m &= m - 1)
            need += w->size[__builtin_ctz(m)];
        if (need == 0)
            continue;
        if (hi <= last || need > hi - last)
            return false;
        uint64_t room = hi - last;
        room -= win_cover(w->obs + w->sec_beg[j],
                          w->sec_beg[j + 1] - w->sec_beg[j], last, hi);
        for (uint32_t m = w->sec_mask[j] & placed; m; m &= m - 1) {
            uint32_t v = (uint32_t)__builtin_ctz(m);
            uint64_t t = r->off[v] + w->size[v];
            if (t > last)
                room -=
                    (t < hi ? t : hi) - (r->off[v] > last ? r->off[v] : last);
        }
        if (need > room)
            return false;
    }
    return true;
}

static void win_dfs(win_run *r, uint32_t placed, uint64_t last,
                    uint32_t last_id, uint64_t top) {
    const plan_win *w = r->w;
    if (r->nodes >= r->limit)
        return;
    r->nodes++;
    uint32_t all = w->k == 32 ? UINT32_MAX : (UINT32_C(1) << w->k) - 1;
    if (placed == all) {
        if (top < r->best) {
            r->best = top;
            memcpy(r->w->out, r->off, w->k * sizeof *r->off);
            r->found = true;
        }
        return;
    }
    if (!win_room(r, placed, last))
        return;
    uint64_t m[PLAN_WIN_MAX], t1 = UINT64_MAX, t2 = UINT64_MAX;
    for (uint32_t u = 0; u < w->k; u++) {
        if (placed >> u & 1)
            continue;
        m[u] = win_min(r, u, last, placed);
        uint64_t t = m[u] + w->size[u];
        if (t >= r->best)
            return; /* u cannot go lower than this */
        if (t < t1) {
            t2 = t1;
            t1 = t;
        } else if (t < t2) {
            t2 = t;
        }
    }
    /* candidates by minimum offset, then size descending */
    uint32_t c[PLAN_WIN_MAX], nc = 0;
    for (uint32_t u = 0; u < w->k; u++) {
        if (placed >> u & 1)
            continue;
        uint64_t other = m[u] + w->size[u] == t1 ? t2 : t1;
        if (m[u] >= other || (m[u] == last && u < last_id))
            continue;
        uint32_t j = nc++;
        while (j > 0 &&
               (m[c[j - 1]] > m[u] ||
                (m[c[j - 1]] == m[u] && w->size[c[j - 1]] < w->size[u]))) {
            c[j] = c[j - 1];
            j--;
        }
        c[j] = u;
    }
    for (uint32_t i = 0; i < nc && r->nodes < r->limit; i++) {
        uint32_t u = c[i];
        uint64_t t = m[u] + w->size[u];
        if (t >= r->best)
            continue; /* the bound fell since */
        r->off[u] = m[u];
        win_dfs(r, placed | UINT32_C(1) << u, m[u], u, t > top ? t : top);
    }
}

bool plan_window_solve(const plan_win *w, uint64_t bound, uint64_t limit,
                       uint64_t *nodes) {
    win_run r;
    memset(&r, 0, sizeof r);
    r.w = w;
    r.best = bound;
    r.limit = limit;
    if (w->k > 0 && w->k <= PLAN_WIN_MAX)
        win_dfs(&r, 0, 0, 0, 0);
    *nodes = r.nodes;
    return r.found;
}

/*
 * planner/search_setup.c - one colour class as a problem for the exact
 * search (planner/search_core.c): its time axis cut into sections,
 * partitions at section boundaries no buffer crosses, the section totals
 * (lower bounds), the overlaps of the searchable partitions and the three
 * preorders (planner/search.c describes them).  Memory O(n + overlaps).
 */
#include "search_internal.h"

#include <stdlib.h>
#include <string.h>

static uint64_t gcd64(uint64_t a, uint64_t b) {
    while (b) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

int plan_sr_rk_cmp(const void *a, const void *b) {
    const rk *x = a, *y = b;
    for (int i = 0; i < 3; i++)
        if (x->k[i] != y->k[i])
            return x->k[i] > y->k[i] ? -1 : 1; /* descending */
    return x->id < y->id ? -1 : x->id > y->id;
}

void plan_sr_free(sr *s) {
    free(s->size);
    free(s->align);
    free(s->slo);
    free(s->shi);
    free(s->adj_beg);
    free(s->adj);
    free(s->sec_beg);
    free(s->sec_mem);
    free(s->width);
    free(s->rank);
    free(s->rks);
    free(s->parts);
    free(s->pmem);
    free(s->off);
    free(s->minoff);
    free(s->floor);
    free(s->total);
    free(s->bmax);
    free(s->cut);
    free(s->trail);
    free(s->stk);
    free(s->cst);
    free(s->chg);
    free(s->watch);
    free(s->wcnt);
    free(s->best);
}

static uint64_t sat_mul(uint64_t a, uint64_t b) {
    if (a && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

static bool overlaps(const sr *s, uint32_t u, uint32_t v) {
    return s->slo[u] < s->shi[v] && s->slo[v] < s->shi[u];
}

/* Partitions at section boundaries no buffer crosses; lower bounds;
 * overlaps and section members for the searchable ones. */
static int sr_parts(sr *s) {
    uint32_t m = s->m, ns = s->nsec;
    s->parts = calloc((size_t)ns + 1, sizeof *s->parts);
    s->pmem = calloc((size_t)m + 1, sizeof *s->pmem);
    s->adj_beg = calloc((size_t)m + 2, sizeof *s->adj_beg);
    s->sec_beg = calloc((size_t)ns + 2, sizeof *s->sec_beg);
    uint32_t *pid = calloc((size_t)ns + 1, sizeof *pid);
    uint32_t *fill = calloc((size_t)ns + 2, sizeof *fill);
    if (!s->parts || !s->pmem || !s->adj_beg || !s->sec_beg || !pid || !fill) {
        free(pid);
        free(fill);
        return -1;
    }
    /* partition of each section */
    uint32_t np = 0;
    for (uint32_t k = 0; k < ns; k++) {
        if (k == 0 || s->cut[k - 1] == 0) {
            s->parts[np].s0 = k;
            np++;
        }
        pid[k] = np - 1;
        s->parts[np - 1].s1 = k + 1;
        if (s->total[k] > s->parts[np - 1].lb)
            s->parts[np - 1].lb = s->total[k];
    }
    for (uint32_t i = 0; i < m; i++)
        s->parts[pid[s->slo[i]]].cnt++;
    uint32_t acc = 0;
    for (uint32_t p = 0; p < np; p++) {
        s->parts[p].beg = acc;
        acc += s->parts[p].cnt;
        fill[p] = s->parts[p].beg;
    }
    for (uint32_t i = 0; i < m; i++)
        s->pmem[fill[pid[s->slo[i]]]++] = i;
    /* drop empty partitions, keep order */
    uint32_t q = 0;
    for (uint32_t p = 0; p < np; p++)
        if (s->parts[p].cnt)
            s->parts[q++] = s->parts[p];
    s->npart = q;
    /* overlaps (pairwise inside small partitions) */
    uint64_t edges = 0;
    for (uint32_t p = 0; p < s->npart; p++) {
        part *pt = &s->parts[p];
        pt->lb = plan_align_up(pt->lb, s->gran);
        if (pt->cnt > SEARCH_MAX_PART)
            continue;
        uint64_t e = 0;
        for (uint32_t i = 0; i < pt->cnt; i++)
            for (uint32_t j = i + 1; j < pt->cnt; j++)
                if (overlaps(s, s->pmem[pt->beg + i], s->pmem[pt->beg + j]))
                    e += 2;
        if (edges + e > SEARCH_MAX_EDGES)
            continue;
        edges += e;
        pt->searchable = true;
        for (uint32_t i = 0; i < pt->cnt; i++) {
            uint32_t u = s->pmem[pt->beg + i];
            for (uint32_t j = i + 1; j < pt->cnt; j++) {
                uint32_t v = s->pmem[pt->beg + j];
                if (overlaps(s, u, v)) {
                    s->adj_beg[u + 1]++;
                    s->adj_beg[v + 1]++;
                }
            }
            for (uint32_t k = s->slo[u]; k < s->shi[u]; k++)
                s->sec_beg[k + 1]++;
        }
    }
    for (uint32_t i = 0; i < m; i++)
        s->adj_beg[i + 1] += s->adj_beg[i];
    for (uint32_t k = 0; k < ns; k++)
        s->sec_beg[k + 1] += s->sec_beg[k];
    s->adj = calloc((size_t)edges + 1, sizeof *s->adj);
    s->sec_mem = calloc((size_t)s->sec_beg[ns] + 1, sizeof *s->sec_mem);
    uint32_t *afill = calloc((size_t)m + 1, sizeof *afill);
    if (!s->adj || !s->sec_mem || !afill) {
        free(afill);
        free(pid);
        free(fill);
        return -1;
    }
    memcpy(afill, s->adj_beg, (size_t)m * sizeof *afill);
    memcpy(fill, s->sec_beg, (size_t)ns * sizeof *fill);
    for (uint32_t p = 0; p < s->npart; p++) {
        part *pt = &s->parts[p];
        if (!pt->searchable)
            continue;
        for (uint32_t i = 0; i < pt->cnt; i++) {
            uint32_t u = s->pmem[pt->beg + i];
            for (uint32_t j = 0; j < pt->cnt; j++) {
                uint32_t v = s->pmem[pt->beg + j];
                if (u != v && overlaps(s, u, v))
                    s->adj[afill[u]++] = v;
            }
            for (uint32_t k = s->slo[u]; k < s->shi[u]; k++)
                s->sec_mem[fill[k]++] = u;
        }
    }
    free(afill);
    free(pid);
    free(fill);
    return 0;
}

static const char *const heur_keys[NHEUR] = {"WAT", "TAW", "TWA"};

/* The preorder keys of buffer i under heuristic h, from the current
 * section totals: W lifespan, A lifespan x size, T max section total. */
void plan_sr_keys(const sr *s, int h, uint32_t i, rk *out) {
    uint64_t t = 0;
    for (uint32_t k = s->slo[i]; k < s->shi[i]; k++)
        if (s->total[k] > t)
            t = s->total[k];
    for (int j = 0; j < 3; j++) {
        char key = heur_keys[h][j];
        out->k[j] = key == 'W'   ? s->width[i]
                    : key == 'A' ? sat_mul(s->width[i], s->size[i])
                                 : t;
    }
    if (s->seed) { /* the first key scaled by a factor in [3/4, 5/4] */
        uint64_t z = (s->seed * UINT64_C(0x9e3779b97f4a7c15)) ^ i;
        z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
        z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
        z ^= z >> 31;
        out->k[0] = sat_mul(out->k[0], 768 + z % 513);
    }
    out->id = i;
}

/* The scratch of the preorder ranks (each piece is ranked when the
 * search reaches it: search_core.c, rerank). */
static int sr_ranks(sr *s) {
    s->rks = calloc((size_t)s->m + 1, sizeof *s->rks);
    s->rank = calloc((size_t)s->m + 1, sizeof *s->rank);
    return s->rks && s->rank ? 0 : -1;
}

/* The section of every start and end: the distinct points of {start,
 * end + 1} sorted, slo/shi the rank of a buffer's own; s->nsec.  Points
 * below 2^32 (every end below UINT32_MAX) are radix-sorted with their
 * buffer as payload, in O(m); otherwise sorted and searched.  pts holds
 * 2m + 2 words.  Returns 0 or -1 (out of memory). */
static int sr_points(sr *s, const plan_problem *pb, const uint32_t *ids,
                     uint64_t *pts) {
    uint32_t m = s->m;
    size_t n2 = 2 * (size_t)m, u = 0;
    bool small = m < UINT32_MAX / 2;
    for (uint32_t i = 0; i < m && small; i++)
        small = pb->bufs[ids[i]].end < UINT32_MAX;
    if (small) {
        for (uint32_t i = 0; i < m; i++) {
            const plan_buf *b = &pb->bufs[ids[i]];
            pts[2 * i] = (uint64_t)b->start << 32 | (2 * i);
            pts[2 * i + 1] = (uint64_t)(b->end + 1) << 32 | (2 * i + 1);
        }
        if (plan_radix_sort_hi(pts, n2) != 0)
            return -1;
        for (size_t k = 0; k < n2; k++) {
            if (k == 0 || pts[k] >> 32 != pts[k - 1] >> 32)
                u++;
            uint32_t q = (uint32_t)pts[k];
            *(q & 1 ? &s->shi[q / 2] : &s->slo[q / 2]) = (uint32_t)(u - 1);
        }
        s->nsec = u ? (uint32_t)u - 1 : 0;
        return 0;
    }
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[ids[i]];
        pts[2 * i] = b->start;
        pts[2 * i + 1] = (uint64_t)b->end + 1;
    }
    qsort(pts, n2, sizeof *pts, base_cmp_u64);
    for (size_t i = 0; i < n2; i++)
        if (u == 0 || pts[u - 1] != pts[i])
            pts[u++] = pts[i];
    uint32_t npts = (uint32_t)u;
    s->nsec = npts ? npts - 1 : 0;
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[ids[i]];
        s->slo[i] = base_lower_bound_u64(pts, npts, b->start);
        s->shi[i] = base_lower_bound_u64(pts, npts, (uint64_t)b->end + 1);
    }
    return 0;
}

int plan_sr_init(sr *s, const plan_problem *pb, const uint32_t *ids, uint32_t m,
                 const uint64_t *start) {
    memset(s, 0, sizeof *s);
    uint64_t A = pb->align ? pb->align : 1;
    s->m = m;
    size_t m1 = (size_t)m + 1;
    s->size = calloc(m1, sizeof *s->size);
    s->align = calloc(m1, sizeof *s->align);
    s->slo = calloc(m1, sizeof *s->slo);
    s->shi = calloc(m1, sizeof *s->shi);
    s->off = calloc(m1, sizeof *s->off);
    s->minoff = calloc(m1, sizeof *s->minoff);
    s->best = calloc(m1, sizeof *s->best);
    s->chg = calloc(m1, sizeof *s->chg);
    s->width = calloc(m1, sizeof *s->width);
    s->wcnt = calloc(m1, sizeof *s->wcnt);
    uint64_t *pts = calloc(2 * m1, sizeof *pts);
    if (!s->size || !s->align || !s->slo || !s->shi || !s->off || !s->minoff ||
        !s->best || !s->chg || !s->width || !s->wcnt || !pts) {
        free(pts);
        return -1;
    }
    uint64_t g = A;
    for (uint32_t i = 0; i < m; i++) {
        const plan_buf *b = &pb->bufs[ids[i]];
        uint64_t a = b->align > A ? b->align : A;
        if (a & (a - 1)) {
            free(pts);
            return -1; /* alignments are powers of two (planner.h) */
        }
        s->align[i] = a;
        s->size[i] = plan_align_up(b->size, A);
        g = gcd64(g, s->size[i]);
        g = gcd64(g, a);
        s->best[i] = start[i];
        s->off[i] = UNPLACED;
        s->width[i] = (uint64_t)b->end - b->start + 1;
    }
    s->gran = g ? g : 1;
    s->uniform = true;
    for (uint32_t i = 1; i < m; i++)
        if (s->align[i] != s->align[0])
            s->uniform = false;
    int rc = sr_points(s, pb, ids, pts);
    free(pts);
    if (rc != 0)
        return -1;
    size_t ns1 = (size_t)s->nsec + 1;
    s->floor = calloc(ns1, sizeof *s->floor);
    s->total = calloc(ns1 + 1, sizeof *s->total);
    s->cut = calloc(ns1 + 1, sizeof *s->cut);
    s->watch = calloc(ns1, sizeof *s->watch);
    if (!s->floor || !s->total || !s->cut || !s->watch)
        return -1;
    /* difference arrays (wrap-around arithmetic cancels exactly) */
    for (uint32_t i = 0; i < m; i++) {
        s->total[s->slo[i]] += s->size[i];
        s->total[s->shi[i]] -= s->size[i];
        if (s->shi[i] - s->slo[i] >= 2) {
            s->cut[s->slo[i]]++;
            s->cut[s->shi[i] - 1]--;
        }
    }
    for (uint32_t k = 1; k <= s->nsec; k++) {
        s->total[k] += s->total[k - 1];
        s->cut[k] += s->cut[k - 1];
    }
    s->bmax =
        calloc(((size_t)s->nsec >> SEARCH_BLK_SHIFT) + 1, sizeof *s->bmax);
    if (!s->bmax)
        return -1;
    for (uint32_t k = 0; k < s->nsec; k++)
        if (s->total[k] > s->bmax[k >> SEARCH_BLK_SHIFT])
            s->bmax[k >> SEARCH_BLK_SHIFT] = s->total[k];
    if (sr_parts(s) != 0 || sr_ranks(s) != 0)
        return -1;
    for (uint32_t k = 0; k < s->nsec; k++) {
        s->watch[k] = UNPLACED;
        if (s->sec_beg[k] < s->sec_beg[k + 1]) {
            s->watch[k] = s->sec_mem[s->sec_beg[k]];
            s->wcnt[s->watch[k]]++;
        }
    }
    return 0;
}

/*
 * codegen/compare_out.c - `planwrap plan --compare`: the comparison with
 * other allocators (planner/compare.h) in the summary and in plan-json.
 */
#include "base/base.h"
#include "codegen/codegen.h"
#include "planner/compare.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

/* Runs the comparison of every pool; NULL after reporting an error. */
static plan_compare *cg_compare_all(const plan *pl, base_diag *d) {
    plan_compare *c = base_xcalloc((size_t)pl->npools + 1, sizeof *c);
    for (uint32_t i = 0; i < pl->npools; i++) {
        char err[512] = "";
        int rc = plan_compare_pool(pl, i, &c[i], err, sizeof err);
        if (rc != 0) {
            base_diag_msg(d, BASE_SEV_ERROR, "%s%s",
                          rc == -2 ? "internal error: " : "",
                          rc == -2 ? err : "out of memory while comparing");
            free(c);
            return NULL;
        }
    }
    return c;
}

static void cg_compare_pool_text(FILE *f, const char *name,
                                 const plan_compare *c) {
    fprintf(f,
            "compare %s: planwrap %" PRIu64 ", naive %" PRIu64
            ", inductor_reuse %" PRIu64 ", tflm_greedy %" PRIu64
            ", executorch_greedy %" PRIu64 "\n",
            name, c->planwrap, c->naive, c->inductor_reuse, c->tflm_greedy,
            c->executorch_greedy);
    if (!c->has_caching) {
        fprintf(f,
                "compare %s: caching_allocator not simulated "
                "(communication buffers)\n",
                name);
        return;
    }
    const plan_ca_stats *s = &c->caching, *v = &c->caching_article;
    fprintf(f,
            "compare %s: caching_allocator reserved_peak %" PRIu64
            ", allocated_peak %" PRIu64 ", segments %" PRIu32
            ", fragmentation_ratio ",
            name, s->reserved_peak, s->allocated_peak, s->segments);
    base_fprint_ratio(f, s->reserved_peak, s->allocated_peak);
    fprintf(f,
            "; most-free-space-first frees: reserved_peak %" PRIu64 " (%s)\n",
            v->reserved_peak,
            v->reserved_peak < s->reserved_peak   ? "lower"
            : v->reserved_peak > s->reserved_peak ? "higher"
                                                  : "same");
}

bool cg_compare_summary(FILE *f, const plan *pl, base_diag *d) {
    plan_compare *c = cg_compare_all(pl, d);
    if (!c)
        return false;
    for (uint32_t i = 0; i < pl->npools; i++)
        cg_compare_pool_text(f, pl->pools[i].name, &c[i]);
    free(c);
    return true;
}

static json_t *cg_ca_json(const plan_ca_stats *s) {
    json_t *o = json_object();
    json_object_set_new(o, "allocated_peak",
                        json_integer((json_int_t)s->allocated_peak));
    json_object_set_new(o, "reserved_peak",
                        json_integer((json_int_t)s->reserved_peak));
    json_object_set_new(o, "segments", json_integer((json_int_t)s->segments));
    json_object_set_new(
        o, "fragmentation_ratio",
        json_real(s->allocated_peak
                      ? (double)s->reserved_peak / (double)s->allocated_peak
                      : 1.0));
    return o;
}

static json_t *cg_compare_pool_json(const plan_compare *c) {
    json_t *o = json_object();
    json_object_set_new(o, "planwrap", json_integer((json_int_t)c->planwrap));
    json_object_set_new(o, "naive", json_integer((json_int_t)c->naive));
    json_object_set_new(o, "inductor_reuse",
                        json_integer((json_int_t)c->inductor_reuse));
    json_object_set_new(o, "tflm_greedy",
                        json_integer((json_int_t)c->tflm_greedy));
    json_object_set_new(o, "executorch_greedy",
                        json_integer((json_int_t)c->executorch_greedy));
    json_object_set_new(o, "caching_allocator",
                        c->has_caching ? cg_ca_json(&c->caching) : json_null());
    json_object_set_new(o, "caching_allocator_most_free_first",
                        c->has_caching ? cg_ca_json(&c->caching_article)
                                       : json_null());
    return o;
}

bool cg_compare_json(json_t *root, const plan *pl, base_diag *d) {
    json_t *pools = json_object_get(root, "pools");
    plan_compare *c = cg_compare_all(pl, d);
    if (!c)
        return false;
    for (uint32_t i = 0; i < pl->npools; i++)
        json_object_set_new(json_array_get(pools, i), "compare",
                            cg_compare_pool_json(&c[i]));
    free(c);
    return true;
}

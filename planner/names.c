/* planner/names.c - option names for algorithms and memory-pool modes. */
#include "planner/planner.h"

#include <string.h>

static const char *const plan_algo_names[] = {"naive",   "reuse",  "tree",
                                              "bestfit", "search", "auto"};
_Static_assert(sizeof plan_algo_names / sizeof plan_algo_names[0] ==
                   PLAN_AUTO + 1,
               "a name per plan_algo");

const char *plan_algo_name(plan_algo a) {
    return (unsigned)a < sizeof plan_algo_names / sizeof plan_algo_names[0]
               ? plan_algo_names[a]
               : "?";
}

bool plan_algo_parse(const char *s, plan_algo *out) {
    for (unsigned i = 0; i < sizeof plan_algo_names / sizeof plan_algo_names[0];
         i++)
        if (strcmp(s, plan_algo_names[i]) == 0) {
            *out = (plan_algo)i;
            return true;
        }
    return false;
}

static const char *const plan_mp_names[] = {"none", "intermediates", "outputs",
                                            "combined"};
_Static_assert(sizeof plan_mp_names / sizeof plan_mp_names[0] ==
                   PLAN_MP_COMBINED + 1,
               "a name per plan_memory_pool");

const char *plan_memory_pool_name(plan_memory_pool m) {
    return (unsigned)m < sizeof plan_mp_names / sizeof plan_mp_names[0]
               ? plan_mp_names[m]
               : "?";
}

bool plan_memory_pool_parse(const char *s, plan_memory_pool *out) {
    for (unsigned i = 0; i < sizeof plan_mp_names / sizeof plan_mp_names[0];
         i++)
        if (strcmp(s, plan_mp_names[i]) == 0) {
            *out = (plan_memory_pool)i;
            return true;
        }
    return false;
}

void plan_options_init(plan_options *o) {
    memset(o, 0, sizeof *o);
    o->algo = PLAN_AUTO;
    o->memory_pool = PLAN_MP_INTERMEDIATES;
    o->streams = PLAN_STREAMS_AUTO;
#ifdef PW_DEBUG_VERIFY
    o->verify = true;
#endif
}

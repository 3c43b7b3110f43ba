/*
 * cli/plan_opts.c - the planning options shared by `plan` and `gen`.
 *
 * Every option is validated here so that both commands report the same
 * message for the same mistake ("planwrap: error: ..." then exit 2 at the
 * caller).
 */
#include "cli/cli.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The help below gives the default alignments in words. */
_Static_assert(PLAN_DEFAULT_ALIGN_CPU == 64 && PLAN_DEFAULT_ALIGN_CUDA == 256,
               "--align's help names the default alignments");

const char cli_plan_options_help[] =
    "  --algo A             naive, reuse, tree, bestfit, search or auto "
    "(default:\n"
    "                       bestfit, then search within a small budget)\n"
    "  --align N            pool alignment in bytes, a power of two "
    "(default 64 on\n"
    "                       cpu, 256 on cuda)\n"
    "  --memory-pool M      none, intermediates (default), outputs or "
    "combined\n"
    "  --streams S          auto (default: isolate when a call has stream=),\n"
    "                       isolate or share\n"
    "  --verify             prove the plan with the independent verifier\n"
    "  --capacity B         every pool must fit in B bytes (an error "
    "otherwise;\n"
    "                       4k, 64KiB, 1M, 2GiB: binary units);\n"
    "                       search looks for a plan that fits\n"
    "  --search-budget N    search: number of search steps (default: its "
    "own)\n"
    "  --time-limit S       search: safety stop after S seconds (reported)\n"
    "  --order O            reorder the calls first: keep (default), lpmf, "
    "bfs,\n"
    "                       dfs, list, best or partitions (see `planwrap\n"
    "                       schedule`)\n"
    "  --guard-bytes N      leave N guard bytes after every planned buffer;\n"
    "                       the generated C checks them under PW_RT_CHECKS\n"
    "                       (default 0: none)\n"
    "  --plan-inputs        plan every input into the arena (as 'planned')\n"
    "  --plan-outputs       keep every output in the arena (as 'planned')\n";

/* Parses a decimal unsigned integer that fits in 63 bits. */
static bool cli_parse_u63(const char *s, uint64_t *out) {
    if (!s || !*s)
        return false;
    uint64_t v = 0;
    for (const char *p = s; *p; p++) {
        if (*p < '0' || *p > '9')
            return false;
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_C(0x7fffffffffffffff) - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* A byte count: decimal, optionally followed by k, K or KiB (1024), M or
 * MiB (1024^2), G or GiB (1024^3): "4k", "64KiB", "1M". */
static bool cli_parse_bytes(const char *s, uint64_t *out) {
    static const struct {
        const char *suffix;
        unsigned shift;
    } units[] = {{"", 0},   {"k", 10},   {"K", 10}, {"KiB", 10},
                 {"M", 20}, {"MiB", 20}, {"G", 30}, {"GiB", 30}};
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n > 19)
        return false;
    char digits[20];
    memcpy(digits, s, n);
    digits[n] = '\0';
    uint64_t v;
    if (!cli_parse_u63(digits, &v))
        return false;
    for (size_t i = 0; i < sizeof units / sizeof *units; i++) {
        if (strcmp(s + n, units[i].suffix) != 0)
            continue;
        if (v > (UINT64_C(0x7fffffffffffffff) >> units[i].shift))
            return false;
        *out = v << units[i].shift;
        return true;
    }
    return false;
}

/* The largest --guard-bytes. */
#define CLI_MAX_GUARD_BYTES 65536u

static int cli_bad_value(base_diag *d, const char *name, const char *value,
                         const char *expected) {
    base_diag_msg(d, BASE_SEV_ERROR, "invalid value '%s' for --%s: %s",
                  value ? value : "", name, expected);
    return -1;
}

int cli_plan_option(plan_options *o, const char *name, const char *value,
                    base_diag *d) {
    if (strcmp(name, "verify") == 0) {
        o->verify = true;
        return 0;
    }
    if (strcmp(name, "plan-inputs") == 0 || strcmp(name, "plan-outputs") == 0) {
        *(name[5] == 'i' ? &o->plan_inputs : &o->plan_outputs) = true;
        return 0;
    }
    if (!value)
        return cli_bad_value(d, name, value, "a value is required");
    if (strcmp(name, "algo") == 0) {
        if (!plan_algo_parse(value, &o->algo))
            return cli_bad_value(d, name, value,
                                 "expected naive, reuse, tree, bestfit, "
                                 "search or auto");
        return 0;
    }
    if (strcmp(name, "align") == 0) {
        uint64_t v;
        if (!cli_parse_u63(value, &v) || v == 0 || (v & (v - 1)) != 0 ||
            v > (UINT64_C(1) << 32))
            return cli_bad_value(d, name, value,
                                 "expected a power of two between 1 and "
                                 "4294967296");
        o->align = v;
        return 0;
    }
    if (strcmp(name, "memory-pool") == 0) {
        if (!plan_memory_pool_parse(value, &o->memory_pool))
            return cli_bad_value(d, name, value,
                                 "expected none, intermediates, outputs or "
                                 "combined");
        return 0;
    }
    if (strcmp(name, "streams") == 0) {
        if (strcmp(value, "auto") == 0)
            o->streams = PLAN_STREAMS_AUTO;
        else if (strcmp(value, "isolate") == 0)
            o->streams = PLAN_STREAMS_ISOLATE;
        else if (strcmp(value, "share") == 0)
            o->streams = PLAN_STREAMS_SHARE;
        else
            return cli_bad_value(d, name, value,
                                 "expected auto, isolate or share");
        return 0;
    }
    if (strcmp(name, "capacity") == 0) {
        uint64_t v;
        if (!cli_parse_bytes(value, &v) || v == 0)
            return cli_bad_value(d, name, value,
                                 "expected a positive number of bytes "
                                 "(suffixes k/KiB, M/MiB, G/GiB: 64KiB)");
        o->search.capacity = v;
        return 0;
    }
    if (strcmp(name, "search-budget") == 0) {
        uint64_t v;
        if (!cli_parse_u63(value, &v) || v == 0)
            return cli_bad_value(d, name, value, "expected a positive integer");
        o->search.budget = v;
        return 0;
    }
    if (strcmp(name, "guard-bytes") == 0) {
        uint64_t v;
        _Static_assert(CLI_MAX_GUARD_BYTES == 65536, "the message says");
        if (!cli_parse_u63(value, &v) || v > CLI_MAX_GUARD_BYTES)
            return cli_bad_value(d, name, value,
                                 "expected a number of bytes from 0 to 65536");
        o->guard_bytes = v;
        return 0;
    }
    if (strcmp(name, "time-limit") == 0) {
        char *end = NULL;
        errno = 0;
        double v = strtod(value, &end);
        if (errno != 0 || end == value || *end != '\0' || !(v >= 0.0) ||
            v > 1e9)
            return cli_bad_value(d, name, value,
                                 "expected a non-negative number of seconds");
        o->search.time_limit = v;
        return 0;
    }
    if (strcmp(name, "order") == 0) {
        if (!plan_order_parse(value, &o->order))
            return cli_bad_value(d, name, value,
                                 "expected keep, lpmf, bfs, dfs, list, best "
                                 "or partitions");
        return 0;
    }
    base_diag_msg(d, BASE_SEV_ERROR, "unknown planning option --%s", name);
    return -1;
}

ir_program *cli_plan_order(base_arena *a, ir_program *p, const plan_options *o,
                           base_diag *d) {
    if (!p || o->order == PLAN_ORDER_KEEP)
        return p;
    return plan_sched_program(a, p, o->order, NULL, d, NULL);
}

/* One progress line on stderr, rewritten in place; cleared when done. */
static void cli_search_progress(void *ctx, const plan_search_progress *p) {
    (void)ctx;
    if (p->done)
        fprintf(stderr, "\r\033[K");
    else
        fprintf(stderr,
                "\rsearch: best %llu bytes, lower bound %llu, %llu steps, "
                "%.1f s\033[K",
                (unsigned long long)p->best, (unsigned long long)p->lower_bound,
                (unsigned long long)p->steps, p->secs);
    fflush(stderr);
}

void cli_plan_progress(plan_options *o) {
    if (isatty(STDERR_FILENO))
        o->search.progress = cli_search_progress;
}

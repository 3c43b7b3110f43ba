/*
 * tests/templates/fuzz_mustache.c - libFuzzer target for the mustache
 * compiler and renderer.  Input: one flag byte (bit 0 strict, bit 1
 * no-escape), then the template; a NUL byte in the template starts the
 * text of partial "q".  Fixed data and partials cover sections, lists,
 * recursion, parents and blocks; limits keep every input small and fast.
 */
#include "templates/mustache.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct fz_ctx {
    const char *q;
    size_t qlen;
} fz_ctx;

static const char *const fz_partials[][2] = {
    {"p", "<{{x}}|{{#list}}{{.}}{{/list}}>\n"},
    {"r", "{{#n}}({{>r}}){{/n}}"},
    {"parent", "[{{$a}}A{{/a}}|{{$b}}\n  B\n{{/b}}]"},
    {"self", "{{>self}}"},
    {"ind", "  one\n  {{>p}}\n"},
};

static char *fz_load(void *ctx, const char *name, size_t *len) {
    const fz_ctx *c = ctx;
    const char *s = NULL;
    size_t n = 0;
    if (strcmp(name, "q") == 0 && c->q) {
        s = c->q;
        n = c->qlen;
    }
    for (size_t i = 0; !s && i < sizeof fz_partials / sizeof *fz_partials; i++)
        if (strcmp(name, fz_partials[i][0]) == 0) {
            s = fz_partials[i][1];
            n = strlen(s);
        }
    if (!s)
        return NULL;
    char *p = malloc(n + 1);
    if (!p)
        return NULL;
    memcpy(p, s, n);
    p[n] = '\0';
    *len = n;
    return p;
}

static json_t *fz_data;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size == 0)
        return 0;
    if (!fz_data) {
        fz_data = json_loads(
            "{\"x\": \"a<b&c\", \"t\": true, \"f\": false, \"z\": null,"
            " \"i\": 42, \"r\": 1.5, \"e\": \"\", \"dyn\": \"p\","
            " \"list\": [1, \"two\", {\"x\": 3}, [4]],"
            " \"o\": {\"x\": \"ox\", \"o\": {\"x\": \"oox\"}},"
            " \"n\": {\"n\": {\"n\": {}}}}",
            0, NULL);
        if (!fz_data)
            abort();
    }
    const char *tpl = (const char *)data + 1;
    size_t tlen = size - 1;
    fz_ctx ctx = {NULL, 0};
    const char *nul = memchr(tpl, '\0', tlen);
    if (nul) {
        ctx.q = nul + 1;
        ctx.qlen = tlen - (size_t)(nul + 1 - tpl);
        tlen = (size_t)(nul - tpl);
    }
    mst_options o = {.strict = data[0] & 1,
                     .no_escape = (data[0] & 2) != 0,
                     .max_depth = 64,
                     .max_output = 1 << 20};
    mst_loader ld = {fz_load, &ctx, NULL};
    mst_error err;
    mst_template *t = mst_compile("fuzz", tpl, tlen, &err);
    if (!t)
        return 0;
    char *out = NULL;
    size_t len = 0;
    if (mst_render(t, fz_data, &ld, &o, &out, &len, &err) == 0) {
        if (!out || out[len] != '\0')
            abort();
        free(out);
    } else if (out) {
        abort();
    }
    mst_template_free(t);
    return 0;
}

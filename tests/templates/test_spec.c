/*
 * tests/templates/test_spec.c - runs every case of the official mustache
 * spec (tests/data/mustache-spec/NAME.json, except ~lambdas) through the
 * engine and prints per-file pass counts.  Fails when any case fails.
 */
#include "templates/mustache.h"
#include "tests/templates/spec_util.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void show(const char *label, const char *s) {
    fprintf(stderr, "    %s: \"", label);
    for (; s && *s; s++) {
        if (*s == '\n')
            fputs("\\n", stderr);
        else if (*s == '\r')
            fputs("\\r", stderr);
        else
            fputc(*s, stderr);
    }
    fputs("\"\n", stderr);
}

static int run_file(const char *path, const char *base, int *total,
                    int *passed) {
    json_error_t jerr;
    json_t *root = json_load_file(path, 0, &jerr);
    if (!root) {
        fprintf(stderr, "%s:%d:%d: %s\n", path, jerr.line, jerr.column,
                jerr.text);
        return 1;
    }
    json_t *tests = json_object_get(root, "tests");
    size_t i;
    json_t *tc;
    int n = 0, ok = 0;
    json_array_foreach(tests, i, tc) {
        const char *name = json_string_value(json_object_get(tc, "name"));
        json_t *tpl = json_object_get(tc, "template");
        const char *expected =
            json_string_value(json_object_get(tc, "expected"));
        json_t *partials = json_object_get(tc, "partials");
        mst_loader ld = {spec_load_json, partials};
        mst_error err;
        char *out = NULL;
        size_t outlen = 0;
        n++;
        mst_template *t = mst_compile(name, json_string_value(tpl),
                                      json_string_length(tpl), &err);
        int rc = -1;
        if (t) {
            mst_options o = {0};
            rc = mst_render(t, json_object_get(tc, "data"), &ld, &o, &out,
                            &outlen, &err);
        }
        if (rc == 0 && expected && strlen(expected) == outlen &&
            strcmp(out, expected) == 0) {
            ok++;
        } else {
            char buf[1024];
            fprintf(stderr, "FAIL %s: %s\n", base, name);
            if (rc != 0)
                fprintf(stderr, "    %s\n",
                        mst_error_format(&err, buf, sizeof buf));
            show("template", json_string_value(tpl));
            show("expected", expected);
            show("got     ", out);
        }
        free(out);
        mst_template_free(t);
    }
    printf("%-22s %3d/%3d passed\n", base, ok, n);
    *total += n;
    *passed += ok;
    json_decref(root);
    return ok == n ? 0 : 1;
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "tests/data/mustache-spec";
    DIR *d = opendir(dir);
    if (!d) {
        perror(dir);
        return 1;
    }
    char **names = NULL;
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 ||
            strcmp(e->d_name, "~lambdas.json") == 0)
            continue;
        char **g = realloc(names, (nn + 1) * sizeof *names);
        if (!g)
            return 1;
        names = g;
        names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);
    int failed = 0, total = 0, passed = 0;
    for (size_t i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        failed |= run_file(path, names[i], &total, &passed);
        free(names[i]);
    }
    free(names);
    printf("total                  %3d/%3d passed\n", passed, total);
    if (nn < 8) {
        fprintf(stderr, "expected at least 8 spec files in %s\n", dir);
        failed = 1;
    }
    return failed;
}

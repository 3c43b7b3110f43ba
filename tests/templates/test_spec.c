/*
 * tests/templates/test_spec.c - runs every case of the official mustache
 * spec (tests/data/mustache-spec/NAME.json, except ~lambdas) through the
 * engine and prints per-file pass counts.  Fails when any case fails.
 */
#include "templates/mustache.h"
#include "tests/templates/spec_util.h"

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
        mst_loader ld = {spec_load_json, partials, NULL};
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

static const char *spec_dir = "tests/data/mustache-spec";

/* One cmocka test per spec file: every case must pass. */
static void test_spec_file(void **state) {
    const char *file = *state;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", spec_dir, file);
    int total = 0, passed = 0;
    if (run_file(path, file, &total, &passed) != 0 || total == 0)
        fail_msg("%s: %d of %d cases failed", file, total - passed, total);
}

/* Every spec file of the directory is in the list (or is ~lambdas). */
static void test_all_files_listed(void **state) {
    const char *const *files = *state;
    DIR *d = opendir(spec_dir);
    assert_non_null(d);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l < 6 || strcmp(e->d_name + l - 5, ".json") != 0 ||
            strcmp(e->d_name, "~lambdas.json") == 0)
            continue;
        bool found = false;
        for (size_t i = 0; files[i]; i++)
            found = found || strcmp(files[i], e->d_name) == 0;
        if (!found) {
            closedir(d);
            fail_msg("spec file %s is not run by this test", e->d_name);
        }
    }
    closedir(d);
}

int main(int argc, char **argv) {
    static const char *const files[] = {
        "comments.json",       "delimiters.json",   "interpolation.json",
        "inverted.json",       "partials.json",     "sections.json",
        "~dynamic-names.json", "~inheritance.json", NULL};
    if (argc > 1)
        spec_dir = argv[1];
    struct CMUnitTest tests[9];
    for (size_t i = 0; i < 8; i++) {
        struct CMUnitTest t = {files[i], test_spec_file, NULL, NULL,
                               (void *)files[i]};
        tests[i] = t;
    }
    struct CMUnitTest all = {"all spec files listed", test_all_files_listed,
                             NULL, NULL, (void *)files};
    tests[8] = all;
    return _cmocka_run_group_tests("mustache spec", tests, 9, NULL, NULL);
}

/*
 * tests/templates/test_spec.c - runs every case of the official mustache
 * spec (tests/data/mustache-spec/NAME.json, except ~lambdas) through the
 * engine and prints per-file pass counts.  Fails when any case fails.
 * Every case runs twice: its data as jansson, and the same data served
 * natively (mst_render_val, native objects and lists).
 */
#include "templates/mustache.h"
#include "tests/templates/spec_util.h"
#include "base/base.h"

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

/* j as native data in a (strings and keys shared with j). */
static mst_val to_native(base_arena *a, json_t *j) {
    if (json_is_object(j)) {
        mst_val o = mst_v_object(a);
        for (void *it = json_object_iter(j); it;
             it = json_object_iter_next(j, it))
            mst_v_set(a, o, json_object_iter_key(it),
                      json_object_iter_key_len(it),
                      to_native(a, json_object_iter_value(it)));
        return o;
    }
    if (json_is_array(j)) {
        mst_val l = mst_v_list(a);
        for (size_t i = 0; i < json_array_size(j); i++)
            mst_v_append(a, l, to_native(a, json_array_get(j, i)));
        return l;
    }
    return mst_v_json(j);
}

/* Renders case tc's template t, natively or not; 0 when the output is
 * the expected one. */
static int run_case(const mst_template *t, json_t *tc, bool native, char **out,
                    mst_error *err) {
    mst_loader ld = {spec_load_json, json_object_get(tc, "partials"), NULL};
    const char *expected = json_string_value(json_object_get(tc, "expected"));
    json_t *data = json_object_get(tc, "data");
    mst_options o = {0};
    size_t outlen = 0;
    int rc;
    if (native) {
        base_arena *a = base_arena_new();
        rc = mst_render_val(t, to_native(a, data), &ld, &o, out, &outlen, err);
        base_arena_free(a);
    } else {
        rc = mst_render(t, data, &ld, &o, out, &outlen, err);
    }
    return rc == 0 && expected && strlen(expected) == outlen &&
                   strcmp(*out, expected) == 0
               ? 0
           : rc == 0 ? 1
                     : -1;
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
        mst_error err;
        n++;
        mst_template *t = mst_compile(name, json_string_value(tpl),
                                      json_string_length(tpl), &err);
        int fails = 0;
        for (int native = 0; native < 2; native++) {
            char *out = NULL;
            int rc = t ? run_case(t, tc, native, &out, &err) : -1;
            if (rc != 0) {
                char buf[1024];
                fails++;
                fprintf(stderr, "FAIL %s: %s%s\n", base, name,
                        native ? " (native data)" : "");
                if (rc < 0)
                    fprintf(stderr, "    %s\n",
                            mst_error_format(&err, buf, sizeof buf));
                show("template", json_string_value(tpl));
                show("expected", expected);
                show("got     ", out);
            }
            free(out);
        }
        ok += fails == 0;
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

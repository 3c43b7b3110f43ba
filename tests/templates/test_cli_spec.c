/*
 * tests/templates/test_cli_spec.c - runs every mustache spec case (except
 * ~lambdas) through the `planwrap render` CLI: each case is written to a
 * temporary directory (template, data.json, partials/NAME.mustache) and
 * the output file is compared with the expected text.
 *
 *   test_cli_spec PLANWRAP SPEC_DIR
 */
#include <dirent.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static int write_file(const char *path, const char *s, size_t n) {
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    int rc = fwrite(s, 1, n, f) == n ? 0 : -1;
    return fclose(f) == 0 ? rc : -1;
}

static char *read_all(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    size_t cap = 1024, n = 0;
    char *buf = malloc(cap);
    size_t got;
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *nb = realloc(buf, cap *= 2);
            if (!nb)
                free(buf);
            buf = nb;
        }
    }
    fclose(f);
    if (buf) {
        buf[n] = '\0';
        *len = n;
    }
    return buf;
}

static int run(char *const argv[]) {
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0)
        return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static void rm_tree(const char *dir) {
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    char path[4096];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode))
            rm_tree(path);
        else
            unlink(path);
    }
    closedir(d);
    rmdir(dir);
}

static int run_case(const char *planwrap, const char *file, json_t *tc) {
    const char *name = json_string_value(json_object_get(tc, "name"));
    json_t *tpl = json_object_get(tc, "template");
    json_t *exp = json_object_get(tc, "expected");
    char dir[] = "/tmp/pw-mst-cli-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char tpath[256], dpath[256], pdir[256], opath[256], path[512];
    snprintf(tpath, sizeof tpath, "%s/template.mustache", dir);
    snprintf(dpath, sizeof dpath, "%s/data.json", dir);
    snprintf(pdir, sizeof pdir, "%s/partials", dir);
    snprintf(opath, sizeof opath, "%s/out.txt", dir);
    int bad =
        write_file(tpath, json_string_value(tpl), json_string_length(tpl)) ||
        json_dump_file(json_object_get(tc, "data"), dpath, JSON_ENCODE_ANY) !=
            0 ||
        mkdir(pdir, 0700) != 0;
    const char *pname;
    json_t *ptext;
    json_object_foreach(json_object_get(tc, "partials"), pname, ptext) {
        snprintf(path, sizeof path, "%s/%s.mustache", pdir, pname);
        bad |= write_file(path, json_string_value(ptext),
                          json_string_length(ptext));
    }
    int fail = 1;
    if (bad) {
        fprintf(stderr, "FAIL %s: %s: cannot write the case\n", file, name);
    } else {
        char *argv[] = {(char *)planwrap, "render", tpath, "--data", dpath,
                        "--partials",     pdir,     "-o",  opath,    NULL};
        int rc = run(argv);
        size_t len = 0;
        char *out = rc == 0 ? read_all(opath, &len) : NULL;
        if (out && len == json_string_length(exp) &&
            memcmp(out, json_string_value(exp), len) == 0)
            fail = 0;
        else
            fprintf(stderr, "FAIL %s: %s (exit %d)\n", file, name, rc);
        free(out);
    }
    rm_tree(dir);
    return fail;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: test_cli_spec PLANWRAP SPEC_DIR\n");
        return 2;
    }
    DIR *d = opendir(argv[2]);
    if (!d) {
        perror(argv[2]);
        return 1;
    }
    char *names[64];
    size_t nn = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL && nn < 64) {
        size_t l = strlen(e->d_name);
        if (l > 5 && strcmp(e->d_name + l - 5, ".json") == 0 &&
            strcmp(e->d_name, "~lambdas.json") != 0)
            names[nn++] = strdup(e->d_name);
    }
    closedir(d);
    qsort(names, nn, sizeof *names, cmp_str);
    int total = 0, failed = 0;
    for (size_t i = 0; i < nn; i++) {
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", argv[2], names[i]);
        json_error_t jerr;
        json_t *root = json_load_file(path, 0, &jerr);
        if (!root) {
            fprintf(stderr, "%s:%d: %s\n", path, jerr.line, jerr.text);
            return 1;
        }
        size_t k;
        json_t *tc;
        int n = 0, f = 0;
        json_array_foreach(json_object_get(root, "tests"), k, tc) {
            n++;
            f += run_case(argv[1], names[i], tc);
        }
        printf("%-22s %3d/%3d passed via planwrap render\n", names[i], n - f,
               n);
        total += n;
        failed += f;
        json_decref(root);
        free(names[i]);
    }
    printf("total                  %3d/%3d passed\n", total - failed, total);
    return failed || total < 150 ? 1 : 0;
}

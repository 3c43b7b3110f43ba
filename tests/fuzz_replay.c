/*
 * tests/fuzz_replay.c - replays a fuzz corpus without libFuzzer: every file
 * named on the command line (directories are walked one level, in sorted
 * order) is passed to LLVMFuzzerTestOneInput.  Used by the gcc builds so
 * that the seed corpus runs as an ordinary test under ASan/UBSan.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *buf = malloc(cap);
    if (!buf) {
        fclose(f);
        return 1;
    }
    size_t got;
    while ((got = fread(buf + len, 1, cap - len, f)) > 0) {
        len += got;
        if (len == cap) {
            uint8_t *nb = realloc(buf, cap * 2);
            if (!nb) {
                free(buf);
                fclose(f);
                return 1;
            }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    LLVMFuzzerTestOneInput(buf, len);
    free(buf);
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    int failed = 0, count = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            perror(argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            failed |= replay_file(argv[i]);
            count++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) {
            perror(argv[i]);
            return 1;
        }
        char **names = NULL;
        size_t n = 0;
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char **nn = realloc(names, (n + 1) * sizeof *names);
            if (!nn)
                return 1;
            names = nn;
            size_t l = strlen(argv[i]) + strlen(e->d_name) + 2;
            names[n] = malloc(l);
            if (!names[n])
                return 1;
            snprintf(names[n], l, "%s/%s", argv[i], e->d_name);
            n++;
        }
        closedir(d);
        qsort(names, n, sizeof *names, cmp_str);
        for (size_t k = 0; k < n; k++) {
            failed |= replay_file(names[k]);
            count++;
            free(names[k]);
        }
        free(names);
    }
    printf("replayed %d inputs\n", count);
    if (count == 0) {
        fprintf(stderr, "fuzz_replay: no inputs\n");
        return 1;
    }
    return failed;
}

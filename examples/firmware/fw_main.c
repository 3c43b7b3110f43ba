/*
 * examples/firmware/fw_main.c - runs the firmware example's models on the
 * host and prints every output value exactly (%a), one line per run.
 *
 *   fw_main shared   kws, ad, kws: the three runs on the shared pools
 *   fw_main kws      kws twice (a build of kws alone)
 *   fw_main ad       ad once (a build of ad alone)
 *   fw_main caller   kws with the weights read from kws.bin and passed as
 *                    consts pointers, instead of the embedded ones
 *   fw_main reenter  kws, whose relu starts ad: stopped by the guard
 *
 * Which models are linked is chosen at compile time (FW_KWS, FW_AD).
 */
#include <stdio.h>
#include <string.h>

#ifdef FW_KWS
#include "kws.h"
#endif
#ifdef FW_AD
#include "ad.h"
#endif
#ifdef FW_REENTER
extern int fw_reenter;
#endif

static void print(const char *tag, const float *v, int n) {
    printf("%s:", tag);
    for (int i = 0; i < n; i++)
        printf(" %a", (double)v[i]);
    printf("\n");
}

#ifdef FW_KWS
static int run_kws(const kws_consts *c) {
    static float x[16], y[8];
    for (int i = 0; i < 16; i++)
        x[i] = (float)(i % 5) * 0.25f - 0.5f;
    kws_inputs in = {x};
    kws_outputs out = {y};
    int rc = kws_run_static(&in, c, &out); /* NULL: embedded weights */
    print("kws", y, 8);
    return rc;
}

/* The same weights, from the file, through caller pointers. */
static int run_kws_caller(const char *path) {
    static float w[3232 / 4];
    FILE *f = fopen(path, "rb");
    if (!f || fread(w, 1, sizeof w, f) != sizeof w) {
        perror(path);
        return 1;
    }
    fclose(f);
    kws_consts c = {w, w + 2048 / 4, w + 2176 / 4, w + 3200 / 4};
    return run_kws(&c);
}
#endif

#ifdef FW_AD
static int run_ad(void) {
    static float x[24], y[24];
    for (int i = 0; i < 24; i++)
        x[i] = (float)((i * 7) % 11) * 0.1f - 0.5f;
    ad_inputs in = {x};
    ad_outputs out = {y};
    int rc = ad_run_static(&in, NULL, &out);
    print("ad", y, 24);
    return rc;
}
#endif

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "";
#if defined(FW_KWS) && defined(FW_AD)
    if (strcmp(mode, "shared") == 0) {
        int rc = 0;
        rc |= run_kws(NULL);
        rc |= run_ad();
        rc |= run_kws(NULL);
        return rc;
    }
#endif
#ifdef FW_KWS
    if (strcmp(mode, "kws") == 0)
        return run_kws(NULL) | run_kws(NULL);
    if (strcmp(mode, "caller") == 0 && argc > 2)
        return run_kws_caller(argv[2]);
#endif
#ifdef FW_AD
    if (strcmp(mode, "ad") == 0)
        return run_ad();
#endif
#ifdef FW_REENTER
    if (strcmp(mode, "reenter") == 0) {
        fw_reenter = 1;
        return run_kws(NULL);
    }
#endif
    fprintf(stderr, "fw_main: unknown mode '%s'\n", mode);
    return 2;
}

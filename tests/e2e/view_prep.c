/*
 * tests/e2e/view_prep.c - `e2e_view_prep VIEW.json`: prints the plan view
 * (planwrap plan --emit view) with the few fields the e2e templates need
 * and mustache cannot compute, added under names that start with "e2e_":
 *
 *  - kernels[].params[]: e2e_index (0-based), e2e_buffer (true when the
 *    C type is a pointer: the argument is forwarded to pwt_kernel);
 *  - e2e_calls: one entry per call event in IR order: e2e_index,
 *    c_name, e2e_bufs (its buffer arguments: e2e_mode PWT_IN/PWT_OUT/
 *    PWT_INOUT, bytes, buffer, e2e_root: the buffer whose storage it
 *    names, through alias events; e2e_read: 1 when that storage holds
 *    data, from the caller or an earlier call, 0 when it is fresh, so
 *    that what an `inout` argument held before its first write is not
 *    hashed: garbage would differ between plans; 2 for a const as long
 *    as no call wrote it: caller memory that no plan touches, hashed by
 *    samples so that 500 MB of weights cost nothing), e2e_nbufs,
 *    e2e_has_bufs;
 *  - e2e_ncalls.
 *
 * With --kernel-status the view is changed as `planwrap gen
 * --kernel-status` builds it (kernels return int), which `planwrap plan`
 * has no option for.  Exits 1 with a message on bad input.
 */
#include <jansson.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int fail(const char *what) {
    fprintf(stderr, "e2e_view_prep: error: %s\n", what);
    return 1;
}

static const char *mode_enum(const char *mode) {
    if (mode != NULL && strcmp(mode, "in") == 0)
        return "PWT_IN";
    if (mode != NULL && strcmp(mode, "out") == 0)
        return "PWT_OUT";
    return "PWT_INOUT";
}

static void set_kernel_status(json_t *view) {
    size_t i;
    json_t *k;
    json_object_set_new(view, "kernel_status", json_true());
    json_object_set_new(view, "kernel_return", json_string("int"));
    json_array_foreach(json_object_get(view, "kernels"), i, k) {
        json_object_set_new(k, "return", json_string("int"));
    }
}

static void prep_kernels(json_t *view) {
    size_t i, j;
    json_t *k, *q;
    json_array_foreach(json_object_get(view, "kernels"), i, k) {
        json_array_foreach(json_object_get(k, "params"), j, q) {
            const char *t = json_string_value(json_object_get(q, "ctype"));
            size_t n = t ? strlen(t) : 0;
            json_object_set_new(q, "e2e_index", json_integer((json_int_t)j));
            /* a pointer that is not a string literal's const char * */
            json_object_set_new(q, "e2e_buffer",
                                json_boolean(n > 0 && t[n - 1] == '*' &&
                                             strcmp(t, "const char *") != 0));
        }
    }
}

/* The storage root of buffer `name`: follows the alias events seen so
 * far (roots maps NEW to the root of OLD). */
static const char *root_of(json_t *roots, const char *name) {
    const char *r = json_string_value(json_object_get(roots, name));
    return r ? r : name;
}

static int prep_calls(json_t *view) {
    json_t *calls = json_array();
    json_t *roots = json_object();
    json_t *written = json_object(); /* roots holding data */
    json_t *consts = json_object();  /* names of consts */
    size_t ci;
    json_t *co;
    json_array_foreach(json_object_get(view, "consts"), ci, co) {
        const char *cn = json_string_value(json_object_get(co, "name"));
        if (cn)
            json_object_set_new(consts, cn, json_true());
    }
    size_t i, j, a;
    json_t *st, *ev, *arg;
    json_array_foreach(json_object_get(view, "statements"), i, st) {
        json_array_foreach(json_object_get(st, "events"), j, ev) {
            json_t *bind = json_object_get(ev, "bind");
            if (json_is_object(bind)) {
                const char *bn =
                    json_string_value(json_object_get(bind, "name"));
                if (bn)
                    json_object_set_new(written, bn,
                                        json_object_get(consts, bn)
                                            ? json_string("const")
                                            : json_true());
            }
            json_t *alias = json_object_get(ev, "alias");
            if (json_is_object(alias)) {
                const char *nw =
                    json_string_value(json_object_get(alias, "new"));
                const char *old =
                    json_string_value(json_object_get(alias, "old"));
                if (nw && old)
                    json_object_set_new(roots, nw,
                                        json_string(root_of(roots, old)));
            }
            json_t *call = json_object_get(ev, "call");
            if (!json_is_object(call))
                continue;
            json_t *c = json_object();
            json_t *bufs = json_array();
            json_object_set(c, "c_name", json_object_get(call, "c_name"));
            json_object_set_new(
                c, "e2e_index",
                json_integer((json_int_t)json_array_size(calls)));
            json_array_foreach(json_object_get(call, "args"), a, arg) {
                const char *kind =
                    json_string_value(json_object_get(arg, "kind"));
                if (kind == NULL || strcmp(kind, "buffer") != 0)
                    continue;
                json_t *b = json_object();
                json_object_set_new(b, "e2e_mode",
                                    json_string(mode_enum(json_string_value(
                                        json_object_get(arg, "mode")))));
                json_object_set(b, "bytes", json_object_get(arg, "bytes"));
                const char *bn =
                    json_string_value(json_object_get(arg, "buffer"));
                json_object_set_new(b, "buffer", json_string(bn ? bn : "?"));
                const char *root = bn ? root_of(roots, bn) : "?";
                const char *mode =
                    json_string_value(json_object_get(arg, "mode"));
                json_object_set_new(b, "e2e_root", json_string(root));
                /* read only what holds data: a fresh buffer passed as
                 * inout (no kernel signature) is not read */
                json_t *w = json_object_get(written, root);
                json_object_set_new(b, "e2e_read",
                                    json_integer(w == NULL           ? 0
                                                 : json_is_string(w) ? 2
                                                                     : 1));
                if (mode == NULL || strcmp(mode, "in") != 0)
                    json_object_set_new(written, root, json_true());
                json_object_set_new(b, "e2e_last", json_false());
                json_array_append_new(bufs, b);
            }
            size_t nb = json_array_size(bufs);
            if (nb > 0)
                json_object_set_new(json_array_get(bufs, nb - 1), "e2e_last",
                                    json_true());
            json_object_set_new(c, "e2e_nbufs", json_integer((json_int_t)nb));
            json_object_set_new(c, "e2e_has_bufs", json_boolean(nb > 0));
            json_object_set_new(c, "e2e_bufs", bufs);
            if (json_object_get(c, "c_name") == NULL) {
                json_decref(c);
                json_decref(calls);
                json_decref(roots);
                json_decref(written);
                json_decref(consts);
                return -1;
            }
            json_array_append_new(calls, c);
        }
    }
    json_decref(roots);
    json_decref(written);
    json_decref(consts);
    json_object_set_new(view, "e2e_ncalls",
                        json_integer((json_int_t)json_array_size(calls)));
    json_object_set_new(view, "e2e_calls", calls);
    return 0;
}

int main(int argc, char **argv) {
    json_error_t err;
    bool kernel_status = argc == 3 && strcmp(argv[1], "--kernel-status") == 0;
    if (argc != 2 && !kernel_status) {
        fprintf(stderr, "usage: e2e_view_prep [--kernel-status] VIEW.json\n");
        return 2;
    }
    const char *path = argv[argc - 1];
    json_t *view = json_load_file(path, 0, &err);
    if (view == NULL) {
        fprintf(stderr, "e2e_view_prep: error: %s:%d:%d: %s\n", path, err.line,
                err.column, err.text);
        return 1;
    }
    if (!json_is_object(view) ||
        !json_is_array(json_object_get(view, "kernels")) ||
        !json_is_array(json_object_get(view, "statements"))) {
        json_decref(view);
        return fail("not a plan view (no kernels or statements)");
    }
    if (kernel_status) /* as `planwrap gen --kernel-status` sees it */
        set_kernel_status(view);
    prep_kernels(view);
    if (prep_calls(view) != 0) {
        json_decref(view);
        return fail("a call event without c_name");
    }
    int rc = json_dumpf(view, stdout, JSON_INDENT(1) | JSON_PRESERVE_ORDER);
    json_decref(view);
    if (rc != 0 || fflush(stdout) != 0)
        return fail("cannot write the output");
    return 0;
}

/*
 * codegen/view.c - the plan view: a jansson object describing a planned
 * program for the templates (docs/view.md is the contract).
 *
 * Every target-specific decision that is not in a template is made here:
 * C types, casts, identifiers (deterministically mangled so that no local
 * collides with a kernel, the runtime or a C library name), offset macros,
 * comments and separators.  Everything is emitted in IR order; hash tables
 * are used only for membership tests, never iterated for output.
 */
#include "codegen/codegen.h"
#include "base/base.h"
#include "templates/mustache.h"
#include "base/hash.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ */
/* Identifier sets. */

typedef struct cg_name {
    const char *s;
    UT_hash_handle hh;
} cg_name;

typedef struct cg_nameset {
    cg_name *head;
} cg_nameset;

/* Whether a key (a string literal, by address) is in the key set. */
typedef struct keep_memo {
    const char *k;
    bool keep;
    UT_hash_handle hh;
} keep_memo;

typedef struct vw {
    const plan *pl;
    const ir_program *prog;
    ir_arena *a;
    bool cuda;
    bool kernel_status;
    ir_diag *d;
    unsigned errors;
    const char *M; /* model prefix */

    cg_nameset ids; /* file-scope and local C identifiers */

    /* per value */
    const char **local;
    bool *used;
    bool *is_const; /* root is an input or const */

    /* per storage */
    int32_t *spool;      /* view pool index, -1 = home output */
    int32_t *home_value; /* output value whose field is its memory, -1 */
    int32_t *home_pos;   /* its position among the outputs */
    const char **off_macro, **size_macro, **align_macro;
    uint64_t *salign;

    /* view pools: plan pools then one per unpooled storage */
    uint32_t npools;
    const char **pool_name;  /* struct field / display name */
    const char **pool_local; /* pw_pool local */
    const char **pool_upper; /* macro stem */
    uint64_t *pool_size, *pool_align;
    int32_t *pool_plan;    /* plan pool index, -1 synthetic */
    int32_t *pool_storage; /* synthetic: its storage */

    /* per kernel */
    const char **kname; /* C name */
    uint32_t *knparams;
    const char ***kptype; /* parameter C types */
    bool **kconst;        /* parameter is a pointer to const */
    int32_t *kernel_of_stmt;

    /* streams: distinct stream= numbers, ascending */
    uint64_t *stream_ids;
    uint32_t nstreams;

    /* parameters and fixed names */
    const char *p_in, *p_c, *p_out, *p_p, *p_ctx, *p_stream, *rc, *copy_fn;
    const char *pools_var, *check_macro;

    /* outputs */
    bool *out_copy; /* per output position: copied at the output stmt */
    /* per output position: struct field and size macro (io_json) */
    const char **out_field, **out_size_macro;
    /* per input or const value: struct field (io_json) */
    const char **io_field;

    /* stmt_text per statement, computed once (input hash and comments) */
    const char **stmt_txt;
    bool *stmt_txt_done;

    /* wait events made by statements_json */
    uint32_t nwaits;

    /* per value, computed once: ptr_type and decl_of */
    const char **ptr_memo, **decl_memo;

    /* the keys to keep (NULL: all) and keep_key's answers */
    const cg_keyset *keep;
    keep_memo *keep_memo;
} vw;

static const char *vfmt(const vw *v, const char *f, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static bool set_has(const cg_nameset *s, const char *name) {
    cg_name *f = NULL;
    HASH_FIND_STR(s->head, name, f);
    return f != NULL;
}

static void set_add(vw *v, cg_nameset *s, const char *name) {
    if (set_has(s, name))
        return;
    cg_name *n = ir_arena_alloc(v->a, sizeof *n);
    n->s = name;
    HASH_ADD_KEYPTR(hh, s->head, n->s, strlen(n->s), n);
}

static void set_clear(cg_nameset *s) {
    HASH_CLEAR(hh, s->head);
}

/* Returns `base`, or base_2, base_3, ... : the first not in `s`; adds it. */
static const char *set_unique(vw *v, cg_nameset *s, const char *base) {
    const char *cand = ir_arena_strdup(v->a, base);
    for (unsigned k = 2; set_has(s, cand); k++)
        cand = vfmt(v, "%s_%u", base, k);
    set_add(v, s, cand);
    return cand;
}

/* Names that are not C11 keywords (ir_is_c_keyword) but that a struct
 * field may not be either: <stdbool.h> macros and a name the generated
 * headers use. */
static const char *const cg_field_reserved[] = {"bool", "true", "false",
                                                "unused"};

/* A struct field name for `name`: itself unless it is a C keyword (or a
 * name the generated headers use), then name_. */
static const char *field_base(vw *v, const char *name) {
    bool taken = ir_is_c_keyword(name);
    for (size_t i = 0;
         !taken && i < sizeof cg_field_reserved / sizeof *cg_field_reserved;
         i++)
        taken = strcmp(name, cg_field_reserved[i]) == 0;
    return taken ? vfmt(v, "%s_", name) : name;
}

static char *upper(vw *v, const char *s) {
    char *u = ir_arena_strdup(v->a, s);
    for (char *p = u; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    return u;
}

/* Names a kernel may not keep: C library functions (gcc knows many as
 * built-ins with fixed types), names of the headers generated code
 * includes, the runtime, and C's reserved forms. */
static const char *const cg_reserved[] = {
    "abort",     "abs",           "acos",      "acosf",
    "acosh",     "alloca",        "asin",      "asinf",
    "asinh",     "assert",        "atan",      "atan2",
    "atan2f",    "atanf",         "atanh",     "atexit",
    "atof",      "atoi",          "atol",      "bcmp",
    "bcopy",     "bool",          "bsearch",   "bzero",
    "calloc",    "cbrt",          "cbrtf",     "ceil",
    "ceilf",     "clock",         "copysign",  "cos",
    "cosf",      "cosh",          "coshf",     "div",
    "erf",       "erfc",          "erfcf",     "erff",
    "errno",     "exit",          "exp",       "exp2",
    "exp2f",     "expf",          "expm1",     "expm1f",
    "fabs",      "fabsf",         "false",     "fclose",
    "fdim",      "feof",          "ferror",    "fflush",
    "ffs",       "fgetc",         "fgets",     "floor",
    "floorf",    "fma",           "fmaf",      "fmax",
    "fmaxf",     "fmin",          "fminf",     "fmod",
    "fmodf",     "fopen",         "fprintf",   "fputc",
    "fputs",     "fread",         "free",      "frexp",
    "fscanf",    "fseek",         "ftell",     "fwrite",
    "getc",      "getchar",       "getenv",    "gets",
    "hypot",     "hypotf",        "ilogb",     "index",
    "int16_t",   "int32_t",       "int64_t",   "int8_t",
    "intmax_t",  "intptr_t",      "isalnum",   "isalpha",
    "isdigit",   "isfinite",      "isinf",     "islower",
    "isnan",     "isspace",       "isupper",   "isxdigit",
    "labs",      "ldexp",         "lgamma",    "llabs",
    "llrint",    "llround",       "log",       "log10",
    "log10f",    "log1p",         "log1pf",    "log2",
    "log2f",     "logb",          "logf",      "lrint",
    "lround",    "main",          "malloc",    "max_align_t",
    "memchr",    "memcmp",        "memcpy",    "memmove",
    "memset",    "modf",          "nan",       "nearbyint",
    "nextafter", "offsetof",      "pow",       "powf",
    "printf",    "ptrdiff_t",     "putc",      "putchar",
    "puts",      "qsort",         "raise",     "rand",
    "realloc",   "remainder",     "remove",    "rename",
    "rindex",    "rint",          "round",     "roundf",
    "scalbn",    "scanf",         "signal",    "signbit",
    "sin",       "sinf",          "sinh",      "sinhf",
    "size_t",    "snprintf",      "sprintf",   "sqrt",
    "sqrtf",     "srand",         "sscanf",    "stderr",
    "stdin",     "stdout",        "stpcpy",    "strcat",
    "strchr",    "strcmp",        "strcpy",    "strcspn",
    "strdup",    "strlen",        "strncat",   "strncmp",
    "strncpy",   "strndup",       "strpbrk",   "strrchr",
    "strspn",    "strstr",        "strtod",    "strtol",
    "strtoul",   "system",        "tan",       "tanf",
    "tanh",      "tanhf",         "tgamma",    "time",
    "tolower",   "toupper",       "true",      "trunc",
    "truncf",    "uint16_t",      "uint32_t",  "uint64_t",
    "uint8_t",   "uintmax_t",     "uintptr_t", "vprintf",
    "vsnprintf", "vsprintf",      "wchar_t",   "alloc_from_pool",
    "dim3",      "static_assert", "NULL",
};

static bool kernel_name_reserved(const vw *v, const char *n) {
    for (size_t i = 0; i < sizeof cg_reserved / sizeof cg_reserved[0]; i++)
        if (strcmp(n, cg_reserved[i]) == 0)
            return true;
    if (strncmp(n, "pw_", 3) == 0 || strncmp(n, "PW_", 3) == 0 ||
        strncmp(n, "__", 2) == 0 || (n[0] == '_' && n[1] >= 'A' && n[1] <= 'Z'))
        return true;
    size_t ml = strlen(v->M);
    if (strncmp(n, v->M, ml) == 0 && n[ml] == '_') {
        /* the generated API and file-scope names: M_run, M_POOL_..., */
        static const char *const api[] = {
            "inputs",     "consts",  "outputs", "pools", "run",
            "run_static", "ctx",     "init",    "fini",  "copy_bytes",
            "pool_",      "buffer_", "k_",
        };
        const char *rest = n + ml + 1;
        if (*rest >= 'A' && *rest <= 'Z')
            return true; /* macros */
        for (size_t i = 0; i < sizeof api / sizeof api[0]; i++) {
            size_t al = strlen(api[i]);
            if (api[i][al - 1] == '_' ? strncmp(rest, api[i], al) == 0
                                      : strcmp(rest, api[i]) == 0)
                return true;
        }
    }
    if (v->cuda && (strncmp(n, "cuda", 4) == 0 || strncmp(n, "cu", 2) == 0 ||
                    strncmp(n, "CU", 2) == 0 || strncmp(n, "nccl", 4) == 0))
        return true;
    return false;
}

/* ------------------------------------------------------------------ */
/* Small helpers. */

static void verror(vw *v, ir_loc loc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void verror(vw *v, ir_loc loc, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    v->errors++;
    if (v->d) {
        ir_diag_vreport(v->d, IR_SEV_ERROR, loc.line, loc.col, fmt, ap);
    } else {
        fprintf(stderr, "%s:%" PRIu32 ":%" PRIu32 ": error: ",
                v->prog->filename ? v->prog->filename : "<input>", loc.line,
                loc.col);
        vfprintf(stderr, fmt, ap);
        fputc('\n', stderr);
    }
    va_end(ap);
}

static const char *ctype_of(ir_dtype t) {
    switch (t) {
    case IR_F64:
        return "double";
    case IR_F32:
        return "float";
    case IR_F16:
    case IR_BF16:
        return "uint16_t";
    case IR_I64:
        return "int64_t";
    case IR_I32:
        return "int32_t";
    case IR_I16:
        return "int16_t";
    case IR_I8:
        return "int8_t";
    case IR_U8:
        return "uint8_t";
    case IR_BOOL:
        return "bool";
    default:
        return "unsigned char";
    }
}

/* Strings of the view are ASCII (IR names, escaped literals), so the
 * UTF-8 validation of json_string is skipped; a NULL is "". */
static json_t *jstr(const char *s) {
    return s ? json_string_nocheck(s) : json_string_nocheck("");
}

static json_t *ju64(uint64_t x) {
    return json_integer((json_int_t)x);
}

/* ------------------------------------------------------------------ */
/* Key sets (cg_view_options.keep): the names that `gen` with the
 * built-in templates can look up in the view, plus the keys the view
 * builder and gen read back themselves.  A view built with a key set
 * leaves out every other key (and its value). */

typedef struct cg_key {
    UT_hash_handle hh;
    char name[]; /* the key, NUL-terminated */
} cg_key;

struct cg_keyset {
    cg_key *head;
    bool oom;
};

static bool keyset_has(const cg_keyset *s, const char *k, size_t n) {
    cg_key *f = NULL;
    HASH_FIND(hh, s->head, k, n, f);
    return f != NULL;
}

static void keyset_add(void *ctx, const char *k, size_t n) {
    cg_keyset *s = ctx;
    if (s->oom || keyset_has(s, k, n))
        return;
    cg_key *e = malloc(sizeof *e + n + 1);
    if (!e) {
        s->oom = true;
        return;
    }
    memcpy(e->name, k, n);
    e->name[n] = '\0';
    HASH_ADD(hh, s->head, name[0], n, e);
}

void cg_keyset_free(cg_keyset *s) {
    if (!s)
        return;
    cg_key *e, *tmp;
    HASH_ITER(hh, s->head, e, tmp) {
        HASH_DEL(s->head, e);
        free(e);
    }
    free(s);
}

/* Keys kept whatever the templates name: "model", which gen reads back
 * (the output file names), and the event kinds (event() relies on them). */
static const char *const cg_keep_internal[] = {
    "model", "bind", "reuse", "alloc",  "alloc_output", "alias",
    "call",  "del",  "death", "output", "wait",
};

cg_keyset *cg_builtin_keys(void) {
    cg_keyset *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    for (size_t i = 0; i < sizeof cg_keep_internal / sizeof *cg_keep_internal;
         i++)
        keyset_add(s, cg_keep_internal[i], strlen(cg_keep_internal[i]));
    for (size_t i = 0; !s->oom; i++) {
        const char *name = mst_builtin_name(i);
        if (!name)
            return s;
        size_t len = 0;
        const char *text = mst_builtin(name, &len);
        if (!text)
            break;
        mst_error err;
        mst_template *t = mst_compile(name, text, len, &err);
        if (!t)
            break;
        mst_template_names(t, keyset_add, s);
        mst_template_free(t);
    }
    cg_keyset_free(s);
    return NULL;
}

/* The uthash hash value of a pointer key: one multiplication, cheaper
 * than FNV over its bytes (keep_key runs for every key of the view).
 * Every lookup and insertion in a table keyed this way must use it
 * (HASH_FIND_BYHASHVALUE and HASH_ADD_BYHASHVALUE). */
static unsigned ptr_hash(const void *p) {
    return (unsigned)((uint64_t)(uintptr_t)p * 0x9E3779B97F4A7C15ull >> 32);
}

/* set and sets take a string literal as the key (its length is known
 * at compile time: no strlen per key in a view of a million values).
 * Whether a key is kept is remembered per literal address in
 * v->keep_memo, so that the key set is searched once per literal. */
static bool keep_key(vw *v, const char *k, size_t n) {
    if (!v->keep)
        return true;
    keep_memo *m = NULL;
    unsigned h = ptr_hash(k);
    HASH_FIND_BYHASHVALUE(hh, v->keep_memo, &k, sizeof k, h, m);
    if (!m) {
        m = ir_arena_alloc(v->a, sizeof *m);
        m->k = k;
        m->keep = keyset_has(v->keep, k, n);
        HASH_ADD_BYHASHVALUE(hh, v->keep_memo, k, sizeof m->k, h, m);
    }
    return m->keep;
}

static void set_n(vw *v, json_t *o, const char *k, size_t kn, json_t *val) {
    if (!o || !keep_key(v, k, kn)) {
        json_decref(val);
        return;
    }
    json_object_setn_new_nocheck(o, k, kn, val);
}

#define set(v, o, k, val) set_n((v), (o), "" k, sizeof("" k) - 1, (val))

static void sets_n(vw *v, json_t *o, const char *k, size_t kn, const char *s) {
    if (o && keep_key(v, k, kn))
        json_object_setn_new_nocheck(o, k, kn, jstr(s));
}

#define sets(v, o, k, s) sets_n((v), (o), "" k, sizeof("" k) - 1, (s))

/* A string builder: small strings stay in the inline buffer, so that
 * building most view strings costs no malloc; sb_done copies the result
 * into the view's arena. */
typedef struct sbuf {
    char *p;
    size_t len, cap;
    char inl[256];
} sbuf;

static void sb_init(sbuf *b) {
    b->p = b->inl;
    b->len = 0;
    b->cap = sizeof b->inl;
    b->p[0] = '\0';
}

static void sb_put(sbuf *b, const char *s, size_t n) {
    if (b->len + n + 1 > b->cap) {
        size_t nc = b->cap * 2;
        while (nc < b->len + n + 1)
            nc *= 2;
        char *nb = b->p == b->inl ? malloc(nc) : realloc(b->p, nc);
        if (!nb)
            base_oom();
        if (b->p == b->inl)
            memcpy(nb, b->inl, b->len + 1);
        b->p = nb;
        b->cap = nc;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void sb_puts(sbuf *b, const char *s) {
    sb_put(b, s, strlen(s));
}

static const char *sb_done(const vw *v, sbuf *b) {
    const char *r = ir_arena_strndup(v->a, b->p, b->len);
    if (b->p != b->inl)
        free(b->p);
    sb_init(b);
    return r;
}

/* Appends n spaces. */
static void sb_spaces(sbuf *b, size_t n) {
    static const char sp[] = "                                ";
    while (n) {
        size_t k = n < sizeof sp - 1 ? n : sizeof sp - 1;
        sb_put(b, sp, k);
        n -= k;
    }
}

/* Appends the decimal digits of x. */
static void sb_u64(sbuf *b, uint64_t x) {
    char tmp[24], *e = tmp + sizeof tmp, *q = e;
    do {
        *--q = (char)('0' + x % 10);
        x /= 10;
    } while (x);
    sb_put(b, q, (size_t)(e - q));
}

/* printf into the arena without the cost of stdio (the view formats
 * tens of thousands of short strings): handles %s, %c, %%, the integer
 * conversions d i u x with the l/ll/z/j length modifiers, and the flags
 * '-' and '0' with a width (digits or '*'); anything else falls back to
 * vsnprintf. */

static const char *vfmt(const vw *v, const char *f, ...) {
    sbuf b;
    sb_init(&b);
    va_list ap;
    va_start(ap, f);
    const char *p = f;
    while (*p) {
        const char *pct = strchr(p, '%');
        if (!pct) {
            sb_puts(&b, p);
            break;
        }
        sb_put(&b, p, (size_t)(pct - p));
        p = pct + 1;
        bool left = false, zero = false;
        for (;; p++) {
            if (*p == '-')
                left = true;
            else if (*p == '0')
                zero = true;
            else
                break;
        }
        int width = 0;
        if (*p == '*') {
            width = va_arg(ap, int);
            if (width < 0) {
                left = true;
                width = -width;
            }
            p++;
        } else {
            while (*p >= '0' && *p <= '9')
                width = width * 10 + (*p++ - '0');
        }
        int lmod = 0; /* 0 int, 1 long, 2 long long, 3 size_t, 4 intmax */
        if (*p == 'l') {
            lmod = 1;
            if (*++p == 'l') {
                lmod = 2;
                p++;
            }
        } else if (*p == 'z') {
            lmod = 3;
            p++;
        } else if (*p == 'j') {
            lmod = 4;
            p++;
        }
        char tmp[72], *e = tmp + sizeof tmp, *q = e;
        const char *piece;
        size_t plen;
        char conv = *p ? *p++ : '\0';
        switch (conv) {
        case 's':
            piece = va_arg(ap, const char *);
            plen = strlen(piece);
            zero = false;
            break;
        case 'c':
            tmp[0] = (char)va_arg(ap, int);
            piece = tmp;
            plen = 1;
            zero = false;
            break;
        case '%':
            piece = "%";
            plen = 1;
            width = 0;
            break;
        case 'd':
        case 'i':
        case 'u':
        case 'x': {
            bool sgn = conv == 'd' || conv == 'i';
            uint64_t u;
            bool neg = false;
            if (sgn) {
                int64_t x = lmod == 0   ? va_arg(ap, int)
                            : lmod == 1 ? va_arg(ap, long)
                            : lmod == 2 ? va_arg(ap, long long)
                            : lmod == 3 ? (int64_t)va_arg(ap, size_t)
                                        : (int64_t)va_arg(ap, intmax_t);
                neg = x < 0;
                u = neg ? 0u - (uint64_t)x : (uint64_t)x;
            } else {
                u = lmod == 0   ? va_arg(ap, unsigned)
                    : lmod == 1 ? va_arg(ap, unsigned long)
                    : lmod == 2 ? va_arg(ap, unsigned long long)
                    : lmod == 3 ? va_arg(ap, size_t)
                                : (uint64_t)va_arg(ap, uintmax_t);
            }
            unsigned base = conv == 'x' ? 16u : 10u;
            do {
                *--q = "0123456789abcdef"[u % base];
                u /= base;
            } while (u);
            if (zero && !left)
                while ((int)(e - q) + (neg ? 1 : 0) < width && q > tmp + 1)
                    *--q = '0';
            if (neg)
                *--q = '-';
            piece = q;
            plen = (size_t)(e - q);
            break;
        }
        default: {
            /* not supported here: let stdio format the whole string */
            va_end(ap);
            if (b.p != b.inl)
                free(b.p);
            va_start(ap, f);
            va_list aq;
            va_copy(aq, ap);
            int n = vsnprintf(NULL, 0, f, ap);
            va_end(ap);
            char *r = ir_arena_alloc(v->a, n > 0 ? (size_t)n + 1 : 1);
            r[0] = '\0';
            if (n > 0)
                vsnprintf(r, (size_t)n + 1, f, aq);
            va_end(aq);
            return r;
        }
        }
        size_t pad =
            width > 0 && (size_t)width > plen ? (size_t)width - plen : 0;
        if (!left)
            sb_spaces(&b, pad);
        sb_put(&b, piece, plen);
        if (left)
            sb_spaces(&b, pad);
    }
    va_end(ap);
    return sb_done(v, &b);
}

/* Concatenates n strings into the arena. */
static const char *cat(const vw *v, int n, ...) {
    sbuf b;
    sb_init(&b);
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        sb_puts(&b, va_arg(ap, const char *));
    va_end(ap);
    return sb_done(v, &b);
}

/* Appends `s` to a C string literal body (or a comment when `comment`):
 * escapes quotes, backslashes, '?' (trigraphs), control and non-ASCII
 * bytes; in comments also breaks up the pair that would close it. */
static void sb_escape(sbuf *b, const char *s, bool comment) {
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        char tmp[8];
        unsigned char ch = *p;
        if (ch == '\\')
            sb_put(b, "\\\\", 2);
        else if (ch == '"')
            sb_put(b, "\\\"", 2);
        else if (ch == '\n')
            sb_put(b, "\\n", 2);
        else if (ch == '\t')
            sb_put(b, "\\t", 2);
        else if (ch == '?')
            sb_put(b, "\\?", 2);
        else if (ch == '*' && comment && p[1] == '/')
            sb_put(b, "*\\", 2);
        else if (ch < 0x20 || ch >= 0x7f) {
            snprintf(tmp, sizeof tmp, "\\%03o", (unsigned)ch);
            sb_put(b, tmp, 4);
        } else
            sb_put(b, (const char *)p, 1);
    }
}

static const char *c_string(vw *v, const char *s, bool comment) {
    sbuf b;
    sb_init(&b);
    sb_put(&b, "\"", 1);
    sb_escape(&b, s, comment);
    sb_put(&b, "\"", 1);
    return sb_done(v, &b);
}

/* ------------------------------------------------------------------ */
/* Statement text for comments (a one-line rendering of the IR). */

static const char *type_text(vw *v, const ir_type *t) {
    sbuf out;
    sb_init(&out);
    const char *n = ir_dtype_name(t->dtype);
    sb_put(&out, n, strlen(n));
    sb_put(&out, "[", 1);
    for (uint32_t i = 0; i < t->ndim; i++) {
        if (i)
            sb_put(&out, ",", 1);
        sb_u64(&out, t->dims[i]);
    }
    sb_put(&out, "]", 1);
    return sb_done(v, &out);
}

/* The buffer attributes of a statement, each preceded by a space. */
static const char *attrs_text(vw *v, const ir_stmt *s) {
    sbuf out;
    sb_init(&out);
    char tmp[64];
    if (s->has_device && s->kind != IR_DEVICE) {
        char dev[24];
        int k = snprintf(tmp, sizeof tmp, " device=%s",
                         ir_device_str(s->device, dev, sizeof dev));
        sb_put(&out, tmp, (size_t)k);
    }
    if (s->space.name) {
        sb_put(&out, " space=", 7);
        sb_put(&out, s->space.name, strlen(s->space.name));
    }
    if (s->has_stride) {
        sb_put(&out, " stride=[", 9);
        for (uint32_t i = 0; i < s->nstrides; i++) {
            if (i)
                sb_put(&out, ",", 1);
            sb_u64(&out, s->strides[i]);
        }
        sb_put(&out, "]", 1);
    }
    if (s->align) {
        sb_put(&out, " align=", 7);
        sb_u64(&out, s->align);
    }
    if (s->comm.name) {
        sb_put(&out, " comm=", 6);
        sb_put(&out, s->comm.name, strlen(s->comm.name));
    }
    if (s->group.name) {
        sb_put(&out, " group=", 7);
        sb_put(&out, s->group.name, strlen(s->group.name));
    }
    return sb_done(v, &out);
}

static const char *stmt_text_of(vw *v, const ir_stmt *s) {
    switch (s->kind) {
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
        return vfmt(v, "%s %s %s%s",
                    s->kind == IR_INPUT   ? "input"
                    : s->kind == IR_CONST ? "const"
                                          : "alloc",
                    s->name.name, type_text(v, &s->type), attrs_text(v, s));
    case IR_ALIAS: {
        const char *t = s->has_type ? type_text(v, &s->type) : NULL;
        if (s->has_offset)
            return vfmt(v, "alias %s = %s%s%s offset=%" PRIu64, s->name.name,
                        s->old.name, t ? " " : "", t ? t : "", s->offset);
        return vfmt(v, "alias %s = %s%s%s", s->name.name, s->old.name,
                    t ? " " : "", t ? t : "");
    }
    case IR_CALL: {
        sbuf out;
        sb_init(&out);
        const char *pre = "call ";
        sb_put(&out, pre, strlen(pre));
        sb_put(&out, s->name.name, strlen(s->name.name));
        sb_put(&out, "(", 1);
        for (uint32_t i = 0; i < s->nargs; i++) {
            if (i)
                sb_put(&out, ", ", 2);
            const ir_arg *g = &s->args[i];
            if (g->kind == IR_ARG_STRING) {
                sb_put(&out, "\"", 1);
                sb_escape(&out, g->sval ? g->sval : "", true);
                sb_put(&out, "\"", 1);
            } else {
                sb_escape(&out, g->text ? g->text : "", true);
            }
        }
        sb_put(&out, ")", 1);
        if (s->has_stream) {
            sb_put(&out, " stream=", 8);
            sb_u64(&out, s->stream);
        }
        return sb_done(v, &out);
    }
    case IR_FREE:
    case IR_OUTPUT: {
        sbuf out;
        sb_init(&out);
        const char *kw = s->kind == IR_FREE ? "free" : "output";
        sb_put(&out, kw, strlen(kw));
        for (uint32_t i = 0; i < s->nnames; i++) {
            sb_put(&out, " ", 1);
            sb_put(&out, s->names[i].name, strlen(s->names[i].name));
        }
        return sb_done(v, &out);
    }
    default:
        return NULL;
    }
}

/* The one-line text of statement s (NULL for statements that emit no
 * comment), computed once per statement. */
static const char *stmt_text(vw *v, const ir_stmt *s) {
    uint32_t i = s->index;
    if (!v->stmt_txt_done[i]) {
        v->stmt_txt[i] = stmt_text_of(v, s);
        v->stmt_txt_done[i] = true;
    }
    return v->stmt_txt[i];
}

/* ------------------------------------------------------------------ */
static const char *canon_line(vw *v, const ir_stmt *s) {
    const char *t = stmt_text(v, s);
    if (t)
        return t;
    char dev[24];
    switch (s->kind) {
    case IR_MODEL:
        return vfmt(v, "model %s", s->name.name);
    case IR_DEVICE:
        return vfmt(v, "device %s", ir_device_str(s->device, dev, sizeof dev));
    case IR_SPACE:
        return vfmt(v, "space %s capacity=%" PRIu64, s->name.name, s->capacity);
    case IR_KERNEL: {
        sbuf out;
        sb_init(&out);
        sb_put(&out, "kernel ", 7);
        sb_put(&out, s->name.name, strlen(s->name.name));
        for (uint32_t i = 0; i < s->nmodes; i++) {
            const char *m = ir_mode_name(s->modes[i]);
            sb_put(&out, i ? ", " : "(", i ? 2 : 1);
            sb_put(&out, m, strlen(m));
        }
        sb_put(&out, s->nmodes ? ")" : "()", s->nmodes ? 1 : 2);
        return sb_done(v, &out);
    }
    default:
        return "";
    }
}

static const char *input_hash(vw *v) {
    uint64_t h = 0xcbf29ce484222325u;
    for (uint32_t i = 0; i < v->prog->nstmts; i++) {
        const char *t = canon_line(v, &v->prog->stmts[i]);
        for (const unsigned char *p = (const unsigned char *)t; *p; p++) {
            h ^= *p;
            h *= 0x100000001b3u;
        }
        h ^= '\n';
        h *= 0x100000001b3u;
    }
    return vfmt(v, "%016" PRIx64, h);
}

static const char *base_name(const char *path) {
    if (!path)
        return "<input>";
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* ------------------------------------------------------------------ */
/* Naming. */

static void name_kernels(vw *v) {
    const ir_program *p = v->prog;
    v->kname = ir_arena_array(v->a, p->nkernels, sizeof *v->kname);
    /* Kernel names that stay are taken first, so renamed ones and every
     * generated identifier avoid them. */
    for (uint32_t k = 0; k < p->nkernels; k++)
        if (!kernel_name_reserved(v, p->kernels[k].name)) {
            v->kname[k] = p->kernels[k].name;
            set_add(v, &v->ids, v->kname[k]);
        }
    for (uint32_t k = 0; k < p->nkernels; k++)
        if (!v->kname[k])
            v->kname[k] = set_unique(
                v, &v->ids, vfmt(v, "%s_k_%s", v->M, p->kernels[k].name));
}

static void name_fixed(vw *v) {
    /* API names are fixed by the contract; kernels were renamed away. */
    static const char *const api[] = {
        "inputs",     "consts", "outputs", "pools", "run",
        "run_static", "ctx",    "init",    "fini",
    };
    for (size_t i = 0; i < sizeof api / sizeof api[0]; i++)
        set_add(v, &v->ids, vfmt(v, "%s_%s", v->M, api[i]));
    static const char *const rt[] = {"alloc_from_pool", "pw_pool", "pw_rt_fail",
                                     "pw_comm_alloc", "pw_comm_free"};
    for (size_t i = 0; i < sizeof rt / sizeof rt[0]; i++)
        set_add(v, &v->ids, rt[i]);
    v->p_in = set_unique(v, &v->ids, "in");
    v->p_c = set_unique(v, &v->ids, "c");
    v->p_out = set_unique(v, &v->ids, "out");
    v->p_p = set_unique(v, &v->ids, "p");
    v->p_ctx = set_unique(v, &v->ids, "ctx");
    v->p_stream = set_unique(v, &v->ids, "stream");
    v->rc = set_unique(v, &v->ids, "rc");
    v->pools_var = set_unique(v, &v->ids, "pools");
    v->copy_fn = set_unique(v, &v->ids, vfmt(v, "%s_copy_bytes", v->M));
    v->check_macro = set_unique(v, &v->ids, vfmt(v, "%s_CHECK", v->M));
}

/* ------------------------------------------------------------------ */
/* Pools and storages. */

static int32_t output_value_at(const vw *v, uint32_t i) {
    const ir_program *p = v->prog;
    return p->stmts[p->output_stmt].name_values[i];
}

static void plan_pools(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    uint32_t ns = pl->nstorages;
    v->spool = ir_arena_array(v->a, ns + 1, sizeof *v->spool);
    v->home_value = ir_arena_array(v->a, ns + 1, sizeof *v->home_value);
    v->home_pos = ir_arena_array(v->a, ns + 1, sizeof *v->home_pos);
    v->salign = ir_arena_array(v->a, ns + 1, sizeof *v->salign);
    for (uint32_t s = 0; s < ns; s++) {
        v->home_value[s] = -1;
        v->spool[s] = pl->storages[s].pool;
    }
    /* Caller-owned outputs: the first output naming the whole storage. */
    if (p->output_stmt >= 0) {
        const ir_stmt *os = &p->stmts[p->output_stmt];
        for (uint32_t i = 0; i < os->nnames; i++) {
            int32_t val = output_value_at(v, i);
            if (val < 0)
                continue;
            int32_t s = pl->storage_of_value[val];
            if (s < 0 || pl->storages[s].pool >= 0 || v->home_value[s] >= 0)
                continue;
            const ir_value *iv = &p->values[val];
            if (iv->byte_offset == 0 && iv->bytes == pl->storages[s].size) {
                v->home_value[s] = val;
                v->home_pos[s] = (int32_t)i;
            }
        }
    }
    uint32_t nsyn = 0;
    for (uint32_t s = 0; s < ns; s++)
        if (v->spool[s] < 0 && v->home_value[s] < 0)
            nsyn++;
    uint32_t np = pl->npools + nsyn;
    v->npools = np;
    v->pool_name = ir_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_local = ir_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_upper = ir_arena_array(v->a, np + 1, sizeof(char *));
    v->pool_size = ir_arena_array(v->a, np + 1, sizeof(uint64_t));
    v->pool_align = ir_arena_array(v->a, np + 1, sizeof(uint64_t));
    v->pool_plan = ir_arena_array(v->a, np + 1, sizeof(int32_t));
    v->pool_storage = ir_arena_array(v->a, np + 1, sizeof(int32_t));
    cg_nameset fields = {NULL}, stems = {NULL};
    for (uint32_t i = 0; i < pl->npools; i++) {
        const plan_pool *pp = &pl->pools[i];
        v->pool_name[i] = set_unique(v, &fields, field_base(v, pp->name));
        v->pool_size[i] = pp->size;
        v->pool_align[i] = pp->align ? pp->align : 1;
        v->pool_plan[i] = (int32_t)i;
        v->pool_storage[i] = -1;
    }
    uint64_t dalign = pl->opts.align ? pl->opts.align : (v->cuda ? 256 : 64);
    uint32_t k = pl->npools;
    for (uint32_t s = 0; s < ns; s++) {
        if (v->spool[s] >= 0 || v->home_value[s] >= 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        const ir_value *iv = &p->values[st->value];
        v->pool_name[k] = set_unique(v, &fields, field_base(v, iv->name));
        v->pool_size[k] = st->size;
        uint64_t al = iv->align > dalign ? iv->align : dalign;
        v->pool_align[k] = al;
        v->pool_plan[k] = -1;
        v->pool_storage[k] = (int32_t)s;
        v->spool[s] = (int32_t)k;
        k++;
    }
    for (uint32_t i = 0; i < np; i++) {
        v->pool_upper[i] = set_unique(v, &stems, upper(v, v->pool_name[i]));
        v->pool_local[i] =
            set_unique(v, &v->ids, vfmt(v, "pool_%s", v->pool_name[i]));
    }
    set_clear(&fields);
    set_clear(&stems);

    v->off_macro = ir_arena_array(v->a, ns + 1, sizeof(char *));
    v->size_macro = ir_arena_array(v->a, ns + 1, sizeof(char *));
    v->align_macro = ir_arena_array(v->a, ns + 1, sizeof(char *));
    cg_nameset bufs = {NULL};
    for (uint32_t s = 0; s < ns; s++) {
        if (v->spool[s] < 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        const ir_value *iv = &p->values[st->value];
        const char *stem = set_unique(v, &bufs, upper(v, iv->name));
        v->off_macro[s] = vfmt(v, "%s_BUF_%s_OFFSET", v->M, stem);
        v->size_macro[s] = vfmt(v, "%s_BUF_%s_SIZE", v->M, stem);
        v->align_macro[s] = vfmt(v, "%s_BUF_%s_ALIGN", v->M, stem);
        uint64_t pa = v->pool_align[v->spool[s]];
        v->salign[s] = iv->align > pa ? iv->align : pa;
    }
    set_clear(&bufs);
}

/* ------------------------------------------------------------------ */
/* Kernels: parameter types from signatures and call sites. */

/* The mode of parameter j of kernel k: from its signature, inout when it
 * has none (or k < 0). */
static ir_mode param_mode(const vw *v, int32_t k, uint32_t j) {
    const ir_program *p = v->prog;
    if (k < 0 || p->kernels[k].sig_stmt < 0)
        return IR_MODE_INOUT;
    return p->stmts[p->kernels[k].sig_stmt].modes[j];
}

enum { K_NONE = 0, K_BUF = 1, K_INT = 2, K_FLOAT = 4, K_STR = 8 };

static void plan_kernels(vw *v) {
    const ir_program *p = v->prog;
    uint32_t nk = p->nkernels;
    v->knparams = ir_arena_array(v->a, nk + 1, sizeof(uint32_t));
    v->kptype = ir_arena_array(v->a, nk + 1, sizeof(char **));
    v->kconst = ir_arena_array(v->a, nk + 1, sizeof(bool *));
    v->kernel_of_stmt = ir_arena_array(v->a, p->nstmts + 1, sizeof(int32_t));
    for (uint32_t i = 0; i < p->nstmts; i++)
        v->kernel_of_stmt[i] = -1;
    /* map calls to kernels by name (kernels are few; linear per name via
     * a temporary hash keyed by name) */
    typedef struct kn {
        const char *name;
        uint32_t k;
        UT_hash_handle hh;
    } kn;
    kn *map = NULL;
    for (uint32_t k = 0; k < nk; k++) {
        kn *e = ir_arena_alloc(v->a, sizeof *e);
        e->name = p->kernels[k].name;
        e->k = k;
        HASH_ADD_KEYPTR(hh, map, e->name, strlen(e->name), e);
        const ir_kernel *kk = &p->kernels[k];
        uint32_t n = kk->sig_stmt >= 0 ? p->stmts[kk->sig_stmt].nmodes
                                       : p->stmts[kk->first_call].nargs;
        v->knparams[k] = n;
    }
    uint32_t **kinds = ir_arena_array(v->a, nk + 1, sizeof(uint32_t *));
    int32_t **dt = ir_arena_array(v->a, nk + 1, sizeof(int32_t *));
    for (uint32_t k = 0; k < nk; k++) {
        kinds[k] = ir_arena_array(v->a, v->knparams[k] + 1, sizeof(uint32_t));
        dt[k] = ir_arena_array(v->a, v->knparams[k] + 1, sizeof(int32_t));
        for (uint32_t j = 0; j < v->knparams[k]; j++)
            dt[k][j] = -1;
    }
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        if (s->kind != IR_CALL)
            continue;
        kn *e = NULL;
        HASH_FIND_STR(map, s->name.name, e);
        if (!e)
            continue;
        v->kernel_of_stmt[i] = (int32_t)e->k;
        if (s->nargs != v->knparams[e->k]) {
            verror(v, s->loc,
                   "kernel '%s' is called with %" PRIu32
                   " arguments here and %" PRIu32 " elsewhere",
                   s->name.name, s->nargs, v->knparams[e->k]);
            continue;
        }
        for (uint32_t j = 0; j < s->nargs; j++) {
            const ir_arg *g = &s->args[j];
            uint32_t kind = g->kind == IR_ARG_BUFFER  ? K_BUF
                            : g->kind == IR_ARG_INT   ? K_INT
                            : g->kind == IR_ARG_FLOAT ? K_FLOAT
                                                      : K_STR;
            uint32_t prev = kinds[e->k][j];
            uint32_t all = prev | kind;
            bool bad = ((all & K_BUF) && (all & ~(uint32_t)K_BUF)) ||
                       ((all & K_STR) && (all & ~(uint32_t)K_STR));
            if (bad) {
                verror(v, g->loc,
                       "argument %" PRIu32 " of kernel '%s' has different "
                       "kinds at different calls (buffer, number, string)",
                       j + 1, s->name.name);
                continue;
            }
            kinds[e->k][j] = all;
            if (kind == K_BUF && g->value >= 0) {
                int32_t d = (int32_t)p->values[g->value].dtype;
                if (dt[e->k][j] == -1)
                    dt[e->k][j] = d;
                else if (dt[e->k][j] != d)
                    dt[e->k][j] = -2; /* disagree: void * */
            }
        }
    }
    HASH_CLEAR(hh, map);
    for (uint32_t k = 0; k < nk; k++) {
        uint32_t n = v->knparams[k];
        v->kptype[k] = ir_arena_array(v->a, n + 1, sizeof(char *));
        v->kconst[k] = ir_arena_array(v->a, n + 1, sizeof(bool));
        for (uint32_t j = 0; j < n; j++) {
            ir_mode m = param_mode(v, (int32_t)k, j);
            uint32_t kind = kinds[k][j];
            if (kind & K_BUF || (kind == K_NONE && m != IR_MODE_SCALAR)) {
                bool c = m == IR_MODE_IN;
                bool vd = dt[k][j] < 0;
                const char *t = vd ? "void" : ctype_of((ir_dtype)dt[k][j]);
                v->kconst[k][j] = c;
                v->kptype[k][j] = vfmt(v, "%s%s *", c ? "const " : "", t);
            } else if (kind & K_STR) {
                v->kptype[k][j] = "const char *";
            } else if (kind & K_FLOAT) {
                v->kptype[k][j] = "double";
            } else {
                v->kptype[k][j] = "int64_t";
            }
        }
    }
}

/* ------------------------------------------------------------------ */
/* Values: locals and their declarations. */

static const char *ptr_type(const vw *v, int32_t val) {
    if (!v->ptr_memo[val]) {
        const ir_value *iv = &v->prog->values[val];
        v->ptr_memo[val] = cat(v, 3, v->is_const[val] ? "const " : "",
                               ctype_of(iv->dtype), " *");
    }
    return v->ptr_memo[val];
}

static const char *decl_of(const vw *v, int32_t val) {
    if (!v->decl_memo[val])
        v->decl_memo[val] = cat(v, 2, ptr_type(v, val), v->local[val]);
    return v->decl_memo[val];
}

static void plan_values(vw *v) {
    const ir_program *p = v->prog;
    uint32_t nv = p->nvalues;
    v->local = ir_arena_array(v->a, nv + 1, sizeof(char *));
    v->used = ir_arena_array(v->a, nv + 1, sizeof(bool));
    v->is_const = ir_arena_array(v->a, nv + 1, sizeof(bool));
    for (uint32_t i = 0; i < nv; i++) {
        const ir_value *iv = &p->values[i];
        v->local[i] = set_unique(v, &v->ids, vfmt(v, "b_%s", iv->name));
        const ir_value *r = &p->values[iv->root >= 0 ? iv->root : (int32_t)i];
        v->is_const[i] = r->kind == IR_VAL_INPUT || r->kind == IR_VAL_CONST;
    }
    /* A local is used when a call, an alias or an output copy reads it. */
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        if (s->kind == IR_CALL) {
            for (uint32_t j = 0; j < s->nargs; j++)
                if (s->args[j].kind == IR_ARG_BUFFER && s->args[j].value >= 0)
                    v->used[s->args[j].value] = true;
        }
    }
    for (uint32_t i = 0; i < nv; i++) {
        const ir_value *iv = &p->values[i];
        if (iv->kind == IR_VAL_ALIAS && iv->root >= 0)
            v->used[iv->root] = true;
    }
}

/* The expression of an alias: its root's local, offset and cast. */
static const char *alias_expr(const vw *v, int32_t val) {
    const ir_value *iv = &v->prog->values[val];
    int32_t r = iv->root;
    const ir_value *rv = &v->prog->values[r];
    bool c = v->is_const[val];
    if (iv->byte_offset == 0 && iv->dtype == rv->dtype)
        return v->local[r];
    if (iv->byte_offset == 0)
        return vfmt(v, "(%s)(%svoid *)%s", ptr_type(v, val), c ? "const " : "",
                    v->local[r]);
    return vfmt(v, "(%s)(%svoid *)((%sunsigned char *)%s + %" PRIu64 ")",
                ptr_type(v, val), c ? "const " : "", c ? "const " : "",
                v->local[r], iv->byte_offset);
}

/* ------------------------------------------------------------------ */
/* JSON sections. */

static const char *live_text(const vw *v, uint32_t start, uint32_t end) {
    const ir_program *p = v->prog;
    uint32_t a = start < p->nstmts ? p->stmts[start].loc.line : 0;
    uint32_t b = end < p->nstmts ? p->stmts[end].loc.line : 0;
    return vfmt(v, "%" PRIu32 "-%" PRIu32, a, b);
}

static json_t *pools_json(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    json_t *arr = json_array();
    for (uint32_t i = 0; i < v->npools; i++) {
        json_t *o = json_object();
        int32_t pi = v->pool_plan[i];
        const plan_pool *pp = pi >= 0 ? &pl->pools[pi] : NULL;
        sets(v, o, "name", v->pool_name[i]);
        sets(v, o, "field", v->pool_name[i]);
        sets(v, o, "local", v->pool_local[i]);
        const char *U = v->pool_upper[i];
        sets(v, o, "size_macro", vfmt(v, "%s_POOL_%s_SIZE", v->M, U));
        sets(v, o, "align_macro", vfmt(v, "%s_POOL_%s_ALIGN", v->M, U));
        sets(v, o, "attr_macro", vfmt(v, "%s_POOL_%s_ATTR", v->M, U));
        sets(v, o, "static_name", vfmt(v, "%s_pool_%s", v->M, v->pool_name[i]));
        set(v, o, "size", ju64(v->pool_size[i]));
        set(v, o, "align", ju64(v->pool_align[i]));
        set(v, o, "lower_bound", ju64(pp ? pp->lower_bound : v->pool_size[i]));
        set(v, o, "naive_size", ju64(pp ? pp->naive_size : v->pool_size[i]));
        set(v, o, "has_capacity", json_boolean(pp && pp->has_capacity));
        set(v, o, "capacity",
            pp && pp->has_capacity ? ju64(pp->capacity) : json_null());
        char dev[24];
        ir_device d =
            pp ? pp->device
               : p->values[pl->storages[v->pool_storage[i]].value].device;
        sets(v, o, "device", ir_device_str(d, dev, sizeof dev));
        const char *space =
            pp ? pp->space
               : p->values[pl->storages[v->pool_storage[i]].value].space;
        set(v, o, "space", space ? jstr(space) : json_null());
        const char *comm = pp ? pp->comm : NULL;
        const char *group = pp ? pp->group : NULL;
        set(v, o, "is_comm", json_boolean(comm != NULL));
        set(v, o, "comm", comm ? jstr(comm) : json_null());
        set(v, o, "group", group ? jstr(group) : json_null());
        sets(v, o, "comm_str", comm ? c_string(v, comm, false) : "NULL");
        sets(v, o, "group_str", group ? c_string(v, group, false) : "NULL");
        set(v, o, "outputs", json_boolean(pp && pp->outputs));
        set(v, o, "synthetic", json_boolean(pp == NULL));
        sets(v, o, "name_str", c_string(v, v->pool_name[i], false));

        /* the comment table */
        size_t wname = strlen("buffer"), woff = strlen("offset"),
               wsize = strlen("size");
        json_t *rows = json_array();
        uint32_t cnt = 0;
        for (uint32_t s = 0; s < pl->nstorages; s++) {
            if (v->spool[s] != (int32_t)i)
                continue;
            const plan_storage *st = &pl->storages[s];
            size_t n = strlen(p->values[st->value].name);
            char tmp[32];
            size_t lo =
                (size_t)snprintf(tmp, sizeof tmp, "%" PRIu64, st->offset);
            size_t ls = (size_t)snprintf(tmp, sizeof tmp, "%" PRIu64, st->size);
            wname = n > wname ? n : wname;
            woff = lo > woff ? lo : woff;
            wsize = ls > wsize ? ls : wsize;
            cnt++;
        }
        sets(v, o, "table_header",
             vfmt(v, "%-*s %*s %*s  live (IR lines)", (int)wname, "buffer",
                  (int)woff, "offset", (int)wsize, "size"));
        json_t *bufs = json_array();
        for (uint32_t s = 0; s < pl->nstorages; s++) {
            if (v->spool[s] != (int32_t)i)
                continue;
            const plan_storage *st = &pl->storages[s];
            const char *nm = p->values[st->value].name;
            const char *live = live_text(v, st->start, st->end);
            json_t *r = json_object();
            sets(v, r, "row",
                 vfmt(v, "%-*s %*" PRIu64 " %*" PRIu64 "  %s", (int)wname, nm,
                      (int)woff, st->offset, (int)wsize, st->size, live));
            json_array_append_new(rows, r);
            json_t *b = json_object();
            sets(v, b, "name", nm);
            set(v, b, "offset", ju64(st->offset));
            set(v, b, "size", ju64(st->size));
            sets(v, b, "live", live);
            json_array_append_new(bufs, b);
        }
        set(v, o, "table", rows);
        set(v, o, "buffers", bufs);
        set(v, o, "nbuffers", json_integer(cnt));
        set(v, o, "last", json_boolean(i + 1 == v->npools));
        json_array_append_new(arr, o);
    }
    return arr;
}

static json_t *buffers_json(vw *v) {
    const plan *pl = v->pl;
    const ir_program *p = v->prog;
    json_t *arr = json_array();
    const char **psize = ir_arena_array(v->a, v->npools + 1, sizeof *psize);
    uint32_t n = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++)
        if (v->spool[s] >= 0)
            n++;
    uint32_t k = 0;
    for (uint32_t s = 0; s < pl->nstorages; s++) {
        if (v->spool[s] < 0)
            continue;
        const plan_storage *st = &pl->storages[s];
        const ir_value *iv = &p->values[st->value];
        int32_t pi = v->spool[s];
        json_t *o = json_object();
        sets(v, o, "name", iv->name);
        sets(v, o, "local", v->local[st->value]);
        sets(v, o, "dtype", ir_dtype_name(iv->dtype));
        sets(v, o, "ctype", ctype_of(iv->dtype));
        sets(v, o, "pool", v->pool_name[pi]);
        sets(v, o, "pool_local", v->pool_local[pi]);
        if (!psize[pi])
            psize[pi] = vfmt(v, "%s_POOL_%s_SIZE", v->M, v->pool_upper[pi]);
        sets(v, o, "pool_size_macro", psize[pi]);
        set(v, o, "offset", ju64(st->offset));
        set(v, o, "size", ju64(st->size));
        set(v, o, "align", ju64(v->salign[s]));
        sets(v, o, "offset_macro", v->off_macro[s]);
        sets(v, o, "size_macro", v->size_macro[s]);
        sets(v, o, "align_macro", v->align_macro[s]);
        sets(v, o, "assert_id", vfmt(v, "%s_buffer_%" PRIu32 "_fits", v->M, k));
        set(v, o, "start", json_integer(st->start));
        set(v, o, "end", json_integer(st->end));
        sets(v, o, "live", live_text(v, st->start, st->end));
        set(v, o, "is_output", json_boolean(st->is_output));
        set(v, o, "last", json_boolean(k + 1 == n));
        json_array_append_new(arr, o);
        k++;
    }
    return arr;
}

/* inputs, consts or outputs */
static json_t *io_json(vw *v, ir_stmt_kind kind, const char *macro_kind) {
    const ir_program *p = v->prog;
    json_t *arr = json_array();
    cg_nameset fields = {NULL}, stems = {NULL};
    if (kind == IR_OUTPUT) {
        if (p->output_stmt >= 0) {
            const ir_stmt *os = &p->stmts[p->output_stmt];
            for (uint32_t i = 0; i < os->nnames; i++) {
                int32_t val = output_value_at(v, i);
                const ir_value *iv = &p->values[val];
                json_t *o = json_object();
                sets(v, o, "name", iv->name);
                v->out_field[i] =
                    set_unique(v, &fields, field_base(v, iv->name));
                v->out_size_macro[i] =
                    vfmt(v, "%s_%s_%s_SIZE", v->M, macro_kind,
                         set_unique(v, &stems, upper(v, iv->name)));
                sets(v, o, "field", v->out_field[i]);
                sets(v, o, "ctype", ctype_of(iv->dtype));
                sets(v, o, "dtype", ir_dtype_name(iv->dtype));
                sets(v, o, "size_macro", v->out_size_macro[i]);
                set(v, o, "bytes", ju64(iv->bytes));
                set(v, o, "copied", json_boolean(v->out_copy[i]));
                set(v, o, "last", json_boolean(i + 1 == os->nnames));
                json_array_append_new(arr, o);
            }
        }
    } else {
        for (uint32_t i = 0; i < p->nstmts; i++) {
            const ir_stmt *s = &p->stmts[i];
            if (s->kind != kind || s->value < 0)
                continue;
            const ir_value *iv = &p->values[s->value];
            json_t *o = json_object();
            sets(v, o, "name", iv->name);
            v->io_field[s->value] =
                set_unique(v, &fields, field_base(v, iv->name));
            sets(v, o, "field", v->io_field[s->value]);
            sets(v, o, "ctype", ctype_of(iv->dtype));
            sets(v, o, "dtype", ir_dtype_name(iv->dtype));
            sets(v, o, "size_macro",
                 vfmt(v, "%s_%s_%s_SIZE", v->M, macro_kind,
                      set_unique(v, &stems, upper(v, iv->name))));
            set(v, o, "bytes", ju64(iv->bytes));
            json_array_append_new(arr, o);
        }
        size_t n = json_array_size(arr);
        for (size_t i = 0; i < n; i++)
            set(v, json_array_get(arr, i), "last", json_boolean(i + 1 == n));
    }
    set_clear(&fields);
    set_clear(&stems);
    return arr;
}

static json_t *kernels_json(vw *v) {
    const ir_program *p = v->prog;
    json_t *arr = json_array();
    for (uint32_t k = 0; k < p->nkernels; k++) {
        json_t *o = json_object();
        sets(v, o, "name", p->kernels[k].name);
        sets(v, o, "c_name", v->kname[k]);
        set(v, o, "renamed",
            json_boolean(strcmp(v->kname[k], p->kernels[k].name) != 0));
        set(v, o, "has_signature", json_boolean(p->kernels[k].sig_stmt >= 0));
        sets(v, o, "return", v->kernel_status ? "int" : "void");
        json_t *params = json_array();
        sbuf decl;
        sb_init(&decl);
        uint32_t n = v->knparams[k];
        for (uint32_t j = 0; j < n; j++) {
            json_t *q = json_object();
            sets(v, q, "ctype", v->kptype[k][j]);
            sets(v, q, "mode", ir_mode_name(param_mode(v, (int32_t)k, j)));
            set(v, q, "last", json_boolean(j + 1 == n));
            json_array_append_new(params, q);
            if (j)
                sb_put(&decl, ", ", 2);
            sb_put(&decl, v->kptype[k][j], strlen(v->kptype[k][j]));
        }
        set(v, o, "params", params);
        set(v, o, "nparams", json_integer(n));
        const char *ds = sb_done(v, &decl);
        sets(v, o, "params_decl", n ? ds : "void");
        sets(v, o, "params_decl_stream",
             cat(v, 3, ds, n ? ", " : "", "cudaStream_t"));
        set(v, o, "last", json_boolean(k + 1 == p->nkernels));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* ------------------------------------------------------------------ */
/* Statements and events. */

static const char *const cg_event_kinds[] = {
    "bind", "reuse", "alloc", "alloc_output", "alias",
    "call", "del",   "death", "output",       "wait",
};

/* An event: {kind: KIND, KIND: {fields}}.  The root of the view holds
 * KIND: false for every kind, so that a strict template may test any kind
 * inside any event (the lookup falls through to the root). */
static json_t *event(vw *v, const char *kind, json_t **body) {
    json_t *e = json_object();
    sets(v, e, "kind", kind);
    /* e holds the body (event kinds are always kept: cg_keep_internal) */
    *body = json_object();
    set_n(v, e, kind, strlen(kind), *body);
    return e;
}

/* Cross-stream ordering (CUDA).  Streams are numbered by bit: 0 is the
 * caller's stream, SLOT+1 a context stream.  Per storage (or per root
 * value for caller memory): the stream of the last write and the streams
 * that read since.  A call waits for the last writer on another stream
 * before reading, and for every other stream that touched the storage
 * since its last write before writing. */
typedef struct stream_state {
    int32_t *writer;   /* bit of the last writer, -1 = none */
    uint64_t *readers; /* bits of the streams that read since */
    uint32_t nevents;
    bool off; /* more streams than bits: no tracking (reported) */
} stream_state;

static uint32_t stream_slot(const vw *v, uint64_t st) {
    return base_lower_bound_u64(v->stream_ids, v->nstreams, st);
}

/* The CUDA stream of calls with stream=st (st < 0: the caller's). */
static const char *stream_expr(const vw *v, int64_t st) {
    if (st < 0)
        return v->p_stream;
    return vfmt(v, "%s->streams[%" PRIu32 "]", v->p_ctx,
                stream_slot(v, (uint64_t)st));
}

/* The key of a buffer's memory in stream_state: its storage, or for
 * caller memory its root value after the storages. */
static int32_t stream_key(const vw *v, int32_t val) {
    int32_t sid = v->pl->storage_of_value[val];
    if (sid >= 0)
        return sid;
    int32_t r = v->prog->values[val].root;
    return (int32_t)v->pl->nstorages + (r >= 0 ? r : val);
}

static json_t *call_event(vw *v, const ir_stmt *s, stream_state *ss,
                          json_t *events) {
    const ir_program *p = v->prog;
    int32_t k = v->kernel_of_stmt[s->index];
    json_t *b;
    json_t *e = event(v, "call", &b);
    sets(v, b, "kernel", s->name.name);
    sets(v, b, "c_name", k >= 0 ? v->kname[k] : s->name.name);
    set(v, b, "status", json_boolean(v->kernel_status));
    set(v, b, "has_stream", json_boolean(s->has_stream));
    set(v, b, "stream", s->has_stream ? ju64(s->stream) : json_null());
    int64_t my = s->has_stream ? (int64_t)s->stream : -1;
    const char *sx = stream_expr(v, my);
    sets(v, b, "stream_expr", sx);

    sbuf args;
    sb_init(&args);
    json_t *arr = json_array();
    bool want_args = keep_key(v, "args", 4);
    bool ok = k >= 0 && s->nargs == v->knparams[k];
    int32_t mybit = my < 0 ? 0 : (int32_t)stream_slot(v, (uint64_t)my) + 1;
    uint64_t need = 0;
    const char *why[64] = {NULL};
    for (uint32_t j = 0; j < s->nargs; j++) {
        const ir_arg *g = &s->args[j];
        json_t *q = want_args ? json_object() : NULL;
        const char *ex = g->text ? g->text : "";
        const char *ptype = ok ? v->kptype[k][j] : "";
        ir_mode m = param_mode(v, ok ? k : -1, j);
        if (g->kind == IR_ARG_BUFFER && g->value >= 0) {
            int32_t val = g->value;
            const ir_value *iv = &p->values[val];
            ex = v->local[val];
            if (ok && v->is_const[val] && !v->kconst[k][j])
                ex = vfmt(v, "(%s)%s", ptype, ex);
            sets(v, q, "kind", "buffer");
            sets(v, q, "buffer", iv->name);
            sets(v, q, "dtype", ir_dtype_name(iv->dtype));
            set(v, q, "bytes", ju64(iv->bytes));
            /* cross-stream ordering (CUDA): what this call waits for */
            int32_t key = stream_key(v, val);
            uint64_t before = need;
            if (!ss->off) {
                int32_t w = ss->writer[key];
                if (w >= 0 && w != mybit)
                    need |= (uint64_t)1 << w;
                if (m != IR_MODE_IN)
                    need |= ss->readers[key] & ~((uint64_t)1 << mybit);
            }
            for (uint32_t bit = 0; bit < 64; bit++)
                if (((need & ~before) >> bit) & 1)
                    why[bit] = iv->name;
        } else if (g->kind == IR_ARG_STRING) {
            ex = c_string(v, g->sval ? g->sval : "", false);
            sets(v, q, "kind", "string");
        } else if (g->kind == IR_ARG_INT) {
            sets(v, q, "kind", "int");
        } else {
            sets(v, q, "kind", "float");
        }
        sets(v, q, "expr", ex);
        sets(v, q, "ctype", ptype);
        sets(v, q, "mode",
             g->kind != IR_ARG_BUFFER ? "scalar" : ir_mode_name(m));
        set(v, q, "last", json_boolean(j + 1 == s->nargs));
        if (q)
            json_array_append_new(arr, q);
        if (j)
            sb_put(&args, ", ", 2);
        sb_put(&args, ex, strlen(ex));
    }
    /* one wait per stream this call depends on, in stream order */
    for (uint32_t bit = 0; bit < 64; bit++) {
        if (!((need >> bit) & 1))
            continue;
        json_t *wb;
        json_t *w = event(v, "wait", &wb);
        sets(v, wb, "event",
             vfmt(v, "%s->events[%" PRIu32 "]", v->p_ctx, ss->nevents));
        set(v, wb, "index", json_integer(ss->nevents));
        sets(v, wb, "from",
             stream_expr(v, bit == 0 ? -1 : (int64_t)v->stream_ids[bit - 1]));
        sets(v, wb, "to", sx);
        sets(v, wb, "buffer", why[bit]);
        json_array_append_new(events, w);
        ss->nevents++;
    }
    /* then the state after the call */
    for (uint32_t j = 0; j < s->nargs && !ss->off; j++) {
        const ir_arg *g = &s->args[j];
        if (g->kind != IR_ARG_BUFFER || g->value < 0)
            continue;
        ir_mode m = param_mode(v, ok ? k : -1, j);
        int32_t key = stream_key(v, g->value);
        if (m == IR_MODE_IN) {
            ss->readers[key] |= (uint64_t)1 << mybit;
        } else {
            ss->writer[key] = mybit;
            ss->readers[key] = 0;
        }
    }
    set(v, b, "args", arr);
    const char *cn = k >= 0 ? v->kname[k] : s->name.name;
    const char *as = sb_done(v, &args);
    sets(v, b, "expr", cat(v, 4, cn, "(", as, ")"));
    sets(v, b, "expr_stream",
         cat(v, 6, cn, "(", as, s->nargs ? ", " : "", sx, ")"));
    return e;
}

static void death_event(vw *v, json_t *events, int32_t s) {
    const plan_storage *st = &v->pl->storages[s];
    int32_t pi = v->spool[s];
    if (pi < 0)
        return;
    json_t *b;
    json_t *e = event(v, "death", &b);
    const char *nm = v->prog->values[st->value].name;
    sets(v, b, "name", nm);
    sets(v, b, "name_str", c_string(v, nm, false));
    sets(v, b, "pool_local", v->pool_local[pi]);
    sets(v, b, "offset_macro", v->off_macro[s]);
    sets(v, b, "size_macro", v->size_macro[s]);
    json_array_append_new(events, e);
}

static json_t *statements_json(vw *v) {
    const ir_program *p = v->prog;
    const plan *pl = v->pl;
    json_t *arr = json_array();
    stream_state ss = {NULL, NULL, 0, v->nstreams > 63};
    uint32_t nkeys = pl->nstorages + p->nvalues;
    ss.writer = ir_arena_array(v->a, nkeys + 1, sizeof(int32_t));
    ss.readers = ir_arena_array(v->a, nkeys + 1, sizeof(uint64_t));
    for (uint32_t i = 0; i < nkeys; i++)
        ss.writer[i] = -1;
    /* deaths by statement */
    int32_t *death_head = ir_arena_array(v->a, p->nstmts + 1, sizeof(int32_t));
    int32_t *death_next =
        ir_arena_array(v->a, pl->nstorages + 1, sizeof(int32_t));
    for (uint32_t i = 0; i < p->nstmts; i++)
        death_head[i] = -1;
    for (uint32_t s = pl->nstorages; s-- > 0;) {
        int32_t at = pl->storages[s].dies_at;
        death_next[s] = -1;
        if (at >= 0 && (uint32_t)at < p->nstmts) {
            death_next[s] = death_head[at];
            death_head[at] = (int32_t)s;
        }
    }
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        json_t *o = json_object();
        json_t *events = json_array();
        set(v, o, "index", json_integer(i));
        set(v, o, "line", json_integer(s->loc.line));
        const char *txt = stmt_text(v, s);
        set(v, o, "emit", json_boolean(txt != NULL));
        sets(v, o, "ir", txt ? txt : "");
        sets(v, o, "comment",
             txt ? vfmt(v, "/* line %" PRIu32 ": %s */", s->loc.line, txt)
                 : "");
        switch (s->kind) {
        case IR_INPUT:
        case IR_CONST: {
            if (s->value < 0)
                break;
            json_t *b;
            json_t *e = event(v, "bind", &b);
            sets(v, b, "name", p->values[s->value].name);
            sets(v, b, "local", v->local[s->value]);
            sets(v, b, "decl", decl_of(v, s->value));
            const char *field = v->io_field[s->value];
            sets(v, b, "expr",
                 vfmt(v, "%s->%s", s->kind == IR_INPUT ? v->p_in : v->p_c,
                      field));
            set(v, b, "unused", json_boolean(!v->used[s->value]));
            sets(v, b, "field", field);
            json_array_append_new(events, e);
            break;
        }
        case IR_ALLOC: {
            int32_t val = s->value;
            if (val < 0)
                break;
            int32_t sid = pl->storage_of_value[val];
            if (sid < 0)
                break;
            const plan_storage *st = &pl->storages[sid];
            if (v->spool[sid] < 0) {
                json_t *b;
                json_t *e = event(v, "alloc_output", &b);
                int32_t hv = v->home_value[sid];
                sets(v, b, "name", p->values[val].name);
                sets(v, b, "output", p->values[hv].name);
                sets(v, b, "local", v->local[val]);
                sets(v, b, "decl", decl_of(v, val));
                sets(v, b, "ptr_type", ptr_type(v, val));
                const char *field = v->out_field[v->home_pos[sid]];
                sets(v, b, "field", field);
                bool same = p->values[hv].dtype == p->values[val].dtype;
                set(v, b, "same_type", json_boolean(same));
                set(v, b, "unused", json_boolean(!v->used[val]));
                const char *ex = vfmt(v, "%s->%s", v->p_out, field);
                if (!same)
                    ex = vfmt(v, "(%s)(void *)%s", ptr_type(v, val), ex);
                sets(v, b, "expr", ex);
                json_array_append_new(events, e);
                break;
            }
            int32_t pi = v->spool[sid];
            if (st->reuse_of >= 0) {
                const plan_storage *old = &pl->storages[st->reuse_of];
                json_t *b;
                json_t *e = event(v, "reuse", &b);
                const char *nn = p->values[val].name;
                const char *on = p->values[old->value].name;
                sets(v, b, "new", nn);
                sets(v, b, "old", on);
                sets(v, b, "pool", v->pool_name[pi]);
                set(v, b, "offset", ju64(st->offset));
                sets(v, b, "comment",
                     vfmt(v,
                          "/* reuse: %s takes %s's bytes at "
                          "%s+%" PRIu64 " */",
                          nn, on, v->pool_name[pi], st->offset));
                json_array_append_new(events, e);
            }
            json_t *b;
            json_t *e = event(v, "alloc", &b);
            sets(v, b, "name", p->values[val].name);
            sets(v, b, "name_str", c_string(v, p->values[val].name, false));
            sets(v, b, "local", v->local[val]);
            sets(v, b, "decl", decl_of(v, val));
            sets(v, b, "ptr_type", ptr_type(v, val));
            sets(v, b, "pool", v->pool_name[pi]);
            sets(v, b, "pool_local", v->pool_local[pi]);
            sets(v, b, "offset_macro", v->off_macro[sid]);
            sets(v, b, "size_macro", v->size_macro[sid]);
            set(v, b, "offset", ju64(st->offset));
            set(v, b, "size", ju64(st->size));
            if (st->reuse_of >= 0) { /* its bytes' history */
                ss.writer[sid] = ss.writer[st->reuse_of];
                ss.readers[sid] = ss.readers[st->reuse_of];
            }
            set(v, b, "unused", json_boolean(!v->used[val]));
            json_array_append_new(events, e);
            break;
        }
        case IR_ALIAS: {
            int32_t val = s->value;
            if (val < 0)
                break;
            json_t *b;
            json_t *e = event(v, "alias", &b);
            sets(v, b, "new", s->name.name);
            sets(v, b, "old", s->old.name);
            sets(v, b, "comment",
                 cat(v, 5, "/* alias: ", s->name.name, " = ", s->old.name,
                     " */"));
            sets(v, b, "local", v->local[val]);
            sets(v, b, "decl", decl_of(v, val));
            sets(v, b, "expr", alias_expr(v, val));
            set(v, b, "unused", json_boolean(!v->used[val]));
            json_array_append_new(events, e);
            break;
        }
        case IR_CALL:
            json_array_append_new(events, call_event(v, s, &ss, events));
            break;
        case IR_FREE:
            for (uint32_t j = 0; j < s->nnames; j++) {
                json_t *b;
                json_t *e = event(v, "del", &b);
                sets(v, b, "name", s->names[j].name);
                sets(v, b, "comment",
                     cat(v, 3, "/* del ", s->names[j].name, " */"));
                json_array_append_new(events, e);
            }
            break;
        case IR_OUTPUT:
            for (uint32_t j = 0; j < s->nnames; j++) {
                int32_t val = output_value_at(v, j);
                json_t *b;
                json_t *e = event(v, "output", &b);
                sets(v, b, "name", s->names[j].name);
                sets(v, b, "src", v->local[val]);
                set(v, b, "copied", json_boolean(v->out_copy[j]));
                sets(v, b, "dst", vfmt(v, "%s->%s", v->p_out, v->out_field[j]));
                sets(v, b, "size_macro", v->out_size_macro[j]);
                json_array_append_new(events, e);
            }
            break;
        default:
            break;
        }
        for (int32_t d = death_head[i]; d >= 0; d = death_next[d])
            death_event(v, events, d);
        set(v, o, "events", events);
        json_array_append_new(arr, o);
    }
    v->nwaits = ss.nevents;
    return arr;
}

static void plan_outputs(vw *v) {
    const ir_program *p = v->prog;
    uint32_t n = p->output_stmt >= 0 ? p->stmts[p->output_stmt].nnames : 0;
    v->out_copy = ir_arena_array(v->a, n + 1, sizeof(bool));
    v->out_field = ir_arena_array(v->a, n + 1, sizeof(char *));
    v->out_size_macro = ir_arena_array(v->a, n + 1, sizeof(char *));
    for (uint32_t i = 0; i < n; i++) {
        int32_t val = output_value_at(v, i);
        int32_t s = v->pl->storage_of_value[val];
        v->out_copy[i] = !(s >= 0 && v->home_value[s] == val);
        v->used[val] = v->used[val] || v->out_copy[i];
    }
}

/* Distinct stream numbers of the calls, ascending. */
static void view_streams(vw *v) {
    const ir_program *p = v->prog;
    uint64_t *ids = ir_arena_array(v->a, p->nstmts + 1, sizeof(uint64_t));
    uint32_t n = 0;
    for (uint32_t i = 0; i < p->nstmts; i++) {
        const ir_stmt *s = &p->stmts[i];
        if (s->kind != IR_CALL || !s->has_stream)
            continue;
        bool seen = false;
        for (uint32_t j = 0; j < n && !seen; j++)
            seen = ids[j] == s->stream;
        if (!seen) {
            uint32_t j = n++;
            while (j > 0 && ids[j - 1] > s->stream) {
                ids[j] = ids[j - 1];
                j--;
            }
            ids[j] = s->stream;
        }
    }
    v->stream_ids = ids;
    v->nstreams = n;
}

static json_t *streams_json(vw *v) {
    const uint64_t *ids = v->stream_ids;
    uint32_t n = v->nstreams;
    json_t *arr = json_array();
    for (uint32_t j = 0; j < n; j++) {
        json_t *o = json_object();
        set(v, o, "index", ju64(ids[j]));
        set(v, o, "slot", json_integer(j));
        sets(v, o, "expr", stream_expr(v, (int64_t)ids[j]));
        set(v, o, "event_index", json_integer(j));
        set(v, o, "last", json_boolean(j + 1 == n));
        json_array_append_new(arr, o);
    }
    return arr;
}

/* ------------------------------------------------------------------ */

json_t *cg_build_view_opts(const plan *pl, cg_target target,
                           const cg_view_options *o, ir_diag *d) {
    if (!pl || !pl->prog)
        return NULL;
    bool cuda = target == CG_TARGET_CUDA;
    vw v;
    memset(&v, 0, sizeof v);
    v.pl = pl;
    v.prog = pl->prog;
    v.a = ir_arena_new();
    v.cuda = cuda;
    v.kernel_status = o && o->kernel_status;
    v.keep = o ? o->keep : NULL;
    v.d = d;
    v.M = v.prog->model ? v.prog->model : "model";
    v.stmt_txt = ir_arena_array(v.a, v.prog->nstmts + 1, sizeof *v.stmt_txt);
    v.stmt_txt_done =
        ir_arena_array(v.a, v.prog->nstmts + 1, sizeof *v.stmt_txt_done);
    v.ptr_memo = ir_arena_array(v.a, v.prog->nvalues + 1, sizeof *v.ptr_memo);
    v.decl_memo = ir_arena_array(v.a, v.prog->nvalues + 1, sizeof *v.decl_memo);
    v.io_field = ir_arena_array(v.a, v.prog->nvalues + 1, sizeof *v.io_field);

    name_kernels(&v);
    name_fixed(&v);
    plan_pools(&v);
    plan_kernels(&v);
    plan_values(&v);
    plan_outputs(&v);
    view_streams(&v);
    if (cuda && v.nstreams > 63) {
        ir_loc none = {0, 0};
        verror(&v, none, "more than 63 distinct stream= numbers");
    }
    json_t *root = NULL;
    if (v.errors == 0) {
        const char *M = v.M;
        root = json_object();
        sets(&v, root, "planwrap_version", PLANWRAP_VERSION);
        sets(&v, root, "target", cg_target_name(target));
        sets(&v, root, "model", M);
        sets(&v, root, "model_upper", upper(&v, M));
        json_t *src = json_string(base_name(v.prog->filename));
        set(&v, root, "source", src ? src : jstr("input")); /* not UTF-8 */
        sets(&v, root, "input_hash", input_hash(&v));
        sets(&v, root, "algo", plan_algo_name(pl->opts.algo));
        sets(&v, root, "memory_pool",
             plan_memory_pool_name(pl->opts.memory_pool));
        set(&v, root, "kernel_status", json_boolean(v.kernel_status));
        sets(&v, root, "kernel_return", v.kernel_status ? "int" : "void");
        sets(&v, root, "header", vfmt(&v, "%s.h", M));
        sets(&v, root, "kernels_header", vfmt(&v, "%s_kernels.h", M));
        sets(&v, root, "source_file", vfmt(&v, "%s.%s", M, cuda ? "cu" : "c"));

        json_t *names = json_object();
        sets(&v, names, "inputs_t", vfmt(&v, "%s_inputs", M));
        sets(&v, names, "consts_t", vfmt(&v, "%s_consts", M));
        sets(&v, names, "outputs_t", vfmt(&v, "%s_outputs", M));
        sets(&v, names, "pools_t", vfmt(&v, "%s_pools", M));
        sets(&v, names, "ctx_t", vfmt(&v, "%s_ctx", M));
        sets(&v, names, "run", vfmt(&v, "%s_run", M));
        sets(&v, names, "run_static", vfmt(&v, "%s_run_static", M));
        sets(&v, names, "init", vfmt(&v, "%s_init", M));
        sets(&v, names, "fini", vfmt(&v, "%s_fini", M));
        sets(&v, names, "no_static_macro", vfmt(&v, "%s_NO_STATIC_POOLS", M));
        sets(&v, names, "assert_macro", vfmt(&v, "%s_STATIC_ASSERT", M));
        sets(&v, names, "header_guard",
             vfmt(&v, "PLANWRAP_%s_H", upper(&v, M)));
        sets(&v, names, "kernels_guard",
             vfmt(&v, "PLANWRAP_%s_KERNELS_H", upper(&v, M)));
        sets(&v, names, "check_macro", v.check_macro);
        sets(&v, names, "copy_fn", v.copy_fn);
        sets(&v, names, "in", v.p_in);
        sets(&v, names, "c", v.p_c);
        sets(&v, names, "out", v.p_out);
        sets(&v, names, "p", v.p_p);
        sets(&v, names, "ctx", v.p_ctx);
        sets(&v, names, "stream", v.p_stream);
        sets(&v, names, "rc", v.rc);
        sets(&v, names, "pools_var", v.pools_var);
        sets(&v, names, "end_label", "end");
        set(&v, root, "names", names);

        json_t *pools = pools_json(&v);
        json_t *inputs = io_json(&v, IR_INPUT, "INPUT");
        json_t *consts = io_json(&v, IR_CONST, "CONST");
        json_t *outputs = io_json(&v, IR_OUTPUT, "OUTPUT");
        json_t *stmts = statements_json(&v);
        bool any_copy = false;
        for (size_t i = 0; i < json_array_size(outputs); i++)
            any_copy = any_copy || v.out_copy[i];
        set(&v, root, "has_pools", json_boolean(json_array_size(pools) > 0));
        set(&v, root, "has_inputs", json_boolean(json_array_size(inputs) > 0));
        set(&v, root, "has_consts", json_boolean(json_array_size(consts) > 0));
        set(&v, root, "has_outputs",
            json_boolean(json_array_size(outputs) > 0));
        set(&v, root, "has_copies", json_boolean(any_copy));
        set(&v, root, "pools", pools);
        set(&v, root, "buffers", buffers_json(&v));
        set(&v, root, "inputs", inputs);
        set(&v, root, "consts", consts);
        set(&v, root, "outputs", outputs);
        set(&v, root, "kernels", kernels_json(&v));
        json_t *streams = streams_json(&v);
        set(&v, root, "has_streams",
            json_boolean(json_array_size(streams) > 0));
        set(&v, root, "streams", streams);
        set(&v, root, "nstreams", json_integer(v.nstreams));
        /* events of the cross-stream waits */
        uint32_t nev = v.nwaits; /* one wait event per CUDA event */
        set(&v, root, "nevents", json_integer(nev));
        set(&v, root, "has_events", json_boolean(nev > 0));
        for (size_t i = 0; i < sizeof cg_event_kinds / sizeof cg_event_kinds[0];
             i++)
            set_n(&v, root, cg_event_kinds[i], strlen(cg_event_kinds[i]),
                  json_false());
        set(&v, root, "statements", stmts);
    }
    set_clear(&v.ids);
    HASH_CLEAR(hh, v.keep_memo);
    ir_arena_free(v.a);
    return root;
}

json_t *cg_build_view(const plan *pl, cg_target target) {
    return cg_build_view_opts(pl, target, NULL, NULL);
}

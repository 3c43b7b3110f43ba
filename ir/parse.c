/*
 * ir/parse.c - lexer and recursive-descent parser for IR v1.
 *
 * The input is processed one line at a time: a line is first validated
 * (no NUL byte, valid UTF-8 everywhere, comments and strings included),
 * then lexed on demand with one token of lookahead and parsed.  The first
 * error of a line is reported and the rest of the line is skipped, so every
 * line with an error gets exactly one diagnostic and parsing recovers at
 * the next line.  Each parse function names its rule of the grammar in
 * docs/ir.md.  Every token records its line and column (1-based, bytes).
 *
 * A line with an error is not lost for the checker (ir_parse_recover, used
 * by ir_load): once its keyword was read it becomes a statement marked
 * `broken`, with the fields parsed before the error (its name, above all);
 * a line whose keyword could not be read is recorded as "unread" (its
 * position among the statements).  A line with an invalid byte is parsed
 * up to that byte, further errors muted.  ir_parse itself still returns
 * NULL after any syntax error.
 */
#include "intern.h"
#include "ir/ir.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#define IR_NAME_MAX 255

/* ------------------------------------------------------------------ */
/* Small helpers shared with the rest of the module. */

static const char *const ir_dtype_names[] = {
    "f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool"};
static const unsigned ir_dtype_sizes[] = {8, 4, 2, 2, 8, 4, 2, 1, 1, 1};

_Static_assert(sizeof ir_dtype_names / sizeof ir_dtype_names[0] ==
                   IR_DTYPE_COUNT,
               "a name per ir_dtype");
_Static_assert(sizeof ir_dtype_sizes / sizeof ir_dtype_sizes[0] ==
                   IR_DTYPE_COUNT,
               "a size per ir_dtype");
/* ir/ir.h claims 160 bytes per statement (64-bit targets). */
_Static_assert(sizeof(void *) < 8 || sizeof(ir_stmt) <= 160,
               "ir_stmt stays small: one per line of input");
_Static_assert(sizeof(void *) < 8 || sizeof(ir_arg) <= 32,
               "ir_arg stays small: several per call");

unsigned ir_dtype_size(ir_dtype t) {
    return (unsigned)t < IR_DTYPE_COUNT ? ir_dtype_sizes[t] : 0;
}

const char *ir_dtype_name(ir_dtype t) {
    return (unsigned)t < IR_DTYPE_COUNT ? ir_dtype_names[t] : "?";
}

static const char *const ir_mode_names[] = {"in", "out", "inout", "scalar"};
_Static_assert(sizeof ir_mode_names / sizeof ir_mode_names[0] ==
                   IR_MODE_SCALAR + 1,
               "a name per ir_mode");

static const char *const ir_stmt_keywords[] = {
    "model", "device", "space", "kernel", "input",  "const",
    "alloc", "alias",  "call",  "free",   "output", "state",
};
_Static_assert(sizeof ir_stmt_keywords / sizeof ir_stmt_keywords[0] ==
                   IR_STATE + 1,
               "a keyword per ir_stmt_kind");

const char *ir_stmt_keyword(ir_stmt_kind k) {
    return (unsigned)k <= IR_STATE ? ir_stmt_keywords[k] : "?";
}

const char *ir_mode_name(ir_mode m) {
    return (unsigned)m <= IR_MODE_SCALAR ? ir_mode_names[m] : "?";
}

const char *ir_device_str(ir_device d, char *buf, size_t size) {
    if (d.kind == IR_DEV_CUDA)
        snprintf(buf, size, "cuda:%u", (unsigned)d.index);
    else
        snprintf(buf, size, "cpu");
    return buf;
}

/* ------------------------------------------------------------------ */
/* Tokens. */

typedef enum ir_tok_kind {
    TK_EOL,
    TK_IDENT,
    TK_INT,
    TK_FLOAT,
    TK_STRING,
    TK_LPAREN,
    TK_RPAREN,
    TK_LBRACK,
    TK_RBRACK,
    TK_COMMA,
    TK_EQ,
    TK_COLON,
    TK_ERROR,
} ir_tok_kind;

typedef struct ir_token {
    ir_tok_kind kind;
    const char *s; /* spelling */
    size_t len;
    uint32_t col;
    bool neg;      /* TK_INT/TK_FLOAT with a leading '-' */
    uint64_t ival; /* TK_INT: magnitude (<= INT64_MAX) */
    double fval;   /* TK_FLOAT */
    size_t sbeg;   /* TK_STRING: decoded text in the scratch buffer */
    size_t slen;
} ir_token;

/* The candidate closest to token t (ir_closest), or NULL. */
static const char *ir_suggest(const ir_token *t, const char *const *cands,
                              size_t n) {
    size_t i = base_closest(t->s, t->len, cands, n);
    return i == SIZE_MAX ? NULL : cands[i];
}

typedef struct ir_parser {
    ir_arena *a;
    ir_diag *d;
    const char *line; /* current line, without its line ending */
    size_t len;
    uint32_t lineno;
    size_t pos;
    ir_token tok;
    ir_token ahead;
    bool has_ahead;
    bool failed; /* the current line had an error */
    unsigned errors;

    ir_stmt *stmts;
    uint32_t nstmts;
    uint32_t maxstmts;

    /* scratch vectors, reused across lines */
    char *sbuf;
    size_t slen, scap;
    uint64_t *nums;
    size_t nnums, cnums;
    ir_intern_table names;
    ir_comment *comments;
    size_t ncomments, ccomments;
    uint32_t *unread; /* ir_program.unread */
    size_t nunread, cunread;
    bool seen_content; /* a statement or comment line so far */
    bool last_blank;   /* the previous line was blank */
    /* The names seen last, by hash: names are mostly used a few lines
     * after their definition, so most lookups stop here. */
    ir_name_rec *recent[1024];
} ir_parser;

static void *ir_xrealloc(void *p, size_t n) {
    void *q = realloc(p, n ? n : 1);
    if (!q)
        base_oom();
    return q;
}

/* Reports an error at column `col` of the current line, once per line. */
static void ir_perr(ir_parser *P, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ir_perr(ir_parser *P, uint32_t col, const char *fmt, ...) {
    if (P->failed)
        return;
    P->failed = true;
    P->errors++;
    va_list ap;
    va_start(ap, fmt);
    ir_diag_vreport(P->d, IR_SEV_ERROR, P->lineno, col, fmt, ap);
    va_end(ap);
}

static bool ir_is_digit(int c) {
    return c >= '0' && c <= '9';
}

static bool ir_is_id_start(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool ir_is_id_char(int c) {
    return ir_is_id_start(c) || ir_is_digit(c);
}

/* Describes a token for "expected X but found Y" messages. */
static const char *ir_tok_desc(const ir_token *t, char *buf, size_t size) {
    switch (t->kind) {
    case TK_EOL:
        return "end of line";
    case TK_STRING:
        return "a string";
    case TK_ERROR:
        return "an invalid token";
    default:
        break;
    }
    if (t->len > 32)
        snprintf(buf, size, "'%.32s...'", t->s);
    else
        snprintf(buf, size, "'%.*s'", (int)t->len, t->s);
    return buf;
}

/* Appends a byte to the string scratch buffer. */
static void ir_sbuf_put(ir_parser *P, char c) {
    if (P->slen == P->scap) {
        P->scap = P->scap ? P->scap * 2 : 256;
        P->sbuf = ir_xrealloc(P->sbuf, P->scap);
    }
    P->sbuf[P->slen++] = c;
}

static void ir_nums_put(ir_parser *P, uint64_t v) {
    if (P->nnums == P->cnums) {
        P->cnums = P->cnums ? P->cnums * 2 : 16;
        P->nums = ir_xrealloc(P->nums, P->cnums * sizeof *P->nums);
    }
    P->nums[P->nnums++] = v;
}

/* number = [ "-" ] ( INT | FLOAT ) ; C syntax for floats. */
/* Whether a float literal's mantissa (before any exponent) has a non-zero
 * digit: such a literal that reads as 0 underflowed (1e-400). */
static bool ir_float_nonzero(const char *s, size_t n) {
    for (size_t i = 0; i < n && s[i] != 'e' && s[i] != 'E'; i++)
        if (s[i] >= '1' && s[i] <= '9')
            return true;
    return false;
}

static void ir_lex_number(ir_parser *P, ir_token *t) {
    const char *s = P->line;
    size_t i = P->pos, n = P->len;
    if (s[i] == '-') {
        t->neg = true;
        i++;
    }
    size_t ds = i;
    while (i < n && ir_is_digit((unsigned char)s[i]))
        i++;
    bool is_float = false;
    if (i < n && s[i] == '.') {
        is_float = true;
        i++;
        while (i < n && ir_is_digit((unsigned char)s[i]))
            i++;
    }
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = i + 1;
        if (e < n && (s[e] == '+' || s[e] == '-'))
            e++;
        if (e < n && ir_is_digit((unsigned char)s[e])) {
            is_float = true;
            i = e;
            while (i < n && ir_is_digit((unsigned char)s[i]))
                i++;
        }
    }
    t->len = i - P->pos;
    if (i < n && (ir_is_id_char((unsigned char)s[i]) || s[i] == '.')) {
        size_t j = i;
        while (j < n && (ir_is_id_char((unsigned char)s[j]) || s[j] == '.'))
            j++;
        t->len = j - P->pos;
        t->kind = TK_INT;
        char buf[64];
        ir_perr(P, t->col, "invalid number %s",
                ir_tok_desc(t, buf, sizeof buf));
        t->kind = TK_ERROR;
        return;
    }
    P->pos = i;
    if (!is_float) {
        uint64_t v = 0;
        for (size_t k = ds; k < i; k++) {
            unsigned dg = (unsigned)(s[k] - '0');
            if (v > ((uint64_t)INT64_MAX - dg) / 10) {
                ir_perr(P, t->col,
                        "integer literal too large (integers must fit in 63 "
                        "bits, at most 9223372036854775807)");
                t->kind = TK_ERROR;
                return;
            }
            v = v * 10 + dg;
        }
        t->kind = TK_INT;
        t->ival = v;
        return;
    }
    char small[64];
    char *buf = t->len < sizeof small ? small : ir_xrealloc(NULL, t->len + 1);
    memcpy(buf, t->s, t->len);
    buf[t->len] = '\0';
    double v = strtod(buf, NULL);
    if (buf != small)
        free(buf);
    if (isinf(v) || (v == 0 && ir_float_nonzero(t->s, t->len))) {
        ir_perr(P, t->col, "float literal out of range%s",
                isinf(v) ? "" : " (too small: it would read as 0)");
        t->kind = TK_ERROR;
        return;
    }
    t->kind = TK_FLOAT;
    t->fval = v;
}

enum { IR_MAX_STRING = 4095 };

static int ir_hex_digit(char c) {
    return c >= '0' && c <= '9'   ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

/* The byte of "HH" after "\x" (n bytes available): a control character
 * 0x01-0x1f or 0x7f, else -1. */
static int ir_hex_escape(const char *h, size_t n) {
    if (n < 2 || ir_hex_digit(h[0]) < 0 || ir_hex_digit(h[1]) < 0)
        return -1;
    int x = ir_hex_digit(h[0]) * 16 + ir_hex_digit(h[1]);
    return (x >= 1 && x < 0x20) || x == 0x7f ? x : -1;
}

/* STRING = '"' { char | '\\' ( '\\' | '"' | 'n' | 't' | 'x' HEX HEX ) } '"' ;
 * (\xHH only for the control characters 0x01-0x1f and 0x7f) */
static void ir_lex_string(ir_parser *P, ir_token *t) {
    const char *s = P->line;
    size_t i = P->pos + 1, n = P->len;
    P->slen = 0;
    for (;;) {
        if (i >= n) {
            ir_perr(P, t->col, "unterminated string");
            t->kind = TK_ERROR;
            return;
        }
        char c = s[i];
        if (c == '"')
            break;
        if (c == '\\') {
            char e = i + 1 < n ? s[i + 1] : '\0';
            char out = e == '\\'  ? '\\'
                       : e == '"' ? '"'
                       : e == 'n' ? '\n'
                       : e == 't' ? '\t'
                                  : '\0';
            if (e == 'x') {
                int x = ir_hex_escape(s + i + 2, n - (i + 2));
                if (x < 0) {
                    ir_perr(P, (uint32_t)(i + 1),
                            "'\\x' takes two hex digits naming a control "
                            "character (\\x01 to \\x1f, or \\x7f)");
                    t->kind = TK_ERROR;
                    return;
                }
                ir_sbuf_put(P, (char)x);
                i += 4;
                continue;
            }
            if (!out) {
                if (i + 1 >= n)
                    ir_perr(P, t->col, "unterminated string");
                else if ((unsigned char)e >= 0x20 && (unsigned char)e < 0x7F)
                    ir_perr(P, (uint32_t)(i + 1),
                            "unknown escape sequence '\\%c' in string "
                            "(expected \\\\, \\\", \\n, \\t or \\xHH)",
                            e);
                else
                    ir_perr(P, (uint32_t)(i + 1),
                            "unknown escape sequence in string (expected "
                            "\\\\, \\\", \\n, \\t or \\xHH)");
                t->kind = TK_ERROR;
                return;
            }
            ir_sbuf_put(P, out);
            i += 2;
            continue;
        }
        ir_sbuf_put(P, c);
        i++;
    }
    if (P->slen > IR_MAX_STRING) {
        /* C compilers need accept no longer string literal (C11 5.2.4.1) */
        ir_perr(P, t->col,
                "string too long (%zu bytes, at most %d: the generated C "
                "must compile with every C compiler)",
                P->slen, IR_MAX_STRING);
        t->kind = TK_ERROR;
        P->pos = i + 1;
        return;
    }
    t->kind = TK_STRING;
    t->sbeg = 0;
    t->slen = P->slen;
    t->len = i + 1 - P->pos;
    P->pos = i + 1;
}

/* Lexes the next token of the current line into *t. */
static void ir_lex(ir_parser *P, ir_token *t) {
    const char *s = P->line;
    size_t n = P->len;
    while (P->pos < n && (s[P->pos] == ' ' || s[P->pos] == '\t'))
        P->pos++;
    memset(t, 0, sizeof *t);
    t->col = (uint32_t)(P->pos + 1);
    t->s = s + P->pos;
    if (P->pos >= n || s[P->pos] == '#') {
        t->kind = TK_EOL;
        return;
    }
    unsigned char c = (unsigned char)s[P->pos];
    if (ir_is_id_start(c)) {
        size_t i = P->pos;
        while (i < n && ir_is_id_char((unsigned char)s[i]))
            i++;
        if (i < n && (unsigned char)s[i] >= 0x80) {
            /* `dévice`: point at the character, not at a word `d` */
            unsigned cp = 0;
            base_utf8_decode((const unsigned char *)s + i, n - i, &cp);
            ir_perr(P, (uint32_t)(i + 1),
                    "unexpected character U+%04X in a name", cp);
            t->kind = TK_ERROR;
            t->len = i - P->pos;
            P->pos = i;
            return;
        }
        t->kind = TK_IDENT;
        t->len = i - P->pos;
        P->pos = i;
        return;
    }
    if (ir_is_digit(c) ||
        ((c == '-' || c == '.') && P->pos + 1 < n &&
         (ir_is_digit((unsigned char)s[P->pos + 1]) ||
          (c == '-' && s[P->pos + 1] == '.' && P->pos + 2 < n &&
           ir_is_digit((unsigned char)s[P->pos + 2]))))) {
        ir_lex_number(P, t);
        return;
    }
    if (c == '"') {
        ir_lex_string(P, t);
        return;
    }
    static const char punct[] = "()[],=:";
    const char *pp = strchr(punct, c);
    if (c && pp) {
        t->kind = (ir_tok_kind)(TK_LPAREN + (pp - punct));
        t->len = 1;
        P->pos++;
        return;
    }
    t->kind = TK_ERROR;
    t->len = 1;
    if (c >= 0x80) {
        unsigned cp = 0;
        base_utf8_decode((const unsigned char *)s + P->pos, n - P->pos, &cp);
        ir_perr(P, t->col, "unexpected character U+%04X", cp);
    } else if (c >= 0x20 && c < 0x7F) {
        ir_perr(P, t->col, "unexpected character '%c'", c);
    } else {
        ir_perr(P, t->col, "unexpected control character 0x%02X", c);
    }
}

/* Advances to the next token. */
static void ir_next(ir_parser *P) {
    if (P->has_ahead) {
        P->tok = P->ahead;
        P->has_ahead = false;
        return;
    }
    ir_lex(P, &P->tok);
}

/* The token after the current one, without consuming it. */
static const ir_token *ir_peek(ir_parser *P) {
    if (!P->has_ahead) {
        ir_lex(P, &P->ahead);
        P->has_ahead = true;
    }
    return &P->ahead;
}

static bool ir_tok_is(const ir_token *t, const char *word) {
    return t->kind == TK_IDENT && t->s[0] == word[0] &&
           strlen(word) == t->len && memcmp(t->s, word, t->len) == 0;
}

static ir_loc ir_tok_loc(const ir_parser *P, const ir_token *t) {
    ir_loc l = {P->lineno, t->col};
    return l;
}

/* Reports "expected WHAT but found TOKEN" (or a more precise message for
 * errors the lexer already reported). */
static bool ir_expected(ir_parser *P, const char *what) {
    char buf[64];
    if (P->tok.kind != TK_ERROR)
        ir_perr(P, P->tok.col, "expected %s but found %s", what,
                ir_tok_desc(&P->tok, buf, sizeof buf));
    return false;
}

static bool ir_expect(ir_parser *P, ir_tok_kind k, const char *what) {
    if (P->tok.kind != k)
        return ir_expected(P, what);
    ir_next(P);
    return true;
}

static const char *const ir_c_keywords[] = {
    "auto",       "break",     "case",           "char",
    "const",      "continue",  "default",        "do",
    "double",     "else",      "enum",           "extern",
    "float",      "for",       "goto",           "if",
    "inline",     "int",       "long",           "register",
    "restrict",   "return",    "short",          "signed",
    "sizeof",     "static",    "struct",         "switch",
    "typedef",    "union",     "unsigned",       "void",
    "volatile",   "while",     "_Alignas",       "_Alignof",
    "_Atomic",    "_Bool",     "_Complex",       "_Generic",
    "_Imaginary", "_Noreturn", "_Static_assert", "_Thread_local",
};

static bool ir_is_c_keyword_n(const char *s, size_t n) {
    /* C11 keywords are 2 to 14 bytes and start with a lowercase letter
     * or '_': most names are rejected without a comparison. */
    if (n < 2 || n > 14 || !((s[0] >= 'a' && s[0] <= 'w') || s[0] == '_'))
        return false;
    for (size_t i = 0; i < sizeof ir_c_keywords / sizeof ir_c_keywords[0]; i++)
        if (ir_c_keywords[i][0] == s[0] && strlen(ir_c_keywords[i]) == n &&
            memcmp(ir_c_keywords[i], s, n) == 0)
            return true;
    return false;
}

bool ir_is_c_keyword(const char *name) {
    return ir_is_c_keyword_n(name, strlen(name));
}

/* NAME = ( letter | "_" ) { letter | digit | "_" } ;
 * at most 255 bytes, not a C keyword. */
static bool ir_parse_name(ir_parser *P, ir_ident *out, const char *what) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_IDENT)
        return ir_expected(P, what);
    if (t->len > IR_NAME_MAX) {
        ir_perr(P, t->col,
                "name '%.32s...' is too long (%zu bytes, at most %d)", t->s,
                t->len, IR_NAME_MAX);
        return false;
    }
    if (ir_is_c_keyword_n(t->s, t->len)) {
        ir_perr(P, t->col, "'%.*s' is a C keyword and cannot be used as a name",
                (int)t->len, t->s);
        return false;
    }
    uint32_t h = ir_name_hash(t->s, t->len);
    ir_name_rec **slot = &P->recent[h & 1023u];
    ir_name_rec *r = *slot;
    if (r && r->hash == h && r->len == t->len &&
        memcmp(r->name, t->s, t->len) == 0) {
        out->name = r->name;
    } else {
        out->name = ir_intern_hashed(P->a, &P->names, t->s, t->len, h);
        *slot = ir_name_rec_of(out->name);
    }
    out->loc = ir_tok_loc(P, t);
    ir_next(P);
    return true;
}

/* INT = digit { digit } ;  non-negative, at most 63 bits (the lexer checks
 * the range); `what` names the value in messages. */
static bool ir_parse_uint(ir_parser *P, uint64_t *out, const char *what) {
    const ir_token *t = &P->tok;
    if (t->kind == TK_INT && t->neg) {
        ir_perr(P, t->col, "%s must not be negative", what);
        return false;
    }
    if (t->kind == TK_FLOAT) {
        ir_perr(P, t->col, "%s must be an integer", what);
        return false;
    }
    if (t->kind != TK_INT) {
        char buf[80];
        snprintf(buf, sizeof buf, "an integer (%s)", what);
        return ir_expected(P, buf);
    }
    *out = t->ival;
    ir_next(P);
    return true;
}

/* Reports the end of the line inside a list opened at column `open` and
 * closed by `close` (TK_RPAREN or TK_RBRACK). */
static bool ir_unclosed(ir_parser *P, ir_tok_kind close, uint32_t open) {
    bool paren = close == TK_RPAREN;
    ir_perr(P, P->tok.col, "missing '%c' to close '%c' at column %u",
            paren ? ')' : ']', paren ? '(' : '[', (unsigned)open);
    return false;
}

/* The token after an element of a list opened at column `open` and closed
 * by `close`: consumes a ',' (returns 1, more elements follow) or the
 * closing token (returns 0); anything else is an error (returns -1). */
static int ir_list_sep(ir_parser *P, ir_tok_kind close, uint32_t open) {
    ir_tok_kind k = P->tok.kind;
    if (k == TK_COMMA || k == close) {
        ir_next(P);
        return k == TK_COMMA;
    }
    if (k == TK_EOL)
        ir_unclosed(P, close, open);
    else
        ir_expected(P, close == TK_RPAREN ? "',' or ')'" : "',' or ']'");
    return -1;
}

/* int_list = "[" [ INT { "," INT } ] "]" ;
 * Leaves the numbers in P->nums.  `what` names one element. */
static bool ir_parse_int_list(ir_parser *P, const char *what) {
    P->nnums = 0;
    uint32_t open = P->tok.col;
    if (!ir_expect(P, TK_LBRACK, "'['"))
        return false;
    if (P->tok.kind == TK_RBRACK) {
        ir_next(P);
        return true;
    }
    for (;;) {
        if (P->tok.kind == TK_COMMA || P->tok.kind == TK_RBRACK) {
            ir_perr(P, P->tok.col, "empty %s", what);
            return false;
        }
        if (P->tok.kind == TK_EOL)
            return ir_unclosed(P, TK_RBRACK, open);
        uint64_t v;
        if (!ir_parse_uint(P, &v, what))
            return false;
        ir_nums_put(P, v);
        int sep = ir_list_sep(P, TK_RBRACK, open);
        if (sep <= 0)
            return sep == 0;
    }
}

static uint64_t *ir_copy_nums(ir_parser *P) {
    uint64_t *v = ir_arena_array(P->a, P->nnums, sizeof *v);
    if (P->nnums)
        memcpy(v, P->nums, P->nnums * sizeof *v);
    return v;
}

/* type = DTYPE "[" [ dim { "," dim } ] "]" ;
 * DTYPE = "f64" | "f32" | "f16" | "bf16" | "i64" | "i32" | "i16" | "i8"
 *       | "u8" | "bool" ; */
static bool ir_parse_type(ir_parser *P, ir_type *ty) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_IDENT)
        return ir_expected(P, "a type such as f32[4,4]");
    int found = -1;
    for (int i = 0; i < IR_DTYPE_COUNT; i++)
        if (ir_tok_is(t, ir_dtype_names[i]))
            found = i;
    if (found < 0) {
        const char *dym = ir_suggest(t, ir_dtype_names, IR_DTYPE_COUNT);
        if (dym)
            ir_perr(P, t->col, "unknown dtype '%.*s'; did you mean '%s'?",
                    t->len > 32 ? 32 : (int)t->len, t->s, dym);
        else
            ir_perr(P, t->col,
                    "unknown dtype '%.*s' (expected f64, f32, f16, bf16, "
                    "i64, i32, i16, i8, u8 or bool)",
                    t->len > 32 ? 32 : (int)t->len, t->s);
        return false;
    }
    ty->dtype = (ir_dtype)found;
    ty->loc = ir_tok_loc(P, t);
    ir_next(P);
    if (P->tok.kind != TK_LBRACK)
        return ir_expected(P, "'[' after the dtype");
    if (!ir_parse_int_list(P, "dimension"))
        return false;
    ty->ndim = (uint32_t)P->nnums;
    ty->dims = ir_copy_nums(P);
    return true;
}

/* DEVICE = "cpu" | "cuda" ":" INT ; */
static bool ir_parse_device(ir_parser *P, ir_device *dev, ir_loc *loc) {
    const ir_token *t = &P->tok;
    *loc = ir_tok_loc(P, t);
    if (ir_tok_is(t, "cpu")) {
        dev->kind = IR_DEV_CPU;
        dev->index = 0;
        ir_next(P);
        return true;
    }
    if (ir_tok_is(t, "cuda") && ir_peek(P)->kind == TK_COLON) {
        ir_next(P);
        ir_next(P);
        uint64_t v;
        if (!ir_parse_uint(P, &v, "CUDA device number"))
            return false;
        if (v > UINT32_MAX) {
            ir_perr(P, loc->col, "CUDA device number too large");
            return false;
        }
        dev->kind = IR_DEV_CUDA;
        dev->index = (uint32_t)v;
        return true;
    }
    if (t->kind == TK_IDENT) {
        ir_perr(P, t->col, "unknown device '%.*s' (expected cpu or cuda:N)",
                t->len > 32 ? 32 : (int)t->len, t->s);
        return false;
    }
    return ir_expected(P, "a device (cpu or cuda:N)");
}

/* Attribute keys, as bits of the set allowed on a statement. */
enum {
    IR_AT_DEVICE,
    IR_AT_SPACE,
    IR_AT_STRIDE,
    IR_AT_ALIGN,
    IR_AT_COMM,
    IR_AT_GROUP,
    IR_AT_OFFSET,
    IR_AT_CAPACITY,
    IR_AT_STREAM,
    IR_AT_SPILL,
    IR_AT_NEXT,
    IR_AT_DATA,
    IR_AT_AT,
    IR_AT_PLANNED,
    IR_AT_COUNT
};
static const char *const ir_attr_names[] = {
    "device",   "space",  "stride", "align", "comm", "group", "offset",
    "capacity", "stream", "spill",  "next",  "data", "at",    "planned"};
_Static_assert(sizeof ir_attr_names / sizeof ir_attr_names[0] == IR_AT_COUNT,
               "a name per attribute");

#define IR_ATTRS_BUFFER                                                        \
    ((1u << IR_AT_DEVICE) | (1u << IR_AT_SPACE) | (1u << IR_AT_STRIDE) |       \
     (1u << IR_AT_ALIGN) | (1u << IR_AT_COMM) | (1u << IR_AT_GROUP))
#define IR_ATTRS_STATE                                                         \
    ((1u << IR_AT_DEVICE) | (1u << IR_AT_SPACE) | (1u << IR_AT_STRIDE) |       \
     (1u << IR_AT_ALIGN) | (1u << IR_AT_NEXT))
#define IR_ATTRS_ALIAS                                                         \
    ((1u << IR_AT_OFFSET) | (1u << IR_AT_DEVICE) | (1u << IR_AT_SPACE) |       \
     (1u << IR_AT_STRIDE) | (1u << IR_AT_COMM) | (1u << IR_AT_GROUP))

static void ir_attr_list(unsigned allowed, char *buf, size_t size) {
    size_t n = 0;
    buf[0] = '\0';
    for (int i = 0; i < IR_AT_COUNT; i++)
        if (allowed & (1u << i))
            n += (size_t)snprintf(buf + n, size - n, "%s%s", n ? ", " : "",
                                  ir_attr_names[i]);
}

/* The statement's rarely given attributes, allocated on first use. */
static ir_attrs *ir_attrs_of(ir_parser *P, ir_stmt *st) {
    if (!st->attrs)
        st->attrs = ir_arena_alloc(P->a, sizeof *st->attrs);
    return st->attrs;
}

/* The statement's firmware attributes, allocated on first use. */
static ir_fw_attrs *ir_fw(ir_parser *P, ir_stmt *st) {
    if (!st->fw)
        st->fw = ir_arena_alloc(P->a, sizeof *st->fw);
    return st->fw;
}

/* data = STRING: a file name, not empty. */
static bool ir_parse_data(ir_parser *P, ir_fw_attrs *fw) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_STRING)
        return ir_expected(P, "a file name string after 'data='");
    if (t->slen == 0) {
        ir_perr(P, t->col, "empty data file name");
        return false;
    }
    fw->data = ir_arena_strndup(P->a, P->sbuf + t->sbeg, t->slen);
    fw->data_loc = ir_tok_loc(P, t);
    ir_next(P);
    return true;
}

/* Attributes that need another one: spill= needs capacity=, at= needs
 * data=. */
static bool ir_attrs_pairs(ir_parser *P, const ir_stmt *st,
                           const ir_loc *seen) {
    if (seen[IR_AT_SPILL].line && !st->has_capacity) {
        ir_perr(P, seen[IR_AT_SPILL].col,
                "attribute 'spill' requires a 'capacity' attribute");
        return false;
    }
    if (seen[IR_AT_AT].line && !seen[IR_AT_DATA].line) {
        ir_perr(P, seen[IR_AT_AT].col,
                "attribute 'at' requires a 'data' attribute");
        return false;
    }
    return true;
}

/* attrs = { attr } ;
 * attr  = "device" "=" DEVICE | "space" "=" NAME
 *       | "stride" "=" "[" [ INT { "," INT } ] "]" | "align" "=" INT
 *       | "comm" "=" NAME | "group" "=" NAME | "offset" "=" INT
 *       | "capacity" "=" INT | "stream" "=" INT
 *       | "spill" "=" NAME | "next" "=" NAME | "data" "=" STRING
 *       | "at" "=" INT | "planned" ;
 * Only the keys in `allowed` are accepted; each at most once. */
static bool ir_parse_attrs(ir_parser *P, ir_stmt *st, unsigned allowed,
                           const char *stmt_name) {
    ir_loc seen[IR_AT_COUNT] = {{0, 0}};
    while (P->tok.kind == TK_IDENT) {
        const ir_token key = P->tok;
        int k = -1;
        for (int i = 0; i < IR_AT_COUNT; i++)
            if (ir_tok_is(&key, ir_attr_names[i]))
                k = i;
        if (k < 0 || !(allowed & (1u << k))) {
            char list[128];
            ir_attr_list(allowed, list, sizeof list);
            const char *ok_names[IR_AT_COUNT];
            for (int i = 0; i < IR_AT_COUNT; i++)
                ok_names[i] = allowed & (1u << i) ? ir_attr_names[i] : NULL;
            const char *dym =
                k < 0 ? ir_suggest(&key, ok_names, IR_AT_COUNT) : NULL;
            if (dym) {
                ir_perr(P, key.col,
                        "unknown attribute '%.*s' for '%s'; did you mean "
                        "'%s'?",
                        key.len > 32 ? 32 : (int)key.len, key.s, stmt_name,
                        dym);
                return false;
            }
            ir_perr(P, key.col,
                    "unknown attribute '%.*s' for '%s' (expected %s)",
                    key.len > 32 ? 32 : (int)key.len, key.s, stmt_name, list);
            return false;
        }
        ir_loc kloc = ir_tok_loc(P, &key);
        if (seen[k].line) {
            bool muted = P->failed; /* before an invalid byte: no note */
            ir_perr(P, key.col, "duplicate attribute '%s'", ir_attr_names[k]);
            if (!muted)
                ir_diag_report(P->d, IR_SEV_NOTE, seen[k].line, seen[k].col,
                               "first given here");
            return false;
        }
        seen[k] = kloc;
        ir_next(P);
        if (k == IR_AT_PLANNED) { /* a flag: no value */
            ir_fw(P, st)->planned = true;
            st->fw->planned_loc = kloc;
            continue;
        }
        if (P->tok.kind != TK_EQ) {
            char what[64];
            snprintf(what, sizeof what, "'=' after '%s'", ir_attr_names[k]);
            return ir_expected(P, what);
        }
        ir_next(P);
        bool ok = true;
        switch (k) {
        case IR_AT_DEVICE:
            st->has_device = true;
            ok = ir_parse_device(P, &st->device,
                                 &ir_attrs_of(P, st)->device_loc);
            st->attrs->device_loc = kloc;
            break;
        case IR_AT_SPACE:
            ok = ir_parse_name(P, &ir_attrs_of(P, st)->space,
                               "a memory space name");
            break;
        case IR_AT_STRIDE:
            ok = ir_parse_int_list(P, "stride");
            st->has_stride = true;
            st->nstrides = (uint32_t)P->nnums;
            ir_attrs_of(P, st)->strides = ir_copy_nums(P);
            st->attrs->stride_loc = kloc;
            break;
        case IR_AT_ALIGN: {
            uint32_t col = P->tok.col;
            ok = ir_parse_uint(P, &st->align, "alignment");
            if (ok && (st->align == 0 || (st->align & (st->align - 1)))) {
                ir_perr(P, col, "alignment %llu is not a power of two",
                        (unsigned long long)st->align);
                ok = false;
            }
            st->align_loc = kloc;
            break;
        }
        case IR_AT_COMM:
            ok = ir_parse_name(P, &ir_attrs_of(P, st)->comm,
                               "a communication type name");
            st->attrs->comm.loc = kloc;
            break;
        case IR_AT_GROUP:
            ok = ir_parse_name(P, &ir_attrs_of(P, st)->group, "a group name");
            st->attrs->group.loc = kloc;
            break;
        case IR_AT_OFFSET:
            st->has_offset = true;
            ok = ir_parse_uint(P, &st->offset, "offset");
            st->offset_loc = kloc;
            break;
        case IR_AT_CAPACITY:
            st->has_capacity = true;
            ok = ir_parse_uint(P, &st->capacity, "capacity");
            break;
        case IR_AT_STREAM:
            st->has_stream = true;
            ok = ir_parse_uint(P, &st->stream, "stream");
            st->stream_loc = kloc;
            break;
        case IR_AT_SPILL:
            ok = ir_parse_name(P, &ir_fw(P, st)->spill, "a memory space name");
            break;
        case IR_AT_NEXT:
            ok = ir_parse_name(P, &ir_fw(P, st)->next, "a buffer name");
            break;
        case IR_AT_DATA:
            ok = ir_parse_data(P, ir_fw(P, st));
            break;
        case IR_AT_AT:
            ir_fw(P, st)->has_at = true;
            st->fw->at_loc = kloc;
            ok = ir_parse_uint(P, &st->fw->at, "data offset");
            break;
        default:
            abort();
        }
        if (!ok)
            return false;
    }
    const ir_attrs *at = st->attrs;
    if (at && at->comm.name && !at->group.name) {
        ir_perr(P, at->comm.loc.col,
                "attribute 'comm' requires a 'group' attribute");
        return false;
    }
    if (at && at->group.name && !at->comm.name) {
        ir_perr(P, at->group.loc.col,
                "attribute 'group' requires a 'comm' attribute");
        return false;
    }
    return ir_attrs_pairs(P, st, seen);
}

/* line = [ statement ] [ comment ] EOL ;  the part after a statement:
 * nothing but a comment may follow it. */
static bool ir_parse_eol(ir_parser *P) {
    const ir_token *t = &P->tok;
    if (t->kind == TK_EOL)
        return true;
    if (t->kind == TK_RPAREN) {
        ir_perr(P, t->col, "unmatched ')'");
        return false;
    }
    if (t->kind == TK_RBRACK) {
        ir_perr(P, t->col, "unmatched ']'");
        return false;
    }
    return ir_expected(P, "end of line");
}

/* model_stmt = "model" NAME ; */
static bool ir_parse_model(ir_parser *P, ir_stmt *st) {
    return ir_parse_name(P, &st->name, "a model name");
}

/* device_stmt = "device" DEVICE ; */
static bool ir_parse_device_stmt(ir_parser *P, ir_stmt *st) {
    st->has_device = true;
    ir_loc loc;
    return ir_parse_device(P, &st->device, &loc);
}

/* space_stmt = "space" NAME [ "capacity" "=" INT [ "spill" "=" NAME ] ] ;
 * (the two attributes in any order) */
static bool ir_parse_space(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a memory space name"))
        return false;
    return ir_parse_attrs(P, st, (1u << IR_AT_CAPACITY) | (1u << IR_AT_SPILL),
                          "space");
}

/* kernel_stmt = "kernel" NAME "(" [ MODE { "," MODE } ] ")" [ "nocapture" ] ;
 * MODE = "in" | "out" | "inout" | "scalar" ; */
static bool ir_parse_kernel(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a kernel name"))
        return false;
    uint32_t open = P->tok.col;
    if (!ir_expect(P, TK_LPAREN, "'(' after the kernel name"))
        return false;
    size_t n = 0, cap = 0;
    ir_mode *modes = NULL;
    ir_loc *locs = NULL;
    bool ok = true;
    if (P->tok.kind == TK_RPAREN) {
        ir_next(P);
    } else {
        for (;;) {
            const ir_token *t = &P->tok;
            if (t->kind == TK_EOL) {
                ok = ir_unclosed(P, TK_RPAREN, open);
                break;
            }
            int m = -1;
            for (int k = IR_MODE_IN; k <= IR_MODE_SCALAR; k++)
                if (ir_tok_is(t, ir_mode_names[k]))
                    m = k;
            const char *dym =
                t->kind == TK_IDENT ? ir_suggest(t, ir_mode_names, 4) : NULL;
            if (m < 0 && dym) {
                ir_perr(P, t->col, "unknown mode '%.*s'; did you mean '%s'?",
                        t->len > 32 ? 32 : (int)t->len, t->s, dym);
                ok = false;
                break;
            }
            if (m < 0) {
                if (t->kind == TK_IDENT)
                    ir_perr(P, t->col,
                            "unknown mode '%.*s' (expected in, out, inout or "
                            "scalar)",
                            t->len > 32 ? 32 : (int)t->len, t->s);
                else
                    ir_expected(P, "a mode (in, out, inout or scalar)");
                ok = false;
                break;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                modes = ir_xrealloc(modes, cap * sizeof *modes);
                locs = ir_xrealloc(locs, cap * sizeof *locs);
            }
            modes[n] = (ir_mode)m;
            locs[n] = ir_tok_loc(P, t);
            n++;
            ir_next(P);
            int sep = ir_list_sep(P, TK_RPAREN, open);
            if (sep > 0)
                continue;
            ok = sep == 0;
            break;
        }
    }
    if (ok) {
        st->nmodes = (uint32_t)n;
        st->modes = ir_arena_array(P->a, n, sizeof *st->modes);
        st->mode_locs = ir_arena_array(P->a, n, sizeof *st->mode_locs);
        if (n) {
            memcpy(st->modes, modes, n * sizeof *modes);
            memcpy(st->mode_locs, locs, n * sizeof *locs);
        }
    }
    free(modes);
    free(locs);
    if (ok && P->tok.kind == TK_IDENT && ir_tok_is(&P->tok, "nocapture")) {
        st->nocapture = true;
        ir_next(P);
    }
    return ok;
}

/* A stride= has one entry per dimension of the statement's type. */
static bool ir_stride_rank_ok(ir_parser *P, const ir_stmt *st) {
    if (st->has_stride && st->nstrides != st->type.ndim) {
        ir_perr(P, st->attrs->stride_loc.col,
                "stride has %u entr%s but the type has %u dimension%s",
                (unsigned)st->nstrides, st->nstrides == 1 ? "y" : "ies",
                (unsigned)st->type.ndim, st->type.ndim == 1 ? "" : "s");
        return false;
    }
    return true;
}

/* buffer_stmt = ( "input" | "const" | "alloc" | "state" ) NAME type attrs ;
 * (input and alloc also take `planned`, const `data` and `at`, state
 * `next` and no comm/group) */
static bool ir_parse_buffer(ir_parser *P, ir_stmt *st, const char *kw) {
    if (!ir_parse_name(P, &st->name, "a buffer name"))
        return false;
    st->has_type = true;
    if (!ir_parse_type(P, &st->type))
        return false;
    unsigned allowed =
        st->kind == IR_STATE ? IR_ATTRS_STATE
        : st->kind == IR_CONST
            ? IR_ATTRS_BUFFER | (1u << IR_AT_DATA) | (1u << IR_AT_AT)
            : IR_ATTRS_BUFFER | (1u << IR_AT_PLANNED);
    if (!ir_parse_attrs(P, st, allowed, kw))
        return false;
    return ir_stride_rank_ok(P, st);
}

/* alias_stmt = "alias" NAME "=" NAME [ type ] attrs ;
 * (attrs: offset, stride, and device/space/comm/group which must match
 * OLD's) */
static bool ir_parse_alias(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a buffer name"))
        return false;
    if (!ir_expect(P, TK_EQ, "'=' after the alias name"))
        return false;
    if (!ir_parse_name(P, &st->old, "the name of the aliased buffer"))
        return false;
    if (P->tok.kind == TK_IDENT && ir_peek(P)->kind != TK_EQ) {
        st->has_type = true;
        if (!ir_parse_type(P, &st->type))
            return false;
    }
    if (!ir_parse_attrs(P, st, IR_ATTRS_ALIAS, "alias"))
        return false;
    if (st->has_stride && !st->has_type) {
        ir_perr(P, st->attrs->stride_loc.col,
                "a strided alias needs a type (alias NEW = OLD f32[4,4] "
                "stride=[1,4])");
        return false;
    }
    return ir_stride_rank_ok(P, st);
}

/* call_stmt = "call" NAME "(" [ arg { "," arg } ] ")" [ "stream" "=" INT ] ;
 * arg = NAME | [ "-" ] ( INT | FLOAT ) | STRING ; */
static bool ir_parse_call(ir_parser *P, ir_stmt *st) {
    if (!ir_parse_name(P, &st->name, "a kernel name"))
        return false;
    uint32_t open = P->tok.col;
    if (!ir_expect(P, TK_LPAREN, "'(' after the kernel name"))
        return false;
    size_t n = 0, cap = 0;
    ir_arg *args = NULL;
    bool ok = true;
    if (P->tok.kind == TK_RPAREN) {
        ir_next(P);
    } else {
        for (;;) {
            const ir_token *t = &P->tok;
            if (t->kind == TK_EOL) {
                ok = ir_unclosed(P, TK_RPAREN, open);
                break;
            }
            ir_arg arg;
            memset(&arg, 0, sizeof arg);
            arg.loc = ir_tok_loc(P, t);
            arg.value = -1;
            if (t->kind == TK_IDENT) {
                ir_ident id;
                if (!ir_parse_name(P, &id, "an argument")) {
                    ok = false;
                    break;
                }
                arg.kind = IR_ARG_BUFFER;
                arg.text = id.name;
            } else if (t->kind == TK_INT) {
                arg.kind = IR_ARG_INT;
                arg.ival = t->neg ? -(int64_t)t->ival : (int64_t)t->ival;
                arg.text = ir_intern(P->a, &P->names, t->s, t->len);
                ir_next(P);
            } else if (t->kind == TK_FLOAT) {
                arg.kind = IR_ARG_FLOAT;
                arg.fval = t->fval;
                arg.text = ir_intern(P->a, &P->names, t->s, t->len);
                ir_next(P);
            } else if (t->kind == TK_STRING) {
                arg.kind = IR_ARG_STRING;
                arg.text = ir_intern(P->a, &P->names, t->s, t->len);
                arg.sval =
                    ir_intern(P->a, &P->names, P->sbuf + t->sbeg, t->slen);
                ir_next(P);
            } else {
                ir_expected(P, "an argument (a buffer name, a number or a "
                               "string)");
                ok = false;
                break;
            }
            if (n == cap) {
                cap = cap ? cap * 2 : 8;
                args = ir_xrealloc(args, cap * sizeof *args);
            }
            args[n++] = arg;
            int sep = ir_list_sep(P, TK_RPAREN, open);
            if (sep > 0)
                continue;
            ok = sep == 0;
            break;
        }
    }
    if (ok) {
        st->nargs = (uint32_t)n;
        st->args = ir_arena_array(P->a, n, sizeof *st->args);
        if (n)
            memcpy(st->args, args, n * sizeof *args);
        ok = ir_parse_attrs(P, st, 1u << IR_AT_STREAM, "call");
    }
    free(args);
    return ok;
}

/* free_stmt = "free" NAME { NAME } ;  output_stmt = "output" NAME { NAME } ; */
static bool ir_parse_names(ir_parser *P, ir_stmt *st) {
    size_t n = 0, cap = 0;
    ir_ident *ids = NULL;
    bool ok = true;
    do {
        ir_ident id;
        if (!ir_parse_name(P, &id, "a buffer name")) {
            ok = false;
            break;
        }
        if (n == cap) {
            cap = cap ? cap * 2 : 8;
            ids = ir_xrealloc(ids, cap * sizeof *ids);
        }
        ids[n++] = id;
    } while (P->tok.kind == TK_IDENT);
    if (ok) {
        st->nnames = (uint32_t)n;
        st->names = ir_arena_array(P->a, n, sizeof *st->names);
        memcpy(st->names, ids, n * sizeof *ids);
    }
    free(ids);
    return ok;
}

/* Records that the current line holds a statement whose keyword could
 * not be read: it comes before statement P->nstmts. */
static void ir_add_unread(ir_parser *P) {
    if (P->nunread && P->unread[P->nunread - 1] == P->nstmts)
        return;
    if (P->nunread == P->cunread) {
        P->cunread = P->cunread ? P->cunread * 2 : 16;
        P->unread = ir_xrealloc(P->unread, P->cunread * sizeof *P->unread);
    }
    P->unread[P->nunread++] = P->nstmts;
}

/* statement = model_stmt | device_stmt | space_stmt | kernel_stmt
 *           | buffer_stmt | alias_stmt | call_stmt | free_stmt
 *           | output_stmt ; */
static void ir_parse_statement(ir_parser *P) {
    const ir_token *t = &P->tok;
    if (t->kind != TK_IDENT) {
        ir_expected(P, "a statement");
        ir_add_unread(P);
        return;
    }
    int k = -1;
    for (int i = 0; i <= IR_STATE; i++)
        if (ir_tok_is(t, ir_stmt_keywords[i]))
            k = i;
    const char *dym =
        k < 0 ? ir_suggest(t, ir_stmt_keywords, IR_STATE + 1) : NULL;
    if (dym) {
        ir_perr(P, t->col, "unknown statement '%.*s'; did you mean '%s'?",
                t->len > 32 ? 32 : (int)t->len, t->s, dym);
        ir_add_unread(P);
        return;
    }
    if (k < 0) {
        ir_perr(P, t->col,
                "unknown statement '%.*s' (expected model, device, space, "
                "kernel, input, const, alloc, state, alias, call, free or "
                "output)",
                t->len > 32 ? 32 : (int)t->len, t->s);
        ir_add_unread(P);
        return;
    }
    if (P->nstmts >= P->maxstmts)
        abort(); /* the pre-count is an upper bound */
    ir_stmt *st = &P->stmts[P->nstmts];
    memset(st, 0, sizeof *st);
    st->kind = (ir_stmt_kind)k;
    st->index = P->nstmts;
    st->loc = ir_tok_loc(P, t);
    st->value = -1;
    ir_next(P);
    bool ok;
    switch (st->kind) {
    case IR_MODEL:
        ok = ir_parse_model(P, st);
        break;
    case IR_DEVICE:
        ok = ir_parse_device_stmt(P, st);
        break;
    case IR_SPACE:
        ok = ir_parse_space(P, st);
        break;
    case IR_KERNEL:
        ok = ir_parse_kernel(P, st);
        break;
    case IR_INPUT:
    case IR_CONST:
    case IR_ALLOC:
    case IR_STATE:
        ok = ir_parse_buffer(P, st, ir_stmt_keywords[k]);
        break;
    case IR_ALIAS:
        ok = ir_parse_alias(P, st);
        break;
    case IR_CALL:
        ok = ir_parse_call(P, st);
        break;
    case IR_FREE:
    case IR_OUTPUT:
        ok = ir_parse_names(P, st);
        break;
    default:
        abort();
    }
    /* A line with an error stays a statement, marked broken, for the
     * checker (ir_parse drops the whole program). */
    st->broken = !(ok && ir_parse_eol(P) && !P->failed);
    P->nstmts++;
}

/* Validates the bytes of a line: no NUL, valid UTF-8.  Returns the
 * offset of the first bad byte (reported), or the length of the line. */
static size_t ir_check_line_bytes(ir_parser *P) {
    const unsigned char *s = (const unsigned char *)P->line;
    size_t n = P->len;
    for (size_t i = 0; i < n;) {
        unsigned c = s[i];
        if (c == 0) {
            ir_perr(P, (uint32_t)(i + 1), "NUL byte in input");
            return i;
        }
        if (c < 0x80) {
            i++;
            continue;
        }
        unsigned cp;
        size_t len = base_utf8_decode(s + i, n - i, &cp);
        if (len == 0) {
            ir_perr(P, (uint32_t)(i + 1), "invalid UTF-8 byte 0x%02X", c);
            return i;
        }
        i += len;
    }
    return n;
}

/* After the invalid byte at offset `bad` of the current line (reported):
 * parses the valid bytes before it, errors muted, so that the checker
 * learns the statement's kind and name (a broken statement) or that a
 * statement could not be read at all.  A word the bad byte cuts is left
 * out: it is no name.  A line that is a comment by then holds nothing. */
static void ir_parse_valid_prefix(ir_parser *P, size_t bad) {
    size_t cut = bad;
    while (cut > 0 && ir_is_id_char((unsigned char)P->line[cut - 1]))
        cut--;
    P->len = cut;
    ir_next(P);
    if (P->tok.kind != TK_EOL)
        ir_parse_statement(P);
    else if (P->tok.s == P->line + P->len)
        ir_add_unread(P); /* no '#' before the bad byte */
}

/* Records a comment (text, n bytes from '#') or, when text is NULL, a
 * blank line, for the printer. */
static void ir_add_comment(ir_parser *P, uint32_t before, bool trailing,
                           const char *text, size_t n) {
    if (P->ncomments == P->ccomments) {
        P->ccomments = P->ccomments ? P->ccomments * 2 : 16;
        P->comments =
            ir_xrealloc(P->comments, P->ccomments * sizeof *P->comments);
    }
    ir_comment *c = &P->comments[P->ncomments++];
    c->before = before;
    c->trailing = trailing;
    c->text = NULL;
    if (text) {
        while (n > 1 && (text[n - 1] == ' ' || text[n - 1] == '\t' ||
                         text[n - 1] == '\r'))
            n--;
        c->text = ir_arena_strndup(P->a, text, n);
    }
}

/* An upper bound of the number of statements: lines whose first
 * non-blank byte does not start a comment. */
static size_t ir_count_statements(const char *text, size_t len) {
    size_t n = 0;
    size_t i = 0;
    while (i < len) {
        while (i < len && (text[i] == ' ' || text[i] == '\t'))
            i++;
        if (i < len && text[i] != '#' && text[i] != '\n' && text[i] != '\r')
            n++;
        const char *nl = memchr(text + i, '\n', len - i);
        if (!nl)
            break;
        i = (size_t)(nl - text) + 1;
    }
    return n;
}

/* program = { line } ;  line = [ statement ] [ comment ] EOL ;
 * comment = "#" { any character } ;  EOL = "\n" | "\r\n" | end of input ;
 * With `recover`, a program with syntax errors is returned too (its
 * broken statements and unread lines recorded); without, NULL. */
static ir_program *ir_parse_lines(ir_arena *a, const char *filename,
                                  const char *text, size_t len, ir_diag *d,
                                  bool recover) {
    ir_parser P;
    memset(&P, 0, sizeof P);
    P.a = a;
    P.d = d;
    size_t maxst = ir_count_statements(text, len);
    if (maxst > INT32_MAX || len > UINT32_MAX) {
        ir_diag_report(d, IR_SEV_ERROR, 0, 0, "input too large");
        return NULL;
    }
    P.maxstmts = (uint32_t)maxst;
    P.stmts = ir_arena_array(a, maxst, sizeof(ir_stmt));
    size_t i = 0;
    uint32_t lineno = 0;
    while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        lineno++;
        P.line = text + i;
        P.len = end - i;
        if (P.len > 0 && P.line[P.len - 1] == '\r')
            P.len--;
        P.lineno = lineno;
        P.pos = 0;
        P.failed = false;
        P.has_ahead = false;
        size_t bad = ir_check_line_bytes(&P);
        if (bad < P.len) {
            ir_parse_valid_prefix(&P, bad);
        } else {
            ir_next(&P);
            const char *line_end = P.line + P.len;
            if (P.tok.kind != TK_EOL) {
                uint32_t before = P.nstmts;
                ir_parse_statement(&P);
                if (P.nstmts > before && !P.failed && P.tok.kind == TK_EOL &&
                    P.tok.s < line_end)
                    ir_add_comment(&P, before, true, P.tok.s,
                                   (size_t)(line_end - P.tok.s));
                P.seen_content = true;
                P.last_blank = false;
            } else if (P.tok.s < line_end) {
                ir_add_comment(&P, P.nstmts, false, P.tok.s,
                               (size_t)(line_end - P.tok.s));
                P.seen_content = true;
                P.last_blank = false;
            } else {
                if (P.seen_content && !P.last_blank)
                    ir_add_comment(&P, P.nstmts, false, NULL, 0);
                P.last_blank = true;
            }
        }
        i = end + 1;
        if (!nl)
            break;
    }
    free(P.sbuf);
    free(P.nums);
    ir_intern_free(&P.names);
    if (P.errors && !recover) {
        free(P.comments);
        free(P.unread);
        return NULL;
    }
    ir_program *p = ir_arena_alloc(a, sizeof *p);
    p->arena = a;
    p->filename = ir_arena_strdup(a, filename ? filename : "<input>");
    p->nstmts = P.nstmts;
    p->stmts = P.stmts;
    p->output_stmt = -1;
    p->names_interned = true;
    p->ncomments = (uint32_t)P.ncomments;
    p->comments = ir_arena_array(a, P.ncomments, sizeof *p->comments);
    if (P.ncomments)
        memcpy(p->comments, P.comments, P.ncomments * sizeof *P.comments);
    free(P.comments);
    p->syntax_errors = P.errors;
    p->nunread = (uint32_t)P.nunread;
    p->unread = ir_arena_array(a, P.nunread, sizeof *p->unread);
    if (P.nunread)
        memcpy(p->unread, P.unread, P.nunread * sizeof *P.unread);
    free(P.unread);
    for (uint32_t k = 0; k < P.nstmts; k++)
        if (P.stmts[k].kind == IR_MODEL && !P.stmts[k].broken && !p->model)
            p->model = P.stmts[k].name.name;
    return p;
}

ir_program *ir_parse(ir_arena *a, const char *filename, const char *text,
                     size_t len, ir_diag *d) {
    return ir_parse_lines(a, filename, text, len, d, false);
}

ir_program *ir_parse_recover(ir_arena *a, const char *filename,
                             const char *text, size_t len, ir_diag *d) {
    return ir_parse_lines(a, filename, text, len, d, true);
}

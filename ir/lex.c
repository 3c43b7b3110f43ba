/*
 * ir/lex.c - the lexer of IR v1: tokens of one line, on demand, with one
 * token of lookahead (ir/parse_internal.h).  The first error of a line is
 * reported and mutes the rest of the line.  Every token records its
 * column (1-based, bytes); the line is the parser's.
 */
#include "parse_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const unsigned char ir_cclass[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    6, 6, 6, 6, 6, 6, 6, 6, 6, 6, 0, 0, 0, 0, 0, 0, 0, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 0, 0, 0, 0, 3,
    0, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3,
    3, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};

/* The candidate closest to token t (ir_closest), or NULL. */
const char *ir_suggest(const ir_token *t, const char *const *cands, size_t n) {
    size_t i = base_closest(t->s, t->len, cands, n);
    return i == SIZE_MAX ? NULL : cands[i];
}

/* Reports an error at column `col` of the current line, once per line. */
void ir_perr(ir_parser *P, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void ir_perr(ir_parser *P, uint32_t col, const char *fmt, ...) {
    if (P->failed)
        return;
    P->failed = true;
    P->errors++;
    va_list ap;
    va_start(ap, fmt);
    base_diag_vreport(P->d, BASE_SEV_ERROR, P->lineno, col, fmt, ap);
    va_end(ap);
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
        P->sbuf = base_xrealloc(P->sbuf, P->scap);
    }
    P->sbuf[P->slen++] = c;
}

void ir_nums_put(ir_parser *P, uint64_t v) {
    if (P->nnums == P->cnums) {
        P->cnums = P->cnums ? P->cnums * 2 : 16;
        P->nums = base_xrealloc(P->nums, P->cnums * sizeof *P->nums);
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

/* (The lexer's rarer paths stay out of line, so that ir_lex, called per
 * token, stays small.) */
__attribute__((noinline)) static void ir_lex_number(ir_parser *P, ir_token *t) {
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
            const uint64_t top = (uint64_t)INT64_MAX / 10;
            if (v > top || (v == top && dg > (uint64_t)INT64_MAX % 10)) {
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
    char *buf = t->len < sizeof small ? small : base_xrealloc(NULL, t->len + 1);
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
__attribute__((noinline)) static void ir_lex_string(ir_parser *P, ir_token *t) {
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

/* A name that runs into a non-ASCII character at offset i (`dévice`):
 * points at the character, not at a word `d`. */
__attribute__((noinline)) static void ir_lex_bad_name(ir_parser *P, ir_token *t,
                                                      size_t i) {
    unsigned cp = 0;
    base_utf8_decode((const unsigned char *)P->line + i, P->len - i, &cp);
    ir_perr(P, (uint32_t)(i + 1), "unexpected character U+%04X in a name", cp);
    t->kind = TK_ERROR;
    t->len = i - P->pos;
    P->pos = i;
}

/* A byte c that starts no token. */
__attribute__((noinline)) static void ir_lex_bad_char(ir_parser *P, ir_token *t,
                                                      unsigned char c) {
    t->kind = TK_ERROR;
    t->len = 1;
    if (c >= 0x80) {
        unsigned cp = 0;
        base_utf8_decode((const unsigned char *)P->line + P->pos,
                         P->len - P->pos, &cp);
        ir_perr(P, t->col, "unexpected character U+%04X", cp);
    } else if (c >= 0x20 && c < 0x7F) {
        ir_perr(P, t->col, "unexpected character '%c'", c);
    } else {
        ir_perr(P, t->col, "unexpected control character 0x%02X", c);
    }
}

/* Lexes the next token of the current line into *t. */
void ir_lex(ir_parser *P, ir_token *t) {
    const char *s = P->line;
    size_t n = P->len;
    size_t pos = P->pos;
    while (pos < n && (s[pos] == ' ' || s[pos] == '\t'))
        pos++;
    P->pos = pos;
    /* Only the fields of the token's kind are read: no memset. */
    t->col = (uint32_t)(pos + 1);
    t->s = s + pos;
    t->len = 0;
    t->neg = false;
    if (pos >= n || s[pos] == '#') {
        t->kind = TK_EOL;
        return;
    }
    unsigned char c = (unsigned char)s[pos];
    if (ir_is_id_start(c)) {
        size_t i = pos + 1;
        while (i < n && ir_is_id_char((unsigned char)s[i]))
            i++;
        if (i < n && (unsigned char)s[i] >= 0x80) {
            ir_lex_bad_name(P, t, i);
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
    t->len = 1;
    switch (c) {
    case '(':
        t->kind = TK_LPAREN;
        break;
    case ')':
        t->kind = TK_RPAREN;
        break;
    case '[':
        t->kind = TK_LBRACK;
        break;
    case ']':
        t->kind = TK_RBRACK;
        break;
    case ',':
        t->kind = TK_COMMA;
        break;
    case '=':
        t->kind = TK_EQ;
        break;
    case ':':
        t->kind = TK_COLON;
        break;
    default:
        t->kind = TK_ERROR;
        break;
    }
    if (t->kind != TK_ERROR)
        P->pos++;
    else
        ir_lex_bad_char(P, t, c);
}

/* The token after the current one, without consuming it. */
const ir_token *ir_peek(ir_parser *P) {
    if (!P->has_ahead) {
        ir_lex(P, &P->ahead);
        P->has_ahead = true;
    }
    return &P->ahead;
}

/* Reports "expected WHAT but found TOKEN" (or a more precise message for
 * errors the lexer already reported). */
bool ir_expected(ir_parser *P, const char *what) {
    char buf[64];
    if (P->tok.kind != TK_ERROR)
        ir_perr(P, P->tok.col, "expected %s but found %s", what,
                ir_tok_desc(&P->tok, buf, sizeof buf));
    return false;
}

bool ir_expect(ir_parser *P, ir_tok_kind k, const char *what) {
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

/* Per first byte, bit L set when some keyword of length L starts with
 * it (from ir_c_keywords; tests/ir checks every keyword is found). */
static const uint16_t ir_c_keyword_lens[128] = {
    ['_'] =
        1u << 5 | 1u << 7 | 1u << 8 | 1u << 9 | 1u << 10 | 1u << 13 | 1u << 14,
    ['a'] = 1u << 4,
    ['b'] = 1u << 5,
    ['c'] = 1u << 4 | 1u << 5 | 1u << 8,
    ['d'] = 1u << 2 | 1u << 6 | 1u << 7,
    ['e'] = 1u << 4 | 1u << 6,
    ['f'] = 1u << 3 | 1u << 5,
    ['g'] = 1u << 4,
    ['i'] = 1u << 2 | 1u << 3 | 1u << 6,
    ['l'] = 1u << 4,
    ['r'] = 1u << 6 | 1u << 8,
    ['s'] = 1u << 5 | 1u << 6,
    ['t'] = 1u << 7,
    ['u'] = 1u << 5 | 1u << 8,
    ['v'] = 1u << 4 | 1u << 8,
    ['w'] = 1u << 5,
};

bool ir_is_c_keyword_n(const char *s, size_t n) {
    /* Most names are rejected by their first byte and length alone (the
     * parser asks for every name). */
    unsigned c = (unsigned char)s[0];
    if (n < 2 || n > 14 || c >= 128 || !((ir_c_keyword_lens[c] >> n) & 1u))
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

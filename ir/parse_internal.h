/*
 * ir/parse_internal.h - private to the parser of ir/ (ir/lex.c,
 * ir/parse_attrs.c, ir/parse.c): the token, the parser state, and the
 * functions the three files share.  The grammar is docs/ir.md; each
 * parse function names its rule.
 */
#ifndef PLANWRAP_IR_PARSE_INTERNAL_H
#define PLANWRAP_IR_PARSE_INTERNAL_H

#include "intern.h"
#include "ir/ir.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define IR_NAME_MAX 255
#define IR_NUMS_CACHE 256
#define IR_RECENT 1024 /* a power of two */

/* "f64", "f32", ...: indexed by ir_dtype (ir/parse.c). */
extern const char *const ir_dtype_names[];

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

typedef struct ir_parser {
    base_arena *a;
    base_diag *d;
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
    ir_arg *argv; /* the arguments of the current call */
    size_t cargv;
    ir_ident *idv; /* the names of the current free/output */
    size_t cidv;
    ir_intern_table names;
    ir_comment *comments;
    size_t ncomments, ccomments;
    uint32_t *unread; /* ir_program.unread */
    size_t nunread, cunread;
    bool seen_content; /* a statement or comment line so far */
    bool last_blank;   /* the previous line was blank */
    /* The names seen last, by hash: names are mostly used a few lines
     * after their definition, so most lookups stop here. */
    ir_name_rec *recent[IR_RECENT];
    /* The shapes and strides stored last, by hash (ir_copy_nums). */
    uint64_t *nums_cache[IR_NUMS_CACHE];
    size_t nums_cache_n[IR_NUMS_CACHE];
} ir_parser;

/* Character classes by byte (ir/lex.c): IR_CC_ID_START (letters, '_'),
 * IR_CC_ID (those and digits), IR_CC_DIGIT.  One load per byte in the
 * lexer's loops. */
enum { IR_CC_ID_START = 1, IR_CC_ID = 2, IR_CC_DIGIT = 4 };
extern const unsigned char ir_cclass[256];

static inline bool ir_is_digit(int c) {
    return c >= '0' && c <= '9';
}

static inline bool ir_is_id_start(int c) {
    return ir_cclass[(unsigned char)c] & IR_CC_ID_START;
}

static inline bool ir_is_id_char(int c) {
    return ir_cclass[(unsigned char)c] & IR_CC_ID;
}

/* ------------------------------------------------------------------ */
/* The lexer (ir/lex.c). */

/* The candidate closest to token t (base_closest), or NULL. */
const char *ir_suggest(const ir_token *t, const char *const *cands, size_t n);
/* Reports an error at column `col` of the current line, once per line
 * (later errors of the line are muted). */
void ir_perr(ir_parser *P, uint32_t col, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Appends a number to the scratch vector P->nums. */
void ir_nums_put(ir_parser *P, uint64_t v);
/* Lexes the next token of the current line into *t. */
void ir_lex(ir_parser *P, ir_token *t);
/* Advances to the next token.  (This and the two below are inline: the
 * parser calls them per token, and strlen of a constant word folds.) */
static inline void ir_next(ir_parser *P) {
    if (P->has_ahead) {
        P->tok = P->ahead;
        P->has_ahead = false;
        return;
    }
    ir_lex(P, &P->tok);
}
/* The token after the current one, without consuming it. */
const ir_token *ir_peek(ir_parser *P);
/* Whether t is the identifier `word`. */
static inline bool ir_tok_is(const ir_token *t, const char *word) {
    return t->kind == TK_IDENT && t->s[0] == word[0] &&
           strlen(word) == t->len && memcmp(t->s, word, t->len) == 0;
}
/* The location of token t on the current line. */
static inline ir_loc ir_tok_loc(const ir_parser *P, const ir_token *t) {
    ir_loc l = {P->lineno, t->col};
    return l;
}
/* Reports "expected WHAT but found TOKEN"; returns false. */
bool ir_expected(ir_parser *P, const char *what);
/* Consumes a token of kind k, or reports "expected WHAT". */
bool ir_expect(ir_parser *P, ir_tok_kind k, const char *what);
/* Whether s[0..n) is a C11 keyword. */
bool ir_is_c_keyword_n(const char *s, size_t n);

/* ------------------------------------------------------------------ */
/* Names, numbers, types, devices and attributes (ir/parse_attrs.c). */

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

#define IR_ATTRS_BUFFER                                                        \
    ((1u << IR_AT_DEVICE) | (1u << IR_AT_SPACE) | (1u << IR_AT_STRIDE) |       \
     (1u << IR_AT_ALIGN) | (1u << IR_AT_COMM) | (1u << IR_AT_GROUP))
#define IR_ATTRS_STATE                                                         \
    ((1u << IR_AT_DEVICE) | (1u << IR_AT_SPACE) | (1u << IR_AT_STRIDE) |       \
     (1u << IR_AT_ALIGN) | (1u << IR_AT_NEXT))
#define IR_ATTRS_ALIAS                                                         \
    ((1u << IR_AT_OFFSET) | (1u << IR_AT_DEVICE) | (1u << IR_AT_SPACE) |       \
     (1u << IR_AT_STRIDE) | (1u << IR_AT_COMM) | (1u << IR_AT_GROUP))

/* The interned copy of s[0..n) (ir_intern), looked up first among the
 * names and literals seen last (P->recent). */
const char *ir_intern_recent(ir_parser *P, const char *s, size_t n);
/* NAME, interned into out->name; `what` names it in messages. */
bool ir_parse_name(ir_parser *P, ir_ident *out, const char *what);
/* Reports the end of the line inside a list opened at column `open`. */
bool ir_unclosed(ir_parser *P, ir_tok_kind close, uint32_t open);
/* After a list element: 1 after ',', 0 after `close`, -1 on error. */
int ir_list_sep(ir_parser *P, ir_tok_kind close, uint32_t open);
/* type = DTYPE "[" [ dim { "," dim } ] "]" ; */
bool ir_parse_type(ir_parser *P, ir_type *ty);
/* DEVICE = "cpu" | "cuda" ":" INT ;  *loc gets its location. */
bool ir_parse_device(ir_parser *P, ir_device *dev, ir_loc *loc);
/* attrs = { attr } ;  only the keys in `allowed` (IR_AT_* bits), each at
 * most once; `stmt_name` names the statement in messages. */
bool ir_parse_attrs(ir_parser *P, ir_stmt *st, unsigned allowed,
                    const char *stmt_name);

#endif /* PLANWRAP_IR_PARSE_INTERNAL_H */

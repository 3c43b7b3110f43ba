/*
 * tests/ir/test_print.c - the three modes of the one statement printer
 * (ir_stmt_text): canonical (fmt), short (comments of generated code and
 * the input hash) and lines (plan --emit lines), statement by statement.
 */
#include "ir/ir.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

static const char *const prog = "model m\n"
                                "space sram capacity=4096\n"
                                "kernel k(in, out)\n"
                                "input x f32[4] device=cuda:0 planned\n"
                                "alloc a f32[8] space=sram align=128\n"
                                "alias h = a f32[2] offset=2\n"
                                "call k(x, a) stream=3\n"
                                "call g(a, 7, 2.5, \"p*/q\\n\")\n"
                                "free a\n"
                                "output h\n";

/* Brackets every escaped argument, to show where the escape applies. */
static void esc(base_sb *out, const char *s) {
    base_sb_printf(out, "<%s>", s);
}

static void test_modes(void **st) {
    (void)st;
    base_arena *a = base_arena_new();
    base_diag *d = base_diag_new(stderr, 0);
    ir_program *p = ir_parse(a, "t.pw", prog, strlen(prog), d);
    assert_non_null(p);
    assert_true(ir_check(p, d));
    static const char *const want[][3] = {
        {"model m", "model m", "model m"},
        {"space  sram capacity=4096", "space sram capacity=4096", "space sram"},
        {"kernel k(in, out)", "kernel k(in, out)", "kernel k"},
        {"input  x f32[4] device=cuda:0 planned",
         "input x f32[4] device=cuda:0 planned", "input x"},
        {"alloc  a f32[8] space=sram align=128",
         "alloc a f32[8] space=sram align=128", "alloc a"},
        {"alias  h = a f32[2] offset=2", "alias h = a f32[2] offset=2",
         "alias h = a f32[2] offset=2"},
        {"call   k(x, a) stream=3", "call k(<x>, <a>) stream=3",
         "call k(x, a) stream=3"},
        {"call   g(a, 7, 2.5, \"p*/q\\n\")",
         "call g(<a>, <7>, <2.5>, \"<p*/q\n>\")",
         "call g(a, 7, 2.5, \"p*/q\\n\")"},
        {"free   a", "free a", "free a"},
        {"output h", "output h", "output h"},
    };
    assert_int_equal(p->nstmts, sizeof want / sizeof want[0]);
    static const ir_text_mode modes[] = {IR_TEXT_CANONICAL, IR_TEXT_SHORT,
                                         IR_TEXT_LINES};
    base_sb b = {0};
    for (uint32_t i = 0; i < p->nstmts; i++)
        for (int m = 0; m < 3; m++) {
            base_sb_clear(&b);
            ir_stmt_text(&b, &p->stmts[i], modes[m], esc);
            assert_string_equal(base_sb_str(&b), want[i][m]);
        }
    base_sb_free(&b);
    base_diag_free(d);
    base_arena_free(a);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

/*
 * test_lexer.c — tokens, their spans, Python's layout tokens (NEWLINE, INDENT,
 * DEDENT) and every error the scanner reports, with its line and column.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parse.h"
#include "parser.h"

static arena ar;
static jmp_buf oom;
static diag_sink d;
static char errors[4096];
static lex_token *toks;
static int ntoks;

static void on_diag(void *ud, const kc_diagnostic *kd) {
  (void)ud;
  char line[512];
  snprintf(line, sizeof line, "%d:%d: %s\n", kd->line, kd->col, kd->message);
  strncat(errors, line, sizeof errors - strlen(errors) - 1);
}

/* Tokenise src (len bytes) and return the kinds as "NAME '=' INT NEWLINE END". */
static const char *lexn(const char *src, size_t len) {
  static char out[8192];
  arena_free(&ar);
  arena_init(&ar, NULL, NULL);
  arena_set_oom(&ar, &oom);
  errors[0] = '\0';
  diag_init(&d, &ar, "t.k", src, len);
  d.emit = on_diag;
  ntoks = lex_tokenize(&ar, &d, src, len, &toks);
  out[0] = '\0';
  for (int i = 0; i < ntoks; i++) {
    if (i)
      strcat(out, " ");
    strcat(out, lex_token_name(toks[i].kind));
  }
  return out;
}

static const char *lex(const char *src) { return lexn(src, strlen(src)); }

static void teardown(void) { arena_free(&ar); }

static void check_span(int i, int l, int c, int el, int ec) {
  ck_assert_msg(toks[i].sp.line == l && toks[i].sp.col == c && toks[i].sp.end_line == el &&
                    toks[i].sp.end_col == ec,
                "token %d (%s): span %d:%d-%d:%d, expected %d:%d-%d:%d", i,
                lex_token_name(toks[i].kind), toks[i].sp.line, toks[i].sp.col,
                toks[i].sp.end_line, toks[i].sp.end_col, l, c, el, ec);
}

START_TEST(simple_line_and_spans) {
  ck_assert_str_eq(lex("x = ab + 12\n"), "NAME '=' NAME '+' INT NEWLINE END");
  check_span(0, 1, 1, 1, 2);
  check_span(1, 1, 3, 1, 4);
  check_span(2, 1, 5, 1, 7);
  check_span(3, 1, 8, 1, 9);
  check_span(4, 1, 10, 1, 12);
  check_span(5, 1, 12, 1, 13);
  ck_assert_str_eq(toks[2].val->str, "ab");
  ck_assert_int_eq(toks[4].val->ival, 12);
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(empty_and_blank_files) {
  ck_assert_str_eq(lex(""), "END");
  ck_assert_str_eq(lex("\n\n   \n# comment\n   # indented comment\n"), "END");
  ck_assert_str_eq(lex("# no newline at end"), "END");
  ck_assert_str_eq(lex("   "), "END");
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(no_newline_at_end) {
  ck_assert_str_eq(lex("x"), "NAME NEWLINE END");
  ck_assert_str_eq(lex("if x:\n  y"), "if NAME ':' NEWLINE INDENT NAME NEWLINE DEDENT END");
  ck_assert_str_eq(lex("x # comment"), "NAME NEWLINE END");
}
END_TEST

START_TEST(indent_dedent) {
  ck_assert_str_eq(lex("if x:\n    y\n    if z:\n        w\nv\n"),
                   "if NAME ':' NEWLINE INDENT NAME NEWLINE if NAME ':' NEWLINE INDENT NAME "
                   "NEWLINE DEDENT DEDENT NAME NEWLINE END");
  /* the DEDENTs sit where the next line's first token is */
  check_span(15, 5, 1, 5, 2);
  ck_assert_str_eq(lex("def f():\n  if a:\n    b\n\n  # c\n\n  d\n"),
                   "def NAME '(' ')' ':' NEWLINE INDENT if NAME ':' NEWLINE INDENT NAME "
                   "NEWLINE DEDENT NAME NEWLINE DEDENT END");
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(tabs_alone_are_fine) {
  ck_assert_str_eq(lex("if x:\n\ty\n\tif z:\n\t\tw\n"),
                   "if NAME ':' NEWLINE INDENT NAME NEWLINE if NAME ':' NEWLINE INDENT NAME "
                   "NEWLINE DEDENT DEDENT END");
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(tabs_mixed_with_spaces) {
  lex("if x:\n    y\nif z:\n\tw\n");
  ck_assert_str_eq(errors, "4:1: inconsistent use of tabs and spaces in indentation\n");
  lex("if x:\n \ty\n");
  ck_assert_str_eq(errors, "2:1: inconsistent use of tabs and spaces in indentation\n");
}
END_TEST

START_TEST(bad_dedent) {
  lex("if x:\n    y\n  z\n");
  ck_assert_str_eq(errors, "3:3: unindent does not match any outer indentation level\n");
}
END_TEST

START_TEST(unexpected_indent_is_a_token) {
  ck_assert_str_eq(lex("  x\n"), "INDENT NAME NEWLINE DEDENT END");
  check_span(0, 1, 3, 1, 4);
}
END_TEST

START_TEST(line_joining) {
  ck_assert_str_eq(lex("x = (1,\n     2)\ny = [\n  3\n]\n"),
                   "NAME '=' '(' INT ',' INT ')' NEWLINE NAME '=' '[' INT ']' NEWLINE END");
  check_span(5, 2, 6, 2, 7);
  ck_assert_str_eq(lex("x = 1 + \\\n    2\n"), "NAME '=' INT '+' INT NEWLINE END");
  check_span(4, 2, 5, 2, 6);
  ck_assert_str_eq(lex("a; b;\n"), "NAME ';' NAME ';' NEWLINE END");
}
END_TEST

START_TEST(crlf) {
  ck_assert_str_eq(lex("if x:\r\n  y\r\n"), "if NAME ':' NEWLINE INDENT NAME NEWLINE DEDENT END");
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(keywords) {
  ck_assert_str_eq(lex("and as break continue def elif else for from if import in is "
                       "not or pass return while True False None\n"),
                   "and as break continue def elif else for from if import in is not or "
                   "pass return while True False None NEWLINE END");
  ck_assert_str_eq(lex("class lambda try except finally with yield global nonlocal async "
                       "await del assert raise\n"),
                   "class lambda try except finally with yield global nonlocal async await "
                   "del assert raise NEWLINE END");
  ck_assert_str_eq(lex("iff _x x1 None_\n"), "NAME NAME NAME NAME NEWLINE END");
}
END_TEST

START_TEST(operators) {
  ck_assert_str_eq(lex("** // << >> <= >= == != -> ... + - * / % @ & | ^ ~ < > , : . ; =\n"),
                   "'**' '//' '<<' '>>' '<=' '>=' '==' '!=' '->' '...' '+' '-' '*' '/' '%' "
                   "'@' '&' '|' '^' '~' '<' '>' ',' ':' '.' ';' '=' NEWLINE END");
  static const char *aug[] = {"+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=",
                              "^=", "<<=", ">>="};
  static const op_kind ops[] = {OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_FLOORDIV, OP_MOD,
                                OP_POW, OP_BITAND, OP_BITOR, OP_BITXOR, OP_LSHIFT,
                                OP_RSHIFT};
  for (int i = 0; i < 12; i++) {
    char src[32];
    snprintf(src, sizeof src, "x %s 1\n", aug[i]);
    ck_assert_str_eq(lex(src), "NAME AUGASSIGN INT NEWLINE END");
    ck_assert_int_eq(toks[1].op, ops[i]);
    check_span(1, 1, 3, 1, 3 + (int)strlen(aug[i]));
  }
}
END_TEST

START_TEST(integers) {
  lex("0 7 0x1F 0o17 0b101 1_000_000 00 9223372036854775807\n");
  ck_assert_int_eq(toks[0].val->ival, 0);
  ck_assert_int_eq(toks[1].val->ival, 7);
  ck_assert_int_eq(toks[2].val->ival, 31);
  ck_assert_int_eq(toks[3].val->ival, 15);
  ck_assert_int_eq(toks[4].val->ival, 5);
  ck_assert_int_eq(toks[5].val->ival, 1000000);
  ck_assert_int_eq(toks[6].val->ival, 0);
  ck_assert_int_eq(toks[7].val->ival, INT64_MAX);
  ck_assert(!toks[7].val->big);
  lex("18446744073709551615 0xFFFF_FFFF_FFFF_FFFF\n");
  ck_assert(toks[0].val->big);
  ck_assert(toks[0].val->uval == UINT64_MAX);
  ck_assert(toks[1].val->uval == UINT64_MAX);
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(integer_errors) {
  lex("x = 18446744073709551616\n");
  ck_assert_str_eq(errors, "1:5: integer literal too large (the limit is 2**64 - 1)\n");
  check_span(2, 1, 5, 1, 25);
  lex("x = 0x1_0000_0000_0000_0000\n");
  ck_assert_str_eq(errors, "1:5: integer literal too large (the limit is 2**64 - 1)\n");
  lex("x = 12abc\n");
  ck_assert_str_eq(errors, "1:5: invalid number literal '12abc'\n");
  lex("x = 1_\n");
  ck_assert_str_eq(errors, "1:5: invalid number literal '1_'\n");
  lex("x = 0b102\n");
  ck_assert_str_eq(errors, "1:5: invalid number literal '0b102'\n");
  lex("x = 012\n");
  ck_assert_str_eq(errors, "1:5: leading zeros in decimal integer literals are not "
                           "permitted; use an 0o prefix for octal integers\n");
}
END_TEST

START_TEST(floats) {
  ck_assert_str_eq(lex("1.0 .5 1e-3 1.5e+10 1_000.0 5. 2j 2.5J\n"),
                   "FLOAT FLOAT FLOAT FLOAT FLOAT FLOAT IMAG IMAG NEWLINE END");
  ck_assert_double_eq(toks[0].val->fval, 1.0);
  ck_assert_double_eq(toks[1].val->fval, 0.5);
  ck_assert_double_eq(toks[2].val->fval, 1e-3);
  ck_assert_double_eq(toks[3].val->fval, 1.5e10);
  ck_assert_double_eq(toks[4].val->fval, 1000.0);
  ck_assert_double_eq(toks[5].val->fval, 5.0);
  ck_assert_double_eq(toks[6].val->fval, 2.0);
  ck_assert_int_eq(toks[6].val->kind, N_IMAG);
  ck_assert_double_eq(toks[7].val->fval, 2.5);
  check_span(3, 1, 13, 1, 20);
  lex("0.000000000000000000000000000000000000000000000000000000000000000000000000000000"
      "00000000000000000000000000000000000000000000000000000000000000000000000000000015\n");
  ck_assert_double_eq_tol(toks[0].val->fval, 1.5e-157, 1e-168);
  ck_assert_str_eq(lex("a.b x.shape[0]\n"), "NAME '.' NAME NAME '.' NAME '[' INT ']' NEWLINE END");
  lex("x = 1.5abc\n");
  ck_assert_str_eq(errors, "1:5: invalid number literal '1.5abc'\n");
}
END_TEST

START_TEST(strings) {
  lex("'a\\tb' \"q\\\"\" r'\\n' u'x' '\\x41\\101\\u00e9' 'unknown \\d'\n");
  ck_assert_str_eq(toks[0].val->str, "a\tb");
  ck_assert_str_eq(toks[1].val->str, "q\"");
  ck_assert_str_eq(toks[2].val->str, "\\n");
  ck_assert_str_eq(toks[3].val->str, "x");
  ck_assert_str_eq(toks[4].val->str, "AA\xc3\xa9");
  ck_assert_str_eq(toks[5].val->str, "unknown \\d");
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(triple_quoted) {
  ck_assert_str_eq(lex("def f():\n    \"\"\"Doc\n    it's \"here\"\n    \"\"\"\n    x\n"),
                   "def NAME '(' ')' ':' NEWLINE INDENT STRING NEWLINE NAME NEWLINE DEDENT END");
  ck_assert_str_eq(toks[7].val->str, "Doc\n    it's \"here\"\n    ");
  check_span(7, 2, 5, 4, 8);
  check_span(9, 5, 5, 5, 6);
  lex("x = '''a\\\nb'''\n");
  ck_assert_str_eq(toks[2].val->str, "ab");
}
END_TEST

START_TEST(string_errors) {
  lex("x = 'abc\ny = 1\n");
  ck_assert_str_eq(errors, "1:5: unterminated string literal\n");
  lex("x = \"\"\"abc\n\ny = 1\n");
  ck_assert_str_eq(errors, "1:5: unterminated triple-quoted string literal\n");
  lex("x = f'{a}'\n");
  ck_assert_str_eq(errors, "1:5: f-strings are not supported in kernels\n");
  lex("x = rb'a'\n");
  ck_assert_str_eq(errors, "1:5: bytes literals are not supported in kernels\n");
}
END_TEST

START_TEST(stray_characters) {
  ck_assert_str_eq(lex("x = $y\n"), "NAME '=' NAME NEWLINE END");
  ck_assert_str_eq(errors, "1:5: unexpected character '$'\n");
  lex("a ? b ! c `\n");
  ck_assert_str_eq(errors, "1:3: unexpected character '?'\n1:7: unexpected character '!'\n"
                           "1:11: unexpected character '`'\n");
  lex("x = 1 \\ 2\n");
  ck_assert_str_eq(errors, "1:7: unexpected character after line continuation character\n");
  lexn("x = \x01\n", 6);
  ck_assert_str_eq(errors, "1:5: unexpected character 0x01\n");
  lexn("x = \0\n", 6);
  ck_assert_str_eq(errors, "1:5: unexpected character 0x00\n");
}
END_TEST

START_TEST(walrus) {
  ck_assert_str_eq(lex("(y := 2)\n"), "'(' NAME ':=' INT ')' NEWLINE END");
  ck_assert_str_eq(errors, "");
}
END_TEST

START_TEST(non_utf8) {
  lex("x = 1\ny = \xff\n");
  ck_assert_str_eq(errors, "2:5: invalid byte 0xff: source must be UTF-8\n");
  lex("x = 1  # caf\xe9\nz = \xc3\n");
  ck_assert_str_eq(errors, "1:13: invalid byte 0xe9: source must be UTF-8\n");
  lex("s = 'ok \xc3\xa9 \xed\xa0\x80'\n");
  ck_assert_str_eq(errors, "1:12: invalid byte 0xed: source must be UTF-8\n");
  lex("s = '\xc3\xa9'  # \xe2\x9c\x93 fine\n");
  ck_assert_str_eq(errors, "");
}
END_TEST

/* PEP 3131: names of Unicode letters (XID_Start, XID_Continue); their NFKC
 * normalisation (the micro sign is Greek mu) is checked by tests/kernels/unicode_names.k. */
START_TEST(non_ascii_names) {
  ck_assert_str_eq(lex("\xcf\x80 = 3\n"), "NAME '=' INT NEWLINE END");
  ck_assert_str_eq(errors, "");
  ck_assert_str_eq(lex("caf\xc3\xa9 = \xc2\xb5_Q + \xef\xac\x81x\n"),
                   "NAME '=' NAME '+' NAME NEWLINE END");
  ck_assert_str_eq(errors, "");
  lex("\xe2\x86\x92 = 1\n");
  ck_assert_str_eq(errors, "1:1: invalid character '\xe2\x86\x92' (U+2192)\n");
  lex("a\xe2\x86\x92" "b = 1\n");   /* columns count bytes, as GCC's do */
  ck_assert_str_eq(errors, "1:2: invalid character '\xe2\x86\x92' (U+2192)\n");
}
END_TEST

START_TEST(brackets) {
  lex("x = (1,\n  2\n");
  ck_assert_str_eq(errors, "1:5: '(' was never closed\n");
  lex("x = 1)\n");
  ck_assert_str_eq(errors, "1:6: unmatched ')'\n");
  lex("x = (1]\n");
  ck_assert_str_eq(errors, "1:7: closing ']' does not match opening '(' on line 1\n");
  ck_assert_str_eq(lex("{}\n"), "'{' '}' NEWLINE END");
}
END_TEST

START_TEST(nesting_limits) {
  char src[1024];
  memset(src, '(', 200);
  strcpy(src + 200, "1");
  memset(src + 201, ')', 200);
  strcpy(src + 401, "\n");
  lex(src);
  ck_assert_str_eq(errors, "");
  memset(src, '[', 201);
  strcpy(src + 201, "1\n");
  lex(src);
  ck_assert_str_eq(errors, "1:201: too deeply nested (limit 200)\n");
  ck_assert_int_eq(toks[ntoks - 1].kind, 0);
}
END_TEST

START_TEST(block_limit) {
  static char src[64 * 1024];
  src[0] = '\0';
  for (int i = 0; i <= 101; i++) {
    char line[256];
    snprintf(line, sizeof line, "%*sif x:\n", i, "");
    strcat(src, line);
  }
  lex(src);
  ck_assert_str_eq(errors, "102:102: too deeply nested (limit 100 indentation levels)\n");
}
END_TEST

static Suite *lexer_suite(void) {
  Suite *s = suite_create("lexer");
  TCase *t = tcase_create("tokens");
  tcase_add_checked_fixture(t, NULL, teardown);
  tcase_add_test(t, simple_line_and_spans);
  tcase_add_test(t, empty_and_blank_files);
  tcase_add_test(t, no_newline_at_end);
  tcase_add_test(t, indent_dedent);
  tcase_add_test(t, tabs_alone_are_fine);
  tcase_add_test(t, tabs_mixed_with_spaces);
  tcase_add_test(t, bad_dedent);
  tcase_add_test(t, unexpected_indent_is_a_token);
  tcase_add_test(t, line_joining);
  tcase_add_test(t, crlf);
  tcase_add_test(t, keywords);
  tcase_add_test(t, operators);
  tcase_add_test(t, integers);
  tcase_add_test(t, integer_errors);
  tcase_add_test(t, floats);
  tcase_add_test(t, strings);
  tcase_add_test(t, triple_quoted);
  tcase_add_test(t, string_errors);
  tcase_add_test(t, stray_characters);
  tcase_add_test(t, walrus);
  tcase_add_test(t, non_utf8);
  tcase_add_test(t, non_ascii_names);
  tcase_add_test(t, brackets);
  tcase_add_test(t, nesting_limits);
  tcase_add_test(t, block_limit);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(lexer_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

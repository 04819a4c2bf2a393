/*
 * test_diag.c — the GCC-style diagnostic text, byte for byte: location, severity,
 * the quoted line and the caret line (tabs, multi-byte characters, spans running
 * past the line), notes, colour, the error cap and first_error.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

typedef struct capture {
  char text[8192];
  int n;
  kc_diagnostic last;
} capture;

static void on_diag(void *ud, const kc_diagnostic *kd) {
  capture *c = ud;
  strncat(c->text, kd->text, sizeof c->text - strlen(c->text) - 1);
  c->last = *kd;
  c->n++;
}

static arena ar;
static jmp_buf oom;
static capture cap;
static diag_sink d;

static void setup_src(const char *src) {
  arena_init(&ar, NULL, NULL);
  arena_set_oom(&ar, &oom);
  memset(&cap, 0, sizeof cap);
  diag_init(&d, &ar, "file.k", src, src ? strlen(src) : 0);
  d.emit = on_diag;
  d.user_data = &cap;
}

static void teardown(void) { arena_free(&ar); }

static span sp(int l, int c, int el, int ec) {
  span s = {l, c, el, ec};
  return s;
}

START_TEST(error_with_caret) {
  setup_src("x = 1\nfoo = bar + baz\n");
  diag_error(&d, sp(2, 7, 2, 16), "bad %s", "sum");
  ck_assert_str_eq(cap.text, "file.k:2:7: error: bad sum\n"
                             "foo = bar + baz\n"
                             "      ^~~~~~~~~\n");
  ck_assert_int_eq(d.nerrors, 1);
  ck_assert_str_eq(cap.last.message, "bad sum");
  ck_assert_int_eq(cap.last.severity, KC_SEV_ERROR);
  ck_assert_int_eq(cap.last.line, 2);
  ck_assert_int_eq(cap.last.col, 7);
  ck_assert_int_eq(cap.last.end_col, 16);
  ck_assert_str_eq(cap.last.file, "file.k");
  ck_assert_str_eq(d.first_error, cap.text);
  teardown();
}
END_TEST

START_TEST(single_caret_for_empty_span) {
  setup_src("abc");
  diag_error(&d, sp(1, 2, 1, 2), "here");
  ck_assert_str_eq(cap.text, "file.k:1:2: error: here\nabc\n ^\n");
  teardown();
}
END_TEST

START_TEST(tabs_kept_in_caret_line) {
  setup_src("\tif x:\n\t\ty = $\n");
  diag_error(&d, sp(2, 7, 2, 8), "unexpected character '$'");
  ck_assert_str_eq(cap.text, "file.k:2:7: error: unexpected character '$'\n"
                             "\t\ty = $\n"
                             "\t\t    ^\n");
  teardown();
}
END_TEST

START_TEST(multibyte_characters_take_one_place) {
  setup_src("s = \"é\" + x\n");
  /* columns count bytes: é is 2 bytes, so x is at byte column 12 */
  diag_error(&d, sp(1, 12, 1, 13), "undefined name 'x'");
  ck_assert_str_eq(cap.text, "file.k:1:12: error: undefined name 'x'\n"
                             "s = \"é\" + x\n"
                             "          ^\n");
  teardown();
}
END_TEST

START_TEST(span_over_several_lines_underlines_to_line_end) {
  setup_src("y = (a +\n     b)\n");
  diag_error(&d, sp(1, 5, 2, 8), "bad");
  ck_assert_str_eq(cap.text, "file.k:1:5: error: bad\ny = (a +\n    ^~~~\n");
  teardown();
}
END_TEST

START_TEST(warning_and_note) {
  setup_src("a = 1\nb = 2.0\n");
  diag_warning(&d, sp(2, 5, 2, 8), "widened to float64");
  diag_note(&d, sp(1, 1, 1, 2), "'%s' declared here", "a");
  ck_assert_str_eq(cap.text, "file.k:2:5: warning: widened to float64\n"
                             "b = 2.0\n"
                             "    ^~~\n"
                             "file.k:1:1: note: 'a' declared here\n"
                             "a = 1\n"
                             "^\n");
  ck_assert_int_eq(d.nwarnings, 1);
  ck_assert_int_eq(d.nerrors, 0);
  ck_assert_ptr_null(d.first_error);
  ck_assert_int_eq(cap.last.severity, KC_SEV_NOTE);
  teardown();
}
END_TEST

START_TEST(no_place) {
  setup_src("x\n");
  diag_error(&d, span_none(), "no kernels");
  ck_assert_str_eq(cap.text, "file.k: error: no kernels\n");
  ck_assert_int_eq(cap.last.line, 0);
  teardown();
}
END_TEST

START_TEST(line_past_end_of_source) {
  setup_src("x\n");
  diag_error(&d, sp(7, 1, 7, 2), "far away");
  ck_assert_str_eq(cap.text, "file.k:7:1: error: far away\n");
  teardown();
}
END_TEST

START_TEST(crlf_and_invalid_bytes_in_quoted_line) {
  setup_src("x = \xff\r\ny\r\n");
  diag_error(&d, sp(1, 5, 1, 6), "invalid byte 0xff: source must be UTF-8");
  ck_assert_str_eq(cap.text, "file.k:1:5: error: invalid byte 0xff: source must be UTF-8\n"
                             "x = ?\n"
                             "    ^\n");
  teardown();
}
END_TEST

START_TEST(colour_only_when_asked) {
  setup_src("x = 1\n");
  d.color = 1;
  diag_error(&d, sp(1, 1, 1, 2), "m");
  ck_assert_ptr_nonnull(strstr(cap.text, "\033[1;31merror: \033[0m"));
  ck_assert_ptr_nonnull(strstr(cap.text, "\033[1mfile.k:1:1: \033[0m"));
  ck_assert_ptr_nonnull(strstr(cap.text, "\033[1;32m^\033[0m"));
  ck_assert_str_eq(cap.last.message, "m");
  teardown();
}
END_TEST

START_TEST(error_cap_stops_reporting_but_keeps_counting) {
  setup_src("x\n");
  d.max_errors = 3;
  for (int i = 0; i < 10; i++) {
    diag_error(&d, sp(1, 1, 1, 2), "error %d", i);
    diag_note(&d, sp(1, 1, 1, 2), "note %d", i);
  }
  ck_assert_int_eq(d.nerrors, 10);
  /* 3 errors + 3 notes + one "too many errors" */
  ck_assert_int_eq(cap.n, 7);
  ck_assert_ptr_nonnull(strstr(cap.text, "file.k: error: too many errors, stopping\n"));
  ck_assert_ptr_null(strstr(cap.text, "error 3"));
  ck_assert_ptr_null(strstr(cap.text, "note 3"));
  ck_assert_ptr_nonnull(strstr(d.first_error, "error 0"));
  teardown();
}
END_TEST

START_TEST(default_cap_is_twenty) {
  setup_src("x\n");
  for (int i = 0; i < 25; i++)
    diag_error(&d, sp(1, 1, 1, 2), "e");
  ck_assert_int_eq(d.nerrors, 25);
  ck_assert_int_eq(cap.n, 21);
  teardown();
}
END_TEST

START_TEST(null_source) {
  setup_src(NULL);
  diag_error(&d, sp(1, 1, 1, 2), "m");
  ck_assert_str_eq(cap.text, "file.k:1:1: error: m\n");
  teardown();
}
END_TEST

START_TEST(span_join_orders) {
  span a = sp(2, 5, 2, 9), b = sp(1, 3, 1, 4), j = span_join(a, b);
  ck_assert_int_eq(j.line, 1);
  ck_assert_int_eq(j.col, 3);
  ck_assert_int_eq(j.end_line, 2);
  ck_assert_int_eq(j.end_col, 9);
  j = span_join(span_none(), a);
  ck_assert_int_eq(j.line, 2);
  j = span_join(a, span_none());
  ck_assert_int_eq(j.col, 5);
}
END_TEST

START_TEST(arena_basics) {
  arena a;
  arena_init(&a, NULL, NULL);
  arena_set_oom(&a, &oom);
  char *big = arena_alloc(&a, 1 << 20); /* larger than a chunk */
  big[(1 << 20) - 1] = 1;
  ck_assert_str_eq(arena_printf(&a, "%d-%s", 42, "x"), "42-x");
  ck_assert_str_eq(arena_strndup(&a, "abcdef", 3), "abc");
  ptr_vec v = {0};
  for (intptr_t i = 0; i < 1000; i++)
    vec_push(&a, &v, (void *)i);
  ck_assert_int_eq(v.len, 1000);
  ck_assert_ptr_eq(v.items[999], (void *)999);
  int *z = arena_alloc(&a, 64 * sizeof(int));
  for (int i = 0; i < 64; i++)
    ck_assert_int_eq(z[i], 0);
  ck_assert_int_eq((intptr_t)z % 16, 0);
  arena_free(&a);
  arena_free(&a); /* twice is harmless */
}
END_TEST

static int fail_after;

static void *failing_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
  (void)ud;
  if (nsize && fail_after-- <= 0)
    return NULL;
  return arena_default_alloc(NULL, ptr, osize, nsize);
}

START_TEST(arena_out_of_memory_jumps) {
  arena a;
  jmp_buf jb;
  volatile int jumped = 0;
  fail_after = 1;
  arena_init(&a, failing_alloc, NULL);
  arena_set_oom(&a, &jb);
  if (setjmp(jb) == 0) {
    arena_alloc(&a, 10);          /* first chunk: fine */
    arena_alloc(&a, 1 << 20);     /* needs a second: fails */
  } else {
    jumped = 1;
  }
  ck_assert_int_eq(jumped, 1);
  arena_free(&a);
}
END_TEST

static Suite *diag_suite(void) {
  Suite *s = suite_create("diag");
  TCase *t = tcase_create("format");
  tcase_add_test(t, error_with_caret);
  tcase_add_test(t, single_caret_for_empty_span);
  tcase_add_test(t, tabs_kept_in_caret_line);
  tcase_add_test(t, multibyte_characters_take_one_place);
  tcase_add_test(t, span_over_several_lines_underlines_to_line_end);
  tcase_add_test(t, warning_and_note);
  tcase_add_test(t, no_place);
  tcase_add_test(t, line_past_end_of_source);
  tcase_add_test(t, crlf_and_invalid_bytes_in_quoted_line);
  tcase_add_test(t, colour_only_when_asked);
  tcase_add_test(t, error_cap_stops_reporting_but_keeps_counting);
  tcase_add_test(t, default_cap_is_twenty);
  tcase_add_test(t, null_source);
  tcase_add_test(t, span_join_orders);
  tcase_add_test(t, arena_basics);
  tcase_add_test(t, arena_out_of_memory_jumps);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(diag_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

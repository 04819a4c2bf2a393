/*
 * test_random_api.c — kc_random_states on the CPU device: shape and dtype, the first
 * state against splitmix64's published first output for seed 0, distinct rows, and
 * the argument errors. (The streams themselves are checked against an independent C
 * generator in tests/kernels/random.c.)
 */
#include <check.h>
#include <string.h>

#include "kc.h"

static kc_context *ctx;

static void setup(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.cache = -1;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
}

static void teardown(void) { kc_context_free(ctx); }

START_TEST(shape_and_first_state) {
  kc_array *st = NULL;
  ck_assert_int_eq(kc_random_states(ctx, 3, 0, &st), KC_OK);
  ck_assert_int_eq(kc_array_dtype(st), KC_UINT64);
  ck_assert_int_eq(kc_array_ndim(st), 2);
  ck_assert_int_eq(kc_array_shape(st)[0], 3);
  ck_assert_int_eq(kc_array_shape(st)[1], 2);
  uint64_t s[6];
  ck_assert_int_eq(kc_array_to_host(st, s, sizeof s), KC_OK);
  /* splitmix64 from state 0 first returns 0xe220a8397b1dcdaf; both words take it */
  ck_assert(s[0] == 0xe220a8397b1dcdafull && s[1] == s[0]);
  ck_assert(s[2] != s[0] && s[4] != s[2] && s[3] != s[2]);
  kc_array_free(st);
}
END_TEST

START_TEST(bad_arguments) {
  kc_array *st = NULL;
  ck_assert_int_eq(kc_random_states(ctx, 0, 1, &st), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "kc_random_states: n is 0; it must be at least 1");
  ck_assert_ptr_null(st);
  ck_assert_int_eq(kc_random_states(ctx, -5, 1, &st), KC_ERR_INVALID);
  ck_assert_int_eq(kc_random_states(ctx, 4, 1, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_random_states(NULL, 4, 1, &st), KC_ERR_INVALID);
}
END_TEST

int main(void) {
  Suite *s = suite_create("random_api");
  TCase *t = tcase_create("cpu");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_add_test(t, shape_and_first_state);
  tcase_add_test(t, bad_arguments);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

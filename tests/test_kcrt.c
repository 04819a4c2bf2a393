/*
 * test_kcrt.c — libkcrt, the runtime without the compiler, through kc.h alone (this
 * program links libkcrt.so): compiling is KC_ERR_UNSUPPORTED with the message that says
 * what to do, the context stays usable, and what needs no compiler works on the CPU
 * device (arrays, fills, copies, random states, streams and events); kc_detect says
 * there is no compiler. The expected random state is Numba's first xoroshiro128+ state
 * for seed 0 (splitmix64 of 0, both words: 0xe220a8397b1dcdaf).
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

static const char *const NO_COMPILER =
    "this program is linked with libkcrt, the runtime without the compiler, which cannot "
    "compile kernels: run it on a CUDA GPU (PTX and cubins load without the compiler), or "
    "link libkc (pkg-config kc) to compile kernels at run time";

static kc_context *cpu_context(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  return ctx;
}

START_TEST(compiling_is_unsupported) {
  kc_context *ctx = cpu_context();
  const char *src = "from numba import cuda\n@cuda.jit\ndef k(a):\n    a[0] = 1\n";
  kc_module *m = (kc_module *)1;
  ck_assert_int_eq(kc_compile_source(ctx, "k.k", src, strlen(src), NULL, &m),
                   KC_ERR_UNSUPPORTED);
  ck_assert_ptr_null(m);
  const char *err = kc_last_error(ctx);
  ck_assert_str_eq(err + strlen("kc_compile_source: "), NO_COMPILER);
  ck_assert_int_eq(strncmp(err, "kc_compile_source: ", 19), 0);
  /* a file: read, then refused the same way */
  const char *root = getenv("KC_SOURCE_ROOT");
  if (root) {
    char path[4096];
    snprintf(path, sizeof path, "%s/samples/vector_add.k", root);
    ck_assert_int_eq(kc_compile_file(ctx, path, NULL, &m), KC_ERR_UNSUPPORTED);
    ck_assert_ptr_nonnull(strstr(kc_last_error(ctx), NO_COMPILER));
  }
  kc_context_free(ctx);
}
END_TEST

START_TEST(runtime_without_compiler) {
  kc_context *ctx = cpu_context();
  int64_t n = 1000;
  float host[1000], back[1000];
  for (int i = 0; i < 1000; i++) host[i] = (float)i * 0.5f;
  kc_array *a = NULL, *b = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, host, sizeof host, &a), KC_OK);
  ck_assert_int_eq(kc_array_like(a, &b), KC_OK);
  const float seven = 7.0f;
  ck_assert_int_eq(kc_array_fill(b, &seven), KC_OK);
  ck_assert_int_eq(kc_array_to_host(b, back, sizeof back), KC_OK);
  ck_assert(back[999] == 7.0f);
  ck_assert_int_eq(kc_array_to_host(a, back, sizeof back), KC_OK);
  ck_assert_int_eq(memcmp(host, back, sizeof host), 0);
  kc_stream *st = NULL;
  kc_event *e0 = NULL, *e1 = NULL;
  float ms = -1.0f;
  ck_assert_int_eq(kc_stream_new(ctx, &st), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e0), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e1), KC_OK);
  ck_assert_int_eq(kc_event_record(e0, st), KC_OK);
  ck_assert_int_eq(kc_event_record(e1, st), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(st), KC_OK);
  ck_assert_int_eq(kc_event_elapsed_ms(e0, e1, &ms), KC_OK);
  ck_assert(ms >= 0.0f);
  kc_array *states = NULL;
  uint64_t s[2];
  ck_assert_int_eq(kc_random_states(ctx, 1, 0, &states), KC_OK);
  ck_assert_int_eq(kc_array_to_host(states, s, sizeof s), KC_OK);
  ck_assert_uint_eq(s[0], 0xe220a8397b1dcdafull);
  ck_assert_uint_eq(s[1], 0xe220a8397b1dcdafull);
  kc_array_free(states);
  kc_event_free(e1);
  kc_event_free(e0);
  kc_stream_free(st);
  kc_array_free(b);
  kc_array_free(a);
  kc_context_free(ctx);
}
END_TEST

START_TEST(detect_says_no_compiler) {
  char buf[8192];
  ck_assert_int_eq(kc_detect(buf, sizeof buf, NULL), KC_OK);
  ck_assert_ptr_nonnull(strstr(buf, "\ncompiler: none (libkcrt"));
}
END_TEST

int main(void) {
  Suite *s = suite_create("kcrt");
  TCase *tc = tcase_create("kcrt");
  tcase_add_test(tc, compiling_is_unsupported);
  tcase_add_test(tc, runtime_without_compiler);
  tcase_add_test(tc, detect_says_no_compiler);
  suite_add_tcase(s, tc);
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

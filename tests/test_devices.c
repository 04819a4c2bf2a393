/*
 * test_devices.c — choosing a device and copying between contexts, without a GPU:
 * KC_DEVICE=cuda:N parsed strictly (cuda:1 accepted; cuda:x, cuda:-1, cuda:,
 * cuda:99999999999 refused with a message), a missing ordinal reported with where it
 * was asked for, kc_config.cuda_device checked, and kc_array_copy_peer between two CPU
 * contexts (copies and every refusal). GPU checks of the same: tests/test_cuda_gpu.c.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static int have_cuda(void) {
  int n = 0;
  return kc_cuda_device_count(&n) == KC_OK && n > 0;
}

/* What kc_context_new says when it cannot reach CUDA on this machine. */
static const char *no_cuda_text(void) {
#ifdef KC_HAVE_CUDA
  static char msg[512];
  rt_cuda_load(msg, sizeof msg);
  return msg;
#else
  return "kcc was not built with CUDA support (no CUDA headers at build time)";
#endif
}

/* kc_context_new under KC_DEVICE=env with cfg (NULL: defaults); the status, and the
 * message into msg. */
static kc_status new_with_env(const char *env, const kc_config *cfg, char *msg, size_t len,
                              kc_device_kind *dev) {
  setenv("KC_DEVICE", env, 1);
  kc_context *ctx = NULL;
  kc_status s = kc_context_new(cfg, &ctx);
  unsetenv("KC_DEVICE");
  ck_assert_ptr_nonnull(ctx);
  snprintf(msg, len, "%s", kc_last_error(ctx));
  if (dev) *dev = kc_context_device(ctx);
  kc_context_free(ctx);
  return s;
}

START_TEST(ordinal_syntax) {
  static const char *const bad[] = {"cuda:x", "cuda:-1", "cuda:", "cuda:99999999999",
                                    "cuda:1x", "cuda: 1", "gpu:+2"};
  char msg[512], want[256];
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(new_with_env(bad[i], NULL, msg, sizeof msg, NULL), KC_ERR_INVALID);
    snprintf(want, sizeof want,
             "KC_DEVICE='%s': the device ordinal must be a number from 0 to 2147483647",
             bad[i]);
    ck_assert_str_eq(msg, want);
  }
  ck_assert_int_eq(new_with_env("cuda1", NULL, msg, sizeof msg, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(msg, "KC_DEVICE='cuda1' is not one of cpu, cuda, cuda:N, auto");
  /* the largest int is a well-formed ordinal: refused for want of the device, not parsed */
  if (!have_cuda())
    ck_assert_int_eq(new_with_env("cuda:2147483647", NULL, msg, sizeof msg, NULL),
                     KC_ERR_NO_DEVICE);
}
END_TEST

START_TEST(missing_ordinal) {
  if (have_cuda()) return; /* test_cuda_gpu checks one past the last GPU */
  char msg[512], want[640];
  ck_assert_int_eq(new_with_env("cuda:1", NULL, msg, sizeof msg, NULL), KC_ERR_NO_DEVICE);
  snprintf(want, sizeof want, "KC_DEVICE=cuda:1: %s", no_cuda_text());
  ck_assert_str_eq(msg, want);
  ck_assert_int_eq(new_with_env("GPU:0", NULL, msg, sizeof msg, NULL), KC_ERR_NO_DEVICE);
  snprintf(want, sizeof want, "KC_DEVICE=GPU:0: %s", no_cuda_text());
  ck_assert_str_eq(msg, want);
  /* the config's ordinal, CUDA asked for */
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  cfg.cuda_device = 3;
  ck_assert_int_eq(new_with_env("auto", &cfg, msg, sizeof msg, NULL), KC_ERR_NO_DEVICE);
  snprintf(want, sizeof want, "config cuda_device 3: %s", no_cuda_text());
  ck_assert_str_eq(msg, want);
  /* AUTO falls back to the CPU whatever the ordinal; cpu ignores it */
  kc_device_kind dev;
  cfg.device = KC_DEVICE_AUTO;
  ck_assert_int_eq(new_with_env("auto", &cfg, msg, sizeof msg, &dev), KC_OK);
  ck_assert_int_eq(dev, KC_DEVICE_CPU);
  ck_assert_int_eq(new_with_env("cpu", &cfg, msg, sizeof msg, &dev), KC_OK);
  ck_assert_int_eq(dev, KC_DEVICE_CPU);
}
END_TEST

START_TEST(negative_config_ordinal) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cuda_device = -1;
  char msg[512];
  ck_assert_int_eq(new_with_env("auto", &cfg, msg, sizeof msg, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(msg, "config: cuda_device -1 is negative");
}
END_TEST

START_TEST(detect_without_gpus) {
  if (have_cuda()) return;
  char text[4096];
  ck_assert_int_eq(kc_detect(text, sizeof text, NULL), KC_OK);
  ck_assert_ptr_null(strstr(text, "peer access"));
  ck_assert_ptr_nonnull(strstr(text, "CUDA devices: none\n"));
}
END_TEST

/* ---- kc_array_copy_peer between two CPU contexts -------------------------------------- */
static kc_context *cpu_context(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 1;
  kc_context *ctx = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  return ctx;
}

START_TEST(peer_copy_cpu) {
  kc_context *c1 = cpu_context(), *c2 = cpu_context();
  enum { N = 1000 };
  int64_t shape[2] = {10, 100};
  double h[N], back[N];
  for (int i = 0; i < N; i++) h[i] = 0.25 * i - 7.0;
  kc_array *a, *b, *a2;
  ck_assert_int_eq(kc_array_from_host(c1, KC_FLOAT64, 2, shape, h, sizeof h, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT64, 2, shape, &b), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(b, a, NULL), KC_OK);
  ck_assert_int_eq(kc_array_to_host(b, back, sizeof back), KC_OK);
  ck_assert_mem_eq(back, h, sizeof h);
  /* a stream of either context orders it */
  kc_stream *s1, *s2;
  ck_assert_int_eq(kc_stream_new(c1, &s1), KC_OK);
  ck_assert_int_eq(kc_stream_new(c2, &s2), KC_OK);
  ck_assert_int_eq(kc_array_zero(a), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(a, b, s2), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s2), KC_OK);
  ck_assert_int_eq(kc_array_to_host(a, back, sizeof back), KC_OK);
  ck_assert_mem_eq(back, h, sizeof h);
  ck_assert_int_eq(kc_array_copy_peer(b, a, s1), KC_OK);
  /* rows of a view (contiguous) to another context */
  kc_array *rows, *dst;
  int64_t one[2] = {1, 100};
  ck_assert_int_eq(kc_array_view(a, 9, 10, &rows), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT64, 2, one, &dst), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(dst, rows, NULL), KC_OK);
  ck_assert_int_eq(kc_array_to_host(dst, back, 100 * sizeof(double)), KC_OK);
  ck_assert_mem_eq(back, h + 900, 100 * sizeof(double));
  /* one context: the same as kc_array_copy */
  ck_assert_int_eq(kc_array_like(a, &a2), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(a2, a, s1), KC_OK);
  ck_assert_int_eq(kc_array_to_host(a2, back, sizeof back), KC_OK);
  ck_assert_mem_eq(back, h, sizeof h);
  kc_array_free(a2);
  kc_array_free(dst);
  kc_array_free(rows);
  kc_stream_free(s1);
  kc_stream_free(s2);
  kc_array_free(b);
  kc_array_free(a);
  kc_context_free(c2);
  kc_context_free(c1);
}
END_TEST

START_TEST(peer_copy_refusals) {
  kc_context *c1 = cpu_context(), *c2 = cpu_context(), *c3 = cpu_context();
  int64_t n = 64, m = 32;
  kc_array *a, *b, *small, *ints, *strided, *gone;
  ck_assert_int_eq(kc_array_new(c1, KC_FLOAT32, 1, &n, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT32, 1, &n, &b), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT32, 1, &m, &small), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_INT32, 1, &n, &ints), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(NULL, a, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_copy_peer(b, NULL, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_array_copy_peer(small, a, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(c2),
                   "peer copy: source is float32 of 64 elements, destination float32 of 32");
  ck_assert_int_eq(kc_array_copy_peer(ints, a, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(c2),
                   "peer copy: source is float32 of 64 elements, destination int32 of 64");
  int64_t step = 2;
  ck_assert_int_eq(kc_array_slice(a, NULL, NULL, &step, &strided), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(small, strided, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(c2), "peer copy: the source is a non-contiguous view "
                                      "(kc_array_slice)");
  kc_stream *s3;
  ck_assert_int_eq(kc_stream_new(c3, &s3), KC_OK);
  ck_assert_int_eq(kc_array_copy_peer(b, a, s3), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(c2),
                   "peer copy: the stream belongs to neither array's context");
  ck_assert_int_eq(kc_array_new(c1, KC_FLOAT32, 1, &n, &gone), KC_OK);
  kc_array_free(gone);
  ck_assert_int_eq(kc_array_copy_peer(b, gone, NULL), KC_ERR_INVALID);
  ck_assert_ptr_nonnull(strstr(kc_last_error(c2), "peer copy: source: the array was freed"));
  kc_stream_free(s3);
  kc_array_free(strided);
  kc_array_free(ints);
  kc_array_free(small);
  kc_array_free(b);
  kc_array_free(a);
  kc_context_free(c3);
  kc_context_free(c2);
  kc_context_free(c1);
}
END_TEST

int main(void) {
  Suite *su = suite_create("devices");
  TCase *t = tcase_create("devices");
  tcase_add_test(t, ordinal_syntax);
  tcase_add_test(t, missing_ordinal);
  tcase_add_test(t, negative_config_ordinal);
  tcase_add_test(t, detect_without_gpus);
  tcase_add_test(t, peer_copy_cpu);
  tcase_add_test(t, peer_copy_refusals);
  suite_add_tcase(su, t);
  SRunner *sr = srunner_create(su);
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

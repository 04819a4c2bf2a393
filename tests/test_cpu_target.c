/*
 * test_cpu_target.c — the CPU the CPU back end compiles for (kc_config.cpu_target,
 * KC_CPU_TARGET, KC_HOST_CPU; src/target/target_host.c): this CPU by default, x86-64's
 * baselines by name (the baseline's IR has SSE2's vectors, the code runs and computes
 * right), an unknown
 * name refused by kc_context_new with a message naming it and the known ones, the
 * config before the environment, and a baseline this CPU cannot run refused when
 * compiling rather than crashing at run time.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt.h"

static const char src[] =
  "from numba import cuda, float32\n"
  "@cuda.jit\n"
  "def axpb(a: float32[:], out: float32[:], s: float32):\n"
  "    i = cuda.grid(1)\n"
  "    if i < out.size:\n"
  "        out[i] = a[i] * s + 2.0\n";

static void setup(void) {
  unsetenv("KC_CPU_TARGET");
  unsetenv("KC_HOST_CPU");
  setenv("KC_CACHE", "0", 1);
}

/* kc_context_new on the CPU with cpu_target; its status, the message in msg. */
static kc_status new_context(const char *cpu, kc_context **ctx, char *msg, size_t len) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_target = cpu;
  *ctx = NULL;
  kc_status s = kc_context_new(&cfg, ctx);
  snprintf(msg, len, "%s", *ctx ? kc_last_error(*ctx) : "");
  return s;
}

static void expect_refused(const char *cpu, const char *names) {
  kc_context *ctx;
  char msg[512];
  ck_assert_int_eq(new_context(cpu, &ctx, msg, sizeof msg), KC_ERR_INVALID);
  ck_assert_msg(strstr(msg, names) != NULL, "'%s' lacks '%s'", msg, names);
#if defined(__x86_64__)
  ck_assert_msg(strstr(msg, "x86-64-v2") != NULL, "'%s' names no known CPU", msg);
#endif
  kc_context_free(ctx);
}

START_TEST(unknown_names_are_refused) {
  kc_config cfg;
  kc_config_init(&cfg);
  ck_assert_ptr_null(cfg.cpu_target);   /* the default: this CPU */
  expect_refused("pentium9", "'pentium9'");
  expect_refused("x86-64-v5", "'x86-64-v5'");
  setenv("KC_CPU_TARGET", "bogus", 1);
  expect_refused(NULL, "KC_CPU_TARGET 'bogus'");
  expect_refused("", "KC_CPU_TARGET 'bogus'");
  unsetenv("KC_CPU_TARGET");
  setenv("KC_HOST_CPU", "bogus2", 1);   /* the older name, read the same way */
  expect_refused(NULL, "KC_HOST_CPU 'bogus2'");
}
END_TEST

START_TEST(config_before_environment) {
  kc_context *ctx;
  char msg[512];
  setenv("KC_CPU_TARGET", "bogus", 1);
  ck_assert_int_eq(new_context("host", &ctx, msg, sizeof msg), KC_OK);
  ck_assert_str_eq(ctx->cfg.cpu_target, "host");
  kc_context_free(ctx);
  setenv("KC_CPU_TARGET", "host", 1);
  setenv("KC_HOST_CPU", "bogus", 1);   /* KC_CPU_TARGET first */
  ck_assert_int_eq(new_context(NULL, &ctx, msg, sizeof msg), KC_OK);
  kc_context_free(ctx);
}
END_TEST

/* Compile on a context for cpu and run the kernel: KC_OK and right results, or the
 * compile's status. */
static kc_status run_on(const char *cpu, char *msg, size_t len) {
  enum { N = 300 };
  kc_context *ctx;
  ck_assert_int_eq(new_context(cpu, &ctx, msg, len), KC_OK);
  kc_module *m = NULL;
  kc_status s = kc_compile_source(ctx, "axpb.k", src, sizeof src - 1, NULL, &m);
  snprintf(msg, len, "%s", kc_last_error(ctx));
  if (s == KC_OK) {
    kc_kernel *k;
    ck_assert_int_eq(kc_module_get_kernel(m, "axpb", &k), KC_OK);
    float a[N], got[N];
    for (int i = 0; i < N; i++) a[i] = (float)i - 100.5f;
    int64_t shape[1] = {N};
    kc_array *da, *dout;
    ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, a, (size_t)shape[0] * sizeof *a, &da), KC_OK);
    ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, shape, &dout), KC_OK);
    kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_f32(0.5f)};
    ck_assert_int_eq(kc_launch(k, kc_dim(3), kc_dim(128), 0, NULL, args, 3), KC_OK);
    ck_assert_int_eq(kc_array_to_host(dout, got, sizeof got), KC_OK);
    for (int i = 0; i < N; i++) ck_assert_float_eq(got[i], a[i] * 0.5f + 2.0f);
    kc_array_free(da);
    kc_array_free(dout);
  }
  kc_module_free(m);
  kc_context_free(ctx);
  return s;
}

START_TEST(host_by_default) {
  char msg[512];
  ck_assert_msg(run_on(NULL, msg, sizeof msg) == KC_OK, "%s", msg);
  ck_assert_msg(run_on("host", msg, sizeof msg) == KC_OK, "%s", msg);
}
END_TEST

#if defined(__x86_64__)
/* Each baseline: compiled for (the IR's vectors fit its registers); its code runs when this CPU has what it
 * needs (the newest feature each level adds, checked here with the compiler's own
 * test), and is refused, naming what is missing, when it does not. */
START_TEST(each_baseline) {
  static const char *const levels[] = {"x86-64", "x86-64-v2", "x86-64-v3", "x86-64-v4"};
  __builtin_cpu_init();
  int runs[] = {1, __builtin_cpu_supports("sse4.2") && __builtin_cpu_supports("popcnt"),
                __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2") &&
                    __builtin_cpu_supports("fma"),
                __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
                    __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512vl")};
  const char *level = levels[_i];
  kcc_options o;
  kcc_options_init(&o);
  o.target = KCC_TARGET_HOST;
  o.emit = KCC_EMIT_LLVM;
  o.cpu = level;
  kcc_output out;
  ck_assert_int_eq(kcc_compile(&o, "axpb.k", src, sizeof src - 1, &out), KC_OK);
  /* the optimiser saw the CPU: vectors of SSE2's 128 bits at most for the baseline */
  ck_assert_ptr_nonnull(strstr(out.text, "x float>"));
  if (_i == 0) ck_assert_ptr_null(strstr(out.text, "<8 x float>"));
  kcc_output_free(&out);
  char msg[512];
  kc_status s = run_on(level, msg, sizeof msg);
  if (runs[_i]) {
    ck_assert_msg(s == KC_OK, "%s: %s", level, msg);
  } else {
    ck_assert_int_eq(s, KC_ERR_INVALID);
    ck_assert_msg(strstr(msg, "cannot run on this CPU: it lacks") != NULL, "%s", msg);
  }
}
END_TEST
#endif

int main(void) {
  Suite *s = suite_create("cpu_target");
  TCase *t = tcase_create("cpu_target");
  tcase_add_checked_fixture(t, setup, NULL);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, unknown_names_are_refused);
  tcase_add_test(t, config_before_environment);
  tcase_add_test(t, host_by_default);
#if defined(__x86_64__)
  tcase_add_loop_test(t, each_baseline, 0, 4);
#endif
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

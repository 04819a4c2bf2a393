/*
 * test_cpu_link.c — link= files on the CPU back end (src/target/host_link.c): GPU code
 * (a .ptx) with a C file of the same stem beside it runs that C; without one, an error
 * at the link= entry that says what to give; a .cu that does not compile, the
 * compiler's own message at the entry; a function the files lack, named there; a
 * compiler that cannot be run ($CXX), said so.
 * Each source is written to a scratch directory, beside its link files.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kc.h"

static char dir[256];

static const char kernel[] =
  "from numba import cuda, float32, void\n"
  "twice = cuda.declare_device('twice_f32', 'float32(float32)')\n"
  "@cuda.jit(void(float32[:]), link=['%s'])\n"
  "def k(a):\n"
  "    i = cuda.grid(1)\n"
  "    if i < a.size:\n"
  "        a[i] = twice(a[i])\n";

static void write_file(const char *name, const char *text) {
  char path[512];
  snprintf(path, sizeof path, "%s/%s", dir, name);
  FILE *f = fopen(path, "w");
  ck_assert_ptr_nonnull(f);
  fputs(text, f);
  fclose(f);
}

static void setup(void) {
  setenv("KC_CACHE", "0", 1);
  snprintf(dir, sizeof dir, "%s/kcc-link-test-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
  ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  ck_assert_int_eq(system(cmd), 0);
}

/* Compile the kernel linking `link` (a name in dir) on the CPU; its status, the
 * message in msg; on KC_OK, runs it and checks a[i] = 2 * a[i]. */
static kc_status compile_linking(const char *link, char *msg, size_t len) {
  char src[1024], name[512];
  snprintf(src, sizeof src, kernel, link);
  snprintf(name, sizeof name, "%s/k.py", dir);
  write_file("k.py", src);
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  kc_context *ctx;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  kc_module *m = NULL;
  kc_status s = kc_compile_source(ctx, name, src, strlen(src), NULL, &m);
  snprintf(msg, len, "%s", kc_last_error(ctx));
  if (s == KC_OK) {
    enum { N = 100 };
    float a[N];
    for (int i = 0; i < N; i++) a[i] = (float)i - 40.25f;
    int64_t shape[1] = {N};
    kc_array *da;
    kc_kernel *k;
    ck_assert_int_eq(kc_module_get_kernel(m, "k", &k), KC_OK);
    ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, shape, a, sizeof a, &da), KC_OK);
    kc_arg args[] = {kc_arg_array(da)};
    ck_assert_int_eq(kc_launch(k, kc_dim(1), kc_dim(128), 0, NULL, args, 1), KC_OK);
    ck_assert_int_eq(kc_array_to_host(da, a, sizeof a), KC_OK);
    for (int i = 0; i < N; i++) ck_assert_float_eq(a[i], 2.0f * ((float)i - 40.25f));
    kc_array_free(da);
  }
  kc_module_free(m);
  kc_context_free(ctx);
  return s;
}

START_TEST(ptx_with_c_beside_it) {
  write_file("funcs.ptx", "// the GPU's version, never read on the CPU\n");
  write_file("funcs.c", "int twice_f32(float *r, float x) { *r = 2 * x; return 0; }\n");
  char msg[4096];
  ck_assert_msg(compile_linking("funcs.ptx", msg, sizeof msg) == KC_OK, "%s", msg);
}
END_TEST

START_TEST(ptx_alone_is_refused) {
  write_file("gpu_only.ptx", "// GPU code only\n");
  char msg[4096];
  ck_assert_int_eq(compile_linking("gpu_only.ptx", msg, sizeof msg), KC_ERR_TYPE);
  ck_assert_msg(strstr(msg, "k.py:3:") != NULL, "no position: %s", msg);
  ck_assert_msg(strstr(msg, "is GPU code, which the CPU back end cannot run") != NULL, "%s", msg);
}
END_TEST

START_TEST(cu_compiled_as_cpp) {
  write_file("ok.cu", "extern \"C\" __device__ __forceinline__ int twice_f32(float *r, float x) "
                      "{ *r = 2 * x; return 0; }\n");
  char msg[4096];
  ck_assert_msg(compile_linking("ok.cu", msg, sizeof msg) == KC_OK, "%s", msg);
}
END_TEST

START_TEST(cu_that_does_not_compile) {
  write_file("bad.cu", "extern \"C\" __device__ int twice_f32(float *r, float x) "
                       "{ *r = 2 * x return 0; }\n");
  char msg[4096];
  ck_assert_int_eq(compile_linking("bad.cu", msg, sizeof msg), KC_ERR_TYPE);
  ck_assert_msg(strstr(msg, "k.py:3:") != NULL, "no position: %s", msg);
  ck_assert_msg(strstr(msg, "bad.cu") != NULL && strstr(msg, "failed") != NULL, "%s", msg);
}
END_TEST

START_TEST(function_missing) {
  write_file("other.cu", "extern \"C\" __device__ int thrice_f32(float *r, float x) "
                         "{ *r = 3 * x; return 0; }\n");
  char msg[4096];
  ck_assert_int_eq(compile_linking("other.cu", msg, sizeof msg), KC_ERR_TYPE);
  ck_assert_msg(strstr(msg, "k.py:3:") != NULL, "no position: %s", msg);
  ck_assert_msg(strstr(msg, "twice_f32") != NULL, "the missing symbol unnamed: %s", msg);
}
END_TEST

START_TEST(compiler_missing) {
  write_file("ok.cu", "extern \"C\" __device__ int twice_f32(float *r, float x) "
                      "{ *r = 2 * x; return 0; }\n");
  setenv("CXX", "/nonexistent/c++", 1);
  char msg[4096];
  kc_status s = compile_linking("ok.cu", msg, sizeof msg);
  unsetenv("CXX");
  ck_assert_int_eq(s, KC_ERR_TYPE);
  ck_assert_msg(strstr(msg, "could not be run") != NULL && strstr(msg, "CXX") != NULL, "%s",
                msg);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cpu_link");
  TCase *t = tcase_create("link");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, ptx_with_c_beside_it);
  tcase_add_test(t, ptx_alone_is_refused);
  tcase_add_test(t, cu_compiled_as_cpp);
  tcase_add_test(t, cu_that_does_not_compile);
  tcase_add_test(t, function_missing);
  tcase_add_test(t, compiler_missing);
  suite_add_tcase(s, t);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

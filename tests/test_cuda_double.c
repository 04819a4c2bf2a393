/*
 * test_cuda_double.c — the runtime's CUDA path against the CUDA driver double
 * (tests/cuda_double/, opened through KC_CUDA_DRIVER) with failures injected
 * (KC_CUDA_DOUBLE_FAIL): each fault must come back as a clear kc_status whose message
 * names the driver call and the CUDA error, leak nothing (the double counts live
 * allocations and handles), and leave the context usable (out of memory, a bad PTX
 * image) or cleanly dead (a kernel that faulted: CUDA_ERROR_LAUNCH_FAILED and
 * CUDA_ERROR_ILLEGAL_ADDRESS poison the context until it is destroyed: the runtime then
 * refuses every call at once). A kernel that never ends (=HANG) under a 200 ms
 * kc_config.timeout_ms or KC_TIMEOUT_MS: each kind of wait returns KC_ERR_TIMEOUT naming
 * the kernel within 2 s, the context is lost, and kc_context_free returns (the double
 * aborts the process if anything waits on the kernel).
 *
 * Check runs each test in its own process, so each one loads the double afresh and
 * the double reads its fault list at cuInit. The kernel is samples/vector_add.k; the
 * expected sums are computed here.
 */
#include <check.h>
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda.h>   /* CUDA_VERSION: what the double reports */

#include "kc.h"

#define N 1000

enum { CALLS, LAUNCHES, RUNS, FAULTS, VIOLATIONS, LIVE_BYTES, CTX_ALIVE, LIVE_HANDLES };

static char source[4096];
static kc_context *ctx;

static void counts(unsigned long out[8]) {
  void *lib = dlopen(getenv("KC_CUDA_DRIVER"), RTLD_NOW | RTLD_NOLOAD);
  ck_assert_msg(lib != NULL, "the double is not loaded");
  void (*fn)(unsigned long *);
  void *sym = dlsym(lib, "cuda_double_counts");
  ck_assert_ptr_nonnull(sym);
  memcpy(&fn, &sym, sizeof fn);
  fn(out);
  dlclose(lib);
}

static int timeout_ms;   /* kc_config.timeout_ms of the next start() */

static void start(const char *faults) {
  const char *root = getenv("KC_SOURCE_ROOT");
  ck_assert_ptr_nonnull(root);
  snprintf(source, sizeof source, "%s/samples/vector_add.k", root);
  setenv("KC_CUDA_DOUBLE_SOURCE", source, 1);
  if (faults) setenv("KC_CUDA_DOUBLE_FAIL", faults, 1);
  else unsetenv("KC_CUDA_DOUBLE_FAIL");
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CUDA;
  cfg.cache = -1;   /* off (0 is the default: on) */
  cfg.timeout_ms = timeout_ms;
  kc_status s = kc_context_new(&cfg, &ctx);
  ck_assert_msg(s == KC_OK, "kc_context_new: %s", ctx ? kc_last_error(ctx) : "?");
}

/* After kc_context_free: nothing allocated, no handle alive, no contract broken. */
static void finish_clean(void) {
  kc_context_free(ctx);
  ctx = NULL;
  unsigned long c[8];
  counts(c);
  ck_assert_uint_eq(c[LIVE_BYTES], 0);
  ck_assert_uint_eq(c[LIVE_HANDLES], 0);
  ck_assert_uint_eq(c[CTX_ALIVE], 0);
  ck_assert_uint_eq(c[VIOLATIONS], 0);
}

static void assert_error(kc_status got, kc_status want, const char *call, const char *err) {
  const char *msg = kc_last_error(ctx);
  ck_assert_msg(got == want, "status %s, want %s: %s", kc_status_name(got),
                kc_status_name(want), msg);
  ck_assert_msg(strstr(msg, call) != NULL, "'%s' does not name %s", msg, call);
  ck_assert_msg(strstr(msg, err) != NULL, "'%s' does not name %s", msg, err);
}

static float a[N], b[N], out[N];

static kc_status vector_add(kc_module *mod, kc_array **arrays) {
  kc_kernel *k = NULL;
  kc_status s = kc_module_get_kernel(mod, "vector_add", &k);
  if (s != KC_OK) return s;
  kc_arg args[3] = {kc_arg_array(arrays[0]), kc_arg_array(arrays[1]), kc_arg_array(arrays[2])};
  s = kc_launch(k, kc_dim((N + 127) / 128), kc_dim(128), 0, NULL, args, 3);
  return s == KC_OK ? kc_synchronize(ctx) : s;
}

static kc_status make_arrays(kc_array **arrays) {
  int64_t n = N;
  for (int i = 0; i < N; i++) {
    a[i] = (float)i;
    b[i] = 0.5f * (float)i;
  }
  kc_status s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, a, sizeof a, &arrays[0]);
  if (s == KC_OK) s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, b, sizeof b, &arrays[1]);
  if (s == KC_OK) s = kc_array_new(ctx, KC_FLOAT32, 1, &n, &arrays[2]);
  return s;
}

static void check_sums(kc_array *o) {
  ck_assert_int_eq(kc_array_to_host(o, out, sizeof out), KC_OK);
  for (int i = 0; i < N; i++) ck_assert_float_eq(out[i], 1.5f * (float)i);
}

static void free_arrays(kc_array **arrays) {
  for (int i = 0; i < 3; i++) kc_array_free(arrays[i]);
}

/* No fault: the kernel runs through runtime/cuda/, module.c, launch.c and array.c. */
START_TEST(clean_run) {
  start(NULL);
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  ck_assert_int_eq(kc_compile_file(ctx, source, NULL, &mod), KC_OK);
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  ck_assert_int_eq(vector_add(mod, arr), KC_OK);
  check_sums(arr[2]);
  unsigned long c[8];
  counts(c);
  ck_assert_uint_eq(c[LAUNCHES], 1);
  ck_assert_uint_eq(c[RUNS], 1);
  free_arrays(arr);
  kc_module_free(mod);
  finish_clean();
}
END_TEST

/* The second cuMemAlloc fails: KC_ERR_NOMEM naming it; the context goes on. */
START_TEST(alloc_out_of_memory) {
  start("cuMemAlloc:2");
  kc_array *arr[3] = {0};
  assert_error(make_arrays(arr), KC_ERR_NOMEM, "cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY");
  ck_assert_ptr_null(arr[1]);
  kc_array_free(arr[0]);
  kc_module *mod = NULL;
  ck_assert_int_eq(kc_compile_file(ctx, source, NULL, &mod), KC_OK);
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  ck_assert_int_eq(vector_add(mod, arr), KC_OK);
  check_sums(arr[2]);
  free_arrays(arr);
  kc_module_free(mod);
  finish_clean();
}
END_TEST

/* After a failed load: the next load works, its kernel runs right, nothing leaks. */
static void load_again_and_run(void) {
  kc_module *mod = NULL;
  ck_assert_int_eq(kc_compile_file(ctx, source, NULL, &mod), KC_OK);
  kc_array *arr[3] = {0};
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  ck_assert_int_eq(vector_add(mod, arr), KC_OK);
  check_sums(arr[2]);
  free_arrays(arr);
  kc_module_free(mod);
  finish_clean();
}

/* The module load fails with a JIT log: the message carries the log; a second load
 * works. */
START_TEST(module_load_jit_log) {
  start("cuModuleLoadDataEx:1");
  kc_module *mod = NULL;
  kc_status s = kc_compile_file(ctx, source, NULL, &mod);
  assert_error(s, KC_ERR_CUDA, "cuModuleLoadDataEx", "CUDA_ERROR_INVALID_PTX");
  ck_assert_ptr_null(mod);
  ck_assert_msg(strstr(kc_last_error(ctx), "JIT log") &&
                strstr(kc_last_error(ctx), "injected by the CUDA driver double"),
                "no JIT log in '%s'", kc_last_error(ctx));
  load_again_and_run();
}
END_TEST

/* A driver older than the PTX ISA (CUDA_ERROR_UNSUPPORTED_PTX_VERSION): the runtime
 * assembles the PTX into a cubin itself (nvJitLink) and loads that. The double loads
 * no cubin, so here the message must say all of it: the error, both versions, what
 * was tried and what to do; the context stays usable and the next load works. */
START_TEST(module_load_ptx_too_new) {
  start("cuModuleLoadDataEx:1=UNSUPPORTED_PTX_VERSION");
  kc_module *mod = NULL;
  kc_status s = kc_compile_file(ctx, source, NULL, &mod);
  assert_error(s, KC_ERR_CUDA, "cuModuleLoadDataEx", "CUDA_ERROR_UNSUPPORTED_PTX_VERSION");
  ck_assert_ptr_null(mod);
  const char *msg = kc_last_error(ctx);
  char driver[32];
  snprintf(driver, sizeof driver, "CUDA driver (%d.%d)", CUDA_VERSION / 1000,
           CUDA_VERSION % 1000 / 10);
  ck_assert_msg(strstr(msg, driver) && strstr(msg, "older than the PTX ISA 7.") &&
                strstr(msg, "(for sm_") && strstr(msg, "kcc compile --emit=cubin"),
                "'%s' lacks the versions or the remedy", msg);
  ck_assert_msg(strstr(msg, "refused the cubin nvJitLink made from it too "
                            "(CUDA_ERROR_INVALID_IMAGE)") ||
                strstr(msg, "libnvJitLink is not installed"),
                "'%s' does not say what became of the cubin", msg);
  load_again_and_run();
}
END_TEST

/* A kernel that faults: the launch succeeds, the synchronisation reports it, every
 * later call too (sticky), and freeing the context still frees everything. */
static void faulting_kernel(const char *fault, const char *err) {
  start(fault);
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  ck_assert_int_eq(kc_compile_file(ctx, source, NULL, &mod), KC_OK);
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  assert_error(vector_add(mod, arr), KC_ERR_LAUNCH, "cuCtxSynchronize", err);
  /* the context is lost: later calls fail at once, without asking the driver */
  unsigned long before[8], after[8];
  counts(before);
  assert_error(kc_array_to_host(arr[2], out, sizeof out), KC_ERR_LAUNCH, "kc_context_free",
               err);
  kc_array *more = NULL;
  int64_t n = 4;
  assert_error(kc_array_new(ctx, KC_FLOAT32, 1, &n, &more), KC_ERR_LAUNCH, "cuCtxSynchronize",
               err);
  assert_error(kc_synchronize(ctx), KC_ERR_LAUNCH, "unusable", err);
  counts(after);
  ck_assert_uint_eq(after[CALLS], before[CALLS]);
  free_arrays(arr);
  kc_module_free(mod);
  finish_clean();
}

START_TEST(launch_failed_at_synchronize) {
  faulting_kernel("cuLaunchKernel:1", "CUDA_ERROR_LAUNCH_FAILED");
}
END_TEST

START_TEST(illegal_address_poisons) {
  faulting_kernel("cuLaunchKernel:1=ILLEGAL_ADDRESS", "CUDA_ERROR_ILLEGAL_ADDRESS");
}
END_TEST

/* A synchronisation that fails by itself (a fault of earlier work). */
START_TEST(synchronize_fails) {
  start("cuCtxSynchronize:1=LAUNCH_FAILED");
  assert_error(kc_synchronize(ctx), KC_ERR_LAUNCH, "cuCtxSynchronize",
               "CUDA_ERROR_LAUNCH_FAILED");
  finish_clean();
}
END_TEST

/* ---- Runaway kernels: kc_config.timeout_ms on the CUDA path ------------------------ */
static double now_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* A kernel that never ends (=HANG) is launched (on stream s if not NULL). */
static void launch_runaway(kc_module **mod, kc_array **arr, kc_stream **s) {
  ck_assert_int_eq(kc_compile_file(ctx, source, NULL, mod), KC_OK);
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  if (s) ck_assert_int_eq(kc_stream_new(ctx, s), KC_OK);
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(*mod, "vector_add", &k), KC_OK);
  kc_arg args[3] = {kc_arg_array(arr[0]), kc_arg_array(arr[1]), kc_arg_array(arr[2])};
  ck_assert_int_eq(kc_launch(k, kc_dim((N + 127) / 128), kc_dim(128), 0, s ? *s : NULL,
                             args, 3), KC_OK);
}

/* The wait gave up: KC_ERR_TIMEOUT within 2 s of a 200 ms limit, naming the kernel
 * and the limit. */
static void assert_timed_out(kc_status got, double began) {
  double took = now_s() - began;
  const char *msg = kc_last_error(ctx);
  ck_assert_msg(got == KC_ERR_TIMEOUT, "status %s: %s", kc_status_name(got), msg);
  ck_assert_msg(took >= 0.19 && took < 2.0, "the wait took %.3f s", took);
  ck_assert_msg(strstr(msg, "'vector_add'") && strstr(msg, "200 ms") &&
                strstr(msg, "timeout_ms"), "'%s'", msg);
}

/* After a timeout every call that would touch the device fails at once with the same
 * status and no driver call; freeing still works and the double reclaims the rest. */
static void assert_dead_then_free(kc_module *mod, kc_array **arr, kc_stream *s) {
  unsigned long before[8], after[8];
  counts(before);
  double t0 = now_s();
  kc_kernel *k = NULL;
  ck_assert_int_eq(kc_module_get_kernel(mod, "vector_add", &k), KC_OK);
  kc_arg args[3] = {kc_arg_array(arr[0]), kc_arg_array(arr[1]), kc_arg_array(arr[2])};
  assert_error(kc_launch(k, kc_dim(8), kc_dim(128), 0, NULL, args, 3), KC_ERR_TIMEOUT,
               "unusable", "vector_add");
  kc_array *more = NULL;
  int64_t n = 4;
  assert_error(kc_array_new(ctx, KC_FLOAT32, 1, &n, &more), KC_ERR_TIMEOUT,
               "kc_context_free", "200 ms");
  assert_error(kc_array_to_host(arr[2], out, sizeof out), KC_ERR_TIMEOUT, "unusable",
               "vector_add");
  assert_error(kc_array_copy_from_host(arr[0], a, sizeof a), KC_ERR_TIMEOUT, "unusable",
               "vector_add");
  assert_error(kc_synchronize(ctx), KC_ERR_TIMEOUT, "unusable", "vector_add");
  kc_module *other = NULL;
  assert_error(kc_compile_file(ctx, source, NULL, &other), KC_ERR_TIMEOUT, "unusable",
               "vector_add");
  ck_assert_msg(now_s() - t0 < 0.1, "the calls on a dead context waited");
  counts(after);
  ck_assert_uint_eq(after[CALLS], before[CALLS]);
  free_arrays(arr);
  kc_module_free(mod);
  if (s) kc_stream_free(s);
  finish_clean();   /* returns: nothing waited on the kernel (the double aborts if so) */
}

START_TEST(timeout_at_synchronize) {
  timeout_ms = 200;
  start("cuLaunchKernel:1=HANG");
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  launch_runaway(&mod, arr, NULL);
  double t0 = now_s();
  assert_timed_out(kc_synchronize(ctx), t0);
  assert_dead_then_free(mod, arr, NULL);
}
END_TEST

/* KC_TIMEOUT_MS does the same as the config; the wait is a stream's. */
START_TEST(timeout_from_env_at_stream_synchronize) {
  setenv("KC_TIMEOUT_MS", "200", 1);
  start("cuLaunchKernel:1=HANG");
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  kc_stream *s = NULL;
  launch_runaway(&mod, arr, &s);
  double t0 = now_s();
  assert_timed_out(kc_stream_synchronize(s), t0);
  assert_error(kc_stream_synchronize(s), KC_ERR_TIMEOUT, "unusable", "vector_add");
  assert_dead_then_free(mod, arr, s);
}
END_TEST

START_TEST(timeout_at_event_synchronize) {
  timeout_ms = 200;
  start("cuLaunchKernel:1=HANG");
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  kc_stream *s = NULL;
  kc_event *e = NULL;
  launch_runaway(&mod, arr, &s);
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  ck_assert_int_eq(kc_event_record(e, s), KC_OK);
  double t0 = now_s();
  assert_timed_out(kc_event_synchronize(e), t0);
  kc_event_free(e);
  assert_dead_then_free(mod, arr, s);
}
END_TEST

/* A blocking copy back to the host waits for the kernel: it times out too. */
START_TEST(timeout_at_copy_to_host) {
  timeout_ms = 200;
  start("cuLaunchKernel:1=HANG");
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  launch_runaway(&mod, arr, NULL);
  double t0 = now_s();
  assert_timed_out(kc_array_to_host(arr[2], out, sizeof out), t0);
  assert_dead_then_free(mod, arr, NULL);
}
END_TEST

/* An async copy to pageable memory returns only once done on a GPU: it times out
 * too; one to page-locked memory (kc_host_alloc) is queued without waiting. */
START_TEST(timeout_at_async_copy_to_pageable) {
  timeout_ms = 200;
  start("cuLaunchKernel:1=HANG");
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  kc_stream *s = NULL;
  launch_runaway(&mod, arr, &s);
  void *pinned = NULL;
  ck_assert_int_eq(kc_host_alloc(ctx, sizeof out, &pinned), KC_OK);
  ck_assert_int_eq(kc_array_to_host_async(arr[2], pinned, sizeof out, s), KC_OK);
  double t0 = now_s();
  assert_timed_out(kc_array_to_host_async(arr[2], out, sizeof out, s), t0);
  kc_host_free(ctx, pinned);
  assert_dead_then_free(mod, arr, s);
}
END_TEST

/* With a timeout and no runaway, every wait polls and the results are right. */
START_TEST(timeout_clean_run) {
  timeout_ms = 200;
  start(NULL);
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  kc_stream *s = NULL;
  kc_event *e = NULL;
  ck_assert_int_eq(kc_compile_file(ctx, source, NULL, &mod), KC_OK);
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  ck_assert_int_eq(vector_add(mod, arr), KC_OK);
  check_sums(arr[2]);
  ck_assert_int_eq(kc_stream_new(ctx, &s), KC_OK);
  ck_assert_int_eq(kc_event_new(ctx, &e), KC_OK);
  ck_assert_int_eq(kc_event_record(e, s), KC_OK);
  ck_assert_int_eq(kc_stream_synchronize(s), KC_OK);
  ck_assert_int_eq(kc_event_synchronize(e), KC_OK);
  kc_event_free(e);
  kc_stream_free(s);
  free_arrays(arr);
  kc_module_free(mod);
  finish_clean();
}
END_TEST

/* Without a timeout a runaway kernel hangs kc_synchronize on a GPU: the double aborts
 * the process rather than let a test wait for ever. */
START_TEST(runaway_without_timeout_is_caught) {
  start("cuLaunchKernel:1=HANG");
  kc_module *mod = NULL;
  kc_array *arr[3] = {0};
  launch_runaway(&mod, arr, NULL);
  kc_synchronize(ctx);   /* cuCtxSynchronize: the double aborts */
}
END_TEST

/* A sticky fault of earlier work, reported at synchronise: the context is lost; later
 * calls fail clearly at once instead of each asking the driver; freeing works. */
START_TEST(sticky_at_synchronize_loses_the_context) {
  start("cuCtxSynchronize:1=ILLEGAL_ADDRESS");
  kc_array *arr[3] = {0};
  ck_assert_int_eq(make_arrays(arr), KC_OK);
  assert_error(kc_synchronize(ctx), KC_ERR_LAUNCH, "cuCtxSynchronize",
               "CUDA_ERROR_ILLEGAL_ADDRESS");
  ck_assert_msg(strstr(kc_last_error(ctx), "free the kc_context"), "%s", kc_last_error(ctx));
  unsigned long before[8], after[8];
  counts(before);
  kc_array *more = NULL;
  int64_t n = 4;
  assert_error(kc_array_new(ctx, KC_FLOAT32, 1, &n, &more), KC_ERR_LAUNCH, "kc_context_free",
               "CUDA_ERROR_ILLEGAL_ADDRESS");
  assert_error(kc_array_to_host(arr[2], out, sizeof out), KC_ERR_LAUNCH, "unusable",
               "CUDA_ERROR_ILLEGAL_ADDRESS");
  kc_module *mod = NULL;
  assert_error(kc_compile_file(ctx, source, NULL, &mod), KC_ERR_LAUNCH, "unusable",
               "CUDA_ERROR_ILLEGAL_ADDRESS");
  assert_error(kc_synchronize(ctx), KC_ERR_LAUNCH, "unusable", "CUDA_ERROR_ILLEGAL_ADDRESS");
  counts(after);
  ck_assert_uint_eq(after[CALLS], before[CALLS]);
  free_arrays(arr);
  finish_clean();
}
END_TEST

/* The double catches a broken contract: a call before cuInit fails the process. */
START_TEST(contract_violation_fails_the_process) {
  void *lib = dlopen(getenv("KC_CUDA_DRIVER"), RTLD_NOW | RTLD_LOCAL);
  ck_assert_ptr_nonnull(lib);
  void *sym = dlsym(lib, "cuMemAlloc_v2");
  ck_assert_ptr_nonnull(sym);
  int (*alloc)(unsigned long long *, size_t);
  memcpy(&alloc, &sym, sizeof alloc);
  unsigned long long p = 0;
  ck_assert_int_ne(alloc(&p, 16), 0);   /* CUDA_ERROR_NOT_INITIALIZED */
}
END_TEST

int main(void) {
  Suite *s = suite_create("cuda_double");
  TCase *tc = tcase_create("faults");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, clean_run);
  tcase_add_test(tc, alloc_out_of_memory);
  tcase_add_test(tc, module_load_jit_log);
  tcase_add_test(tc, module_load_ptx_too_new);
  tcase_add_test(tc, launch_failed_at_synchronize);
  tcase_add_test(tc, illegal_address_poisons);
  tcase_add_test(tc, synchronize_fails);
  tcase_add_exit_test(tc, contract_violation_fails_the_process, 70);
  tcase_add_test(tc, timeout_at_synchronize);
  tcase_add_test(tc, timeout_from_env_at_stream_synchronize);
  tcase_add_test(tc, timeout_at_event_synchronize);
  tcase_add_test(tc, timeout_at_copy_to_host);
  tcase_add_test(tc, timeout_at_async_copy_to_pageable);
  tcase_add_test(tc, timeout_clean_run);
  tcase_add_test_raise_signal(tc, runaway_without_timeout_is_caught, SIGABRT);
  tcase_add_test(tc, sticky_at_synchronize_loses_the_context);
  suite_add_tcase(s, tc);
  SRunner *r = srunner_create(s);
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

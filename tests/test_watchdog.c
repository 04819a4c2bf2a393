/*
 * test_watchdog.c — kc_config.timeout_ms on the CPU device: kernels that never end (a
 * while loop whose condition stays true, a thread spinning on a shared flag that a
 * thread run after it would set, a loop of barriers, a loop in a device function, a
 * nested for loop of 2**62 passes and one of a constant 2**40, a cooperative grid that synchronises for ever) each
 * fail with KC_ERR_TIMEOUT naming the kernel within a bounded time, and the context then
 * runs an ordinary kernel correctly. Also: KC_TIMEOUT_MS, the refused values, a limit
 * that is never reached (many short launches), and kc_synchronize reporting the timeout
 * once more as it reports other kernel faults. The expected values of the ordinary
 * kernel are 2 * i, worked out by hand.
 */
#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kc.h"

#define LIMIT_MS 200
/* generous: valgrind and the sanitizers run this test too */
#define RETURN_WITHIN_MS 20000

static const char source[] =
  "from numba import cuda, int32, int64\n"
  "@cuda.jit('void(int32[:])')\n"
  "def forever(a):\n"
  "    i = cuda.grid(1)\n"
  "    while a[i] >= 0:\n"
  "        a[i] = (a[i] + 1) % 1000\n"
  "@cuda.jit('void(int32[:])')\n"
  "def spin_flag(out):\n"
  "    flag = cuda.shared.array(1, int32)\n"
  "    t = cuda.threadIdx.x\n"
  "    if t == 0:\n"
  "        flag[0] = 0\n"
  "    cuda.syncthreads()\n"
  "    if t == 0:\n"
  "        while flag[0] == 0:\n"   /* on a GPU thread 1 sets it; here thread 0 runs first */
  "            pass\n"
  "    else:\n"
  "        flag[0] = 1\n"
  "    out[t] = 1\n"
  "@cuda.jit('void(int32[:], int64)')\n"
  "def sync_loop(out, n):\n"
  "    k = 0\n"
  "    while k < n:\n"
  "        cuda.syncthreads()\n"
  "        k += 1\n"
  "    out[cuda.threadIdx.x] = 1\n"
  "@cuda.jit('void(int32[:])')\n"
  "def count_loop(out):\n"
  "    while cuda.syncthreads_count(1) > 0:\n"
  "        out[cuda.threadIdx.x] += 1\n"
  "@cuda.jit(device=True)\n"
  "def wait_for(a, i):\n"
  "    while a[i] >= 0:\n"
  "        a[i] = (a[i] + 3) % 1001\n"
  "@cuda.jit('void(int32[:])')\n"
  "def calls_forever(a):\n"
  "    wait_for(a, cuda.grid(1))\n"
  "@cuda.jit('void(int32[:], int64)')\n"
  "def nested(a, n):\n"
  "    i = cuda.grid(1)\n"
  "    for k in range(n):\n"
  "        for j in range(3):\n"
  "            a[i] = (a[i] * 3 + j) % 1000003\n"
  "@cuda.jit('void(int32[:])')\n"
  "def nested_const(a):\n"   /* a constant count, but past the checks' threshold */
  "    i = cuda.grid(1)\n"
  "    for k in range(1 << 40):\n"
  "        for j in range(3):\n"
  "            a[i] = (a[i] * 3 + j) % 1000003\n"
  "@cuda.jit('void(int32[:], int64)')\n"
  "def grid_loop(a, n):\n"
  "    g = cuda.cg.this_grid()\n"
  "    for k in range(n):\n"
  "        g.sync()\n"
  "    a[cuda.grid(1)] = 1\n"
  "@cuda.jit('void(int32[:])')\n"
  "def grid_waits(a):\n"
  "    g = cuda.cg.this_grid()\n"
  "    if cuda.blockIdx.x == 1:\n"
  "        while a[0] >= 0:\n"
  "            a[0] = (a[0] + 1) % 1000\n"
  "    g.sync()\n"
  "@cuda.jit('void(int32[:])')\n"
  "def twice(a):\n"
  "    i = cuda.grid(1)\n"
  "    if i < a.size:\n"
  "        a[i] = 2 * i\n";

#define N 256

static kc_context *ctx;
static kc_module *mod;
static kc_array *arr;

static kc_context *context_with(int timeout_ms) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.cache = -1;
  cfg.timeout_ms = timeout_ms;
  kc_context *c = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_OK);
  return c;
}

static void open_module(kc_context *c) {
  ctx = c;
  kc_status s = kc_compile_source(ctx, "watchdog.k", source, strlen(source), NULL, &mod);
  ck_assert_msg(s == KC_OK, "%s", kc_last_error(ctx));
  int64_t n = N;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, &n, &arr), KC_OK);
  ck_assert_int_eq(kc_array_zero(arr), KC_OK);
}

static void setup(void) { open_module(context_with(LIMIT_MS)); }

static void teardown(void) {
  kc_array_free(arr);
  kc_module_free(mod);
  kc_context_free(ctx);
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static kc_status launch(const char *name, kc_dim3 grid, kc_dim3 block, const kc_arg *args,
                        int nargs, double *ms) {
  kc_kernel *k;
  ck_assert_int_eq(kc_module_get_kernel(mod, name, &k), KC_OK);
  double t0 = now_ms();
  kc_status s = kc_launch(k, grid, block, 0, NULL, args, nargs);
  if (ms) *ms = now_ms() - t0;
  return s;
}

/* The ordinary kernel still runs, and right, on the context after a timeout. */
static void check_context_still_works(void) {
  kc_arg a[1] = {kc_arg_array(arr)};
  ck_assert_int_eq(launch("twice", kc_dim(N / 64), kc_dim(64), a, 1, NULL), KC_OK);
  int32_t host[N];
  ck_assert_int_eq(kc_array_to_host(arr, host, sizeof host), KC_OK);
  for (int i = 0; i < N; i++) ck_assert_int_eq(host[i], 2 * i);
}

/* name times out: the status, the message naming it and the limit, the time taken. */
static void expect_timeout(const char *name, kc_dim3 grid, kc_dim3 block, const kc_arg *args,
                           int nargs) {
  double ms;
  kc_status s = launch(name, grid, block, args, nargs, &ms);
  ck_assert_msg(s == KC_ERR_TIMEOUT, "%s: %s (%s)", name, kc_status_name(s),
                kc_last_error(ctx));
  char want[64];
  snprintf(want, sizeof want, "kernel '%s' (watchdog.k) did not finish within %d ms", name,
           LIMIT_MS);
  ck_assert_msg(strstr(kc_last_error(ctx), want), "%s", kc_last_error(ctx));
  ck_assert_msg(ms >= LIMIT_MS * 0.9 && ms < RETURN_WITHIN_MS, "%s took %.0f ms", name, ms);
  check_context_still_works();
}

START_TEST(while_forever) {
  kc_arg a[1] = {kc_arg_array(arr)};
  expect_timeout("forever", kc_dim(N / 64), kc_dim(64), a, 1);
  ck_assert_msg(strstr(kc_last_error(ctx), "of its 4 blocks had started"), "%s",
                kc_last_error(ctx));
}
END_TEST

/* The other runaway kernels: each stopped, named, and the context still right. */
typedef struct runaway {
  const char *kernel;
  unsigned grid, block;
  int64_t n;             /* its int64 argument; 0: it has none */
} runaway;

static const runaway runaways[] = {
  {"forever", N, 1, 0},               /* more blocks than workers: the rest never start */
  {"spin_flag", 2, 32, 0},            /* thread 0 spins on a flag thread 1 would set */
  {"sync_loop", 2, 64, INT64_MAX},    /* a loop of barriers (region form) */
  {"count_loop", 2, 64, 0},           /* a loop of syncthreads_count (fibers) */
  {"calls_forever", N / 64, 64, 0},   /* the loop is in a device function */
  {"nested", N / 64, 64, (int64_t)1 << 62},
  {"nested_const", N / 64, 64, 0},    /* a constant count, past the checks' threshold */
  {"grid_loop", 4, 32, (int64_t)1 << 62},  /* a cooperative grid syncing for ever */
  {"grid_waits", 2, 32, 0},           /* block 0 waits at g.sync() for block 1, never */
};

START_TEST(runaway_kernels) {
  const runaway *r = &runaways[_i];
  kc_arg a[2] = {kc_arg_array(arr), kc_arg_i64(r->n)};
  expect_timeout(r->kernel, kc_dim(r->grid), kc_dim(r->block), a, r->n ? 2 : 1);
}
END_TEST

START_TEST(synchronize_reports_it_once_more) {
  kc_arg a[1] = {kc_arg_array(arr)};
  ck_assert_int_eq(launch("forever", kc_dim(1), kc_dim(1), a, 1, NULL), KC_ERR_TIMEOUT);
  ck_assert_int_eq(kc_synchronize(ctx), KC_ERR_TIMEOUT);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
}
END_TEST

START_TEST(short_launches_never_stopped) {
  /* a thousand launches, each far under the limit: the watchdog never fires */
  kc_arg a[1] = {kc_arg_array(arr)};
  for (int r = 0; r < 1000; r++)
    ck_assert_int_eq(launch("twice", kc_dim(N / 64), kc_dim(64), a, 1, NULL), KC_OK);
  check_context_still_works();
}
END_TEST

START_TEST(from_the_environment) {
  teardown();
  setenv("KC_TIMEOUT_MS", "200", 1);
  open_module(context_with(0));
  kc_arg a[1] = {kc_arg_array(arr)};
  expect_timeout("forever", kc_dim(1), kc_dim(1), a, 1);
  unsetenv("KC_TIMEOUT_MS");
}
END_TEST

START_TEST(refused_values) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.timeout_ms = -2;
  kc_context *c = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_ERR_INVALID);
  if (c) {
    ck_assert_msg(strstr(kc_last_error(c), "timeout_ms -2"), "%s", kc_last_error(c));
    kc_context_free(c);
  }
  const char *bad[] = {"10ms", "-5", "99999999999", " 5"};
  for (int i = 0; i < 4; i++) {
    setenv("KC_TIMEOUT_MS", bad[i], 1);
    cfg.timeout_ms = 0;
    c = NULL;
    ck_assert_int_eq(kc_context_new(&cfg, &c), KC_ERR_INVALID);
    if (c) {
      ck_assert_msg(strstr(kc_last_error(c), "KC_TIMEOUT_MS="), "%s", kc_last_error(c));
      kc_context_free(c);
    }
  }
  /* -1: none, whatever the environment says */
  setenv("KC_TIMEOUT_MS", "junk", 1);
  cfg.timeout_ms = -1;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_OK);
  kc_context_free(c);
  unsetenv("KC_TIMEOUT_MS");
}
END_TEST

static Suite *watchdog_suite(void) {
  Suite *s = suite_create("watchdog");
  TCase *tc = tcase_create("cpu");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, while_forever);
  tcase_add_loop_test(tc, runaway_kernels, 0, sizeof runaways / sizeof runaways[0]);
  tcase_add_test(tc, synchronize_reports_it_once_more);
  tcase_add_test(tc, short_launches_never_stopped);
  tcase_add_test(tc, from_the_environment);
  suite_add_tcase(s, tc);
  TCase *plain = tcase_create("config");
  tcase_add_test(plain, refused_values);
  suite_add_tcase(s, plain);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(watchdog_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

/*
 * test_reduce.c — kc_reduce's checks on the CPU device, with kernels compiled from
 * source here: the errors that name what is wrong (a plain kernel, a 2-D or bool
 * array, an empty array without init, a dtype no signature covers, another context),
 * the empty array with init, and a lazily compiled @cuda.reduce reused across calls;
 * large arrays on pools of one worker (one block reads the whole array) and of three
 * (a block per 65,536 elements), against sums and minima computed here in C.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

static const char source[] =
  "from numba import cuda\n"
  "@cuda.reduce('int32(int32, int32)')\n"
  "def typed(a, b):\n"
  "    return a + b\n"
  "@cuda.reduce\n"
  "def lazy(a, b):\n"
  "    return min(a, b)\n"
  "@cuda.jit('void(float32[:])')\n"
  "def plain(a):\n"
  "    a[0] = 1\n";

static kc_context *ctx;
static kc_module *mod;
static kc_kernel *typed, *lazy, *plain;

static kc_context *cpu_context_of(int threads) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = threads;
  cfg.cache = -1;
  kc_context *c = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_OK);
  return c;
}

static kc_context *cpu_context(void) { return cpu_context_of(2); }

static void setup(void) {
  ctx = cpu_context();
  kc_status s = kc_compile_source(ctx, "reduce.k", source, strlen(source), NULL, &mod);
  ck_assert_msg(s == KC_OK, "compile: %s", kc_last_error(ctx));
  ck_assert_int_eq(kc_module_get_kernel(mod, "typed", &typed), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "lazy", &lazy), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "plain", &plain), KC_OK);
}

static void teardown(void) {
  kc_module_free(mod);
  kc_context_free(ctx);
}

static kc_array *ints(int64_t n, int32_t first) {
  int32_t v[64];
  ck_assert_int_le(n, 64);
  for (int64_t i = 0; i < n; i++) v[i] = first + (int32_t)i;
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT32, 1, &n, v, (size_t)n * sizeof *v, &a), KC_OK);
  return a;
}

START_TEST(typed_and_lazy) {
  kc_array *a = ints(50, -20);
  int32_t got = 0, init = 1000;
  ck_assert_int_eq(kc_reduce(typed, a, NULL, &got), KC_OK);
  ck_assert_int_eq(got, 50 * -20 + 49 * 50 / 2);
  ck_assert_int_eq(kc_reduce(typed, a, &init, &got), KC_OK);
  ck_assert_int_eq(got, 1000 + 50 * -20 + 49 * 50 / 2);
  ck_assert_int_eq(kc_reduce(lazy, a, NULL, &got), KC_OK);
  ck_assert_int_eq(got, -20);
  init = -99;
  ck_assert_int_eq(kc_reduce(lazy, a, &init, &got), KC_OK); /* compiled once, reused */
  ck_assert_int_eq(got, -99);
  double d[3] = {4.5, -2.25, 8.0}, dmin = 0;
  int64_t three = 3;
  kc_array *f = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT64, 1, &three, d, (size_t)three * sizeof *d, &f), KC_OK);
  ck_assert_int_eq(kc_reduce(lazy, f, NULL, &dmin), KC_OK);  /* a second dtype */
  ck_assert(dmin == -2.25);
  kc_array_free(f);
  kc_array_free(a);
}
END_TEST

START_TEST(empty) {
  int64_t zero = 0;
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, &zero, &a), KC_OK);
  int32_t init = 42, got = 0;
  ck_assert_int_eq(kc_reduce(typed, a, &init, &got), KC_OK);
  ck_assert_int_eq(got, 42);
  ck_assert_int_eq(kc_reduce(typed, a, NULL, &got), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "reduce 'typed': the array is empty and no init value was given");
  kc_array_free(a);
}
END_TEST

START_TEST(bad_arguments) {
  kc_array *a = ints(4, 0);
  int32_t got = 0;
  ck_assert_int_eq(kc_reduce(NULL, a, NULL, &got), KC_ERR_INVALID);
  ck_assert_int_eq(kc_reduce(typed, NULL, NULL, &got), KC_ERR_INVALID);
  ck_assert_int_eq(kc_reduce(typed, a, NULL, NULL), KC_ERR_INVALID);
  ck_assert_int_eq(kc_reduce(plain, a, NULL, &got), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "reduce 'plain': plain(float32[:]) is not the kernel "
                   "of a @cuda.reduce function");
  int64_t shape[2] = {2, 2};
  kc_array *m = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 2, shape, &m), KC_OK);
  ck_assert_int_eq(kc_reduce(typed, m, NULL, &got), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "reduce 'typed': the array is 2-D; kc_reduce takes a 1-D array");
  kc_array *b = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_BOOL, 1, shape, &b), KC_OK);
  ck_assert_int_eq(kc_reduce(lazy, b, NULL, &got), KC_ERR_INVALID);
  kc_array *f = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, shape, &f), KC_OK);
  ck_assert_int_eq(kc_reduce(typed, f, NULL, &got), KC_ERR_INVALID); /* no float32 sig */
  kc_context *other = cpu_context();
  kc_array *o = NULL;
  ck_assert_int_eq(kc_array_new(other, KC_INT32, 1, shape, &o), KC_OK);
  ck_assert_int_eq(kc_reduce(typed, o, NULL, &got), KC_ERR_INVALID);
  kc_array_free(o);
  kc_context_free(other);
  kc_array_free(f);
  kc_array_free(b);
  kc_array_free(m);
  kc_array_free(a);
}
END_TEST

/* int64 sums (wrapping nowhere: |values| < 2^40) and float32 minima of n elements, on a
 * pool of `threads` workers; the sizes straddle the 65,536 elements of a CPU block. */
static void check_large(int threads, int64_t n) {
  kc_context *c = cpu_context_of(threads);
  kc_module *m = NULL;
  kc_kernel *sum = NULL, *low = NULL;
  ck_assert_int_eq(kc_compile_source(c, "reduce.k", source, strlen(source), NULL, &m), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(m, "lazy", &low), KC_OK);
  static const char isum[] =
    "from numba import cuda\n"
    "@cuda.reduce('int64(int64, int64)')\n"
    "def isum(a, b):\n"
    "    return a + b\n";
  kc_module *m2 = NULL;
  ck_assert_int_eq(kc_compile_source(c, "isum.k", isum, strlen(isum), NULL, &m2), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(m2, "isum", &sum), KC_OK);
  int64_t *iv = malloc((size_t)n * sizeof *iv), iwant = 0, igot = 0;
  float *fv = malloc((size_t)n * sizeof *fv), fwant = INFINITY, fgot = 0;
  ck_assert(iv && fv);
  for (int64_t i = 0; i < n; i++) {
    iv[i] = (i % 5 - 2) * 1234567891 + i;
    iwant += iv[i];
    fv[i] = (float)((i * 7919) % 100003) - 50000.5f;
    if (fv[i] < fwant) fwant = fv[i];
  }
  kc_array *ia = NULL, *fa = NULL;
  ck_assert_int_eq(kc_array_from_host(c, KC_INT64, 1, &n, iv, (size_t)n * 8, &ia), KC_OK);
  ck_assert_int_eq(kc_array_from_host(c, KC_FLOAT32, 1, &n, fv, (size_t)n * 4, &fa), KC_OK);
  ck_assert_int_eq(kc_reduce(sum, ia, NULL, &igot), KC_OK);
  ck_assert_msg(igot == iwant, "%d workers, n %lld: sum %lld, want %lld", threads,
                (long long)n, (long long)igot, (long long)iwant);
  ck_assert_int_eq(kc_reduce(low, fa, NULL, &fgot), KC_OK);
  ck_assert_msg(fgot == fwant, "%d workers, n %lld: min %g, want %g", threads, (long long)n,
                (double)fgot, (double)fwant);
  kc_array_free(ia);
  kc_array_free(fa);
  free(iv);
  free(fv);
  kc_module_free(m2);
  kc_module_free(m);
  kc_context_free(c);
}

START_TEST(large_arrays_one_and_three_workers) {
  static const int64_t sizes[] = {65535, 65537, 300001, ((int64_t)1 << 20) + 5};
  for (int i = 0; i < 4; i++) {
    check_large(1, sizes[i]);
    check_large(3, sizes[i]);
  }
}
END_TEST

static Suite *reduce_suite(void) {
  Suite *s = suite_create("reduce");
  TCase *t = tcase_create("cpu");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, typed_and_lazy);
  tcase_add_test(t, empty);
  tcase_add_test(t, bad_arguments);
  tcase_add_test(t, large_arrays_one_and_three_workers);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(reduce_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

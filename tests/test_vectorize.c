/*
 * test_vectorize.c — kc_vectorize on the CPU device: samples/gaussian.k's gaussian_pdf
 * against a C reference (with an output allocated for us and with a poisoned one we
 * pass), grid-stride coverage, the pick among several signatures, and the errors that
 * name the argument (shape, dtype, count, context). Broadcasting, strides and casts:
 * test_ufunc_broadcast.c.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

#define SQRT_2PI 2.5066282746310002
#define POISON_BITS 0x7FDEAD01u

static kc_context *ctx;
static kc_module *mod;
static kc_kernel *pdf;

static kc_context *cpu_context(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.cache = -1;
  kc_context *c = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c), KC_OK);
  return c;
}

static void setup(void) {
  const char *root = getenv("KC_SOURCE_ROOT");
  char path[4096];
  snprintf(path, sizeof path, "%s/samples/gaussian.k", root ? root : ".");
  ctx = cpu_context();
  kc_status s = kc_compile_file(ctx, path, NULL, &mod);
  ck_assert_msg(s == KC_OK, "compile %s: %s", path, kc_last_error(ctx));
  ck_assert_int_eq(kc_module_get_kernel(mod, "gaussian_pdf", &pdf), KC_OK);
}

static void teardown(void) {
  kc_module_free(mod);
  kc_context_free(ctx);
}

static double ref_pdf(double x, double mean, double sigma) {
  double z = (x - mean) / sigma;
  return exp(-0.5 * z * z) / (sigma * SQRT_2PI);
}

/* Inputs x, mean, sigma of n elements on the device, and their host copies. */
typedef struct inputs {
  int64_t n;
  float *x, *mu, *sg;
  kc_array *a[3];
} inputs;

static void make_inputs(inputs *in, int64_t n) {
  in->n = n;
  size_t bytes = (size_t)(n ? n : 1) * sizeof(float);
  in->x = malloc(bytes), in->mu = malloc(bytes), in->sg = malloc(bytes);
  ck_assert(in->x && in->mu && in->sg);
  for (int64_t i = 0; i < n; i++) {
    in->x[i] = (float)(i - n / 2) / 256.0f;
    in->mu[i] = (float)(i % 5) * 0.25f - 0.5f;
    in->sg[i] = 0.5f + (float)(i % 3);
  }
  const float *h[3] = {in->x, in->mu, in->sg};
  for (int k = 0; k < 3; k++)
    ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, h[k], (size_t)n * sizeof *h[k], &in->a[k]), KC_OK);
}

static void free_inputs(inputs *in) {
  for (int k = 0; k < 3; k++) kc_array_free(in->a[k]);
  free(in->x), free(in->mu), free(in->sg);
}

/* Every element of out within float32 rounding of the C reference (and written). */
static void check_result(const inputs *in, kc_array *out) {
  ck_assert_int_eq(kc_array_dtype(out), KC_FLOAT32);
  ck_assert_int_eq(kc_array_ndim(out), 1);
  ck_assert_int_eq(kc_array_size(out), in->n);
  float *got = malloc((size_t)in->n * sizeof *got);
  ck_assert_ptr_nonnull(got);
  ck_assert_int_eq(kc_array_to_host(out, got, (size_t)in->n * sizeof *got), KC_OK);
  for (int64_t i = 0; i < in->n; i++) {
    double want = ref_pdf(in->x[i], in->mu[i], in->sg[i]);
    ck_assert_msg(fabs(got[i] - want) <= 5e-5 * fabs(want) + 1e-30,
                  "element %lld: got %g, want %g", (long long)i, (double)got[i], want);
  }
  free(got);
}

/* ---- results ------------------------------------------------------------------------- */
START_TEST(allocates_output) {
  inputs in;
  make_inputs(&in, 10007);   /* past the capped grid (2 workers x 4 waves x 256) */
  kc_array *out = NULL;
  ck_assert_int_eq(kc_vectorize(pdf, in.a, 3, &out), KC_OK);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(kc_synchronize(ctx), KC_OK);
  check_result(&in, out);
  kc_array_free(out);
  free_inputs(&in);
}
END_TEST

START_TEST(given_output) {
  inputs in;
  make_inputs(&in, 4099);
  kc_array *out = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &in.n, &out), KC_OK);
  uint32_t poison = POISON_BITS;
  ck_assert_int_eq(kc_array_fill(out, &poison), KC_OK);
  kc_array *given = out;
  ck_assert_int_eq(kc_vectorize(pdf, in.a, 3, &out), KC_OK);
  ck_assert_ptr_eq(out, given);
  check_result(&in, out);
  kc_array_free(out);
  free_inputs(&in);
}
END_TEST

START_TEST(empty_inputs) {
  inputs in;
  make_inputs(&in, 0);
  kc_array *out = NULL;
  ck_assert_int_eq(kc_vectorize(pdf, in.a, 3, &out), KC_OK);
  ck_assert_ptr_nonnull(out);
  ck_assert_int_eq(kc_array_size(out), 0);
  kc_array_free(out);
  free_inputs(&in);
}
END_TEST

/* Two signatures: the one matching the inputs' dtypes runs, with its result dtype. */
START_TEST(picks_signature) {
  static const char src[] =
    "from numba import vectorize\n"
    "@vectorize(['float32(float32, float32)', 'float64(float64, float64)',\n"
    "            'int64(int32, int32)'], target='cuda')\n"
    "def axpy(a, b):\n"
    "    return 2 * a + b\n";
  kc_module *m = NULL;
  kc_kernel *k = NULL;
  ck_assert_msg(kc_compile_source(ctx, "axpy.k", src, sizeof src - 1, NULL, &m) == KC_OK,
                "%s", kc_last_error(ctx));
  ck_assert_int_eq(kc_module_get_kernel(m, "axpy", &k), KC_OK);
  const int64_t n = 3000;
  double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *r = malloc(n * sizeof *r);
  int32_t *ia = malloc(n * sizeof *ia);
  int64_t *ir = malloc(n * sizeof *ir);
  for (int64_t i = 0; i < n; i++) a[i] = (double)i * 0.125, b[i] = 1.0 / (double)(i + 1),
                                  ia[i] = (int32_t)(i * 1000003 % 65536);
  kc_array *in[2], *out = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT64, 1, &n, a, (size_t)n * sizeof *a, &in[0]), KC_OK);
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT64, 1, &n, b, (size_t)n * sizeof *b, &in[1]), KC_OK);
  ck_assert_msg(kc_vectorize(k, in, 2, &out) == KC_OK, "%s", kc_last_error(ctx));
  ck_assert_int_eq(kc_array_dtype(out), KC_FLOAT64);
  ck_assert_int_eq(kc_array_to_host(out, r, n * sizeof *r), KC_OK);
  for (int64_t i = 0; i < n; i++) ck_assert_double_eq(r[i], 2 * a[i] + b[i]);
  kc_array_free(out), kc_array_free(in[0]), kc_array_free(in[1]);

  out = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT32, 1, &n, ia, (size_t)n * sizeof *ia, &in[0]), KC_OK);
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT32, 1, &n, ia, (size_t)n * sizeof *ia, &in[1]), KC_OK);
  ck_assert_msg(kc_vectorize(k, in, 2, &out) == KC_OK, "%s", kc_last_error(ctx));
  ck_assert_int_eq(kc_array_dtype(out), KC_INT64);
  ck_assert_int_eq(kc_array_to_host(out, ir, n * sizeof *ir), KC_OK);
  for (int64_t i = 0; i < n; i++) ck_assert_int_eq(ir[i], 3 * (int64_t)ia[i]);
  kc_array_free(out), kc_array_free(in[0]);

  /* int32 and complex64: no signature takes complex; the first signature's complaint
     names the first input it refuses (int32 does not cast safely to float32) */
  kc_array *c64 = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_COMPLEX64, 1, &n, &c64), KC_OK);
  kc_array *mixed[2] = {in[1], c64};
  out = NULL;
  ck_assert_int_eq(kc_vectorize(k, mixed, 2, &out), KC_ERR_INVALID);
  ck_assert_ptr_null(out);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'axpy': input 1 ('in0') is int32[:]; the signature wants "
                   "float32[:], and int32 does not cast safely to float32 (nor does any "
                   "other signature)");
  kc_array_free(c64), kc_array_free(in[1]);
  free(a), free(b), free(r), free(ia), free(ir);
  kc_module_free(m);
}
END_TEST

/* ---- errors ------------------------------------------------------------------------- */
/* kc_vectorize fails with s and exactly msg, and leaves *out as it was. */
static void expect_error(kc_array *const *in, int nin, kc_array *out, kc_status s,
                         const char *msg) {
  kc_array *o = out;
  ck_assert_int_eq(kc_vectorize(pdf, in, nin, &o), s);
  ck_assert_ptr_eq(o, out);
  ck_assert_str_eq(kc_last_error(ctx), msg);
}

START_TEST(length_mismatch) {
  inputs in, short_in;
  make_inputs(&in, 100);
  make_inputs(&short_in, 99);
  kc_array *args[3] = {in.a[0], short_in.a[1], in.a[2]};
  expect_error(args, 3, NULL, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': input 2 ('in1') of shape (99,) does not broadcast "
               "against (100,), the shape of the inputs before it (extents broadcast when "
               "equal or 1, aligned at the right)");
  kc_array *out = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, &short_in.n, &out), KC_OK);
  expect_error(in.a, 3, out, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': the output ('out') has shape (99,); the inputs "
               "broadcast to (100,) (an output is not broadcast)");
  kc_array_free(out);
  free_inputs(&short_in);
  free_inputs(&in);
}
END_TEST

START_TEST(dtype_rank_count) {
  inputs in;
  make_inputs(&in, 64);
  kc_array *d = NULL, *two = NULL, *out = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 1, &in.n, &d), KC_OK);
  kc_array *args[3] = {in.a[0], in.a[1], d};
  expect_error(args, 3, NULL, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': input 3 ('in2') is float64[:]; the signature "
               "wants float32[:], and float64 does not cast safely to float32");
  expect_error(in.a, 2, NULL, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': 2 inputs given; gaussian_pdf(float32[:], "
               "float32[:], float32[:], float32[:]) takes 3");
  const int64_t shape[2] = {8, 8};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 2, shape, &two), KC_OK);
  kc_array *args2[3] = {two, in.a[1], in.a[2]};
  expect_error(args2, 3, NULL, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': input 2 ('in1') of shape (64,) does not broadcast "
               "against (8, 8), the shape of the inputs before it (extents broadcast when "
               "equal or 1, aligned at the right)");
  kc_array *args3[3] = {in.a[0], NULL, in.a[2]};
  expect_error(args3, 3, NULL, KC_ERR_INVALID, "vectorize 'gaussian_pdf': input 2 is NULL");
  kc_array *i32 = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 1, &in.n, &i32), KC_OK);
  expect_error(in.a, 3, i32, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': the output ('out') is int32[:]; the result is "
               "float32, which does not cast to int32 (casting 'same_kind')");
  kc_array_free(i32);
  /* the output is one of the inputs, which the kernel reads as not aliased */
  out = in.a[0];
  ck_assert_int_eq(kc_vectorize(pdf, in.a, 3, &out), KC_ERR_LAUNCH);
  ck_assert_ptr_eq(out, in.a[0]);
  ck_assert_int_eq(kc_vectorize(NULL, in.a, 3, &out), KC_ERR_INVALID);
  ck_assert_int_eq(kc_vectorize(pdf, in.a, 3, NULL), KC_ERR_INVALID);
  out = NULL;
  ck_assert_int_eq(kc_vectorize(pdf, NULL, 3, &out), KC_ERR_INVALID);
  ck_assert_int_eq(kc_vectorize(pdf, in.a, -1, &out), KC_ERR_INVALID);
  ck_assert_ptr_null(out);
  kc_array_free(two), kc_array_free(d);
  free_inputs(&in);
}
END_TEST

START_TEST(other_context_and_plain_kernel) {
  inputs in;
  make_inputs(&in, 16);
  kc_context *other = cpu_context();
  kc_array *foreign = NULL;
  ck_assert_int_eq(kc_array_new(other, KC_FLOAT32, 1, &in.n, &foreign), KC_OK);
  kc_array *args[3] = {in.a[0], in.a[1], foreign};
  expect_error(args, 3, NULL, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': input 3 is an array of another context");
  expect_error(in.a, 3, foreign, KC_ERR_INVALID,
               "vectorize 'gaussian_pdf': the output ('out') is an array of another "
               "context");
  kc_array_free(foreign);
  kc_context_free(other);
  /* gaussian_kernel takes scalars: not a @vectorize kernel */
  kc_kernel *plain = NULL;
  ck_assert_int_eq(kc_module_get_kernel(mod, "gaussian_kernel", &plain), KC_OK);
  kc_array *out = NULL;
  ck_assert_int_eq(kc_vectorize(plain, in.a, 3, &out), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'gaussian_kernel': gaussian_kernel(float32[:], float32, "
                   "float32, float32[:]) is not a @vectorize kernel (parameter 2 ('mean') "
                   "is not a 1-D array)");
  free_inputs(&in);
}
END_TEST

static Suite *vectorize_suite(void) {
  Suite *s = suite_create("vectorize");
  TCase *t = tcase_create("cpu");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, allocates_output);
  tcase_add_test(t, given_output);
  tcase_add_test(t, empty_inputs);
  tcase_add_test(t, picks_signature);
  tcase_add_test(t, length_mismatch);
  tcase_add_test(t, dtype_rank_count);
  tcase_add_test(t, other_context_and_plain_kernel);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(vectorize_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

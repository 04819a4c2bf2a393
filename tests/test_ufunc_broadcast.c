/*
 * test_ufunc_broadcast.c — kc_vectorize_args as NumPy calls a ufunc, on the CPU device:
 * N-D inputs of equal shape, broadcasting (a row, a column, a scalar, an outer
 * (3,1)x(1,4)), strided views in and out, inputs cast into the signature (int32 into a
 * float64 ufunc, scalars by value), the output allocated, given, converted or refused
 * (shape, dtype) and a refused input cast. Expected values are computed here in C from
 * the function's definition and NumPy's documented broadcasting and casting rules.
 */
#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

static const char SRC[] =
    "from numba import vectorize\n"
    "@vectorize(['float64(float64, float64)'], target='cuda')\n"
    "def mix(a, b):\n"
    "    return a * 10.0 + b\n"
    "@vectorize(['float32(float32, float32)', 'float64(float64, float64)'], target='cuda')\n"
    "def add(a, b):\n"
    "    return a + b\n"
    "@vectorize(['int8(int8, int8)', 'int16(int16, int16)'], target='cuda')\n"
    "def iadd(a, b):\n"
    "    return a + b\n"
    "@vectorize(['int32(int32, int32, int32)', 'float64(float64, float64, float64)',\n"
    "            'complex128(complex128, complex128, complex128)'], target='cuda')\n"
    "def lin(a, b, c):\n"
    "    return a * b - c\n";

static kc_context *ctx;
static kc_module *mod;
static kc_kernel *mix, *add, *iadd;

static void setup(void) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.cache = -1;
  ck_assert_int_eq(kc_context_new(&cfg, &ctx), KC_OK);
  ck_assert_msg(kc_compile_source(ctx, "ufunc.k", SRC, sizeof SRC - 1, NULL, &mod) == KC_OK,
                "%s", kc_last_error(ctx));
  ck_assert_int_eq(kc_module_get_kernel(mod, "mix", &mix), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "add", &add), KC_OK);
  ck_assert_int_eq(kc_module_get_kernel(mod, "iadd", &iadd), KC_OK);
}

static void teardown(void) {
  kc_module_free(mod);
  kc_context_free(ctx);
}

/* A float64 array of this shape holding base + i for flat index i. */
static kc_array *f64_array(int nd, const int64_t *shape, double base) {
  int64_t n = 1;
  for (int d = 0; d < nd; d++) n *= shape[d];
  double *h = malloc((size_t)(n ? n : 1) * sizeof *h);
  ck_assert_ptr_nonnull(h);
  for (int64_t i = 0; i < n; i++) h[i] = base + (double)i;
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT64, nd, shape, h, (size_t)n * sizeof *h, &a), KC_OK);
  free(h);
  return a;
}

/* out's shape is (nd dims) shape and its dtype t. */
static void check_shape(kc_array *out, kc_dtype t, int nd, const int64_t *shape) {
  ck_assert_int_eq(kc_array_dtype(out), t);
  ck_assert_int_eq(kc_array_ndim(out), nd);
  for (int d = 0; d < nd; d++) ck_assert_int_eq(kc_array_shape(out)[d], shape[d]);
}

/* The float64 output's elements, malloc'd. */
static double *f64_host(kc_array *out) {
  size_t bytes = kc_array_bytes(out);
  double *h = malloc(bytes ? bytes : 1);
  ck_assert_ptr_nonnull(h);
  ck_assert_int_eq(kc_array_to_host(out, h, bytes), KC_OK);
  return h;
}

/* mix(a, b) into a new output, which must succeed. */
static kc_array *call_mix(kc_arg a, kc_arg b) {
  kc_arg args[2] = {a, b};
  kc_array *out = NULL;
  ck_assert_msg(kc_vectorize_args(mix, args, 2, &out, NULL) == KC_OK, "%s",
                kc_last_error(ctx));
  return out;
}

/* ---- equal shapes ----------------------------------------------------------------- */
START_TEST(equal_shapes_2d_3d) {
  const int64_t s2[2] = {3, 4}, s3[3] = {2, 3, 5};
  kc_array *a = f64_array(2, s2, 0), *b = f64_array(2, s2, 100);
  kc_array *in[2] = {a, b}, *out = NULL;
  ck_assert_msg(kc_vectorize(mix, in, 2, &out) == KC_OK, "%s", kc_last_error(ctx));
  check_shape(out, KC_FLOAT64, 2, s2);
  double *r = f64_host(out);
  for (int i = 0; i < 12; i++) ck_assert_double_eq(r[i], i * 10.0 + (100 + i));
  free(r), kc_array_free(out), kc_array_free(a), kc_array_free(b);

  a = f64_array(3, s3, 1), b = f64_array(3, s3, -7);
  out = call_mix(kc_arg_array(a), kc_arg_array(b));
  check_shape(out, KC_FLOAT64, 3, s3);
  r = f64_host(out);
  for (int i = 0; i < 30; i++) ck_assert_double_eq(r[i], (1 + i) * 10.0 + (-7 + i));
  free(r), kc_array_free(out), kc_array_free(a), kc_array_free(b);
}
END_TEST

/* ---- broadcasting ------------------------------------------------------------------- */
START_TEST(broadcast_row_column_scalar) {
  const int64_t s[2] = {3, 4}, row[1] = {4}, row2[2] = {1, 4}, col[2] = {3, 1};
  kc_array *a = f64_array(2, s, 0), *r1 = f64_array(1, row, 50), *r2 = f64_array(2, row2, 60),
           *c = f64_array(2, col, 70);
  kc_array *out = call_mix(kc_arg_array(a), kc_arg_array(r1));   /* (3,4) x (4,) */
  check_shape(out, KC_FLOAT64, 2, s);
  double *r = f64_host(out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) ck_assert_double_eq(r[i * 4 + j], (i * 4 + j) * 10.0 + 50 + j);
  free(r), kc_array_free(out);

  out = call_mix(kc_arg_array(r2), kc_arg_array(a));             /* (1,4) x (3,4) */
  check_shape(out, KC_FLOAT64, 2, s);
  r = f64_host(out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) ck_assert_double_eq(r[i * 4 + j], (60 + j) * 10.0 + i * 4 + j);
  free(r), kc_array_free(out);

  out = call_mix(kc_arg_array(a), kc_arg_array(c));              /* (3,4) x (3,1) */
  check_shape(out, KC_FLOAT64, 2, s);
  r = f64_host(out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) ck_assert_double_eq(r[i * 4 + j], (i * 4 + j) * 10.0 + 70 + i);
  free(r), kc_array_free(out);

  out = call_mix(kc_arg_f64(0.5), kc_arg_array(a));              /* scalar x (3,4) */
  check_shape(out, KC_FLOAT64, 2, s);
  r = f64_host(out);
  for (int i = 0; i < 12; i++) ck_assert_double_eq(r[i], 5.0 + i);
  free(r), kc_array_free(out);
  kc_array_free(a), kc_array_free(r1), kc_array_free(r2), kc_array_free(c);
}
END_TEST

START_TEST(broadcast_outer) {
  const int64_t s31[2] = {3, 1}, s14[2] = {1, 4}, s34[2] = {3, 4};
  kc_array *a = f64_array(2, s31, 1), *b = f64_array(2, s14, 0.25);
  kc_array *out = call_mix(kc_arg_array(a), kc_arg_array(b));
  check_shape(out, KC_FLOAT64, 2, s34);
  double *r = f64_host(out);
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) ck_assert_double_eq(r[i * 4 + j], (1 + i) * 10.0 + 0.25 + j);
  free(r), kc_array_free(out);

  /* scalars only: one element */
  kc_arg args[2] = {kc_arg_f64(1.5), kc_arg_f64(2.0)};
  out = NULL;
  ck_assert_msg(kc_vectorize_args(add, args, 2, &out, NULL) == KC_OK, "%s", kc_last_error(ctx));
  const int64_t one[1] = {1};
  check_shape(out, KC_FLOAT64, 1, one);
  r = f64_host(out);
  ck_assert_double_eq(r[0], 3.5);
  free(r), kc_array_free(out);

  /* an empty axis broadcasts to an empty result */
  const int64_t s04[2] = {0, 4}, s4[1] = {4};
  kc_array *e = f64_array(2, s04, 0), *row = f64_array(1, s4, 0);
  out = call_mix(kc_arg_array(e), kc_arg_array(row));
  check_shape(out, KC_FLOAT64, 2, s04);
  kc_array_free(out), kc_array_free(e), kc_array_free(row);

  /* (3,1) x (2,1) does not broadcast: the message names the input and both shapes */
  const int64_t s21[2] = {2, 1};
  kc_array *c = f64_array(2, s21, 0);
  kc_arg bad[2] = {kc_arg_array(a), kc_arg_array(c)};
  out = NULL;
  ck_assert_int_eq(kc_vectorize_args(mix, bad, 2, &out, NULL), KC_ERR_INVALID);
  ck_assert_ptr_null(out);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'mix': input 2 ('in1') of shape (2, 1) does not broadcast "
                   "against (3, 1), the shape of the inputs before it (extents broadcast "
                   "when equal or 1, aligned at the right)");
  kc_array_free(c), kc_array_free(a), kc_array_free(b);
}
END_TEST

/* ---- strides ------------------------------------------------------------------------ */
START_TEST(strided_views) {
  const int64_t s[2] = {4, 6};
  kc_array *a = f64_array(2, s, 0), *b = f64_array(2, s, 1000);
  /* a[::2, ::-1] (2 x 6) and b[1:3, :] (contiguous rows) */
  const int64_t st1[2] = {KC_SLICE_NONE, KC_SLICE_NONE}, sp1[2] = {KC_SLICE_NONE, KC_SLICE_NONE},
                step1[2] = {2, -1}, st2[2] = {1, KC_SLICE_NONE}, sp2[2] = {3, KC_SLICE_NONE};
  kc_array *va = NULL, *vb = NULL;
  ck_assert_int_eq(kc_array_slice(a, st1, sp1, step1, &va), KC_OK);
  ck_assert_int_eq(kc_array_slice(b, st2, sp2, NULL, &vb), KC_OK);
  ck_assert(!kc_array_is_contiguous(va));
  kc_array *out = call_mix(kc_arg_array(va), kc_arg_array(vb));
  const int64_t s26[2] = {2, 6};
  check_shape(out, KC_FLOAT64, 2, s26);
  double *r = f64_host(out);
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 6; j++)
      ck_assert_double_eq(r[i * 6 + j], (2 * i * 6 + (5 - j)) * 10.0 + 1000 + (1 + i) * 6 + j);
  free(r), kc_array_free(out);

  /* a strided output: the odd columns of a (4, 6) array written, the others kept */
  kc_array *dst = f64_array(2, s, -1), *vd = NULL;
  const int64_t st3[2] = {KC_SLICE_NONE, 1}, step3[2] = {1, 2};
  ck_assert_int_eq(kc_array_slice(dst, st3, NULL, step3, &vd), KC_OK);
  kc_array *x = f64_array(2, (const int64_t[2]){4, 3}, 0);
  kc_arg args[2] = {kc_arg_array(x), kc_arg_f64(0.5)};
  kc_array *given = vd;
  ck_assert_msg(kc_vectorize_args(mix, args, 2, &given, NULL) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_ptr_eq(given, vd);
  kc_array_free(vd);
  r = f64_host(dst);
  for (int i = 0; i < 4; i++)
    for (int j = 0; j < 6; j++) {
      double want = j % 2 ? (i * 3 + j / 2) * 10.0 + 0.5 : -1.0 + i * 6 + j;
      ck_assert_double_eq(r[i * 6 + j], want);
    }
  free(r);
  kc_array_free(x), kc_array_free(dst), kc_array_free(va), kc_array_free(vb);
  kc_array_free(a), kc_array_free(b);
}
END_TEST

/* Past one chunk (the CPU copies in chunks of 65536 elements, which here end inside
 * rows): an int32 (300, 1000) array and a float64 row into a float32 output, then into
 * the even columns of a (300, 2000) array. */
START_TEST(large_in_chunks) {
  const int64_t s[2] = {300, 1000}, row[1] = {1000}, wide[2] = {300, 2000};
  const int64_t n = 300 * 1000;
  int32_t *hi = malloc((size_t)n * sizeof *hi);
  float *rf = malloc((size_t)n * sizeof *rf);
  ck_assert(hi && rf);
  for (int64_t i = 0; i < n; i++) hi[i] = (int32_t)(i % 7919) - 3000;
  kc_array *a = NULL, *b = f64_array(1, row, 0.5), *out = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT32, 2, s, hi, (size_t)(s[0] * s[1]) * sizeof *hi, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 2, s, &out), KC_OK);
  kc_arg args[2] = {kc_arg_array(a), kc_arg_array(b)};
  kc_array *given = out;
  ck_assert_msg(kc_vectorize_args(mix, args, 2, &given, NULL) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_int_eq(kc_array_to_host(out, rf, (size_t)n * sizeof *rf), KC_OK);
  int64_t bad = -1;
  for (int64_t i = 0; i < n && bad < 0; i++)
    if (rf[i] != (float)(hi[i] * 10.0 + 0.5 + (double)(i % 1000))) bad = i;
  ck_assert_msg(bad < 0, "element %lld: got %g", (long long)bad, bad < 0 ? 0.0 : rf[bad]);
  kc_array_free(out);

  kc_array *dst = f64_array(2, wide, 0), *vd = NULL;
  const int64_t step[2] = {1, 2};
  ck_assert_int_eq(kc_array_slice(dst, NULL, NULL, step, &vd), KC_OK);
  given = vd;
  ck_assert_msg(kc_vectorize_args(mix, args, 2, &given, NULL) == KC_OK, "%s",
                kc_last_error(ctx));
  kc_array_free(vd);
  double *r = f64_host(dst);
  for (int64_t i = 0; i < 300 * 2000 && bad < 0; i++) {
    int64_t row_i = i / 2000, j = i % 2000;
    double want = j % 2 ? (double)i : hi[row_i * 1000 + j / 2] * 10.0 + 0.5 + (double)(j / 2);
    if (r[i] != want) bad = i;
  }
  ck_assert_msg(bad < 0, "element %lld: got %g", (long long)bad, bad < 0 ? 0.0 : r[bad]);
  free(r), free(hi), free(rf);
  kc_array_free(dst), kc_array_free(a), kc_array_free(b);
}
END_TEST

/* ---- casts -------------------------------------------------------------------------- */
START_TEST(casts_inputs) {
  /* int32 into the float64 ufunc (np.can_cast(int32, float64) is 'safe') */
  const int64_t s[2] = {2, 3};
  int32_t hi[6] = {-3, 0, 7, 2147483647, -2147483647 - 1, 12};
  kc_array *i32 = NULL, *b = f64_array(2, s, 0.5);
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT32, 2, s, hi, (size_t)(s[0] * s[1]) * sizeof *hi, &i32), KC_OK);
  kc_array *out = call_mix(kc_arg_array(i32), kc_arg_array(b));
  check_shape(out, KC_FLOAT64, 2, s);
  double *r = f64_host(out);
  for (int i = 0; i < 6; i++) ck_assert_double_eq(r[i], (double)hi[i] * 10.0 + 0.5 + i);
  free(r), kc_array_free(out);

  /* add has float32 and float64 loops: int32 does not cast safely to float32, so NumPy's
     search takes the float64 loop */
  kc_arg two[2] = {kc_arg_array(i32), kc_arg_array(i32)};
  out = NULL;
  ck_assert_msg(kc_vectorize_args(add, two, 2, &out, NULL) == KC_OK, "%s", kc_last_error(ctx));
  check_shape(out, KC_FLOAT64, 2, s);
  r = f64_host(out);
  for (int i = 0; i < 6; i++) ck_assert_double_eq(r[i], 2.0 * hi[i]);
  free(r), kc_array_free(out);

  /* a float32 array and a float64 scalar: the scalar goes by its value (NumPy 1.x), so
     the float32 loop */
  float hf[6] = {1, 2, 3, 4, 5, 6}, rf[6];
  kc_array *f32 = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_FLOAT32, 2, s, hf, (size_t)(s[0] * s[1]) * sizeof *hf, &f32), KC_OK);
  kc_arg fs[2] = {kc_arg_array(f32), kc_arg_f64(0.25)};
  out = NULL;
  ck_assert_msg(kc_vectorize_args(add, fs, 2, &out, NULL) == KC_OK, "%s", kc_last_error(ctx));
  check_shape(out, KC_FLOAT32, 2, s);
  ck_assert_int_eq(kc_array_to_host(out, rf, sizeof rf), KC_OK);
  for (int i = 0; i < 6; i++) ck_assert_float_eq(rf[i], hf[i] + 0.25f);
  kc_array_free(out), kc_array_free(f32);
  kc_array_free(i32), kc_array_free(b);
}
END_TEST

/* int8 array + integer scalar: 5 fits int8 (the int8 loop), 300 only int16 */
START_TEST(scalars_by_value) {
  const int64_t n = 4;
  int8_t h[4] = {-100, 0, 27, 100};
  kc_array *a = NULL;
  ck_assert_int_eq(kc_array_from_host(ctx, KC_INT8, 1, &n, h, (size_t)n * sizeof *h, &a), KC_OK);
  kc_arg args[2] = {kc_arg_array(a), kc_arg_i64(5)};
  kc_array *out = NULL;
  ck_assert_msg(kc_vectorize_args(iadd, args, 2, &out, NULL) == KC_OK, "%s", kc_last_error(ctx));
  ck_assert_int_eq(kc_array_dtype(out), KC_INT8);
  int8_t r8[4];
  ck_assert_int_eq(kc_array_to_host(out, r8, sizeof r8), KC_OK);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(r8[i], (int8_t)(h[i] + 5));
  kc_array_free(out);

  args[1] = kc_arg_i64(300);
  out = NULL;
  ck_assert_msg(kc_vectorize_args(iadd, args, 2, &out, NULL) == KC_OK, "%s", kc_last_error(ctx));
  ck_assert_int_eq(kc_array_dtype(out), KC_INT16);
  int16_t r16[4];
  ck_assert_int_eq(kc_array_to_host(out, r16, sizeof r16), KC_OK);
  for (int i = 0; i < 4; i++) ck_assert_int_eq(r16[i], h[i] + 300);
  kc_array_free(out);

  /* 70000 fits neither loop: refused, naming the scalar */
  args[1] = kc_arg_i64(70000);
  out = NULL;
  ck_assert_int_eq(kc_vectorize_args(iadd, args, 2, &out, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'iadd': input 2 ('in1') is an int64 scalar; the signature wants "
                   "int8, and its value does not cast safely to int8 (nor does any other "
                   "signature)");
  kc_array_free(a);
}
END_TEST

START_TEST(refused_casts) {
  const int64_t s[2] = {2, 2};
  double hc[8] = {0};
  kc_array *c128 = NULL, *b = f64_array(2, s, 0);
  ck_assert_int_eq(kc_array_from_host(ctx, KC_COMPLEX128, 2, s, hc, sizeof hc, &c128), KC_OK);
  kc_arg args[2] = {kc_arg_array(b), kc_arg_array(c128)};
  kc_array *out = NULL;
  ck_assert_int_eq(kc_vectorize_args(mix, args, 2, &out, NULL), KC_ERR_INVALID);
  ck_assert_ptr_null(out);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'mix': input 2 ('in1') is complex128[:, :]; the signature "
                   "wants float64[:, :], and complex128 does not cast safely to float64");

  /* casting 'no': int32 is not float64 */
  kc_array *i32 = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_INT32, 2, s, &i32), KC_OK);
  kc_ufunc_options opts;
  memset(&opts, 0, sizeof opts);
  opts.casting = KC_CASTING_NO;
  kc_arg args2[2] = {kc_arg_array(i32), kc_arg_array(b)};
  ck_assert_int_eq(kc_vectorize_args(mix, args2, 2, &out, &opts), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'mix': input 1 ('in0') is int32[:, :]; the signature wants "
                   "float64[:, :] (casting 'no')");
  kc_array_free(i32), kc_array_free(c128), kc_array_free(b);
}
END_TEST

/* ---- the output --------------------------------------------------------------------- */
START_TEST(output_given_or_refused) {
  const int64_t s[2] = {3, 4}, row[1] = {4}, t43[2] = {4, 3};
  kc_array *a = f64_array(1, row, 0), *b = f64_array(1, row, 1);
  /* an output of (3, 4) widens the (4,) inputs' shape, as NumPy's out= does */
  kc_array *out = NULL, *given = NULL;
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 2, s, &out), KC_OK);
  given = out;
  kc_arg args[2] = {kc_arg_array(a), kc_arg_array(b)};
  ck_assert_msg(kc_vectorize_args(mix, args, 2, &given, NULL) == KC_OK, "%s",
                kc_last_error(ctx));
  ck_assert_ptr_eq(given, out);
  double *r = f64_host(out);
  for (int i = 0; i < 12; i++) ck_assert_double_eq(r[i], (i % 4) * 10.0 + 1 + i % 4);
  free(r), kc_array_free(out);

  /* a float32 output takes the float64 result (same_kind), converted */
  float rf[4];
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT32, 1, row, &out), KC_OK);
  given = out;
  ck_assert_int_eq(kc_vectorize_args(mix, args, 2, &given, NULL), KC_OK);
  ck_assert_int_eq(kc_array_to_host(out, rf, sizeof rf), KC_OK);
  for (int i = 0; i < 4; i++) ck_assert_float_eq(rf[i], (float)(i * 10.0 + 1 + i));
  /* ... but not under casting 'safe' */
  kc_ufunc_options opts;
  memset(&opts, 0, sizeof opts);
  opts.casting = KC_CASTING_SAFE;
  ck_assert_int_eq(kc_vectorize_args(mix, args, 2, &given, &opts), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'mix': the output ('out') is float32[:]; the result is float64, "
                   "which does not cast to float32 (casting 'safe')");
  kc_array_free(out);

  /* the wrong shape: (4, 3) for (3, 4) inputs; (4,) for (3, 4) (not broadcast) */
  kc_array *m = f64_array(2, s, 0);
  kc_arg args2[2] = {kc_arg_array(m), kc_arg_array(b)};
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 2, t43, &out), KC_OK);
  given = out;
  ck_assert_int_eq(kc_vectorize_args(mix, args2, 2, &given, NULL), KC_ERR_INVALID);
  ck_assert_ptr_eq(given, out);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'mix': the output ('out') has shape (4, 3); the inputs "
                   "broadcast to (3, 4) (an output is not broadcast)");
  kc_array_free(out);
  ck_assert_int_eq(kc_array_new(ctx, KC_FLOAT64, 1, row, &out), KC_OK);
  given = out;
  ck_assert_int_eq(kc_vectorize_args(mix, args2, 2, &given, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx),
                   "vectorize 'mix': the output ('out') has shape (4,); the inputs "
                   "broadcast to (3, 4) (an output is not broadcast)");
  kc_array_free(out), kc_array_free(m), kc_array_free(a), kc_array_free(b);

  /* bad options and arguments */
  opts.casting = (kc_casting)7;
  out = NULL;
  ck_assert_int_eq(kc_vectorize_args(mix, args, 2, &out, &opts), KC_ERR_INVALID);
  kc_arg tuple[2] = {kc_arg_tuple(args, 2), kc_arg_f64(1)};
  ck_assert_int_eq(kc_vectorize_args(mix, tuple, 2, &out, NULL), KC_ERR_INVALID);
  ck_assert_str_eq(kc_last_error(ctx), "vectorize 'mix': input 1 is a tuple; ufuncs take "
                   "arrays and number scalars");
  ck_assert_ptr_null(out);
}
END_TEST

/* ---- scalars as the kernel's parameters ------------------------------------------------ */
/* Bytes allocated through the hook in blocks of at least `big` bytes, while counting. */
typedef struct alloc_count {
  size_t big;
  int counting, big_blocks;
} alloc_count;

static void *counting_alloc(void *user_data, void *ptr, size_t osize, size_t nsize) {
  alloc_count *c = user_data;
  (void)osize;
  if (nsize == 0) {
    free(ptr);
    return NULL;
  }
  if (c->counting && nsize >= c->big) c->big_blocks++;
  return realloc(ptr, nsize);
}

/* lin(a, b, c) = a * b - c over n elements into out (float64), each argument an array of
 * base_k + i or the scalar s_k; counts the big blocks the call allocates. */
/* more than RT_VARIANT_WORK (2^20) elements: the first call compiles the scalar kernel */
enum { SC_N = (1 << 20) + 3 };
static kc_context *sc_ctx;

static int call_lin_f64(kc_kernel *lin, alloc_count *count, const kc_arg *args, kc_array *out) {
  count->counting = 1, count->big_blocks = 0;
  kc_array *given = out;
  kc_status s = kc_vectorize_args(lin, args, 3, &given, NULL);
  count->counting = 0;
  ck_assert_msg(s == KC_OK, "%s", kc_last_error(sc_ctx));
  return count->big_blocks;
}

/* Scalar operands reach the kernel as scalars (a kernel compiled for them from the
 * module's source once calls have covered 2^20 elements), not as arrays filled with
 * their value: such a call allocates no block of a chunk's size or more, where a
 * broadcast row (which is copied) does. Every mix of scalars, integer scalars cast into
 * a float64 loop, an int32 loop that wraps, complex scalars, a small call once the
 * kernel exists, and small calls that do not make one compile. */
START_TEST(scalars_as_parameters) {
  alloc_count count = {(size_t)65536 * sizeof(double), 0, 0};
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.cache = -1;
  cfg.alloc = counting_alloc;
  cfg.user_data = &count;
  kc_context *c2 = NULL;
  kc_module *m2 = NULL;
  kc_kernel *lin = NULL;
  ck_assert_int_eq(kc_context_new(&cfg, &c2), KC_OK);
  sc_ctx = c2;
  ck_assert_msg(kc_compile_source(c2, "ufunc.k", SRC, sizeof SRC - 1, NULL, &m2) == KC_OK,
                "%s", kc_last_error(c2));
  ck_assert_int_eq(kc_module_get_kernel(m2, "lin", &lin), KC_OK);
  const int64_t n = SC_N;
  double *h = malloc(n * sizeof *h), *r = malloc(n * sizeof *r);
  ck_assert(h && r);
  for (int64_t i = 0; i < n; i++) h[i] = (double)(i % 1001) - 500.0;
  kc_array *a = NULL, *out = NULL;
  ck_assert_int_eq(kc_array_from_host(c2, KC_FLOAT64, 1, &n, h, n * sizeof *h, &a), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT64, 1, &n, &out), KC_OK);

  /* b a scalar: a * 2.5 - a; then twice more, the kernel compiled by now */
  kc_arg args[3] = {kc_arg_array(a), kc_arg_f64(2.5), kc_arg_array(a)};
  call_lin_f64(lin, &count, args, out);
  ck_assert_int_eq(call_lin_f64(lin, &count, args, out), 0);
  ck_assert_int_eq(kc_array_to_host(out, r, n * sizeof *r), KC_OK);
  for (int64_t i = 0; i < n; i++) ck_assert_double_eq(r[i], h[i] * 2.5 - h[i]);

  /* a and c scalars, c an int64 (value-based: the float64 loop): 1.5 * a - 3 */
  args[0] = kc_arg_f64(1.5), args[1] = kc_arg_array(a), args[2] = kc_arg_i64(3);
  call_lin_f64(lin, &count, args, out);
  ck_assert_int_eq(call_lin_f64(lin, &count, args, out), 0);
  ck_assert_int_eq(kc_array_to_host(out, r, n * sizeof *r), KC_OK);
  for (int64_t i = 0; i < n; i++) ck_assert_double_eq(r[i], 1.5 * h[i] - 3.0);

  /* every input a scalar, the output given: 2 * 3 - 1 everywhere */
  args[0] = kc_arg_f64(2), args[1] = kc_arg_f64(3), args[2] = kc_arg_f64(1);
  call_lin_f64(lin, &count, args, out);
  ck_assert_int_eq(kc_array_to_host(out, r, n * sizeof *r), KC_OK);
  for (int64_t i = 0; i < n; i++) ck_assert_double_eq(r[i], 5.0);

  /* the check counts: a broadcast row is copied, chunk by chunk */
  const int64_t shape2[2] = {SC_N / 7, 7}, row = 7;
  kc_array *rowa = NULL, *out2 = NULL;
  ck_assert_int_eq(kc_array_from_host(c2, KC_FLOAT64, 1, &row, h, (size_t)row * sizeof *h, &rowa), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT64, 2, shape2, &out2), KC_OK);
  kc_arg with_row[3] = {kc_arg_array(rowa), kc_arg_f64(2.0), kc_arg_f64(0.5)};
  ck_assert_int_gt(call_lin_f64(lin, &count, with_row, out2), 0);
  double *r2 = malloc((size_t)(shape2[0] * 7) * sizeof *r2);
  ck_assert_ptr_nonnull(r2);
  ck_assert_int_eq(kc_array_to_host(out2, r2, (size_t)(shape2[0] * 7) * sizeof *r2), KC_OK);
  for (int64_t i = 0; i < shape2[0] * 7; i++) ck_assert_double_eq(r2[i], h[i % 7] * 2.0 - 0.5);
  free(r2), kc_array_free(out2), kc_array_free(rowa);

  /* the int32 loop, b and c scalars: a * 70001 + 12 wraps as int32 arithmetic does */
  int32_t *hi = malloc(n * sizeof *hi), *ri = malloc(n * sizeof *ri);
  ck_assert(hi && ri);
  for (int64_t i = 0; i < n; i++) hi[i] = (int32_t)(i * 7919 % 200000) - 100000;
  kc_array *ai = NULL, *oi = NULL;
  ck_assert_int_eq(kc_array_from_host(c2, KC_INT32, 1, &n, hi, n * sizeof *hi, &ai), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_INT32, 1, &n, &oi), KC_OK);
  kc_arg iargs[3] = {kc_arg_array(ai), kc_arg_i64(70001), kc_arg_i64(-12)};
  kc_array *given = oi;
  ck_assert_msg(kc_vectorize_args(lin, iargs, 3, &given, NULL) == KC_OK, "%s", kc_last_error(c2));
  ck_assert_int_eq(kc_array_to_host(oi, ri, n * sizeof *ri), KC_OK);
  for (int64_t i = 0; i < n; i++)
    ck_assert_int_eq(ri[i], (int32_t)((uint32_t)hi[i] * 70001u + 12u));
  free(hi), free(ri), kc_array_free(ai), kc_array_free(oi);

  /* complex: a (real parts base + i) * (0.5 - 2j) - (1 + 1j) */
  kc_array *oc = NULL;
  ck_assert_int_eq(kc_array_new(c2, KC_COMPLEX128, 1, &n, &oc), KC_OK);
  kc_arg cargs[3] = {kc_arg_array(a), kc_arg_c128(0.5, -2.0), kc_arg_c128(1.0, 1.0)};
  given = oc;
  ck_assert_msg(kc_vectorize_args(lin, cargs, 3, &given, NULL) == KC_OK, "%s", kc_last_error(c2));
  double *rc = malloc((size_t)n * 2 * sizeof *rc);
  ck_assert_ptr_nonnull(rc);
  ck_assert_int_eq(kc_array_to_host(oc, rc, (size_t)n * 2 * sizeof *rc), KC_OK);
  for (int64_t i = 0; i < n; i++) {
    ck_assert_double_eq(rc[2 * i], h[i] * 0.5 - 1.0);
    ck_assert_double_eq(rc[2 * i + 1], h[i] * -2.0 - 1.0);
  }
  free(rc), kc_array_free(oc);

  /* a small call once the kernel exists takes it too: no copy of b */
  const int64_t small = 4096;
  kc_array *as = NULL, *os = NULL;
  ck_assert_int_eq(kc_array_from_host(c2, KC_FLOAT64, 1, &small, h, (size_t)small * sizeof *h, &as), KC_OK);
  ck_assert_int_eq(kc_array_new(c2, KC_FLOAT64, 1, &small, &os), KC_OK);
  count.big = (size_t)small * sizeof(double);
  kc_arg sargs[3] = {kc_arg_array(as), kc_arg_f64(2.5), kc_arg_array(as)};
  ck_assert_int_eq(call_lin_f64(lin, &count, sargs, os), 0);
  ck_assert_int_eq(kc_array_to_host(os, r, (size_t)small * sizeof *r), KC_OK);
  for (int64_t i = 0; i < small; i++) ck_assert_double_eq(r[i], h[i] * 2.5 - h[i]);
  /* the first input a scalar, in small calls: far from 2^20 elements, they fill an
     array (no compiling for a few small calls) and compute the same */
  kc_arg first[3] = {kc_arg_f64(4.0), kc_arg_array(as), kc_arg_array(as)};
  for (int k = 0; k < 3; k++) {
    ck_assert_int_gt(call_lin_f64(lin, &count, first, os), 0);
    ck_assert_int_eq(kc_array_to_host(os, r, (size_t)small * sizeof *r), KC_OK);
    for (int64_t i = 0; i < small; i++) ck_assert_double_eq(r[i], 4.0 * h[i] - h[i]);
  }
  kc_array_free(as), kc_array_free(os);

  free(h), free(r);
  kc_array_free(a), kc_array_free(out);
  kc_module_free(m2);
  kc_context_free(c2);
}
END_TEST

static Suite *ufunc_suite(void) {
  Suite *s = suite_create("ufunc_broadcast");
  TCase *t = tcase_create("cpu");
  tcase_add_checked_fixture(t, setup, teardown);
  tcase_set_timeout(t, 120);
  tcase_add_test(t, equal_shapes_2d_3d);
  tcase_add_test(t, broadcast_row_column_scalar);
  tcase_add_test(t, broadcast_outer);
  tcase_add_test(t, strided_views);
  tcase_add_test(t, large_in_chunks);
  tcase_add_test(t, casts_inputs);
  tcase_add_test(t, scalars_by_value);
  tcase_add_test(t, refused_casts);
  tcase_add_test(t, output_given_or_refused);
  tcase_add_test(t, scalars_as_parameters);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  SRunner *r = srunner_create(ufunc_suite());
  srunner_run_all(r, CK_NORMAL);
  int failed = srunner_ntests_failed(r);
  srunner_free(r);
  return failed ? 1 : 0;
}

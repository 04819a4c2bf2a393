/* numpy_ufuncs.c — NumPy's ufuncs in kernels (numpy_ufuncs.k) against references
 * computed here: the C library's functions for the transcendental ones (in float for
 * the float32 loops, which must not widen), NumPy's own definitions for the rest
 * (numpy/core/src/umath: maximum propagates NaN, fmax ignores it, floor_divide and
 * remainder are CPython's divmod, integer floor_divide/remainder/fmod by 0 give 0,
 * shifts by the width or more give 0 or the sign, integers wrap), and Numba's
 * degrees/radians formulas (x / (2 pi) * 360). Inputs cover signs, zeros, infinities,
 * NaN and values outside the domains (arcsin(2) is NaN). */
#include "harness.h"

#define N 64
#define NUN 37
#define NBI 17
#define NPRED 14
#define NINT 24

static const double pi = 3.14159265358979323846;

static double xval(int i) {
  static const double sp[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -7.5, 10.0,
                              INFINITY, -INFINITY, NAN, 1e-300, 1e300, 0.25, 100.0};
  if (i < (int)(sizeof sp / sizeof sp[0])) return sp[i];
  return (i % 2 ? -1.0 : 1.0) * (0.1 + 0.37 * i);
}
static double yval(int i) {
  static const double sp[] = {1.0, 2.0, 0.0, -0.0, -3.0, INFINITY, 2.0, 0.5, NAN, -2.0,
                              3.0, 1.0, 1.0, 1.0, -1.0, 2.0, 0.25, -0.75};
  if (i < (int)(sizeof sp / sizeof sp[0])) return sp[i];
  return (i % 3 ? 1.0 : -1.0) * (0.3 + 0.21 * i);
}

/* NumPy's sign, maximum, minimum, fmax, fmin */
static double sgn(double x) { return x > 0 ? 1 : x < 0 ? -1 : x == 0 ? 0 : x; }
static double np_max(double a, double b) { return (a >= b || isnan(a)) ? a : b; }
static double np_min(double a, double b) { return (a <= b || isnan(a)) ? a : b; }
static double np_fmax(double a, double b) { return (a >= b || isnan(b)) ? a : b; }
static double np_fmin(double a, double b) { return (a <= b || isnan(b)) ? a : b; }
static double np_floordiv(double a, double b) { return b == 0 ? a / b : py_floordiv_f64(a, b); }
static float np_floordivf(float a, float b) {
  if (b == 0) return a / b;
  float m = fmodf(a, b), div = (a - m) / b;
  if (m != 0 && ((b < 0) != (m < 0))) div -= 1.0f;
  if (div != 0) { float f = floorf(div); return div - f > 0.5f ? f + 1.0f : f; }
  return copysignf(0.0f, a / b);
}
static float np_remf(float a, float b) {
  float m = fmodf(a, b);
  if (b == 0) return m;
  if (m != 0) return ((b < 0) != (m < 0)) ? m + b : m;
  return copysignf(0.0f, b);
}

static double unary64(int k, double x) {
  const double two_pi = pi * 2.0;
  switch (k) {
  case 0: return sin(x); case 1: return cos(x); case 2: return tan(x);
  case 3: return asin(x); case 4: return acos(x); case 5: return atan(x);
  case 6: return sinh(x); case 7: return cosh(x); case 8: return tanh(x);
  case 9: return asinh(x); case 10: return acosh(x); case 11: return atanh(x);
  case 12: case 13: return x / 360.0 * two_pi;
  case 14: case 15: return x / two_pi * 360.0;
  case 16: return log(x); case 17: return log2(x); case 18: return log10(x);
  case 19: return sqrt(x); case 20: return cbrt(x); case 21: return exp(x);
  case 22: return exp2(x); case 23: return expm1(x); case 24: return log1p(x);
  case 25: return -x; case 26: return x; case 27: case 28: case 29: return fabs(x);
  case 30: return sgn(x); case 31: return x * x; case 32: return 1.0 / x;
  case 33: return floor(x); case 34: return ceil(x); case 35: return trunc(x);
  default: return nearbyint(x);
  }
}

static float unary32(int k, float x) {
  const float two_pi = (float)pi * 2.0f;
  switch (k) {
  case 0: return sinf(x); case 1: return cosf(x); case 2: return tanf(x);
  case 3: return asinf(x); case 4: return acosf(x); case 5: return atanf(x);
  case 6: return sinhf(x); case 7: return coshf(x); case 8: return tanhf(x);
  case 9: return asinhf(x); case 10: return acoshf(x); case 11: return atanhf(x);
  case 12: case 13: return x / 360.0f * two_pi;
  case 14: case 15: return x / two_pi * 360.0f;
  case 16: return logf(x); case 17: return log2f(x); case 18: return log10f(x);
  case 19: return sqrtf(x); case 20: return cbrtf(x); case 21: return expf(x);
  case 22: return exp2f(x); case 23: return expm1f(x); case 24: return log1pf(x);
  case 25: return -x; case 26: return x; case 27: case 28: case 29: return fabsf(x);
  case 30: return (float)sgn(x); case 31: return x * x; case 32: return 1.0f / x;
  case 33: return floorf(x); case 34: return ceilf(x); case 35: return truncf(x);
  default: return nearbyintf(x);
  }
}

static double binary64(int k, double a, double b) {
  switch (k) {
  case 0: return atan2(a, b); case 1: return hypot(a, b); case 2: return copysign(a, b);
  case 3: return a + b; case 4: return a - b; case 5: return a * b;
  case 6: case 7: return a / b; case 8: return np_floordiv(a, b);
  case 9: case 10: return b == 0 ? fmod(a, b) : py_mod_f64(a, b);
  case 11: return fmod(a, b); case 12: return pow(a, b);
  case 13: return np_max(a, b); case 14: return np_min(a, b);
  case 15: return np_fmax(a, b); default: return np_fmin(a, b);
  }
}

static float binary32(int k, float a, float b) {
  switch (k) {
  case 0: return atan2f(a, b); case 1: return hypotf(a, b); case 2: return copysignf(a, b);
  case 3: return a + b; case 4: return a - b; case 5: return a * b;
  case 6: case 7: return a / b; case 8: return np_floordivf(a, b);
  case 9: case 10: return np_remf(a, b);
  case 11: return fmodf(a, b); case 12: return powf(a, b);
  case 13: return (float)np_max(a, b); case 14: return (float)np_min(a, b);
  case 15: return (float)np_fmax(a, b); default: return (float)np_fmin(a, b);
  }
}

static int predicate(int k, double a, double b) {
  switch (k) {
  case 0: return isnan(a); case 1: return isinf(a) != 0; case 2: return isfinite(a);
  case 3: return signbit(a) != 0; case 4: return a == 0;
  case 5: return a > b; case 6: return a >= b; case 7: return a < b; case 8: return a <= b;
  case 9: return a != b; case 10: return a == b;
  case 11: return a != 0 && b != 0; case 12: return a != 0 || b != 0;
  default: return (a != 0) != (b != 0);
  }
}

/* integer ufuncs on bits-wide integers (8 or 32), computed in int64 and wrapped */
static int64_t wrap(int64_t v, int bits) {
  return bits == 8 ? (int64_t)(int8_t)v : (int64_t)(int32_t)v;
}
static int64_t ipow(int64_t a, int64_t b, int bits) {
  if (b < 0) return a == 1 ? 1 : a == -1 ? ((b & 1) ? -1 : 1) : 0;
  int64_t r = 1;
  for (int64_t i = 0; i < b; i++) r = wrap(r * a, bits);
  return r;
}
static int64_t intop(int k, int64_t a, int64_t b, int bits) {
  int64_t min = -((int64_t)1 << (bits - 1));
  switch (k) {
  case 0: return wrap(a + b, bits); case 1: return wrap(a - b, bits);
  case 2: return wrap(a * b, bits);
  case 3: return b == 0 ? 0 : (a == min && b == -1) ? min : py_floordiv_i64(a, b);
  case 4: return b == 0 ? 0 : py_mod_i64(a, b);
  case 5: return b == 0 || b == -1 ? 0 : a % b;
  case 6: return ipow(a, b, bits);
  case 7: case 9: return a > b ? a : b;
  case 8: case 10: return a < b ? a : b;
  case 11: return a & b; case 12: return a | b; case 13: return a ^ b;
  case 14: return b >= 0 && b < bits ? wrap((int64_t)((uint64_t)a << b), bits) : 0;
  case 15: return b >= 0 && b < bits ? a >> b : (a < 0 ? -1 : 0);
  case 16: return wrap(-a, bits); case 17: return wrap(a < 0 ? -a : a, bits);
  case 18: return (a > 0) - (a < 0); case 19: return wrap(a * a, bits);
  case 20: return a == 1 ? 1 : a == -1 ? -1 : 0;   /* 1 / a truncated; kcc gives 0 for 0 */
  case 21: case 22: return ~a;
  default: return 4;   /* isnan 0, isinf 0, isfinite 1: an integer is a finite number */
  }
}

static void float64_case(void) {
  double *x = h_alloc(N, 8), *y = h_alloc(N, 8);
  double *out = h_alloc(NUN * N, 8), *want = h_alloc(NUN * N, 8);
  for (int i = 0; i < N; i++) x[i] = xval(i), y[i] = yval(i);
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dy = h_array1(KC_FLOAT64, N, y);
  int64_t su[2] = {NUN, N}, sb[2] = {NBI, N};
  h_poison_f64(out, NUN * N);
  kc_array *du = h_array(KC_FLOAT64, 2, su, out);
  kc_arg ua[] = {kc_arg_array(dx), kc_arg_array(du)};
  h_launch(h_kernel("unary64"), kc_dim(1), kc_dim(N), ua, 2);
  h_fetch(du, out);
  char what[64];
  for (int k = 0; k < NUN; k++) {
    for (int i = 0; i < N; i++) want[i] = unary64(k, x[i]);
    snprintf(what, sizeof what, "float64 unary ufunc %d", k);
    h_check_f64(what, want, out + k * N, N, 2e-15, 1e-300);
  }
  h_poison_f64(out, NBI * N);
  kc_array *db = h_array(KC_FLOAT64, 2, sb, out);
  kc_arg ba[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(db)};
  h_launch(h_kernel("binary64"), kc_dim(1), kc_dim(N), ba, 3);
  h_fetch(db, out);
  for (int k = 0; k < NBI; k++) {
    for (int i = 0; i < N; i++) want[i] = binary64(k, x[i], y[i]);
    snprintf(what, sizeof what, "float64 binary ufunc %d", k);
    h_check_f64(what, want, out + k * N, N, 2e-15, 1e-300);
  }
  kc_array_free(dx), kc_array_free(dy), kc_array_free(du), kc_array_free(db);
  free(x), free(y), free(out), free(want);
}

static void float32_case(void) {
  float *x = h_alloc(N, 4), *y = h_alloc(N, 4);
  float *out = h_alloc(NUN * N, 4), *want = h_alloc(NUN * N, 4);
  for (int i = 0; i < N; i++) x[i] = (float)xval(i), y[i] = (float)yval(i);
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dy = h_array1(KC_FLOAT32, N, y);
  int64_t su[2] = {NUN, N}, sb[2] = {NBI, N};
  h_poison_f32(out, NUN * N);
  kc_array *du = h_array(KC_FLOAT32, 2, su, out);
  kc_arg ua[] = {kc_arg_array(dx), kc_arg_array(du)};
  h_launch(h_kernel("unary32"), kc_dim(1), kc_dim(N), ua, 2);
  h_fetch(du, out);
  char what[64];
  for (int k = 0; k < NUN; k++) {
    for (int i = 0; i < N; i++) want[i] = unary32(k, x[i]);
    snprintf(what, sizeof what, "float32 unary ufunc %d", k);
    h_check_f32(what, want, out + k * N, N, 5e-7, 1e-37);
  }
  h_poison_f32(out, NBI * N);
  kc_array *db = h_array(KC_FLOAT32, 2, sb, out);
  kc_arg ba[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(db)};
  h_launch(h_kernel("binary32"), kc_dim(1), kc_dim(N), ba, 3);
  h_fetch(db, out);
  for (int k = 0; k < NBI; k++) {
    for (int i = 0; i < N; i++) want[i] = binary32(k, x[i], y[i]);
    snprintf(what, sizeof what, "float32 binary ufunc %d", k);
    h_check_f32(what, want, out + k * N, N, 5e-7, 1e-37);
  }
  kc_array_free(dx), kc_array_free(dy), kc_array_free(du), kc_array_free(db);
  free(x), free(y), free(out), free(want);
}

static void predicate_case(void) {
  double *x = h_alloc(N, 8), *y = h_alloc(N, 8);
  uint8_t *out = h_alloc(NPRED * N, 1), *want = h_alloc(NPRED * N, 1);
  for (int i = 0; i < N; i++) x[i] = xval(i), y[i] = yval((i * 7) % N);
  for (int k = 0; k < NPRED; k++)
    for (int i = 0; i < N; i++) want[k * N + i] = (uint8_t)predicate(k, x[i], y[i]);
  h_poison_u8(out, NPRED * N);
  int64_t s[2] = {NPRED, N};
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dy = h_array1(KC_FLOAT64, N, y);
  kc_array *d = h_array(KC_UINT8, 2, s, out);
  kc_arg a[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(d)};
  h_launch(h_kernel("predicates"), kc_dim(1), kc_dim(N), a, 3);
  h_fetch(d, out);
  h_check_u8("bool ufuncs (isnan ... logical_xor)", want, out, NPRED * N);
  kc_array_free(dx), kc_array_free(dy), kc_array_free(d);
  free(x), free(y), free(out), free(want);
}

static int64_t int_input(int i, int bits, int which) {
  static const int64_t sp[] = {0, 1, -1, 7, -7, 100, -128, 127, 3, -3, 31, 32, 33, 8, 9, -9};
  int64_t v = which ? sp[(i * 5 + 3) % 16] : sp[i % 16];
  if (i >= 32) v = which ? (i % 5) - 2 : (int64_t)(i * 2654435761u);
  return wrap(v, bits);
}

static void int_case(const char *kname, int bits) {
  int64_t *x = h_alloc(N, 8), *y = h_alloc(N, 8), *want = h_alloc(NINT * N, 8);
  int64_t *got = h_alloc(NINT * N, 8);
  void *hx = h_alloc(N, 4), *hy = h_alloc(N, 4), *hout = h_alloc(NINT * N, 4);
  for (int i = 0; i < N; i++) {
    x[i] = int_input(i, bits, 0), y[i] = int_input(i, bits, 1);
    if (bits == 8) ((int8_t *)hx)[i] = (int8_t)x[i], ((int8_t *)hy)[i] = (int8_t)y[i];
    else ((int32_t *)hx)[i] = (int32_t)x[i], ((int32_t *)hy)[i] = (int32_t)y[i];
    for (int k = 0; k < NINT; k++) want[k * N + i] = intop(k, x[i], y[i], bits);
  }
  kc_dtype dt = bits == 8 ? KC_INT8 : KC_INT32;
  memset(hout, 0x5a, (size_t)NINT * N * 4);
  int64_t s[2] = {NINT, N};
  kc_array *dx = h_array1(dt, N, hx), *dy = h_array1(dt, N, hy), *d = h_array(dt, 2, s, hout);
  kc_arg a[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(d)};
  h_launch(h_kernel(kname), kc_dim(1), kc_dim(N), a, 3);
  h_fetch(d, hout);
  for (int i = 0; i < NINT * N; i++)
    got[i] = bits == 8 ? ((int8_t *)hout)[i] : ((int32_t *)hout)[i];
  char what[64];
  for (int k = 0; k < NINT; k++) {
    snprintf(what, sizeof what, "%s integer ufunc %d", kname, k);
    h_check_i64(what, want + k * N, got + k * N, N);
  }
  kc_array_free(dx), kc_array_free(dy), kc_array_free(d);
  free(x), free(y), free(want), free(got), free(hx), free(hy), free(hout);
}

/* Mixed types: NumPy's loops as Numba picks them (an int32 with a float32 computes in
 * float32, Numba's ufunc_can_cast), int32 / int32 in float64, bool loops. */
static void mixed_case(void) {
  int32_t *x = h_alloc(N, 4), *y = h_alloc(N, 4);
  float *f = h_alloc(N, 4);
  double *out = h_alloc(7 * N, 8), *want = h_alloc(7 * N, 8);
  for (int i = 0; i < N; i++) {
    x[i] = (int32_t)(i * 37 - 900), y[i] = (int32_t)(i % 5 - 2);
    f[i] = (float)xval(i);
    want[i] = (double)x[i] / (double)y[i];
    want[N + i] = (double)((float)x[i] + f[i]);
    want[2 * N + i] = (double)powf(f[i], (float)py_mod_i64(x[i], 4));
    want[3 * N + i] = (float)x[i] > f[i];
    want[4 * N + i] = x[i] != 0 && f[i] != 0;
    want[5 * N + i] = -56;   /* np.add(int8(100), int8(100)) wraps */
    want[6 * N + i] = 2;     /* multiply(True, False) is False, add(True, True) True */
  }
  h_poison_f64(out, 7 * N);
  int64_t s[2] = {7, N};
  kc_array *dx = h_array1(KC_INT32, N, x), *dy = h_array1(KC_INT32, N, y),
           *df = h_array1(KC_FLOAT32, N, f), *d = h_array(KC_FLOAT64, 2, s, out);
  kc_arg a[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(df), kc_arg_array(d)};
  h_launch(h_kernel("mixed"), kc_dim(1), kc_dim(N), a, 4);
  h_fetch(d, out);
  h_check_f64("true_divide(int32, int32)", want, out, N, 0, 0);
  h_check_f64("add(int32, float32) in float32", want + N, out + N, N, 0, 0);
  h_check_f64("power(float32, int) in float32", want + 2 * N, out + 2 * N, N, 5e-7, 0);
  h_check_f64("greater, logical_and, int8 and bool loops", want + 3 * N, out + 3 * N, 4 * N, 0, 0);
  kc_array_free(dx), kc_array_free(dy), kc_array_free(df), kc_array_free(d);
  free(x), free(y), free(f), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("numpy_ufuncs", argc, argv);
  float64_case();
  float32_case();
  predicate_case();
  int_case("ints32", 32);
  int_case("ints8", 8);
  mixed_case();
  return h_end();
}

/* math_angles.c — math.degrees and math.radians against Numba's formulas, computed here in
 * the argument's precision: degrees(x) = x / (2 pi) * 360 and radians(x) = x / 360 *
 * (2 pi), pi rounded to the type (numba-cuda's mathimpl.py: degrees_f32_impl ...);
 * those must match exactly, over signs, magnitudes, ±0, ±inf and NaN. As a check of
 * the formulas themselves, the results also lie within 2 ulp of CPython's
 * x * (180 / pi) and x * (pi / 180), computed in long double. */
#include "harness.h"

#define N 600

static double input(int i) {
  double mag = pow(10.0, -30.0 + 60.0 * (i % 61) / 60.0) * (1.0 + (i % 7) * 0.11);
  if (i % 13 == 3) mag = (double)(i % 720);   /* whole degrees */
  return (i % 2) ? -mag : mag;
}

static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 180.0, 3.14159265358979323846};
enum { NSPECIAL = sizeof specials / sizeof specials[0] };

static double x_at(int i) { return i >= N - NSPECIAL ? specials[i - (N - NSPECIAL)] : input(i); }

static void float32_case(void) {
  float *x = h_alloc(N, 4), *deg = h_alloc(N, 4), *rad = h_alloc(N, 4);
  float *want_deg = h_alloc(N, 4), *want_rad = h_alloc(N, 4);
  float *py_deg = h_alloc(N, 4), *py_rad = h_alloc(N, 4);
  const float pi = (float)3.14159265358979323846, two_pi = pi * 2.0f;
  for (int i = 0; i < N; i++) {
    x[i] = (float)x_at(i);
    want_deg[i] = x[i] / two_pi * 360.0f;
    want_rad[i] = x[i] / 360.0f * two_pi;
    py_deg[i] = (float)((long double)x[i] * (180.0L / 3.14159265358979323846264338L));
    py_rad[i] = (float)((long double)x[i] * (3.14159265358979323846264338L / 180.0L));
  }
  h_poison_f32(deg, N), h_poison_f32(rad, N);
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dd = h_array1(KC_FLOAT32, N, deg),
           *dr = h_array1(KC_FLOAT32, N, rad);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dd), kc_arg_array(dr)};
  h_launch(h_kernel("angles32"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 3);
  h_fetch(dd, deg), h_fetch(dr, rad);
  h_check_f32("float32 degrees (Numba's formula)", want_deg, deg, N, 0, 0);
  h_check_f32("float32 radians (Numba's formula)", want_rad, rad, N, 0, 0);
  h_check_f32("float32 degrees near x * 180/pi", py_deg, deg, N, 2.4e-7, 1e-45);
  h_check_f32("float32 radians near x * pi/180", py_rad, rad, N, 2.4e-7, 1e-45);
  kc_array_free(dx), kc_array_free(dd), kc_array_free(dr);
  free(x), free(deg), free(rad), free(want_deg), free(want_rad), free(py_deg), free(py_rad);
}

static void float64_case(void) {
  double *x = h_alloc(N, 8), *deg = h_alloc(N, 8), *rad = h_alloc(N, 8);
  double *want_deg = h_alloc(N, 8), *want_rad = h_alloc(N, 8);
  double *py_deg = h_alloc(N, 8), *py_rad = h_alloc(N, 8);
  const double two_pi = 3.14159265358979323846 * 2.0;
  for (int i = 0; i < N; i++) {
    x[i] = x_at(i);
    want_deg[i] = x[i] / two_pi * 360.0;
    want_rad[i] = x[i] / 360.0 * two_pi;
    py_deg[i] = (double)((long double)x[i] * (180.0L / 3.14159265358979323846264338L));
    py_rad[i] = (double)((long double)x[i] * (3.14159265358979323846264338L / 180.0L));
  }
  h_poison_f64(deg, N), h_poison_f64(rad, N);
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dd = h_array1(KC_FLOAT64, N, deg),
           *dr = h_array1(KC_FLOAT64, N, rad);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dd), kc_arg_array(dr)};
  h_launch(h_kernel("angles64"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 3);
  h_fetch(dd, deg), h_fetch(dr, rad);
  h_check_f64("float64 degrees (Numba's formula)", want_deg, deg, N, 0, 0);
  h_check_f64("float64 radians (Numba's formula)", want_rad, rad, N, 0, 0);
  h_check_f64("float64 degrees near x * 180/pi", py_deg, deg, N, 4.5e-16, 1e-300);
  h_check_f64("float64 radians near x * pi/180", py_rad, rad, N, 4.5e-16, 1e-300);
  kc_array_free(dx), kc_array_free(dd), kc_array_free(dr);
  free(x), free(deg), free(rad), free(want_deg), free(want_rad), free(py_deg), free(py_rad);
}

/* An int32 argument is converted to float64 first (Numba's int64 -> float64 case). */
static void int_case(void) {
  enum { M = 301 };
  int32_t *k = h_alloc(M, 4);
  double *out = h_alloc(M, 8), *want = h_alloc(M, 8);
  const double two_pi = 3.14159265358979323846 * 2.0;
  for (int i = 0; i < M; i++) {
    k[i] = (i - 150) * (i % 3 == 0 ? 1 : 12345);
    want[i] = (double)k[i] / two_pi * 360.0 - (double)k[i] / 360.0 * two_pi;
  }
  h_poison_f64(out, M);
  kc_array *dk = h_array1(KC_INT32, M, k), *dout = h_array1(KC_FLOAT64, M, out);
  kc_arg args[] = {kc_arg_array(dk), kc_arg_array(dout)};
  h_launch(h_kernel("angles_int"), kc_dim(h_blocks(M, 64)), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_f64("degrees(k) - radians(k) of int32 k, as float64", want, out, M, 0, 0);
  kc_array_free(dk), kc_array_free(dout);
  free(k), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("math_angles", argc, argv);
  float32_case();
  float64_case();
  int_case();
  return h_end();
}

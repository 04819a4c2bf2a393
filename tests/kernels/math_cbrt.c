/* math_cbrt.c — cuda.cbrt against the C library's cbrtf/cbrt, over signs, magnitudes from
 * subnormal to huge, exact cubes, ±0, ±inf and NaN; the sign of a zero result is
 * checked too. tolerance: 3e-7 relative for float32 and 5e-16 for float64 (libdevice
 * and glibc are both within 1 ulp of the true cube root, so they differ by at most
 * 2 ulp); special values exactly. */
#include "harness.h"

#define N 1000

/* The inputs: a sweep over magnitudes 1e-300 .. 1e300 (float64) folded into float32's
 * range, both signs, then special values at the end. */
static double input(int i) {
  double mag = pow(10.0, -300.0 + 600.0 * (i % 97) / 96.0) * (1.0 + (i % 7) * 0.13);
  double v = (i % 2) ? -mag : mag;
  if (i % 11 == 5) v = (double)((i % 41) - 20) * ((i % 41) - 20) * ((i % 41) - 20);  /* cubes */
  return v;
}

static const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -8.0, 1e-310};
enum { NSPECIAL = sizeof specials / sizeof specials[0] };

/* cbrt(±0) is ±0: h_close cannot tell the zeros apart. */
static void check_zero_signs(const char *what, const double *x, const double *got, int n) {
  for (int i = 0; i < n; i++)
    if (x[i] == 0 && signbit(got[i]) != signbit(x[i])) {
      printf("FAIL %s: %s(%g) gave %g, a zero of the wrong sign\n", H.name, what, x[i], got[i]);
      H.failures++;
      return;
    }
}

static void float32_case(void) {
  float *x = h_alloc(N, 4), *out = h_alloc(N, 4), *want = h_alloc(N, 4);
  for (int i = 0; i < N; i++) {
    double v = input(i);
    /* into float32's range: magnitudes 1e-44 .. 1e38 (subnormals included) */
    double m = fabs(v) == 0 ? 0 : pow(10.0, fmod(log10(fabs(v)) + 300.0, 82.0) - 44.0);
    x[i] = (float)(i % 11 == 5 ? v : copysign(m, v));
    if (i >= N - NSPECIAL) x[i] = (float)specials[i - (N - NSPECIAL)];
    want[i] = cbrtf(x[i]);
  }
  h_poison_f32(out, N);
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dout = h_array1(KC_FLOAT32, N, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("cbrt32"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 2);
  h_fetch(dout, out);
  h_check_f32("float32 cbrt", want, out, N, 3e-7, 0);
  double x64[NSPECIAL], out64[NSPECIAL];
  for (int i = 0; i < NSPECIAL; i++) x64[i] = x[N - NSPECIAL + i], out64[i] = out[N - NSPECIAL + i];
  check_zero_signs("float32 cbrt", x64, out64, NSPECIAL);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want);
}

static void float64_case(void) {
  double *x = h_alloc(N, 8), *out = h_alloc(N, 8), *want = h_alloc(N, 8);
  for (int i = 0; i < N; i++) {
    x[i] = i >= N - NSPECIAL ? specials[i - (N - NSPECIAL)] : input(i);
    want[i] = cbrt(x[i]);
  }
  h_poison_f64(out, N);
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("cbrt64"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 2);
  h_fetch(dout, out);
  h_check_f64("float64 cbrt", want, out, N, 5e-16, 0);
  check_zero_signs("float64 cbrt", x, out, N);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want);
}

static void int_case(void) {
  enum { M = 300 };
  int32_t k[M];
  double out[M], want[M];
  for (int i = 0; i < M; i++) {
    k[i] = (i - 150) * (i % 5 == 0 ? (i - 150) * (i - 150) : 7919);
    want[i] = cbrt((double)k[i]) + cbrt(-27.0);
  }
  h_poison_f64(out, M);
  kc_array *dk = h_array1(KC_INT32, M, k), *dout = h_array1(KC_FLOAT64, M, out);
  kc_arg args[] = {kc_arg_array(dk), kc_arg_array(dout)};
  h_launch(h_kernel("cbrt_int"), kc_dim(h_blocks(M, 64)), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_f64("cbrt of int32 (as float64) plus cbrt(-27.0)", want, out, M, 5e-16, 1e-15);
  kc_array_free(dk), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("math_cbrt", argc, argv);
  float32_case();
  float64_case();
  int_case();
  return h_end();
}

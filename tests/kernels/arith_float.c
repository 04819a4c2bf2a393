/* arith_float.c — Python float semantics in float32 and float64: // and % with
 * negative operands (sign of the divisor), ** with int and float exponents, /, abs,
 * min/max, x if c else y, int()/float32()/int32() casts, round() half to even, and
 * bool(x) on floats, integers and complex numbers (exact).
 * Inputs are small multiples of 1/4 so most results are exact.
 * tolerance: 0 for exact ops; 2e-7 relative (float32) and 1e-15 (float64) for
 * ** 0.5, ** 3.0 and division. Column 10 (`a * 0.1 + 0.3`) must equal float32
 * arithmetic exactly on the CPU: a float64 evaluation would round differently for
 * some inputs (on CUDA one ulp is allowed, for a fused multiply-add). */
#include <complex.h>

#include "harness.h"

#define NF 16
#define NI 4

static void reference(double a, double b, int f32, double *r, int64_t *ri) {
  r[0] = py_floordiv_f64(a, b);
  r[1] = py_mod_f64(a, b);
  r[2] = a * a;
  r[3] = sqrt(fabs(a));
  r[4] = b * b * b;
  r[5] = a / b;
  r[6] = -a;
  r[7] = fabs(a);
  r[8] = a < b ? a : b;
  r[9] = fmax(fmax(a, b), 0.5);
  if (f32) {
    volatile float fa = (float)a, t = fa * 0.1f;
    r[10] = (float)(t + 0.3f);
  } else {
    r[10] = a * 0.1 + 0.3;
  }
  r[11] = a > b ? a : b;
  r[12] = trunc(a);
  r[13] = py_floordiv_f64(a, 0.75);
  r[14] = py_mod_f64(a, -0.75);
  r[15] = 3.0 / b - a;
  if (f32) { /* float32 division, then subtraction, rounded at each step */
    volatile float d = 3.0f / (float)b;
    r[5] = (float)((float)a / (float)b);
    r[15] = (float)(d - (float)a);
  }
  ri[0] = py_round(a);
  ri[1] = (int64_t)trunc(a);
  ri[2] = (int64_t)trunc(a * 4);
  ri[3] = (a == b) || (a > 1.0 && !(b < 0));
}

static void check(const char *kname, int f32, const float *x32, const double *x64,
                  const double *y64, int64_t n) {
  int64_t fs[2] = {n, NF}, is[2] = {n, NI};
  size_t esz = f32 ? 4 : 8;
  kc_dtype dt = f32 ? KC_FLOAT32 : KC_FLOAT64;
  void *out = h_alloc(n * NF, esz);
  int64_t *iout = h_alloc(n * NI, 8), *wi = h_alloc(n * NI, 8);
  double *w = h_alloc(n * NF, 8);
  float *y32 = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    y32[i] = (float)y64[i];
    reference(x64[i], y64[i], f32, &w[i * NF], &wi[i * NI]);
  }
  if (f32) h_poison_f32(out, n * NF); else h_poison_f64(out, n * NF);
  h_poison_i64(iout, n * NI);
  kc_array *dx = h_array1(dt, n, f32 ? (const void *)x32 : (const void *)x64);
  kc_array *dy = h_array1(dt, n, f32 ? (const void *)y32 : (const void *)y64);
  kc_array *dout = h_array(dt, 2, fs, out), *diout = h_array(KC_INT64, 2, is, iout);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dout), kc_arg_array(diout)};
  h_launch(h_kernel(kname), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 4);
  h_fetch(dout, out);
  h_fetch(diout, iout);
  double *cw = h_alloc(n, 8), *cg = h_alloc(n, 8);
  float *cw32 = h_alloc(n, 4), *cg32 = h_alloc(n, 4);
  char what[64];
  for (int c = 0; c < NF; c++) {
    double rtol = (c == 3 || c == 4 || c == 5 || c == 15) ? (f32 ? 2e-7 : 1e-15) : 0;
    /* the GPU may fuse a * 0.1 + 0.3 into one FMA (one rounding less): allow an ulp */
    if (c == 10 && kc_context_device(H.ctx) == KC_DEVICE_CUDA) rtol = f32 ? 2e-7 : 1e-15;
    snprintf(what, sizeof what, "%s column %d", kname, c);
    for (int64_t i = 0; i < n; i++) {
      if (f32) {
        cw32[i] = (float)w[i * NF + c];
        cg32[i] = ((float *)out)[i * NF + c];
      } else {
        cw[i] = w[i * NF + c];
        cg[i] = ((double *)out)[i * NF + c];
      }
    }
    if (f32) h_check_f32(what, cw32, cg32, n, rtol, 0);
    else h_check_f64(what, cw, cg, n, rtol, 0);
  }
  int64_t *ciw = h_alloc(n, 8), *cig = h_alloc(n, 8);
  for (int c = 0; c < NI; c++) {
    for (int64_t i = 0; i < n; i++) ciw[i] = wi[i * NI + c], cig[i] = iout[i * NI + c];
    snprintf(what, sizeof what, "%s int column %d", kname, c);
    h_check_i64(what, ciw, cig, n);
  }
  kc_array_free(dx), kc_array_free(dy), kc_array_free(dout), kc_array_free(diout);
  free(out), free(iout), free(wi), free(w), free(y32), free(cw), free(cg), free(cw32);
  free(cg32), free(ciw), free(cig);
}

/* bool(x) is Python's truth of a number: false for 0, 0.0 and -0.0 (and 0j), true for
 * everything else, NaN included; C's x != 0 is exactly that (NaN != 0 holds). */
static void check_truth(void) {
  static const double xs[] = {0.0, -0.0, 1.0, -2.5, NAN, -NAN, INFINITY, -INFINITY,
                              1e-310 /* subnormal: true */, 5e-324, 1e-50, -1e300};
  enum { N = sizeof xs / sizeof xs[0], NT = 5 };
  float f[N];
  int64_t n[N];
  float complex z[N];
  int32_t out[N * NT], want[N * NT];
  for (int i = 0; i < N; i++) {
    f[i] = (float)xs[i]; /* 1e-310, 5e-324, 1e-50 become 0 in float32: false */
    n[i] = i % 3 == 0 ? 0 : (i % 3 == 1 ? -1 : INT64_MIN);
    z[i] = i % 4 == 0 ? CMPLXF(0.0f, 0.0f) : i % 4 == 1 ? CMPLXF(-0.0f, 0.0f)
         : i % 4 == 2 ? CMPLXF(0.0f, 1e-30f) : CMPLXF((float)xs[i], 0.0f);
    int32_t *w = want + i * NT;
    w[0] = xs[i] != 0, w[1] = f[i] != 0, w[2] = n[i] != 0;
    w[3] = crealf(z[i]) != 0 || cimagf(z[i]) != 0; /* a complex: either part non-zero */
    w[4] = w[0] && !w[2];
  }
  h_poison_i32(out, N * NT);
  int64_t so[2] = {N, NT};
  kc_array *dx = h_array1(KC_FLOAT64, N, xs), *df = h_array1(KC_FLOAT32, N, f);
  kc_array *dn = h_array1(KC_INT64, N, n), *dz = h_array1(KC_COMPLEX64, N, z);
  kc_array *dout = h_array(KC_INT32, 2, so, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(df), kc_arg_array(dn), kc_arg_array(dz),
                   kc_arg_array(dout)};
  h_launch(h_kernel("truth"), kc_dim(1), kc_dim(32), args, 5);
  h_fetch(dout, out);
  h_check_i32("truth (bool(x))", want, out, N * NT);
  kc_array_free(dx), kc_array_free(df), kc_array_free(dn), kc_array_free(dz);
  kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("arith_float", argc, argv);
  const int64_t n = 640;
  float *x32 = h_alloc(n, 4);
  double *x64 = h_alloc(n, 8), *y64 = h_alloc(n, 8);
  int differs = 0;
  for (int64_t i = 0; i < n; i++) {
    x64[i] = (double)((i * 7) % 81 - 40) * 0.25;   /* -10 .. 10 step 1/4: halves included */
    y64[i] = (double)((i * 5) % 23 - 11) * 0.5;    /* -5.5 .. 5.5 step 1/2 */
    if (y64[i] == 0) y64[i] = i % 2 ? 0.25 : -0.25;
    if (i % 9 == 0) y64[i] = x64[i];               /* a == b sometimes */
    x32[i] = (float)x64[i];
    volatile float t = x32[i] * 0.1f;
    differs += (float)(t + 0.3f) != (float)(x64[i] * 0.1 + 0.3);
  }
  if (!differs) printf("note: column 10 inputs do not separate float32 from float64\n");
  check("f32_ops", 1, x32, x64, y64, n);
  check("f64_ops", 0, x32, x64, y64, n);
  free(x32), free(x64), free(y64);
  check_truth();
  return h_end();
}

/* math_more.c — frexp, modf, ldexp, remainder, pow, round(x, ndigits), divmod against
 * C's libm. Exact (bit for bit, signed zeros included) for frexp, modf, ldexp,
 * remainder and divmod; pow within 1e-15 relative (libdevice's pow on the GPU:
 * 2 ulp); round(x, ndigits) exact against CPython's double_round fallback written
 * out below with libm's rint (what Numba-CUDA computes). divmod of floats is
 * CPython's float_divmod (written out below); a zero divisor gives (a / b, nan). */
#include "harness.h"

static double py_round_digits(double x, long n) {
  if (isinf(x) || isnan(x)) return x;
  if (n >= 0) {
    double p1 = n > 22 ? pow(10.0, (double)(n - 22)) : pow(10.0, (double)n);
    double p2 = n > 22 ? 1e22 : 1.0, y = (x * p1) * p2;
    if (isinf(y)) return x;
    return (rint(y) / p2) / p1;
  }
  double p1 = pow(10.0, (double)-n);
  return rint(x / p1) * p1;
}

static void py_divmod(double vx, double wx, double *q, double *r) {
  if (wx == 0) { *q = vx / wx; *r = fmod(vx, wx); return; }
  double mod = fmod(vx, wx), div = (vx - mod) / wx, fl;
  if (mod) {
    if ((wx < 0) != (mod < 0)) { mod += wx; div -= 1.0; }
  } else {
    mod = copysign(0.0, wx);
  }
  if (div) {
    fl = floor(div);
    if (div - fl > 0.5) fl += 1.0;
  } else {
    fl = copysign(0.0, vx / wx);
  }
  *q = fl, *r = mod;
}

/* the same value, bit for bit apart from NaN payloads */
static int same(double a, double b) {
  return (isnan(a) && isnan(b)) || (a == b && signbit(a) == signbit(b));
}

static void expect(const char *what, int i, double want, double got, double rtol) {
  int ok = rtol ? h_close(want, got, rtol, 0) : same(want, got);
  if (!ok && H.failures++ < 20)
    printf("FAIL math_more: %s row %d: expected %.17g got %.17g\n", what, i, want, got);
}

#define INF INFINITY
static const double xs[] = {0.0, -0.0, 1.0, -2.5, 3.75, 1e-310, -6.02e23, 0.1, 123.456,
    -987.625, 2.5, 0.125, 1234.5678, -0.5, 1e300, INF, -INF, NAN, 5e-324, 7.0};
enum { N = sizeof xs / sizeof xs[0] };

static void check64(void) {
  double out[N * 8];
  int32_t k[N], exps[N];
  for (int i = 0; i < N; i++) k[i] = (i * 37) % 61 - 30;
  k[5] = 1100, k[14] = -2000;   /* beyond the float64 exponents */
  h_poison_f64(out, N * 8), h_poison_i32(exps, N);
  int64_t shape[2] = {N, 8};
  kc_array *dx = h_array1(KC_FLOAT64, N, xs), *dk = h_array1(KC_INT32, N, k);
  kc_array *dout = h_array(KC_FLOAT64, 2, shape, out), *de = h_array1(KC_INT32, N, exps);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dk), kc_arg_array(dout), kc_arg_array(de)};
  h_launch(h_kernel("split64"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(dout, out), h_fetch(de, exps);
  for (int i = 0; i < N; i++) {
    double x = xs[i], *o = out + 8 * i, ip;
    int e = 0;
    double m = frexp(x, &e);
    expect("frexp mantissa", i, m, o[0], 0);
    if (isfinite(x) && exps[i] != e && H.failures++ < 20)
      printf("FAIL math_more: frexp exponent row %d: expected %d got %d\n", i, e, exps[i]);
    double f = modf(x, &ip);
    expect("modf fraction", i, f, o[1], 0);
    expect("modf integer part", i, ip, o[2], 0);
    expect("ldexp", i, ldexp(x, k[i]), o[3], 0);
    expect("remainder", i, remainder(x, 0.75), o[4], 0);
    expect("pow", i, pow(x, 2.5), o[5], 1e-15);
    expect("round(x, n)", i, py_round_digits(x, ((k[i] % 7) + 7) % 7 - 2), o[6], 0);
    expect("math.pow", i, pow(fabs(x), 0.5), o[7], 1e-15);
  }
  kc_array_free(dx), kc_array_free(dk), kc_array_free(dout), kc_array_free(de);
}

static void check32(void) {
  float x[N], out[N * 6];
  int32_t k[N], exps[N];
  for (int i = 0; i < N; i++) x[i] = (float)xs[i], k[i] = (i * 13) % 41 - 20;
  h_poison_f32(out, N * 6), h_poison_i32(exps, N);
  int64_t shape[2] = {N, 6};
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dk = h_array1(KC_INT32, N, k);
  kc_array *dout = h_array(KC_FLOAT32, 2, shape, out), *de = h_array1(KC_INT32, N, exps);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dk), kc_arg_array(dout), kc_arg_array(de)};
  h_launch(h_kernel("split32"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(dout, out), h_fetch(de, exps);
  for (int i = 0; i < N; i++) {
    float *o = out + 6 * i, ip;
    int e = 0;
    float m = frexpf(x[i], &e);
    expect("frexpf mantissa", i, m, o[0], 0);
    if (isfinite(x[i]) && exps[i] != e && H.failures++ < 20)
      printf("FAIL math_more: frexpf exponent row %d: expected %d got %d\n", i, e, exps[i]);
    float f = modff(x[i], &ip);
    expect("modff fraction", i, f, o[1], 0);
    expect("modff integer part", i, ip, o[2], 0);
    expect("ldexpf", i, ldexpf(x[i], k[i]), o[3], 0);
    expect("remainderf", i, remainderf(x[i], 0.75f), o[4], 0);
    /* round(float32, n): computed in float64, rounded once to float32 (Numba) */
    expect("round(float32, 1)", i, (float)py_round_digits(x[i], 1), o[5], 0);
  }
  kc_array_free(dx), kc_array_free(dk), kc_array_free(dout), kc_array_free(de);
}

static void check_divmod(void) {
  static const double ab[][2] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {1, 0.1}, {-1, 0.1},
      {0, 3}, {-0.0, 3}, {0, -3}, {5.5, 0}, {-5.5, 0}, {0, 0}, {1e300, 1e-300}, {INF, 2},
      {3, INF}, {-3, INF}, {NAN, 1}, {6, 3}, {-6, 3}, {2.5, -0.5}};
  static const int64_t iab[][2] = {{7, 2}, {-7, 2}, {7, -2}, {-7, -2}, {0, 5}, {5, 0},
      {INT64_MIN, -1}, {INT64_MIN, 3}, {100, 7}, {-100, 7}, {1, 1}, {-1, 1}, {9, -3},
      {-9, -4}, {123456789, 1000}, {-123456789, 1000}, {3, 5}, {-3, 5}, {0, -1}, {2, 3}};
  enum { M = sizeof ab / sizeof ab[0] };
  double a[M], b[M], fout[2 * M];
  int64_t ia[M], ib[M], iout[4 * M];
  for (int i = 0; i < M; i++) a[i] = ab[i][0], b[i] = ab[i][1], ia[i] = iab[i][0], ib[i] = iab[i][1];
  h_poison_f64(fout, 2 * M), h_poison_i64(iout, 4 * M);
  int64_t fs[2] = {M, 2}, is[2] = {M, 4};
  kc_array *da = h_array1(KC_FLOAT64, M, a), *db = h_array1(KC_FLOAT64, M, b);
  kc_array *dia = h_array1(KC_INT64, M, ia), *dib = h_array1(KC_INT64, M, ib);
  kc_array *df = h_array(KC_FLOAT64, 2, fs, fout), *di = h_array(KC_INT64, 2, is, iout);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dia), kc_arg_array(dib),
                   kc_arg_array(df), kc_arg_array(di)};
  h_launch(h_kernel("divmods"), kc_dim(1), kc_dim(32), args, 6);
  h_fetch(df, fout), h_fetch(di, iout);
  int64_t wi[4 * M];
  for (int i = 0; i < M; i++) {
    double q, r;
    py_divmod(a[i], b[i], &q, &r);
    expect("divmod quotient", i, q, fout[2 * i], 0);
    expect("divmod remainder", i, r, fout[2 * i + 1], 0);
    /* integers: Python's floor division and modulo (kcc gives 0 for a zero divisor,
       docs/language.md; INT64_MIN // -1 wraps as in C) */
    wi[4 * i] = ib[i] == 0 ? 0 : ib[i] == -1 ? (int64_t)(0 - (uint64_t)ia[i]) : py_floordiv_i64(ia[i], ib[i]);
    wi[4 * i + 1] = ib[i] == 0 || ib[i] == -1 ? 0 : py_mod_i64(ia[i], ib[i]);
    wi[4 * i + 2] = (int64_t)((uint64_t)ia[i] * (uint64_t)ia[i] * (uint64_t)ia[i]);
    wi[4 * i + 3] = 1024;
  }
  h_check_i64("divmod/pow of integers", wi, iout, 4 * M);
  kc_array_free(da), kc_array_free(db), kc_array_free(dia), kc_array_free(dib);
  kc_array_free(df), kc_array_free(di);
}

int main(int argc, char **argv) {
  h_begin("math_more", argc, argv);
  check64();
  check32();
  check_divmod();
  return h_end();
}

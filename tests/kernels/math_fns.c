/* math_fns.c — every math.* function of the language in float32 and float64, through
 * one generic device function specialised twice, against C's libm in double; and
 * isnan/isinf/isfinite, inf and nan on special values.
 * tolerance: float32 2e-6 relative plus 2e-6 absolute (a few ulp: GPU libdevice and
 * host libm differ); float64 1e-13 relative plus 1e-14 absolute; flags exact. */
#include "harness.h"

#define NFN 36

static void reference(double x, double y, double *r) {
  double u = x / 4;
  double f[NFN] = {
      sqrt(x),       exp(y),         exp2(y),       expm1(y),      log(x),
      log2(x),       log10(x),       log1p(x),      pow(x, y),     fabs(y),
      floor(y),      ceil(y),        trunc(y),      fmod(y, x),    copysign(x, y),
      hypot(x, y),   sin(y),         cos(y),        tan(y),        asin(u),
      acos(u),       atan(y),        atan2(y, x),   sinh(y),       cosh(y),
      tanh(y),       asinh(y),       acosh(1 + x),  atanh(u),      erf(y),
      erfc(y),       tgamma(x),      lgamma(x),     M_PI * x,      M_E + x,
      2 * M_PI * y, /* math.tau: 2 pi, exactly twice math.pi's double */
  };
  memcpy(r, f, sizeof f);
}

static void run(const char *kname, int f32, int64_t n) {
  kc_dtype dt = f32 ? KC_FLOAT32 : KC_FLOAT64;
  size_t esz = f32 ? 4 : 8;
  void *x = h_alloc(n, esz), *y = h_alloc(n, esz), *out = h_alloc(n * NFN, esz);
  double *w = h_alloc(n * NFN, 8);
  for (int64_t i = 0; i < n; i++) {
    double xv = 0.1 + 2.9 * (double)i / (double)n, yv = -2.0 + 4.0 * (double)((i * 7) % n) / n;
    if (f32) {
      ((float *)x)[i] = (float)xv, ((float *)y)[i] = (float)yv;
      xv = (float)xv, yv = (float)yv; /* the reference sees the float32 inputs */
    } else {
      ((double *)x)[i] = xv, ((double *)y)[i] = yv;
    }
    reference(xv, yv, &w[i * NFN]);
  }
  if (f32) h_poison_f32(out, n * NFN); else h_poison_f64(out, n * NFN);
  int64_t shape[2] = {n, NFN};
  kc_array *dx = h_array1(dt, n, x), *dy = h_array1(dt, n, y),
           *dout = h_array(dt, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dout)};
  h_launch(h_kernel(kname), kc_dim(h_blocks(n, 32)), kc_dim(32), args, 3);
  h_fetch(dout, out);
  static const char *names[NFN] = {
      "sqrt", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "pow", "fabs",
      "floor", "ceil", "trunc", "fmod", "copysign", "hypot", "sin", "cos", "tan", "asin",
      "acos", "atan", "atan2", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "erf",
      "erfc", "gamma", "lgamma", "pi", "e", "tau"};
  double *cw = h_alloc(n, 8), *cg = h_alloc(n, 8);
  float *cw32 = h_alloc(n, 4), *cg32 = h_alloc(n, 4);
  char what[64];
  for (int c = 0; c < NFN; c++) {
    snprintf(what, sizeof what, "%s math.%s", kname, names[c]);
    for (int64_t i = 0; i < n; i++) {
      if (f32) cw32[i] = (float)w[i * NFN + c], cg32[i] = ((float *)out)[i * NFN + c];
      else cw[i] = w[i * NFN + c], cg[i] = ((double *)out)[i * NFN + c];
    }
    if (f32) h_check_f32(what, cw32, cg32, n, 2e-6, 2e-6);
    else h_check_f64(what, cw, cg, n, 1e-13, 1e-14);
  }
  kc_array_free(dx), kc_array_free(dy), kc_array_free(dout);
  free(x), free(y), free(out), free(w), free(cw), free(cg), free(cw32), free(cg32);
}

static void run_classify(void) {
  static const double s[] = {0.0, -0.0, 1.5, -2.0, 1e308, -1e-310, NAN, -NAN, INFINITY, -INFINITY};
  enum { N = sizeof s / sizeof s[0], NC = 5 };
  float t[N];
  int32_t flags[N * NC], want[N * NC];
  for (int i = 0; i < N; i++) {
    t[i] = (float)s[i]; /* 1e308 overflows to inf in float32; -1e-310 becomes -0 */
    want[i * NC + 0] = !!isnan(s[i]) + 2 * !!isinf(s[i]) + 4 * !!isfinite(s[i]);
    want[i * NC + 1] = !!isnan(t[i]) + 2 * !!isinf(t[i]) + 4 * !!isfinite(t[i]);
    want[i * NC + 2] = s[i] == INFINITY ? 1 : s[i] == -INFINITY ? -1 : 0;
    want[i * NC + 3] = 1;
    want[i * NC + 4] = s[i] != s[i];
  }
  h_poison_i32(flags, N * NC);
  int64_t shape[2] = {N, NC};
  kc_array *ds = h_array1(KC_FLOAT64, N, s), *dt = h_array1(KC_FLOAT32, N, t),
           *df = h_array(KC_INT32, 2, shape, flags);
  kc_arg args[] = {kc_arg_array(ds), kc_arg_array(dt), kc_arg_array(df)};
  h_launch(h_kernel("classify"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(df, flags);
  h_check_i32("classify (isnan/isinf/isfinite/inf/nan)", want, flags, N * NC);
  kc_array_free(ds), kc_array_free(dt), kc_array_free(df);
}

int main(int argc, char **argv) {
  h_begin("math_fns", argc, argv);
  run("math_f32", 1, 500);
  run("math_f64", 0, 500);
  run_classify();
  return h_end();
}

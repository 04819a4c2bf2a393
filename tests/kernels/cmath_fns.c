/* cmath_fns.c — the cmath functions against C's <complex.h> (C99 Annex G, whose special
 * values are CPython's cmath tables, which Numba's implementations follow).
 *
 * complex128: within 4e-15 of the larger part's magnitude for finite results (8e-15 for
 * atan, atanh and the inverse functions near their branch points: CPython's formulas,
 * not glibc's); complex64: within 2e-6 (3e-5 for pow and log with a base, which lose a
 * few bits in float32); NaN must be NaN, an infinity the same infinity, and a zero
 * result part the same signed zero, except where C leaves the sign unspecified (the
 * cases listed in `unspecified_sign`).
 * z ** w: CPython's _Py_c_pow written out below (Numba's algorithm on both targets),
 * and C's cpow for the finite values within 1e-12. */
#include <complex.h>
#include "harness.h"

enum { NF = 18 };
typedef double complex cd;

static double complex C(double re, double im) { return CMPLX(re, im); }

/* _Py_c_pow: 1 for w == 0, 0 for z == 0 (CPython raises ZeroDivisionError for a
 * negative or complex power of 0; kernels have no exceptions: 0 as Numba-CUDA) */
static cd py_cpow(cd a, cd b) {
  if (creal(b) == 0 && cimag(b) == 0) return 1;
  if (creal(a) == 0 && cimag(a) == 0) return 0;
  double vabs = hypot(creal(a), cimag(a)), len = pow(vabs, creal(b));
  double at = atan2(cimag(a), creal(a)), phase = at * creal(b);
  if (cimag(b) != 0) {
    len /= exp(at * cimag(b));
    phase += cimag(b) * log(vabs);
  }
  return C(len * cos(phase), len * sin(phase));
}

static cd ref(int f, cd z, cd w) {
  switch (f) {
  case 0: return cexp(z);
  case 1: return clog(z);
  case 2: return csqrt(z);
  case 3: { cd l = clog(z); return C(creal(l) / M_LN10, cimag(l) / M_LN10); }
  case 4: return csin(z);
  case 5: return ccos(z);
  case 6: return ctan(z);
  case 7: return casin(z);
  case 8: return cacos(z);
  case 9: return catan(z);
  case 10: return csinh(z);
  case 11: return ccosh(z);
  case 12: return ctanh(z);
  case 13: return casinh(z);
  case 14: return cacosh(z);
  case 15: return catanh(z);
  case 16: return clog(z) / clog(w);
  default: return py_cpow(z, w);
  }
}

/* ---- Numba's formulas (numba/cpython/cmathimpl.py) for non-finite arguments ----
 * CPython takes these from special-value tables; Numba computes its formulas, which
 * agree with them except for some NaN and infinite arguments of the trigonometric and
 * hyperbolic functions and their inverses (e.g. sin(inf + 0j) is nan + nanj in Numba,
 * nan + 0j in CPython; atanh(nan + 0j) is nan + pi/2 j in Numba). kcc computes what
 * Numba computes, so for arguments with an infinite or NaN part the reference is
 * these formulas, transcribed from Numba's source. */
#define FLT_BIG 8.507059173023462e37   /* FLT_MAX / 4, Numba's threshold */
static cd nb_sqrt(cd z) { return csqrt(z); }
static cd nb_cosh(cd z) {
  double x = creal(z), y = cimag(z);
  if (isinf(x)) {
    double re, im;
    if (isnan(y) || y == 0) re = fabs(x), im = y;
    else re = copysign(x, cos(y)), im = copysign(x, sin(y));
    return C(re, x < 0 ? -im : im);
  }
  return C(cos(y) * cosh(x), sin(y) * sinh(x));
}
static cd nb_sinh(cd z) {
  double x = creal(z), y = cimag(z);
  if (isinf(x)) {
    if (isnan(y)) return C(x, y);
    double re = cos(y), im = sin(y);
    return C(re != 0 ? re * x : re, im != 0 ? im * fabs(x) : im);
  }
  return C(cos(y) * sinh(x), sin(y) * cosh(x));
}
static cd nb_tanh(cd z) {
  double x = creal(z), y = cimag(z);
  if (isinf(x)) return C(copysign(1, x), isinf(y) ? 0.0 : copysign(0.0, sin(2 * y)));
  double tx = tanh(x), ty = tan(y), cx = 1 / cosh(x), txty = tx * ty, d = 1 + txty * txty;
  return C(tx * (1 + ty * ty) / d, ((ty / d) * cx) * cx);
}
static cd rot(cd z) { return C(-cimag(z), creal(z)); }          /* i z */
static cd unrot(cd r) { return C(cimag(r), -creal(r)); }        /* -i r */
static cd nb_acos(cd z) {
  double x = creal(z), y = cimag(z);
  if (fabs(x) > FLT_BIG || fabs(y) > FLT_BIG)
    return C(atan2(fabs(y), x), copysign(log(hypot(x * 0.5, y * 0.5)) + 2 * M_LN2, -y));
  cd s1 = nb_sqrt(C(1 - x, -y)), s2 = nb_sqrt(C(1 + x, y));
  return C(2 * atan2(creal(s1), creal(s2)), asinh(creal(s2) * cimag(s1) - cimag(s2) * creal(s1)));
}
static cd nb_acosh(cd z) {
  double x = creal(z), y = cimag(z);
  if (fabs(x) > FLT_BIG || fabs(y) > FLT_BIG)
    return C(log(hypot(x * 0.5, y * 0.5)) + 2 * M_LN2, atan2(y, x));
  cd s1 = nb_sqrt(C(x - 1, y)), s2 = nb_sqrt(C(x + 1, y));
  return C(asinh(creal(s1) * creal(s2) + cimag(s1) * cimag(s2)), 2 * atan2(cimag(s1), creal(s2)));
}
static cd nb_asinh(cd z) {
  double x = creal(z), y = cimag(z);
  if (fabs(x) > FLT_BIG || fabs(y) > FLT_BIG)
    return C(copysign(log(hypot(x * 0.5, y * 0.5)) + 2 * M_LN2, x), atan2(y, fabs(x)));
  cd s1 = nb_sqrt(C(1 + y, -x)), s2 = nb_sqrt(C(1 - y, x));
  return C(asinh(creal(s1) * cimag(s2) - creal(s2) * cimag(s1)),
           atan2(y, creal(s1) * creal(s2) - cimag(s1) * cimag(s2)));
}
static cd nb_atanh(cd z) {
  int neg = creal(z) < 0;
  if (neg) z = -z;
  double x = creal(z), y = cimag(z), ay = fabs(y), re, im;
  if (isnan(x) || x > sqrt(FLT_BIG) || ay > sqrt(FLT_BIG)) {
    if (isinf(y)) re = copysign(0.0, x);
    else if (isinf(x)) re = 0;
    else { double h = hypot(x * 0.5, y * 0.5); re = x / 4 / h / h; }
    im = -copysign(M_PI_2, -y);
  } else if (x == 1 && ay < sqrt(0x1p-126)) {
    if (ay == 0) re = INFINITY, im = y;
    else re = -log(sqrt(ay) / sqrt(hypot(ay, 2))), im = copysign(atan2(2, -ay) / 2, y);
  } else {
    double sqay = ay * ay, zr1 = 1 - x;
    re = log1p(4 * x / (zr1 * zr1 + sqay)) * 0.25;
    im = -atan2(-2 * y, zr1 * (1 + x) - sqay) * 0.5;
  }
  if (isnan(y)) im = NAN;
  return neg ? C(-re, -im) : C(re, im);
}
static cd nb_atan(cd z) {
  cd r = nb_atanh(rot(z));
  if (isinf(creal(z)) && isnan(cimag(z))) return C(cimag(r), creal(r));
  return unrot(r);
}

/* Numba's value where it is not C's, else C's */
static cd ref_special(int f, cd z, cd w) {
  switch (f) {
  case 4: return unrot(nb_sinh(rot(z)));
  case 5: return nb_cosh(rot(z));
  case 6: return unrot(nb_tanh(rot(z)));
  case 7: return unrot(nb_asinh(rot(z)));
  case 8: return nb_acos(z);
  case 9: return nb_atan(z);
  case 10: return nb_sinh(z);
  case 11: return nb_cosh(z);
  case 12: return nb_tanh(z);
  case 13: return nb_asinh(z);
  case 14: return nb_acosh(z);
  case 15: return nb_atanh(z);
  default: return ref(f, z, w);
  }
}

static const char *const names[NF] = {"exp", "log", "sqrt", "log10", "sin", "cos", "tan",
    "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "log(z, w)",
    "z ** w"};

#define INF INFINITY
static const double zs[][2] = {
  {0.5, 0.25}, {-1.5, 2}, {3, -0.75}, {-0.3, -0.4}, {2, 0}, {0.25, 0}, {-2, 0}, {-2, -0.0},
  {0, 2}, {-0.0, -2}, {1.5, 0}, {1.5, -0.0}, {-1.5, 0}, {0, 0}, {-0.0, 0}, {0, -0.0},
  {1, 0}, {-1, -0.0}, {0.75, 1e-10}, {1e300, 1e300}, {-1e300, 2}, {1e-300, -1e-300},
  {40, 3}, {-30, 1},
  /* special values */
  {INF, 0}, {-INF, 0}, {INF, -0.0}, {0, INF}, {-0.0, -INF}, {INF, INF}, {-INF, INF},
  {INF, -INF}, {2, INF}, {-2, INF}, {INF, 2}, {-INF, 2}, {INF, -2}, {-INF, -2},
  {NAN, 0}, {0, NAN}, {NAN, 2}, {2, NAN}, {INF, NAN}, {-INF, NAN}, {NAN, INF}, {NAN, NAN},
};
enum { N = sizeof zs / sizeof zs[0], NREG = 24 };

static cd w_of(int i) { return C(0.5 + (i % 5) * 0.75, (i % 3) - 1.0); }

/* With a NaN argument C leaves the signs of the result unspecified, and the formulas
 * give either: only the class (NaN, infinite, zero, finite) is compared. */
static int unspecified_sign(int f, double zr, double zi, int imag_part) {
  (void)f, (void)imag_part;
  return isnan(zr) || isnan(zi);   /* the sign of a NaN's companion: C leaves it open */
}

static int same_class(double want, double got, double scale, double rtol, int any_sign) {
  if (isnan(want)) return isnan(got);
  if (isinf(want)) return any_sign ? isinf(got) : got == want;
  if (want == 0 && got == 0) return any_sign || signbit(want) == signbit(got);
  if (!isfinite(got)) return 0;
  return fabs(got - want) <= rtol * scale + 1e-300;
}

/* the larger finite part's magnitude */
static double scale_of(cd v) {
  double a = isfinite(creal(v)) ? fabs(creal(v)) : 0, b = isfinite(cimag(v)) ? fabs(cimag(v)) : 0;
  return fmax(a, b);
}

static int check_one(const char *what, int f, int i, cd want, double gre, double gim,
                     double rtol) {
  double scale = scale_of(want);
  int ok = same_class(creal(want), gre, scale, rtol, unspecified_sign(f, zs[i][0], zs[i][1], 0)) &&
           same_class(cimag(want), gim, scale, rtol, unspecified_sign(f, zs[i][0], zs[i][1], 1));
  if (!ok && H.failures++ < 400)
    printf("FAIL cmath_fns: %s %s(%g%+gj): expected %.17g%+.17gj got %.17g%+.17gj\n", what,
           names[f], zs[i][0], zs[i][1], creal(want), cimag(want), gre, gim);
  return ok;
}

static double rtol_of(int f, int c64) {
  if (c64) return (f >= 16) ? 3e-5 : 2e-6;
  return (f == 9 || f == 15 || f == 7 || f == 8 || f == 13 || f == 14) ? 8e-15 : 4e-15;
}

static void check128(void) {
  double z[2 * N], w[2 * N], out[2 * N * NF];
  int32_t flags[N], wflags[N];
  for (int i = 0; i < N; i++) {
    z[2 * i] = zs[i][0], z[2 * i + 1] = zs[i][1];
    w[2 * i] = creal(w_of(i)), w[2 * i + 1] = cimag(w_of(i));
    wflags[i] = (isnan(zs[i][0]) || isnan(zs[i][1])) * 1 +
                (isinf(zs[i][0]) || isinf(zs[i][1])) * 2 +
                (isfinite(zs[i][0]) && isfinite(zs[i][1])) * 4;
  }
  h_poison_f64(out, 2 * N * NF), h_poison_i32(flags, N);
  int64_t shape[2] = {N, NF};
  kc_array *dz = h_array1(KC_COMPLEX128, N, z), *dw = h_array1(KC_COMPLEX128, N, w);
  kc_array *dout = h_array(KC_COMPLEX128, 2, shape, out), *df = h_array1(KC_INT32, N, flags);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dw), kc_arg_array(dout), kc_arg_array(df)};
  h_launch(h_kernel("fns128"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 4);
  h_fetch(dout, out), h_fetch(df, flags);
  for (int i = 0; i < N; i++)
    for (int f = 0; f < NF; f++) {
      if (f >= 16 && i >= NREG) continue;   /* log(z, w), z ** w: finite z */
      cd want = (i < NREG ? ref : ref_special)(f, C(zs[i][0], zs[i][1]), w_of(i));
      const double *g = out + 2 * (i * NF + f);
      check_one("complex128", f, i, want, g[0], g[1], rtol_of(f, 0));
      if (f == 17 && i < NREG && creal(w_of(i)) != 0) {   /* and C's own cpow */
        cd c = cpow(C(zs[i][0], zs[i][1]), w_of(i));
        if (cabs(c) < 1e300 && cabs(c) > 1e-300 && zs[i][0] != 0)
          check_one("complex128 (cpow)", f, i, c, g[0], g[1], 1e-12);
      }
    }
  h_check_i32("isnan/isinf/isfinite", wflags, flags, N);
  kc_array_free(dz), kc_array_free(dw), kc_array_free(dout), kc_array_free(df);
}

static void check64(void) {
  float z[2 * N], w[2 * N], out[2 * N * NF];
  for (int i = 0; i < N; i++) {
    z[2 * i] = (float)zs[i][0], z[2 * i + 1] = (float)zs[i][1];
    w[2 * i] = (float)creal(w_of(i)), w[2 * i + 1] = (float)cimag(w_of(i));
  }
  h_poison_f32(out, 2 * N * NF);
  int64_t shape[2] = {N, NF};
  kc_array *dz = h_array1(KC_COMPLEX64, N, z), *dw = h_array1(KC_COMPLEX64, N, w);
  kc_array *dout = h_array(KC_COMPLEX64, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dw), kc_arg_array(dout)};
  h_launch(h_kernel("fns64"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 3);
  h_fetch(dout, out);
  for (int i = 0; i < N; i++) {
    if (i == 19 || i == 20 || i == 21) continue;   /* 1e300, 1e-300: not float32 values */
    for (int f = 0; f < NF; f++) {
      if (f >= 16 && i >= NREG) continue;
      cd want = (i < NREG ? ref : ref_special)(f, C(z[2 * i], z[2 * i + 1]), C(w[2 * i], w[2 * i + 1]));
      /* what float32 can hold: overflow to inf, underflow to 0 */
      want = C((float)creal(want), (float)cimag(want));
      const float *g = out + 2 * (i * NF + f);
      check_one("complex64", f, i, want, g[0], g[1], rtol_of(f, 1));
    }
  }
  kc_array_free(dz), kc_array_free(dw), kc_array_free(dout);
}

/* cmath.rect(r, phi): r (cos phi + i sin phi), with CPython's special values: rect(0,
 * inf or nan) = 0, rect(inf, inf or nan) = inf + i phi, and a zero cos or sin times an
 * infinite r gives a signed zero (cmath's table; C has no rect). */
static cd rect_ref(double r, double phi) {
  if (!isfinite(phi)) {
    if (r == 0) return C(fabs(r), 0);
    if (isinf(r)) return C(r, phi);
  }
  double c = cos(phi), s = sin(phi);
  return C(c == 0 && isinf(r) ? c / r : c * r, s == 0 && isinf(r) ? s / r : s * r);
}

static void check_rect(void) {
  static const double rp[][2] = {{2, 0.5}, {-1.5, 3}, {0, INF}, {-0.0, -INF}, {0, NAN},
      {INF, INF}, {-INF, NAN}, {INF, 0}, {INF, -0.0}, {-INF, 0}, {INF, 1}, {NAN, 0},
      {3, NAN}, {0, 2}, {1e308, 1e-5}};
  enum { M = sizeof rp / sizeof rp[0] };
  double r[M], phi[M], out[2 * M];
  for (int i = 0; i < M; i++) r[i] = rp[i][0], phi[i] = rp[i][1];
  h_poison_f64(out, 2 * M);
  kc_array *dr = h_array1(KC_FLOAT64, M, r), *dp = h_array1(KC_FLOAT64, M, phi);
  kc_array *dout = h_array1(KC_COMPLEX128, M, out);
  kc_arg args[] = {kc_arg_array(dr), kc_arg_array(dp), kc_arg_array(dout)};
  h_launch(h_kernel("rect128"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dout, out);
  for (int i = 0; i < M; i++) {
    cd want = rect_ref(r[i], phi[i]);
    double scale = fmax(fabs(creal(want)), fabs(cimag(want)));
    if (!isfinite(scale)) scale = 0;
    int any = isnan(r[i]) || isnan(phi[i]);
    if (!(same_class(creal(want), out[2 * i], scale, 4e-16, any) &&
          same_class(cimag(want), out[2 * i + 1], scale, 4e-16, any)) && H.failures++ < 400)
      printf("FAIL cmath_fns: rect(%g, %g): expected %.17g%+.17gj got %.17g%+.17gj\n", r[i],
             phi[i], creal(want), cimag(want), out[2 * i], out[2 * i + 1]);
  }
  kc_array_free(dr), kc_array_free(dp), kc_array_free(dout);
}

/* complex ** float and ** int variables (the exponent taken as complex), and a real
 * argument to cmath.sqrt and cmath.acos (taken as complex with +0 imaginary part) */
static void check_pow_real(void) {
  enum { M = 12 };
  double z[2 * M], x[M], out[2 * 4 * M];
  int32_t k[M];
  for (int i = 0; i < M; i++) {
    z[2 * i] = 0.25 * i - 1.3, z[2 * i + 1] = 0.5 - 0.125 * i;
    x[i] = 0.75 * i - 4;
    k[i] = i - 5;
  }
  h_poison_f64(out, 2 * 4 * M);
  int64_t shape[2] = {M, 4};
  kc_array *dz = h_array1(KC_COMPLEX128, M, z), *dx = h_array1(KC_FLOAT64, M, x);
  kc_array *dk = h_array1(KC_INT32, M, k), *dout = h_array(KC_COMPLEX128, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dx), kc_arg_array(dk), kc_arg_array(dout)};
  h_launch(h_kernel("pow_real"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(dout, out);
  for (int i = 0; i < M; i++) {
    cd zi = C(z[2 * i], z[2 * i + 1]);
    cd want[4] = {py_cpow(zi, x[i]), py_cpow(zi, k[i]), csqrt(C(x[i], 0)), cacos(C(x[i], 0))};
    for (int j = 0; j < 4; j++) {
      const double *g = out + 2 * (4 * i + j);
      double scale = fmax(fabs(creal(want[j])), fabs(cimag(want[j])));
      if (!(same_class(creal(want[j]), g[0], scale, 1e-14, 0) &&
            same_class(cimag(want[j]), g[1], scale, 1e-14, 0)) && H.failures++ < 400)
        printf("FAIL cmath_fns: pow_real row %d column %d: expected %.17g%+.17gj got "
               "%.17g%+.17gj\n", i, j, creal(want[j]), cimag(want[j]), g[0], g[1]);
    }
  }
  kc_array_free(dz), kc_array_free(dx), kc_array_free(dk), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("cmath_fns", argc, argv);
  check128();
  check64();
  check_rect();
  check_pow_real();
  return h_end();
}

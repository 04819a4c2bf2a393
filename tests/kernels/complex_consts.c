/* complex_consts.c — complex module constants against C99 <complex.h>.
 * tolerance: complex128 1e-14 relative (C's division rounds differently from Smith's);
 * complex64 1e-5 relative. cmath_consts: cmath.pi/e/tau are M_PI, M_E, 2 * M_PI and
 * cmath.inf/nan C's INFINITY/NAN (Python's cmath module values); products with them
 * 1e-15 relative; x[i] * cmath.pi in float32 must be float32 arithmetic exactly (the
 * constant adopts float32, as literals do: rule 1 of docs/language.md); conjugate exact. */
#include <complex.h>

#include "harness.h"

enum { NOUT = 8, N64 = 3 };

static void put(double *p, double complex z) { p[0] = creal(z); p[1] = cimag(z); }

static void check128(void) {
  const int64_t n = 211;
  const double complex Z = 1.0 + 2.0 * I, W = 2.0 + 3.0 * I;
  const double complex Q = (W - Z * I) / ((1 - 2 * I) * (1 - 2 * I)) + 0.5;
  double complex *a = h_alloc(n, 16);
  for (int64_t i = 0; i < n; i++)
    a[i] = ((double)(i % 13) - 6.5) * 0.41 + I * (((double)(i % 7) - 3) * 0.73);
  double *out = h_alloc(n * NOUT * 2, 8), *want = h_alloc(n * NOUT * 2, 8);
  double *parts = h_alloc(n, 8), *wparts = h_alloc(n, 8);
  h_poison_f64(out, n * NOUT * 2);
  h_poison_f64(parts, n);
  for (int64_t i = 0; i < n; i++) {
    double complex z = a[i];
    double *o = want + i * NOUT * 2;
    put(o + 0, z * I);
    put(o + 2, z + Z);
    put(o + 4, W / z);
    put(o + 6, z * I + Z);
    put(o + 8, Q);
    put(o + 10, 3.0 - Z);
    put(o + 12, W * W * z);
    put(o + 14, z * (creal(z) > 0 ? I : W));
    wparts[i] = 2.0 * creal(z) + cabs(W);
  }
  int64_t s2[2] = {n, NOUT};
  kc_array *da = h_array1(KC_COMPLEX128, n, a), *dout = h_array(KC_COMPLEX128, 2, s2, out);
  kc_array *dparts = h_array1(KC_FLOAT64, n, parts);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_array(dparts)};
  h_launch(h_kernel("consts128"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out);
  h_fetch(dparts, parts);
  h_check_f64("consts128 out", want, out, n * NOUT * 2, 1e-14, 1e-15);
  h_check_f64("consts128 parts", wparts, parts, n, 1e-15, 0);
  kc_array_free(da), kc_array_free(dout), kc_array_free(dparts);
  free(a), free(out), free(want), free(parts), free(wparts);
}

static void check64(void) {
  const int64_t n = 157;
  const double complex Z = 1.0 + 2.0 * I, W = 2.0 + 3.0 * I;
  float complex *a = h_alloc(n, 8);
  float *x = h_alloc(n, 4), *out = h_alloc(n * N64 * 2, 4), *want = h_alloc(n * N64 * 2, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)((i % 11) - 5) * 0.5f + I * (float)((i % 9) - 4) * 0.25f;
    x[i] = (float)((i % 6) - 2) * 0.75f;
  }
  h_poison_f32(out, n * N64 * 2);
  for (int64_t i = 0; i < n; i++) {
    double complex z = a[i];
    double complex r[N64] = {z * W + I, x[i] * I + Z, z * I + Z};
    for (int k = 0; k < N64; k++) {
      want[(i * N64 + k) * 2] = (float)creal(r[k]);
      want[(i * N64 + k) * 2 + 1] = (float)cimag(r[k]);
    }
  }
  int64_t s2[2] = {n, N64};
  kc_array *da = h_array1(KC_COMPLEX64, n, a), *dx = h_array1(KC_FLOAT32, n, x);
  kc_array *dout = h_array(KC_COMPLEX64, 2, s2, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("consts64"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out);
  h_check_f32("consts64", want, out, n * N64 * 2, 1e-5, 1e-6);
  kc_array_free(da), kc_array_free(dx), kc_array_free(dout);
  free(a), free(x), free(out), free(want);
}

enum { NCM = 4, NRM = 4, NFM = 2 };

static void check_cmath_consts(void) {
  const int64_t n = 97;
  const double complex W = 2.0 + 3.0 * I;
  double complex *a = h_alloc(n, 16);
  float *x = h_alloc(n, 4), *f = h_alloc(n * NFM, 4), *wf = h_alloc(n * NFM, 4);
  double *out = h_alloc(n * NCM * 2, 8), *wout = h_alloc(n * NCM * 2, 8);
  double *re = h_alloc(n * NRM, 8), *wre = h_alloc(n * NRM, 8);
  int32_t *flags = h_alloc(n, 4), *wflags = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = ((double)(i % 11) - 5) * 0.7 + I * (((double)(i % 8) - 3.5) * 1.1);
    x[i] = (float)((i % 13) - 6) * 0.3f;
  }
  h_poison_f64(out, n * NCM * 2), h_poison_f64(re, n * NRM);
  h_poison_f32(f, n * NFM), h_poison_i32(flags, n);
  for (int64_t i = 0; i < n; i++) {
    double complex z = a[i];
    double *o = wout + i * NCM * 2, *r = wre + i * NRM;
    put(o + 0, conj(z));
    put(o + 2, conj(z * W));
    put(o + 4, z * M_PI + M_E);
    put(o + 6, 2 * M_PI - M_PI * I);
    r[0] = x[i], r[1] = 2 * M_PI * cimag(z), r[2] = NAN, r[3] = -INFINITY;
    wf[i * NFM] = x[i] * (float)M_PI, wf[i * NFM + 1] = x[i] + (float)(2 * M_PI);
    wflags[i] = 1 + 2 + 4 + 8 + (M_E < cimag(z)) * 16;
  }
  int64_t so[2] = {n, NCM}, sr[2] = {n, NRM}, sf[2] = {n, NFM};
  kc_array *da = h_array1(KC_COMPLEX128, n, a), *dx = h_array1(KC_FLOAT32, n, x);
  kc_array *dout = h_array(KC_COMPLEX128, 2, so, out), *dre = h_array(KC_FLOAT64, 2, sr, re);
  kc_array *df = h_array(KC_FLOAT32, 2, sf, f), *dflags = h_array1(KC_INT32, n, flags);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dx), kc_arg_array(dout), kc_arg_array(dre),
                   kc_arg_array(df), kc_arg_array(dflags)};
  h_launch(h_kernel("cmath_consts"), kc_dim(h_blocks(n, 32)), kc_dim(32), args, 6);
  h_fetch(dout, out), h_fetch(dre, re), h_fetch(df, f), h_fetch(dflags, flags);
  h_check_f64("cmath_consts out", wout, out, n * NCM * 2, 1e-15, 0);
  h_check_f64("cmath_consts re", wre, re, n * NRM, 1e-15, 0);
  h_check_f32("cmath_consts float32", wf, f, n * NFM, 0, 0);
  h_check_i32("cmath_consts flags", wflags, flags, n);
  kc_array_free(da), kc_array_free(dx), kc_array_free(dout), kc_array_free(dre);
  kc_array_free(df), kc_array_free(dflags);
  free(a), free(x), free(f), free(wf), free(out), free(wout), free(re), free(wre);
  free(flags), free(wflags);
}

int main(int argc, char **argv) {
  h_begin("complex_consts", argc, argv);
  check128();
  check64();
  check_cmath_consts();
  return h_end();
}

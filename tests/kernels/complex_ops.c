/* complex_ops.c — complex numbers against C99 <complex.h>.
 * tolerance: complex128 arithmetic 1e-14 relative (Smith's division rounds differently
 * from C's); transcendental parts 1e-13 relative + 1e-14 absolute; complex64 1e-5. */
#include <complex.h>

#include "harness.h"

enum { NOUT = 14, NRE = 6, N64 = 5 };

static void put(double *p, double complex z) { p[0] = creal(z); p[1] = cimag(z); }

static void check128(void) {
  const int64_t n = 301;
  double complex *a = h_alloc(n, 16), *b = h_alloc(n, 16);
  for (int64_t i = 0; i < n; i++) {
    a[i] = ((double)(i % 17) - 8.5) * 0.37 + I * (((double)(i % 13) - 6) * 0.61);
    b[i] = (i % 10 == 0) ? a[i] : ((double)(i % 7) - 3.2) * 1.3 + I * ((double)(i % 5) + 0.25);
  }
  double *out = h_alloc(n * NOUT * 2, 8), *re = h_alloc(n * NRE, 8);
  double *wout = h_alloc(n * NOUT * 2, 8), *wre = h_alloc(n * NRE, 8);
  int32_t *flags = h_alloc(n, 4), *wflags = h_alloc(n, 4);
  h_poison_f64(out, n * NOUT * 2);
  h_poison_f64(re, n * NRE);
  h_poison_i32(flags, n);
  for (int64_t i = 0; i < n; i++) {
    double complex z = a[i], w = b[i];
    double *o = wout + i * NOUT * 2;
    put(o + 0, z + w);
    put(o + 2, z - w);
    put(o + 4, z * w);
    put(o + 6, z / w);
    put(o + 8, -z + 2.5);
    put(o + 10, z * conj(w) + I);
    put(o + 12, cexp(z));
    put(o + 14, csqrt(z));
    put(o + 16, clog(w));
    double complex q = creal(z) + 3.0 * I;
    put(o + 18, q * q);
    put(o + 20, cabs(z) * (cos(carg(z)) + I * sin(carg(z))));
    put(o + 22, conj(z));
    put(o + 24, cpow(z, w));
    put(o + 26, cpow(w, z * 0.5));
    double *r = wre + i * NRE;
    r[0] = cabs(z), r[1] = creal(z), r[2] = cimag(z), r[3] = carg(w);
    r[4] = cabs(w), r[5] = carg(w);
    wflags[i] = (z == w) * 1 + (z != w) * 2 + 4 + (cimag(z) == 0) * 8;
  }
  int64_t s2[2] = {n, NOUT}, sr[2] = {n, NRE};
  kc_array *da = h_array1(KC_COMPLEX128, n, a), *db = h_array1(KC_COMPLEX128, n, b);
  kc_array *dout = h_array(KC_COMPLEX128, 2, s2, out), *dre = h_array(KC_FLOAT64, 2, sr, re);
  kc_array *dflags = h_array1(KC_INT32, n, flags);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout), kc_arg_array(dre),
                   kc_arg_array(dflags)};
  h_launch(h_kernel("cx128"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 5);
  h_fetch(dout, out);
  h_fetch(dre, re);
  h_fetch(dflags, flags);
  for (int k = 0; k < NOUT; k++) {
    /* column k of out, as (re, im) pairs */
    double want[2 * 301], got[2 * 301];
    for (int64_t i = 0; i < n; i++) {
      want[2 * i] = wout[(i * NOUT + k) * 2], want[2 * i + 1] = wout[(i * NOUT + k) * 2 + 1];
      got[2 * i] = out[(i * NOUT + k) * 2], got[2 * i + 1] = out[(i * NOUT + k) * 2 + 1];
    }
    char what[32];
    snprintf(what, sizeof what, "cx128 out[:, %d]", k);
    h_check_f64(what, want, got, 2 * n, 1e-13, 1e-14);
  }
  h_check_f64("cx128 real results", wre, re, n * NRE, 1e-13, 1e-14);
  h_check_i32("cx128 comparisons", wflags, flags, n);

  /* scale(a, s, out): a complex128 array times a float64 scalar; zero -> 1+1j */
  a[3] = 0;
  double complex *sc = h_alloc(n, 16), *wsc = h_alloc(n, 16);
  h_poison_f64((double *)sc, 2 * n);
  for (int64_t i = 0; i < n; i++) wsc[i] = a[i] != 0 ? a[i] * -1.75 : 1 + I;
  kc_array *da2 = h_array1(KC_COMPLEX128, n, a), *dsc = h_array1(KC_COMPLEX128, n, sc);
  kc_arg sargs[] = {kc_arg_array(da2), kc_arg_f64(-1.75), kc_arg_array(dsc)};
  h_launch(h_kernel("scale"), kc_dim(h_blocks(n, 32)), kc_dim(32), sargs, 3);
  h_fetch(dsc, sc);
  h_check_f64("scale", (double *)wsc, (double *)sc, 2 * n, 1e-15, 0);
  /* a complex argument never converts to a real parameter */
  sargs[1] = kc_arg_c128(1, 2);
  if (kc_launch(h_kernel("scale"), kc_dim(1), kc_dim(1), 0, NULL, sargs, 3) != KC_ERR_LAUNCH)
    h_die("a complex128 argument for a float64 parameter was accepted");

  kc_array_free(da), kc_array_free(db), kc_array_free(dout), kc_array_free(dre);
  kc_array_free(dflags), kc_array_free(da2), kc_array_free(dsc);
  free(a), free(b), free(out), free(re), free(wout), free(wre), free(flags), free(wflags);
  free(sc), free(wsc);
}

static void check64(void) {
  const int64_t n = 257;
  float complex *a = h_alloc(n, 8), c = 0.5f - 2.0f * I;
  float *x = h_alloc(n, 4), *out = h_alloc(n * N64 * 2, 4), *want = h_alloc(n * N64 * 2, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)((i % 11) - 5) * 0.5f + I * (float)((i % 9) - 4) * 0.25f;
    x[i] = (float)((i % 6) - 2) * 0.75f;
  }
  h_poison_f32(out, n * N64 * 2);
  for (int64_t i = 0; i < n; i++) {
    double complex z = a[i];
    double complex r[N64] = {z * x[i] + (double complex)c, z / (x[i] + I), z * 3.0, x[i],
                             csqrt(z)};
    for (int k = 0; k < N64; k++) {
      want[(i * N64 + k) * 2] = (float)creal(r[k]);
      want[(i * N64 + k) * 2 + 1] = (float)cimag(r[k]);
    }
  }
  int64_t s2[2] = {n, N64};
  kc_array *da = h_array1(KC_COMPLEX64, n, a), *dx = h_array1(KC_FLOAT32, n, x);
  kc_array *dout = h_array(KC_COMPLEX64, 2, s2, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dx), kc_arg_c64(crealf(c), cimagf(c)),
                   kc_arg_array(dout)};
  h_launch(h_kernel("cx64"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 4);
  h_fetch(dout, out);
  h_check_f32("cx64", want, out, n * N64 * 2, 1e-5, 1e-6);
  kc_array_free(da), kc_array_free(dx), kc_array_free(dout);
  free(a), free(x), free(out), free(want);
}

/* @vectorize with two complex signatures: kc_vectorize picks complex128 here. */
static void check_vectorize(void) {
  const int64_t n = 100;
  double complex *z = h_alloc(n, 16), *got = h_alloc(n, 16), *want = h_alloc(n, 16);
  double *x = h_alloc(n, 8);
  for (int64_t i = 0; i < n; i++) {
    z[i] = (double)i * 0.5 - I * (double)(i % 7);
    x[i] = 1.25 - (double)(i % 5);
    want[i] = z[i] * x[i] + I;
  }
  kc_array *in[2] = {h_array1(KC_COMPLEX128, n, z), h_array1(KC_FLOAT64, n, x)}, *out = NULL;
  h_ok(kc_vectorize(h_kernel("scale_shift"), in, 2, &out), "kc_vectorize");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  if (kc_array_dtype(out) != KC_COMPLEX128) h_die("scale_shift: output is not complex128");
  h_fetch(out, got);
  h_check_f64("scale_shift", (double *)want, (double *)got, 2 * n, 1e-15, 0);
  kc_array_free(in[0]), kc_array_free(in[1]), kc_array_free(out);
  free(z), free(got), free(want), free(x);
}

int main(int argc, char **argv) {
  h_begin("complex_ops", argc, argv);
  check128();
  check64();
  check_vectorize();
  return h_end();
}

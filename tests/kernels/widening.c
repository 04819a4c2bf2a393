/* widening.c — unification of locals and the promotion rules of docs/language.md.
 * tolerance: exact. Column 0 sums float32 values in float32, in order, so it differs
 * from a float64 sum when `s = 0; s += a[j]` became float64 (kcc's float32 rule; Numba
 * would make s float64). Column 3 of iout pins Numba's int32 + literal -> int64 (no
 * wrap at 2^31). Columns 5 and 6: a tuple local widened to (int64, int64) by a later
 * assignment. */
#include "harness.h"

#define NF 5
#define NI 7

int main(int argc, char **argv) {
  h_begin("widening", argc, argv);
  const int64_t n = 64;
  float *a = h_alloc(n, 4);
  int32_t *m = h_alloc(n, 4);
  double *out = h_alloc(n * NF, 8), *w = h_alloc(n * NF, 8);
  int64_t *iout = h_alloc(n * NI, 8), *wi = h_alloc(n * NI, 8);
  for (int64_t i = 0; i < n; i++) {
    a[i] = 0.1f * (float)i + 0.01f;
    m[i] = (int32_t)(i % 24);
  }
  int separates = 0;
  for (int64_t i = 0; i < n; i++) {
    int32_t mi = m[i];
    float s = 0;
    double s64 = 0;
    for (int32_t j = 0; j < mi; j++) s += a[j], s64 += a[j];
    separates += (double)s != s64;
    double *r = &w[i * NF];
    r[0] = s;
    r[1] = (double)mi / 7;
    r[2] = (double)mi / 4;
    r[3] = mi > 5 ? (double)mi / 3 : (double)a[i];
    r[4] = mi % 2 == 0 ? (double)(a[i] * 2.0f) : (double)(float)mi;
    int64_t *ri = &wi[i * NI];
    ri[0] = (int64_t)mi * 3000000000ll;
    ri[1] = mi + 4000000000ll;
    ri[2] = mi > 3 ? 6000000000ll : 1;
    ri[3] = (int64_t)mi + 2147483647;
    ri[4] = (mi > 3) + mi;
    ri[5] = mi + (mi > 20 ? 2000000000ll : 0);
    ri[6] = mi + (mi > 20 ? 2000000000ll : 0);
  }
  if (!separates) h_die("test inputs do not separate a float32 sum from a float64 one");
  h_poison_f64(out, n * NF);
  h_poison_i64(iout, n * NI);
  int64_t fs[2] = {n, NF}, is[2] = {n, NI};
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dm = h_array1(KC_INT32, n, m),
           *dout = h_array(KC_FLOAT64, 2, fs, out), *diout = h_array(KC_INT64, 2, is, iout);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dm), kc_arg_array(dout), kc_arg_array(diout)};
  h_launch(h_kernel("widening"), kc_dim(2), kc_dim(32), args, 4);
  h_fetch(dout, out);
  h_fetch(diout, iout);
  double cw[64], cg[64];
  int64_t ciw[64], cig[64];
  char what[48];
  for (int c = 0; c < NF; c++) {
    for (int64_t i = 0; i < n; i++) cw[i] = w[i * NF + c], cg[i] = out[i * NF + c];
    snprintf(what, sizeof what, "float column %d", c);
    h_check_f64(what, cw, cg, n, 0, 0);
  }
  for (int c = 0; c < NI; c++) {
    for (int64_t i = 0; i < n; i++) ciw[i] = wi[i * NI + c], cig[i] = iout[i * NI + c];
    snprintf(what, sizeof what, "int column %d", c);
    h_check_i64(what, ciw, cig, n);
  }
  kc_array_free(da), kc_array_free(dm), kc_array_free(dout), kc_array_free(diout);
  free(a), free(m), free(out), free(w), free(iout), free(wi);
  return h_end();
}

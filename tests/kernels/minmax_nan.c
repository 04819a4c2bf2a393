/* minmax_nan.c — the rules the .k file states, written out in C: fmax/fmin for two
 * floats (float32 with float64 compared as float64), and Python's left-to-right
 * "replace only when greater (smaller)" for the rest; NaN compares false. */
#include <stdbool.h>

#include "harness.h"

enum { N = 9, COLS = 8 };

static double py_max(const double *v, int n, bool is_max) {
  double r = v[0];
  for (int k = 1; k < n; k++)
    if (is_max ? v[k] > r : v[k] < r) r = v[k];
  return r;
}

int main(int argc, char **argv) {
  h_begin("minmax_nan", argc, argv);
  const double q = NAN;
  double a[N] = {q, 1, q, 2, -1, q, 5, 0.0, -0.5};
  double b[N] = {1, q, q, 3, -2, 4, q, -0.0, -0.25};
  float c[N] = {2, 0.5f, q, q, 7, -3, 1, 0.0f, NAN};
  int64_t n[N] = {3, -1, 0, 1, 2, 3, 9, -4, 0};
  double out[N * COLS], want[N * COLS];
  h_poison_f64(out, N * COLS);
  for (int i = 0; i < N; i++) {
    double *w = want + i * COLS, ci = c[i], ni = (double)n[i];
    w[0] = fmax(a[i], b[i]), w[1] = fmin(a[i], b[i]);
    w[2] = fmax(ci, b[i]), w[3] = fmin(ci, a[i]);
    double v3[3] = {a[i], b[i], ci};
    w[4] = py_max(v3, 3, true), w[5] = py_max(v3, 3, false);
    double va[2] = {a[i], ni}, vb[2] = {ni, a[i]};
    w[6] = py_max(va, 2, true), w[7] = py_max(vb, 2, false);
  }
  int64_t shape[2] = {N, COLS};
  kc_array *da = h_array1(KC_FLOAT64, N, a), *db = h_array1(KC_FLOAT64, N, b);
  kc_array *dc = h_array1(KC_FLOAT32, N, c), *dn = h_array1(KC_INT64, N, n);
  kc_array *dout = h_array(KC_FLOAT64, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc), kc_arg_array(dn),
                   kc_arg_array(dout)};
  h_launch(h_kernel("minmax"), kc_dim(1), kc_dim(32), args, 5);
  h_fetch(dout, out);
  h_check_f64("minmax", want, out, N * COLS, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc), kc_array_free(dn);
  kc_array_free(dout);
  return h_end();
}

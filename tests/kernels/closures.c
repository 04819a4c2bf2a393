/* closures.c — inner functions and closures (closures.k) against the same formulas in
 * C. times_y reads y where it is called, so after y = times_y(a) the next call
 * multiplies by the new y (Python's and Numba's closures both behave so).
 * tolerance: 4 ulp (each formula is a few float64 operations, fma contraction on the
 * GPU may round once less). */
#include "harness.h"

enum { N = 150, NOUT = 7 };

int main(int argc, char **argv) {
  h_begin("closures", argc, argv);
  double *a = h_alloc(N, 8), *out = h_alloc(N * NOUT, 8), *want = h_alloc(N * NOUT, 8);
  int32_t hist[4] = {0, 0, 0, 0}, histw[4] = {0, 0, 0, 0};
  for (int i = 0; i < N; i++) {
    a[i] = ((double)(i % 23) - 11.0) * 0.173;
    double s = a[i] * 3.0, *w = want + i * NOUT;
    double lin1 = 1.0 * s + 10, lin2 = 2.0 * s + 10;
    w[0] = lin1;
    w[1] = (lin2 * s + 10) + 0.5;
    w[2] = (a[i] * s + 10) + 1;
    w[3] = (1.5 + 10 * a[i]) + (1.5 + 10 * (2 * a[i]));
    double y = a[i] * (a[i] + 1.0);
    w[4] = y + 2.0 * y;
    w[5] = 2.0 + (2.0 + 10) + s;
    w[6] = 0.0 * s + 10;
    histw[i % 4]++;
  }
  h_poison_f64(out, N * NOUT);
  int64_t s2[2] = {N, NOUT};
  kc_array *da = h_array1(KC_FLOAT64, N, a), *dout = h_array(KC_FLOAT64, 2, s2, out);
  kc_array *dh = h_array1(KC_INT32, 4, hist);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_array(dh)};
  h_launch(h_kernel("closures"), kc_dim(h_blocks(N, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out), h_fetch(dh, hist);
  h_check_f64("closures", want, out, N * NOUT, 9e-16, 1e-15);
  h_check_i32("closure over an array", histw, hist, 4);
  kc_array_free(da), kc_array_free(dout), kc_array_free(dh);
  free(a), free(out), free(want);
  return h_end();
}

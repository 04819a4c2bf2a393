/* walrus.c — assignment expressions (:=) in kernels; expected values computed here in
 * C from the kernels' formulas.
 * tolerance: exact (integers, and sums of halves) */
#include "harness.h"

enum { N = 96 };

int main(int argc, char **argv) {
  h_begin("walrus", argc, argv);
  double a[N], out[N], wout[N];
  int64_t o[N], wo[N];
  for (int i = 0; i < N; i++) a[i] = i * 0.5 - 7;
  for (int i = 0; i < N; i++) wo[i] = (int64_t)N * 1000 + 4 * i + (i % 5) * 100000;
  for (int i = 0; i < N; i++) {
    int base = i / 32 * 32, t = i % 32;
    wout[i] = a[base + (t + 1) % 32] * 2 + a[i];
  }
  h_poison_i64(o, N);
  h_poison_f64(out, N);
  kc_array *da = h_array1(KC_FLOAT64, N, a), *dO = h_array1(KC_INT64, N, o),
           *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg pargs[] = {kc_arg_array(da), kc_arg_array(dO)};
  h_launch(h_kernel("plain"), kc_dim(4), kc_dim(32), pargs, 2);
  h_fetch(dO, o);
  h_check_i64("n * 1000 + (j := 2i) + j + 100000 * (count of (k := k - 1) >= 0)", wo, o, N);
  kc_arg sargs[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("shifted"), kc_dim(N / 32), kc_dim(32), sargs, 2);
  h_fetch(dout, out);
  h_check_f64("s[t] = (v := a[i]) * 2; barrier; s[t + 1] + v", wout, out, N, 0, 0);
  kc_array_free(da), kc_array_free(dO), kc_array_free(dout);
  return h_end();
}

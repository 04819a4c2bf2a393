/* unicode_names.c — unicode_names.k against C: x*S[i%3] + 0.5 + 10 and x - P[i%3],
 * with S = (1, 2, 4) and P = (3, 5, 7), the module arrays named Σ and Φ.
 * tolerance: exact (x a multiple of 1/4, so every operation is exact). */
#include "harness.h"

enum { N = 100 };

int main(int argc, char **argv) {
  h_begin("unicode_names", argc, argv);
  static const double S[3] = {1, 2, 4}, P[3] = {3, 5, 7};
  double x[N], out[N * 2], want[N * 2];
  for (int i = 0; i < N; i++) {
    x[i] = (i % 40) * 0.25 - 3;
    want[i * 2] = x[i] * S[i % 3] + 0.5 + 10;
    want[i * 2 + 1] = x[i] - P[i % 3];
  }
  h_poison_f64(out, N * 2);
  int64_t s2[2] = {N, 2};
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dout = h_array(KC_FLOAT64, 2, s2, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("unicode_names"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("values", want, out, N * 2, 0, 0);
  kc_array_free(dx), kc_array_free(dout);
  return h_end();
}

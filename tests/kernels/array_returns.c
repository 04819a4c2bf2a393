/* array_returns.c — array_returns.k against C: a[i, 1] = a[i, 0] + 100 (stored through
 * a view of a view that device functions returned), out[i] = a[i, 2] + 3 * i (a local
 * array a device function filled and returned). tolerance: exact (small integers). */
#include "harness.h"

enum { N = 64, M = 3 };

int main(int argc, char **argv) {
  h_begin("array_returns", argc, argv);
  double a[N * M], wa[N * M], out[N], want[N];
  for (int i = 0; i < N; i++) {
    for (int j = 0; j < M; j++) a[i * M + j] = wa[i * M + j] = i * 10 + j;
    wa[i * M + 1] = a[i * M] + 100;
    want[i] = a[i * M + 2] + 3 * i;
  }
  h_poison_f64(out, N);
  int64_t s2[2] = {N, M};
  kc_array *da = h_array(KC_FLOAT64, 2, s2, a), *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("array_returns"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 2);
  h_fetch(da, a), h_fetch(dout, out);
  h_check_f64("stores through returned views", wa, a, N * M, 0, 0);
  h_check_f64("values", want, out, N, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  return h_end();
}

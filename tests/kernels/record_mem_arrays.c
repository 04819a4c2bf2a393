/* record_mem_arrays.c — records in shared and local arrays; expected values computed
 * here in C from the kernels' formulas.
 * tolerance: exact (sums of small multiples of halves) */
#include "harness.h"

enum { N = 96 };

int main(int argc, char **argv) {
  h_begin("record_mem_arrays", argc, argv);
  double a[N], out[N], want[N];
  for (int i = 0; i < N; i++) a[i] = i * 0.5 - 9;
  for (int i = 0; i < N; i++) {
    int base = i / 32 * 32, t = i % 32, j = base + 31 - t;
    want[i] = a[j] + a[j] * 2 + (31 - t);
  }
  h_poison_f64(out, N);
  kc_array *da = h_array1(KC_FLOAT64, N, a), *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("shared_points"), kc_dim(N / 32), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("sh[31 - t].x + .y + .w across the block", want, out, N, 0, 0);
  for (int i = 0; i < N; i++) want[i] = (a[i] + 1) * 1 + (a[i] + 2) * 2;
  h_launch(h_kernel("local_points"), kc_dim(N / 32), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("sum of (a + k) * k over a local array of 3 records", want, out, N, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  return h_end();
}

/* rebinding.c — rebinding.k against C: out[i] = i + (i + 2 * i), f[i] = 3 * a[i]
 * (+ 1 past i = 2). tolerance: exact (a[i] multiples of 1/4). */
#include "harness.h"

enum { N = 40 };

int main(int argc, char **argv) {
  h_begin("rebinding", argc, argv);
  double a[N], f[N], wf[N];
  int64_t out[N], wout[N];
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.25;
    wout[i] = i + 3 * i;
    wf[i] = a[i] * 3 + (i > 2 ? 1 : 0);
  }
  h_poison_i64(out, N);
  h_poison_f64(f, N);
  kc_array *da = h_array1(KC_FLOAT64, N, a), *dout = h_array1(KC_INT64, N, out);
  kc_array *df = h_array1(KC_FLOAT64, N, f);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_array(df)};
  h_launch(h_kernel("rebinding"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 3);
  h_fetch(dout, out), h_fetch(df, f);
  h_check_i64("number, then a tuple", wout, out, N);
  h_check_f64("then a float", wf, f, N, 0, 0);
  kc_array_free(da), kc_array_free(dout), kc_array_free(df);
  return h_end();
}

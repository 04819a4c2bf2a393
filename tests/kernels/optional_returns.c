/* optional_returns.c — optional_returns.k against C: a[i] = i / 2, so find(a, a[i] + 1)
 * is i + 2 while that is an index, else None (-1 stored); half_or_none(a[i] - 2) is
 * None below 0 (-7 stored), else (a[i] - 2) / 2; find(a, -5) is always None.
 * tolerance: exact. */
#include "harness.h"

enum { N = 50 };

int main(int argc, char **argv) {
  h_begin("optional_returns", argc, argv);
  double a[N], f[N], wf[N];
  int64_t out[N], wout[N];
  for (int i = 0; i < N; i++) a[i] = i * 0.5;
  for (int i = 0; i < N; i++) {
    wout[i] = i + 2 < N ? (int64_t)(i + 2) * 10 : -1;
    wf[i] = a[i] - 2.0 < 0 ? -7.0 : (a[i] - 2.0) / 2;
  }
  h_poison_i64(out, N);
  h_poison_f64(f, N);
  kc_array *da = h_array1(KC_FLOAT64, N, a), *dout = h_array1(KC_INT64, N, out);
  kc_array *df = h_array1(KC_FLOAT64, N, f);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_array(df)};
  h_launch(h_kernel("optional_returns"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 3);
  h_fetch(dout, out), h_fetch(df, f);
  h_check_i64("find: index or None", wout, out, N);
  h_check_f64("half_or_none", wf, f, N, 0, 0);
  kc_array_free(da), kc_array_free(dout), kc_array_free(df);
  return h_end();
}

/* recursion.c — recursive device functions with signatures (recursion.k) against C:
 * Fibonacci numbers computed by a loop, 1.5**k by repeated multiplication (exact: 3**k
 * and 2**k fit a double for k <= 20), parity, and the two kernels recursion calls as
 * device functions (a[i] * 2 + 1). The depth stays at 20 or less: recursion uses the
 * thread's stack (1 KiB per thread by default on the GPU).
 * tolerance: exact. */
#include "harness.h"

enum { N = 96, DEPTH = 21 };

int main(int argc, char **argv) {
  h_begin("recursion", argc, argv);
  int32_t *n = h_alloc(N, 4), *even = h_alloc(N, 4), *evenw = h_alloc(N, 4);
  int64_t *fibs = h_alloc(N, 8), *fibw = h_alloc(N, 8);
  double *pw = h_alloc(N, 8), *pww = h_alloc(N, 8);
  float *a = h_alloc(N, 4), *aw = h_alloc(N, 4);
  for (int i = 0; i < N; i++) {
    n[i] = (i * 7) % DEPTH;
    int64_t f0 = 0, f1 = 1;
    for (int k = 0; k < n[i]; k++) {
      int64_t t = f0 + f1;
      f0 = f1, f1 = t;
    }
    fibw[i] = f0;
    double p = 1;
    for (int k = 0; k < n[i]; k++) p *= 1.5;
    pww[i] = p;
    evenw[i] = n[i] % 2 == 0;
    a[i] = (float)i * 0.5f;
    aw[i] = a[i] * 2 + 1;
  }
  h_poison_i64(fibs, N), h_poison_f64(pw, N), h_poison_i32(even, N);
  kc_array *dn = h_array1(KC_INT32, N, n), *df = h_array1(KC_INT64, N, fibs);
  kc_array *dp = h_array1(KC_FLOAT64, N, pw), *de = h_array1(KC_INT32, N, even);
  kc_array *da = h_array1(KC_FLOAT32, N, a);
  kc_arg args[] = {kc_arg_array(dn), kc_arg_array(df), kc_arg_array(dp), kc_arg_array(de),
                   kc_arg_array(da)};
  h_launch(h_kernel("recursion"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 5);
  h_fetch(df, fibs), h_fetch(dp, pw), h_fetch(de, even), h_fetch(da, a);
  h_check_i64("fib", fibw, fibs, N);
  h_check_f64("power", pww, pw, N, 0, 0);
  h_check_i32("is_even", evenw, even, N);
  h_check_f32("kernels called as device functions", aw, a, N, 0, 0);
  kc_array_free(dn), kc_array_free(df), kc_array_free(dp), kc_array_free(de);
  kc_array_free(da);
  free(n), free(even), free(evenw), free(fibs), free(fibw), free(pw), free(pww);
  free(a), free(aw);
  return h_end();
}

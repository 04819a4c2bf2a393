/* barrier_exit.c — kernels whose threads return before a barrier the others reach:
 * neighbour_sum: out[i] = a[i] + a[i + 1] within a block of 128 (the last live thread of
 * each block: a[i] alone), over n = 300, so the last block's threads past n return
 * before cuda.syncthreads(); late_exit: thread 3 returns between two barriers, the
 * others write 2 * t. Expected values computed here; exact. */
#include "harness.h"

static void neighbour_sum(kc_kernel *k) {
  enum { N = 300, B = 128 };
  int64_t n = N;
  float a[N], out[N], want[N];
  for (int i = 0; i < N; i++) a[i] = (float)(i % 17) - 4.0f;
  for (int i = 0; i < N; i++)
    want[i] = (i % B + 1 < B && i + 1 < N) ? a[i] + a[i + 1] : a[i];
  h_poison_f32(out, N);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_i32(N)};
  h_launch(k, kc_dim(h_blocks(N, B)), kc_dim(B), args, 3);
  h_fetch(dout, out);
  h_check_f32("neighbour_sum", want, out, N, 0, 0);
  kc_array_free(da), kc_array_free(dout);
}

static void late_exit(kc_kernel *k) {
  enum { T = 32 };
  int32_t out[T], want[T];
  for (int t = 0; t < T; t++) out[t] = want[t] = -7;
  for (int t = 0; t < T; t++)
    if (t != 3) want[t] = 2 * t;
  kc_array *d = h_array1(KC_INT32, T, out);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(k, kc_dim(1), kc_dim(T), args, 1);
  h_fetch(d, out);
  for (int t = 0; t < T; t++)
    if (out[t] != want[t]) h_die("late_exit: out[%d] = %d, expected %d", t, out[t], want[t]);
  kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("barrier_exit", argc, argv);
  neighbour_sum(h_kernel("neighbour_sum"));
  late_exit(h_kernel("late_exit"));
  return h_end();
}

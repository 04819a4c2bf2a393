/* sync_nanosleep.c — kernels that sleep (PTX nanosleep on the GPU, nothing on the CPU) and
 * then compute: every element stored, with the values computed here; the back-off loop
 * sums its doubling delays, capped at 4096, plus the round numbers. exact. */
#include "harness.h"

#define N 1000

static void sleep_then_store(void) {
  int32_t out[N], want[N];
  for (int i = 0; i < N; i++) want[i] = i * 3 + 1;
  h_poison_i32(out, N);
  kc_array *dout = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(dout), kc_arg_u32(500)};
  h_launch(h_kernel("sleep_then_store"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 2);
  h_fetch(dout, out);
  h_check_i32("stores after nanosleep", want, out, N);
  kc_array_free(dout);
}

static void backoff(void) {
  enum { M = 300 };
  int64_t rounds[M], out[M], want[M];
  for (int i = 0; i < M; i++) {
    rounds[i] = i % 13;
    int64_t delay = 32, total = 0;
    for (int64_t r = 0; r < rounds[i]; r++) {
      total += delay + r;
      delay = delay * 2 < 4096 ? delay * 2 : 4096;
    }
    want[i] = total;
  }
  h_poison_i64(out, M);
  kc_array *dr = h_array1(KC_INT64, M, rounds), *dout = h_array1(KC_INT64, M, out);
  kc_arg args[] = {kc_arg_array(dr), kc_arg_array(dout)};
  h_launch(h_kernel("backoff"), kc_dim(h_blocks(M, 64)), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_i64("back-off loop with nanosleep", want, out, M);
  kc_array_free(dr), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("sync_nanosleep", argc, argv);
  sleep_then_store();
  backoff();
  return h_end();
}

/* local_big.c — local arrays of 160 KiB (with barriers, and a device function's 96 KiB
 * more) and 512 KiB (without), every element written and read back, against the same
 * sums in C.
 * tolerance: exact (integers) */
#include "harness.h"

static int64_t barrier_sum(int64_t t) {
  int64_t s = 0;
  for (int64_t i = 0; i < 40960; i++) s += ((i * 7 + t) % 1000) * (i % 13);
  for (int64_t i = 0; i < 24576; i++) s += ((i * 5 + t) % 977) * (i % 11);
  return s;
}

static int64_t plain_sum(int64_t t) {
  int64_t s = 0;
  for (int64_t i = 0; i < 65536; i++) s += (i * 3 + t) * (i % 7);
  return s;
}

static void check(const char *kernel, int64_t (*ref)(int64_t), int64_t blocks, int64_t threads) {
  const int64_t n = blocks * threads;
  int64_t *got = h_alloc(n, 8), *want = h_alloc(n, 8);
  for (int64_t t = 0; t < n; t++) want[t] = ref(t);
  h_poison_i64(got, n);
  kc_array *d = h_array1(KC_INT64, n, got);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel(kernel), kc_dim((unsigned)blocks), kc_dim((unsigned)threads), args, 1);
  h_fetch(d, got);
  h_check_i64(kernel, want, got, n);
  kc_array_free(d);
  free(got), free(want);
}

int main(int argc, char **argv) {
  h_begin("local_big", argc, argv);
  check("local_barrier", barrier_sum, 3, 64);
  check("local_plain", plain_sum, 4, 32);
  return h_end();
}

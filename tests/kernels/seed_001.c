/* seed_001.c — seed 001's prime check as a kernel and as a @vectorize function, called
 * as the lesson calls them: check_prime_gpu_kernel[1, 1](11, result) gives 11 and
 * (12, result) 0 (the lesson's printed output); the kernel on 2..200 and the ufunc on
 * np.arange(2, 10000, dtype=np.int32) against a sieve of Eratosthenes in C. The number
 * is a Python int at the launch, so an int64 argument. tolerance: exact. */
#include "harness.h"

static int32_t launch_check(kc_kernel *k, kc_array *res, int64_t num) {
  int32_t r = H_POISON_I32;
  kc_arg args[] = {kc_arg_i64(num), kc_arg_array(res)};
  h_launch(k, kc_dim(1), kc_dim(1), args, 2);
  h_fetch(res, &r);
  return r;
}

int main(int argc, char **argv) {
  h_begin("seed_001", argc, argv);
  enum { UPPER = 10000 };
  static char composite[UPPER];
  for (int i = 2; i < UPPER; i++)
    for (int j = 2 * i; j < UPPER; j += i) composite[j] = 1;

  kc_kernel *k = h_kernel("check_prime_gpu_kernel");
  int32_t zero = 0;
  kc_array *res = h_array1(KC_INT32, 1, &zero);
  int32_t r11 = launch_check(k, res, 11), r12 = launch_check(k, res, 12);
  if (r11 != 11 || r12 != 0)
    h_die("check_prime_gpu_kernel: 11 -> %d (want 11), 12 -> %d (want 0)", r11, r12);
  for (int64_t num = 2; num < 200; num++) {
    int32_t want = composite[num] ? 0 : (int32_t)num, got = launch_check(k, res, num);
    if (got != want) h_die("check_prime_gpu_kernel(%lld): got %d want %d", (long long)num, got, want);
  }
  kc_array_free(res);

  const int64_t n = UPPER - 2;
  int32_t *nums = h_alloc(n, 4), *want = h_alloc(n, 4), *got = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    nums[i] = (int32_t)(i + 2);
    want[i] = composite[i + 2] ? 0 : nums[i];
  }
  kc_kernel *v = h_kernel("check_prime_gpu");
  kc_array *in[1] = {h_array1(KC_INT32, n, nums)}, *out = NULL;
  h_ok(kc_vectorize(v, in, 1, &out), "kc_vectorize check_prime_gpu");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(out, got);
  h_check_i32("check_prime_gpu(np.arange(2, 10000))", want, got, n);
  kc_array_free(out), kc_array_free(in[0]);
  free(nums), free(want), free(got);
  return h_end();
}

/* primes.c — trial division with for-else against a direct C primality test, over
 * small numbers, negatives, squares of primes and large primes up to INT32_MAX.
 * tolerance: exact (int32 verdicts) */
#include "harness.h"

static int32_t is_prime_ref(int64_t n) {
  if (n < 2) return 0;
  for (int64_t d = 2; d * d <= n; d++)
    if (n % d == 0) return 0;
  return 1;
}

int main(int argc, char **argv) {
  h_begin("primes", argc, argv);
  kc_kernel *k = h_kernel("primes");
  const int64_t n = 5000;
  int32_t *num = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  static const int32_t special[] = {-7, -1, 0, 1, 2, 3, 4, 9, 25, 49, 121, 169, 289,
                                    2147483647, 2147483646, 2147483629, 1000000007,
                                    999999999, 46337 * 46337, 65521 * 32749};
  const int64_t nspecial = (int64_t)(sizeof special / sizeof special[0]);
  for (int64_t i = 0; i < n; i++) {
    num[i] = i < nspecial ? special[i] : (int32_t)(i * 7 + 1);
    want[i] = is_prime_ref(num[i]);
  }
  h_poison_i32(out, n);
  kc_array *dnum = h_array1(KC_INT32, n, num), *dout = h_array1(KC_INT32, n, out);
  kc_arg args[] = {kc_arg_array(dnum), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, 64)), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_i32("is_prime", want, out, n);
  kc_array_free(dnum), kc_array_free(dout);
  free(num), free(out), free(want);
  return h_end();
}

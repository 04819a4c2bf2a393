/* const_locals.c — shared and local arrays sized by locals bound once to constants
 * (const_locals.k); expected values computed here from the kernel's formula.
 * tolerance: exact (integers) */
#include "harness.h"

enum { N = 100 };

int main(int argc, char **argv) {
  h_begin("const_locals", argc, argv);
  int32_t out[N], want[N];
  for (int i = 0; i < N; i++) want[i] = i + 2 * (N - 1 - i) + 11 + N * 1000 + 6 * 1000000;
  h_poison_i32(out, N);
  kc_array *d = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel("smem"), kc_dim(1), kc_dim(N), args, 1);
  h_fetch(d, out);
  h_check_i32("sm[i] + t[1, N - 1 - i] + lm[2, 3] + N * 1000 + w.size * 10^6", want, out, N);
  kc_array_free(d);
  return h_end();
}

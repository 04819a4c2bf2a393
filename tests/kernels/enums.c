/* enums.c — classify: 2 (GREEN) -> BLUE + LIMIT = 3 + 6 = 9; 3 or more (>= BLUE) ->
 * Mode.SLOW.value = 20; else RED * 100 = 100. Expected values from those rules. */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("enums", argc, argv);
  enum { N = 70 };
  int32_t a[N], out[N];
  for (int i = 0; i < N; i++) {
    a[i] = i % 6;
    out[i] = -1;
  }
  kc_array *da = h_array1(KC_INT32, N, a), *dout = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("classify"), kc_dim(2), kc_dim(64), args, 2);
  h_fetch(dout, out);
  for (int i = 0; i < N; i++) {
    int32_t want = a[i] == 2 ? 9 : a[i] >= 3 ? 20 : 100;
    if (out[i] != want) h_die("classify: out[%d] = %d for %d, expected %d", i, out[i], a[i], want);
  }
  kc_array_free(da), kc_array_free(dout);
  return h_end();
}

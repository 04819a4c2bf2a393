/* device_hypot.c — a device function called from a kernel: the scaled hypot, including
 * inputs whose squares overflow float32 and the 0/0 case.
 * tolerance: 1e-6 relative (float32 sqrt and one division) plus 1e-30 absolute */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("device_hypot", argc, argv);
  kc_kernel *k = h_kernel("hypot_kernel");
  const int64_t n = 777;
  float *x = h_alloc(n, 4), *y = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)((i % 41) - 20) * 0.37f;
    y[i] = (float)((i % 13) - 6) * 1.9f;
    if (i % 50 == 3) x[i] = 3e30f, y[i] = -4e30f; /* x*x overflows float32 */
    if (i % 50 == 4) x[i] = 0, y[i] = 0;
    if (i % 50 == 5) x[i] = -1e-30f, y[i] = 1e-30f; /* x*x underflows */
    want[i] = (float)hypot((double)x[i], (double)y[i]);
  }
  h_poison_f32(out, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dy = h_array1(KC_FLOAT32, n, y),
           *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, 128)), kc_dim(128), args, 3);
  h_fetch(dout, out);
  h_check_f32("hypot", want, out, n, 1e-6, 1e-30);
  kc_array_free(dx), kc_array_free(dy), kc_array_free(dout);
  free(x), free(y), free(out), free(want);
  return h_end();
}

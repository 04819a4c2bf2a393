/* decorator_calls.c — decorator_calls.k against C: add_one adds 1 through a device
 * function, then twice doubles. tolerance: exact (small multiples of 1/2). */
#include "harness.h"

enum { N = 100 };

int main(int argc, char **argv) {
  h_begin("decorator_calls", argc, argv);
  float a[N], out[N], wa[N], wout[N];
  for (int i = 0; i < N; i++) {
    a[i] = i * 0.5f;
    wa[i] = a[i] + 1;
    wout[i] = 2 * wa[i];
  }
  h_poison_f32(out, N);
  kc_array *da = h_array1(KC_FLOAT32, N, a), *dout = h_array1(KC_FLOAT32, N, out);
  kc_arg one[] = {kc_arg_array(da)};
  h_launch(h_kernel("add_one"), kc_dim(h_blocks(N, 32)), kc_dim(32), one, 1);
  kc_arg two[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("twice"), kc_dim(h_blocks(N, 32)), kc_dim(32), two, 2);
  h_fetch(da, a), h_fetch(dout, out);
  h_check_f32("cuda.jit(sig)(f) with cuda.jit(device=True)(g)", wa, a, N, 0, 0);
  h_check_f32("f = cuda.jit(f), typed at its launch", wout, out, N, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  return h_end();
}

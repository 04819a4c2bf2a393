/* seed_002_redefined.c — seed 002's float32 add_ufunc on x = arange(100000), y = 2 * x
 * (the notebook's "%timeit add_ufunc(x, y)" inputs) and its cuda.grid add_kernel
 * launched [30, 128] on them. tolerance: exact. */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("seed_002_redefined", argc, argv);
  const int64_t n = 100000;
  float *x = h_alloc(n, 4), *y = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (float)i, y[i] = 2 * x[i], want[i] = x[i] + y[i];
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dy = h_array1(KC_FLOAT32, n, y);
  kc_array *in[2] = {dx, dy}, *uout = NULL;
  h_ok(kc_vectorize(h_kernel("add_ufunc"), in, 2, &uout), "kc_vectorize add_ufunc");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(uout, out);
  h_check_f32("add_ufunc(x, y)", want, out, n, 0, 0);
  h_poison_f32(out, n);
  kc_array *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dout)};
  h_launch(h_kernel("add_kernel"), kc_dim(30), kc_dim(128), args, 3);
  h_fetch(dout, out);
  h_check_f32("add_kernel[30, 128] (cuda.grid)", want, out, n, 0, 0);
  kc_array_free(uout), kc_array_free(dx), kc_array_free(dy), kc_array_free(dout);
  free(x), free(y), free(out), free(want);
  return h_end();
}

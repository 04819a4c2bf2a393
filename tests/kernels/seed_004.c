/* seed_004.c — seed 004's add_vectors as the post launches it: a = [1, 2, 3], b = [4, 5,
 * 6] (NumPy's default int64), block_size 32, grid_size (3 + 31) // 32, result [5, 7, 9]
 * (the post's printed output); then 1000 float32 elements with a partial last block.
 * tolerance: exact. */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("seed_004", argc, argv);
  kc_kernel *k = h_kernel("add_vectors");
  int64_t a[3] = {1, 2, 3}, b[3] = {4, 5, 6}, got[3], want[3] = {5, 7, 9};
  h_poison_i64(got, 3);
  kc_array *da = h_array1(KC_INT64, 3, a), *db = h_array1(KC_INT64, 3, b);
  kc_array *dr = h_array1(KC_INT64, 3, got);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dr)};
  h_launch(k, kc_dim((3 + 32 - 1) / 32), kc_dim(32), args, 3);
  h_fetch(dr, got);
  h_check_i64("add_vectors([1, 2, 3], [4, 5, 6])", want, got, 3);
  kc_array_free(da), kc_array_free(db), kc_array_free(dr);

  const int64_t n = 1000;
  float *x = h_alloc(n, 4), *y = h_alloc(n, 4), *out = h_alloc(n, 4), *w = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (float)i * 0.5f, y[i] = 3.0f - (float)i, w[i] = x[i] + y[i];
  h_poison_f32(out, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dy = h_array1(KC_FLOAT32, n, y);
  kc_array *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg fargs[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, 32)), kc_dim(32), fargs, 3);
  h_fetch(dout, out);
  h_check_f32("add_vectors(float32[1000])", w, out, n, 0, 0);
  kc_array_free(dx), kc_array_free(dy), kc_array_free(dout);
  free(x), free(y), free(out), free(w);
  return h_end();
}

/* tiled_transpose.c — a 2-D shared tile (32x33) between two barriers: out = a.T for
 * shapes that are and are not multiples of the tile.
 * tolerance: exact (a copy) */
#include "harness.h"

static void run(kc_kernel *k, int64_t rows, int64_t cols) {
  int64_t n = rows * cols, ashape[2] = {rows, cols}, oshape[2] = {cols, rows};
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) a[r * cols + c] = (float)(r * 1000 + c);
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) want[c * rows + r] = a[r * cols + c];
  h_poison_f32(out, n);
  kc_array *da = h_array(KC_FLOAT32, 2, ashape, a), *dout = h_array(KC_FLOAT32, 2, oshape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim2(h_blocks(cols, 32), h_blocks(rows, 32)), kc_dim2(32, 32), args, 2);
  h_fetch(dout, out);
  char what[64];
  snprintf(what, sizeof what, "transpose %lldx%lld", (long long)rows, (long long)cols);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("tiled_transpose", argc, argv);
  kc_kernel *k = h_kernel("transpose");
  run(k, 64, 96);
  run(k, 45, 70);
  run(k, 1, 33);
  return h_end();
}

/* grid_stride.c — the grid-stride add under many grid shapes: one thread, one block,
 * odd grids and blocks, more threads than elements, and a grid much smaller than n.
 * tolerance: exact (one float32 addition) */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("grid_stride", argc, argv);
  kc_kernel *k = h_kernel("grid_stride_add");
  static const struct { int64_t n; unsigned grid, block; } cases[] = {
      {1000, 1, 1},  {1000, 1, 32},  {1000, 3, 7},    {1000, 64, 256}, {1, 5, 33},
      {4099, 7, 96}, {10007, 2, 1024}, {31, 1, 1024}, {65536, 13, 61},
  };
  for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    int64_t n = cases[c].n;
    float *a = h_alloc(n, 4), *b = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
    for (int64_t i = 0; i < n; i++) {
      a[i] = (float)(i % 101) * 1.5f;
      b[i] = (float)c - (float)(i % 17);
      want[i] = a[i] + b[i];
    }
    h_poison_f32(out, n);
    kc_array *da = h_array1(KC_FLOAT32, n, a), *db = h_array1(KC_FLOAT32, n, b),
             *dout = h_array1(KC_FLOAT32, n, out);
    kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
    h_launch(k, kc_dim(cases[c].grid), kc_dim(cases[c].block), args, 3);
    h_fetch(dout, out);
    char what[96];
    snprintf(what, sizeof what, "n=%lld grid=%u block=%u", (long long)n, cases[c].grid,
             cases[c].block);
    h_check_f32(what, want, out, n, 0, 0);
    kc_array_free(da), kc_array_free(db), kc_array_free(dout);
    free(a), free(b), free(out), free(want);
  }
  return h_end();
}

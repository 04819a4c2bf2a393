/* grid_2d.c — cuda.grid(2) over arrays of odd shapes, with several block shapes.
 * tolerance: exact (doubling a float32 is exact) */
#include "harness.h"

static void run(kc_kernel *dbl, kc_kernel *idx, int64_t nx, int64_t ny, unsigned bx,
                unsigned by) {
  int64_t shape[2] = {nx, ny}, n = nx * ny;
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4), *want = h_alloc(n, 4);
  int32_t *ix = h_alloc(n, 4), *info = h_alloc(n, 4), *wix = h_alloc(n, 4),
          *winfo = h_alloc(n, 4);
  for (int64_t i = 0; i < nx; i++)
    for (int64_t j = 0; j < ny; j++) {
      a[i * ny + j] = (float)(i * 3 - j) * 0.125f;
      want[i * ny + j] = 2 * a[i * ny + j];
      wix[i * ny + j] = (int32_t)(i * 1000 + j);
      winfo[i * ny + j] = 0;
    }
  h_poison_f32(b, n);
  h_poison_i32(ix, n);
  h_poison_i32(info, n);
  kc_array *da = h_array(KC_FLOAT32, 2, shape, a), *db = h_array(KC_FLOAT32, 2, shape, b);
  kc_array *dix = h_array(KC_INT32, 2, shape, ix), *dinfo = h_array(KC_INT32, 2, shape, info);
  kc_dim3 grid = kc_dim2(h_blocks(nx, bx), h_blocks(ny, by)), block = kc_dim2(bx, by);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db)};
  h_launch(dbl, grid, block, args, 2);
  kc_arg iargs[] = {kc_arg_array(dix), kc_arg_array(dinfo)};
  h_launch(idx, grid, block, iargs, 2);
  h_fetch(db, b);
  h_fetch(dix, ix);
  h_fetch(dinfo, info);
  char what[96];
  snprintf(what, sizeof what, "double_2d %lldx%lld block %ux%u", (long long)nx,
           (long long)ny, bx, by);
  h_check_f32(what, want, b, n, 0, 0);
  snprintf(what, sizeof what, "index_2d %lldx%lld block %ux%u", (long long)nx, (long long)ny,
           bx, by);
  h_check_i32(what, wix, ix, n);
  h_check_i32("index_2d thread/block parts", winfo, info, n);
  kc_array_free(da), kc_array_free(db), kc_array_free(dix), kc_array_free(dinfo);
  free(a), free(b), free(want), free(ix), free(info), free(wix), free(winfo);
}

int main(int argc, char **argv) {
  h_begin("grid_2d", argc, argv);
  kc_kernel *dbl = h_kernel("double_2d"), *idx = h_kernel("index_2d");
  run(dbl, idx, 37, 53, 8, 8);
  run(dbl, idx, 37, 53, 16, 4);
  run(dbl, idx, 1, 100, 1, 32);
  run(dbl, idx, 100, 1, 32, 1);
  run(dbl, idx, 5, 7, 32, 32);
  return h_end();
}

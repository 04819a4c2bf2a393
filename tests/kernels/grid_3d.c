/* grid_3d.c — a 3-D 7-point Laplacian and a 3-D index map, odd shapes, 3-D blocks.
 * tolerance: 1e-5 relative plus 1e-5 absolute (six float32 additions of values up to
 * ~30, scaled by 4) */
#include "harness.h"

static void run(kc_kernel *lap, kc_kernel *idx, int64_t nx, int64_t ny, int64_t nz,
                kc_dim3 block) {
  int64_t shape[3] = {nx, ny, nz}, n = nx * ny * nz;
  float *u = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  int32_t *ix = h_alloc(n, 4), *wix = h_alloc(n, 4);
#define AT(i, j, k) (((i) * ny + (j)) * nz + (k))
  for (int64_t i = 0; i < nx; i++)
    for (int64_t j = 0; j < ny; j++)
      for (int64_t k = 0; k < nz; k++) {
        u[AT(i, j, k)] = (float)((i * i + 2 * j - k * k * 3) % 31) * 0.5f;
        wix[AT(i, j, k)] = (int32_t)(i * 10000 + j * 100 + k);
      }
  const float inv_h2 = 4.0f;
  for (int64_t i = 0; i < nx; i++)
    for (int64_t j = 0; j < ny; j++)
      for (int64_t k = 0; k < nz; k++) {
        int inner = i > 0 && i < nx - 1 && j > 0 && j < ny - 1 && k > 0 && k < nz - 1;
        double s = 0;
        if (inner)
          s = (double)u[AT(i - 1, j, k)] + u[AT(i + 1, j, k)] + u[AT(i, j - 1, k)] +
              u[AT(i, j + 1, k)] + u[AT(i, j, k - 1)] + u[AT(i, j, k + 1)] -
              6.0 * u[AT(i, j, k)];
        want[AT(i, j, k)] = (float)(s * inv_h2);
      }
#undef AT
  h_poison_f32(out, n);
  h_poison_i32(ix, n);
  kc_array *du = h_array(KC_FLOAT32, 3, shape, u), *dout = h_array(KC_FLOAT32, 3, shape, out),
           *dix = h_array(KC_INT32, 3, shape, ix);
  kc_dim3 grid = kc_dim3_(h_blocks(nx, block.x), h_blocks(ny, block.y), h_blocks(nz, block.z));
  kc_arg args[] = {kc_arg_array(du), kc_arg_array(dout), kc_arg_f32(inv_h2)};
  h_launch(lap, grid, block, args, 3);
  kc_arg iargs[] = {kc_arg_array(dix)};
  h_launch(idx, grid, block, iargs, 1);
  h_fetch(dout, out);
  h_fetch(dix, ix);
  char what[96];
  snprintf(what, sizeof what, "laplacian %lldx%lldx%lld block %ux%ux%u", (long long)nx,
           (long long)ny, (long long)nz, block.x, block.y, block.z);
  h_check_f32(what, want, out, n, 1e-5, 1e-5);
  snprintf(what, sizeof what, "index_3d %lldx%lldx%lld", (long long)nx, (long long)ny,
           (long long)nz);
  h_check_i32(what, wix, ix, n);
  kc_array_free(du), kc_array_free(dout), kc_array_free(dix);
  free(u), free(out), free(want), free(ix), free(wix);
}

int main(int argc, char **argv) {
  h_begin("grid_3d", argc, argv);
  kc_kernel *lap = h_kernel("laplacian_3d"), *idx = h_kernel("index_3d");
  run(lap, idx, 11, 9, 7, kc_dim3_(4, 4, 4));
  run(lap, idx, 11, 9, 7, kc_dim3_(8, 2, 3));
  run(lap, idx, 3, 3, 3, kc_dim3_(1, 1, 1));
  run(lap, idx, 20, 5, 13, kc_dim3_(2, 8, 16));
  return h_end();
}

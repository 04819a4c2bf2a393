/* tuples_consts.c — module constants, tuples, array attributes, negative indices.
 * tolerance: exact (integers) */
#include "harness.h"

#define NA 22

int main(int argc, char **argv) {
  h_begin("tuples_consts", argc, argv);
  const int64_t nx = 6, ny = 9, nv = 77;
  int64_t shape[2] = {nx, ny};
  float *a = h_alloc(nx * ny, 4);
  int32_t *v = h_alloc(nv, 4), *rev = h_alloc(nv, 4), *wrev = h_alloc(nv, 4);
  for (int64_t i = 0; i < nx * ny; i++) a[i] = (float)(i * 3 + 1);
  for (int64_t i = 0; i < nv; i++) v[i] = (int32_t)(i * i - 50);
  for (int64_t i = 0; i < nv; i++) wrev[i] = v[nv - 1 - i];
  int64_t out[NA], want[NA] = {
      nx, ny, nx * ny, 2, nx, ny, nv, nv, 1, 32, 16, -48, (int64_t)1 << 40,
      v[nv - 1], v[0], 43, 10, 4095, (int64_t)a[nx * ny - 1], (int64_t)a[1],
      -4 * 100 + 3, 123};
  h_poison_i64(out, NA);
  h_poison_i32(rev, nv);
  kc_array *da = h_array(KC_FLOAT32, 2, shape, a), *dv = h_array1(KC_INT32, nv, v),
           *dout = h_array1(KC_INT64, NA, out), *drev = h_array1(KC_INT32, nv, rev);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dv), kc_arg_array(dout)};
  h_launch(h_kernel("attrs"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dout, out);
  h_check_i64("attrs/constants/tuples (see the .k for each index)", want, out, NA);
  kc_arg rargs[] = {kc_arg_array(dv), kc_arg_array(drev)};
  h_launch(h_kernel("reverse"), kc_dim(3), kc_dim(32), rargs, 2);
  h_fetch(drev, rev);
  h_check_i32("v[-(i + 1)]", wrev, rev, nv);
  kc_array_free(da), kc_array_free(dv), kc_array_free(dout), kc_array_free(drev);
  free(a), free(v), free(rev), free(wrev);
  return h_end();
}

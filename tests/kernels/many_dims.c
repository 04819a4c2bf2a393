/* many_dims.c — 4-D and 8-D arrays from C (kc_array_new with up to KC_MAX_DIMS
 * extents) in kernels; expected values are the same indexing done in C on the row-major
 * layout NumPy gives a C-contiguous array (strides: itemsize times the later extents). */
#include "harness.h"

#define D0 3
static const int64_t shp[8] = {D0, 2, 2, 2, 2, 2, 3, 5};

static int64_t lin(const int64_t *ix) {
  int64_t o = 0;
  for (int k = 0; k < 8; k++) o = o * shp[k] + ix[k];
  return o;
}

static void check_eight(void) {
  int64_t n = 1;
  for (int k = 0; k < 8; k++) n *= shp[k];
  float *a = h_alloc((size_t)n, 4), *out = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)((i * 7) % 23) - 5.0f;
  h_poison_f32(out, n);
  memcpy(want, out, (size_t)n * 4);
  int64_t last[8] = {D0 - 1, 1, 0, 0, 0, 0, 0, 4};
  for (int64_t i = 0; i < D0; i++) {
    for (int64_t j = 0; j < shp[7]; j++) {
      int64_t ix[8] = {i, 1, 0, 1, 0, 1, 0, j};
      want[lin(ix)] = a[lin(ix)] * 2 + a[lin(last)];
    }
    /* v = a[i, 0, :, :, 1, 0, :, ::2]: v[1, 1, 1, 1] is a[i, 0, 1, 1, 1, 0, 1, 2];
       v's last extent is ceil(5 / 2) = 3 */
    int64_t vx[8] = {i, 0, 1, 1, 1, 0, 1, 2}, o[8] = {i, 0, 0, 0, 0, 0, 0, 0};
    want[lin(o)] = a[lin(vx)] + 3;
    for (int64_t j = 0; j < shp[7]; j++) {
      int64_t ix[8] = {i, 0, 1, 1, 1, 1, 1, j};
      want[lin(ix)] = 5;
    }
  }
  int64_t info[20], winfo[20];
  h_poison_i64(info, 20);
  for (int k = 0; k < 8; k++) {
    winfo[k] = shp[k];
    winfo[8 + k] = 4;
    for (int j = k + 1; j < 8; j++) winfo[8 + k] *= shp[j];
  }
  winfo[16] = n, winfo[17] = 8, winfo[18] = 6, winfo[19] = shp[7];
  kc_array *da = h_array(KC_FLOAT32, 8, shp, a), *dout = h_array(KC_FLOAT32, 8, shp, out),
           *dinfo = h_array1(KC_INT64, 20, info);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_array(dinfo)};
  h_launch(h_kernel("eight"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dout, out), h_fetch(dinfo, info);
  for (int64_t i = 0; i < n; i++)   /* poison compares equal bit for bit, not as NaN */
    if (h_is_poison_f32(want[i]) && h_is_poison_f32(out[i])) want[i] = out[i] = 0;
  h_check_f32("8-D indexing, views and slice stores", want, out, n, 0, 0);
  h_check_i64("8-D shape, strides, size, ndim", winfo, info, 20);
  kc_array_free(da), kc_array_free(dout), kc_array_free(dinfo);
  free(a), free(out), free(want);
}

static void check_four_local(void) {
  enum { N = 5 };
  int64_t x[N * 2 * 2 * 4], out[N], want[N];
  for (int i = 0; i < N * 16; i++) x[i] = i * 3 - 40;
  for (int i = 0; i < N; i++) {
    /* t[a, b, c, d] = x[i, a, b, 2c + d] * (a + 1) */
    int64_t s = 0;
    for (int a = 0; a < 2; a++)
      s += x[i * 16 + a * 8 + 1 * 4 + 3] * (a + 1) + x[i * 16 + a * 8 + 0 * 4 + 2] * (a + 1);
    want[i] = s;
  }
  h_poison_i64(out, N);
  int64_t shape[4] = {N, 2, 2, 4};
  kc_array *dx = h_array(KC_INT64, 4, shape, x), *dout = h_array1(KC_INT64, N, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("four_local"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_i64("4-D local array", want, out, N);
  kc_array_free(dx), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("many_dims", argc, argv);
  check_eight();
  check_four_local();
  return h_end();
}

/* array_attrs.c — .strides/.itemsize/.nbytes/.T/.view and a[i][j]. The expected values
 * follow NumPy's definitions: strides in bytes (C order: itemsize times the product of
 * the later extents; a view a[::2, 1:] keeps its parent's strides times the steps),
 * nbytes = size * itemsize, a.T reverses shape and strides, a.view(t) reads the same
 * bytes (computed here with memcpy) and rescales the last axis by the itemsizes. */
#include "harness.h"

enum { R = 5, C = 7 };

static void check_attrs(void) {
  float m[R * C] = {0};
  double c[11] = {0};
  int64_t out[16], want[16] = {
    C * 4, 4, 4, R * C * 4, 8, 11 * 8, 8,
    2 * C * 4, 4, ((R + 1) / 2) * (C - 1) * 4,   /* m[::2, 1:]: 3 rows of 6 */
    C, R, 4, C * 4,                              /* m.T */
    11, 4,                                       /* c.T is c; m[1] is a row */
  };
  h_poison_i64(out, 16);
  int64_t shape[2] = {R, C};
  kc_array *dm = h_array(KC_FLOAT32, 2, shape, m), *dc = h_array1(KC_FLOAT64, 11, c),
           *dout = h_array1(KC_INT64, 16, out);
  kc_arg args[] = {kc_arg_array(dm), kc_arg_array(dc), kc_arg_array(dout)};
  h_launch(h_kernel("attrs"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dout, out);
  h_check_i64("attributes", want, out, 16);
  kc_array_free(dm), kc_array_free(dc), kc_array_free(dout);
}

static void check_transpose_rows(void) {
  float m[R * C], out[C * R], want[C * R], out2[R * C], want2[R * C];
  for (int i = 0; i < R * C; i++) m[i] = (float)(i % 13) - 3.0f;
  for (int i = 0; i < C; i++)
    for (int j = 0; j < R; j++) want[i * R + j] = m[j * C + i] * 11.0f;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) want2[i * C + j] = m[i * C + j] * 2.0f + m[i * C + C - 1];
  h_poison_f32(out, C * R);
  h_poison_f32(out2, R * C);
  int64_t shape[2] = {R, C}, tshape[2] = {C, R};
  kc_array *dm = h_array(KC_FLOAT32, 2, shape, m), *dout = h_array(KC_FLOAT32, 2, tshape, out),
           *dout2 = h_array(KC_FLOAT32, 2, shape, out2);
  kc_arg args[] = {kc_arg_array(dm), kc_arg_array(dout)};
  h_launch(h_kernel("transpose"), kc_dim2(2, 2), kc_dim2(8, 8), args, 2);
  h_fetch(dout, out);
  h_check_f32("m.T", want, out, C * R, 0, 0);
  kc_arg args2[] = {kc_arg_array(dm), kc_arg_array(dout2)};
  h_launch(h_kernel("rows"), kc_dim(1), kc_dim(32), args2, 2);
  h_fetch(dout2, out2);
  h_check_f32("m[i][j]", want2, out2, R * C, 0, 0);
  kc_array_free(dm), kc_array_free(dout), kc_array_free(dout2);
}

static void check_views(void) {
  enum { N = 9, B = 6, D = 4 };
  float f[N], halves[D * 2], whalves[D * 2];
  uint32_t bits[N], wbits[N], words[B], wwords[B];
  uint8_t b[B * 4];
  double d[D];
  int64_t wd[D];
  for (int i = 0; i < N; i++) f[i] = (float)i * -1.25f + 0.1f;
  for (int i = 0; i < N; i++) memcpy(&wbits[i], &f[i], 4);
  for (int i = 0; i < B * 4; i++) b[i] = (uint8_t)(i * 37 + 5);
  for (int i = 0; i < B; i++) {
    memcpy(&wwords[i], &b[4 * i], 4);
    wwords[i] += 1000;
  }
  for (int i = 0; i < D; i++) d[i] = 1.0 / (i + 3);
  for (int i = 0; i < D; i++) {
    memcpy(&whalves[2 * i], (const char *)d + 8 * i, 4);   /* h[2i]: the low half of d[i] */
    whalves[2 * i + 1] = 2 * D;
    wd[i] = 7;
  }
  h_poison_u32(bits, N), h_poison_u32(words, B), h_poison_f32(halves, 2 * D);
  int64_t bshape[2] = {B, 4}, hshape[2] = {D, 2};
  kc_array *df = h_array1(KC_FLOAT32, N, f), *dbits = h_array1(KC_UINT32, N, bits),
           *db = h_array(KC_UINT8, 2, bshape, b), *dwords = h_array1(KC_UINT32, B, words),
           *dh = h_array(KC_FLOAT32, 2, hshape, halves), *dd = h_array1(KC_FLOAT64, D, d);
  kc_arg args[] = {kc_arg_array(df), kc_arg_array(dbits), kc_arg_array(db),
                   kc_arg_array(dwords), kc_arg_array(dh), kc_arg_array(dd)};
  h_launch(h_kernel("views"), kc_dim(1), kc_dim(32), args, 6);
  int64_t gd[D];
  h_fetch(dbits, bits), h_fetch(dwords, words), h_fetch(dh, halves), h_fetch(dd, gd);
  h_check_u32("f.view(uint32)", wbits, bits, N);
  h_check_u32("b.view(uint32) of uint8[:, 4]", wwords, words, B);
  h_check_f32("d.view(float32)", whalves, halves, 2 * D, 0, 0);
  h_check_i64("d.view(int64)[i] = 7", wd, gd, D);
  kc_array_free(df), kc_array_free(dbits), kc_array_free(db), kc_array_free(dwords);
  kc_array_free(dh), kc_array_free(dd);
}

int main(int argc, char **argv) {
  h_begin("array_attrs", argc, argv);
  check_attrs();
  check_transpose_rows();
  check_views();
  return h_end();
}

/* cache_hints.c — cache_hints.k against C: each cache-hinted load reads the element and
 * each store writes it, whatever the operator (PTX's operators are hints only).
 * tolerance: exact (float32 sums of multiples of 1/2; float16 doubling is exact; int8
 * + 1 wraps at 127, as Numba's int8 store of an int64 does). */
#include "harness.h"

enum { N = 200 };

int main(int argc, char **argv) {
  h_begin("cache_hints", argc, argv);
  float a[N], b[N * 2], wa[N], wb[N * 2];
  int8_t c[N], wc[N];
  uint8_t d[N], wd[N];
  uint16_t h[N], wh[N];
  double out[N], wout[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f;
    b[i * 2] = (float)i, b[i * 2 + 1] = (float)(3 * i);
    c[i] = (int8_t)(i - 100);
    d[i] = (uint8_t)(i % 3 == 0);
    h[i] = (uint16_t)(0x3C00 + (i % 64) * 0x10);   /* float16 1.0 .. 1.98: doubling adds 1 to the exponent */
    float x = 5 * a[i];
    wa[i] = x, wout[i] = x;
    wb[i * 2] = b[i * 2 + 1] + b[i * 2], wb[i * 2 + 1] = b[i * 2 + 1];
    wc[i] = (int8_t)(uint8_t)(c[i] + 1);
    wd[i] = !d[i];
    wh[i] = (uint16_t)(h[i] + 0x0400);
  }
  h_poison_f64(out, N);
  int64_t s2[2] = {N, 2};
  kc_array *da = h_array1(KC_FLOAT32, N, a), *db = h_array(KC_FLOAT32, 2, s2, b);
  kc_array *dc = h_array1(KC_INT8, N, c), *dd = h_array1(KC_BOOL, N, d);
  kc_array *dh = h_array1(KC_FLOAT16, N, h), *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc),
                   kc_arg_array(dd), kc_arg_array(dh), kc_arg_array(dout)};
  h_launch(h_kernel("cache_hints"), kc_dim(h_blocks(N, 64)), kc_dim(64), args, 6);
  h_fetch(da, a), h_fetch(db, b), h_fetch(dc, c), h_fetch(dd, d), h_fetch(dh, h);
  h_fetch(dout, out);
  h_check_f32("ldcg+ldca+ldcs+ldlu+ldcv, stcg", wa, a, N, 0, 0);
  h_check_f32("2-D ldcg/ldcs with tuple indices, stcs", wb, b, N * 2, 0, 0);
  h_check_u8("int8 ldcg + 1, stwb", (const uint8_t *)wc, (const uint8_t *)c, N);
  h_check_u8("bool ldcv, stwt", wd, d, N);
  h_check_u8("float16 ldcg * 2, stcg (bytes)", (const uint8_t *)wh, (const uint8_t *)h, N * 2);
  h_check_f64("result", wout, out, N, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc), kc_array_free(dd);
  kc_array_free(dh), kc_array_free(dout);
  return h_end();
}

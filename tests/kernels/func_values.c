/* func_values.c — functions, builtins and types passed as values (func_values.k),
 * against C: atomics through a parameter, a device function and math.sqrt applied
 * twice, casts through a type object (uint8 wraps, as NumPy's astype), and
 * cuda.local.array of a dtype given as an argument.
 * tolerance: exact (the x are multiples of 1/4, so float32 sums are exact in any
 * order); sqrt(sqrt(i)) within 1 ulp. */
#include "harness.h"

enum { N = 200, NOUT = 6 };

int main(int argc, char **argv) {
  h_begin("func_values", argc, argv);
  float *x = h_alloc(N, 4), acc = 0, accw = 0;
  int32_t mx = -1, mxw = N - 1;
  double *out = h_alloc(N * NOUT, 8), *want = h_alloc(N * NOUT, 8);
  uint8_t *small = h_alloc(N, 1), *smallw = h_alloc(N, 1);
  uint32_t *words = h_alloc(N, 4), *wordsw = h_alloc(N, 4);
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 17) * 0.25f;
    accw += x[i];
    double *w = want + i * NOUT;
    w[0] = (double)(x[i] / 2.0f / 2.0f);       /* halve in float32, twice */
    w[1] = sqrt(sqrt((double)i));
    w[2] = (double)i / 2.0;
    w[3] = (double)(float)(1.0 / 3.0);
    smallw[i] = (uint8_t)((i + 250) & 0xff);
    wordsw[i] = (uint32_t)(4 * i + 6);          /* i + (i+1) + (i+2) + (i+3) */
    w[4] = 4 * (0.5 * i) + 6;
    w[5] = 1.0;                                  /* atomic.add returned the old value */
  }
  h_poison_f64(out, N * NOUT);
  int64_t s2[2] = {N, NOUT};
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dacc = h_array1(KC_FLOAT32, 1, &acc);
  kc_array *dmx = h_array1(KC_INT32, 1, &mx), *dout = h_array(KC_FLOAT64, 2, s2, out);
  kc_array *dsmall = h_array1(KC_UINT8, N, small), *dwords = h_array1(KC_UINT32, N, words);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dacc), kc_arg_array(dmx),
                   kc_arg_array(dout), kc_arg_array(dsmall), kc_arg_array(dwords)};
  h_launch(h_kernel("values"), kc_dim(h_blocks(N, 64)), kc_dim(64), args, 6);
  h_fetch(dacc, &acc), h_fetch(dmx, &mx), h_fetch(dout, out);
  h_fetch(dsmall, small), h_fetch(dwords, words);
  h_check_f32("atomic.add through a parameter", &accw, &acc, 1, 0, 0);
  h_check_i32("atomic.max through a parameter", &mxw, &mx, 1);
  h_check_f64("values", want, out, N * NOUT, 2.3e-16, 0);
  h_check_u8("uint8 through a type object", smallw, small, N);
  h_check_u32("cuda.local.array(4, dtype)", wordsw, words, N);
  kc_array_free(dx), kc_array_free(dacc), kc_array_free(dmx), kc_array_free(dout);
  kc_array_free(dsmall), kc_array_free(dwords);
  free(x), free(out), free(want), free(small), free(smallw), free(words), free(wordsw);
  return h_end();
}

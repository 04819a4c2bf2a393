/* numpy_consts.c — numpy_consts.k against values derived here from NumPy's rules: the
 * constants are C's (M_PI ...), np.float32(v) rounds v to float32 (so SQRT_2PI is
 * (float)sqrt(2 pi) and HALF is computed in float32), integer casts wrap as astype
 * does (np.int8(300) = 44, np.uint8(258) = 2, np.uint32(-1) = 4294967295). */
#include "harness.h"

#define N 64
#define ROWS 9

int main(int argc, char **argv) {
  h_begin("numpy_consts", argc, argv);
  float *x = h_alloc(N, 4);
  double *out = h_alloc(ROWS * N, 8), *want = h_alloc(ROWS * N, 8);
  const float sqrt_2pi = (float)sqrt(2 * 3.14159265358979323846);
  const float half = sqrtf((float)(2 * 3.14159265358979323846)) / 2.0f;
  for (int i = 0; i < N; i++) {
    x[i] = (i % 2 ? -1.0f : 1.0f) * (float)i * 0.37f;
    if (i == 3) x[i] = 0.0f;
    want[i] = (double)(x[i] / sqrt_2pi);
    want[N + i] = (double)(x[i] * half);
    want[2 * N + i] = 3.14159265358979323846 + 2.71828182845904523536 * 0.57721566490153286061;
    want[3 * N + i] = INFINITY;
    want[4 * N + i] = 44 + 253 + 1 + (int16_t)i;
    want[5 * N + i] = (double)(x[i] * 3.0f) + 1.0 / 3.0;
    /* np.float16(x): x rounded to 11 significant bits (these x need at most 11 below
       the leading one only when small; compare within half precision) */
    want[6 * N + i] = (double)x[i] + 2 - 1 + 1;
    want[7 * N + i] = 4294967295.0 - 127 + 1 + (x[i] != 0);
    want[8 * N + i] = (double)x[i];
  }
  h_poison_f64(out, ROWS * N);
  int64_t s[2] = {ROWS, N};
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *d = h_array(KC_FLOAT64, 2, s, out);
  kc_arg a[] = {kc_arg_array(dx), kc_arg_array(d)};
  h_launch(h_kernel("consts"), kc_dim(2), kc_dim(32), a, 2);
  h_fetch(d, out);
  h_check_f64("x / SQRT_2PI in float32", want, out, N, 0, 0);
  h_check_f64("x * HALF in float32", want + N, out + N, N, 0, 0);
  h_check_f64("np.pi + np.e * np.euler_gamma", want + 2 * N, out + 2 * N, N, 0, 0);
  h_check_f64("np.inf, np.isnan(np.nan)", want + 3 * N, out + 3 * N, N, 0, 0);
  h_check_f64("typed integer constants wrap", want + 4 * N, out + 4 * N, N, 0, 0);
  h_check_f64("np.float32 and np.float64 casts", want + 5 * N, out + 5 * N, N, 0, 0);
  h_check_f64("np.float16, np.uint8, np.int64, np.uint16 casts", want + 6 * N, out + 6 * N, N,
              1e-3, 1e-3);
  h_check_f64("np.uint32, np.int8, np.uint64, np.bool_ casts", want + 7 * N, out + 7 * N, N, 0, 0);
  h_check_f64("np.complex64, np.complex128 casts", want + 8 * N, out + 8 * N, N, 0, 0);
  kc_array_free(dx), kc_array_free(d);
  free(x), free(out), free(want);
  return h_end();
}

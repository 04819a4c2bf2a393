/* float16_math.c — cuda.fp16.hexp10 and math.sin/exp/floor on float16. References: the C
 * library in double rounded to float16 (hexp10: 10 ** x; sin, exp), within one float16
 * ulp (kcc computes in float32 and rounds once, a float32 result near a float16
 * midpoint may round the other way); math.floor is an int64, exact. */
#include "harness.h"

__extension__ typedef _Float16 half; /* GCC >= 12 and clang on x86-64 and arm64 */
enum { N = 61 };

static int ulps_apart(half a, half b) {
  int16_t x, y;
  memcpy(&x, &a, 2), memcpy(&y, &b, 2);
  int ix = x < 0 ? -(x & 0x7fff) : x, iy = y < 0 ? -(y & 0x7fff) : y;
  return abs(ix - iy);
}

int main(int argc, char **argv) {
  h_begin("float16_math", argc, argv);
  half a[N], out[N * 4];
  for (int i = 0; i < N; i++) a[i] = (half)(((float)i - 30.0f) * 0.15f);
  memset(out, 0xff, sizeof out);
  int64_t shape[2] = {N, 4};
  kc_array *da = h_array1(KC_FLOAT16, N, a), *dout = h_array(KC_FLOAT16, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("half_exp10"), kc_dim(1), kc_dim(64), args, 2);
  h_fetch(dout, out);
  for (int i = 0; i < N; i++) {
    double x = (double)a[i];
    half want[4] = {(half)pow(10.0, x), (half)sin(x), (half)exp(x), (half)floor(x)};
    for (int c = 0; c < 4; c++) {
      int tol = c == 3 ? 0 : 1;
      if (ulps_apart(want[c], out[i * 4 + c]) > tol) {
        printf("FAIL float16_math: [%d, %d] x=%g want %g got %g\n", i, c, x, (double)want[c],
               (double)out[i * 4 + c]);
        H.failures++;
      }
    }
  }
  kc_array_free(da), kc_array_free(dout);
  return h_end();
}

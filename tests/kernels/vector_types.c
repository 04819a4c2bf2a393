/* vector_types.c — CUDA vector types (numba-cuda's float32x4 ... and aliases): each
 * output is the kernel's formula computed here in C on the same float32/float64/
 * integer values (float32 within 2 ulp, in case the GPU contracts a*b+c to an fma). */
#include "harness.h"

int main(int argc, char **argv) {
  h_begin("vector_types", argc, argv);
  enum { N = 70 };
  float f[N], out[4 * N], want[4 * N];
  double d[N], wd[N];
  int64_t n[N], wn[N];
  for (int i = 0; i < N; i++) {
    float x = f[i] = 0.25f * (float)i - 3.0f;
    d[i] = 0.5 * i - 1.25;
    float a[4] = {x, 2.0f, x * 3.0f, 4.5f}, b[4] = {1.0f, x, 0.5f, x};
    want[4 * i] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
    float c[2] = {1.0f, x};   /* swap((x, 1)) */
    want[4 * i + 1] = a[2] - c[0];
    want[4 * i + 2] = c[0] + c[1] * 10 + c[0] * 100 + c[1] * 1000;
    want[4 * i + 3] = x * 2.0f + -x;
    wd[i] = d[i] * 1.5 + 1.5;
    /* iv = (i, 2i, 7), p = (7, -i), u = (255, 1, 2, i as uint8), ll = (i, 2**40) */
    wn[i] = i + 2 * i * 7 + 7 * -i + 255 + (uint8_t)i * 1000 + (1LL << 40) + i;
  }
  h_poison_f32(out, 4 * N);
  h_poison_i64(n, N);
  kc_array *df = h_array1(KC_FLOAT32, N, f), *dout = h_array1(KC_FLOAT32, 4 * N, out);
  kc_array *dd = h_array1(KC_FLOAT64, N, d), *dn = h_array1(KC_INT64, N, n);
  kc_arg args[] = {kc_arg_array(df), kc_arg_array(dout), kc_arg_array(dd), kc_arg_array(dn)};
  h_launch(h_kernel("vectors"), kc_dim(3), kc_dim(32), args, 4);
  h_fetch(dout, out), h_fetch(dd, d), h_fetch(dn, n);
  h_check_f32("float32x4 and float4 constructors, .x .y .z .w, device functions", want, out,
              4 * N, 2.5e-7, 1e-6);
  h_check_f64("double2, float64x2", wd, d, N, 0, 0);
  h_check_i64("int32x3, int2, uchar4, longlong2", wn, n, N);
  kc_array_free(df), kc_array_free(dout), kc_array_free(dd), kc_array_free(dn);
  return h_end();
}

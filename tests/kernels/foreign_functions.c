/* foreign_functions.c — foreign device functions (ffi/functions.cu) called from
 * kernels: expected values computed here in C from the functions' formulas.
 * tolerance: exact (x * y in float32 is one rounding on both sides; the rest are
 * integers and a * x + k with a, x, k small and exact) */
#include "harness.h"

enum { N = 77 };

static void check_multiply(void) {
  float x[N], y[N], r[N], want[N];
  for (int i = 0; i < N; i++) {
    x[i] = 0.37f * (float)i - 3.0f;
    y[i] = 1.0f / (float)(i + 1);
    want[i] = x[i] * y[i];
  }
  h_poison_f32(r, N);
  kc_array *dr = h_array1(KC_FLOAT32, N, r), *dx = h_array1(KC_FLOAT32, N, x),
           *dy = h_array1(KC_FLOAT32, N, y);
  kc_arg args[] = {kc_arg_array(dr), kc_arg_array(dx), kc_arg_array(dy)};
  h_launch(h_kernel("multiply_vectors"), kc_dim(1), kc_dim(N), args, 3);
  h_fetch(dr, r);
  h_check_f32("mul_f32_f32(x[i], y[i]) (CUDA C++, linked)", want, r, N, 0, 0);
  kc_array_free(dr), kc_array_free(dx), kc_array_free(dy);
}

static void check_mixed(void) {
  int8_t a[N];
  int16_t b[N];
  int32_t w[N], ww[N];
  int64_t neg[N], wneg[N];
  double d[N], out[N], wout[N];
  for (int i = 0; i < N; i++) {
    a[i] = (int8_t)(i * 37 - 128);     /* both signs, to the limits */
    b[i] = (int16_t)(i * 853 - 32768);
    d[i] = (i % 3 == 0 ? -1.0 : 1.0) * (i * 0.25);
    ww[i] = a[i] * 1000 + b[i];
    wneg[i] = d[i] < 0;
    wout[i] = d[i] * 2.0 + (double)i;
  }
  h_poison_i32(w, N);
  h_poison_i64(neg, N);
  h_poison_f64(out, N);
  kc_array *dw = h_array1(KC_INT32, N, w), *da = h_array1(KC_INT8, N, a),
           *db = h_array1(KC_INT16, N, b), *dn = h_array1(KC_INT64, N, neg),
           *dd = h_array1(KC_FLOAT64, N, d), *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(dw), kc_arg_array(da), kc_arg_array(db),
                   kc_arg_array(dn), kc_arg_array(dd), kc_arg_array(dout)};
  h_launch(h_kernel("mixed"), kc_dim(3), kc_dim(32), args, 6);
  h_fetch(dw, w), h_fetch(dn, neg), h_fetch(dout, out);
  h_check_i32("widen_i8_i16(a, b) = a * 1000 + b (int8, int16 sign-extended)", ww, w, N);
  h_check_i64("is_negative(d) (a bool result)", wneg, neg, N);
  h_check_f64("axpy_f64(d, 2, i) through a device function", wout, out, N, 0, 0);
  kc_array_free(dw), kc_array_free(da), kc_array_free(db), kc_array_free(dn);
  kc_array_free(dd), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("foreign_functions", argc, argv);
  check_multiply();
  check_mixed();
  return h_end();
}

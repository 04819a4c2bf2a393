/* device_defaults.c — default parameter values and keyword arguments of device
 * functions, against the same formulas in C: float32 where the defaults keep the
 * caller's float32, float64 where an argument brings float64.
 * tolerance: 1e-6 relative for float32 (the GPU may fuse x * s + t), 1e-15 for float64. */
#include "harness.h"

enum { N32 = 8, N64 = 4 };

static float clampf(float x, float lo, float hi) { return fminf(fmaxf(x, lo), hi); }

static void check32(void) {
  const int64_t n = 233;
  float *x = h_alloc(n, 4), *out = h_alloc(n * N32, 4), *want = h_alloc(n * N32, 4);
  int32_t *cnt = h_alloc(n, 4), *wcnt = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) x[i] = ((float)(i % 29) - 14.0f) * 0.13f;
  h_poison_f32(out, n * N32);
  h_poison_i32(cnt, n);
  for (int64_t i = 0; i < n; i++) {
    float v = x[i], *w = want + i * N32;
    w[0] = v * 2.0f + 10.0f;
    w[1] = (float)((double)v * 3.0 + 10.0);
    w[2] = v * 2.0f - 1.0f;
    w[3] = (float)((double)(v * 2.0f) + 0.5);   /* 0.5 given: a float64 shift */
    w[4] = v * v + v;
    w[5] = (float)((double)clampf(v, -1.0f, 1.0f) + fmin(fmax(v, -1.0), 0.25) +
                   fmin(fmax(v, -0.5), 0.5));
    w[6] = (float)((double)(v * 2.0f) + (double)v * 3.0);
    w[7] = 1.0f;   /* b = take() runs first, as written: a - b = 1 - 0 */
    wcnt[i] = 2 + 1 + 5;
  }
  int64_t s2[2] = {n, N32};
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dout = h_array(KC_FLOAT32, 2, s2, out);
  kc_array *dcnt = h_array1(KC_INT32, n, cnt);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout), kc_arg_array(dcnt)};
  h_launch(h_kernel("defaults32"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out);
  h_fetch(dcnt, cnt);
  h_check_f32("defaults32", want, out, n * N32, 1e-6, 1e-6);
  h_check_i32("defaults32 counters", wcnt, cnt, n);
  kc_array_free(dx), kc_array_free(dout), kc_array_free(dcnt);
  free(x), free(out), free(want), free(cnt), free(wcnt);
}

static void check64(void) {
  const int64_t n = 150;
  double *x = h_alloc(n, 8), *out = h_alloc(n * N64, 8), *want = h_alloc(n * N64, 8);
  for (int64_t i = 0; i < n; i++) x[i] = ((double)(i % 31) - 15.0) * 0.377;
  h_poison_f64(out, n * N64);
  for (int64_t i = 0; i < n; i++) {
    want[i * N64 + 0] = x[i] * 2.0 + 10.0;
    want[i * N64 + 1] = (double)i * 2.0 + 10.0;
    want[i * N64 + 2] = x[i] * 2.0 + x[i];
    want[i * N64 + 3] = ((double)i * 2.5 + 2.0) + ((double)i * 2.5 + x[i]);
  }
  int64_t s2[2] = {n, N64};
  kc_array *dx = h_array1(KC_FLOAT64, n, x), *dout = h_array(KC_FLOAT64, 2, s2, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("defaults64"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_f64("defaults64", want, out, n * N64, 1e-15, 1e-15);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("device_defaults", argc, argv);
  check32();
  check64();
  return h_end();
}

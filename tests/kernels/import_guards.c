/* import_guards.c — kernels defined in and after module-level try/except import guards:
 * scale_pi: out = a * float32(pi) + float32(0.5) (the else clause's OFFSET; float32
 * throughout, in Numba as here); clamp_inf: every
 * second element (STEP = 2 from finally) a if a < limit else inf; two_pi and two_pi64
 * (signatures kept in names): 2 * math.pi, as float32 and float64; specials:
 * float('inf'), float('-inf') and cp.float32(1.25) * 2 = 2.5; from_if (a kernel in the
 * taken branch of a module-level if): 3.0.
 * tolerance: exact (the same float32 operations in C) */
#include <math.h>

#include "harness.h"

static void scale_pi(kc_kernel *k, int64_t n) {
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i * 0.125f - 2.0f;
    want[i] = a[i] * (float)M_PI + 0.5f;
  }
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, 64)), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_f32("scale_pi", want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

static void clamp_inf(kc_kernel *k, int64_t n) {
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)(i % 13);
    out[i] = -1.0f;
    want[i] = i % 2 ? -1.0f : (a[i] < 6.0f ? a[i] : INFINITY);
  }
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_f32(6.0f)};
  h_launch(k, kc_dim(h_blocks(n, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out);
  h_check_f32("clamp_inf", want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

static void two_pi(kc_kernel *k32, kc_kernel *k64) {
  float o32 = -1.0f;
  double o64 = -1.0;
  int64_t one = 1;
  kc_array *d32 = h_array1(KC_FLOAT32, one, &o32), *d64 = h_array1(KC_FLOAT64, one, &o64);
  kc_arg a32[] = {kc_arg_array(d32)}, a64[] = {kc_arg_array(d64)};
  h_launch(k32, kc_dim(1), kc_dim(1), a32, 1);
  h_launch(k64, kc_dim(1), kc_dim(1), a64, 1);
  h_fetch(d32, &o32);
  h_fetch(d64, &o64);
  float w32 = (float)(2.0 * M_PI);
  double w64 = 2.0 * M_PI;
  h_check_f32("two_pi", &w32, &o32, 1, 0, 0);
  h_check_f64("two_pi64", &w64, &o64, 1, 0, 0);
  kc_array_free(d32), kc_array_free(d64);
}

static void specials(kc_kernel *k) {
  float out[3] = {0, 0, 0}, want[3] = {INFINITY, -INFINITY, 2.5f};
  kc_array *d = h_array1(KC_FLOAT32, 3, out);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(k, kc_dim(1), kc_dim(1), args, 1);
  h_fetch(d, out);
  h_check_f32("specials", want, out, 3, 0, 0);
  kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("import_guards", argc, argv);
  scale_pi(h_kernel("scale_pi"), 200);
  clamp_inf(h_kernel("clamp_inf"), 131);
  two_pi(h_kernel("two_pi"), h_kernel("two_pi64"));
  specials(h_kernel("specials"));
  float three = 0.0f, want3 = 3.0f;
  kc_array *d = h_array1(KC_FLOAT32, 1, &three);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel("from_if"), kc_dim(1), kc_dim(1), args, 1);
  h_fetch(d, &three);
  h_check_f32("from_if", &want3, &three, 1, 0, 0);
  kc_array_free(d);
  return h_end();
}

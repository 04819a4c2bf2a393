/* import_guards.c — kernels defined in and after module-level try/except import guards:
 * scale_pi: out = a * float32(pi) + float32(0.5) (the else clause's OFFSET; float32
 * throughout, in Numba as here); clamp_inf: every
 * second element (STEP = 2 from finally) a if a < limit else inf.
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

int main(int argc, char **argv) {
  h_begin("import_guards", argc, argv);
  scale_pi(h_kernel("scale_pi"), 200);
  clamp_inf(h_kernel("clamp_inf"), 131);
  return h_end();
}

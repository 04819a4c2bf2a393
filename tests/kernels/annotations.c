/* annotations.c — kernels with annotations kcc does not know, partial annotations and
 * annotated locals, typed at their launch: any_types: out = a * 2 + b; partial:
 * out = a * s. tolerance: exact (float32 operations done the same way in C) */
#include "harness.h"

static void any_types(kc_kernel *k, int64_t n) {
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i * 0.25f - 3.0f;
    b[i] = (float)(n - i) * 0.5f;
    want[i] = a[i] * 2.0f + b[i];
  }
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *db = h_array1(KC_FLOAT32, n, b),
           *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout),
                   kc_arg_i32((int32_t)n)};
  h_launch(k, kc_dim(h_blocks(n, 64)), kc_dim(64), args, 4);
  h_fetch(dout, out);
  h_check_f32("any_types", want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dout);
  free(a), free(b), free(out), free(want);
}

static void partial(kc_kernel *k, int64_t n) {
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i - 10.0f;
    want[i] = a[i] * 1.5f;
  }
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_f32(1.5f)};
  h_launch(k, kc_dim(h_blocks(n, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out);
  h_check_f32("partial", want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("annotations", argc, argv);
  any_types(h_kernel("any_types"), 300);
  partial(h_kernel("partial"), 257);
  return h_end();
}

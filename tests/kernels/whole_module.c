/* whole_module.c — the kernel of a module full of host Python (classes, try, with,
 * comprehensions, f-strings, async, match, decorators of other libraries) runs as if
 * the module held it alone: out[i] = a[i] * 2.5 + ((i % 7) - 3).
 * tolerance: exact (one float32 multiply-add of small values, computed the same way) */
#include "harness.h"

static void run(kc_kernel *k, int64_t n, unsigned block) {
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i * 0.5f - 7.0f;
    want[i] = a[i] * 2.5f + (float)((int)(i % 7) - 3);
  }
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_i32((int32_t)n)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, 3);
  h_fetch(dout, out);
  char what[64];
  snprintf(what, sizeof what, "n=%lld block=%u", (long long)n, block);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("whole_module", argc, argv);
  kc_kernel *k = h_kernel("scale_shift");
  run(k, 1000, 128);
  run(k, 37, 32);
  return h_end();
}

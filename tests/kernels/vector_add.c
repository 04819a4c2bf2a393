/* vector_add.c — out = a + b over sizes that are not multiples of the block.
 * tolerance: exact (one float32 addition, same in C) */
#include "harness.h"

static void run(kc_kernel *k, int64_t n, unsigned block) {
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i * 0.75f - 100.0f;
    b[i] = 1.0f / (float)(i + 1);
    want[i] = a[i] + b[i];
  }
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *db = h_array1(KC_FLOAT32, n, b),
           *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, 3);
  h_fetch(dout, out);
  char what[64];
  snprintf(what, sizeof what, "n=%lld block=%u", (long long)n, block);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dout);
  free(a), free(b), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("vector_add", argc, argv);
  kc_kernel *k = h_kernel("vector_add");
  run(k, 1000, 128);
  run(k, 1, 32);
  run(k, 4097, 256);
  run(k, 100, 1024);
  return h_end();
}

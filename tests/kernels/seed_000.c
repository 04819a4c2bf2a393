/* seed_000.c — seed 000's VectorAdd (@vectorize float32(float32, float32)) through
 * kc_vectorize, as the post calls it: ones plus ones (its "Error: 0.0"), then varied
 * values against C's float addition. tolerance: exact (one float32 addition each). */
#include "harness.h"

static void check(kc_kernel *k, const float *a, const float *b, int64_t n, const char *what) {
  float *got = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  for (int64_t i = 0; i < n; i++) want[i] = a[i] + b[i];
  kc_array *in[2] = {h_array1(KC_FLOAT32, n, a), h_array1(KC_FLOAT32, n, b)}, *out = NULL;
  h_ok(kc_vectorize(k, in, 2, &out), "kc_vectorize VectorAdd");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(out, got);
  h_check_f32(what, want, got, n, 0, 0);
  kc_array_free(out), kc_array_free(in[0]), kc_array_free(in[1]);
  free(got), free(want);
}

int main(int argc, char **argv) {
  h_begin("seed_000", argc, argv);
  kc_kernel *k = h_kernel("VectorAdd");
  const int64_t n = 100003;
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = b[i] = 1.0f;
  check(k, a, b, n, "VectorAdd(ones, ones)");
  for (int64_t i = 0; i < n; i++) a[i] = (float)i * 0.37f - 900.0f, b[i] = 1.0f / (float)(i + 1);
  check(k, a, b, n, "VectorAdd(varied)");
  free(a), free(b);
  return h_end();
}

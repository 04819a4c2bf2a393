/* vectorize_infer.c — a @vectorize of signatures without results: float32 inputs give
 * a float32 output, int32 inputs an int64 one (Numba's integer rule: a product of
 * int32s is int64), each element a * a + b computed here. Exact. */
#include "harness.h"

static void floats(kc_kernel *k) {
  enum { N = 77 };
  int64_t n = N;
  float a[N], b[N], got[N], want[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f - 3.0f;
    b[i] = (float)(i % 9);
    want[i] = a[i] * a[i] + b[i];
  }
  kc_array *in[2] = {h_array1(KC_FLOAT32, n, a), h_array1(KC_FLOAT32, n, b)}, *out = NULL;
  h_ok(kc_vectorize(k, in, 2, &out), "kc_vectorize float32");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  if (kc_array_dtype(out) != KC_FLOAT32) h_die("float32 inputs: the output is not float32");
  h_fetch(out, got);
  h_check_f32("float32", want, got, N, 0, 0);
  kc_array_free(in[0]), kc_array_free(in[1]), kc_array_free(out);
}

static void ints(kc_kernel *k) {
  enum { N = 50 };
  int64_t n = N;
  int32_t a[N], b[N];
  int64_t got[N];
  for (int i = 0; i < N; i++) {
    a[i] = 50000 + i * 1000;   /* a * a overflows int32: the int64 result holds it */
    b[i] = -i;
  }
  kc_array *in[2] = {h_array1(KC_INT32, n, a), h_array1(KC_INT32, n, b)}, *out = NULL;
  h_ok(kc_vectorize(k, in, 2, &out), "kc_vectorize int32");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  if (kc_array_dtype(out) != KC_INT64) h_die("int32 inputs: the output is not int64");
  h_fetch(out, got);
  for (int i = 0; i < N; i++) {
    int64_t want = (int64_t)a[i] * a[i] + b[i];
    if (got[i] != want) h_die("int32: element %d is %lld, expected %lld", i, (long long)got[i],
                              (long long)want);
  }
  kc_array_free(in[0]), kc_array_free(in[1]), kc_array_free(out);
}

int main(int argc, char **argv) {
  h_begin("vectorize_infer", argc, argv);
  kc_kernel *k = h_kernel("square_plus");
  floats(k);
  ints(k);
  return h_end();
}

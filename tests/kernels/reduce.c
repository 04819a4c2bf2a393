/* reduce.c — kc_reduce on @cuda.reduce functions: sizes 0 (with init), 1, odd, one
 * block exactly, one more than a block, and large enough for both stages; int and
 * float dtypes, init combined in, references computed here in C.
 * tolerance: exact (float sums are of small integers, exact in float32). */
#include "harness.h"

static const int64_t sizes[] = {1, 2, 7, 255, 256, 257, 1023, 1024, 1025, 4099, 300001};
enum { NSIZES = sizeof sizes / sizeof sizes[0] };

static void check_fsum(kc_kernel *k, int64_t n, int with_init) {
  float *a = h_alloc((size_t)n, 4), init = 5.0f, got = -1.0f;
  double want = with_init ? init : 0.0;
  for (int64_t i = 0; i < n; i++) a[i] = (float)((i * 37) % 11) - 4.0f, want += a[i];
  kc_array *d = h_array1(KC_FLOAT32, n, a);
  h_ok(kc_reduce(k, d, with_init ? &init : NULL, &got), "kc_reduce fsum");
  if ((double)got != want && H.failures++ == 0)
    printf("FAIL reduce: fsum of %lld elements%s: expected %.9g got %.9g\n", (long long)n,
           with_init ? " with init" : "", want, (double)got);
  kc_array_free(d);
  free(a);
}

static void check_vmax_i32(kc_kernel *k, int64_t n) {
  int32_t *a = h_alloc((size_t)n, 4), got = 0, want = INT32_MIN;
  for (int64_t i = 0; i < n; i++) {
    a[i] = -1000000 + (int32_t)((i * 7919) % 999983);
    if (a[i] > want) want = a[i];
  }
  kc_array *d = h_array1(KC_INT32, n, a);
  h_ok(kc_reduce(k, d, NULL, &got), "kc_reduce vmax int32");
  if (got != want && H.failures++ == 0)
    printf("FAIL reduce: vmax int32 of %lld elements: expected %d got %d\n", (long long)n,
           want, got);
  kc_array_free(d);
  free(a);
}

static void check_vmax_f64(kc_kernel *k, int64_t n) {
  double *a = h_alloc((size_t)n, 8), got = 0, init = -1e300, want = init;
  for (int64_t i = 0; i < n; i++) {
    a[i] = -1.0 / (double)(1 + (i * 104729) % (n + 3));
    if (a[i] > want) want = a[i];
  }
  kc_array *d = h_array1(KC_FLOAT64, n, a);
  h_ok(kc_reduce(k, d, &init, &got), "kc_reduce vmax float64");
  if (got != want && H.failures++ == 0)
    printf("FAIL reduce: vmax float64 of %lld elements: expected %.17g got %.17g\n",
           (long long)n, want, got);
  kc_array_free(d);
  free(a);
}

static void check_isum_i64(kc_kernel *k, int64_t n) {
  int64_t *a = h_alloc((size_t)n, 8), got = 0, init = -7, want = init;
  for (int64_t i = 0; i < n; i++) a[i] = (i % 3 - 1) * 123456789012ll + i, want += a[i];
  kc_array *d = h_array1(KC_INT64, n, a);
  h_ok(kc_reduce(k, d, &init, &got), "kc_reduce isum int64");
  if (got != want && H.failures++ == 0)
    printf("FAIL reduce: isum int64 of %lld elements: expected %lld got %lld\n",
           (long long)n, (long long)want, (long long)got);
  kc_array_free(d);
  free(a);
}

/* uint8 addition wraps at 256: the sum modulo 256, whatever the order. */
static void check_wrap_u8(kc_kernel *k, int64_t n) {
  uint8_t *a = h_alloc((size_t)n, 1), got = 0, want = 0;
  for (int64_t i = 0; i < n; i++) a[i] = (uint8_t)(i * 31 + 7), want = (uint8_t)(want + a[i]);
  kc_array *d = h_array1(KC_UINT8, n, a);
  h_ok(kc_reduce(k, d, NULL, &got), "kc_reduce wrap8 uint8");
  if (got != want && H.failures++ == 0)
    printf("FAIL reduce: wrap8 uint8 of %lld elements: expected %u got %u\n", (long long)n,
           want, got);
  kc_array_free(d);
  free(a);
}

static void check_empty(kc_kernel *k) {
  int64_t zero = 0;
  kc_array *d = NULL;
  h_ok(kc_array_new(H.ctx, KC_FLOAT32, 1, &zero, &d), "kc_array_new");
  float init = 2.5f, got = 0.0f;
  h_ok(kc_reduce(k, d, &init, &got), "kc_reduce empty");
  if (got != init && H.failures++ == 0)
    printf("FAIL reduce: empty array with init 2.5 gave %g\n", (double)got);
  if (kc_reduce(k, d, NULL, &got) != KC_ERR_INVALID && H.failures++ == 0)
    printf("FAIL reduce: empty array without init was accepted\n");
  kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("reduce", argc, argv);
  kc_kernel *fsum = h_kernel("fsum"), *vmax = h_kernel("vmax"), *isum = h_kernel("isum"),
            *wrap8 = h_kernel("wrap8");
  for (int s = 0; s < NSIZES; s++) {
    check_fsum(fsum, sizes[s], s % 2);
    check_vmax_i32(vmax, sizes[s]);
    check_vmax_f64(vmax, sizes[s]);
    check_isum_i64(isum, sizes[s]);
    check_wrap_u8(wrap8, sizes[s]);
  }
  check_empty(fsum);
  return h_end();
}

/* guards.c — bounds guards (upper, two-sided, strided, with else) over sizes that are
 * and are not multiples of the block, and blocks larger than the data. The output starts
 * as UNTOUCHED everywhere, so a write outside the guard shows as a mismatch.
 * tolerance: exact (copies, one float32 addition or doubling, same in C) */
#include "harness.h"

#define UNTOUCHED 7.0f

enum { UPPER, STENCIL, STRIDED, WINDOW };
static const char *names[] = {"upper", "stencil", "strided", "window"};

/* What kernel `which` leaves in out[0..n) (a has n elements; the grid covers n). */
static void expect(int which, const float *a, int64_t n, int64_t lo, int64_t hi, float *want) {
  for (int64_t i = 0; i < n; i++) {
    want[i] = UNTOUCHED;
    switch (which) {
    case UPPER: want[i] = a[i] * 2.0f; break;
    case STENCIL: if (i > 0 && i < n - 1) want[i] = a[i - 1] + a[i + 1]; break;
    case STRIDED: if (2 * i + 1 < n) want[i] = a[2 * i + 1]; break;
    default: want[i] = lo <= i && i <= hi - 1 ? a[i] : -1.0f; break;
    }
  }
}

static void run(kc_kernel *k, int which, int64_t n, unsigned block) {
  float *a = h_alloc((size_t)n, 4), *out = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  int64_t lo = n / 3, hi = n - n / 5;
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)(i % 1000) * 0.5f - 3.0f;
    out[i] = UNTOUCHED;
  }
  expect(which, a, n, lo, hi, want);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[4] = {kc_arg_array(da), kc_arg_array(dout)};
  int nargs = 2;
  if (which == UPPER || which == STRIDED) args[nargs++] = kc_arg_i64(n);
  if (which == WINDOW) args[nargs++] = kc_arg_i64(lo), args[nargs++] = kc_arg_i64(hi);
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, nargs);
  h_fetch(dout, out);
  char what[80];
  snprintf(what, sizeof what, "%s n=%lld block=%u", names[which], (long long)n, block);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("guards", argc, argv);
  static const int64_t sizes[] = {1, 3, 100, 256, 1000, 4097};
  static const unsigned blocks[] = {32, 256, 1024};
  for (int which = UPPER; which <= WINDOW; which++) {
    kc_kernel *k = h_kernel(names[which]);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        run(k, which, sizes[s], blocks[b]);
  }
  return h_end();
}

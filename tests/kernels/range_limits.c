/* range_limits.c — for loops over ranges that span most of int64, against Python's
 * len(range(start, stop, step)) computed in 128-bit arithmetic.
 * tolerance: exact (integers) */
#include "harness.h"

typedef struct { int64_t start, stop, step; } span;
__extension__ typedef __int128 i128; /* Python ints are unbounded: 128 bits are enough */

/* Python: the number of start + k*step strictly before stop, and the last of them. */
static void py_range(span s, int64_t *count, int64_t *last) {
  i128 d = (i128)s.stop - s.start, st = s.step, n = 0;
  if (st > 0 && d > 0) n = (d + st - 1) / st;
  if (st < 0 && d < 0) n = (-d + -st - 1) / -st;
  *count = (int64_t)n;
  *last = n ? (int64_t)(s.start + (n - 1) * st) : 0;
}

int main(int argc, char **argv) {
  h_begin("range_limits", argc, argv);
  static const span cases[] = {
      {0, INT64_MAX, ((int64_t)1 << 62) - 1}, /* the example: 3 iterations */
      {INT64_MIN, INT64_MAX, (int64_t)1 << 62},
      {INT64_MAX, INT64_MIN, -((int64_t)1 << 62)},
      {INT64_MAX - 2, INT64_MAX, 1},
      {INT64_MIN + 2, INT64_MIN, -1},
      {INT64_MIN, INT64_MAX, INT64_MAX},
      {INT64_MAX, INT64_MIN, INT64_MIN},
      {INT64_MAX - 1, INT64_MAX, INT64_MAX},
      {-5, INT64_MAX, INT64_MAX},
      {5, 5, 1},
      {0, 10, 3},
      {10, 0, -3},
      {0, -10, 3},
      {-7, 7, 7},
      {3, 10, 0}, /* a step of 0 (Python raises): no iterations */
  };
  const int64_t n = sizeof cases / sizeof cases[0];
  int64_t *st = h_alloc(n, 8), *sp = h_alloc(n, 8), *stp = h_alloc(n, 8);
  int64_t *cnt = h_alloc(n, 8), *last = h_alloc(n, 8), *wc = h_alloc(n, 8), *wl = h_alloc(n, 8);
  for (int64_t i = 0; i < n; i++) {
    st[i] = cases[i].start, sp[i] = cases[i].stop, stp[i] = cases[i].step;
    py_range(cases[i], &wc[i], &wl[i]);
  }
  h_poison_i64(cnt, n);
  h_poison_i64(last, n);
  kc_array *a = h_array1(KC_INT64, n, st), *b = h_array1(KC_INT64, n, sp),
           *c = h_array1(KC_INT64, n, stp), *dc = h_array1(KC_INT64, n, cnt),
           *dl = h_array1(KC_INT64, n, last);
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(c), kc_arg_array(dc),
                   kc_arg_array(dl)};
  h_launch(h_kernel("range_limits"), kc_dim(1), kc_dim(32), args, 5);
  h_fetch(dc, cnt);
  h_fetch(dl, last);
  h_check_i64("iterations", wc, cnt, n);
  h_check_i64("last value", wl, last, n);
  kc_array_free(a), kc_array_free(b), kc_array_free(c), kc_array_free(dc), kc_array_free(dl);
  free(st), free(sp), free(stp), free(cnt), free(last), free(wc), free(wl);
  return h_end();
}

/* tuple_args.c — tuples as kernel arguments (tuple_args.k), passed with kc_arg_tuple:
 * typed kernels in each of Numba's spellings, an untyped kernel specialised for
 * UniTuple(float64, 2) and for Tuple(int32, float64) at its launches, and the launch
 * errors of a tuple that does not fit its parameter. The references are the kernels'
 * expressions computed here in the same types and order (Python's: a tuple's w[-1] is
 * its last element, len of a tuple its length, int64(2.75 * 2.0) truncates to 5).
 * tolerance: exact */
#include "harness.h"

enum { N = 40, NL = 11 };

static void expect_launch_error(const char *what, kc_kernel *k, const kc_arg *args, int n,
                                const char *needle) {
  kc_status s = kc_launch(k, kc_dim(1), kc_dim(N), 0, NULL, args, n);
  if (s != KC_ERR_LAUNCH) h_die("%s: expected KC_ERR_LAUNCH, got %s", what, kc_status_name(s));
  if (!strstr(kc_last_error(H.ctx), needle))
    h_die("%s: the message lacks '%s': %s", what, needle, kc_last_error(H.ctx));
}

static void taps(void) {
  const float w[3] = {1.5f, -2.0f, 0.25f};
  float out[N], want[N];
  for (int i = 0; i < N; i++) {
    float s = 0;
    for (int k = 0; k < 3; k++) s += w[k] * (float)(i + k);
    want[i] = s + w[i % 3] + (float)(3 * 0.5) + w[2];
  }
  h_poison_f32(out, N);
  kc_array *d = h_array1(KC_FLOAT32, N, out);
  kc_arg we[3] = {kc_arg_f32(w[0]), kc_arg_f64(w[1]), kc_arg_f32(w[2])};
  kc_arg pe[2] = {kc_arg_i64(3), kc_arg_f32(0.5f)};
  kc_arg args[] = {kc_arg_array(d), kc_arg_tuple(we, 3), kc_arg_tuple(pe, 2)};
  h_launch(h_kernel("taps"), kc_dim(1), kc_dim(N), args, 3);
  h_fetch(d, out);
  h_check_f32("taps", want, out, N, 0, 0);

  kc_arg short_args[] = {kc_arg_array(d), kc_arg_tuple(we, 2), kc_arg_tuple(pe, 2)};
  expect_launch_error("short tuple", h_kernel("taps"), short_args, 3,
                      "argument 2 ('w'): expected UniTuple(float32, 3), got a tuple of 2 (float32, float64)");
  kc_arg big[2] = {kc_arg_i64((int64_t)1 << 40), kc_arg_f32(0.5f)};
  kc_arg big_args[] = {kc_arg_array(d), kc_arg_tuple(we, 3), kc_arg_tuple(big, 2)};
  expect_launch_error("element range", h_kernel("taps"), big_args, 3,
                      "argument 3 ('p'), element 0: value 1099511627776 does not fit int32");
  kc_arg scalar_args[] = {kc_arg_array(d), kc_arg_f32(1), kc_arg_tuple(pe, 2)};
  expect_launch_error("scalar for a tuple", h_kernel("taps"), scalar_args, 3,
                      "expected UniTuple(float32, 3), got float32");
  kc_arg tuple_for_array[] = {kc_arg_tuple(we, 3), kc_arg_tuple(we, 3), kc_arg_tuple(pe, 2)};
  expect_launch_error("tuple for an array", h_kernel("taps"), tuple_for_array, 3,
                      "argument 1 ('out'): expected float32[:], got a tuple of 3");
  kc_array_free(d);
}

static void mixed_and_annotated(void) {
  int64_t out[N], want[N];
  for (int i = 0; i < N; i++) want[i] = 7 * i - 3 + 200 + 5 + 3;
  h_poison_i64(out, N);
  kc_array *d = h_array1(KC_INT64, N, out);
  kc_arg ue[2] = {kc_arg_i32(7), kc_arg_i64(-3)};
  kc_arg te[3] = {kc_arg_bool(1), kc_arg_u32(200), kc_arg_f64(2.75)};
  kc_arg args[] = {kc_arg_array(d), kc_arg_tuple(ue, 2), kc_arg_tuple(te, 3)};
  h_launch(h_kernel("mixed"), kc_dim(1), kc_dim(N), args, 3);
  h_fetch(d, out);
  h_check_i64("mixed", want, out, N);
  kc_array_free(d);

  const int32_t t[4] = {1, 2, 3, 4};
  int32_t o32[N], w32[N];
  for (int i = 0; i < N; i++) w32[i] = 1 * 2 + 2 * 3 + 3 * 4 + 4 * 1 + t[i % 4];
  h_poison_i32(o32, N);
  kc_array *d32 = h_array1(KC_INT32, N, o32);
  kc_arg tt[4] = {kc_arg_i32(t[0]), kc_arg_i32(t[1]), kc_arg_i32(t[2]), kc_arg_i32(t[3])};
  kc_arg a2[] = {kc_arg_array(d32), kc_arg_tuple(tt, 4)};
  h_launch(h_kernel("annotated"), kc_dim(1), kc_dim(N), a2, 2);
  h_fetch(d32, o32);
  h_check_i32("annotated", w32, o32, N);
  kc_array_free(d32);
}

/* lo + (hi - lo) * i / (n - 1), in float64 */
static void lazy_case(kc_arg lo, kc_arg hi, double l, double h) {
  double out[NL], want[NL];
  for (int i = 0; i < NL; i++) want[i] = l + (h - l) * (double)i / (double)(NL - 1);
  h_poison_f64(out, NL);
  kc_array *d = h_array1(KC_FLOAT64, NL, out);
  kc_arg te[2] = {lo, hi};
  kc_arg args[] = {kc_arg_array(d), kc_arg_tuple(te, 2)};
  h_launch(h_kernel("lazy"), kc_dim(1), kc_dim(NL), args, 2);
  h_fetch(d, out);
  h_check_f64("lazy", want, out, NL, 0, 0);
  kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("tuple_args", argc, argv);
  taps();
  mixed_and_annotated();
  lazy_case(kc_arg_f64(0.0), kc_arg_f64(1.0), 0.0, 1.0);     /* UniTuple(float64, 2) */
  lazy_case(kc_arg_f64(2.0), kc_arg_f64(4.0), 2.0, 4.0);     /* the same, found by key */
  lazy_case(kc_arg_i32(1), kc_arg_f64(3.0), 1.0, 3.0);       /* Tuple(int32, float64) */
  return h_end();
}

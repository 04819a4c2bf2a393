/* guvectorize.c — kc_guvectorize on layouts "(m,n)->(m,n)", "(n),()->(n)" and
 * "(n),(n)->()": loop dimensions flattened (one and two of them, and none), outputs
 * allocated and given, the overload picked by dtype; references computed here.
 * tolerance: exact (products of small integers and halves), dot 1e-12 relative. */
#include "harness.h"

static void check_double3d(kc_kernel *k) {
  int64_t shape[3] = {4, 3, 5}, n = 60;
  float *a = h_alloc(n, 4), *got = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 13) - 6.5f, want[i] = 2 * a[i];
  kc_array *in[1] = {h_array(KC_FLOAT32, 3, shape, a)}, *out[1] = {NULL};
  h_ok(kc_guvectorize(k, in, 1, out, 1), "kc_guvectorize double float32");
  if (kc_array_ndim(out[0]) != 3 || kc_array_shape(out[0])[0] != 4 ||
      kc_array_shape(out[0])[1] != 3 || kc_array_shape(out[0])[2] != 5)
    h_die("double: the allocated output is not 4x3x5");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f32("double float32[4,3,5]", want, got, n, 0, 0);
  kc_array_free(out[0]), kc_array_free(in[0]);
  free(a), free(got), free(want);
}

static void check_double2d_given(kc_kernel *k) {
  int64_t shape[2] = {3, 7}, n = 21;
  double *a = h_alloc(n, 8), *got = h_alloc(n, 8), *want = h_alloc(n, 8);
  for (int64_t i = 0; i < n; i++) a[i] = (double)i * 0.5, want[i] = 2 * a[i];
  h_poison_f64(got, n);
  kc_array *in[1] = {h_array(KC_FLOAT64, 2, shape, a)};
  kc_array *given = h_array(KC_FLOAT64, 2, shape, got), *out[1] = {given};
  h_ok(kc_guvectorize(k, in, 1, out, 1), "kc_guvectorize double float64");
  if (out[0] != given) h_die("double: a given output was replaced");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(given, got);
  h_check_f64("double float64[3,7] (no loop dims)", want, got, n, 0, 0);
  kc_array_free(given), kc_array_free(in[0]);
  free(a), free(got), free(want);
}

static void check_axpy(kc_kernel *k) {
  int64_t xs[2] = {6, 10}, ss = 6, n = 60;
  float *x = h_alloc(n, 4), s[6], *got = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int i = 0; i < 6; i++) s[i] = (float)i - 2.5f;
  for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 7), want[i] = s[i / 10] * x[i];
  kc_array *in[2] = {h_array(KC_FLOAT32, 2, xs, x), h_array1(KC_FLOAT32, ss, s)};
  kc_array *out[1] = {NULL};
  h_ok(kc_guvectorize(k, in, 2, out, 1), "kc_guvectorize axpy");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f32("axpy (n),()->(n)", want, got, n, 0, 0);
  kc_array_free(out[0]), kc_array_free(in[0]), kc_array_free(in[1]);
  free(x), free(got), free(want);
}

static void check_dot(kc_kernel *k, int loop) {
  int64_t shape[2] = {7, 9}, n = loop ? 63 : 9, rows = loop ? 7 : 1;
  double *x = h_alloc(n, 8), *y = h_alloc(n, 8), want[7] = {0}, got[7];
  for (int64_t i = 0; i < n; i++) x[i] = (double)(i % 5) + 0.25, y[i] = 1.0 / (double)(i + 1);
  for (int64_t i = 0; i < n; i++) want[i / 9] += x[i] * y[i];
  kc_array *in[2], *out[1] = {NULL};
  if (loop) in[0] = h_array(KC_FLOAT64, 2, shape, x), in[1] = h_array(KC_FLOAT64, 2, shape, y);
  else in[0] = h_array1(KC_FLOAT64, n, x), in[1] = h_array1(KC_FLOAT64, n, y);
  h_ok(kc_guvectorize(k, in, 2, out, 1), "kc_guvectorize dot");
  if (kc_array_ndim(out[0]) != 1 || kc_array_shape(out[0])[0] != rows)
    h_die("dot: the allocated output has the wrong shape");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f64(loop ? "dot (n),(n)->() over 7 rows" : "dot of one pair", want, got, rows,
              1e-12, 0);
  kc_array_free(out[0]), kc_array_free(in[0]), kc_array_free(in[1]);
  free(x), free(y);
}

static void check_errors(kc_kernel *dbl, kc_kernel *dot) {
  int64_t a[2] = {3, 4}, b[2] = {3, 5}, c[2] = {2, 4};
  kc_array *x = NULL, *y = NULL, *z = NULL, *out[1] = {NULL};
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, a, &x), "new");
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, b, &y), "new");
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, c, &z), "new");
  kc_array *xy[2] = {x, y}, *xz[2] = {x, z};
  if (kc_guvectorize(dot, xy, 2, out, 1) != KC_ERR_INVALID || out[0])
    h_die("dot accepted n = 4 and n = 5");
  if (!strstr(kc_last_error(H.ctx), "has n = 5, an earlier argument has n = 4"))
    h_die("dot's message: %s", kc_last_error(H.ctx));
  if (kc_guvectorize(dot, xz, 2, out, 1) != KC_ERR_INVALID || out[0])
    h_die("dot accepted loop extents 3 and 2");
  if (kc_guvectorize(dbl, xy, 2, out, 1) != KC_ERR_INVALID) h_die("double took 2 inputs");
  kc_array_free(x), kc_array_free(y), kc_array_free(z);
}

int main(int argc, char **argv) {
  h_begin("guvectorize", argc, argv);
  kc_kernel *dbl = h_kernel("double"), *axpy = h_kernel("axpy"), *dot = h_kernel("dot");
  check_double3d(dbl);
  check_double2d_given(dbl);
  check_axpy(axpy);
  check_dot(dot, 1);
  check_dot(dot, 0);
  check_errors(dbl, dot);
  return h_end();
}

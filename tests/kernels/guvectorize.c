/* guvectorize.c — kc_guvectorize on layouts "(m,n)->(m,n)", "(n),()->(n)",
 * "(n),(n)->()" and "(),()->()": loop dimensions flattened (one and two of them, and
 * none), broadcast as NumPy does (a scalar against an array, (1,n) against (m,n),
 * missing leading dimensions, three loop dimensions broadcast in turn, an output wider
 * than the inputs), outputs allocated and given, the overload picked by dtype, and the
 * errors of loop shapes that do not broadcast; references computed here with explicit
 * loops. tolerance: exact (products of small integers and halves), dot 1e-12 relative. */
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

/* axpy with s a 1-element array: the one scalar broadcast over every row of x. */
static void check_axpy_scalar(kc_kernel *k) {
  int64_t xs[2] = {6, 10}, n = 60;
  float *x = h_alloc(n, 4), s = -1.5f, *got = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (float)(i % 7) - 2, want[i] = s * x[i];
  kc_array *in[2] = {h_array(KC_FLOAT32, 2, xs, x), h_array1(KC_FLOAT32, 1, &s)};
  kc_array *out[1] = {NULL};
  h_ok(kc_guvectorize(k, in, 2, out, 1), "kc_guvectorize axpy, s broadcast");
  if (kc_array_ndim(out[0]) != 2 || kc_array_shape(out[0])[0] != 6)
    h_die("axpy: the output of a broadcast s is not 6x10");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f32("axpy with s of shape (1) against x (6,10)", want, got, n, 0, 0);
  kc_array_free(out[0]), kc_array_free(in[0]), kc_array_free(in[1]);
  free(x), free(got), free(want);
}

/* dot of x against each row of y: x as (1,9), then as (9) (no loop dimension). */
static void check_dot_broadcast(kc_kernel *k, int x_rank) {
  int64_t ys[2] = {7, 9}, xs[2] = {1, 9}, rows = 7, n = 9;
  double x[9], *y = h_alloc(rows * n, 8), want[7], got[7];
  for (int64_t j = 0; j < n; j++) x[j] = (double)j - 3.5;
  for (int64_t i = 0; i < rows * n; i++) y[i] = (double)(i % 11) * 0.25;
  for (int64_t r = 0; r < rows; r++) {
    want[r] = 0;
    for (int64_t j = 0; j < n; j++) want[r] += x[j] * y[r * n + j];
  }
  kc_array *in[2] = {x_rank == 2 ? h_array(KC_FLOAT64, 2, xs, x) : h_array1(KC_FLOAT64, n, x),
                     h_array(KC_FLOAT64, 2, ys, y)};
  kc_array *out[1] = {NULL};
  h_ok(kc_guvectorize(k, in, 2, out, 1), "kc_guvectorize dot, x broadcast");
  if (kc_array_ndim(out[0]) != 1 || kc_array_shape(out[0])[0] != rows)
    h_die("dot: the output of x broadcast over 7 rows is not (7)");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f64(x_rank == 2 ? "dot of x (1,9) against y (7,9)" : "dot of x (9) against y (7,9)",
              want, got, rows, 1e-12, 0);
  kc_array_free(out[0]), kc_array_free(in[0]), kc_array_free(in[1]);
  free(y);
}

/* mad(a, b) = 10a + b with a (4,1,3) and b (5,1): the loop is (4,5,3), a broadcast on
 * the middle axis, b on the outer (missing) and inner ones. */
static void check_mad3(kc_kernel *k) {
  enum { P = 4, Q = 5, R = 3 };
  int64_t as[3] = {P, 1, R}, bs[2] = {Q, 1};
  double a[P * R], b[Q], want[P * Q * R], got[P * Q * R];
  for (int i = 0; i < P * R; i++) a[i] = i + 1;
  for (int j = 0; j < Q; j++) b[j] = 0.5 * j;
  for (int i = 0; i < P; i++)
    for (int j = 0; j < Q; j++)
      for (int l = 0; l < R; l++) want[(i * Q + j) * R + l] = 10 * a[i * R + l] + b[j];
  kc_array *in[2] = {h_array(KC_FLOAT64, 3, as, a), h_array(KC_FLOAT64, 2, bs, b)};
  kc_array *out[1] = {NULL};
  h_ok(kc_guvectorize(k, in, 2, out, 1), "kc_guvectorize mad (4,1,3) with (5,1)");
  const int64_t *os = kc_array_shape(out[0]);
  if (kc_array_ndim(out[0]) != 3 || os[0] != P || os[1] != Q || os[2] != R)
    h_die("mad: the output of (4,1,3) and (5,1) is not (4,5,3)");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f64("mad of a (4,1,3) and b (5,1)", want, got, P * Q * R, 0, 0);
  kc_array_free(out[0]), kc_array_free(in[0]), kc_array_free(in[1]);
}

/* A given output (2,4) wider than the inputs a (4) and b (1): both broadcast to it. */
static void check_mad_wide_output(kc_kernel *k) {
  int64_t os[2] = {2, 4};
  double a[4] = {1, 2, 3, 4}, b = 0.5, want[8], got[8];
  for (int i = 0; i < 8; i++) want[i] = 10 * a[i % 4] + b;
  h_poison_f64(got, 8);
  kc_array *in[2] = {h_array1(KC_FLOAT64, 4, a), h_array1(KC_FLOAT64, 1, &b)};
  kc_array *given = h_array(KC_FLOAT64, 2, os, got), *out[1] = {given};
  h_ok(kc_guvectorize(k, in, 2, out, 1), "kc_guvectorize mad into a (2,4) output");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(given, got);
  h_check_f64("mad of a (4) and b (1) into out (2,4)", want, got, 8, 0, 0);
  kc_array_free(given), kc_array_free(in[0]), kc_array_free(in[1]);
}

/* kc_guvectorize(k, {a, b}) fails with KC_ERR_INVALID and a message holding text;
 * out is given or (NULL) allocated. */
static void expect_error(kc_kernel *k, kc_array *a, kc_array *b, kc_array *given,
                         const char *text, const char *what) {
  kc_array *in[2] = {a, b}, *out[1] = {given};
  if (kc_guvectorize(k, in, 2, out, 1) != KC_ERR_INVALID || out[0] != given)
    h_die("%s was accepted", what);
  if (!strstr(kc_last_error(H.ctx), text))
    h_die("%s: the message is \"%s\", expected it to hold \"%s\"", what,
          kc_last_error(H.ctx), text);
}

static void check_broadcast_errors(kc_kernel *dot, kc_kernel *mad) {
  int64_t s34[2] = {3, 4}, s24[2] = {2, 4}, s14[2] = {1, 4}, s04[2] = {0, 4}, s3 = 3;
  kc_array *x34, *y24, *o14, *z04, *w3, *out[1] = {NULL};
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, s34, &x34), "new");
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, s24, &y24), "new");
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, s14, &o14), "new");
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 2, s04, &z04), "new");
  h_ok(kc_array_new(H.ctx, KC_FLOAT64, 1, &s3, &w3), "new");
  expect_error(mad, x34, y24, NULL, "argument 2 ('b') has extent 2 on its axis 0, which "
               "does not broadcast against extent 3 of argument 1", "mad (3,4) with (2,4)");
  expect_error(mad, x34, w3, NULL, "argument 2 ('b') has extent 3 on its axis 0, which "
               "does not broadcast against extent 4 of argument 1", "mad (3,4) with (3)");
  expect_error(mad, x34, x34, o14, "output 'r' has loop dimensions (1, 4), the arguments "
               "broadcast to (3, 4) (an output is not broadcast)", "mad into a (1,4) output");
  expect_error(mad, z04, x34, NULL, "argument 2 ('b') has extent 3 on its axis 0, which "
               "does not broadcast against extent 0", "mad (0,4) with (3,4)");
  expect_error(dot, w3, x34, NULL, "argument 2 ('y') has n = 4, an earlier argument has "
               "n = 3", "dot (3) with (3,4)");
  /* an empty loop broadcast with (1,4): a (0) output, nothing launched */
  kc_array *in[2] = {z04, o14};
  h_ok(kc_guvectorize(mad, in, 2, out, 1), "kc_guvectorize mad (0,4) with (1,4)");
  if (kc_array_ndim(out[0]) != 2 || kc_array_shape(out[0])[0] != 0 ||
      kc_array_shape(out[0])[1] != 4)
    h_die("mad: the output of (0,4) and (1,4) is not (0,4)");
  kc_array_free(out[0]);
  kc_array_free(x34), kc_array_free(y24), kc_array_free(o14), kc_array_free(z04);
  kc_array_free(w3);
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
  kc_kernel *mad = h_kernel("mad");
  check_axpy_scalar(axpy);
  check_dot_broadcast(dot, 2);
  check_dot_broadcast(dot, 1);
  check_mad3(mad);
  check_mad_wide_output(mad);
  check_broadcast_errors(dot, mad);
  return h_end();
}

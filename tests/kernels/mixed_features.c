/* mixed_features.c — the cross-feature kernels of mixed_features.k against C: each construct
 * has a test of its own elsewhere; these check them together (a closure over a
 * tuple argument passed as a value and zipped with a strided row, records iterated with
 * enumerate, libdevice under a debug assert, run-time shape indexing of a 4-D array). */
#include <stddef.h>

#include "harness.h"

typedef struct point { double x, y; int32_t w; } point;   /* align=True: 24 bytes */

static void check_rows_closure(void) {
  enum { R = 8, C = 3 };
  float m[R * 2 * C], out[R], want[R];
  for (int i = 0; i < R * 2 * C; i++) m[i] = (float)(i % 7) - 2.5f;
  const float w[3] = {0.5f, -1.0f, 2.0f};
  int64_t shape[2] = {R, 2 * C}, step[2] = {1, 2};
  kc_array *dm = h_array(KC_FLOAT32, 2, shape, m), *vm, *dout;
  h_ok(kc_array_slice(dm, NULL, NULL, step, &vm), "m[:, ::2]");
  for (int i = 0; i < R; i++) {   /* row i of m[:, ::2]: m[i, 0], m[i, 2], m[i, 4] */
    float s = 0;
    for (int j = 0; j < C; j++) s += m[i * 2 * C + 2 * j] * w[j];
    want[i] = s;
  }
  h_poison_f32(out, R);
  dout = h_array1(KC_FLOAT32, R, out);
  kc_arg t[3] = {kc_arg_f32(w[0]), kc_arg_f32(w[1]), kc_arg_f32(w[2])};
  kc_arg args[] = {kc_arg_array(vm), kc_arg_tuple(t, 3), kc_arg_array(dout)};
  h_launch(h_kernel("rows_closure"), kc_dim(2), kc_dim(4), args, 3);
  h_fetch(dout, out);
  h_check_f32("closure over a tuple, zip(row of an 'A' view, tuple)", want, out, R, 1e-6, 0);
  kc_array_free(vm), kc_array_free(dm), kc_array_free(dout);
}

static void check_records_loop(void) {
  enum { N = 10 };
  point p[N];
  double out[1], want = 0;
  for (int k = 0; k < N; k++) {
    p[k] = (point){0.5 * k, 3.0 - k, (int32_t)(k % 4) - 1};
    want += p[k].x * p[k].y * p[k].w + k;
  }
  kc_record_field f[] = {{"x", KC_FLOAT64, NULL, offsetof(point, x), 0, {0}},
                         {"y", KC_FLOAT64, NULL, offsetof(point, y), 0, {0}},
                         {"w", KC_INT32, NULL, offsetof(point, w), 0, {0}}};
  kc_record *rec;
  h_ok(kc_record_new(H.ctx, f, 3, sizeof(point), 1, &rec), "kc_record_new");
  int64_t n = N;
  kc_array *dp, *dout;
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, p, (size_t)n * sizeof *p, &dp), "records");
  h_poison_f64(out, 1);
  dout = h_array1(KC_FLOAT64, 1, out);
  kc_arg args[] = {kc_arg_array(dp), kc_arg_array(dout)};
  h_launch(h_kernel("records_loop"), kc_dim(1), kc_dim(1), args, 2);
  h_fetch(dout, out);
  h_check_f64("enumerate over an array of records", &want, out, 1, 1e-12, 0);
  kc_array_free(dp), kc_array_free(dout), kc_record_free(rec);
}

static void check_debug_libdevice(void) {
  enum { N = 16 };
  double a[N], want[N];
  for (int i = 0; i < N; i++) a[i] = i * 2.25, want[i] = sqrt(a[i]);
  kc_array *da = h_array1(KC_FLOAT64, N, a);
  kc_arg args[] = {kc_arg_array(da), kc_arg_f64(100.0)};
  h_launch(h_kernel("checked"), kc_dim(1), kc_dim(N), args, 2);
  h_fetch(da, a);
  h_check_f64("cuda.libdevice.sqrt in a debug kernel", want, a, N, 0, 0);
  /* sqrt(i * 2.25) = 1.5 * sqrt(i) >= 3 from i = 4: the assert fails */
  for (int i = 0; i < N; i++) a[i] = i * 2.25;
  h_ok(kc_array_copy_from_host(da, a, sizeof a), "copy");
  args[1] = kc_arg_f64(3.0);
  kc_status s = kc_launch(h_kernel("checked"), kc_dim(1), kc_dim(N), 0, NULL, args, 2);
  kc_status s2 = kc_synchronize(H.ctx);   /* reports it (again, on the CPU), then clears it */
  if (s == KC_OK) s = s2;
  if (s != KC_ERR_ASSERT || !strstr(kc_last_error(H.ctx), "AssertionError: too large") ||
      !strstr(kc_last_error(H.ctx), "mixed_features.k:48:9"))
    h_die("failed assert: %s: %s", kc_status_name(s), kc_last_error(H.ctx));
  kc_array_free(da);
}

static void check_shape_walk(void) {
  int64_t shape[4] = {2, 3, 2, 5};
  float a[60], want[60];
  for (int i = 0; i < 60; i++) a[i] = want[i] = (float)i;
  for (int l = 0; l < 5; l++) want[l] = 1.5f + 2.5f;   /* a[0, 0, 0, :] */
  int32_t out[1], wn = 2 * 3 * 2 * 5;
  kc_array *da = h_array(KC_FLOAT32, 4, shape, a), *dout = h_array1(KC_INT32, 1, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("shape_walk"), kc_dim(1), kc_dim(1), args, 2);
  h_fetch(da, a), h_fetch(dout, out);
  h_check_i32("a.shape[k] with k from a loop", &wn, out, 1);
  h_check_f32("a[0, 0, 0, :] = float32x2 fields", want, a, 60, 0, 0);
  kc_array_free(da), kc_array_free(dout);
}

static void check_named_shared(void) {
  float a[4] = {1, 2, 3, 4}, want[4] = {4, 3, 2, 1};
  kc_array *da = h_array1(KC_FLOAT32, 4, a);
  kc_arg args[] = {kc_arg_array(da)};
  h_launch(h_kernel("shared"), kc_dim(1), kc_dim(4), args, 1);
  h_fetch(da, a);
  h_check_f32("a kernel named 'shared' with a shared array", want, a, 4, 0, 0);
  kc_array_free(da);
}

int main(int argc, char **argv) {
  h_begin("mixed_features", argc, argv);
  check_rows_closure();
  check_records_loop();
  check_debug_libdevice();
  check_shape_walk();
  check_named_shared();
  return h_end();
}

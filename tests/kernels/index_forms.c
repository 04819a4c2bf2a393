/* index_forms.c — tuple_index: every element of a 2-D array gets + 1, + 2 (atomic) and
 * + 0.5 twice (a device function taking the tuple) = + 4; record_keys: out = x + y by
 * string keys, then x doubled and y + 1. Expected values computed here; exact. */
#include <stddef.h>

#include "harness.h"

static void tuple_index(kc_kernel *k) {
  enum { R = 19, C = 23 };
  float a[R * C], want[R * C];
  for (int i = 0; i < R * C; i++) {
    a[i] = (float)(i % 11) - 5.0f;
    want[i] = a[i] + 4.0f;
  }
  int64_t shape[2] = {R, C};
  kc_array *d = h_array(KC_FLOAT32, 2, shape, a);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(k, kc_dim2(2, 3), kc_dim2(16, 8), args, 1);
  h_fetch(d, a);
  h_check_f32("tuple_index", want, a, R * C, 0, 0);
  kc_array_free(d);
}

typedef struct { float x; int32_t y; } point;

static kc_record *point_record(void) {
  kc_record_field f[] = {{"x", KC_FLOAT32, NULL, offsetof(point, x), 0, {0}},
                         {"y", KC_INT32, NULL, offsetof(point, y), 0, {0}}};
  kc_record *r = NULL;
  h_ok(kc_record_new(H.ctx, f, 2, sizeof(point), 0, &r), "kc_record_new");
  return r;
}

static void record_keys(kc_kernel *k) {
  enum { N = 40 };
  point p[N], pw[N];
  float out[N], want[N];
  for (int i = 0; i < N; i++) {
    p[i].x = (float)i * 0.5f;
    p[i].y = i - 7;
    want[i] = p[i].x + (float)p[i].y;
    pw[i].x = p[i].x * 2.0f;
    pw[i].y = p[i].y + 1;
  }
  h_poison_f32(out, N);
  int64_t n = N;
  kc_array *dp = NULL;
  kc_record *rec = point_record();
  h_ok(kc_array_from_host_records(H.ctx, rec, 1, &n, p, sizeof p, &dp), "records");
  kc_array *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dp), kc_arg_array(dout)};
  h_launch(k, kc_dim(1), kc_dim(64), args, 2);
  h_fetch(dout, out);
  h_check_f32("record_keys out", want, out, N, 0, 0);
  h_ok(kc_array_to_host(dp, p, sizeof p), "records back");
  for (int i = 0; i < N; i++)
    if (p[i].x != pw[i].x || p[i].y != pw[i].y)
      h_die("record_keys: record %d is (%g, %d), expected (%g, %d)", i, p[i].x, p[i].y,
            pw[i].x, pw[i].y);
  kc_array_free(dp), kc_array_free(dout);
  kc_record_free(rec);
}

int main(int argc, char **argv) {
  h_begin("index_forms", argc, argv);
  tuple_index(h_kernel("tuple_index"));
  record_keys(h_kernel("record_keys"));
  return h_end();
}

/* tuple_nesting.c — the kernels' arithmetic written out in C, element by element
 * (each thread touches only its own element): nest: c = a + b + 3.5 + 2, then b = 7
 * (through the tuple (c, b)), d = a * 2.5, a = a + b + 2 (the loop over (a, b) plus
 * len), d += (i even ? a : b); mixed: out = m[i, 1] + int(v * 3) + i, m[i, 0] = -1. */
#include "harness.h"

static void check_nest(void) {
  enum { N = 100 };
  float a[N], b[N], c[N], d[N], wa[N], wb[N], wc[N], wd[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i * 0.5f + 1, b[i] = (float)(i % 7) - 3, d[i] = 0.25f;
    h_poison_f32(&c[i], 1);
    wc[i] = (float)((double)(a[i] + b[i]) + 3.5 + 2);
    wb[i] = 7;
    wd[i] = (float)((double)a[i] * 2.5);
    wa[i] = (float)((double)a[i] + (double)wb[i] + 2);
    wd[i] = wd[i] + (i % 2 == 0 ? wa[i] : wb[i]);
  }
  kc_array *da = h_array1(KC_FLOAT32, N, a), *db = h_array1(KC_FLOAT32, N, b);
  kc_array *dc = h_array1(KC_FLOAT32, N, c), *dd = h_array1(KC_FLOAT32, N, d);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc), kc_arg_array(dd)};
  h_launch(h_kernel("nest"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 4);
  h_fetch(da, a), h_fetch(db, b), h_fetch(dc, c), h_fetch(dd, d);
  h_check_f32("nest a", wa, a, N, 0, 0);
  h_check_f32("nest b", wb, b, N, 0, 0);
  h_check_f32("nest c", wc, c, N, 0, 0);
  h_check_f32("nest d", wd, d, N, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc), kc_array_free(dd);
}

static void check_mixed(void) {
  enum { N = 50 };
  int32_t m[N][2], wm[N][2];
  double v[N];
  int64_t out[N], want[N];
  for (int i = 0; i < N; i++) {
    m[i][0] = i, m[i][1] = 100 - i, v[i] = i * 0.7 - 10;
    want[i] = m[i][1] + (int64_t)(v[i] * 3) + i;
    wm[i][0] = -1, wm[i][1] = m[i][1];
    out[i] = -77;
  }
  int64_t shape[2] = {N, 2};
  kc_array *dm = h_array(KC_INT32, 2, shape, m), *dv = h_array1(KC_FLOAT64, N, v);
  kc_array *dout = h_array1(KC_INT64, N, out);
  kc_arg args[] = {kc_arg_array(dm), kc_arg_array(dv), kc_arg_array(dout)};
  h_launch(h_kernel("mixed"), kc_dim(2), kc_dim(32), args, 3);
  h_fetch(dm, m), h_fetch(dout, out);
  h_check_i64("mixed out", want, out, N);
  h_check_i32("mixed m", &wm[0][0], &m[0][0], 2 * N);
  kc_array_free(dm), kc_array_free(dv), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("tuple_nesting", argc, argv);
  check_nest();
  check_mixed();
  return h_end();
}

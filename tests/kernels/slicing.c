/* slicing.c — array views against a C model of Python's slice rules (CPython's
 * PySlice_AdjustIndices: negative bounds count from the end, then clamp; defaults
 * depend on the step's sign). Sums are of at most a few hundred small integers in
 * float64 (exact) or float32 (exact below 2^24). */
#include "harness.h"

/* The elements a[start:stop:step] selects, into idx; returns their count. */
static int64_t py_slice(int64_t n, int64_t start, int64_t stop, int64_t step, int has_start,
                        int has_stop, int64_t *idx) {
  if (!has_start) start = step < 0 ? n - 1 : 0;
  else {
    if (start < 0) start += n;
    if (start < 0) start = step < 0 ? -1 : 0;
    else if (start >= n) start = step < 0 ? n - 1 : n;
  }
  if (!has_stop) stop = step < 0 ? -1 : n;
  else {
    if (stop < 0) stop += n;
    if (stop < 0) stop = step < 0 ? -1 : 0;
    else if (stop >= n) stop = step < 0 ? n - 1 : n;
  }
  int64_t c = 0;
  for (int64_t i = start; step > 0 ? i < stop : i > stop; i += step) idx[c++] = i;
  return c;
}

static double sum_of(const double *a, const int64_t *idx, int64_t c) {
  double s = 0;
  for (int64_t k = 0; k < c; k++) s += a[idx[k]];
  return s;
}

static void check_runtime(const double *a, int64_t n, kc_array *da) {
  enum { M = 7 * 7 * 6 };
  static const int64_t bounds[7] = {-30, -5, -1, 0, 3, 17, 40};
  static const int64_t steps[6] = {-7, -2, -1, 1, 2, 5};
  int64_t *st = h_alloc(M, 8), *sp = h_alloc(M, 8), *sd = h_alloc(M, 8);
  int64_t *lens = h_alloc(M, 8), *wlens = h_alloc(M, 8), idx[64];
  double *sums = h_alloc(M, 8), *wsums = h_alloc(M, 8), *firsts = h_alloc(M, 8),
         *wfirsts = h_alloc(M, 8);
  int m = 0;
  for (int x = 0; x < 7; x++)
    for (int y = 0; y < 7; y++)
      for (int z = 0; z < 6; z++, m++) {
        st[m] = bounds[x], sp[m] = bounds[y], sd[m] = steps[z];
        int64_t c = py_slice(n, st[m], sp[m], sd[m], 1, 1, idx);
        wlens[m] = c, wsums[m] = sum_of(a, idx, c), wfirsts[m] = c ? a[idx[0]] : -1.0;
      }
  h_poison_i64(lens, M);
  h_poison_f64(sums, M);
  h_poison_f64(firsts, M);
  kc_array *dst = h_array1(KC_INT64, M, st), *dsp = h_array1(KC_INT64, M, sp),
           *dsd = h_array1(KC_INT64, M, sd), *dsums = h_array1(KC_FLOAT64, M, sums),
           *dlens = h_array1(KC_INT64, M, lens), *dfirsts = h_array1(KC_FLOAT64, M, firsts);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dst), kc_arg_array(dsp), kc_arg_array(dsd),
                   kc_arg_array(dsums), kc_arg_array(dlens), kc_arg_array(dfirsts)};
  h_launch(h_kernel("slice_runtime"), kc_dim(h_blocks(M, 64)), kc_dim(64), args, 7);
  h_fetch(dsums, sums);
  h_fetch(dlens, lens);
  h_fetch(dfirsts, firsts);
  h_check_i64("len(a[start:stop:step])", wlens, lens, M);
  h_check_f64("sum(a[start:stop:step])", wsums, sums, M, 0, 0);
  h_check_f64("a[start:stop:step][0]", wfirsts, firsts, M, 0, 0);
  kc_array_free(dst), kc_array_free(dsp), kc_array_free(dsd), kc_array_free(dsums);
  kc_array_free(dlens), kc_array_free(dfirsts);
  free(st), free(sp), free(sd), free(lens), free(wlens), free(sums), free(wsums);
  free(firsts), free(wfirsts);
}

static void check_fixed(const double *a, int64_t n, kc_array *da) {
  const int64_t nn = 13;
  int64_t idx[64], c;
  double want[12], got[12];
  h_poison_f64(got, 12);
  c = py_slice(n, 3, 0, 1, 1, 0, idx), want[0] = sum_of(a, idx, c);
  c = py_slice(n, 0, nn, 1, 0, 1, idx), want[1] = sum_of(a, idx, c);
  c = py_slice(n, 0, 0, 2, 0, 0, idx), want[2] = sum_of(a, idx, c);
  want[3] = a[n - 1] + a[n - 2] + a[n - 3] + a[n - 4] + a[n - 5];
  c = py_slice(n, -4, -1, 1, 1, 1, idx), want[4] = sum_of(a, idx, c);
  c = py_slice(n, nn, 2, -3, 1, 1, idx), want[5] = sum_of(a, idx, c);
  want[6] = 0;
  want[7] = a[n - 3];
  want[8] = (double)py_slice(n, 1, 100, 7, 1, 1, idx);
  want[9] = a[2 + 3 * 2];
  want[10] = a[n - 1];
  want[11] = (double)n;
  kc_array *dout = h_array1(KC_FLOAT64, 12, got);
  kc_arg args[] = {kc_arg_array(da), kc_arg_i64(nn), kc_arg_array(dout)};
  h_launch(h_kernel("slice_fixed"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dout, got);
  h_check_f64("slice_fixed", want, got, 12, 0, 0);
  kc_array_free(dout);
}

static void check_2d(void) {
  const int64_t R = 37, C = 23;
  float *m = h_alloc(R * C, 4), *out = h_alloc(R * C, 4), *wout = h_alloc(R * C, 4);
  float *rows = h_alloc(R, 4), *rows2 = h_alloc(R, 4), *cols = h_alloc(C, 4);
  float *wrows = h_alloc(R, 4), *wrows2 = h_alloc(R, 4), *wcols = h_alloc(C, 4);
  for (int64_t i = 0; i < R * C; i++) m[i] = (float)((i * 7) % 19) - 9.0f;
  for (int64_t r = 0; r < R; r++)
    for (int64_t c = 0; c < C; c++) {
      wrows[r] += m[r * C + c];
      if (c >= 1) wrows2[r] += m[r * C + c];
      wcols[c] += m[r * C + c];
      wout[r * C + c] = (float)(c + r) + (r == R - 1 ? 100.0f : 0.0f);
    }
  h_poison_f32(out, R * C);
  h_poison_f32(rows, R), h_poison_f32(rows2, R), h_poison_f32(cols, C);
  int64_t shape[2] = {R, C};
  kc_array *dm = h_array(KC_FLOAT32, 2, shape, m), *dout = h_array(KC_FLOAT32, 2, shape, out);
  kc_array *dr = h_array1(KC_FLOAT32, R, rows), *dr2 = h_array1(KC_FLOAT32, R, rows2),
           *dc = h_array1(KC_FLOAT32, C, cols);
  kc_arg args[] = {kc_arg_array(dm), kc_arg_array(dr), kc_arg_array(dr2), kc_arg_array(dc),
                   kc_arg_array(dout)};
  h_launch(h_kernel("views_2d"), kc_dim(2), kc_dim(32), args, 5);
  h_fetch(dr, rows), h_fetch(dr2, rows2), h_fetch(dc, cols), h_fetch(dout, out);
  h_check_f32("m[i, :]", wrows, rows, R, 0, 0);
  h_check_f32("m[i][1:]", wrows2, rows2, R, 0, 0);
  h_check_f32("m[:, j]", wcols, cols, C, 0, 0);
  h_check_f32("writes through out[:, j] and out[::-1, j]", wout, out, R * C, 0, 0);
  kc_array_free(dm), kc_array_free(dout), kc_array_free(dr), kc_array_free(dr2);
  kc_array_free(dc);
  free(m), free(out), free(wout), free(rows), free(rows2), free(cols), free(wrows);
  free(wrows2), free(wcols);
}

int main(int argc, char **argv) {
  h_begin("slicing", argc, argv);
  const int64_t n = 29;
  double *a = h_alloc(n, 8);
  for (int64_t i = 0; i < n; i++) a[i] = (double)(i * i % 31) + 0.5;
  kc_array *da = h_array1(KC_FLOAT64, n, a);
  check_runtime(a, n, da);
  check_fixed(a, n, da);
  check_2d();
  kc_array_free(da);
  free(a);
  return h_end();
}

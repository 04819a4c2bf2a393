/* loops_iter.c — for loops over arrays, rows, tuples, enumerate, zip and
 * reversed(range), and tuples indexed at run time (loops_iter.k), against the same
 * iterations written out in C from Python's definitions: enumerate(x, s) pairs s + i
 * with item i, zip stops at its shortest argument, reversed(range(a, b, c)) is the
 * range's items last first, a[i:] of an array is empty past its end, a negative tuple
 * index counts from the end. tolerance: exact (integers; float32 sums of halves) */
#include "harness.h"

enum { NA = 20, MR = 5, MC = 6, P = 2, Q = 3, R = 4, T = 32, NOUT = 19, NROWS = 6 };

static int64_t a[NA];
static int32_t m[MR][MC];
static int64_t c3[P][Q][R];
static uint8_t flags[NA];
static float f[NA];
static const int64_t W[3] = {3, 5, 7};

static void reference(int64_t t, uint32_t u, int64_t *o) {
  int64_t s = 0;
  for (int64_t i = t; i < NA; i++) s += a[i];
  o[0] = s;
  s = 0;
  for (int64_t i = 0; t % 4 + i < MR; i++)
    for (int64_t j = 0; j < MC; j++) s += (i + 1) * (j + 2) * m[t % 4 + i][j];
  o[1] = s;
  s = 0;
  for (int r = 0; r < MR; r++)
    for (int64_t j = 0; 2 * j < MC; j++) s += j * m[r][2 * j] + t;
  o[2] = s;
  s = 0;
  int64_t k = 0;
  for (int p = 0; p < P; p++)
    for (int q = 0; q < Q; q++)
      for (int r = 0; r < R; r++) s += c3[p][q][r] * ++k;
  o[3] = s;
  s = 0;
  for (int64_t i = t; i < NA; i++) s += flags[i];
  o[4] = s;
  s = 0;   /* the shortest of a (20), m[1] (6) and range(t, 100, 3) (>= 23) */
  for (int64_t i = 0; i < MC; i++) s += a[i] * m[1][i] * (t + 3 * i);
  o[5] = s;
  s = 0;
  for (int64_t i = 0; i < NA; i++) s += (t + i) * a[i];
  o[6] = s;
  s = 0;
  int64_t last = t;   /* the last item of range(t, 2t + 5, 2) */
  while (last + 2 < 2 * t + 5) last += 2;
  for (int64_t i = last; i >= t; i -= 2) s = s * 3 + i;
  o[7] = s;
  s = 0;
  last = 10;          /* range(10, t - 20, -3) */
  while (last - 3 > t - 20) last -= 3;
  for (int64_t i = last; i <= 10 && 10 > t - 20; i += 3) s = s * 3 + i;   /* empty from t = 30 */
  o[8] = s;
  s = -1;
  for (int i = 0; i < NA; i++)
    if (a[i] == 2 * t) { s = a[i]; break; }
  o[9] = s;
  s = 0;
  for (int i = 0; i + 1 < NA; i++) {
    if ((a[i] + a[i + 1]) % 3 == 0) continue;
    s += a[i] - a[i + 1] * 2;
  }
  o[10] = s;
  const int64_t L[3] = {t, t + 1, 2 * t};
  s = 357;
  for (int i = 0; i < 3; i++) s = s * 10 + L[i];
  o[11] = s;
  int64_t j = t % 3;
  o[12] = W[j] * 100 + L[3 - j - 1] + W[u - 1];
  s = 0;
  for (int64_t i = 0; i < 2; i++) s = s * 100 + W[i] * (t + i);
  o[13] = s;
  s = 0;
  for (int64_t i = 0; i + 2 < NA; i++) s += i * (a[i] + 2 * a[i + 2]);
  o[14] = s;
  s = 0;
  for (int i = 0; i < 5; i++) s += a[i];
  o[15] = s;
  s = 0;
  int found = 0;
  for (int r = 0; r < MR && !found; r++) {
    int broke = 0;
    for (int c = 0; c < MC; c++) {
      if (m[r][c] == t) { broke = 1; break; }
      s++;
    }
    found = broke;
  }
  o[16] = found ? s : -s;
  o[17] = (P + t) * (Q + t) * (R + t);
  s = 0;
  for (int64_t q = 0; q < u && q < NA; q++) s += q * a[q];
  o[18] = s;
}

int main(int argc, char **argv) {
  h_begin("loops_iter", argc, argv);
  for (int i = 0; i < NA; i++) {
    a[i] = (i * 7) % 11 - 3;
    flags[i] = i % 3 == 1;
    f[i] = (float)i * 0.5f;
  }
  for (int r = 0; r < MR; r++)
    for (int c = 0; c < MC; c++) m[r][c] = (r * 6 + c) % 9 - 2;
  for (int p = 0; p < P; p++)
    for (int q = 0; q < Q; q++)
      for (int r = 0; r < R; r++) c3[p][q][r] = p * 12 + q * 4 + r - 5;
  const uint32_t u = 2;
  int64_t *out = h_alloc(NOUT * T, 8), *want = h_alloc(NOUT * T, 8);
  int64_t *rows = h_alloc(NROWS * T, 8), *wrows = h_alloc(NROWS * T, 8);
  float *fout = h_alloc(T, 4), *wf = h_alloc(T, 4);
  int64_t col[NOUT];
  for (int t = 0; t < T; t++) {
    reference(t, u, col);
    for (int k = 0; k < NOUT; k++) want[k * T + t] = col[k];
    for (int i = 0; i < NROWS; i++) wrows[i * T + t] = i * 100 + t;
    float fs = 0;
    for (int i = t; i < NA; i++) fs += f[i];
    wf[t] = fs;
  }
  h_poison_i64(out, NOUT * T), h_poison_i64(rows, NROWS * T), h_poison_f32(fout, T);
  int64_t ms[2] = {MR, MC}, cs[3] = {P, Q, R}, os[2] = {NOUT, T}, rs[2] = {NROWS, T};
  kc_array *da = h_array1(KC_INT64, NA, a), *dm = h_array(KC_INT32, 2, ms, m),
           *dc = h_array(KC_INT64, 3, cs, c3), *dfl = h_array1(KC_BOOL, NA, flags),
           *df = h_array1(KC_FLOAT32, NA, f), *dout = h_array(KC_INT64, 2, os, out),
           *dfo = h_array1(KC_FLOAT32, T, fout), *drows = h_array(KC_INT64, 2, rs, rows);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dm), kc_arg_array(dc), kc_arg_array(dfl),
                   kc_arg_array(df), kc_arg_array(dout), kc_arg_array(dfo),
                   kc_arg_array(drows), kc_arg_u32(u)};
  h_launch(h_kernel("forms"), kc_dim(1), kc_dim(T), args, 9);
  h_fetch(dout, out), h_fetch(drows, rows), h_fetch(dfo, fout);
  char what[48];
  for (int k = 0; k < NOUT; k++) {
    snprintf(what, sizeof what, "out row %d", k);
    h_check_i64(what, want + k * T, out + k * T, T);
  }
  h_check_i64("rows written through row views", wrows, rows, NROWS * T);
  h_check_f32("float32 sums of f[t:]", wf, fout, T, 0, 0);
  kc_array_free(da), kc_array_free(dm), kc_array_free(dc), kc_array_free(dfl);
  kc_array_free(df), kc_array_free(dout), kc_array_free(dfo), kc_array_free(drows);
  free(out), free(want), free(rows), free(wrows), free(fout), free(wf);
  return h_end();
}

/* split_loops.c — per-thread float folds (split_loops.k) against the same loops in C,
 * thread by thread. The inputs are small integers, so every sum and product is exact
 * in any order but the forces' divisions, which run in the same order as in C.
 * tolerance: exact (forces: 1e-12 relative). */
#include "harness.h"

#define M 24   /* matmul: M x K times K x N */
#define K 40
#define N 150
#define NB 300 /* bodies, elements */

static void check_matmul(const char *name, int j_from_x, kc_dim3 block) {
  float *a = h_alloc(M * K, sizeof *a), *b = h_alloc(K * N, sizeof *b);
  float *got = h_alloc(M * N, sizeof *got), *want = h_alloc(M * N, sizeof *want);
  for (int i = 0; i < M * K; i++) a[i] = (float)(i % 7 - 3);
  for (int i = 0; i < K * N; i++) b[i] = (float)(i % 5 - 2);
  for (int i = 0; i < M; i++)
    for (int j = 0; j < N; j++) {
      double t = 0;
      for (int k = 0; k < K; k++) t += (double)(a[i * K + k] * b[k * N + j]);
      want[i * N + j] = (float)t;
    }
  int64_t sa[2] = {M, K}, sb[2] = {K, N}, sc[2] = {M, N};
  kc_array *da = h_array(KC_FLOAT32, 2, sa, a), *db = h_array(KC_FLOAT32, 2, sb, b);
  kc_array *dc = h_array(KC_FLOAT32, 2, sc, got);
  unsigned gx = h_blocks(j_from_x ? N : M, block.x), gy = h_blocks(j_from_x ? M : N, block.y);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc)};
  h_launch(h_kernel(name), kc_dim2(gx, gy), block, args, 3);
  h_fetch(dc, got);
  char what[64];
  snprintf(what, sizeof what, "%s, blocks of %u x %u", name, block.x, block.y);
  h_check_f32(what, want, got, M * N, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc);
  free(a), free(b), free(got), free(want);
}

enum { FORCES, TWO_LOOPS, TRIANGLE, STOPS_EARLY, GUARD_CHANGES, TARGET_AFTER };

static double reference(int kind, const double *a, int64_t i, int64_t n, double x) {
  double s = 0, t;
  switch (kind) {
  case FORCES:
    for (int64_t j = 0; j < n; j++) {
      double d = a[j] - a[i];
      s += d / (d * d + x);
    }
    return s;
  case TWO_LOOPS:
    for (int64_t k = 0; k < n; k++) s += a[k] * (double)i;
    t = s * 2;
    for (int64_t k = 0; k < n; k++) t -= a[k];
    return t;
  case TRIANGLE:
    for (int64_t k = 0; k <= i; k++) s += a[k % n];
    return s;
  case STOPS_EARLY:
    for (int64_t k = 0; k < n; k++) {
      s += a[k] * (double)(i + 1);
      if (s > x) break;
    }
    return s;
  case TARGET_AFTER:   /* x: the output's length */
    if (i >= (int64_t)x - 3) return -1;
    for (int64_t k = 0; k < n; k++) s += a[k];
    return s + (double)(n - 1);
  default:
    for (int64_t k = 0; k < n; k++) s += a[k];
    return s;
  }
}

static void check_1d(const char *name, int kind, unsigned block, double x, double rtol) {
  int64_t nout = NB + 7;   /* more threads than bodies for the forces: they skip */
  double *a = h_alloc(NB, sizeof *a), *got = h_alloc((size_t)nout, sizeof *got);
  double *want = h_alloc((size_t)nout, sizeof *want);
  for (int i = 0; i < NB; i++) a[i] = (double)(i * 37 % 101 - 50);
  int64_t n_out = kind == FORCES ? NB : nout;
  for (int64_t i = 0; i < nout; i++) want[i] = i < n_out ? reference(kind, a, i, NB, x) : 0;
  kc_array *da = h_array1(KC_FLOAT64, NB, a), *dout = h_array1(KC_FLOAT64, n_out, got);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_f64(x)};
  h_launch(h_kernel(name), kc_dim(h_blocks(nout, block)), kc_dim(block), args, 3);
  h_fetch(dout, got);
  char what[64];
  snprintf(what, sizeof what, "%s, blocks of %u", name, block);
  h_check_f64(what, want, got, n_out, rtol, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(got), free(want);
}

static void check_sums(unsigned block) {
  enum { R = 45, C = 70 };
  double *a = h_alloc(R * C, sizeof *a), *want_c = h_alloc(C, sizeof *want_c);
  double *want_r = h_alloc(R, sizeof *want_r), *got_c = h_alloc(C, sizeof *got_c);
  double *got_r = h_alloc(R, sizeof *got_r);
  for (int i = 0; i < R * C; i++) a[i] = (double)(i % 11 - 5);
  for (int r = 0; r < R; r++)
    for (int c = 0; c < C; c++) want_r[r] += a[r * C + c];
  for (int c = 0; c < C; c++)
    for (int r = 0; r < R; r++) want_c[c] += a[r * C + c];
  int64_t shape[2] = {R, C};
  kc_array *da = h_array(KC_FLOAT64, 2, shape, a), *dc = h_array1(KC_FLOAT64, C, got_c);
  kc_array *dr = h_array1(KC_FLOAT64, R, got_r);
  kc_arg ac[] = {kc_arg_array(da), kc_arg_array(dc)}, ar[] = {kc_arg_array(da), kc_arg_array(dr)};
  h_launch(h_kernel("colsum"), kc_dim(h_blocks(C, block)), kc_dim(block), ac, 2);
  h_launch(h_kernel("rowsum"), kc_dim(h_blocks(R, block)), kc_dim(block), ar, 2);
  h_fetch(dc, got_c);
  h_fetch(dr, got_r);
  h_check_f64("colsum", want_c, got_c, C, 0, 0);
  h_check_f64("rowsum", want_r, got_r, R, 0, 0);
  kc_array_free(da), kc_array_free(dc), kc_array_free(dr);
  free(a), free(want_c), free(want_r), free(got_c), free(got_r);
}

static void check_cdot(unsigned block) {
  enum { NA = 50, NO = 70 };
  kc_complex *a = h_alloc(NA, sizeof *a), *got = h_alloc(NO, sizeof *got);
  double *want = h_alloc(2 * NO, sizeof *want);
  for (int k = 0; k < NA; k++) a[k].re = k % 5 - 2, a[k].im = k % 3 - 1;
  for (int i = 0; i < NO; i++) {
    double re = 0, im = 0;
    for (int k = 0; k < NA; k++)
      for (int r = 0; r < 2; r++) re += a[k].re * (i + r), im += a[k].im * (i + r);
    want[2 * i] = re, want[2 * i + 1] = im;
  }
  kc_array *da = h_array1(KC_COMPLEX128, NA, a), *dout = h_array1(KC_COMPLEX128, NO, got);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("cdot"), kc_dim(h_blocks(NO, block)), kc_dim(block), args, 2);
  h_fetch(dout, got);
  h_check_f64("cdot", want, (const double *)got, 2 * NO, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(got), free(want);
}

int main(int argc, char **argv) {
  h_begin("split_loops", argc, argv);
  static const kc_dim3 blocks[] = {{16, 16, 1}, {8, 4, 1}, {32, 1, 1}, {1, 32, 1}};
  for (size_t b = 0; b < sizeof blocks / sizeof *blocks; b++) {
    check_matmul("matmul", 0, blocks[b]);
    check_matmul("matmul_return", 1, blocks[b]);
  }
  static const unsigned b1[] = {64, 256, 7};
  for (size_t b = 0; b < sizeof b1 / sizeof *b1; b++) {
    check_1d("forces", FORCES, b1[b], 0.25, 1e-12);
    check_1d("two_loops", TWO_LOOPS, b1[b], 0, 0);
    check_1d("triangle", TRIANGLE, b1[b], 0, 0);
    check_1d("stops_early", STOPS_EARLY, b1[b], 5000, 0);
    check_1d("guard_changes", GUARD_CHANGES, b1[b], 0, 0);
    check_1d("target_after", TARGET_AFTER, b1[b], NB + 7, 0);
    check_cdot(b1[b]);
    check_sums(b1[b]);
  }
  return h_end();
}

/* stencil.c — stencils with guards at both ends (1-D radius 1 and 2, the 2-D Laplacian
 * with x along and across the rows) and stencils that index with negative values
 * (periodic 1-D and 2-D, a loop reaching back past the start), compares of values of
 * either sign (no lower bound may be assumed of them), over sizes below, at and
 * above the block size, with 1-D and 2-D blocks of several shapes. The output starts as
 * UNTOUCHED everywhere, so a write outside a guard shows as a mismatch; a negative index
 * is resolved here by hand (index + extent), as Python does.
 * tolerance: exact (inputs are small integers, weights powers of two or small
 * integers: every sum and product is exact in float32) */
#include "harness.h"

#define UNTOUCHED 12345.5f

enum { STENCIL_1D, STENCIL_R2, PERIODIC_1D, TAPS, N_1D };
static const char *names_1d[N_1D] = {"stencil_1d", "stencil_r2", "periodic_1d", "taps"};
enum { LAPLACE_XY, LAPLACE_IJ, PERIODIC_2D, N_2D };
static const char *names_2d[N_2D] = {"laplace_xy", "laplace_ij", "periodic_2d"};

/* a[i] for a Python index i in [-n, n) */
static float at(const float *a, int64_t n, int64_t i) { return a[i < 0 ? i + n : i]; }

static void expect_1d(int which, const float *a, int64_t n, int64_t m, float *want) {
  for (int64_t i = 0; i < n; i++) {
    want[i] = UNTOUCHED;
    if (which == STENCIL_1D && i >= 1 && i <= n - 2) {
      want[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
    } else if (which == STENCIL_R2 && i >= 2 && i <= n - 3) {
      want[i] = a[i - 2] + 4.0f * a[i - 1] + 6.0f * a[i] + 4.0f * a[i + 1] + a[i + 2];
    } else if (which == PERIODIC_1D) {
      want[i] = at(a, n, i - 1) + 2.0f * a[i] + at(a, n, i + 1 - n);
    } else if (which == TAPS) {
      double s = 0.0;
      for (int64_t k = 0; k < m; k++) s += k > 0 ? (double)at(a, n, i - k) : (double)(2.0f * a[i]);
      want[i] = (float)s;
    }
  }
}

static void run_1d(kc_kernel *k, int which, int64_t n, unsigned block) {
  float *a = h_alloc((size_t)n, 4), *out = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  int64_t m = n < 5 ? n : 5; /* taps reaches back at most n - 1 */
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)((i * 7) % 23) - 11.0f;
    out[i] = UNTOUCHED;
  }
  expect_1d(which, a, n, m, want);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[3] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_i64(m)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, which == TAPS ? 3 : 2);
  h_fetch(dout, out);
  char what[80];
  snprintf(what, sizeof what, "%s n=%lld block=%u", names_1d[which], (long long)n, block);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

/* a is rows x cols, row-major; the kernels' x runs along the rows (laplace_xy,
   periodic_2d: a[y, x]) or down the columns (laplace_ij: a[i, j] with i = x). */
static void expect_2d(int which, const float *a, int64_t rows, int64_t cols, float *want) {
  for (int64_t r = 0; r < rows; r++)
    for (int64_t c = 0; c < cols; c++) {
      float *w = &want[r * cols + c];
      const float *p = &a[r * cols + c];
      *w = UNTOUCHED;
      if (which == PERIODIC_2D) {
        int64_t up = r == 0 ? rows - 1 : r - 1, left = c == 0 ? cols - 1 : c - 1;
        *w = a[up * cols + c] + a[r * cols + left] - 2.0f * p[0];
      } else if (r >= 1 && r <= rows - 2 && c >= 1 && c <= cols - 2) {
        *w = (p[-cols] + p[cols] + p[-1] + p[1]) - 4.0f * p[0]; /* both orientations */
      }
    }
}

static void run_2d(kc_kernel *k, int which, int64_t rows, int64_t cols, unsigned bx,
                   unsigned by) {
  int64_t n = rows * cols, shape[2] = {rows, cols};
  float *a = h_alloc((size_t)n, 4), *out = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)((i * 5) % 19) - 9.0f;
    out[i] = UNTOUCHED;
  }
  expect_2d(which, a, rows, cols, want);
  kc_array *da = h_array(KC_FLOAT32, 2, shape, a), *dout = h_array(KC_FLOAT32, 2, shape, out);
  kc_arg args[2] = {kc_arg_array(da), kc_arg_array(dout)};
  /* x covers the columns, except for laplace_ij, whose x indexes the rows */
  int64_t nx = which == LAPLACE_IJ ? rows : cols, ny = which == LAPLACE_IJ ? cols : rows;
  h_launch(k, kc_dim2(h_blocks(nx, bx), h_blocks(ny, by)), kc_dim2(bx, by), args, 2);
  h_fetch(dout, out);
  char what[96];
  snprintf(what, sizeof what, "%s %lldx%lld block=%ux%u", names_2d[which], (long long)rows,
           (long long)cols, bx, by);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

/* signs: 1 for x != 0, + 10 for x > 2, + 100 for x >= 5, on x in [-8, 8] */
static void run_signs(kc_kernel *k, int64_t n, unsigned block) {
  int32_t *v = h_alloc((size_t)n, 4), *out = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  for (int64_t i = 0; i < n; i++) {
    v[i] = (int32_t)((i * 5) % 17) - 8;
    want[i] = (v[i] != 0) + 10 * (v[i] > 2) + 100 * (v[i] >= 5);
  }
  h_poison_i32(out, n);
  kc_array *dv = h_array1(KC_INT32, n, v), *dout = h_array1(KC_INT32, n, out);
  kc_arg args[2] = {kc_arg_array(dv), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, 2);
  h_fetch(dout, out);
  char what[80];
  snprintf(what, sizeof what, "signs n=%lld block=%u", (long long)n, block);
  h_check_i32(what, want, out, n);
  kc_array_free(dv), kc_array_free(dout);
  free(v), free(out), free(want);
}

int main(int argc, char **argv) {
  h_begin("stencil", argc, argv);
  static const int64_t sizes[] = {1, 2, 3, 4, 5, 31, 100, 256, 257, 1000, 4097};
  static const unsigned blocks[] = {32, 64, 256, 1024};
  for (int which = 0; which < N_1D; which++) {
    kc_kernel *k = h_kernel(names_1d[which]);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
      for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
        run_1d(k, which, sizes[s], blocks[b]);
  }
  static const int64_t shapes[][2] = {{1, 1}, {2, 3}, {3, 3}, {5, 17},
                                      {33, 65}, {64, 100}, {130, 67}};
  static const unsigned block2[][2] = {{16, 16}, {64, 4}, {256, 1}, {8, 32}, {1, 64}};
  for (int which = 0; which < N_2D; which++) {
    kc_kernel *k = h_kernel(names_2d[which]);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
      for (size_t b = 0; b < sizeof block2 / sizeof block2[0]; b++)
        run_2d(k, which, shapes[s][0], shapes[s][1], block2[b][0], block2[b][1]);
  }
  kc_kernel *ks = h_kernel("signs");
  for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) run_signs(ks, sizes[s], 64);
  return h_end();
}

/* cpu_ref.h — the plain-C reference loops of bench/cpu_ref.c. */
#ifndef KC_BENCH_CPU_REF_H
#define KC_BENCH_CPU_REF_H
#include <stdint.h>

/* Single-threaded, over [lo, hi) (rows for the 2-D ones). */
void ref_vector_add(const float *a, const float *b, float *out, int64_t lo, int64_t hi);
/* out = a + s: a ufunc's scalar argument (kc_vectorize_args) */
void ref_add_scalar(const float *a, float s, float *out, int64_t lo, int64_t hi);
void ref_gaussian_pdf(const float *x, float mean, float sigma, float *out, int64_t lo,
                      int64_t hi);
void ref_transpose(const float *a, float *out, int64_t nx, int64_t ny, int64_t lo,
                   int64_t hi);
void ref_transpose_blocked(const float *a, float *out, int64_t nx, int64_t ny, int64_t lo,
                           int64_t hi);
/* Interior points only (guards at both ends); the 2-D one over rows [lo, hi). */
void ref_stencil_1d(const float *a, float *out, int64_t n, int64_t lo, int64_t hi);
void ref_laplace_2d(const float *a, float *out, int64_t ny, int64_t nx, int64_t lo,
                    int64_t hi);
float ref_sum(const float *a, int64_t lo, int64_t hi);
/* out[k] = the sum of a[256k .. 256k + 255], for blocks k in [lo, hi) */
void ref_block_sums(const float *a, float *out, int64_t lo, int64_t hi);
void ref_matmul(const float *a, const float *b, float *c, int64_t k, int64_t m, int64_t lo,
                int64_t hi);
/* win = {min_x, max_x, min_y, max_y} */
void ref_mandelbrot(int32_t *image, int64_t height, int64_t width, const double *win,
                    int32_t max_iter, int64_t lo, int64_t hi);

/* One loop with its operands, for ref_run. */
typedef enum ref_kind {
  REF_ADD, REF_ADD_SCALAR, REF_GAUSS, REF_TRANSPOSE, REF_TRANSPOSE_BLOCKED, REF_STENCIL, REF_LAPLACE,
  REF_SUM, REF_BLOCK_SUM, REF_MATMUL, REF_MANDELBROT
} ref_kind;

typedef struct ref_job {
  ref_kind kind;
  const float *a, *b;  /* inputs (a: x of the pdf) */
  float *out;
  int32_t *iout;       /* mandelbrot's image */
  float mean, sigma;   /* REF_ADD_SCALAR adds mean */
  int64_t nx, ny;      /* extents: see each loop (matmul: nx = k, ny = m) */
  const double *win;   /* mandelbrot's window */
  int32_t max_iter;
  float sum;           /* out: REF_SUM's result */
} ref_job;

/* Run j over [0, n) (elements or rows) on 1 thread, or on 2 (two halves, the split a
 * multiple of align). */
void ref_run(ref_job *j, int64_t n, int threads, int64_t align);
#endif

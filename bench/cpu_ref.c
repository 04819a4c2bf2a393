/*
 * cpu_ref.c — the plain-C reference loops for bench/cpu_bench.c. Built on its own with
 * gcc -O3 -march=native -fopenmp-simd (see bench/run.sh), so it is what a C programmer
 * gets from the same loop; single-threaded over a range, plus a 2-thread pthreads split
 * (two halves) for the 2-core column. Each loop is the kernel's algorithm written as C:
 * the tiled transpose walks 32x32 blocks as the kernel's tiles do, the tiled matmul is
 * the i-k-j loop nest (what gcc vectorises), the sum allows reassociation (`omp simd
 * reduction`, as kc_reduce and Numba's reductions combine in any order).
 */
#include <pthread.h>
#include <stdint.h>
#include <math.h>

#include "cpu_ref.h"

#define SQRT_2PI_F 2.5066282746310002f
#define TBLOCK 32 /* the tiled transpose's tile */

void ref_vector_add(const float *restrict a, const float *restrict b, float *restrict out,
                    int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; i++) out[i] = a[i] + b[i];
}

void ref_add_scalar(const float *restrict a, float s, float *restrict out, int64_t lo,
                    int64_t hi) {
  for (int64_t i = lo; i < hi; i++) out[i] = a[i] + s;
}

void ref_gaussian_pdf(const float *restrict x, float mean, float sigma,
                      float *restrict out, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; i++) {
    float z = (x[i] - mean) / sigma;
    out[i] = expf(-0.5f * z * z) / (sigma * SQRT_2PI_F);
  }
}

/* out[j][i] = a[i][j] for rows i in [lo, hi); a is nx x ny, out is ny x nx. */
void ref_transpose(const float *restrict a, float *restrict out, int64_t nx, int64_t ny,
                   int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; i++)
    for (int64_t j = 0; j < ny; j++) out[j * nx + i] = a[i * ny + j];
}

/* The same by 32x32 blocks, for rows [lo, hi) (lo a multiple of 32). */
void ref_transpose_blocked(const float *restrict a, float *restrict out, int64_t nx,
                           int64_t ny, int64_t lo, int64_t hi) {
  for (int64_t i0 = lo; i0 < hi; i0 += TBLOCK)
    for (int64_t j0 = 0; j0 < ny; j0 += TBLOCK) {
      int64_t ie = i0 + TBLOCK < hi ? i0 + TBLOCK : hi;
      int64_t je = j0 + TBLOCK < ny ? j0 + TBLOCK : ny;
      for (int64_t j = j0; j < je; j++)
        for (int64_t i = i0; i < ie; i++) out[j * nx + i] = a[i * ny + j];
    }
}

/* out[i] for i in [lo, hi) within the interior [1, n - 1); the two end points are left
 * alone, as the kernel's guard leaves them. Each weight is a power of two, so products
 * are exact and a fused multiply-add rounds as the separate operations do. */
void ref_stencil_1d(const float *restrict a, float *restrict out, int64_t n, int64_t lo,
                    int64_t hi) {
  if (lo < 1) lo = 1;
  if (hi > n - 1) hi = n - 1;
  for (int64_t i = lo; i < hi; i++)
    out[i] = 0.25f * a[i - 1] + 0.5f * a[i] + 0.25f * a[i + 1];
}

/* The 5-point Laplacian of an ny x nx array on the interior rows y in [lo, hi) and
 * columns [1, nx - 1); the border is left alone. */
void ref_laplace_2d(const float *restrict a, float *restrict out, int64_t ny, int64_t nx,
                    int64_t lo, int64_t hi) {
  if (lo < 1) lo = 1;
  if (hi > ny - 1) hi = ny - 1;
  for (int64_t y = lo; y < hi; y++)
    for (int64_t x = 1; x < nx - 1; x++) {
      const float *p = a + y * nx + x;
      out[y * nx + x] = (p[-nx] + p[nx] + p[-1] + p[1]) - 4.0f * p[0];
    }
}

float ref_sum(const float *restrict a, int64_t lo, int64_t hi) {
  float s = 0;
#pragma omp simd reduction(+ : s)
  for (int64_t i = lo; i < hi; i++) s += a[i];
  return s;
}

void ref_block_sums(const float *restrict a, float *restrict out, int64_t lo, int64_t hi) {
  for (int64_t k = lo; k < hi; k++) out[k] = ref_sum(a, k * 256, k * 256 + 256);
}

/* Rows [lo, hi) of c = a @ b (a n x k, b k x m, c n x m), k ascending for each element
 * as in the tiled kernel. */
void ref_matmul(const float *restrict a, const float *restrict b, float *restrict c,
                int64_t k, int64_t m, int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; i++) {
    float *ci = c + i * m;
    for (int64_t j = 0; j < m; j++) ci[j] = 0;
    for (int64_t p = 0; p < k; p++) {
      float aip = a[i * k + p];
      const float *bp = b + p * m;
      for (int64_t j = 0; j < m; j++) ci[j] += aip * bp[j];
    }
  }
}

/* Rows [lo, hi) of the escape counts (the kernel's arithmetic, operation by operation:
 * no fused multiply-add, which Python's semantics do not have either). */
__attribute__((optimize("fp-contract=off"))) void
ref_mandelbrot(int32_t *restrict image, int64_t height, int64_t width, const double *win,
               int32_t max_iter, int64_t lo, int64_t hi) {
  double dx = (win[1] - win[0]) / (double)width, dy = (win[3] - win[2]) / (double)height;
  for (int64_t y = lo; y < hi; y++)
    for (int64_t x = 0; x < width; x++) {
      double cx = win[0] + (double)x * dx, cy = win[2] + (double)y * dy;
      double zr = 0, zi = 0;
      int32_t n = 0;
      while (n < max_iter && zr * zr + zi * zi <= 4.0) {
        double t = zr * zr - zi * zi + cx;
        zi = 2.0 * zr * zi + cy;
        zr = t;
        n++;
      }
      image[y * width + x] = n;
    }
}

/* ---- 2-thread split: the second half runs on a pthread ---------------------------- */
static void run_job(ref_job *j, int64_t lo, int64_t hi) {
  switch (j->kind) {
  case REF_ADD: ref_vector_add(j->a, j->b, j->out, lo, hi); break;
  case REF_ADD_SCALAR: ref_add_scalar(j->a, j->mean, j->out, lo, hi); break;
  case REF_GAUSS: ref_gaussian_pdf(j->a, j->mean, j->sigma, j->out, lo, hi); break;
  case REF_TRANSPOSE: ref_transpose(j->a, j->out, j->nx, j->ny, lo, hi); break;
  case REF_TRANSPOSE_BLOCKED: ref_transpose_blocked(j->a, j->out, j->nx, j->ny, lo, hi); break;
  case REF_STENCIL: ref_stencil_1d(j->a, j->out, j->nx, lo, hi); break;
  case REF_LAPLACE: ref_laplace_2d(j->a, j->out, j->ny, j->nx, lo, hi); break;
  case REF_SUM: j->sum = ref_sum(j->a, lo, hi); break;
  case REF_BLOCK_SUM: ref_block_sums(j->a, j->out, lo, hi); break;
  case REF_MATMUL: ref_matmul(j->a, j->b, j->out, j->nx, j->ny, lo, hi); break;
  default: ref_mandelbrot(j->iout, j->ny, j->nx, j->win, j->max_iter, lo, hi); break;
  }
}

typedef struct half {
  ref_job job;
  int64_t lo, hi;
} half;

static void *thread_main(void *p) {
  half *h = p;
  run_job(&h->job, h->lo, h->hi);
  return NULL;
}

/* Run j over [0, n) in two halves (the split rounded to `align`), the second on a new
 * thread; a sum adds the halves' partial sums. */
void ref_run(ref_job *j, int64_t n, int threads, int64_t align) {
  if (threads < 2) {
    run_job(j, 0, n);
    return;
  }
  int64_t mid = n / 2 / align * align;
  half h0 = {*j, 0, mid}, h1 = {*j, mid, n};
  pthread_t t;
  if (pthread_create(&t, NULL, thread_main, &h1) != 0) {
    thread_main(&h1);
    thread_main(&h0);
  } else {
    thread_main(&h0);
    pthread_join(t, NULL);
  }
  j->sum = h0.job.sum + h1.job.sum;
}

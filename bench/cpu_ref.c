/*
 * cpu_ref.c — the plain-C reference loops for bench/cpu_bench.c. Built on its own with
 * gcc -O3 -march=native (see bench/run.sh), so it is what a C programmer gets from the
 * same loop; single-threaded, plus a 2-thread pthreads split for the 2-core column.
 */
#include <math.h>
#include <pthread.h>
#include <stdint.h>

#include "cpu_ref.h"

#define SQRT_2PI_F 2.5066282746310002f

void ref_vector_add(const float *restrict a, const float *restrict b, float *restrict out,
                    int64_t lo, int64_t hi) {
  for (int64_t i = lo; i < hi; i++) out[i] = a[i] + b[i];
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

/* ---- 2-thread split: the second half runs on a pthread ---------------------------- */
typedef struct job {
  int kind;
  const float *a, *b;
  float *out;
  float mean, sigma;
  int64_t nx, ny, lo, hi;
} job;

static void run_job(const job *j) {
  switch (j->kind) {
  case 0: ref_vector_add(j->a, j->b, j->out, j->lo, j->hi); break;
  case 1: ref_gaussian_pdf(j->a, j->mean, j->sigma, j->out, j->lo, j->hi); break;
  case 2: ref_transpose(j->a, j->out, j->nx, j->ny, j->lo, j->hi); break;
  case 3: ref_stencil_1d(j->a, j->out, j->nx, j->lo, j->hi); break;
  default: ref_laplace_2d(j->a, j->out, j->ny, j->nx, j->lo, j->hi); break;
  }
}

static void *thread_main(void *p) {
  run_job(p);
  return NULL;
}

static void run_split2(job j, int64_t n) {
  job j0 = j, j1 = j;
  j0.lo = 0, j0.hi = n / 2;
  j1.lo = n / 2, j1.hi = n;
  pthread_t t;
  if (pthread_create(&t, NULL, thread_main, &j1) != 0) {
    run_job(&j1);
    run_job(&j0);
    return;
  }
  run_job(&j0);
  pthread_join(t, NULL);
}

void ref2_vector_add(const float *a, const float *b, float *out, int64_t n) {
  job j = {0, a, b, out, 0, 0, 0, 0, 0, 0};
  run_split2(j, n);
}

void ref2_gaussian_pdf(const float *x, float mean, float sigma, float *out, int64_t n) {
  job j = {1, x, 0, out, mean, sigma, 0, 0, 0, 0};
  run_split2(j, n);
}

void ref2_transpose(const float *a, float *out, int64_t nx, int64_t ny) {
  job j = {2, a, 0, out, 0, 0, nx, ny, 0, 0};
  run_split2(j, nx);
}

void ref2_stencil_1d(const float *a, float *out, int64_t n) {
  job j = {3, a, 0, out, 0, 0, n, 0, 0, 0};
  run_split2(j, n);
}

void ref2_laplace_2d(const float *a, float *out, int64_t ny, int64_t nx) {
  job j = {4, a, 0, out, 0, 0, nx, ny, 0, 0};
  run_split2(j, ny);
}

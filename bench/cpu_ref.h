/* cpu_ref.h — the plain-C reference loops of bench/cpu_ref.c. */
#ifndef KC_BENCH_CPU_REF_H
#define KC_BENCH_CPU_REF_H
#include <stdint.h>

/* Single-threaded, over [lo, hi) (rows for the transpose). */
void ref_vector_add(const float *a, const float *b, float *out, int64_t lo, int64_t hi);
void ref_gaussian_pdf(const float *x, float mean, float sigma, float *out, int64_t lo,
                      int64_t hi);
void ref_transpose(const float *a, float *out, int64_t nx, int64_t ny, int64_t lo,
                   int64_t hi);
/* Interior points only (guards at both ends); the 2-D one over rows [lo, hi). */
void ref_stencil_1d(const float *a, float *out, int64_t n, int64_t lo, int64_t hi);
void ref_laplace_2d(const float *a, float *out, int64_t ny, int64_t nx, int64_t lo,
                    int64_t hi);
/* The same split in two halves over two threads. */
void ref2_vector_add(const float *a, const float *b, float *out, int64_t n);
void ref2_gaussian_pdf(const float *x, float mean, float sigma, float *out, int64_t n);
void ref2_transpose(const float *a, float *out, int64_t nx, int64_t ny);
void ref2_stencil_1d(const float *a, float *out, int64_t n);
void ref2_laplace_2d(const float *a, float *out, int64_t ny, int64_t nx);
#endif

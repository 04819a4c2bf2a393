/*
 * bench_stats.h — the clocks and the median the small benchmarks share
 * (histogram_bench.c, launch_bench.c): header-only, so each builds from one .c file.
 */
#ifndef KCC_BENCH_STATS_H
#define KCC_BENCH_STATS_H

#include <stdlib.h>
#include <time.h>

/* This thread's CPU time, milliseconds: a figure other processes' load hardly moves. */
static inline double thread_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Wall time, microseconds (CLOCK_MONOTONIC). */
static inline double now_us(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static inline int bench_by_value(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The median of t[0..n) (t is sorted in place). */
static inline double median(double *t, int n) {
  qsort(t, (size_t)n, sizeof *t, bench_by_value);
  return t[n / 2];
}

#endif

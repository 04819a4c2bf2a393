/*
 * histogram_bench.c — samples/histogram.k's two kernels on the CPU back end against a C
 * loop, thread CPU time of one worker (kc_config.cpu_threads = 1), median of REPS, and
 * the wall time of the launch on one worker and on two (cpu_threads = 2):
 *   histogram_shared  per-block shared-memory bins with cuda.atomic.add, then a flush
 *   histogram_global  one cuda.atomic.add per byte on the global bins
 *   C                 bins[data[i]]++ over the same 2^24 bytes (gcc -O2)
 * Each kernel's bins are checked against the C loop's. bench/histogram.sh runs it.
 *   usage: histogram_bench path/to/histogram.k [REPS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_stats.h"
#include "kc.h"

enum { BINS = 256, GRID = 1024, BLOCK = 256 };
#define N ((int64_t)1 << 24)

static double c_loop(const uint8_t *d, int32_t *bins, int reps) {
  double t[64];
  for (int r = 0; r < reps; r++) {
    double t0 = thread_ms();
    memset(bins, 0, BINS * sizeof *bins);
    for (int64_t i = 0; i < N; i++) bins[d[i]]++;
    t[r] = thread_ms() - t0;
  }
  return median(t, reps);
}

/* The median thread CPU time of the kernel's launches, ms (wall time in *wall_ms); -1
 * when it fails, -2 when its bins are wrong. */
static double kernel(kc_context *ctx, kc_module *m, const char *name, kc_array *dd,
                     const int32_t *want, int reps, double *wall_ms) {
  kc_kernel *k;
  kc_array *db;
  const int64_t nb = BINS;
  if (kc_module_get_kernel(m, name, &k) || kc_array_new(ctx, KC_INT32, 1, &nb, &db)) return -1;
  kc_arg args[2] = {kc_arg_array(dd), kc_arg_array(db)};
  double t[64], w[64];
  int32_t got[BINS];
  int wrong = 0;
  for (int r = 0; r <= reps; r++) {   /* the first run compiles: not timed */
    int32_t zero[BINS] = {0};
    kc_array_copy_from_host(db, zero, sizeof zero);
    double t0 = thread_ms(), w0 = now_us();
    if (kc_launch(k, kc_dim(GRID), kc_dim(BLOCK), 0, NULL, args, 2) || kc_synchronize(ctx))
      return -1;
    if (r) t[r - 1] = thread_ms() - t0, w[r - 1] = (now_us() - w0) / 1e3;
    kc_array_to_host(db, got, sizeof got);
    wrong |= memcmp(got, want, sizeof got) != 0;
  }
  kc_array_free(db);
  *wall_ms = median(w, reps);
  return wrong ? -2 : median(t, reps);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: histogram_bench histogram.k [REPS]\n"), 2;
  int reps = argc > 2 ? atoi(argv[2]) : 9;
  if (reps < 1 || reps > 63) reps = 9;
  uint8_t *d = malloc(N);
  int32_t want[BINS];
  if (!d) return 1;
  for (int64_t i = 0; i < N; i++) d[i] = (uint8_t)(((uint64_t)i * 2654435761u) >> 13);
  double c = c_loop(d, want, reps);
  printf("# 2^24 bytes, %d reps, medians: thread CPU time of 1 worker (and its ratio to the "
         "C loop's), wall time on 1 and 2 workers\n", reps);
  printf("C loop            %8.2f ms\n", c);
  static const char *const names[] = {"histogram_shared", "histogram_global"};
  double cpu[2][2], wall[2][2];   /* [workers - 1][kernel] */
  for (int threads = 1; threads <= 2; threads++) {
    kc_config cfg;
    kc_config_init(&cfg);
    cfg.device = KC_DEVICE_CPU;
    cfg.cpu_threads = threads;
    kc_context *ctx;
    kc_module *m;
    kc_array *dd;
    const int64_t n = N;
    if (kc_context_new(&cfg, &ctx) || kc_compile_file(ctx, argv[1], NULL, &m) ||
        kc_array_from_host(ctx, KC_UINT8, 1, &n, d, (size_t)N, &dd)) {
      fprintf(stderr, "histogram_bench: %s\n%s", kc_last_error(ctx), kc_last_diagnostics(ctx));
      return 1;
    }
    for (int i = 0; i < 2; i++) {
      double t = kernel(ctx, m, names[i], dd, want, reps, &wall[threads - 1][i]);
      if (t < 0)
        return fprintf(stderr, "%s: %s\n", names[i],
                       t == -2 ? "wrong bins" : kc_last_error(ctx)), 1;
      cpu[threads - 1][i] = t;
    }
    kc_array_free(dd);
    kc_module_free(m);
    kc_context_free(ctx);
  }
  for (int i = 0; i < 2; i++)
    printf("%-17s %8.2f ms  %.2fx C   wall: 1 worker %8.2f ms, 2 workers %8.2f ms\n", names[i],
           cpu[0][i], cpu[0][i] / c, wall[0][i], wall[1][i]);
  free(d);
  return 0;
}

/*
 * launch_bench.c — what a launch onto the CPU back end's workers costs (issue 31): an
 * empty kernel on a 1024 x 256 grid, launched back to back with kc_config.cpu_threads
 * = 1 and = 2, the wall time per launch (median of REPS batches of LAUNCHES); on 2
 * workers with the pool's default spin and with KC_CPU_SPIN_US=0 (workers sleep at
 * once, as before the spin); beside them the same hand-off done by hand in C, to the
 * same number of threads: an OpenMP parallel region (libgomp, gcc -fopenmp). All
 * measured in the same run, batches interleaved.
 * bench/launch.sh runs it.
 *   usage: launch_bench [REPS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <omp.h>

#include "bench_stats.h"
#include "kc.h"

enum { LAUNCHES = 2000, MAX_REPS = 64 };

static const char src[] =
  "from numba import cuda, int32, void\n"
  "@cuda.jit(void(int32[:]))\n"
  "def empty(a):\n"
  "    pass\n";

typedef struct runner {
  kc_context *ctx;
  kc_module *m;
  kc_kernel *k;
  kc_array *a;
} runner;

/* A context of `threads` CPU workers (spin: KC_CPU_SPIN_US, NULL for the default)
 * with the empty kernel compiled. */
static void runner_new(runner *r, int threads, const char *spin) {
  if (spin) setenv("KC_CPU_SPIN_US", spin, 1);
  else unsetenv("KC_CPU_SPIN_US");
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = threads;
  const int64_t n = 1;
  if (kc_context_new(&cfg, &r->ctx) ||
      kc_compile_source(r->ctx, "empty.k", src, sizeof src - 1, NULL, &r->m) ||
      kc_module_get_kernel(r->m, "empty", &r->k) || kc_array_new(r->ctx, KC_INT32, 1, &n, &r->a)) {
    fprintf(stderr, "launch_bench: setup failed\n");
    exit(1);
  }
  /* the pool, which reads KC_CPU_SPIN_US, is made at the first launch: make it now,
     while the variable holds this runner's setting */
  kc_arg args[] = {kc_arg_array(r->a)};
  if (kc_launch(r->k, kc_dim(1024), kc_dim(256), 0, NULL, args, 1) != KC_OK) exit(1);
}

/* One batch: the wall time per launch, microseconds. */
static double batch(runner *r) {
  kc_arg args[] = {kc_arg_array(r->a)};
  double t0 = now_us();
  for (int i = 0; i < LAUNCHES; i++)
    if (kc_launch(r->k, kc_dim(1024), kc_dim(256), 0, NULL, args, 1) != KC_OK) exit(1);
  return (now_us() - t0) / LAUNCHES;
}

static void runner_free(runner *r) {
  kc_array_free(r->a);
  kc_module_free(r->m);
  kc_context_free(r->ctx);
}

static volatile int sink;

static double omp_batch(int threads) {
  double t0 = now_us();
  for (int i = 0; i < LAUNCHES; i++) {
#pragma omp parallel num_threads(threads)
    sink = omp_get_thread_num();
  }
  return (now_us() - t0) / LAUNCHES;
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 11;
  if (reps < 1) reps = 1;
  if (reps > MAX_REPS) reps = MAX_REPS;
  enum { ROWS = 5 };
  static const char *const names[ROWS] = {
      "kc_launch, 1 worker", "kc_launch, 2 workers (spin: default)",
      "kc_launch, 2 workers (KC_CPU_SPIN_US=0)", "OpenMP parallel region, 1 thread",
      "OpenMP parallel region, 2 threads"};
  runner rs[3];
  runner_new(&rs[0], 1, NULL);
  runner_new(&rs[1], 2, NULL);
  runner_new(&rs[2], 2, "0");
  static double t[ROWS][MAX_REPS];
  for (int r = 0; r <= reps; r++)   /* interleaved; the first round warms up */
    for (int row = 0; row < ROWS; row++) {
      double v = row < 3 ? batch(&rs[row]) : omp_batch(row - 2);
      if (r > 0) t[row][r - 1] = v;
    }
  printf("# per launch, median of %d batches of %d (wall time, microseconds)\n", reps, LAUNCHES);
  printf("%-44s %10s\n", "what", "us");
  for (int row = 0; row < ROWS; row++) printf("%-44s %10.2f\n", names[row], median(t[row], reps));
  for (int i = 0; i < 3; i++) runner_free(&rs[i]);
  return 0;
}

/*
 * python_launch_c.c — the C side of bench/python_launch.sh: the kernel vector_add of
 * bench/python_launch.py (the same file, compiled with kc_compile_file) launched back
 * to back through kc_launch with three device arrays, as the Python benchmark does;
 * prints the wall time per launch in microseconds (median of REPS batches), and the
 * first call's (the file compiled, the kernel launched) in milliseconds.
 *   usage: python_launch_c FILE [REPS]
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>

#include "bench_stats.h"
#include "kc.h"

enum { LAUNCHES = 5000, MAX_REPS = 64 };

static void check(kc_status s, kc_context *ctx, const char *what) {
  if (s == KC_OK) return;
  fprintf(stderr, "%s: %s\n", what, kc_last_error(ctx));
  exit(1);
}

int main(int argc, char **argv) {
  if (argc < 2) return fprintf(stderr, "usage: python_launch_c FILE [REPS]\n"), 2;
  int reps = argc > 2 ? atoi(argv[2]) : 11;
  if (reps < 1 || reps > MAX_REPS) reps = 11;
  kc_context *ctx = NULL;
  check(kc_context_new(NULL, &ctx), ctx, "context");
  double first0 = now_us();   /* the first call: the file compiled, the kernel launched */
  kc_module *m = NULL;
  check(kc_compile_file(ctx, argv[1], NULL, &m), ctx, "compile");
  kc_kernel *k = NULL;
  check(kc_module_get_kernel(m, "vector_add", &k), ctx, "kernel");
  float host[64];
  for (int i = 0; i < 64; i++) host[i] = (float)i;
  int64_t n = 64;
  kc_array *a = NULL, *out = NULL;
  check(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, host, sizeof host, &a), ctx, "array");
  check(kc_array_new(ctx, KC_FLOAT32, 1, &n, &out), ctx, "array");
  kc_arg args[3] = {kc_arg_array(a), kc_arg_array(a), kc_arg_array(out)};
  kc_dim3 grid = {1, 1, 1}, block = {64, 1, 1};
  check(kc_launch(k, grid, block, 0, NULL, args, 3), ctx, "launch");
  check(kc_synchronize(ctx), ctx, "synchronize");
  double first = (now_us() - first0) / 1e3;
  for (int i = 0; i < 200; i++)
    check(kc_launch(k, grid, block, 0, NULL, args, 3), ctx, "launch");
  check(kc_synchronize(ctx), ctx, "synchronize");
  double times[MAX_REPS];
  for (int r = 0; r < reps; r++) {
    double t0 = now_us();
    for (int i = 0; i < LAUNCHES; i++) kc_launch(k, grid, block, 0, NULL, args, 3);
    check(kc_synchronize(ctx), ctx, "synchronize");
    times[r] = (now_us() - t0) / LAUNCHES;
  }
  printf("c %.3f\n", median(times, reps));
  printf("c_first %.3f\n", first);
  kc_array_free(a);
  kc_array_free(out);
  kc_module_free(m);
  kc_context_free(ctx);
  return 0;
}

/*
 * jit_time.c — how long the CPU back end takes to compile one .k file, source to
 * machine code (kc_compile_source on a CPU context): thread CPU time in milliseconds,
 * the median and minimum of REPS compiles in this process after one warm-up. Not a
 * test; a measuring tool for the JIT's compile time (issue 16, docs/performance.md),
 * with scripts/gen_big_kernel.py making kernels of a given size:
 *
 *   jit_time FILE.k [REPS] [cold|cached]
 *
 * cold (the default) compiles with the on-disk cache off; cached stores the kernel in
 * the cache first (under $XDG_CACHE_HOME) and times compiles that find it there.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kc.h"

static double thread_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static char *read_file(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  char *buf = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (buf) *len = fread(buf, 1, (size_t)n, f);
  fclose(f);
  return buf;
}

/* One compile's thread CPU time, or a negative number when it failed. */
static double time_one(kc_context *ctx, const char *path, const char *src, size_t len) {
  kc_module *m = NULL;
  double t0 = thread_ms();
  kc_status s = kc_compile_source(ctx, path, src, len, NULL, &m);
  double t = thread_ms() - t0;
  if (s != KC_OK) fprintf(stderr, "jit_time: %s: %s\n", path, kc_last_error(ctx));
  kc_module_free(m);
  return s == KC_OK ? t : -1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: jit_time FILE.k [REPS] [cold|cached]\n");
    return 2;
  }
  int reps = argc > 2 ? atoi(argv[2]) : 5;
  if (reps < 1) reps = 1;
  int cached = argc > 3 && strcmp(argv[3], "cached") == 0;
  size_t len = 0;
  char *src = read_file(argv[1], &len);
  if (!src) {
    fprintf(stderr, "jit_time: cannot read %s\n", argv[1]);
    return 1;
  }
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cache = cached ? 1 : -1;
  kc_context *ctx = NULL;
  if (kc_context_new(&cfg, &ctx) != KC_OK) {
    fprintf(stderr, "jit_time: %s\n", ctx ? kc_last_error(ctx) : "no context");
    return 1;
  }
  double *t = calloc((size_t)reps, sizeof *t);
  int ok = t && time_one(ctx, argv[1], src, len) >= 0;  /* warm-up (and the cache store) */
  for (int i = 0; ok && i < reps; i++) ok = (t[i] = time_one(ctx, argv[1], src, len)) >= 0;
  if (ok) {
    qsort(t, (size_t)reps, sizeof *t, cmp_double);
    printf("%s: %s, median %.2f ms, min %.2f ms (thread CPU, %d runs)\n", argv[1],
           cached ? "cache hit" : "compile", t[reps / 2], t[0], reps);
  }
  free(t);
  free(src);
  kc_context_free(ctx);
  return ok ? 0 : 1;
}

/*
 * compile_bench.c — source -> PTX compile latency in process (the JIT path), per file:
 * the first compile in this process, then the median of N more. Usage:
 *   compile_bench [-n N] FILE.k...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "compile.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
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
  char *s = malloc((size_t)n + 1);
  if (s && fread(s, 1, (size_t)n, f) != (size_t)n) { free(s); s = NULL; }
  fclose(f);
  if (s) { s[n] = 0; *len = (size_t)n; }
  return s;
}

static double compile_once(const char *name, const char *src, size_t len) {
  kcc_options o;
  kcc_options_init(&o);
  kcc_output out;
  double t0 = now_ms();
  kc_status st = kcc_compile(&o, name, src, len, &out);
  double t = now_ms() - t0;
  if (st != KC_OK) { fprintf(stderr, "%s: compile failed\n", name); exit(1); }
  kcc_output_free(&out);
  return t;
}

int main(int argc, char **argv) {
  int n = 21, first = 1;
  if (argc > 2 && strcmp(argv[1], "-n") == 0) { n = atoi(argv[2]); first = 3; }
  double logsum = 0;
  int files = 0;
  printf("%-28s %10s %10s\n", "file", "first ms", "median ms");
  for (int i = first; i < argc; i++) {
    size_t len;
    char *src = read_file(argv[i], &len);
    if (!src) { fprintf(stderr, "cannot read %s\n", argv[i]); return 1; }
    double t1 = compile_once(argv[i], src, len);
    double *ts = malloc(sizeof *ts * (size_t)n);
    for (int k = 0; k < n; k++) ts[k] = compile_once(argv[i], src, len);
    qsort(ts, (size_t)n, sizeof *ts, cmp_double);
    const char *base = strrchr(argv[i], '/');
    printf("%-28s %10.2f %10.2f\n", base ? base + 1 : argv[i], t1, ts[n / 2]);
    logsum += __builtin_log(ts[n / 2]);
    files++;
    free(ts);
    free(src);
  }
  if (files) printf("%-28s %10s %10.2f\n", "geometric mean", "", __builtin_exp(logsum / files));
  return 0;
}

/*
 * watchdog_bench.c — what the watchdog (kc_config.timeout_ms) costs on the CPU back end,
 * and how soon it stops a runaway kernel.
 *
 *   1. The loop checks: kernels whose hot loop carries the watchdog's check (a while
 *      loop: mandelbrot's escape loop, Collatz chains; for loops holding a loop: a box
 *      sum over a run-time radius, samples/mandelbrot.k's grid-stride loops), each
 *      compiled twice in one process, with the checks and with KC_LOOP_CHECKS=0 (set
 *      before the second compile), then run alternately on one thread; thread CPU time,
 *      median of REPS. Both results are compared element for element (they must be
 *      identical: the check never fires here).
 *   2. The launch: 20 000 launches of a one-block kernel on a context with
 *      timeout_ms = 60 000 and on one without, alternately in rounds of 1 000; the
 *      median round, per launch.
 *   3. The stop: a `while True` kernel launched with timeout_ms = 100 on one and two
 *      threads; the time kc_launch takes past the 100 ms, median of REPS.
 *
 *   usage: watchdog_bench [reps]     (bench/watchdog.sh builds and runs it)
 * Prints one tab-separated line per measurement: name, with checks / with timeout,
 * without, ratio (or the stop latency in ms).
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kc.h"

static const char source[] =
  "from numba import cuda, int32, int64, float64\n"
  "@cuda.jit('void(int32[:, :], int32)')\n"
  "def mandelbrot(image, max_iter):\n"
  "    x, y = cuda.grid(2)\n"
  "    height, width = image.shape\n"
  "    if y < height and x < width:\n"
  "        cx = -2.0 + x * (3.0 / width)\n"
  "        cy = -1.5 + y * (3.0 / height)\n"
  "        zr = 0.0\n"
  "        zi = 0.0\n"
  "        n = 0\n"
  "        while n < max_iter and zr * zr + zi * zi <= 4.0:\n"
  "            t = zr * zr - zi * zi + cx\n"
  "            zi = 2.0 * zr * zi + cy\n"
  "            zr = t\n"
  "            n += 1\n"
  "        image[y, x] = n\n"
  "@cuda.jit('void(int32[:, :], int32)')\n"
  "def collatz(steps, base):\n"
  "    x, y = cuda.grid(2)\n"
  "    height, width = steps.shape\n"
  "    if y < height and x < width:\n"
  "        v = int64(base + y * width + x)\n"
  "        n = 0\n"
  "        while v != 1:\n"
  "            v = v // 2 if v % 2 == 0 else 3 * v + 1\n"
  "            n += 1\n"
  "        steps[y, x] = n\n"
  "@cuda.jit('void(int32[:, :], int32)')\n"
  "def nested(out, r):\n"   /* a (2r+1)^2 box sum of a hash of the position: two loops */
  "    x, y = cuda.grid(2)\n"
  "    height, width = out.shape\n"
  "    if y < height and x < width:\n"
  "        acc = 0\n"
  "        for dy in range(-r, r + 1):\n"
  "            for dx in range(-r, r + 1):\n"
  "                acc += ((y + dy) * 7919 + (x + dx) * 104729) & 1023\n"
  "        out[y, x] = acc\n"
  "@cuda.jit(device=True)\n"
  "def escape_time(c, max_iter):\n"
  "    z = 0j\n"
  "    for n in range(max_iter):\n"
  "        z = z * z + c\n"
  "        if z.real * z.real + z.imag * z.imag > 4.0:\n"
  "            return n\n"
  "    return max_iter\n"
  "@cuda.jit('void(int32[:, :], int32)')\n"   /* samples/mandelbrot.k: grid-stride loops */
  "def mandel_stride(image, max_iter):\n"
  "    height, width = image.shape\n"
  "    row0, col0 = cuda.grid(2)\n"
  "    row_step, col_step = cuda.gridsize(2)\n"
  "    for row in range(row0, height, row_step):\n"
  "        for col in range(col0, width, col_step):\n"
  "            c = complex(-2.0 + col * (3.0 / width), -1.5 + row * (3.0 / height))\n"
  "            image[row, col] = escape_time(c, max_iter)\n"
  "@cuda.jit('void(int32[:])')\n"
  "def tiny(a):\n"
  "    i = cuda.grid(1)\n"
  "    if i < a.size:\n"
  "        a[i] += 1\n"
  "@cuda.jit('void(int32[:])')\n"
  "def forever(a):\n"
  "    while True:\n"
  "        a[0] += 1\n";

#define W 1024
#define H 512

static double clock_ms(clockid_t c) {
  struct timespec t;
  clock_gettime(c, &t);
  return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void check(kc_status s, kc_context *ctx, const char *what) {
  if (s == KC_OK) return;
  fprintf(stderr, "watchdog_bench: %s: %s: %s\n", what, kc_status_name(s), kc_last_error(ctx));
  exit(1);
}

static kc_context *context(int threads, int timeout_ms) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = threads;
  cfg.cache = -1;
  cfg.timeout_ms = timeout_ms;
  kc_context *ctx = NULL;
  check(kc_context_new(&cfg, &ctx), ctx, "kc_context_new");
  return ctx;
}

static kc_module *compile(kc_context *ctx, int loop_checks) {
  if (loop_checks) unsetenv("KC_LOOP_CHECKS");
  else setenv("KC_LOOP_CHECKS", "0", 1);
  kc_module *m = NULL;
  check(kc_compile_source(ctx, "watchdog_bench.k", source, strlen(source), NULL, &m), ctx,
        "compile");
  unsetenv("KC_LOOP_CHECKS");
  return m;
}

static kc_kernel *kernel(kc_module *m, const char *name) {
  kc_kernel *k = NULL;
  if (kc_module_get_kernel(m, name, &k) != KC_OK) exit(1);
  return k;
}

/* 1. one kernel with and without its loop checks, thread CPU time per launch */
static void loop_checks(kc_context *ctx, kc_module *with, kc_module *without,
                        const char *name, int arg, int reps) {
  int64_t shape[2] = {H, W};
  kc_array *a, *b;
  check(kc_array_new(ctx, KC_INT32, 2, shape, &a), ctx, "array");
  check(kc_array_new(ctx, KC_INT32, 2, shape, &b), ctx, "array");
  kc_kernel *kw = kernel(with, name), *ko = kernel(without, name);
  double *tw = malloc(sizeof *tw * (size_t)reps), *to = malloc(sizeof *to * (size_t)reps);
  kc_dim3 grid = {W / 32, H / 8, 1}, block = {32, 8, 1};
  for (int r = -1; r < reps; r++) {   /* r = -1: the warm-up */
    kc_arg aw[2] = {kc_arg_array(a), kc_arg_i32(arg)}, ao[2] = {kc_arg_array(b), kc_arg_i32(arg)};
    double t0 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    check(kc_launch(kw, grid, block, 0, NULL, aw, 2), ctx, name);
    double t1 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    check(kc_launch(ko, grid, block, 0, NULL, ao, 2), ctx, name);
    double t2 = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    if (r >= 0) tw[r] = t1 - t0, to[r] = t2 - t1;
  }
  int32_t *ha = malloc(sizeof *ha * W * H), *hb = malloc(sizeof *hb * W * H);
  check(kc_array_to_host(a, ha, sizeof *ha * W * H), ctx, "to_host");
  check(kc_array_to_host(b, hb, sizeof *hb * W * H), ctx, "to_host");
  if (memcmp(ha, hb, sizeof *ha * W * H) != 0) {
    fprintf(stderr, "watchdog_bench: %s: results differ with and without checks\n", name);
    exit(1);
  }
  double mw = median(tw, reps), mo = median(to, reps);
  printf("loop_checks\t%s\t%.2f ms\t%.2f ms\t%.3f\n", name, mw, mo, mw / mo);
  free(ha), free(hb), free(tw), free(to);
  kc_array_free(a);
  kc_array_free(b);
}

/* 2. the cost of watching a launch: per-launch wall time, timeout set and not */
static void launch_cost(int reps) {
  kc_context *on = context(1, 60000), *off = context(1, 0);
  kc_module *mon = compile(on, 1), *moff = compile(off, 1);
  int64_t n = 256;
  kc_array *a, *b;
  check(kc_array_new(on, KC_INT32, 1, &n, &a), on, "array");
  check(kc_array_new(off, KC_INT32, 1, &n, &b), off, "array");
  kc_kernel *kon = kernel(mon, "tiny"), *koff = kernel(moff, "tiny");
  kc_arg aon[1] = {kc_arg_array(a)}, aoff[1] = {kc_arg_array(b)};
  int rounds = reps < 20 ? 20 : reps;
  double *ton = malloc(sizeof *ton * (size_t)rounds), *toff = malloc(sizeof *toff * (size_t)rounds);
  for (int r = -1; r < rounds; r++) {
    double t0 = clock_ms(CLOCK_MONOTONIC);
    for (int i = 0; i < 1000; i++) check(kc_launch(kon, kc_dim(1), kc_dim(256), 0, NULL, aon, 1), on, "tiny");
    double t1 = clock_ms(CLOCK_MONOTONIC);
    for (int i = 0; i < 1000; i++) check(kc_launch(koff, kc_dim(1), kc_dim(256), 0, NULL, aoff, 1), off, "tiny");
    double t2 = clock_ms(CLOCK_MONOTONIC);
    if (r >= 0) ton[r] = (t1 - t0) * 1e3 / 1000, toff[r] = (t2 - t1) * 1e3 / 1000;
  }
  double mon_us = median(ton, rounds), moff_us = median(toff, rounds);
  printf("launch\ttiny (1 block of 256)\t%.2f us\t%.2f us\t%.3f\n", mon_us, moff_us,
         mon_us / moff_us);
  free(ton), free(toff);
  kc_array_free(a), kc_array_free(b);
  kc_module_free(mon), kc_module_free(moff);
  kc_context_free(on), kc_context_free(off);
}

/* 3. how long past its limit a runaway launch takes to return */
static void stop_latency(int threads, int reps) {
  kc_context *ctx = context(threads, 100);
  kc_module *m = compile(ctx, 1);
  int64_t n = 1;
  kc_array *a;
  check(kc_array_new(ctx, KC_INT32, 1, &n, &a), ctx, "array");
  kc_kernel *k = kernel(m, "forever");
  double *late = malloc(sizeof *late * (size_t)reps);
  for (int r = 0; r < reps; r++) {
    kc_arg args[1] = {kc_arg_array(a)};
    double t0 = clock_ms(CLOCK_MONOTONIC);
    kc_status s = kc_launch(k, kc_dim(64), kc_dim(64), 0, NULL, args, 1);
    late[r] = clock_ms(CLOCK_MONOTONIC) - t0 - 100;
    if (s != KC_ERR_TIMEOUT) {
      fprintf(stderr, "watchdog_bench: forever returned %s\n", kc_status_name(s));
      exit(1);
    }
    kc_synchronize(ctx);   /* the fault once more: cleared */
  }
  printf("stop\tforever (64 blocks of 64), %d thread%s\t%.2f ms past 100 ms\n", threads,
         threads == 1 ? "" : "s", median(late, reps));
  free(late);
  kc_array_free(a);
  kc_module_free(m);
  kc_context_free(ctx);
}

int main(int argc, char **argv) {
  int reps = argc > 1 ? atoi(argv[1]) : 11;
  if (reps < 1) reps = 1;
  kc_context *ctx = context(1, 0);
  kc_module *with = compile(ctx, 1), *without = compile(ctx, 0);
  loop_checks(ctx, with, without, "mandelbrot", 256, reps);
  loop_checks(ctx, with, without, "collatz", 1, reps);
  loop_checks(ctx, with, without, "nested", 3, reps);
  loop_checks(ctx, with, without, "mandel_stride", 256, reps);
  kc_module_free(with);
  kc_module_free(without);
  kc_context_free(ctx);
  launch_cost(reps);
  stop_latency(1, reps);
  stop_latency(2, reps);
  return 0;
}

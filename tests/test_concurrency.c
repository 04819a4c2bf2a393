/*
 * test_concurrency.c — two threads, each with its own context on the CPU device,
 * compile the same source and launch its kernels at the same time, many times: a
 * barrier kernel (fibers), a multi-block elementwise one (the thread pool), a
 * bounds-checked one that fails (the error path) and an untyped one (specialised at
 * launch); each also compiles the source to PTX (the NVPTX target, whose LLVM state
 * and libdevice cache are shared between threads). Every result is checked against values computed here. Run under
 * ThreadSanitizer by `make test-tsan`, which reports any data race between them.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "kc.h"

static const char source[] =
    "from numba import cuda, float32, int32\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def axpy(a: float32, x: float32[:], y: float32[:]):\n"
    "    i = cuda.grid(1)\n"
    "    if i < y.size:\n"
    "        y[i] = a * x[i] + y[i]\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def reverse_block(x: int32[:]):\n"
    "    s = cuda.shared.array(64, int32)\n"
    "    t = cuda.threadIdx.x\n"
    "    b = cuda.blockIdx.x * 64\n"
    "    s[t] = x[b + t]\n"
    "    cuda.syncthreads()\n"
    "    x[b + t] = s[63 - t]\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def past_end(x: int32[:]):\n"
    "    x[cuda.grid(1)] = 7\n"
    "\n"
    "\n"
    "@cuda.jit\n"
    "def twice(x):\n"
    "    i = cuda.grid(1)\n"
    "    if i < x.size:\n"
    "        x[i] = x[i] * 2\n";

#define N 4096
#define ROUNDS 20

typedef struct worker {
  int id;
  char error[512];
} worker;

static int fail(worker *w, kc_context *ctx, const char *what, kc_status s) {
  snprintf(w->error, sizeof w->error, "thread %d: %s: %s: %s", w->id, what, kc_status_name(s),
           ctx ? kc_last_error(ctx) : "");
  return 1;
}

#define TRY(call, what)                      \
  do {                                       \
    kc_status s_ = (call);                   \
    if (s_ != KC_OK) return fail(w, ctx, what, s_); \
  } while (0)

static int run_axpy(worker *w, kc_context *ctx, kc_kernel *k, float a) {
  float x[N];
  float y[N];
  for (int i = 0; i < N; i++) {
    x[i] = (float)(i % 97);
    y[i] = (float)w->id;
  }
  int64_t n = N;
  kc_array *dx, *dy;
  TRY(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, x, (size_t)n * sizeof *x, &dx), "x");
  TRY(kc_array_from_host(ctx, KC_FLOAT32, 1, &n, y, (size_t)n * sizeof *y, &dy), "y");
  kc_arg args[] = {kc_arg_f32(a), kc_arg_array(dx), kc_arg_array(dy)};
  TRY(kc_launch(k, kc_dim(N / 128), kc_dim(128), 0, NULL, args, 3), "axpy");
  TRY(kc_array_to_host(dy, y, sizeof y), "fetch y");
  for (int i = 0; i < N; i++)
    if (y[i] != a * (float)(i % 97) + (float)w->id)
      return fail(w, ctx, "axpy result", KC_ERR_INTERNAL);
  kc_array_free(dx);
  kc_array_free(dy);
  return 0;
}

static int run_reverse(worker *w, kc_context *ctx, kc_kernel *k) {
  int32_t h[N];
  for (int i = 0; i < N; i++) h[i] = i * (w->id + 1);
  int64_t n = N;
  kc_array *d;
  TRY(kc_array_from_host(ctx, KC_INT32, 1, &n, h, (size_t)n * sizeof *h, &d), "x");
  kc_arg args[] = {kc_arg_array(d)};
  TRY(kc_launch(k, kc_dim(N / 64), kc_dim(64), 0, NULL, args, 1), "reverse_block");
  TRY(kc_array_to_host(d, h, sizeof h), "fetch");
  for (int i = 0; i < N; i++) {
    int b = i / 64 * 64, t = i % 64;
    if (h[i] != (b + 63 - t) * (w->id + 1)) return fail(w, ctx, "reverse result", KC_ERR_INTERNAL);
  }
  kc_array_free(d);
  return 0;
}

static int run_errors(worker *w, kc_context *ctx, kc_kernel *past, kc_kernel *twice) {
  int32_t h[100];
  for (int i = 0; i < 100; i++) h[i] = i;
  int64_t n = 100;
  kc_array *d;
  TRY(kc_array_from_host(ctx, KC_INT32, 1, &n, h, (size_t)n * sizeof *h, &d), "x");
  kc_arg args[] = {kc_arg_array(d)};
  /* one block: its threads run in order on one worker, so 0..99 store before 100
     faults (with two blocks, the block past the end could fault first on another
     worker and stop the launch before the first ran: a failure under valgrind) */
  kc_status s = kc_launch(past, kc_dim(1), kc_dim(128), 0, NULL, args, 1);
  if (s != KC_ERR_BOUNDS || !strstr(kc_last_error(ctx), "with size 100")) {
    int r = fail(w, ctx, "past_end should fail", s);
    kc_array_free(d);
    return r;
  }
  kc_synchronize(ctx);   /* reports it once more */
  TRY(kc_launch(twice, kc_dim(1), kc_dim(128), 0, NULL, args, 1), "twice (untyped)");
  TRY(kc_array_to_host(d, h, sizeof h), "fetch");
  kc_array_free(d);
  for (int i = 0; i < 100; i++)
    if (h[i] != 14) return fail(w, ctx, "twice result", KC_ERR_INTERNAL);
  return 0;
}

/* The untyped kernel's "no parameter types" warning, twice per round: not news. */
static void quiet(void *user_data, const kc_diagnostic *d) {
  (void)user_data;
  if (d->severity == KC_SEV_ERROR) fputs(d->text, stderr);
}

/* The same source to PTX, with the compiler's own API (no CUDA device needed). */
static int compile_ptx(worker *w) {
  kcc_options o;
  kcc_options_init(&o);
  o.arch = w->id ? 90 : 80;
  o.bounds_check = w->id;
  o.diag = quiet;
  kcc_output out;
  memset(&out, 0, sizeof out);
  kc_status s = kcc_compile(&o, "concurrent.k", source, sizeof source - 1, &out);
  int bad = s != KC_OK || !out.text || !strstr(out.text, ".entry axpy") ||
            !strstr(out.text, w->id ? ".target sm_90" : ".target sm_80") ||
            (strstr(out.text, "__kcc_error") != NULL) != (w->id == 1);
  if (bad)
    snprintf(w->error, sizeof w->error, "thread %d: PTX compilation: %s", w->id,
             out.first_error ? out.first_error : kc_status_name(s));
  kcc_output_free(&out);
  return bad;
}

static int work(worker *w) {
  kc_config cfg;
  kc_config_init(&cfg);
  cfg.device = KC_DEVICE_CPU;
  cfg.cpu_threads = 2;
  cfg.bounds_check = 1;
  cfg.diag = quiet;
  kc_context *ctx = NULL;
  TRY(kc_context_new(&cfg, &ctx), "context");
  kc_module *m;
  TRY(kc_compile_source(ctx, "concurrent.k", source, sizeof source - 1, NULL, &m), "compile");
  kc_kernel *axpy, *rev, *past, *twice;
  TRY(kc_module_get_kernel(m, "axpy", &axpy), "axpy");
  TRY(kc_module_get_kernel(m, "reverse_block", &rev), "reverse_block");
  TRY(kc_module_get_kernel(m, "past_end", &past), "past_end");
  TRY(kc_module_get_kernel(m, "twice", &twice), "twice");
  int rc = 0;
  for (int r = 0; r < ROUNDS && !rc; r++)
    rc = run_axpy(w, ctx, axpy, (float)r) || run_reverse(w, ctx, rev) ||
         run_errors(w, ctx, past, twice) || (r % 5 == 0 && compile_ptx(w));
  kc_module_free(m);
  kc_context_free(ctx);
  return rc;
}

static void *thread_main(void *arg) {
  work(arg);
  return NULL;
}

int main(void) {
  worker w[2];
  pthread_t t[2];
  for (int i = 0; i < 2; i++) {
    memset(&w[i], 0, sizeof w[i]);
    w[i].id = i;
    if (pthread_create(&t[i], NULL, thread_main, &w[i]) != 0) {
      printf("FAIL concurrency: pthread_create\n");
      return 1;
    }
  }
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  int failed = 0;
  for (int i = 0; i < 2; i++)
    if (w[i].error[0]) {
      printf("FAIL concurrency: %s\n", w[i].error);
      failed = 1;
    }
  if (!failed) printf("PASS concurrency: 2 threads x %d rounds\n", ROUNDS);
  return failed;
}

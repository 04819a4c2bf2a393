/*
 * gpu_smoke.c — the first minute of a GPU run (scripts/gpu.sh run): what the machine
 * has, and whether kcc's two ways onto a GPU work at all, before the full suite.
 *
 *   1. detect   kc_detect's text (`kcc devices`): the CUDA driver and its version, each
 *               GPU's name and compute capability, libdevice, ptxas, nvJitLink
 *   2. source   samples/vector_add.k compiled from source by the context's device (PTX through
 *               the driver's JIT on CUDA; a driver older than the PTX ISA makes the
 *               runtime load an nvJitLink cubin instead), launched on 2^20 + 3 floats
 *               (4099 on the CPU back end) and checked element by element against C
 *   3. cubin    the same file compiled ahead of time where LLVM is (`kcc compile
 *               --emit=cubin --arch=sm_90`, scripts/gpu.sh prepare), loaded, launched
 *               and checked
 *
 * One line per step, "smoke: STEP: ok (...)", "FAILED: why" or "skipped: why", with the
 * step's wall time. A cubin for another GPU than the one present, or any cubin on the
 * CPU back end, is skipped, not failed.
 *
 *   usage: gpu_smoke VECTOR_ADD.K [CUBIN]    exit 0 when no step failed, 1 otherwise
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kc.h"

/* elements: enough to fill a GPU; on the CPU back end (make test, valgrind) fewer */
static int64_t N = (int64_t)(1 << 20) + 3;

static int failures;

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

static void report(const char *step, double t0, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void report(const char *step, double t0, const char *fmt, ...) {
  char what[1024];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  if (strncmp(what, "FAILED", 6) == 0) failures++;
  printf("smoke: %s: %s [%.1f ms]\n", step, what, now_ms() - t0);
  fflush(stdout);
}

/* Launch vector_add of mod on a and b; the number of wrong elements, or -1 on an
 * error (its message into err). */
static int64_t run_vector_add(kc_context *ctx, kc_module *mod, const float *a, const float *b,
                              char *err, size_t len) {
  kc_kernel *k = NULL;
  kc_array *da = NULL, *db = NULL, *dout = NULL;
  float *out = malloc((size_t)N * sizeof *out);
  int64_t n = N, bad = -1;
  kc_status s = out ? kc_module_get_kernel(mod, "vector_add", &k) : KC_ERR_NOMEM;
  if (s == KC_OK) s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, a, (size_t)N * 4, &da);
  if (s == KC_OK) s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, b, (size_t)N * 4, &db);
  if (s == KC_OK) s = kc_array_new(ctx, KC_FLOAT32, 1, &n, &dout);
  const float poison = -1.0f;
  if (s == KC_OK) s = kc_array_fill(dout, &poison);
  kc_arg args[3] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
  if (s == KC_OK)
    s = kc_launch(k, kc_dim((unsigned)((N + 255) / 256)), kc_dim(256), 0, NULL, args, 3);
  if (s == KC_OK) s = kc_synchronize(ctx);
  if (s == KC_OK) s = kc_array_to_host(dout, out, (size_t)N * sizeof *out);
  if (s == KC_OK) {
    bad = 0;
    for (int64_t i = 0; i < N; i++) bad += out[i] != a[i] + b[i];
  } else {
    snprintf(err, len, "%s: %s", kc_status_name(s), kc_last_error(ctx));
  }
  kc_array_free(dout);
  kc_array_free(db);
  kc_array_free(da);
  free(out);
  return bad;
}

static void check_run(const char *step, double t0, kc_context *ctx, kc_module *mod,
                      const float *a, const float *b, const char *how) {
  char err[1024];
  int64_t bad = run_vector_add(ctx, mod, a, b, err, sizeof err);
  if (bad < 0) report(step, t0, "FAILED: launch: %s", err);
  else if (bad > 0) report(step, t0, "FAILED: %lld of %lld elements wrong", (long long)bad,
                           (long long)N);
  else report(step, t0, "ok (%s; %lld elements match C)", how, (long long)N);
}

static void detect(void) {
  size_t need = 0;
  kc_detect(NULL, 0, &need);
  char *text = malloc(need + 1);
  if (text && kc_detect(text, need + 1, NULL) == KC_OK) {
    fputs(text, stdout);
    if (need == 0 || text[need - 1] != '\n') putchar('\n');
  }
  free(text);
}

static void from_source(kc_context *ctx, const char *path, const float *a, const float *b) {
  double t0 = now_ms();
  kc_module *mod = NULL;
  kc_status s = kc_compile_file(ctx, path, NULL, &mod);
  if (s != KC_OK) {
    report("source", t0, "FAILED: compile and load: %s: %s", kc_status_name(s),
           kc_last_error(ctx));
    return;
  }
  check_run("source", t0, ctx, mod, a, b,
            kc_context_device(ctx) == KC_DEVICE_CUDA ? "PTX through the driver" : "CPU JIT");
  kc_module_free(mod);
}

static void from_cubin(kc_context *ctx, const char *path, const float *a, const float *b) {
  double t0 = now_ms();
  if (!path) {
    report("cubin", t0, "skipped: no cubin given (scripts/gpu.sh prepare makes one)");
    return;
  }
  if (kc_context_device(ctx) != KC_DEVICE_CUDA) {
    report("cubin", t0, "skipped: a cubin needs a CUDA GPU (this is the CPU back end)");
    return;
  }
  kc_device_info info;
  char sm[16] = "sm_?";
  if (kc_context_device_info(ctx, &info) == KC_OK)
    snprintf(sm, sizeof sm, "sm_%d%d", info.cc_major, info.cc_minor);
  kc_module *mod = NULL;
  kc_status s = kc_module_load_file(ctx, path, &mod);
  if (s != KC_OK && strcmp(sm, "sm_90") != 0) {
    report("cubin", t0, "skipped: the cubin is for sm_90, the GPU is %s (%s)", sm,
           kc_last_error(ctx));
    return;
  }
  if (s != KC_OK) {
    report("cubin", t0, "FAILED: load %s: %s: %s", path, kc_status_name(s),
           kc_last_error(ctx));
    return;
  }
  check_run("cubin", t0, ctx, mod, a, b, "sm_90 cubin made by ptxas ahead of time");
  kc_module_free(mod);
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: gpu_smoke VECTOR_ADD.K [CUBIN]\n");
    return 2;
  }
  setvbuf(stdout, NULL, _IOLBF, 0);
  double t0 = now_ms();
  detect();
  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_OK && kc_context_device(ctx) != KC_DEVICE_CUDA) N = 4099;
  float *a = malloc((size_t)N * sizeof *a), *b = malloc((size_t)N * sizeof *b);
  if (!a || !b) return 1;
  for (int64_t i = 0; i < N; i++) {
    a[i] = (float)(i % 1000) * 0.5f;
    b[i] = (float)(i % 777) * 0.25f;
  }
  if (s != KC_OK) {
    report("context", t0, "FAILED: kc_context_new: %s: %s", kc_status_name(s),
           ctx ? kc_last_error(ctx) : "");
  } else {
    report("context", t0, "ok (%s)",
           kc_context_device(ctx) == KC_DEVICE_CUDA ? "CUDA" : "the CPU back end");
    from_source(ctx, argv[1], a, b);
    from_cubin(ctx, argc > 2 ? argv[2] : NULL, a, b);
  }
  kc_context_free(ctx);
  free(a);
  free(b);
  printf("smoke: %s\n", failures ? "FAILED" : "passed");
  return failures ? 1 : 0;
}

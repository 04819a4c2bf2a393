/*
 * none.c — the CUDA calls of a CPU-only build (no CUDA headers at build time, so
 * meson.build compiles this file in place of runtime/cuda/'s others). Each row of
 * cuda_calls.def becomes its stub here: a call returns its row's cpu_only result, for
 * most "kcc was not built with CUDA support" (KC_ERR_NO_DEVICE), and a release does
 * nothing. A new rt_cuda_* call gets its stub from its row, with nothing to add here.
 */
#include <stdio.h>
#include <string.h>

#include "rt.h"

static kc_status no_cuda(kc_context *ctx) {
  return rt_error(ctx, KC_ERR_NO_DEVICE,
                  "kcc was not built with CUDA support (no CUDA headers at build time)");
}

static kc_status not_built(char *msg, size_t len) {
  if (msg && len) snprintf(msg, len, "not built with CUDA support");
  return KC_ERR_NO_DEVICE;
}

#define RT_CUDA(ret, name, params, cpu_only) \
  ret name params { return cpu_only; }
#define RT_CUDA_VOID(name, params) \
  void name params {}
#include "cuda_calls.def"

/*
 * errors.c — what every driver call in runtime/cuda/ goes through. Before the call,
 * the context's primary context made current (rt_cu_enter; a lost context refused,
 * and the releases' own rule, rt_cu_enter_release). After it, the CUresult: RT_CU
 * (driver.h) hands a failure to rt_cu_fail, which names the call and the CUDA error
 * (cuGetErrorName / cuGetErrorString) in the context's last error, turns it into a
 * kc_status, and for the errors CUDA keeps for good (a kernel's fault) loses the
 * context (rt_context_lose, as a timed-out wait does: wait.c) so that later calls
 * fail at once with the same message.
 */
#include <stdio.h>

#include "driver.h"

/* The errors cuda.h says leave the context (or the process) unusable: "any further
 * CUDA work will return the same error" until the context is destroyed. */
static int sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
#if CUDA_VERSION >= 12080
  case CUDA_ERROR_CONTAINED:
  case CUDA_ERROR_TENSOR_MEMORY_LEAK:
  case CUDA_ERROR_EXTERNAL_DEVICE:
#endif
    return 1;
  default: return 0;
  }
}

/* A fault while a kernel ran (every sticky error) and a launch the device could not
 * start are KC_ERR_LAUNCH. */
static kc_status status_of(CUresult r) {
  switch (r) {
  case CUDA_ERROR_OUT_OF_MEMORY: return KC_ERR_NOMEM;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE: return KC_ERR_NO_DEVICE;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return KC_ERR_LAUNCH;
  default: return sticky(r) ? KC_ERR_LAUNCH : KC_ERR_CUDA;
  }
}

void rt_context_lose(kc_context *ctx, kc_status s, int how) {
  if (!ctx || ctx->lost) return;
  ctx->broken = s;
  ctx->lost = how;
  snprintf(ctx->broken_msg, sizeof ctx->broken_msg, "%s", ctx->err);
}

kc_status rt_cu_fail(kc_context *ctx, CUresult r, const char *call) {
  const char *name = NULL, *str = NULL;
  if (rt_drv.GetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (rt_drv.GetErrorString(r, &str) != CUDA_SUCCESS) str = NULL;
  if (ctx && ctx->cuda && sticky(r)) {
    /* the driver refuses all further work: lose the context, so later
       calls fail at once with this message instead of each asking the driver */
    kc_status s = rt_error(ctx, status_of(r), "%s failed: %s (%s); the CUDA context is "
                           "now unusable (CUDA keeps this error until it is destroyed): "
                           "free the kc_context", call, name ? name : "CUDA_ERROR_UNKNOWN",
                           str ? str : "unknown error");
    rt_context_lose(ctx, s, RT_LOST_FAULT);
    return s;
  }
  return rt_error(ctx, status_of(r), "%s failed: %s (%s)", call,
                  name ? name : "CUDA_ERROR_UNKNOWN", str ? str : "unknown error");
}

kc_status rt_cu_need_driver(kc_context *ctx) {
  char msg[512];
  kc_status s = rt_cuda_load(msg, sizeof msg);
  if (s != KC_OK) return rt_error(ctx, s, "%s", msg);
  return KC_OK;
}

/* Make the context's primary context current on this thread: a context may move
 * between threads (one at a time), and the driver keeps the current one per thread. */
kc_status rt_cu_enter(kc_context *ctx) {
  kc_status status = KC_OK;
  if (!ctx->cuda) return rt_error(ctx, KC_ERR_NO_DEVICE, "the context has no CUDA device");
  if (ctx->lost) return rt_context_usable(ctx);   /* nothing reaches a lost context */
  RT_CU(ctx, CtxSetCurrent, (ctx->cuda->pctx));
cleanup:
  return status;
}

/* For the calls that release something (kc_*_free and kc_context_free), which must
 * work on a lost context too: whether to call the driver's release at all. After a
 * timeout a kernel may still run, and a release that can block (cuMemFree,
 * cuModuleUnload, cuMemFreeHost, cuMemHostUnregister synchronise) would hang: those
 * (may_block) are skipped, and the driver frees their memory with the context. */
int rt_cu_enter_release(kc_context *ctx, int may_block) {
  if (!ctx->cuda || (may_block && ctx->lost == RT_LOST_HUNG)) return 0;
  return rt_drv.CtxSetCurrent(ctx->cuda->pctx) == CUDA_SUCCESS;
}

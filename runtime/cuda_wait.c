/*
 * cuda_wait.c — waiting for the GPU under kc_config.timeout_ms, and contexts lost.
 *
 * A GPU cannot stop one running kernel: the driver has no call for it, and a kernel
 * that never ends keeps cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize and
 * every synchronous copy waiting for ever. So with a timeout the runtime never makes
 * those calls while work may be running: it polls (cuStreamQuery, cuEventQuery; the
 * poll functions are cuda.c's) with a short sleep that grows from 50 us to 1 ms, and
 * past the deadline gives up with KC_ERR_TIMEOUT. The kernel still runs, so the
 * context is lost: every later call says so, and kc_context_free frees what it can
 * without blocking (the driver ends the kernel when the context goes or the process
 * exits). A sticky CUDA error (a kernel that faulted) loses the context the same way,
 * since the driver refuses all further work in it.
 */
#include <stdio.h>
#include <time.h>

#include "rt.h"

void rt_context_lose(kc_context *ctx, kc_status s, int how) {
  if (!ctx || ctx->lost) return;
  ctx->broken = s;
  ctx->lost = how;
  snprintf(ctx->broken_msg, sizeof ctx->broken_msg, "%s", ctx->err);
}

static void nap_us(long us) {
  struct timespec ts = {0, us * 1000L};
  nanosleep(&ts, NULL);
}

kc_status rt_cuda_wait(kc_context *ctx, rt_cuda_poll poll, void *what, const char *kernel) {
  int limit = ctx->cfg.timeout_ms;
  double start = rt_now_ms();
  long us = 50;   /* short first naps: most waits end within a few polls */
  for (;;) {
    int done = 0;
    kc_status s = poll(ctx, what, &done);
    if (s != KC_OK || done) return s;
    if (rt_now_ms() - start >= (double)limit) break;
    nap_us(us);
    us = us * 2 > 1000 ? 1000 : us * 2;
  }
  static const char tail[] =
      "(kc_config.timeout_ms): a GPU cannot stop a running kernel; this context is "
      "unusable: free it (the driver ends the kernel when the context is freed or the "
      "process exits)";
  if (kernel && *kernel)
    rt_error(ctx, KC_ERR_TIMEOUT, "kernel '%s' still running after %d ms %s", kernel, limit,
             tail);
  else
    rt_error(ctx, KC_ERR_TIMEOUT, "work on the GPU still running after %d ms %s", limit, tail);
  rt_context_lose(ctx, KC_ERR_TIMEOUT, RT_LOST_HUNG);
  return KC_ERR_TIMEOUT;
}

/*
 * wait.c — waiting for the GPU under kc_config.timeout_ms.
 *
 * A GPU cannot stop one running kernel: the driver has no call for it, and a kernel
 * that never ends keeps cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize and
 * every synchronous copy waiting for ever. So with a timeout the runtime never makes
 * those calls while work may be running: it polls (cuStreamQuery, cuEventQuery) with a
 * short sleep that grows from 50 us to 1 ms, and past the deadline gives up with
 * KC_ERR_TIMEOUT. The kernel still runs, so the context is lost (rt_context_lose,
 * errors.c): every later call says so, and kc_context_free frees what it can without
 * blocking (the driver ends the kernel when the context goes or the process exits). A
 * sticky CUDA error (a kernel that faulted) loses the context the same way, since the
 * driver refuses all further work in it.
 */
#include <stdio.h>
#include <time.h>

#include "driver.h"

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

/* ---- The polls, and waits for the whole context ------------------------------------ */
static kc_status poll_result(kc_context *ctx, CUresult r, const char *call, int *done) {
  *done = r == CUDA_SUCCESS;
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) return KC_OK;
  return rt_cu_fail(ctx, r, call);
}

kc_status rt_cu_poll_stream(kc_context *ctx, void *stream, int *done) {
  return poll_result(ctx, rt_drv.StreamQuery((CUstream)stream), "cuStreamQuery", done);
}

kc_status rt_cu_poll_event(kc_context *ctx, void *event, int *done) {
  return poll_result(ctx, rt_drv.EventQuery((CUevent)event), "cuEventQuery", done);
}

/* With a timeout, wait (polling) until the work queued so far in the context's
 * blocking streams is done: an event recorded on the legacy stream completes after
 * all of it. Without one, nothing: the caller's blocking call waits. */
kc_status rt_cu_wait_idle(kc_context *ctx) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || ctx->cfg.timeout_ms <= 0) return status;
  rt_cuda *c = ctx->cuda;
  if (!c->idle) RT_CU(ctx, EventCreate, (&c->idle, CU_EVENT_DISABLE_TIMING));
  RT_CU(ctx, EventRecord, (c->idle, CU_STREAM_LEGACY));
  status = rt_cuda_wait(ctx, rt_cu_poll_event, c->idle, c->last_kernel);
cleanup:
  return status;
}

void rt_cuda_note_launch(kc_context *ctx, const char *kernel) {
  if (ctx->cuda) snprintf(ctx->cuda->last_kernel, sizeof ctx->cuda->last_kernel, "%s", kernel);
}

/* With a timeout, the poll first; cuCtxSynchronize after it returns at once for kcc's
 * streams (all blocking) and still waits for non-blocking streams the caller lent. */
kc_status rt_cuda_synchronize(kc_context *ctx) {
  kc_status status = rt_cu_wait_idle(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, CtxSynchronize, ());
cleanup:
  return status;
}

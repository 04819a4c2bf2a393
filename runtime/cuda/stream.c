/*
 * stream.c — CUDA streams and events, and the work ordered on a stream besides copies
 * (memory.c): a wait for an event, a host function. A synchronisation under a timeout
 * polls (wait.c) instead of blocking in the driver.
 */
#include "driver.h"

kc_status rt_cuda_stream_new(kc_context *ctx, void **out) {
  kc_status status = rt_cu_enter(ctx);
  CUstream s = NULL;
  if (status != KC_OK) return status;
  /* a blocking stream: the synchronous copies of array.c (on the legacy default
     stream) then wait for kernels queued on it, as the API promises */
  RT_CU(ctx, StreamCreate, (&s, CU_STREAM_DEFAULT));
  *out = s;
cleanup:
  return status;
}

kc_status rt_cuda_stream_sync(kc_context *ctx, void *stream, const char *kernel) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  if (ctx->cfg.timeout_ms > 0) return rt_cuda_wait(ctx, rt_cu_poll_stream, stream, kernel);
  RT_CU(ctx, StreamSynchronize, ((CUstream)stream));
cleanup:
  return status;
}

void rt_cuda_stream_free(kc_context *ctx, void *stream) {
  /* cuStreamDestroy returns at once even with work still queued */
  if (stream && rt_cu_enter_release(ctx, 0)) rt_drv.StreamDestroy((CUstream)stream);
}

kc_status rt_cuda_event_new(kc_context *ctx, void **out) {
  kc_status status = rt_cu_enter(ctx);
  CUevent e = NULL;
  if (status != KC_OK) return status;
  RT_CU(ctx, EventCreate, (&e, CU_EVENT_DEFAULT));
  *out = e;
cleanup:
  return status;
}

kc_status rt_cuda_event_record(kc_context *ctx, void *event, void *stream) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, EventRecord, ((CUevent)event, (CUstream)stream));
cleanup:
  return status;
}

kc_status rt_cuda_event_sync(kc_context *ctx, void *event) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  if (ctx->cfg.timeout_ms > 0)
    return rt_cuda_wait(ctx, rt_cu_poll_event, event, ctx->cuda->last_kernel);
  RT_CU(ctx, EventSynchronize, ((CUevent)event));
cleanup:
  return status;
}

kc_status rt_cuda_event_elapsed(kc_context *ctx, void *start, void *end, float *ms) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, EventElapsedTime, (ms, (CUevent)start, (CUevent)end));
cleanup:
  return status;
}

void rt_cuda_event_free(kc_context *ctx, void *event) {
  if (event && rt_cu_enter_release(ctx, 0)) rt_drv.EventDestroy((CUevent)event);
}

kc_status rt_cuda_stream_wait_event(kc_context *ctx, void *stream, void *event) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, StreamWaitEvent, ((CUstream)stream, (CUevent)event, 0));
cleanup:
  return status;
}

kc_status rt_cuda_event_query(kc_context *ctx, void *event, int *done) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  CUresult r = rt_drv.EventQuery((CUevent)event);
  *done = r == CUDA_SUCCESS;
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY)
    status = rt_cu_fail(ctx, r, "cuEventQuery");
  return status;
}

kc_status rt_cuda_launch_host_func(kc_context *ctx, void *stream, kc_host_fn fn,
                                   void *user_data) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, LaunchHostFunc, ((CUstream)stream, fn, user_data));
cleanup:
  return status;
}

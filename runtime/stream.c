/*
 * stream.c — synchronisation (kc_synchronize, the whole context), streams and events.
 * On CUDA they are the driver's; on the CPU device a launch has finished when kc_launch
 * returns, so a stream is only a handle, an event records the monotonic clock, and a
 * synchronisation reports an earlier launch's fault.
 */
#include <string.h>

#include "rt.h"

/* A fault of an earlier CPU launch, reported once by the next synchronisation. */
static kc_status take_pending(kc_context *ctx) {
  if (ctx->pending == KC_OK) return KC_OK;
  kc_status s = ctx->pending;
  ctx->pending = KC_OK;
  return rt_error(ctx, s, "%s", ctx->pending_msg);
}

/* Wait for everything queued on the context: on CUDA its streams' work and the
 * kernels' error records, on the CPU an earlier launch's fault. */
kc_status kc_synchronize(kc_context *ctx) {
  RT_NEED(NULL, ctx, "kc_synchronize");
  if (ctx->broken) return rt_context_usable(ctx);
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status s = rt_cuda_synchronize(ctx);
    return s != KC_OK ? s : rt_check_kernel_errors(ctx);
  }
  return take_pending(ctx);
}

kc_status kc_stream_new(kc_context *ctx, kc_stream **out) {
  RT_NEED(NULL, ctx, "kc_stream_new");
  RT_NEED(ctx, out, "kc_stream_new");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  kc_stream *s = rt_calloc(ctx, 1, sizeof *s);
  if (!s) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  s->ctx = ctx;
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status st = rt_cuda_stream_new(ctx, &s->cu_stream);
    if (st != KC_OK) {
      rt_free(ctx, s, sizeof *s);
      return st;
    }
  }
  *out = s;
  return KC_OK;
}

kc_status kc_stream_synchronize(kc_stream *s) {
  RT_NEED(NULL, s, "kc_stream_synchronize");
  if (rt_handle_live(s->ctx, s->magic, "kc_stream_synchronize", "stream") != KC_OK)
    return KC_ERR_INVALID;
  if (s->ctx->device == KC_DEVICE_CUDA) {
    kc_status st = rt_cuda_stream_sync(s->ctx, s->cu_stream, s->last_kernel);
    return st != KC_OK ? st : rt_check_kernel_errors(s->ctx);
  }
  return take_pending(s->ctx);
}

void kc_stream_free(kc_stream *s) {
  if (!s || rt_handle_live(s->ctx, s->magic, "kc_stream_free", "stream") != KC_OK) return;
  if (s->ctx->device == KC_DEVICE_CUDA && !s->borrowed)   /* a borrowed one is the caller's */
    rt_cuda_stream_free(s->ctx, s->cu_stream);
  s->cu_stream = NULL;
  rt_handle_bury(s->ctx, s, sizeof *s, &s->magic);
}

kc_status kc_event_new(kc_context *ctx, kc_event **out) {
  RT_NEED(NULL, ctx, "kc_event_new");
  RT_NEED(ctx, out, "kc_event_new");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  kc_event *e = rt_calloc(ctx, 1, sizeof *e);
  if (!e) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  e->ctx = ctx;
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status st = rt_cuda_event_new(ctx, &e->cu_event);
    if (st != KC_OK) {
      rt_free(ctx, e, sizeof *e);
      return st;
    }
  }
  *out = e;
  return KC_OK;
}

kc_status kc_event_record(kc_event *e, kc_stream *s) {
  RT_NEED(NULL, e, "kc_event_record");
  kc_context *ctx = e->ctx;
  if (rt_handle_live(ctx, e->magic, "kc_event_record", "event") != KC_OK ||
      (s && rt_handle_live(ctx, s->magic, "kc_event_record", "stream") != KC_OK))
    return KC_ERR_INVALID;
  if (s && s->ctx != ctx)
    return rt_error(ctx, KC_ERR_INVALID, "event record: the stream belongs to another context");
  if (ctx->device == KC_DEVICE_CUDA) {
    kc_status st = rt_cuda_event_record(ctx, e->cu_event, s ? s->cu_stream : NULL);
    if (st != KC_OK) return st;
  } else {
    e->cpu_ms = rt_now_ms();
  }
  e->recorded = 1;
  return KC_OK;
}

kc_status kc_event_synchronize(kc_event *e) {
  RT_NEED(NULL, e, "kc_event_synchronize");
  if (rt_handle_live(e->ctx, e->magic, "kc_event_synchronize", "event") != KC_OK)
    return KC_ERR_INVALID;
  if (!e->recorded)
    return rt_error(e->ctx, KC_ERR_INVALID, "event synchronize: the event was never recorded");
  if (e->ctx->device == KC_DEVICE_CUDA) return rt_cuda_event_sync(e->ctx, e->cu_event);
  return KC_OK;
}

kc_status kc_event_elapsed_ms(kc_event *start, kc_event *end, float *ms) {
  RT_NEED(NULL, start, "kc_event_elapsed_ms");
  RT_NEED(start->ctx, end, "kc_event_elapsed_ms");
  RT_NEED(start->ctx, ms, "kc_event_elapsed_ms");
  kc_context *ctx = start->ctx;
  if (rt_handle_live(ctx, start->magic, "kc_event_elapsed_ms", "event") != KC_OK ||
      rt_handle_live(ctx, end->magic, "kc_event_elapsed_ms", "event") != KC_OK)
    return KC_ERR_INVALID;
  if (end->ctx != ctx)
    return rt_error(ctx, KC_ERR_INVALID, "event elapsed: the events belong to two contexts");
  if (!start->recorded || !end->recorded)
    return rt_error(ctx, KC_ERR_INVALID, "event elapsed: both events must be recorded");
  if (ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_event_elapsed(ctx, start->cu_event, end->cu_event, ms);
  *ms = (float)(end->cpu_ms - start->cpu_ms);
  return KC_OK;
}

void kc_event_free(kc_event *e) {
  if (!e || rt_handle_live(e->ctx, e->magic, "kc_event_free", "event") != KC_OK) return;
  if (e->ctx->device == KC_DEVICE_CUDA) rt_cuda_event_free(e->ctx, e->cu_event);
  e->cu_event = NULL;
  rt_handle_bury(e->ctx, e, sizeof *e, &e->magic);
}

/*
 * stream_order.c — what orders work on a stream besides launches and copies: a stream
 * waiting for an event of another, querying an event, and host callbacks.
 *
 * On CUDA each call queues the driver's operation. On the CPU device every piece of
 * work (a launch, a copy, a fill) has finished when its call returns, so a stream's
 * queue is always empty: a wait has nothing to wait for, an event is done as soon as it
 * is recorded and a callback runs at once, which keeps every ordering CUDA promises.
 */
#include "rt.h"

kc_status rt_stream_check(kc_context *ctx, const kc_stream *s, const char *what) {
  if (s && rt_handle_live(ctx, s->magic, what, "stream") != KC_OK) return KC_ERR_INVALID;
  if (!s || s->ctx == ctx) return KC_OK;
  return rt_error(ctx, KC_ERR_INVALID, "%s: the stream belongs to another context", what);
}

void *rt_stream_cu(const kc_stream *s) { return s ? s->cu_stream : NULL; }

kc_status rt_stream_wait(kc_context *ctx, kc_stream *s) {
  return s ? kc_stream_synchronize(s) : kc_synchronize(ctx);
}

kc_status kc_stream_wait_event(kc_stream *stream, kc_event *event) {
  if (!event) return stream ? rt_error(stream->ctx, KC_ERR_INVALID,
                                       "stream wait event: the event is NULL")
                            : KC_ERR_INVALID;
  kc_context *ctx = event->ctx;
  if (rt_handle_live(ctx, event->magic, "kc_stream_wait_event", "event") != KC_OK)
    return KC_ERR_INVALID;
  kc_status s = rt_stream_check(ctx, stream, "stream wait event");
  if (s != KC_OK) return s;
  if (!event->recorded)
    return rt_error(ctx, KC_ERR_INVALID, "stream wait event: the event was never recorded "
                    "(kc_event_record)");
  if (ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_stream_wait_event(ctx, rt_stream_cu(stream), event->cu_event);
  return KC_OK;
}

kc_status kc_event_query(kc_event *event, int *done) {
  RT_NEED(NULL, event, "kc_event_query");
  kc_context *ctx = event->ctx;
  if (rt_handle_live(ctx, event->magic, "kc_event_query", "event") != KC_OK)
    return KC_ERR_INVALID;
  if (!done) return rt_error(ctx, KC_ERR_INVALID, "event query: done is NULL");
  *done = 0;
  if (!event->recorded)
    return rt_error(ctx, KC_ERR_INVALID, "event query: the event was never recorded "
                    "(kc_event_record)");
  if (ctx->device == KC_DEVICE_CUDA) return rt_cuda_event_query(ctx, event->cu_event, done);
  *done = 1;
  return KC_OK;
}

kc_status kc_stream_add_callback(kc_stream *stream, kc_host_fn fn, void *user_data) {
  RT_NEED(NULL, stream, "kc_stream_add_callback");
  kc_context *ctx = stream->ctx;
  if (rt_handle_live(ctx, stream->magic, "kc_stream_add_callback", "stream") != KC_OK)
    return KC_ERR_INVALID;
  if (!fn) return rt_error(ctx, KC_ERR_INVALID, "stream add callback: the function is NULL");
  if (ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_launch_host_func(ctx, stream->cu_stream, fn, user_data);
  fn(user_data);
  return KC_OK;
}

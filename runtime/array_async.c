/*
 * array_async.c — copies and fills queued on a stream (kc_array_*_async), ordered with
 * the stream's launches. The checks are those of the synchronous calls (array.c), plus
 * the stream's context. On CUDA the driver's *Async calls queue the work; on the CPU
 * device the work already queued on any stream has finished (stream_order.c says why),
 * so the copy is done at once, which is the order the stream promises.
 */
#include <string.h>

#include "rt.h"

kc_status kc_array_copy_from_host_async(kc_array *a, const void *host, size_t bytes,
                                        kc_stream *stream) {
  RT_NEED(NULL, a, "kc_array_copy_from_host_async");
  kc_status s = rt_array_check_host_copy(a, host, bytes);
  if (s == KC_OK) s = rt_stream_check(a->ctx, stream, "array copy");
  if (s != KC_OK) return s;
  if (a->ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_copy_htod_async(a->ctx, a->data.dev, host, bytes, rt_stream_cu(stream));
  if (bytes) memcpy(a->data.host, host, bytes);
  return KC_OK;
}

kc_status kc_array_to_host_async(kc_array *a, void *host, size_t bytes, kc_stream *stream) {
  RT_NEED(NULL, a, "kc_array_to_host_async");
  kc_status s = rt_array_check_host_copy(a, host, bytes);
  if (s == KC_OK) s = rt_stream_check(a->ctx, stream, "array copy");
  if (s != KC_OK) return s;
  if (a->ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_copy_dtoh_async(a->ctx, host, a->data.dev, bytes, rt_stream_cu(stream));
  if (bytes) memcpy(host, a->data.host, bytes);
  return KC_OK;
}

kc_status kc_array_copy_async(kc_array *dst, const kc_array *src, kc_stream *stream) {
  RT_NEED(NULL, dst, "kc_array_copy_async");
  RT_NEED(dst->ctx, src, "kc_array_copy_async");
  kc_context *ctx = dst->ctx;
  kc_status s = rt_array_check_copy(dst, src);
  if (s == KC_OK) s = rt_stream_check(ctx, stream, "array copy");
  if (s != KC_OK) return s;
  if (ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_copy_dtod_async(ctx, dst->data.dev, src->data.dev, src->bytes,
                                   rt_stream_cu(stream));
  if (src->bytes) memmove(dst->data.host, src->data.host, src->bytes);
  return KC_OK;
}

kc_status kc_array_fill_async(kc_array *a, const void *value, kc_stream *stream) {
  RT_NEED(NULL, a, "kc_array_fill_async");
  kc_status s = rt_array_check_fill(a, value, "array fill");
  if (s == KC_OK) s = rt_stream_check(a->ctx, stream, "array fill");
  if (s != KC_OK) return s;
  size_t es = kc_dtype_size(a->dtype), n = a->bytes / es;
  if (a->ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_fill_async(a->ctx, a->data.dev, n, es, value, rt_stream_cu(stream));
  char *p = a->data.host;
  for (size_t i = 0; i < n; i++) memcpy(p + i * es, value, es);
  return KC_OK;
}

kc_status kc_array_zero_async(kc_array *a, kc_stream *stream) {
  RT_NEED(NULL, a, "kc_array_zero_async");
  kc_status s = rt_array_check_fill(a, NULL, "array zero");
  if (s == KC_OK) s = rt_stream_check(a->ctx, stream, "array zero");
  if (s != KC_OK) return s;
  if (a->ctx->device == KC_DEVICE_CUDA) {
    uint8_t zero = 0;
    return rt_cuda_fill_async(a->ctx, a->data.dev, a->bytes, 1, &zero, rt_stream_cu(stream));
  }
  if (a->bytes) memset(a->data.host, 0, a->bytes);
  return KC_OK;
}

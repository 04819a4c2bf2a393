/*
 * peer.c — copies between arrays of two contexts (kc_array_copy_peer): a process with
 * one context per GPU moves halo rows or partial results between them without a trip
 * through its own buffers.
 *
 * GPU to GPU is cuMemcpyPeer(Async) with the two contexts' CUcontexts; the driver uses
 * NVLink or PCIe peer-to-peer where the devices allow it and stages through the host
 * where they do not, so every pair of GPUs works. CPU to CPU is a memmove: both arrays
 * are host memory. A CPU context and a CUDA context: a CPU array is host memory, so the
 * copy is one cuMemcpyHtoD or cuMemcpyDtoH on the CUDA side (no extra staging buffer).
 * Errors go to the destination's context.
 */
#include <string.h>

#include "rt.h"

/* The two arrays can be copied into each other: live, contiguous, the same dtype and
 * size; a stream, when given, belongs to one of their contexts. */
static kc_status check_peer(kc_array *dst, const kc_array *src, const kc_stream *stream) {
  kc_context *ctx = dst->ctx;
  if (rt_array_check(dst, "peer copy: destination") != KC_OK) return KC_ERR_INVALID;
  if (rt_array_check(src, "peer copy: source") != KC_OK)
    return rt_error(ctx, KC_ERR_INVALID, "%s", kc_last_error(src->ctx));
  if (rt_context_usable(ctx) != KC_OK) return ctx->broken;
  if (src->ctx->broken)
    return rt_error(ctx, src->ctx->broken, "peer copy: the source's context has no device");
  if (!dst->contiguous || !src->contiguous)
    return rt_error(ctx, KC_ERR_INVALID, "peer copy: the %s is a non-contiguous view "
                    "(kc_array_slice)", dst->contiguous ? "source" : "destination");
  if (src->dtype != dst->dtype || src->bytes != dst->bytes ||
      (src->record && strcmp(src->record, dst->record) != 0))
    return rt_error(ctx, KC_ERR_INVALID,
                    "peer copy: source is %s of %lld elements, destination %s of %lld",
                    kc_dtype_name(src->dtype), (long long)kc_array_size(src),
                    kc_dtype_name(dst->dtype), (long long)kc_array_size(dst));
  if (stream && stream->ctx != ctx && stream->ctx != src->ctx)
    return rt_error(ctx, KC_ERR_INVALID,
                    "peer copy: the stream belongs to neither array's context");
  return KC_OK;
}

/* A failure recorded in the source's context, told in the destination's. */
static kc_status from_source(kc_array *dst, const kc_array *src, kc_status s) {
  if (s != KC_OK) rt_error(dst->ctx, s, "%s", kc_last_error(src->ctx));
  return s;
}

kc_status kc_array_copy_peer(kc_array *dst, const kc_array *src, kc_stream *stream) {
  RT_NEED(NULL, dst, "kc_array_copy_peer");
  RT_NEED(dst->ctx, src, "kc_array_copy_peer");
  kc_status s = check_peer(dst, src, stream);
  if (s != KC_OK) return s;
  if (src->ctx == dst->ctx) return kc_array_copy(dst, src);
  int dcuda = dst->ctx->device == KC_DEVICE_CUDA, scuda = src->ctx->device == KC_DEVICE_CUDA;
  if (dcuda && scuda)
    return rt_cuda_copy_peer(dst->ctx, dst->data.dev, src->ctx, src->data.dev, src->bytes,
                             stream ? stream->cu_stream : NULL);
  if (dcuda) return rt_cuda_copy_htod(dst->ctx, dst->data.dev, src->data.host, src->bytes);
  if (scuda)
    return from_source(dst, src,
                       rt_cuda_copy_dtoh(src->ctx, dst->data.host, src->data.dev, src->bytes));
  /* two CPU contexts: a launch on either has finished when kc_launch returns */
  if (src->bytes) memmove(dst->data.host, src->data.host, src->bytes);
  return KC_OK;
}

/*
 * interop.c — handing kcc's memory and CUDA handles to other libraries and back:
 * an array's data pointer, arrays over memory the caller owns (kcc never frees it), the
 * CUcontext of a context, the CUstream of a stream and streams over the caller's
 * CUstream. DLPack, built on the same wrapped arrays, is in dlpack.c.
 *
 * A wrapped array is an owner (kc_array.base == NULL) marked foreign: its views share
 * it as usual, and when it and its views are all freed array.c calls its release hook
 * (DLPack's deleter) instead of freeing the memory.
 */
#include <string.h>

#include "rt.h"

/* The alignment an element needs: its size, a complex number its part's. */
static uint64_t dtype_align(kc_dtype t) {
  size_t n = kc_dtype_size(t);
  return rt_dtype_is_complex(t) ? n / 2 : n;
}

/* The bytes the strided elements reach below and above the first one (*down <= 0),
 * or -1 when that overflows. Only called for a non-empty shape. */
static int strided_reach(int ndim, const int64_t *shape, const int64_t *step, int64_t es,
                         int64_t *down, int64_t *up) {
  int64_t lo = 0, hi = 0;
  for (int d = 0; d < ndim; d++) {
    int64_t far;
    if (__builtin_mul_overflow(shape[d] - 1, step[d], &far)) return -1;
    if (far < 0 ? __builtin_add_overflow(lo, far, &lo) : __builtin_add_overflow(hi, far, &hi))
      return -1;
  }
  if (__builtin_mul_overflow(lo, es, down) || __builtin_mul_overflow(hi, es, up)) return -1;
  return 0;
}

/* Extents and strides into a (C-contiguous strides when strides is NULL); the element
 * count in *count. -1 (with the error set) for a bad shape. */
static int take_shape(kc_context *ctx, const char *what, kc_array *a, const int64_t *shape,
                      const int64_t *strides, int64_t *count) {
  int64_t n = 1, es = (int64_t)a->itemsize;
  for (int d = 0; d < a->ndim; d++) {
    if (shape[d] < 0) {
      rt_error(ctx, KC_ERR_INVALID, "%s: extent %d is negative (%lld)", what, d,
               (long long)shape[d]);
      return -1;
    }
    if (__builtin_mul_overflow(n, shape[d], &n) || n > PTRDIFF_MAX / es) {
      rt_error(ctx, KC_ERR_INVALID, "%s: the size of the shape overflows", what);
      return -1;
    }
    a->shape[d] = shape[d];
  }
  /* unsigned products: the C strides of an empty shape may wrap, harmlessly */
  uint64_t c = 1;
  for (int d = a->ndim - 1; d >= 0; d--) {
    a->step[d] = strides ? strides[d] : (int64_t)c;
    c *= (uint64_t)shape[d];
  }
  *count = n;
  return 0;
}

/* Where the elements lie: a pointer that is not NULL, aligned, whose strided reach
 * neither wraps below 0 nor past the top of the address space. */
static kc_status check_place(kc_context *ctx, const char *what, const kc_array *a,
                             uint64_t ptr) {
  uint64_t align = dtype_align(a->dtype);
  int64_t down = 0, up = 0;
  if (!ptr) return rt_error(ctx, KC_ERR_INVALID, "%s: the data pointer is NULL", what);
  if (ptr % align)
    return rt_error(ctx, KC_ERR_INVALID, "%s: the data pointer 0x%llx is not aligned to "
                    "%llu bytes, as %s elements must be", what, (unsigned long long)ptr,
                    (unsigned long long)align, kc_dtype_name(a->dtype));
  if (strided_reach(a->ndim, a->shape, a->step, (int64_t)a->itemsize, &down, &up) != 0 ||
      (uint64_t)0 - (uint64_t)down > ptr || ptr > UINT64_MAX - a->itemsize ||
      (uint64_t)up > UINT64_MAX - a->itemsize - ptr)
    return rt_error(ctx, KC_ERR_INVALID, "%s: the strides reach outside the address space",
                    what);
  return KC_OK;
}

kc_status rt_array_wrap(kc_context *ctx, const char *what, kc_dtype dtype, int ndim,
                        const int64_t *shape, const int64_t *strides, uint64_t ptr,
                        void (*release)(void *), void *release_arg, kc_array **out) {
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if ((unsigned)dtype >= KC_DTYPE_COUNT)
    return rt_error(ctx, KC_ERR_INVALID, dtype == KC_RECORD ? "%s: arrays of records "
                    "cannot be wrapped" : "%s: unknown dtype %d", what, (int)dtype);
  if (ndim < 1 || ndim > KC_MAX_DIMS)
    return rt_error(ctx, KC_ERR_INVALID, "%s: ndim must be 1..%d, not %d", what, KC_MAX_DIMS,
                    ndim);
  if (!shape) return rt_error(ctx, KC_ERR_INVALID, "%s: shape is NULL", what);
  kc_array *a = rt_calloc(ctx, 1, sizeof *a);
  if (!a) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  a->ctx = ctx;
  a->dtype = dtype;
  a->ndim = ndim;
  a->itemsize = kc_dtype_size(dtype);
  int64_t count = 0;
  kc_status s = KC_ERR_INVALID;
  if (take_shape(ctx, what, a, shape, strides, &count) == 0)
    s = count == 0 ? KC_OK : check_place(ctx, what, a, ptr);
  if (s == KC_OK && count > 0 && ctx->device == KC_DEVICE_CUDA)
    s = rt_cuda_pointer_check(ctx, what, ptr);
  if (s != KC_OK) {
    rt_free(ctx, a, sizeof *a);
    return s;
  }
  if (ctx->device == KC_DEVICE_CUDA) a->data.dev = ptr;
  else a->data.host = (void *)(uintptr_t)ptr;
  a->bytes = (size_t)count * a->itemsize;
  a->contiguous = rt_array_c_contiguous(a);
  a->refs = 1;
  a->magic = RT_ARRAY_LIVE;
  a->foreign = 1;
  a->release = release;
  a->release_arg = release_arg;
  *out = a;
  return KC_OK;
}

kc_status kc_array_from_device_ptr(kc_context *ctx, kc_dtype dtype, int ndim,
                                   const int64_t *shape, const int64_t *strides,
                                   uint64_t ptr, kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_from_device_ptr");
  RT_NEED(ctx, out, "kc_array_from_device_ptr");
  return rt_array_wrap(ctx, "kc_array_from_device_ptr", dtype, ndim, shape, strides, ptr,
                       NULL, NULL, out);
}

kc_status kc_array_device_ptr(const kc_array *a, uint64_t *out) {
  RT_NEED(NULL, a, "kc_array_device_ptr");
  RT_NEED(a->ctx, out, "kc_array_device_ptr");
  *out = 0;
  if (rt_array_check(a, "kc_array_device_ptr") != KC_OK) return KC_ERR_INVALID;
  *out = a->ctx->device == KC_DEVICE_CUDA ? a->data.dev : (uint64_t)(uintptr_t)a->data.host;
  return KC_OK;
}

kc_status kc_array_data(const kc_array *a, void **out) {
  RT_NEED(NULL, a, "kc_array_data");
  RT_NEED(a->ctx, out, "kc_array_data");
  *out = NULL;
  if (rt_array_check(a, "kc_array_data") != KC_OK) return KC_ERR_INVALID;
  if (a->ctx->device == KC_DEVICE_CUDA)
    return rt_error(a->ctx, KC_ERR_UNSUPPORTED, "kc_array_data: the array is in GPU memory, "
                    "not host memory: take its CUdeviceptr with kc_array_device_ptr");
  *out = a->data.host;
  return KC_OK;
}

/* The error of a CUDA-only call on a CPU context. */
static kc_status cuda_only(kc_context *ctx, const char *call) {
  return rt_error(ctx, KC_ERR_UNSUPPORTED, "%s: the context's device is the CPU, which has no "
                  "CUDA handles (make the context with kc_config.device = KC_DEVICE_CUDA)",
                  call);
}

kc_status kc_context_cuda_context(kc_context *ctx, void **out) {
  RT_NEED(NULL, ctx, "kc_context_cuda_context");
  RT_NEED(ctx, out, "kc_context_cuda_context");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (ctx->device != KC_DEVICE_CUDA) return cuda_only(ctx, "kc_context_cuda_context");
  *out = rt_cuda_context(ctx);
  return KC_OK;
}

kc_status kc_stream_cuda_stream(kc_stream *s, void **out) {
  RT_NEED(NULL, s, "kc_stream_cuda_stream");
  RT_NEED(s->ctx, out, "kc_stream_cuda_stream");
  *out = NULL;
  if (s->ctx->device != KC_DEVICE_CUDA) return cuda_only(s->ctx, "kc_stream_cuda_stream");
  *out = s->cu_stream;
  return KC_OK;
}

kc_status kc_stream_from_cuda(kc_context *ctx, void *cu_stream, kc_stream **out) {
  RT_NEED(NULL, ctx, "kc_stream_from_cuda");
  RT_NEED(ctx, out, "kc_stream_from_cuda");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (ctx->device != KC_DEVICE_CUDA) return cuda_only(ctx, "kc_stream_from_cuda");
  kc_status st = rt_cuda_stream_check(ctx, cu_stream);
  if (st != KC_OK) return st;
  kc_stream *s = rt_calloc(ctx, 1, sizeof *s);
  if (!s) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  s->ctx = ctx;
  s->cu_stream = cu_stream;
  s->borrowed = 1;
  *out = s;
  return KC_OK;
}

/*
 * array.c — device arrays: one handle for both devices. On the CPU device the data is
 * host memory from the context's allocator; on CUDA it is a CUdeviceptr. The handle
 * starts with the data pointer and the shape so a launch can point kernelParams
 * straight into it. Views share their owner's memory; the owner's memory lives until
 * it and all its views are freed (so freeing in the wrong order cannot dangle).
 * A freed handle is not returned to the allocator at once: marked RT_ARRAY_FREED, it
 * waits in the context's graveyard (the last RT_GRAVEYARD frees), so using it after
 * kc_array_free, or freeing it twice, is a clear error instead of undefined behaviour.
 */
#include <stdlib.h>
#include <string.h>

#include "rt.h"

/* Element count and byte size of a shape, or an error on bad or overflowing shapes. */
static kc_status shape_bytes(kc_context *ctx, size_t itemsize, int ndim,
                             const int64_t *shape, size_t *bytes) {
  if (ndim < 1 || ndim > KC_MAX_DIMS)
    return rt_error(ctx, KC_ERR_INVALID, "array: ndim must be 1..%d, not %d", KC_MAX_DIMS,
                    ndim);
  if (!shape) return rt_error(ctx, KC_ERR_INVALID, "array: shape is NULL");
  uint64_t n = itemsize;
  for (int i = 0; i < ndim; i++) {
    if (shape[i] < 0)
      return rt_error(ctx, KC_ERR_INVALID, "array: extent %d is negative (%lld)", i,
                      (long long)shape[i]);
    if (shape[i] != 0 && n > (uint64_t)PTRDIFF_MAX / (uint64_t)shape[i])
      return rt_error(ctx, KC_ERR_INVALID, "array: size of the shape overflows");
    n *= (uint64_t)shape[i];
  }
  *bytes = (size_t)n;
  return KC_OK;
}

kc_status kc_array_new(kc_context *ctx, kc_dtype dtype, int ndim, const int64_t *shape,
                       kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_new");
  RT_NEED(ctx, out, "kc_array_new");
  RT_NEED(ctx, shape, "kc_array_new");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if ((unsigned)dtype >= KC_DTYPE_COUNT)
    return rt_error(ctx, KC_ERR_INVALID, dtype == KC_RECORD ? "array: make an array of "
                    "records with kc_array_new_records" : "array: unknown dtype %d", (int)dtype);
  return rt_array_alloc(ctx, dtype, NULL, kc_dtype_size(dtype), ndim, shape, out);
}

kc_status rt_array_alloc(kc_context *ctx, kc_dtype dtype, const char *record,
                         size_t itemsize, int ndim, const int64_t *shape, kc_array **out) {
  size_t bytes = 0;
  kc_status s = shape_bytes(ctx, itemsize, ndim, shape, &bytes);
  if (s != KC_OK) return s;
  kc_array *a = rt_calloc(ctx, 1, sizeof *a);
  if (!a) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  if (record && !(a->record = rt_strdup(ctx, record))) {
    rt_free(ctx, a, sizeof *a);
    return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  }
  a->itemsize = itemsize;
  a->ctx = ctx;
  a->dtype = dtype;
  a->ndim = ndim;
  a->bytes = bytes;
  a->refs = 1;
  a->magic = RT_ARRAY_LIVE;
  a->contiguous = 1;
  for (int i = 0; i < ndim; i++) a->shape[i] = shape[i];
  for (int i = ndim - 1; i >= 0; i--) a->step[i] = i == ndim - 1 ? 1 : a->step[i + 1] * shape[i + 1];
  if (ctx->device == KC_DEVICE_CUDA) {
    s = rt_cuda_mem_alloc(ctx, bytes, &a->data.dev);
  } else {
    a->data.host = rt_alloc_data(ctx, bytes);
    if (!a->data.host)
      s = rt_error(ctx, KC_ERR_NOMEM, "out of memory allocating an array of %zu bytes",
                   bytes);
  }
  if (s != KC_OK) {
    rt_free_str(ctx, a->record);
    rt_free(ctx, a, sizeof *a);
    return s;
  }
  *out = a;
  return KC_OK;
}

kc_status rt_array_fill_new(kc_array *a, const void *host, size_t bytes, const char *call,
                            kc_array **out) {
  kc_status s = KC_ERR_INVALID;
  if (bytes != a->bytes)
    rt_error(a->ctx, s, "%s: the array holds %zu bytes, the host buffer %zu", call, a->bytes,
             bytes);
  else
    s = kc_array_copy_from_host(a, host, bytes);
  if (s != KC_OK) {
    kc_array_free(a);
    return s;
  }
  *out = a;
  return KC_OK;
}

kc_status kc_array_from_host(kc_context *ctx, kc_dtype dtype, int ndim,
                             const int64_t *shape, const void *host, size_t bytes,
                             kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_from_host");
  RT_NEED(ctx, out, "kc_array_from_host");
  RT_NEED(ctx, shape, "kc_array_from_host");
  *out = NULL;
  RT_NEED(ctx, host, "kc_array_from_host");
  kc_array *a;
  kc_status s = kc_array_new(ctx, dtype, ndim, shape, &a);
  if (s != KC_OK) return s;
  return rt_array_fill_new(a, host, bytes, "kc_array_from_host", out);
}

kc_status rt_array_check(const kc_array *a, const char *what) {
  if (a->magic == RT_ARRAY_LIVE) return KC_OK;
  return rt_error(a->ctx, KC_ERR_INVALID, "%s: the array was freed (kc_array_free)", what);
}

kc_status kc_array_like(const kc_array *a, kc_array **out) {
  RT_NEED(NULL, a, "kc_array_like");
  RT_NEED(a->ctx, out, "kc_array_like");
  *out = NULL;
  if (rt_array_check(a, "array like") != KC_OK) return KC_ERR_INVALID;
  return rt_array_alloc(a->ctx, a->dtype, a->record, a->itemsize, a->ndim, a->shape, out);
}

kc_status kc_array_view(kc_array *a, int64_t start, int64_t stop, kc_array **out) {
  RT_NEED(NULL, a, "kc_array_view");
  RT_NEED(a->ctx, out, "kc_array_view");
  *out = NULL;
  kc_context *ctx = a->ctx;
  if (rt_array_check(a, "array view") != KC_OK) return KC_ERR_INVALID;
  if (start < 0 || stop < start || stop > a->shape[0])
    return rt_error(ctx, KC_ERR_INVALID, "array view [%lld, %lld) is outside [0, %lld)",
                    (long long)start, (long long)stop, (long long)a->shape[0]);
  kc_array *owner = a->base ? a->base : a;
  if (owner->freed) return rt_error(ctx, KC_ERR_INVALID, "array view of a freed array");
  kc_array *v = rt_calloc(ctx, 1, sizeof *v);
  if (!v) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  *v = *a;
  if (a->record && !(v->record = rt_strdup(ctx, a->record))) {
    rt_free(ctx, v, sizeof *v);
    return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  }
  size_t row = a->shape[0] ? a->bytes / (size_t)a->shape[0] : 0;
  int64_t skip = start * a->step[0] * (int64_t)kc_dtype_size(a->dtype);   /* bytes */
  if (ctx->device == KC_DEVICE_CUDA) v->data.dev = a->data.dev + (uint64_t)skip;
  else v->data.host = (char *)a->data.host + skip;
  v->shape[0] = stop - start;
  v->bytes = (size_t)(stop - start) * row;
  v->base = owner;
  v->refs = 0;
  v->freed = 0;
  owner->refs++;
  *out = v;
  return KC_OK;
}

/* Copies and fills move the bytes of contiguous memory: a strided view has gaps. */
static kc_status need_contiguous(const kc_array *a, const char *what) {
  if (a->contiguous) return KC_OK;
  return rt_error(a->ctx, KC_ERR_INVALID, "%s: the array is a non-contiguous view "
                  "(kc_array_slice); copy through a kernel, or use the array it views", what);
}

kc_status rt_array_check_host_copy(kc_array *a, const void *host, size_t bytes) {
  if (rt_array_check(a, "array copy") != KC_OK) return KC_ERR_INVALID;
  if (need_contiguous(a, "array copy") != KC_OK) return KC_ERR_INVALID;
  if (!host) return rt_error(a->ctx, KC_ERR_INVALID, "array copy: host pointer is NULL");
  if (bytes != a->bytes)
    return rt_error(a->ctx, KC_ERR_INVALID,
                    "array copy: the array holds %zu bytes, the host buffer %zu", a->bytes,
                    bytes);
  return KC_OK;
}

kc_status kc_array_to_host(kc_array *a, void *host, size_t bytes) {
  RT_NEED(NULL, a, "kc_array_to_host");
  RT_NEED(a->ctx, host, "kc_array_to_host");
  kc_status s = rt_array_check_host_copy(a, host, bytes);
  if (s != KC_OK) return s;
  if (a->ctx->device == KC_DEVICE_CUDA) return rt_cuda_copy_dtoh(a->ctx, host, a->data.dev, bytes);
  if (bytes) memcpy(host, a->data.host, bytes);
  return KC_OK;
}

kc_status kc_array_copy_from_host(kc_array *a, const void *host, size_t bytes) {
  RT_NEED(NULL, a, "kc_array_copy_from_host");
  RT_NEED(a->ctx, host, "kc_array_copy_from_host");
  kc_status s = rt_array_check_host_copy(a, host, bytes);
  if (s != KC_OK) return s;
  if (a->ctx->device == KC_DEVICE_CUDA) return rt_cuda_copy_htod(a->ctx, a->data.dev, host, bytes);
  if (bytes) memcpy(a->data.host, host, bytes);
  return KC_OK;
}

kc_status rt_array_check_copy(kc_array *dst, const kc_array *src) {
  kc_context *ctx = dst->ctx;
  if (rt_array_check(dst, "array copy: destination") != KC_OK ||
      rt_array_check(src, "array copy: source") != KC_OK)
    return KC_ERR_INVALID;
  if (src->ctx != ctx)
    return rt_error(ctx, KC_ERR_INVALID, "array copy: the arrays belong to two contexts");
  if (need_contiguous(dst, "array copy") != KC_OK || need_contiguous(src, "array copy") != KC_OK)
    return KC_ERR_INVALID;
  if (src->dtype != dst->dtype || src->bytes != dst->bytes ||
      (src->record && strcmp(src->record, dst->record) != 0))
    return rt_error(ctx, KC_ERR_INVALID,
                    "array copy: source is %s of %lld elements, destination %s of %lld",
                    kc_dtype_name(src->dtype), (long long)kc_array_size(src),
                    kc_dtype_name(dst->dtype), (long long)kc_array_size(dst));
  return KC_OK;
}

kc_status kc_array_copy(kc_array *dst, const kc_array *src) {
  RT_NEED(NULL, dst, "kc_array_copy");
  RT_NEED(dst->ctx, src, "kc_array_copy");
  kc_context *ctx = dst->ctx;
  kc_status s = rt_array_check_copy(dst, src);
  if (s != KC_OK) return s;
  if (ctx->device == KC_DEVICE_CUDA)
    return rt_cuda_copy_dtod(ctx, dst->data.dev, src->data.dev, src->bytes);
  if (src->bytes) memmove(dst->data.host, src->data.host, src->bytes);
  return KC_OK;
}

/* what: "array fill" or "array zero"; value NULL for a zero fill. */
kc_status rt_array_check_fill(kc_array *a, const void *value, const char *what) {
  if (rt_array_check(a, what) != KC_OK || need_contiguous(a, what) != KC_OK)
    return KC_ERR_INVALID;
  if (strcmp(what, "array zero") == 0) return KC_OK;
  if (!value) return rt_error(a->ctx, KC_ERR_INVALID, "%s: value is NULL", what);
  if (a->record)
    return rt_error(a->ctx, KC_ERR_INVALID, "%s: an array of records is filled "
                    "with kc_array_zero or kc_array_copy_from_host", what);
  return KC_OK;
}

kc_status kc_array_fill(kc_array *a, const void *value) {
  RT_NEED(NULL, a, "kc_array_fill");
  RT_NEED(a->ctx, value, "kc_array_fill");
  kc_status s = rt_array_check_fill(a, value, "array fill");
  if (s != KC_OK) return s;
  size_t es = kc_dtype_size(a->dtype), n = a->bytes / es;
  if (a->ctx->device == KC_DEVICE_CUDA) return rt_cuda_fill(a->ctx, a->data.dev, n, es, value);
  char *p = a->data.host;
  for (size_t i = 0; i < n; i++) memcpy(p + i * es, value, es);
  return KC_OK;
}

kc_status kc_array_zero(kc_array *a) {
  RT_NEED(NULL, a, "kc_array_zero");
  if (rt_array_check_fill(a, NULL, "array zero") != KC_OK) return KC_ERR_INVALID;
  if (a->ctx->device == KC_DEVICE_CUDA) {
    uint8_t zero = 0;
    return rt_cuda_fill(a->ctx, a->data.dev, a->bytes, 1, &zero);
  }
  if (a->bytes) memset(a->data.host, 0, a->bytes);
  return KC_OK;
}

/* Keep a freed handle (its memory already released) in the graveyard, really
 * freeing the oldest one there. */
static void bury(kc_array *a) {
  kc_context *ctx = a->ctx;
  a->magic = RT_ARRAY_FREED;
  a->data.dev = 0;
  rt_free_str(ctx, a->record);
  a->record = NULL;
  kc_array **slot = &ctx->graveyard[ctx->graveyard_next++ % RT_GRAVEYARD];
  if (*slot) rt_free(ctx, *slot, sizeof **slot);
  *slot = a;
}

void rt_array_graveyard_free(kc_context *ctx) {
  for (int i = 0; i < RT_GRAVEYARD; i++) {
    rt_free(ctx, ctx->graveyard[i], sizeof *ctx->graveyard[i]);
    ctx->graveyard[i] = NULL;
  }
}

static void release_owner(kc_array *owner) {
  kc_context *ctx = owner->ctx;
  if (owner->foreign) {
    /* the caller's memory (interop.c): hand it back, never free it */
    if (owner->release) owner->release(owner->release_arg);
  } else if (ctx->device == KC_DEVICE_CUDA) {
    rt_cuda_mem_free(ctx, owner->data.dev);
  } else {
    rt_free(ctx, owner->data.host, owner->bytes);
  }
  bury(owner);
}

void rt_array_unref(kc_array *owner) {
  if (--owner->refs == 0) release_owner(owner);
}

void kc_array_free(kc_array *a) {
  if (!a || a->magic != RT_ARRAY_LIVE) return;   /* NULL, or freed already */
  if (a->base) {
    kc_array *owner = a->base;
    bury(a);
    if (--owner->refs == 0) release_owner(owner);
    return;
  }
  /* the handle is dead now; its memory lives on while views of it do */
  a->magic = RT_ARRAY_FREED;
  a->freed = 1;
  if (--a->refs == 0) release_owner(a);
}

kc_dtype kc_array_dtype(const kc_array *a) { return a ? a->dtype : KC_FLOAT32; }
int kc_array_ndim(const kc_array *a) { return a ? a->ndim : 0; }
const int64_t *kc_array_shape(const kc_array *a) { return a ? a->shape : NULL; }
size_t kc_array_bytes(const kc_array *a) { return a ? a->bytes : 0; }

int64_t kc_array_size(const kc_array *a) {
  if (!a) return 0;
  int64_t n = 1;
  for (int i = 0; i < a->ndim; i++) n *= a->shape[i];
  return n;
}

/* ---- Pinned host memory ------------------------------------------------------------ */
/* On the CPU device a plain allocation with its size in a 16-byte header, since the
 * allocation hook wants the size back when freeing. */
#define HOST_HEADER 16

kc_status kc_host_alloc(kc_context *ctx, size_t bytes, void **out) {
  RT_NEED(NULL, ctx, "kc_host_alloc");
  RT_NEED(ctx, out, "kc_host_alloc");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (ctx->device == KC_DEVICE_CUDA) return rt_cuda_host_alloc(ctx, bytes, out);
  if (bytes > SIZE_MAX - HOST_HEADER)
    return rt_error(ctx, KC_ERR_INVALID, "host alloc: %zu bytes is too large", bytes);
  char *p = rt_alloc(ctx, bytes + HOST_HEADER);
  if (!p) return rt_error(ctx, KC_ERR_NOMEM, "out of memory allocating %zu host bytes", bytes);
  memcpy(p, &bytes, sizeof bytes);
  *out = p + HOST_HEADER;
  return KC_OK;
}

void kc_host_free(kc_context *ctx, void *p) {
  if (!ctx || !p) return;
  if (ctx->device == KC_DEVICE_CUDA) {
    rt_cuda_host_free(ctx, p);
    return;
  }
  char *base = (char *)p - HOST_HEADER;
  size_t bytes = 0;
  memcpy(&bytes, base, sizeof bytes);
  rt_free(ctx, base, bytes + HOST_HEADER);
}

/*
 * dlpack.c — DLPack, the array exchange standard of PyTorch, CuPy, JAX and NumPy
 * (dlpack/dlpack.h, Debian's libdlpack-dev; the ABI of DLManagedTensor is the same from
 * DLPack 0.6 on). Both ways are zero-copy:
 *   export: a DLManagedTensor over an array's elements that holds the array's memory
 *           (a reference on its owner, as a view holds it) until its deleter runs;
 *   import: an array over a tensor's elements (interop.c's rt_array_wrap) whose release
 *           calls the tensor's deleter once the array and its views are all freed.
 * Built without dlpack.h both calls are KC_ERR_UNSUPPORTED and say why.
 */
#include <string.h>

#include "rt.h"

#ifdef KC_HAVE_DLPACK

#include <dlpack/dlpack.h>

/* kDLBool: a type code from DLPack 0.8 on; 0.6's header (Debian 12) lacks the name */
#define RT_DL_BOOL 6u

/* A number dtype as DLPack spells it. bool: kDLBool where the header has it, else
 * one-byte kDLUInt (what PyTorch exported before kDLBool existed). */
static DLDataType dl_dtype_of(kc_dtype t) {
  DLDataType d = {kDLInt, (uint8_t)(kc_dtype_size(t) * 8), 1};
  if (t == KC_BOOL) d.code = DLPACK_VERSION >= 80 ? RT_DL_BOOL : kDLUInt;
  else if (t >= KC_UINT8 && t <= KC_UINT64) d.code = kDLUInt;
  else if (t == KC_FLOAT16 || t == KC_FLOAT32 || t == KC_FLOAT64) d.code = kDLFloat;
  else if (t == KC_COMPLEX64 || t == KC_COMPLEX128) d.code = kDLComplex;
  return d;
}

/* The kc dtype of a DLPack one (lanes 1), or -1. */
static int kc_dtype_of(DLDataType d) {
  static const kc_dtype ints[] = {KC_INT8, KC_INT16, KC_INT32, KC_INT64};
  static const kc_dtype uints[] = {KC_UINT8, KC_UINT16, KC_UINT32, KC_UINT64};
  int k = d.bits == 8 ? 0 : d.bits == 16 ? 1 : d.bits == 32 ? 2 : d.bits == 64 ? 3 : -1;
  switch (d.code) {
  case kDLInt: return k < 0 ? -1 : (int)ints[k];
  case kDLUInt: return k < 0 ? -1 : (int)uints[k];
  case kDLFloat: return d.bits == 16 ? KC_FLOAT16 : d.bits == 32 ? KC_FLOAT32
                      : d.bits == 64 ? KC_FLOAT64 : -1;
  case kDLComplex: return d.bits == 64 ? KC_COMPLEX64 : d.bits == 128 ? KC_COMPLEX128 : -1;
  case RT_DL_BOOL: return d.bits == 8 ? KC_BOOL : -1;
  default: return -1;
  }
}

/* DLPack's name of a device type (its enum's, DLPack 0.6 to 1.x). */
static const char *device_name(int type) {
  switch (type) {
  case 1: return "kDLCPU";
  case 2: return "kDLCUDA";
  case 3: return "kDLCUDAHost";
  case 4: return "kDLOpenCL";
  case 7: return "kDLVulkan";
  case 8: return "kDLMetal";
  case 9: return "kDLVPI";
  case 10: return "kDLROCM";
  case 11: return "kDLROCMHost";
  case 12: return "kDLExtDev";
  case 13: return "kDLCUDAManaged";
  case 14: return "kDLOneAPI";
  case 15: return "kDLWebGPU";
  case 16: return "kDLHexagon";
  default: return "an unknown device type";
  }
}

/* ---- Export ---------------------------------------------------------------------------- */
/* The tensor and what it points into, freed together by the deleter. */
typedef struct rt_dl_export {
  DLManagedTensor m;
  int64_t shape[KC_MAX_DIMS];
  int64_t strides[KC_MAX_DIMS];
  kc_array *owner;              /* holds one of owner->refs */
} rt_dl_export;

static void export_deleter(DLManagedTensor *self) {
  if (!self) return;
  rt_dl_export *e = self->manager_ctx;
  kc_array *owner = e->owner;
  rt_free(owner->ctx, e, sizeof *e);
  rt_array_unref(owner);
}

kc_status kc_array_to_dlpack(kc_array *a, struct DLManagedTensor **out) {
  RT_NEED(NULL, a, "kc_array_to_dlpack");
  RT_NEED(a->ctx, out, "kc_array_to_dlpack");
  *out = NULL;
  kc_context *ctx = a->ctx;
  if (rt_array_check(a, "kc_array_to_dlpack") != KC_OK) return KC_ERR_INVALID;
  if (a->record)
    return rt_error(ctx, KC_ERR_UNSUPPORTED, "kc_array_to_dlpack: an array of records has "
                    "no DLPack dtype");
  rt_dl_export *e = rt_calloc(ctx, 1, sizeof *e);
  if (!e) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  DLTensor *t = &e->m.dl_tensor;
  int cuda = ctx->device == KC_DEVICE_CUDA;
  /* the first element, byte_offset 0: as PyTorch and CuPy export views */
  t->data = cuda ? (void *)(uintptr_t)a->data.dev : a->data.host;
  t->device.device_type = cuda ? kDLCUDA : kDLCPU;
  t->device.device_id = cuda ? ctx->cfg.cuda_device : 0;
  t->ndim = a->ndim;
  t->dtype = dl_dtype_of(a->dtype);
  memcpy(e->shape, a->shape, sizeof e->shape);
  memcpy(e->strides, a->step, sizeof e->strides);
  t->shape = e->shape;
  t->strides = e->strides;
  t->byte_offset = 0;
  e->m.manager_ctx = e;
  e->m.deleter = export_deleter;
  e->owner = a->base ? a->base : a;
  e->owner->refs++;
  *out = &e->m;
  return KC_OK;
}

/* ---- Import ---------------------------------------------------------------------------- */
static void import_release(void *arg) {
  DLManagedTensor *m = arg;
  if (m->deleter) m->deleter(m);
}

/* The tensor's device is one this context's kernels can read. */
static kc_status check_device(kc_context *ctx, DLDevice dev) {
  int type = (int)dev.device_type;
  if (ctx->device == KC_DEVICE_CUDA) {
    int want = ctx->cfg.cuda_device;
    if ((type == kDLCUDA && dev.device_id == want) || type == kDLCUDAManaged) return KC_OK;
    if (type == kDLCUDA)
      return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor is on CUDA "
                      "device %d (kDLCUDA), the context on CUDA device %d", dev.device_id, want);
    return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor is on %s (device "
                    "type %d), not on the context's CUDA device %d%s", device_name(type), type,
                    want, type == kDLCPU || type == kDLCUDAHost
                    ? ": copy it with kc_array_from_host" : "");
  }
  if (type == kDLCPU || type == kDLCUDAHost) return KC_OK;
  return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor is on %s (device "
                  "type %d), and the context's device is the CPU, which reads host memory "
                  "(kDLCPU, kDLCUDAHost) only", device_name(type), type);
}

static kc_status check_dtype(kc_context *ctx, DLDataType d, kc_dtype *out) {
  int t = d.lanes == 1 ? kc_dtype_of(d) : -1;
  if (t >= 0) {
    *out = (kc_dtype)t;
    return KC_OK;
  }
  if (d.lanes != 1)
    return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor's dtype has %u "
                    "lanes (a vector type); kcc arrays take lanes == 1", (unsigned)d.lanes);
  return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor's dtype (type code "
                  "%u, %u bits) has no kcc dtype: kcc takes kDLInt and kDLUInt of 8 to 64 bits, "
                  "kDLFloat of 16, 32 or 64, kDLComplex of 64 or 128, kDLBool of 8",
                  (unsigned)d.code, (unsigned)d.bits);
}

kc_status kc_array_from_dlpack(kc_context *ctx, struct DLManagedTensor *m, kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_from_dlpack");
  RT_NEED(ctx, out, "kc_array_from_dlpack");
  *out = NULL;
  if (ctx->broken) return rt_context_usable(ctx);
  if (!m) return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor is NULL");
  const DLTensor *t = &m->dl_tensor;
  kc_dtype dtype = KC_FLOAT32;   /* set by check_dtype */
  kc_status s = check_device(ctx, t->device);
  if (s == KC_OK) s = check_dtype(ctx, t->dtype, &dtype);
  if (s != KC_OK) return s;
  if (t->ndim < 1 || t->ndim > KC_MAX_DIMS)
    return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: the tensor has %d dimensions;"
                    " kcc arrays have 1 to %d", t->ndim, KC_MAX_DIMS);
  uint64_t base = (uint64_t)(uintptr_t)t->data;
  if (t->byte_offset > UINT64_MAX - base)
    return rt_error(ctx, KC_ERR_INVALID, "kc_array_from_dlpack: data + byte_offset overflows");
  return rt_array_wrap(ctx, "kc_array_from_dlpack", dtype, t->ndim, t->shape, t->strides,
                       base + t->byte_offset, import_release, m, out);
}

#else /* built without dlpack/dlpack.h */

static kc_status no_dlpack(kc_context *ctx, const char *call) {
  return rt_error(ctx, KC_ERR_UNSUPPORTED, "%s: kcc was built without DLPack (the header "
                  "dlpack/dlpack.h, Debian's libdlpack-dev, was not found)", call);
}

kc_status kc_array_to_dlpack(kc_array *a, struct DLManagedTensor **out) {
  RT_NEED(NULL, a, "kc_array_to_dlpack");
  RT_NEED(a->ctx, out, "kc_array_to_dlpack");
  *out = NULL;
  return no_dlpack(a->ctx, "kc_array_to_dlpack");
}

kc_status kc_array_from_dlpack(kc_context *ctx, struct DLManagedTensor *m, kc_array **out) {
  RT_NEED(NULL, ctx, "kc_array_from_dlpack");
  RT_NEED(ctx, out, "kc_array_from_dlpack");
  *out = NULL;
  (void)m;
  return no_dlpack(ctx, "kc_array_from_dlpack");
}

#endif

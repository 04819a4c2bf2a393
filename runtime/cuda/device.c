/*
 * device.c — CUDA devices and the context's hold on one: how many there are, what
 * each is (kc_device_info), opening one for a kc_context (its primary context
 * retained, the launch limits read from its attributes) and closing it, whether two
 * can reach each other's memory, and which device or context a pointer or a CUstream
 * the caller lends belongs to (interop.c's checks).
 */
#include <string.h>

#include "driver.h"

/* ---- Devices ------------------------------------------------------------------------ */
int rt_cuda_device_supported(int cc_major, int cc_minor) {
  (void)cc_minor;
  return cc_major >= 5;
}

kc_status rt_cuda_count(kc_context *ctx, int *count) {
  kc_status status = rt_cu_need_driver(ctx);
  *count = 0;
  if (status != KC_OK) return status;
  RT_CU(ctx, DeviceGetCount, (count));
cleanup:
  return status;
}

/* An ordinal past the devices there are: say which ordinals exist. */
static kc_status no_such_device(kc_context *ctx, int index, int count) {
  if (count == 0) return rt_error(ctx, KC_ERR_NO_DEVICE, "no CUDA device found");
  if (count == 1)
    return rt_error(ctx, KC_ERR_NO_DEVICE, "no CUDA device %d: there is 1 CUDA device (0)",
                    index);
  return rt_error(ctx, KC_ERR_NO_DEVICE, "no CUDA device %d: there are %d CUDA devices (0..%d)",
                  index, count, count - 1);
}

int rt_cu_attr(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  if (rt_drv.DeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) v = 0;
  return v;
}

kc_status rt_cuda_info(kc_context *ctx, int index, kc_device_info *info) {
  kc_status status = rt_cu_need_driver(ctx);
  CUdevice dev;
  int count = 0;
  memset(info, 0, sizeof *info);
  if (status != KC_OK) return status;
  RT_CU(ctx, DeviceGetCount, (&count));
  if (index < 0 || index >= count) return no_such_device(ctx, index, count);
  RT_CU(ctx, DeviceGet, (&dev, index));
  RT_CU(ctx, DeviceGetName, (info->name, (int)sizeof info->name, dev));
  RT_CU(ctx, DeviceTotalMem, (&info->total_memory, dev));
  info->cc_major = rt_cu_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info->cc_minor = rt_cu_attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info->multiprocessors = rt_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info->max_threads_per_block = rt_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info->max_shared_per_block =
      (size_t)rt_cu_attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info->supported = rt_cuda_device_supported(info->cc_major, info->cc_minor);
cleanup:
  return status;
}

/* ---- The context's device ----------------------------------------------------------- */
kc_status rt_cuda_open(kc_context *ctx, int index) {
  kc_status status = rt_cu_need_driver(ctx);
  rt_cuda *c = NULL;
  int count = 0;
  if (status != KC_OK) return status;
  RT_CU(ctx, DeviceGetCount, (&count));
  if (count == 0) return rt_error(ctx, KC_ERR_NO_DEVICE, "no CUDA device found");
  if (index < 0 || index >= count) return no_such_device(ctx, index, count);
  c = rt_calloc(ctx, 1, sizeof *c);
  if (!c) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  c->index = index;
  RT_CU(ctx, DeviceGet, (&c->dev, index));
  int major = rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  int minor = rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  if (!rt_cuda_device_supported(major, minor)) {
    status = rt_error(ctx, KC_ERR_NO_DEVICE,
                      "CUDA device %d has compute capability %d.%d; kcc needs 5.0 or newer",
                      index, major, minor);
    goto cleanup;
  }
  RT_CU(ctx, DevicePrimaryCtxRetain, (&c->pctx, c->dev));
  rt_limits *l = &ctx->limits;
  l->max_threads = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  l->max_block[0] = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l->max_block[1] = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l->max_block[2] = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  l->max_grid[0] = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  l->max_grid[1] = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l->max_grid[2] = (unsigned)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  l->max_shared = (size_t)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  l->max_shared_optin =
      (size_t)rt_cu_attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  if (l->max_shared_optin < l->max_shared) l->max_shared_optin = l->max_shared;
  ctx->cuda = c;
  c = NULL;
  status = rt_cu_enter(ctx);
cleanup:
  if (c) rt_free(ctx, c, sizeof *c);
  return status;
}

void rt_cuda_close(kc_context *ctx) {
  if (!ctx->cuda) return;
  if (ctx->cuda->idle && rt_cu_enter_release(ctx, 0)) rt_drv.EventDestroy(ctx->cuda->idle);
  rt_drv.DevicePrimaryCtxRelease(ctx->cuda->dev);
  rt_free(ctx, ctx->cuda, sizeof *ctx->cuda);
  ctx->cuda = NULL;
}

/* ---- Several GPUs ------------------------------------------------------------------- */
/* Whether device a can read and write device b's memory directly (NVLink or PCIe P2P);
 * *can is 0 when the driver cannot say. */
kc_status rt_cuda_can_access_peer(int a, int b, int *can) {
  kc_status status = rt_cu_need_driver(NULL);
  CUdevice da, db;
  *can = 0;
  if (status != KC_OK) return status;
  if (!rt_drv.DeviceCanAccessPeer) return KC_OK;
  RT_CU(NULL, DeviceGet, (&da, a));
  RT_CU(NULL, DeviceGet, (&db, b));
  RT_CU(NULL, DeviceCanAccessPeer, (can, da, db));
cleanup:
  return status;
}

/* ---- Interop: what the caller lends ------------------------------------------------- */
void *rt_cuda_context(kc_context *ctx) { return ctx->cuda ? ctx->cuda->pctx : NULL; }

kc_status rt_cuda_pointer_check(kc_context *ctx, const char *what, uint64_t ptr) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || !rt_drv.PointerGetAttribute) return status;
  int ordinal = -1;
  CUresult r = rt_drv.PointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                          (CUdeviceptr)ptr);
  if (r == CUDA_ERROR_INVALID_VALUE)
    return rt_error(ctx, KC_ERR_INVALID, "%s: 0x%llx is not memory CUDA knows (not from "
                    "cuMemAlloc/cudaMalloc, a memory pool, cuMemAllocHost or "
                    "cuMemHostRegister)", what, (unsigned long long)ptr);
  if (r != CUDA_SUCCESS) return rt_cu_fail(ctx, r, "cuPointerGetAttribute");
  if (ordinal != ctx->cuda->index)
    return rt_error(ctx, KC_ERR_INVALID, "%s: 0x%llx is memory of CUDA device %d; the "
                    "context's device is %d", what, (unsigned long long)ptr, ordinal,
                    ctx->cuda->index);
  return KC_OK;
}

kc_status rt_cuda_stream_check(kc_context *ctx, void *stream) {
  kc_status status = rt_cu_enter(ctx);
  CUstream s = (CUstream)stream;
  if (status != KC_OK || !rt_drv.StreamGetCtx || !s || s == CU_STREAM_LEGACY ||
      s == CU_STREAM_PER_THREAD)
    return status;
  CUcontext owner = NULL;
  RT_CU(ctx, StreamGetCtx, (s, &owner));
  if (owner != ctx->cuda->pctx)
    return rt_error(ctx, KC_ERR_INVALID, "stream from CUDA: the CUstream belongs to another "
                    "CUcontext than the context's (the primary context of device %d)",
                    ctx->cuda->index);
cleanup:
  return status;
}

/*
 * memory.c — device memory and page-locked host memory: allocations, copies between
 * host and device and within the device, fills of 1-, 2-, 4- and 8-byte elements,
 * the same queued on a stream, copies between two contexts' GPUs, and registering
 * the caller's host memory. A synchronous copy to or from the host waits for earlier
 * work, so under a timeout it polls first (wait.c).
 */
#include <string.h>

#include "driver.h"

/* ---- Memory ------------------------------------------------------------------------- */
kc_status rt_cuda_mem_alloc(kc_context *ctx, size_t bytes, uint64_t *out) {
  kc_status status = rt_cu_enter(ctx);
  CUdeviceptr p = 0;
  if (status != KC_OK) return status;
  RT_CU(ctx, MemAlloc, (&p, bytes ? bytes : 1));
  *out = (uint64_t)p;
cleanup:
  return status;
}

void rt_cuda_mem_free(kc_context *ctx, uint64_t p) {
  if (rt_cu_enter_release(ctx, 1)) rt_drv.MemFree((CUdeviceptr)p);
}

/* The synchronous copies to and from the host wait for earlier work in the context
 * (the legacy stream's rule): with a timeout, that wait is rt_cu_wait_idle's. Copies within
 * the device and fills do not block the host. */
kc_status rt_cuda_copy_htod(kc_context *ctx, uint64_t dst, const void *src, size_t n) {
  kc_status status = rt_cu_wait_idle(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyHtoD, ((CUdeviceptr)dst, src, n));
cleanup:
  return status;
}

kc_status rt_cuda_copy_dtoh(kc_context *ctx, void *dst, uint64_t src, size_t n) {
  kc_status status = rt_cu_wait_idle(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyDtoH, (dst, (CUdeviceptr)src, n));
cleanup:
  return status;
}

kc_status rt_cuda_copy_dtod(kc_context *ctx, uint64_t dst, uint64_t src, size_t n) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyDtoD, ((CUdeviceptr)dst, (CUdeviceptr)src, n));
cleanup:
  return status;
}

kc_status rt_cuda_fill(kc_context *ctx, uint64_t dst, size_t count, size_t elem_size,
                       const void *value) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || count == 0) return status;
  CUdeviceptr d = (CUdeviceptr)dst;
  if (elem_size == 1) {
    uint8_t v;
    memcpy(&v, value, 1);
    RT_CU(ctx, MemsetD8, (d, v, count));
  } else if (elem_size == 2) {
    uint16_t v;
    memcpy(&v, value, 2);
    RT_CU(ctx, MemsetD16, (d, v, count));
  } else if (elem_size == 4) {
    uint32_t v;
    memcpy(&v, value, 4);
    RT_CU(ctx, MemsetD32, (d, v, count));
  } else {
    /* 8-byte elements: two strided 32-bit fills, low then high halves (a 2-D memset
       with an 8-byte pitch and rows one word wide) */
    uint32_t half[2];
    memcpy(half, value, 8);
    RT_CU(ctx, MemsetD2D32, (d, 8, half[0], 1, count));
    RT_CU(ctx, MemsetD2D32, (d + 4, 8, half[1], 1, count));
  }
cleanup:
  return status;
}

kc_status rt_cuda_host_alloc(kc_context *ctx, size_t bytes, void **out) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, MemAllocHost, (out, bytes ? bytes : 1));
cleanup:
  return status;
}

void rt_cuda_host_free(kc_context *ctx, void *p) {
  if (rt_cu_enter_release(ctx, 1)) rt_drv.MemFreeHost(p);
}

/* ---- Stream-ordered copies and fills ------------------------------------------------ */
kc_status rt_cuda_copy_htod_async(kc_context *ctx, uint64_t dst, const void *src, size_t n,
                                  void *stream) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyHtoDAsync, ((CUdeviceptr)dst, src, n, (CUstream)stream));
cleanup:
  return status;
}

/* A copy to pageable host memory (not cuMemAllocHost'd or registered: the driver does
 * not know the pointer) returns only once done, kernels before it included: with a
 * timeout the stream is polled first, so the copy finds nothing to wait for. */
static int pageable(void *p) {
  unsigned type = 0;
  return !rt_drv.PointerGetAttribute ||
         rt_drv.PointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                    (CUdeviceptr)(uintptr_t)p) != CUDA_SUCCESS;
}

kc_status rt_cuda_copy_dtoh_async(kc_context *ctx, void *dst, uint64_t src, size_t n,
                                  void *stream) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || n == 0) return status;
  if (ctx->cfg.timeout_ms > 0 && pageable(dst) &&
      (status = rt_cuda_wait(ctx, rt_cu_poll_stream, stream, ctx->cuda->last_kernel)) != KC_OK)
    return status;
  RT_CU(ctx, MemcpyDtoHAsync, (dst, (CUdeviceptr)src, n, (CUstream)stream));
cleanup:
  return status;
}

kc_status rt_cuda_copy_dtod_async(kc_context *ctx, uint64_t dst, uint64_t src, size_t n,
                                  void *stream) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyDtoDAsync, ((CUdeviceptr)dst, (CUdeviceptr)src, n, (CUstream)stream));
cleanup:
  return status;
}

/* As rt_cuda_fill, queued on stream: the value is read now (the driver takes it by
 * value), so the caller's copy may change at once. */
kc_status rt_cuda_fill_async(kc_context *ctx, uint64_t dst, size_t count, size_t elem_size,
                             const void *value, void *stream) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK || count == 0) return status;
  CUdeviceptr d = (CUdeviceptr)dst;
  CUstream cs = (CUstream)stream;
  if (elem_size == 1) {
    uint8_t v;
    memcpy(&v, value, 1);
    RT_CU(ctx, MemsetD8Async, (d, v, count, cs));
  } else if (elem_size == 2) {
    uint16_t v;
    memcpy(&v, value, 2);
    RT_CU(ctx, MemsetD16Async, (d, v, count, cs));
  } else if (elem_size == 4) {
    uint32_t v;
    memcpy(&v, value, 4);
    RT_CU(ctx, MemsetD32Async, (d, v, count, cs));
  } else {
    uint32_t half[2];   /* as rt_cuda_fill: low then high words, an 8-byte pitch */
    memcpy(half, value, 8);
    RT_CU(ctx, MemsetD2D32Async, (d, 8, half[0], 1, count, cs));
    RT_CU(ctx, MemsetD2D32Async, (d + 4, 8, half[1], 1, count, cs));
  }
cleanup:
  return status;
}

/* ---- Between two GPUs --------------------------------------------------------------- */
/* n bytes from src's device memory (context sctx) to dst's (dctx), ordered on stream
 * (a CUstream of either context) or, with none, finished on return. Without peer access
 * enabled the driver stages the copy through the host itself, so this works between any
 * two GPUs; errors are recorded in dctx. */
kc_status rt_cuda_copy_peer(kc_context *dctx, uint64_t dst, kc_context *sctx, uint64_t src,
                            size_t n, void *stream) {
  kc_status status = rt_cu_enter(dctx);
  if (status != KC_OK) return status;
  if (!sctx->cuda) return rt_error(dctx, KC_ERR_NO_DEVICE, "the source has no CUDA device");
  if (!rt_drv.MemcpyPeer || !rt_drv.MemcpyPeerAsync)
    return rt_error(dctx, KC_ERR_UNSUPPORTED,
                    "the CUDA driver (%s) lacks cuMemcpyPeer: it is too old for peer copies",
                    rt_drv.path);
  if (!stream && dctx->cfg.timeout_ms > 0) {   /* a synchronous copy waits for both */
    if (rt_cu_wait_idle(sctx) != KC_OK)
      return rt_error(dctx, sctx->broken ? sctx->broken : KC_ERR_CUDA,
                      "peer copy: the source's context: %s", sctx->err);
    if ((status = rt_cu_wait_idle(dctx)) != KC_OK) return status;
  }
  if (stream)
    RT_CU(dctx, MemcpyPeerAsync, ((CUdeviceptr)dst, dctx->cuda->pctx, (CUdeviceptr)src,
                                  sctx->cuda->pctx, n, (CUstream)stream));
  else
    RT_CU(dctx, MemcpyPeer, ((CUdeviceptr)dst, dctx->cuda->pctx, (CUdeviceptr)src,
                             sctx->cuda->pctx, n));
cleanup:
  return status;
}

/* ---- Registered host memory --------------------------------------------------------- */
kc_status rt_cuda_host_register(kc_context *ctx, void *p, size_t bytes) {
  kc_status status = rt_cu_enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, MemHostRegister, (p, bytes, 0));
cleanup:
  return status;
}

void rt_cuda_host_unregister(kc_context *ctx, void *p) {
  if (rt_cu_enter_release(ctx, 1)) rt_drv.MemHostUnregister(p);
}

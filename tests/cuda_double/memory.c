/*
 * memory.c — device allocations (host memory here), copies, fills, page-locked and
 * registered host memory, pointer attributes.
 *
 * Every device range a call names must lie inside one live allocation: a copy or fill
 * that runs past the end, or a pointer the driver never gave out, is a contract
 * violation (on a GPU: an illegal address, or silent corruption).
 */
#include <stdlib.h>
#include <string.h>

#include "double.h"

dbl_mem *dbl_mem_find(uintptr_t p) {
  for (dbl_mem *m = dbl.mems; m; m = m->next)
    if (p >= (uintptr_t)m->base && p - (uintptr_t)m->base < (m->size ? m->size : 1)) return m;
  return NULL;
}

int dbl_mem_check(const char *call, const char *what, uintptr_t p, size_t n) {
  dbl_mem *m = dbl_mem_find(p);
  if (!m) {
    dbl_contract("%s: %s 0x%llx is not in any allocation", call, what,
                 (unsigned long long)p);
    return 0;
  }
  size_t off = (size_t)(p - (uintptr_t)m->base);
  if (n > m->size - off) {
    dbl_contract("%s: %s 0x%llx + %zu bytes runs past its allocation (%zu bytes at "
                 "offset %zu)", call, what, (unsigned long long)p, n, m->size, off);
    return 0;
  }
  return 1;
}

char *dbl_mem_new(size_t size, dbl_mem_kind kind) {
  dbl_mem *m = calloc(1, sizeof *m);
  size_t round = (size + 255) / 256 * 256;
  char *p = aligned_alloc(256, round ? round : 256);   /* cuMemAlloc's alignment */
  if (!m || !p) {
    free(m);
    free(p);
    return NULL;
  }
  memset(p, 0xCD, round ? round : 256);   /* device memory starts as garbage */
  m->base = p;
  m->size = size;
  m->kind = kind;
  m->next = dbl.mems;
  dbl.mems = m;
  return p;
}

void dbl_mem_release(dbl_mem *m) {
  for (dbl_mem **pp = &dbl.mems; *pp; pp = &(*pp)->next)
    if (*pp == m) {
      *pp = m->next;
      break;
    }
  if (m->kind != DBL_REGISTERED) free(m->base);
  free(m);
}

size_t dbl_mem_live(void) {
  size_t n = 0;
  for (dbl_mem *m = dbl.mems; m; m = m->next)
    if (m->kind == DBL_DEVICE || m->kind == DBL_HOST) n += m->size;
  return n;
}

/* ---- Allocation -------------------------------------------------------------------- */
CUresult cuMemAlloc(CUdeviceptr *out, size_t bytes) {
  CUresult r = dbl_enter("cuMemAlloc", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!out || bytes == 0)) {
    dbl_contract("cuMemAlloc: dptr %p, %zu bytes (must be non-NULL and non-zero)",
                 (void *)out, bytes);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) {
    char *p = dbl_mem_new(bytes, DBL_DEVICE);
    if (!p) r = CUDA_ERROR_OUT_OF_MEMORY;
    else *out = (CUdeviceptr)(uintptr_t)p;
  }
  return dbl_leave(r);
}

static CUresult free_kind(const char *call, void *p, dbl_mem_kind kind) {
  dbl_mem *m = dbl_mem_find((uintptr_t)p);
  if (!m || m->base != (char *)p || m->kind != kind) {
    dbl_contract("%s: %p is not the start of a live %s", call, p,
                 kind == DBL_DEVICE ? "cuMemAlloc allocation"
                 : kind == DBL_HOST ? "cuMemAllocHost/cuMemHostAlloc block"
                 : "registered range");
    return CUDA_ERROR_INVALID_VALUE;
  }
  dbl_mem_release(m);
  return CUDA_SUCCESS;
}

CUresult cuMemFree(CUdeviceptr p) {
  CUresult r = dbl_enter("cuMemFree", DBL_NEED_CTX | DBL_RELEASES | DBL_BLOCKS);
  if (r == CUDA_SUCCESS && p) r = free_kind("cuMemFree", (void *)(uintptr_t)p, DBL_DEVICE);
  return dbl_leave_release(r);
}

CUresult cuMemAllocHost(void **out, size_t bytes) {
  CUresult r = dbl_enter("cuMemAllocHost", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!out || bytes == 0)) {
    dbl_contract("cuMemAllocHost: pp %p, %zu bytes", (void *)out, bytes);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && !(*out = dbl_mem_new(bytes, DBL_HOST))) r = CUDA_ERROR_OUT_OF_MEMORY;
  return dbl_leave(r);
}

CUresult cuMemHostAlloc(void **out, size_t bytes, unsigned flags) {
  CUresult r = dbl_enter("cuMemHostAlloc", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!out || bytes == 0 || (flags & ~0xFu))) {
    dbl_contract("cuMemHostAlloc: pp %p, %zu bytes, flags 0x%x", (void *)out, bytes, flags);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && !(*out = dbl_mem_new(bytes, DBL_HOST))) r = CUDA_ERROR_OUT_OF_MEMORY;
  return dbl_leave(r);
}

CUresult cuMemFreeHost(void *p) {
  CUresult r = dbl_enter("cuMemFreeHost", DBL_NEED_CTX | DBL_RELEASES | DBL_BLOCKS);
  if (r == CUDA_SUCCESS) r = free_kind("cuMemFreeHost", p, DBL_HOST);
  return dbl_leave_release(r);
}

CUresult cuMemHostRegister(void *p, size_t bytes, unsigned flags) {
  CUresult r = dbl_enter("cuMemHostRegister", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!p || bytes == 0 || (flags & ~0xFu))) {
    dbl_contract("cuMemHostRegister: %p, %zu bytes, flags 0x%x", p, bytes, flags);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) {
    for (dbl_mem *m = dbl.mems; m; m = m->next)
      if ((uintptr_t)p < (uintptr_t)m->base + m->size &&
          (uintptr_t)m->base < (uintptr_t)p + bytes && m->kind == DBL_REGISTERED)
        r = CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
  }
  if (r == CUDA_SUCCESS) {
    dbl_mem *m = calloc(1, sizeof *m);
    if (!m) {
      r = CUDA_ERROR_OUT_OF_MEMORY;
    } else {
      m->base = p;
      m->size = bytes;
      m->kind = DBL_REGISTERED;
      m->next = dbl.mems;
      dbl.mems = m;
    }
  }
  return dbl_leave(r);
}

CUresult cuMemHostUnregister(void *p) {
  CUresult r = dbl_enter("cuMemHostUnregister", DBL_NEED_CTX | DBL_RELEASES | DBL_BLOCKS);
  if (r == CUDA_SUCCESS) {
    dbl_mem *m = dbl_mem_find((uintptr_t)p);
    if (!m || m->base != (char *)p || m->kind != DBL_REGISTERED) {
      dbl_contract("cuMemHostUnregister: %p is not the start of a registered range", p);
      r = CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    } else {
      dbl_mem_release(m);
    }
  }
  return dbl_leave_release(r);
}

/* ---- Copies and fills -------------------------------------------------------------- */
static CUresult copy(const char *call, void *dst, const void *src, size_t n, int dst_dev,
                     int src_dev) {
  if (n == 0) return CUDA_SUCCESS;
  if (!dst || !src) {
    dbl_contract("%s: NULL %s", call, dst ? "source" : "destination");
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (dst_dev && !dbl_mem_check(call, "destination", (uintptr_t)dst, n))
    return CUDA_ERROR_INVALID_VALUE;
  if (src_dev && !dbl_mem_check(call, "source", (uintptr_t)src, n))
    return CUDA_ERROR_INVALID_VALUE;
  memmove(dst, src, n);
  return CUDA_SUCCESS;
}

#define DPTR(p) ((void *)(uintptr_t)(p))

CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) {
  CUresult r = dbl_enter("cuMemcpyHtoD", DBL_NEED_CTX | DBL_BLOCKS);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyHtoD", DPTR(dst), src, n, 1, 0);
  return dbl_leave(r);
}

CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) {
  CUresult r = dbl_enter("cuMemcpyDtoH", DBL_NEED_CTX | DBL_BLOCKS);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyDtoH", dst, DPTR(src), n, 0, 1);
  return dbl_leave(r);
}

CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) {
  CUresult r = dbl_enter("cuMemcpyDtoD", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyDtoD", DPTR(dst), DPTR(src), n, 1, 1);
  return dbl_leave(r);
}

CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemcpyHtoDAsync", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemcpyHtoDAsync", s);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyHtoDAsync", DPTR(dst), src, n, 1, 0);
  return dbl_leave(r);
}

CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemcpyDtoHAsync", DBL_NEED_CTX);
  /* to pageable memory (not the driver's) it returns only once the copy is done */
  if (r == CUDA_SUCCESS && !dbl_mem_find((uintptr_t)dst)) dbl_would_hang("cuMemcpyDtoHAsync");
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemcpyDtoHAsync", s);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyDtoHAsync", dst, DPTR(src), n, 0, 1);
  return dbl_leave(r);
}

CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemcpyDtoDAsync", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemcpyDtoDAsync", s);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyDtoDAsync", DPTR(dst), DPTR(src), n, 1, 1);
  return dbl_leave(r);
}

CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dctx, CUdeviceptr src, CUcontext sctx,
                           size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemcpyPeerAsync", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!dctx || !sctx)) {
    dbl_contract("cuMemcpyPeerAsync: NULL context");
    r = CUDA_ERROR_INVALID_CONTEXT;
  }
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemcpyPeerAsync", s);
  if (r == CUDA_SUCCESS) r = copy("cuMemcpyPeerAsync", DPTR(dst), DPTR(src), n, 1, 1);
  return dbl_leave(r);
}

/* A fill of count elements of size bytes each, at an address aligned to size. */
static CUresult fill(const char *call, CUdeviceptr dst, const void *value, size_t size,
                     size_t count) {
  if (count == 0) return CUDA_SUCCESS;
  if (dst % size) {
    dbl_contract("%s: destination 0x%llx is not aligned to %zu bytes", call,
                 (unsigned long long)dst, size);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (count > SIZE_MAX / size || !dbl_mem_check(call, "destination", dst, count * size))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t i = 0; i < count; i++) memcpy((char *)DPTR(dst) + i * size, value, size);
  return CUDA_SUCCESS;
}

static CUresult fill2d(const char *call, CUdeviceptr dst, size_t pitch, unsigned v,
                       size_t width, size_t height) {
  if (width == 0 || height == 0) return CUDA_SUCCESS;
  if (dst % 4 || (height > 1 && (pitch % 4 || pitch < width * 4))) {
    dbl_contract("%s: destination 0x%llx, pitch %zu for rows of %zu words", call,
                 (unsigned long long)dst, pitch, width);
    return CUDA_ERROR_INVALID_VALUE;
  }
  if (!dbl_mem_check(call, "destination", dst, (height - 1) * pitch + width * 4))
    return CUDA_ERROR_INVALID_VALUE;
  for (size_t y = 0; y < height; y++)
    for (size_t x = 0; x < width; x++) memcpy((char *)DPTR(dst) + y * pitch + x * 4, &v, 4);
  return CUDA_SUCCESS;
}

CUresult cuMemsetD8(CUdeviceptr dst, unsigned char v, size_t n) {
  CUresult r = dbl_enter("cuMemsetD8", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = fill("cuMemsetD8", dst, &v, 1, n);
  return dbl_leave(r);
}

CUresult cuMemsetD16(CUdeviceptr dst, unsigned short v, size_t n) {
  CUresult r = dbl_enter("cuMemsetD16", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = fill("cuMemsetD16", dst, &v, 2, n);
  return dbl_leave(r);
}

CUresult cuMemsetD32(CUdeviceptr dst, unsigned v, size_t n) {
  CUresult r = dbl_enter("cuMemsetD32", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = fill("cuMemsetD32", dst, &v, 4, n);
  return dbl_leave(r);
}

CUresult cuMemsetD2D32(CUdeviceptr dst, size_t pitch, unsigned v, size_t w, size_t h) {
  CUresult r = dbl_enter("cuMemsetD2D32", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = fill2d("cuMemsetD2D32", dst, pitch, v, w, h);
  return dbl_leave(r);
}

CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char v, size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemsetD8Async", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemsetD8Async", s);
  if (r == CUDA_SUCCESS) r = fill("cuMemsetD8Async", dst, &v, 1, n);
  return dbl_leave(r);
}

CUresult cuMemsetD16Async(CUdeviceptr dst, unsigned short v, size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemsetD16Async", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemsetD16Async", s);
  if (r == CUDA_SUCCESS) r = fill("cuMemsetD16Async", dst, &v, 2, n);
  return dbl_leave(r);
}

CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned v, size_t n, CUstream s) {
  CUresult r = dbl_enter("cuMemsetD32Async", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemsetD32Async", s);
  if (r == CUDA_SUCCESS) r = fill("cuMemsetD32Async", dst, &v, 4, n);
  return dbl_leave(r);
}

CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned v, size_t w, size_t h,
                            CUstream s) {
  CUresult r = dbl_enter("cuMemsetD2D32Async", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuMemsetD2D32Async", s);
  if (r == CUDA_SUCCESS) r = fill2d("cuMemsetD2D32Async", dst, pitch, v, w, h);
  return dbl_leave(r);
}

/* ---- Pointer attributes (unified addressing) --------------------------------------- */
CUresult cuPointerGetAttribute(void *data, CUpointer_attribute a, CUdeviceptr p) {
  CUresult r = dbl_enter("cuPointerGetAttribute", 0);
  dbl_mem *m = r == CUDA_SUCCESS ? dbl_mem_find((uintptr_t)p) : NULL;
  if (r == CUDA_SUCCESS && !data) {
    dbl_contract("cuPointerGetAttribute: NULL data");
    r = CUDA_ERROR_INVALID_VALUE;
  }
  /* memory the driver does not know: what the Driver API returns for it */
  if (r == CUDA_SUCCESS && !m) r = CUDA_ERROR_INVALID_VALUE;
  if (r != CUDA_SUCCESS) return dbl_leave(r);
  int host = m->kind == DBL_HOST || m->kind == DBL_REGISTERED;
  switch (a) {
  case CU_POINTER_ATTRIBUTE_CONTEXT: {
    extern int dbl_primary_marker;
    *(CUcontext *)data = (CUcontext)(void *)&dbl_primary_marker;
    break;
  }
  case CU_POINTER_ATTRIBUTE_MEMORY_TYPE:
    *(unsigned *)data = host ? CU_MEMORYTYPE_HOST : CU_MEMORYTYPE_DEVICE;
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_POINTER: *(CUdeviceptr *)data = p; break;
  case CU_POINTER_ATTRIBUTE_HOST_POINTER:
    if (!host) r = CUDA_ERROR_INVALID_VALUE;
    else *(void **)data = DPTR(p);
    break;
  case CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL: *(int *)data = 0; break;
  case CU_POINTER_ATTRIBUTE_IS_MANAGED: *(unsigned *)data = 0; break;
  case CU_POINTER_ATTRIBUTE_RANGE_START_ADDR:
    *(CUdeviceptr *)data = (CUdeviceptr)(uintptr_t)m->base;
    break;
  case CU_POINTER_ATTRIBUTE_RANGE_SIZE: *(size_t *)data = m->size; break;
  default: r = CUDA_ERROR_INVALID_VALUE;
  }
  return dbl_leave(r);
}

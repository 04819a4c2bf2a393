/*
 * driver.c — initialisation, errors, the device and its primary context.
 *
 * The double has one device (compute capability 8.0, the limits of an A100) and its
 * primary context. Releasing the last reference destroys the context: whatever the
 * runtime left allocated, loaded or created then is a contract violation (the runtime
 * must free each array, module, stream and event itself), and a sticky fault ends with
 * the context, as the Driver API says.
 */
#include <stdio.h>
#include <string.h>

#include "double.h"

int dbl_primary_marker;   /* its address is the primary context's CUcontext */
#define DBL_CTX ((CUcontext)(void *)&dbl_primary_marker)

static const struct { CUresult r; const char *name, *text; } names[] = {
  {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
  {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
  {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
  {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
  {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
  {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
  {CUDA_ERROR_INVALID_IMAGE, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
  {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
  {CUDA_ERROR_INVALID_PTX, "CUDA_ERROR_INVALID_PTX",
   "a PTX JIT compilation failed"},
  {CUDA_ERROR_UNSUPPORTED_PTX_VERSION, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION",
   "the provided PTX was compiled with an unsupported toolchain."},
  {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
  {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
  {CUDA_ERROR_NOT_READY, "CUDA_ERROR_NOT_READY", "device not ready"},
  {CUDA_ERROR_ILLEGAL_ADDRESS, "CUDA_ERROR_ILLEGAL_ADDRESS",
   "an illegal memory access was encountered"},
  {CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES",
   "too many resources requested for launch"},
  {CUDA_ERROR_LAUNCH_TIMEOUT, "CUDA_ERROR_LAUNCH_TIMEOUT",
   "the launch timed out and was terminated"},
  {CUDA_ERROR_ASSERT, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
  {CUDA_ERROR_MISALIGNED_ADDRESS, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
  {CUDA_ERROR_ILLEGAL_INSTRUCTION, "CUDA_ERROR_ILLEGAL_INSTRUCTION",
   "an illegal instruction was encountered"},
  {CUDA_ERROR_HARDWARE_STACK_ERROR, "CUDA_ERROR_HARDWARE_STACK_ERROR",
   "hardware stack error"},
  {CUDA_ERROR_LAUNCH_FAILED, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
  {CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE",
   "too many blocks in cooperative launch"},
  {CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED",
   "part or all of the requested memory range is already mapped"},
  {CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED",
   "pointer does not correspond to a registered memory region"},
  {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

static int name_index(CUresult r) {
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
    if (names[i].r == r) return (int)i;
  return -1;
}

/* Both may be called before cuInit (the runtime names cuInit's own failure). */
CUresult cuGetErrorName(CUresult r, const char **out) {
  int i = name_index(r);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  *out = i < 0 ? NULL : names[i].name;
  return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuGetErrorString(CUresult r, const char **out) {
  int i = name_index(r);
  if (!out) return CUDA_ERROR_INVALID_VALUE;
  *out = i < 0 ? NULL : names[i].text;
  return i < 0 ? CUDA_ERROR_INVALID_VALUE : CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags) {
  CUresult r = dbl_enter("cuInit", DBL_NO_INIT);
  if (r == CUDA_SUCCESS && flags != 0) {
    dbl_contract("cuInit: Flags must be 0 (got %u)", flags);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS && !dbl.inited) {
    dbl.inited = 1;
    dbl_faults_load();
  }
  return dbl_leave(r);
}

CUresult cuDriverGetVersion(int *v) {
  CUresult r = dbl_enter("cuDriverGetVersion", DBL_NO_INIT);
  if (r == CUDA_SUCCESS && !v) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) *v = CUDA_VERSION;
  return dbl_leave(r);
}

/* The driver's private tables, which NVRTC asks the process's libcuda.so.1 for (it
 * finds the double when a test has loaded it): the double has none, and says so as a
 * driver without that table would, so that NVRTC goes on without it. */
CUresult cuGetExportTable(const void **table, const CUuuid *id) {
  CUresult r = dbl_enter("cuGetExportTable", DBL_NO_INIT);
  if (r == CUDA_SUCCESS && (!table || !id)) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) {
    *table = NULL;
    r = CUDA_ERROR_NOT_FOUND;
  }
  return dbl_leave(r);
}

CUresult cuDeviceGetCount(int *count) {
  CUresult r = dbl_enter("cuDeviceGetCount", 0);
  if (r == CUDA_SUCCESS && !count) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) *count = 1;
  return dbl_leave(r);
}

static CUresult check_device(const char *call, CUdevice dev) {
  if (dev == 0) return CUDA_SUCCESS;
  dbl_contract("%s: device %d does not exist (one device, 0)", call, dev);
  return CUDA_ERROR_INVALID_DEVICE;
}

CUresult cuDeviceGet(CUdevice *dev, int ordinal) {
  CUresult r = dbl_enter("cuDeviceGet", 0);
  if (r == CUDA_SUCCESS && !dev) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) r = check_device("cuDeviceGet", ordinal);
  if (r == CUDA_SUCCESS) *dev = 0;
  return dbl_leave(r);
}

CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
  CUresult r = dbl_enter("cuDeviceGetName", 0);
  if (r == CUDA_SUCCESS && (!name || len <= 0)) {
    dbl_contract("cuDeviceGetName: name %p, len %d", (void *)name, len);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) r = check_device("cuDeviceGetName", dev);
  if (r == CUDA_SUCCESS) snprintf(name, (size_t)len, "kcc CUDA driver double (not a GPU)");
  return dbl_leave(r);
}

/* An A100's limits (compute capability 8.0). */
int dbl_attribute(CUdevice_attribute a) {
  switch (a) {
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: return 8;
  case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: return 0;
  case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: return 4;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: return 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: return 64;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: return 2147483647;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: return 65535;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: return 48 * 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: return 163 * 1024;
  case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: return 2048;
  case CU_DEVICE_ATTRIBUTE_WARP_SIZE: return 32;
  case CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: return 1;
  case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: return 1;
  case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: return 1;
  case CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: return 64 * 1024;
  default: return 0;
  }
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice dev) {
  CUresult r = dbl_enter("cuDeviceGetAttribute", 0);
  if (r == CUDA_SUCCESS && !v) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS && (a <= 0 || a >= CU_DEVICE_ATTRIBUTE_MAX)) {
    dbl_contract("cuDeviceGetAttribute: attribute %d is not a CUdevice_attribute", (int)a);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  if (r == CUDA_SUCCESS) r = check_device("cuDeviceGetAttribute", dev);
  if (r == CUDA_SUCCESS) *v = dbl_attribute(a);
  return dbl_leave(r);
}

CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) {
  CUresult r = dbl_enter("cuDeviceTotalMem", 0);
  if (r == CUDA_SUCCESS && !bytes) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) r = check_device("cuDeviceTotalMem", dev);
  if (r == CUDA_SUCCESS) *bytes = (size_t)16 << 30;
  return dbl_leave(r);
}

CUresult cuDevicePrimaryCtxRetain(CUcontext *ctx, CUdevice dev) {
  CUresult r = dbl_enter("cuDevicePrimaryCtxRetain", 0);
  if (r == CUDA_SUCCESS && !ctx) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS) r = check_device("cuDevicePrimaryCtxRetain", dev);
  if (r == CUDA_SUCCESS) {
    dbl.ctx_refs++;
    dbl.ctx_alive = 1;
    *ctx = DBL_CTX;
  }
  return dbl_leave(r);
}

/* The last release destroys the context and everything in it. */
static void destroy_context(void) {
  size_t leaked = 0, blocks = 0;
  for (dbl_mem *m = dbl.mems, *n; m; m = n) {
    n = m->next;
    if (m->kind == DBL_GLOBAL) continue;   /* owned by its module */
    leaked += m->size;
    blocks++;
    dbl_mem_release(m);
  }
  /* with a kernel that never ends, freeing would have waited for ever: the context's
     destruction is the only way to free them (and to end the kernel) */
  if (blocks && dbl.hung)
    dbl.reclaimed += blocks;
  else if (blocks)
    dbl_contract("cuDevicePrimaryCtxRelease: %zu allocation%s (%zu bytes) never freed",
                 blocks, blocks == 1 ? "" : "s", leaked);
  int mods = 0;
  for (dbl_obj *o = dbl.objs; o; o = o->next)
    if (o->live && o->kind == DBL_MODULE) {
      mods++;
      dbl_module_destroy(o);
    }
  if (mods && dbl.hung)
    dbl.reclaimed += (unsigned long)mods;
  else if (mods)
    dbl_contract("cuDevicePrimaryCtxRelease: %d module%s never unloaded", mods,
                 mods == 1 ? "" : "s");
  dbl_streams_destroy_all("cuDevicePrimaryCtxRelease");
  dbl.ctx_alive = 0;
  dbl.sticky = dbl.pending = CUDA_SUCCESS;
  dbl.hung = 0;
  dbl_ctx_set_current(0);
}

CUresult cuDevicePrimaryCtxRelease(CUdevice dev) {
  CUresult r = dbl_enter("cuDevicePrimaryCtxRelease", 0);
  if (r == CUDA_SUCCESS) r = check_device("cuDevicePrimaryCtxRelease", dev);
  if (r == CUDA_SUCCESS && dbl.ctx_refs == 0) {
    dbl_contract("cuDevicePrimaryCtxRelease: the primary context is not retained");
    r = CUDA_ERROR_INVALID_CONTEXT;
  }
  if (r == CUDA_SUCCESS && --dbl.ctx_refs == 0) destroy_context();
  return dbl_leave(r);
}

CUresult cuCtxSetCurrent(CUcontext ctx) {
  CUresult r = dbl_enter("cuCtxSetCurrent", 0);
  if (r == CUDA_SUCCESS && ctx && (ctx != DBL_CTX || !dbl.ctx_alive)) {
    dbl_contract("cuCtxSetCurrent: %p is not a live context", (void *)ctx);
    r = CUDA_ERROR_INVALID_CONTEXT;
  }
  if (r == CUDA_SUCCESS) dbl_ctx_set_current(ctx != NULL);
  return dbl_leave(r);
}

CUresult cuCtxSynchronize(void) {
  return dbl_leave(dbl_enter("cuCtxSynchronize", DBL_NEED_CTX | DBL_BLOCKS));
}

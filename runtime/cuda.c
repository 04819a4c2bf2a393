/*
 * cuda.c — the CUDA driver API, loaded at run time.
 *
 * libcuda.so.1 (then libcuda.so) is opened with dlopen once per process (pthread_once)
 * and its entry points go into a table of function pointers typed with CUDA's own
 * PFN_ typedefs from cudaTypedefs.h, under the exact versioned symbol names the driver
 * exports (cuMemAlloc_v2, ...). A missing driver is KC_ERR_NO_DEVICE with a message,
 * never a crash, and a program that never asks for CUDA never notices.
 *
 * Every CUresult goes through RT_CU, which names the call and the CUDA error
 * (cuGetErrorName / cuGetErrorString) in the context's last error and jumps to the
 * function's cleanup label. Built without CUDA headers, every entry point here says
 * "not built with CUDA support".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sys/stat.h>

#include "file_kind.h"
#include "rt.h"
#include "rt_compiler.h"

#ifdef KC_HAVE_CUDA

#include <dlfcn.h>
#include <pthread.h>

#include <cuda.h>
#include <cudaTypedefs.h>

/* The driver table. Members drop the "cu" prefix so they never clash with cuda.h's
 * macros (cuMemAlloc -> cuMemAlloc_v2); RT_CU puts it back in messages. */
typedef struct rt_driver {
  void *lib;
  const char *path;
  int version;
  kc_status status;
  char msg[512];
  PFN_cuInit_v2000 Init;
  PFN_cuDriverGetVersion_v2020 DriverGetVersion;
  PFN_cuGetErrorName_v6000 GetErrorName;
  PFN_cuGetErrorString_v6000 GetErrorString;
  PFN_cuDeviceGetCount_v2000 DeviceGetCount;
  PFN_cuDeviceGet_v2000 DeviceGet;
  PFN_cuDeviceGetName_v2000 DeviceGetName;
  PFN_cuDeviceGetAttribute_v2000 DeviceGetAttribute;
  PFN_cuDeviceTotalMem_v3020 DeviceTotalMem;
  PFN_cuDevicePrimaryCtxRetain_v7000 DevicePrimaryCtxRetain;
  PFN_cuDevicePrimaryCtxRelease_v11000 DevicePrimaryCtxRelease;
  PFN_cuCtxSetCurrent_v4000 CtxSetCurrent;
  PFN_cuCtxSynchronize_v2000 CtxSynchronize;
  PFN_cuMemAlloc_v3020 MemAlloc;
  PFN_cuMemFree_v3020 MemFree;
  PFN_cuMemcpyHtoD_v3020 MemcpyHtoD;
  PFN_cuMemcpyDtoH_v3020 MemcpyDtoH;
  PFN_cuMemcpyDtoD_v3020 MemcpyDtoD;
  PFN_cuMemsetD8_v3020 MemsetD8;
  PFN_cuMemsetD16_v3020 MemsetD16;
  PFN_cuMemsetD32_v3020 MemsetD32;
  PFN_cuMemsetD2D32_v3020 MemsetD2D32;
  PFN_cuMemAllocHost_v3020 MemAllocHost;
  PFN_cuMemFreeHost_v2000 MemFreeHost;
  PFN_cuModuleLoadDataEx_v2010 ModuleLoadDataEx;
  PFN_cuModuleUnload_v2000 ModuleUnload;
  PFN_cuModuleGetFunction_v2000 ModuleGetFunction;
  PFN_cuModuleGetGlobal_v3020 ModuleGetGlobal;
  PFN_cuFuncGetAttribute_v2020 FuncGetAttribute;
  PFN_cuFuncSetAttribute_v9000 FuncSetAttribute;
  PFN_cuLaunchKernel_v4000 LaunchKernel;
  PFN_cuLaunchCooperativeKernel_v9000 LaunchCooperativeKernel;
  PFN_cuOccupancyMaxActiveBlocksPerMultiprocessor_v6050 OccupancyMaxActiveBlocksPerMultiprocessor;
  PFN_cuOccupancyMaxPotentialBlockSize_v6050 OccupancyMaxPotentialBlockSize;
  PFN_cuStreamCreate_v2000 StreamCreate;
  PFN_cuStreamDestroy_v4000 StreamDestroy;
  PFN_cuStreamSynchronize_v2000 StreamSynchronize;
  PFN_cuStreamQuery_v2000 StreamQuery;
  PFN_cuEventCreate_v2000 EventCreate;
  PFN_cuEventRecord_v2000 EventRecord;
  PFN_cuEventSynchronize_v2000 EventSynchronize;
  PFN_cuEventElapsedTime_v2000 EventElapsedTime;
  PFN_cuEventDestroy_v4000 EventDestroy;
  /* optional (NULL when the driver lacks them): interop's checks, skipped without */
  PFN_cuPointerGetAttribute_v4000 PointerGetAttribute;
  PFN_cuStreamGetCtx_v9020 StreamGetCtx;
  /* stream-ordered work (stream_order.c, array_async.c, host_register.c) */
  PFN_cuMemcpyHtoDAsync_v3020 MemcpyHtoDAsync;
  PFN_cuMemcpyDtoHAsync_v3020 MemcpyDtoHAsync;
  PFN_cuMemcpyDtoDAsync_v3020 MemcpyDtoDAsync;
  PFN_cuMemsetD8Async_v3020 MemsetD8Async;
  PFN_cuMemsetD16Async_v3020 MemsetD16Async;
  PFN_cuMemsetD32Async_v3020 MemsetD32Async;
  PFN_cuMemsetD2D32Async_v3020 MemsetD2D32Async;
  PFN_cuStreamWaitEvent_v3020 StreamWaitEvent;
  PFN_cuEventQuery_v2000 EventQuery;
  PFN_cuLaunchHostFunc_v10000 LaunchHostFunc;
  PFN_cuMemHostRegister_v6050 MemHostRegister;
  PFN_cuMemHostUnregister_v4000 MemHostUnregister;
  /* optional (NULL when the driver lacks them; only peer copies and `kcc devices`'
     peer column need them): several GPUs */
  PFN_cuDeviceCanAccessPeer_v4000 DeviceCanAccessPeer;
  PFN_cuMemcpyPeer_v4000 MemcpyPeer;
  PFN_cuMemcpyPeerAsync_v4000 MemcpyPeerAsync;
} rt_driver;

/* The one piece of process-wide state: written once under pthread_once, then read. */
static rt_driver rt_drv;
static pthread_once_t rt_drv_once = PTHREAD_ONCE_INIT;

struct rt_cuda {
  CUdevice dev;
  CUcontext pctx;
  int index;
  CUevent idle;             /* timeout waits for the whole context: recorded on the
                               legacy stream and polled (made at the first such wait) */
  char last_kernel[64];     /* the last kernel launched, named by a timeout */
};

/* ---- Loading ------------------------------------------------------------------------ */
static int resolve(void **slot, const char *name, const char *fallback) {
  *slot = dlsym(rt_drv.lib, name);
  if (!*slot && fallback) *slot = dlsym(rt_drv.lib, fallback);
  if (!*slot)
    snprintf(rt_drv.msg, sizeof rt_drv.msg,
             "the CUDA driver (%s) lacks %s: it is too old for kcc", rt_drv.path, name);
  return *slot != NULL;
}

#define RESOLVE(member, name, fallback) \
  ok = ok && resolve((void **)&rt_drv.member, name, fallback)

/* KC_CUDA_DRIVER names the driver library to open instead of libcuda.so.1 (the test
 * suite's driver double, tests/cuda_double/); set, it is the only one tried. */
static void load_driver(void) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
  const char *forced = getenv("KC_CUDA_DRIVER");
  struct stat st;
  if (forced && *forced && strchr(forced, '/') && stat(forced, &st) == 0 &&
      !S_ISREG(st.st_mode)) {   /* dlopen of a FIFO would wait for a writer for ever */
    rt_drv.status = KC_ERR_NO_DEVICE;
    snprintf(rt_drv.msg, sizeof rt_drv.msg, "cannot open the CUDA driver KC_CUDA_DRIVER "
             "names (%s): %s, not a regular file", forced, file_kind(st.st_mode));
    return;
  }
  if (forced && *forced) {
    rt_drv.lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    rt_drv.path = forced;
    if (!rt_drv.lib) {
      const char *why = dlerror();
      rt_drv.status = KC_ERR_NO_DEVICE;
      snprintf(rt_drv.msg, sizeof rt_drv.msg, "cannot open the CUDA driver KC_CUDA_DRIVER "
               "names (%s): %s", forced, why ? why : "dlopen failed");
      return;
    }
  }
  for (size_t i = 0; i < 2 && !rt_drv.lib; i++) {
    rt_drv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    rt_drv.path = names[i];
  }
  if (!rt_drv.lib) {
    rt_drv.status = KC_ERR_NO_DEVICE;
    snprintf(rt_drv.msg, sizeof rt_drv.msg, "no CUDA driver found (libcuda.so.1)");
    return;
  }
  int ok = 1;
  RESOLVE(Init, "cuInit", NULL);
  RESOLVE(DriverGetVersion, "cuDriverGetVersion", NULL);
  RESOLVE(GetErrorName, "cuGetErrorName", NULL);
  RESOLVE(GetErrorString, "cuGetErrorString", NULL);
  RESOLVE(DeviceGetCount, "cuDeviceGetCount", NULL);
  RESOLVE(DeviceGet, "cuDeviceGet", NULL);
  RESOLVE(DeviceGetName, "cuDeviceGetName", NULL);
  RESOLVE(DeviceGetAttribute, "cuDeviceGetAttribute", NULL);
  RESOLVE(DeviceTotalMem, "cuDeviceTotalMem_v2", NULL);
  RESOLVE(DevicePrimaryCtxRetain, "cuDevicePrimaryCtxRetain", NULL);
  RESOLVE(DevicePrimaryCtxRelease, "cuDevicePrimaryCtxRelease_v2",
          "cuDevicePrimaryCtxRelease");
  RESOLVE(CtxSetCurrent, "cuCtxSetCurrent", NULL);
  RESOLVE(CtxSynchronize, "cuCtxSynchronize", NULL);
  RESOLVE(MemAlloc, "cuMemAlloc_v2", NULL);
  RESOLVE(MemFree, "cuMemFree_v2", NULL);
  RESOLVE(MemcpyHtoD, "cuMemcpyHtoD_v2", NULL);
  RESOLVE(MemcpyDtoH, "cuMemcpyDtoH_v2", NULL);
  RESOLVE(MemcpyDtoD, "cuMemcpyDtoD_v2", NULL);
  RESOLVE(MemsetD8, "cuMemsetD8_v2", NULL);
  RESOLVE(MemsetD16, "cuMemsetD16_v2", NULL);
  RESOLVE(MemsetD32, "cuMemsetD32_v2", NULL);
  RESOLVE(MemsetD2D32, "cuMemsetD2D32_v2", NULL);
  RESOLVE(MemAllocHost, "cuMemAllocHost_v2", NULL);
  RESOLVE(MemFreeHost, "cuMemFreeHost", NULL);
  RESOLVE(ModuleLoadDataEx, "cuModuleLoadDataEx", NULL);
  RESOLVE(ModuleUnload, "cuModuleUnload", NULL);
  RESOLVE(ModuleGetFunction, "cuModuleGetFunction", NULL);
  RESOLVE(ModuleGetGlobal, "cuModuleGetGlobal_v2", NULL);
  RESOLVE(FuncGetAttribute, "cuFuncGetAttribute", NULL);
  RESOLVE(FuncSetAttribute, "cuFuncSetAttribute", NULL);
  RESOLVE(LaunchKernel, "cuLaunchKernel", NULL);
  RESOLVE(LaunchCooperativeKernel, "cuLaunchCooperativeKernel", NULL);
  RESOLVE(OccupancyMaxActiveBlocksPerMultiprocessor,
          "cuOccupancyMaxActiveBlocksPerMultiprocessor", NULL);
  RESOLVE(OccupancyMaxPotentialBlockSize, "cuOccupancyMaxPotentialBlockSize", NULL);
  RESOLVE(StreamCreate, "cuStreamCreate", NULL);
  RESOLVE(StreamDestroy, "cuStreamDestroy_v2", NULL);
  RESOLVE(StreamSynchronize, "cuStreamSynchronize", NULL);
  RESOLVE(StreamQuery, "cuStreamQuery", NULL);
  RESOLVE(EventCreate, "cuEventCreate", NULL);
  RESOLVE(EventRecord, "cuEventRecord", NULL);
  RESOLVE(EventSynchronize, "cuEventSynchronize", NULL);
  /* same signature; _v2 is the 12.8+ name, the old one stays exported */
  RESOLVE(EventElapsedTime, "cuEventElapsedTime_v2", "cuEventElapsedTime");
  RESOLVE(EventDestroy, "cuEventDestroy_v2", NULL);
  *(void **)&rt_drv.PointerGetAttribute = dlsym(rt_drv.lib, "cuPointerGetAttribute");
  *(void **)&rt_drv.StreamGetCtx = dlsym(rt_drv.lib, "cuStreamGetCtx");
  RESOLVE(MemcpyHtoDAsync, "cuMemcpyHtoDAsync_v2", NULL);
  RESOLVE(MemcpyDtoHAsync, "cuMemcpyDtoHAsync_v2", NULL);
  RESOLVE(MemcpyDtoDAsync, "cuMemcpyDtoDAsync_v2", NULL);
  RESOLVE(MemsetD8Async, "cuMemsetD8Async", NULL);
  RESOLVE(MemsetD16Async, "cuMemsetD16Async", NULL);
  RESOLVE(MemsetD32Async, "cuMemsetD32Async", NULL);
  RESOLVE(MemsetD2D32Async, "cuMemsetD2D32Async", NULL);
  RESOLVE(StreamWaitEvent, "cuStreamWaitEvent", NULL);
  RESOLVE(EventQuery, "cuEventQuery", NULL);
  RESOLVE(LaunchHostFunc, "cuLaunchHostFunc", NULL);
  RESOLVE(MemHostRegister, "cuMemHostRegister_v2", NULL);
  RESOLVE(MemHostUnregister, "cuMemHostUnregister", NULL);
  *(void **)&rt_drv.DeviceCanAccessPeer = dlsym(rt_drv.lib, "cuDeviceCanAccessPeer");
  *(void **)&rt_drv.MemcpyPeer = dlsym(rt_drv.lib, "cuMemcpyPeer");
  *(void **)&rt_drv.MemcpyPeerAsync = dlsym(rt_drv.lib, "cuMemcpyPeerAsync");
  if (!ok) {
    rt_drv.status = KC_ERR_NO_DEVICE;
    return;
  }
  Dl_info where;
  void *sym;
  memcpy(&sym, &rt_drv.Init, sizeof sym); /* ISO C has no function-to-object cast */
  if (dladdr(sym, &where) && where.dli_fname) rt_drv.path = where.dli_fname;
  CUresult r = rt_drv.Init(0);
  if (r != CUDA_SUCCESS) {
    const char *name = NULL, *str = NULL;
    rt_drv.GetErrorName(r, &name);
    rt_drv.GetErrorString(r, &str);
    rt_drv.status = KC_ERR_NO_DEVICE;
    snprintf(rt_drv.msg, sizeof rt_drv.msg, "cuInit failed: %s (%s)",
             name ? name : "?", str ? str : "unknown error");
    return;
  }
  rt_drv.DriverGetVersion(&rt_drv.version);
  rt_drv.status = KC_OK;
}

kc_status rt_cuda_load(char *msg, size_t len) {
  pthread_once(&rt_drv_once, load_driver);
  if (rt_drv.status != KC_OK && msg && len) snprintf(msg, len, "%s", rt_drv.msg);
  return rt_drv.status;
}

const char *rt_cuda_driver_path(void) {
  return rt_cuda_load(NULL, 0) == KC_OK ? rt_drv.path : NULL;
}

int rt_cuda_driver_version(void) { return rt_cuda_load(NULL, 0) == KC_OK ? rt_drv.version : 0; }

/* ---- Errors ------------------------------------------------------------------------- */
/* The errors cuda.h says leave the context (or the process) unusable: "any further
 * CUDA work will return the same error" until the context is destroyed. */
static int sticky(CUresult r) {
  switch (r) {
  case CUDA_ERROR_LAUNCH_FAILED:
  case CUDA_ERROR_LAUNCH_TIMEOUT:
  case CUDA_ERROR_ILLEGAL_ADDRESS:
  case CUDA_ERROR_MISALIGNED_ADDRESS:
  case CUDA_ERROR_ASSERT:
  case CUDA_ERROR_ILLEGAL_INSTRUCTION:
  case CUDA_ERROR_INVALID_PC:
  case CUDA_ERROR_INVALID_ADDRESS_SPACE:
  case CUDA_ERROR_HARDWARE_STACK_ERROR:
  case CUDA_ERROR_ECC_UNCORRECTABLE:
#if CUDA_VERSION >= 12080
  case CUDA_ERROR_CONTAINED:
  case CUDA_ERROR_TENSOR_MEMORY_LEAK:
  case CUDA_ERROR_EXTERNAL_DEVICE:
#endif
    return 1;
  default: return 0;
  }
}

/* A fault while a kernel ran (every sticky error) and a launch the device could not
 * start are KC_ERR_LAUNCH. */
static kc_status status_of(CUresult r) {
  switch (r) {
  case CUDA_ERROR_OUT_OF_MEMORY: return KC_ERR_NOMEM;
  case CUDA_ERROR_NO_DEVICE:
  case CUDA_ERROR_INVALID_DEVICE: return KC_ERR_NO_DEVICE;
  case CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: return KC_ERR_LAUNCH;
  default: return sticky(r) ? KC_ERR_LAUNCH : KC_ERR_CUDA;
  }
}

static kc_status cu_fail(kc_context *ctx, CUresult r, const char *call) {
  const char *name = NULL, *str = NULL;
  if (rt_drv.GetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
  if (rt_drv.GetErrorString(r, &str) != CUDA_SUCCESS) str = NULL;
  if (ctx && ctx->cuda && sticky(r)) {
    /* the driver refuses all further work: lose the context (cuda_wait.c), so later
       calls fail at once with this message instead of each asking the driver */
    kc_status s = rt_error(ctx, status_of(r), "%s failed: %s (%s); the CUDA context is "
                           "now unusable (CUDA keeps this error until it is destroyed): "
                           "free the kc_context", call, name ? name : "CUDA_ERROR_UNKNOWN",
                           str ? str : "unknown error");
    rt_context_lose(ctx, s, RT_LOST_FAULT);
    return s;
  }
  return rt_error(ctx, status_of(r), "%s failed: %s (%s)", call,
                  name ? name : "CUDA_ERROR_UNKNOWN", str ? str : "unknown error");
}

/* Call the driver's cu<fn> with args; on failure record it and goto cleanup. Needs a
 * kc_status `status` and a `cleanup:` label in the calling function. */
#define RT_CU(ctx, fn, args)                          \
  do {                                                \
    CUresult rt_r_ = rt_drv.fn args;                  \
    if (rt_r_ != CUDA_SUCCESS) {                      \
      status = cu_fail((ctx), rt_r_, "cu" #fn);       \
      goto cleanup;                                   \
    }                                                 \
  } while (0)

static kc_status need_driver(kc_context *ctx) {
  char msg[512];
  kc_status s = rt_cuda_load(msg, sizeof msg);
  if (s != KC_OK) return rt_error(ctx, s, "%s", msg);
  return KC_OK;
}

/* Make the context's primary context current on this thread: a context may move
 * between threads (one at a time), and the driver keeps the current one per thread. */
static kc_status enter(kc_context *ctx) {
  kc_status status = KC_OK;
  if (!ctx->cuda) return rt_error(ctx, KC_ERR_NO_DEVICE, "the context has no CUDA device");
  if (ctx->lost) return rt_context_usable(ctx);   /* nothing reaches a lost context */
  RT_CU(ctx, CtxSetCurrent, (ctx->cuda->pctx));
cleanup:
  return status;
}

/* For the calls that release something (kc_*_free and kc_context_free), which must
 * work on a lost context too: whether to call the driver's release at all. After a
 * timeout a kernel may still run, and a release that can block (cuMemFree,
 * cuModuleUnload, cuMemFreeHost, cuMemHostUnregister synchronise) would hang: those
 * (may_block) are skipped, and the driver frees their memory with the context. */
static int enter_release(kc_context *ctx, int may_block) {
  if (!ctx->cuda || (may_block && ctx->lost == RT_LOST_HUNG)) return 0;
  return rt_drv.CtxSetCurrent(ctx->cuda->pctx) == CUDA_SUCCESS;
}

/* ---- Waits under a timeout (the loop is cuda_wait.c's) -------------------------------- */
static kc_status poll_result(kc_context *ctx, CUresult r, const char *call, int *done) {
  *done = r == CUDA_SUCCESS;
  if (r == CUDA_SUCCESS || r == CUDA_ERROR_NOT_READY) return KC_OK;
  return cu_fail(ctx, r, call);
}

static kc_status poll_stream(kc_context *ctx, void *stream, int *done) {
  return poll_result(ctx, rt_drv.StreamQuery((CUstream)stream), "cuStreamQuery", done);
}

static kc_status poll_event(kc_context *ctx, void *event, int *done) {
  return poll_result(ctx, rt_drv.EventQuery((CUevent)event), "cuEventQuery", done);
}

/* With a timeout, wait (polling) until the work queued so far in the context's
 * blocking streams is done: an event recorded on the legacy stream completes after
 * all of it. Without one, nothing: the caller's blocking call waits. */
static kc_status wait_idle(kc_context *ctx) {
  kc_status status = enter(ctx);
  if (status != KC_OK || ctx->cfg.timeout_ms <= 0) return status;
  rt_cuda *c = ctx->cuda;
  if (!c->idle) RT_CU(ctx, EventCreate, (&c->idle, CU_EVENT_DISABLE_TIMING));
  RT_CU(ctx, EventRecord, (c->idle, CU_STREAM_LEGACY));
  status = rt_cuda_wait(ctx, poll_event, c->idle, c->last_kernel);
cleanup:
  return status;
}

void rt_cuda_note_launch(kc_context *ctx, const char *kernel) {
  if (ctx->cuda) snprintf(ctx->cuda->last_kernel, sizeof ctx->cuda->last_kernel, "%s", kernel);
}

/* ---- Devices ------------------------------------------------------------------------ */
int rt_cuda_device_supported(int cc_major, int cc_minor) {
  (void)cc_minor;
  return cc_major >= 5;
}

kc_status rt_cuda_count(kc_context *ctx, int *count) {
  kc_status status = need_driver(ctx);
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

static int attr(CUdevice dev, CUdevice_attribute a) {
  int v = 0;
  if (rt_drv.DeviceGetAttribute(&v, a, dev) != CUDA_SUCCESS) v = 0;
  return v;
}

kc_status rt_cuda_info(kc_context *ctx, int index, kc_device_info *info) {
  kc_status status = need_driver(ctx);
  CUdevice dev;
  int count = 0;
  memset(info, 0, sizeof *info);
  if (status != KC_OK) return status;
  RT_CU(ctx, DeviceGetCount, (&count));
  if (index < 0 || index >= count) return no_such_device(ctx, index, count);
  RT_CU(ctx, DeviceGet, (&dev, index));
  RT_CU(ctx, DeviceGetName, (info->name, (int)sizeof info->name, dev));
  RT_CU(ctx, DeviceTotalMem, (&info->total_memory, dev));
  info->cc_major = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  info->cc_minor = attr(dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  info->multiprocessors = attr(dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  info->max_threads_per_block = attr(dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  info->max_shared_per_block =
      (size_t)attr(dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  info->supported = rt_cuda_device_supported(info->cc_major, info->cc_minor);
cleanup:
  return status;
}

kc_status rt_cuda_open(kc_context *ctx, int index) {
  kc_status status = need_driver(ctx);
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
  int major = attr(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  int minor = attr(c->dev, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  if (!rt_cuda_device_supported(major, minor)) {
    status = rt_error(ctx, KC_ERR_NO_DEVICE,
                      "CUDA device %d has compute capability %d.%d; kcc needs 5.0 or newer",
                      index, major, minor);
    goto cleanup;
  }
  RT_CU(ctx, DevicePrimaryCtxRetain, (&c->pctx, c->dev));
  rt_limits *l = &ctx->limits;
  l->max_threads = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  l->max_block[0] = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X);
  l->max_block[1] = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y);
  l->max_block[2] = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z);
  l->max_grid[0] = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  l->max_grid[1] = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y);
  l->max_grid[2] = (unsigned)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z);
  l->max_shared = (size_t)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  l->max_shared_optin =
      (size_t)attr(c->dev, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN);
  if (l->max_shared_optin < l->max_shared) l->max_shared_optin = l->max_shared;
  ctx->cuda = c;
  c = NULL;
  status = enter(ctx);
cleanup:
  if (c) rt_free(ctx, c, sizeof *c);
  return status;
}

void rt_cuda_close(kc_context *ctx) {
  if (!ctx->cuda) return;
  if (ctx->cuda->idle && enter_release(ctx, 0)) rt_drv.EventDestroy(ctx->cuda->idle);
  rt_drv.DevicePrimaryCtxRelease(ctx->cuda->dev);
  rt_free(ctx, ctx->cuda, sizeof *ctx->cuda);
  ctx->cuda = NULL;
}

/* ---- Memory --------------------------------------------------------------------------- */
kc_status rt_cuda_mem_alloc(kc_context *ctx, size_t bytes, uint64_t *out) {
  kc_status status = enter(ctx);
  CUdeviceptr p = 0;
  if (status != KC_OK) return status;
  RT_CU(ctx, MemAlloc, (&p, bytes ? bytes : 1));
  *out = (uint64_t)p;
cleanup:
  return status;
}

void rt_cuda_mem_free(kc_context *ctx, uint64_t p) {
  if (enter_release(ctx, 1)) rt_drv.MemFree((CUdeviceptr)p);
}

/* The synchronous copies to and from the host wait for earlier work in the context
 * (the legacy stream's rule): with a timeout, that wait is wait_idle's. Copies within
 * the device and fills do not block the host. */
kc_status rt_cuda_copy_htod(kc_context *ctx, uint64_t dst, const void *src, size_t n) {
  kc_status status = wait_idle(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyHtoD, ((CUdeviceptr)dst, src, n));
cleanup:
  return status;
}

kc_status rt_cuda_copy_dtoh(kc_context *ctx, void *dst, uint64_t src, size_t n) {
  kc_status status = wait_idle(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyDtoH, (dst, (CUdeviceptr)src, n));
cleanup:
  return status;
}

kc_status rt_cuda_copy_dtod(kc_context *ctx, uint64_t dst, uint64_t src, size_t n) {
  kc_status status = enter(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyDtoD, ((CUdeviceptr)dst, (CUdeviceptr)src, n));
cleanup:
  return status;
}

kc_status rt_cuda_fill(kc_context *ctx, uint64_t dst, size_t count, size_t elem_size,
                       const void *value) {
  kc_status status = enter(ctx);
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
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, MemAllocHost, (out, bytes ? bytes : 1));
cleanup:
  return status;
}

void rt_cuda_host_free(kc_context *ctx, void *p) {
  if (enter_release(ctx, 1)) rt_drv.MemFreeHost(p);
}

/* ---- Modules and launches ------------------------------------------------------------ */
/* cuModuleLoadDataEx with the JIT's error log; the log into errlog (len bytes). */
static CUresult load_image(const void *image, CUmodule *mod, char *errlog, size_t len) {
  char infolog[4096];
  errlog[0] = infolog[0] = '\0';
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void *vals[] = {errlog, (void *)(uintptr_t)len, infolog,
                  (void *)(uintptr_t)sizeof infolog};
  CUresult r = rt_drv.ModuleLoadDataEx(mod, image, 4, opts, vals);
  errlog[len - 1] = '\0';
  return r;
}

/* cu_fail's message, then as much of the JIT's log as fits after it. */
static kc_status load_failed(kc_context *ctx, CUresult r, const char *errlog) {
  cu_fail(ctx, r, "cuModuleLoadDataEx");
  size_t n = strlen(ctx->err);
  static const char head[] = "\nJIT log:\n";
  if (errlog[0] && n + sizeof head < sizeof ctx->err) {
    size_t room = sizeof ctx->err - n - sizeof head, ll = strlen(errlog);
    memcpy(ctx->err + n, head, sizeof head - 1);
    n += sizeof head - 1;
    if (ll > room) ll = room;
    memcpy(ctx->err + n, errlog, ll);
    ctx->err[n + ll] = '\0';
  }
  return KC_ERR_CUDA;
}

/* The driver is older than the PTX ISA of this module (CUDA_ERROR_UNSUPPORTED_PTX_VERSION:
   LLVM writes the ISA its sm needs, 7.8 for sm_90). A cubin needs no PTX JIT in the
   driver, and NVIDIA's minor-version compatibility lets an older driver run one, so the
   PTX is assembled here (nvJitLink through the compiler's table) and that is loaded.
   Without nvJitLink (or in libkcrt), or when the driver refuses the cubin too, the
   message says which, with the versions and what the user can do. */
static kc_status load_ptx_as_cubin(kc_context *ctx, const char *ptx, CUmodule *mod) {
  char isa[16], target[16], why[600];
  rt_ptx_directive(ptx, ".version", isa, sizeof isa);
  rt_ptx_directive(ptx, ".target", target, sizeof target);
  int arch = strncmp(target, "sm_", 3) == 0 ? atoi(target + 3) : 0;
  const rt_compiler *cc = rt_compiler_get();
  char *cubin = NULL, *err = NULL;
  size_t len = 0;
  int rc = cc && cc->ptx_to_cubin && arch > 0
               ? cc->ptx_to_cubin(ptx, strlen(ptx), arch, 3, 0, &cubin, &len, &err) : -1;
  if (rc == 0) {
    char errlog[4096];
    CUresult r = load_image(cubin, mod, errlog, sizeof errlog);
    free(cubin);
    if (r == CUDA_SUCCESS) {
      if (ctx->cfg.verbose > 0)
        fprintf(stderr, "kcc: the CUDA driver (%d.%d) is older than PTX ISA %s: loaded a "
                "cubin for %s made by nvJitLink instead\n", rt_drv.version / 1000,
                rt_drv.version % 1000 / 10, isa, target);
      return KC_OK;
    }
    const char *name = NULL;
    if (rt_drv.GetErrorName(r, &name) != CUDA_SUCCESS) name = NULL;
    snprintf(why, sizeof why, "the driver refused the cubin nvJitLink made from it too "
             "(%s)", name ? name : "CUDA_ERROR_UNKNOWN");
  } else if (rc > 0) {
    snprintf(why, sizeof why, "making a cubin of it failed: %s", err ? err : "nvJitLink");
  } else {
    snprintf(why, sizeof why, "no cubin could be made of it here (%s)",
             !cc ? "this program is linked with libkcrt, which has no PTX assembler"
                 : "libnvJitLink is not installed");
  }
  free(err);
  return rt_error(ctx, KC_ERR_CUDA, "cuModuleLoadDataEx failed: "
                  "CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the CUDA driver (%d.%d) is older than "
                  "the PTX ISA %s this module was written in (for %s), and %s: update the "
                  "NVIDIA driver, or compile ahead of time (kcc compile --emit=cubin "
                  "--arch=%s) and load the cubin", rt_drv.version / 1000,
                  rt_drv.version % 1000 / 10, isa, target, why, target);
}

kc_status rt_cuda_module_load(kc_context *ctx, const void *image, void **out) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  char errlog[8192];
  CUmodule mod = NULL;
  CUresult r = load_image(image, &mod, errlog, sizeof errlog);
  if (r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION &&
      rt_image_kind_of(image, strlen(image)) == RT_IMAGE_PTX) {
    if ((status = load_ptx_as_cubin(ctx, image, &mod)) != KC_OK) return status;
  } else if (r != CUDA_SUCCESS) {
    return load_failed(ctx, r, errlog);
  }
  *out = mod;
  return KC_OK;
}

kc_status rt_cuda_module_global(kc_context *ctx, void *module, const char *name,
                                char **out, size_t *len) {
  kc_status status = enter(ctx);
  CUdeviceptr p = 0;
  size_t n = 0;
  char *buf = NULL;
  *out = NULL;
  *len = 0;
  if (status != KC_OK) return status;
  CUresult r = rt_drv.ModuleGetGlobal(&p, &n, (CUmodule)module, name);
  if (r == CUDA_ERROR_NOT_FOUND)
    return rt_error(ctx, KC_ERR_NOT_FOUND, "the module has no global '%s'", name);
  if (r != CUDA_SUCCESS) return cu_fail(ctx, r, "cuModuleGetGlobal");
  buf = rt_alloc(ctx, n + 1);
  if (!buf) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  if ((status = wait_idle(ctx)) != KC_OK) goto cleanup;
  RT_CU(ctx, MemcpyDtoH, (buf, p, n));
  buf[n] = '\0';
  *out = buf;
  *len = n;
  buf = NULL;
cleanup:
  if (buf) rt_free(ctx, buf, n + 1);
  return status;
}

void rt_cuda_module_unload(kc_context *ctx, void *module) {
  if (module && enter_release(ctx, 1)) rt_drv.ModuleUnload((CUmodule)module);
}

kc_status rt_cuda_get_function(kc_context *ctx, void *module, const char *symbol,
                               void **fn, unsigned *max_threads) {
  kc_status status = KC_OK;
  CUfunction f = NULL;
  int mt = 0;
  CUresult r = rt_drv.ModuleGetFunction(&f, (CUmodule)module, symbol);
  if (r == CUDA_ERROR_NOT_FOUND)
    return rt_error(ctx, KC_ERR_NOT_FOUND, "the module has no entry '%s'", symbol);
  if (r != CUDA_SUCCESS) return cu_fail(ctx, r, "cuModuleGetFunction");
  RT_CU(ctx, FuncGetAttribute, (&mt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f));
  *fn = f;
  *max_threads = (unsigned)mt;
cleanup:
  return status;
}

kc_status rt_cuda_global_address(kc_context *ctx, void *module, const char *name,
                                 uint64_t *dptr, size_t *bytes) {
  CUdeviceptr p = 0;
  size_t n = 0;
  CUresult r = rt_drv.ModuleGetGlobal(&p, &n, (CUmodule)module, name);
  if (r == CUDA_ERROR_NOT_FOUND)
    return rt_error(ctx, KC_ERR_NOT_FOUND, "the module has no global '%s'", name);
  if (r != CUDA_SUCCESS) return cu_fail(ctx, r, "cuModuleGetGlobal");
  *dptr = (uint64_t)p;
  *bytes = n;
  return KC_OK;
}

kc_status rt_cuda_allow_shared(kc_context *ctx, void *fn, size_t bytes) {
  kc_status status = KC_OK;
  RT_CU(ctx, FuncSetAttribute,
        ((CUfunction)fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)bytes));
cleanup:
  return status;
}

kc_status rt_cuda_launch(kc_context *ctx, void *fn, kc_dim3 grid, kc_dim3 block,
                         size_t shared, void *stream, void **params) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, LaunchKernel, ((CUfunction)fn, grid.x, grid.y, grid.z, block.x, block.y,
                            block.z, (unsigned)shared, (CUstream)stream, params, NULL));
cleanup:
  return status;
}

/* A kernel that synchronises its grid: every block must be resident at once, so the
 * grid is checked against what the occupancy calculator says fits (blocks per SM for
 * this block size and shared memory, times the SMs) before cuLaunchCooperativeKernel. */
kc_status rt_cuda_launch_cooperative(kc_context *ctx, const char *kernel, void *fn,
                                     kc_dim3 grid, kc_dim3 block, size_t shared, void *stream,
                                     void **params) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  if (!attr(ctx->cuda->dev, CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH))
    return rt_error(ctx, KC_ERR_LAUNCH, "kernel '%s' synchronises its grid "
                    "(cuda.cg.this_grid().sync()) and this GPU has no cooperative launch",
                    kernel);
  int per_sm = 0, threads = (int)(block.x * block.y * block.z);
  RT_CU(ctx, OccupancyMaxActiveBlocksPerMultiprocessor, (&per_sm, (CUfunction)fn, threads,
                                                        shared));
  int sms = attr(ctx->cuda->dev, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  status = rt_check_coop_grid(ctx, kernel, grid, block, (uint64_t)per_sm * (uint64_t)sms,
                              "on this GPU");
  if (status != KC_OK) return status;
  RT_CU(ctx, LaunchCooperativeKernel, ((CUfunction)fn, grid.x, grid.y, grid.z, block.x,
                                       block.y, block.z, (unsigned)shared, (CUstream)stream,
                                       params));
cleanup:
  return status;
}

kc_status rt_cuda_occupancy(kc_context *ctx, void *fn, size_t shared, int *min_grid,
                            int *block) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, OccupancyMaxPotentialBlockSize,
        (min_grid, block, (CUfunction)fn, NULL, shared, 0));
cleanup:
  return status;
}

/* With a timeout, the poll first; cuCtxSynchronize after it returns at once for kcc's
 * streams (all blocking) and still waits for non-blocking streams the caller lent. */
kc_status rt_cuda_synchronize(kc_context *ctx) {
  kc_status status = wait_idle(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, CtxSynchronize, ());
cleanup:
  return status;
}

/* ---- Streams and events ----------------------------------------------------------------- */
kc_status rt_cuda_stream_new(kc_context *ctx, void **out) {
  kc_status status = enter(ctx);
  CUstream s = NULL;
  if (status != KC_OK) return status;
  /* a blocking stream: the synchronous copies of array.c (on the legacy default
     stream) then wait for kernels queued on it, as the API promises */
  RT_CU(ctx, StreamCreate, (&s, CU_STREAM_DEFAULT));
  *out = s;
cleanup:
  return status;
}

kc_status rt_cuda_stream_sync(kc_context *ctx, void *stream, const char *kernel) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  if (ctx->cfg.timeout_ms > 0) return rt_cuda_wait(ctx, poll_stream, stream, kernel);
  RT_CU(ctx, StreamSynchronize, ((CUstream)stream));
cleanup:
  return status;
}

void rt_cuda_stream_free(kc_context *ctx, void *stream) {
  /* cuStreamDestroy returns at once even with work still queued */
  if (stream && enter_release(ctx, 0)) rt_drv.StreamDestroy((CUstream)stream);
}

kc_status rt_cuda_event_new(kc_context *ctx, void **out) {
  kc_status status = enter(ctx);
  CUevent e = NULL;
  if (status != KC_OK) return status;
  RT_CU(ctx, EventCreate, (&e, CU_EVENT_DEFAULT));
  *out = e;
cleanup:
  return status;
}

kc_status rt_cuda_event_record(kc_context *ctx, void *event, void *stream) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, EventRecord, ((CUevent)event, (CUstream)stream));
cleanup:
  return status;
}

kc_status rt_cuda_event_sync(kc_context *ctx, void *event) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  if (ctx->cfg.timeout_ms > 0)
    return rt_cuda_wait(ctx, poll_event, event, ctx->cuda->last_kernel);
  RT_CU(ctx, EventSynchronize, ((CUevent)event));
cleanup:
  return status;
}

kc_status rt_cuda_event_elapsed(kc_context *ctx, void *start, void *end, float *ms) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, EventElapsedTime, (ms, (CUevent)start, (CUevent)end));
cleanup:
  return status;
}

void rt_cuda_event_free(kc_context *ctx, void *event) {
  if (event && enter_release(ctx, 0)) rt_drv.EventDestroy((CUevent)event);
}

/* ---- Interop ------------------------------------------------------------------------- */
void *rt_cuda_context(kc_context *ctx) { return ctx->cuda ? ctx->cuda->pctx : NULL; }

kc_status rt_cuda_pointer_check(kc_context *ctx, const char *what, uint64_t ptr) {
  kc_status status = enter(ctx);
  if (status != KC_OK || !rt_drv.PointerGetAttribute) return status;
  int ordinal = -1;
  CUresult r = rt_drv.PointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                          (CUdeviceptr)ptr);
  if (r == CUDA_ERROR_INVALID_VALUE)
    return rt_error(ctx, KC_ERR_INVALID, "%s: 0x%llx is not memory CUDA knows (not from "
                    "cuMemAlloc/cudaMalloc, a memory pool, cuMemAllocHost or "
                    "cuMemHostRegister)", what, (unsigned long long)ptr);
  if (r != CUDA_SUCCESS) return cu_fail(ctx, r, "cuPointerGetAttribute");
  if (ordinal != ctx->cuda->index)
    return rt_error(ctx, KC_ERR_INVALID, "%s: 0x%llx is memory of CUDA device %d; the "
                    "context's device is %d", what, (unsigned long long)ptr, ordinal,
                    ctx->cuda->index);
  return KC_OK;
}

kc_status rt_cuda_stream_check(kc_context *ctx, void *stream) {
  kc_status status = enter(ctx);
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

/* ---- Stream-ordered work --------------------------------------------------------------- */
kc_status rt_cuda_copy_htod_async(kc_context *ctx, uint64_t dst, const void *src, size_t n,
                                  void *stream) {
  kc_status status = enter(ctx);
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
  kc_status status = enter(ctx);
  if (status != KC_OK || n == 0) return status;
  if (ctx->cfg.timeout_ms > 0 && pageable(dst) &&
      (status = rt_cuda_wait(ctx, poll_stream, stream, ctx->cuda->last_kernel)) != KC_OK)
    return status;
  RT_CU(ctx, MemcpyDtoHAsync, (dst, (CUdeviceptr)src, n, (CUstream)stream));
cleanup:
  return status;
}

kc_status rt_cuda_copy_dtod_async(kc_context *ctx, uint64_t dst, uint64_t src, size_t n,
                                  void *stream) {
  kc_status status = enter(ctx);
  if (status != KC_OK || n == 0) return status;
  RT_CU(ctx, MemcpyDtoDAsync, ((CUdeviceptr)dst, (CUdeviceptr)src, n, (CUstream)stream));
cleanup:
  return status;
}

/* As rt_cuda_fill, queued on stream: the value is read now (the driver takes it by
 * value), so the caller's copy may change at once. */
kc_status rt_cuda_fill_async(kc_context *ctx, uint64_t dst, size_t count, size_t elem_size,
                             const void *value, void *stream) {
  kc_status status = enter(ctx);
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

kc_status rt_cuda_stream_wait_event(kc_context *ctx, void *stream, void *event) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, StreamWaitEvent, ((CUstream)stream, (CUevent)event, 0));
cleanup:
  return status;
}

/* ---- Several GPUs ------------------------------------------------------------------------ */
/* Whether device a can read and write device b's memory directly (NVLink or PCIe P2P);
 * *can is 0 when the driver cannot say. */
kc_status rt_cuda_can_access_peer(int a, int b, int *can) {
  kc_status status = need_driver(NULL);
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

kc_status rt_cuda_event_query(kc_context *ctx, void *event, int *done) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  CUresult r = rt_drv.EventQuery((CUevent)event);
  *done = r == CUDA_SUCCESS;
  if (r != CUDA_SUCCESS && r != CUDA_ERROR_NOT_READY) status = cu_fail(ctx, r, "cuEventQuery");
  return status;
}

kc_status rt_cuda_launch_host_func(kc_context *ctx, void *stream, kc_host_fn fn,
                                   void *user_data) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, LaunchHostFunc, ((CUstream)stream, fn, user_data));
cleanup:
  return status;
}

/* n bytes from src's device memory (context sctx) to dst's (dctx), ordered on stream
 * (a CUstream of either context) or, with none, finished on return. Without peer access
 * enabled the driver stages the copy through the host itself, so this works between any
 * two GPUs; errors are recorded in dctx. */
kc_status rt_cuda_copy_peer(kc_context *dctx, uint64_t dst, kc_context *sctx, uint64_t src,
                            size_t n, void *stream) {
  kc_status status = enter(dctx);
  if (status != KC_OK) return status;
  if (!sctx->cuda) return rt_error(dctx, KC_ERR_NO_DEVICE, "the source has no CUDA device");
  if (!rt_drv.MemcpyPeer || !rt_drv.MemcpyPeerAsync)
    return rt_error(dctx, KC_ERR_UNSUPPORTED,
                    "the CUDA driver (%s) lacks cuMemcpyPeer: it is too old for peer copies",
                    rt_drv.path);
  if (!stream && dctx->cfg.timeout_ms > 0) {   /* a synchronous copy waits for both */
    if (wait_idle(sctx) != KC_OK)
      return rt_error(dctx, sctx->broken ? sctx->broken : KC_ERR_CUDA,
                      "peer copy: the source's context: %s", sctx->err);
    if ((status = wait_idle(dctx)) != KC_OK) return status;
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

kc_status rt_cuda_host_register(kc_context *ctx, void *p, size_t bytes) {
  kc_status status = enter(ctx);
  if (status != KC_OK) return status;
  RT_CU(ctx, MemHostRegister, (p, bytes, 0));
cleanup:
  return status;
}

void rt_cuda_host_unregister(kc_context *ctx, void *p) {
  if (enter_release(ctx, 1)) rt_drv.MemHostUnregister(p);
}

#else /* !KC_HAVE_CUDA: a CPU-only build */

static kc_status no_cuda(kc_context *ctx) {
  return rt_error(ctx, KC_ERR_NO_DEVICE,
                  "kcc was not built with CUDA support (no CUDA headers at build time)");
}

kc_status rt_cuda_load(char *msg, size_t len) {
  if (msg && len) snprintf(msg, len, "not built with CUDA support");
  return KC_ERR_NO_DEVICE;
}
const char *rt_cuda_driver_path(void) { return NULL; }
int rt_cuda_driver_version(void) { return 0; }
kc_status rt_cuda_open(kc_context *ctx, int index) { (void)index; return no_cuda(ctx); }
void rt_cuda_close(kc_context *ctx) { (void)ctx; }
int rt_cuda_device_supported(int cc_major, int cc_minor) {
  (void)cc_major; (void)cc_minor;
  return 0;
}
kc_status rt_cuda_info(kc_context *ctx, int index, kc_device_info *info) {
  (void)index; memset(info, 0, sizeof *info);
  return no_cuda(ctx);
}
kc_status rt_cuda_count(kc_context *ctx, int *count) { *count = 0; return no_cuda(ctx); }
kc_status rt_cuda_mem_alloc(kc_context *ctx, size_t bytes, uint64_t *out) {
  (void)bytes; (void)out; return no_cuda(ctx);
}
void rt_cuda_mem_free(kc_context *ctx, uint64_t p) { (void)ctx; (void)p; }
kc_status rt_cuda_copy_htod(kc_context *ctx, uint64_t dst, const void *src, size_t n) {
  (void)dst; (void)src; (void)n; return no_cuda(ctx);
}
kc_status rt_cuda_copy_dtoh(kc_context *ctx, void *dst, uint64_t src, size_t n) {
  (void)dst; (void)src; (void)n; return no_cuda(ctx);
}
kc_status rt_cuda_copy_dtod(kc_context *ctx, uint64_t dst, uint64_t src, size_t n) {
  (void)dst; (void)src; (void)n; return no_cuda(ctx);
}
kc_status rt_cuda_fill(kc_context *ctx, uint64_t dst, size_t count, size_t elem_size,
                       const void *value) {
  (void)dst; (void)count; (void)elem_size; (void)value; return no_cuda(ctx);
}
kc_status rt_cuda_host_alloc(kc_context *ctx, size_t bytes, void **out) {
  (void)bytes; (void)out; return no_cuda(ctx);
}
void rt_cuda_host_free(kc_context *ctx, void *p) { (void)ctx; (void)p; }
kc_status rt_cuda_module_load(kc_context *ctx, const void *image, void **out) {
  (void)image; (void)out; return no_cuda(ctx);
}
kc_status rt_cuda_module_global(kc_context *ctx, void *module, const char *name,
                                char **out, size_t *len) {
  (void)module; (void)name; (void)out; (void)len; return no_cuda(ctx);
}
kc_status rt_cuda_global_address(kc_context *ctx, void *module, const char *name,
                                 uint64_t *dptr, size_t *bytes) {
  (void)module; (void)name; (void)dptr; (void)bytes; return no_cuda(ctx);
}
void rt_cuda_module_unload(kc_context *ctx, void *module) { (void)ctx; (void)module; }
kc_status rt_cuda_get_function(kc_context *ctx, void *module, const char *symbol,
                               void **fn, unsigned *max_threads) {
  (void)module; (void)symbol; (void)fn; (void)max_threads; return no_cuda(ctx);
}
kc_status rt_cuda_allow_shared(kc_context *ctx, void *fn, size_t bytes) {
  (void)fn; (void)bytes; return no_cuda(ctx);
}
kc_status rt_cuda_launch(kc_context *ctx, void *fn, kc_dim3 grid, kc_dim3 block,
                         size_t shared, void *stream, void **params) {
  (void)fn; (void)grid; (void)block; (void)shared; (void)stream; (void)params;
  return no_cuda(ctx);
}
kc_status rt_cuda_launch_cooperative(kc_context *ctx, const char *kernel, void *fn,
                                     kc_dim3 grid, kc_dim3 block, size_t shared, void *stream,
                                     void **params) {
  (void)kernel; (void)fn; (void)grid; (void)block; (void)shared; (void)stream; (void)params;
  return no_cuda(ctx);
}
kc_status rt_cuda_occupancy(kc_context *ctx, void *fn, size_t shared, int *min_grid,
                            int *block) {
  (void)fn; (void)shared; (void)min_grid; (void)block; return no_cuda(ctx);
}
kc_status rt_cuda_synchronize(kc_context *ctx) { return no_cuda(ctx); }
kc_status rt_cuda_stream_new(kc_context *ctx, void **out) { (void)out; return no_cuda(ctx); }
kc_status rt_cuda_stream_sync(kc_context *ctx, void *stream, const char *kernel) {
  (void)stream; (void)kernel; return no_cuda(ctx);
}
void rt_cuda_note_launch(kc_context *ctx, const char *kernel) { (void)ctx; (void)kernel; }
void rt_cuda_stream_free(kc_context *ctx, void *stream) { (void)ctx; (void)stream; }
kc_status rt_cuda_event_new(kc_context *ctx, void **out) { (void)out; return no_cuda(ctx); }
kc_status rt_cuda_event_record(kc_context *ctx, void *event, void *stream) {
  (void)event; (void)stream; return no_cuda(ctx);
}
kc_status rt_cuda_event_sync(kc_context *ctx, void *event) {
  (void)event; return no_cuda(ctx);
}
kc_status rt_cuda_event_elapsed(kc_context *ctx, void *start, void *end, float *ms) {
  (void)start; (void)end; (void)ms; return no_cuda(ctx);
}
void rt_cuda_event_free(kc_context *ctx, void *event) { (void)ctx; (void)event; }
void *rt_cuda_context(kc_context *ctx) { (void)ctx; return NULL; }
kc_status rt_cuda_pointer_check(kc_context *ctx, const char *what, uint64_t ptr) {
  (void)what; (void)ptr; return no_cuda(ctx);
}
kc_status rt_cuda_stream_check(kc_context *ctx, void *stream) {
  (void)stream; return no_cuda(ctx);
}

kc_status rt_cuda_copy_htod_async(kc_context *ctx, uint64_t dst, const void *src, size_t n,
                                  void *stream) {
  (void)dst; (void)src; (void)n; (void)stream; return no_cuda(ctx);
}
kc_status rt_cuda_copy_dtoh_async(kc_context *ctx, void *dst, uint64_t src, size_t n,
                                  void *stream) {
  (void)dst; (void)src; (void)n; (void)stream; return no_cuda(ctx);
}
kc_status rt_cuda_copy_dtod_async(kc_context *ctx, uint64_t dst, uint64_t src, size_t n,
                                  void *stream) {
  (void)dst; (void)src; (void)n; (void)stream; return no_cuda(ctx);
}
kc_status rt_cuda_fill_async(kc_context *ctx, uint64_t dst, size_t count, size_t elem_size,
                             const void *value, void *stream) {
  (void)dst; (void)count; (void)elem_size; (void)value; (void)stream; return no_cuda(ctx);
}
kc_status rt_cuda_stream_wait_event(kc_context *ctx, void *stream, void *event) {
  (void)stream; (void)event; return no_cuda(ctx);
}
kc_status rt_cuda_event_query(kc_context *ctx, void *event, int *done) {
  (void)event; *done = 0; return no_cuda(ctx);
}
kc_status rt_cuda_launch_host_func(kc_context *ctx, void *stream, kc_host_fn fn,
                                   void *user_data) {
  (void)stream; (void)fn; (void)user_data; return no_cuda(ctx);
}
kc_status rt_cuda_host_register(kc_context *ctx, void *p, size_t bytes) {
  (void)p; (void)bytes; return no_cuda(ctx);
}
void rt_cuda_host_unregister(kc_context *ctx, void *p) { (void)ctx; (void)p; }
kc_status rt_cuda_can_access_peer(int a, int b, int *can) {
  (void)a; (void)b; *can = 0; return no_cuda(NULL);
}
kc_status rt_cuda_copy_peer(kc_context *dctx, uint64_t dst, kc_context *sctx, uint64_t src,
                            size_t n, void *stream) {
  (void)dst; (void)sctx; (void)src; (void)n; (void)stream; return no_cuda(dctx);
}

#endif

/*
 * driver.h — what the files of runtime/cuda/ share, and nothing outside the folder
 * includes: the CUDA driver's table of entry points (a member for each row of
 * cuda_entries.def), the per-context CUDA state, the check every driver call makes
 * (RT_CU), and the waits under a timeout.
 *
 * Only this folder includes cuda.h. The rest of the runtime reaches it through the
 * rt_cuda_* calls of cuda_calls.def, with CUDA handles as void * and device pointers
 * as uint64_t, so a build without CUDA headers compiles none.c in place of the
 * folder's other files and nothing else changes.
 */
#ifndef KC_RT_CUDA_DRIVER_H
#define KC_RT_CUDA_DRIVER_H

#include <cuda.h>
#include <cudaTypedefs.h>

#include "rt.h"

/* The driver table. Members drop the "cu" prefix so they never clash with cuda.h's
 * macros (cuMemAlloc -> cuMemAlloc_v2); RT_CU puts it back in messages. */
typedef struct rt_driver {
  void *lib;
  const char *path;
  int version;
  kc_status status;
  char msg[512];
#define CU_ENTRY(member, ver, symbol, fallback, need) PFN_cu##member##_##ver member;
#include "cuda_entries.def"
#undef CU_ENTRY
} rt_driver;

/* The one piece of process-wide state: written once under pthread_once (driver.c),
 * then only read. */
extern rt_driver rt_drv;

struct rt_cuda {
  CUdevice dev;
  CUcontext pctx;
  int index;
  CUevent idle;             /* timeout waits for the whole context: recorded on the
                               legacy stream and polled (made at the first such wait) */
  char last_kernel[64];     /* the last kernel launched, named by a timeout */
};

/* ---- errors.c ---------------------------------------------------------------------- */
/* A failed call's CUresult as the context's error: the call's name and CUDA's name and
 * text for the error; an error CUDA keeps for good loses the context. */
kc_status rt_cu_fail(kc_context *ctx, CUresult r, const char *call);

/* Call the driver's cu<fn> with args; on failure record it and goto cleanup. Needs a
 * kc_status `status` and a `cleanup:` label in the calling function. */
#define RT_CU(ctx, fn, args)                          \
  do {                                                \
    CUresult rt_r_ = rt_drv.fn args;                  \
    if (rt_r_ != CUDA_SUCCESS) {                      \
      status = rt_cu_fail((ctx), rt_r_, "cu" #fn);    \
      goto cleanup;                                   \
    }                                                 \
  } while (0)

/* The driver loaded, else its error (KC_ERR_NO_DEVICE and why) in ctx. */
kc_status rt_cu_need_driver(kc_context *ctx);
/* Before a call: the context's primary context current on this thread; a context
 * without a device, or lost, is refused. */
kc_status rt_cu_enter(kc_context *ctx);
/* Before a release: whether to call the driver at all (not without a device, nor a
 * release that may block (may_block) once a wait timed out). */
int rt_cu_enter_release(kc_context *ctx, int may_block);
/* Mark ctx unusable (how: RT_LOST_*) with status s and its current message. */
void rt_context_lose(kc_context *ctx, kc_status s, int how);

/* ---- device.c ---------------------------------------------------------------------- */
int rt_cu_attr(CUdevice dev, CUdevice_attribute a);   /* an attribute, 0 if unknown */

/* ---- wait.c: waits under kc_config.timeout_ms ---------------------------------------- */
/* One poll of what a wait waits for: *done = 1 once finished; an error is recorded. */
typedef kc_status (*rt_cuda_poll)(kc_context *ctx, void *what, int *done);
/* Poll until done or ctx->cfg.timeout_ms have passed: then KC_ERR_TIMEOUT naming
 * kernel (the last one launched there; NULL or "" if unknown), the context lost. */
kc_status rt_cuda_wait(kc_context *ctx, rt_cuda_poll poll, void *what, const char *kernel);
/* The polls of a stream (a CUstream) and of an event (a CUevent). */
kc_status rt_cu_poll_stream(kc_context *ctx, void *stream, int *done);
kc_status rt_cu_poll_event(kc_context *ctx, void *event, int *done);
/* rt_cu_enter, then with a timeout a wait for the work queued so far in the context's
 * blocking streams (what a blocking call would wait for). */
kc_status rt_cu_wait_idle(kc_context *ctx);

#endif

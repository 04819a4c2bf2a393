/*
 * stream.c — streams, events and host functions.
 *
 * Work runs when it is queued (a launch runs the kernel inside cuLaunchKernel), so a
 * stream is only a handle to check and every wait is already satisfied; what is
 * checked is that each handle exists, belongs to the live context and is used in the
 * order the Driver API wants (an event recorded before it is timed).
 */
#include <time.h>

#include "double.h"

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* NULL, CU_STREAM_LEGACY and CU_STREAM_PER_THREAD are the default streams. */
CUresult dbl_stream_check(const char *call, CUstream s) {
  if (s == NULL || s == CU_STREAM_LEGACY || s == CU_STREAM_PER_THREAD) return CUDA_SUCCESS;
  return dbl_obj_get(s, DBL_STREAM, call, "hStream") ? CUDA_SUCCESS
                                                      : CUDA_ERROR_INVALID_HANDLE;
}

void dbl_streams_destroy_all(const char *why) {
  int streams = 0, events = 0;
  for (dbl_obj *o = dbl.objs; o; o = o->next) {
    if (!o->live || (o->kind != DBL_STREAM && o->kind != DBL_EVENT)) continue;
    if (o->kind == DBL_STREAM) streams++;
    else events++;
    o->live = 0;
  }
  if (streams || events)
    dbl_contract("%s: %d stream%s and %d event%s never destroyed", why, streams,
                 streams == 1 ? "" : "s", events, events == 1 ? "" : "s");
}

CUresult cuStreamCreate(CUstream *out, unsigned flags) {
  CUresult r = dbl_enter("cuStreamCreate", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!out || (flags & ~(unsigned)CU_STREAM_NON_BLOCKING))) {
    dbl_contract("cuStreamCreate: phStream %p, flags 0x%x", (void *)out, flags);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  dbl_obj *o = r == CUDA_SUCCESS ? dbl_obj_new(DBL_STREAM) : NULL;
  if (r == CUDA_SUCCESS && !o) r = CUDA_ERROR_OUT_OF_MEMORY;
  if (o) *out = (CUstream)(void *)o;
  return dbl_leave(r);
}

CUresult cuStreamDestroy(CUstream s) {
  CUresult r = dbl_enter("cuStreamDestroy", DBL_NEED_CTX | DBL_RELEASES);
  dbl_obj *o = NULL;
  if (r == CUDA_SUCCESS && !(o = dbl_obj_get(s, DBL_STREAM, "cuStreamDestroy", "hStream")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (o) o->live = 0;
  return dbl_leave_release(r);
}

CUresult cuStreamSynchronize(CUstream s) {
  CUresult r = dbl_enter("cuStreamSynchronize", DBL_NEED_CTX | DBL_BLOCKS);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuStreamSynchronize", s);
  return dbl_leave(r);
}

/* Work runs when queued, so a stream is idle unless a kernel never ends (the double
 * does not track which stream it went to: every stream then says not ready). */
CUresult cuStreamQuery(CUstream s) {
  CUresult r = dbl_enter("cuStreamQuery", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuStreamQuery", s);
  if (r == CUDA_SUCCESS && dbl.hung) r = CUDA_ERROR_NOT_READY;
  return dbl_leave(r);
}

CUresult cuStreamWaitEvent(CUstream s, CUevent e, unsigned flags) {
  CUresult r = dbl_enter("cuStreamWaitEvent", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuStreamWaitEvent", s);
  if (r == CUDA_SUCCESS && !dbl_obj_get(e, DBL_EVENT, "cuStreamWaitEvent", "hEvent"))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS && flags & ~1u) {
    dbl_contract("cuStreamWaitEvent: flags 0x%x", flags);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  return dbl_leave(r);
}

CUresult cuLaunchHostFunc(CUstream s, CUhostFn fn, void *user) {
  CUresult r = dbl_enter("cuLaunchHostFunc", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuLaunchHostFunc", s);
  if (r == CUDA_SUCCESS && !fn) {
    dbl_contract("cuLaunchHostFunc: NULL fn");
    r = CUDA_ERROR_INVALID_VALUE;
  }
  dbl_leave(r);
  /* outside the lock: a host function must make no CUDA call, and one that does is
     caught as a call from the wrong place rather than a deadlock here */
  if (r == CUDA_SUCCESS) fn(user);
  return r;
}

CUresult cuEventCreate(CUevent *out, unsigned flags) {
  CUresult r = dbl_enter("cuEventCreate", DBL_NEED_CTX);
  if (r == CUDA_SUCCESS && (!out || (flags & ~0xFu))) {
    dbl_contract("cuEventCreate: phEvent %p, flags 0x%x", (void *)out, flags);
    r = CUDA_ERROR_INVALID_VALUE;
  }
  dbl_obj *o = r == CUDA_SUCCESS ? dbl_obj_new(DBL_EVENT) : NULL;
  if (r == CUDA_SUCCESS && !o) r = CUDA_ERROR_OUT_OF_MEMORY;
  if (o) *out = (CUevent)(void *)o;
  return dbl_leave(r);
}

CUresult cuEventRecord(CUevent e, CUstream s) {
  CUresult r = dbl_enter("cuEventRecord", DBL_NEED_CTX);
  dbl_obj *o = NULL;
  if (r == CUDA_SUCCESS && !(o = dbl_obj_get(e, DBL_EVENT, "cuEventRecord", "hEvent")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS) r = dbl_stream_check("cuEventRecord", s);
  if (r == CUDA_SUCCESS) {
    o->recorded = 1;
    o->never = dbl.hung;
    o->when_ms = now_ms();
  }
  return dbl_leave(r);
}

CUresult cuEventSynchronize(CUevent e) {
  CUresult r = dbl_enter("cuEventSynchronize", DBL_NEED_CTX | DBL_BLOCKS);
  if (r == CUDA_SUCCESS && !dbl_obj_get(e, DBL_EVENT, "cuEventSynchronize", "hEvent"))
    r = CUDA_ERROR_INVALID_HANDLE;
  return dbl_leave(r);
}

CUresult cuEventQuery(CUevent e) {
  CUresult r = dbl_enter("cuEventQuery", DBL_NEED_CTX);
  dbl_obj *o = NULL;
  if (r == CUDA_SUCCESS && !(o = dbl_obj_get(e, DBL_EVENT, "cuEventQuery", "hEvent")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (r == CUDA_SUCCESS && o->never) r = CUDA_ERROR_NOT_READY;
  return dbl_leave(r);
}

CUresult cuEventElapsedTime(float *ms, CUevent start, CUevent end) {
  CUresult r = dbl_enter("cuEventElapsedTime", DBL_NEED_CTX);
  dbl_obj *a = NULL, *b = NULL;
  if (r == CUDA_SUCCESS && !ms) r = CUDA_ERROR_INVALID_VALUE;
  if (r == CUDA_SUCCESS && (!(a = dbl_obj_get(start, DBL_EVENT, "cuEventElapsedTime", "hStart")) ||
                            !(b = dbl_obj_get(end, DBL_EVENT, "cuEventElapsedTime", "hEnd"))))
    r = CUDA_ERROR_INVALID_HANDLE;
  /* the Driver API: CUDA_ERROR_INVALID_HANDLE when either was never recorded */
  if (r == CUDA_SUCCESS && (!a->recorded || !b->recorded)) {
    dbl_contract("cuEventElapsedTime: the %s event was never recorded",
                 a->recorded ? "end" : "start");
    r = CUDA_ERROR_INVALID_HANDLE;
  }
  if (r == CUDA_SUCCESS) *ms = (float)(b->when_ms - a->when_ms);
  return dbl_leave(r);
}

/* cuEventElapsedTime_v2 is what cuda.h 12.8+ maps the name to; export both. */
#ifdef cuEventElapsedTime
__attribute__((visibility("default"))) CUresult cuEventElapsedTime_v1(float *ms,
    CUevent start, CUevent end) __asm__("cuEventElapsedTime");
CUresult cuEventElapsedTime_v1(float *ms, CUevent start, CUevent end) {
  return cuEventElapsedTime(ms, start, end);
}
#endif

CUresult cuEventDestroy(CUevent e) {
  CUresult r = dbl_enter("cuEventDestroy", DBL_NEED_CTX | DBL_RELEASES);
  dbl_obj *o = NULL;
  if (r == CUDA_SUCCESS && !(o = dbl_obj_get(e, DBL_EVENT, "cuEventDestroy", "hEvent")))
    r = CUDA_ERROR_INVALID_HANDLE;
  if (o) o->live = 0;
  return dbl_leave_release(r);
}

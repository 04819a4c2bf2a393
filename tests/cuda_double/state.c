/*
 * state.c — the double's lock, call accounting, contract reports and handles.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "double.h"

dbl_state dbl;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
/* The context current on this thread: the double has one device and one (primary)
 * context, so "current" is a flag per thread. */
static __thread int ctx_current;
static unsigned long fatals;

int dbl_ctx_current(void) { return ctx_current; }
void dbl_ctx_set_current(int on) { ctx_current = on; }

void dbl_contract(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cuda-double: CONTRACT: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  dbl.violations++;
}

void dbl_fatal(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "cuda-double: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
  fatals++;
}

void dbl_would_hang(const char *name) {
  if (!dbl.hung) return;
  fprintf(stderr, "cuda-double: HANG: %s called while a kernel never ends "
          "(KC_CUDA_DOUBLE_FAIL=...=HANG): on a GPU this call would wait for ever "
          "(with kc_config.timeout_ms the runtime must poll instead)\n", name);
  fflush(NULL);
  abort();
}

CUresult dbl_enter(const char *name, int flags) {
  pthread_mutex_lock(&lock);
  dbl.calls++;
  if (!dbl.inited && !(flags & DBL_NO_INIT)) {
    dbl_contract("%s called before cuInit", name);
    return CUDA_ERROR_NOT_INITIALIZED;
  }
  if (flags & DBL_NEED_CTX) {
    if (!dbl.ctx_alive || !ctx_current) {
      dbl_contract("%s called with no current context%s", name,
                   dbl.ctx_alive ? " on this thread (cuCtxSetCurrent)" : " (none retained)");
      return CUDA_ERROR_INVALID_CONTEXT;
    }
    /* an asynchronous fault shows up at the next call after the launch */
    if (dbl.pending && !(flags & DBL_LAUNCH)) {
      dbl.sticky = dbl.pending;
      dbl.pending = CUDA_SUCCESS;
    }
    if (dbl.sticky && !(flags & DBL_RELEASES)) return dbl.sticky;
    if (flags & DBL_BLOCKS) dbl_would_hang(name);
  }
  CUresult r = dbl_fault(name);
  if (r == DBL_HANG) {
    if (!(flags & DBL_LAUNCH)) {
      dbl_contract("%s: =HANG is for launches only", name);
      return CUDA_ERROR_UNKNOWN;
    }
    dbl.hung = 1;      /* the launch succeeds; its kernel never ends */
    dbl.hangs++;
    return CUDA_SUCCESS;
  }
  if (r != CUDA_SUCCESS && (flags & DBL_LAUNCH) && dbl_sticky_error(r)) {
    dbl.pending = r;   /* the launch itself succeeds; the kernel "faults" */
    return CUDA_SUCCESS;
  }
  /* a sticky error at another call is a fault of earlier work: it stays */
  if ((flags & DBL_NEED_CTX) && dbl_sticky_error(r)) dbl.sticky = r;
  return r;
}

CUresult dbl_leave(CUresult r) {
  pthread_mutex_unlock(&lock);
  return r;
}

/* A release on a poisoned context: the resource goes, the call returns the fault. */
CUresult dbl_leave_release(CUresult r) {
  if (r == CUDA_SUCCESS && dbl.sticky) r = dbl.sticky;
  pthread_mutex_unlock(&lock);
  return r;
}

dbl_obj *dbl_obj_new(dbl_kind kind) {
  dbl_obj *o = calloc(1, sizeof *o);
  if (!o) return NULL;
  o->magic = DBL_MAGIC;
  o->kind = kind;
  o->live = 1;
  o->next = dbl.objs;
  dbl.objs = o;
  return o;
}

static const char *kind_name(dbl_kind k) {
  switch (k) {
  case DBL_MODULE: return "CUmodule";
  case DBL_FUNC: return "CUfunction";
  case DBL_STREAM: return "CUstream";
  case DBL_EVENT: return "CUevent";
  case DBL_LINK: return "CUlinkState";
  }
  return "handle";
}

/* Handles are looked up in the list of objects made, so a wild pointer is reported,
 * never dereferenced. */
dbl_obj *dbl_obj_get(const void *h, dbl_kind kind, const char *call, const char *what) {
  for (dbl_obj *o = dbl.objs; o; o = o->next) {
    if ((const void *)o != h) continue;
    if (o->kind != kind) break;
    if (!o->live) {
      dbl_contract("%s: %s is a %s already destroyed", call, what, kind_name(kind));
      return NULL;
    }
    return o;
  }
  dbl_contract("%s: %s (%p) is not a %s the driver made", call, what, h, kind_name(kind));
  return NULL;
}

/* ---- The report at exit ---------------------------------------------------------- */
static void report(void) {
  const char *want = getenv("KC_CUDA_DOUBLE_STATS");
  char line[512];
  snprintf(line, sizeof line,
           "cuda-double: %lu driver calls checked, %lu launches (%lu parameters checked, "
           "%lu run on the CPU), %lu faults injected (%lu kernels that never end, %lu "
           "allocations and modules reclaimed with their hung context), %lu contract "
           "violations, %zu bytes still allocated\n",
           dbl.calls, dbl.launches, dbl.launch_params, dbl.runs, dbl.faults, dbl.hangs,
           dbl.reclaimed, dbl.violations, dbl_mem_live());
  if (want && strcmp(want, "1") == 0) {
    fputs(line, stderr);
  } else if (want && *want) {
    FILE *f = fopen(want, "a");
    if (f) {
      fputs(line, f);
      fclose(f);
    }
  }
}

static void free_objects(void) {
  /* modules first: destroying one marks its functions dead, which must still exist */
  for (dbl_obj *o = dbl.objs; o; o = o->next)
    if (o->kind == DBL_MODULE) dbl_module_destroy(o);
    else if (o->kind == DBL_LINK) dbl_link_release(o);
  for (dbl_obj *o = dbl.objs, *n; o; o = n) {
    n = o->next;
    free(o);
  }
  dbl.objs = NULL;
  for (dbl_mem *m = dbl.mems, *n; m; m = n) {
    n = m->next;
    dbl_mem_release(m);
  }
}

/* At exit: report, free what the process left, and fail the process on any
 * violation. */
__attribute__((destructor)) static void dbl_at_exit(void) {
  /* a process may end with its context retained (the driver cleans up), as a test
     that skips or fails does: not a violation */
  report();
  free_objects();
  if (dbl.violations || fatals) {
    fprintf(stderr, "cuda-double: %lu contract violation%s, %lu kernel%s not run: failing "
            "the process\n", dbl.violations, dbl.violations == 1 ? "" : "s", fatals,
            fatals == 1 ? "" : "s");
    fflush(NULL);
    _exit(70);
  }
}

/* For tests (dlsym): live bytes and counts. */
void cuda_double_counts(unsigned long out[8]) {
  pthread_mutex_lock(&lock);
  out[0] = dbl.calls;
  out[1] = dbl.launches;
  out[2] = dbl.runs;
  out[3] = dbl.faults;
  out[4] = dbl.violations;
  out[5] = (unsigned long)dbl_mem_live();
  out[6] = (unsigned long)dbl.ctx_alive;
  unsigned long live = 0;
  for (dbl_obj *o = dbl.objs; o; o = o->next) live += o->live && o->kind != DBL_FUNC;
  out[7] = live;
  pthread_mutex_unlock(&lock);
}

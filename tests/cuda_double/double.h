/*
 * double.h — the CUDA driver double's shared state (tests only).
 *
 * libcuda.so.1 for the test suite: every entry point runtime/cuda/ resolves, each one
 * checking the Driver API's contract (cuInit first, a current context, live handles,
 * launch shapes and parameters against the PTX, copies inside allocations, everything
 * freed when the primary context goes). "Device memory" is host memory, and a launch
 * runs the same kernel compiled by kcc for the CPU (launch.c). It is a contract
 * checker, not a GPU: it proves the runtime's calls and the parameter ABI, not what
 * the PTX computes (ptxas checks the PTX, the CPU back end the semantics).
 *
 * Environment:
 *   KC_CUDA_DOUBLE_SOURCE  .k files (':'-separated) whose kernels launches run
 *   KC_CUDA_DOUBLE_FAIL    faults to inject: "call:n[=ERROR],..." (faults.c)
 *   KC_CUDA_DOUBLE_STATS   1: print the counts at exit; a path: append them there
 *
 * One lock serialises every entry point: the double is small and tests are small.
 */
#ifndef KC_CUDA_DOUBLE_H
#define KC_CUDA_DOUBLE_H

#include <stddef.h>
#include <stdint.h>

/* the entry points are the library's interface: exported although the project
   builds with -fvisibility=hidden (cuda.h declares them all) */
#pragma GCC visibility push(default)
#include <cuda.h>
#pragma GCC visibility pop

/* ---- Objects: every handle the double gives out is a dbl_obj, never freed before
 * exit, so a stale handle is caught (live == 0) rather than read after free. */
typedef enum dbl_kind {
  DBL_MODULE = 1, DBL_FUNC, DBL_STREAM, DBL_EVENT, DBL_LINK
} dbl_kind;

#define DBL_MAGIC 0xC0DAD0B1u

typedef struct dbl_param {
  size_t size, align;
} dbl_param;

typedef struct dbl_obj dbl_obj;
typedef struct dbl_link dbl_link;   /* link.c's */

typedef struct dbl_entry {
  char *name;                  /* the .entry symbol */
  char *signature;             /* from its "// kcc-kernel:" line, or NULL */
  int nparams;
  dbl_param *params;
  unsigned maxntid;            /* .maxntid/.reqntid product, or 0 */
  size_t static_shared;        /* .shared bytes (module scope + its body) */
  int max_dynamic_shared;      /* cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES) */
  void *cpu_module;            /* kc_module compiled for the CPU, lazily */
  void *cpu_kernel;            /* its kc_kernel */
  int cooperative;             /* its kcc-kernel line says " cooperative" */
  int checked;                 /* it (or a .func) writes kcc's __kcc_error record */
  dbl_obj *fn;                 /* its CUfunction, made at the first cuModuleGetFunction */
} dbl_entry;

typedef struct dbl_global {
  char *name;
  char *mem;                   /* an allocation of the module (device memory) */
  size_t size;
} dbl_global;

struct dbl_obj {
  uint32_t magic;
  dbl_kind kind;
  int live;
  dbl_obj *next;               /* every object ever made */
  /* DBL_MODULE */
  dbl_entry *entries;
  int nentries;
  dbl_global *globals;
  int nglobals;
  /* DBL_FUNC */
  dbl_obj *module;
  int entry;
  /* DBL_EVENT */
  int recorded;
  int never;                   /* recorded after a kernel that never ends */
  double when_ms;
  /* DBL_LINK */
  dbl_link *link;
};

/* ---- Allocations (device memory, page-locked and registered host memory) -------- */
typedef enum dbl_mem_kind { DBL_DEVICE, DBL_HOST, DBL_REGISTERED, DBL_GLOBAL } dbl_mem_kind;

typedef struct dbl_mem {
  char *base;
  size_t size;
  dbl_mem_kind kind;
  struct dbl_mem *next;
} dbl_mem;

/* ---- Process state (state.c) ----------------------------------------------------- */
typedef struct dbl_state {
  int inited;
  int ctx_refs;                /* primary context retain count */
  int ctx_alive;
  CUresult sticky;             /* a fault that poisoned the context */
  CUresult pending;            /* an injected kernel fault, reported at the next call */
  int hung;                    /* an injected kernel that never ends (=HANG): queries say
                                  CUDA_ERROR_NOT_READY, a blocking call aborts the test */
  unsigned long hangs, reclaimed;   /* hangs injected; allocations and modules left to
                                       the destruction of a hung context */
  dbl_obj *objs;
  dbl_mem *mems;
  unsigned long calls, launches, launch_params, runs, faults, violations;
  unsigned long live_peak;
} dbl_state;

extern dbl_state dbl;

/* Flags of dbl_enter: what a call needs. */
#define DBL_NO_INIT 1          /* may be called before cuInit */
#define DBL_NEED_CTX 2         /* needs the primary context current on this thread */
#define DBL_RELEASES 4         /* frees a resource: runs even on a poisoned context */
#define DBL_LAUNCH 8           /* a launch: an injected kernel fault is deferred */
#define DBL_BLOCKS 16          /* waits for the device's work: on a GPU it never returns
                                  while a kernel never ends (the double aborts) */
/* The pseudo-error of KC_CUDA_DOUBLE_FAIL=cuLaunchKernel:n=HANG: a kernel that never
 * ends (never a value of CUresult) */
#define DBL_HANG ((CUresult)0x7ffffff0)

/* Lock, count, check init/context/stickiness and injected faults. Returns the error
 * the call must return, or CUDA_SUCCESS to run its body. */
CUresult dbl_enter(const char *name, int flags);
/* A call that waits for the device's work while a kernel never ends: abort the process
 * with a message (on a GPU it would never return). */
void dbl_would_hang(const char *name);
/* Unlock and return r. */
CUresult dbl_leave(CUresult r);
/* For RELEASES calls: unlock and return r, or the sticky fault when there is one. */
CUresult dbl_leave_release(CUresult r);
/* Report a contract violation: a loud line on stderr, counted; the process exits
 * non-zero at its end. */
void dbl_contract(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A non-contract failure of the double itself (a kernel it cannot run). */
void dbl_fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

dbl_obj *dbl_obj_new(dbl_kind kind);
/* The live object of this kind behind handle h, or NULL after a contract report. */
dbl_obj *dbl_obj_get(const void *h, dbl_kind kind, const char *call, const char *what);

/* The primary context is current on this thread (cuCtxSetCurrent). */
int dbl_ctx_current(void);
void dbl_ctx_set_current(int on);
/* For tests, through dlsym: calls, launches, runs, faults, violations, live bytes,
 * whether the context is retained, live handles. */
__attribute__((visibility("default"))) void cuda_double_counts(unsigned long out[8]);

/* ---- driver.c ---------------------------------------------------------------------- */
/* The device's attribute a (an A100's). */
int dbl_attribute(CUdevice_attribute a);

/* ---- stream.c ---------------------------------------------------------------------- */
/* CUDA_SUCCESS for a default stream or a live one; else a report. */
CUresult dbl_stream_check(const char *call, CUstream s);
/* Context destruction: streams and events still alive are reported and end. */
void dbl_streams_destroy_all(const char *why);

/* ---- faults.c ---------------------------------------------------------------------- */
/* Read KC_CUDA_DOUBLE_FAIL (at cuInit). */
void dbl_faults_load(void);
/* The error injected into this call of `name` (counting its calls), or CUDA_SUCCESS. */
CUresult dbl_fault(const char *name);
int dbl_sticky_error(CUresult r);

/* ---- memory.c ---------------------------------------------------------------------- */
dbl_mem *dbl_mem_find(uintptr_t p);
/* Does [p, p + n) lie inside one allocation? Reports a contract violation if not. */
int dbl_mem_check(const char *call, const char *what, uintptr_t p, size_t n);
char *dbl_mem_new(size_t size, dbl_mem_kind kind);
void dbl_mem_release(dbl_mem *m);
size_t dbl_mem_live(void);

/* ---- ptx.c / module.c ------------------------------------------------------------- */
/* Read ptx's entries, parameters and globals into module m; 0 when out of memory. */
int dbl_ptx_parse(dbl_obj *m, const char *ptx);
void dbl_module_destroy(dbl_obj *m);
/* The entry behind a live CUfunction, or NULL after a report. */
dbl_entry *dbl_function(CUfunction f, const char *call);
/* The most threads a block of entry e may have. */
unsigned dbl_max_threads(const dbl_entry *e);

/* ---- link.c ----------------------------------------------------------------------- */
/* Free what a link state holds (at exit). */
void dbl_link_release(dbl_obj *o);
/* Is image the one a link state's cuLinkComplete made: 1 while the state lives (the
 * load is logged), -1 after cuLinkDestroy (the image went with it), 0 if not. */
int dbl_link_image(const void *image);
/* For tests (dlsym): the link calls so far, one line each ("cuLinkAddFile PTX /p"). */
__attribute__((visibility("default"))) void cuda_double_link_log(char *buf, size_t len);

/* ---- run.c ------------------------------------------------------------------------- */
/* Check kernelParams against the entry and run it on the CPU. */
CUresult dbl_run(dbl_obj *fn, const unsigned grid[3], const unsigned block[3],
                 unsigned shared, void **params, int cooperative);
void dbl_run_cleanup(dbl_entry *e);
/* The most blocks of `threads` threads the CPU back end keeps resident at once. */
uint64_t dbl_cpu_coop_blocks(unsigned threads);

#endif

/*
 * driver.c — the CUDA driver API, loaded at run time.
 *
 * libcuda.so.1 (then libcuda.so) is opened with dlopen once per process (pthread_once)
 * and its entry points go into a table of function pointers typed with CUDA's own
 * PFN_ typedefs from cudaTypedefs.h, under the exact versioned symbol names the driver
 * exports (cuMemAlloc_v2, ...): one row of cuda_entries.def each, resolved here in the
 * table's order. A missing driver is KC_ERR_NO_DEVICE with a message, never a crash,
 * and a program that never asks for CUDA never notices.
 *
 * The calls into the driver are the folder's other files, one concern each: errors.c
 * (the check of every CUresult), device.c, memory.c, module.c, launch.c, stream.c and
 * wait.c. A build without CUDA headers compiles none.c instead of all of them.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "driver.h"
#include "file_kind.h"

rt_driver rt_drv;
static pthread_once_t rt_drv_once = PTHREAD_ONCE_INIT;

/* One entry point into *slot: its name, else the fallback; a required one missing is
 * the driver's error (the first one missing is named). */
static int resolve(void **slot, const char *name, const char *fallback, int required) {
  *slot = dlsym(rt_drv.lib, name);
  if (!*slot && fallback) *slot = dlsym(rt_drv.lib, fallback);
  if (!*slot && required)
    snprintf(rt_drv.msg, sizeof rt_drv.msg,
             "the CUDA driver (%s) lacks %s: it is too old for kcc", rt_drv.path, name);
  return *slot != NULL || !required;
}

/* Every row of cuda_entries.def, in order: 0 when a required one is missing. */
static int resolve_entries(void) {
  int ok = 1;
#define CU_ENTRY(member, ver, symbol, fallback, need) \
  ok = ok && resolve((void **)&rt_drv.member, symbol, fallback, need);
#include "cuda_entries.def"
#undef CU_ENTRY
  return ok;
}

/* KC_CUDA_DRIVER names the driver library to open instead of libcuda.so.1 (the test
 * suite's driver double, tests/cuda_double/); set, it is the only one tried. 0 with
 * the error set when no library opens. */
static int open_library(void) {
  static const char *const names[] = {"libcuda.so.1", "libcuda.so"};
  const char *forced = getenv("KC_CUDA_DRIVER");
  struct stat st;
  if (forced && *forced && strchr(forced, '/') && stat(forced, &st) == 0 &&
      !S_ISREG(st.st_mode)) {   /* dlopen of a FIFO would wait for a writer for ever */
    rt_drv.status = KC_ERR_NO_DEVICE;
    snprintf(rt_drv.msg, sizeof rt_drv.msg, "cannot open the CUDA driver KC_CUDA_DRIVER "
             "names (%s): %s, not a regular file", forced, file_kind(st.st_mode));
    return 0;
  }
  if (forced && *forced) {
    rt_drv.lib = dlopen(forced, RTLD_NOW | RTLD_LOCAL);
    rt_drv.path = forced;
    if (!rt_drv.lib) {
      const char *why = dlerror();
      rt_drv.status = KC_ERR_NO_DEVICE;
      snprintf(rt_drv.msg, sizeof rt_drv.msg, "cannot open the CUDA driver KC_CUDA_DRIVER "
               "names (%s): %s", forced, why ? why : "dlopen failed");
      return 0;
    }
  }
  for (size_t i = 0; i < 2 && !rt_drv.lib; i++) {
    rt_drv.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    rt_drv.path = names[i];
  }
  if (!rt_drv.lib) {
    rt_drv.status = KC_ERR_NO_DEVICE;
    snprintf(rt_drv.msg, sizeof rt_drv.msg, "no CUDA driver found (libcuda.so.1)");
    return 0;
  }
  return 1;
}

/* The library's real path (for kc_detect), then cuInit and the driver's version. */
static void start_driver(void) {
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

static void load_driver(void) {
  if (!open_library()) return;
  if (!resolve_entries()) {
    rt_drv.status = KC_ERR_NO_DEVICE;
    return;
  }
  start_driver();
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

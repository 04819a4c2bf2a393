/*
 * ptx_link.c — PTX -> cubin in process through NVIDIA's nvJitLink library, the
 * `kcc compile --emit=cubin` path (ptxas as a process is main.c's fallback).
 *
 * libnvJitLink is dlopen'd on first use, from the CUDA toolkit kcc was configured
 * with, then by soname, so that nothing depends on it at link time; its entry points
 * are resolved once, under pthread_once. Assembling a small kernel this way costs about
 * half of starting ptxas as a process (docs/performance.md).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc_config.h"
#include "ptx_link.h"

/* The part of nvJitLink.h (CUDA 12 and 13 agree on it) that this file uses; the
 * header is not needed to build kcc. */
typedef struct nvjl_handle_s *nvjl_handle;
enum { NVJL_SUCCESS = 0, NVJL_INPUT_PTX = 2 };

typedef struct nvjl_api {
  int (*create)(nvjl_handle *h, uint32_t nopts, const char **opts);
  int (*destroy)(nvjl_handle *h);
  int (*add_data)(nvjl_handle h, int type, const void *data, size_t size, const char *name);
  int (*complete)(nvjl_handle h);
  int (*cubin_size)(nvjl_handle h, size_t *size);
  int (*cubin)(nvjl_handle h, void *cubin);
  int (*error_log_size)(nvjl_handle h, size_t *size);
  int (*error_log)(nvjl_handle h, char *log);
  void *lib;
  char path[512];
} nvjl_api;

static nvjl_api nvjl;
static pthread_once_t nvjl_once = PTHREAD_ONCE_INIT;

static void *nvjl_open(char *found, size_t len) {
  static const char *const names[] = {
    KC_CUDA_ROOT "/lib64/libnvJitLink.so", KC_CUDA_ROOT "/lib/libnvJitLink.so",
    "libnvJitLink.so.13", "libnvJitLink.so.12", "libnvJitLink.so",
  };
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    void *lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (lib) {
      snprintf(found, len, "%s", names[i]);
      return lib;
    }
  }
  return NULL;
}

/* Resolve one entry point into *slot (ISO C has no cast from void * to a function
 * pointer, so the bytes are copied); 0 when missing. */
static int nvjl_sym(void *lib, const char *name, void *slot, size_t size) {
  void *p = dlsym(lib, name);
  if (p) memcpy(slot, &p, size);
  return p != NULL;
}

static void nvjl_load(void) {
  void *lib = nvjl_open(nvjl.path, sizeof nvjl.path);
  if (!lib) return;
  int ok = nvjl_sym(lib, "nvJitLinkCreate", &nvjl.create, sizeof nvjl.create) &&
           nvjl_sym(lib, "nvJitLinkDestroy", &nvjl.destroy, sizeof nvjl.destroy) &&
           nvjl_sym(lib, "nvJitLinkAddData", &nvjl.add_data, sizeof nvjl.add_data) &&
           nvjl_sym(lib, "nvJitLinkComplete", &nvjl.complete, sizeof nvjl.complete) &&
           nvjl_sym(lib, "nvJitLinkGetLinkedCubinSize", &nvjl.cubin_size,
                    sizeof nvjl.cubin_size) &&
           nvjl_sym(lib, "nvJitLinkGetLinkedCubin", &nvjl.cubin, sizeof nvjl.cubin) &&
           nvjl_sym(lib, "nvJitLinkGetErrorLogSize", &nvjl.error_log_size,
                    sizeof nvjl.error_log_size) &&
           nvjl_sym(lib, "nvJitLinkGetErrorLog", &nvjl.error_log, sizeof nvjl.error_log);
  if (ok) {
    nvjl.lib = lib;
  } else {
    dlclose(lib);
    nvjl.path[0] = '\0';
  }
}

const char *ptx_link_library(void) {
  pthread_once(&nvjl_once, nvjl_load);
  return nvjl.lib ? nvjl.path : NULL;
}

static char *nvjl_message(nvjl_handle h, const char *what, int code) {
  size_t n = 0;
  char *log = NULL;
  if (h && nvjl.error_log_size(h, &n) == NVJL_SUCCESS && n > 1 && (log = malloc(n)) &&
      nvjl.error_log(h, log) != NVJL_SUCCESS) {
    free(log);
    log = NULL;
  }
  char head[96];
  snprintf(head, sizeof head, "nvJitLink: %s failed (error %d)", what, code);
  size_t len = strlen(head) + (log ? strlen(log) + 2 : 0) + 1;
  char *msg = malloc(len);
  if (msg) snprintf(msg, len, "%s%s%s", head, log ? ":\n" : "", log ? log : "");
  free(log);
  return msg;
}

int ptx_link_cubin(const char *ptx, size_t len, int arch, int opt_level, int lineinfo,
                   char **cubin, size_t *cubin_len, char **err) {
  *cubin = NULL;
  *cubin_len = 0;
  if (err) *err = NULL;
  if (!ptx_link_library()) return -1;
  char arch_opt[32], level_opt[8];
  snprintf(arch_opt, sizeof arch_opt, "-arch=sm_%d", arch);
  snprintf(level_opt, sizeof level_opt, "-O%d", opt_level < 0 ? 0 : opt_level > 3 ? 3 : opt_level);
  const char *opts[3] = {arch_opt, level_opt, "-lineinfo"};
  nvjl_handle h = NULL;
  int code = nvjl.create(&h, lineinfo ? 3 : 2, opts);
  const char *step = "create";
  if (code == NVJL_SUCCESS) {
    step = "PTX input";
    code = nvjl.add_data(h, NVJL_INPUT_PTX, ptx, len, "kcc.ptx");
  }
  if (code == NVJL_SUCCESS) step = "link", code = nvjl.complete(h);
  size_t n = 0;
  if (code == NVJL_SUCCESS) step = "cubin size", code = nvjl.cubin_size(h, &n);
  char *out = NULL;
  if (code == NVJL_SUCCESS && !(out = malloc(n ? n : 1))) {
    if (err) *err = strdup("out of memory");
    nvjl.destroy(&h);
    return 1;
  }
  if (code == NVJL_SUCCESS) step = "cubin", code = nvjl.cubin(h, out);
  if (code != NVJL_SUCCESS) {
    if (err) *err = nvjl_message(h, step, code);
    free(out);
    if (h) nvjl.destroy(&h);
    return 1;
  }
  nvjl.destroy(&h);
  *cubin = out;
  *cubin_len = n;
  return 0;
}

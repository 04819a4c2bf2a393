/*
 * ptx_link.c — PTX -> cubin in process through NVIDIA's nvJitLink library, the
 * `kcc compile --emit=cubin` path (ptxas as a process is main.c's fallback).
 *
 * The same library links a module with the files of @cuda.jit(link=[...]) when one of
 * them is LTO-IR, which only nvJitLink links (ptx_link_files, for the runtime through
 * rt_compiler.h: runtime/link.c).
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
enum { NVJL_SUCCESS = 0 };

typedef struct nvjl_api {
  int (*create)(nvjl_handle *h, uint32_t nopts, const char **opts);
  int (*destroy)(nvjl_handle *h);
  int (*add_data)(nvjl_handle h, int type, const void *data, size_t size, const char *name);
  int (*add_file)(nvjl_handle h, int type, const char *path);
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
           nvjl_sym(lib, "nvJitLinkAddFile", &nvjl.add_file, sizeof nvjl.add_file) &&
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

/* One input into the link: from memory, else the file at its name. */
static int nvjl_add(nvjl_handle h, const ptx_link_input *in) {
  return in->data ? nvjl.add_data(h, (int)in->kind, in->data, in->len, in->name)
                  : nvjl.add_file(h, (int)in->kind, in->name);
}

/* Link the inputs with these options into a cubin: ptx_link_files' contract. */
static int nvjl_link(const char **opts, uint32_t nopts, const ptx_link_input *in, int n,
                     char **cubin, size_t *cubin_len, char **err) {
  nvjl_handle h = NULL;
  int code = nvjl.create(&h, nopts, opts);
  char step[600] = "create";
  for (int i = 0; i < n && code == NVJL_SUCCESS; i++) {
    snprintf(step, sizeof step, "adding %s", in[i].name);
    code = nvjl_add(h, &in[i]);
  }
  if (code == NVJL_SUCCESS) snprintf(step, sizeof step, "link"), code = nvjl.complete(h);
  size_t len = 0;
  if (code == NVJL_SUCCESS) snprintf(step, sizeof step, "cubin size"), code = nvjl.cubin_size(h, &len);
  char *out = NULL;
  if (code == NVJL_SUCCESS && !(out = malloc(len ? len : 1))) {
    if (err) *err = strdup("out of memory");
    nvjl.destroy(&h);
    return 1;
  }
  if (code == NVJL_SUCCESS) snprintf(step, sizeof step, "cubin"), code = nvjl.cubin(h, out);
  if (code != NVJL_SUCCESS) {
    if (err) *err = nvjl_message(h, step, code);
    free(out);
    if (h) nvjl.destroy(&h);
    return 1;
  }
  nvjl.destroy(&h);
  *cubin = out;
  *cubin_len = len;
  return 0;
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
  ptx_link_input in = {.kind = PTX_LINK_PTX, .name = "kcc.ptx", .data = ptx, .len = len};
  return nvjl_link(opts, lineinfo ? 3 : 2, &in, 1, cubin, cubin_len, err);
}

int ptx_link_files(const ptx_link_input *in, int n, int arch, int lto, char **cubin,
                   size_t *cubin_len, char **err) {
  *cubin = NULL;
  *cubin_len = 0;
  if (err) *err = NULL;
  if (!ptx_link_library()) return -1;
  char arch_opt[32];
  snprintf(arch_opt, sizeof arch_opt, "-arch=sm_%d", arch);
  const char *opts[2] = {arch_opt, "-lto"};
  return nvjl_link(opts, lto ? 2 : 1, in, n, cubin, cubin_len, err);
}

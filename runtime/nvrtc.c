/*
 * nvrtc.c — CUDA C++ compiled to PTX in process by NVRTC, for the .cu files that a
 * kernel's cuda.jit(link=[...]) names (link.c links the PTX with the kernels'), as
 * Numba compiles them: for the device's compute capability, relocatable device code.
 *
 * libnvrtc is opened with dlopen on first use, once per process, as the driver and
 * nvJitLink are, so that nothing needs it unless a .cu is linked: KC_NVRTC names the
 * library to open (set, it is the only one tried: the tests point it at nothing to see
 * the message of a machine without NVRTC), else the toolkit kcc was configured with,
 * else the sonames. Only the few entry points used here are declared (nvrtc.h is not
 * needed to build kcc; CUDA 12 and 13 agree on them).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "kc_config.h"
#include "rt.h"

typedef struct nvrtc_prog_s *nvrtc_prog;
enum { NVRTC_OK = 0 };

typedef struct nvrtc_api {
  int (*create)(nvrtc_prog *p, const char *src, const char *name, int nheaders,
                const char *const *headers, const char *const *include_names);
  int (*compile)(nvrtc_prog p, int nopts, const char *const *opts);
  int (*ptx_size)(nvrtc_prog p, size_t *n);
  int (*ptx)(nvrtc_prog p, char *out);
  int (*log_size)(nvrtc_prog p, size_t *n);
  int (*log)(nvrtc_prog p, char *out);
  int (*destroy)(nvrtc_prog *p);
  const char *(*error_name)(int result);   /* nvrtcGetErrorString */
  void *lib;
  char path[512];
  char searched[1024];   /* for the message when none opened */
} nvrtc_api;

static nvrtc_api nv;
static pthread_once_t nv_once = PTHREAD_ONCE_INIT;

/* ISO C has no cast from void * to a function pointer: the bytes are copied. */
static int nv_sym(const char *name, void *slot, size_t size) {
  void *p = dlsym(nv.lib, name);
  if (p) memcpy(slot, &p, size);
  return p != NULL;
}

static void nv_try(const char *name) {
  size_t at = strlen(nv.searched);
  snprintf(nv.searched + at, sizeof nv.searched - at, "%s%s", at ? ", " : "", name);
  if (!nv.lib && (nv.lib = dlopen(name, RTLD_NOW | RTLD_LOCAL)))
    snprintf(nv.path, sizeof nv.path, "%s", name);
}

static void nv_load(void) {
  static const char *const names[] = {
    KC_CUDA_ROOT "/lib64/libnvrtc.so", KC_CUDA_ROOT "/lib/libnvrtc.so",
    "libnvrtc.so.13", "libnvrtc.so.12", "libnvrtc.so",
  };
  const char *forced = getenv("KC_NVRTC");
  if (forced && *forced) nv_try(forced);
  for (size_t i = 0; !(forced && *forced) && i < sizeof names / sizeof names[0]; i++)
    nv_try(names[i]);
  if (!nv.lib) return;
  int ok = nv_sym("nvrtcCreateProgram", &nv.create, sizeof nv.create) &&
           nv_sym("nvrtcCompileProgram", &nv.compile, sizeof nv.compile) &&
           nv_sym("nvrtcGetPTXSize", &nv.ptx_size, sizeof nv.ptx_size) &&
           nv_sym("nvrtcGetPTX", &nv.ptx, sizeof nv.ptx) &&
           nv_sym("nvrtcGetProgramLogSize", &nv.log_size, sizeof nv.log_size) &&
           nv_sym("nvrtcGetProgramLog", &nv.log, sizeof nv.log) &&
           nv_sym("nvrtcDestroyProgram", &nv.destroy, sizeof nv.destroy) &&
           nv_sym("nvrtcGetErrorString", &nv.error_name, sizeof nv.error_name);
  if (!ok) {   /* not NVRTC, or too old: as if absent, the library named */
    dlclose(nv.lib);
    nv.lib = NULL;
    snprintf(nv.searched, sizeof nv.searched, "%s (lacks an NVRTC entry point)", nv.path);
  }
}

int rt_nvrtc_find(char *out, size_t len) {
  static const char *const dirs[] = {KC_CUDA_ROOT "/lib64", KC_CUDA_ROOT "/lib",
                                     "/usr/lib/x86_64-linux-gnu", "/usr/lib64", "/usr/lib"};
  static const char *const names[] = {"libnvrtc.so", "libnvrtc.so.13", "libnvrtc.so.12"};
  struct stat st;
  const char *forced = getenv("KC_NVRTC");
  if (forced && *forced) {
    snprintf(out, len, "%s", forced);
    return !strchr(forced, '/') || stat(forced, &st) == 0;   /* a soname: dlopen's */
  }
  for (size_t d = 0; d < sizeof dirs / sizeof dirs[0]; d++)
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
      snprintf(out, len, "%s/%s", dirs[d], names[i]);
      if (stat(out, &st) == 0) return 1;
    }
  snprintf(out, len, "libnvrtc.so");
  return 0;
}

const char *rt_nvrtc_library(void) {
  pthread_once(&nv_once, nv_load);
  return nv.lib ? nv.path : NULL;
}

/* The program's log (malloc'd; "" when it has none or out of memory). */
static char *program_log(nvrtc_prog p) {
  size_t n = 0;
  char *log = NULL;
  if (nv.log_size(p, &n) == NVRTC_OK && n > 0 && (log = malloc(n + 1)) &&
      nv.log(p, log) == NVRTC_OK) {
    log[n] = '\0';
    return log;
  }
  free(log);
  return calloc(1, 1);
}

/* -I for `#include <cuda_fp16.h>`: the configured toolkit's headers, and those beside
 * the library opened (a toolkit elsewhere) when they exist. */
static int include_options(char inc[2][600]) {
  struct stat st;
  int n = 0;
  snprintf(inc[n], sizeof inc[n], "-I%s/include", KC_CUDA_ROOT);
  if (stat(inc[n] + 2, &st) == 0 && S_ISDIR(st.st_mode)) n++;
  const char *slash = strrchr(nv.path, '/');
  if (slash) {
    snprintf(inc[n], sizeof inc[n], "-I%.*s/../include", (int)(slash - nv.path), nv.path);
    if (stat(inc[n] + 2, &st) == 0 && S_ISDIR(st.st_mode) &&
        (n == 0 || strcmp(inc[0], inc[n]) != 0))
      n++;
  }
  return n;
}

/* The compile's failure: which step, NVRTC's error name and its log. */
static kc_status compile_failed(kc_context *ctx, const char *path, const char *step, int r,
                                nvrtc_prog p) {
  char *log = p ? program_log(p) : NULL;
  kc_status s = rt_error(ctx, KC_ERR_SYNTAX, "%s: NVRTC could not compile it (%s: %s)%s%s",
                         path, step, nv.error_name(r), log && *log ? ":\n" : "",
                         log ? log : "");
  free(log);
  return s;
}

kc_status rt_nvrtc_compile(kc_context *ctx, const char *path, const char *src, int cc,
                           char **ptx, size_t *cap) {
  *ptx = NULL;
  *cap = 0;
  if (!rt_nvrtc_library())
    return rt_error(ctx, KC_ERR_UNSUPPORTED, "link= names a .cu file (%s), which needs "
                    "NVRTC (libnvrtc.so from the CUDA toolkit): not found; searched %s",
                    path, nv.searched);
  const char *base = strrchr(path, '/');
  char arch[32], inc[2][600];
  snprintf(arch, sizeof arch, "-arch=compute_%d", cc);
  int ninc = include_options(inc);
  const char *opts[] = {arch, "-rdc=true", inc[0], inc[1]};
  nvrtc_prog p = NULL;
  int r = nv.create(&p, src, base ? base + 1 : path, 0, NULL, NULL);
  if (r != NVRTC_OK) return compile_failed(ctx, path, "nvrtcCreateProgram", r, NULL);
  size_t n = 0;
  const char *step = "nvrtcCompileProgram";
  if ((r = nv.compile(p, 2 + ninc, opts)) == NVRTC_OK) {
    step = "nvrtcGetPTX";
    r = nv.ptx_size(p, &n);
  }
  if (r == NVRTC_OK && !(*ptx = rt_alloc(ctx, n + 1))) {
    nv.destroy(&p);
    return rt_error(ctx, KC_ERR_NOMEM, "out of memory compiling %s", path);
  }
  if (r == NVRTC_OK && (r = nv.ptx(p, *ptx)) == NVRTC_OK) {
    (*ptx)[n] = '\0';
    *cap = n + 1;
  }
  kc_status s = r == NVRTC_OK ? KC_OK : compile_failed(ctx, path, step, r, p);
  if (s != KC_OK && *ptx) {
    rt_free(ctx, *ptx, n + 1);
    *ptx = NULL;
  }
  nv.destroy(&p);
  return s;
}

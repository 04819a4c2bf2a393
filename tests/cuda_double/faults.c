/*
 * faults.c — failures injected on demand (KC_CUDA_DOUBLE_FAIL).
 *
 * "call:n[=ERROR],..." makes the n-th call of `call` (its cuda.h name without the _v2
 * suffix: cuMemAlloc, cuModuleLoadDataEx, cuLaunchKernel, cuCtxSynchronize ...) fail
 * with ERROR (a CUresult name without CUDA_ERROR_: OUT_OF_MEMORY, ILLEGAL_ADDRESS ...).
 * Without "=ERROR": cuMemAlloc and the other allocators OUT_OF_MEMORY, module loads
 * INVALID_PTX (with a JIT log, module.c), launches LAUNCH_FAILED, anything else UNKNOWN.
 * A sticky fault injected into a launch is a kernel that faults: the launch returns
 * success and the fault is returned by the next call (a synchronisation), then by
 * every call until the primary context is released (the Driver API's rule for
 * CUDA_ERROR_ILLEGAL_ADDRESS, CUDA_ERROR_LAUNCH_FAILED and the other exceptions).
 * "cuLaunchKernel:n=HANG" makes the n-th launch a kernel that never ends: the launch
 * succeeds, cuStreamQuery and cuEventQuery (of events recorded after it) say
 * CUDA_ERROR_NOT_READY from then on, and a call that would wait for the device on a GPU
 * (cuCtxSynchronize, cuStreamSynchronize, cuEventSynchronize, the synchronous copies to
 * and from the host, cuMemFree, cuModuleUnload ...) aborts the process with a message:
 * on a GPU it would never return. Only destroying the context ends the kernel; what the
 * runtime could not free without waiting is then reclaimed without a contract report.
 * A sticky error injected into any other call that needs the context
 * ("cuCtxSynchronize:1=ILLEGAL_ADDRESS", a fault of earlier work) is sticky too.
 * The spec is read once, at cuInit.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "double.h"

typedef struct fault {
  char call[64];
  unsigned long nth, seen;
  CUresult err;
} fault;

static fault *faults;
static int nfaults;

static const struct { const char *name; CUresult r; } errors[] = {
  {"OUT_OF_MEMORY", CUDA_ERROR_OUT_OF_MEMORY},
  {"INVALID_VALUE", CUDA_ERROR_INVALID_VALUE},
  {"INVALID_PTX", CUDA_ERROR_INVALID_PTX},
  {"INVALID_IMAGE", CUDA_ERROR_INVALID_IMAGE},
  {"UNSUPPORTED_PTX_VERSION", CUDA_ERROR_UNSUPPORTED_PTX_VERSION},
  {"LAUNCH_FAILED", CUDA_ERROR_LAUNCH_FAILED},
  {"LAUNCH_OUT_OF_RESOURCES", CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES},
  {"LAUNCH_TIMEOUT", CUDA_ERROR_LAUNCH_TIMEOUT},
  {"ILLEGAL_ADDRESS", CUDA_ERROR_ILLEGAL_ADDRESS},
  {"MISALIGNED_ADDRESS", CUDA_ERROR_MISALIGNED_ADDRESS},
  {"ILLEGAL_INSTRUCTION", CUDA_ERROR_ILLEGAL_INSTRUCTION},
  {"HARDWARE_STACK_ERROR", CUDA_ERROR_HARDWARE_STACK_ERROR},
  {"ASSERT", CUDA_ERROR_ASSERT},
  {"NO_DEVICE", CUDA_ERROR_NO_DEVICE},
  {"NOT_FOUND", CUDA_ERROR_NOT_FOUND},
  {"UNKNOWN", CUDA_ERROR_UNKNOWN},
  {"INVALID_ADDRESS_SPACE", CUDA_ERROR_INVALID_ADDRESS_SPACE},
  {"INVALID_PC", CUDA_ERROR_INVALID_PC},
  {"HANG", DBL_HANG},
};

int dbl_sticky_error(CUresult r) {
  return r == CUDA_ERROR_LAUNCH_FAILED || r == CUDA_ERROR_ILLEGAL_ADDRESS ||
         r == CUDA_ERROR_MISALIGNED_ADDRESS || r == CUDA_ERROR_ILLEGAL_INSTRUCTION ||
         r == CUDA_ERROR_HARDWARE_STACK_ERROR || r == CUDA_ERROR_ASSERT ||
         r == CUDA_ERROR_LAUNCH_TIMEOUT || r == CUDA_ERROR_INVALID_ADDRESS_SPACE ||
         r == CUDA_ERROR_INVALID_PC;
}

static CUresult default_error(const char *call) {
  if (strncmp(call, "cuMemAlloc", 10) == 0 || strcmp(call, "cuMemHostAlloc") == 0 ||
      strcmp(call, "cuMemHostRegister") == 0)
    return CUDA_ERROR_OUT_OF_MEMORY;
  if (strncmp(call, "cuModuleLoad", 12) == 0) return CUDA_ERROR_INVALID_PTX;
  if (strncmp(call, "cuLaunch", 8) == 0) return CUDA_ERROR_LAUNCH_FAILED;
  return CUDA_ERROR_UNKNOWN;
}

static int parse_one(const char *s, size_t n, fault *f) {
  char buf[160];
  if (n >= sizeof buf) return 0;
  memcpy(buf, s, n);
  buf[n] = '\0';
  char *colon = strchr(buf, ':');
  if (!colon) return 0;
  *colon = '\0';
  char *eq = strchr(colon + 1, '=');
  if (eq) *eq = '\0';
  char *end;
  unsigned long nth = strtoul(colon + 1, &end, 10);
  if (*end || nth == 0 || strlen(buf) >= sizeof f->call) return 0;
  snprintf(f->call, sizeof f->call, "%s", buf);
  f->nth = nth;
  f->seen = 0;
  f->err = default_error(buf);
  if (eq) {
    const char *name = eq + 1;
    if (strncmp(name, "CUDA_ERROR_", 11) == 0) name += 11;
    size_t i = 0;
    for (; i < sizeof errors / sizeof errors[0]; i++)
      if (strcmp(errors[i].name, name) == 0) break;
    if (i == sizeof errors / sizeof errors[0]) return 0;
    f->err = errors[i].r;
  }
  return 1;
}

void dbl_faults_load(void) {
  const char *spec = getenv("KC_CUDA_DOUBLE_FAIL");
  free(faults);
  faults = NULL;
  nfaults = 0;
  if (!spec || !*spec) return;
  int n = 1;
  for (const char *p = spec; *p; p++) n += *p == ',';
  faults = calloc((size_t)n, sizeof *faults);
  if (!faults) return;
  for (const char *p = spec; *p;) {
    size_t len = strcspn(p, ",");
    if (len && !parse_one(p, len, &faults[nfaults++])) {
      fprintf(stderr, "cuda-double: KC_CUDA_DOUBLE_FAIL: cannot read '%.*s' (want "
              "call:n[=ERROR])\n", (int)len, p);
      nfaults--;
    }
    p += len + (p[len] == ',');
  }
}

CUresult dbl_fault(const char *name) {
  for (int i = 0; i < nfaults; i++) {
    if (strcmp(faults[i].call, name) != 0) continue;
    if (++faults[i].seen == faults[i].nth) {
      dbl.faults++;
      return faults[i].err;
    }
  }
  return CUDA_SUCCESS;
}

__attribute__((destructor)) static void faults_free(void) { free(faults); }

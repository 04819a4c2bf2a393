/*
 * module.c — modules on the device: loading an image (PTX, cubin or fatbin) with the
 * JIT's error log in the message, and a PTX newer than the driver assembled to a
 * cubin here instead (nvJitLink through the compiler's table, rt_compiler.h);
 * unloading; a kernel's CUfunction and a global's address or bytes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "driver.h"
#include "rt_compiler.h"

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

/* rt_cu_fail's message, then as much of the JIT's log as fits after it. */
static kc_status load_failed(kc_context *ctx, CUresult r, const char *errlog) {
  rt_cu_fail(ctx, r, "cuModuleLoadDataEx");
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
  kc_status status = rt_cu_enter(ctx);
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
  kc_status status = rt_cu_enter(ctx);
  CUdeviceptr p = 0;
  size_t n = 0;
  char *buf = NULL;
  *out = NULL;
  *len = 0;
  if (status != KC_OK) return status;
  CUresult r = rt_drv.ModuleGetGlobal(&p, &n, (CUmodule)module, name);
  if (r == CUDA_ERROR_NOT_FOUND)
    return rt_error(ctx, KC_ERR_NOT_FOUND, "the module has no global '%s'", name);
  if (r != CUDA_SUCCESS) return rt_cu_fail(ctx, r, "cuModuleGetGlobal");
  buf = rt_alloc(ctx, n + 1);
  if (!buf) return rt_error(ctx, KC_ERR_NOMEM, "out of memory");
  if ((status = rt_cu_wait_idle(ctx)) != KC_OK) goto cleanup;
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
  if (module && rt_cu_enter_release(ctx, 1)) rt_drv.ModuleUnload((CUmodule)module);
}

kc_status rt_cuda_get_function(kc_context *ctx, void *module, const char *symbol,
                               void **fn, unsigned *max_threads) {
  kc_status status = KC_OK;
  CUfunction f = NULL;
  int mt = 0;
  CUresult r = rt_drv.ModuleGetFunction(&f, (CUmodule)module, symbol);
  if (r == CUDA_ERROR_NOT_FOUND)
    return rt_error(ctx, KC_ERR_NOT_FOUND, "the module has no entry '%s'", symbol);
  if (r != CUDA_SUCCESS) return rt_cu_fail(ctx, r, "cuModuleGetFunction");
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
  if (r != CUDA_SUCCESS) return rt_cu_fail(ctx, r, "cuModuleGetGlobal");
  *dptr = (uint64_t)p;
  *bytes = n;
  return KC_OK;
}

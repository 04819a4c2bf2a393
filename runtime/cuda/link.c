/*
 * link.c — the driver's linker: a module's PTX linked with the files its
 * "// kcc-link:" lines name (runtime/link.c reads those, checks the files and compiles
 * .cu ones to PTX), the image the linker makes loaded as a module.
 *
 * The driver's cuLink* calls rather than nvJitLink: they are in every CUDA driver, so a
 * program linked with libkcrt (which has no nvJitLink: the runtime reaches it only
 * through the compiler's table) links too; they link for the context's own device
 * (CU_JIT_TARGET_FROM_CUCONTEXT), as cuModuleLoadDataEx JITs a plain module; and they
 * are what Numba's linker calls, so a file links here as it does under Numba. The one
 * kind they cannot take, LTO-IR, is refused before this (runtime/link.c).
 */
#include <stdio.h>
#include <string.h>

#include "driver.h"

static CUjitInputType jit_input(rt_link_kind k) {
  switch (k) {
  case RT_LINK_CUBIN: return CU_JIT_INPUT_CUBIN;
  case RT_LINK_FATBIN: return CU_JIT_INPUT_FATBINARY;
  case RT_LINK_OBJECT: return CU_JIT_INPUT_OBJECT;
  case RT_LINK_LIBRARY: return CU_JIT_INPUT_LIBRARY;
  default: return CU_JIT_INPUT_PTX;
  }
}

/* rt_cu_fail's message after "linking WHAT: ", then the linker's log, as much as fits. */
static kc_status link_failed(kc_context *ctx, CUresult r, const char *call, const char *what,
                             const char *log) {
  rt_cu_fail(ctx, r, call);
  char cause[RT_ERR_LEN];
  snprintf(cause, sizeof cause, "%s", ctx->err);
  return rt_error(ctx, KC_ERR_CUDA, "linking %s: %s%s%s", what, cause,
                  log[0] ? "\nlinker log:\n" : "", log);
}

/* The driver has the five entry points (they are optional rows of cuda_entries.def). */
static kc_status need_linker(kc_context *ctx) {
  if (rt_drv.LinkCreate && rt_drv.LinkAddData && rt_drv.LinkAddFile &&
      rt_drv.LinkComplete && rt_drv.LinkDestroy)
    return KC_OK;
  return rt_error(ctx, KC_ERR_UNSUPPORTED, "the CUDA driver (%s) has no linker "
                  "(cuLinkCreate_v2 ... cuLinkDestroy): it cannot link the files link= "
                  "names; update the NVIDIA driver", rt_drv.path);
}

/* One input into the link: PTX text from memory (with its NUL, as the driver's samples
 * pass it), else the file at its path, read by the driver. */
static CUresult add_input(CUlinkState st, const rt_link_input *in) {
  if (in->data)
    return rt_drv.LinkAddData(st, jit_input(in->kind), (void *)(uintptr_t)in->data,
                              in->len + 1, in->name, 0, NULL, NULL);
  return rt_drv.LinkAddFile(st, jit_input(in->kind), in->name, 0, NULL, NULL);
}

kc_status rt_cuda_link_load(kc_context *ctx, const rt_link_input *inputs, int n,
                            void **out) {
  kc_status status = rt_cu_enter(ctx);
  if (status == KC_OK) status = need_linker(ctx);
  if (status != KC_OK) return status;
  /* the logs must outlive every call on the link state: the driver writes them late */
  char errlog[8192], infolog[4096];
  errlog[0] = infolog[0] = '\0';
  CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                         CU_JIT_TARGET_FROM_CUCONTEXT};
  void *vals[] = {errlog, (void *)(uintptr_t)sizeof errlog, infolog,
                  (void *)(uintptr_t)sizeof infolog, (void *)(uintptr_t)1};
  CUlinkState st = NULL;
  CUresult r = rt_drv.LinkCreate(5, opts, vals, &st);
  if (r != CUDA_SUCCESS) return link_failed(ctx, r, "cuLinkCreate", inputs[0].name, "");
  for (int i = 0; i < n && status == KC_OK; i++) {
    r = add_input(st, &inputs[i]);
    errlog[sizeof errlog - 1] = '\0';
    if (r != CUDA_SUCCESS)
      status = link_failed(ctx, r, inputs[i].data ? "cuLinkAddData" : "cuLinkAddFile",
                           inputs[i].name, errlog);
  }
  void *image = NULL;
  size_t size = 0;
  if (status == KC_OK && (r = rt_drv.LinkComplete(st, &image, &size)) != CUDA_SUCCESS) {
    errlog[sizeof errlog - 1] = '\0';
    status = link_failed(ctx, r, "cuLinkComplete", inputs[0].name, errlog);
  }
  /* the image belongs to the link state: loaded before it is destroyed */
  if (status == KC_OK) status = rt_cuda_module_load(ctx, image, out);
  rt_drv.LinkDestroy(st);
  return status;
}

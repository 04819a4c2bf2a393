/*
 * target_nvptx.c — the NVPTX back end's module-level work: the triple and data layout,
 * linking libdevice (the CUDA maths library, as LLVM bitcode), the optimisation
 * pipeline, and PTX emission through LLVM's NVPTX target.
 *
 * Assumes code generation has built the module with kernels marked either by the
 * PTX_Kernel calling convention or by !nvvm.annotations {ptr @k, !"kernel", i32 1}
 * (modules built through the C API are never auto-upgraded the way parsed IR is, so
 * both are made to agree here), and that maths calls are declarations of __nv_*
 * functions.
 *
 * libdevice is read lazily: its functions are re-linked as linkonce_odr before linking,
 * so the IR linker only materialises the ones the module calls (and those they call)
 * instead of all ~500; linking then costs a fraction of a millisecond more than
 * parsing the bitcode's module-level records.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Core.h>
#include <llvm-c/Error.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#include "target.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"

static pthread_once_t nvptx_init_once = PTHREAD_ONCE_INIT;

static void nvptx_init_llvm(void) {
  LLVMInitializeNVPTXTargetInfo();
  LLVMInitializeNVPTXTarget();
  LLVMInitializeNVPTXTargetMC();
  LLVMInitializeNVPTXAsmPrinter();
}


/* ---- Architectures ----------------------------------------------------------------- */

/* sm versions each LLVM release knows (NVPTX.td); newer releases keep the old ones. */
static const struct { int arch, since_llvm; } nvptx_archs[] = {
  {20, 3}, {21, 3}, {30, 3}, {32, 3}, {35, 3}, {37, 3}, {50, 3}, {52, 3}, {53, 3},
  {60, 3}, {61, 3}, {62, 3}, {70, 6}, {72, 7}, {75, 8}, {80, 11}, {86, 12},
  {87, 16}, {89, 16}, {90, 16}, {100, 20}, {101, 20}, {120, 20},
  {88, 21}, {103, 21}, {121, 21}, {110, 21},
};

int nvptx_arch_supported(int arch) {
  for (size_t i = 0; i < sizeof nvptx_archs / sizeof nvptx_archs[0]; i++)
    if (nvptx_archs[i].arch == arch) return LLVM_VERSION_MAJOR >= nvptx_archs[i].since_llvm;
  return 0;
}

static LLVMCodeGenOptLevel nvptx_codegen_level(int opt_level) {
  switch (opt_level) {
  case 0: return LLVMCodeGenLevelNone;
  case 1: return LLVMCodeGenLevelLess;
  case 2: return LLVMCodeGenLevelDefault;
  default: return LLVMCodeGenLevelAggressive;
  }
}

static LLVMTargetMachineRef nvptx_target_machine(int arch, int opt_level, char **err) {
  pthread_once(&nvptx_init_once, nvptx_init_llvm);
  if (!nvptx_arch_supported(arch)) {
    tgt_fail(err, "sm_%d is not an architecture LLVM %d can generate code for", arch,
               LLVM_VERSION_MAJOR);
    return NULL;
  }
  LLVMTargetRef target;
  char *msg = NULL;
  if (LLVMGetTargetFromTriple(NVPTX_TRIPLE, &target, &msg)) {
    tgt_fail_llvm(err, "the NVPTX target is not available", msg);
    return NULL;
  }
  char cpu[16];
  snprintf(cpu, sizeof cpu, "sm_%d", arch);
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, NVPTX_TRIPLE, cpu, "",
                                                    nvptx_codegen_level(opt_level),
                                                    LLVMRelocDefault,
                                                    LLVMCodeModelDefault);
  if (!tm) tgt_fail(err, "cannot create an NVPTX target machine for %s", cpu);
  return tm;
}

int nvptx_prepare_module(LLVMModuleRef m, int arch, char **err) {
  LLVMTargetMachineRef tm = nvptx_target_machine(arch, 3, err);
  if (!tm) return 1;
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetTarget(m, NVPTX_TRIPLE);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
  LLVMDisposeTargetMachine(tm);
  return 0;
}

/* ---- Kernels ------------------------------------------------------------------------ */

static int nvptx_md_string_is(LLVMValueRef v, const char *s) {
  unsigned len = 0;
  const char *str = v ? LLVMGetMDString(v, &len) : NULL;
  return str && len == strlen(s) && memcmp(str, s, len) == 0;
}

/* Make the two ways of marking a kernel agree: every function named as "kernel" (with
 * a non-zero value) in !nvvm.annotations gets the PTX_Kernel calling convention, and
 * every PTX_Kernel function is counted. Returns the number of kernels. */
static int nvptx_mark_kernels(LLVMModuleRef m) {
  unsigned n = LLVMGetNamedMetadataNumOperands(m, "nvvm.annotations");
  if (n > 0) {
    LLVMValueRef *nodes = malloc(n * sizeof *nodes);
    if (nodes) {
      LLVMGetNamedMetadataOperands(m, "nvvm.annotations", nodes);
      for (unsigned i = 0; i < n; i++) {
        LLVMValueRef ops[3];
        /* {fn, "kernel", 1}; longer lists carry other keys (maxntid...) */
        if (LLVMGetMDNodeNumOperands(nodes[i]) != 3) continue;
        LLVMGetMDNodeOperands(nodes[i], ops);
        if (!ops[0] || !LLVMIsAFunction(ops[0])) continue;
        if (!nvptx_md_string_is(ops[1], "kernel")) continue;
        if (!ops[2] || !LLVMIsAConstantInt(ops[2]) || LLVMConstIntGetZExtValue(ops[2]) == 0)
          continue;
        LLVMSetFunctionCallConv(ops[0], NVPTX_KERNEL_CC);
      }
      free(nodes);
    }
  }
  int kernels = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetFunctionCallConv(f) == NVPTX_KERNEL_CC) kernels++;
  return kernels;
}

/* Give every defined function but the kernels, and every defined global variable,
 * internal linkage, so that global DCE drops what no kernel reaches (unused libdevice
 * functions above all). A module without kernels is left alone. */
static void nvptx_internalize(LLVMModuleRef m) {
  if (nvptx_mark_kernels(m) == 0) return;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || LLVMGetFunctionCallConv(f) == NVPTX_KERNEL_CC) continue;
    LLVMSetLinkage(f, LLVMInternalLinkage);
    LLVMSetVisibility(f, LLVMDefaultVisibility);
  }
  for (LLVMValueRef g = LLVMGetFirstGlobal(m); g; g = LLVMGetNextGlobal(g)) {
    if (LLVMIsDeclaration(g) || LLVMGetLinkage(g) == LLVMAppendingLinkage) continue;
    LLVMSetLinkage(g, LLVMInternalLinkage);
    LLVMSetVisibility(g, LLVMDefaultVisibility);
  }
}

/* ---- LLVM's own error reports --------------------------------------------------------- */

/* LLVM reports some errors (bad bitcode, link conflicts, instruction selection) to the
 * context's diagnostic handler, whose default prints and exits; while this file works
 * on a module, its handler keeps the first error instead and the caller's is put back
 * afterwards. */
typedef struct nvptx_diag_capture {
  LLVMContextRef ctx;
  LLVMDiagnosticHandler saved;
  void *saved_ctx;
  char *first_error;
} nvptx_diag_capture;

static void nvptx_on_diagnostic(LLVMDiagnosticInfoRef di, void *p) {
  nvptx_diag_capture *c = p;
  if (LLVMGetDiagInfoSeverity(di) != LLVMDSError || c->first_error) return;
  c->first_error = LLVMGetDiagInfoDescription(di);
}

static void nvptx_capture_begin(nvptx_diag_capture *c, LLVMModuleRef m) {
  c->ctx = LLVMGetModuleContext(m);
  c->saved = LLVMContextGetDiagnosticHandler(c->ctx);
  c->saved_ctx = LLVMContextGetDiagnosticContext(c->ctx);
  c->first_error = NULL;
  LLVMContextSetDiagnosticHandler(c->ctx, nvptx_on_diagnostic, c);
}

/* Put the caller's handler back; returns the error LLVM reported (to be disposed of
 * with LLVMDisposeMessage) or NULL. */
static char *nvptx_capture_end(nvptx_diag_capture *c) {
  LLVMContextSetDiagnosticHandler(c->ctx, c->saved, c->saved_ctx);
  return c->first_error;
}

/* ---- libdevice ------------------------------------------------------------------------ */

static int nvptx_uses_libdevice(LLVMModuleRef m) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len > 5 && memcmp(name, "__nv_", 5) == 0 && LLVMIsDeclaration(f)) return 1;
  }
  return 0;
}

/* Set an i32 module flag unless the module already has one of that name (a second
 * flag of the same name would not verify). */
static void nvptx_set_flag(LLVMModuleRef m, const char *key, unsigned value) {
  if (LLVMGetModuleFlag(m, key, strlen(key))) return;
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMValueRef v = LLVMConstInt(LLVMInt32TypeInContext(ctx), value, 0);
  LLVMAddModuleFlag(m, LLVMModuleFlagBehaviorOverride, key, strlen(key),
                    LLVMValueAsMetadata(v));
}

/* Read libdevice lazily into m's context, ready to link: its triple and data layout
 * made m's (they differ only in name, and the linker would warn), and every function
 * definition linkonce_odr so the linker takes only those referenced. */
static int nvptx_load_libdevice(LLVMModuleRef m, const char *path, LLVMModuleRef *out,
                                char **err) {
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
    tgt_fail(err, "cannot read libdevice '%s': %s", path, msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  LLVMModuleRef lib;
  nvptx_diag_capture cap;
  nvptx_capture_begin(&cap, m);
  int bad = LLVMGetBitcodeModuleInContext2(LLVMGetModuleContext(m), buf, &lib);
  msg = nvptx_capture_end(&cap);
  if (bad) {
    LLVMDisposeMemoryBuffer(buf);
    tgt_fail(err, "'%s' is not valid LLVM bitcode: %s", path, msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  if (msg) LLVMDisposeMessage(msg);
  LLVMSetTarget(lib, LLVMGetTarget(m));
  LLVMSetDataLayout(lib, LLVMGetDataLayoutStr(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  *out = lib;
  return 0;
}

int nvptx_link_libdevice(LLVMModuleRef m, const char *libdevice_path, char **err) {
  if (!nvptx_uses_libdevice(m)) return 0;
  if (!libdevice_path || !*libdevice_path)
    return tgt_fail(err, "maths functions need libdevice, and no path to it was given");
  LLVMModuleRef lib = NULL;
  if (nvptx_load_libdevice(m, libdevice_path, &lib, err)) return 1;
  nvptx_diag_capture cap;
  nvptx_capture_begin(&cap, m);
  int bad = LLVMLinkModules2(m, lib);  /* lib is destroyed either way */
  char *msg = nvptx_capture_end(&cap);
  if (bad) {
    tgt_fail(err, "cannot link libdevice '%s': %s", libdevice_path,
               msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  if (msg) LLVMDisposeMessage(msg);
  nvptx_set_flag(m, "nvvm-reflect-ftz", 0);
  nvptx_internalize(m);
  return 0;
}

/* ---- Optimisation and emission ---------------------------------------------------------- */

static int nvptx_verify(LLVMModuleRef m, char **err) {
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg))
    return tgt_fail_llvm(err, "internal error: invalid LLVM IR", msg);
  if (msg) LLVMDisposeMessage(msg);
  return 0;
}

/* LLVM's standard pipeline, run with the target machine so that the NVPTX target adds
 * its own passes (NVVMReflect among them); global DCE after, since the -O0 pipeline
 * has none and internalised functions no kernel calls must go. */
static int nvptx_run_pipeline(LLVMModuleRef m, LLVMTargetMachineRef tm, int opt_level,
                              char **err) {
  static const char *const pipelines[] = {
    "default<O0>,globaldce", "default<O1>", "default<O2>", "default<O3>",
  };
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, pipelines[opt_level], tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e) return tgt_fail_error(err, "internal error: optimisation failed", e);
  return 0;
}

static int nvptx_copy_out(const char *data, size_t len, char **out, size_t *out_len,
                          char **err) {
  char *text = malloc(len + 1);
  if (!text) return tgt_fail(err, "out of memory");
  memcpy(text, data, len);
  text[len] = '\0';
  *out = text;
  if (out_len) *out_len = len;
  return 0;
}

static int nvptx_emit_ptx(LLVMModuleRef m, LLVMTargetMachineRef tm, char **out,
                          size_t *out_len, char **err) {
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMTargetMachineEmitToMemoryBuffer(tm, m, LLVMAssemblyFile, &msg, &buf))
    return tgt_fail_llvm(err, "internal error: PTX emission failed", msg);
  int rc = nvptx_copy_out(LLVMGetBufferStart(buf), LLVMGetBufferSize(buf), out, out_len,
                          err);
  LLVMDisposeMemoryBuffer(buf);
  return rc;
}

static int nvptx_emit_ir(LLVMModuleRef m, char **out, size_t *out_len, char **err) {
  char *ir = LLVMPrintModuleToString(m);
  int rc = nvptx_copy_out(ir, strlen(ir), out, out_len, err);
  LLVMDisposeMessage(ir);
  return rc;
}

int nvptx_optimize_and_emit(LLVMModuleRef m, int arch, int opt_level, int emit_llvm,
                            char **out, size_t *out_len, char **err) {
  *out = NULL;
  if (out_len) *out_len = 0;
  if (opt_level < 0) opt_level = 0;
  if (opt_level > 3) opt_level = 3;
  LLVMTargetMachineRef tm = nvptx_target_machine(arch, opt_level, err);
  if (!tm) return 1;
  nvptx_diag_capture cap;
  nvptx_capture_begin(&cap, m);
  int rc = nvptx_verify(m, err);
  if (rc == 0) {
    nvptx_internalize(m);
    rc = nvptx_run_pipeline(m, tm, opt_level, err);
  }
  if (rc == 0)
    rc = emit_llvm ? nvptx_emit_ir(m, out, out_len, err)
                   : nvptx_emit_ptx(m, tm, out, out_len, err);
  char *msg = nvptx_capture_end(&cap);
  if (msg && rc == 0) {  /* LLVM reported an error but carried on */
    free(*out);
    *out = NULL;
    if (out_len) *out_len = 0;
    rc = tgt_fail(err, "internal error: %s", msg);
  }
  if (msg) LLVMDisposeMessage(msg);
  LLVMDisposeTargetMachine(tm);
  return rc;
}

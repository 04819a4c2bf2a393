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
 * instead of all ~500. What was taken is kept, as bitcode, for the process's later
 * compilations (see nvptx_libdevice_subset), as are the target machines (per thread).
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Error.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>

#include "file_kind.h"
#include "target.h"

#define NVPTX_TRIPLE "nvptx64-nvidia-cuda"

static pthread_once_t nvptx_init_once_flag = PTHREAD_ONCE_INIT;

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

static LLVMTargetMachineRef nvptx_create_target_machine(int arch, int opt_level,
                                                         bool full_debug, char **err) {
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
  /* Below sm_75 LLVM defaults to older PTX: 5.0 lacks the warp *_sync intrinsics
     (PTX 6.0), 6.0 and 6.1 (sm_70, sm_72) lack activemask and nanosleep (6.2, 6.3).
     PTX 6.3 (CUDA 10) has them all and still covers every sm from sm_30 on. */
  const char *features = arch < 75 ? NVPTX_FEATURE_PTX(NVPTX_MIN_PTX) : "";
  /* Full DWARF (-g, debug=True) has label differences in its sections, which ptxas
     takes from PTX 7.5 on (LLVM picks 7.0 to 7.4 for sm_75 to sm_87). */
  if (full_debug && arch < 89) features = "+ptx75";
  LLVMTargetMachineRef tm = LLVMCreateTargetMachine(target, NVPTX_TRIPLE, cpu, features,
                                                    nvptx_codegen_level(opt_level),
                                                    LLVMRelocDefault,
                                                    LLVMCodeModelDefault);
  if (!tm) tgt_fail(err, "cannot create an NVPTX target machine for %s", cpu);
  return tm;
}

/* Target machines are kept per thread, a few (arch, level) pairs each, and reused by
 * the thread's later compilations: building one (its subtarget and instruction
 * lowering tables) costs about a sixth of compiling a small kernel. A machine is used
 * by one thread only, so two threads still compile at once; a thread's machines are
 * disposed of when it exits. */
#define NVPTX_TM_CACHED 4

typedef struct nvptx_tm_cache {
  struct { int arch, opt_level; bool full_debug; LLVMTargetMachineRef tm; } slot[NVPTX_TM_CACHED];
  int next;  /* the slot to replace when all are taken */
} nvptx_tm_cache;

static pthread_key_t nvptx_tm_key;

static void nvptx_tm_cache_free(void *p) {
  nvptx_tm_cache *c = p;
  for (int i = 0; i < NVPTX_TM_CACHED; i++)
    if (c->slot[i].tm) LLVMDisposeTargetMachine(c->slot[i].tm);
  free(c);
}

static void nvptx_init_once(void) {
  tgt_install_fatal_handler();
  nvptx_init_llvm();
  pthread_key_create(&nvptx_tm_key, nvptx_tm_cache_free);
}

/* The calling thread's target machine for sm_<arch> at opt_level (owned by the cache:
 * not to be disposed of), or NULL with *err set. */
static LLVMTargetMachineRef nvptx_target_machine(int arch, int opt_level, bool full_debug,
                                                  char **err) {
  pthread_once(&nvptx_init_once_flag, nvptx_init_once);
  nvptx_tm_cache *c = pthread_getspecific(nvptx_tm_key);
  if (!c) {
    c = calloc(1, sizeof *c);
    if (!c || pthread_setspecific(nvptx_tm_key, c)) {
      free(c);
      tgt_fail(err, "out of memory");
      return NULL;
    }
  }
  for (int i = 0; i < NVPTX_TM_CACHED; i++)
    if (c->slot[i].tm && c->slot[i].arch == arch && c->slot[i].opt_level == opt_level &&
        c->slot[i].full_debug == full_debug)
      return c->slot[i].tm;
  LLVMTargetMachineRef tm = nvptx_create_target_machine(arch, opt_level, full_debug, err);
  if (!tm) return NULL;
  int i = c->next;
  c->next = (c->next + 1) % NVPTX_TM_CACHED;
  if (c->slot[i].tm) LLVMDisposeTargetMachine(c->slot[i].tm);
  c->slot[i].arch = arch;
  c->slot[i].opt_level = opt_level;
  c->slot[i].full_debug = full_debug;
  c->slot[i].tm = tm;
  return tm;
}

int nvptx_prepare_module(LLVMModuleRef m, int arch, char **err) {
  LLVMTargetMachineRef tm = nvptx_target_machine(arch, 3, false, err);
  if (!tm) return 1;
  LLVMTargetDataRef dl = LLVMCreateTargetDataLayout(tm);
  LLVMSetTarget(m, NVPTX_TRIPLE);
  LLVMSetModuleDataLayout(m, dl);
  LLVMDisposeTargetData(dl);
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

/* An exported device function (kcc_options.export_device, codegen.c): kept visible. */
static bool nvptx_exported(LLVMValueRef f) {
  return LLVMGetStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, "kcc-export", 10) != NULL;
}

/* Give every defined function but the kernels and exported device functions, and every
 * defined global variable, internal linkage, so that global DCE drops what none of them
 * reaches (unused libdevice functions above all). A module without either is left
 * alone. */
static void nvptx_internalize(LLVMModuleRef m) {
  int roots = nvptx_mark_kernels(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    roots += !LLVMIsDeclaration(f) && nvptx_exported(f);
  if (roots == 0) return;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) || LLVMGetFunctionCallConv(f) == NVPTX_KERNEL_CC ||
        nvptx_exported(f))
      continue;
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

static void nvptx_capture_begin_ctx(nvptx_diag_capture *c, LLVMContextRef ctx) {
  c->ctx = ctx;
  c->saved = LLVMContextGetDiagnosticHandler(c->ctx);
  c->saved_ctx = LLVMContextGetDiagnosticContext(c->ctx);
  c->first_error = NULL;
  LLVMContextSetDiagnosticHandler(c->ctx, nvptx_on_diagnostic, c);
}

static void nvptx_capture_begin(nvptx_diag_capture *c, LLVMModuleRef m) {
  nvptx_capture_begin_ctx(c, LLVMGetModuleContext(m));
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

/* Read the whole of libdevice lazily into ctx, ready to link: triple and data layout
 * made the given ones (they differ only in name, and the linker would warn), and every
 * function definition linkonce_odr so the linker takes only those referenced. */
static int nvptx_load_libdevice(LLVMContextRef ctx, const char *triple, const char *layout,
                                const char *path, LLVMModuleRef *out, char **err) {
  LLVMMemoryBufferRef buf;
  char *msg = NULL;
  if (LLVMCreateMemoryBufferWithContentsOfFile(path, &buf, &msg)) {
    tgt_fail(err, "cannot read libdevice '%s': %s", path, msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  LLVMModuleRef lib;
  nvptx_diag_capture cap;
  nvptx_capture_begin_ctx(&cap, ctx);
  int bad = LLVMGetBitcodeModuleInContext2(ctx, buf, &lib);
  msg = nvptx_capture_end(&cap);
  if (bad) {
    LLVMDisposeMemoryBuffer(buf);
    tgt_fail(err, "'%s' is not valid LLVM bitcode: %s", path, msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  if (msg) LLVMDisposeMessage(msg);
  LLVMSetTarget(lib, triple);
  LLVMSetDataLayout(lib, layout);
  for (LLVMValueRef f = LLVMGetFirstFunction(lib); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && LLVMGetLinkage(f) == LLVMExternalLinkage)
      LLVMSetLinkage(f, LLVMLinkOnceODRLinkage);
  *out = lib;
  return 0;
}

/* libdevice is some 500 functions; parsing even its module-level records costs a
 * kernel that calls expf about a third of its compile time. So the process keeps, as
 * bitcode, the part of it that kernels have asked for so far (each function with what
 * it calls): a compilation parses that small module, and goes back to the whole file
 * only when it needs a function the subset lacks, which then grows the subset. Bitcode
 * belongs to no LLVM context, so one subset serves every thread; a mutex guards it. */
typedef struct nvptx_libdevice_subset {
  char *path;             /* the libdevice file it was cut from ... */
  struct stat st;         /* ... and that file's identity when it was read */
  char **names;           /* the functions asked for so far */
  int nnames;
  char *bitcode;
  size_t size;
} nvptx_libdevice_subset;

static pthread_mutex_t nvptx_subset_lock = PTHREAD_MUTEX_INITIALIZER;
static nvptx_libdevice_subset nvptx_subset;

static int nvptx_same_file(const struct stat *a, const struct stat *b) {
  return a->st_dev == b->st_dev && a->st_ino == b->st_ino && a->st_size == b->st_size &&
         a->st_mtime == b->st_mtime;
}

static int nvptx_subset_has(const char *name, size_t len) {
  for (int i = 0; i < nvptx_subset.nnames; i++)
    if (strlen(nvptx_subset.names[i]) == len && memcmp(nvptx_subset.names[i], name, len) == 0)
      return 1;
  return 0;
}

static int nvptx_subset_add(const char *name, size_t len) {
  if (nvptx_subset_has(name, len)) return 0;
  char **names = realloc(nvptx_subset.names, (size_t)(nvptx_subset.nnames + 1) * sizeof *names);
  char *copy = malloc(len + 1);
  if (names) nvptx_subset.names = names;
  if (!names || !copy) { free(copy); return 1; }
  memcpy(copy, name, len);
  copy[len] = '\0';
  names[nvptx_subset.nnames++] = copy;
  return 0;
}

static void nvptx_subset_clear(void) {
  for (int i = 0; i < nvptx_subset.nnames; i++) free(nvptx_subset.names[i]);
  free(nvptx_subset.names);
  free(nvptx_subset.bitcode);
  free(nvptx_subset.path);
  memset(&nvptx_subset, 0, sizeof nvptx_subset);
}

/* Cut a new subset holding every function in nvptx_subset.names: the whole of libdevice
 * read lazily into a scratch context, linked into a module that only declares them. */
static int nvptx_subset_build(const char *path, const char *triple, const char *layout,
                              char **err) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef lib = NULL;
  if (nvptx_load_libdevice(ctx, triple, layout, path, &lib, err)) {
    LLVMContextDispose(ctx);
    return 1;
  }
  LLVMModuleRef cut = LLVMModuleCreateWithNameInContext("libdevice-subset", ctx);
  LLVMSetTarget(cut, triple);
  LLVMSetDataLayout(cut, layout);
  for (int i = 0; i < nvptx_subset.nnames; i++) {
    LLVMValueRef f = LLVMGetNamedFunction(lib, nvptx_subset.names[i]);
    if (f) LLVMAddFunction(cut, nvptx_subset.names[i], LLVMGlobalGetValueType(f));
  }
  nvptx_diag_capture cap;
  nvptx_capture_begin_ctx(&cap, ctx);
  int bad = LLVMLinkModules2(cut, lib);  /* lib is destroyed either way */
  char *msg = nvptx_capture_end(&cap);
  if (bad) {
    LLVMDisposeModule(cut);
    LLVMContextDispose(ctx);
    tgt_fail(err, "cannot link libdevice '%s': %s", path, msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  if (msg) LLVMDisposeMessage(msg);
  LLVMMemoryBufferRef bc = LLVMWriteBitcodeToMemoryBuffer(cut);
  size_t size = LLVMGetBufferSize(bc);
  char *copy = malloc(size ? size : 1);
  if (copy) memcpy(copy, LLVMGetBufferStart(bc), size);
  LLVMDisposeMemoryBuffer(bc);
  LLVMDisposeModule(cut);
  LLVMContextDispose(ctx);
  if (!copy) return tgt_fail(err, "out of memory");
  free(nvptx_subset.bitcode);
  nvptx_subset.bitcode = copy;
  nvptx_subset.size = size;
  return 0;
}

/* The subset as a memory buffer (a copy) that holds every __nv_* function m declares,
 * cut anew when needed. Called with nvptx_subset_lock held. */
#define NVPTX_LIBDEVICE_MAX (64 << 20)

static int nvptx_subset_for(LLVMModuleRef m, const char *path, LLVMMemoryBufferRef *out,
                            char **err) {
  struct stat st;
  if (stat(path, &st) != 0)
    return tgt_fail(err, "cannot read libdevice '%s': %s", path, strerror(errno));
  /* as source files are: a FIFO would block the read for ever, a device never end it */
  if (!S_ISREG(st.st_mode))
    return tgt_fail(err, "libdevice '%s' (KC_LIBDEVICE or the configured path) is %s, not a "
                    "regular file", path, file_kind(st.st_mode));
  if (st.st_size > NVPTX_LIBDEVICE_MAX)
    return tgt_fail(err, "libdevice '%s' is %lld bytes: not libdevice (libdevice.10.bc is "
                    "under 1 MiB; kcc reads at most %d MiB)", path, (long long)st.st_size,
                    NVPTX_LIBDEVICE_MAX >> 20);
  if (!nvptx_subset.path || strcmp(nvptx_subset.path, path) != 0 ||
      !nvptx_same_file(&nvptx_subset.st, &st)) {
    nvptx_subset_clear();
    if (!(nvptx_subset.path = strdup(path))) return tgt_fail(err, "out of memory");
    nvptx_subset.st = st;
  }
  int missing = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    size_t len;
    const char *name = LLVMGetValueName2(f, &len);
    if (len <= 5 || memcmp(name, "__nv_", 5) != 0 || !LLVMIsDeclaration(f)) continue;
    if (nvptx_subset_has(name, len)) continue;
    if (nvptx_subset_add(name, len)) return tgt_fail(err, "out of memory");
    missing = 1;
  }
  if ((missing || !nvptx_subset.bitcode) &&
      nvptx_subset_build(path, LLVMGetTarget(m), LLVMGetDataLayoutStr(m), err)) {
    nvptx_subset_clear();
    return 1;
  }
  *out = LLVMCreateMemoryBufferWithMemoryRangeCopy(nvptx_subset.bitcode, nvptx_subset.size,
                                                   "libdevice-subset");
  return 0;
}

int nvptx_link_libdevice(LLVMModuleRef m, const char *libdevice_path, char **err) {
  if (!nvptx_uses_libdevice(m)) return 0;
  if (!libdevice_path || !*libdevice_path)
    return tgt_fail(err, "maths functions need libdevice, and no path to it was given");
  LLVMMemoryBufferRef buf = NULL;
  pthread_mutex_lock(&nvptx_subset_lock);
  int rc = nvptx_subset_for(m, libdevice_path, &buf, err);
  pthread_mutex_unlock(&nvptx_subset_lock);
  if (rc) return 1;
  LLVMModuleRef lib;
  nvptx_diag_capture cap;
  nvptx_capture_begin(&cap, m);
  int bad = LLVMParseBitcodeInContext2(LLVMGetModuleContext(m), buf, &lib);
  LLVMDisposeMemoryBuffer(buf);
  if (!bad) bad = LLVMLinkModules2(m, lib);  /* lib is destroyed either way */
  char *msg = nvptx_capture_end(&cap);
  if (bad) {
    tgt_fail(err, "cannot link libdevice '%s': %s", libdevice_path, msg ? msg : "error");
    if (msg) LLVMDisposeMessage(msg);
    return 1;
  }
  if (msg) LLVMDisposeMessage(msg);
  nvptx_set_flag(m, "nvvm-reflect-ftz", 0);
  nvptx_internalize(m);
  return 0;
}

/* ---- __nvvm_reflect, per kernel ----------------------------------------------------------
 * libdevice asks __nvvm_reflect("__CUDA_FTZ") and ("__CUDA_PREC_SQRT") how to compute.
 * LLVM's NVVMReflect pass answers once per module (FTZ from the nvvm-reflect-ftz flag,
 * PREC_SQRT always 0, which made hypotf and normf take approximate square roots), while
 * kcc's answer depends on the kernel, as nvcc's defaults and Numba's fastmath=True do:
 * a fast-math kernel, whose functions flush float32 denormals (codegen gives them
 * "denormal-fp-math-f32"="preserve-sign,..."), gets FTZ 1 and PREC_SQRT 0; any other
 * gets FTZ 0 and PREC_SQRT 1. libdevice's functions are alwaysinline: once the
 * always-inline pass has run, each question sits in a function of the kernel it is
 * asked for, and is answered here. NVVMReflect answers what is left (__CUDA_ARCH, and
 * the questions in the bodies of the inlined functions, which are then dropped). */

static int nvptx_flushes_denormals(LLVMValueRef fn) {
  static const char key[] = "denormal-fp-math-f32";
  LLVMAttributeRef a = LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, key,
                                                     sizeof key - 1);
  unsigned len = 0;
  const char *v = a ? LLVMGetStringAttributeValue(a, &len) : NULL;
  return v && len >= 13 && memcmp(v, "preserve-sign", 13) == 0;
}

/* Whether fn computes on bfloat16 values: an instruction with a bfloat result or first
 * operand (comparisons, and the arithmetic LLVM may expand into comparisons). */
static bool nvptx_uses_bf16(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i)) {
      bool op = LLVMGetNumOperands(i) > 0 &&
                LLVMGetTypeKind(LLVMTypeOf(LLVMGetOperand(i, 0))) == LLVMBFloatTypeKind;
      if (op || LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMBFloatTypeKind) return true;
    }
  return false;
}

/* LLVM's NVPTX back end writes a bfloat16 comparison (kcc's, or one of its own
 * expansions of bfloat arithmetic, // and % among them) in a function that flushes
 * float32 denormals as setp.ftz.bf16, which ptxas refuses: there is no such
 * instruction. A function that computes on bfloat16 therefore keeps its float32
 * denormals: fast math allows flushing, it does not require it, and its other
 * approximations stay. Run after optimisation, on the code that will be emitted. */
static void nvptx_bf16_no_ftz(LLVMModuleRef m) {
  static const char key[] = "denormal-fp-math-f32";
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    if (!LLVMIsDeclaration(f) && nvptx_flushes_denormals(f) && nvptx_uses_bf16(f))
      LLVMRemoveStringAttributeAtIndex(f, LLVMAttributeFunctionIndex, key, sizeof key - 1);
}

/* The string a reflect call asks about (a constant global, perhaps behind a cast). */
static int nvptx_reflect_asks(LLVMValueRef call, const char *what) {
  if (LLVMGetNumArgOperands(call) != 1) return 0;
  LLVMValueRef v = LLVMGetOperand(call, 0);
  while (v && LLVMIsAConstantExpr(v)) v = LLVMGetOperand(v, 0);
  LLVMValueRef init = v && LLVMIsAGlobalVariable(v) ? LLVMGetInitializer(v) : NULL;
  if (!init || !LLVMIsConstantString(init)) return 0;
  size_t len = 0, n = strlen(what);
  const char *s = LLVMGetAsString(init, &len);
  return len >= n && memcmp(s, what, n) == 0 && (len == n || s[n] == '\0');
}

static int nvptx_answer_reflect(LLVMModuleRef m, LLVMTargetMachineRef tm, char **err) {
  LLVMValueRef reflect = LLVMGetNamedFunction(m, "__nvvm_reflect");
  if (!reflect || !LLVMGetFirstUse(reflect)) return 0;
  LLVMPassBuilderOptionsRef opts = LLVMCreatePassBuilderOptions();
  LLVMErrorRef e = LLVMRunPasses(m, "always-inline", tm, opts);
  LLVMDisposePassBuilderOptions(opts);
  if (e) return tgt_fail_error(err, "internal error: inlining libdevice failed", e);
  LLVMTypeRef i32 = LLVMInt32TypeInContext(LLVMGetModuleContext(m));
  LLVMUseRef next;
  for (LLVMUseRef u = LLVMGetFirstUse(reflect); u; u = next) {
    next = LLVMGetNextUse(u);
    LLVMValueRef call = LLVMGetUser(u);
    if (!LLVMIsACallInst(call) || LLVMGetCalledValue(call) != reflect) continue;
    int ftz = nvptx_flushes_denormals(LLVMGetBasicBlockParent(LLVMGetInstructionParent(call)));
    int answer;
    if (nvptx_reflect_asks(call, "__CUDA_FTZ")) answer = ftz;
    else if (nvptx_reflect_asks(call, "__CUDA_PREC_SQRT")) answer = !ftz;
    else continue;
    LLVMReplaceAllUsesWith(call, LLVMConstInt(i32, (unsigned long long)answer, 0));
    LLVMInstructionEraseFromParent(call);
  }
  return 0;
}

/* ---- Approximate float32 division and square root, before LLVM 22 ------------------------
 * Fast-math code carries the afn flag on each of its float instructions (codegen.c), and
 * LLVM 22's NVPTX back end turns a float32 fdiv or llvm.sqrt that carries it into
 * div.approx, rcp.approx (1 / x), sqrt.approx or rsqrt.approx (1 / sqrt(x)), with .ftz
 * where the function flushes denormals. LLVM 19 ignores the flag there and looks only
 * at the whole function's "unsafe-fp-math" attribute, which cannot say that just the
 * inlined code of a fastmath=True device function is fast. So before LLVM 22, after
 * optimisation (which sees the same plain instructions as with LLVM 22), those
 * instructions are rewritten into the NVVM intrinsics of the PTX instructions LLVM 22
 * picks; rcp.approx.f32 without .ftz has no intrinsic and is written as inline PTX.
 * A fast-math kernel's functions (those that flush denormals) are fast throughout, and
 * also get "unsafe-fp-math", with which LLVM 19 leaves their additions contractible
 * (add.f32, not add.rn.f32) as LLVM 22 does for the contract flag; the fast code of a
 * device function inlined into a precise kernel keeps add.rn. Checked against LLVM 19
 * and 22; 20 and 21 take the rewrite too, which yields the same PTX whether or not
 * their back end would have. */
#if LLVM_VERSION_MAJOR < 22
static LLVMValueRef nvptx_call_intrinsic(LLVMBuilderRef b, LLVMModuleRef m, const char *name,
                                         LLVMValueRef *args, unsigned n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  LLVMValueRef fn = LLVMGetIntrinsicDeclaration(m, id, NULL, 0);
  return LLVMBuildCall2(b, LLVMGlobalGetValueType(fn), fn, args, n, "");
}

static LLVMValueRef nvptx_rcp_approx(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef x,
                                     int ftz) {
  if (ftz) return nvptx_call_intrinsic(b, m, "llvm.nvvm.rcp.approx.ftz.f", &x, 1);
  return tgt_pure_asm(b, LLVMTypeOf(x), "rcp.approx.f32 $0, $1;", "=f,f", &x, 1);
}

/* Whether i is a float32 instruction with the afn flag. */
static int nvptx_is_approx_f32(LLVMValueRef i) {
  return LLVMGetTypeKind(LLVMTypeOf(i)) == LLVMFloatTypeKind &&
         LLVMCanValueUseFastMathFlags(i) && (LLVMGetFastMathFlags(i) & LLVMFastMathApproxFunc);
}

static int nvptx_is_approx_sqrt(LLVMValueRef i) {
  static unsigned sqrt_id;
  if (!sqrt_id) sqrt_id = LLVMLookupIntrinsicID("llvm.sqrt", 9);
  LLVMValueRef callee = LLVMIsACallInst(i) ? LLVMGetCalledValue(i) : NULL;
  return callee && LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee) == sqrt_id &&
         nvptx_is_approx_f32(i);
}

static int nvptx_is_one(LLVMValueRef v) {
  LLVMBool lost = 0;
  return LLVMIsAConstantFP(v) && LLVMConstRealGetDouble(v, &lost) == 1.0 && !lost;
}

/* The approximate form of fdiv i: rsqrt, rcp or div. */
static LLVMValueRef nvptx_approx_div(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef i,
                                     int ftz) {
  LLVMValueRef num = LLVMGetOperand(i, 0), den = LLVMGetOperand(i, 1);
  if (nvptx_is_one(num) && nvptx_is_approx_sqrt(den) && LLVMGetFirstUse(den) &&
      !LLVMGetNextUse(LLVMGetFirstUse(den))) {
    LLVMValueRef x = LLVMGetOperand(den, 0);
    LLVMValueRef r = nvptx_call_intrinsic(
        b, m, ftz ? "llvm.nvvm.rsqrt.approx.ftz.f" : "llvm.nvvm.rsqrt.approx.f", &x, 1);
    LLVMReplaceAllUsesWith(i, r);
    LLVMInstructionEraseFromParent(i);
    LLVMInstructionEraseFromParent(den);  /* its one use was i */
    return r;
  }
  LLVMValueRef r = nvptx_is_one(num)
                       ? nvptx_rcp_approx(b, m, den, ftz)
                       : nvptx_call_intrinsic(b, m, ftz ? "llvm.nvvm.div.approx.ftz.f"
                                                        : "llvm.nvvm.div.approx.f",
                                              (LLVMValueRef[]){num, den}, 2);
  LLVMReplaceAllUsesWith(i, r);
  LLVMInstructionEraseFromParent(i);
  return r;
}

static LLVMValueRef nvptx_approx_sqrt(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef i,
                                      int ftz) {
  LLVMValueRef x = LLVMGetOperand(i, 0);
  LLVMValueRef r = nvptx_call_intrinsic(
      b, m, ftz ? "llvm.nvvm.sqrt.approx.ftz.f" : "llvm.nvvm.sqrt.approx.f", &x, 1);
  LLVMReplaceAllUsesWith(i, r);
  LLVMInstructionEraseFromParent(i);
  return r;
}

/* Rewrites one function: divisions first, so that 1 / sqrt(x) becomes one rsqrt. */
static void nvptx_approx_function(LLVMBuilderRef b, LLVMModuleRef m, LLVMValueRef fn) {
  int ftz = nvptx_flushes_denormals(fn);
  for (int round = 0; round < 2; round++)
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = next) {
        next = LLVMGetNextInstruction(i);
        int div = round == 0 && LLVMGetInstructionOpcode(i) == LLVMFDiv &&
                  nvptx_is_approx_f32(i);
        int sqrt = round == 1 && nvptx_is_approx_sqrt(i);
        if (!div && !sqrt) continue;
        LLVMPositionBuilderBefore(b, i);
        LLVMMetadataRef loc = LLVMInstructionGetDebugLoc(i);
        LLVMValueRef r = div ? nvptx_approx_div(b, m, i, ftz) : nvptx_approx_sqrt(b, m, i, ftz);
        if (loc) LLVMInstructionSetDebugLoc(r, loc);
      }
    }
}

static void nvptx_approx_f32(LLVMModuleRef m) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  static const char key[] = "unsafe-fp-math", value[] = "true";
  LLVMAttributeRef unsafe = LLVMCreateStringAttribute(ctx, key, sizeof key - 1, value,
                                                      sizeof value - 1);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
    if (LLVMIsDeclaration(fn)) continue;
    if (nvptx_flushes_denormals(fn))  /* a fast-math kernel's: all of it is fast */
      LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex, unsafe);
    nvptx_approx_function(b, m, fn);
  }
  LLVMDisposeBuilder(b);
}
#endif

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
  if (opt_level > 0) tgt_bound_inlining(m, TGT_INLINE_BUDGET);
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
  bool full_debug = LLVMGetModuleFlag(m, KCC_FULL_DEBUG_FLAG, strlen(KCC_FULL_DEBUG_FLAG)) != NULL;
  LLVMTargetMachineRef tm = nvptx_target_machine(arch, opt_level, full_debug, err);
  if (!tm) return 1;
  nvptx_diag_capture cap;
  nvptx_capture_begin(&cap, m);
  char stage[48];
  snprintf(stage, sizeof stage, "optimising and emitting PTX for sm_%d", arch);
  tgt_set_stage(stage, m);
  int rc = nvptx_verify(m, err);
  if (rc == 0) {
    nvptx_internalize(m);
    rc = nvptx_answer_reflect(m, tm, err);
  }
  if (rc == 0) rc = nvptx_run_pipeline(m, tm, opt_level, err);
  if (rc == 0) nvptx_bf16_no_ftz(m);
#if LLVM_VERSION_MAJOR < 22
  if (rc == 0 && !emit_llvm) nvptx_approx_f32(m);
#endif
  if (rc == 0)
    rc = emit_llvm ? nvptx_emit_ir(m, out, out_len, err)
                   : nvptx_emit_ptx(m, tm, out, out_len, err);
  tgt_set_stage(NULL, NULL);
  char *msg = nvptx_capture_end(&cap);
  if (msg && rc == 0) {  /* LLVM reported an error but carried on */
    free(*out);
    *out = NULL;
    if (out_len) *out_len = 0;
    rc = tgt_fail(err, "internal error: %s", msg);
  }
  if (msg) LLVMDisposeMessage(msg);
  return rc;
}

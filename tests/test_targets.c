/*
 * test_targets.c — the back ends' module-level work (src/target/target_nvptx.c,
 * src/target/target_host.c) on hand-built LLVM modules: libdevice linked and internalised,
 * kernels marked either way, PTX accepted by ptxas for sm_80 and sm_90 when ptxas is
 * installed, and host code JIT-compiled and run. Prints the time each step takes.
 */
#include <check.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>

#include "kc_config.h"
#include "ptx_link.h"
#include "target.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *libdevice_path(void) {
  const char *p = getenv("KC_LIBDEVICE");
  return p && *p ? p : KC_LIBDEVICE_PATH;
}

/* ---- Building modules ---------------------------------------------------------------- */

enum { MARK_ANNOTATION = 1, MARK_CALLCONV = 2 };

static LLVMValueRef declare_unary(LLVMModuleRef m, const char *name, LLVMTypeRef t) {
  LLVMValueRef f = LLVMGetNamedFunction(m, name);
  if (f) return f;
  return LLVMAddFunction(m, name, LLVMFunctionType(t, &t, 1, 0));
}

static LLVMValueRef call_unary(LLVMBuilderRef b, LLVMModuleRef m, const char *name,
                               LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef f = declare_unary(m, name, t);
  return LLVMBuildCall2(b, LLVMFunctionType(t, &t, 1, 0), f, &x, 1, "");
}

static void annotate_kernel(LLVMModuleRef m, LLVMValueRef k) {
  LLVMContextRef ctx = LLVMGetModuleContext(m);
  LLVMMetadataRef ops[3] = {
    LLVMValueAsMetadata(k),
    LLVMMDStringInContext2(ctx, "kernel", 6),
    LLVMValueAsMetadata(LLVMConstInt(LLVMInt32TypeInContext(ctx), 1, 0)),
  };
  LLVMAddNamedMetadataOperand(m, "nvvm.annotations",
                              LLVMMetadataAsValue(ctx, LLVMMDNodeInContext2(ctx, ops, 3)));
}

/* void k(float *a) { a[0] = f1(f2(...(a[0]))) } for the given maths functions. */
static LLVMModuleRef kernel_module(LLVMContextRef ctx, const char *kname,
                                   const char *const *fns, int nfns, int mark) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t", ctx);
  char *err = NULL;
  ck_assert_int_eq(nvptx_prepare_module(m, 80, &err), 0);
  LLVMTypeRef ptr = LLVMPointerTypeInContext(ctx, 0);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
  LLVMValueRef k = LLVMAddFunction(m, kname,
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), &ptr, 1, 0));
  if (mark & MARK_CALLCONV) LLVMSetFunctionCallConv(k, NVPTX_KERNEL_CC);
  if (mark & MARK_ANNOTATION) annotate_kernel(m, k);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, k, "entry"));
  LLVMValueRef a = LLVMGetParam(k, 0);
  LLVMValueRef x = LLVMBuildLoad2(b, f32, a, "x");
  for (int i = 0; i < nfns; i++) x = call_unary(b, m, fns[i], x);
  LLVMBuildStore(b, x, a);
  LLVMBuildRetVoid(b);
  LLVMDisposeBuilder(b);
  return m;
}

static char *compile_ptx(LLVMModuleRef m, int arch, int opt, int emit_llvm) {
  char *err = NULL, *out = NULL;
  size_t len = 0;
  ck_assert_msg(nvptx_link_libdevice(m, libdevice_path(), &err) == 0, "%s", err);
  ck_assert_msg(nvptx_optimize_and_emit(m, arch, opt, emit_llvm, &out, &len, &err) == 0,
                "%s", err);
  ck_assert_ptr_nonnull(out);
  ck_assert_uint_eq(strlen(out), len);
  return out;
}

/* ---- ptxas --------------------------------------------------------------------------- */

static const char *find_ptxas(void) {
  static const char *const candidates[] = { KC_CUDA_ROOT "/bin/ptxas",
                                            "/usr/local/cuda/bin/ptxas" };
  for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++)
    if (access(candidates[i], X_OK) == 0) return candidates[i];
  return NULL;
}

/* ptxas accepts the PTX for sm_<arch> (true when there is no ptxas to ask). */
static int ptxas_accepts(const char *ptx, int arch) {
  const char *ptxas = find_ptxas();
  if (!ptxas) {
    printf("ptxas not found: PTX not validated\n");
    return 1;
  }
  char path[] = "/tmp/kcc_test_targets_XXXXXX";
  int fd = mkstemp(path);
  ck_assert_int_ge(fd, 0);
  size_t len = strlen(ptx);
  ck_assert_int_eq(write(fd, ptx, len), (ssize_t)len);
  close(fd);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "'%s' -arch=sm_%d '%s' -o /dev/null", ptxas, arch, path);
  int rc = system(cmd);
  unlink(path);
  return rc == 0;
}

/* ---- NVPTX --------------------------------------------------------------------------- */

START_TEST(test_arch_supported) {
  ck_assert(nvptx_arch_supported(70));
  ck_assert(nvptx_arch_supported(80));
  ck_assert(nvptx_arch_supported(86));
  ck_assert(nvptx_arch_supported(90));
  ck_assert(!nvptx_arch_supported(0));
  ck_assert(!nvptx_arch_supported(81));
  ck_assert(!nvptx_arch_supported(-1));
  ck_assert(!nvptx_arch_supported(1000));
}
END_TEST

START_TEST(test_bad_arch) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t", ctx);
  char *err = NULL;
  ck_assert_int_ne(nvptx_prepare_module(m, 81, &err), 0);
  ck_assert_ptr_nonnull(strstr(err, "sm_81"));
  free(err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* Each way of marking a kernel alone is enough (_i: 1 annotation, 2 calling
 * convention, 3 both). */
START_TEST(test_sinf_kernel) {
  static const char *const fns[] = {"__nv_sinf"};
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "k", fns, 1, _i);
  char *ptx = compile_ptx(m, 80, 3, 0);
  ck_assert_msg(strstr(ptx, ".entry k(") != NULL, "%s", ptx);
  ck_assert_msg(strstr(ptx, "__nv_") == NULL, "%s", ptx);  /* inlined, rest dropped */
  ck_assert_msg(strstr(ptx, ".func") == NULL, "%s", ptx);
  ck_assert(ptxas_accepts(ptx, 80));
  free(ptx);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(test_ptxas_sm90) {
  static const char *const fns[] = {"__nv_expf", "__nv_logf", "__nv_sinf"};
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "k3", fns, 3, MARK_ANNOTATION);
  char *err = NULL;
  ck_assert_int_eq(nvptx_prepare_module(m, 90, &err), 0);
  char *ptx = compile_ptx(m, 90, 3, 0);
  ck_assert_ptr_nonnull(strstr(ptx, ".target sm_90"));
  ck_assert_ptr_nonnull(strstr(ptx, ".entry k3("));
  ck_assert(ptxas_accepts(ptx, 90));
  free(ptx);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* The optimised IR keeps the kernel, resolves __nvvm_reflect, and has no libdevice
 * function left (at every level; -O0 must still drop unused ones). */
START_TEST(test_emit_llvm) {
  static const char *const fns[] = {"__nv_cosf"};
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "kc", fns, 1, MARK_ANNOTATION);
  char *ir = compile_ptx(m, 80, _i, 1);
  ck_assert_msg(strstr(ir, "define ptx_kernel void @kc(") != NULL, "%s", ir);
  ck_assert_msg(strstr(ir, "__nvvm_reflect") == NULL, "%s", ir);
  ck_assert_msg(strstr(ir, "@__nv_sinf") == NULL, "%s", ir);
  ck_assert_msg(strstr(ir, "\"nvvm-reflect-ftz\", i32 0") != NULL, "%s", ir);
  free(ir);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(test_ptx_each_level) {
  static const char *const fns[] = {"__nv_sinf", "__nv_sqrtf"};
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "k", fns, 2, MARK_CALLCONV);
  char *ptx = compile_ptx(m, 80, _i, 0);
  ck_assert_ptr_nonnull(strstr(ptx, ".entry k("));
  ck_assert(ptxas_accepts(ptx, 80));
  free(ptx);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* One thread, several compilations: the cached target machines and libdevice subset
 * give the same PTX as the first compilation did, the subset grows when a kernel needs
 * a function it lacks (sinf after expf), and every call is resolved. */
static char *ptx_of(const char *const *fns, int nfns, int arch) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "k", fns, nfns, MARK_ANNOTATION);
  char *err = NULL;
  ck_assert_int_eq(nvptx_prepare_module(m, arch, &err), 0);
  char *ptx = compile_ptx(m, arch, 3, 0);
  ck_assert_msg(strstr(ptx, "__nv_") == NULL, "%s", ptx);
  ck_assert_msg(strstr(ptx, ".func") == NULL, "%s", ptx);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return ptx;
}

START_TEST(test_reuse_across_compiles) {
  static const char *const exp_only[] = {"__nv_expf"};
  static const char *const exp_sin[] = {"__nv_sinf", "__nv_expf"};
  char *first = ptx_of(exp_only, 1, 80);
  char *sm90 = ptx_of(exp_only, 1, 90);
  char *grown = ptx_of(exp_sin, 2, 80);
  char *again = ptx_of(exp_only, 1, 80);
  ck_assert_str_eq(first, again);
  ck_assert_ptr_nonnull(strstr(sm90, ".target sm_90"));
  ck_assert_ptr_nonnull(strstr(again, ".target sm_80"));
  ck_assert(ptxas_accepts(grown, 80));
  /* a bad path after a good one is still an error */
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "k", exp_only, 1, MARK_ANNOTATION);
  char *err = NULL;
  ck_assert_int_ne(nvptx_link_libdevice(m, "/nonexistent/libdevice.bc", &err), 0);
  free(err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  free(first), free(sm90), free(grown), free(again);
}
END_TEST

/* PTX -> cubin in process: an ELF for the arch, or nvJitLink's own complaint. */
START_TEST(test_ptx_link) {
  if (!ptx_link_library()) {
    printf("libnvJitLink not found: in-process PTX -> cubin not checked\n");
    return;
  }
  static const char *const fns[] = {"__nv_expf"};
  char *ptx = ptx_of(fns, 1, 80), *cubin = NULL, *err = NULL;
  size_t n = 0;
  ck_assert_msg(ptx_link_cubin(ptx, strlen(ptx), 80, 3, 0, &cubin, &n, &err) == 0, "%s", err);
  ck_assert_uint_gt(n, 64);
  ck_assert(memcmp(cubin, "\177ELF", 4) == 0);
  free(cubin);
  static const char bad[] = ".version 8.0\n.target sm_80\n.address_size 64\nbogus;\n";
  ck_assert_int_eq(ptx_link_cubin(bad, strlen(bad), 80, 3, 0, &cubin, &n, &err), 1);
  ck_assert_ptr_null(cubin);
  ck_assert_msg(err && strstr(err, "nvJitLink") != NULL, "%s", err ? err : "(null)");
  free(err);
  free(ptx);
}
END_TEST

/* No maths: libdevice is not even opened (a bad path is no error). */
START_TEST(test_no_libdevice_needed) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "plain", NULL, 0, MARK_ANNOTATION);
  char *err = NULL;
  ck_assert_int_eq(nvptx_link_libdevice(m, "/nonexistent/libdevice.bc", &err), 0);
  char *out = NULL;
  size_t len;
  ck_assert_int_eq(nvptx_optimize_and_emit(m, 80, 3, 0, &out, &len, &err), 0);
  ck_assert_ptr_nonnull(strstr(out, ".entry plain("));
  free(out);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(test_bad_libdevice) {
  static const char *const fns[] = {"__nv_sinf"};
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "k", fns, 1, MARK_ANNOTATION);
  char *err = NULL;
  ck_assert_int_ne(nvptx_link_libdevice(m, "/nonexistent/libdevice.bc", &err), 0);
  ck_assert_msg(strstr(err, "/nonexistent/libdevice.bc") != NULL, "%s", err);
  free(err);
  err = NULL;
  /* not bitcode */
  ck_assert_int_ne(nvptx_link_libdevice(m, KC_SOURCE_ROOT "/meson.build", &err), 0);
  ck_assert_msg(strstr(err, "bitcode") != NULL, "%s", err);
  free(err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

START_TEST(test_invalid_ir) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("t", ctx);
  LLVMValueRef f = LLVMAddFunction(m, "broken",
      LLVMFunctionType(LLVMVoidTypeInContext(ctx), NULL, 0, 0));
  LLVMAppendBasicBlockInContext(ctx, f, "entry");  /* no terminator */
  char *err = NULL, *out = NULL;
  size_t len;
  ck_assert_int_ne(nvptx_optimize_and_emit(m, 80, 3, 0, &out, &len, &err), 0);
  ck_assert_ptr_null(out);
  ck_assert_ptr_nonnull(strstr(err, "invalid LLVM IR"));
  free(err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
}
END_TEST

/* An intrinsic the NVPTX code generator cannot select below sm_70: LLVM ends the process
 * (report_fatal_error). The front end never emits this (it refuses match_all_sync below
 * sm_70), so the module is written by hand; the compile runs in a child process, and
 * its stderr must carry kcc's message (what it was doing, that it is kcc's bug). */
static const char fatal_ir[] =
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "declare { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32, i32)\n"
    "define ptx_kernel void @k(ptr addrspace(1) %p) {\n"
    "  %v = load i32, ptr addrspace(1) %p\n"
    "  %r = call { i32, i1 } @llvm.nvvm.match.all.sync.i32p(i32 -1, i32 %v)\n"
    "  %x = extractvalue { i32, i1 } %r, 0\n"
    "  store i32 %x, ptr addrspace(1) %p\n"
    "  ret void\n"
    "}\n";

static void compile_fatal_ir(void) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMMemoryBufferRef buf = LLVMCreateMemoryBufferWithMemoryRangeCopy(
      fatal_ir, sizeof fatal_ir - 1, "fatal_case.k");
  LLVMModuleRef m = NULL;
  char *msg = NULL;
  if (LLVMParseIRInContext(ctx, buf, &m, &msg)) {
    fprintf(stderr, "parse failed: %s\n", msg);
    _exit(3);
  }
  char *err = NULL, *out = NULL;
  size_t len;
  nvptx_optimize_and_emit(m, 60, 3, 0, &out, &len, &err);
  _exit(4);  /* not reached when LLVM stops the process */
}

START_TEST(test_llvm_fatal_error_message) {
  int fd[2];
  ck_assert_int_eq(pipe(fd), 0);
  pid_t pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    dup2(fd[1], STDERR_FILENO);
    close(fd[0]);
    compile_fatal_ir();
  }
  close(fd[1]);
  char text[8192];
  size_t n = 0;
  ssize_t r;
  while (n < sizeof text - 1 && (r = read(fd[0], text + n, sizeof text - 1 - n)) > 0)
    n += (size_t)r;
  text[n] = '\0';
  close(fd[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  ck_assert_msg(!(WIFEXITED(status) && WEXITSTATUS(status) >= 3), "child: %s", text);
  ck_assert_msg(strstr(text, "kcc: internal compiler error: LLVM stopped while optimising "
                             "and emitting PTX for sm_60 (module 'fatal_case.k'): ") &&
                    strstr(text, "Cannot select") && strstr(text, "a bug in kcc"),
                "%s", text);
}
END_TEST

static void *compile_on_thread(void *arg) {
  static const char *const fns[] = {"__nv_expf", "__nv_sinf"};
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = kernel_module(ctx, "kt", fns, 2, MARK_ANNOTATION);
  char *err = NULL, *out = NULL;
  size_t len;
  int rc = nvptx_link_libdevice(m, libdevice_path(), &err) ||
           nvptx_optimize_and_emit(m, 80, 3, 0, &out, &len, &err);
  *(int *)arg = rc == 0 && strstr(out, ".entry kt(") != NULL;
  free(out);
  free(err);
  LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  return NULL;
}

START_TEST(test_two_threads) {
  pthread_t t[2];
  int ok[2] = {0, 0};
  for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, compile_on_thread, &ok[i]);
  for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
  ck_assert(ok[0] && ok[1]);
}
END_TEST

/* Not a check: the numbers the report quotes (first run includes LLVM start-up). */
START_TEST(test_timing) {
  static const char *const fns[] = {"__nv_expf", "__nv_logf", "__nv_sinf"};
  for (int run = 0; run < 5; run++) {
    LLVMContextRef ctx = LLVMContextCreate();
    double t0 = now_ms();
    LLVMModuleRef m = kernel_module(ctx, "k", fns, 3, MARK_ANNOTATION);
    double t1 = now_ms();
    char *err = NULL, *out = NULL;
    size_t len;
    ck_assert_int_eq(nvptx_link_libdevice(m, libdevice_path(), &err), 0);
    double t2 = now_ms();
    ck_assert_int_eq(nvptx_optimize_and_emit(m, 80, 3, 0, &out, &len, &err), 0);
    double t3 = now_ms();
    printf("nvptx run %d: build+prepare %.2f ms, libdevice link %.2f ms, "
           "O3+PTX %.2f ms, total %.2f ms (%zu bytes of PTX)\n",
           run, t1 - t0, t2 - t1, t3 - t2, t3 - t0, len);
    free(out);
    LLVMDisposeModule(m);
    LLVMContextDispose(ctx);
  }
}
END_TEST

/* ---- Host ---------------------------------------------------------------------------- */

typedef float (*unary_f32)(float);

/* A JIT'd function by name (ISO C has no cast from void * to a function pointer). */
static unary_f32 lookup_f32(kcc_host_code *code, const char *name) {
  void *p = host_lookup(code, name);
  unary_f32 fn;
  ck_assert_ptr_nonnull(p);
  memcpy(&fn, &p, sizeof fn);
  return fn;
}

/* float name(float x) { return callee(x) * 2 } */
static LLVMModuleRef host_module(LLVMContextRef ctx, const char *name, const char *callee) {
  LLVMModuleRef m = LLVMModuleCreateWithNameInContext("h", ctx);
  char *err = NULL;
  ck_assert_msg(host_prepare_module(m, NULL, &err) == 0, "%s", err);
  LLVMTypeRef f32 = LLVMFloatTypeInContext(ctx);
  LLVMValueRef f = LLVMAddFunction(m, name, LLVMFunctionType(f32, &f32, 1, 0));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(ctx);
  LLVMPositionBuilderAtEnd(b, LLVMAppendBasicBlockInContext(ctx, f, "entry"));
  LLVMValueRef y = call_unary(b, m, callee, LLVMGetParam(f, 0));
  LLVMBuildRet(b, LLVMBuildFMul(b, y, LLVMConstReal(f32, 2.0), ""));
  LLVMDisposeBuilder(b);
  return m;
}

START_TEST(test_host_jit_sinf) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = host_module(ctx, "twice_sin", _i ? "expf" : "sinf");
  char *err = NULL;
  double t0 = now_ms();
  ck_assert_msg(host_optimize(m, 3, NULL, &err) == 0, "%s", err);
  char *ir = host_emit_llvm(m);
  ck_assert_ptr_nonnull(strstr(ir, "define"));
  free(ir);
  double t1 = now_ms();
  kcc_host_code *code = NULL;
  ck_assert_msg(host_jit(ctx, m, 3, NULL, NULL, NULL, 0, &code, &err) == 0, "%s", err);
  double t2 = now_ms();
  unary_f32 fn = lookup_f32(code, "twice_sin");
  float want = _i ? 2 * expf(0.5f) : 2 * sinf(0.5f);
  ck_assert_float_eq_tol(fn(0.5f), want, 1e-6f);
  ck_assert_ptr_null(host_lookup(code, "no_such_symbol"));
  printf("host: O3 %.2f ms, JIT %.2f ms\n", t1 - t0, t2 - t1);
  host_code_free(code);
}
END_TEST

START_TEST(test_host_jit_each_level) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = host_module(ctx, "f", "cosf");
  char *err = NULL;
  ck_assert_msg(host_optimize(m, _i, NULL, &err) == 0, "%s", err);
  kcc_host_code *code = NULL;
  ck_assert_msg(host_jit(ctx, m, _i, NULL, NULL, NULL, 0, &code, &err) == 0, "%s", err);
  unary_f32 fn = lookup_f32(code, "f");
  ck_assert_float_eq_tol(fn(1.0f), 2 * cosf(1.0f), 1e-6f);
  host_code_free(code);
}
END_TEST

START_TEST(test_host_unresolved) {
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = host_module(ctx, "f", "kcc_no_such_function_anywhere");
  char *err = NULL;
  kcc_host_code *code = NULL;
  ck_assert_int_ne(host_jit(ctx, m, 2, NULL, NULL, NULL, 0, &code, &err), 0);
  ck_assert_ptr_null(code);
  ck_assert_msg(strstr(err, "kcc_no_such_function_anywhere") != NULL, "%s", err);
  free(err);
  host_code_free(NULL);
}
END_TEST

static Suite *targets_suite(void) {
  Suite *s = suite_create("targets");
  TCase *nv = tcase_create("nvptx");
  tcase_add_test(nv, test_arch_supported);
  tcase_add_test(nv, test_bad_arch);
  tcase_add_loop_test(nv, test_sinf_kernel, 1, 4);
  tcase_add_test(nv, test_ptxas_sm90);
  tcase_add_loop_test(nv, test_emit_llvm, 0, 4);
  tcase_add_loop_test(nv, test_ptx_each_level, 0, 4);
  tcase_add_test(nv, test_no_libdevice_needed);
  tcase_add_test(nv, test_reuse_across_compiles);
  tcase_add_test(nv, test_ptx_link);
  tcase_add_test(nv, test_bad_libdevice);
  tcase_add_test(nv, test_invalid_ir);
  tcase_add_test(nv, test_llvm_fatal_error_message);
  tcase_add_test(nv, test_two_threads);
  tcase_add_test(nv, test_timing);
  suite_add_tcase(s, nv);
  TCase *host = tcase_create("host");
  tcase_add_loop_test(host, test_host_jit_sinf, 0, 2);
  tcase_add_loop_test(host, test_host_jit_each_level, 0, 4);
  tcase_add_test(host, test_host_unresolved);
  suite_add_tcase(s, host);
  return s;
}

int main(void) {
  SRunner *sr = srunner_create(targets_suite());
  srunner_run_all(sr, CK_NORMAL);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

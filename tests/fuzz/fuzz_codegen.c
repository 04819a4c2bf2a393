/*
 * fuzz_codegen.c — libFuzzer target: front end, then LLVM IR generation for the NVPTX
 * and the host target, each module given its target's triple and data layout and
 * checked by LLVM's verifier. A program the front end accepts must give valid IR:
 * a verifier failure is a bug, reported as a crash (abort). No PTX or machine code is
 * generated (that is LLVM's code, and slow).
 */
#include <stdio.h>
#include <stdlib.h>

#include <llvm-c/Analysis.h>

#include "codegen.h"
#include "fuzz_common.h"
#include "target.h"

static void verified(LLVMModuleRef m, const char *what) {
  char *msg = NULL;
  if (LLVMVerifyModule(m, LLVMReturnStatusAction, &msg)) {
    fprintf(stderr, "fuzz_codegen: invalid IR for %s:\n%s\n", what, msg ? msg : "");
    LLVMDumpModule(m);
    abort();
  }
  LLVMDisposeMessage(msg);
}

static void prepared(LLVMModuleRef m, kcc_target target) {
  char *err = NULL;
  int bad = target == KCC_TARGET_HOST ? host_prepare_module(m, NULL, &err)
                                      : nvptx_prepare_module(m, 80, &err);
  if (bad) {
    fprintf(stderr, "fuzz_codegen: preparing the module failed: %s\n", err ? err : "");
    abort();
  }
}

static void codegen_once(const char *src, size_t size, kcc_target target) {
  fuzz_job j;
  memset(&j, 0, sizeof j);
  kcc_options_init(&j.o);
  j.o.target = target;
  j.o.debug = (size & 1) != 0;          /* debug info for half the inputs, */
  j.o.bounds_check = (size & 2) != 0;   /* bounds checks for half of each half */
  j.o.fastmath = (size & 4) != 0;       /* and fast math for half of those */
  arena_init(&j.a, NULL, NULL);
  LLVMContextRef ctx = LLVMContextCreate();
  LLVMModuleRef m = NULL;
  if (setjmp(j.oom) == 0) {
    fuzz_job_begin(&j, src, size);
    node *mod = parse_module(&j.a, &j.d, src, size);
    program p;
    size_t shared = 0;
    if (j.d.nerrors == 0 && infer_program(&j.a, &j.d, mod, &j.o, kcc_builtins(), &p) == 0 &&
        cg_program(&j.a, &j.d, &p, &j.o, ctx, "fuzz", &m, &shared) == 0) {
      prepared(m, target);
      verified(m, target == KCC_TARGET_HOST ? "the host" : "NVPTX");
    }
  }
  if (m) LLVMDisposeModule(m);
  LLVMContextDispose(ctx);
  arena_free(&j.a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > FUZZ_MAX_INPUT) size = FUZZ_MAX_INPUT;
  codegen_once((const char *)data, size, KCC_TARGET_NVPTX);
  codegen_once((const char *)data, size, KCC_TARGET_HOST);
  return 0;
}

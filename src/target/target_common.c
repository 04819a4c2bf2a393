/*
 * target_common.c — what both targets (target_nvptx.c, target_host.c) share: turning a
 * failure, or LLVM's own message for it, into the malloc'd text their callers report;
 * and what is said when LLVM itself gives up on the process.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <llvm-c/ErrorHandling.h>

#include "target.h"

int tgt_fail(char **err, const char *fmt, ...) {
  if (!err) return 1;
  va_list ap;
  va_start(ap, fmt);
  int n = vsnprintf(NULL, 0, fmt, ap);
  va_end(ap);
  char *msg = n >= 0 ? malloc((size_t)n + 1) : NULL;
  if (msg) {
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)n + 1, fmt, ap);
    va_end(ap);
  }
  *err = msg;
  return 1;
}

int tgt_fail_llvm(char **err, const char *what, char *llvm_msg) {
  tgt_fail(err, "%s: %s", what, llvm_msg ? llvm_msg : "unknown error");
  if (llvm_msg) LLVMDisposeMessage(llvm_msg);
  return 1;
}

int tgt_fail_error(char **err, const char *what, LLVMErrorRef e) {
  char *msg = LLVMGetErrorMessage(e);   /* LLVM's new[]: not for LLVMDisposeMessage */
  tgt_fail(err, "%s: %s", what, msg ? msg : "unknown error");
  if (msg) LLVMDisposeErrorMessage(msg);
  return 1;
}

LLVMValueRef tgt_pure_asm(LLVMBuilderRef b, LLVMTypeRef ret, const char *text,
                          const char *constraints, LLVMValueRef *args, unsigned n) {
  LLVMTypeRef params[8];
  for (unsigned i = 0; i < n && i < 8; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef ft = LLVMFunctionType(ret, params, n < 8 ? n : 8, 0);
  LLVMValueRef code = LLVMGetInlineAsm(ft, text, strlen(text), constraints,
                                       strlen(constraints), 0, 0, LLVMInlineAsmDialectATT, 0);
  LLVMValueRef call = LLVMBuildCall2(b, ft, code, args, n < 8 ? n : 8, "");
  LLVMContextRef ctx = LLVMGetTypeContext(ret);
  static const char *const attrs[] = {"nounwind", "memory"};  /* memory: 0 is none */
  for (int i = 0; i < 2; i++) {
    unsigned kind = LLVMGetEnumAttributeKindForName(attrs[i], strlen(attrs[i]));
    LLVMAddCallSiteAttribute(call, LLVMAttributeFunctionIndex,
                             LLVMCreateEnumAttribute(ctx, kind, 0));
  }
  return call;
}

/* ---- LLVM's fatal errors ----------------------------------------------------------
 * A few failures deep in LLVM (a code generator that cannot select an instruction for
 * some IR) end in report_fatal_error, which calls the installed handler and then ends
 * the process: LLVM offers no way back to the caller from there. The front end refuses
 * what it knows a target cannot do (docs/cli.md: intrinsics by arch), so reaching this
 * is a kcc bug; the handler says so, with what kcc was doing, instead of LLVM's bare
 * "LLVM ERROR:" line. It writes with write(2) from a fixed buffer: nothing here may
 * allocate or take a lock, the process may be in any state. */
static _Thread_local char tgt_doing[256];

void tgt_set_stage(const char *stage, LLVMModuleRef m) {
  if (!stage) {
    tgt_doing[0] = '\0';
    return;
  }
  size_t len = 0;
  const char *name = m ? LLVMGetModuleIdentifier(m, &len) : NULL;
  snprintf(tgt_doing, sizeof tgt_doing, "%s (module '%.*s')", stage,
           name ? (int)(len < 160 ? len : 160) : 0, name ? name : "");
}

static void tgt_write(const char *s) {
  size_t n = strlen(s);
  while (n > 0) {
    ssize_t w = write(STDERR_FILENO, s, n);
    if (w <= 0) return;
    s += w;
    n -= (size_t)w;
  }
}

static void tgt_fatal_handler(const char *reason) {
  tgt_write("kcc: internal compiler error: LLVM stopped");
  if (tgt_doing[0]) {
    tgt_write(" while ");
    tgt_write(tgt_doing);
  }
  tgt_write(": ");
  tgt_write(reason ? reason : "no reason given");
  tgt_write("\nkcc: this is a bug in kcc, not in the kernel: please report it with the .k "
            "file and the kcc command line (kcc --version). LLVM cannot continue after "
            "this error, so the process ends here.\n");
}

static pthread_once_t tgt_handler_once = PTHREAD_ONCE_INIT;
static void tgt_install(void) { LLVMInstallFatalErrorHandler(tgt_fatal_handler); }

void tgt_install_fatal_handler(void) { pthread_once(&tgt_handler_once, tgt_install); }

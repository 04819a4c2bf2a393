/*
 * target_common.c — what both targets (target_nvptx.c, target_host.c) share: turning a
 * failure, or LLVM's own message for it, into the malloc'd text their callers report.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

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
  return tgt_fail_llvm(err, what, LLVMGetErrorMessage(e));
}

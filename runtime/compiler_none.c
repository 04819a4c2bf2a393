/*
 * compiler_none.c — no compiler (rt_compiler.h). Linked into libkcrt only, the runtime
 * for programs whose kernels were compiled ahead of time (kcc compile, --emit=header):
 * it needs no LLVM.
 */
#include "rt_compiler.h"

const rt_compiler *rt_compiler_get(void) {
  return NULL;
}

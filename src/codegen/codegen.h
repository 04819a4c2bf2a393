/*
 * codegen.h — typed program (sema.h) -> LLVM IR, for the NVPTX or the host target.
 * Target-specific pieces (thread indices, barriers, math, kernel entry points) are
 * chosen by opts->target; everything else is shared.
 */
#ifndef KCC_CODEGEN_H
#define KCC_CODEGEN_H

#include <llvm-c/Core.h>

#include "sema.h"

/* Build the module for p into ctx. Kernels' entry symbols are the instances'
 * symbol_name (NVPTX) or symbol_name + "__block" / "__thread" (host). Returns the
 * number of errors (internal failures are reported to d). *static_shared receives the
 * bytes of static shared memory a block needs. */
int cg_program(arena *a, diag_sink *d, program *p, const kcc_options *opts,
               LLVMContextRef ctx, const char *module_name, LLVMModuleRef *out,
               size_t *static_shared);

/* The user's function names against kcc's own (cg_names.c): a reserved name, or one
 * LLVM had to rename because kcc's code took it too (f__float32 beside f specialised
 * for float32), is an error at the user's def; a kernel named '_' too on NVPTX.
 * Returns the number of errors. */
int cg_check_names(diag_sink *d, const program *p, LLVMModuleRef m, bool nvptx);

#endif

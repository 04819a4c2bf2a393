/*
 * cg_target.h — what code generation does differently for its two targets, behind one
 * interface: the infrastructure every function and kernel stands on, as opposed to
 * the meaning of a builtin (a family's lowering and lower_host, src/builtins/).
 *
 *   cg_target_nvptx (cg_nvptx.c): special registers are PTX's, memory lives in
 *     address spaces (global 1, shared 3, constant 4; generic pointers 0), print is
 *     vprintf, and each kernel is one ptx_kernel entry point with flat parameters.
 *   cg_target_host (cg_host.c): every function takes hidden (blk, tx, ty, tz)
 *     parameters, from which indices are read and through which the CPU executor is
 *     called (kc_cpu_block, host_abi.h); one address space; print is printf; each
 *     kernel gets K__thread and K__block entry points.
 *
 * cg_program picks one (g->target) before generating anything; codegen.c and the
 * families call through it. They test which one they have only to choose a builtin's
 * lowering (host), and in cg_math.c's cg_math_call, where a function is libdevice's
 * __nv_* on the GPU and libm's (or an LLVM intrinsic) on the CPU. The members build instructions at g->b's position, in
 * the order the pre-interface code did: LLVM numbers values in build order, and the
 * generated IR is pinned (scripts/ir_snapshot.sh).
 */
#ifndef KCC_CG_TARGET_H
#define KCC_CG_TARGET_H

#include <stdbool.h>
#include <stddef.h>

#include <llvm-c/Core.h>

#include "sema.h"

typedef struct cg_ctx cg_ctx;

typedef struct cg_target {
  const char *name;          /* "nvptx", "host" */
  bool host;                 /* the CPU back end: builtins' lower_host apply */
  unsigned const_addrspace;  /* where read-only globals live (NVPTX 4, host 0) */
  /* the most bytes of them one module may hold (the GPU's 64 KiB constant bank; 0: no
     limit), and where read-only data that need not be fast lives instead (print's
     strings: NVPTX 1, .global, as nvcc puts them; host 0) */
  unsigned long long const_limit;
  unsigned string_addrspace;

  /* -- functions: every generated function starts with hidden_count parameters -- */
  unsigned hidden_count;
  /* their types, into pt[0 .. hidden_count) */
  void (*hidden_param_types)(cg_ctx *g, LLVMTypeRef *pt);
  /* on entry to g->fn: take the hidden parameters (g->blk, g->tid) */
  void (*enter_function)(cg_ctx *g);
  /* at a call from g->fn: the hidden arguments, into args[0 .. hidden_count) */
  void (*hidden_args)(cg_ctx *g, LLVMValueRef *args);
  /* attributes the target gives the LLVM function fn of instance f */
  void (*function_attrs)(cg_ctx *g, fn_instance *f, LLVMValueRef fn);
  /* a recursion went deeper than the target allows (codegen.c, depth_check): the launch
     fails with message and the thread ends; never returns. NULL: no limit (the GPU's
     own stack limit faults the launch) */
  void (*recursion_exceeded)(cg_ctx *g, const char *message);

  /* -- thread indices: which 0 threadIdx, 1 blockIdx, 2 blockDim, 3 gridDim; axis 0..2 -- */
  LLVMValueRef (*special_reg)(cg_ctx *g, int which, int axis);
  LLVMValueRef (*laneid)(cg_ctx *g);      /* the thread's lane in its warp, 0..31 */

  /* -- memory -- */
  /* a generic pointer (address space 0) to the global gv, made in the target's space */
  LLVMValueRef (*generic_ptr)(cg_ctx *g, LLVMValueRef gv);
  /* a static shared array of LLVM type at (bytes long): its generic data pointer */
  LLVMValueRef (*shared_array)(cg_ctx *g, LLVMTypeRef at, size_t bytes);
  /* the launch's dynamic shared memory: its data pointer and size in bytes (i64) */
  void (*dynamic_shared)(cg_ctx *g, LLVMValueRef *data, LLVMValueRef *bytes);
  /* bounds checking: the kc_kernel_error record (host_abi.h) a failed check fills,
     and the 16-byte scratch slot the failed access is redirected to */
  LLVMValueRef (*error_record)(cg_ctx *g);
  LLVMValueRef (*error_scratch)(cg_ctx *g);
  /* end the calling thread (it raised: cg_checks.c), closing the block with
     `unreachable` */
  void (*thread_exit)(cg_ctx *g);
  /* at a loop's back edge (NULL: nothing to do): the host target ends the thread when
     its launch is being stopped (the watchdog: host_abi.h's stop and cancel); the GPU
     cannot be asked, so NVPTX has none */
  void (*loop_check)(cg_ctx *g);

  /* -- output: printf(fmt, vals[0 .. n)), vals already promoted as C varargs are -- */
  void (*printf_call)(cg_ctx *g, LLVMValueRef fmt, LLVMValueRef *vals, int n);

  /* -- the entry points of kernel f, whose body f->cg is generated -- */
  void (*gen_entries)(cg_ctx *g, fn_instance *f);
} cg_target;

extern const cg_target cg_target_nvptx;   /* cg_nvptx.c */
extern const cg_target cg_target_host;    /* cg_host.c */

/* The host target's kc_cpu_block, for the families' CPU lowerings (cg_host.c): the
 * field at byte offset off of the block (host_abi.h's KC_CPU_BLOCK_OFF_*), and the
 * executor's blk->collective(blk, op, mask, value, arg, site) as an i64 (mask, value,
 * arg NULL: all lanes, 0, 0). */
LLVMValueRef cg_blk_load(cg_ctx *g, int off, LLVMTypeRef t, const char *name);
LLVMValueRef cg_host_collective(cg_ctx *g, unsigned op, LLVMValueRef mask, LLVMValueRef value,
                                LLVMValueRef arg, span sp);
/* Integer arrays a kernel only adds to with atomics, counted per worker (host_private.c):
 * for an atomic on arr, an i1 true when arr is counted privately now (a plain
 * read-modify-write will do), or NULL when it never is; and for the entry points, the
 * data pointer of kernel f's parameter i to use (data, or the worker's copy). */
LLVMValueRef cg_host_private_flag(cg_ctx *g, const node *arr);
LLVMValueRef cg_host_private_data(cg_ctx *g, const fn_instance *f, int i, LLVMValueRef blk,
                                  LLVMValueRef data);

#endif

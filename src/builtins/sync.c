/*
 * sync.c — synchronisation: cuda.syncthreads and its reducing forms
 * syncthreads_count/and/or, the memory fences threadfence(_block, _system) and
 * cuda.nanosleep. On the CPU back end a barrier is a call into the executor, which
 * runs the threads of a block that reaches one as fibers (host_abi.h).
 */
#include <stdio.h>

#include "builtin.h"
#include "cg.h"
#include "host_abi.h"
#include "typing.h"

/* ---- typing ---- */

/* syncthreads(), the fences: no value. */
static const type *ix_no_value(infer_ctx *ic, node *e, const builtin *b) {
  (void)ic, (void)b;
  return ix_set_type(e, &ty_void, false);
}

/* syncthreads_count/and/or(pred): a barrier that also reduces a predicate; int32. */
static const type *ix_block_collective(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e) || !ix_need_real(ic, e->list.items[0], builtin_user_name(b))) return NULL;
  return ix_set_type(e, &ty_i32, false);
}

/* nanosleep(ns): ns an integer, taken as uint32 (Numba's signature); no value. PTX has
 * nanosleep from sm_70 on (the row's min_sm). */
static const type *ix_nanosleep(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return NULL;
  if (!ix_need_int(ic, e->list.items[0], builtin_user_name(b), "number of nanoseconds"))
    return NULL;
  return ix_set_type(e, &ty_void, false);
}

/* ---- lowering ---- */

static LLVMValueRef cg_barrier(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  /* LLVM 20 renamed bar.sync 0's intrinsic; take whichever this LLVM has */
  static const char cta[] = "llvm.nvvm.barrier.cta.sync.aligned.all";
  if (LLVMLookupIntrinsicID(cta, sizeof cta - 1)) {
    LLVMValueRef zero = ci32(g, 0);
    cg_call_intrinsic(g, cta, NULL, &zero, 1);
  } else {
    cg_call_intrinsic(g, "llvm.nvvm.barrier0", NULL, NULL, 0);
  }
  return NULL;
}

/* The CPU: blk->barrier(blk, site), site the source position for deadlock reports. */
static LLVMValueRef cg_barrier_host(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef fp = cg_blk_load(g, KC_CPU_BLOCK_OFF_BARRIER, g->ptr, "barrier");
  LLVMTypeRef pt[2] = {g->ptr, g->i32};
  LLVMTypeRef ft = LLVMFunctionType(g->voidt, pt, 2, 0);
  LLVMValueRef args[2] = {g->blk, ci32(g, (e->sp.line << 16) | (e->sp.col & 0xffff))};
  LLVMBuildCall2(g->b, ft, fp, args, 2, "");
  return NULL;
}

/* syncthreads_count/and/or(pred): int32; name is the PTX reduction (popc, and, or). */
static LLVMValueRef cg_block_collective(cg_ctx *g, node *e, const builtin *b) {
  node *a = e->list.items[0];
  LLVMValueRef pred = cg_to_bool(g, cg_expr(g, a), a->ty);
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.barrier.cta.red.%s.aligned.all", b->name);
  LLVMValueRef r;
  if (cg_have_intrinsic(name)) {
    LLVMValueRef args[2] = {ci32(g, 0), pred};
    r = cg_call_intrinsic(g, name, NULL, args, 2);
  } else {  /* LLVM before 20 */
    snprintf(name, sizeof name, "llvm.nvvm.barrier0.%s", b->name);
    LLVMValueRef p32 = LLVMBuildZExt(g->b, pred, g->i32, "");
    r = cg_call_intrinsic(g, name, NULL, &p32, 1);
  }
  return LLVMTypeOf(r) == g->i32 ? r : LLVMBuildZExt(g->b, r, g->i32, "");
}

/* The CPU: the executor's collective op (the row's op, a KC_COLL_SYNC_* code). */
static LLVMValueRef cg_block_collective_host(cg_ctx *g, node *e, const builtin *b) {
  node *a = e->list.items[0];
  LLVMValueRef pred = cg_to_bool(g, cg_expr(g, a), a->ty);
  LLVMValueRef r = cg_host_collective(g, (unsigned)b->op, NULL,
                                      LLVMBuildZExt(g->b, pred, g->i64, ""), NULL, e->sp);
  return LLVMBuildTrunc(g->b, r, g->i32, "");
}

/* name: the PTX membar intrinsic for the fence's scope */
static LLVMValueRef cg_fence(cg_ctx *g, node *e, const builtin *b) {
  (void)e;
  cg_call_intrinsic(g, b->name, NULL, NULL, 0);
  return NULL;
}

/* The CPU: the threads of all blocks share one memory, so every scope is a full fence. */
static LLVMValueRef cg_fence_host(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
  return NULL;
}

/* nanosleep(ns): PTX nanosleep.u32 on the GPU, which sleeps between 0 and 2 * ns
 * nanoseconds. */
static LLVMValueRef cg_nanosleep(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef ns = cg_expr_as(g, e->list.items[0], &ty_u32);
  cg_call_intrinsic(g, "llvm.nvvm.nanosleep", NULL, &ns, 1);
  return NULL;
}

/* The CPU sleeps 0 (in that range; a system call per thread would cost far more than
 * ns), but keeps the call's other effect: memory is read again after it, so a loop
 * that polls memory and sleeps polls there too (a fence for this thread only, which
 * orders nothing in hardware). */
static LLVMValueRef cg_nanosleep_host(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  cg_expr_as(g, e->list.items[0], &ty_u32);
  LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, 1, "");
  return NULL;
}

const builtin builtins_sync[] = {
  {.path = "numba.cuda.syncthreads", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .flags = BF_BARRIER, .typing = ix_no_value, .lower = cg_barrier,
   .lower_host = cg_barrier_host},
  {.path = "numba.cuda.syncthreads_count", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_BARRIER | BF_COLLECTIVE, .op = KC_COLL_SYNC_COUNT, .name = "popc",
   .typing = ix_block_collective, .lower = cg_block_collective,
   .lower_host = cg_block_collective_host},
  {.path = "numba.cuda.syncthreads_and", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_BARRIER | BF_COLLECTIVE, .op = KC_COLL_SYNC_AND, .name = "and",
   .typing = ix_block_collective, .lower = cg_block_collective,
   .lower_host = cg_block_collective_host},
  {.path = "numba.cuda.syncthreads_or", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_BARRIER | BF_COLLECTIVE, .op = KC_COLL_SYNC_OR, .name = "or",
   .typing = ix_block_collective, .lower = cg_block_collective,
   .lower_host = cg_block_collective_host},
  {.path = "numba.cuda.threadfence", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .name = "llvm.nvvm.membar.gl", .typing = ix_no_value, .lower = cg_fence,
   .lower_host = cg_fence_host},
  {.path = "numba.cuda.threadfence_block", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .name = "llvm.nvvm.membar.cta", .typing = ix_no_value, .lower = cg_fence,
   .lower_host = cg_fence_host},
  {.path = "numba.cuda.threadfence_system", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .name = "llvm.nvvm.membar.sys", .typing = ix_no_value, .lower = cg_fence,
   .lower_host = cg_fence_host},
  {.path = "numba.cuda.nanosleep", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .min_sm = 70, .min_ptx = 63, .typing = ix_nanosleep, .lower = cg_nanosleep,
   .lower_host = cg_nanosleep_host},
  {NULL},
};

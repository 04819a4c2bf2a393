/*
 * coop.c — cooperative groups: cuda.cg.this_grid() and its grid group's sync(), the
 * barrier of every thread of every block, as Numba-CUDA has them (numba/cuda/cg.py:
 * this_grid() a GridGroup, g.sync() an int32 status, 0).
 *
 * Numba links cudadevrt and calls cudaCGSynchronize; kcc links no cudadevrt, so the
 * GPU barrier is written here: CUDA's own scheme, one 32-bit arrival counter in a
 * module global whose top bit flips once per barrier (block 0 adds 2^31 - (blocks - 1),
 * every other block 1, so the bits below stay as they were and no reset is needed). It
 * is only correct when every block is resident at once, which the cooperative launch
 * guarantees: the kernel is marked (fn_instance.uses_grid_sync -> the kernel table's
 * "cooperative") and runtime/cuda/launch.c launches it with cuLaunchCooperativeKernel
 * after checking that the grid fits. The CPU back end runs every block of such a launch at
 * once (runtime/cpu/coop.c) and meets them at KC_COLL_GRID_SYNC.
 */
#include "builtin.h"
#include "cg.h"
#include "host_abi.h"
#include "typing.h"

#define GRID_SYNC_COUNTER "__kcc_grid_sync"
#define NVPTX_AS_GLOBAL 1

/* ---- typing ---- */

/* cuda.cg.this_grid(): the grid group. A kernel that takes it is launched
 * cooperatively, as Numba launches one (its overload.cooperative), sync or not. */
static const type *ix_this_grid(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  ic->cur->uses_grid_sync = true;
  return ix_set_type(e, &ty_grid_group, false);
}

/* g.sync(): a grid-wide barrier; int32 (cudaCGSynchronize's status, always 0). The
 * kernel that reaches it, through any device function, is launched cooperatively. */
static const type *ix_grid_sync(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;   /* BF_GROUP: infer.c's ix_method has checked the receiver */
  ic->cur->uses_grid_sync = true;
  return ix_set_type(e, &ty_i32, false);
}

/* ---- lowering ---- */

static LLVMValueRef cg_this_grid(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  return ci64(g, 0);
}

/* bar.sync 0, by whichever name this LLVM has (as sync.c's cuda.syncthreads). */
static void block_barrier(cg_ctx *g) {
  static const char cta[] = "llvm.nvvm.barrier.cta.sync.aligned.all";
  if (cg_have_intrinsic(cta)) {
    LLVMValueRef zero = ci32(g, 0);
    cg_call_intrinsic(g, cta, NULL, &zero, 1);
  } else {
    cg_call_intrinsic(g, "llvm.nvvm.barrier0", NULL, NULL, 0);
  }
}

/* x == 0 && y == 0 && z == 0 of a special register (0 threadIdx, 1 blockIdx). */
static LLVMValueRef first_of(cg_ctx *g, int which) {
  LLVMValueRef r = NULL;
  for (int a = 0; a < 3; a++) {
    LLVMValueRef z = LLVMBuildICmp(g->b, LLVMIntEQ, cg_special_reg(g, which, a), ci32(g, 0), "");
    r = r ? LLVMBuildAnd(g->b, r, z, "") : z;
  }
  return r;
}

/* The arrival counter, a zero-initialised module global. */
static LLVMValueRef grid_counter(cg_ctx *g) {
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, GRID_SYNC_COUNTER);
  if (!gv) {
    gv = LLVMAddGlobalInAddressSpace(g->m, g->i32, GRID_SYNC_COUNTER, NVPTX_AS_GLOBAL);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetInitializer(gv, LLVMConstNull(g->i32));
    LLVMSetAlignment(gv, 4);
  }
  return gv;
}

/* Thread (0, 0, 0) of each block arrives for its block, after a fence that publishes
 * the block's writes, and polls until the top bit flips; the block barriers around
 * it hold the block's other threads. */
static void master_arrives(cg_ctx *g) {
  LLVMValueRef counter = grid_counter(g);
  LLVMValueRef blocks = cg_special_reg(g, 3, 0);
  blocks = LLVMBuildMul(g->b, blocks, cg_special_reg(g, 3, 1), "");
  blocks = LLVMBuildMul(g->b, blocks, cg_special_reg(g, 3, 2), "");
  LLVMValueRef lead = LLVMBuildSub(g->b, ci32(g, (long long)0x80000000u),
                                   LLVMBuildSub(g->b, blocks, ci32(g, 1), ""), "");
  LLVMValueRef add = LLVMBuildSelect(g->b, first_of(g, 1), lead, ci32(g, 1), "grid.add");
  cg_call_intrinsic(g, "llvm.nvvm.membar.gl", NULL, NULL, 0);
  LLVMValueRef old = LLVMBuildAtomicRMW(g->b, LLVMAtomicRMWBinOpAdd, counter, add,
                                        LLVMAtomicOrderingMonotonic, 0);
  LLVMBasicBlockRef poll = cg_new_bb(g, "grid.poll"), done = cg_new_bb(g, "grid.passed");
  LLVMBuildBr(g->b, poll);
  LLVMPositionBuilderAtEnd(g->b, poll);
  LLVMValueRef now = LLVMBuildLoad2(g->b, g->i32, counter, "grid.now");
  LLVMSetVolatile(now, 1);
  LLVMValueRef flipped = LLVMBuildAnd(g->b, LLVMBuildXor(g->b, old, now, ""),
                                      ci32(g, (long long)0x80000000u), "");
  LLVMValueRef passed = LLVMBuildICmp(g->b, LLVMIntNE, flipped, ci32(g, 0), "");
  LLVMBasicBlockRef wait = cg_new_bb(g, "grid.wait");
  LLVMBuildCondBr(g->b, passed, done, wait);
  LLVMPositionBuilderAtEnd(g->b, wait);
  if (g->opts->arch >= 70) {   /* back off: nanosleep is sm_70's */
    LLVMValueRef ns = ci32(g, 32);
    cg_call_intrinsic(g, "llvm.nvvm.nanosleep", NULL, &ns, 1);
  }
  LLVMBuildBr(g->b, poll);
  LLVMPositionBuilderAtEnd(g->b, done);
  cg_call_intrinsic(g, "llvm.nvvm.membar.gl", NULL, NULL, 0);
}

static LLVMValueRef cg_grid_sync(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  cg_expr(g, e->a->a);
  block_barrier(g);
  LLVMBasicBlockRef arrive = cg_new_bb(g, "grid.arrive"), after = cg_new_bb(g, "grid.after");
  LLVMBuildCondBr(g->b, first_of(g, 0), arrive, after);
  LLVMPositionBuilderAtEnd(g->b, arrive);
  master_arrives(g);
  LLVMBuildBr(g->b, after);
  LLVMPositionBuilderAtEnd(g->b, after);
  block_barrier(g);
  return ci32(g, 0);
}

/* The CPU: the executor's grid barrier (every block of the launch runs at once). */
static LLVMValueRef cg_grid_sync_host(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  cg_expr(g, e->a->a);
  cg_host_collective(g, KC_COLL_GRID_SYNC, NULL, NULL, NULL, e->sp);
  return ci32(g, 0);
}

const builtin builtins_coop[] = {
  {.path = "numba.cuda.cg", .kind = BK_MODULE},
  {.path = "numba.cuda.cg.this_grid", .kind = BK_FUNCTION, .min_args = 0, .max_args = 0,
   .typing = ix_this_grid, .lower = cg_this_grid},
  /* sm_60: cooperative launch needs Pascal or later */
  {.path = ".sync", .kind = BK_METHOD, .min_args = 0, .max_args = 0, .min_sm = 60,
   .flags = BF_GROUP | BF_BARRIER, .typing = ix_grid_sync, .lower = cg_grid_sync,
   .lower_host = cg_grid_sync_host},
  {NULL},
};

/*
 * threads.c — the thread's place in the grid: cuda.threadIdx/blockIdx/blockDim/gridDim
 * .x/.y/.z (the special registers), cuda.laneid, cuda.warpsize, cuda.grid(n) and
 * cuda.gridsize(n). On the CPU back end the registers are read from the executor's
 * block record and the hidden thread-index parameters (cg_special_reg).
 */
#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* ---- typing ---- */

/* The registers are int32, as Numba types them. */
static const type *ix_register(infer_ctx *ic, node *e, const builtin *b) {
  (void)ic, (void)b;
  return ix_set_type(e, &ty_i32, false);
}

/* cuda.grid(n), cuda.gridsize(n): int32 for n = 1, else a tuple of n of them. */
static const type *ix_grid(infer_ctx *ic, node *e, const builtin *b) {
  int64_t nd;
  if (!ix_const_int(ic, e->list.items[0], &nd) || nd < 1 || nd > 3) {
    ix_error(ic, e->list.items[0]->sp, "%s takes a constant 1, 2 or 3", builtin_user_name(b));
    return NULL;
  }
  e->list.items[0]->ty = &ty_i64;
  if (nd == 1) return ix_set_type(e, &ty_i32, false);
  const type *el[3] = {&ty_i32, &ty_i32, &ty_i32};
  return ix_set_type(e, type_tuple(ic->ar, el, (int)nd), false);
}

/* ---- lowering ---- */

/* op: which register (0 threadIdx, 1 blockIdx, 2 blockDim, 3 gridDim) * 3 + axis */
static LLVMValueRef cg_register(cg_ctx *g, node *e, const builtin *b) {
  (void)e;
  return cg_special_reg(g, b->op / 3, b->op % 3);
}

static LLVMValueRef cg_lane(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  return cg_laneid(g);
}

static LLVMValueRef cg_warpsize(cg_ctx *g, node *e, const builtin *b) {
  (void)e, (void)b;
  return ci32(g, 32);
}

/* cuda.grid / cuda.gridsize on one axis. The runtime refuses launches whose grid x block
 * reaches 2^31 on an axis, so these never overflow int32: saying so (nsw, nuw) lets LLVM
 * see indices as non-negative, drop the negative-index wrap and vectorise. A global
 * index is below the grid's thread count, so at most 2^31 - 2: an assumption says that
 * too, so that `i + 1` provably does not wrap and `a[i + 1]` needs no negative-index
 * wrap either (the mul and add alone only bound the index by 2^31 - 1). On the CPU back
 * end the assumption is dropped after the first optimisation round (host_guards.c). */
static LLVMValueRef grid_axis(cg_ctx *g, int axis, bool size) {
  LLVMValueRef a = cg_special_reg(g, size ? 2 : 1, axis), b = cg_special_reg(g, size ? 3 : 2, axis);
  LLVMValueRef v = LLVMBuildMul(g->b, a, b, "");
  LLVMSetNUW(v, 1);
  LLVMSetNSW(v, 1);
  if (!size) {
    v = LLVMBuildAdd(g->b, v, cg_special_reg(g, 0, axis), "");
    LLVMSetNUW(v, 1);
    LLVMSetNSW(v, 1);
    if (g->opts->opt_level > 0) { /* nothing reads it at -O0 */
      LLVMValueRef below = LLVMBuildICmp(g->b, LLVMIntULT, v, ci32(g, 0x7fffffff), "");
      cg_call_intrinsic(g, "llvm.assume", NULL, &below, 1);
    }
  }
  return v;
}

/* op: 0 cuda.grid, 1 cuda.gridsize */
static LLVMValueRef cg_grid(cg_ctx *g, node *e, const builtin *b) {
  bool size = b->op;
  const type *t = e->ty;
  if (t->kind != TY_TUPLE) return grid_axis(g, 0, size);
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, t));
  for (int i = 0; i < t->nelems; i++)
    agg = LLVMBuildInsertValue(g->b, agg, grid_axis(g, i, size), (unsigned)i, "");
  return agg;
}

const builtin builtins_threads[] = {
  {.path = "numba.cuda.threadIdx", .kind = BK_MODULE},
  {.path = "numba.cuda.blockIdx", .kind = BK_MODULE},
  {.path = "numba.cuda.blockDim", .kind = BK_MODULE},
  {.path = "numba.cuda.gridDim", .kind = BK_MODULE},
  {.path = "numba.cuda.threadIdx.x", .kind = BK_VALUE, .flags = BF_THREAD_INDEX,
   .op = 3 * 0 + 0, .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.threadIdx.y", .kind = BK_VALUE, .flags = BF_THREAD_INDEX,
   .op = 3 * 0 + 1, .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.threadIdx.z", .kind = BK_VALUE, .flags = BF_THREAD_INDEX,
   .op = 3 * 0 + 2, .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.blockIdx.x", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 1 + 0,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.blockIdx.y", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 1 + 1,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.blockIdx.z", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 1 + 2,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.blockDim.x", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 2 + 0,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.blockDim.y", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 2 + 1,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.blockDim.z", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 2 + 2,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.gridDim.x", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 3 + 0,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.gridDim.y", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 3 + 1,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.gridDim.z", .kind = BK_VALUE, .flags = BF_UNIFORM, .op = 3 * 3 + 2,
   .typing = ix_register, .lower = cg_register},
  {.path = "numba.cuda.laneid", .kind = BK_VALUE, .flags = BF_THREAD_INDEX,
   .typing = ix_register, .lower = cg_lane},
  {.path = "numba.cuda.warpsize", .kind = BK_VALUE, .flags = BF_UNIFORM, .typing = ix_register,
   .lower = cg_warpsize},
  {.path = "numba.cuda.grid", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_THREAD_INDEX, .typing = ix_grid, .lower = cg_grid},
  {.path = "numba.cuda.gridsize", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_UNIFORM, .op = 1, .typing = ix_grid, .lower = cg_grid},
  {NULL},
};

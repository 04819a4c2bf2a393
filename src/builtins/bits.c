/*
 * bits.c — integer bit operations and the arithmetic intrinsics of cuda: popc, brev,
 * clz, ffs, fma and selp. Each is an LLVM intrinsic (or a select) on both targets.
 */
#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* op of this family's rows */
enum { BIT_POPC, BIT_BREV, BIT_CLZ, BIT_FFS };

/* ---- typing ---- */

/* popc, clz: the argument's integer type; brev: uint32 or uint64; ffs: uint32. */
static const type *ix_bit_op(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!a->ty || a->ty->kind != TY_INT) {
    if (a->ty)
      ix_error(ic, a->sp, "%s needs an integer, not %s", builtin_user_name(b), ix_tname(ic, a->ty));
    return NULL;
  }
  if (b->op == BIT_FFS) return ix_set_type(e, &ty_u32, false);
  if (b->op == BIT_BREV) return ix_set_type(e, a->ty->bits > 32 ? &ty_u64 : &ty_u32, false);
  return ix_set_type(e, a->ty, false);
}

/* Three real arguments, typed. */
static bool three_reals(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return false;
  for (int i = 0; i < 3; i++)
    if (!ix_need_real(ic, e->list.items[i], builtin_user_name(b))) return false;
  return true;
}

/* fma(a, b, c): float32 when all are float32, else float64. */
static const type *ix_fma(infer_ctx *ic, node *e, const builtin *b) {
  if (!three_reals(ic, e, b)) return NULL;
  node *x = e->list.items[0], *y = e->list.items[1], *z = e->list.items[2];
  bool w;
  const type *t = ix_promote(x->ty, x->weak, x, y->ty, y->weak, y, &w);
  t = ix_promote(t, w, NULL, z->ty, z->weak, z, &w);
  return ix_set_type(e, t->kind == TY_FLOAT ? t : &ty_f64, false);
}

/* selp(c, a, b): a and b promoted. */
static const type *ix_selp(infer_ctx *ic, node *e, const builtin *b) {
  if (!three_reals(ic, e, b)) return NULL;
  node *x = e->list.items[1], *y = e->list.items[2];
  bool w;
  const type *t = ix_promote(x->ty, x->weak, x, y->ty, y->weak, y, &w);
  return ix_set_type(e, t, w);
}

/* ---- lowering ---- */

/* popc, clz, brev, ffs (1-based index of the lowest set bit, 0 for 0). */
static LLVMValueRef cg_bit_op(cg_ctx *g, node *e, const builtin *b) {
  node *a = e->list.items[0];
  const type *t = b->op == BIT_BREV ? e->ty : a->ty;
  LLVMValueRef v = cg_expr_as(g, a, t);
  LLVMTypeRef lt = LLVMTypeOf(v);
  LLVMValueRef no[2] = {v, LLVMConstInt(g->i1, 0, 0)};
  switch (b->op) {
  case BIT_POPC: return cg_call_intrinsic(g, "llvm.ctpop", lt, &v, 1);
  case BIT_BREV: return cg_call_intrinsic(g, "llvm.bitreverse", lt, &v, 1);
  case BIT_CLZ: return cg_call_intrinsic(g, "llvm.ctlz", lt, no, 2);
  default: {
    LLVMValueRef tz = cg_call_intrinsic(g, "llvm.cttz", lt, no, 2);
    LLVMValueRef pos = LLVMBuildAdd(g->b, tz, LLVMConstInt(lt, 1, 0), "");
    LLVMValueRef zero = LLVMBuildICmp(g->b, LLVMIntEQ, v, LLVMConstNull(lt), "");
    pos = LLVMBuildSelect(g->b, zero, LLVMConstNull(lt), pos, "");
    if (t->bits == 32) return pos;
    return t->bits > 32 ? LLVMBuildTrunc(g->b, pos, g->i32, "") : LLVMBuildZExt(g->b, pos, g->i32, "");
  }
  }
}

static LLVMValueRef cg_fma(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  const type *t = e->ty;
  LLVMValueRef args[3];
  for (int i = 0; i < 3; i++) args[i] = cg_expr_as(g, e->list.items[i], t);
  return cg_call_intrinsic(g, "llvm.fma", cg_scalar_type(g, t), args, 3);
}

static LLVMValueRef cg_selp(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  const type *t = e->ty;
  node *c = e->list.items[0];
  LLVMValueRef test = cg_to_bool(g, cg_expr(g, c), c->ty);
  LLVMValueRef x = cg_expr_as(g, e->list.items[1], t), y = cg_expr_as(g, e->list.items[2], t);
  return LLVMBuildSelect(g->b, test, x, y, "");
}

const builtin builtins_bits[] = {
  {.path = "numba.cuda.popc", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .op = BIT_POPC, .typing = ix_bit_op, .lower = cg_bit_op},
  {.path = "numba.cuda.brev", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .op = BIT_BREV, .typing = ix_bit_op, .lower = cg_bit_op},
  {.path = "numba.cuda.clz", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .op = BIT_CLZ, .typing = ix_bit_op, .lower = cg_bit_op},
  {.path = "numba.cuda.ffs", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .op = BIT_FFS, .typing = ix_bit_op, .lower = cg_bit_op},
  {.path = "numba.cuda.fma", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_PURE, .typing = ix_fma, .lower = cg_fma},
  {.path = "numba.cuda.selp", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_PURE, .typing = ix_selp, .lower = cg_selp},
  {NULL},
};

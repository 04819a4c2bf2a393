/*
 * fp16.c — cuda.fp16.*: float16 arithmetic (hadd ... hfma), comparisons (heq ... hle)
 * and functions (hsqrt, hexp, hexp10 ...), and their twins in cuda.bf16 on bfloat16 (the
 * rest of cuda.bf16 is bf16.c's). LLVM's half and bfloat types on both targets; the
 * functions that libdevice and libm have only for float32 compute in float32 and round
 * once.
 */
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* ---- typing ---- */

const type *builtin_half_type(const builtin *b) {
  return strncmp(b->path, "numba.cuda.bf16.", 16) == 0 ? &ty_bf16 : &ty_f16;
}

/* Numba's cuda.fp16 functions take float16 values, cuda.bf16's bfloat16 values (a
 * literal adopts the type). */
bool builtin_half_args(infer_ctx *ic, node *e, const builtin *b) {
  const type *ht = builtin_half_type(b);
  const char *fname = builtin_user_name(b);
  if (!ix_args(ic, e)) return false;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (!ix_need_real(ic, a, fname)) return false;
    bool literal = a->weak && a->ty->kind != TY_BOOL;
    if (!literal && !type_equal(a->ty, ht)) {
      ix_error(ic, a->sp, "%s needs %s arguments, not %s (convert with %s(x))", fname,
               ix_tname(ic, ht), ix_tname(ic, a->ty), ix_tname(ic, ht));
      return false;
    }
  }
  return true;
}

const type *ix_half(infer_ctx *ic, node *e, const builtin *b) {
  return builtin_half_args(ic, e, b) ? ix_set_type(e, builtin_half_type(b), false) : NULL;
}

/* heq ... hle: bool */
static const type *ix_fp16_compare(infer_ctx *ic, node *e, const builtin *b) {
  return builtin_half_args(ic, e, b) ? ix_set_type(e, &ty_bool, false) : NULL;
}

/* ---- lowering ---- */

/* The arguments as float16 (bfloat16) values, in order (at most 3: hfma). */
void cg_half_values(cg_ctx *g, node *e, const builtin *b, LLVMValueRef a[3]) {
  for (int i = 0; i < e->list.len && i < 3; i++)
    a[i] = cg_expr_as(g, e->list.items[i], builtin_half_type(b));
}

/* hadd, hsub, hmul, hdiv: op is the operator */
LLVMValueRef cg_half_arith(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  return cg_arith_op(g, (op_kind)b->op, a[0], a[1], builtin_half_type(b));
}

/* heq ... hle: op is the comparison */
static LLVMValueRef cg_fp16_compare(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  return cg_compare_op(g, (op_kind)b->op, a[0], a[1], builtin_half_type(b));
}

/* hmax, hmin, hfma, habs, hrint: name is an LLVM intrinsic on half */
LLVMValueRef cg_half_intrinsic(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  return cg_call_intrinsic(g, b->name, LLVMTypeOf(a[0]), a, (unsigned)e->list.len);
}

static LLVMValueRef cg_hneg(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  return LLVMBuildFNeg(g->b, a[0], "");
}

static LLVMValueRef cg_hrcp(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  return LLVMBuildFDiv(g->b, LLVMConstReal(LLVMTypeOf(a[0]), 1.0), a[0], "");
}

/* hsqrt, hexp ...: name is the math function, computed in float32 */
LLVMValueRef cg_half_math(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  const type *ht = builtin_half_type(b);
  LLVMValueRef f = cg_convert(g, a[0], ht, &ty_f32);
  LLVMValueRef r = cg_math_call(g, b->name, &ty_f32, &f, 1);
  return cg_convert(g, r, &ty_f32, ht);
}

/* hexp10: 10 ** a as powf(10, a) in float32, rounded once (libm and libdevice have no
 * exp10 row in math.c; powf is within an ulp of float32, far inside float16's). */
static LLVMValueRef cg_hexp10(cg_ctx *g, node *e, const builtin *b) {
  const type *ht = builtin_half_type(b);
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  LLVMValueRef args[2] = {LLVMConstReal(g->f32, 10.0), cg_convert(g, a[0], ht, &ty_f32)};
  return cg_convert(g, cg_math_call(g, "pow", &ty_f32, args, 2), &ty_f32, ht);
}

static LLVMValueRef cg_hrsqrt(cg_ctx *g, node *e, const builtin *b) {
  const type *ht = builtin_half_type(b);
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  LLVMValueRef f = cg_convert(g, a[0], ht, &ty_f32);
  LLVMValueRef r = LLVMBuildFDiv(g->b, LLVMConstReal(g->f32, 1.0),
                                 cg_math_call(g, "sqrt", &ty_f32, &f, 1), "");
  return cg_convert(g, r, &ty_f32, ht);
}

/* The functions cuda.fp16 and cuda.bf16 share, under the module path P ("numba.cuda.fp16.") */
#define HALF_ROWS(P) \
  {.path = P "hadd", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_ADD, .typing = ix_half, .lower = cg_half_arith}, \
  {.path = P "hsub", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_SUB, .typing = ix_half, .lower = cg_half_arith}, \
  {.path = P "hmul", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_MUL, .typing = ix_half, .lower = cg_half_arith}, \
  {.path = P "hdiv", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_DIV, .typing = ix_half, .lower = cg_half_arith}, \
  {.path = P "hmax", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .name = "llvm.maxnum", .typing = ix_half, .lower = cg_half_intrinsic}, \
  {.path = P "hmin", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .name = "llvm.minnum", .typing = ix_half, .lower = cg_half_intrinsic}, \
  {.path = P "heq", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_EQ, .typing = ix_fp16_compare, .lower = cg_fp16_compare}, \
  {.path = P "hne", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_NE, .typing = ix_fp16_compare, .lower = cg_fp16_compare}, \
  {.path = P "hgt", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_GT, .typing = ix_fp16_compare, .lower = cg_fp16_compare}, \
  {.path = P "hge", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_GE, .typing = ix_fp16_compare, .lower = cg_fp16_compare}, \
  {.path = P "hlt", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_LT, .typing = ix_fp16_compare, .lower = cg_fp16_compare}, \
  {.path = P "hle", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, \
   .flags = BF_PURE, .op = OP_LE, .typing = ix_fp16_compare, .lower = cg_fp16_compare}, \
  {.path = P "hfma", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3, \
   .flags = BF_PURE, .name = "llvm.fma", .typing = ix_half, .lower = cg_half_intrinsic}, \
  {.path = P "hneg", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .typing = ix_half, .lower = cg_hneg}, \
  {.path = P "habs", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "llvm.fabs", .typing = ix_half, .lower = cg_half_intrinsic}, \
  {.path = P "hsqrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "sqrt", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hrsqrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .typing = ix_half, .lower = cg_hrsqrt}, \
  {.path = P "hrcp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .typing = ix_half, .lower = cg_hrcp}, \
  {.path = P "hexp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "exp", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hexp2", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "exp2", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hexp10", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .typing = ix_half, .lower = cg_hexp10}, \
  {.path = P "hlog", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "log", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hlog2", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "log2", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hlog10", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "log10", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hsin", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "sin", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hcos", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "cos", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hfloor", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "floor", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hceil", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "ceil", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "htrunc", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "trunc", .typing = ix_half, .lower = cg_half_math}, \
  {.path = P "hrint", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, \
   .flags = BF_PURE, .name = "llvm.roundeven", .typing = ix_half, .lower = cg_half_intrinsic},

const builtin builtins_fp16[] = {
  {.path = "numba.cuda.fp16", .kind = BK_MODULE},
  HALF_ROWS("numba.cuda.fp16.")
  HALF_ROWS("numba.cuda.bf16.")
  {NULL},
};

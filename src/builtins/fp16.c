/*
 * fp16.c — cuda.fp16.*: float16 arithmetic (hadd ... hfma), comparisons (heq ... hle)
 * and functions (hsqrt, hexp, hexp10 ...). LLVM's half type on both targets; the functions that
 * libdevice and libm have only for float32 compute in float32 and round once.
 */
#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* ---- typing ---- */

/* Numba's cuda.fp16 functions take float16 values (a literal adopts float16). */
static bool fp16_args(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  if (!ix_args(ic, e)) return false;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (!ix_need_real(ic, a, fname)) return false;
    bool literal = a->weak && a->ty->kind != TY_BOOL;
    if (!literal && !type_equal(a->ty, &ty_f16)) {
      ix_error(ic, a->sp, "%s needs float16 arguments, not %s (convert with float16(x))", fname,
           ix_tname(ic, a->ty));
      return false;
    }
  }
  return true;
}

static const type *ix_fp16(infer_ctx *ic, node *e, const builtin *b) {
  return fp16_args(ic, e, b) ? ix_set_type(e, &ty_f16, false) : NULL;
}

/* heq ... hle: bool */
static const type *ix_fp16_compare(infer_ctx *ic, node *e, const builtin *b) {
  return fp16_args(ic, e, b) ? ix_set_type(e, &ty_bool, false) : NULL;
}

/* ---- lowering ---- */

/* The arguments as float16 values, in order (at most 3: hfma). */
static void fp16_values(cg_ctx *g, node *e, LLVMValueRef a[3]) {
  for (int i = 0; i < e->list.len && i < 3; i++) a[i] = cg_expr_as(g, e->list.items[i], &ty_f16);
}

/* hadd, hsub, hmul, hdiv: op is the operator */
static LLVMValueRef cg_fp16_arith(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  return cg_arith_op(g, (op_kind)b->op, a[0], a[1], &ty_f16);
}

/* heq ... hle: op is the comparison */
static LLVMValueRef cg_fp16_compare(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  return cg_compare_op(g, (op_kind)b->op, a[0], a[1], &ty_f16);
}

/* hmax, hmin, hfma, habs, hrint: name is an LLVM intrinsic on half */
static LLVMValueRef cg_fp16_intrinsic(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  return cg_call_intrinsic(g, b->name, LLVMTypeOf(a[0]), a, (unsigned)e->list.len);
}

static LLVMValueRef cg_hneg(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  return LLVMBuildFNeg(g->b, a[0], "");
}

static LLVMValueRef cg_hrcp(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  return LLVMBuildFDiv(g->b, LLVMConstReal(LLVMTypeOf(a[0]), 1.0), a[0], "");
}

/* hsqrt, hexp ...: name is the math function, computed in float32 */
static LLVMValueRef cg_fp16_math(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  LLVMValueRef f = cg_convert(g, a[0], &ty_f16, &ty_f32);
  LLVMValueRef r = cg_math_call(g, b->name, &ty_f32, &f, 1);
  return cg_convert(g, r, &ty_f32, &ty_f16);
}

/* hexp10: 10 ** a as powf(10, a) in float32, rounded once (libm and libdevice have no
 * exp10 row in math.c; powf is within an ulp of float32, far inside float16's). */
static LLVMValueRef cg_hexp10(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  LLVMValueRef args[2] = {LLVMConstReal(g->f32, 10.0), cg_convert(g, a[0], &ty_f16, &ty_f32)};
  return cg_convert(g, cg_math_call(g, "pow", &ty_f32, args, 2), &ty_f32, &ty_f16);
}

static LLVMValueRef cg_hrsqrt(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef a[3];
  fp16_values(g, e, a);
  LLVMValueRef f = cg_convert(g, a[0], &ty_f16, &ty_f32);
  LLVMValueRef r = LLVMBuildFDiv(g->b, LLVMConstReal(g->f32, 1.0),
                                 cg_math_call(g, "sqrt", &ty_f32, &f, 1), "");
  return cg_convert(g, r, &ty_f32, &ty_f16);
}

const builtin builtins_fp16[] = {
  {.path = "numba.cuda.fp16", .kind = BK_MODULE},
  {.path = "numba.cuda.fp16.hadd", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_ADD, .typing = ix_fp16, .lower = cg_fp16_arith},
  {.path = "numba.cuda.fp16.hsub", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_SUB, .typing = ix_fp16, .lower = cg_fp16_arith},
  {.path = "numba.cuda.fp16.hmul", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_MUL, .typing = ix_fp16, .lower = cg_fp16_arith},
  {.path = "numba.cuda.fp16.hdiv", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_DIV, .typing = ix_fp16, .lower = cg_fp16_arith},
  {.path = "numba.cuda.fp16.hmax", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .name = "llvm.maxnum", .typing = ix_fp16, .lower = cg_fp16_intrinsic},
  {.path = "numba.cuda.fp16.hmin", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .name = "llvm.minnum", .typing = ix_fp16, .lower = cg_fp16_intrinsic},
  {.path = "numba.cuda.fp16.heq", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_EQ, .typing = ix_fp16_compare, .lower = cg_fp16_compare},
  {.path = "numba.cuda.fp16.hne", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_NE, .typing = ix_fp16_compare, .lower = cg_fp16_compare},
  {.path = "numba.cuda.fp16.hgt", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_GT, .typing = ix_fp16_compare, .lower = cg_fp16_compare},
  {.path = "numba.cuda.fp16.hge", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_GE, .typing = ix_fp16_compare, .lower = cg_fp16_compare},
  {.path = "numba.cuda.fp16.hlt", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_LT, .typing = ix_fp16_compare, .lower = cg_fp16_compare},
  {.path = "numba.cuda.fp16.hle", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .op = OP_LE, .typing = ix_fp16_compare, .lower = cg_fp16_compare},
  {.path = "numba.cuda.fp16.hfma", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_PURE, .name = "llvm.fma", .typing = ix_fp16, .lower = cg_fp16_intrinsic},
  {.path = "numba.cuda.fp16.hneg", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .typing = ix_fp16, .lower = cg_hneg},
  {.path = "numba.cuda.fp16.habs", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "llvm.fabs", .typing = ix_fp16, .lower = cg_fp16_intrinsic},
  {.path = "numba.cuda.fp16.hsqrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "sqrt", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hrsqrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .typing = ix_fp16, .lower = cg_hrsqrt},
  {.path = "numba.cuda.fp16.hrcp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .typing = ix_fp16, .lower = cg_hrcp},
  {.path = "numba.cuda.fp16.hexp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "exp", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hexp2", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "exp2", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hexp10", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .typing = ix_fp16, .lower = cg_hexp10},
  {.path = "numba.cuda.fp16.hlog", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "log", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hlog2", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "log2", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hlog10", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "log10", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hsin", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "sin", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hcos", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "cos", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hfloor", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "floor", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hceil", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "ceil", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.htrunc", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "trunc", .typing = ix_fp16, .lower = cg_fp16_math},
  {.path = "numba.cuda.fp16.hrint", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "llvm.roundeven", .typing = ix_fp16, .lower = cg_fp16_intrinsic},
  {NULL},
};

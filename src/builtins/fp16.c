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

#define FP16(path, n, op, name, typing, lower) \
  {"numba.cuda.fp16." path, BK_FUNCTION, n, n, 0, 0, 0, op, name, 0, typing, lower, NULL}

const builtin builtins_fp16[] = {
  {"numba.cuda.fp16", BK_MODULE, -1, -1, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL},
  FP16("hadd", 2, OP_ADD, NULL, ix_fp16, cg_fp16_arith),
  FP16("hsub", 2, OP_SUB, NULL, ix_fp16, cg_fp16_arith),
  FP16("hmul", 2, OP_MUL, NULL, ix_fp16, cg_fp16_arith),
  FP16("hdiv", 2, OP_DIV, NULL, ix_fp16, cg_fp16_arith),
  FP16("hmax", 2, 0, "llvm.maxnum", ix_fp16, cg_fp16_intrinsic),
  FP16("hmin", 2, 0, "llvm.minnum", ix_fp16, cg_fp16_intrinsic),
  FP16("heq", 2, OP_EQ, NULL, ix_fp16_compare, cg_fp16_compare),
  FP16("hne", 2, OP_NE, NULL, ix_fp16_compare, cg_fp16_compare),
  FP16("hgt", 2, OP_GT, NULL, ix_fp16_compare, cg_fp16_compare),
  FP16("hge", 2, OP_GE, NULL, ix_fp16_compare, cg_fp16_compare),
  FP16("hlt", 2, OP_LT, NULL, ix_fp16_compare, cg_fp16_compare),
  FP16("hle", 2, OP_LE, NULL, ix_fp16_compare, cg_fp16_compare),
  FP16("hfma", 3, 0, "llvm.fma", ix_fp16, cg_fp16_intrinsic),
  FP16("hneg", 1, 0, NULL, ix_fp16, cg_hneg),
  FP16("habs", 1, 0, "llvm.fabs", ix_fp16, cg_fp16_intrinsic),
  FP16("hsqrt", 1, 0, "sqrt", ix_fp16, cg_fp16_math),
  FP16("hrsqrt", 1, 0, NULL, ix_fp16, cg_hrsqrt),
  FP16("hrcp", 1, 0, NULL, ix_fp16, cg_hrcp),
  FP16("hexp", 1, 0, "exp", ix_fp16, cg_fp16_math),
  FP16("hexp2", 1, 0, "exp2", ix_fp16, cg_fp16_math),
  FP16("hexp10", 1, 0, NULL, ix_fp16, cg_hexp10),
  FP16("hlog", 1, 0, "log", ix_fp16, cg_fp16_math),
  FP16("hlog2", 1, 0, "log2", ix_fp16, cg_fp16_math),
  FP16("hlog10", 1, 0, "log10", ix_fp16, cg_fp16_math),
  FP16("hsin", 1, 0, "sin", ix_fp16, cg_fp16_math),
  FP16("hcos", 1, 0, "cos", ix_fp16, cg_fp16_math),
  FP16("hfloor", 1, 0, "floor", ix_fp16, cg_fp16_math),
  FP16("hceil", 1, 0, "ceil", ix_fp16, cg_fp16_math),
  FP16("htrunc", 1, 0, "trunc", ix_fp16, cg_fp16_math),
  FP16("hrint", 1, 0, "llvm.roundeven", ix_fp16, cg_fp16_intrinsic),
  {NULL},
};

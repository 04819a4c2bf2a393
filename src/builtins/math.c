/*
 * math.c — Python's math module in kernels: math.sqrt ... math.lgamma, pow, fmod,
 * remainder, copysign, hypot, atan2, frexp, ldexp, modf, floor/ceil/trunc (to int64),
 * isnan/isinf/isfinite, cbrt (also cuda.cbrt), degrees, radians, and the constants pi,
 * e, tau, inf, nan (math.* and cmath.*).
 *
 * A function row names the C library function it is (its name, "sqrt", "tgamma"),
 * which cg_math.c calls on each target (libdevice on the GPU, the C library or an LLVM
 * intrinsic on the CPU). float16 arguments compute in float32 and round once.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* op of a function's row: what it returns (name: the libm function it calls, lowered
 * by cg_math.c) */
enum {
  M_TO_INT = 1 << 4,         /* floor, ceil, trunc: int64 */
  M_ISNAN = 1 << 5, M_ISINF = 1 << 6, M_ISFINITE = 1 << 7,  /* -> bool */
};
#define M_CLASS (M_ISNAN | M_ISINF | M_ISFINITE)

/* ---- typing ---- */

/* One or two real arguments; the float type they promote to (float64 for integers),
 * int64 for floor/ceil/trunc, bool for isnan/isinf/isfinite. */
static const type *ix_math(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!ix_need_real(ic, a, fname)) return NULL;
  const type *t = a->ty;
  bool weak = a->weak;
  if (e->list.len == 2) {
    node *y = e->list.items[1];
    if (!ix_need_real(ic, y, fname)) return NULL;
    t = ix_promote(a->ty, a->weak, a, y->ty, y->weak, y, &weak);
  }
  if (t->kind != TY_FLOAT) t = &ty_f64;
  if (b->op & M_TO_INT) return ix_set_type(e, &ty_i64, false);
  if (b->op & M_CLASS) return ix_set_type(e, &ty_bool, false);
  return ix_set_type(e, t, weak);
}

/* cbrt(x), degrees(x), radians(x): float64 for float64 and for integers (converted),
 * float32 for float32 and float16 (which converts to float32 exactly), as Numba's
 * float32 and float64 signatures resolve them (its Math_unary). */
static const type *ix_math_unary(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!ix_need_real(ic, a, builtin_user_name(b))) return NULL;
  if (a->ty->kind != TY_FLOAT) return ix_set_type(e, &ty_f64, false);
  return ix_set_type(e, a->ty->bits == 64 ? &ty_f64 : &ty_f32, a->weak);
}

/* The float type a math function of x computes in: float64 for float64 and integers,
 * float32 for float32 and float16 (Numba's float32 and float64 signatures). */
static const type *math_float(const node *a) {
  if (a->ty->kind != TY_FLOAT) return &ty_f64;
  return a->ty->bits == 64 ? &ty_f64 : &ty_f32;
}

/* frexp(x) -> (mantissa, int32 exponent); modf(x) -> (fraction, integer part); op 1
 * for frexp (Numba's Math_frexp and Math_modf). */
static const type *ix_math_split(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!ix_need_real(ic, a, builtin_user_name(b))) return NULL;
  const type *el[2] = {math_float(a), b->op ? &ty_i32 : math_float(a)};
  return ix_set_type(e, type_tuple(ic->ar, el, 2), false);
}

/* ldexp(x, i): x's float type; i an integer (Numba's Math_ldexp). */
static const type *ix_ldexp(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!ix_need_real(ic, a, fname) || !ix_need_int(ic, e->list.items[1], fname, "exponent"))
    return NULL;
  return ix_set_type(e, math_float(a), a->weak);
}

/* math.pi ...: float64 literals (a weak type: `x * math.pi` stays float32). */
const type *ix_math_constant(infer_ctx *ic, node *e, const builtin *b) {
  (void)ic, (void)b;
  return ix_set_type(e, &ty_f64, true);
}

/* ---- lowering ---- */

/* isnan, isinf, isfinite: integers are finite numbers. */
static LLVMValueRef float_class(cg_ctx *g, int op, LLVMValueRef v, const type *t) {
  if (t->kind != TY_FLOAT) return LLVMConstInt(g->i1, (op & M_ISFINITE) != 0, 0);
  if (op & M_ISNAN) return LLVMBuildFCmp(g->b, LLVMRealUNO, v, v, "");
  LLVMValueRef a = cg_call_intrinsic(g, "llvm.fabs", LLVMTypeOf(v), &v, 1);
  LLVMValueRef inf = LLVMConstReal(LLVMTypeOf(v), 1.0 / 0.0);
  return LLVMBuildFCmp(g->b, (op & M_ISINF) ? LLVMRealOEQ : LLVMRealOLT, a, inf, "");
}

static LLVMValueRef cg_math(cg_ctx *g, node *e, const builtin *b) {
  if (b->op & M_CLASS) {
    node *a = e->list.items[0];
    return float_class(g, b->op, cg_expr(g, a), a->ty);
  }
  bool toint = b->op & M_TO_INT;
  const type *ft = toint ? (((node *)e->list.items[0])->ty->kind == TY_FLOAT
                                ? ((node *)e->list.items[0])->ty : &ty_f64)
                         : e->ty;
  /* float16: computed in float32 (libdevice and libm have no half functions), then
     rounded once to float16 */
  const type *rt = ft;
  if (ft->kind == TY_FLOAT && ft->bits == 16) ft = &ty_f32;
  LLVMValueRef args[2];
  for (int i = 0; i < e->list.len && i < 2; i++) args[i] = cg_expr_as(g, e->list.items[i], ft);
  LLVMValueRef r = cg_math_call(g, b->name, ft, args, (unsigned)e->list.len);
  return cg_convert(g, r, ft, toint ? e->ty : rt);
}

/* cbrt(x): libdevice's __nv_cbrt/__nv_cbrtf on the GPU, the C library's cbrt/cbrtf on
 * the CPU. */
static LLVMValueRef cg_cbrt(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef x = cg_expr_as(g, e->list.items[0], e->ty);
  return cg_math_call(g, b->name, e->ty, &x, 1);
}

/* degrees(x) = x / (2 pi) * 360 and radians(x) = x / 360 * (2 pi), in x's float type,
 * as Numba computes them (its constants rounded to the type first; CPython multiplies
 * by 180/pi, which can differ in the last bit). op: 1 for degrees. */
static LLVMValueRef angle_value(cg_ctx *g, int op, LLVMValueRef x, const type *t) {
  LLVMTypeRef ft = cg_scalar_type(g, t);
  LLVMValueRef two_pi = LLVMBuildFMul(g->b, LLVMConstReal(ft, 3.14159265358979323846), LLVMConstReal(ft, 2), "");
  LLVMValueRef full = LLVMConstReal(ft, 360);
  if (op) return LLVMBuildFMul(g->b, LLVMBuildFDiv(g->b, x, two_pi, ""), full, "");
  return LLVMBuildFMul(g->b, LLVMBuildFDiv(g->b, x, full, ""), two_pi, "");
}

static LLVMValueRef cg_angle(cg_ctx *g, node *e, const builtin *b) {
  return angle_value(g, b->op, cg_expr_as(g, e->list.items[0], e->ty), e->ty);
}

/* For np.isnan ... and np.degrees ... (numpy.c), on a value v of type t: the row b's
 * math.isnan/isinf/isfinite (a bool) or math.degrees/radians (in t, a float type). */
LLVMValueRef cg_math_unary_value(cg_ctx *g, const builtin *b, LLVMValueRef v, const type *t) {
  if (b->lower == cg_angle) return angle_value(g, b->op, v, t);
  return float_class(g, b->op, v, t);
}

/* libdevice's __nv_<name>[f] on the GPU, the C library's <name>[f] on the CPU, for a
 * function of a float of type t and a second operand of LLVM type second. */
static LLVMValueRef libm_fn(cg_ctx *g, const char *name, const type *t, LLVMTypeRef second) {
  char fn[32];
  bool f32 = t->bits == 32;
  snprintf(fn, sizeof fn, "%s%s%s", g->target->host ? "" : "__nv_", name, f32 ? "f" : "");
  LLVMTypeRef ft = cg_scalar_type(g, t), pt[2] = {ft, second};
  return cg_declare_fn(g, fn, ft, pt, 2);
}

static LLVMValueRef pair(cg_ctx *g, const type *t, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, t));
  agg = LLVMBuildInsertValue(g->b, agg, a, 0, "");
  return LLVMBuildInsertValue(g->b, agg, b, 1, "");
}

/* frexp: the C function with the exponent through a local int; modf: the integer part
 * by trunc, the fraction x - trunc(x) with x's sign (0 for an infinity, as C's modf). */
static LLVMValueRef cg_math_split(cg_ctx *g, node *e, const builtin *b) {
  const type *ft = e->ty->elems[0];
  LLVMValueRef x = cg_expr_as(g, e->list.items[0], ft);
  if (b->op) {
    LLVMValueRef slot = cg_entry_alloca(g, g->i32, "frexp.exp");
    LLVMValueRef args[2] = {x, slot};
    LLVMValueRef m = cg_call_fn(g, libm_fn(g, "frexp", ft, LLVMTypeOf(slot)), args, 2);
    return pair(g, e->ty, m, LLVMBuildLoad2(g->b, g->i32, slot, ""));
  }
  LLVMTypeRef lt = LLVMTypeOf(x);
  LLVMValueRef ip = cg_call_intrinsic(g, "llvm.trunc", lt, &x, 1);
  LLVMValueRef inf = LLVMBuildFCmp(g->b, LLVMRealOEQ, cg_call_intrinsic(g, "llvm.fabs", lt, &x, 1),
                                   LLVMConstReal(lt, 1.0 / 0.0), "");
  LLVMValueRef fr = LLVMBuildSelect(g->b, inf, LLVMConstNull(lt), LLVMBuildFSub(g->b, x, ip, ""), "");
  LLVMValueRef cs[2] = {fr, x};
  return pair(g, e->ty, cg_call_intrinsic(g, "llvm.copysign", lt, cs, 2), ip);
}

/* ldexp(x, i): the exponent saturated to int32 (ldexp takes an int; a wider one
 * clamped gives the same overflow to inf or underflow to 0 as its true value). */
static LLVMValueRef cg_ldexp(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  LLVMValueRef x = cg_expr_as(g, e->list.items[0], e->ty);
  LLVMValueRef i = cg_expr_as(g, e->list.items[1], &ty_i64);
  LLVMValueRef lo = LLVMConstInt(g->i64, (unsigned long long)INT32_MIN, 1);
  LLVMValueRef hi = LLVMConstInt(g->i64, INT32_MAX, 0);
  i = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, lo, ""), lo, i, "");
  i = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, i, hi, ""), hi, i, "");
  LLVMValueRef args[2] = {x, LLVMBuildTrunc(g->b, i, g->i32, "")};
  return cg_call_fn(g, libm_fn(g, "ldexp", e->ty, g->i32), args, 2);
}

LLVMValueRef cg_math_constant(cg_ctx *g, node *e, const builtin *b) {
  return LLVMConstReal(cg_scalar_type(g, e->ty), b->value);
}


const builtin builtins_math[] = {
  {.path = "math", .kind = BK_MODULE},
  {.path = "math.sqrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "sqrt", .typing = ix_math, .lower = cg_math},
  {.path = "math.exp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "exp", .typing = ix_math, .lower = cg_math},
  {.path = "math.exp2", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "exp2", .typing = ix_math, .lower = cg_math},
  {.path = "math.expm1", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "expm1", .typing = ix_math, .lower = cg_math},
  {.path = "math.log", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "log", .typing = ix_math, .lower = cg_math},
  {.path = "math.log2", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "log2", .typing = ix_math, .lower = cg_math},
  {.path = "math.log10", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "log10", .typing = ix_math, .lower = cg_math},
  {.path = "math.log1p", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "log1p", .typing = ix_math, .lower = cg_math},
  {.path = "math.fabs", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "fabs", .typing = ix_math, .lower = cg_math},
  {.path = "math.sin", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "sin", .typing = ix_math, .lower = cg_math},
  {.path = "math.cos", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "cos", .typing = ix_math, .lower = cg_math},
  {.path = "math.tan", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "tan", .typing = ix_math, .lower = cg_math},
  {.path = "math.asin", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "asin", .typing = ix_math, .lower = cg_math},
  {.path = "math.acos", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "acos", .typing = ix_math, .lower = cg_math},
  {.path = "math.atan", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "atan", .typing = ix_math, .lower = cg_math},
  {.path = "math.sinh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "sinh", .typing = ix_math, .lower = cg_math},
  {.path = "math.cosh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "cosh", .typing = ix_math, .lower = cg_math},
  {.path = "math.tanh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "tanh", .typing = ix_math, .lower = cg_math},
  {.path = "math.asinh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "asinh", .typing = ix_math, .lower = cg_math},
  {.path = "math.acosh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "acosh", .typing = ix_math, .lower = cg_math},
  {.path = "math.atanh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "atanh", .typing = ix_math, .lower = cg_math},
  {.path = "math.erf", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "erf", .typing = ix_math, .lower = cg_math},
  {.path = "math.erfc", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "erfc", .typing = ix_math, .lower = cg_math},
  {.path = "math.gamma", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "tgamma", .typing = ix_math, .lower = cg_math},
  {.path = "math.lgamma", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "lgamma", .typing = ix_math, .lower = cg_math},
  {.path = "math.pow", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "pow", .typing = ix_math, .lower = cg_math},
  {.path = "math.fmod", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "fmod", .typing = ix_math, .lower = cg_math},
  {.path = "math.copysign", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "copysign", .typing = ix_math, .lower = cg_math},
  {.path = "math.hypot", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "hypot", .typing = ix_math, .lower = cg_math},
  {.path = "math.atan2", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "atan2", .typing = ix_math, .lower = cg_math},
  {.path = "math.remainder", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2,
   .flags = BF_PURE, .name = "remainder", .typing = ix_math, .lower = cg_math},
  {.path = "math.frexp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = 1, .typing = ix_math_split, .lower = cg_math_split},
  {.path = "math.modf", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .typing = ix_math_split, .lower = cg_math_split},
  {.path = "math.ldexp", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .typing = ix_ldexp, .lower = cg_ldexp},
  {.path = "math.floor", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = M_TO_INT, .name = "floor", .typing = ix_math, .lower = cg_math},
  {.path = "math.ceil", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = M_TO_INT, .name = "ceil", .typing = ix_math, .lower = cg_math},
  {.path = "math.trunc", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = M_TO_INT, .name = "trunc", .typing = ix_math, .lower = cg_math},
  {.path = "math.isnan", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = M_ISNAN, .typing = ix_math, .lower = cg_math},
  {.path = "math.isinf", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = M_ISINF, .typing = ix_math, .lower = cg_math},
  {.path = "math.isfinite", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = M_ISFINITE, .typing = ix_math, .lower = cg_math},
  {.path = "math.cbrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .name = "cbrt", .typing = ix_math_unary, .lower = cg_cbrt},
  {.path = "math.degrees", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = 1, .typing = ix_math_unary, .lower = cg_angle},
  {.path = "math.radians", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .typing = ix_math_unary, .lower = cg_angle},
  {.path = "numba.cuda.cbrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .name = "cbrt", .typing = ix_math_unary, .lower = cg_cbrt},
  {.path = "math.pi", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 3.14159265358979323846, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "math.e", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 2.71828182845904523536, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "math.tau", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 6.28318530717958647692, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "math.inf", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE, .value = INFINITY,
   .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "math.nan", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE, .value = NAN,
   .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "cmath.pi", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 3.14159265358979323846, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "cmath.e", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 2.71828182845904523536, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "cmath.tau", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 6.28318530717958647692, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "cmath.inf", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE, .value = INFINITY,
   .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "cmath.nan", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE, .value = NAN,
   .typing = ix_math_constant, .lower = cg_math_constant},
  {NULL},
};

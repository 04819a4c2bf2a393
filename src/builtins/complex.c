/*
 * complex.c — complex numbers' builtins: complex(x, y), z.conjugate() and the cmath
 * module. They compute with code generation's complex arithmetic (cg_complex.c, cx_*).
 * The cmath functions with special cases (exp, sqrt, rect, the trigonometric and
 * hyperbolic functions and their inverses, log10, log with a base) are written in the
 * kernel language, in lib/kcc/cmath.k, following Numba's implementations; their rows
 * instantiate them.
 */
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* op of the cmath rows */
enum { CM_LIB, CM_LOG, CM_PHASE, CM_POLAR, CM_RECT, CM_ISNAN, CM_ISINF, CM_ISFINITE };

/* ---- typing ---- */

/* The complex type a real or complex value computes in: a float's width (float32 ->
 * complex64), complex128 for integers and bool. */
static const type *complex_for(const type *t) {
  if (t->kind == TY_COMPLEX) return t;
  return t->kind == TY_FLOAT ? type_complex_of(t) : &ty_c128;
}

/* complex(x), complex(x, y): complex64 when both parts are float32 (or literals), as
 * the rest of the language keeps float32 in float32; otherwise complex128. */
static const type *ix_complex(infer_ctx *ic, node *e, const builtin *row) {
  (void)row;
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (e->list.len == 1) {
    if (!ix_need_scalar(ic, a, "complex")) return NULL;
    return ix_set_type(e, complex_for(a->ty), a->weak);
  }
  node *b = e->list.items[1];
  if (!ix_need_real(ic, a, "complex") || !ix_need_real(ic, b, "complex")) return NULL;
  bool weak;
  const type *t = ix_promote(a->ty, a->weak, a, b->ty, b->weak, b, &weak);
  return ix_set_type(e, weak ? &ty_c128 : complex_for(t), weak);
}

/* The type of a cmath function's arguments taken together: promoted, as complex (a
 * real argument is taken as complex; rect's are real and make a complex). */
static const type *cmath_args(infer_ctx *ic, node *e, const builtin *row, bool *weak) {
  const char *fname = builtin_user_name(row);
  if (!ix_args(ic, e)) return NULL;
  const type *t = NULL;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (!(row->op == CM_RECT ? ix_need_real : ix_need_scalar)(ic, a, fname)) return NULL;
    if (!t) {
      t = a->ty;
      *weak = a->weak;
      continue;
    }
    bool w;
    t = ix_promote(t, *weak, NULL, a->ty, a->weak, a, &w);
    *weak = w;
  }
  return complex_for(t);
}

/* Numba's cmath typing (cmathdecl.py): a complex result of the argument's complex type
 * (log(z, base): of both), phase(z) -> float, polar(z) -> (r, phi), isnan/isinf/
 * isfinite -> bool. A function of lib/kcc/cmath.k (the row's name) is instantiated
 * for the complex type, or for rect's two parts. */
static const type *ix_cmath(infer_ctx *ic, node *e, const builtin *row) {
  bool weak = false;
  const type *ct = cmath_args(ic, e, row, &weak), *pt = ct ? type_complex_part(ct) : NULL;
  if (!ct) return NULL;
  switch (row->op) {
  case CM_PHASE: return ix_set_type(e, pt, weak);
  case CM_POLAR: {
    const type *el[2] = {pt, pt};
    return ix_set_type(e, type_tuple(ic->ar, el, 2), false);
  }
  case CM_ISNAN: case CM_ISINF: case CM_ISFINITE: return ix_set_type(e, &ty_bool, false);
  case CM_LOG:
    if (e->list.len == 1) return ix_set_type(e, ct, weak);
    break;
  default: break;
  }
  const type *params[2] = {row->op == CM_RECT ? pt : ct, row->op == CM_RECT ? pt : ct};
  const char *fn = row->op == CM_LOG ? "_kc_cmath_log_base" : row->name;
  e->aux_ptr = ix_lib_instance(ic, IX_CMATH_MODULE, fn, params, e->list.len, e->sp);
  return e->aux_ptr ? ix_set_type(e, ct, weak) : NULL;
}

/* z.conjugate(): the number's own type (a real number is its own conjugate). */
static const type *ix_conjugate(infer_ctx *ic, node *e, const builtin *row) {
  (void)ic, (void)row;
  return ix_set_type(e, e->a->a->ty, e->a->a->weak);
}

/* ---- lowering ---- */

static LLVMValueRef cx_phase(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMValueRef args[2] = {cx_im(g, z), cx_re(g, z)};
  return cg_math_call(g, "atan2", type_complex_part(t), args, 2);
}

/* isnan: a NaN part; isinf: an infinite part; isfinite: both finite (a real x is x + 0j) */
static LLVMValueRef cx_class(cg_ctx *g, int id, LLVMValueRef z) {
  LLVMValueRef re = cx_re(g, z), im = cx_im(g, z);
  if (id == CM_ISNAN)
    return LLVMBuildOr(g->b, LLVMBuildFCmp(g->b, LLVMRealUNO, re, re, ""),
                       LLVMBuildFCmp(g->b, LLVMRealUNO, im, im, ""), "");
  LLVMValueRef inf = LLVMConstReal(LLVMTypeOf(re), 1.0 / 0.0);
  LLVMRealPredicate p = id == CM_ISINF ? LLVMRealOEQ : LLVMRealOLT;
  LLVMValueRef a = LLVMBuildFCmp(g->b, p, cx_fabs(g, re), inf, "");
  LLVMValueRef b = LLVMBuildFCmp(g->b, p, cx_fabs(g, im), inf, "");
  return id == CM_ISINF ? LLVMBuildOr(g->b, a, b, "") : LLVMBuildAnd(g->b, a, b, "");
}

/* A function of lib/kcc/cmath.k: its instance (e->aux_ptr) called with the arguments
 * as its parameter types, the result converted to the call's type (the instance may
 * return complex128 for complex64, see the library's comment). */
static LLVMValueRef cmath_lib_call(cg_ctx *g, node *e) {
  fn_instance *inst = e->aux_ptr;
  LLVMValueRef args[2];
  for (int i = 0; i < e->list.len && i < 2; i++)
    args[i] = cg_expr_as(g, e->list.items[i], inst->param_types[i]);
  return cg_convert(g, cg_call_values(g, inst, args, e->list.len), inst->ret, e->ty);
}

static LLVMValueRef cg_cmath(cg_ctx *g, node *e, const builtin *row) {
  int id = row->op;
  if (e->aux_ptr) return cmath_lib_call(g, e);
  node *a = e->list.items[0];
  const type *ct = a->ty->kind == TY_COMPLEX ? a->ty
                 : a->ty->kind == TY_FLOAT ? type_complex_of(a->ty) : &ty_c128;
  LLVMValueRef z = cg_expr_as(g, a, ct);
  switch (id) {
  case CM_PHASE: return cx_phase(g, z, ct);
  case CM_POLAR: {
    LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
    agg = LLVMBuildInsertValue(g->b, agg, cx_abs(g, z, ct), 0, "");
    return LLVMBuildInsertValue(g->b, agg, cx_phase(g, z, ct), 1, "");
  }
  case CM_LOG: {
    LLVMValueRef m = cx_abs(g, z, ct);
    return cx_make(g, ct, cg_math_call(g, "log", type_complex_part(ct), &m, 1), cx_phase(g, z, ct));
  }
  default: return cx_class(g, id, z);
  }
}

/* complex(x), complex(x, y) */
static LLVMValueRef cg_complex(cg_ctx *g, node *e, const builtin *row) {
  (void)row;
  if (e->list.len == 1) return cg_expr_as(g, e->list.items[0], e->ty);
  const type *pt = type_complex_part(e->ty);
  return cx_make(g, e->ty, cg_expr_as(g, e->list.items[0], pt), cg_expr_as(g, e->list.items[1], pt));
}

static LLVMValueRef cg_conjugate(cg_ctx *g, node *e, const builtin *row) {
  (void)row;
  const type *t = e->ty;
  LLVMValueRef v = cg_expr(g, e->a->a);
  if (t->kind != TY_COMPLEX) return v;
  return cx_make(g, t, cx_re(g, v), LLVMBuildFNeg(g->b, cx_im(g, v), ""));
}

const builtin builtins_complex[] = {
  {.path = "cmath", .kind = BK_MODULE},
  {.path = "complex", .kind = BK_FUNCTION, .min_args = 1, .max_args = 2, .flags = BF_PURE,
   .typing = ix_complex, .lower = cg_complex},
  {.path = ".conjugate", .kind = BK_METHOD, .min_args = 0, .max_args = 0, .flags = BF_PURE,
   .typing = ix_conjugate, .lower = cg_conjugate},
  {.path = "cmath.log", .kind = BK_FUNCTION, .min_args = 1, .max_args = 2, .flags = BF_PURE,
   .op = CM_LOG, .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.phase", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_PHASE, .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.polar", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_POLAR, .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.rect", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .op = CM_RECT, .name = "_kc_cmath_rect", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.isnan", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_ISNAN, .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.isinf", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_ISINF, .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.isfinite", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE, .op = CM_ISFINITE, .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.exp", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_exp", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.sqrt", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_sqrt", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.log10", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_log10", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.sin", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_sin", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.cos", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_cos", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.tan", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_tan", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.asin", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_asin", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.acos", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_acos", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.atan", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_atan", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.sinh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_sinh", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.cosh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_cosh", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.tanh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_tanh", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.asinh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_asinh", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.acosh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_acosh", .typing = ix_cmath, .lower = cg_cmath},
  {.path = "cmath.atanh", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .op = CM_LIB, .name = "_kc_cmath_atanh", .typing = ix_cmath, .lower = cg_cmath},
  {NULL},
};

/*
 * complex.c — complex numbers: complex(x, y), z.conjugate(), the cmath module (exp,
 * log, sqrt, phase, polar, rect), and the arithmetic, comparison, abs() and .real/.imag
 * of complex values that the rest of code generation uses (cx_*, cg.h). A complex
 * value is an LLVM {float, float} or {double, double}; the operations work on the
 * parts with the same real math the rest of the language uses.
 */
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* op of the cmath rows */
enum { CM_EXP, CM_LOG, CM_SQRT, CM_PHASE, CM_POLAR, CM_RECT };

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

/* cmath.exp/log/sqrt(z) -> complex, phase(z) -> float, polar(z) -> (r, phi),
 * rect(r, phi) -> complex; a real argument is taken as complex. */
static const type *ix_cmath(infer_ctx *ic, node *e, const builtin *row) {
  const char *fname = builtin_user_name(row);
  int id = row->op;
  bool rect = id == CM_RECT;
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (rect) {
    node *b = e->list.items[1];
    if (!ix_need_real(ic, a, fname) || !ix_need_real(ic, b, fname)) return NULL;
    bool weak;
    const type *t = ix_promote(a->ty, a->weak, a, b->ty, b->weak, b, &weak);
    return ix_set_type(e, complex_for(t), weak);
  }
  if (!ix_need_scalar(ic, a, fname)) return NULL;
  const type *ct = complex_for(a->ty), *pt = type_complex_part(ct);
  if (id == CM_PHASE) return ix_set_type(e, pt, a->weak);
  if (id == CM_POLAR) {
    const type *el[2] = {pt, pt};
    return ix_set_type(e, type_tuple(ic->ar, el, 2), false);
  }
  return ix_set_type(e, ct, a->weak);
}


/* z.conjugate(): the number's own type (a real number is its own conjugate). */
static const type *ix_conjugate(infer_ctx *ic, node *e, const builtin *row) {
  (void)ic, (void)row;
  return ix_set_type(e, e->a->a->ty, e->a->a->weak);
}

/* ---- lowering ---- */

LLVMValueRef cx_make(cg_ctx *g, const type *t, LLVMValueRef re, LLVMValueRef im) {
  LLVMValueRef z = LLVMGetUndef(cg_scalar_type(g, t));
  z = LLVMBuildInsertValue(g->b, z, re, 0, "");
  return LLVMBuildInsertValue(g->b, z, im, 1, "");
}

static LLVMValueRef cx_fabs(cg_ctx *g, LLVMValueRef x) {
  return cg_call_intrinsic(g, "llvm.fabs", LLVMTypeOf(x), &x, 1);
}

/* (a + bi) / (c + di) by Smith's algorithm: scale by the larger of |c|, |d| so that
 * c*c + d*d neither overflows nor underflows where the quotient is representable. */
static LLVMValueRef cx_div(cg_ctx *g, LLVMValueRef x, LLVMValueRef y, const type *t) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef a = cx_re(g, x), bi = cx_im(g, x), c = cx_re(g, y), d = cx_im(g, y);
  LLVMValueRef big_c = LLVMBuildFCmp(b, LLVMRealOGE, cx_fabs(g, c), cx_fabs(g, d), "");
  /* |c| >= |d|: r = d/c, den = c + d*r, re = (a + b*r)/den, im = (b - a*r)/den */
  LLVMValueRef r1 = LLVMBuildFDiv(b, d, c, "");
  LLVMValueRef den1 = LLVMBuildFAdd(b, c, LLVMBuildFMul(b, d, r1, ""), "");
  LLVMValueRef re1 = LLVMBuildFDiv(b, LLVMBuildFAdd(b, a, LLVMBuildFMul(b, bi, r1, ""), ""), den1, "");
  LLVMValueRef im1 = LLVMBuildFDiv(b, LLVMBuildFSub(b, bi, LLVMBuildFMul(b, a, r1, ""), ""), den1, "");
  /* otherwise: r = c/d, den = c*r + d, re = (a*r + b)/den, im = (b*r - a)/den */
  LLVMValueRef r2 = LLVMBuildFDiv(b, c, d, "");
  LLVMValueRef den2 = LLVMBuildFAdd(b, LLVMBuildFMul(b, c, r2, ""), d, "");
  LLVMValueRef re2 = LLVMBuildFDiv(b, LLVMBuildFAdd(b, LLVMBuildFMul(b, a, r2, ""), bi, ""), den2, "");
  LLVMValueRef im2 = LLVMBuildFDiv(b, LLVMBuildFSub(b, LLVMBuildFMul(b, bi, r2, ""), a, ""), den2, "");
  return cx_make(g, t, LLVMBuildSelect(b, big_c, re1, re2, ""), LLVMBuildSelect(b, big_c, im1, im2, ""));
}

LLVMValueRef cx_arith(cg_ctx *g, op_kind op, LLVMValueRef x, LLVMValueRef y, const type *t) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef a = cx_re(g, x), bi = cx_im(g, x), c = cx_re(g, y), d = cx_im(g, y);
  switch (op) {
  case OP_ADD: return cx_make(g, t, LLVMBuildFAdd(b, a, c, ""), LLVMBuildFAdd(b, bi, d, ""));
  case OP_SUB: return cx_make(g, t, LLVMBuildFSub(b, a, c, ""), LLVMBuildFSub(b, bi, d, ""));
  case OP_MUL:
    return cx_make(g, t,
        LLVMBuildFSub(b, LLVMBuildFMul(b, a, c, ""), LLVMBuildFMul(b, bi, d, ""), ""),
        LLVMBuildFAdd(b, LLVMBuildFMul(b, a, d, ""), LLVMBuildFMul(b, bi, c, ""), ""));
  case OP_DIV: return cx_div(g, x, y, t);
  default: return NULL;  /* the type checker allows no other operator */
  }
}

LLVMValueRef cx_compare(cg_ctx *g, op_kind op, LLVMValueRef x, LLVMValueRef y) {
  LLVMRealPredicate p = op == OP_EQ ? LLVMRealOEQ : LLVMRealUNE;
  LLVMValueRef re = LLVMBuildFCmp(g->b, p, cx_re(g, x), cx_re(g, y), "");
  LLVMValueRef im = LLVMBuildFCmp(g->b, p, cx_im(g, x), cx_im(g, y), "");
  return op == OP_EQ ? LLVMBuildAnd(g->b, re, im, "") : LLVMBuildOr(g->b, re, im, "");
}

/* z ** k for a constant 0 <= k <= 8: repeated multiplication. */
LLVMValueRef cx_pow_small(cg_ctx *g, LLVMValueRef z, int64_t k, const type *t) {
  LLVMTypeRef pt = cg_scalar_type(g, type_complex_part(t));
  LLVMValueRef r = cx_make(g, t, LLVMConstReal(pt, 1.0), LLVMConstNull(pt));
  for (int64_t i = 0; i < k; i++) r = i == 0 ? z : cx_arith(g, OP_MUL, r, z, t);
  return r;
}

LLVMValueRef cx_abs(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMValueRef args[2] = {cx_re(g, z), cx_im(g, z)};
  return cg_math_call(g, "hypot", type_complex_part(t), args, 2);
}

static LLVMValueRef cx_phase(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMValueRef args[2] = {cx_im(g, z), cx_re(g, z)};
  return cg_math_call(g, "atan2", type_complex_part(t), args, 2);
}

static LLVMValueRef real1(cg_ctx *g, const char *name, const type *pt, LLVMValueRef x) {
  return cg_math_call(g, name, pt, &x, 1);
}

/* r * (cos phi + i sin phi) */
static LLVMValueRef cx_rect(cg_ctx *g, LLVMValueRef r, LLVMValueRef phi, const type *t) {
  const type *pt = type_complex_part(t);
  return cx_make(g, t, LLVMBuildFMul(g->b, r, real1(g, "cos", pt, phi), ""),
                 LLVMBuildFMul(g->b, r, real1(g, "sin", pt, phi), ""));
}

/* The principal square root: t = sqrt((|z| + |re|) / 2); for re >= 0 it is
 * t + i im/(2t), else |im|/(2t) + i copysign(t, im); sqrt(0 + i im) is 0 + i im. */
static LLVMValueRef cx_sqrt(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMBuilderRef b = g->b;
  const type *pt = type_complex_part(t);
  LLVMTypeRef ft = cg_scalar_type(g, pt);
  LLVMValueRef re = cx_re(g, z), im = cx_im(g, z), zero = LLVMConstNull(ft);
  LLVMValueRef half = LLVMConstReal(ft, 0.5), two = LLVMConstReal(ft, 2.0);
  LLVMValueRef s = LLVMBuildFMul(b, LLVMBuildFAdd(b, cx_abs(g, z, t), cx_fabs(g, re), ""), half, "");
  LLVMValueRef tt = real1(g, "sqrt", pt, s);
  LLVMValueRef q = LLVMBuildFDiv(b, im, LLVMBuildFMul(b, two, tt, ""), "");
  LLVMValueRef cs_args[2] = {tt, im};
  LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGE, re, zero, "");
  LLVMValueRef r_re = LLVMBuildSelect(b, pos, tt, cx_fabs(g, q), "");
  LLVMValueRef r_im = LLVMBuildSelect(b, pos, q, cg_math_call(g, "copysign", pt, cs_args, 2), "");
  LLVMValueRef is0 = LLVMBuildFCmp(b, LLVMRealOEQ, tt, zero, "");
  return cx_make(g, t, LLVMBuildSelect(b, is0, zero, r_re, ""), LLVMBuildSelect(b, is0, im, r_im, ""));
}

static LLVMValueRef cg_cmath(cg_ctx *g, node *e, const builtin *row) {
  int id = row->op;
  node *a = e->list.items[0];
  if (id == CM_RECT) {
    const type *pt = type_complex_part(e->ty);
    return cx_rect(g, cg_expr_as(g, a, pt), cg_expr_as(g, e->list.items[1], pt), e->ty);
  }
  const type *ct = a->ty->kind == TY_COMPLEX ? a->ty
                 : id == CM_PHASE ? (e->ty->bits == 64 ? &ty_c128 : &ty_c64)
                 : id == CM_POLAR ? (e->ty->elems[0]->bits == 64 ? &ty_c128 : &ty_c64)
                 : e->ty;
  const type *pt = type_complex_part(ct);
  LLVMValueRef z = cg_expr_as(g, a, ct);
  switch (id) {
  case CM_PHASE: return cx_phase(g, z, ct);
  case CM_POLAR: {
    LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
    agg = LLVMBuildInsertValue(g->b, agg, cx_abs(g, z, ct), 0, "");
    return LLVMBuildInsertValue(g->b, agg, cx_phase(g, z, ct), 1, "");
  }
  case CM_EXP: return cx_rect(g, real1(g, "exp", pt, cx_re(g, z)), cx_im(g, z), ct);
  case CM_LOG: return cx_make(g, ct, real1(g, "log", pt, cx_abs(g, z, ct)), cx_phase(g, z, ct));
  default: return cx_sqrt(g, z, ct);
  }
}

/* complex(x), complex(x, y) */
static LLVMValueRef cg_complex(cg_ctx *g, node *e, const builtin *row) {
  (void)row;
  if (e->list.len == 1) return cg_expr_as(g, e->list.items[0], e->ty);
  const type *pt = type_complex_part(e->ty);
  return cx_make(g, e->ty, cg_expr_as(g, e->list.items[0], pt), cg_expr_as(g, e->list.items[1], pt));
}

/* z.real, z.imag; x.real is x and x.imag 0 for a real x */
LLVMValueRef cg_part(cg_ctx *g, node *e) {
  const type *bt = e->a->ty;
  LLVMValueRef v = cg_expr(g, e->a);
  bool imag = strcmp(e->str, "imag") == 0;
  if (bt->kind == TY_COMPLEX) return imag ? cx_im(g, v) : cx_re(g, v);
  return imag ? LLVMConstNull(cg_scalar_type(g, bt)) : v;
}

static LLVMValueRef cg_conjugate(cg_ctx *g, node *e, const builtin *row) {
  (void)row;
  const type *t = e->ty;
  LLVMValueRef v = cg_expr(g, e->a->a);
  if (t->kind != TY_COMPLEX) return v;
  return cx_make(g, t, cx_re(g, v), LLVMBuildFNeg(g->b, cx_im(g, v), ""));
}


#define CMATH(path, n, op) \
  {path, BK_FUNCTION, n, n, 0, 0, 0, op, NULL, 0, ix_cmath, cg_cmath, NULL}

const builtin builtins_complex[] = {
  {"cmath", BK_MODULE, -1, -1, 0, 0, 0, 0, NULL, 0, NULL, NULL, NULL},
  {"complex", BK_FUNCTION, 1, 2, 0, 0, 0, 0, NULL, 0, ix_complex, cg_complex, NULL},
  {".conjugate", BK_METHOD, 0, 0, 0, 0, 0, 0, NULL, 0, ix_conjugate, cg_conjugate, NULL},
  CMATH("cmath.exp", 1, CM_EXP),     CMATH("cmath.log", 1, CM_LOG),
  CMATH("cmath.sqrt", 1, CM_SQRT),   CMATH("cmath.phase", 1, CM_PHASE),
  CMATH("cmath.polar", 1, CM_POLAR), CMATH("cmath.rect", 2, CM_RECT),
  {NULL},
};

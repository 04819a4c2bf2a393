/*
 * cg_complex.c — complex numbers in code generation: the arithmetic, comparisons,
 * powers, abs() and .real/.imag that codegen.c's operators and attributes and the
 * builtins lower to (cx_*, cg.h). A complex value is an LLVM {float, float} or
 * {double, double}; the operations work on the parts with the same real math the rest
 * of the language uses. The cmath module and complex() are builtins/complex.c's rows;
 * ** with a general exponent is lib/kcc/cmath.k's _kc_cpow, which type inference
 * instantiates (infer.c) and cx_pow calls.
 */
#include <string.h>

#include "cg.h"

LLVMValueRef cx_make(cg_ctx *g, const type *t, LLVMValueRef re, LLVMValueRef im) {
  LLVMValueRef z = LLVMGetUndef(cg_scalar_type(g, t));
  z = LLVMBuildInsertValue(g->b, z, re, 0, "");
  return LLVMBuildInsertValue(g->b, z, im, 1, "");
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

/* a ** b by lib/kcc/cmath.k's _kc_cpow (ix_complex_pow made the instance, e->aux_ptr):
 * a is evaluated, b is e->b; both of type t. */
LLVMValueRef cx_pow(cg_ctx *g, node *e, LLVMValueRef a, const type *t) {
  fn_instance *inst = e->aux_ptr;
  LLVMValueRef args[2] = {a, cg_expr_as(g, e->b, t)};
  return cg_convert(g, cg_call_values(g, inst, args, 2), inst->ret, t);
}

/* a.real, a.imag: the array's floats from part 0 or 1 of its first element, every
 * stride doubled (strides count elements: a complex is two floats), the same extents;
 * Numba's views of the parts, written through as well as read. */
LLVMValueRef cx_array_part(cg_ctx *g, node *e, LLVMValueRef arr) {
  const type *at = e->a->ty, *vt = e->ty;
  LLVMValueRef off = ci64(g, strcmp(e->str, "imag") == 0);
  LLVMValueRef data = LLVMBuildGEP2(g->b, cg_mem_type(g, vt->elem),
                                    LLVMBuildExtractValue(g->b, arr, 0, "data"), &off, 1, "");
  LLVMValueRef v = LLVMBuildInsertValue(g->b, LLVMGetUndef(cg_type(g, vt)), data, 0, "");
  for (int k = 0; k < at->ndim; k++) {
    LLVMValueRef s = LLVMBuildMul(g->b, cg_array_stride(g, arr, at, k), ci64(g, 2), "");
    v = LLVMBuildInsertValue(g->b, v, cg_array_extent(g, arr, k), (unsigned)(1 + k), "");
    v = LLVMBuildInsertValue(g->b, v, s, (unsigned)(1 + vt->ndim + k), "");
  }
  return v;
}

/* z.real, z.imag; x.real is x and x.imag 0 for a real x */
LLVMValueRef cg_part(cg_ctx *g, node *e) {
  const type *bt = e->a->ty;
  LLVMValueRef v = cg_expr(g, e->a);
  bool imag = strcmp(e->str, "imag") == 0;
  if (bt->kind == TY_COMPLEX) return imag ? cx_im(g, v) : cx_re(g, v);
  return imag ? LLVMConstNull(cg_scalar_type(g, bt)) : v;
}

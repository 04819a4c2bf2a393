/*
 * cg_arith.c — Python's arithmetic and comparisons on LLVM values, for code generation
 * (codegen.c's operators, cg_stmts.c's augmented assignment, and builtins that compute
 * with them).
 * Integer division and modulo floor, with the sign of the divisor; division by zero
 * gives 0 rather than a trap (NumPy's error model), so no kernel can crash the host;
 * shifts by the width or more (or by a negative amount) give 0 (or the sign), never
 * poison; ** on integers is an internal helper per type (power by squaring; a negative
 * exponent gives Numba's 0, +-1, or the minimum for a base of 0), on small literal exponents of
 * floats and complex numbers repeated multiplication. Complex operands go to
 * cg_complex.c. Assumes both operands already converted to the operation's type t.
 */
#include <stdio.h>

#include "builtins/builtin.h"
#include "cg.h"

static LLVMValueRef int_divmod(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b,
                               const type *t) {
  LLVMTypeRef lt = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(lt);
  LLVMValueRef bz = LLVMBuildICmp(g->b, LLVMIntEQ, b, zero, "");
  /* divide by 1 where b is 0 (the result is then replaced by 0), and avoid the
     INT_MIN / -1 trap by dividing by 1 and negating */
  LLVMValueRef safe_b = LLVMBuildSelect(g->b, bz, LLVMConstInt(lt, 1, 0), b, "");
  if (!t->is_signed) {
    LLVMValueRef r = op == OP_MOD ? LLVMBuildURem(g->b, a, safe_b, "") : LLVMBuildUDiv(g->b, a, safe_b, "");
    return LLVMBuildSelect(g->b, bz, zero, r, "");
  }
  LLVMValueRef m1 = LLVMBuildICmp(g->b, LLVMIntEQ, safe_b, LLVMConstAllOnes(lt), "");
  safe_b = LLVMBuildSelect(g->b, m1, LLVMConstInt(lt, 1, 0), safe_b, "");
  LLVMValueRef q = LLVMBuildSDiv(g->b, a, safe_b, "");
  LLVMValueRef r = LLVMBuildSRem(g->b, a, safe_b, "");
  q = LLVMBuildSelect(g->b, m1, LLVMBuildNeg(g->b, a, ""), q, "");
  r = LLVMBuildSelect(g->b, m1, zero, r, "");
  /* floor: when the remainder is non-zero and its sign differs from b's */
  LLVMValueRef adj = LLVMBuildAnd(g->b, LLVMBuildICmp(g->b, LLVMIntNE, r, zero, ""),
      LLVMBuildICmp(g->b, LLVMIntSLT, LLVMBuildXor(g->b, r, b, ""), zero, ""), "");
  LLVMValueRef res = op == OP_MOD
      ? LLVMBuildSelect(g->b, adj, LLVMBuildAdd(g->b, r, b, ""), r, "")
      : LLVMBuildSelect(g->b, adj, LLVMBuildSub(g->b, q, LLVMConstInt(lt, 1, 0), ""), q, "");
  return LLVMBuildSelect(g->b, bz, zero, res, "");
}

/* Float % and // as CPython's float_divmod computes them (and Numba's real_divmod):
 * the remainder is fmod's, moved to the divisor's sign (a zero one takes the divisor's
 * sign); the quotient is (a - mod) / b, floored, and rounded up where the division fell
 * just short of an integer, so 1.0 // 0.1 is 9.0 as in Python, not floor(a / b) = 10. */
static LLVMValueRef float_mod_raw(cg_ctx *g, LLVMValueRef a, LLVMValueRef b, const type *t,
                                  LLVMValueRef *adjusted) {
  LLVMValueRef ab[2] = {a, b};
  LLVMValueRef r = cg_math_call(g, "fmod", t, ab, 2);
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(a));
  LLVMValueRef rneg = LLVMBuildFCmp(g->b, LLVMRealOLT, r, zero, "");
  LLVMValueRef bneg = LLVMBuildFCmp(g->b, LLVMRealOLT, b, zero, "");
  *adjusted = LLVMBuildAnd(g->b, LLVMBuildFCmp(g->b, LLVMRealONE, r, zero, ""),
                           LLVMBuildXor(g->b, rneg, bneg, ""), "");
  return r;
}

static LLVMValueRef float_mod(cg_ctx *g, LLVMValueRef a, LLVMValueRef b, const type *t) {
  LLVMValueRef adj, r = float_mod_raw(g, a, b, t, &adj);
  LLVMValueRef ops[2] = {LLVMConstNull(LLVMTypeOf(a)), b};
  LLVMValueRef signed_zero = cg_call_intrinsic(g, "llvm.copysign", LLVMTypeOf(a), ops, 2);
  LLVMValueRef is_zero = LLVMBuildFCmp(g->b, LLVMRealOEQ, r, ops[0], "");
  r = LLVMBuildSelect(g->b, is_zero, signed_zero, r, "");
  return LLVMBuildSelect(g->b, adj, LLVMBuildFAdd(g->b, r, b, ""), r, "");
}

static LLVMValueRef float_floordiv(cg_ctx *g, LLVMValueRef a, LLVMValueRef b, const type *t) {
  LLVMTypeRef ft = LLVMTypeOf(a);
  LLVMValueRef adj, mod = float_mod_raw(g, a, b, t, &adj);
  LLVMValueRef one = LLVMConstReal(ft, 1.0), zero = LLVMConstNull(ft);
  LLVMValueRef div = LLVMBuildFDiv(g->b, LLVMBuildFSub(g->b, a, mod, ""), b, "");
  div = LLVMBuildSelect(g->b, adj, LLVMBuildFSub(g->b, div, one, ""), div, "");
  LLVMValueRef fl = cg_call_intrinsic(g, "llvm.floor", ft, &div, 1);
  LLVMValueRef up = LLVMBuildFCmp(g->b, LLVMRealOGT, LLVMBuildFSub(g->b, div, fl, ""),
                                  LLVMConstReal(ft, 0.5), "");
  fl = LLVMBuildSelect(g->b, up, LLVMBuildFAdd(g->b, fl, one, ""), fl, "");
  LLVMValueRef q = LLVMBuildFDiv(g->b, a, b, "");
  LLVMValueRef ops[2] = {zero, q};
  LLVMValueRef signed_zero = cg_call_intrinsic(g, "llvm.copysign", ft, ops, 2);
  LLVMValueRef div_zero = LLVMBuildFCmp(g->b, LLVMRealOEQ, div, zero, "");
  fl = LLVMBuildSelect(g->b, div_zero, signed_zero, fl, "");
  /* a zero divisor: a / b (inf or nan), Numba's value without its exception */
  LLVMValueRef b_zero = LLVMBuildFCmp(g->b, LLVMRealOEQ, b, zero, "");
  return LLVMBuildSelect(g->b, b_zero, q, fl, "");
}

/* Integer power by squaring, as an internal helper per integer type. */
static LLVMValueRef ipow_fn(cg_ctx *g, const type *t) {
  char name[32];
  snprintf(name, sizeof name, "kc.ipow.%c%d", t->is_signed ? 'i' : 'u', t->bits);
  LLVMValueRef f = LLVMGetNamedFunction(g->m, name);
  if (f) return f;
  LLVMTypeRef it = cg_scalar_type(g, t);
  LLVMTypeRef pt[2] = {it, it};
  f = LLVMAddFunction(g->m, name, LLVMFunctionType(it, pt, 2, 0));
  LLVMSetLinkage(f, LLVMInternalLinkage);
  LLVMBuilderRef b = LLVMCreateBuilderInContext(g->c);
  LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->c, f, "entry");
  LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(g->c, f, "loop");
  LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->c, f, "done");
  LLVMValueRef base = LLVMGetParam(f, 0), ex = LLVMGetParam(f, 1);
  LLVMValueRef one = LLVMConstInt(it, 1, 0), zero = LLVMConstNull(it);
  LLVMPositionBuilderAtEnd(b, entry);
  /* a negative exponent: Python gives a float; integers give 0 (or +-1 for base +-1) */
  LLVMValueRef neg = t->is_signed ? LLVMBuildICmp(b, LLVMIntSLT, ex, zero, "") : LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef e0 = LLVMBuildSelect(b, neg, zero, ex, "");
  LLVMBuildBr(b, loop);
  LLVMPositionBuilderAtEnd(b, loop);
  LLVMValueRef r = LLVMBuildPhi(b, it, "r"), bb = LLVMBuildPhi(b, it, "b"), e = LLVMBuildPhi(b, it, "e");
  LLVMValueRef odd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, e, one, ""), zero, "");
  LLVMValueRef r2 = LLVMBuildSelect(b, odd, LLVMBuildMul(b, r, bb, ""), r, "");
  LLVMValueRef b2 = LLVMBuildMul(b, bb, bb, "");
  LLVMValueRef e2 = LLVMBuildLShr(b, e, one, "");
  LLVMValueRef more = LLVMBuildICmp(b, LLVMIntNE, e2, zero, "");
  LLVMBuildCondBr(b, more, loop, done);
  LLVMValueRef rin[2] = {one, r2}, bin[2] = {base, b2}, ein[2] = {e0, e2};
  LLVMBasicBlockRef from[2] = {entry, loop};
  LLVMAddIncoming(r, rin, from, 2);
  LLVMAddIncoming(bb, bin, from, 2);
  LLVMAddIncoming(e, ein, from, 2);
  LLVMPositionBuilderAtEnd(b, done);
  LLVMValueRef res = r2;
  if (t->is_signed) {
    /* base 1 -> 1; base -1 -> +-1 by parity; base 0 -> the type's minimum (Numba's
       int_power_impl under the numpy error model of its CUDA target); else 0 */
    LLVMValueRef is1 = LLVMBuildICmp(b, LLVMIntEQ, base, one, "");
    LLVMValueRef ism1 = LLVMBuildICmp(b, LLVMIntEQ, base, LLVMConstAllOnes(it), "");
    LLVMValueRef is0 = LLVMBuildICmp(b, LLVMIntEQ, base, zero, "");
    LLVMValueRef eodd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, ex, one, ""), zero, "");
    LLVMValueRef tmin = LLVMConstInt(it, 1ULL << (t->bits - 1), 0);
    LLVMValueRef negres = LLVMBuildSelect(b, is1, one,
        LLVMBuildSelect(b, ism1, LLVMBuildSelect(b, eodd, LLVMConstAllOnes(it), one, ""),
                        LLVMBuildSelect(b, is0, tmin, zero, ""), ""), "");
    res = LLVMBuildSelect(b, neg, negres, r2, "");
  }
  LLVMBuildRet(b, res);
  LLVMDisposeBuilder(b);
  return f;
}

/* a ** b on two integers of type t (np.power's integer loops) */
LLVMValueRef cg_int_pow(cg_ctx *g, LLVMValueRef a, LLVMValueRef b, const type *t) {
  LLVMValueRef args[2] = {a, b};
  return cg_call_fn(g, ipow_fn(g, t), args, 2);
}

static bool small_int_literal(node *e, int64_t *v) {
  node *n = e;
  bool neg = false;
  if (n->kind == N_UNARY && n->op == OP_NEG) { neg = true; n = n->a; }
  if (n->kind != N_INT || n->big) return false;
  *v = neg ? -n->ival : n->ival;
  return true;
}

LLVMValueRef cg_pow(cg_ctx *g, node *e, LLVMValueRef a, const type *t) {
  int64_t k;
  if (t->kind == TY_COMPLEX)
    return e->aux_ptr ? cx_pow(g, e, a, t) : cx_pow_small(g, a, small_int_literal(e->b, &k) ? k : 0, t);
  if (t->kind == TY_FLOAT && e->b->weak && small_int_literal(e->b, &k) && k >= -1 && k <= 4) {
    LLVMValueRef one = LLVMConstReal(cg_scalar_type(g, t), 1.0);
    if (k == -1) return LLVMBuildFDiv(g->b, one, a, "");
    LLVMValueRef r = one;
    for (int64_t i = 0; i < k; i++) r = i == 0 ? a : LLVMBuildFMul(g->b, r, a, "");
    return r;
  }
  LLVMValueRef bv = cg_expr_as(g, e->b, t);
  if (t->kind == TY_FLOAT && t->bits == 16) { /* pow in float32, rounded once */
    LLVMValueRef args[2] = {cg_convert(g, a, t, &ty_f32), cg_convert(g, bv, t, &ty_f32)};
    return cg_convert(g, cg_math_call(g, "pow", &ty_f32, args, 2), &ty_f32, t);
  }
  if (t->kind == TY_FLOAT) {
    LLVMValueRef args[2] = {a, bv};
    return cg_math_call(g, "pow", t, args, 2);
  }
  LLVMValueRef args[2] = {a, bv};
  return cg_call_fn(g, ipow_fn(g, t), args, 2);
}

static LLVMValueRef shift(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t) {
  /* shifting by the width or more: 0 (or the sign for >>), never poison */
  LLVMTypeRef lt = LLVMTypeOf(a);
  LLVMValueRef w = LLVMConstInt(lt, (unsigned long long)t->bits, 0);
  LLVMValueRef big = LLVMBuildICmp(g->b, LLVMIntUGE, b, w, "");
  LLVMValueRef sb = LLVMBuildSelect(g->b, big, LLVMConstInt(lt, (unsigned long long)t->bits - 1, 0), b, "");
  if (op == OP_LSHIFT)
    return LLVMBuildSelect(g->b, big, LLVMConstNull(lt), LLVMBuildShl(g->b, a, sb, ""), "");
  if (t->is_signed) return LLVMBuildAShr(g->b, a, sb, "");
  return LLVMBuildSelect(g->b, big, LLVMConstNull(lt), LLVMBuildLShr(g->b, a, sb, ""), "");
}

LLVMValueRef cg_arith_op(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t) {
  if (t->kind == TY_COMPLEX) return cx_arith(g, op, a, b, t);
  bool fl = t->kind == TY_FLOAT;
  switch (op) {
  case OP_ADD: return fl ? LLVMBuildFAdd(g->b, a, b, "") : LLVMBuildAdd(g->b, a, b, "");
  case OP_SUB: return fl ? LLVMBuildFSub(g->b, a, b, "") : LLVMBuildSub(g->b, a, b, "");
  case OP_MUL: return fl ? LLVMBuildFMul(g->b, a, b, "") : LLVMBuildMul(g->b, a, b, "");
  case OP_DIV: return LLVMBuildFDiv(g->b, a, b, "");
  case OP_FLOORDIV:
    return fl ? float_floordiv(g, a, b, t) : int_divmod(g, op, a, b, t);
  case OP_MOD: return fl ? float_mod(g, a, b, t) : int_divmod(g, op, a, b, t);
  case OP_BITAND: return LLVMBuildAnd(g->b, a, b, "");
  case OP_BITOR: return LLVMBuildOr(g->b, a, b, "");
  case OP_BITXOR: return LLVMBuildXor(g->b, a, b, "");
  case OP_LSHIFT: case OP_RSHIFT: return shift(g, op, a, b, t);
  default: return NULL;
  }
}

LLVMValueRef cg_compare_op(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t) {
  if (t->kind == TY_COMPLEX) return cx_compare(g, op, a, b);
  if (t->kind == TY_FLOAT) {
    LLVMRealPredicate p = op == OP_EQ ? LLVMRealOEQ : op == OP_NE ? LLVMRealUNE
                        : op == OP_LT ? LLVMRealOLT : op == OP_LE ? LLVMRealOLE
                        : op == OP_GT ? LLVMRealOGT : LLVMRealOGE;
    return LLVMBuildFCmp(g->b, p, a, b, "");
  }
  bool s = t->kind == TY_INT && t->is_signed;
  LLVMIntPredicate p = op == OP_EQ ? LLVMIntEQ : op == OP_NE ? LLVMIntNE
                     : op == OP_LT ? (s ? LLVMIntSLT : LLVMIntULT)
                     : op == OP_LE ? (s ? LLVMIntSLE : LLVMIntULE)
                     : op == OP_GT ? (s ? LLVMIntSGT : LLVMIntUGT)
                     : (s ? LLVMIntSGE : LLVMIntUGE);
  return LLVMBuildICmp(g->b, p, a, b, "");
}

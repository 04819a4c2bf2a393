/*
 * cg_convert.c — conversions between kcc's types in code generation: Python's truth of
 * a value (cg_to_bool), and a value of one type as another (cg_convert): numbers as
 * NumPy's astype converts them (floats to integers saturating, never poison), complex
 * numbers, tuples element by element, and Numba's Optional (a value to an Optional,
 * an Optional used as its value).
 */
#include <string.h>

#include "cg.h"

LLVMValueRef cg_to_bool(cg_ctx *g, LLVMValueRef v, const type *t) {
  switch (t->kind) {
  case TY_COMPLEX: {
    LLVMValueRef zero = LLVMConstNull(cg_scalar_type(g, type_complex_part(t)));
    return LLVMBuildOr(g->b, LLVMBuildFCmp(g->b, LLVMRealUNE, cx_re(g, v), zero, ""),
                       LLVMBuildFCmp(g->b, LLVMRealUNE, cx_im(g, v), zero, ""), "");
  }
  case TY_BOOL: return v;
  case TY_INT: return LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  case TY_FLOAT: return LLVMBuildFCmp(g->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  default: return LLVMConstInt(g->i1, 1, 0);
  }
}


/* To complex: part by part, or a real number with a zero imaginary part. From complex
 * to a real type (which the type checker only lets through for bool): the real part. */
static LLVMValueRef convert_complex(cg_ctx *g, LLVMValueRef v, const type *from,
                                    const type *to) {
  if (to->kind == TY_COMPLEX) {
    const type *pt = type_complex_part(to);
    if (from->kind == TY_COMPLEX) {
      const type *pf = type_complex_part(from);
      return cx_make(g, to, cg_convert(g, cx_re(g, v), pf, pt), cg_convert(g, cx_im(g, v), pf, pt));
    }
    return cx_make(g, to, cg_convert(g, v, from, pt), LLVMConstNull(cg_scalar_type(g, pt)));
  }
  if (to->kind == TY_BOOL) return cg_to_bool(g, v, from);
  return cg_convert(g, cx_re(g, v), type_complex_part(from), to);
}

/* A tuple to a tuple of as many elements, each converted: a local unified to (int64,
 * int64) assigned (int32, int32). */
static LLVMValueRef convert_tuple(cg_ctx *g, LLVMValueRef v, const type *from, const type *to) {
  LLVMValueRef r = LLVMGetUndef(cg_type(g, to));
  for (int i = 0; i < to->nelems; i++) {
    LLVMValueRef el = LLVMBuildExtractValue(g->b, v, (unsigned)i, "");
    r = LLVMBuildInsertValue(g->b, r, cg_convert(g, el, from->elems[i], to->elems[i]),
                             (unsigned)i, "");
  }
  return r;
}

/* A value to an Optional: a value is valid; an Optional keeps its validity. */
static LLVMValueRef to_optional(cg_ctx *g, LLVMValueRef v, const type *from, const type *to) {
  bool opt = from->kind == TY_OPTIONAL;
  LLVMValueRef x = opt ? LLVMBuildExtractValue(g->b, v, 0, "") : v;
  LLVMValueRef valid = opt ? LLVMBuildExtractValue(g->b, v, 1, "") : LLVMConstInt(g->i1, 1, 0);
  LLVMValueRef r = LLVMGetUndef(cg_type(g, to));
  r = LLVMBuildInsertValue(g->b, r, cg_convert(g, x, opt ? from->elem : from, to->elem), 0, "");
  return LLVMBuildInsertValue(g->b, r, valid, 1, "");
}

LLVMValueRef cg_none(cg_ctx *g, const type *opt) {
  LLVMTypeRef t = cg_type(g, opt);
  return LLVMBuildInsertValue(g->b, LLVMGetUndef(t), LLVMConstInt(g->i1, 0, 0), 1, "none");
}

LLVMValueRef cg_convert(cg_ctx *g, LLVMValueRef v, const type *from, const type *to) {
  if (!from || !to || type_equal(from, to)) return v;
  if (to->kind == TY_OPTIONAL) return to_optional(g, v, from, to);
  if (from->kind == TY_OPTIONAL)   /* its value (None: undefined, as in Numba) */
    return cg_convert(g, LLVMBuildExtractValue(g->b, v, 0, ""), from->elem, to);
  if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->nelems == to->nelems)
    return convert_tuple(g, v, from, to);
  if (!type_is_scalar(from) || !type_is_scalar(to)) return v;
  if (from->kind == TY_COMPLEX || to->kind == TY_COMPLEX) return convert_complex(g, v, from, to);
  LLVMTypeRef tt = cg_scalar_type(g, to);
  if (to->kind == TY_BOOL) return cg_to_bool(g, v, from);
  if (from->kind == TY_BOOL)
    return to->kind == TY_FLOAT ? LLVMBuildUIToFP(g->b, v, tt, "") : LLVMBuildZExt(g->b, v, tt, "");
  if (from->kind == TY_INT && to->kind == TY_INT) {
    if (to->bits == from->bits) return v;
    if (to->bits < from->bits) return LLVMBuildTrunc(g->b, v, tt, "");
    return from->is_signed ? LLVMBuildSExt(g->b, v, tt, "") : LLVMBuildZExt(g->b, v, tt, "");
  }
  if (from->kind == TY_INT)
    return from->is_signed ? LLVMBuildSIToFP(g->b, v, tt, "") : LLVMBuildUIToFP(g->b, v, tt, "");
  if (to->kind == TY_INT) {
    /* saturating: an out-of-range float gives the nearest integer, never poison */
    LLVMValueRef args[1] = {v};
    LLVMTypeRef ov[2] = {tt, cg_scalar_type(g, from)};
    const char *name = to->is_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat";
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, ov, 2);
    return LLVMBuildCall2(g->b, LLVMIntrinsicGetType(g->c, id, ov, 2), f, args, 1, "");
  }
  if (to->bits == from->bits)   /* float16 <-> bfloat16: through float32, which holds both */
    return cg_convert(g, cg_convert(g, v, from, &ty_f32), &ty_f32, to);
  return to->bits > from->bits ? LLVMBuildFPExt(g->b, v, tt, "") : LLVMBuildFPTrunc(g->b, v, tt, "");
}

LLVMValueRef cg_expr_as(cg_ctx *g, node *e, const type *to) {
  return cg_convert(g, cg_expr(g, e), e->ty, to);
}


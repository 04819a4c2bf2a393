/*
 * numpy.c — NumPy in kernels, as Numba-CUDA supports it: the ufuncs on scalars
 * (np.sin, np.add, np.maximum, np.left_shift ...), the constants np.pi, np.e, np.inf,
 * np.nan, np.euler_gamma (the array constructors np.array, np.arange ... are
 * module_arrays.c's). The dtype casts np.float32(x) ... are types spelled by a path
 * (resolve.c's ix_type_from_path), not rows here.
 *
 * A ufunc's result type is NumPy's: the first loop of the ufunc's `types` list (kept
 * here in NumPy's order and notation, "ff->f") that every input can be cast to safely,
 * with Numba's two departures: a Python int is int64 and a float float64 (no
 * value-based casting), and when the inputs mix integers and floats any integer may
 * go to any float (numba/np/numpy_support.py, ufunc_can_cast: np.power(float32, int32)
 * is float32). Numba 0.56's NumPy types have no float16, so a float16 ("e") loop is
 * taken only when an input is float16. The lowering converts the inputs to the loop's
 * types and computes with cg_math.c's functions (cg_math_call) and cg_arith.c's
 * operators, so np.sin and math.sin are one implementation.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* How a ufunc computes, on inputs already converted to its loop's types. */
typedef enum ufunc_kind {
  UK_MATH,     /* cg_math.c's cg_math_call(lib): sin, sqrt, arctan2, hypot, power on floats */
  UK_ARITH,    /* cg_arith_op(op): add, floor_divide, remainder, bitwise_*, shifts */
  UK_TRUEDIV,  /* inputs converted to the (float) output type, then divided */
  UK_FLOORDIV, UK_REMAINDER, /* floats: CPython's divmod, as NumPy and Numba compute
                                it; integers: cg_arith.c's (by zero 0) */
  UK_POWER,    /* floats: pow; integers: by squaring */
  UK_FMOD,     /* C's remainder (sign of the dividend); integers by 0 give 0 */
  UK_UNARY,    /* op: OP_NEG, OP_POS, OP_INVERT (invert, bitwise_not) */
  UK_ABS, UK_SIGN, UK_SQUARE, UK_RECIPROCAL,
  UK_COMPARE,  /* op: OP_LT ...; bool */
  UK_LOGICAL,  /* op: OP_AND, OP_OR, OP_BITXOR (xor), OP_NOT; on truth values; bool */
  UK_MAX, UK_MIN,    /* NaN propagates */
  UK_FMAX, UK_FMIN,  /* NaN ignored when the other is a number */
  UK_CLASS,    /* lib: the math.c row (math.isnan ...); bool */
  UK_SIGNBIT,  /* bool: the sign bit */
  UK_ROUND,    /* lib: llvm.floor, llvm.ceil, llvm.trunc, llvm.roundeven; float result */
  UK_ANGLE,    /* lib: the math.c row, math.degrees or math.radians (Numba's formulas) */
} ufunc_kind;

typedef struct ufunc {
  const char *name;   /* numpy.<name> */
  int nin;
  ufunc_kind kind;
  int op;
  const char *lib;
  const char *loops;  /* NumPy's ufunc.types, first to last, without complex/object */
} ufunc;

/* NumPy's loop lists, built from its type characters: ? bool, b B h H i I l L q Q the
 * integers (l and q are both int64 on Linux), e f d float16/32/64. */
#define INT1 "b->b B->B h->h H->H i->i I->I l->l L->L q->q Q->Q "
#define INT2 "bb->b BB->B hh->h HH->H ii->i II->I ll->l LL->L qq->q QQ->Q "
#define FLT1 "e->e f->f d->d "
#define FLT2 "ee->e ff->f dd->d "
#define INT1_B "b->? B->? h->? H->? i->? I->? l->? L->? q->? Q->? "
#define INT2_B "bb->? BB->? hh->? HH->? ii->? II->? ll->? LL->? qq->? QQ->? "
#define FLT1_B "e->? f->? d->? "
#define FLT2_B "ee->? ff->? dd->? "
#define INT2_D "bb->d BB->d hh->d HH->d ii->d II->d ll->d LL->d qq->d QQ->d "
#define B1 "\?->\? "   /* bool, its ? escaped (two would make a trigraph) */
#define B2 "\?\?->\? "
#define CMP_LOOPS B2 INT2_B FLT2_B
#define CLASS_LOOPS B1 INT1_B FLT1_B

/* Every ufunc: X(name, inputs, kind, op, lib, loops). The first group is the list
 * Numba-CUDA documents (cudapysupported.rst, "NumPy support"); the rest are the other
 * scalar ufuncs of Numba's ufunc_db that kernels use. */
#define MATH1(X, n, lib) X(n, 1, UK_MATH, 0, lib, FLT1)
#define MATH2(X, n, lib) X(n, 2, UK_MATH, 0, lib, FLT2)
#define CMP(X, n, op) X(n, 2, UK_COMPARE, op, NULL, CMP_LOOPS)
#define UFUNCS(X) \
  MATH1(X, sin, "sin") MATH1(X, cos, "cos") MATH1(X, tan, "tan") \
  MATH1(X, arcsin, "asin") MATH1(X, arccos, "acos") MATH1(X, arctan, "atan") \
  MATH2(X, arctan2, "atan2") MATH2(X, hypot, "hypot") \
  MATH1(X, sinh, "sinh") MATH1(X, cosh, "cosh") MATH1(X, tanh, "tanh") \
  MATH1(X, arcsinh, "asinh") MATH1(X, arccosh, "acosh") MATH1(X, arctanh, "atanh") \
  X(deg2rad, 1, UK_ANGLE, 0, "math.radians", FLT1) \
  X(radians, 1, UK_ANGLE, 0, "math.radians", FLT1) \
  X(rad2deg, 1, UK_ANGLE, 0, "math.degrees", FLT1) \
  X(degrees, 1, UK_ANGLE, 0, "math.degrees", FLT1) \
  CMP(X, greater, OP_GT) CMP(X, greater_equal, OP_GE) CMP(X, less, OP_LT) \
  CMP(X, less_equal, OP_LE) CMP(X, not_equal, OP_NE) CMP(X, equal, OP_EQ) \
  MATH1(X, log, "log") MATH1(X, log2, "log2") MATH1(X, log10, "log10") \
  X(logical_and, 2, UK_LOGICAL, OP_AND, NULL, CMP_LOOPS) \
  X(logical_or, 2, UK_LOGICAL, OP_OR, NULL, CMP_LOOPS) \
  X(logical_xor, 2, UK_LOGICAL, OP_BITXOR, NULL, CMP_LOOPS) \
  X(logical_not, 1, UK_LOGICAL, OP_NOT, NULL, CLASS_LOOPS) \
  X(maximum, 2, UK_MAX, 0, NULL, B2  INT2 FLT2) \
  X(minimum, 2, UK_MIN, 0, NULL, B2  INT2 FLT2) \
  X(fmax, 2, UK_FMAX, 0, NULL, B2  INT2 FLT2) \
  X(fmin, 2, UK_FMIN, 0, NULL, B2  INT2 FLT2) \
  X(bitwise_and, 2, UK_ARITH, OP_BITAND, NULL, B2  INT2) \
  X(bitwise_or, 2, UK_ARITH, OP_BITOR, NULL, B2  INT2) \
  X(bitwise_xor, 2, UK_ARITH, OP_BITXOR, NULL, B2  INT2) \
  X(invert, 1, UK_UNARY, OP_INVERT, NULL, B1  INT1) \
  X(bitwise_not, 1, UK_UNARY, OP_INVERT, NULL, B1  INT1) \
  X(left_shift, 2, UK_ARITH, OP_LSHIFT, NULL, INT2) \
  X(right_shift, 2, UK_ARITH, OP_RSHIFT, NULL, INT2) \
  \
  X(add, 2, UK_ARITH, OP_ADD, NULL, B2  INT2 FLT2) \
  X(subtract, 2, UK_ARITH, OP_SUB, NULL, INT2 FLT2) \
  X(multiply, 2, UK_ARITH, OP_MUL, NULL, B2  INT2 FLT2) \
  X(divide, 2, UK_TRUEDIV, 0, NULL, INT2_D FLT2) \
  X(true_divide, 2, UK_TRUEDIV, 0, NULL, INT2_D FLT2) \
  X(floor_divide, 2, UK_FLOORDIV, OP_FLOORDIV, NULL, INT2 FLT2) \
  X(remainder, 2, UK_REMAINDER, OP_MOD, NULL, INT2 FLT2) \
  X(mod, 2, UK_REMAINDER, OP_MOD, NULL, INT2 FLT2) \
  X(fmod, 2, UK_FMOD, 0, NULL, INT2 FLT2) \
  X(power, 2, UK_POWER, 0, "pow", INT2 FLT2) \
  X(negative, 1, UK_UNARY, OP_NEG, NULL, INT1 FLT1) \
  X(positive, 1, UK_UNARY, OP_POS, NULL, INT1 FLT1) \
  X(absolute, 1, UK_ABS, 0, NULL, B1  INT1 FLT1) \
  X(abs, 1, UK_ABS, 0, NULL, B1  INT1 FLT1) \
  X(fabs, 1, UK_ABS, 0, NULL, FLT1) \
  X(sign, 1, UK_SIGN, 0, NULL, INT1 FLT1) \
  X(square, 1, UK_SQUARE, 0, NULL, INT1 FLT1) \
  X(reciprocal, 1, UK_RECIPROCAL, 0, NULL, INT1 FLT1) \
  MATH1(X, sqrt, "sqrt") MATH1(X, cbrt, "cbrt") MATH1(X, exp, "exp") \
  MATH1(X, exp2, "exp2") MATH1(X, expm1, "expm1") MATH1(X, log1p, "log1p") \
  MATH2(X, copysign, "copysign") \
  X(floor, 1, UK_ROUND, 0, "llvm.floor", FLT1) \
  X(ceil, 1, UK_ROUND, 0, "llvm.ceil", FLT1) \
  X(trunc, 1, UK_ROUND, 0, "llvm.trunc", FLT1) \
  X(rint, 1, UK_ROUND, 0, "llvm.roundeven", FLT1) \
  X(isnan, 1, UK_CLASS, 0, "math.isnan", CLASS_LOOPS) \
  X(isinf, 1, UK_CLASS, 0, "math.isinf", CLASS_LOOPS) \
  X(isfinite, 1, UK_CLASS, 0, "math.isfinite", CLASS_LOOPS) \
  X(signbit, 1, UK_SIGNBIT, 0, NULL, FLT1_B)

#define UFUNC_SPEC(n, nin, kind, op, lib, loops) {#n, nin, kind, op, lib, loops},
#define UFUNC_ID(n, nin, kind, op, lib, loops) UF_##n,
enum { UFUNCS(UFUNC_ID) UF_COUNT };
static const ufunc ufuncs[UF_COUNT] = { UFUNCS(UFUNC_SPEC) };

static const ufunc *ufunc_of(const builtin *b) { return &ufuncs[b->op]; }

/* ---- typing: NumPy's loop selection ---- */

static const type *type_of_char(char c) {
  switch (c) {
  case '?': return &ty_bool;
  case 'b': return &ty_i8;  case 'B': return &ty_u8;
  case 'h': return &ty_i16; case 'H': return &ty_u16;
  case 'i': return &ty_i32; case 'I': return &ty_u32;
  case 'l': case 'q': return &ty_i64;
  case 'L': case 'Q': return &ty_u64;
  case 'e': return &ty_f16; case 'f': return &ty_f32;
  default: return &ty_f64;
  }
}

/* NumPy's 'same_kind' casting of a loop's result to an out array's dtype: the safe
 * casts, and any cast that keeps or raises the kind, bool < unsigned < signed < float
 * (float64 into float32, uint64 into int8; never float into int, int into unsigned). */
static int kind_rank(const type *t) {
  return t->kind == TY_BOOL ? 0 : t->kind == TY_FLOAT ? 3 : t->is_signed ? 2 : 1;
}

static bool can_cast_same_kind(const type *from, const type *to, bool mixed) {
  return type_can_cast_safe(from, to, mixed) || kind_rank(to) >= kind_rank(from);
}

/* The first loop of u that takes the inputs ts and, with an out array of dtype to (NULL:
 * none), whose result casts to it ('same_kind'; Numba's strict_ufunc_typing skips the
 * loops that do not); its input types to in[], its output type returned (NULL: none). */
static const type *match_loop(const ufunc *u, const type **ts, const type **in, const type *to) {
  bool has_int = false, has_float = false, has_half = false;
  for (int k = 0; k < u->nin; k++) {
    has_int |= ts[k]->kind == TY_INT;
    has_float |= ts[k]->kind == TY_FLOAT;
    has_half |= ts[k] == &ty_f16;
  }
  bool mixed = has_int && has_float;
  for (const char *p = u->loops; *p; p += u->nin + 4) {   /* "ab->c " */
    bool ok = true;
    for (int k = 0; k < u->nin && ok; k++) {
      in[k] = type_of_char(p[k]);
      ok = type_can_cast_safe(ts[k], in[k], mixed) && (p[k] != 'e' || has_half);
    }
    const type *res = type_of_char(p[u->nin + 2]);
    if (ok && (!to || can_cast_same_kind(res, to, mixed))) return res;
  }
  return NULL;
}

/* The types of a ufunc call's inputs (an array's dtype), checked; NULL after an error. */
static const type **input_types(infer_ctx *ic, node *e, const ufunc *u, const char *fname) {
  const type **ts = arena_alloc(ic->ar, sizeof *ts * (size_t)u->nin);
  for (int k = 0; k < u->nin; k++) {
    node *a = e->list.items[k];
    if (a->ty->kind == TY_ARRAY) {
      ts[k] = a->ty->elem;
      if (ts[k]->kind == TY_COMPLEX || !type_is_scalar(ts[k])) {
        ix_error(ic, a->sp, "%s needs an array of real numbers, not %s", fname, ix_tname(ic, a->ty));
        return NULL;
      }
      continue;
    }
    if (!ix_need_real(ic, a, fname)) return NULL;
    ts[k] = a->ty;   /* a Python literal is int64 or float64: no value-based casting */
  }
  return ts;
}

static void no_loop(infer_ctx *ic, node *e, const ufunc *u, const char *fname, const type **ts) {
  ix_error(ic, e->sp, "%s is not supported for %s%s%s: no loop of NumPy's (%.*s) takes "
       "them safely", fname, ix_tname(ic, ts[0]), u->nin == 2 ? " and " : "",
       u->nin == 2 ? ix_tname(ic, ts[1]) : "", (int)strlen(u->loops) - 1, u->loops);
}

/* A ufunc on arrays, np.add(a, b, out) or np.sin(a, out=out): what Numba-CUDA compiles,
 * each thread running the whole loop. The output array is required (a kernel cannot
 * allocate one); the inputs broadcast onto its shape; the call's value is out. */
typedef struct ufunc_call {
  const type **in;    /* the loop's input types */
  const type *res;    /* the loop's output type, cast to out's dtype */
  node *out;
} ufunc_call;

/* The out array of a call, positional (last) or out=; NULL if none (after an error if
 * the call is malformed). */
static node *out_arg(infer_ctx *ic, node *e, const ufunc *u, const char *fname, bool *bad) {
  int n = e->list.len;
  *bad = true;
  for (int k = 0; k < e->kwargs.len; k++) {
    node *kw = e->kwargs.items[k];
    if (strcmp(kw->str, "out") != 0 || e->kwargs.len > 1 || n != u->nin) {
      ix_error(ic, kw->sp, "%s takes only out= as a keyword here, with %d input%s before it",
           fname, u->nin, u->nin == 1 ? "" : "s");
      return NULL;
    }
  }
  if (n < u->nin || n > u->nin + 1) {
    ix_error(ic, e->sp, "%s takes %d input%s and an optional output array, %d argument%s given",
         fname, u->nin, u->nin == 1 ? "" : "s", n, n == 1 ? "" : "s");
    return NULL;
  }
  *bad = false;
  if (e->kwargs.len) return ((node *)e->kwargs.items[0])->a;
  return n > u->nin ? e->list.items[u->nin] : NULL;
}

static bool check_out(infer_ctx *ic, node *e, node *out, const ufunc *u, const char *fname) {
  const type *ot = out->ty;
  if (ot->kind != TY_ARRAY || ot->elem->kind == TY_COMPLEX || !type_is_scalar(ot->elem)) {
    ix_error(ic, out->sp, "%s's output must be an array of real numbers, not %s", fname, ix_tname(ic, ot));
    return false;
  }
  if (out->kind == N_NAME && out->sym && out->sym->kind == SYM_CONST) {
    ix_error(ic, out->sp, "module array '%s' is read-only in kernels and cannot be %s's "
         "output (a global NumPy array is frozen into the kernel as a constant, as in Numba)",
         out->sym->name, fname);
    return false;
  }
  for (int k = 0; k < u->nin; k++) {
    node *a = e->list.items[k];
    if (a->ty->kind == TY_ARRAY && a->ty->ndim > ot->ndim) {
      ix_error(ic, a->sp, "%s's input has %d dimensions, more than its output array's %d: "
           "NumPy cannot broadcast it onto the output", fname, a->ty->ndim, ot->ndim);
      return false;
    }
  }
  return ix_mark_view_of(ic, out);   /* the array out is (a view of) is written */
}

static const type *ix_ufunc_arrays(infer_ctx *ic, node *e, const ufunc *u, const char *fname,
                                   node *out, const type **ts) {
  if (!check_out(ic, e, out, u, fname)) return NULL;
  const type *ot = out->ty, **in = arena_alloc(ic->ar, sizeof *in * (size_t)u->nin);
  if (!match_loop(u, ts, in, NULL)) {
    no_loop(ic, e, u, fname, ts);
    return NULL;
  }
  const type *res = match_loop(u, ts, in, ot->elem);
  if (!res) {
    const type *first = match_loop(u, ts, in, NULL);
    ix_error(ic, out->sp, "%s computes %s here, which NumPy's 'same_kind' casting does not "
         "store into an output array of %s (use an output array of %s, or convert the "
         "inputs first)", fname, ix_tname(ic, first), ix_tname(ic, ot->elem), ix_tname(ic, first));
    return NULL;
  }
  ufunc_call *c = arena_alloc(ic->ar, sizeof *c);
  *c = (ufunc_call){in, res, out};
  e->aux_ptr = c;
  return ix_set_type(e, ot, false);
}

/* np.sin(x), np.add(x, y) ... on numbers: the loop's output type; with an output array
 * (np.sin(a, out)), on arrays and numbers broadcast onto it. */
static const type *ix_ufunc(infer_ctx *ic, node *e, const builtin *b) {
  const ufunc *u = ufunc_of(b);
  const char *fname = builtin_user_name(b);
  bool bad;
  node *out = out_arg(ic, e, u, fname, &bad);
  if (bad || !ix_args(ic, e)) return NULL;
  const type **ts = input_types(ic, e, u, fname);
  if (!ts || (out && !out->ty)) return NULL;
  if (out) return ix_ufunc_arrays(ic, e, u, fname, out, ts);
  for (int k = 0; k < u->nin; k++) {
    node *a = e->list.items[k];
    if (a->ty->kind == TY_ARRAY) {
      ix_error(ic, a->sp, "%s on arrays needs the output array as its last argument, as "
           "Numba-CUDA does (%s(%sout); kernels cannot allocate the result), or call it "
           "on elements (%s(%s))", fname, fname, u->nin == 1 ? "a, " : "a, b, ", fname,
           u->nin == 1 ? "a[i]" : "a[i], b[i]");
      return NULL;
    }
  }
  const type **in = arena_alloc(ic->ar, sizeof *in * (size_t)u->nin);
  const type *res = match_loop(u, ts, in, NULL);
  if (!res) {
    no_loop(ic, e, u, fname, ts);
    return NULL;
  }
  e->aux_ptr = in;
  return ix_set_type(e, res, false);
}

/* ---- lowering ---- */

/* float16 computes in float32 (libdevice and libm have no half functions) */
static const type *compute_type(const type *t) { return t == &ty_f16 ? &ty_f32 : t; }

static LLVMValueRef ufunc_math(cg_ctx *g, const ufunc *u, LLVMValueRef *v, const type *t) {
  const type *ct = compute_type(t);
  for (int k = 0; k < u->nin; k++) v[k] = cg_convert(g, v[k], t, ct);
  return cg_convert(g, cg_math_call(g, u->lib, ct, v, (unsigned)u->nin), ct, t);
}

static LLVMValueRef is_nan(cg_ctx *g, LLVMValueRef v) {
  return LLVMBuildFCmp(g->b, LLVMRealUNO, v, v, "");
}

/* maximum/minimum: (a >= b or isnan(a)) ? a : b, NaN winning (npy_maximum); fmax/fmin:
 * (a >= b or isnan(b)) ? a : b, NaN losing to a number (C's fmax). */
static LLVMValueRef ufunc_extremum(cg_ctx *g, ufunc_kind k, LLVMValueRef a, LLVMValueRef b,
                                   const type *t) {
  bool is_max = k == UK_MAX || k == UK_FMAX;
  LLVMValueRef keep = cg_compare_op(g, is_max ? OP_GE : OP_LE, a, b, t);
  if (t->kind == TY_FLOAT)
    keep = LLVMBuildOr(g->b, keep, is_nan(g, (k == UK_MAX || k == UK_MIN) ? a : b), "");
  return LLVMBuildSelect(g->b, keep, a, b, "");
}

/* fmod: C's remainder (math.c's fmod: exact on the GPU too); on integers, by zero
 * (and INT_MIN by -1) 0, as NumPy gives. */
static LLVMValueRef ufunc_fmod(cg_ctx *g, LLVMValueRef a, LLVMValueRef b, const type *t) {
  if (t->kind == TY_FLOAT) {
    const type *ct = compute_type(t);
    LLVMValueRef ab[2] = {cg_convert(g, a, t, ct), cg_convert(g, b, t, ct)};
    return cg_convert(g, cg_math_call(g, "fmod", ct, ab, 2), ct, t);
  }
  LLVMTypeRef lt = LLVMTypeOf(a);
  LLVMValueRef zero = LLVMConstNull(lt), one = LLVMConstInt(lt, 1, 0);
  LLVMValueRef bad = LLVMBuildICmp(g->b, LLVMIntEQ, b, zero, "");
  if (t->is_signed)
    bad = LLVMBuildOr(g->b, bad, LLVMBuildICmp(g->b, LLVMIntEQ, b, LLVMConstAllOnes(lt), ""), "");
  LLVMValueRef sb = LLVMBuildSelect(g->b, bad, one, b, "");
  LLVMValueRef r = t->is_signed ? LLVMBuildSRem(g->b, a, sb, "") : LLVMBuildURem(g->b, a, sb, "");
  return LLVMBuildSelect(g->b, bad, zero, r, "");
}

/* sign: -1, 0 or 1 in x's type; NaN stays NaN (npy_sign). */
static LLVMValueRef ufunc_sign(cg_ctx *g, LLVMValueRef x, const type *t) {
  LLVMTypeRef lt = LLVMTypeOf(x);
  bool fl = t->kind == TY_FLOAT;
  LLVMValueRef zero = LLVMConstNull(lt);
  LLVMValueRef one = fl ? LLVMConstReal(lt, 1) : LLVMConstInt(lt, 1, 0);
  LLVMValueRef m1 = fl ? LLVMConstReal(lt, -1) : LLVMConstAllOnes(lt);
  LLVMValueRef pos = cg_compare_op(g, OP_GT, x, zero, t), neg = cg_compare_op(g, OP_LT, x, zero, t);
  LLVMValueRef r = LLVMBuildSelect(g->b, neg, m1, fl ? LLVMBuildSelect(g->b, is_nan(g, x), x, zero, "") : zero, "");
  return LLVMBuildSelect(g->b, pos, one, r, "");
}

/* reciprocal: 1 / x; on integers C's division (0 unless x is 1 or -1; 0 for x = 0). */
static LLVMValueRef ufunc_reciprocal(cg_ctx *g, LLVMValueRef x, const type *t) {
  LLVMTypeRef lt = LLVMTypeOf(x);
  if (t->kind == TY_FLOAT) return LLVMBuildFDiv(g->b, LLVMConstReal(lt, 1), x, "");
  LLVMValueRef one = LLVMConstInt(lt, 1, 0);
  LLVMValueRef r = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, x, one, ""), one,
                                   LLVMConstNull(lt), "");
  if (t->is_signed)
    r = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, x, LLVMConstAllOnes(lt), ""),
                        LLVMConstAllOnes(lt), r, "");
  return r;
}

static LLVMValueRef ufunc_unary(cg_ctx *g, int op, LLVMValueRef x, const type *t) {
  if (op == OP_POS) return x;
  if (op == OP_INVERT) return LLVMBuildNot(g->b, x, "");
  return t->kind == TY_FLOAT ? LLVMBuildFNeg(g->b, x, "") : LLVMBuildNeg(g->b, x, "");
}

static LLVMValueRef ufunc_abs(cg_ctx *g, LLVMValueRef x, const type *t) {
  if (t->kind == TY_FLOAT) return cg_call_intrinsic(g, "llvm.fabs", LLVMTypeOf(x), &x, 1);
  if (t->kind == TY_BOOL || !t->is_signed) return x;
  LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, x, LLVMConstNull(LLVMTypeOf(x)), "");
  return LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, x, ""), x, "");
}

static LLVMValueRef ufunc_logical(cg_ctx *g, int op, LLVMValueRef *v, const type **in) {
  LLVMValueRef a = cg_to_bool(g, v[0], in[0]);
  if (op == OP_NOT) return LLVMBuildNot(g->b, a, "");
  LLVMValueRef b = cg_to_bool(g, v[1], in[1]);
  if (op == OP_AND) return LLVMBuildAnd(g->b, a, b, "");
  if (op == OP_OR) return LLVMBuildOr(g->b, a, b, "");
  return LLVMBuildXor(g->b, a, b, "");
}

/* floor_divide and remainder: Python's // and % (cg_arith.c), which on floats are
 * npy_divmod's algorithm, CPython's float_divmod (-5.0 // inf is -1, not floor(a / b)) */
static LLVMValueRef ufunc_divmod(cg_ctx *g, const ufunc *u, LLVMValueRef a, LLVMValueRef b,
                                 const type *t) {
  if (t->kind != TY_FLOAT) return cg_arith_op(g, u->op, a, b, t);
  const type *ct = compute_type(t);
  a = cg_convert(g, a, t, ct), b = cg_convert(g, b, t, ct);
  return cg_convert(g, cg_arith_op(g, u->op, a, b, ct), ct, t);
}

/* add and multiply on bools are `or` and `and` (NumPy's bool loops) */
static LLVMValueRef ufunc_arith(cg_ctx *g, int op, LLVMValueRef a, LLVMValueRef b, const type *t) {
  if (t->kind == TY_BOOL && op == OP_ADD) return LLVMBuildOr(g->b, a, b, "");
  if (t->kind == TY_BOOL && op == OP_MUL) return LLVMBuildAnd(g->b, a, b, "");
  return cg_arith_op(g, op, a, b, t);
}

static LLVMValueRef ufunc_round(cg_ctx *g, const ufunc *u, LLVMValueRef x, const type *t) {
  const type *ct = compute_type(t);
  x = cg_convert(g, x, t, ct);
  return cg_convert(g, cg_call_intrinsic(g, u->lib, LLVMTypeOf(x), &x, 1), ct, t);
}

static LLVMValueRef ufunc_signbit(cg_ctx *g, LLVMValueRef x, const type *t) {
  LLVMTypeRef it = LLVMIntTypeInContext(g->c, (unsigned)t->bits);
  LLVMValueRef bits = LLVMBuildBitCast(g->b, x, it, "");
  return LLVMBuildICmp(g->b, LLVMIntSLT, bits, LLVMConstNull(it), "");
}

/* u on the values v, already of the loop's input types in[], to its output type out. */
static LLVMValueRef ufunc_compute(cg_ctx *g, const ufunc *u, LLVMValueRef *v, const type **in,
                                  const type *out) {
  const type *t = in[0];
  switch (u->kind) {
  case UK_MATH: return ufunc_math(g, u, v, t);
  case UK_ARITH: return ufunc_arith(g, u->op, v[0], v[1], t);
  case UK_TRUEDIV:
    return LLVMBuildFDiv(g->b, cg_convert(g, v[0], in[0], out), cg_convert(g, v[1], in[1], out), "");
  case UK_POWER:
    return t->kind == TY_FLOAT ? ufunc_math(g, u, v, t) : cg_int_pow(g, v[0], v[1], t);
  case UK_FLOORDIV: case UK_REMAINDER: return ufunc_divmod(g, u, v[0], v[1], t);
  case UK_FMOD: return ufunc_fmod(g, v[0], v[1], t);
  case UK_UNARY: return ufunc_unary(g, u->op, v[0], t);
  case UK_ABS: return ufunc_abs(g, v[0], t);
  case UK_SIGN: return ufunc_sign(g, v[0], t);
  case UK_SQUARE: return ufunc_arith(g, OP_MUL, v[0], v[0], t);
  case UK_RECIPROCAL: return ufunc_reciprocal(g, v[0], t);
  case UK_COMPARE: return cg_compare_op(g, u->op, v[0], v[1], t);
  case UK_LOGICAL: return ufunc_logical(g, u->op, v, in);
  case UK_MAX: case UK_MIN: case UK_FMAX: case UK_FMIN:
    return ufunc_extremum(g, u->kind, v[0], v[1], t);
  case UK_SIGNBIT: return ufunc_signbit(g, v[0], t);
  case UK_ROUND: return ufunc_round(g, u, v[0], t);
  case UK_CLASS: case UK_ANGLE:
    /* math.c's math.isnan, math.degrees ... (degrees computing in the loop's type) */
    return cg_math_unary_value(g, builtin_find(kcc_builtins(), u->lib), v[0], t);
  }
  return NULL;
}

/* ---- ufuncs on arrays: a loop nest over the output array (cg_elementwise.c) ---- */

typedef struct ufunc_loop {
  cg_loop_nest loops;   /* first: the loop body gets it back as a ufunc_loop */
  const ufunc *u;
  const ufunc_call *c;
  const type *const *at;       /* per input: its array type, or NULL for a number */
  LLVMValueRef v[2], data[2];  /* per input: the number (converted), or the array's data */
  LLVMValueRef *str[2], *ostr, odata;   /* strides on out's axes (0: broadcast) */
} ufunc_loop;

/* One element: each input read (in the loop's type), computed, cast to out's dtype and
 * stored; an input that is out itself is read before the store. */
static void ufunc_element(cg_ctx *g, cg_loop_nest *n) {
  ufunc_loop *l = (ufunc_loop *)n;
  const ufunc_call *c = l->c;
  LLVMValueRef v[2];
  for (int k = 0; k < l->u->nin; k++) {
    v[k] = l->v[k];
    if (!l->at[k]) continue;
    const type *el = l->at[k]->elem;
    v[k] = LLVMBuildLoad2(g->b, cg_mem_type(g, el), cg_strided_elem_ptr(g, el, l->data[k], n->idx, l->str[k], n->nd), "");
    if (el->kind == TY_BOOL) v[k] = LLVMBuildICmp(g->b, LLVMIntNE, v[k], LLVMConstInt(g->i8, 0, 0), "");
    v[k] = cg_convert(g, v[k], el, c->in[k]);
  }
  const type *oel = c->out->ty->elem;
  LLVMValueRef r = cg_convert(g, ufunc_compute(g, l->u, v, c->in, c->res), c->res, oel);
  if (oel->kind == TY_BOOL) r = LLVMBuildZExt(g->b, r, g->i8, "");
  LLVMBuildStore(g->b, r, cg_strided_elem_ptr(g, oel, l->odata, n->idx, l->ostr, n->nd));
}

/* The arguments, left to right; the arrays' strides on out's axes and whether their
 * extents broadcast onto out's (i1; a mismatch is reported when bounds-checking). */
static LLVMValueRef ufunc_operands(cg_ctx *g, node *e, ufunc_loop *l, LLVMValueRef *out) {
  const ufunc_call *c = l->c;
  int nd = l->loops.nd;
  size_t sz = sizeof(LLVMValueRef) * (size_t)nd;
  LLVMValueRef arr[2];
  const type **at = arena_alloc(g->ar, sizeof *at * 2);
  for (int k = 0; k < l->u->nin; k++) {
    node *a = e->list.items[k];
    at[k] = a->ty->kind == TY_ARRAY ? a->ty : NULL;
    if (at[k]) arr[k] = cg_expr(g, a);
    else l->v[k] = cg_expr_as(g, a, c->in[k]);
  }
  l->at = at;
  *out = cg_expr(g, c->out);
  l->odata = LLVMBuildExtractValue(g->b, *out, 0, "out.data");
  l->loops.ext = arena_alloc(g->ar, sz), l->ostr = arena_alloc(g->ar, sz);
  for (int k = 0; k < nd; k++) {
    l->loops.ext[k] = cg_array_extent(g, *out, k);
    l->ostr[k] = cg_array_stride(g, *out, c->out->ty, k);
  }
  cg_broadcast bc;
  cg_broadcast_init(g, &bc);
  for (int k = 0; k < l->u->nin; k++) {
    if (!at[k]) continue;
    l->data[k] = LLVMBuildExtractValue(g->b, arr[k], 0, "in.data");
    l->str[k] = arena_alloc(g->ar, sz);
    cg_broadcast_source(g, &bc, nd, l->loops.ext, arr[k], at[k], l->str[k], NULL);
  }
  return cg_broadcast_check(g, &bc, e->sp, nd, l->loops.ext);
}

static LLVMValueRef cg_ufunc_arrays(cg_ctx *g, node *e, const ufunc *u) {
  ufunc_loop l = {0};
  l.u = u;
  l.c = e->aux_ptr;
  l.loops.nd = l.c->out->ty->ndim;
  l.loops.body = ufunc_element;
  LLVMValueRef out, ok = ufunc_operands(g, e, &l, &out);
  LLVMBasicBlockRef run = cg_new_bb(g, "ufunc.run"), done = cg_new_bb(g, "ufunc.end");
  LLVMBuildCondBr(g->b, ok, run, done);
  LLVMPositionBuilderAtEnd(g->b, run);
  cg_loop_nest_build(g, &l.loops);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  return out;
}

static LLVMValueRef cg_ufunc(cg_ctx *g, node *e, const builtin *b) {
  const ufunc *u = ufunc_of(b);
  if (e->ty->kind == TY_ARRAY) return cg_ufunc_arrays(g, e, u);
  const type **in = e->aux_ptr;
  LLVMValueRef v[2];
  for (int k = 0; k < u->nin; k++) v[k] = cg_expr_as(g, e->list.items[k], in[k]);
  return ufunc_compute(g, u, v, in, e->ty);
}

/* a ufunc's row, from the UFUNCS table: ufuncs[op] is its spec */
#define UFUNC_ROW(n, nin, kind_, op_, lib_, loops_) \
  {.path = "numpy." #n, .kind = BK_FUNCTION, .min_args = nin, .max_args = -1, \
   .flags = BF_PURE, .op = UF_##n, .typing = ix_ufunc, .lower = cg_ufunc},

const builtin builtins_numpy[] = {
  UFUNCS(UFUNC_ROW)
  /* float64 constants: math.c's typing and lowering (math.pi ...) */
  {.path = "numpy.pi", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 3.14159265358979323846, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "numpy.e", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 2.71828182845904523536, .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "numpy.inf", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE, .value = INFINITY,
   .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "numpy.nan", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE, .value = NAN,
   .typing = ix_math_constant, .lower = cg_math_constant},
  {.path = "numpy.euler_gamma", .kind = BK_VALUE, .flags = BF_CONSTANT | BF_PURE,
   .value = 0.57721566490153286061, .typing = ix_math_constant, .lower = cg_math_constant},
  {NULL},
};

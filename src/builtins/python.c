/*
 * python.c — Python's builtin functions in kernels: range, enumerate, zip, reversed (in
 * for loops only), len, abs, min, max, round (also with a number of digits), pow,
 * divmod, int, float, bool, and a scalar type called as a cast (float32(x)).
 * round(x, ndigits) is written in the kernel language (lib/kcc/python.k).
 */
#include <limits.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* ---- typing ---- */

/* range, enumerate, zip, reversed: only iterables of for loops (infer_loops.c), as
 * kcc has no iterator values. */
static const type *ix_loop_only(infer_ctx *ic, node *e, const builtin *b) {
  ix_error(ic, e->sp, "%s() can only be used in a for loop (for x in %s(...))", b->path, b->path);
  return NULL;
}

static const type *ix_len(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  if (!ix_args(ic, e)) return NULL;
  if (e->list.items[0]->ty->kind != TY_ARRAY && e->list.items[0]->ty->kind != TY_TUPLE) {
    ix_error(ic, e->list.items[0]->sp, "len() needs an array or tuple, not %s",
         ix_tname(ic, e->list.items[0]->ty));
    return NULL;
  }
  return ix_set_type(e, &ty_i64, false);
}

/* abs(x): x's type (int64 for a bool); the modulus, a float, of a complex. */
static const type *ix_abs(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!ix_need_scalar(ic, a, "abs")) return NULL;
  if (a->ty->kind == TY_COMPLEX) return ix_set_type(e, type_complex_part(a->ty), a->weak);
  return ix_set_type(e, a->ty == &ty_bool ? &ty_i64 : a->ty, a->weak);
}

/* min(a, b, ...), max(...): the arguments promoted (any number of them) */
static const type *ix_minmax(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = b->path;
  if (!ix_check_argc(ic, e, fname, 2, INT_MAX) || !ix_args(ic, e)) return NULL;
  const type *t = NULL;
  bool weak = false;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (!ix_need_real(ic, a, fname)) return NULL;
    if (!t) { t = a->ty; weak = a->weak; continue; }
    bool w;
    t = ix_promote(t, weak, NULL, a->ty, a->weak, a, &w);
    weak = w;
  }
  return ix_set_type(e, t, weak);
}

#define PYTHON_LIB "kcc.python"

/* round(x, ndigits): float32 for float32 (and float16), float64 otherwise, as Numba's
 * Round; computed in float64 by the library's _kc_round_digits (e->aux_ptr). */
static const type *ix_round_digits(infer_ctx *ic, node *e) {
  if (!ix_args(ic, e)) return NULL;
  node *x = e->list.items[0], *n = e->list.items[1];
  if (!ix_need_real(ic, x, "round") || !ix_need_int(ic, n, "round", "number of digits"))
    return NULL;
  const type *params[2] = {&ty_f64, &ty_i64};
  e->aux_ptr = ix_lib_instance(ic, PYTHON_LIB, "_kc_round_digits", params, 2, e->sp);
  if (!e->aux_ptr) return NULL;
  bool f32 = x->ty->kind == TY_FLOAT && x->ty->bits < 64;
  return ix_set_type(e, f32 ? &ty_f32 : &ty_f64, false);
}

/* round(x): an integer stays, a float rounds (half to even) to int64 */
static const type *ix_round(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  if (!ix_check_argc(ic, e, "round", 1, 2)) return NULL;
  if (e->list.len == 2) return ix_round_digits(ic, e);
  if (!ix_args(ic, e)) return NULL;
  if (!ix_need_real(ic, e->list.items[0], "round")) return NULL;
  return ix_set_type(e, e->list.items[0]->ty->kind == TY_INT ? e->list.items[0]->ty : &ty_i64,
                false);
}

/* pow(x, y): x ** y, typed (and later lowered) as that expression, kept in e->c */
static const type *ix_pow(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  node *bin = node_new(ic->ar, N_BINOP, e->sp);
  bin->op = OP_POW;
  bin->a = e->list.items[0];
  bin->b = e->list.items[1];
  e->c = bin;
  if (!ix_expr(ic, bin)) return NULL;
  return ix_set_type(e, bin->ty, bin->weak);
}

/* divmod(a, b) -> (a // b, a % b) in the promoted type, as Numba's DivMod; Python's //
 * and % (cg_arith.c: on floats CPython's float_divmod). */
static const type *ix_divmod(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  if (!ix_args(ic, e)) return NULL;
  node *x = e->list.items[0], *y = e->list.items[1];
  if (!ix_need_real(ic, x, "divmod") || !ix_need_real(ic, y, "divmod")) return NULL;
  bool weak;
  const type *t = ix_promote(x->ty, x->weak, x, y->ty, y->weak, y, &weak);
  if (t->kind == TY_BOOL) t = &ty_i64;
  const type *el[2] = {t, t};
  return ix_set_type(e, type_tuple(ic->ar, el, 2), false);
}

static const type *ix_int(infer_ctx *ic, node *e, const builtin *b) {
  return ix_cast(ic, e, &ty_i64, b->path);
}

static const type *ix_float(infer_ctx *ic, node *e, const builtin *b) {
  return ix_cast(ic, e, &ty_f64, b->path);
}

static const type *ix_bool(infer_ctx *ic, node *e, const builtin *b) {
  return ix_cast(ic, e, &ty_bool, b->path);
}


/* ---- lowering ---- */

/* A float32 or float64 argument (not a literal of another kind, not float16 or
 * bfloat16). */
static bool plain_float_arg(const node *a) {
  return a->ty->kind == TY_FLOAT && (a->ty->bits == 32 || a->ty->bits == 64);
}

/* min(a, b, ...), max(...): op 1 for max. Two float32/float64 arguments are Numba-CUDA's
 * fmin/fmax (libdevice's __nv_fmax: a NaN loses to a number; llvm.maxnum here); other
 * calls Python's algorithm, as Numba's do_minmax: a later value replaces the kept one
 * only when greater (smaller), so a NaN kept first stays. */
static LLVMValueRef cg_minmax(cg_ctx *g, node *e, const builtin *b) {
  bool is_max = b->op;
  const type *t = e->ty;
  if (e->list.len == 2 && plain_float_arg(e->list.items[0]) &&
      plain_float_arg(e->list.items[1])) {
    LLVMValueRef ab[2] = {cg_expr_as(g, e->list.items[0], t), cg_expr_as(g, e->list.items[1], t)};
    return cg_call_intrinsic(g, is_max ? "llvm.maxnum" : "llvm.minnum", LLVMTypeOf(ab[0]), ab, 2);
  }
  LLVMValueRef r = cg_expr_as(g, e->list.items[0], t);
  for (int i = 1; i < e->list.len; i++) {
    LLVMValueRef v = cg_expr_as(g, e->list.items[i], t);
    /* Python: min keeps the first of equal values; a new value wins only if smaller */
    LLVMValueRef better = cg_compare_op(g, is_max ? OP_GT : OP_LT, v, r, t);
    r = LLVMBuildSelect(g->b, better, v, r, "");
  }
  return r;
}

static LLVMValueRef cg_abs(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  node *a = e->list.items[0];
  if (a->ty->kind == TY_COMPLEX) return cx_abs(g, cg_expr(g, a), a->ty);
  const type *t = e->ty;
  LLVMValueRef v = cg_expr_as(g, e->list.items[0], t);
  if (t->kind == TY_FLOAT) return cg_call_intrinsic(g, "llvm.fabs", LLVMTypeOf(v), &v, 1);
  if (!t->is_signed) return v;
  LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, v, LLVMConstNull(LLVMTypeOf(v)), "");
  return LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, v, ""), v, "");
}

static LLVMValueRef cg_round(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  node *a = e->list.items[0];
  if (e->list.len == 2) {
    fn_instance *inst = e->aux_ptr;
    LLVMValueRef args[2] = {cg_expr_as(g, a, &ty_f64), cg_expr_as(g, e->list.items[1], &ty_i64)};
    return cg_convert(g, cg_call_values(g, inst, args, 2), inst->ret, e->ty);
  }
  if (a->ty->kind == TY_INT) return cg_expr(g, a);
  const type *ft = a->ty->kind == TY_FLOAT ? a->ty : &ty_f64;
  LLVMValueRef v = cg_expr_as(g, a, ft);
  LLVMValueRef r = cg_call_intrinsic(g, "llvm.roundeven", LLVMTypeOf(v), &v, 1);
  return cg_convert(g, r, ft, e->ty);
}

static LLVMValueRef cg_pow_builtin(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  return cg_expr(g, e->c);
}

/* divmod: each operand evaluated once, then Python's // and % (cg_arith.c); the two
 * share their fmod once LLVM sees it is pure */
static LLVMValueRef cg_divmod(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  const type *t = e->ty->elems[0];
  LLVMValueRef x = cg_expr_as(g, e->list.items[0], t), y = cg_expr_as(g, e->list.items[1], t);
  LLVMValueRef q = cg_arith_op(g, OP_FLOORDIV, x, y, t);
  LLVMValueRef r = cg_arith_op(g, OP_MOD, x, y, t);
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  agg = LLVMBuildInsertValue(g->b, agg, q, 0, "");
  return LLVMBuildInsertValue(g->b, agg, r, 1, "");
}

static LLVMValueRef cg_len(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  node *a = e->list.items[0];
  if (a->ty->kind == TY_TUPLE) return ci64(g, a->ty->nelems);
  return cg_array_extent(g, cg_expr(g, a), 0);
}


/* int(x), float(x), bool(x), float32(x) ...: a conversion to the call's type */
static LLVMValueRef cg_cast(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  return cg_expr_as(g, e->list.items[0], e->ty);
}

const builtin builtins_python[] = {
  {.path = "range", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_LOOP | BF_PURE,
   .typing = ix_loop_only},
  {.path = "enumerate", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_LOOP | BF_PURE,
   .typing = ix_loop_only},
  {.path = "zip", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_LOOP | BF_PURE,
   .typing = ix_loop_only},
  {.path = "reversed", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_LOOP | BF_PURE,
   .typing = ix_loop_only},
  {.path = "len", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1,
   .flags = BF_PURE | BF_ARRAY_SHAPE, .typing = ix_len, .lower = cg_len},
  {.path = "abs", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
   .typing = ix_abs, .lower = cg_abs},
  {.path = "min", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_PURE, .typing = ix_minmax,
   .lower = cg_minmax},
  {.path = "max", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_PURE, .op = 1,
   .typing = ix_minmax, .lower = cg_minmax},
  {.path = "round", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_PURE, .typing = ix_round,
   .lower = cg_round},
  {.path = "pow", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .typing = ix_pow, .lower = cg_pow_builtin},
  {.path = "divmod", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .typing = ix_divmod, .lower = cg_divmod},
  {.path = "int", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_PURE, .typing = ix_int,
   .lower = cg_cast},
  {.path = "float", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_PURE, .typing = ix_float,
   .lower = cg_cast},
  {.path = "bool", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_PURE, .typing = ix_bool,
   .lower = cg_cast},
  {NULL},
};

/* A type called as a cast (float32(x)): type inference types it itself (ix_cast, with
 * the type its path names), so the row carries only the lowering. */
const builtin builtin_type_cast = {
  .path = "<cast>", .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE,
  .lower = cg_cast,
};

/*
 * bf16.c — numba.cuda.bf16 beyond the functions it shares with cuda.fp16 (fp16.c):
 * rounding-mode spellings of the arithmetic (hadd_rn ...), the saturating forms
 * (hadd_sat ... hfma_sat: the result clamped to [0, 1], NaN to 0, as CUDA's __hadd_sat),
 * hfma_relu, the NaN-propagating hmax_nan/hmin_nan, hisnan, hisinf, htanh, and the
 * conversions between bfloat16 and integers or floats in each rounding mode, and the
 * bit casts to and from int16/uint16.
 *
 * bfloat16 is LLVM's bfloat on both targets: native bf16 instructions on the GPU (sm_80
 * and later), float32 arithmetic rounded back on the CPU. Conversions with a directed
 * rounding mode are written in integer operations on the float32 bits, so both targets
 * compute them alike: a bfloat16 is the top half of a float32.
 */
#include <math.h>
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* the rounding modes of the conversions, the row's name: "rn", "rz", "rd", "ru" */
typedef enum round_mode { RM_RN, RM_RZ, RM_RD, RM_RU } round_mode;

static round_mode mode_of(const builtin *b) {
  const char *m = b->name ? b->name : "rn";
  return strcmp(m, "rz") == 0 ? RM_RZ : strcmp(m, "rd") == 0 ? RM_RD
       : strcmp(m, "ru") == 0 ? RM_RU : RM_RN;
}

/* ---- typing ---- */

/* hisnan: bool; hisinf: int32 (-1, 0 or 1) */
static const type *ix_bf16_class(infer_ctx *ic, node *e, const builtin *b) {
  if (!builtin_half_args(ic, e, b)) return NULL;
  return ix_set_type(e, b->op == KC_BOOL ? &ty_bool : &ty_i32, false);
}

/* A conversion's argument must be of its source type exactly (a literal adopts it), as
 * numba-cuda's bindings are typed. op: the source dtype (KC_DTYPE_COUNT: bfloat16). */
static const type *conv_source(const builtin *b) {
  return b->op == KC_DTYPE_COUNT ? &ty_bf16 : type_from_dtype((kc_dtype)b->op);
}

static const type *conv_result(const builtin *b) {
  kc_dtype to = (kc_dtype)(b->op == KC_DTYPE_COUNT ? (int)b->value : KC_DTYPE_COUNT);
  return to == KC_DTYPE_COUNT ? &ty_bf16 : type_from_dtype(to);
}

static const type *ix_bf16_convert(infer_ctx *ic, node *e, const builtin *b) {
  if (!ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  const type *from = conv_source(b);
  bool literal = a->weak && type_is_real(a->ty) && a->ty->kind != TY_BOOL &&
                 (from->kind == TY_FLOAT || a->ty->kind == TY_INT);
  if (!literal && !type_equal(a->ty, from)) {
    ix_error(ic, a->sp, "%s needs an argument of type %s, not %s", builtin_user_name(b),
             ix_tname(ic, from), ix_tname(ic, a->ty));
    return NULL;
  }
  return ix_set_type(e, conv_result(b), false);
}

/* ---- lowering ---- */

static LLVMValueRef bits_of(cg_ctx *g, LLVMValueRef bf) {
  return LLVMBuildBitCast(g->b, bf, LLVMInt16TypeInContext(g->c), "");
}

static LLVMValueRef bf16_of_bits(cg_ctx *g, LLVMValueRef bits) {
  return LLVMBuildBitCast(g->b, bits, LLVMBFloatTypeInContext(g->c), "");
}

/* x clamped to [0, 1], a NaN to +0 */
static LLVMValueRef saturate(cg_ctx *g, LLVMValueRef x) {
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMValueRef zero = LLVMConstReal(t, 0.0), one = LLVMConstReal(t, 1.0);
  LLVMValueRef above = LLVMBuildFCmp(g->b, LLVMRealOGT, x, zero, "");
  LLVMValueRef r = LLVMBuildSelect(g->b, above, x, zero, "");   /* NaN, <= 0: 0 */
  return LLVMBuildSelect(g->b, LLVMBuildFCmp(g->b, LLVMRealOGT, r, one, ""), one, r, "");
}

static LLVMValueRef fma3(cg_ctx *g, LLVMValueRef a[3]) {
  return cg_call_intrinsic(g, "llvm.fma", LLVMTypeOf(a[0]), a, 3);
}

/* hadd_rn ... are fp16.c's cg_half_arith (round to nearest is what + - * do), hmax_nan
 * and hmin_nan its cg_half_intrinsic (llvm.maximum/minimum: a NaN operand gives NaN),
 * htanh its cg_half_math. */

/* hadd_sat, hsub_sat, hmul_sat (op) and hfma_sat (op 0) */
static LLVMValueRef cg_bf16_sat(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  LLVMValueRef r = e->list.len == 3 ? fma3(g, a) : cg_arith_op(g, (op_kind)b->op, a[0], a[1], &ty_bf16);
  return saturate(g, r);
}

/* hfma_relu: a * b + c rounded once, a negative result 0 (NaN stays NaN) */
static LLVMValueRef cg_bf16_fma_relu(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  LLVMValueRef r = fma3(g, a), zero = LLVMConstReal(LLVMTypeOf(r), 0.0);
  return LLVMBuildSelect(g->b, LLVMBuildFCmp(g->b, LLVMRealOLT, r, zero, ""), zero, r, "");
}

/* hisnan: bool; hisinf: -1 for -inf, 1 for +inf, else 0 (CUDA's __hisinf) */
static LLVMValueRef cg_bf16_class(cg_ctx *g, node *e, const builtin *b) {
  LLVMValueRef a[3];
  cg_half_values(g, e, b, a);
  if (b->op == KC_BOOL) return LLVMBuildFCmp(g->b, LLVMRealUNO, a[0], a[0], "");
  LLVMTypeRef t = LLVMTypeOf(a[0]);
  LLVMValueRef pos = LLVMBuildFCmp(g->b, LLVMRealOEQ, a[0], LLVMConstReal(t, INFINITY), "");
  LLVMValueRef neg = LLVMBuildFCmp(g->b, LLVMRealOEQ, a[0], LLVMConstReal(t, -INFINITY), "");
  return LLVMBuildSelect(g->b, pos, ci32(g, 1), LLVMBuildSelect(g->b, neg, ci32(g, -1),
                                                               ci32(g, 0), ""), "");
}

/* float32 -> bfloat16 in mode m. Round to nearest is LLVM's fptrunc; the directed modes
 * keep the top 16 bits of the float32 and step the magnitude up by one when the dropped
 * bits are not all zero and the mode rounds away from zero for that sign. A NaN stays a
 * (quiet) NaN; infinities and zeros have no dropped bits. */
static LLVMValueRef f32_to_bf16(cg_ctx *g, LLVMValueRef f, round_mode m) {
  if (m == RM_RN) return LLVMBuildFPTrunc(g->b, f, LLVMBFloatTypeInContext(g->c), "");
  LLVMTypeRef i16 = LLVMInt16TypeInContext(g->c);
  LLVMValueRef u = LLVMBuildBitCast(g->b, f, g->i32, "");
  LLVMValueRef top = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, u, ci32(g, 16), ""), i16, "");
  LLVMValueRef r = top;
  if (m != RM_RZ) {
    LLVMValueRef inexact = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildAnd(g->b, u, ci32(g, 0xffff), ""),
                                         ci32(g, 0), "");
    LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, u, ci32(g, 0), "");
    LLVMValueRef away = m == RM_RD ? neg : LLVMBuildNot(g->b, neg, "");
    LLVMValueRef step = LLVMBuildZExt(g->b, LLVMBuildAnd(g->b, inexact, away, ""), i16, "");
    r = LLVMBuildAdd(g->b, top, step, "");
  }
  LLVMValueRef nan = LLVMBuildFCmp(g->b, LLVMRealUNO, f, f, "");
  LLVMValueRef quiet = LLVMBuildOr(g->b, top, LLVMConstInt(i16, 0x40, 0), "");
  return bf16_of_bits(g, LLVMBuildSelect(g->b, nan, quiet, r, ""));
}

/* An integer as a float32 that rounds to bfloat16 as the integer itself would: exact
 * below 2^24; above, the integer shifted to 24 significant bits with the dropped bits'
 * "or" kept in the last bit (rounding to odd), which leaves every later rounding to 8
 * bits, nearest or directed, as it would be from the exact value. */
static LLVMValueRef int_to_sticky_f32(cg_ctx *g, LLVMValueRef v, const type *t) {
  LLVMValueRef x = cg_convert(g, v, t, t->is_signed ? &ty_i64 : &ty_u64);
  LLVMValueRef neg = t->is_signed ? LLVMBuildICmp(g->b, LLVMIntSLT, x, ci64(g, 0), "")
                                  : LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef mag = LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, x, ""), x, "");
  LLVMValueRef ctlz_args[2] = {LLVMBuildOr(g->b, mag, ci64(g, 1), ""), LLVMConstInt(g->i1, 0, 0)};
  LLVMValueRef lz = cg_call_intrinsic(g, "llvm.ctlz", g->i64, ctlz_args, 2);
  LLVMValueRef over = LLVMBuildSub(g->b, ci64(g, 40), lz, "");   /* significant bits - 24 */
  LLVMValueRef big = LLVMBuildICmp(g->b, LLVMIntSGT, over, ci64(g, 0), "");
  LLVMValueRef k = LLVMBuildSelect(g->b, big, over, ci64(g, 0), "");
  LLVMValueRef dropped = LLVMBuildAnd(g->b, mag, LLVMBuildSub(g->b, LLVMBuildShl(g->b, ci64(g, 1), k, ""),
                                                              ci64(g, 1), ""), "");
  LLVMValueRef sticky = LLVMBuildZExt(g->b, LLVMBuildICmp(g->b, LLVMIntNE, dropped, ci64(g, 0), ""),
                                      g->i64, "");
  LLVMValueRef kept = LLVMBuildOr(g->b, LLVMBuildLShr(g->b, mag, k, ""), sticky, "");
  LLVMValueRef f = LLVMBuildUIToFP(g->b, kept, g->f32, "");   /* exact: at most 24 bits */
  /* times 2^k (k <= 40): a float32 power of two built from its exponent bits */
  LLVMValueRef pow2 = LLVMBuildBitCast(g->b, LLVMBuildShl(g->b, LLVMBuildTrunc(g->b,
      LLVMBuildAdd(g->b, k, ci64(g, 127), ""), g->i32, ""), ci32(g, 23), ""), g->f32, "");
  f = LLVMBuildFMul(g->b, f, pow2, "");
  return LLVMBuildSelect(g->b, neg, LLVMBuildFNeg(g->b, f, ""), f, "");
}

/* bfloat16 -> an integer type in mode m: the value rounded to an integer in float32
 * (exact: a bfloat16 is a float32), then converted, saturating (NaN gives 0), as
 * CUDA's __bfloat162int_rn ... do */
static LLVMValueRef bf16_to_int(cg_ctx *g, LLVMValueRef v, round_mode m, const type *to) {
  static const char *const round_fn[] = {"llvm.roundeven", "llvm.trunc", "llvm.floor", "llvm.ceil"};
  LLVMValueRef f = LLVMBuildFPExt(g->b, v, g->f32, "");
  f = cg_call_intrinsic(g, round_fn[m], g->f32, &f, 1);
  return cg_convert(g, f, &ty_f32, to);   /* saturating (cg_convert) */
}

/* every conversion row: op the source dtype (KC_DTYPE_COUNT: bfloat16), value the
 * result dtype when the source is bfloat16, name the rounding mode */
static LLVMValueRef cg_bf16_convert(cg_ctx *g, node *e, const builtin *b) {
  const type *from = conv_source(b), *to = conv_result(b);
  LLVMValueRef v = cg_expr_as(g, e->list.items[0], from);
  round_mode m = mode_of(b);
  if (type_is_bf16(from)) {
    if (to->kind == TY_FLOAT) return LLVMBuildFPExt(g->b, v, cg_scalar_type(g, to), "");
    return bf16_to_int(g, v, m, to);
  }
  if (from->kind == TY_INT) return f32_to_bf16(g, int_to_sticky_f32(g, v, from), m);
  if (from->bits == 64) return LLVMBuildFPTrunc(g->b, v, LLVMBFloatTypeInContext(g->c), "");
  return f32_to_bf16(g, v, m);
}

/* bfloat16_as_int16 ...: the same 16 bits */
static LLVMValueRef cg_bf16_bitcast(cg_ctx *g, node *e, const builtin *b) {
  const type *from = conv_source(b);
  LLVMValueRef v = cg_expr_as(g, e->list.items[0], from);
  return type_is_bf16(from) ? bits_of(g, v) : bf16_of_bits(g, v);
}

/* ---- the rows ---- */

#define BF(n) "numba.cuda.bf16." n
#define BF_ROW(n, lo, ty, ...) \
  {.path = BF(n), .kind = BK_FUNCTION, .min_args = 1, .max_args = 1, .flags = BF_PURE, \
   .typing = ty, .lower = lo, __VA_ARGS__}
/* bfloat16 -> an integer type (dtype D) in mode M */
#define TO_INT(n, D, M) BF_ROW(n, cg_bf16_convert, ix_bf16_convert, .op = KC_DTYPE_COUNT, \
                               .value = D, .name = M)
/* dtype D -> bfloat16 in mode M */
#define FROM(n, D, M) BF_ROW(n, cg_bf16_convert, ix_bf16_convert, .op = D, .name = M)
#define TO_INT4(t, D) TO_INT("bfloat16_to_" t "_rn", D, "rn"), TO_INT("bfloat16_to_" t "_rz", D, "rz"), \
  TO_INT("bfloat16_to_" t "_rd", D, "rd"), TO_INT("bfloat16_to_" t "_ru", D, "ru")
#define FROM4(t, D) FROM(t "_to_bfloat16_rn", D, "rn"), FROM(t "_to_bfloat16_rz", D, "rz"), \
  FROM(t "_to_bfloat16_rd", D, "rd"), FROM(t "_to_bfloat16_ru", D, "ru")
#define BINARY(n, lo, o) \
  {.path = BF(n), .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE, \
   .op = o, .typing = ix_half, .lower = lo}

const builtin builtins_bf16[] = {
  {.path = "numba.cuda.bf16", .kind = BK_MODULE},
  BINARY("hadd_rn", cg_half_arith, OP_ADD),
  BINARY("hsub_rn", cg_half_arith, OP_SUB),
  BINARY("hmul_rn", cg_half_arith, OP_MUL),
  BINARY("hadd_sat", cg_bf16_sat, OP_ADD),
  BINARY("hsub_sat", cg_bf16_sat, OP_SUB),
  BINARY("hmul_sat", cg_bf16_sat, OP_MUL),
  {.path = BF("hfma_sat"), .kind = BK_FUNCTION, .min_args = 3, .max_args = 3, .flags = BF_PURE,
   .typing = ix_half, .lower = cg_bf16_sat},
  {.path = BF("hfma_relu"), .kind = BK_FUNCTION, .min_args = 3, .max_args = 3, .flags = BF_PURE,
   .typing = ix_half, .lower = cg_bf16_fma_relu},
  {.path = BF("hmax_nan"), .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "llvm.maximum", .typing = ix_half, .lower = cg_half_intrinsic},
  {.path = BF("hmin_nan"), .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .flags = BF_PURE,
   .name = "llvm.minimum", .typing = ix_half, .lower = cg_half_intrinsic},
  BF_ROW("hisnan", cg_bf16_class, ix_bf16_class, .op = KC_BOOL),
  BF_ROW("hisinf", cg_bf16_class, ix_bf16_class, .op = KC_INT32),
  BF_ROW("htanh", cg_half_math, ix_half, .name = "tanh"),
  BF_ROW("bfloat16_to_float32", cg_bf16_convert, ix_bf16_convert, .op = KC_DTYPE_COUNT,
         .value = KC_FLOAT32),
  FROM("float32_to_bfloat16", KC_FLOAT32, "rn"),
  FROM("float64_to_bfloat16", KC_FLOAT64, "rn"),
  FROM4("float32", KC_FLOAT32),
  FROM4("int16", KC_INT16), FROM4("uint16", KC_UINT16), FROM4("int32", KC_INT32),
  FROM4("uint32", KC_UINT32), FROM4("int64", KC_INT64), FROM4("uint64", KC_UINT64),
  TO_INT("bfloat16_to_int8_rz", KC_INT8, "rz"), TO_INT("bfloat16_to_uint8_rz", KC_UINT8, "rz"),
  TO_INT4("int16", KC_INT16), TO_INT4("uint16", KC_UINT16), TO_INT4("int32", KC_INT32),
  TO_INT4("uint32", KC_UINT32), TO_INT4("int64", KC_INT64), TO_INT4("uint64", KC_UINT64),
  BF_ROW("bfloat16_as_int16", cg_bf16_bitcast, ix_bf16_convert, .op = KC_DTYPE_COUNT,
         .value = KC_INT16),
  BF_ROW("bfloat16_as_uint16", cg_bf16_bitcast, ix_bf16_convert, .op = KC_DTYPE_COUNT,
         .value = KC_UINT16),
  BF_ROW("int16_as_bfloat16", cg_bf16_bitcast, ix_bf16_convert, .op = KC_INT16),
  BF_ROW("uint16_as_bfloat16", cg_bf16_bitcast, ix_bf16_convert, .op = KC_UINT16),
  {NULL},
};

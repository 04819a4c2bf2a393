/*
 * codegen.c — typed AST -> LLVM IR through the LLVM C API, one code generator for both
 * targets. Every function instance becomes an internal LLVM function whose array
 * parameters are passed as {ptr data, i64 extent...} values; kernels get entry points
 * that unpack the flattened launch arguments (CUDA kernelParams layout, host_abi.h):
 *   NVPTX: one `ptx_kernel` function per kernel with flattened parameters;
 *   host:  K__thread(args, blk, tx, ty, tz) and K__block(args, blk), the latter looping
 *          over the block's threads so LLVM can vectorise across threadIdx.x.
 * On the host every function also takes hidden (blk, tx, ty, tz) parameters, from which
 * thread and block indices are read. Locals live in allocas (mem2reg promotes them).
 * Integer division and modulo follow Python (floor, sign of the divisor); division by
 * zero gives 0 rather than a trap (NumPy's error model), so no kernel can crash the host.
 * Fast-math functions (fn_instance.fastmath) get LLVM's fast-math flags on their float
 * instructions and, on NVPTX, libdevice's __nv_fast_* functions; those of a fast-math
 * kernel also flush float32 denormals there.
 */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm/Config/llvm-config.h>

#include "codegen.h"
#include "host_abi.h"
#include "kc_config.h"
#include "target.h"


typedef struct loop_targets {
  LLVMBasicBlockRef brk, cont;
} loop_targets;

typedef struct cg_ctx {
  arena *ar;
  diag_sink *d;
  program *prog;
  const kcc_options *opts;
  bool host;
  LLVMContextRef c;
  LLVMModuleRef m;
  LLVMBuilderRef b;
  LLVMTypeRef ptr, i1, i8, i32, i64, f32, f64, voidt;
  /* the function being generated */
  fn_instance *fi;
  LLVMValueRef fn;
  LLVMValueRef blk, tid[3];         /* host: hidden parameters */
  LLVMBasicBlockRef entry, ret_bb;
  LLVMValueRef ret_slot;
  loop_targets *loop;
  size_t shared_bytes;              /* host: static shared layout of the module */
  /* debug info */
  LLVMDIBuilderRef dib;
  LLVMMetadataRef di_file, di_sp;
} cg_ctx;

static LLVMValueRef cg_expr(cg_ctx *g, node *e);
static void cg_block(cg_ctx *g, node_list *body);
static LLVMValueRef cg_dynamic_shared(cg_ctx *g, const type *t);

/* ---- types -------------------------------------------------------------------------- */

static LLVMTypeRef cg_type(cg_ctx *g, const type *t);

static LLVMTypeRef scalar_type(cg_ctx *g, const type *t) {
  switch (t->kind) {
  case TY_BOOL: return g->i1;
  case TY_INT: return LLVMIntTypeInContext(g->c, (unsigned)t->bits);
  case TY_FLOAT: return t->bits == 32 ? g->f32 : t->bits == 16 ? LLVMHalfTypeInContext(g->c) : g->f64;
  case TY_COMPLEX: {
    /* {re, im}: the layout of C99's float _Complex / double _Complex */
    LLVMTypeRef part = t->bits == 64 ? g->f32 : g->f64;
    LLVMTypeRef f[2] = {part, part};
    return LLVMStructTypeInContext(g->c, f, 2, 0);
  }
  default: return g->voidt;
  }
}

/* The type of an array element in memory (bool is a byte). */
static LLVMTypeRef mem_type(cg_ctx *g, const type *t) {
  return t->kind == TY_BOOL ? g->i8 : scalar_type(g, t);
}

static LLVMTypeRef array_struct(cg_ctx *g, int ndim) {
  LLVMTypeRef f[1 + KC_MAX_DIMS] = {g->ptr, g->i64, g->i64, g->i64};
  return LLVMStructTypeInContext(g->c, f, (unsigned)(1 + ndim), 0);
}

/* A strided view (type->strided): {ptr data, i64 extent..., i64 stride...}, strides in
 * elements. Extents sit where a contiguous array has them, so extent, len, .shape and
 * .size read both alike. */
static LLVMTypeRef view_struct(cg_ctx *g, int ndim) {
  LLVMTypeRef f[1 + 2 * KC_MAX_DIMS];
  f[0] = g->ptr;
  for (int k = 0; k < 2 * ndim; k++) f[1 + k] = g->i64;
  return LLVMStructTypeInContext(g->c, f, (unsigned)(1 + 2 * ndim), 0);
}

static LLVMTypeRef cg_type(cg_ctx *g, const type *t) {
  switch (t->kind) {
  case TY_ARRAY: return t->strided ? view_struct(g, t->ndim) : array_struct(g, t->ndim);
  case TY_TUPLE: {
    int n = t->nelems;
    LLVMTypeRef *f = arena_alloc(g->ar, sizeof *f * (size_t)(n + 1));
    for (int i = 0; i < n; i++) f[i] = cg_type(g, t->elems[i]);
    return LLVMStructTypeInContext(g->c, f, (unsigned)n, 0);
  }
  case TY_VOID: return g->voidt;
  default: return scalar_type(g, t);
  }
}

/* ---- small helpers ------------------------------------------------------------------------ */

static LLVMValueRef ci32(cg_ctx *g, long long v) { return LLVMConstInt(g->i32, (unsigned long long)v, 1); }
static LLVMValueRef ci64(cg_ctx *g, long long v) { return LLVMConstInt(g->i64, (unsigned long long)v, 1); }

static LLVMBasicBlockRef new_bb(cg_ctx *g, const char *name) {
  return LLVMAppendBasicBlockInContext(g->c, g->fn, name);
}

static bool terminated(cg_ctx *g) {
  return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)) != NULL;
}

static void br_if_open(cg_ctx *g, LLVMBasicBlockRef to) {
  if (!terminated(g)) LLVMBuildBr(g->b, to);
}

/* An alloca in the entry block, so mem2reg can promote it. */
static LLVMValueRef entry_alloca(cg_ctx *g, LLVMTypeRef t, const char *name) {
  LLVMBuilderRef eb = LLVMCreateBuilderInContext(g->c);
  LLVMValueRef first = LLVMGetFirstInstruction(g->entry);
  if (first) LLVMPositionBuilderBefore(eb, first);
  else LLVMPositionBuilderAtEnd(eb, g->entry);
  LLVMValueRef a = LLVMBuildAlloca(eb, t, name);
  LLVMDisposeBuilder(eb);
  return a;
}

static LLVMValueRef get_intrinsic(cg_ctx *g, const char *name, LLVMTypeRef *over, size_t n) {
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  return LLVMGetIntrinsicDeclaration(g->m, id, over, n);
}

static LLVMValueRef call_intrinsic(cg_ctx *g, const char *name, LLVMTypeRef over,
                                   LLVMValueRef *args, unsigned n) {
  LLVMTypeRef ov[1] = {over};
  unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
  if (id == 0) {
    diag_error(g->d, span_none(), "internal compiler error: LLVM %s has no intrinsic %s",
               KC_LLVM_VERSION, name);
    return LLVMGetUndef(over ? over : g->i32);
  }
  LLVMValueRef f = get_intrinsic(g, name, ov, over ? 1 : 0);
  LLVMTypeRef ft = LLVMIntrinsicGetType(g->c, id, ov, over ? 1 : 0);
  return LLVMBuildCall2(g->b, ft, f, args, n, "");
}

static LLVMValueRef declare_fn(cg_ctx *g, const char *name, LLVMTypeRef ret,
                               LLVMTypeRef *params, unsigned n) {
  LLVMValueRef f = LLVMGetNamedFunction(g->m, name);
  if (f) return f;
  return LLVMAddFunction(g->m, name, LLVMFunctionType(ret, params, n, 0));
}

static LLVMValueRef call_fn(cg_ctx *g, LLVMValueRef f, LLVMValueRef *args, unsigned n) {
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

static void internal_error(cg_ctx *g, span sp, const char *what) {
  diag_error(g->d, sp, "internal compiler error: %s (please report this)", what);
}

/* ---- conversions --------------------------------------------------------------------------- */

static LLVMValueRef cx_make(cg_ctx *g, const type *t, LLVMValueRef re, LLVMValueRef im);
static LLVMValueRef cx_re(cg_ctx *g, LLVMValueRef z) { return LLVMBuildExtractValue(g->b, z, 0, "re"); }
static LLVMValueRef cx_im(cg_ctx *g, LLVMValueRef z) { return LLVMBuildExtractValue(g->b, z, 1, "im"); }

static LLVMValueRef to_bool(cg_ctx *g, LLVMValueRef v, const type *t) {
  switch (t->kind) {
  case TY_COMPLEX: {
    LLVMValueRef zero = LLVMConstNull(scalar_type(g, type_complex_part(t)));
    return LLVMBuildOr(g->b, LLVMBuildFCmp(g->b, LLVMRealUNE, cx_re(g, v), zero, ""),
                       LLVMBuildFCmp(g->b, LLVMRealUNE, cx_im(g, v), zero, ""), "");
  }
  case TY_BOOL: return v;
  case TY_INT: return LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  case TY_FLOAT: return LLVMBuildFCmp(g->b, LLVMRealUNE, v, LLVMConstNull(LLVMTypeOf(v)), "");
  default: return LLVMConstInt(g->i1, 1, 0);
  }
}

static LLVMValueRef convert(cg_ctx *g, LLVMValueRef v, const type *from, const type *to);

/* To complex: part by part, or a real number with a zero imaginary part. From complex
 * to a real type (which the type checker only lets through for bool): the real part. */
static LLVMValueRef convert_complex(cg_ctx *g, LLVMValueRef v, const type *from,
                                    const type *to) {
  if (to->kind == TY_COMPLEX) {
    const type *pt = type_complex_part(to);
    if (from->kind == TY_COMPLEX) {
      const type *pf = type_complex_part(from);
      return cx_make(g, to, convert(g, cx_re(g, v), pf, pt), convert(g, cx_im(g, v), pf, pt));
    }
    return cx_make(g, to, convert(g, v, from, pt), LLVMConstNull(scalar_type(g, pt)));
  }
  if (to->kind == TY_BOOL) return to_bool(g, v, from);
  return convert(g, cx_re(g, v), type_complex_part(from), to);
}

static LLVMValueRef convert(cg_ctx *g, LLVMValueRef v, const type *from, const type *to) {
  if (!from || !to || type_equal(from, to) || !type_is_scalar(from) || !type_is_scalar(to))
    return v;
  if (from->kind == TY_COMPLEX || to->kind == TY_COMPLEX) return convert_complex(g, v, from, to);
  LLVMTypeRef tt = scalar_type(g, to);
  if (to->kind == TY_BOOL) return to_bool(g, v, from);
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
    LLVMTypeRef ov[2] = {tt, scalar_type(g, from)};
    const char *name = to->is_signed ? "llvm.fptosi.sat" : "llvm.fptoui.sat";
    unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
    LLVMValueRef f = LLVMGetIntrinsicDeclaration(g->m, id, ov, 2);
    return LLVMBuildCall2(g->b, LLVMIntrinsicGetType(g->c, id, ov, 2), f, args, 1, "");
  }
  return to->bits > from->bits ? LLVMBuildFPExt(g->b, v, tt, "") : LLVMBuildFPTrunc(g->b, v, tt, "");
}

static LLVMValueRef cg_expr_as(cg_ctx *g, node *e, const type *to) {
  return convert(g, cg_expr(g, e), e->ty, to);
}

/* ---- thread indices, barriers ---------------------------------------------------------------- */

static const char *const sreg_names[4] = {"tid", "ctaid", "ntid", "nctaid"};

/* !range [lo, hi) metadata on an i32 load. */
static void set_range(cg_ctx *g, LLVMValueRef load, long long lo, long long hi) {
  LLVMMetadataRef r[2] = {LLVMValueAsMetadata(ci32(g, lo)), LLVMValueAsMetadata(ci32(g, hi))};
  LLVMSetMetadata(load, LLVMGetMDKindIDInContext(g->c, "range", 5),
                  LLVMMetadataAsValue(g->c, LLVMMDNodeInContext2(g->c, r, 2)));
}

/* which: 0 threadIdx, 1 blockIdx, 2 blockDim, 3 gridDim; axis 0..2 */
static LLVMValueRef special_reg(cg_ctx *g, int which, int axis) {
  if (!g->host) {
    char name[64];
    snprintf(name, sizeof name, "llvm.nvvm.read.ptx.sreg.%s.%c", sreg_names[which], "xyz"[axis]);
    return call_intrinsic(g, name, NULL, NULL, 0);
  }
  if (which == 0) return g->tid[axis];
  static const int offs[4] = {0, KC_CPU_BLOCK_OFF_BLOCK_IDX, KC_CPU_BLOCK_OFF_BLOCK_DIM,
                              KC_CPU_BLOCK_OFF_GRID_DIM};
  LLVMValueRef idx[1] = {ci64(g, offs[which] + 4 * axis)};
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, "");
  LLVMValueRef v = LLVMBuildLoad2(g->b, g->i32, p, sreg_names[which]);
  LLVMSetMetadata(v, LLVMGetMDKindIDInContext(g->c, "invariant.load", 14),
                  LLVMMDNodeInContext(g->c, NULL, 0));
  /* the same ranges the GPU's special registers have */
  set_range(g, v, which == 1 ? 0 : 1, which == 2 ? 1025 : 0x80000000LL);
  return v;
}

static LLVMValueRef laneid(cg_ctx *g) {
  if (!g->host) return call_intrinsic(g, "llvm.nvvm.read.ptx.sreg.laneid", NULL, NULL, 0);
  /* linear thread index within the block, mod 32 */
  LLVMValueRef bx = special_reg(g, 2, 0), by = special_reg(g, 2, 1);
  LLVMValueRef lin = LLVMBuildAdd(g->b, g->tid[0],
      LLVMBuildMul(g->b, bx, LLVMBuildAdd(g->b, g->tid[1],
                   LLVMBuildMul(g->b, by, g->tid[2], ""), ""), ""), "");
  return LLVMBuildAnd(g->b, lin, ci32(g, 31), "");
}

/* cuda.grid / cuda.gridsize on one axis. The runtime refuses launches whose grid x block
 * reaches 2^31 on an axis, so these never overflow int32: saying so (nsw, nuw) lets LLVM
 * see indices as non-negative, drop the negative-index wrap and vectorise. A global
 * index is below the grid's thread count, so at most 2^31 - 2: an assumption says that
 * too, so that `i + 1` provably does not wrap and `a[i + 1]` needs no negative-index
 * wrap either (the mul and add alone only bound the index by 2^31 - 1). On the CPU back
 * end the assumption is dropped after the first optimisation round (host_guards.c). */
static LLVMValueRef grid_axis(cg_ctx *g, int axis, bool size) {
  LLVMValueRef a = special_reg(g, size ? 2 : 1, axis), b = special_reg(g, size ? 3 : 2, axis);
  LLVMValueRef v = LLVMBuildMul(g->b, a, b, "");
  LLVMSetNUW(v, 1);
  LLVMSetNSW(v, 1);
  if (!size) {
    v = LLVMBuildAdd(g->b, v, special_reg(g, 0, axis), "");
    LLVMSetNUW(v, 1);
    LLVMSetNSW(v, 1);
    if (g->opts->opt_level > 0) { /* nothing reads it at -O0 */
      LLVMValueRef below = LLVMBuildICmp(g->b, LLVMIntULT, v, ci32(g, 0x7fffffff), "");
      call_intrinsic(g, "llvm.assume", NULL, &below, 1);
    }
  }
  return v;
}

static LLVMValueRef cg_grid(cg_ctx *g, node *e, bool size) {
  const type *t = e->ty;
  if (t->kind != TY_TUPLE) return grid_axis(g, 0, size);
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, t));
  for (int i = 0; i < t->nelems; i++)
    agg = LLVMBuildInsertValue(g->b, agg, grid_axis(g, i, size), (unsigned)i, "");
  return agg;
}

static void cg_barrier(cg_ctx *g, node *e) {
  if (!g->host) {
    /* LLVM 20 renamed bar.sync 0's intrinsic; take whichever this LLVM has */
    static const char cta[] = "llvm.nvvm.barrier.cta.sync.aligned.all";
    if (LLVMLookupIntrinsicID(cta, sizeof cta - 1)) {
      LLVMValueRef zero = ci32(g, 0);
      call_intrinsic(g, cta, NULL, &zero, 1);
    } else {
      call_intrinsic(g, "llvm.nvvm.barrier0", NULL, NULL, 0);
    }
    return;
  }
  LLVMValueRef idx[1] = {ci64(g, KC_CPU_BLOCK_OFF_BARRIER)};
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, "");
  LLVMValueRef fp = LLVMBuildLoad2(g->b, g->ptr, p, "barrier");
  LLVMTypeRef pt[2] = {g->ptr, g->i32};
  LLVMTypeRef ft = LLVMFunctionType(g->voidt, pt, 2, 0);
  LLVMValueRef args[2] = {g->blk, ci32(g, (e->sp.line << 16) | (e->sp.col & 0xffff))};
  LLVMBuildCall2(g->b, ft, fp, args, 2, "");
}

/* ---- math -------------------------------------------------------------------------------------- */

typedef struct math_entry {
  builtin_id id;
  const char *name;       /* libm / libdevice base name (float64 spelling) */
  const char *intrinsic;  /* LLVM intrinsic usable on both targets, or NULL */
} math_entry;

static const math_entry math_table[] = {
  {B_MATH_SQRT, "sqrt", "llvm.sqrt"}, {B_MATH_EXP, "exp", NULL}, {B_MATH_EXP2, "exp2", NULL},
  {B_MATH_EXPM1, "expm1", NULL}, {B_MATH_LOG, "log", NULL}, {B_MATH_LOG2, "log2", NULL},
  {B_MATH_LOG10, "log10", NULL}, {B_MATH_LOG1P, "log1p", NULL},
  {B_MATH_FABS, "fabs", "llvm.fabs"}, {B_MATH_SIN, "sin", NULL}, {B_MATH_COS, "cos", NULL},
  {B_MATH_TAN, "tan", NULL}, {B_MATH_ASIN, "asin", NULL}, {B_MATH_ACOS, "acos", NULL},
  {B_MATH_ATAN, "atan", NULL}, {B_MATH_SINH, "sinh", NULL}, {B_MATH_COSH, "cosh", NULL},
  {B_MATH_TANH, "tanh", NULL}, {B_MATH_ASINH, "asinh", NULL}, {B_MATH_ACOSH, "acosh", NULL},
  {B_MATH_ATANH, "atanh", NULL}, {B_MATH_ERF, "erf", NULL}, {B_MATH_ERFC, "erfc", NULL},
  {B_MATH_GAMMA, "tgamma", NULL}, {B_MATH_LGAMMA, "lgamma", NULL},
  {B_MATH_POW, "pow", NULL}, {B_MATH_FMOD, "fmod", NULL},
  {B_MATH_COPYSIGN, "copysign", "llvm.copysign"}, {B_MATH_HYPOT, "hypot", NULL},
  {B_MATH_ATAN2, "atan2", NULL}, {B_MATH_FLOOR, "floor", "llvm.floor"},
  {B_MATH_CEIL, "ceil", "llvm.ceil"}, {B_MATH_TRUNC, "trunc", "llvm.trunc"},
  {B_CBRT, "cbrt", NULL},
};

/* float32 functions with a fast approximate version in libdevice, used by fast-math
 * code on NVPTX: Numba's list (__nv_fast_expf is ex2.approx of x * log2(e), ...).
 * Not tanh: __nv_fast_tanhf's tanh.approx is good to 2^-11 only. */
static bool has_fast_f32(builtin_id id) {
  switch (id) {
  case B_MATH_EXP: case B_MATH_LOG: case B_MATH_LOG2: case B_MATH_LOG10:
  case B_MATH_SIN: case B_MATH_COS: case B_MATH_TAN: case B_MATH_POW:
    return true;
  default: return false;
  }
}

/* Host intrinsics LLVM lowers to good code (or to the libm call itself). */
static const char *host_intrinsic(builtin_id id) {
  switch (id) {
  case B_MATH_EXP: return "llvm.exp";
  case B_MATH_EXP2: return "llvm.exp2";
  case B_MATH_LOG: return "llvm.log";
  case B_MATH_LOG2: return "llvm.log2";
  case B_MATH_LOG10: return "llvm.log10";
  case B_MATH_SIN: return "llvm.sin";
  case B_MATH_COS: return "llvm.cos";
  case B_MATH_POW: return "llvm.pow";
  default: return NULL;
  }
}

static LLVMValueRef math_call(cg_ctx *g, builtin_id id, const type *t, LLVMValueRef *args,
                              unsigned n) {
  const math_entry *me = NULL;
  for (size_t i = 0; i < sizeof math_table / sizeof math_table[0]; i++)
    if (math_table[i].id == id) me = &math_table[i];
  if (!me) return NULL;
  LLVMTypeRef ft = scalar_type(g, t);
  const char *intr = me->intrinsic ? me->intrinsic : g->host ? host_intrinsic(id) : NULL;
  if (intr) return call_intrinsic(g, intr, ft, args, n);
  if (id == B_MATH_FMOD) return LLVMBuildFRem(g->b, args[0], args[1], "");
  char name[64];
  bool f32 = t->bits == 32;
  bool fast = f32 && g->fi->fastmath && has_fast_f32(id);
  if (g->host) snprintf(name, sizeof name, "%s%s", me->name, f32 ? "f" : "");
  else snprintf(name, sizeof name, "__nv_%s%s%s", fast ? "fast_" : "", me->name, f32 ? "f" : "");
  LLVMTypeRef pt[2] = {ft, ft};
  LLVMValueRef f = declare_fn(g, name, ft, pt, n);
  return call_fn(g, f, args, n);
}

static LLVMValueRef float_class(cg_ctx *g, builtin_id id, LLVMValueRef v, const type *t) {
  if (t->kind != TY_FLOAT) return LLVMConstInt(g->i1, id == B_MATH_ISFINITE, 0);
  if (id == B_MATH_ISNAN) return LLVMBuildFCmp(g->b, LLVMRealUNO, v, v, "");
  LLVMValueRef a = call_intrinsic(g, "llvm.fabs", LLVMTypeOf(v), &v, 1);
  LLVMValueRef inf = LLVMConstReal(LLVMTypeOf(v), 1.0 / 0.0);
  return LLVMBuildFCmp(g->b, id == B_MATH_ISINF ? LLVMRealOEQ : LLVMRealOLT, a, inf, "");
}

static LLVMValueRef cg_math(cg_ctx *g, node *e, builtin_id id) {
  if (id >= B_MATH_ISNAN && id <= B_MATH_ISFINITE) {
    node *a = e->list.items[0];
    return float_class(g, id, cg_expr(g, a), a->ty);
  }
  bool toint = id >= B_MATH_FLOOR && id <= B_MATH_TRUNC;
  const type *ft = toint ? (((node *)e->list.items[0])->ty->kind == TY_FLOAT
                                ? ((node *)e->list.items[0])->ty : &ty_f64)
                         : e->ty;
  /* float16: computed in float32 (libdevice and libm have no half functions), then
     rounded once to float16 */
  const type *rt = ft;
  if (ft->kind == TY_FLOAT && ft->bits == 16) ft = &ty_f32;
  LLVMValueRef args[2];
  for (int i = 0; i < e->list.len && i < 2; i++) args[i] = cg_expr_as(g, e->list.items[i], ft);
  LLVMValueRef r = math_call(g, id, ft, args, (unsigned)e->list.len);
  if (!r) {
    internal_error(g, e->sp, "unknown math function");
    return LLVMGetUndef(scalar_type(g, e->ty));
  }
  return convert(g, r, ft, toint ? e->ty : rt);
}

/* ---- complex numbers ------------------------------------------------------------------------------ */
/* A complex value is an LLVM {float, float} or {double, double}; the operations below
 * work on the parts with the same real math the rest of the language uses. */

static LLVMValueRef cx_make(cg_ctx *g, const type *t, LLVMValueRef re, LLVMValueRef im) {
  LLVMValueRef z = LLVMGetUndef(scalar_type(g, t));
  z = LLVMBuildInsertValue(g->b, z, re, 0, "");
  return LLVMBuildInsertValue(g->b, z, im, 1, "");
}

static LLVMValueRef cx_fabs(cg_ctx *g, LLVMValueRef x) {
  return call_intrinsic(g, "llvm.fabs", LLVMTypeOf(x), &x, 1);
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

static LLVMValueRef cx_arith(cg_ctx *g, op_kind op, LLVMValueRef x, LLVMValueRef y,
                             const type *t) {
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

static LLVMValueRef cx_compare(cg_ctx *g, op_kind op, LLVMValueRef x, LLVMValueRef y) {
  LLVMRealPredicate p = op == OP_EQ ? LLVMRealOEQ : LLVMRealUNE;
  LLVMValueRef re = LLVMBuildFCmp(g->b, p, cx_re(g, x), cx_re(g, y), "");
  LLVMValueRef im = LLVMBuildFCmp(g->b, p, cx_im(g, x), cx_im(g, y), "");
  return op == OP_EQ ? LLVMBuildAnd(g->b, re, im, "") : LLVMBuildOr(g->b, re, im, "");
}

/* z ** k for a constant 0 <= k <= 8: repeated multiplication. */
static LLVMValueRef cx_pow_small(cg_ctx *g, LLVMValueRef z, int64_t k, const type *t) {
  LLVMTypeRef pt = scalar_type(g, type_complex_part(t));
  LLVMValueRef r = cx_make(g, t, LLVMConstReal(pt, 1.0), LLVMConstNull(pt));
  for (int64_t i = 0; i < k; i++) r = i == 0 ? z : cx_arith(g, OP_MUL, r, z, t);
  return r;
}

static LLVMValueRef cx_abs(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMValueRef args[2] = {cx_re(g, z), cx_im(g, z)};
  return math_call(g, B_MATH_HYPOT, type_complex_part(t), args, 2);
}

static LLVMValueRef cx_phase(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMValueRef args[2] = {cx_im(g, z), cx_re(g, z)};
  return math_call(g, B_MATH_ATAN2, type_complex_part(t), args, 2);
}

static LLVMValueRef real1(cg_ctx *g, builtin_id id, const type *pt, LLVMValueRef x) {
  return math_call(g, id, pt, &x, 1);
}

/* r * (cos phi + i sin phi) */
static LLVMValueRef cx_rect(cg_ctx *g, LLVMValueRef r, LLVMValueRef phi, const type *t) {
  const type *pt = type_complex_part(t);
  return cx_make(g, t, LLVMBuildFMul(g->b, r, real1(g, B_MATH_COS, pt, phi), ""),
                 LLVMBuildFMul(g->b, r, real1(g, B_MATH_SIN, pt, phi), ""));
}

/* The principal square root: t = sqrt((|z| + |re|) / 2); for re >= 0 it is
 * t + i im/(2t), else |im|/(2t) + i copysign(t, im); sqrt(0 + i im) is 0 + i im. */
static LLVMValueRef cx_sqrt(cg_ctx *g, LLVMValueRef z, const type *t) {
  LLVMBuilderRef b = g->b;
  const type *pt = type_complex_part(t);
  LLVMTypeRef ft = scalar_type(g, pt);
  LLVMValueRef re = cx_re(g, z), im = cx_im(g, z), zero = LLVMConstNull(ft);
  LLVMValueRef half = LLVMConstReal(ft, 0.5), two = LLVMConstReal(ft, 2.0);
  LLVMValueRef s = LLVMBuildFMul(b, LLVMBuildFAdd(b, cx_abs(g, z, t), cx_fabs(g, re), ""), half, "");
  LLVMValueRef tt = real1(g, B_MATH_SQRT, pt, s);
  LLVMValueRef q = LLVMBuildFDiv(b, im, LLVMBuildFMul(b, two, tt, ""), "");
  LLVMValueRef cs_args[2] = {tt, im};
  LLVMValueRef pos = LLVMBuildFCmp(b, LLVMRealOGE, re, zero, "");
  LLVMValueRef r_re = LLVMBuildSelect(b, pos, tt, cx_fabs(g, q), "");
  LLVMValueRef r_im = LLVMBuildSelect(b, pos, q, math_call(g, B_MATH_COPYSIGN, pt, cs_args, 2), "");
  LLVMValueRef is0 = LLVMBuildFCmp(b, LLVMRealOEQ, tt, zero, "");
  return cx_make(g, t, LLVMBuildSelect(b, is0, zero, r_re, ""), LLVMBuildSelect(b, is0, im, r_im, ""));
}

static LLVMValueRef cg_cmath(cg_ctx *g, node *e, builtin_id id) {
  node *a = e->list.items[0];
  if (id == B_CMATH_RECT) {
    const type *pt = type_complex_part(e->ty);
    return cx_rect(g, cg_expr_as(g, a, pt), cg_expr_as(g, e->list.items[1], pt), e->ty);
  }
  const type *ct = a->ty->kind == TY_COMPLEX ? a->ty
                 : id == B_CMATH_PHASE ? (e->ty->bits == 64 ? &ty_c128 : &ty_c64)
                 : id == B_CMATH_POLAR ? (e->ty->elems[0]->bits == 64 ? &ty_c128 : &ty_c64)
                 : e->ty;
  const type *pt = type_complex_part(ct);
  LLVMValueRef z = cg_expr_as(g, a, ct);
  switch (id) {
  case B_CMATH_PHASE: return cx_phase(g, z, ct);
  case B_CMATH_POLAR: {
    LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
    agg = LLVMBuildInsertValue(g->b, agg, cx_abs(g, z, ct), 0, "");
    return LLVMBuildInsertValue(g->b, agg, cx_phase(g, z, ct), 1, "");
  }
  case B_CMATH_EXP: return cx_rect(g, real1(g, B_MATH_EXP, pt, cx_re(g, z)), cx_im(g, z), ct);
  case B_CMATH_LOG: return cx_make(g, ct, real1(g, B_MATH_LOG, pt, cx_abs(g, z, ct)), cx_phase(g, z, ct));
  default: return cx_sqrt(g, z, ct);
  }
}

/* complex(x), complex(x, y) */
static LLVMValueRef cg_complex(cg_ctx *g, node *e) {
  if (e->list.len == 1) return cg_expr_as(g, e->list.items[0], e->ty);
  const type *pt = type_complex_part(e->ty);
  return cx_make(g, e->ty, cg_expr_as(g, e->list.items[0], pt), cg_expr_as(g, e->list.items[1], pt));
}

/* z.real, z.imag; x.real is x and x.imag 0 for a real x */
static LLVMValueRef cg_part(cg_ctx *g, node *e) {
  const type *bt = e->a->ty;
  LLVMValueRef v = cg_expr(g, e->a);
  bool imag = strcmp(e->str, "imag") == 0;
  if (bt->kind == TY_COMPLEX) return imag ? cx_im(g, v) : cx_re(g, v);
  return imag ? LLVMConstNull(scalar_type(g, bt)) : v;
}

static LLVMValueRef cg_conjugate(cg_ctx *g, node *e) {
  const type *t = e->ty;
  LLVMValueRef v = cg_expr(g, e->a->a);
  if (t->kind != TY_COMPLEX) return v;
  return cx_make(g, t, cx_re(g, v), LLVMBuildFNeg(g->b, cx_im(g, v), ""));
}

/* ---- float16: cuda.fp16.* ---------------------------------------------------------------------- */
/* Arithmetic, comparisons, fma, min/max and abs on LLVM `half` (native f16
 * instructions on the GPU, exactly rounded promotion to float on the host); the
 * transcendental ones computed in float32 and rounded once, as cg_math does. */

static LLVMValueRef arith(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t);
static LLVMValueRef compare(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t);

static builtin_id fp16_math_id(builtin_id id) {
  switch (id) {
  case B_FP16_HSQRT: return B_MATH_SQRT;
  case B_FP16_HEXP: return B_MATH_EXP;
  case B_FP16_HEXP2: return B_MATH_EXP2;
  case B_FP16_HLOG: return B_MATH_LOG;
  case B_FP16_HLOG2: return B_MATH_LOG2;
  case B_FP16_HLOG10: return B_MATH_LOG10;
  case B_FP16_HSIN: return B_MATH_SIN;
  case B_FP16_HCOS: return B_MATH_COS;
  case B_FP16_HFLOOR: return B_MATH_FLOOR;
  case B_FP16_HCEIL: return B_MATH_CEIL;
  case B_FP16_HTRUNC: return B_MATH_TRUNC;
  default: return B_NONE;
  }
}

static LLVMValueRef fp16_unary(cg_ctx *g, builtin_id id, LLVMValueRef x) {
  LLVMTypeRef ht = LLVMTypeOf(x);
  switch (id) {
  case B_FP16_HNEG: return LLVMBuildFNeg(g->b, x, "");
  case B_FP16_HABS: return call_intrinsic(g, "llvm.fabs", ht, &x, 1);
  case B_FP16_HRINT: return call_intrinsic(g, "llvm.roundeven", ht, &x, 1);
  case B_FP16_HRCP: return LLVMBuildFDiv(g->b, LLVMConstReal(ht, 1.0), x, "");
  default: break;
  }
  LLVMValueRef f = convert(g, x, &ty_f16, &ty_f32);
  LLVMValueRef r = id == B_FP16_HRSQRT
      ? LLVMBuildFDiv(g->b, LLVMConstReal(g->f32, 1.0), math_call(g, B_MATH_SQRT, &ty_f32, &f, 1), "")
      : math_call(g, fp16_math_id(id), &ty_f32, &f, 1);
  return convert(g, r, &ty_f32, &ty_f16);
}

static LLVMValueRef cg_fp16(cg_ctx *g, node *e, builtin_id id) {
  LLVMValueRef a[3];
  for (int i = 0; i < e->list.len && i < 3; i++) a[i] = cg_expr_as(g, e->list.items[i], &ty_f16);
  LLVMTypeRef ht = LLVMTypeOf(a[0]);
  switch (id) {
  case B_FP16_HADD: return arith(g, OP_ADD, a[0], a[1], &ty_f16);
  case B_FP16_HSUB: return arith(g, OP_SUB, a[0], a[1], &ty_f16);
  case B_FP16_HMUL: return arith(g, OP_MUL, a[0], a[1], &ty_f16);
  case B_FP16_HDIV: return arith(g, OP_DIV, a[0], a[1], &ty_f16);
  case B_FP16_HMAX: return call_intrinsic(g, "llvm.maxnum", ht, a, 2);
  case B_FP16_HMIN: return call_intrinsic(g, "llvm.minnum", ht, a, 2);
  case B_FP16_HFMA: return call_intrinsic(g, "llvm.fma", ht, a, 3);
  case B_FP16_HEQ: return compare(g, OP_EQ, a[0], a[1], &ty_f16);
  case B_FP16_HNE: return compare(g, OP_NE, a[0], a[1], &ty_f16);
  case B_FP16_HGT: return compare(g, OP_GT, a[0], a[1], &ty_f16);
  case B_FP16_HGE: return compare(g, OP_GE, a[0], a[1], &ty_f16);
  case B_FP16_HLT: return compare(g, OP_LT, a[0], a[1], &ty_f16);
  case B_FP16_HLE: return compare(g, OP_LE, a[0], a[1], &ty_f16);
  default: return fp16_unary(g, id, a[0]);
  }
}

/* ---- arrays ------------------------------------------------------------------------------------- */

static LLVMValueRef array_extent(cg_ctx *g, LLVMValueRef arr, int k) {
  return LLVMBuildExtractValue(g->b, arr, (unsigned)(1 + k), "extent");
}

/* ---- bounds checking (kcc_options.bounds_check) ------------------------------------------
 * Only bounds_checked_ptr() below is called from the rest of the generator, and only when
 * the option is on: without it the generated code has no check at all. A failed check
 * fills the kc_kernel_error record (host_abi.h) once, then redirects the access to a
 * scratch slot, so the thread runs on without touching memory outside the array. */

/* The error record: the launch's (blk->error) on the host, the module global
 * KC_KERNEL_ERROR_SYMBOL on the GPU (read and cleared by the runtime after a launch). */
static LLVMValueRef bounds_record(cg_ctx *g) {
  if (g->host) {
    LLVMValueRef idx[1] = {ci64(g, KC_CPU_BLOCK_OFF_ERROR)};
    return LLVMBuildLoad2(g->b, g->ptr, LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, ""),
                          "kc.error");
  }
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, KC_KERNEL_ERROR_SYMBOL);
  if (!gv) {
    LLVMTypeRef t = LLVMArrayType2(g->i8, KC_KERNEL_ERROR_SIZE);
    gv = LLVMAddGlobalInAddressSpace(g->m, t, KC_KERNEL_ERROR_SYMBOL, 1);
    LLVMSetInitializer(gv, LLVMConstNull(t));
    LLVMSetAlignment(gv, 8);
  }
  return LLVMBuildAddrSpaceCast(g->b, gv, g->ptr, "");
}

/* Where a failed access goes instead: per worker on the host, a module global on the GPU
 * (16 bytes: the widest element, and aligned for atomics). */
static LLVMValueRef bounds_scratch(cg_ctx *g) {
  if (g->host) {
    LLVMValueRef idx[1] = {ci64(g, KC_CPU_BLOCK_OFF_SCRATCH)};
    return LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, "kc.scratch");
  }
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, "__kcc_scratch");
  if (!gv) {
    LLVMTypeRef t = LLVMArrayType2(g->i8, 16);
    gv = LLVMAddGlobalInAddressSpace(g->m, t, "__kcc_scratch", 1);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetInitializer(gv, LLVMConstNull(t));
    LLVMSetAlignment(gv, 16);
  }
  return LLVMBuildAddrSpaceCast(g->b, gv, g->ptr, "");
}

static void record_field(cg_ctx *g, LLVMValueRef rec, int off, LLVMValueRef v) {
  LLVMValueRef idx[1] = {ci64(g, off)};
  LLVMBuildStore(g->b, v, LLVMBuildInBoundsGEP2(g->b, g->i8, rec, idx, 1, ""));
}

/* Claim the record (the first failing thread wins) and fill it. */
static void bounds_report(cg_ctx *g, node *ix, const type *at, LLVMValueRef arr,
                          LLVMValueRef axis, LLVMValueRef index, LLVMValueRef is_unsigned) {
  LLVMValueRef rec = bounds_record(g);
  LLVMValueRef cas = LLVMBuildAtomicCmpXchg(g->b, rec, ci32(g, 0), ci32(g, 1),
      LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
  LLVMBasicBlockRef fill = new_bb(g, "bounds.fill"), done = new_bb(g, "bounds.done");
  LLVMBuildCondBr(g->b, LLVMBuildExtractValue(g->b, cas, 1, ""), fill, done);
  LLVMPositionBuilderAtEnd(g->b, fill);
  record_field(g, rec, KC_KERNEL_ERROR_OFF_LINE, ci32(g, ix->sp.line));
  record_field(g, rec, KC_KERNEL_ERROR_OFF_COL, ci32(g, ix->sp.col));
  record_field(g, rec, KC_KERNEL_ERROR_OFF_AXIS, axis);
  record_field(g, rec, KC_KERNEL_ERROR_OFF_NDIM, ci32(g, at->ndim));
  record_field(g, rec, KC_KERNEL_ERROR_OFF_UNSIGNED, is_unsigned);
  for (int k = 0; k < 3; k++) {
    record_field(g, rec, KC_KERNEL_ERROR_OFF_BLOCK + 4 * k, special_reg(g, 1, k));
    record_field(g, rec, KC_KERNEL_ERROR_OFF_THREAD + 4 * k, special_reg(g, 0, k));
    record_field(g, rec, KC_KERNEL_ERROR_OFF_SHAPE + 8 * k,
                 k < at->ndim ? array_extent(g, arr, k) : ci64(g, 0));
  }
  record_field(g, rec, KC_KERNEL_ERROR_OFF_INDEX, index);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* The element pointer p of a[idx], checked: every wrapped index must lie in
 * [0, extent). raw[k] is index k as written (as i64), wrapped[k] after a negative one
 * counted from the end, uns[k] whether its type is unsigned. */
static LLVMValueRef bounds_checked_ptr(cg_ctx *g, node *ix, const type *at, LLVMValueRef arr,
                                       LLVMValueRef *raw, LLVMValueRef *wrapped,
                                       const bool *uns, LLVMValueRef p) {
  LLVMValueRef bad = NULL, axis = NULL, index = NULL, isu = NULL;
  for (int k = at->ndim - 1; k >= 0; k--) {
    /* unsigned compare: a still-negative index is a huge one */
    LLVMValueRef out = LLVMBuildICmp(g->b, LLVMIntUGE, wrapped[k], array_extent(g, arr, k), "");
    bad = bad ? LLVMBuildOr(g->b, bad, out, "") : out;
    /* the first failing axis is reported: later axes are selected first, then replaced */
    axis = axis ? LLVMBuildSelect(g->b, out, ci32(g, k), axis, "") : ci32(g, k);
    index = index ? LLVMBuildSelect(g->b, out, raw[k], index, "") : raw[k];
    isu = isu ? LLVMBuildSelect(g->b, out, ci32(g, uns[k]), isu, "") : ci32(g, uns[k]);
  }
  LLVMBasicBlockRef ok_bb = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef fail = new_bb(g, "bounds.fail"), join = new_bb(g, "bounds.ok");
  LLVMValueRef br = LLVMBuildCondBr(g->b, bad, fail, join);
  /* failures are rare: keep the checks' code out of the hot path */
  LLVMValueRef w[3] = {LLVMMDStringInContext(g->c, "branch_weights", 14), ci32(g, 1),
                       ci32(g, 1 << 20)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->c, "prof", 4), LLVMMDNodeInContext(g->c, w, 3));
  LLVMPositionBuilderAtEnd(g->b, fail);
  bounds_report(g, ix, at, arr, axis, index, isu);
  LLVMValueRef scratch = bounds_scratch(g);
  LLVMBasicBlockRef fail_end = LLVMGetInsertBlock(g->b);
  LLVMBuildBr(g->b, join);
  LLVMPositionBuilderAtEnd(g->b, join);
  LLVMValueRef phi = LLVMBuildPhi(g->b, g->ptr, "checked");
  LLVMValueRef in[2] = {p, scratch};
  LLVMBasicBlockRef from[2] = {ok_bb, fail_end};
  LLVMAddIncoming(phi, in, from, 2);
  return phi;
}

/* A signed index v into an axis of extent n, counted from the end when negative, as
 * Python does. */
static LLVMValueRef wrap_negative(cg_ctx *g, LLVMValueRef v, LLVMValueRef n) {
  LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, v, ci64(g, 0), "");
  return LLVMBuildSelect(g->b, neg, LLVMBuildAdd(g->b, v, n, ""), v, "");
}

/* The stride (in elements) of axis k: stored in a view, implied by the extents of a
 * C-contiguous array. */
static LLVMValueRef array_stride(cg_ctx *g, LLVMValueRef arr, const type *at, int k) {
  if (at->strided)
    return LLVMBuildExtractValue(g->b, arr, (unsigned)(1 + at->ndim + k), "stride");
  LLVMValueRef s = ci64(g, 1);
  for (int j = at->ndim - 1; j > k; j--) s = LLVMBuildMul(g->b, s, array_extent(g, arr, j), "");
  return s;
}

/* The address of a[i, j, k]: negative indices count from the end, as in Python. */
static LLVMValueRef element_ptr(cg_ctx *g, node *ix) {
  node *base = ix->a;
  const type *at = base->ty;
  LLVMValueRef arr = cg_expr(g, base);
  node_list single = {&ix->b, 1, 1};
  node_list *idx = ix->b->kind == N_TUPLE ? &ix->b->list : &single;
  LLVMValueRef lin = NULL;
  LLVMValueRef raw[KC_MAX_DIMS], wrapped[KC_MAX_DIMS];
  bool uns[KC_MAX_DIMS];
  for (int k = 0; k < at->ndim; k++) {
    node *in = idx->items[k];
    LLVMValueRef v = cg_expr_as(g, in, in->ty->kind == TY_BOOL ? &ty_i64 : in->ty);
    const type *it = in->ty->kind == TY_BOOL ? &ty_u64 : in->ty;
    LLVMValueRef ext = array_extent(g, arr, k);
    v = convert(g, v, it, it->is_signed ? &ty_i64 : &ty_u64);
    raw[k] = v;
    uns[k] = !it->is_signed;
    if (it->is_signed) v = wrap_negative(g, v, ext);
    wrapped[k] = v;
    if (at->strided) { /* a view: sum of index * stride */
      LLVMValueRef off = LLVMBuildMul(g->b, v, array_stride(g, arr, at, k), "");
      lin = lin ? LLVMBuildAdd(g->b, lin, off, "") : off;
    } else {
      lin = lin ? LLVMBuildAdd(g->b, LLVMBuildMul(g->b, lin, ext, ""), v, "") : v;
    }
  }
  LLVMValueRef data = LLVMBuildExtractValue(g->b, arr, 0, "data");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, mem_type(g, at->elem), data, &lin, 1, "");
  if (g->opts->bounds_check) p = bounds_checked_ptr(g, ix, at, arr, raw, wrapped, uns, p);
  return p;
}

static LLVMValueRef load_element(cg_ctx *g, LLVMValueRef p, const type *el) {
  LLVMValueRef v = LLVMBuildLoad2(g->b, mem_type(g, el), p, "");
  return el->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
}

static void store_element(cg_ctx *g, LLVMValueRef p, LLVMValueRef v, const type *el) {
  if (el->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, g->i8, "");
  LLVMBuildStore(g->b, v, p);
}

static LLVMValueRef array_size(cg_ctx *g, LLVMValueRef arr, int ndim) {
  LLVMValueRef s = array_extent(g, arr, 0);
  for (int k = 1; k < ndim; k++) s = LLVMBuildMul(g->b, s, array_extent(g, arr, k), "");
  return s;
}

/* A shared array: an addrspace(3) global on the GPU, a slice of the block's shared
 * buffer on the host; a local array: an alloca. Either way an array value. */
static LLVMValueRef cg_mem_array(cg_ctx *g, node *e) {
  const type *t = e->ty;
  const int64_t *dims = e->aux_ptr;
  if (e->aux == B_SHARED_ARRAY && dims[0] == 0) return cg_dynamic_shared(g, t);
  int64_t n = 1;
  for (int k = 0; k < t->ndim; k++) n *= dims[k];
  LLVMTypeRef at = LLVMArrayType2(mem_type(g, t->elem), (uint64_t)n);
  LLVMValueRef data;
  if (e->aux == B_LOCAL_ARRAY) {
    data = entry_alloca(g, at, "local");
  } else if (!g->host) {
    LLVMValueRef gv = LLVMAddGlobalInAddressSpace(g->m, at, "shared", 3);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetInitializer(gv, LLVMGetUndef(at));
    LLVMSetAlignment(gv, 16);
    data = LLVMBuildAddrSpaceCast(g->b, gv, g->ptr, "");
  } else {
    size_t bytes = (size_t)n * (t->elem->kind == TY_BOOL ? 1 : (size_t)t->elem->bits / 8);
    size_t off = (g->shared_bytes + 15) & ~(size_t)15;
    g->shared_bytes = off + bytes;
    LLVMValueRef idx[1] = {ci64(g, KC_CPU_BLOCK_OFF_SHARED)};
    LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, "");
    LLVMValueRef base = LLVMBuildLoad2(g->b, g->ptr, p, "shared");
    LLVMValueRef o[1] = {ci64(g, (long long)off)};
    data = LLVMBuildInBoundsGEP2(g->b, g->i8, base, o, 1, "");
  }
  LLVMValueRef v = LLVMGetUndef(array_struct(g, t->ndim));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < t->ndim; k++) v = LLVMBuildInsertValue(g->b, v, ci64(g, dims[k]), (unsigned)(k + 1), "");
  return v;
}

static LLVMAtomicRMWBinOp atomic_op(builtin_id id, const type *el) {
  bool fl = el->kind == TY_FLOAT;
  switch (id) {
  case B_ATOMIC_ADD: return fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
  case B_ATOMIC_SUB: return fl ? LLVMAtomicRMWBinOpFSub : LLVMAtomicRMWBinOpSub;
  /* (floats take float_minmax below) */
  case B_ATOMIC_MAX: case B_ATOMIC_NANMAX:
    return el->is_signed ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
  case B_ATOMIC_MIN: case B_ATOMIC_NANMIN:
    return el->is_signed ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
  case B_ATOMIC_AND: return LLVMAtomicRMWBinOpAnd;
  case B_ATOMIC_OR: return LLVMAtomicRMWBinOpOr;
  case B_ATOMIC_XOR: return LLVMAtomicRMWBinOpXor;
  /* CUDA's atomicInc/atomicDec are exactly LLVM's wrapping increment and decrement */
  case B_ATOMIC_INC: return LLVMAtomicRMWBinOpUIncWrap;
  case B_ATOMIC_DEC: return LLVMAtomicRMWBinOpUDecWrap;
  default: return LLVMAtomicRMWBinOpXchg;
  }
}

/* Float atomic max/min with Numba's NaN rules, as a compare-and-swap loop on the bits:
 *   max, min:       a NaN v, or a NaN already in *p, leaves *p as it is;
 *   nanmax, nanmin: a NaN v leaves *p as it is; a NaN in *p is replaced by v
 * (NaN is a missing value). Otherwise v is stored when it is greater (max) or less
 * (min) than *p: -0.0 and +0.0 are equal, so neither replaces the other. Returns the
 * value *p held just before (the one the loop saw last when nothing was stored).
 * Unlike LLVM's atomicrmw fmax (IEEE maxNum: a NaN in *p is replaced), the loop also
 * stores nothing when v would not change *p, so threads that lose write no memory. */
static LLVMValueRef float_minmax(cg_ctx *g, LLVMValueRef p, LLVMValueRef v, const type *el,
                                 builtin_id id) {
  bool is_max = id == B_ATOMIC_MAX || id == B_ATOMIC_NANMAX;
  bool nan_missing = id == B_ATOMIC_NANMAX || id == B_ATOMIC_NANMIN;
  LLVMTypeRef ft = LLVMTypeOf(v), it = el->bits == 32 ? g->i32 : g->i64;
  LLVMValueRef first = LLVMBuildLoad2(g->b, it, p, "cur");
  LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(first, (unsigned)(el->bits / 8));
  LLVMValueRef fcur = LLVMBuildBitCast(g->b, first, ft, "");
  LLVMValueRef skip = LLVMBuildFCmp(g->b, LLVMRealUNO, v, nan_missing ? v : fcur, "");
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef test = new_bb(g, "minmax.test"), swap = new_bb(g, "minmax.swap");
  LLVMBasicBlockRef done = new_bb(g, "minmax.done");
  LLVMBuildCondBr(g->b, skip, done, test);

  /* test: store v while *p is below it (max) or above it (min); a NaN in *p counts as
     such for nanmax/nanmin (the unordered comparisons) */
  LLVMPositionBuilderAtEnd(g->b, test);
  LLVMValueRef old = LLVMBuildPhi(g->b, it, "old");
  LLVMRealPredicate pred = is_max ? (nan_missing ? LLVMRealULT : LLVMRealOLT)
                                  : (nan_missing ? LLVMRealUGT : LLVMRealOGT);
  LLVMValueRef better = LLVMBuildFCmp(g->b, pred, LLVMBuildBitCast(g->b, old, ft, ""), v, "");
  LLVMBuildCondBr(g->b, better, swap, done);

  LLVMPositionBuilderAtEnd(g->b, swap);
  LLVMValueRef r = LLVMBuildAtomicCmpXchg(g->b, p, old, LLVMBuildBitCast(g->b, v, it, ""),
                                          LLVMAtomicOrderingMonotonic,
                                          LLVMAtomicOrderingMonotonic, 0);
  LLVMValueRef seen = LLVMBuildExtractValue(g->b, r, 0, "seen");
  LLVMBuildCondBr(g->b, LLVMBuildExtractValue(g->b, r, 1, ""), done, test);
  LLVMValueRef in_old[2] = {first, seen};
  LLVMBasicBlockRef from_old[2] = {entry, swap};
  LLVMAddIncoming(old, in_old, from_old, 2);

  LLVMPositionBuilderAtEnd(g->b, done);
  LLVMValueRef res = LLVMBuildPhi(g->b, it, "prev");
  LLVMValueRef in_res[3] = {first, old, old};
  LLVMBasicBlockRef from_res[3] = {entry, test, swap};
  LLVMAddIncoming(res, in_res, from_res, 3);
  return LLVMBuildBitCast(g->b, res, ft, "");
}

/* cuda.atomic.*(a, idx, v...): relaxed atomics (as CUDA's) returning the old value;
 * real atomics on the CPU too, where blocks run in parallel. compare_and_swap works on
 * a[0]. */
static LLVMValueRef cg_atomic(cg_ctx *g, node *e, builtin_id id) {
  node *arr = e->list.items[0];
  bool no_index = id == B_ATOMIC_COMPARE_AND_SWAP;
  node zero = {0};
  zero.kind = N_INT;
  zero.ty = &ty_i64;
  zero.sp = e->sp;
  const type *el = arr->ty->elem;
  node ix = {0};
  ix.kind = N_INDEX;
  ix.a = arr;
  ix.b = no_index ? &zero : e->list.items[1];
  ix.sp = e->sp;
  LLVMValueRef p = element_ptr(g, &ix);
  int first = no_index ? 1 : 2;
  LLVMValueRef v = cg_expr_as(g, e->list.items[first], el);
  if (id == B_ATOMIC_CAS || id == B_ATOMIC_COMPARE_AND_SWAP) {
    LLVMValueRef nv = cg_expr_as(g, e->list.items[first + 1], el);
    LLVMValueRef r = LLVMBuildAtomicCmpXchg(g->b, p, v, nv, LLVMAtomicOrderingMonotonic,
                                            LLVMAtomicOrderingMonotonic, 0);
    return LLVMBuildExtractValue(g->b, r, 0, "");
  }
  bool minmax = id == B_ATOMIC_MAX || id == B_ATOMIC_MIN || id == B_ATOMIC_NANMAX ||
                id == B_ATOMIC_NANMIN;
  if (minmax && el->kind == TY_FLOAT) return float_minmax(g, p, v, el, id);
  return LLVMBuildAtomicRMW(g->b, atomic_op(id, el), p, v, LLVMAtomicOrderingMonotonic, 0);
}

/* ---- CUDA intrinsics: block collectives, fences, atomics, warp, bit operations -------- */

/* Host: the executor's function pointer at byte offset off of kc_cpu_block. */
static LLVMValueRef blk_load(cg_ctx *g, int off, LLVMTypeRef t, const char *name) {
  LLVMValueRef idx[1] = {ci64(g, off)};
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, "");
  return LLVMBuildLoad2(g->b, t, p, name);
}

/* Host: blk->collective(blk, op, mask, value, arg, site); an i64. */
static LLVMValueRef host_collective(cg_ctx *g, unsigned op, LLVMValueRef mask,
                                    LLVMValueRef value, LLVMValueRef arg, span sp) {
  LLVMValueRef fp = blk_load(g, KC_CPU_BLOCK_OFF_COLLECTIVE, g->ptr, "collective");
  LLVMTypeRef pt[6] = {g->ptr, g->i32, g->i32, g->i64, g->i32, g->i32};
  LLVMTypeRef ft = LLVMFunctionType(g->i64, pt, 6, 0);
  LLVMValueRef args[6] = {g->blk, ci32(g, op), mask ? mask : ci32(g, -1),
                          value ? value : ci64(g, 0), arg ? arg : ci32(g, 0),
                          ci32(g, (sp.line << 16) | (sp.col & 0xffff))};
  return LLVMBuildCall2(g->b, ft, fp, args, 6, "");
}

/* An intrinsic of this LLVM, or NULL (names changed across releases). */
static bool have_intrinsic(const char *name) {
  return LLVMLookupIntrinsicID(name, strlen(name)) != 0;
}

/* syncthreads_count/and/or(pred): int32. */
static LLVMValueRef cg_block_collective(cg_ctx *g, node *e, builtin_id id) {
  node *a = e->list.items[0];
  LLVMValueRef pred = to_bool(g, cg_expr(g, a), a->ty);
  if (g->host) {
    unsigned op = id == B_SYNCTHREADS_COUNT ? KC_COLL_SYNC_COUNT
                : id == B_SYNCTHREADS_AND ? KC_COLL_SYNC_AND : KC_COLL_SYNC_OR;
    LLVMValueRef r = host_collective(g, op, NULL, LLVMBuildZExt(g->b, pred, g->i64, ""), NULL, e->sp);
    return LLVMBuildTrunc(g->b, r, g->i32, "");
  }
  const char *kind = id == B_SYNCTHREADS_COUNT ? "popc" : id == B_SYNCTHREADS_AND ? "and" : "or";
  char name[64];
  snprintf(name, sizeof name, "llvm.nvvm.barrier.cta.red.%s.aligned.all", kind);
  LLVMValueRef r;
  if (have_intrinsic(name)) {
    LLVMValueRef args[2] = {ci32(g, 0), pred};
    r = call_intrinsic(g, name, NULL, args, 2);
  } else {  /* LLVM before 20 */
    snprintf(name, sizeof name, "llvm.nvvm.barrier0.%s", kind);
    LLVMValueRef p32 = LLVMBuildZExt(g->b, pred, g->i32, "");
    r = call_intrinsic(g, name, NULL, &p32, 1);
  }
  return LLVMTypeOf(r) == g->i32 ? r : LLVMBuildZExt(g->b, r, g->i32, "");
}

static void cg_fence(cg_ctx *g, builtin_id id) {
  if (g->host) {  /* threads of all blocks share one memory: a full fence */
    LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, 0, "");
    return;
  }
  call_intrinsic(g, id == B_THREADFENCE_BLOCK ? "llvm.nvvm.membar.cta"
                  : id == B_THREADFENCE ? "llvm.nvvm.membar.gl" : "llvm.nvvm.membar.sys",
                 NULL, NULL, 0);
}

static LLVMValueRef cg_mask_arg(cg_ctx *g, node *e, int i) {
  return i < e->list.len ? cg_expr_as(g, e->list.items[i], &ty_u32) : ci32(g, -1);
}

static void cg_syncwarp(cg_ctx *g, node *e) {
  LLVMValueRef mask = cg_mask_arg(g, e, 0);
  if (g->host) host_collective(g, KC_COLL_SYNCWARP, mask, NULL, NULL, e->sp);
  else call_intrinsic(g, "llvm.nvvm.bar.warp.sync", NULL, &mask, 1);
}

/* A warp value as raw bits (i32 or i64) and back. */
static LLVMValueRef warp_bits(cg_ctx *g, LLVMValueRef v, const type *t) {
  if (t->kind == TY_FLOAT) return LLVMBuildBitCast(g->b, v, t->bits == 32 ? g->i32 : g->i64, "");
  if (t->bits >= 32) return v;
  return t->is_signed ? LLVMBuildSExt(g->b, v, g->i32, "") : LLVMBuildZExt(g->b, v, g->i32, "");
}

static LLVMValueRef warp_unbits(cg_ctx *g, LLVMValueRef bits, const type *t) {
  if (t->kind == TY_FLOAT) return LLVMBuildBitCast(g->b, bits, scalar_type(g, t), "");
  if (t->bits >= 32) return bits;
  return LLVMBuildTrunc(g->b, bits, scalar_type(g, t), "");
}

static LLVMValueRef nvptx_shfl32(cg_ctx *g, const char *mode, LLVMValueRef mask,
                                 LLVMValueRef v, LLVMValueRef lane) {
  char name[48];
  snprintf(name, sizeof name, "llvm.nvvm.shfl.sync.%s.i32", mode);
  /* c: clamp 31 for idx/down/bfly, 0 for up, as in CUDA's __shfl_*_sync at width 32 */
  LLVMValueRef args[4] = {mask, v, lane, ci32(g, strcmp(mode, "up") == 0 ? 0 : 0x1f)};
  return call_intrinsic(g, name, NULL, args, 4);
}

/* shfl_sync and friends; 64-bit values travel as two 32-bit shuffles on the GPU. */
static LLVMValueRef cg_shuffle(cg_ctx *g, node *e, builtin_id id) {
  const type *t = e->ty;
  LLVMValueRef mask = cg_mask_arg(g, e, 0);
  LLVMValueRef bits = warp_bits(g, cg_expr(g, e->list.items[1]), t);
  LLVMValueRef lane = cg_expr_as(g, e->list.items[2], &ty_u32);
  static const char *const modes[4] = {"idx", "up", "down", "bfly"};
  int k = id - B_SHFL_SYNC;
  if (g->host) {
    LLVMValueRef v64 = LLVMTypeOf(bits) == g->i64 ? bits : LLVMBuildZExt(g->b, bits, g->i64, "");
    LLVMValueRef r = host_collective(g, KC_COLL_SHFL_IDX + (unsigned)k, mask, v64, lane, e->sp);
    if (LLVMTypeOf(bits) != g->i64) r = LLVMBuildTrunc(g->b, r, g->i32, "");
    return warp_unbits(g, r, t);
  }
  if (LLVMTypeOf(bits) == g->i32) return warp_unbits(g, nvptx_shfl32(g, modes[k], mask, bits, lane), t);
  LLVMValueRef lo = LLVMBuildTrunc(g->b, bits, g->i32, "");
  LLVMValueRef hi = LLVMBuildTrunc(g->b, LLVMBuildLShr(g->b, bits, ci64(g, 32), ""), g->i32, "");
  lo = LLVMBuildZExt(g->b, nvptx_shfl32(g, modes[k], mask, lo, lane), g->i64, "");
  hi = LLVMBuildZExt(g->b, nvptx_shfl32(g, modes[k], mask, hi, lane), g->i64, "");
  LLVMValueRef r = LLVMBuildOr(g->b, lo, LLVMBuildShl(g->b, hi, ci64(g, 32), ""), "");
  return warp_unbits(g, r, t);
}

static LLVMValueRef cg_vote(cg_ctx *g, node *e, builtin_id id) {
  LLVMValueRef mask = cg_mask_arg(g, e, 0);
  node *a = e->list.items[1];
  LLVMValueRef pred = to_bool(g, cg_expr(g, a), a->ty);
  if (g->host) {
    unsigned op = KC_COLL_VOTE_ALL + (unsigned)(id - B_ALL_SYNC);
    LLVMValueRef r = host_collective(g, op, mask, LLVMBuildZExt(g->b, pred, g->i64, ""), NULL, e->sp);
    return id == B_BALLOT_SYNC ? LLVMBuildTrunc(g->b, r, g->i32, "")
                               : LLVMBuildICmp(g->b, LLVMIntNE, r, ci64(g, 0), "");
  }
  static const char *const names[4] = {"llvm.nvvm.vote.all.sync", "llvm.nvvm.vote.any.sync",
                                       "llvm.nvvm.vote.uni.sync", "llvm.nvvm.vote.ballot.sync"};
  LLVMValueRef args[2] = {mask, pred};
  return call_intrinsic(g, names[id - B_ALL_SYNC], NULL, args, 2);
}

/* match_any_sync -> uint32 mask; match_all_sync -> (mask, pred). Values compare as bits. */
static LLVMValueRef cg_match(cg_ctx *g, node *e, builtin_id id) {
  LLVMValueRef mask = cg_mask_arg(g, e, 0);
  node *a = e->list.items[1];
  LLVMValueRef bits = warp_bits(g, cg_expr(g, a), a->ty);
  LLVMValueRef m, pred = NULL;
  if (g->host) {
    LLVMValueRef v64 = LLVMTypeOf(bits) == g->i64 ? bits : LLVMBuildZExt(g->b, bits, g->i64, "");
    unsigned op = id == B_MATCH_ANY_SYNC ? KC_COLL_MATCH_ANY : KC_COLL_MATCH_ALL;
    m = LLVMBuildTrunc(g->b, host_collective(g, op, mask, v64, NULL, e->sp), g->i32, "");
    if (id == B_MATCH_ALL_SYNC) pred = LLVMBuildICmp(g->b, LLVMIntNE, m, ci32(g, 0), "");
  } else {
    bool w64 = LLVMTypeOf(bits) == g->i64;
    LLVMValueRef args[2] = {mask, bits};
    if (id == B_MATCH_ANY_SYNC) {
      m = call_intrinsic(g, w64 ? "llvm.nvvm.match.any.sync.i64" : "llvm.nvvm.match.any.sync.i32",
                         NULL, args, 2);
    } else {
      LLVMValueRef r = call_intrinsic(g, w64 ? "llvm.nvvm.match.all.sync.i64p"
                                             : "llvm.nvvm.match.all.sync.i32p", NULL, args, 2);
      m = LLVMBuildExtractValue(g->b, r, 0, "");
      pred = LLVMBuildExtractValue(g->b, r, 1, "");
    }
  }
  if (!pred) return m;
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  agg = LLVMBuildInsertValue(g->b, agg, m, 0, "");
  return LLVMBuildInsertValue(g->b, agg, pred, 1, "");
}

/* cbrt(x): libdevice's __nv_cbrt/__nv_cbrtf on the GPU, the C library's cbrt/cbrtf on
 * the CPU. */
static LLVMValueRef cg_cbrt(cg_ctx *g, node *e) {
  LLVMValueRef x = cg_expr_as(g, e->list.items[0], e->ty);
  return math_call(g, B_CBRT, e->ty, &x, 1);
}

/* nanosleep(ns): PTX nanosleep.u32 on the GPU, which sleeps between 0 and 2 * ns
 * nanoseconds. The CPU sleeps 0 (in that range; a system call per thread would cost
 * far more than ns), but keeps the call's other effect: memory is read again after it,
 * so a loop that polls memory and sleeps polls there too (a fence for this thread
 * only, which orders nothing in hardware). */
static void cg_nanosleep(cg_ctx *g, node *e) {
  LLVMValueRef ns = cg_expr_as(g, e->list.items[0], &ty_u32);
  if (g->host) LLVMBuildFence(g->b, LLVMAtomicOrderingSequentiallyConsistent, 1, "");
  else call_intrinsic(g, "llvm.nvvm.nanosleep", NULL, &ns, 1);
}

static LLVMValueRef cg_lanemask_lt(cg_ctx *g) {
  if (!g->host) return call_intrinsic(g, "llvm.nvvm.read.ptx.sreg.lanemask.lt", NULL, NULL, 0);
  LLVMValueRef bit = LLVMBuildShl(g->b, ci32(g, 1), laneid(g), "");
  return LLVMBuildSub(g->b, bit, ci32(g, 1), "");
}

/* popc, clz, brev, ffs (1-based index of the lowest set bit, 0 for 0). */
static LLVMValueRef cg_bit_op(cg_ctx *g, node *e, builtin_id id) {
  node *a = e->list.items[0];
  const type *t = id == B_BREV ? e->ty : a->ty;
  LLVMValueRef v = cg_expr_as(g, a, t);
  LLVMTypeRef lt = LLVMTypeOf(v);
  LLVMValueRef no[2] = {v, LLVMConstInt(g->i1, 0, 0)};
  switch (id) {
  case B_POPC: return call_intrinsic(g, "llvm.ctpop", lt, &v, 1);
  case B_BREV: return call_intrinsic(g, "llvm.bitreverse", lt, &v, 1);
  case B_CLZ: return call_intrinsic(g, "llvm.ctlz", lt, no, 2);
  default: {
    LLVMValueRef tz = call_intrinsic(g, "llvm.cttz", lt, no, 2);
    LLVMValueRef pos = LLVMBuildAdd(g->b, tz, LLVMConstInt(lt, 1, 0), "");
    LLVMValueRef zero = LLVMBuildICmp(g->b, LLVMIntEQ, v, LLVMConstNull(lt), "");
    pos = LLVMBuildSelect(g->b, zero, LLVMConstNull(lt), pos, "");
    if (t->bits == 32) return pos;
    return t->bits > 32 ? LLVMBuildTrunc(g->b, pos, g->i32, "") : LLVMBuildZExt(g->b, pos, g->i32, "");
  }
  }
}

static LLVMValueRef cg_fma_selp(cg_ctx *g, node *e, builtin_id id) {
  const type *t = e->ty;
  if (id == B_SELP) {
    node *c = e->list.items[0];
    LLVMValueRef test = to_bool(g, cg_expr(g, c), c->ty);
    LLVMValueRef a = cg_expr_as(g, e->list.items[1], t), b = cg_expr_as(g, e->list.items[2], t);
    return LLVMBuildSelect(g->b, test, a, b, "");
  }
  LLVMValueRef args[3];
  for (int i = 0; i < 3; i++) args[i] = cg_expr_as(g, e->list.items[i], t);
  return call_intrinsic(g, "llvm.fma", scalar_type(g, t), args, 3);
}

/* PTX's %dynamic_smem_size: the launch's dynamic shared memory in bytes. LLVM 22 has an
 * intrinsic for it, 19 has not: there the register is read by inline PTX, which
 * touches no memory (so it is as free to move or merge as the intrinsic). */
static LLVMValueRef dynamic_smem_size(cg_ctx *g) {
  static const char intrinsic[] = "llvm.nvvm.read.ptx.sreg.dynamic_smem_size";
  if (LLVMLookupIntrinsicID(intrinsic, sizeof intrinsic - 1))
    return call_intrinsic(g, intrinsic, NULL, NULL, 0);
  return tgt_pure_asm(g->b, g->i32, "mov.u32 $0, %dynamic_smem_size;", "=r", NULL, 0);
}

/* cuda.shared.array(0, dtype): the launch's dynamic shared memory, as a 1-D array of
 * (bytes / itemsize) elements. */
static LLVMValueRef cg_dynamic_shared(cg_ctx *g, const type *t) {
  LLVMValueRef data, bytes;
  if (g->host) {
    data = blk_load(g, KC_CPU_BLOCK_OFF_DYN_SHARED, g->ptr, "dyn_shared");
    bytes = blk_load(g, KC_CPU_BLOCK_OFF_DYN_SHARED_BYTES, g->i64, "dyn_bytes");
  } else {
    LLVMValueRef gv = LLVMGetNamedGlobal(g->m, "kc_dynamic_shared");
    if (!gv) {
      gv = LLVMAddGlobalInAddressSpace(g->m, LLVMArrayType2(g->i8, 0), "kc_dynamic_shared", 3);
      LLVMSetLinkage(gv, LLVMExternalLinkage);
      LLVMSetAlignment(gv, 16);
    }
    data = LLVMBuildAddrSpaceCast(g->b, gv, g->ptr, "");
    bytes = LLVMBuildZExt(g->b, dynamic_smem_size(g), g->i64, "");
  }
  long long size = t->elem->kind == TY_BOOL ? 1 : t->elem->bits / 8;
  LLVMValueRef v = LLVMGetUndef(array_struct(g, 1));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  return LLVMBuildInsertValue(g->b, v, LLVMBuildUDiv(g->b, bytes, ci64(g, size), ""), 1, "");
}

/* One element of a module constant as an LLVM constant of memory type el. */
static LLVMValueRef const_element(cg_ctx *g, const node *v, const type *el) {
  LLVMTypeRef mt = mem_type(g, el);
  double d = v->kind == N_FLOAT ? v->fval : v->big ? (double)v->uval : (double)v->ival;
  if (el->kind == TY_FLOAT) return LLVMConstReal(mt, d);
  if (el->kind == TY_BOOL) return LLVMConstInt(mt, d != 0, 0);
  if (v->kind == N_FLOAT) return LLVMConstInt(mt, (unsigned long long)(long long)d, 1);
  return LLVMConstInt(mt, v->big ? v->uval : (unsigned long long)v->ival, 0);
}

static void flatten_const(cg_ctx *g, const node *v, const type *el, LLVMValueRef *out, int *n) {
  if (v->kind != N_TUPLE) {
    out[(*n)++] = const_element(g, v, el);
    return;
  }
  for (int i = 0; i < v->list.len; i++) flatten_const(g, v->list.items[i], el, out, n);
}

/* cuda.const.array_like(CONST): a constant global (addrspace(4) on the GPU), made once
 * per constant and dtype. */
static LLVMValueRef cg_const_array(cg_ctx *g, node *e) {
  const type *t = e->ty;
  const int64_t *dims = e->aux_ptr;
  node *src = e->list.items[0];
  const char *name = arena_printf(g->ar, "kc_const_%s_%s", src->sym->name,
                                  type_name(g->ar, t->elem));
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, name);
  int64_t n = 1;
  for (int k = 0; k < t->ndim; k++) n *= dims[k];
  LLVMTypeRef at = LLVMArrayType2(mem_type(g, t->elem), (uint64_t)n);
  if (!gv) {
    LLVMValueRef *vals = arena_alloc(g->ar, sizeof *vals * (size_t)n);
    int k = 0;
    flatten_const(g, src->sym->value, t->elem, vals, &k);
    gv = LLVMAddGlobalInAddressSpace(g->m, at, name, g->host ? 0 : 4);
    LLVMSetInitializer(gv, LLVMConstArray2(mem_type(g, t->elem), vals, (uint64_t)n));
    LLVMSetGlobalConstant(gv, 1);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetAlignment(gv, 16);
  }
  LLVMValueRef data = g->host ? gv : LLVMBuildAddrSpaceCast(g->b, gv, g->ptr, "");
  LLVMValueRef v = LLVMGetUndef(array_struct(g, t->ndim));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < t->ndim; k++)
    v = LLVMBuildInsertValue(g->b, v, ci64(g, dims[k]), (unsigned)(k + 1), "");
  return v;
}

/* Calls of the intrinsics above; NULL for a void one. */
static LLVMValueRef cg_intrinsic(cg_ctx *g, node *e, builtin_id id) {
  switch (id) {
  case B_CONST_ARRAY_LIKE: return cg_const_array(g, e);
  case B_SYNCTHREADS_COUNT: case B_SYNCTHREADS_AND: case B_SYNCTHREADS_OR:
    return cg_block_collective(g, e, id);
  case B_THREADFENCE: case B_THREADFENCE_BLOCK: case B_THREADFENCE_SYSTEM:
    cg_fence(g, id);
    return NULL;
  case B_SYNCWARP: cg_syncwarp(g, e); return NULL;
  case B_SHFL_SYNC: case B_SHFL_UP_SYNC: case B_SHFL_DOWN_SYNC: case B_SHFL_XOR_SYNC:
    return cg_shuffle(g, e, id);
  case B_ALL_SYNC: case B_ANY_SYNC: case B_EQ_SYNC: case B_BALLOT_SYNC:
    return cg_vote(g, e, id);
  case B_MATCH_ANY_SYNC: case B_MATCH_ALL_SYNC: return cg_match(g, e, id);
  case B_ACTIVEMASK:
    if (!g->host) return call_intrinsic(g, "llvm.nvvm.activemask", NULL, NULL, 0);
    return LLVMBuildTrunc(g->b, host_collective(g, KC_COLL_ACTIVEMASK, NULL, NULL, NULL, e->sp),
                          g->i32, "");
  case B_LANEMASK_LT: return cg_lanemask_lt(g);
  case B_POPC: case B_BREV: case B_CLZ: case B_FFS: return cg_bit_op(g, e, id);
  case B_FMA: case B_SELP: return cg_fma_selp(g, e, id);
  case B_CBRT: return cg_cbrt(g, e);
  case B_NANOSLEEP: cg_nanosleep(g, e); return NULL;
  default:
    internal_error(g, e->sp, "intrinsic not handled by the code generator");
    return NULL;
  }
}

/* ---- arithmetic with Python semantics -------------------------------------------------------- */

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

static LLVMValueRef float_mod(cg_ctx *g, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef r = LLVMBuildFRem(g->b, a, b, "");
  LLVMValueRef zero = LLVMConstNull(LLVMTypeOf(a));
  LLVMValueRef rneg = LLVMBuildFCmp(g->b, LLVMRealOLT, r, zero, "");
  LLVMValueRef bneg = LLVMBuildFCmp(g->b, LLVMRealOLT, b, zero, "");
  LLVMValueRef adj = LLVMBuildAnd(g->b, LLVMBuildFCmp(g->b, LLVMRealONE, r, zero, ""),
                                  LLVMBuildXor(g->b, rneg, bneg, ""), "");
  return LLVMBuildSelect(g->b, adj, LLVMBuildFAdd(g->b, r, b, ""), r, "");
}

/* Integer power by squaring, as an internal helper per integer type. */
static LLVMValueRef ipow_fn(cg_ctx *g, const type *t) {
  char name[32];
  snprintf(name, sizeof name, "kc.ipow.%c%d", t->is_signed ? 'i' : 'u', t->bits);
  LLVMValueRef f = LLVMGetNamedFunction(g->m, name);
  if (f) return f;
  LLVMTypeRef it = scalar_type(g, t);
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
    /* base 1 -> 1; base -1 -> +-1 by parity; else 0 */
    LLVMValueRef is1 = LLVMBuildICmp(b, LLVMIntEQ, base, one, "");
    LLVMValueRef ism1 = LLVMBuildICmp(b, LLVMIntEQ, base, LLVMConstAllOnes(it), "");
    LLVMValueRef eodd = LLVMBuildICmp(b, LLVMIntNE, LLVMBuildAnd(b, ex, one, ""), zero, "");
    LLVMValueRef negres = LLVMBuildSelect(b, is1, one,
        LLVMBuildSelect(b, ism1, LLVMBuildSelect(b, eodd, LLVMConstAllOnes(it), one, ""), zero, ""), "");
    res = LLVMBuildSelect(b, neg, negres, r2, "");
  }
  LLVMBuildRet(b, res);
  LLVMDisposeBuilder(b);
  return f;
}

static bool small_int_literal(node *e, int64_t *v) {
  node *n = e;
  bool neg = false;
  if (n->kind == N_UNARY && n->op == OP_NEG) { neg = true; n = n->a; }
  if (n->kind != N_INT || n->big) return false;
  *v = neg ? -n->ival : n->ival;
  return true;
}

static LLVMValueRef cg_pow(cg_ctx *g, node *e, LLVMValueRef a, const type *t) {
  int64_t k;
  if (t->kind == TY_COMPLEX && small_int_literal(e->b, &k)) return cx_pow_small(g, a, k, t);
  if (t->kind == TY_FLOAT && e->b->weak && small_int_literal(e->b, &k) && k >= -1 && k <= 4) {
    LLVMValueRef one = LLVMConstReal(scalar_type(g, t), 1.0);
    if (k == -1) return LLVMBuildFDiv(g->b, one, a, "");
    LLVMValueRef r = one;
    for (int64_t i = 0; i < k; i++) r = i == 0 ? a : LLVMBuildFMul(g->b, r, a, "");
    return r;
  }
  LLVMValueRef bv = cg_expr_as(g, e->b, t);
  if (t->kind == TY_FLOAT && t->bits == 16) { /* pow in float32, rounded once */
    LLVMValueRef args[2] = {convert(g, a, t, &ty_f32), convert(g, bv, t, &ty_f32)};
    return convert(g, math_call(g, B_MATH_POW, &ty_f32, args, 2), &ty_f32, t);
  }
  if (t->kind == TY_FLOAT) {
    LLVMValueRef args[2] = {a, bv};
    return math_call(g, B_MATH_POW, t, args, 2);
  }
  LLVMValueRef args[2] = {a, bv};
  return call_fn(g, ipow_fn(g, t), args, 2);
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

static LLVMValueRef arith(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t) {
  if (t->kind == TY_COMPLEX) return cx_arith(g, op, a, b, t);
  bool fl = t->kind == TY_FLOAT;
  switch (op) {
  case OP_ADD: return fl ? LLVMBuildFAdd(g->b, a, b, "") : LLVMBuildAdd(g->b, a, b, "");
  case OP_SUB: return fl ? LLVMBuildFSub(g->b, a, b, "") : LLVMBuildSub(g->b, a, b, "");
  case OP_MUL: return fl ? LLVMBuildFMul(g->b, a, b, "") : LLVMBuildMul(g->b, a, b, "");
  case OP_DIV: return LLVMBuildFDiv(g->b, a, b, "");
  case OP_FLOORDIV:
    if (fl) {
      LLVMValueRef q = LLVMBuildFDiv(g->b, a, b, "");
      return call_intrinsic(g, "llvm.floor", LLVMTypeOf(q), &q, 1);
    }
    return int_divmod(g, op, a, b, t);
  case OP_MOD: return fl ? float_mod(g, a, b) : int_divmod(g, op, a, b, t);
  case OP_BITAND: return LLVMBuildAnd(g->b, a, b, "");
  case OP_BITOR: return LLVMBuildOr(g->b, a, b, "");
  case OP_BITXOR: return LLVMBuildXor(g->b, a, b, "");
  case OP_LSHIFT: case OP_RSHIFT: return shift(g, op, a, b, t);
  default: return NULL;
  }
}

static LLVMValueRef cg_binop(cg_ctx *g, node *e) {
  const type *t = e->ty;
  LLVMValueRef a = cg_expr_as(g, e->a, t);
  if (e->op == OP_POW) return cg_pow(g, e, a, t);
  LLVMValueRef b = cg_expr_as(g, e->b, t);
  LLVMValueRef r = arith(g, e->op, a, b, t);
  if (!r) {
    internal_error(g, e->sp, "unknown binary operator");
    return LLVMGetUndef(scalar_type(g, t));
  }
  return r;
}

static LLVMValueRef cg_unary(cg_ctx *g, node *e) {
  if (e->op == OP_NOT) return LLVMBuildNot(g->b, to_bool(g, cg_expr(g, e->a), e->a->ty), "");
  LLVMValueRef v = cg_expr_as(g, e->a, e->ty);
  switch (e->op) {
  case OP_NEG:
    if (e->ty->kind == TY_COMPLEX)
      return cx_make(g, e->ty, LLVMBuildFNeg(g->b, cx_re(g, v), ""), LLVMBuildFNeg(g->b, cx_im(g, v), ""));
    return e->ty->kind == TY_FLOAT ? LLVMBuildFNeg(g->b, v, "") : LLVMBuildNeg(g->b, v, "");
  case OP_INVERT: return LLVMBuildNot(g->b, v, "");
  default: return v;
  }
}

static LLVMValueRef compare(cg_ctx *g, op_kind op, LLVMValueRef a, LLVMValueRef b, const type *t) {
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

/* a < b < c: each operand evaluated once, later comparisons skipped once one fails. */
static LLVMValueRef cg_compare(cg_ctx *g, node *e) {
  const type **pair = e->aux_ptr;
  int n = e->list.len;
  if (n == 2) {
    const type *t = pair[0];
    return compare(g, e->cmp_ops[0], cg_expr_as(g, e->list.items[0], t),
                   cg_expr_as(g, e->list.items[1], t), t);
  }
  LLVMValueRef res = entry_alloca(g, g->i1, "cmp");
  LLVMBasicBlockRef done = new_bb(g, "cmp.done");
  LLVMValueRef left = cg_expr(g, e->list.items[0]);
  const type *lt = ((node *)e->list.items[0])->ty;
  for (int i = 0; i < n - 1; i++) {
    node *rn = e->list.items[i + 1];
    LLVMValueRef right = cg_expr(g, rn);
    LLVMValueRef c = compare(g, e->cmp_ops[i], convert(g, left, lt, pair[i]),
                             convert(g, right, rn->ty, pair[i]), pair[i]);
    LLVMBuildStore(g->b, c, res);
    if (i < n - 2) {
      LLVMBasicBlockRef next = new_bb(g, "cmp.next");
      LLVMBuildCondBr(g->b, c, next, done);
      LLVMPositionBuilderAtEnd(g->b, next);
    }
    left = right;
    lt = rn->ty;
  }
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  return LLVMBuildLoad2(g->b, g->i1, res, "");
}

/* and/or with Python's value semantics and short-circuit. */
static LLVMValueRef cg_boolop(cg_ctx *g, node *e) {
  const type *t = e->ty;
  LLVMValueRef slot = entry_alloca(g, scalar_type(g, t), "boolop");
  LLVMBasicBlockRef done = new_bb(g, "bool.done");
  for (int i = 0; i < e->list.len; i++) {
    node *x = e->list.items[i];
    LLVMValueRef v = cg_expr(g, x);
    LLVMBuildStore(g->b, convert(g, v, x->ty, t), slot);
    if (i == e->list.len - 1) break;
    LLVMValueRef truth = to_bool(g, v, x->ty);
    LLVMBasicBlockRef next = new_bb(g, "bool.next");
    if (e->op == OP_AND) LLVMBuildCondBr(g->b, truth, next, done);
    else LLVMBuildCondBr(g->b, truth, done, next);
    LLVMPositionBuilderAtEnd(g->b, next);
  }
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  return LLVMBuildLoad2(g->b, scalar_type(g, t), slot, "");
}

static LLVMValueRef cg_ifexp(cg_ctx *g, node *e) {
  LLVMTypeRef lt = cg_type(g, e->ty);
  LLVMValueRef slot = entry_alloca(g, lt, "ifexp");
  LLVMBasicBlockRef tb = new_bb(g, "ifexp.then"), fb = new_bb(g, "ifexp.else"),
                    done = new_bb(g, "ifexp.done");
  LLVMBuildCondBr(g->b, to_bool(g, cg_expr(g, e->a), e->a->ty), tb, fb);
  LLVMPositionBuilderAtEnd(g->b, tb);
  LLVMBuildStore(g->b, cg_expr_as(g, e->b, e->ty), slot);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, fb);
  LLVMBuildStore(g->b, cg_expr_as(g, e->c, e->ty), slot);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  return LLVMBuildLoad2(g->b, lt, slot, "");
}

/* ---- calls ------------------------------------------------------------------------------------------ */

static LLVMValueRef cg_minmax(cg_ctx *g, node *e, bool is_max) {
  const type *t = e->ty;
  LLVMValueRef r = cg_expr_as(g, e->list.items[0], t);
  for (int i = 1; i < e->list.len; i++) {
    LLVMValueRef v = cg_expr_as(g, e->list.items[i], t);
    /* Python: min keeps the first of equal values; a new value wins only if smaller */
    LLVMValueRef better = compare(g, is_max ? OP_GT : OP_LT, v, r, t);
    r = LLVMBuildSelect(g->b, better, v, r, "");
  }
  return r;
}

static LLVMValueRef cg_abs(cg_ctx *g, node *e) {
  node *a = e->list.items[0];
  if (a->ty->kind == TY_COMPLEX) return cx_abs(g, cg_expr(g, a), a->ty);
  const type *t = e->ty;
  LLVMValueRef v = cg_expr_as(g, e->list.items[0], t);
  if (t->kind == TY_FLOAT) return call_intrinsic(g, "llvm.fabs", LLVMTypeOf(v), &v, 1);
  if (!t->is_signed) return v;
  LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, v, LLVMConstNull(LLVMTypeOf(v)), "");
  return LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, v, ""), v, "");
}

static LLVMValueRef cg_round(cg_ctx *g, node *e) {
  node *a = e->list.items[0];
  if (a->ty->kind == TY_INT) return cg_expr(g, a);
  const type *ft = a->ty->kind == TY_FLOAT ? a->ty : &ty_f64;
  LLVMValueRef v = cg_expr_as(g, a, ft);
  LLVMValueRef r = call_intrinsic(g, "llvm.roundeven", LLVMTypeOf(v), &v, 1);
  return convert(g, r, ft, e->ty);
}

static LLVMValueRef cg_len(cg_ctx *g, node *e) {
  node *a = e->list.items[0];
  if (a->ty->kind == TY_TUPLE) return ci64(g, a->ty->nelems);
  return array_extent(g, cg_expr(g, a), 0);
}

/* The hidden (blk, tx, ty, tz) parameters every host function takes first. */
static unsigned hidden_count(cg_ctx *g) { return g->host ? 4 : 0; }

static LLVMValueRef hidden_args_call(cg_ctx *g, fn_instance *callee, node *e) {
  int np = e->params.len;
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(hidden_count(g) + np + 1));
  unsigned n = 0;
  if (g->host) {
    args[n++] = g->blk;
    for (int k = 0; k < 3; k++) args[n++] = g->tid[k];
  }
  /* e->params holds the arguments in parameter order; they are evaluated in the order
     written (positional, then keywords), as Python does, then the omitted defaults */
  LLVMValueRef *by_param = args + n;
  for (int j = 0; j < np; j++) by_param[j] = NULL;
  for (int i = 0; i < e->list.len && i < np; i++)
    by_param[i] = cg_expr_as(g, e->list.items[i], callee->param_types[i]);
  for (int k = 0; k < e->kwargs.len; k++) {
    node *v = ((node *)e->kwargs.items[k])->a;
    for (int j = 0; j < np; j++)
      if (e->params.items[j] == v) by_param[j] = cg_expr_as(g, v, callee->param_types[j]);
  }
  for (int j = 0; j < np; j++)
    if (!by_param[j]) by_param[j] = cg_expr_as(g, e->params.items[j], callee->param_types[j]);
  n += (unsigned)np;
  LLVMValueRef f = callee->cg;
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

/* ---- print ----------------------------------------------------------------------------------- */

/* A constant C string: in the constant address space on the GPU (cast to generic, as
 * vprintf wants), a private global on the host. */
static LLVMValueRef const_cstring(cg_ctx *g, const char *text) {
  size_t n = strlen(text);
  LLVMValueRef init = LLVMConstStringInContext2(g->c, text, n, 0);
  LLVMValueRef gv = LLVMAddGlobalInAddressSpace(g->m, LLVMTypeOf(init), "str", g->host ? 0 : 4);
  LLVMSetInitializer(gv, init);
  LLVMSetGlobalConstant(gv, 1);
  LLVMSetLinkage(gv, LLVMPrivateLinkage);
  LLVMSetUnnamedAddress(gv, LLVMGlobalUnnamedAddr);
  return g->host ? gv : LLVMConstAddrSpaceCast(gv, g->ptr);
}

/* fmt with s appended, '%' doubled (a new string: one copy however long s is). */
static char *fmt_literal(cg_ctx *g, const char *fmt, const char *s) {
  size_t n = strlen(fmt);
  char *out = arena_alloc(g->ar, n + 2 * strlen(s) + 1);
  memcpy(out, fmt, n);
  for (const char *p = s; *p; p++) {
    if (*p == '%') out[n++] = '%';
    out[n++] = *p;
  }
  out[n] = '\0';
  return out;
}

/* One print argument as printf sees it: its conversion and the promoted value (ints to
 * 64 bits, floats to double, bools to the strings True/False, as Python prints them). */
static LLVMValueRef print_value(cg_ctx *g, node *a, const char **conv) {
  const type *t = a->ty;
  LLVMValueRef v = cg_expr(g, a);
  if (t->kind == TY_BOOL) {
    *conv = "%s";
    return LLVMBuildSelect(g->b, v, const_cstring(g, "True"), const_cstring(g, "False"), "");
  }
  if (t->kind == TY_FLOAT) {
    *conv = "%f";
    return convert(g, v, t, &ty_f64);
  }
  *conv = t->is_signed ? "%lld" : "%llu";
  return convert(g, v, t, t->is_signed ? &ty_i64 : &ty_u64);
}

/* print's sep= or end= (a string constant, checked by infer), else Python's default. */
static const char *print_keyword(node *e, const char *name, const char *fallback) {
  for (int i = 0; i < e->kwargs.len; i++) {
    node *kw = e->kwargs.items[i];
    if (strcmp(kw->str, name) == 0 && kw->a->kind == N_STR) return kw->a->str;
  }
  return fallback;
}

/* print(a, b, ..., sep=" ", end="\n"): one printf (host) or vprintf (GPU) call per
 * print, so concurrent threads' lines never mix within a line. sep and end go into the
 * format as literals. vprintf takes the arguments packed in a local buffer, each at its
 * natural alignment, which an LLVM struct gives. */
static void cg_print(cg_ctx *g, node *e) {
  int n = e->list.len;
  const char *sep = print_keyword(e, "sep", " "), *end = print_keyword(e, "end", "\n");
  char *fmt = arena_strdup(g->ar, "");
  LLVMValueRef *vals = arena_alloc(g->ar, sizeof *vals * (size_t)(n + 1));
  LLVMTypeRef *tys = arena_alloc(g->ar, sizeof *tys * (size_t)(n + 1));
  int nv = 0;
  for (int i = 0; i < n; i++) {
    node *a = e->list.items[i];
    if (i) fmt = fmt_literal(g, fmt, sep);
    if (a->kind == N_STR) {
      fmt = fmt_literal(g, fmt, a->str);
      continue;
    }
    const char *conv;
    vals[nv] = print_value(g, a, &conv);
    tys[nv] = LLVMTypeOf(vals[nv]);
    nv++;
    fmt = arena_printf(g->ar, "%s%s", fmt, conv);
  }
  fmt = fmt_literal(g, fmt, end);
  LLVMValueRef f = const_cstring(g, fmt);
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  if (g->host) {
    LLVMTypeRef ft = LLVMFunctionType(g->i32, pt, 1, 1);
    LLVMValueRef pf = LLVMGetNamedFunction(g->m, "printf");
    if (!pf) pf = LLVMAddFunction(g->m, "printf", ft);
    LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(nv + 1));
    args[0] = f;
    for (int i = 0; i < nv; i++) args[i + 1] = vals[i];
    LLVMBuildCall2(g->b, ft, pf, args, (unsigned)nv + 1, "");
    return;
  }
  LLVMValueRef buf = LLVMConstNull(g->ptr);
  if (nv > 0) {
    LLVMTypeRef st = LLVMStructTypeInContext(g->c, tys, (unsigned)nv, 0);
    buf = entry_alloca(g, st, "printf.args");
    for (int i = 0; i < nv; i++)
      LLVMBuildStore(g->b, vals[i], LLVMBuildStructGEP2(g->b, st, buf, (unsigned)i, ""));
  }
  LLVMValueRef vp = declare_fn(g, "vprintf", g->i32, pt, 2);
  LLVMValueRef args[2] = {f, buf};
  call_fn(g, vp, args, 2);
}

/* ---- @guvectorize views ---- */
/* _kc_row(a, i): a[i] as an array of the trailing dims (C order: i * their product
 * elements in); _kc_cell(a, i): the one-element array at a[i]. */
static LLVMValueRef cg_gu_view(cg_ctx *g, node *e) {
  node *an = e->list.items[0];
  const type *at = an->ty, *rt = e->ty;
  bool row = node_builtin(e) == B_KC_ROW;
  LLVMValueRef arr = cg_expr(g, an);
  LLVMValueRef i = cg_expr_as(g, e->list.items[1], &ty_i64);
  LLVMValueRef off = row ? LLVMBuildMul(g->b, i, array_stride(g, arr, at, 0), "") : i;
  LLVMValueRef data = LLVMBuildExtractValue(g->b, arr, 0, "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, mem_type(g, at->elem), data, &off, 1, "");
  LLVMValueRef v = LLVMBuildInsertValue(g->b, LLVMGetUndef(array_struct(g, rt->ndim)), p, 0, "");
  for (int k = 0; k < rt->ndim; k++)
    v = LLVMBuildInsertValue(g->b, v, row ? array_extent(g, arr, k + 1) : ci64(g, 1),
                             (unsigned)(k + 1), "");
  return v;
}

static LLVMValueRef cg_call(cg_ctx *g, node *e) {
  if (e->aux_ptr && e->aux == 0) return hidden_args_call(g, e->aux_ptr, e);
  builtin_id id = node_builtin(e);
  switch (id) {
  case B_GRID: return cg_grid(g, e, false);
  case B_GRIDSIZE: return cg_grid(g, e, true);
  case B_SYNCTHREADS: cg_barrier(g, e); return NULL;
  case B_PRINT: cg_print(g, e); return NULL;
  case B_KC_ROW: case B_KC_CELL: return cg_gu_view(g, e);
  case B_SHARED_ARRAY: case B_LOCAL_ARRAY: return cg_mem_array(g, e);
  case B_ATOMIC_ADD: case B_ATOMIC_SUB: case B_ATOMIC_MAX: case B_ATOMIC_MIN:
  case B_ATOMIC_EXCH: case B_ATOMIC_AND: case B_ATOMIC_OR: case B_ATOMIC_XOR:
  case B_ATOMIC_INC: case B_ATOMIC_DEC: case B_ATOMIC_CAS: case B_ATOMIC_COMPARE_AND_SWAP:
  case B_ATOMIC_NANMAX: case B_ATOMIC_NANMIN:
    return cg_atomic(g, e, id);
  case B_LEN: return cg_len(g, e);
  case B_ABS: return cg_abs(g, e);
  case B_MIN: return cg_minmax(g, e, false);
  case B_MAX: return cg_minmax(g, e, true);
  case B_ROUND: return cg_round(g, e);
  case B_INT: case B_FLOAT: case B_BOOL: case B_TYPE:
    return cg_expr_as(g, e->list.items[0], e->ty);
  case B_COMPLEX: return cg_complex(g, e);
  case B_CONJUGATE: return cg_conjugate(g, e);
  case B_CMATH_EXP: case B_CMATH_LOG: case B_CMATH_SQRT: case B_CMATH_PHASE:
  case B_CMATH_POLAR: case B_CMATH_RECT:
    return cg_cmath(g, e, id);
  default: break;
  }
  if (id >= B_MATH_SQRT && id <= B_MATH_ISFINITE) return cg_math(g, e, id);
  if (id >= B_CONST_ARRAY_LIKE && id <= B_NANOSLEEP) return cg_intrinsic(g, e, id);
  if (id >= B_FP16_HADD && id <= B_FP16_HRINT) return cg_fp16(g, e, id);
  internal_error(g, e->sp, "call not handled by the code generator");
  return e->ty && e->ty->kind != TY_VOID ? LLVMGetUndef(cg_type(g, e->ty)) : NULL;
}

/* ---- expressions --------------------------------------------------------------------------------- */

static LLVMValueRef cg_const(cg_ctx *g, node *v, const type *t) {
  if (t->kind == TY_TUPLE) {
    LLVMValueRef agg = LLVMGetUndef(cg_type(g, t));
    for (int i = 0; i < t->nelems; i++)
      agg = LLVMBuildInsertValue(g->b, agg, cg_const(g, v->list.items[i], t->elems[i]), (unsigned)i, "");
    return agg;
  }
  if (t->kind == TY_FLOAT) return LLVMConstReal(scalar_type(g, t), v->kind == N_FLOAT ? v->fval : (double)v->ival);
  if (t->kind == TY_COMPLEX) {
    LLVMTypeRef pt = scalar_type(g, type_complex_part(t));
    return cx_make(g, t, LLVMConstReal(pt, v->a->fval), LLVMConstReal(pt, v->b->fval));
  }
  if (t->kind == TY_BOOL) return LLVMConstInt(g->i1, v->ival != 0, 0);
  return LLVMConstInt(scalar_type(g, t), v->big ? v->uval : (unsigned long long)v->ival, 0);
}

static LLVMValueRef cg_name(cg_ctx *g, node *e) {
  symbol *s = e->sym;
  if (!s) {
    internal_error(g, e->sp, "unresolved name");
    return LLVMGetUndef(g->i32);
  }
  if (s->kind == SYM_CONST) return cg_const(g, s->value, s->ty);
  return LLVMBuildLoad2(g->b, cg_type(g, s->ty), s->cg, s->name);
}

static LLVMValueRef cg_builtin_value(cg_ctx *g, node *e) {
  builtin_id id = node_builtin(e);
  if (id >= B_TID_X && id <= B_NCTAID_Z) {
    int k = id - B_TID_X;
    return special_reg(g, k / 3, k % 3);
  }
  if (id == B_LANEID) return laneid(g);
  if (id == B_WARPSIZE) return ci32(g, 32);
  double v = id == B_MATH_PI ? 3.14159265358979323846 : id == B_MATH_E ? 2.71828182845904523536
           : id == B_MATH_TAU ? 6.28318530717958647692 : id == B_MATH_INF ? 1.0 / 0.0 : 0.0 / 0.0;
  return LLVMConstReal(scalar_type(g, e->ty), v);
}

static LLVMValueRef cg_attr(cg_ctx *g, node *e) {
  if (e->aux) return cg_builtin_value(g, e);
  const type *bt = e->a->ty;
  if (bt->kind != TY_ARRAY) return cg_part(g, e);
  LLVMValueRef arr = cg_expr(g, e->a);
  if (strcmp(e->str, "size") == 0) return array_size(g, arr, bt->ndim);
  if (strcmp(e->str, "ndim") == 0) return ci64(g, bt->ndim);
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  for (int k = 0; k < bt->ndim; k++)
    agg = LLVMBuildInsertValue(g->b, agg, array_extent(g, arr, k), (unsigned)k, "");
  return agg;
}

/* ---- slicing: views ---- */

/* An index or slice bound as i64 (an unsigned one is zero-extended). */
static LLVMValueRef index_i64(cg_ctx *g, node *n) {
  const type *t = n->ty->kind == TY_BOOL ? &ty_u8 : n->ty;
  LLVMValueRef v = cg_expr_as(g, n, t);
  if (t->bits == 64) return v;
  return t->is_signed ? LLVMBuildSExt(g->b, v, g->i64, "") : LLVMBuildZExt(g->b, v, g->i64, "");
}

static bool slice_part_given(const node *p) { return p && p->kind != N_NONE; }

/* A slice bound adjusted as CPython's PySlice_AdjustIndices does: negative counts from
 * the end, then clamped to [0, n] (to [-1, n - 1] for a negative step). */
static LLVMValueRef slice_bound(cg_ctx *g, node *p, LLVMValueRef n, LLVMValueRef neg_step,
                                LLVMValueRef dflt_pos, LLVMValueRef dflt_neg) {
  LLVMBuilderRef b = g->b;
  if (!slice_part_given(p)) return LLVMBuildSelect(b, neg_step, dflt_neg, dflt_pos, "");
  LLVMValueRef v = wrap_negative(g, index_i64(g, p), n), zero = ci64(g, 0), m1 = ci64(g, -1);
  LLVMValueRef lo = LLVMBuildSelect(b, neg_step, m1, zero, "");
  LLVMValueRef hi = LLVMBuildSelect(b, neg_step, LLVMBuildSub(b, n, ci64(g, 1), ""), n, "");
  v = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, v, zero, ""), lo, v, "");
  return LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGE, v, n, ""), hi, v, "");
}

/* One sliced axis of extent n: the first element's index, the length and the step. A
 * step of 0 (only possible at run time; a constant 0 is an error) is taken as 1. */
static void slice_axis(cg_ctx *g, node *s, LLVMValueRef n, LLVMValueRef *start,
                       LLVMValueRef *len, LLVMValueRef *step) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef one = ci64(g, 1), zero = ci64(g, 0);
  LLVMValueRef st = s && slice_part_given(s->c) ? index_i64(g, s->c) : one;
  st = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntEQ, st, zero, ""), one, st, "");
  LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, st, zero, "");
  LLVMValueRef nm1 = LLVMBuildSub(b, n, one, "");
  LLVMValueRef lo = slice_bound(g, s ? s->a : NULL, n, neg, zero, nm1);
  LLVMValueRef hi = slice_bound(g, s ? s->b : NULL, n, neg, n, ci64(g, -1));
  /* count = (hi - lo + step - sign) / step when the range is non-empty */
  LLVMValueRef span_up = LLVMBuildSub(b, hi, lo, ""), span_down = LLVMBuildSub(b, lo, hi, "");
  LLVMValueRef up = LLVMBuildAdd(b, LLVMBuildSDiv(b, LLVMBuildSub(b, span_up, one, ""), st, ""), one, "");
  LLVMValueRef down = LLVMBuildAdd(b, LLVMBuildSDiv(b, LLVMBuildSub(b, span_down, one, ""),
                                                    LLVMBuildNeg(b, st, ""), ""), one, "");
  LLVMValueRef nonempty = LLVMBuildSelect(b, neg, LLVMBuildICmp(b, LLVMIntSGT, span_down, zero, ""),
                                          LLVMBuildICmp(b, LLVMIntSGT, span_up, zero, ""), "");
  *len = LLVMBuildSelect(b, nonempty, LLVMBuildSelect(b, neg, down, up, ""), zero, "");
  *start = lo;
  *step = st;
}

/* a[...] giving a view: integer indices move the data pointer, slices make axes. */
static LLVMValueRef cg_slice(cg_ctx *g, node *e) {
  const type *bt = e->a->ty, *rt = e->ty;
  LLVMValueRef arr = cg_expr(g, e->a);
  node_list single = {&e->b, 1, 1};
  node_list *idx = e->b->kind == N_TUPLE ? &e->b->list : &single;
  LLVMValueRef off = ci64(g, 0), ext[KC_MAX_DIMS], str[KC_MAX_DIMS];
  int j = 0;
  for (int k = 0; k < bt->ndim; k++) {
    node *it = k < idx->len ? idx->items[k] : NULL;
    LLVMValueRef n = array_extent(g, arr, k), stride = array_stride(g, arr, bt, k);
    if (it && it->kind != N_SLICE) {
      LLVMValueRef v = index_i64(g, it);
      if (it->ty->is_signed) v = wrap_negative(g, v, n);
      off = LLVMBuildAdd(g->b, off, LLVMBuildMul(g->b, v, stride, ""), "");
      continue;
    }
    LLVMValueRef start, len, step;
    slice_axis(g, it, n, &start, &len, &step);
    off = LLVMBuildAdd(g->b, off, LLVMBuildMul(g->b, start, stride, ""), "");
    ext[j] = len;
    str[j++] = LLVMBuildMul(g->b, stride, step, "");
  }
  /* an empty view may point one past the end: a plain (not inbounds) GEP */
  LLVMValueRef data = LLVMBuildGEP2(g->b, mem_type(g, bt->elem),
                                    LLVMBuildExtractValue(g->b, arr, 0, "data"), &off, 1, "");
  LLVMValueRef v = LLVMGetUndef(cg_type(g, rt));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < rt->ndim; k++) {
    v = LLVMBuildInsertValue(g->b, v, ext[k], (unsigned)(1 + k), "");
    if (rt->strided) v = LLVMBuildInsertValue(g->b, v, str[k], (unsigned)(1 + rt->ndim + k), "");
  }
  return v;
}

static LLVMValueRef cg_index(cg_ctx *g, node *e) {
  if (e->a->ty->kind == TY_TUPLE)
    return LLVMBuildExtractValue(g->b, cg_expr(g, e->a), (unsigned)e->aux, "");
  if (e->ty->kind == TY_ARRAY) return cg_slice(g, e);
  return load_element(g, element_ptr(g, e), e->ty);
}

static LLVMValueRef cg_tuple(cg_ctx *g, node *e) {
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  for (int i = 0; i < e->list.len; i++)
    agg = LLVMBuildInsertValue(g->b, agg, cg_expr_as(g, e->list.items[i], e->ty->elems[i]), (unsigned)i, "");
  return agg;
}

static LLVMValueRef cg_expr(cg_ctx *g, node *e) {
  switch (e->kind) {
  case N_INT: return LLVMConstInt(scalar_type(g, e->ty), e->big ? e->uval : (unsigned long long)e->ival, 1);
  case N_FLOAT: return LLVMConstReal(scalar_type(g, e->ty), e->fval);
  case N_IMAG: {
    LLVMTypeRef pt = scalar_type(g, type_complex_part(e->ty));
    return cx_make(g, e->ty, LLVMConstNull(pt), LLVMConstReal(pt, e->fval));
  }
  case N_COMPLEX: return cg_const(g, e, e->ty);   /* a folded default argument */
  case N_BOOL: return LLVMConstInt(g->i1, e->ival != 0, 0);
  case N_NAME: return cg_name(g, e);
  case N_ATTR: return cg_attr(g, e);
  case N_CALL: return cg_call(g, e);
  case N_INDEX: return cg_index(g, e);
  case N_BINOP: return cg_binop(g, e);
  case N_UNARY: return cg_unary(g, e);
  case N_COMPARE: return cg_compare(g, e);
  case N_BOOLOP: return cg_boolop(g, e);
  case N_IFEXP: return cg_ifexp(g, e);
  case N_TUPLE: return cg_tuple(g, e);
  default:
    internal_error(g, e->sp, "expression not handled by the code generator");
    return LLVMGetUndef(g->i32);
  }
}

/* ---- statements -------------------------------------------------------------------------------------- */

static void set_debug_loc(cg_ctx *g, span sp) {
  if (!g->dib || !g->di_sp || sp.line == 0) return;
  LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(g->c, (unsigned)sp.line,
                                                         (unsigned)sp.col, g->di_sp, NULL);
  LLVMSetCurrentDebugLocation2(g->b, loc);
}

static void store_target(cg_ctx *g, node *t, LLVMValueRef v, const type *vt) {
  switch (t->kind) {
  case N_NAME: {
    symbol *s = t->sym;
    LLVMBuildStore(g->b, convert(g, v, vt, s->ty), s->cg);
    return;
  }
  case N_TUPLE:
    for (int i = 0; i < t->list.len; i++)
      store_target(g, t->list.items[i], LLVMBuildExtractValue(g->b, v, (unsigned)i, ""), vt->elems[i]);
    return;
  case N_INDEX: {
    const type *el = t->a->ty->elem;
    store_element(g, element_ptr(g, t), convert(g, v, vt, el), el);
    return;
  }
  default:
    internal_error(g, t->sp, "bad assignment target");
  }
}

static void cg_assign(cg_ctx *g, node *s) {
  LLVMValueRef v = cg_expr(g, s->a);
  for (int i = 0; i < s->list.len; i++) store_target(g, s->list.items[i], v, s->a->ty);
}

/* x op= v: the target's address is computed once (a[i] += v indexes a once). */
static void cg_augassign(cg_ctx *g, node *s) {
  node *t = s->a;
  const type *rt = s->ty;
  bool name = t->kind == N_NAME;
  const type *tt = name ? t->sym->ty : t->a->ty->elem;
  LLVMValueRef p = name ? t->sym->cg : element_ptr(g, t);
  LLVMValueRef cur = name ? LLVMBuildLoad2(g->b, cg_type(g, tt), p, "") : load_element(g, p, tt);
  LLVMValueRef a = convert(g, cur, tt, rt);
  node op = {0};
  op.kind = N_BINOP; op.op = s->op; op.a = t; op.b = s->b; op.ty = rt; op.sp = s->sp;
  LLVMValueRef r = s->op == OP_POW ? cg_pow(g, &op, a, rt)
                                   : arith(g, s->op, a, cg_expr_as(g, s->b, rt), rt);
  if (name) LLVMBuildStore(g->b, convert(g, r, rt, tt), p);
  else store_element(g, p, convert(g, r, rt, tt), tt);
}

static void cg_if(cg_ctx *g, node *s) {
  LLVMBasicBlockRef tb = new_bb(g, "if.then"), eb = new_bb(g, "if.else"), done = new_bb(g, "if.end");
  LLVMBuildCondBr(g->b, to_bool(g, cg_expr(g, s->a), s->a->ty), tb, eb);
  LLVMPositionBuilderAtEnd(g->b, tb);
  cg_block(g, &s->body);
  br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, eb);
  cg_block(g, &s->orelse);
  br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

static void cg_loop_body(cg_ctx *g, node_list *body, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
  loop_targets lt = {brk, cont}, *saved = g->loop;
  g->loop = &lt;
  cg_block(g, body);
  g->loop = saved;
  br_if_open(g, cont);
}

static void cg_while(cg_ctx *g, node *s) {
  LLVMBasicBlockRef cond = new_bb(g, "while.cond"), body = new_bb(g, "while.body"),
                    els = new_bb(g, "while.else"), done = new_bb(g, "while.end");
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, cond);
  set_debug_loc(g, s->sp);
  LLVMBuildCondBr(g->b, to_bool(g, cg_expr(g, s->a), s->a->ty), body, els);
  LLVMPositionBuilderAtEnd(g->b, body);
  cg_loop_body(g, &s->body, done, cond);
  LLVMPositionBuilderAtEnd(g->b, els);
  cg_block(g, &s->orelse);
  br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* for i in range(start, stop, step): a hidden counter drives the loop, so assigning to
 * i in the body does not change the iteration (Python's rule). */
static void cg_for(cg_ctx *g, node *s) {
  node *r = s->b;
  const type *t = r->ty;
  LLVMTypeRef lt = scalar_type(g, t);
  int n = r->list.len;
  LLVMValueRef start = n >= 2 ? cg_expr_as(g, r->list.items[0], t) : LLVMConstNull(lt);
  LLVMValueRef stop = cg_expr_as(g, r->list.items[n >= 2 ? 1 : 0], t);
  LLVMValueRef step = n == 3 ? cg_expr_as(g, r->list.items[2], t) : LLVMConstInt(lt, 1, 0);
  LLVMValueRef ctr = entry_alloca(g, lt, "for.i");
  LLVMBuildStore(g->b, start, ctr);
  LLVMBasicBlockRef cond = new_bb(g, "for.cond"), body = new_bb(g, "for.body"),
                    inc = new_bb(g, "for.inc"), els = new_bb(g, "for.else"),
                    done = new_bb(g, "for.end");
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, cond);
  LLVMValueRef i = LLVMBuildLoad2(g->b, lt, ctr, "");
  bool sgn = t->is_signed;
  LLVMValueRef up = LLVMBuildICmp(g->b, sgn ? LLVMIntSLT : LLVMIntULT, i, stop, "");
  LLVMValueRef more = up;
  if (sgn) {
    LLVMValueRef down = LLVMBuildICmp(g->b, LLVMIntSGT, i, stop, "");
    LLVMValueRef pos = LLVMBuildICmp(g->b, LLVMIntSGT, step, LLVMConstNull(lt), "");
    LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, step, LLVMConstNull(lt), "");
    more = LLVMBuildOr(g->b, LLVMBuildAnd(g->b, pos, up, ""), LLVMBuildAnd(g->b, neg, down, ""), "");
  }
  LLVMBuildCondBr(g->b, more, body, els);
  LLVMPositionBuilderAtEnd(g->b, body);
  store_target(g, s->a, i, t);
  cg_loop_body(g, &s->body, done, inc);
  LLVMPositionBuilderAtEnd(g->b, inc);
  LLVMValueRef cur = LLVMBuildLoad2(g->b, lt, ctr, "");
  LLVMBuildStore(g->b, sgn ? LLVMBuildNSWAdd(g->b, cur, step, "") : LLVMBuildAdd(g->b, cur, step, ""), ctr);
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, els);
  cg_block(g, &s->orelse);
  br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

static void cg_return(cg_ctx *g, node *s) {
  if (s->a && s->a->kind != N_NONE && g->ret_slot)
    LLVMBuildStore(g->b, cg_expr_as(g, s->a, g->fi->ret), g->ret_slot);
  LLVMBuildBr(g->b, g->ret_bb);
}

static void cg_stmt(cg_ctx *g, node *s) {
  set_debug_loc(g, s->sp);
  switch (s->kind) {
  case N_EXPR_STMT:
    if (s->a->kind != N_STR) cg_expr(g, s->a);
    return;
  case N_ASSIGN: cg_assign(g, s); return;
  case N_AUGASSIGN: cg_augassign(g, s); return;
  case N_ANNASSIGN:
    if (s->c) store_target(g, s->a, cg_expr(g, s->c), s->c->ty);
    return;
  case N_IF: cg_if(g, s); return;
  case N_WHILE: cg_while(g, s); return;
  case N_FOR: cg_for(g, s); return;
  case N_BREAK: LLVMBuildBr(g->b, g->loop->brk); return;
  case N_CONTINUE: LLVMBuildBr(g->b, g->loop->cont); return;
  case N_RETURN: cg_return(g, s); return;
  case N_PASS: return;
  default: internal_error(g, s->sp, "statement not handled by the code generator");
  }
}

static void cg_block(cg_ctx *g, node_list *body) {
  for (int i = 0; i < body->len; i++) {
    if (terminated(g)) {
      /* code after break/continue/return: give it a block of its own (unreachable) */
      LLVMPositionBuilderAtEnd(g->b, new_bb(g, "dead"));
    }
    cg_stmt(g, body->items[i]);
  }
}

/* ---- functions -------------------------------------------------------------------------------------- */

/* An array extent parameter is never negative: say so (range [0, 2^63)), so that LLVM
 * can drop what only a negative extent would need: the -1 divisor case and sign fixups
 * of `x % a.size`, wrap-around of indices computed from it. LLVM 19 has range
 * attributes in its C API; older ones go without. */
static void add_nonnegative_i64_attr(cg_ctx *g, LLVMValueRef fn, int idx) {
#if LLVM_VERSION_MAJOR >= 19
  unsigned kind = LLVMGetEnumAttributeKindForName("range", 5);
  if (kind == 0) return;
  const uint64_t lo = 0, hi = UINT64_C(1) << 63;
  LLVMAddAttributeAtIndex(fn, (LLVMAttributeIndex)idx,
                          LLVMCreateConstantRangeAttribute(g->c, kind, 64, &lo, &hi));
#else
  (void)g, (void)fn, (void)idx;
#endif
}

/* The same for an extent loaded from the CPU back end's argument array: !range
 * metadata [0, 2^63) on the load. */
static void mark_nonnegative_i64(cg_ctx *g, LLVMValueRef load) {
  LLVMMetadataRef bounds[2] = {LLVMValueAsMetadata(ci64(g, 0)),
                               LLVMValueAsMetadata(ci64(g, INT64_MIN))};
  unsigned kind = LLVMGetMDKindIDInContext(g->c, "range", 5);
  LLVMSetMetadata(load, kind, LLVMMetadataAsValue(g->c, LLVMMDNodeInContext2(g->c, bounds, 2)));
}

static void add_attr(cg_ctx *g, LLVMValueRef fn, int idx, const char *name) {
  unsigned kind = LLVMGetEnumAttributeKindForName(name, strlen(name));
  /* LLVM 21 replaced nocapture by captures(none), whose encoded value is 0 */
  if (kind == 0 && strcmp(name, "nocapture") == 0)
    kind = LLVMGetEnumAttributeKindForName("captures", 8);
  if (kind == 0) return;
  LLVMAddAttributeAtIndex(fn, (LLVMAttributeIndex)idx, LLVMCreateEnumAttribute(g->c, kind, 0));
}

/* ---- fast math (fn_instance.fastmath, docs/language.md) ----
 * The flags go on every floating-point instruction of a fast-math function once its
 * body is built: contraction into fma, reassociation, reciprocals, approximate
 * functions (div.approx, sqrt.approx on NVPTX), no signed zeros. Not nnan and ninf:
 * math.isnan and isinf must keep working. On NVPTX, every function of a fast-math
 * kernel (device functions included, so that they still inline into it) also
 * flushes float32 denormals to zero: ftz forms of the instructions. */
#define CG_FAST_MATH_FLAGS                                                                \
  (LLVMFastMathAllowReassoc | LLVMFastMathNoSignedZeros | LLVMFastMathAllowReciprocal |  \
   LLVMFastMathAllowContract | LLVMFastMathApproxFunc)

static void set_fast_math_flags(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMCanValueUseFastMathFlags(i)) LLVMSetFastMathFlags(i, CG_FAST_MATH_FLAGS);
}

static void set_flush_denormals(cg_ctx *g, LLVMValueRef fn) {
  static const char key[] = "denormal-fp-math-f32", value[] = "preserve-sign,preserve-sign";
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(g->c, key, sizeof key - 1, value,
                                                    sizeof value - 1));
}

static void declare_instance(cg_ctx *g, fn_instance *f) {
  size_t npt = hidden_count(g) + (size_t)f->nparams;
  LLVMTypeRef *pt = arena_alloc(g->ar, sizeof *pt * (npt + 1));
  unsigned n = 0;
  if (g->host) { pt[n++] = g->ptr; pt[n++] = g->i32; pt[n++] = g->i32; pt[n++] = g->i32; }
  for (int i = 0; i < f->nparams; i++) pt[n++] = cg_type(g, f->param_types[i]);
  const char *name = arena_printf(g->ar, "%s%s", f->symbol_name, f->is_kernel ? "__body" : "");
  LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(cg_type(g, f->ret), pt, n, 0));
  LLVMSetLinkage(fn, LLVMInternalLinkage);
  if (f->is_kernel) add_attr(g, fn, -1, "alwaysinline");
  if (f->in_fast_kernel && !g->host) set_flush_denormals(g, fn);
  f->cg = fn;
}

static void begin_debug_function(cg_ctx *g, fn_instance *f) {
  g->di_sp = NULL;
  if (!g->dib || !f->def) return;
  LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(g->dib, g->di_file, NULL, 0, LLVMDIFlagZero);
  const char *name = f->symbol_name;
  g->di_sp = LLVMDIBuilderCreateFunction(g->dib, g->di_file, name, strlen(name), name,
      strlen(name), g->di_file, (unsigned)f->def->sp.line, st, 1, 1,
      (unsigned)f->def->sp.line, LLVMDIFlagZero, 1);
  LLVMSetSubprogram(g->fn, g->di_sp);
}

/* Entry points get a subprogram too: inlining into a function without one drops the
 * body's line info. */
static void entry_debug(cg_ctx *g, LLVMValueRef fn, fn_instance *f) {
  LLVMValueRef saved = g->fn;
  g->fn = fn;
  fn_instance probe = *f;
  if (!probe.def && f->vec_scalar) probe.def = f->vec_scalar->def;
  begin_debug_function(g, &probe);
  if (probe.def) set_debug_loc(g, probe.def->sp);
  g->fn = saved;
}

static void gen_body(cg_ctx *g, fn_instance *f) {
  g->fi = f;
  g->fn = f->cg;
  g->entry = new_bb(g, "entry");
  LLVMBasicBlockRef start = new_bb(g, "start");
  g->ret_bb = new_bb(g, "return");
  LLVMPositionBuilderAtEnd(g->b, g->entry);
  begin_debug_function(g, f);
  set_debug_loc(g, f->def->sp);
  unsigned h = hidden_count(g);
  if (g->host) {
    g->blk = LLVMGetParam(g->fn, 0);
    for (int k = 0; k < 3; k++) g->tid[k] = LLVMGetParam(g->fn, 1 + (unsigned)k);
  }
  g->ret_slot = f->ret->kind != TY_VOID ? LLVMBuildAlloca(g->b, cg_type(g, f->ret), "ret") : NULL;
  for (int i = 0; i < f->locals.len; i++) {
    symbol *s = f->locals.items[i];
    if (!s->ty) continue;
    LLVMTypeRef lt = cg_type(g, s->ty);
    s->cg = LLVMBuildAlloca(g->b, lt, s->name);
    /* a parameter assigned a wider value in the body (n = n * 2.5) holds that type from
       the start: its argument is converted on entry */
    LLVMValueRef init = s->is_param
        ? convert(g, LLVMGetParam(g->fn, h + (unsigned)s->param_index),
                  f->param_types[s->param_index], s->ty)
        : LLVMConstNull(lt);
    LLVMBuildStore(g->b, init, s->cg);
  }
  LLVMBuildBr(g->b, start);
  LLVMPositionBuilderAtEnd(g->b, start);
  g->loop = NULL;
  cg_block(g, &f->def->body);
  br_if_open(g, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, g->ret_bb);
  if (g->ret_slot) LLVMBuildRet(g->b, LLVMBuildLoad2(g->b, cg_type(g, f->ret), g->ret_slot, ""));
  else LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
}

/* The vectorize kernel body: for i in grid-stride range(out.size): out[i] = f(in[i]...). */
static void gen_vectorize_body(cg_ctx *g, fn_instance *w) {
  fn_instance *f = w->vec_scalar;
  g->fi = w;
  g->fn = w->cg;
  g->di_sp = NULL;
  g->entry = new_bb(g, "entry");
  LLVMPositionBuilderAtEnd(g->b, g->entry);
  unsigned h = hidden_count(g);
  if (g->host) {
    g->blk = LLVMGetParam(g->fn, 0);
    for (int k = 0; k < 3; k++) g->tid[k] = LLVMGetParam(g->fn, 1 + (unsigned)k);
  }
  int nin = w->nparams - 1;
  LLVMValueRef out = LLVMGetParam(g->fn, h + (unsigned)nin);
  LLVMValueRef n = array_extent(g, out, 0);
  LLVMValueRef start = LLVMBuildZExt(g->b, grid_axis(g, 0, false), g->i64, "");
  LLVMValueRef stride = LLVMBuildZExt(g->b, grid_axis(g, 0, true), g->i64, "");
  LLVMBasicBlockRef cond = new_bb(g, "cond"), body = new_bb(g, "body"), done = new_bb(g, "done");
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, cond);
  LLVMValueRef i = LLVMBuildPhi(g->b, g->i64, "i");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, n, ""), body, done);
  LLVMPositionBuilderAtEnd(g->b, body);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(h + (unsigned)nin + 1));
  unsigned na = 0;
  if (g->host) { args[na++] = g->blk; for (int k = 0; k < 3; k++) args[na++] = g->tid[k]; }
  for (int k = 0; k < nin; k++) {
    LLVMValueRef arr = LLVMGetParam(g->fn, h + (unsigned)k);
    LLVMValueRef data = LLVMBuildExtractValue(g->b, arr, 0, "");
    const type *el = w->param_types[k]->elem;
    LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, mem_type(g, el), data, &i, 1, "");
    args[na++] = load_element(g, p, el);
  }
  LLVMValueRef r = LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, na, "");
  const type *oel = w->param_types[nin]->elem;
  LLVMValueRef od = LLVMBuildExtractValue(g->b, out, 0, "");
  store_element(g, LLVMBuildInBoundsGEP2(g->b, mem_type(g, oel), od, &i, 1, ""),
                convert(g, r, f->ret, oel), oel);
  LLVMValueRef next = LLVMBuildAdd(g->b, i, stride, "");
  LLVMBuildBr(g->b, cond);
  LLVMValueRef in[2] = {start, next};
  LLVMBasicBlockRef from[2] = {g->entry, body};
  LLVMAddIncoming(i, in, from, 2);
  LLVMPositionBuilderAtEnd(g->b, done);
  LLVMBuildRetVoid(g->b);
}

/* ---- kernel entry points ------------------------------------------------------------------------------ */

/* Reassemble array values from flattened parameters (data pointer + extents). */
static LLVMValueRef build_array(cg_ctx *g, int ndim, LLVMValueRef data, LLVMValueRef *ext) {
  LLVMValueRef v = LLVMGetUndef(array_struct(g, ndim));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < ndim; k++) v = LLVMBuildInsertValue(g->b, v, ext[k], (unsigned)(k + 1), "");
  return v;
}

/* The LLVM type a scalar kernel parameter is passed as (bool as a byte). */
static LLVMTypeRef param_scalar_type(cg_ctx *g, const type *t) {
  return t->kind == TY_BOOL ? g->i8 : scalar_type(g, t);
}

static LLVMValueRef param_scalar_value(cg_ctx *g, LLVMValueRef v, const type *t) {
  return t->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
}

/* The kernel's parameters flattened as the entry point takes them (host_abi.h): one
 * per scalar, a data pointer and its extents per array. */
static int flat_param_count(const fn_instance *f) {
  int n = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    n += t->kind == TY_ARRAY ? 1 + t->ndim : 1;
  }
  return n;
}

static void nvptx_entry(cg_ctx *g, fn_instance *f) {
  LLVMTypeRef *pt = arena_alloc(g->ar, sizeof *pt * (size_t)(flat_param_count(f) + 1));
  unsigned n = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_ARRAY) {
      pt[n++] = g->ptr;
      for (int k = 0; k < t->ndim; k++) pt[n++] = g->i64;
    } else {
      pt[n++] = param_scalar_type(g, t);
    }
  }
  LLVMValueRef fn = LLVMAddFunction(g->m, f->symbol_name, LLVMFunctionType(g->voidt, pt, n, 0));
  LLVMSetFunctionCallConv(fn, NVPTX_KERNEL_CC);
  if (f->in_fast_kernel) set_flush_denormals(g, fn);
  LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->c, fn, "entry");
  LLVMPositionBuilderAtEnd(g->b, bb);
  entry_debug(g, fn, f);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 1));
  unsigned p = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_ARRAY) {
      unsigned dp = p;
      LLVMValueRef data = LLVMGetParam(fn, p++);
      LLVMValueRef ext[KC_MAX_DIMS];
      for (int k = 0; k < t->ndim; k++) {
        add_nonnegative_i64_attr(g, fn, (int)p + 1);
        ext[k] = LLVMGetParam(fn, p++);
      }
      args[i] = build_array(g, t->ndim, data, ext);
      /* arrays the kernel never writes may be read through the non-coherent cache */
      if (!param_written(f, i)) {
        add_attr(g, fn, (int)dp + 1, "noalias");
        add_attr(g, fn, (int)dp + 1, "readonly");
      }
      add_attr(g, fn, (int)dp + 1, "nocapture");
    } else {
      args[i] = param_scalar_value(g, LLVMGetParam(fn, p++), t);
    }
  }
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, (unsigned)f->nparams, "");
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  /* also the classic annotation, read by tools and older LLVMs */
  LLVMValueRef md[3] = {fn, LLVMMDStringInContext(g->c, "kernel", 6), ci32(g, 1)};
  LLVMAddNamedMetadataOperand(g->m, "nvvm.annotations", LLVMMDNodeInContext(g->c, md, 3));
}

/* Load the kernel's arguments from a kernelParams-style void** array. */
static void unpack_host_args(cg_ctx *g, fn_instance *f, LLVMValueRef argv, LLVMValueRef *out) {
  unsigned slot = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    int parts = t->kind == TY_ARRAY ? 1 + t->ndim : 1;
    LLVMValueRef vals[1 + KC_MAX_DIMS];
    for (int k = 0; k < parts; k++) {
      LLVMValueRef idx = ci64(g, slot++);
      LLVMValueRef pp = LLVMBuildInBoundsGEP2(g->b, g->ptr, argv, &idx, 1, "");
      LLVMValueRef p = LLVMBuildLoad2(g->b, g->ptr, pp, "");
      LLVMTypeRef vt = t->kind != TY_ARRAY ? param_scalar_type(g, t) : k == 0 ? g->ptr : g->i64;
      vals[k] = LLVMBuildLoad2(g->b, vt, p, "");
      if (t->kind == TY_ARRAY && k > 0) mark_nonnegative_i64(g, vals[k]);
    }
    out[i] = t->kind == TY_ARRAY ? build_array(g, t->ndim, vals[0], vals + 1)
                                 : param_scalar_value(g, vals[0], t);
  }
}

static void host_thread_entry(cg_ctx *g, fn_instance *f) {
  LLVMTypeRef pt[5] = {g->ptr, g->ptr, g->i32, g->i32, g->i32};
  const char *name = arena_printf(g->ar, "%s__thread", f->symbol_name);
  LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(g->voidt, pt, 5, 0));
  LLVMPositionBuilderAtEnd(g->b, LLVMAppendBasicBlockInContext(g->c, fn, "entry"));
  entry_debug(g, fn, f);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 4));
  for (unsigned k = 0; k < 4; k++) args[k] = LLVMGetParam(fn, 1 + k);
  unpack_host_args(g, f, LLVMGetParam(fn, 0), args + 4);
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, (unsigned)f->nparams + 4, "");
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
}

/* K__block: for tz, ty, tx in the block: body(...). */
static void host_block_entry(cg_ctx *g, fn_instance *f) {
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  const char *name = arena_printf(g->ar, "%s__block", f->symbol_name);
  LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(g->voidt, pt, 2, 0));
  LLVMValueRef saved_fn = g->fn;
  g->fn = fn;
  LLVMBasicBlockRef entry = new_bb(g, "entry");
  LLVMPositionBuilderAtEnd(g->b, entry);
  entry_debug(g, fn, f);
  LLVMValueRef blk = LLVMGetParam(fn, 1);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 4));
  args[0] = blk;
  unpack_host_args(g, f, LLVMGetParam(fn, 0), args + 4);
  LLVMValueRef dims[3];
  for (int k = 0; k < 3; k++) {
    LLVMValueRef idx = ci64(g, KC_CPU_BLOCK_OFF_BLOCK_DIM + 4 * k);
    dims[k] = LLVMBuildLoad2(g->b, g->i32, LLVMBuildInBoundsGEP2(g->b, g->i8, blk, &idx, 1, ""), "");
    set_range(g, dims[k], 1, 1025);
  }
  /* three nested loops, z outermost; each runs at least once (dims are >= 1). An inner
     loop's phi restarts at 0 each time the outer head branches into it. */
  LLVMBasicBlockRef pre = entry;
  LLVMValueRef ivs[3];
  LLVMBasicBlockRef heads[3];
  for (int k = 2; k >= 0; k--) {
    heads[k] = new_bb(g, "loop");
    LLVMBuildBr(g->b, heads[k]);
    LLVMPositionBuilderAtEnd(g->b, heads[k]);
    ivs[k] = LLVMBuildPhi(g->b, g->i32, "t");
    LLVMValueRef zero = ci32(g, 0);
    LLVMAddIncoming(ivs[k], &zero, &pre, 1);
    pre = heads[k];
  }
  args[1] = ivs[0]; args[2] = ivs[1]; args[3] = ivs[2];
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f->cg), f->cg, args, (unsigned)f->nparams + 4, "");
  for (int k = 0; k < 3; k++) {
    LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
    LLVMValueRef next = LLVMBuildNUWAdd(g->b, ivs[k], ci32(g, 1), "");
    LLVMSetNSW(next, 1);
    LLVMAddIncoming(ivs[k], &next, &latch, 1);
    LLVMBasicBlockRef after = new_bb(g, "after");
    LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, next, dims[k], ""), heads[k], after);
    LLVMPositionBuilderAtEnd(g->b, after);
  }
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  g->fn = saved_fn;
}

static void gen_entries(cg_ctx *g, fn_instance *f) {
  if (!g->host) {
    nvptx_entry(g, f);
    return;
  }
  host_thread_entry(g, f);
  host_block_entry(g, f);
}

static void init_types(cg_ctx *g) {
  g->ptr = LLVMPointerTypeInContext(g->c, 0);
  g->i1 = LLVMInt1TypeInContext(g->c);
  g->i8 = LLVMInt8TypeInContext(g->c);
  g->i32 = LLVMInt32TypeInContext(g->c);
  g->i64 = LLVMInt64TypeInContext(g->c);
  g->f32 = LLVMFloatTypeInContext(g->c);
  g->f64 = LLVMDoubleTypeInContext(g->c);
  g->voidt = LLVMVoidTypeInContext(g->c);
}

static void init_debug(cg_ctx *g, const char *file) {
  if (!g->opts->lineinfo && !g->opts->debug) return;
  g->dib = LLVMCreateDIBuilder(g->m);
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  const char *dir = slash ? arena_strndup(g->ar, file, (size_t)(slash - file)) : ".";
  g->di_file = LLVMDIBuilderCreateFile(g->dib, base, strlen(base), dir, strlen(dir));
  LLVMDIBuilderCreateCompileUnit(g->dib, LLVMDWARFSourceLanguagePython, g->di_file, "kcc",
      3, g->opts->opt_level > 0, "", 0, 0, "", 0,
      g->opts->debug ? LLVMDWARFEmissionFull : LLVMDWARFEmissionLineTablesOnly,
      0, 0, 0, "", 0, "", 0);
  LLVMAddModuleFlag(g->m, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                    LLVMValueAsMetadata(ci32(g, (long long)LLVMDebugMetadataVersion())));
  LLVMAddModuleFlag(g->m, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                    LLVMValueAsMetadata(ci32(g, 4)));
}

/* The builders are not the LLVM context's: an out-of-memory longjmp from the arena
 * must not leave them behind (the module is the context's; compile.c disposes of it). */
static void cg_dispose_builders(cg_ctx *g) {
  if (g->dib) LLVMDisposeDIBuilder(g->dib);
  g->dib = NULL;
  LLVMDisposeBuilder(g->b);
}

int cg_program(arena *a, diag_sink *d, program *p, const kcc_options *opts,
               LLVMContextRef ctx, const char *module_name, LLVMModuleRef *out,
               size_t *static_shared) {
  cg_ctx *g = arena_alloc(a, sizeof *g);   /* not a local: still valid after longjmp */
  g->ar = a;
  g->d = d;
  g->prog = p;
  g->opts = opts;
  g->host = opts->target == KCC_TARGET_HOST;
  g->c = ctx;
  g->m = LLVMModuleCreateWithNameInContext(module_name, ctx);
  g->b = LLVMCreateBuilderInContext(ctx);
  jmp_buf *outer = a->on_oom;
  jmp_buf oom;
  if (outer && setjmp(oom) != 0) {
    cg_dispose_builders(g);
    a->on_oom = outer;
    longjmp(*outer, 1);
  }
  if (outer) a->on_oom = &oom;
  init_types(g);
  init_debug(g, module_name);
  int before = d->nerrors;
  for (int i = 0; i < p->instances.len; i++) declare_instance(g, p->instances.items[i]);
  for (int i = 0; i < p->instances.len; i++) {
    fn_instance *f = p->instances.items[i];
    if (f->vec_scalar) gen_vectorize_body(g, f);
    else gen_body(g, f);
    if (f->fastmath) set_fast_math_flags(f->cg);
  }
  for (int i = 0; i < p->kernels.len; i++) gen_entries(g, p->kernels.items[i]);
  if (g->dib) LLVMDIBuilderFinalize(g->dib);
  cg_dispose_builders(g);
  a->on_oom = outer;
  *out = g->m;
  *static_shared = g->shared_bytes;
  return d->nerrors - before;
}

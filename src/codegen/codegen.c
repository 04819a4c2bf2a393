/*
 * codegen.c — typed AST -> LLVM IR through the LLVM C API, one code generator for both
 * targets. Every function instance becomes an internal LLVM function whose array
 * parameters are passed as {ptr data, i64 extent...} values; kernels get entry points
 * that unpack the flattened launch arguments (CUDA kernelParams layout, host_abi.h).
 * What differs between NVPTX and the host (hidden parameters, special registers,
 * address spaces, printf, the entry points) is the target's, g->target (cg_target.h:
 * cg_nvptx.c, cg_host.c); builtins are lowered by their registry rows (src/builtins/).
 * Locals live in allocas (mem2reg promotes them).
 * Arithmetic follows Python, with no trap on division by zero (cg_arith.c).
 * Fast-math functions (fn_instance.fastmath) get LLVM's fast-math flags on their float
 * instructions and, on NVPTX, libdevice's __nv_fast_* functions; those of a fast-math
 * kernel also flush float32 denormals there.
 */
#include <setjmp.h>
#include <string.h>

#include <llvm-c/Analysis.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Target.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "cg_records.h"
#include "codegen.h"
#include "host_abi.h"
#include "host_regions.h"
#include "kc_config.h"
#include "loops.h"
#include "target.h"



/* ---- types -------------------------------------------------------------------------- */


LLVMTypeRef cg_scalar_type(cg_ctx *g, const type *t) {
  switch (t->kind) {
  case TY_BOOL: return g->i1;
  case TY_INT: return LLVMIntTypeInContext(g->c, (unsigned)t->bits);
  case TY_FLOAT:
    if (t->bits == 16)
      return t->bfloat ? LLVMBFloatTypeInContext(g->c) : LLVMHalfTypeInContext(g->c);
    return t->bits == 32 ? g->f32 : g->f64;
  case TY_COMPLEX: {
    /* {re, im}: the layout of C99's float _Complex / double _Complex */
    LLVMTypeRef part = t->bits == 64 ? g->f32 : g->f64;
    LLVMTypeRef f[2] = {part, part};
    return LLVMStructTypeInContext(g->c, f, 2, 0);
  }
  case TY_GROUP: return g->i64;   /* a handle, as Numba's GridGroup; kcc's holds 0 */
  default: return g->voidt;
  }
}

/* The type of an array element in memory (bool is a byte). */
LLVMTypeRef cg_mem_type(cg_ctx *g, const type *t) {
  if (t->kind == TY_RECORD) return cg_record_mem_type(g, t);
  return t->kind == TY_BOOL ? g->i8 : cg_scalar_type(g, t);
}

LLVMTypeRef cg_array_struct(cg_ctx *g, int ndim) {
  LLVMTypeRef f[1 + KC_MAX_DIMS];
  f[0] = g->ptr;
  for (int k = 0; k < ndim; k++) f[1 + k] = g->i64;
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

LLVMTypeRef cg_type(cg_ctx *g, const type *t) {
  switch (t->kind) {
  case TY_ARRAY: return t->strided ? view_struct(g, t->ndim) : cg_array_struct(g, t->ndim);
  case TY_TUPLE: case TY_FUNCVAL: {   /* a function value: its captured values */
    int n = t->nelems;
    if (t->kind == TY_FUNCVAL && n == 0) return g->i8;   /* NVPTX takes no empty parameter */
    LLVMTypeRef *f = arena_alloc(g->ar, sizeof *f * (size_t)(n + 1));
    for (int i = 0; i < n; i++) f[i] = cg_type(g, t->elems[i]);
    return LLVMStructTypeInContext(g->c, f, (unsigned)n, 0);
  }
  case TY_VOID: return g->voidt;
  case TY_OPTIONAL: {              /* {value, valid}: valid false is None */
    LLVMTypeRef f[2] = {cg_type(g, t->elem), g->i1};
    return LLVMStructTypeInContext(g->c, f, 2, 0);
  }
  case TY_RECORD: return g->ptr;   /* a record value is its address (cg_records.c) */
  case TY_VECTOR: {                /* a struct of its elements, as numba-cuda's */
    LLVMTypeRef f[4];
    for (int i = 0; i < t->nelems; i++) f[i] = cg_type(g, t->elem);
    return LLVMStructTypeInContext(g->c, f, (unsigned)t->nelems, 0);
  }
  default: return cg_scalar_type(g, t);
  }
}

/* ---- small helpers ------------------------------------------------------------------------ */


LLVMBasicBlockRef cg_new_bb(cg_ctx *g, const char *name) {
  return LLVMAppendBasicBlockInContext(g->c, g->fn, name);
}

bool cg_terminated(cg_ctx *g) {
  return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)) != NULL;
}

void cg_br_if_open(cg_ctx *g, LLVMBasicBlockRef to) {
  if (!cg_terminated(g)) LLVMBuildBr(g->b, to);
}

/* An alloca in the entry block, so mem2reg can promote it. */
LLVMValueRef cg_entry_alloca(cg_ctx *g, LLVMTypeRef t, const char *name) {
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

LLVMValueRef cg_call_intrinsic(cg_ctx *g, const char *name, LLVMTypeRef over,
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

LLVMValueRef cg_declare_fn(cg_ctx *g, const char *name, LLVMTypeRef ret,
                               LLVMTypeRef *params, unsigned n) {
  LLVMValueRef f = LLVMGetNamedFunction(g->m, name);
  if (f) return f;
  return LLVMAddFunction(g->m, name, LLVMFunctionType(ret, params, n, 0));
}

LLVMValueRef cg_call_fn(cg_ctx *g, LLVMValueRef f, LLVMValueRef *args, unsigned n) {
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

void cg_internal_error(cg_ctx *g, span sp, const char *what) {
  diag_error(g->d, sp, "internal compiler error: %s (please report this)", what);
}

/* ---- thread indices (the target's: cg_special_reg) -------------------------------------- */

const char *const cg_sreg_names[4] = {"tid", "ctaid", "ntid", "nctaid"};

/* !range [lo, hi) metadata on an i32 load. */
void cg_set_range(cg_ctx *g, LLVMValueRef load, long long lo, long long hi) {
  LLVMMetadataRef r[2] = {LLVMValueAsMetadata(ci32(g, lo)), LLVMValueAsMetadata(ci32(g, hi))};
  LLVMSetMetadata(load, LLVMGetMDKindIDInContext(g->c, "range", 5),
                  LLVMMetadataAsValue(g->c, LLVMMDNodeInContext2(g->c, r, 2)));
}

/* ---- arrays ------------------------------------------------------------------------------------- */

LLVMValueRef cg_array_extent(cg_ctx *g, LLVMValueRef arr, int k) {
  return LLVMBuildExtractValue(g->b, arr, (unsigned)(1 + k), "extent");
}

/* ---- bounds checking (kcc_options.bounds_check) ------------------------------------------
 * Only bounds_checked_ptr() below is called from the rest of the generator, and only when
 * the option is on: without it the generated code has no check at all. A failed check
 * fills the kc_kernel_error record (host_abi.h) once, then redirects the access to a
 * scratch slot, so the thread runs on without touching memory outside the array. Both
 * are the target's: the launch's on the host, module globals on the GPU. */

void cg_error_field(cg_ctx *g, LLVMValueRef rec, int off, LLVMValueRef v) {
  LLVMValueRef idx[1] = {ci64(g, off)};
  LLVMBuildStore(g->b, v, LLVMBuildInBoundsGEP2(g->b, g->i8, rec, idx, 1, ""));
}

/* Claim the launch's error record (an atomic compare-and-swap of its flag: the first
 * failing thread wins) and, in the winner's branch, fill the position sp and the
 * failing block and thread. The caller fills the rest and ends with cg_error_done. */
LLVMValueRef cg_error_claim(cg_ctx *g, span sp, LLVMBasicBlockRef *done) {
  LLVMValueRef rec = g->target->error_record(g);
  LLVMValueRef cas = LLVMBuildAtomicCmpXchg(g->b, rec, ci32(g, 0), ci32(g, 1),
      LLVMAtomicOrderingMonotonic, LLVMAtomicOrderingMonotonic, 0);
  LLVMBasicBlockRef fill = cg_new_bb(g, "error.fill");
  *done = cg_new_bb(g, "error.done");
  LLVMBuildCondBr(g->b, LLVMBuildExtractValue(g->b, cas, 1, ""), fill, *done);
  LLVMPositionBuilderAtEnd(g->b, fill);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_LINE, ci32(g, sp.line));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_COL, ci32(g, sp.col));
  for (int k = 0; k < 3; k++) {
    LLVMValueRef block = cg_special_reg(g, 1, k), thread = cg_special_reg(g, 0, k);
    if (g->target->host) {
      /* a run of blocks the CPU executor fused (host_fuse.c): thread t of the run is
         thread t % blockDim of block blockIdx + t / blockDim (no-ops when not fused) */
      LLVMValueRef dim = cg_special_reg(g, 2, k);
      block = LLVMBuildAdd(g->b, block, LLVMBuildUDiv(g->b, thread, dim, ""), "");
      thread = LLVMBuildURem(g->b, thread, dim, "");
    }
    cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_BLOCK + 4 * k, block);
    cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_THREAD + 4 * k, thread);
  }
  return rec;
}

void cg_error_done(cg_ctx *g, LLVMBasicBlockRef done) {
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* Report index out of range in the error record (cg_error_claim). */
void cg_bounds_report(cg_ctx *g, node *ix, const type *at, LLVMValueRef arr,
                          LLVMValueRef axis, LLVMValueRef index, LLVMValueRef is_unsigned) {
  LLVMBasicBlockRef done;
  LLVMValueRef rec = cg_error_claim(g, ix->sp, &done);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_AXIS, axis);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_NDIM, ci32(g, at->ndim));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_UNSIGNED, is_unsigned);
  for (int k = 0; k < at->ndim; k++)
    cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_SHAPE + 8 * k, cg_array_extent(g, arr, k));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_INDEX, index);
  cg_error_done(g, done);
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
    LLVMValueRef out = LLVMBuildICmp(g->b, LLVMIntUGE, wrapped[k], cg_array_extent(g, arr, k), "");
    bad = bad ? LLVMBuildOr(g->b, bad, out, "") : out;
    /* the first failing axis is reported: later axes are selected first, then replaced */
    axis = axis ? LLVMBuildSelect(g->b, out, ci32(g, k), axis, "") : ci32(g, k);
    index = index ? LLVMBuildSelect(g->b, out, raw[k], index, "") : raw[k];
    isu = isu ? LLVMBuildSelect(g->b, out, ci32(g, uns[k]), isu, "") : ci32(g, uns[k]);
  }
  LLVMBasicBlockRef ok_bb = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef fail = cg_new_bb(g, "bounds.fail"), join = cg_new_bb(g, "bounds.ok");
  LLVMValueRef br = LLVMBuildCondBr(g->b, bad, fail, join);
  /* failures are rare: keep the checks' code out of the hot path */
  LLVMValueRef w[3] = {LLVMMDStringInContext(g->c, "branch_weights", 14), ci32(g, 1),
                       ci32(g, 1 << 20)};
  LLVMSetMetadata(br, LLVMGetMDKindIDInContext(g->c, "prof", 4), LLVMMDNodeInContext(g->c, w, 3));
  LLVMPositionBuilderAtEnd(g->b, fail);
  cg_bounds_report(g, ix, at, arr, axis, index, isu);
  LLVMValueRef scratch = g->target->error_scratch(g);
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
LLVMValueRef cg_array_stride(cg_ctx *g, LLVMValueRef arr, const type *at, int k) {
  if (at->strided)
    return LLVMBuildExtractValue(g->b, arr, (unsigned)(1 + at->ndim + k), "stride");
  LLVMValueRef s = ci64(g, 1);
  for (int j = at->ndim - 1; j > k; j--) s = LLVMBuildMul(g->b, s, cg_array_extent(g, arr, j), "");
  return s;
}

/* The address of a[i, j, k]: negative indices count from the end, as in Python. */
LLVMValueRef cg_element_ptr(cg_ctx *g, node *ix) {
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
    LLVMValueRef ext = cg_array_extent(g, arr, k);
    v = cg_convert(g, v, it, it->is_signed ? &ty_i64 : &ty_u64);
    raw[k] = v;
    uns[k] = !it->is_signed;
    if (it->is_signed) v = wrap_negative(g, v, ext);
    wrapped[k] = v;
    if (at->strided) { /* a view: sum of index * stride */
      LLVMValueRef off = LLVMBuildMul(g->b, v, cg_array_stride(g, arr, at, k), "");
      lin = lin ? LLVMBuildAdd(g->b, lin, off, "") : off;
    } else {
      lin = lin ? LLVMBuildAdd(g->b, LLVMBuildMul(g->b, lin, ext, ""), v, "") : v;
    }
  }
  LLVMValueRef data = LLVMBuildExtractValue(g->b, arr, 0, "data");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, cg_mem_type(g, at->elem), data, &lin, 1, "");
  /* a debug=True kernel is checked; under -g (every kernel debug) the option decides */
  bool checked = g->opts->bounds_check || (g->fi->debug && !g->opts->debug);
  if (checked) p = bounds_checked_ptr(g, ix, at, arr, raw, wrapped, uns, p);
  return p;
}

LLVMValueRef cg_load_element(cg_ctx *g, LLVMValueRef p, const type *el) {
  LLVMValueRef v = LLVMBuildLoad2(g->b, cg_mem_type(g, el), p, "");
  return el->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
}

void cg_store_element(cg_ctx *g, LLVMValueRef p, LLVMValueRef v, const type *el) {
  if (el->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, g->i8, "");
  LLVMBuildStore(g->b, v, p);
}

LLVMValueRef cg_array_size(cg_ctx *g, LLVMValueRef arr, int ndim) {
  LLVMValueRef s = cg_array_extent(g, arr, 0);
  for (int k = 1; k < ndim; k++) s = LLVMBuildMul(g->b, s, cg_array_extent(g, arr, k), "");
  return s;
}

/* ---- intrinsics ---------------------------------------------------------------------------- */

/* An intrinsic of this LLVM, or NULL (names changed across releases). */
bool cg_have_intrinsic(const char *name) {
  return LLVMLookupIntrinsicID(name, strlen(name)) != 0;
}

/* ---- operators (Python's arithmetic itself is cg_arith.c's) ---------------------------- */

LLVMValueRef cg_augmented_value(cg_ctx *g, node *s, LLVMValueRef cur, const type *rt) {
  node op = {0};   /* the binary operation the statement stands for, for cg_pow */
  op.kind = N_BINOP; op.op = s->op; op.a = s->a; op.b = s->b; op.ty = rt; op.sp = s->sp;
  op.aux_ptr = s->aux_ptr;   /* typing's note on the operation (complex **: its function) */
  if (s->op == OP_POW) return cg_pow(g, &op, cur, rt);
  LLVMValueRef b = cg_expr_as(g, s->b, rt);
  cg_check_divisor(g, s->sp, s->op, b, rt);
  return cg_arith_op(g, s->op, cur, b, rt);
}

static LLVMValueRef cg_binop(cg_ctx *g, node *e) {
  const type *t = e->ty;
  LLVMValueRef a = cg_expr_as(g, e->a, t);
  if (e->op == OP_POW) return cg_pow(g, e, a, t);
  LLVMValueRef b = cg_expr_as(g, e->b, t);
  cg_check_divisor(g, e->sp, e->op, b, t);
  LLVMValueRef r = cg_arith_op(g, e->op, a, b, t);
  if (!r) {
    cg_internal_error(g, e->sp, "unknown binary operator");
    return LLVMGetUndef(cg_scalar_type(g, t));
  }
  return r;
}

/* -x and ~x on an integer x: computed at x's width, then widened to the int64 or uint64
 * result, as Numba's int_negate_impl and int_invert_impl do (so -uint8(1) is 255 and
 * ~uint8(0) is 255, both uint64; -int32(-2**31) stays -2**31). */
static LLVMValueRef cg_int_unary(cg_ctx *g, node *e) {
  LLVMValueRef v = cg_expr(g, e->a);
  v = e->op == OP_NEG ? LLVMBuildNeg(g->b, v, "") : LLVMBuildNot(g->b, v, "");
  return cg_convert(g, v, e->a->ty, e->ty);
}

static LLVMValueRef cg_unary(cg_ctx *g, node *e) {
  if (e->op == OP_NOT) return LLVMBuildNot(g->b, cg_to_bool(g, cg_expr(g, e->a), e->a->ty), "");
  if (e->a->ty->kind == TY_INT && (e->op == OP_NEG || e->op == OP_INVERT)) return cg_int_unary(g, e);
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

/* a < b < c: each operand evaluated once, later comparisons skipped once one fails. */
/* x is None, x is not None (ix_is_none): an Optional's validity; anything else is
 * never None. */
static LLVMValueRef cg_is_none(cg_ctx *g, node *e) {
  node *l = e->list.items[0], *r = e->list.items[1];
  node *x = l->kind == N_NONE ? r : l;
  LLVMValueRef none;
  if (x->kind == N_NONE) {
    none = LLVMConstInt(g->i1, 1, 0);
  } else {
    LLVMValueRef v = cg_expr(g, x);
    none = x->ty->kind == TY_OPTIONAL
               ? LLVMBuildNot(g->b, LLVMBuildExtractValue(g->b, v, 1, ""), "")
               : LLVMConstInt(g->i1, 0, 0);
  }
  return e->cmp_ops[0] == OP_IS ? none : LLVMBuildNot(g->b, none, "");
}

static LLVMValueRef cg_compare(cg_ctx *g, node *e) {
  const type **pair = e->aux_ptr;
  if (!pair) return cg_is_none(g, e);
  int n = e->list.len;
  if (n == 2) {
    const type *t = pair[0];
    return cg_compare_op(g, e->cmp_ops[0], cg_expr_as(g, e->list.items[0], t),
                   cg_expr_as(g, e->list.items[1], t), t);
  }
  LLVMValueRef res = cg_entry_alloca(g, g->i1, "cmp");
  LLVMBasicBlockRef done = cg_new_bb(g, "cmp.done");
  LLVMValueRef left = cg_expr(g, e->list.items[0]);
  const type *lt = ((node *)e->list.items[0])->ty;
  for (int i = 0; i < n - 1; i++) {
    node *rn = e->list.items[i + 1];
    LLVMValueRef right = cg_expr(g, rn);
    LLVMValueRef c = cg_compare_op(g, e->cmp_ops[i], cg_convert(g, left, lt, pair[i]),
                             cg_convert(g, right, rn->ty, pair[i]), pair[i]);
    LLVMBuildStore(g->b, c, res);
    if (i < n - 2) {
      LLVMBasicBlockRef next = cg_new_bb(g, "cmp.next");
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
  LLVMValueRef slot = cg_entry_alloca(g, cg_scalar_type(g, t), "boolop");
  LLVMBasicBlockRef done = cg_new_bb(g, "bool.done");
  for (int i = 0; i < e->list.len; i++) {
    node *x = e->list.items[i];
    LLVMValueRef v = cg_expr(g, x);
    LLVMBuildStore(g->b, cg_convert(g, v, x->ty, t), slot);
    if (i == e->list.len - 1) break;
    LLVMValueRef truth = cg_to_bool(g, v, x->ty);
    LLVMBasicBlockRef next = cg_new_bb(g, "bool.next");
    if (e->op == OP_AND) LLVMBuildCondBr(g->b, truth, next, done);
    else LLVMBuildCondBr(g->b, truth, done, next);
    LLVMPositionBuilderAtEnd(g->b, next);
  }
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  return LLVMBuildLoad2(g->b, cg_scalar_type(g, t), slot, "");
}

static LLVMValueRef cg_ifexp(cg_ctx *g, node *e) {
  LLVMTypeRef lt = cg_type(g, e->ty);
  LLVMValueRef slot = cg_entry_alloca(g, lt, "ifexp");
  LLVMBasicBlockRef tb = cg_new_bb(g, "ifexp.then"), fb = cg_new_bb(g, "ifexp.else"),
                    done = cg_new_bb(g, "ifexp.done");
  LLVMBuildCondBr(g->b, cg_to_bool(g, cg_expr(g, e->a), e->a->ty), tb, fb);
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

/* ---- recursion's depth (targets with recursion_exceeded: the CPU) ----------------------------------
 * A device function with a declared signature may call itself (directly or through
 * others), and on the CPU a thread's stack is a fixed size (8 MiB for the executor's
 * workers, the kernel's need for a fiber: host_stack.c), so unbounded recursion would
 * die of SIGSEGV at the guard page. Such a function takes one more parameter after its
 * own, its depth: 0 from a function that cannot recurse, the caller's depth + 1 from
 * one that can. On entry it compares it with the number of its frames that fit in
 * KC_RECURSION_BUDGET (its allocas, local arrays included, plus a margin for spills
 * and saved registers), and past it fails the launch (KC_ERR_LAUNCH, naming the kernel,
 * the function and the depth) instead. host_stack.c adds the budget to the stack need
 * of a kernel that reaches such a function (the attribute "kcc-recursive"). */
#define KC_RECURSION_BUDGET ((unsigned long long)1 << 20)
#define KC_RECURSION_FRAME_MARGIN 512ull

static bool has_depth(cg_ctx *g, const fn_instance *f) {
  return g->target->recursion_exceeded && !f->is_kernel && f->ret_declared;
}

/* The depth argument of a call from g->fi to callee, into *arg; false when it takes none. */
static bool depth_arg(cg_ctx *g, const fn_instance *callee, LLVMValueRef *arg) {
  if (!has_depth(g, callee)) return false;
  if (g->fi && has_depth(g, g->fi) && LLVMCountParams(g->fn) ==
      g->target->hidden_count + (unsigned)g->fi->nparams + 1)
    *arg = LLVMBuildAdd(g->b, LLVMGetParam(g->fn, LLVMCountParams(g->fn) - 1), ci32(g, 1), "depth");
  else
    *arg = ci32(g, 0);
  return true;
}

/* The allocas of fn's entry block, in bytes. */
static unsigned long long frame_bytes(cg_ctx *g, LLVMValueRef fn) {
  LLVMTargetDataRef dl = LLVMGetModuleDataLayout(g->m);
  unsigned long long bytes = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(LLVMGetEntryBasicBlock(fn)); i;
       i = LLVMGetNextInstruction(i)) {
    if (!LLVMIsAAllocaInst(i)) continue;
    LLVMValueRef n = LLVMGetOperand(i, 0);
    unsigned long long count = LLVMIsAConstantInt(n) ? LLVMConstIntGetZExtValue(n) : 1;
    bytes += count * LLVMABISizeOfType(dl, LLVMGetAllocatedType(i));
  }
  return bytes;
}

/* Fill the block check (between the entry block's allocas and the body at start) once
 * the body is made, so that the frame is known: depth > limit fails the launch. */
static void depth_check(cg_ctx *g, fn_instance *f, LLVMBasicBlockRef check, LLVMBasicBlockRef start) {
  unsigned long long frame = frame_bytes(g, g->fn) + KC_RECURSION_FRAME_MARGIN;
  unsigned long long limit = KC_RECURSION_BUDGET / frame;
  if (limit < 1) limit = 1;
  LLVMBasicBlockRef fail = cg_new_bb(g, "recursion.deep");
  LLVMPositionBuilderAtEnd(g->b, check);
  LLVMValueRef depth = LLVMGetParam(g->fn, LLVMCountParams(g->fn) - 1);
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntUGT, depth, ci32(g, (long long)limit), ""),
                  fail, start);
  LLVMPositionBuilderAtEnd(g->b, fail);
  g->target->recursion_exceeded(g, arena_printf(g->ar,
      "RecursionError: device function '%s' called %llu deep, the most the CPU back end's "
      "%llu KiB stack budget for recursion holds for its %llu-byte frames",
      f->fn ? f->fn->name : f->symbol_name, limit + 1, KC_RECURSION_BUDGET / 1024, frame));
}

/* A call of a device function: the target's hidden arguments (the host's blk, tx, ty,
 * tz), then the parameters (and a recursive one's depth on the CPU). */
static LLVMValueRef hidden_args_call(cg_ctx *g, fn_instance *callee, node *e) {
  int np = e->params.len;
  unsigned n = g->target->hidden_count;
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(n + (unsigned)np + 1));
  g->target->hidden_args(g, args);
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
  if (depth_arg(g, callee, &args[n])) n++;
  LLVMValueRef f = callee->cg;
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, n, "");
}

LLVMValueRef cg_call_values(cg_ctx *g, fn_instance *callee, LLVMValueRef *vals, int n) {
  unsigned nh = g->target->hidden_count;
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(nh + (unsigned)n + 1));
  g->target->hidden_args(g, args);
  for (int i = 0; i < n; i++) args[nh + (unsigned)i] = vals[i];
  unsigned total = nh + (unsigned)n;
  if (depth_arg(g, callee, &args[total])) total++;
  LLVMValueRef f = callee->cg;
  return LLVMBuildCall2(g->b, LLVMGlobalGetValueType(f), f, args, total, "");
}

/* A call: of a builtin, through its registry row's lowering; of a device function,
 * with the target's hidden arguments. */
static LLVMValueRef cg_call(cg_ctx *g, node *e) {
  if (e->bi) return builtin_lowering_for(e->bi, g->target->host)(g, e, e->bi);
  if (e->aux == CALL_FOREIGN) return cg_foreign_call(g, e);
  if (e->aux_ptr) return hidden_args_call(g, e->aux_ptr, e);
  cg_internal_error(g, e->sp, "call not handled by the code generator");
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
  if (t->kind == TY_FLOAT) return LLVMConstReal(cg_scalar_type(g, t), v->kind == N_FLOAT ? v->fval : (double)v->ival);
  if (t->kind == TY_COMPLEX) {
    LLVMTypeRef pt = cg_scalar_type(g, type_complex_part(t));
    return cx_make(g, t, LLVMConstReal(pt, v->a->fval), LLVMConstReal(pt, v->b->fval));
  }
  if (t->kind == TY_BOOL) return LLVMConstInt(g->i1, v->ival != 0, 0);
  return LLVMConstInt(cg_scalar_type(g, t), v->big ? v->uval : (unsigned long long)v->ival, 0);
}

/* An inner function's value, where its name is read: the captured locals' values now,
 * as Python's closure cells give them to a call made here (funcval.c). */
static LLVMValueRef cg_closure(cg_ctx *g, const symbol *s) {
  const func_def *fn = s->value->aux_ptr;
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, s->ty));
  for (int k = 0; k < fn->ncaptures; k++) {
    const symbol *c = fn->capsyms[k];   /* a sibling inner function is a closure too */
    LLVMValueRef v = c->value && c->value->kind == N_FUNCDEF
        ? cg_closure(g, c) : LLVMBuildLoad2(g->b, cg_type(g, c->ty), c->cg, c->name);
    agg = LLVMBuildInsertValue(g->b, agg, v, (unsigned)k, "");
  }
  return agg;
}

static LLVMValueRef cg_name(cg_ctx *g, node *e) {
  symbol *s = e->sym;
  if (!s && e->bi)   /* a builtin value imported by name: from math import pi */
    return builtin_lowering_for(e->bi, g->target->host)(g, e, e->bi);
  if (!s) {
    cg_internal_error(g, e->sp, "unresolved name");
    return LLVMGetUndef(g->i32);
  }
  if (s->kind == SYM_CONST && s->ty->kind == TY_ARRAY)   /* a module array: constant data */
    return cg_const_array_value(g, s->name, s->value, s->ty, e->sp);
  if (s->kind == SYM_CONST) return cg_const(g, s->value, s->ty);
  if (s->value && s->value->kind == N_FUNCDEF) return cg_closure(g, s);
  return LLVMBuildLoad2(g->b, cg_type(g, s->ty), s->cg, s->name);
}

static LLVMValueRef cg_attr(cg_ctx *g, node *e) {
  if (e->aux == FV_CAPTURE)   /* a captured value passed to an inner function's call */
    return LLVMBuildExtractValue(g->b, cg_expr(g, e->a), (unsigned)e->ival, e->str);
  if (e->bi) return builtin_lowering_for(e->bi, g->target->host)(g, e, e->bi);
  const type *bt = e->a->ty;
  if (bt->kind == TY_RECORD) return cg_record_field(g, e);
  if (bt->kind == TY_VECTOR)   /* v.x: e->aux the element (ix_vector_field) */
    return LLVMBuildExtractValue(g->b, cg_expr(g, e->a), (unsigned)e->aux, e->str);
  if (bt->kind != TY_ARRAY) return cg_part(g, e);
  LLVMValueRef arr = cg_expr(g, e->a);
  if (e->ty->kind == TY_ARRAY) return cx_array_part(g, e, arr);   /* z.real, z.imag */
  if (strcmp(e->str, "size") == 0) return cg_array_size(g, arr, bt->ndim);
  if (strcmp(e->str, "ndim") == 0) return ci64(g, bt->ndim);
  /* a.shape (a.strides, a.T ... are rows: builtins/arrays.c) */
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  for (int k = 0; k < bt->ndim; k++)
    agg = LLVMBuildInsertValue(g->b, agg, cg_array_extent(g, arr, k), (unsigned)k, "");
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
    LLVMValueRef n = cg_array_extent(g, arr, k), stride = cg_array_stride(g, arr, bt, k);
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
  LLVMValueRef data = LLVMBuildGEP2(g->b, cg_mem_type(g, bt->elem),
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
  if (e->a->ty->kind == TY_TUPLE) return cg_tuple_index(g, e);
  if (e->ty->kind == TY_ARRAY) return cg_slice(g, e);
  if (e->ty->kind == TY_RECORD) return cg_element_ptr(g, e);   /* a reference */
  return cg_load_element(g, cg_element_ptr(g, e), e->ty);
}

static LLVMValueRef cg_tuple(cg_ctx *g, node *e) {
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  for (int i = 0; i < e->list.len; i++)
    agg = LLVMBuildInsertValue(g->b, agg, cg_expr_as(g, e->list.items[i], e->ty->elems[i]), (unsigned)i, "");
  return agg;
}

static LLVMValueRef expr_value(cg_ctx *g, node *e);

LLVMValueRef cg_expr(cg_ctx *g, node *e) {
  LLVMValueRef v = expr_value(g, e);
  /* an Optional used as its value (node->unwrap, ix_expr) */
  return e->unwrap ? LLVMBuildExtractValue(g->b, v, 0, "") : v;
}

static LLVMValueRef expr_value(cg_ctx *g, node *e) {
  /* a function, builtin or type as a value, capturing nothing: no run-time data */
  if (e->ty && e->ty->kind == TY_FUNCVAL && e->ty->nelems == 0)
    return LLVMConstNull(cg_type(g, e->ty));
  switch (e->kind) {
  case N_INT: return LLVMConstInt(cg_scalar_type(g, e->ty), e->big ? e->uval : (unsigned long long)e->ival, 1);
  case N_FLOAT: return LLVMConstReal(cg_scalar_type(g, e->ty), e->fval);
  case N_IMAG: {
    LLVMTypeRef pt = cg_scalar_type(g, type_complex_part(e->ty));
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
  case N_NAMEDEXPR: {
    LLVMValueRef v = cg_expr(g, e->b);
    cg_store_target(g, e->a, v, e->b->ty);
    return v;
  }
  case N_TUPLE: return cg_tuple(g, e);
  default:
    cg_internal_error(g, e->sp, "expression not handled by the code generator");
    return LLVMGetUndef(g->i32);
  }
}

/* ---- functions -------------------------------------------------------------------------------------- */

void cg_add_attr(cg_ctx *g, LLVMValueRef fn, int idx, const char *name) {
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
 * kernel also flushes float32 denormals (the target's function_attrs). */
#define CG_FAST_MATH_FLAGS                                                                \
  (LLVMFastMathAllowReassoc | LLVMFastMathNoSignedZeros | LLVMFastMathAllowReciprocal |  \
   LLVMFastMathAllowContract | LLVMFastMathApproxFunc)

void cg_set_fast_math_flags(LLVMValueRef fn) {
  for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(fn); bb; bb = LLVMGetNextBasicBlock(bb))
    for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
      if (LLVMCanValueUseFastMathFlags(i)) LLVMSetFastMathFlags(i, CG_FAST_MATH_FLAGS);
}

static void declare_instance(cg_ctx *g, fn_instance *f) {
  unsigned n = g->target->hidden_count;
  LLVMTypeRef *pt = arena_alloc(g->ar, sizeof *pt * (n + (size_t)f->nparams + 1));
  g->target->hidden_param_types(g, pt);
  for (int i = 0; i < f->nparams; i++) pt[n++] = cg_type(g, f->param_types[i]);
  if (has_depth(g, f)) pt[n++] = g->i32;   /* its depth of recursion */
  const char *name = arena_printf(g->ar, "%s%s", f->symbol_name, f->is_kernel ? "__body" : "");
  LLVMValueRef fn = LLVMAddFunction(g->m, name, LLVMFunctionType(cg_type(g, f->ret), pt, n, 0));
  LLVMSetLinkage(fn, f->exported ? LLVMExternalLinkage : LLVMInternalLinkage);
  if (f->exported) {   /* a root of its own: the targets keep it (target_nvptx.c) */
    static const char key[] = "kcc-export";
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(g->c, key, sizeof key - 1, "", 0));
  }
  if (f->is_kernel && !f->noopt) cg_add_attr(g, fn, -1, "alwaysinline");
  cg_option_attrs(g, f, fn);
  g->target->function_attrs(g, f, fn);
  if (has_depth(g, f)) {
    static const char key[] = "kcc-recursive";
    LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                            LLVMCreateStringAttribute(g->c, key, sizeof key - 1, "", 0));
  }
  f->cg = fn;
}

static void begin_debug_function(cg_ctx *g, fn_instance *f) {
  g->di_sp = NULL;
  if (!g->dib || !f->def || !cg_wants_lines(g, f)) return;
  LLVMMetadataRef st = LLVMDIBuilderCreateSubroutineType(g->dib, g->di_file, NULL, 0, LLVMDIFlagZero);
  const char *name = f->symbol_name;
  g->di_sp = LLVMDIBuilderCreateFunction(g->dib, g->di_file, name, strlen(name), name,
      strlen(name), g->di_file, (unsigned)f->def->sp.line, st, 1, 1,
      (unsigned)f->def->sp.line, LLVMDIFlagZero, 1);
  LLVMSetSubprogram(g->fn, g->di_sp);
}

/* Entry points get a subprogram too: inlining into a function without one drops the
 * body's line info. */
void cg_entry_debug(cg_ctx *g, LLVMValueRef fn, fn_instance *f) {
  LLVMValueRef saved = g->fn;
  g->fn = fn;
  begin_debug_function(g, f);
  cg_set_debug_loc(g, f->def->sp);
  g->fn = saved;
}

static void gen_body(cg_ctx *g, fn_instance *f) {
  g->fi = f;
  g->fn = f->cg;
  g->entry = cg_new_bb(g, "entry");
  LLVMBasicBlockRef start = cg_new_bb(g, "start");
  g->ret_bb = cg_new_bb(g, "return");
  LLVMPositionBuilderAtEnd(g->b, g->entry);
  begin_debug_function(g, f);
  cg_set_debug_loc(g, f->def->sp);
  unsigned h = g->target->hidden_count;
  g->target->enter_function(g);
  g->ret_slot = f->ret->kind != TY_VOID ? LLVMBuildAlloca(g->b, cg_type(g, f->ret), "ret") : NULL;
  if (f->ret->kind == TY_OPTIONAL) LLVMBuildStore(g->b, cg_none(g, f->ret), g->ret_slot);
  for (int i = 0; i < f->locals.len; i++) {
    symbol *s = f->locals.items[i];
    if (!s->ty) continue;
    LLVMTypeRef lt = cg_type(g, s->ty);
    s->cg = cg_entry_alloca(g, lt, s->name);   /* in the entry block, after a record copy */
    /* a parameter assigned a wider value in the body (n = n * 2.5) holds that type from
       the start: its argument is converted on entry */
    LLVMValueRef init = s->is_param
        ? cg_convert(g, LLVMGetParam(g->fn, h + (unsigned)s->param_index),
                  f->param_types[s->param_index], s->ty)
        : LLVMConstNull(lt);
    if (s->is_param && f->is_kernel && s->ty->kind == TY_RECORD)
      init = cg_record_local_copy(g, init, s->ty);   /* each thread its own record */
    LLVMBuildStore(g->b, init, s->cg);
  }
  LLVMBasicBlockRef check = has_depth(g, f) ? cg_new_bb(g, "recursion.depth") : NULL;
  LLVMBuildBr(g->b, check ? check : start);
  LLVMPositionBuilderAtEnd(g->b, start);
  g->loop = NULL;
  cg_block(g, &f->def->body);
  cg_br_if_open(g, g->ret_bb);
  if (check) {
    LLVMBasicBlockRef here = LLVMGetInsertBlock(g->b);
    depth_check(g, f, check, start);
    LLVMPositionBuilderAtEnd(g->b, here);
  }
  LLVMPositionBuilderAtEnd(g->b, g->ret_bb);
  if (g->ret_slot) LLVMBuildRet(g->b, LLVMBuildLoad2(g->b, cg_type(g, f->ret), g->ret_slot, ""));
  else LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
}

/* ---- pieces of kernel entry points (the target's: gen_entries) ---------------------------------- */

/* Reassemble an array value of type t from flattened parameters: a data pointer, the
 * extents, then for a strided ('A') parameter the strides in elements; the value's
 * fields are in that order. */
LLVMValueRef cg_build_array(cg_ctx *g, const type *t, LLVMValueRef data, LLVMValueRef *ext) {
  LLVMValueRef v = LLVMGetUndef(cg_type(g, t));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < cg_param_words(t) - 1; k++)
    v = LLVMBuildInsertValue(g->b, v, ext[k], (unsigned)(k + 1), "");
  return v;
}

/* The LLVM type a scalar kernel parameter is passed as (bool as a byte). A record is
 * a pointer to its bytes, which each target takes itself (cg_nvptx.c, cg_host.c). */
LLVMTypeRef cg_param_scalar_type(cg_ctx *g, const type *t) {
  return t->kind == TY_BOOL ? g->i8 : cg_scalar_type(g, t);
}

LLVMValueRef cg_param_scalar_value(cg_ctx *g, LLVMValueRef v, const type *t) {
  return t->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
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
  bool full = g->opts->debug || cg_any_kernel_option(g, true);
  if (!g->opts->lineinfo && !full && !cg_any_kernel_option(g, false)) return;
  g->dib = LLVMCreateDIBuilder(g->m);
  const char *slash = strrchr(file, '/');
  const char *base = slash ? slash + 1 : file;
  const char *dir = slash ? arena_strndup(g->ar, file, (size_t)(slash - file)) : ".";
  g->di_file = LLVMDIBuilderCreateFile(g->dib, base, strlen(base), dir, strlen(dir));
  LLVMDIBuilderCreateCompileUnit(g->dib, LLVMDWARFSourceLanguagePython, g->di_file, "kcc",
      3, g->opts->opt_level > 0, "", 0, 0, "", 0,
      full ? LLVMDWARFEmissionFull : LLVMDWARFEmissionLineTablesOnly,
      0, 0, 0, "", 0, "", 0);
  LLVMAddModuleFlag(g->m, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
                    LLVMValueAsMetadata(ci32(g, (long long)LLVMDebugMetadataVersion())));
  LLVMAddModuleFlag(g->m, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
                    LLVMValueAsMetadata(ci32(g, 4)));
  if (full)
    LLVMAddModuleFlag(g->m, LLVMModuleFlagBehaviorWarning, KCC_FULL_DEBUG_FLAG,
                      strlen(KCC_FULL_DEBUG_FLAG), LLVMValueAsMetadata(ci32(g, 1)));
}

/* The builders are not the LLVM context's: an out-of-memory longjmp from the arena
 * must not leave them behind (the module is the context's; compile.c disposes of it). */
static void cg_dispose_builders(cg_ctx *g) {
  if (g->dib) LLVMDisposeDIBuilder(g->dib);
  g->dib = NULL;
  LLVMDisposeBuilder(g->b);
}

/* A kernel with barriers or grid-stride loops that the CPU runs in region form
 * (host_regions.c): its
 * K__block holds the whole body, so it needs no function of its own (one would also
 * lay out its shared arrays a second time). */
static bool host_region_kernel(cg_ctx *g, fn_instance *f) {
  if (!g->target->host || !f->is_kernel || LLVMGetFirstUse(f->cg)) return false;
  if (!host_regions_entry(g, f)) return false;
  f->host_regions = true;
  LLVMDeleteFunction(f->cg);
  f->cg = NULL;
  return true;
}

int cg_program(arena *a, diag_sink *d, program *p, const kcc_options *opts,
               LLVMContextRef ctx, const char *module_name, LLVMModuleRef *out,
               size_t *static_shared) {
  cg_ctx *g = arena_alloc(a, sizeof *g);   /* not a local: still valid after longjmp */
  g->ar = a;
  g->d = d;
  g->prog = p;
  g->opts = opts;
  g->target = opts->target == KCC_TARGET_HOST ? &cg_target_host : &cg_target_nvptx;
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
    if (host_region_kernel(g, f)) continue;
    gen_body(g, f);
    if (f->fastmath) cg_set_fast_math_flags(f->cg);
  }
  for (int i = 0; i < p->kernels.len; i++) g->target->gen_entries(g, p->kernels.items[i]);
  if (g->dib) LLVMDIBuilderFinalize(g->dib);
  cg_dispose_builders(g);
  a->on_oom = outer;
  *out = g->m;
  *static_shared = g->shared_bytes;
  return d->nerrors - before;
}

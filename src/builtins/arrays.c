/*
 * arrays.c — the attributes and methods of arrays that Numba-CUDA has in kernels and
 * that make no new array: .strides, .itemsize, .nbytes, .T (the transposed view), rows
 * of kind BK_ATTRIBUTE, and .view(dtype) (the same memory read as another dtype).
 * (.shape, .size, .ndim and the complex parts .real/.imag stay with infer.c's and
 * codegen.c's attribute code.)
 * Methods that would allocate (a.copy(), a.sum(), a.reshape(...) ...) are refused here,
 * as Numba-CUDA refuses them, with what to write instead.
 *
 * An array value is {ptr data, i64 extent...} when C-contiguous, and a view
 * {ptr data, i64 extent..., i64 stride...} (strides in elements) otherwise (codegen.c).
 */
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* The bytes of one element (a bool is a byte in memory, as in NumPy). */
static int64_t itemsize(const type *el) {
  return el->kind == TY_BOOL ? 1 : el->bits / 8;
}

/* ---- attributes ---- */

/* a.itemsize, a.nbytes: int64 */
static const type *ix_array_int(infer_ctx *ic, node *e, const builtin *b) {
  (void)ic, (void)b;
  return ix_set_type(e, &ty_i64, false);
}

/* a.strides: a tuple of int64, one per axis */
static const type *ix_strides(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  const type *at = e->a->ty;
  const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)at->ndim);
  for (int k = 0; k < at->ndim; k++) el[k] = &ty_i64;
  return ix_set_type(e, type_tuple(ic->ar, el, at->ndim), false);
}

/* a.T: a 1-D array is its own transpose; otherwise the axes reversed, which is no
 * longer C-contiguous (Numba's 'F' layout, kcc's strided view) */
static const type *ix_transpose(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  const type *at = e->a->ty;
  if (!ix_mark_view_of(ic, e)) return NULL;
  return ix_set_type(e, at->ndim == 1 ? at : type_array_layout(ic->ar, at->elem, at->ndim, true),
                     false);
}

/* A view value of type vt from data, extents and strides (in elements). */
static LLVMValueRef make_view(cg_ctx *g, const type *vt, LLVMValueRef data, LLVMValueRef *ext,
                              LLVMValueRef *str) {
  LLVMValueRef v = LLVMBuildInsertValue(g->b, LLVMGetUndef(cg_type(g, vt)), data, 0, "");
  for (int k = 0; k < vt->ndim; k++) {
    v = LLVMBuildInsertValue(g->b, v, ext[k], (unsigned)(1 + k), "");
    if (vt->strided) v = LLVMBuildInsertValue(g->b, v, str[k], (unsigned)(1 + vt->ndim + k), "");
  }
  return v;
}

static LLVMValueRef transpose(cg_ctx *g, node *e, LLVMValueRef arr) {
  const type *at = e->a->ty;
  if (at->ndim == 1) return arr;
  LLVMValueRef *ext = arena_alloc(g->ar, sizeof *ext * (size_t)at->ndim);
  LLVMValueRef *str = arena_alloc(g->ar, sizeof *str * (size_t)at->ndim);
  for (int k = 0; k < at->ndim; k++) {
    ext[at->ndim - 1 - k] = cg_array_extent(g, arr, k);
    str[at->ndim - 1 - k] = cg_array_stride(g, arr, at, k);
  }
  return make_view(g, e->ty, LLVMBuildExtractValue(g->b, arr, 0, "data"), ext, str);
}

static LLVMValueRef cg_itemsize(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  cg_expr(g, e->a);   /* evaluated, as any attribute's value is */
  return ci64(g, itemsize(e->a->ty->elem));
}

static LLVMValueRef cg_nbytes(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  const type *at = e->a->ty;
  LLVMValueRef arr = cg_expr(g, e->a);
  return LLVMBuildMul(g->b, cg_array_size(g, arr, at->ndim), ci64(g, itemsize(at->elem)),
                      "nbytes");
}

/* strides: in bytes, as NumPy gives them */
static LLVMValueRef cg_strides(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  const type *at = e->a->ty;
  LLVMValueRef arr = cg_expr(g, e->a);
  int64_t size = itemsize(at->elem);
  LLVMValueRef agg = LLVMGetUndef(cg_type(g, e->ty));
  for (int k = 0; k < at->ndim; k++)
    agg = LLVMBuildInsertValue(g->b, agg, LLVMBuildMul(g->b, cg_array_stride(g, arr, at, k),
                                                       ci64(g, size), ""), (unsigned)k, "");
  return agg;
}

static LLVMValueRef cg_transpose(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  return transpose(g, e, cg_expr(g, e->a));
}

/* ---- methods ---- */

/* a.view(dtype): the same memory as dtype. With another itemsize the last axis is
 * rescaled, as NumPy does; kcc does that for C-contiguous arrays only (a strided view's
 * other strides need not be whole elements of the new dtype). */
static const type *ix_array_view(infer_ctx *ic, node *e, const builtin *row) {
  (void)row;
  node *recv = e->a->a;
  const type *at = recv->ty;
  const type *dt = ix_dtype_arg(ic, e->list.items[0]);
  if (!dt || !type_is_scalar(dt)) {
    ix_error(ic, e->list.items[0]->sp, "a.view takes a scalar dtype (float32, np.int32, 'f4')");
    return NULL;
  }
  if (at->strided && itemsize(dt) != itemsize(at->elem)) {
    ix_error(ic, e->sp, "a.view(%s) of a non-contiguous %s changes the itemsize, which kcc "
             "supports on C-contiguous arrays only; view the whole array first, then slice",
             ix_tname(ic, dt), ix_tname(ic, at));
    return NULL;
  }
  if (!ix_mark_view_of(ic, e)) return NULL;
  return ix_set_type(e, type_array_layout(ic->ar, dt, at->ndim, at->strided), false);
}

/* The last axis holds ext * old / new elements of the new dtype. When its bytes are not a
 * whole number of them NumPy and Numba raise ValueError; kcc gives an empty last axis
 * (so a bounds-checked kernel reports the first access). */
static LLVMValueRef cg_array_view(cg_ctx *g, node *e, const builtin *row) {
  (void)row;
  const type *at = e->a->a->ty;
  LLVMValueRef arr = cg_expr(g, e->a->a);
  int64_t from = itemsize(at->elem), to = itemsize(e->ty->elem);
  if (from == to) return arr;
  unsigned last = (unsigned)at->ndim;
  LLVMValueRef bytes = LLVMBuildMul(g->b, cg_array_extent(g, arr, at->ndim - 1), ci64(g, from), "");
  LLVMValueRef n = LLVMBuildUDiv(g->b, bytes, ci64(g, to), "");
  if (from % to != 0) {
    LLVMValueRef whole = LLVMBuildICmp(g->b, LLVMIntEQ, LLVMBuildURem(g->b, bytes, ci64(g, to), ""),
                                       ci64(g, 0), "");
    n = LLVMBuildSelect(g->b, whole, n, ci64(g, 0), "");
  }
  return LLVMBuildInsertValue(g->b, arr, n, last, "");
}

/* Methods of NumPy arrays that kernels do not have (BF_REFUSED rows below, their .name
 * what to write instead). Those that make a new array (or reduce one; Numba-CUDA loads
 * no lowering for the reductions) Numba-CUDA refuses too (value 0); reshape and transpose
 * it has (value 1), as views, and kcc does not yet. */
static const type *ix_refused(infer_ctx *ic, node *e, const builtin *b) {
  node *callee = e->a;
  const type *at = callee->a->ty;
  if (b->value != 0)
    ix_error(ic, callee->sp, "%s.%s() is not supported by kcc; %s", ix_tname(ic, at),
             callee->str, b->name);
  else
    ix_error(ic, callee->sp, "%s.%s() is not supported in kernels: it makes a new array or "
             "a reduction, which Numba-CUDA kernels do not have either; %s",
             ix_tname(ic, at), callee->str, b->name);
  return NULL;
}

#define REFUSED(p, numba_has, instead)                                                      \
  {.path = p, .kind = BK_METHOD, .max_args = -1, .flags = BF_ARRAY_METHOD | BF_REFUSED,       \
   .value = numba_has, .name = instead, .typing = ix_refused}
/* ... and at module level folded on a module array (module_arrays.c; op a MA_* code) */
#define REFUSED_FOLDED(p, ma, numba_has, instead)                                          \
  {.path = p, .kind = BK_METHOD, .max_args = -1,                                             \
   .flags = BF_ARRAY_METHOD | BF_REFUSED | BF_FOLD, .op = ma, .value = numba_has,             \
   .name = instead, .typing = ix_refused, .fold = ma_fold_method}

const builtin builtins_arrays[] = {
  {.path = ".itemsize", .kind = BK_ATTRIBUTE, .flags = BF_ARRAY_METHOD | BF_PURE,
   .typing = ix_array_int, .lower = cg_itemsize},
  {.path = ".nbytes", .kind = BK_ATTRIBUTE, .flags = BF_ARRAY_METHOD | BF_PURE,
   .typing = ix_array_int, .lower = cg_nbytes},
  {.path = ".strides", .kind = BK_ATTRIBUTE, .flags = BF_ARRAY_METHOD | BF_PURE,
   .typing = ix_strides, .lower = cg_strides},
  {.path = ".T", .kind = BK_ATTRIBUTE, .flags = BF_ARRAY_METHOD | BF_PURE,
   .typing = ix_transpose, .lower = cg_transpose},
  {.path = ".view", .kind = BK_METHOD, .min_args = 1, .max_args = 1, .flags = BF_ARRAY_METHOD,
   .typing = ix_array_view, .lower = cg_array_view},
  REFUSED_FOLDED(".copy", MA_COPY, 0, "copy element by element into a cuda.local.array or an output array"),
  REFUSED_FOLDED(".astype", MA_ASTYPE, 0, "convert element by element (float32(a[i])) into another array"),
  REFUSED_FOLDED(".ravel", MA_FLATTEN, 0, "index the array directly, or pass a 1-D array"),
  REFUSED_FOLDED(".flatten", MA_FLATTEN, 0, "index the array directly, or pass a 1-D array"),
  REFUSED(".sum", 0, "add the elements in a loop (or reduce across threads with cuda.reduce)"),
  REFUSED(".mean", 0, "add the elements in a loop and divide by a.size"),
  REFUSED(".prod", 0, "multiply the elements in a loop"),
  REFUSED(".min", 0, "take min() in a loop over the elements"),
  REFUSED(".max", 0, "take max() in a loop over the elements"),
  REFUSED(".argmin", 0, "keep the index of the smallest element in a loop"),
  REFUSED(".argmax", 0, "keep the index of the largest element in a loop"),
  REFUSED(".tolist", 0, "index the array"),
  REFUSED_FOLDED(".reshape", MA_RESHAPE, 1, "index with the shape you want (a[i * n + j]) or pass the array in that shape"),
  REFUSED(".transpose", 1, "write a.T, the transposed view"),
  {NULL},
};

/*
 * memory.c — arrays a kernel makes: cuda.shared.array (static, or dynamic with shape
 * 0), cuda.local.array, cuda.const.array_like, and the views _kc_row/_kc_cell that the
 * generated @guvectorize loop (synth.c) passes to its core function. Shared memory is
 * an addrspace(3) global on the GPU and a slice of the block's buffer on the CPU.
 */
#include <string.h>

#include "builtin.h"
#include "records.h"
#include "cg.h"
#include "host_regions.h"
#include "typing.h"

/* op of this family's rows: a mem_kind (builtin.h) */

/* ---- typing ---- */

/* An element's size in bytes: a number's, a bool's (1), a record's (its itemsize). */
static int64_t elem_bytes(const type *el) {
  int64_t n = rec_scalar_size(el);
  return n > 0 ? n : 1;
}

static node *call_arg(node *e, int pos, const char *kw) {
  if (pos < e->list.len) return e->list.items[pos];
  for (int i = 0; i < e->kwargs.len; i++) {
    node *k = e->kwargs.items[i];
    if (strcmp(k->str, kw) == 0) return k->a;
  }
  return NULL;
}

const type *ix_dtype_arg(infer_ctx *ic, node *d) {
  if (d->kind == N_STR) return type_from_name(d->str);
  if (d->kind == N_NAME && !ix_find_local(ic->cur, d->str)) {
    /* a record declared at module level: its np.dtype or its from_dtype type, both of
       which Numba takes as an array's dtype */
    symbol *s = ix_find_const(ic, d->str);
    const type *r = s ? ix_record_const(s->value, NULL) : NULL;
    if (r) return r;
  }
  const char *p = ix_dotted_path(ic, d);
  if (!p && d->kind == N_ATTR && strcmp(d->str, "dtype") == 0) {
    /* an array's dtype: cuda.shared.array(n, a.dtype) */
    const type *bt = ix_expr(ic, d->a);
    return bt && bt->kind == TY_ARRAY ? bt->elem : NULL;
  }
  return p ? ix_type_from_path(p) : ix_class_value(ic, d);   /* or a local holding a type */
}

/* Bigger than any device's memory of the kind: refused here, where the shape is
 * written, so that a huge constant shape is not an overflowing size in code generation.
 * The device's own limit (48 KiB of static shared memory on most GPUs) is checked by
 * the runtime at launch, where the device is known. */
#define MAX_MEM_ARRAY_BYTES ((int64_t)1 << 31)

/* cuda.shared.array(0, dtype) is dynamic shared memory, sized at launch. */
static bool is_dynamic_shape(infer_ctx *ic, node *s) {
  node *f = ix_fold(ic, s);
  return f && f->kind == N_INT && f->ival == 0;
}

/* shape for cuda.shared.array / cuda.local.array: a constant int or tuple of them. */
static bool const_shape(infer_ctx *ic, node *s, int64_t *dims, int *ndim) {
  node *f = ix_fold_local_constant(ic, s);
  if (f && f->kind == N_INT) { dims[0] = f->ival; *ndim = 1; return dims[0] > 0; }
  if (!f || f->kind != N_TUPLE || f->list.len < 1 || f->list.len > KC_MAX_DIMS) return false;
  for (int i = 0; i < f->list.len; i++) {
    node *d = f->list.items[i];
    if (d->kind != N_INT || d->ival <= 0) return false;
    dims[i] = d->ival;
  }
  *ndim = f->list.len;
  return true;
}

static bool mem_array_fits(infer_ctx *ic, node *shape, const type *el, const int64_t *dims,
                           int ndim, const builtin *b) {
  int64_t bytes = el->kind == TY_BOOL || el->bits < 8 ? 1 : el->bits / 8;
  for (int i = 0; i < ndim; i++) {
    if (dims[i] > MAX_MEM_ARRAY_BYTES / bytes) {   /* bytes * dims[i] > the cap */
      ix_error(ic, shape->sp, "%s is too large: more than 2 GiB",
           builtin_user_name(b));
      return false;
    }
    bytes *= dims[i];
  }
  return true;
}

/* CUDA gives a thread at most 512 KiB of local memory; kcc holds each kernel's and
 * device function's cuda.local.array calls together to it, so that every array CUDA
 * accepts runs on the CPU back end too (runtime/cpu/fibers.c sizes its stacks from the
 * frame). The fixpoint passes walk a body several times: each call is counted once. */
#define MAX_LOCAL_BYTES_PER_THREAD ((int64_t)512 * 1024)

static int64_t mem_array_bytes(const type *el, const int64_t *dims, int ndim) {
  int64_t bytes = elem_bytes(el);
  for (int i = 0; i < ndim; i++) bytes *= dims[i];
  return bytes;
}

/* e, a local array of `bytes` (under 2 GiB), with the function's others before it. */
static void local_arrays_fit(infer_ctx *ic, node *e, node *shape, int64_t bytes) {
  ptr_vec *v = &ic->cur->local_arrays;
  int64_t total = 0;
  int k = 0;
  for (; k < v->len && v->items[k] != e; k++) {
    const node *o = v->items[k];
    total += mem_array_bytes(o->ty->elem, o->aux_ptr, o->ty->ndim);
  }
  if (k == v->len) vec_push(ic->ar, v, e);
  if (total + bytes > MAX_LOCAL_BYTES_PER_THREAD)
    ix_error(ic, shape->sp, "cuda.local.array is too large: %lld bytes with the function's "
             "other local arrays (%lld before it), more than CUDA's 512 KiB of local "
             "memory per thread", (long long)(total + bytes), (long long)total);
}

/* cuda.shared.array(shape, dtype), cuda.local.array(shape, dtype): the shape's extents
 * go to e->aux_ptr (int64_t[KC_MAX_DIMS]) for code generation. */
static const type *ix_mem_array(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  bool shared = b->op == MEM_SHARED;
  node *shape = call_arg(e, 0, "shape"), *dt = call_arg(e, 1, "dtype");
  if (!shape || !dt || e->list.len + e->kwargs.len != 2) {
    ix_error(ic, e->sp, "%s takes a shape and a dtype", fname);
    return NULL;
  }
  int64_t *dims = arena_alloc(ic->ar, sizeof(int64_t) * KC_MAX_DIMS);
  int ndim;
  if (shared && is_dynamic_shape(ic, shape)) {
    dims[0] = 0;   /* dynamic shared memory: sized at launch */
    ndim = 1;
  } else if (!const_shape(ic, shape, dims, &ndim)) {
    bool local = shape->kind == N_NAME && ix_find_local(ic->cur, shape->str);
    ix_error(ic, shape->sp, "the shape of %s must be a positive constant integer or a tuple "
         "of 1 to %d of them%s%s", fname, KC_MAX_DIMS, shared ? " (or 0: dynamic shared "
         "memory, sized at launch)" : "", local ? "; a local name is one only where the "
         "function assigns it once, at its top level before this, a constant" : "");
    return NULL;
  }
  const type *el = ix_dtype_arg(ic, dt);
  if (!el) {
    ix_error(ic, dt->sp, "unknown dtype for %s", fname);
    return NULL;
  }
  bool fits = mem_array_fits(ic, shape, el, dims, ndim, b);  /* typed all the same */
  e->aux_ptr = dims;
  const type *t = ix_set_type(e, type_array(ic->ar, el, ndim), false);
  if (fits && !shared && ic->cur) local_arrays_fit(ic, e, shape, mem_array_bytes(el, dims, ndim));
  return t;
}

/* The dtype of a constant array made from tuple v: complex128 when any element is
 * complex, else float64 when any is a float, bool when all are bools, else int64
 * (uint64 when one does not fit int64). */
static const type *const_tuple_dtype(const node *v) {
  if (v->kind == N_COMPLEX) return &ty_c128;
  if (v->kind == N_FLOAT) return &ty_f64;
  if (v->kind == N_BOOL) return &ty_bool;
  if (v->kind == N_INT) return v->big ? &ty_u64 : &ty_i64;
  const type *t = NULL;
  for (int i = 0; i < v->list.len; i++) {
    const type *et = const_tuple_dtype(v->list.items[i]);
    if (!t || et == &ty_c128 || (et == &ty_f64 && t != &ty_c128) ||
        (t == &ty_bool && et != &ty_bool) || (et == &ty_u64 && t->kind == TY_INT))
      t = et;
  }
  return t ? t : &ty_i64;
}

/* cuda.const.array_like(CONST) with CONST a module-level tuple (nested for 2-D and
 * 3-D); kcc also takes an optional dtype, since a tuple has none of its own. */
static const type *ix_const_array(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  node *src = call_arg(e, 0, "ary"), *dt = call_arg(e, 1, "dtype");
  if (!src || e->list.len + e->kwargs.len > 2 || (e->list.len + e->kwargs.len == 2 && !dt)) {
    ix_error(ic, e->sp, "%s takes a module constant tuple and, optionally, a dtype", fname);
    return NULL;
  }
  symbol *s = src->kind == N_NAME ? ix_find_const(ic, src->str) : NULL;
  int64_t *dims = arena_alloc(ic->ar, sizeof(int64_t) * KC_MAX_DIMS);
  for (int k = 0; k < KC_MAX_DIMS; k++) dims[k] = 0;
  int ndim = 0;
  if (!s || !s->value || !ast_tuple_shape(s->value, 0, dims, &ndim)) {
    ix_error(ic, src->sp, "%s needs the name of a module constant holding a tuple of numbers "
         "(nested, with equal lengths, for 2 or more dimensions)", fname);
    return NULL;
  }
  src->sym = s;
  src->ty = s->ty;
  const type *el = dt ? ix_dtype_arg(ic, dt)
                     : s->ty->kind == TY_ARRAY ? s->ty->elem   /* a module array's dtype */
                     : const_tuple_dtype(s->value);
  if (!el) {
    ix_error(ic, dt->sp, "unknown dtype for %s", fname);
    return NULL;
  }
  e->aux_ptr = dims;
  return ix_set_type(e, type_array(ic->ar, el, ndim), false);
}

/* _kc_row(a, i) / _kc_cell(a, i): the views the @guvectorize loop kernel (synth.c)
 * passes to the core function. */
static const type *ix_gu_view(infer_ctx *ic, node *e, const builtin *b) {
  bool row = b->op == MEM_ROW;
  if (!ix_args(ic, e)) return NULL;
  const type *at = ((node *)e->list.items[0])->ty;
  bool ok = at->kind == TY_ARRAY && (row ? at->ndim >= 2 : at->ndim == 1);
  if (!ok) {
    ix_error(ic, e->sp, "internal compiler error: bad view of %s", ix_tname(ic, at));
    return NULL;
  }
  return ix_set_type(e, type_array(ic->ar, at->elem, row ? at->ndim - 1 : 1), false);
}

/* ---- lowering ---- */

/* A shared array: an addrspace(3) global on the GPU, a slice of the block's shared
 * buffer on the host; a local array: an alloca. Either way an array value. */
static LLVMValueRef cg_mem_array(cg_ctx *g, node *e, const builtin *b) {
  const type *t = e->ty;
  const int64_t *dims = e->aux_ptr;
  if (b->op == MEM_SHARED && dims[0] == 0) return cg_dynamic_shared(g, t);
  int64_t n = 1;
  for (int k = 0; k < t->ndim; k++) n *= dims[k];
  LLVMTypeRef at = LLVMArrayType2(cg_mem_type(g, t->elem), (uint64_t)n);
  LLVMValueRef data;
  if (b->op == MEM_LOCAL) {
    /* a region-form kernel keeps one per thread (host_regions.c) */
    data = g->regions ? host_regions_local_array(g, e, at) : cg_entry_alloca(g, at, "local");
  } else {
    size_t bytes = (size_t)n * (size_t)elem_bytes(t->elem);
    data = g->target->shared_array(g, at, bytes);
  }
  LLVMValueRef v = LLVMGetUndef(cg_array_struct(g, t->ndim));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < t->ndim; k++) v = LLVMBuildInsertValue(g->b, v, ci64(g, dims[k]), (unsigned)(k + 1), "");
  return v;
}

/* cuda.shared.array(0, dtype): the launch's dynamic shared memory, as a 1-D array of
 * (bytes / itemsize) elements. */
LLVMValueRef cg_dynamic_shared(cg_ctx *g, const type *t) {
  LLVMValueRef data, bytes;
  g->target->dynamic_shared(g, &data, &bytes);
  long long size = (long long)elem_bytes(t->elem);
  LLVMValueRef v = LLVMGetUndef(cg_array_struct(g, 1));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  return LLVMBuildInsertValue(g->b, v, LLVMBuildUDiv(g->b, bytes, ci64(g, size), ""), 1, "");
}

/* cuda.const.array_like(CONST): made once per constant and dtype. */
static LLVMValueRef cg_const_array(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  node *src = e->list.items[0];
  return cg_const_array_value(g, src->sym->name, src->sym->value, e->ty, e->sp);
}

/* ---- @guvectorize views ---- */
/* _kc_row(a, i): a[i] as an array of the trailing dims (C order: i * their product
 * elements in); _kc_cell(a, i): the one-element array at a[i]. */
static LLVMValueRef cg_gu_view(cg_ctx *g, node *e, const builtin *b) {
  node *an = e->list.items[0];
  const type *at = an->ty, *rt = e->ty;
  bool row = b->op == MEM_ROW;
  LLVMValueRef arr = cg_expr(g, an);
  LLVMValueRef i = cg_expr_as(g, e->list.items[1], &ty_i64);
  LLVMValueRef off = row ? LLVMBuildMul(g->b, i, cg_array_stride(g, arr, at, 0), "") : i;
  LLVMValueRef data = LLVMBuildExtractValue(g->b, arr, 0, "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, cg_mem_type(g, at->elem), data, &off, 1, "");
  LLVMValueRef v = LLVMBuildInsertValue(g->b, LLVMGetUndef(cg_array_struct(g, rt->ndim)), p, 0, "");
  for (int k = 0; k < rt->ndim; k++)
    v = LLVMBuildInsertValue(g->b, v, row ? cg_array_extent(g, arr, k + 1) : ci64(g, 1),
                             (unsigned)(k + 1), "");
  return v;
}

/* name: the kind of array, for messages */
const builtin builtins_memory[] = {
  {.path = "numba.cuda.shared", .kind = BK_MODULE},
  {.path = "numba.cuda.local", .kind = BK_MODULE},
  {.path = "numba.cuda.const", .kind = BK_MODULE},
  {.path = "numba.cuda.shared.array", .kind = BK_FUNCTION, .max_args = -1,
   .flags = BF_NEW_ARRAY, .op = MEM_SHARED, .name = "shared", .typing = ix_mem_array,
   .lower = cg_mem_array},
  {.path = "numba.cuda.local.array", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_NEW_ARRAY,
   .op = MEM_LOCAL, .name = "local", .typing = ix_mem_array, .lower = cg_mem_array},
  {.path = "numba.cuda.const.array_like", .kind = BK_FUNCTION, .max_args = -1,
   .flags = BF_NEW_ARRAY | BF_READ_ONLY, .op = MEM_CONST, .name = "constant",
   .typing = ix_const_array, .lower = cg_const_array},
  {.path = "_kc_row", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .op = MEM_ROW,
   .typing = ix_gu_view, .lower = cg_gu_view},
  {.path = "_kc_cell", .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .op = MEM_CELL,
   .typing = ix_gu_view, .lower = cg_gu_view},
  {NULL},
};

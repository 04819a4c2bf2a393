/*
 * atomics.c — cuda.atomic.*: add, sub, max, min, nanmax, nanmin, exch, and_, or_, xor,
 * inc, dec, cas and compare_and_swap. Relaxed atomics, as CUDA's, returning the old
 * value; real atomics on the CPU too, where blocks run in parallel. Float max/min
 * follow Numba's NaN rules through a compare-and-swap loop.
 */
#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* op of this family's rows */
enum { A_ADD, A_SUB, A_MAX, A_MIN, A_NANMAX, A_NANMIN, A_EXCH, A_AND, A_OR, A_XOR, A_INC,
       A_DEC, A_CAS, A_CAS0 /* compare_and_swap: no index, element 0 */ };

/* ---- typing ---- */

static bool atomic_dtype_check(infer_ctx *ic, node *e, int id, const char *fname) {
  node *arr = e->list.items[0];
  const type *el = arr->ty->elem;
  if (arr->sym && arr->sym->is_shared && arr->sym->value &&
      (arr->sym->value->bi->flags & BF_READ_ONLY)) {
    ix_error(ic, arr->sp, "'%s' is a constant array and cannot be modified", arr->sym->name);
    return false;
  }
  bool wide_int = el->kind == TY_INT && (el->bits == 32 || el->bits == 64);
  switch (id) {
  case A_INC: case A_DEC:
    if (wide_int && !el->is_signed) return true;
    ix_error(ic, arr->sp, "%s needs a uint32 or uint64 array (CUDA's atomicInc/atomicDec "
         "wrap unsigned values), not %s", fname, ix_tname(ic, arr->ty));
    return false;
  case A_AND: case A_OR: case A_XOR: case A_CAS:
  case A_CAS0:
    if (wide_int) return true;
    ix_error(ic, arr->sp, "%s needs an array of int32, uint32, int64 or uint64, not %s", fname,
         ix_tname(ic, arr->ty));
    return false;
  default:
    if (wide_int || (el->kind == TY_FLOAT && el->bits >= 32)) return true;
    ix_error(ic, arr->sp, "%s needs an array of int32, uint32, int64, uint64, float32 or "
         "float64, not %s", fname, ix_tname(ic, arr->ty));
    return false;
  }
}

/* The arguments after the index of an atomic: 1 (value), 2 for cas (old, new). */
static int atomic_values(int id) {
  return id == A_CAS || id == A_CAS0 ? 2 : 1;
}

/* atomic.op(a, idx, v...) -> a's element type (the old value); the row has the count
 * of arguments, and marks a as written. */
static const type *ix_atomic(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  int id = b->op;
  bool no_index = id == A_CAS0;   /* compare_and_swap(a, old, new) */
  int nargs = b->max_args;
  if (!ix_args(ic, e)) return NULL;
  node *arr = e->list.items[0];
  if (arr->ty->kind != TY_ARRAY) {
    ix_error(ic, arr->sp, "%s needs an array as its first argument", fname);
    return NULL;
  }
  if (no_index && arr->ty->ndim != 1) {
    ix_error(ic, arr->sp, "%s needs a 1-D array (it works on element 0); use cuda.atomic.cas "
         "with an index for %s", fname, ix_tname(ic, arr->ty));
    return NULL;
  }
  if (!no_index) {
    ix_expand_tuple_index(ic, &e->list.items[1]);   /* idx = (i, j); atomic.add(a, idx, v) */
    node *idx = e->list.items[1];
    int nidx = idx->kind == N_TUPLE ? idx->list.len : 1;
    if (nidx != arr->ty->ndim) {
      ix_error(ic, idx->sp, "wrong number of indices: %s has %d dimension%s, %d given",
           ix_tname(ic, arr->ty), arr->ty->ndim, arr->ty->ndim == 1 ? "" : "s", nidx);
      return NULL;
    }
    for (int i = 0; i < nidx; i++) {   /* an integer each, as a[i] takes */
      node *ix = idx->kind == N_TUPLE ? idx->list.items[i] : idx;
      const type *t = ix_expr(ic, ix);
      if (t && t->kind != TY_INT && t->kind != TY_BOOL) {
        ix_error(ic, ix->sp, "%s: an array index must be an integer, not %s", fname,
                 ix_tname(ic, t));
        return NULL;
      }
    }
  }
  if (!atomic_dtype_check(ic, e, id, fname)) return NULL;
  for (int i = nargs - atomic_values(id); i < nargs; i++)
    if (!ix_need_real(ic, e->list.items[i], fname)) return NULL;
  return ix_set_type(e, arr->ty->elem, false);
}

/* ---- lowering ---- */

static LLVMAtomicRMWBinOp atomic_op(int id, const type *el) {
  bool fl = el->kind == TY_FLOAT;
  switch (id) {
  case A_ADD: return fl ? LLVMAtomicRMWBinOpFAdd : LLVMAtomicRMWBinOpAdd;
  case A_SUB: return fl ? LLVMAtomicRMWBinOpFSub : LLVMAtomicRMWBinOpSub;
  /* (floats take float_minmax below) */
  case A_MAX: case A_NANMAX:
    return el->is_signed ? LLVMAtomicRMWBinOpMax : LLVMAtomicRMWBinOpUMax;
  case A_MIN: case A_NANMIN:
    return el->is_signed ? LLVMAtomicRMWBinOpMin : LLVMAtomicRMWBinOpUMin;
  case A_AND: return LLVMAtomicRMWBinOpAnd;
  case A_OR: return LLVMAtomicRMWBinOpOr;
  case A_XOR: return LLVMAtomicRMWBinOpXor;
  /* CUDA's atomicInc/atomicDec are exactly LLVM's wrapping increment and decrement */
  case A_INC: return LLVMAtomicRMWBinOpUIncWrap;
  case A_DEC: return LLVMAtomicRMWBinOpUDecWrap;
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
                                 int id) {
  bool is_max = id == A_MAX || id == A_NANMAX;
  bool nan_missing = id == A_NANMAX || id == A_NANMIN;
  LLVMTypeRef ft = LLVMTypeOf(v), it = el->bits == 32 ? g->i32 : g->i64;
  LLVMValueRef first = LLVMBuildLoad2(g->b, it, p, "cur");
  LLVMSetOrdering(first, LLVMAtomicOrderingMonotonic);
  LLVMSetAlignment(first, (unsigned)(el->bits / 8));
  LLVMValueRef fcur = LLVMBuildBitCast(g->b, first, ft, "");
  LLVMValueRef skip = LLVMBuildFCmp(g->b, LLVMRealUNO, v, nan_missing ? v : fcur, "");
  LLVMBasicBlockRef entry = LLVMGetInsertBlock(g->b);
  LLVMBasicBlockRef test = cg_new_bb(g, "minmax.test"), swap = cg_new_bb(g, "minmax.swap");
  LLVMBasicBlockRef done = cg_new_bb(g, "minmax.done");
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

/* On the CPU one OS thread runs a whole block (its threads as a loop or as fibers that
 * switch only at barriers), so an array only the block sees, a cuda.shared.array or a
 * thread's cuda.local.array, is never updated by two threads at once: a plain
 * read-modify-write does there, at a fraction of a locked one's cost. A view of such an
 * array reached through a device function's parameter is not known to be one and
 * keeps the atomic. */
static bool block_private(const node *arr) {
  const symbol *s = arr->kind == N_NAME ? arr->sym : NULL;
  if (!s || !s->is_shared || !s->value || !s->value->bi) return false;
  int where = s->value->bi->op;
  return where == MEM_SHARED || where == MEM_LOCAL;
}

/* The plain form of the operations that have one here (the float max/min keep their
 * NaN loop); NULL when id is not one. */
static LLVMValueRef plain_rmw(cg_ctx *g, int id, LLVMValueRef p, LLVMValueRef v,
                              const type *el) {
  bool fl = el->kind == TY_FLOAT;
  LLVMTypeRef t = LLVMTypeOf(v);
  LLVMValueRef old = LLVMBuildLoad2(g->b, t, p, "old"), nv;
  switch (id) {
  case A_ADD: nv = fl ? LLVMBuildFAdd(g->b, old, v, "") : LLVMBuildAdd(g->b, old, v, ""); break;
  case A_SUB: nv = fl ? LLVMBuildFSub(g->b, old, v, "") : LLVMBuildSub(g->b, old, v, ""); break;
  case A_AND: nv = LLVMBuildAnd(g->b, old, v, ""); break;
  case A_OR: nv = LLVMBuildOr(g->b, old, v, ""); break;
  case A_XOR: nv = LLVMBuildXor(g->b, old, v, ""); break;
  case A_EXCH: nv = v; break;
  case A_MAX: case A_MIN: {
    if (fl) return NULL;
    LLVMIntPredicate gt = el->is_signed ? LLVMIntSGT : LLVMIntUGT;
    LLVMValueRef v_wins = LLVMBuildICmp(g->b, gt, id == A_MAX ? v : old, id == A_MAX ? old : v, "");
    nv = LLVMBuildSelect(g->b, v_wins, v, old, "");
    break;
  }
  default: return NULL;
  }
  LLVMBuildStore(g->b, nv, p);
  return old;
}

/* An add or sub on an array counted per worker when `priv` holds (host_private.c: the
 * result is unused, and nothing else reads the array): a plain read-modify-write of the
 * worker's copy then, else the atomic. */
static LLVMValueRef private_or_atomic(cg_ctx *g, LLVMValueRef priv, int id, LLVMValueRef p,
                                      LLVMValueRef v, const type *el) {
  LLVMBasicBlockRef plain = cg_new_bb(g, "add.private"), shared = cg_new_bb(g, "add.atomic"),
                    done = cg_new_bb(g, "add.done");
  LLVMBuildCondBr(g->b, priv, plain, shared);
  LLVMPositionBuilderAtEnd(g->b, plain);
  LLVMValueRef old[2] = {plain_rmw(g, id, p, v, el), NULL};
  LLVMBasicBlockRef from[2] = {LLVMGetInsertBlock(g->b), NULL};
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, shared);
  old[1] = LLVMBuildAtomicRMW(g->b, atomic_op(id, el), p, v, LLVMAtomicOrderingMonotonic, 0);
  from[1] = LLVMGetInsertBlock(g->b);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
  LLVMValueRef r = LLVMBuildPhi(g->b, LLVMTypeOf(v), "old");
  LLVMAddIncoming(r, old, from, 2);
  return r;
}

/* cuda.atomic.*(a, idx, v...): relaxed atomics (as CUDA's) returning the old value;
 * real atomics on the CPU too, where blocks run in parallel (but block_private arrays).
 * compare_and_swap works on a[0]. */
static LLVMValueRef cg_atomic(cg_ctx *g, node *e, const builtin *b) {
  int id = b->op;
  node *arr = e->list.items[0];
  bool no_index = id == A_CAS0;
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
  LLVMValueRef p = cg_element_ptr(g, &ix);
  int first = no_index ? 1 : 2;
  LLVMValueRef v = cg_expr_as(g, e->list.items[first], el);
  if (id == A_CAS || id == A_CAS0) {
    LLVMValueRef nv = cg_expr_as(g, e->list.items[first + 1], el);
    LLVMValueRef r = LLVMBuildAtomicCmpXchg(g->b, p, v, nv, LLVMAtomicOrderingMonotonic,
                                            LLVMAtomicOrderingMonotonic, 0);
    return LLVMBuildExtractValue(g->b, r, 0, "");
  }
  if (g->target->host && block_private(arr)) {
    LLVMValueRef old = plain_rmw(g, id, p, v, el);
    if (old) return old;
  }
  LLVMValueRef priv = g->target->host ? cg_host_private_flag(g, arr) : NULL;
  if (priv) return private_or_atomic(g, priv, id, p, v, el);
  bool minmax = id == A_MAX || id == A_MIN || id == A_NANMAX ||
                id == A_NANMIN;
  if (minmax && el->kind == TY_FLOAT) return float_minmax(g, p, v, el, id);
  return LLVMBuildAtomicRMW(g->b, atomic_op(id, el), p, v, LLVMAtomicOrderingMonotonic, 0);
}

const builtin builtins_atomics[] = {
  {.path = "numba.cuda.atomic", .kind = BK_MODULE},
  {.path = "numba.cuda.atomic.add", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0 | BF_ADDS_TO_ARG0, .op = A_ADD, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.sub", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0 | BF_ADDS_TO_ARG0, .op = A_SUB, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.max", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_MAX, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.min", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_MIN, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.nanmax", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_NANMAX, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.nanmin", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_NANMIN, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.exch", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_EXCH, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.and_", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_AND, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.or_", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_OR, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.xor", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_XOR, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.inc", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_INC, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.dec", .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,
   .flags = BF_WRITES_ARG0, .op = A_DEC, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.cas", .kind = BK_FUNCTION, .min_args = 4, .max_args = 4,
   .flags = BF_WRITES_ARG0, .op = A_CAS, .typing = ix_atomic, .lower = cg_atomic},
  {.path = "numba.cuda.atomic.compare_and_swap", .kind = BK_FUNCTION, .min_args = 3,
   .max_args = 3, .flags = BF_WRITES_ARG0, .op = A_CAS0, .typing = ix_atomic,
   .lower = cg_atomic},
  {NULL},
};

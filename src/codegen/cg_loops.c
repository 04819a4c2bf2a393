/*
 * cg_loops.c — LLVM IR for for loops over an iter_plan (loops.h: arrays, rows, tuples,
 * enumerate, zip, reversed(range), range inside those) and for tuples indexed at run
 * time. infer_loops.c typed them.
 *
 * A loop evaluates its iterable once, as Python does (zip's arguments left to right),
 * counts its items (an unsigned i64: zip takes the smallest count), then runs a
 * counter k over [0, count) and assigns item k to the target before each pass, so
 * assigning to the target in the body changes nothing. Items are computed from k: a
 * range's start + k * step, an array's element or row k, a tuple's element k.
 */
#include "cg.h"
#include "loops.h"

typedef struct it_run it_run;
struct it_run {
  LLVMValueRef v;             /* IT_ARRAY, IT_TUPLE: the container's value */
  LLVMValueRef start, step;   /* IT_RANGE: in the range's type */
  LLVMValueRef base;          /* IT_ENUMERATE: the start, i64 */
  LLVMValueRef n;             /* the number of items, i64 read as unsigned */
  it_run *subs;
};

static LLVMValueRef to_i64(cg_ctx *g, LLVMValueRef v, const type *t) {
  return cg_convert(g, v, t, t->kind == TY_INT && !t->is_signed ? &ty_u64 : &ty_i64);
}

/* range(start, stop, step)'s length, as CPython's range computes it; a step of 0 (an
 * error in Python) gives no items, as kcc's range loops do. */
static void open_range(cg_ctx *g, node *r, const type *t, it_run *st) {
  LLVMBuilderRef b = g->b;
  int n = r->list.len;
  LLVMTypeRef lt = cg_scalar_type(g, t);
  st->start = n >= 2 ? cg_expr_as(g, r->list.items[0], t) : LLVMConstNull(lt);
  LLVMValueRef stop = cg_expr_as(g, r->list.items[n >= 2 ? 1 : 0], t);
  st->step = n == 3 ? cg_expr_as(g, r->list.items[2], t) : LLVMConstInt(lt, 1, 0);
  LLVMValueRef lo = to_i64(g, st->start, t), hi = to_i64(g, stop, t);
  LLVMValueRef mag = to_i64(g, st->step, t), zero = ci64(g, 0), one = ci64(g, 1);
  if (t->is_signed) {   /* a negative step counts down: swap the ends */
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, mag, zero, "");
    LLVMValueRef l2 = LLVMBuildSelect(b, neg, hi, lo, ""), h2 = LLVMBuildSelect(b, neg, lo, hi, "");
    lo = l2, hi = h2;
    mag = LLVMBuildSelect(b, neg, LLVMBuildNeg(b, mag, ""), mag, "");
  }
  LLVMValueRef nonempty = LLVMBuildICmp(b, t->is_signed ? LLVMIntSGT : LLVMIntUGT, hi, lo, "");
  LLVMValueRef zstep = LLVMBuildICmp(b, LLVMIntEQ, mag, zero, "");
  nonempty = LLVMBuildAnd(b, nonempty, LLVMBuildNot(b, zstep, ""), "");
  mag = LLVMBuildSelect(b, zstep, one, mag, "");
  /* hi - lo is exact as an unsigned number once hi > lo */
  LLVMValueRef cnt = LLVMBuildAdd(b, LLVMBuildUDiv(b, LLVMBuildSub(b, LLVMBuildSub(b, hi, lo, ""),
                                                                   one, ""), mag, ""), one, "");
  st->n = LLVMBuildSelect(b, nonempty, cnt, zero, "range.len");
}

static LLVMValueRef umin(cg_ctx *g, LLVMValueRef a, LLVMValueRef b) {
  return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntULT, a, b, ""), a, b, "");
}

/* Evaluate the iterable of p once: its values and its length. */
static it_run *open_iter(cg_ctx *g, iter_plan *p) {
  it_run *st = arena_alloc(g->ar, sizeof *st);
  if (p->nsubs) st->subs = arena_alloc(g->ar, sizeof *st->subs * (size_t)p->nsubs);
  for (int i = 0; i < p->nsubs; i++) {
    it_run *s = open_iter(g, p->subs[i]);
    st->subs[i] = *s;
    st->n = i == 0 ? s->n : umin(g, st->n, s->n);
  }
  switch (p->kind) {
  case IT_RANGE: open_range(g, p->e, p->yield, st); break;
  case IT_ARRAY:
    st->v = cg_expr(g, p->e);
    st->n = cg_array_extent(g, st->v, 0);
    break;
  case IT_TUPLE:
    st->v = cg_expr(g, p->e);
    st->n = ci64(g, p->e->ty->nelems);
    break;
  case IT_ENUMERATE:
    st->base = p->start ? to_i64(g, cg_expr(g, p->start), p->start->ty) : ci64(g, 0);
    break;
  case IT_REVERSED: case IT_ZIP: break;
  }
  return st;
}

/* Element i of tuple value tup (of type tt, elements of one type) for an i64 index
 * known only at run time; 0 when i is none of 0 .. n-1. Selects rather than memory:
 * nothing goes to local memory on the GPU, and a constant i folds to the element. */
static LLVMValueRef tuple_select(cg_ctx *g, LLVMValueRef tup, const type *tt, LLVMValueRef i) {
  LLVMValueRef v = LLVMConstNull(cg_type(g, tt->elems[0]));
  for (int k = tt->nelems - 1; k >= 0; k--) {
    LLVMValueRef hit = LLVMBuildICmp(g->b, LLVMIntEQ, i, ci64(g, k), "");
    v = LLVMBuildSelect(g->b, hit, LLVMBuildExtractValue(g->b, tup, (unsigned)k, ""), v, "");
  }
  return v;
}

/* Row or element k of array value arr (type at): the element (a record's address), or
 * a view of one dimension fewer (type rt) laid out as the array is. */
static LLVMValueRef array_item(cg_ctx *g, LLVMValueRef arr, const type *at, const type *rt,
                               LLVMValueRef k) {
  LLVMValueRef off = LLVMBuildMul(g->b, k, cg_array_stride(g, arr, at, 0), "");
  LLVMValueRef p = LLVMBuildInBoundsGEP2(g->b, cg_mem_type(g, at->elem),
                                         LLVMBuildExtractValue(g->b, arr, 0, "data"), &off, 1, "");
  if (at->ndim == 1 && at->elem->kind == TY_RECORD)
    return p;   /* a record element is a reference to it, as a[i] is (cg_records.c) */
  if (at->ndim == 1) {
    LLVMValueRef v = LLVMBuildLoad2(g->b, cg_mem_type(g, at->elem), p, "");
    return at->elem->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "") : v;
  }
  LLVMValueRef v = LLVMBuildInsertValue(g->b, LLVMGetUndef(cg_type(g, rt)), p, 0, "");
  for (int j = 0; j < rt->ndim; j++) {
    v = LLVMBuildInsertValue(g->b, v, cg_array_extent(g, arr, j + 1), (unsigned)(1 + j), "");
    if (rt->strided)
      v = LLVMBuildInsertValue(g->b, v, cg_array_stride(g, arr, at, j + 1),
                               (unsigned)(1 + rt->ndim + j), "");
  }
  return v;
}

/* Item k (i64, below the length) of an opened iterable. */
static LLVMValueRef iter_item(cg_ctx *g, iter_plan *p, it_run *st, LLVMValueRef k) {
  switch (p->kind) {
  case IT_RANGE: {
    LLVMValueRef kk = cg_convert(g, k, &ty_i64, p->yield);
    return LLVMBuildAdd(g->b, st->start, LLVMBuildMul(g->b, kk, st->step, ""), "");
  }
  case IT_REVERSED: {
    LLVMValueRef last = LLVMBuildSub(g->b, LLVMBuildSub(g->b, st->n, ci64(g, 1), ""), k, "");
    return iter_item(g, p->subs[0], &st->subs[0], last);
  }
  case IT_ARRAY: return array_item(g, st->v, p->e->ty, p->yield, k);
  case IT_TUPLE: return tuple_select(g, st->v, p->e->ty, k);
  case IT_ENUMERATE: case IT_ZIP: {
    LLVMValueRef v = LLVMGetUndef(cg_type(g, p->yield));
    int at = 0;
    if (p->kind == IT_ENUMERATE) v = LLVMBuildInsertValue(g->b, v, LLVMBuildAdd(g->b, st->base, k, ""), (unsigned)at++, "");
    for (int i = 0; i < p->nsubs; i++)
      v = LLVMBuildInsertValue(g->b, v, iter_item(g, p->subs[i], &st->subs[i], k), (unsigned)at++, "");
    return v;
  }
  }
  return NULL;
}

void cg_for_iter(cg_ctx *g, node *s) {
  iter_plan *p = s->aux_ptr;
  it_run *st = open_iter(g, p);
  LLVMValueRef ctr = cg_entry_alloca(g, g->i64, "for.k");
  LLVMBuildStore(g->b, ci64(g, 0), ctr);
  LLVMBasicBlockRef cond = cg_new_bb(g, "for.cond"), body = cg_new_bb(g, "for.body"),
                    inc = cg_new_bb(g, "for.inc"), els = cg_new_bb(g, "for.else"),
                    done = cg_new_bb(g, "for.end");
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, cond);
  LLVMValueRef k = LLVMBuildLoad2(g->b, g->i64, ctr, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, k, st->n, ""), body, els);
  LLVMPositionBuilderAtEnd(g->b, body);
  cg_store_target(g, s->a, iter_item(g, p, st, k), p->yield);
  cg_loop_block(g, &s->body, done, inc);
  LLVMPositionBuilderAtEnd(g->b, inc);
  cg_loop_check(g, s, st->n);
  LLVMValueRef cur = LLVMBuildLoad2(g->b, g->i64, ctr, "");
  LLVMBuildStore(g->b, LLVMBuildNUWAdd(g->b, cur, ci64(g, 1), ""), ctr);
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, els);
  cg_else_block(g, &s->orelse, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* With --bounds-check, an index outside the tuple is reported as an array's would be
 * (the tuple's length as the shape), then reads 0. */
static void check_tuple_index(cg_ctx *g, node *e, LLVMValueRef raw, LLVMValueRef i, bool uns) {
  const type *tt = e->a->ty;
  LLVMValueRef bad = LLVMBuildICmp(g->b, LLVMIntUGE, i, ci64(g, tt->nelems), "");
  LLVMBasicBlockRef fail = cg_new_bb(g, "tuple.bad"), ok = cg_new_bb(g, "tuple.ok");
  LLVMBuildCondBr(g->b, bad, fail, ok);
  LLVMPositionBuilderAtEnd(g->b, fail);
  LLVMValueRef shape = LLVMGetUndef(cg_array_struct(g, 1));
  shape = LLVMBuildInsertValue(g->b, shape, LLVMConstNull(g->ptr), 0, "");
  shape = LLVMBuildInsertValue(g->b, shape, ci64(g, tt->nelems), 1, "");
  cg_bounds_report(g, e, type_array(g->ar, tt->elems[0], 1), shape, ci32(g, 0), raw,
                   ci32(g, uns));
  LLVMBuildBr(g->b, ok);
  LLVMPositionBuilderAtEnd(g->b, ok);
}

/* Above this many elements a tuple indexed at run time is read from memory: a chain of
 * selects is n instructions a read (1,000 reads of a 1,000-element tuple took 28 s to
 * compile), and nvcc keeps a dynamically indexed array that big in local memory too. */
enum { TUPLE_SELECT_MAX = 16 };

/* The slot of local variable e when e is one (a tuple's storage), else NULL. Its type
 * is compared as kcc's, not by building the LLVM type, which is as long as the tuple. */
static LLVMValueRef local_slot(node *e) {
  symbol *s = e->kind == N_NAME ? e->sym : NULL;
  if (s && s->kind == SYM_LOCAL && s->cg && LLVMIsAAllocaInst(s->cg) && s->ty &&
      type_equal(s->ty, e->ty))
    return s->cg;
  return NULL;
}

/* The address of tuple e's storage, for a tuple big enough to be read from memory: a
 * local variable's own slot, else a copy of the value in an entry slot. */
static LLVMValueRef tuple_in_memory(cg_ctx *g, node *e) {
  LLVMValueRef slot = local_slot(e);
  if (slot) return slot;
  slot = cg_entry_alloca(g, cg_type(g, e->ty), "tuple");
  LLVMBuildStore(g->b, cg_expr(g, e), slot);
  return slot;
}

/* Element i (in range) of the big tuple at p: its elements are of one type, so the
 * tuple's layout is that of an array of them. */
static LLVMValueRef tuple_load(cg_ctx *g, LLVMValueRef p, const type *tt, LLVMValueRef i) {
  LLVMTypeRef et = cg_type(g, tt->elems[0]);
  return LLVMBuildLoad2(g->b, et, LLVMBuildInBoundsGEP2(g->b, et, p, &i, 1, ""), "");
}

/* t[j]: a negative j counts from the end, as in Python and Numba's getitem_unituple.
 * Out of range, Numba raises IndexError, which a kernel compiled without debug=True
 * never reports; kcc gives 0 there (and reports it with --bounds-check), and in a debug
 * kernel raises IndexError as Numba does. */
LLVMValueRef cg_tuple_index(cg_ctx *g, node *e) {
  const type *tt = e->a->ty, *it = e->b->ty;
  bool big = tt->nelems > TUPLE_SELECT_MAX;
  if (e->aux != TUPLE_INDEX_DYNAMIC) {   /* t[2]: one element, never the whole value */
    LLVMValueRef slot = big ? local_slot(e->a) : NULL;
    if (!slot) return LLVMBuildExtractValue(g->b, cg_expr(g, e->a), (unsigned)e->aux, "");
    LLVMValueRef p = LLVMBuildStructGEP2(g->b, LLVMGetAllocatedType(slot), slot,
                                         (unsigned)e->aux, "");
    return LLVMBuildLoad2(g->b, cg_type(g, tt->elems[e->aux]), p, "");
  }
  LLVMValueRef tup = big ? tuple_in_memory(g, e->a) : cg_expr(g, e->a);
  bool uns = it->kind == TY_BOOL || !it->is_signed;
  LLVMValueRef raw = to_i64(g, cg_expr(g, e->b), it);
  LLVMValueRef i = raw;
  if (!uns) {
    LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, raw, ci64(g, 0), "");
    i = LLVMBuildSelect(g->b, neg, LLVMBuildAdd(g->b, raw, ci64(g, tt->nelems), ""), raw, "");
  }
  if (g->opts->bounds_check)   /* reported with the tuple's length, as an array's index */
    check_tuple_index(g, e, raw, i, uns);
  else if (g->fi && g->fi->debug)   /* as Numba's debug kernels raise it */
    cg_check_tuple_index(g, e->sp, LLVMBuildICmp(g->b, LLVMIntUGE, i, ci64(g, tt->nelems), ""));
  if (!big) return tuple_select(g, tup, tt, i);
  /* out of range reads 0, as the selects give: clamp the address, then choose */
  LLVMValueRef in = LLVMBuildICmp(g->b, LLVMIntULT, i, ci64(g, tt->nelems), "");
  LLVMValueRef v = tuple_load(g, tup, tt, LLVMBuildSelect(g->b, in, i, ci64(g, 0), ""));
  return LLVMBuildSelect(g->b, in, v, LLVMConstNull(LLVMTypeOf(v)), "");
}

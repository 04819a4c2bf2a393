/*
 * cg_slices.c — assignment to a view: a[i, 1:3] = v, a[:] = 0, a[1:] = b[:-1]. The
 * value is a scalar, stored to every element, or an array, broadcast onto the view as
 * NumPy broadcasts (its axes line up with the view's last ones; an extent of 1 repeats)
 * and copied element by element, converted to the view's dtype.
 *
 * Extents that do not broadcast: nothing is stored (cg_elementwise.c, which holds the
 * loops and the broadcasting this file shares with ufuncs on arrays).
 *
 * Source and destination may overlap (a[1:] = a[:-1]): NumPy copies as if through a
 * temporary. A kernel cannot allocate one, so when the two memory ranges meet the copy
 * walks each axis in the direction that reads every element before it is overwritten,
 * as memmove does. That is exact when both views step through memory alike (the same
 * strides: shifted windows of one array, the common case); overlapping views with
 * different strides (a[::-1] = a) are copied in order and may read elements already
 * written, which docs/language.md says.
 */
#include "cg.h"

typedef struct slice_copy {
  cg_loop_nest loops;        /* first: the loop body gets it back as a slice_copy */
  const type *dt, *st;       /* the view's type; the source's (a scalar type: broadcast) */
  LLVMValueRef ddata, sdata; /* sdata: the scalar value itself when st is a scalar */
  LLVMValueRef *dstr, *sstr; /* per view axis: strides in elements */
} slice_copy;

static void copy_one(cg_ctx *g, cg_loop_nest *n) {
  slice_copy *c = (slice_copy *)n;
  const type *del = c->dt->elem;
  LLVMValueRef v = c->sdata;
  const type *from = c->st;
  if (c->st->kind == TY_ARRAY) {
    from = c->st->elem;
    v = LLVMBuildLoad2(g->b, cg_mem_type(g, from),
                       cg_strided_elem_ptr(g, from, c->sdata, n->idx, c->sstr, n->nd), "");
    if (from->kind == TY_BOOL) v = LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "");
  }
  v = cg_convert(g, v, from, del);
  if (del->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, g->i8, "");
  LLVMBuildStore(g->b, v, cg_strided_elem_ptr(g, del, c->ddata, n->idx, c->dstr, n->nd));
}

/* The byte range [lo, hi) a view spans (empty views give lo == hi or are never walked). */
static void byte_range(cg_ctx *g, LLVMValueRef data, const type *el, LLVMValueRef *ext,
                       LLVMValueRef *str, int nd, LLVMValueRef *lo, LLVMValueRef *hi) {
  LLVMBuilderRef b = g->b;
  LLVMValueRef size = ci64(g, el->kind == TY_BOOL ? 1 : el->bits / 8), zero = ci64(g, 0);
  LLVMValueRef base = LLVMBuildPtrToInt(b, data, g->i64, ""), down = zero, up = zero;
  for (int k = 0; k < nd; k++) {
    LLVMValueRef far = LLVMBuildMul(b, LLVMBuildSub(b, ext[k], ci64(g, 1), ""), str[k], "");
    LLVMValueRef neg = LLVMBuildICmp(b, LLVMIntSLT, far, zero, "");
    down = LLVMBuildAdd(b, down, LLVMBuildSelect(b, neg, far, zero, ""), "");
    up = LLVMBuildAdd(b, up, LLVMBuildSelect(b, neg, zero, far, ""), "");
  }
  *lo = LLVMBuildAdd(b, base, LLVMBuildMul(b, down, size, ""), "");
  *hi = LLVMBuildAdd(b, base, LLVMBuildAdd(b, LLVMBuildMul(b, up, size, ""), size, ""), "");
}

/* When the source's memory meets the view's, each axis walks in the direction that
 * reads before it writes: backwards where the source lies behind the view (d < 0) and
 * the axis steps forward through memory, or the source lies ahead and it steps back. */
static void choose_directions(cg_ctx *g, slice_copy *c, LLVMValueRef *sext) {
  LLVMBuilderRef b = g->b;
  int snd = c->st->ndim;
  LLVMValueRef dlo, dhi, slo, shi;
  byte_range(g, c->ddata, c->dt->elem, c->loops.ext, c->dstr, c->loops.nd, &dlo, &dhi);
  byte_range(g, c->sdata, c->st->elem, sext, c->sstr + (c->loops.nd - snd), snd, &slo, &shi);
  LLVMValueRef meet = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, dlo, shi, ""),
                                   LLVMBuildICmp(b, LLVMIntULT, slo, dhi, ""), "overlap");
  LLVMValueRef ahead = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildPtrToInt(b, c->sdata, g->i64, ""),
                                     LLVMBuildPtrToInt(b, c->ddata, g->i64, ""), "");
  c->loops.back = arena_alloc(g->ar, sizeof *c->loops.back * (size_t)c->loops.nd);
  for (int k = 0; k < c->loops.nd; k++) {
    LLVMValueRef fwd = LLVMBuildICmp(b, LLVMIntSGE, c->dstr[k], ci64(g, 0), "");
    LLVMValueRef against = LLVMBuildICmp(b, LLVMIntNE, fwd, ahead, "");
    c->loops.back[k] = LLVMBuildAnd(b, meet, against, "");
  }
}

void cg_store_slice(cg_ctx *g, node *t, LLVMValueRef v, const type *vt) {
  LLVMValueRef dst = cg_expr(g, t);
  slice_copy c = {0};
  c.dt = t->ty;
  c.st = vt;
  int nd = c.loops.nd = c.dt->ndim;
  c.loops.body = copy_one;
  size_t sz = sizeof(LLVMValueRef) * (size_t)nd;
  c.loops.ext = arena_alloc(g->ar, sz), c.dstr = arena_alloc(g->ar, sz);
  c.sstr = arena_alloc(g->ar, sz);
  LLVMValueRef *sext = arena_alloc(g->ar, sz);
  c.ddata = LLVMBuildExtractValue(g->b, dst, 0, "data");
  for (int k = 0; k < nd; k++) {
    c.loops.ext[k] = cg_array_extent(g, dst, k);
    c.dstr[k] = cg_array_stride(g, dst, c.dt, k);
  }
  if (vt->kind != TY_ARRAY) {   /* a scalar: stored everywhere */
    c.sdata = v;
    cg_loop_nest_build(g, &c.loops);
    return;
  }
  c.sdata = LLVMBuildExtractValue(g->b, v, 0, "data");
  cg_broadcast bc;
  cg_broadcast_init(g, &bc);
  cg_broadcast_source(g, &bc, nd, c.loops.ext, v, vt, c.sstr, sext);
  LLVMValueRef ok = cg_broadcast_check(g, &bc, t->sp, nd, c.loops.ext);
  LLVMBasicBlockRef copy = cg_new_bb(g, "slice.copy"), done = cg_new_bb(g, "slice.end");
  LLVMBuildCondBr(g->b, ok, copy, done);
  LLVMPositionBuilderAtEnd(g->b, copy);
  choose_directions(g, &c, sext);
  cg_loop_nest_build(g, &c.loops);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

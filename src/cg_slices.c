/*
 * cg_slices.c — assignment to a view: a[i, 1:3] = v, a[:] = 0, a[1:] = b[:-1]. The
 * value is a scalar, stored to every element, or an array, broadcast onto the view as
 * NumPy broadcasts (its axes line up with the view's last ones; an extent of 1 repeats)
 * and copied element by element, converted to the view's dtype.
 *
 * Extents that do not broadcast: NumPy and Numba raise ValueError; here nothing is
 * stored, and a bounds-checked kernel (kcc_options.bounds_check) reports it as its
 * error record's "shape mismatch" (host_abi.h), a KC_ERR_BOUNDS at launch.
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
#include "host_abi.h"

typedef struct slice_copy {
  const type *dt, *st;       /* the view's type; the source's (a scalar type: broadcast) */
  int nd;
  LLVMValueRef ddata, sdata; /* sdata: the scalar value itself when st is a scalar */
  LLVMValueRef *ext, *dstr, *sstr;   /* per view axis: extent, strides in elements */
  LLVMValueRef *back;        /* per view axis: i1, walk it from the end */
  LLVMValueRef *idx;         /* per view axis: the loop's index, while building */
} slice_copy;

/* The element of data at sum(idx[k] * str[k]). */
static LLVMValueRef elem_ptr(cg_ctx *g, const type *el, LLVMValueRef data, LLVMValueRef *idx,
                             LLVMValueRef *str, int nd) {
  LLVMValueRef off = ci64(g, 0);
  for (int k = 0; k < nd; k++) off = LLVMBuildAdd(g->b, off, LLVMBuildMul(g->b, idx[k], str[k], ""), "");
  return LLVMBuildGEP2(g->b, cg_mem_type(g, el), data, &off, 1, "");
}

static void copy_one(cg_ctx *g, slice_copy *c) {
  const type *del = c->dt->elem;
  LLVMValueRef v = c->sdata;
  const type *from = c->st;
  if (c->st->kind == TY_ARRAY) {
    from = c->st->elem;
    v = LLVMBuildLoad2(g->b, cg_mem_type(g, from), elem_ptr(g, from, c->sdata, c->idx, c->sstr, c->nd), "");
    if (from->kind == TY_BOOL) v = LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(g->i8, 0, 0), "");
  }
  v = cg_convert(g, v, from, del);
  if (del->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, g->i8, "");
  LLVMBuildStore(g->b, v, elem_ptr(g, del, c->ddata, c->idx, c->dstr, c->nd));
}

/* for n in range(ext[k]): idx[k] = back[k] ? ext[k] - 1 - n : n; then the next axis. */
static void copy_loops(cg_ctx *g, slice_copy *c, int k) {
  if (k == c->nd) {
    copy_one(g, c);
    return;
  }
  LLVMValueRef ctr = cg_entry_alloca(g, g->i64, "slice.n");
  LLVMBuildStore(g->b, ci64(g, 0), ctr);
  LLVMBasicBlockRef head = cg_new_bb(g, "slice.head"), body = cg_new_bb(g, "slice.body"),
                    done = cg_new_bb(g, "slice.done");
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, head);
  LLVMValueRef n = LLVMBuildLoad2(g->b, g->i64, ctr, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, n, c->ext[k], ""), body, done);
  LLVMPositionBuilderAtEnd(g->b, body);
  LLVMValueRef rev = LLVMBuildSub(g->b, LLVMBuildSub(g->b, c->ext[k], ci64(g, 1), ""), n, "");
  c->idx[k] = c->back ? LLVMBuildSelect(g->b, c->back[k], rev, n, "") : n;
  copy_loops(g, c, k + 1);
  LLVMBuildStore(g->b, LLVMBuildAdd(g->b, n, ci64(g, 1), ""), ctr);
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, done);
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
  byte_range(g, c->ddata, c->dt->elem, c->ext, c->dstr, c->nd, &dlo, &dhi);
  byte_range(g, c->sdata, c->st->elem, sext, c->sstr + (c->nd - snd), snd, &slo, &shi);
  LLVMValueRef meet = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, dlo, shi, ""),
                                   LLVMBuildICmp(b, LLVMIntULT, slo, dhi, ""), "overlap");
  LLVMValueRef ahead = LLVMBuildICmp(b, LLVMIntUGT, LLVMBuildPtrToInt(b, c->sdata, g->i64, ""),
                                     LLVMBuildPtrToInt(b, c->ddata, g->i64, ""), "");
  c->back = arena_alloc(g->ar, sizeof *c->back * (size_t)c->nd);
  for (int k = 0; k < c->nd; k++) {
    LLVMValueRef fwd = LLVMBuildICmp(b, LLVMIntSGE, c->dstr[k], ci64(g, 0), "");
    LLVMValueRef against = LLVMBuildICmp(b, LLVMIntNE, fwd, ahead, "");
    c->back[k] = LLVMBuildAnd(b, meet, against, "");
  }
}

/* Record a shape mismatch in the error record (bounds-checked kernels only): axis k of
 * the view has extent ext, the source's extent there is got. */
static void report_mismatch(cg_ctx *g, node *t, int nd, LLVMValueRef axis, LLVMValueRef got,
                            LLVMValueRef *ext) {
  LLVMBasicBlockRef done;
  LLVMValueRef rec = cg_error_claim(g, t->sp, &done);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_AXIS, axis);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_NDIM, ci32(g, nd));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_UNSIGNED, ci32(g, KC_KERNEL_ERROR_SHAPE_MISMATCH));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_INDEX, got);
  for (int k = 0; k < nd; k++) cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_SHAPE + 8 * k, ext[k]);
  cg_error_done(g, done);
}

/* The source's strides on the view's axes (0 where it broadcasts), and whether its
 * extents broadcast onto the view's; a mismatch is reported when checking. */
static LLVMValueRef source_layout(cg_ctx *g, node *t, slice_copy *c, LLVMValueRef src,
                                  LLVMValueRef *sext) {
  LLVMBuilderRef b = g->b;
  int snd = c->st->ndim, lead = c->nd - snd;
  LLVMValueRef ok = LLVMConstInt(g->i1, 1, 0), axis = ci32(g, 0), got = ci64(g, 0);
  for (int k = 0; k < c->nd; k++) {
    if (k < lead) {
      c->sstr[k] = ci64(g, 0);
      continue;
    }
    LLVMValueRef n = cg_array_extent(g, src, k - lead), one = LLVMBuildICmp(b, LLVMIntEQ, n, ci64(g, 1), "");
    sext[k - lead] = n;
    c->sstr[k] = LLVMBuildSelect(b, one, ci64(g, 0), cg_array_stride(g, src, c->st, k - lead), "");
    LLVMValueRef fits = LLVMBuildOr(b, one, LLVMBuildICmp(b, LLVMIntEQ, n, c->ext[k], ""), "");
    /* the first axis that does not fit is the one reported */
    LLVMValueRef first = LLVMBuildAnd(b, ok, LLVMBuildNot(b, fits, ""), "");
    axis = LLVMBuildSelect(b, first, ci32(g, k), axis, "");
    got = LLVMBuildSelect(b, first, n, got, "");
    ok = LLVMBuildAnd(b, ok, fits, "");
  }
  if (g->opts->bounds_check) {
    LLVMBasicBlockRef bad = cg_new_bb(g, "mismatch"), go = cg_new_bb(g, "mismatch.ok");
    LLVMBuildCondBr(b, ok, go, bad);
    LLVMPositionBuilderAtEnd(b, bad);
    report_mismatch(g, t, c->nd, axis, got, c->ext);
    LLVMBuildBr(b, go);
    LLVMPositionBuilderAtEnd(b, go);
  }
  return ok;
}

void cg_store_slice(cg_ctx *g, node *t, LLVMValueRef v, const type *vt) {
  LLVMValueRef dst = cg_expr(g, t);
  slice_copy c = {0};
  c.dt = t->ty;
  c.st = vt;
  c.nd = c.dt->ndim;
  size_t sz = sizeof(LLVMValueRef) * (size_t)c.nd;
  c.ext = arena_alloc(g->ar, sz), c.dstr = arena_alloc(g->ar, sz);
  c.sstr = arena_alloc(g->ar, sz), c.idx = arena_alloc(g->ar, sz);
  LLVMValueRef *sext = arena_alloc(g->ar, sz);
  c.ddata = LLVMBuildExtractValue(g->b, dst, 0, "data");
  for (int k = 0; k < c.nd; k++) {
    c.ext[k] = cg_array_extent(g, dst, k);
    c.dstr[k] = cg_array_stride(g, dst, c.dt, k);
  }
  if (vt->kind != TY_ARRAY) {   /* a scalar: stored everywhere */
    c.sdata = v;
    copy_loops(g, &c, 0);
    return;
  }
  c.sdata = LLVMBuildExtractValue(g->b, v, 0, "data");
  LLVMValueRef ok = source_layout(g, t, &c, v, sext);
  LLVMBasicBlockRef copy = cg_new_bb(g, "slice.copy"), done = cg_new_bb(g, "slice.end");
  LLVMBuildCondBr(g->b, ok, copy, done);
  LLVMPositionBuilderAtEnd(g->b, copy);
  choose_directions(g, &c, sext);
  copy_loops(g, &c, 0);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

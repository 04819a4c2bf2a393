/*
 * cg_elementwise.c — the loops that walk every element of an array, shared by the
 * stores to a view (cg_slices.c: a[1:] = b) and by NumPy ufuncs on arrays
 * (builtins/numpy.c: np.sin(a, out)): a loop nest over the destination's extents with a
 * callback for each element, and NumPy's broadcasting of a source onto those extents
 * (its axes line up with the destination's last ones; an extent of 1 repeats).
 *
 * Extents that do not broadcast: NumPy and Numba raise ValueError; the callers store
 * nothing, and a bounds-checked kernel (kcc_options.bounds_check) reports the first
 * mismatch as its error record's "shape mismatch" (host_abi.h), a KC_ERR_BOUNDS at
 * launch.
 */
#include "cg.h"
#include "host_abi.h"

LLVMValueRef cg_strided_elem_ptr(cg_ctx *g, const type *el, LLVMValueRef data, LLVMValueRef *idx,
                                 LLVMValueRef *str, int nd) {
  LLVMValueRef off = ci64(g, 0);
  for (int k = 0; k < nd; k++) off = LLVMBuildAdd(g->b, off, LLVMBuildMul(g->b, idx[k], str[k], ""), "");
  return LLVMBuildGEP2(g->b, cg_mem_type(g, el), data, &off, 1, "");
}

/* for n in range(ext[k]): idx[k] = back[k] ? ext[k] - 1 - n : n; then the next axis. */
static void loops_from(cg_ctx *g, cg_loop_nest *n, int k) {
  if (k == n->nd) {
    n->body(g, n);
    return;
  }
  LLVMValueRef ctr = cg_entry_alloca(g, g->i64, "elt.n");
  LLVMBuildStore(g->b, ci64(g, 0), ctr);
  LLVMBasicBlockRef head = cg_new_bb(g, "elt.head"), body = cg_new_bb(g, "elt.body"),
                    done = cg_new_bb(g, "elt.done");
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, head);
  LLVMValueRef i = LLVMBuildLoad2(g->b, g->i64, ctr, "");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, i, n->ext[k], ""), body, done);
  LLVMPositionBuilderAtEnd(g->b, body);
  LLVMValueRef rev = LLVMBuildSub(g->b, LLVMBuildSub(g->b, n->ext[k], ci64(g, 1), ""), i, "");
  n->idx[k] = n->back ? LLVMBuildSelect(g->b, n->back[k], rev, i, "") : i;
  loops_from(g, n, k + 1);
  LLVMBuildStore(g->b, LLVMBuildAdd(g->b, i, ci64(g, 1), ""), ctr);
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, done);
}

void cg_loop_nest_build(cg_ctx *g, cg_loop_nest *n) {
  if (!n->idx) n->idx = arena_alloc(g->ar, sizeof *n->idx * (size_t)(n->nd ? n->nd : 1));
  loops_from(g, n, 0);
}

void cg_broadcast_init(cg_ctx *g, cg_broadcast *bc) {
  bc->ok = LLVMConstInt(g->i1, 1, 0);
  bc->axis = ci32(g, 0);
  bc->got = ci64(g, 0);
}

void cg_broadcast_source(cg_ctx *g, cg_broadcast *bc, int nd, LLVMValueRef *ext, LLVMValueRef src,
                         const type *st, LLVMValueRef *sstr, LLVMValueRef *sext) {
  LLVMBuilderRef b = g->b;
  int lead = nd - st->ndim;
  for (int k = 0; k < nd; k++) {
    if (k < lead) {
      sstr[k] = ci64(g, 0);
      continue;
    }
    LLVMValueRef n = cg_array_extent(g, src, k - lead), one = LLVMBuildICmp(b, LLVMIntEQ, n, ci64(g, 1), "");
    if (sext) sext[k - lead] = n;
    sstr[k] = LLVMBuildSelect(b, one, ci64(g, 0), cg_array_stride(g, src, st, k - lead), "");
    LLVMValueRef fits = LLVMBuildOr(b, one, LLVMBuildICmp(b, LLVMIntEQ, n, ext[k], ""), "");
    /* the first axis that does not fit is the one reported */
    LLVMValueRef first = LLVMBuildAnd(b, bc->ok, LLVMBuildNot(b, fits, ""), "");
    bc->axis = LLVMBuildSelect(b, first, ci32(g, k), bc->axis, "");
    bc->got = LLVMBuildSelect(b, first, n, bc->got, "");
    bc->ok = LLVMBuildAnd(b, bc->ok, fits, "");
  }
}

/* Record a shape mismatch in the error record: axis of the destination has the extent
 * ext[axis], the source's extent there is got. */
static void report_mismatch(cg_ctx *g, span sp, int nd, cg_broadcast *bc, LLVMValueRef *ext) {
  LLVMBasicBlockRef done;
  LLVMValueRef rec = cg_error_claim(g, sp, &done);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_AXIS, bc->axis);
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_NDIM, ci32(g, nd));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_UNSIGNED, ci32(g, KC_KERNEL_ERROR_SHAPE_MISMATCH));
  cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_INDEX, bc->got);
  for (int k = 0; k < nd; k++) cg_error_field(g, rec, KC_KERNEL_ERROR_OFF_SHAPE + 8 * k, ext[k]);
  cg_error_done(g, done);
}

LLVMValueRef cg_broadcast_check(cg_ctx *g, cg_broadcast *bc, span sp, int nd, LLVMValueRef *ext) {
  if (g->opts->bounds_check) {
    LLVMBasicBlockRef bad = cg_new_bb(g, "mismatch"), go = cg_new_bb(g, "mismatch.ok");
    LLVMBuildCondBr(g->b, bc->ok, go, bad);
    LLVMPositionBuilderAtEnd(g->b, bad);
    report_mismatch(g, sp, nd, bc, ext);
    LLVMBuildBr(g->b, go);
    LLVMPositionBuilderAtEnd(g->b, go);
  }
  return bc->ok;
}

/*
 * vectors.c — CUDA vector types in kernels, as numba-cuda has them:
 * constructors (`float32x4(1, 2, 3, 4)`, and from smaller vectors of the same base
 * type, `float32x4(float32x2(a, b), c, d)`: numba-cuda's overloads are every way of
 * splitting the count into parts, each a number or a vector of that many elements),
 * and the fields .x .y .z .w, read-only (typed with record fields, infer_records.c, and
 * lowered in codegen.c's cg_attr). A vector is a value (an LLVM struct of its
 * elements, numba-cuda's StructModel): locals, tuples, device function arguments and
 * results. The names are vector_types.c's (the front end).
 */
#include "cg.h"
#include "typing.h"
#include "vector_types.h"

/* One argument: how many of the vector's elements it gives (0 after an error). */
static int ctor_part(infer_ctx *ic, node *a, const type *vt) {
  const type *t = a->ty;
  if (t->kind == TY_VECTOR && type_equal(t->elem, vt->elem)) return t->nelems;
  if (type_is_real(t)) return 1;
  ix_error(ic, a->sp, "%s takes numbers and %s vectors, not %s", ix_tname(ic, vt),
       ix_tname(ic, vt->elem), ix_tname(ic, t));
  return 0;
}

static const type *ix_vector_ctor(infer_ctx *ic, node *e, const builtin *b) {
  (void)b;
  const type *vt = vec_type_from_path(ix_dotted_path(ic, e->a));
  if (!ix_check_argc(ic, e, ix_tname(ic, vt), 1, vt->nelems) || !ix_args(ic, e)) return NULL;
  int n = 0;
  for (int i = 0; i < e->list.len; i++) {
    int k = ctor_part(ic, e->list.items[i], vt);
    if (!k) return NULL;
    n += k;
  }
  if (n != vt->nelems) {
    ix_error(ic, e->sp, "%s needs %d elements, these arguments give %d", ix_tname(ic, vt),
         vt->nelems, n);
    return NULL;
  }
  return ix_set_type(e, vt, false);
}

static LLVMValueRef cg_vector_ctor(cg_ctx *g, node *e, const builtin *b) {
  (void)b;
  const type *vt = e->ty;
  LLVMValueRef v = LLVMGetUndef(cg_type(g, vt));
  unsigned at = 0;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (a->ty->kind != TY_VECTOR) {
      v = LLVMBuildInsertValue(g->b, v, cg_expr_as(g, a, vt->elem), at++, "");
      continue;
    }
    LLVMValueRef part = cg_expr(g, a);
    for (int k = 0; k < a->ty->nelems; k++)
      v = LLVMBuildInsertValue(g->b, v, LLVMBuildExtractValue(g->b, part, (unsigned)k, ""), at++, "");
  }
  return v;
}

/* The constructor of every vector type: ix_call finds it by the callee's path. */
const builtin builtin_vector_ctor = {
  .path = "<vector>", .kind = BK_FUNCTION, .max_args = -1, .typing = ix_vector_ctor,
  .lower = cg_vector_ctor,
};

/*
 * cg_consts.c — module arrays in code generation: a folded constant (a nested tuple of
 * numbers: np.array(...) at module level, or the tuple cuda.const.array_like copies) as
 * a constant global array, addrspace(4) on the GPU, made once per name per module.
 */
#include "cg.h"

/* One element of a module constant as an LLVM constant of memory type el. */
static LLVMValueRef const_element(cg_ctx *g, const node *v, const type *el) {
  LLVMTypeRef mt = cg_mem_type(g, el);
  if (el->kind == TY_COMPLEX) {   /* {re, im}, cast to the element type when folded */
    LLVMTypeRef pt = cg_scalar_type(g, type_complex_part(el));
    LLVMValueRef parts[2] = {
        LLVMConstReal(pt, v->kind == N_COMPLEX ? v->a->fval : v->kind == N_FLOAT ? v->fval
                                                                             : (double)v->ival),
        LLVMConstReal(pt, v->kind == N_COMPLEX ? v->b->fval : 0.0)};
    return LLVMConstStructInContext(g->c, parts, 2, 0);
  }
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

/* Module constant const_name's folded nested tuple value as an array value of type t:
 * a constant global (addrspace(4) on the GPU), made once per constant and element type.
 * cuda.const.array_like and module arrays (np.array ..., read in a kernel) share it. */
LLVMValueRef cg_const_array_value(cg_ctx *g, const char *const_name, const node *value,
                                  const type *t, span sp) {
  const char *name = arena_printf(g->ar, "kc_const_%s_%s", arena_symbol(g->ar, const_name),
                                  type_name(g->ar, t->elem));
  int64_t dims[KC_MAX_DIMS] = {0};
  int ndim = 0;
  ast_tuple_shape(value, 0, dims, &ndim);
  int64_t n = 1;
  for (int k = 0; k < t->ndim; k++) n *= dims[k];
  LLVMValueRef gv = LLVMGetNamedGlobal(g->m, name);
  if (!gv) {
    LLVMTypeRef at = LLVMArrayType2(cg_mem_type(g, t->elem), (uint64_t)n);
    unsigned long long bytes = (unsigned long long)n * (t->elem->kind == TY_BOOL ? 1 : t->elem->bits / 8);
    bytes = (bytes + 15) & ~15ull;   /* each is 16-aligned */
    g->const_bytes += bytes;
    if (g->target->const_limit && g->const_bytes > g->target->const_limit &&
        g->const_bytes - bytes <= g->target->const_limit)
      diag_error(g->d, sp, "the module's constant arrays need %llu bytes here, more than the "
                 "GPU's %llu KiB constant bank (each module array and cuda.const.array_like "
                 "is one copy in it)", g->const_bytes, g->target->const_limit / 1024);
    LLVMValueRef *vals = arena_alloc(g->ar, sizeof *vals * (size_t)n);
    int k = 0;
    flatten_const(g, value, t->elem, vals, &k);
    gv = LLVMAddGlobalInAddressSpace(g->m, at, name, g->target->const_addrspace);
    LLVMSetInitializer(gv, LLVMConstArray2(cg_mem_type(g, t->elem), vals, (uint64_t)n));
    LLVMSetGlobalConstant(gv, 1);
    LLVMSetLinkage(gv, LLVMInternalLinkage);
    LLVMSetAlignment(gv, 16);
  }
  LLVMValueRef data = cg_generic_ptr(g, gv);
  LLVMValueRef v = LLVMGetUndef(cg_array_struct(g, t->ndim));
  v = LLVMBuildInsertValue(g->b, v, data, 0, "");
  for (int k = 0; k < t->ndim; k++)
    v = LLVMBuildInsertValue(g->b, v, ci64(g, dims[k]), (unsigned)(k + 1), "");
  return v;
}

/*
 * cg_foreign.c — calls of foreign device functions (sema/foreign.c), with Numba's ABI:
 * `int name(T *return_value, args...)`, the result stored through a slot of the
 * caller's (local memory on the GPU) and the status it returns ignored, since a
 * foreign function raises no Python exception. Numbers pass as C passes them: a bool
 * as a byte, 8- and 16-bit integers widened by their signedness.
 */
#include "cg.h"

/* The C type a number crosses the ABI as (a bool: a byte, as C's bool). */
static LLVMTypeRef abi_type(cg_ctx *g, const type *t) {
  return t->kind == TY_BOOL ? g->i8 : cg_scalar_type(g, t);
}

/* signext / zeroext on parameter idx (1-based; 0 the result) of a small integer */
static void extend_attr(cg_ctx *g, LLVMValueRef fn, int idx, const type *t) {
  bool small = t->kind == TY_BOOL || (t->kind == TY_INT && t->bits < 32);
  if (small) cg_add_attr(g, fn, idx, t->kind == TY_INT && t->is_signed ? "signext" : "zeroext");
}

/* The function's declaration; NULL (reported) when the module already has a function
 * of that name that is not this declaration (a kernel, a device function's instance,
 * libdevice's, another declare_device of the name with another signature). */
static LLVMValueRef declare_foreign(cg_ctx *g, const foreign_fn *f) {
  LLVMTypeRef *pt = arena_alloc(g->ar, sizeof *pt * (size_t)(f->nparams + 1));
  pt[0] = g->ptr;
  for (int i = 0; i < f->nparams; i++) pt[i + 1] = abi_type(g, f->params[i]);
  LLVMTypeRef ft = LLVMFunctionType(g->i32, pt, (unsigned)f->nparams + 1, 0);
  LLVMValueRef fn = LLVMGetNamedFunction(g->m, f->symbol);
  if (fn && (LLVMGlobalGetValueType(fn) != ft || LLVMCountBasicBlocks(fn) > 0)) {
    diag_error(g->d, f->where, "the foreign function '%s' has the name of another function "
               "in this module (a kernel, a device function, a library's, or another "
               "declaration with another signature): rename one of them", f->symbol);
    return NULL;
  }
  if (fn) return fn;
  fn = LLVMAddFunction(g->m, f->symbol, ft);
  for (int i = 0; i < f->nparams; i++) extend_attr(g, fn, i + 2, f->params[i]);
  cg_add_attr(g, fn, 1, "nocapture");
  return fn;
}

LLVMValueRef cg_foreign_call(cg_ctx *g, node *e) {
  const foreign_fn *f = e->aux_ptr;
  LLVMValueRef fn = declare_foreign(g, f);
  bool has_value = f->ret->kind != TY_VOID;
  if (!fn) return has_value ? LLVMGetUndef(cg_type(g, f->ret)) : NULL;
  LLVMTypeRef rt = has_value ? abi_type(g, f->ret) : g->i64;
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * (size_t)(f->nparams + 1));
  args[0] = cg_entry_alloca(g, rt, "foreign.ret");
  for (int i = 0; i < f->nparams; i++) {
    LLVMValueRef v = cg_expr_as(g, e->list.items[i], f->params[i]);
    if (f->params[i]->kind == TY_BOOL) v = LLVMBuildZExt(g->b, v, g->i8, "");
    args[i + 1] = v;
  }
  LLVMBuildCall2(g->b, LLVMGlobalGetValueType(fn), fn, args, (unsigned)f->nparams + 1, "");
  if (!has_value) return NULL;
  LLVMValueRef r = LLVMBuildLoad2(g->b, rt, args[0], f->name);
  return f->ret->kind == TY_BOOL ? LLVMBuildICmp(g->b, LLVMIntNE, r, LLVMConstInt(g->i8, 0, 0), "") : r;
}

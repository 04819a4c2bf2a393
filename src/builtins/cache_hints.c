/*
 * cache_hints.c — loads and stores with a cache operator, as Numba-CUDA has them:
 * cuda.ldca/ldcg/ldcs/ldlu/ldcv(a, i) read a[i] and cuda.stcg/stcs/stwb/stwt(a, i, v)
 * write it, with PTX's ld.ca ... st.wt (the PTX ISA's "cache operators": hints that
 * do not change what memory holds). The index is any index a[i] takes (an integer, or
 * a tuple for an N-D array), checked and wrapped as a[i] is. On the GPU each is one
 * ld/st with generic addressing (so it also serves shared and local arrays, where the
 * operator is ignored); on the CPU a plain load or store.
 */
#include <stdio.h>
#include <string.h>

#include "builtin.h"
#include "cg.h"
#include "typing.h"

/* ---- typing ---- */

/* a[i] of the call's first two arguments, as an index expression of its own */
static node *element_of(infer_ctx *ic, node *e) {
  node *ix = node_new(ic->ar, N_INDEX, e->sp);
  ix->a = e->list.items[0];
  ix->b = e->list.items[1];
  return ix;
}

static const type *ix_cache_hint(infer_ctx *ic, node *e, const builtin *b) {
  const char *fname = builtin_user_name(b);
  node *arr = e->list.items[0];
  const type *at = ix_expr(ic, arr);
  if (!at) return NULL;
  if (at->kind != TY_ARRAY || !(type_is_real(at->elem) || at->elem->kind == TY_BOOL)) {
    ix_error(ic, arr->sp, "%s needs an array of integers, floats or booleans, not %s", fname,
             ix_tname(ic, at));
    return NULL;
  }
  node *ix = element_of(ic, e);
  const type *t = ix_index(ic, ix);
  e->list.items[1] = ix->b;   /* a tuple held in a name, expanded */
  if (!t) return NULL;
  if (t->kind == TY_ARRAY) {
    ix_error(ic, ix->b->sp, "%s reads or writes one element: give one index per dimension "
             "of %s", fname, ix_tname(ic, at));
    return NULL;
  }
  e->aux_ptr = ix;
  if (b->max_args == 2) return ix_set_type(e, t, false);
  node *v = e->list.items[2];
  if (!ix_expr(ic, v) || !ix_need_real(ic, v, fname)) return NULL;
  return ix_set_type(e, &ty_void, false);
}

/* ---- lowering ---- */

/* The PTX type and inline-asm constraint of an element in a register: 8-bit values
 * travel in 16-bit registers, as PTX has no 8-bit ones. */
static const char *ptx_type(const type *el, const char **cons, LLVMTypeRef *reg, cg_ctx *g) {
  int bits = el->kind == TY_BOOL ? 8 : el->bits;
  if (el->kind == TY_FLOAT && bits >= 32) {
    *cons = bits == 32 ? "f" : "d";
    *reg = bits == 32 ? LLVMFloatTypeInContext(g->c) : LLVMDoubleTypeInContext(g->c);
    return bits == 32 ? "f32" : "f64";
  }
  *cons = bits <= 16 ? "h" : bits == 32 ? "r" : "l";
  *reg = LLVMIntTypeInContext(g->c, bits <= 16 ? 16 : (unsigned)bits);
  return bits == 8 ? "u8" : bits == 16 ? "b16" : bits == 32 ? "b32" : "b64";
}

static LLVMValueRef asm_call(cg_ctx *g, LLVMTypeRef ret, const char *text, const char *cons,
                             LLVMValueRef *args, unsigned n) {
  LLVMTypeRef params[2];
  for (unsigned i = 0; i < n; i++) params[i] = LLVMTypeOf(args[i]);
  LLVMTypeRef ft = LLVMFunctionType(ret, params, n, 0);
  LLVMValueRef code = LLVMGetInlineAsm(ft, text, strlen(text), cons, strlen(cons), 1, 0,
                                       LLVMInlineAsmDialectATT, 0);
  return LLVMBuildCall2(g->b, ft, code, args, n, "");
}

/* an element in the register type from its memory value, and back */
static LLVMValueRef to_register(cg_ctx *g, LLVMValueRef v, const type *el, LLVMTypeRef reg) {
  if (el->kind == TY_BOOL) return LLVMBuildZExt(g->b, v, reg, "");
  if (el->kind == TY_FLOAT && el->bits == 16) return LLVMBuildBitCast(g->b, v, reg, "");
  return LLVMTypeOf(v) == reg ? v : LLVMBuildZExt(g->b, v, reg, "");
}

static LLVMValueRef from_register(cg_ctx *g, LLVMValueRef v, const type *el) {
  if (el->kind == TY_BOOL)
    return LLVMBuildICmp(g->b, LLVMIntNE, v, LLVMConstInt(LLVMTypeOf(v), 0, 0), "");
  LLVMTypeRef t = cg_type(g, el);
  if (el->kind == TY_FLOAT && el->bits == 16) return LLVMBuildBitCast(g->b, v, t, "");
  return LLVMTypeOf(v) == t ? v : LLVMBuildTrunc(g->b, v, t, "");
}

static LLVMValueRef cg_cache_hint(cg_ctx *g, node *e, const builtin *b) {
  node *ix = e->aux_ptr;
  const type *el = ix->a->ty->elem;
  LLVMValueRef p = cg_element_ptr(g, ix);
  const char *cons;
  LLVMTypeRef reg;
  const char *pt = ptx_type(el, &cons, &reg, g);
  char text[64], constraints[16];
  if (b->max_args == 2) {
    snprintf(text, sizeof text, "ld.%s.%s $0, [$1];", b->name, pt);
    snprintf(constraints, sizeof constraints, "=%s,l", cons);
    return from_register(g, asm_call(g, reg, text, constraints, &p, 1), el);
  }
  LLVMValueRef v = cg_expr_as(g, e->list.items[2], el);
  LLVMValueRef args[2] = {p, to_register(g, el->kind == TY_BOOL
                                               ? LLVMBuildZExt(g->b, v, g->i8, "") : v, el, reg)};
  snprintf(text, sizeof text, "st.%s.%s [$0], $1;", b->name, pt);
  snprintf(constraints, sizeof constraints, "l,%s", cons);
  asm_call(g, LLVMVoidTypeInContext(g->c), text, constraints, args, 2);
  return NULL;
}

static LLVMValueRef cg_cache_hint_host(cg_ctx *g, node *e, const builtin *b) {
  node *ix = e->aux_ptr;
  const type *el = ix->a->ty->elem;
  LLVMValueRef p = cg_element_ptr(g, ix);
  if (b->max_args == 2) return cg_load_element(g, p, el);
  cg_store_element(g, p, cg_expr_as(g, e->list.items[2], el), el);
  return NULL;
}

#define LOAD(n, op)                                                                          \
  {.path = "numba.cuda." n, .kind = BK_FUNCTION, .min_args = 2, .max_args = 2, .name = op,   \
   .typing = ix_cache_hint, .lower = cg_cache_hint, .lower_host = cg_cache_hint_host}
#define STORE(n, op)                                                                         \
  {.path = "numba.cuda." n, .kind = BK_FUNCTION, .min_args = 3, .max_args = 3,               \
   .flags = BF_WRITES_ARG0, .name = op, .typing = ix_cache_hint, .lower = cg_cache_hint,     \
   .lower_host = cg_cache_hint_host}

const builtin builtins_cache_hints[] = {
  LOAD("ldca", "ca"), LOAD("ldcg", "cg"), LOAD("ldcs", "cs"), LOAD("ldlu", "lu"),
  LOAD("ldcv", "cv"),
  STORE("stcg", "cg"), STORE("stcs", "cs"), STORE("stwb", "wb"), STORE("stwt", "wt"),
  {NULL},
};

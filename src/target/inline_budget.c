/*
 * inline_budget.c — bound how much code LLVM's inliner copies into one kernel, so that
 * compile time stays roughly linear in the size of the source (both targets).
 *
 * Why: a device function is small, so LLVM's inliner copies it into every call site.
 * A kernel that calls a 70-instruction function holding a loop 1 000 times became one
 * function of 76 000 lines with 1 000 loops, and the passes after the inliner, several
 * of them superlinear in a function's size (dominator-tree queries, SCEV, GVN), took
 * 64 s to make PTX of it. nvcc keeps such functions as calls past a size threshold;
 * kcc does the same here: before the pipeline runs, a device function whose inlined
 * copies would together pass a budget of instructions is marked noinline, so it is
 * compiled once and called. A call costs little next to a function that big, and a
 * kernel that calls a function a few times is inlined as before.
 *
 * A function's inlined size counts its own instructions plus the inlined size of each
 * function it calls that is itself still inlined (a call to one that is not counts as
 * one instruction), so a function that calls another many times is judged by what it
 * would become. The sizes are those of the IR codegen made (before mem2reg), which is
 * what the budget was measured against. Functions the source asked to be inlined
 * (alwaysinline: inline='always', libdevice) or not (noinline) are left as they are.
 * None of this changes a result.
 */
#include <stdint.h>
#include <stdlib.h>

#include "target.h"

typedef struct fn_size {
  LLVMValueRef fn;
  size_t size;   /* inlined size, once known */
  int state;     /* 0: not seen, 1: being measured (a recursive call), 2: known */
} fn_size;

typedef struct sizes {
  fn_size *v;
  size_t n;
  unsigned always, never;
} sizes;

static fn_size *find(sizes *s, LLVMValueRef f) {
  for (size_t i = 0; i < s->n; i++)
    if (s->v[i].fn == f) return &s->v[i];
  return NULL;
}

static bool has_attr(LLVMValueRef f, unsigned kind) {
  return LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, kind) != NULL;
}

/* The defined function a call instruction calls directly, or NULL. */
static LLVMValueRef direct_callee(LLVMValueRef i) {
  if (!LLVMIsACallInst(i)) return NULL;
  LLVMValueRef f = LLVMGetCalledValue(i);
  return f && LLVMIsAFunction(f) && !LLVMIsDeclaration(f) ? f : NULL;
}

static size_t inlined_size(sizes *s, fn_size *e);

/* What one instruction adds to its function's inlined size. */
static size_t instruction_size(sizes *s, LLVMValueRef i) {
  LLVMValueRef f = direct_callee(i);
  fn_size *callee = f ? find(s, f) : NULL;
  if (!callee || has_attr(f, s->never)) return 1;
  if (callee->state == 1) return 1;   /* recursion: stays a call */
  return inlined_size(s, callee);
}

static size_t inlined_size(sizes *s, fn_size *e) {
  if (e->state == 2) return e->size;
  e->state = 1;
  size_t n = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(e->fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
      n += instruction_size(s, i);
  e->size = n;
  e->state = 2;
  return n;
}

/* The number of call sites of f in the module. */
static size_t call_sites(LLVMValueRef f) {
  size_t n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(f); u; u = LLVMGetNextUse(u))
    if (LLVMIsACallInst(LLVMGetUser(u))) n++;
  return n;
}

/* Callees before callers: f's decision is made before the inlined size of any function
 * that calls it is measured, since that size depends on it. Depth-first from each
 * function, deciding a function after all it calls. */
static void decide(sizes *s, fn_size *e, size_t budget, LLVMContextRef c) {
  if (e->state != 0) return;
  e->state = 1;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(e->fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      LLVMValueRef f = direct_callee(i);
      fn_size *callee = f ? find(s, f) : NULL;
      if (callee) decide(s, callee, budget, c);
    }
  e->state = 0;
  size_t size = inlined_size(s, e), calls = call_sites(e->fn);
  if (calls >= 2 && !has_attr(e->fn, s->always) && !has_attr(e->fn, s->never) &&
      size > budget / calls) {
    LLVMAddAttributeAtIndex(e->fn, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, s->never, 0));
    e->size = 1;   /* what a call to it now costs its callers */
  }
}

void tgt_bound_inlining(LLVMModuleRef m, size_t budget) {
  sizes s = {NULL, 0, LLVMGetEnumAttributeKindForName("alwaysinline", 12),
             LLVMGetEnumAttributeKindForName("noinline", 8)};
  size_t cap = 0;
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    if (s.n == cap) {
      cap = cap ? 2 * cap : 16;
      fn_size *v = realloc(s.v, cap * sizeof *v);
      if (!v) {   /* out of memory: leave the module as it is */
        free(s.v);
        return;
      }
      s.v = v;
    }
    s.v[s.n++] = (fn_size){f, 0, 0};
  }
  LLVMContextRef c = LLVMGetModuleContext(m);
  for (size_t i = 0; i < s.n; i++) decide(&s, &s.v[i], budget, c);
  free(s.v);
}

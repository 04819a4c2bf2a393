/*
 * host_stack.c — what the CPU back end's threads need of their stacks.
 *
 * A thread of a kernel with barriers runs as a fiber on a stack of its own
 * (runtime/cpu/fibers.c), 128 KiB unless the kernel needs more: a cuda.local.array of up
 * to 512 KiB (CUDA's per-thread limit, which infer holds every function to) is an
 * alloca in its function's frame. host_stack_need measures a kernel entry point's frame
 * from the IR before optimisation: the static allocas of each function, plus the
 * largest need among the functions it calls. Inlining moves a callee's allocas into
 * the caller but keeps them apart in time (lifetime markers), so the bound holds after
 * optimisation too; what the bound leaves out (spills, libm's frames) the runtime's
 * fixed margin covers. The runtime sizes the stacks from it (kcc_kernel.stack_bytes).
 *
 * host_stack_probes makes every function touch its frame a page at a time as it grows
 * ("probe-stack"), so a frame larger than what is left of the stack faults at the guard
 * page below it instead of writing past it into other memory.
 */
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Target.h>

#include "target.h"

typedef struct stack_walk {
  LLVMTargetDataRef dl;
  int depth;
  LLVMValueRef *fns;   /* functions measured so far, and their needs (a function called */
  uint64_t *needs;     /* from many places is walked once) */
  size_t n, cap;
  bool recursive;      /* a function that may recurse is reached */
} stack_walk;

static void remember(stack_walk *w, LLVMValueRef fn, uint64_t need) {
  if (w->n == w->cap) {
    size_t cap = w->cap ? 2 * w->cap : 16;
    LLVMValueRef *f = realloc(w->fns, cap * sizeof *f);
    if (f) w->fns = f;
    uint64_t *n = f ? realloc(w->needs, cap * sizeof *n) : NULL;
    if (n) w->needs = n;
    if (!f || !n) return;   /* out of memory: measured again when next called */
    w->cap = cap;
  }
  w->fns[w->n] = fn;
  w->needs[w->n++] = need;
}

/* The bytes of the static allocas at the top of fn's entry block. */
static uint64_t own_allocas(stack_walk *w, LLVMValueRef fn) {
  uint64_t bytes = 0;
  LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(fn);
  for (LLVMValueRef i = LLVMGetFirstInstruction(entry); i; i = LLVMGetNextInstruction(i)) {
    if (!LLVMIsAAllocaInst(i)) continue;
    LLVMValueRef n = LLVMGetOperand(i, 0);
    uint64_t count = LLVMIsAConstantInt(n) ? LLVMConstIntGetZExtValue(n) : 1;
    bytes += count * LLVMABISizeOfType(w->dl, LLVMGetAllocatedType(i)) + 16;
  }
  return bytes;
}

static uint64_t need_of(stack_walk *w, LLVMValueRef fn);

/* The largest need among the defined functions fn calls directly. */
static uint64_t callees_need(stack_walk *w, LLVMValueRef fn) {
  uint64_t most = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(fn); b; b = LLVMGetNextBasicBlock(b))
    for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
      if (!LLVMIsACallInst(i)) continue;
      LLVMValueRef f = LLVMGetCalledValue(i);
      if (!f || !LLVMIsAFunction(f) || LLVMIsDeclaration(f) || f == fn) continue;
      uint64_t n = need_of(w, f);
      if (n > most) most = n;
    }
  return most;
}

/* Device functions recurse only with a declared signature, and then count their depth
 * (codegen.c: KC_RECURSION_BUDGET); the walk's depth bound keeps them from looping here. */
static uint64_t need_of(stack_walk *w, LLVMValueRef fn) {
  for (size_t i = 0; i < w->n; i++)
    if (w->fns[i] == fn) return w->needs[i];
  if (w->depth > 64) return 0;
  w->depth++;
  uint64_t n = own_allocas(w, fn) + callees_need(w, fn);
  if (LLVMGetStringAttributeAtIndex(fn, LLVMAttributeFunctionIndex, "kcc-recursive", 13))
    w->recursive = true;
  w->depth--;
  remember(w, fn, n);
  return n;
}

uint64_t host_stack_need(LLVMModuleRef m, const char *entry) {
  LLVMValueRef fn = LLVMGetNamedFunction(m, entry);
  if (!fn || LLVMIsDeclaration(fn)) return 0;
  stack_walk w = {LLVMGetModuleDataLayout(m), 0, NULL, NULL, 0, 0, false};
  uint64_t n = need_of(&w, fn);
  /* a function that may recurse counts its depth and stops within a budget (codegen.c,
     KC_RECURSION_BUDGET, 1 MiB): room for twice that once per kernel, since frames after
     optimisation may pass the allocas the depth limit was computed from */
  if (w.recursive) n += (uint64_t)2 << 20;
  free(w.fns);
  free(w.needs);
  return n;
}

void host_stack_probes(LLVMModuleRef m) {
  const char *triple = LLVMGetTarget(m);
  if (!triple || strncmp(triple, "x86_64", 6) != 0) return;   /* inline probes: x86-64 */
  LLVMContextRef c = LLVMGetModuleContext(m);
  static const char key[] = "probe-stack", val[] = "inline-asm";
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    LLVMAttributeRef a = LLVMCreateStringAttribute(c, key, sizeof key - 1, val, sizeof val - 1);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, a);
  }
}

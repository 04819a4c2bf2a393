/*
 * host_budget.c — keep the CPU back end's compile time roughly linear in a kernel's
 * size: between the two rounds of host_run_pipeline (target_host.c), every loop whose
 * body is bigger than a budget of instructions is told not to be vectorised, unrolled
 * or split by IRCE.
 *
 * Why: a kernel's K__block is a loop over the block's threads whose body is the whole
 * kernel. For a kernel of a few thousand statements (hand-unrolled code, generated
 * code) the second round copied that body four or five times (IRCE's pre-, main and
 * post-loops; the vectoriser's vector loop, its epilogue and the scalar remainder), and
 * the vectoriser, the SLP vectoriser and the machine schedulers, each superlinear in the
 * size of a loop or a block, spent seconds on the copies (5 000 statements: 12 s, most
 * of it in scheduling). What a big body gains from those copies is small next to what
 * it costs, as a loop's own work dwarfs its per-iteration overhead.
 *
 * The loops are found on the control-flow graph alone (the C API has no loop
 * analysis): a depth-first walk from the entry finds the back edges (an edge to a block
 * on the walk's stack; kcc's control flow is reducible, so these are exactly the
 * natural loops' latches), and a loop's body is its header plus every block that
 * reaches the latch backwards without passing the header. The marks are loop metadata
 * (llvm.loop.vectorize.enable false, llvm.loop.unroll.disable) and IRCE's own tag for
 * loops it must leave alone, on the latch's terminator; properties
 * the loop already had are kept. None of this changes a result. Out of memory, a
 * function is simply left as it was.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "target.h"

/* One function's control-flow graph, blocks numbered in layout order. */
typedef struct cfg {
  unsigned n;
  LLVMBasicBlockRef *bb;     /* by number */
  struct numbered { LLVMBasicBlockRef bb; unsigned i; } *sorted; /* by address */
  unsigned *size;            /* instructions per block */
  unsigned *succ_at, *succ;  /* successors of b: succ[succ_at[b] .. succ_at[b + 1]) */
  unsigned *pred_at, *pred;  /* predecessors, the same way */
} cfg;

static int cmp_block(const void *a, const void *b) {
  uintptr_t x = (uintptr_t)((const struct numbered *)a)->bb;
  uintptr_t y = (uintptr_t)((const struct numbered *)b)->bb;
  return (x > y) - (x < y);
}

/* The number of block b (a successor of one of the function's blocks, so it is one of
 * them). */
static unsigned cfg_index(const cfg *g, LLVMBasicBlockRef b) {
  struct numbered key = {b, 0};
  const struct numbered *hit = bsearch(&key, g->sorted, g->n, sizeof *g->sorted, cmp_block);
  return hit ? hit->i : 0;
}

static void cfg_free(cfg *g) {
  free(g->bb);
  free(g->sorted);
  free(g->size);
  free(g->succ_at);
  free(g->succ);
  free(g->pred_at);
  free(g->pred);
}

static unsigned block_size(LLVMBasicBlockRef b) {
  unsigned n = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) n++;
  return n;
}

static unsigned num_succ(LLVMBasicBlockRef b) {
  LLVMValueRef t = LLVMGetBasicBlockTerminator(b);
  return t ? LLVMGetNumSuccessors(t) : 0;
}

/* Successor and predecessor lists in compressed form. */
static bool cfg_edges(cfg *g, size_t nedges) {
  g->succ = malloc((nedges + 1) * sizeof *g->succ);
  g->pred = malloc((nedges + 1) * sizeof *g->pred);
  g->pred_at = calloc(g->n + 1, sizeof *g->pred_at);
  unsigned *fill = calloc(g->n + 1, sizeof *fill);
  bool ok = g->succ && g->pred && g->pred_at && fill;
  for (unsigned b = 0; ok && b < g->n; b++) {
    LLVMValueRef t = LLVMGetBasicBlockTerminator(g->bb[b]);
    for (unsigned s = 0; s < num_succ(g->bb[b]); s++) {
      unsigned to = cfg_index(g, LLVMGetSuccessor(t, s));
      g->succ[g->succ_at[b] + s] = to;
      g->pred_at[to + 1]++;
    }
  }
  for (unsigned b = 0; ok && b < g->n; b++) g->pred_at[b + 1] += g->pred_at[b];
  for (unsigned b = 0; ok && b < g->n; b++)
    for (unsigned e = g->succ_at[b]; e < g->succ_at[b + 1]; e++) {
      unsigned to = g->succ[e];
      g->pred[g->pred_at[to] + fill[to]++] = b;
    }
  free(fill);
  return ok;
}

static bool cfg_build(cfg *g, LLVMValueRef fn) {
  memset(g, 0, sizeof *g);
  g->n = LLVMCountBasicBlocks(fn);
  g->bb = malloc(g->n * sizeof *g->bb);
  g->sorted = malloc(g->n * sizeof *g->sorted);
  g->size = malloc(g->n * sizeof *g->size);
  g->succ_at = malloc((g->n + 1) * sizeof *g->succ_at);
  if (!g->bb || !g->sorted || !g->size || !g->succ_at) return false;
  LLVMGetBasicBlocks(fn, g->bb);
  size_t nedges = 0;
  for (unsigned b = 0; b < g->n; b++) {
    g->sorted[b].bb = g->bb[b];
    g->sorted[b].i = b;
    g->size[b] = block_size(g->bb[b]);
    g->succ_at[b] = (unsigned)nedges;
    nedges += num_succ(g->bb[b]);
  }
  g->succ_at[g->n] = (unsigned)nedges;
  qsort(g->sorted, g->n, sizeof *g->sorted, cmp_block);
  return cfg_edges(g, nedges);
}

/* Instructions in the loop of back edge latch -> head: the head, and every block that
 * reaches the latch without passing the head. seen and work are scratch of g->n. */
static size_t loop_size(const cfg *g, unsigned head, unsigned latch, unsigned char *seen,
                        unsigned *work) {
  memset(seen, 0, g->n);
  size_t total = g->size[head];
  seen[head] = 1;
  unsigned top = 0;
  if (!seen[latch]) {
    seen[latch] = 1;
    work[top++] = latch;
  }
  while (top) {
    unsigned b = work[--top];
    total += g->size[b];
    for (unsigned e = g->pred_at[b]; e < g->pred_at[b + 1]; e++)
      if (!seen[g->pred[e]]) {
        seen[g->pred[e]] = 1;
        work[top++] = g->pred[e];
      }
  }
  return total;
}

/* The metadata node {name, i1 false} or {name}. */
static LLVMMetadataRef loop_flag(LLVMContextRef c, const char *name, bool with_false) {
  LLVMMetadataRef ops[2] = {LLVMMDStringInContext2(c, name, strlen(name)),
                            LLVMValueAsMetadata(LLVMConstInt(LLVMInt1TypeInContext(c), 0, 0))};
  return LLVMMDNodeInContext2(c, ops, with_false ? 2 : 1);
}

/* Give the loop whose latch ends in term a new loop ID (a node whose first operand is
 * itself) with the old one's properties and the flags given. */
static void add_loop_flags(LLVMContextRef c, LLVMValueRef term, const LLVMMetadataRef *flags,
                           unsigned nflags) {
  unsigned loop_kind = LLVMGetMDKindIDInContext(c, "llvm.loop", 9);
  LLVMValueRef old = LLVMGetMetadata(term, loop_kind);
  unsigned nold = old ? LLVMGetMDNodeNumOperands(old) : 0;
  LLVMValueRef *old_ops = nold ? malloc(nold * sizeof *old_ops) : NULL;
  LLVMMetadataRef *ops = malloc((nold + nflags + 1) * sizeof *ops);
  if (ops && (!nold || old_ops)) {
    if (nold) LLVMGetMDNodeOperands(old, old_ops);
    LLVMMetadataRef self = LLVMTemporaryMDNode(c, NULL, 0);
    unsigned n = 0;
    ops[n++] = self;
    for (unsigned i = 1; i < nold; i++) ops[n++] = LLVMValueAsMetadata(old_ops[i]);
    for (unsigned i = 0; i < nflags; i++) ops[n++] = flags[i];
    LLVMMetadataRef id = LLVMMDNodeInContext2(c, ops, n);
    LLVMMetadataReplaceAllUsesWith(self, id);  /* and frees the temporary */
    LLVMSetMetadata(term, loop_kind, LLVMMetadataAsValue(c, id));
  }
  free(ops);
  free(old_ops);
}

/* LLVM fully unrolls a short loop of a known length before the vectoriser sees it. */
void host_no_unroll(LLVMContextRef c, LLVMValueRef term) {
  LLVMMetadataRef flag = loop_flag(c, "llvm.loop.unroll.disable", false);
  add_loop_flags(c, term, &flag, 1);
}

void host_keep_loop(LLVMContextRef c, LLVMValueRef term) {
  LLVMMetadataRef flags[2] = {loop_flag(c, "llvm.loop.vectorize.enable", true),
                              loop_flag(c, "llvm.loop.unroll.disable", false)};
  add_loop_flags(c, term, flags, 2);
  /* IRCE leaves alone the loops it made itself, which carry this tag (LLVM 18 moved
     its loop cloning to LoopConstrainer and renamed the tag) */
  LLVMValueRef empty = LLVMMetadataAsValue(c, LLVMMDNodeInContext2(c, NULL, 0));
  LLVMSetMetadata(term, LLVMGetMDKindIDInContext(c, "irce.loop.clone", 15), empty);
  LLVMSetMetadata(term, LLVMGetMDKindIDInContext(c, "loop_constrainer.loop.clone", 27), empty);
}

/* Depth-first walk from the entry; on each back edge, mark the loop when it is too big.
 * state: 0 unseen, 1 on the stack, 2 done. */
static void mark_big_loops(LLVMContextRef c, const cfg *g, size_t budget) {
  unsigned char *state = calloc(g->n, 1), *seen = malloc(g->n);
  unsigned *stack = malloc(g->n * sizeof *stack), *next = malloc(g->n * sizeof *next);
  unsigned *work = malloc(g->n * sizeof *work);
  if (state && seen && stack && next && work && g->n) {
    unsigned top = 0;
    stack[top++] = 0;
    state[0] = 1;
    next[0] = g->succ_at[0];
    while (top) {
      unsigned b = stack[top - 1];
      if (next[b] == g->succ_at[b + 1]) {
        state[b] = 2;
        top--;
        continue;
      }
      unsigned to = g->succ[next[b]++];
      if (state[to] == 1 && loop_size(g, to, b, seen, work) > budget)
        host_keep_loop(c, LLVMGetBasicBlockTerminator(g->bb[b]));
      if (state[to] == 0) {
        state[to] = 1;
        next[to] = g->succ_at[to];
        stack[top++] = to;
      }
    }
  }
  free(state);
  free(seen);
  free(stack);
  free(next);
  free(work);
}

void host_limit_big_loops(LLVMModuleRef m, size_t budget) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f)) continue;
    cfg g;
    if (cfg_build(&g, f)) mark_big_loops(c, &g, budget);
    cfg_free(&g);
  }
}

/* ---- Before the first round: big kernels called, not inlined, from their entries ---- */

static size_t function_size(LLVMValueRef f) {
  size_t n = 0;
  for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
    n += block_size(b);
  return n;
}

/* The number of uses of f, counted up to 2. */
static unsigned uses_up_to_two(LLVMValueRef f) {
  unsigned n = 0;
  for (LLVMUseRef u = LLVMGetFirstUse(f); u && n < 2; u = LLVMGetNextUse(u)) n++;
  return n;
}

bool host_has_big_block(LLVMModuleRef m, size_t budget) {
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f))
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      size_t n = 0;
      for (LLVMValueRef i = LLVMGetFirstInstruction(bb); i; i = LLVMGetNextInstruction(i))
        if (++n > budget) return true;
    }
  return false;
}

void host_outline_big_functions(LLVMModuleRef m, size_t budget) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
  unsigned never = LLVMGetEnumAttributeKindForName("noinline", 8);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    if (LLVMIsDeclaration(f) ||
        !LLVMGetEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, always) ||
        uses_up_to_two(f) < 2 || function_size(f) <= budget)
      continue;
    LLVMRemoveEnumAttributeAtIndex(f, LLVMAttributeFunctionIndex, always);
    LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(c, never, 0));
  }
}

/* ---- After the second round: scheduling regions of a bounded size ---------------------- */

/* A value of a type instruction selection keeps in a register (a fake use of it is kept
 * as such). */
static bool register_value(LLVMValueRef i) {
  if (LLVMIsAPHINode(i) || LLVMIsATerminatorInst(i)) return false;
  switch (LLVMGetTypeKind(LLVMTypeOf(i))) {
  case LLVMIntegerTypeKind: case LLVMFloatTypeKind: case LLVMDoubleTypeKind:
  case LLVMPointerTypeKind: return true;
  default: return false;
  }
}

/* A fake use after every `every` instructions of b (after one that defines a value,
 * which the use keeps alive no longer than it already lives). */
static void cut_block(LLVMBuilderRef bld, LLVMValueRef fake, LLVMTypeRef fake_type,
                      LLVMBasicBlockRef b, unsigned every) {
  unsigned k = 0;
  for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i)) {
    LLVMValueRef next = LLVMGetNextInstruction(i);
    if (++k < every || !next || !register_value(i)) continue;
    LLVMPositionBuilderBefore(bld, next);
    LLVMBuildCall2(bld, fake_type, fake, &i, 1, "");
    i = LLVMGetNextInstruction(i);  /* the call */
    k = 0;
  }
}

void host_split_big_blocks(LLVMModuleRef m, size_t budget) {
  LLVMContextRef c = LLVMGetModuleContext(m);
  unsigned id = LLVMLookupIntrinsicID("llvm.fake.use", 13);
  LLVMValueRef fake = id ? LLVMGetIntrinsicDeclaration(m, id, NULL, 0) : NULL;
  LLVMTypeRef fake_type = LLVMFunctionType(LLVMVoidTypeInContext(c), NULL, 0, 1);
  LLVMBuilderRef bld = LLVMCreateBuilderInContext(c);
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    bool big = false;
    for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b)) {
      if (block_size(b) <= budget) continue;
      big = true;
      if (fake) cut_block(bld, fake, fake_type, b, (unsigned)(budget / 2));
    }
    if (big)
      LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex,
                              LLVMCreateStringAttribute(c, "tune-cpu", 8, "generic", 7));
  }
  LLVMDisposeBuilder(bld);
  if (fake && !LLVMGetFirstUse(fake)) LLVMDeleteFunction(fake);
}

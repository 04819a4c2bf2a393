/*
 * host_guards.c — IR rewrites between the two rounds of the CPU back end's pipeline
 * (target_host.c, host_run_pipeline), so that inductive range check elimination (IRCE)
 * can split a kernel's lower-bound guard out of the loop over a block's threads.
 *
 * IRCE takes a branch condition as a range check when it reads `Index >= 0`
 * (`Index > -1`) or `Index < Limit`, Index an affine function of the loop's induction
 * variable. The upper bound of a guard such as `if i > 0 and i < n - 1:` arrives in
 * that form; the lower bound does not: the first round's InstCombine, knowing that i
 * is non-negative, has rewritten `i > 0` into `i != 0` (and `i > k` into `i >u k`),
 * and IRCE does not read those. The thread loop then keeps the guard, which the
 * vectoriser turns into a mask on every load and store, or the loop stays scalar.
 *
 * For an X that is provably non-negative, `X != 0` is `X - 1 >= 0`, and `X > k` is
 * `X - (k + 1) >= 0`: each such compare is rewritten so, the subtraction without
 * nsw/nuw (X - (k + 1) cannot wrap for X >= 0, and no new poison is made). The proof
 * is a short walk over the instructions that compute X (extensions, nsw arithmetic on
 * non-negative operands, loads with a non-negative !range, induction phis); what it
 * cannot prove is left alone. The rewrite never changes a result; where IRCE does not
 * split a loop, the next InstCombine folds the compare back.
 *
 * Also here: the llvm.assume calls that code generation emits (a global thread index
 * is at most 2^31 - 2, codegen.c grid_axis) have done their work in the first round,
 * whose value propagation turned them into nsw flags and folded the negative-index
 * wrap they make unnecessary; left in, the vectoriser would copy each into every lane
 * of a vector loop. They are dropped (an assumption only ever adds information, so
 * dropping one is always correct).
 */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "target.h"

enum { NONNEG_MAX_DEPTH = 12, NONNEG_MAX_PHIS = 8, NONNEG_MAX_VISITS = 256 };

/* One proof's state: the phis assumed non-negative while their incoming values are
 * examined (an induction variable `phi [0, pre], [phi + 1 (nsw), latch]` is
 * non-negative by induction over the iterations), and how many more values it may look
 * at (a DAG of adds can be exponential in its depth). */
typedef struct nonneg_walk {
  LLVMValueRef phis[NONNEG_MAX_PHIS];
  int nphis;
  int visits_left;
} nonneg_walk;

static bool known_nonneg(nonneg_walk *w, LLVMValueRef v, int depth);

static int64_t signed_min(unsigned bits) {
  return bits >= 64 ? INT64_MIN : -((int64_t)1 << (bits - 1));
}

/* !range [lo0, hi0), [lo1, hi1)… within [0, signed max]: each lo >= 0, and each hi
 * above its lo or the signed minimum (the end of the non-negative half, wrapped). */
static bool range_nonneg(LLVMValueRef load) {
  LLVMContextRef c = LLVMGetTypeContext(LLVMTypeOf(load));
  LLVMValueRef md = LLVMGetMetadata(load, LLVMGetMDKindIDInContext(c, "range", 5));
  if (!md) return false;
  unsigned n = LLVMGetMDNodeNumOperands(md);
  if (n == 0 || n % 2 || n > 16) return false;
  LLVMValueRef ops[16];
  LLVMGetMDNodeOperands(md, ops);
  int64_t smin = signed_min(LLVMGetIntTypeWidth(LLVMTypeOf(load)));
  for (unsigned k = 0; k < n; k += 2) {
    if (!LLVMIsAConstantInt(ops[k]) || !LLVMIsAConstantInt(ops[k + 1])) return false;
    int64_t lo = LLVMConstIntGetSExtValue(ops[k]), hi = LLVMConstIntGetSExtValue(ops[k + 1]);
    if (lo < 0 || (hi <= lo && hi != smin)) return false;
  }
  return true;
}

static bool phi_nonneg(nonneg_walk *w, LLVMValueRef phi, int depth) {
  for (int k = 0; k < w->nphis; k++)
    if (w->phis[k] == phi) return true; /* the induction hypothesis */
  if (w->nphis == NONNEG_MAX_PHIS) return false;
  w->phis[w->nphis++] = phi;
  bool ok = true;
  for (unsigned k = 0, n = LLVMCountIncoming(phi); ok && k < n; k++)
    ok = known_nonneg(w, LLVMGetIncomingValue(phi, k), depth + 1);
  w->nphis--;
  return ok;
}

/* Whether v, an integer, is provably >= 0 as a signed number. */
static bool known_nonneg(nonneg_walk *w, LLVMValueRef v, int depth) {
  if (LLVMIsAConstantInt(v)) return LLVMConstIntGetSExtValue(v) >= 0;
  if (!LLVMIsAInstruction(v) || depth > NONNEG_MAX_DEPTH || w->visits_left-- <= 0) return false;
  LLVMValueRef a = LLVMGetNumOperands(v) > 0 ? LLVMGetOperand(v, 0) : NULL;
  LLVMValueRef b = LLVMGetNumOperands(v) > 1 ? LLVMGetOperand(v, 1) : NULL;
  switch (LLVMGetInstructionOpcode(v)) {
  case LLVMZExt:
    return true; /* from a narrower type: the sign bit is a zero */
  case LLVMSExt:
    return known_nonneg(w, a, depth + 1);
  case LLVMAdd:
  case LLVMMul:
    return LLVMGetNSW(v) && known_nonneg(w, a, depth + 1) && known_nonneg(w, b, depth + 1);
  case LLVMOr:
    return known_nonneg(w, a, depth + 1) && known_nonneg(w, b, depth + 1);
  case LLVMAnd:
    return known_nonneg(w, a, depth + 1) || known_nonneg(w, b, depth + 1);
  case LLVMSelect:
    return known_nonneg(w, LLVMGetOperand(v, 1), depth + 1) &&
           known_nonneg(w, LLVMGetOperand(v, 2), depth + 1);
  case LLVMPHI:
    return phi_nonneg(w, v, depth);
  case LLVMLoad:
    return LLVMGetTypeKind(LLVMTypeOf(v)) == LLVMIntegerTypeKind && range_nonneg(v);
  default:
    return false;
  }
}

/* For a compare that, on a non-negative X, says X >= L for a constant L >= 1, set *x
 * and *bound: `X != 0` (L = 1), `X > k` and `X >u k` (L = k + 1), `X >= k` and
 * `X >=u k` (L = k, for k >= 1). */
static bool lower_bound_compare(LLVMValueRef cmp, LLVMValueRef *x, int64_t *bound) {
  LLVMValueRef lhs = LLVMGetOperand(cmp, 0), rhs = LLVMGetOperand(cmp, 1);
  if (!LLVMIsAConstantInt(rhs) || LLVMIsAConstant(lhs)) return false;
  if (LLVMGetTypeKind(LLVMTypeOf(lhs)) != LLVMIntegerTypeKind) return false;
  unsigned bits = LLVMGetIntTypeWidth(LLVMTypeOf(lhs));
  if (bits < 2 || bits > 64) return false;
  int64_t k = LLVMConstIntGetSExtValue(rhs), smax = -(signed_min(bits) + 1);
  if (k < 0 || k >= smax) return false;
  switch (LLVMGetICmpPredicate(cmp)) {
  case LLVMIntNE:
    if (k != 0) return false;
    *bound = 1;
    break;
  case LLVMIntSGT:
  case LLVMIntUGT: *bound = k + 1; break;
  case LLVMIntSGE:
  case LLVMIntUGE: *bound = k; break;
  default: return false;
  }
  if (*bound < 1) return false;
  *x = lhs;
  return true;
}

/* Rewrite cmp, when it is a lower bound on a non-negative X, into `X - L > -1`. */
static void expose_lower_bound(LLVMBuilderRef b, LLVMValueRef cmp) {
  LLVMValueRef x;
  int64_t bound;
  nonneg_walk w = {{0}, 0, NONNEG_MAX_VISITS};
  if (!lower_bound_compare(cmp, &x, &bound) || !known_nonneg(&w, x, 0)) return;
  LLVMTypeRef t = LLVMTypeOf(x);
  LLVMPositionBuilderBefore(b, cmp);
  LLVMValueRef index = LLVMBuildAdd(b, x, LLVMConstInt(t, (unsigned long long)-bound, 1), "lb");
  LLVMValueRef check = LLVMBuildICmp(b, LLVMIntSGT, index, LLVMConstAllOnes(t), "lb.ok");
  LLVMReplaceAllUsesWith(cmp, check);
  LLVMInstructionEraseFromParent(cmp);
}

/* Erase call, an llvm.assume, and its condition when nothing else uses it. */
static void drop_assume(LLVMValueRef call) {
  LLVMValueRef cond = LLVMGetOperand(call, 0);
  LLVMInstructionEraseFromParent(call);
  if (LLVMIsAInstruction(cond) && !LLVMGetFirstUse(cond)) LLVMInstructionEraseFromParent(cond);
}

static bool is_assume(LLVMValueRef inst, unsigned assume_id) {
  if (!LLVMIsACallInst(inst)) return false;
  LLVMValueRef callee = LLVMGetCalledValue(inst);
  return callee && LLVMIsAFunction(callee) && LLVMGetIntrinsicID(callee) == assume_id;
}

void host_prepare_guards(LLVMModuleRef m) {
  unsigned assume_id = LLVMLookupIntrinsicID("llvm.assume", strlen("llvm.assume"));
  LLVMBuilderRef b = LLVMCreateBuilderInContext(LLVMGetModuleContext(m));
  for (LLVMValueRef f = LLVMGetFirstFunction(m); f; f = LLVMGetNextFunction(f)) {
    for (LLVMBasicBlockRef bb = LLVMGetFirstBasicBlock(f); bb; bb = LLVMGetNextBasicBlock(bb)) {
      LLVMValueRef next;
      for (LLVMValueRef inst = LLVMGetFirstInstruction(bb); inst; inst = next) {
        next = LLVMGetNextInstruction(inst);
        if (is_assume(inst, assume_id)) {
          drop_assume(inst);  /* its condition comes before it: already passed */
        } else if (LLVMIsAICmpInst(inst)) {
          expose_lower_bound(b, inst);
        }
      }
    }
  }
  LLVMDisposeBuilder(b);
}

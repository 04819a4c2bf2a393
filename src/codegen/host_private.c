/*
 * host_private.c — CPU back end: integer arrays a kernel only adds to with atomics,
 * counted in a private copy per worker and summed into the array when the launch ends
 * (runtime/cpu/private.c). A histogram's global bins then cost a plain add per element
 * instead of a locked one, and two workers no longer fight over the bins' cache lines.
 *
 * Sound because integer addition is associative and commutative modulo 2^n: the sum of
 * the private copies is what the atomics would have left, whatever the order. So an
 * array parameter qualifies only when every use of it in the kernel is the array of a
 * cuda.atomic.add or .sub (a row with BF_ADDS_TO_ARG0) whose result is unused: nothing
 * in the kernel reads it, so no thread can see the difference before the launch ends.
 * Its elements are 32- or 64-bit integers (float sums would be regrouped, which rounds
 * differently from any order of atomics), and it is C-contiguous. A kernel with an inner
 * function keeps every atomic (a closure could read the array). What the compiler cannot
 * see, the runtime checks at the launch: another array argument overlapping this one
 * (which the kernel might read), a cooperative launch, an array too big to copy per
 * worker. Then the runtime declines and the kernel runs the real atomics: each entry
 * point asks blk->private_array(blk, i) for parameter i's copy, and the atomic tests
 * bit i of blk->private_mask, which that call set.
 */
#include "builtins/builtin.h"
#include "cg.h"
#include "host_abi.h"

typedef struct use_count {
  const symbol *param;
  int uses, adds;         /* references to the parameter; those as an unused atomic add's array */
  bool inner_def;
} use_count;

/* Is s `cuda.atomic.add(p, ...)` (or .sub) as a statement, p a bare name? */
static bool is_unused_add(const node *s, const symbol *p) {
  if (s->kind != N_EXPR_STMT || !s->a || s->a->kind != N_CALL) return false;
  const node *call = s->a;
  if (!call->bi || !(call->bi->flags & BF_ADDS_TO_ARG0) || call->list.len < 1) return false;
  const node *arr = call->list.items[0];
  return arr->kind == N_NAME && arr->sym == p;
}

static bool count_use(const node *n, void *ud) {
  use_count *c = ud;
  if (n->kind == N_FUNCDEF) c->inner_def = true;
  if (n->kind == N_NAME && n->sym == c->param) c->uses++;
  if (is_unused_add(n, c->param)) c->adds++;
  return false;
}

static bool qualifies(const fn_instance *f, int i) {
  const type *t = f->param_types[i];
  if (t->kind != TY_ARRAY || t->strided || t->elem->kind != TY_INT) return false;
  if (t->elem->bits != 32 && t->elem->bits != 64) return false;
  use_count c = {f->params[i], 0, 0, false};
  ast_visit_list(&f->def->body, count_use, &c);
  return !c.inner_def && c.adds > 0 && c.uses == c.adds;
}

/* Bit i: kernel f's parameter i is added to privately (i < 64). Cached for g->fi. */
static uint64_t private_params(cg_ctx *g, const fn_instance *f) {
  if (!g->target->host || !f->is_kernel) return 0;
  if (g->private_of == f) return g->private_mask;
  uint64_t mask = 0;
  for (int i = 0; i < f->nparams && i < 64; i++)
    if (qualifies(f, i)) mask |= (uint64_t)1 << i;
  g->private_of = f;
  g->private_mask = mask;
  return mask;
}

/* data, or the worker's private copy of kernel parameter i when it has one: called by
 * each entry point as it unpacks the arguments. */
LLVMValueRef cg_host_private_data(cg_ctx *g, const fn_instance *f, int i, LLVMValueRef blk,
                                  LLVMValueRef data) {
  if (i >= 64 || !(private_params(g, f) & ((uint64_t)1 << i))) return data;
  LLVMTypeRef pt[2] = {g->ptr, g->i32};
  LLVMTypeRef ft = LLVMFunctionType(g->ptr, pt, 2, 0);
  LLVMValueRef idx[1] = {ci64(g, KC_CPU_BLOCK_OFF_PRIVATE_ARRAY)};
  LLVMValueRef fp = LLVMBuildLoad2(g->b, g->ptr,
                                   LLVMBuildInBoundsGEP2(g->b, g->i8, blk, idx, 1, ""),
                                   "private_array");
  LLVMValueRef args[2] = {blk, ci32(g, i)};
  LLVMValueRef copy = LLVMBuildCall2(g->b, ft, fp, args, 2, "private");
  LLVMValueRef has = LLVMBuildIsNotNull(g->b, copy, "");
  return LLVMBuildSelect(g->b, has, copy, data, "");
}

/* For an atomic on arr: an i1 that is true when arr is counted in a private copy (the
 * atomic may be a plain read-modify-write), or NULL when arr never is. */
LLVMValueRef cg_host_private_flag(cg_ctx *g, const node *arr) {
  const fn_instance *f = g->fi;
  if (!f || arr->kind != N_NAME || !arr->sym) return NULL;
  uint64_t mask = private_params(g, f);
  for (int i = 0; i < f->nparams && i < 64; i++) {
    if (f->params[i] != arr->sym || !(mask & ((uint64_t)1 << i))) continue;
    LLVMValueRef idx[1] = {ci64(g, KC_CPU_BLOCK_OFF_PRIVATE_MASK)};
    LLVMValueRef bits = LLVMBuildLoad2(g->b, g->i64,
                                       LLVMBuildInBoundsGEP2(g->b, g->i8, g->blk, idx, 1, ""),
                                       "private_mask");
    LLVMValueRef bit = LLVMBuildAnd(g->b, bits, ci64(g, (long long)((uint64_t)1 << i)), "");
    return LLVMBuildICmp(g->b, LLVMIntNE, bit, ci64(g, 0), "private");
  }
  return NULL;
}

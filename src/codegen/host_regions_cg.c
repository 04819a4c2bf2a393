/*
 * host_regions_cg.c — the region form's code (host_regions.c plans it): K__block as a
 * loop over the block's threads per region, the control flow around barriers run once
 * for the block, locals kept per thread in the executor's frame (blk->frame) as one
 * array per local, recomputed thread-index locals, and grid-stride loops run step by
 * step for the whole block.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/builtin.h"
#include "host_abi.h"
#include "host_regions.h"
#include "host_regions_plan.h"
#include "target.h"

bool host_regions_at_block_level(const cg_ctx *g) {
  return g->regions && g->regions->block_level;
}

/* thread (x, y, z)'s index in the block, the axis looped over innermost (host_inner)
 * fastest, so that a thread loop walks the frame's arrays contiguously */
static LLVMValueRef linear_thread(cg_ctx *g, host_regions *R, const host_thread_loops *l) {
  const LLVMValueRef *iv = l->iv;
  LLVMValueRef lin = LLVMBuildZExt(g->b, iv[l->order[0]], g->i64, "");
  for (int i = 1; i < 3; i++) {
    int k = l->order[i];
    LLVMValueRef d = LLVMBuildZExt(g->b, R->dims[k], g->i64, "");
    lin = LLVMBuildNUWAdd(g->b, LLVMBuildNUWMul(g->b, lin, d, ""),
                          LLVMBuildZExt(g->b, iv[k], g->i64, ""), "");
  }
  return lin;
}

/* Point every local kept per thread at this thread's element. */
static void enter_thread(cg_ctx *g, host_regions *R, host_thread_loops *l) {
  R->lin = linear_thread(g, R, l);
  for (int v = 0; v < R->n; v++)
    if (R->base[v]) {
      symbol *s = R->syms[v];
      s->cg = LLVMBuildInBoundsGEP2(g->b, cg_type(g, s->ty), R->base[v], &R->lin, 1, s->name);
    }
  for (int k = 0; k < 3; k++) g->tid[k] = l->iv[k];
}

/* The recomputed locals (remat) that region r comes after, for the thread g->tid. */
static void recompute_locals(cg_ctx *g, host_regions *R, int r) {
  for (int k = 0; k < R->remat_order.len; k++) {
    node *def = R->remat_order.items[k];
    if (R->def_region[hr_def_local(R, def)] < r) cg_statement(g, def);
  }
}

/* Open a region's thread loops: each thread's locals, and the recomputed ones (remat)
 * that region r comes after; along axis (-1: none) only threads below upto. */
static void open_region_upto(cg_ctx *g, host_regions *R, host_thread_loops *l, int r, int axis,
                             LLVMValueRef upto) {
  if (cg_terminated(g)) LLVMPositionBuilderAtEnd(g->b, cg_new_bb(g, "dead"));
  memcpy(l->dims, R->dims, sizeof l->dims);
  if (axis >= 0) l->dims[axis] = upto;   /* the loop's; the frame's index keeps the block's */
  host_thread_loops_open_order(g, l, g->fi->host_inner);
  enter_thread(g, R, l);
  R->block_level = false;
  recompute_locals(g, R, r);
}

static void open_region(cg_ctx *g, host_regions *R, host_thread_loops *l, int r) {
  open_region_upto(g, R, l, r, -1, NULL);
}

/* blk->trap(blk, message): the launch fails with it (KC_ERR_LAUNCH) */
static void host_trap(cg_ctx *g, const char *message) {
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  LLVMValueRef fn = cg_blk_load(g, KC_CPU_BLOCK_OFF_TRAP, g->ptr, "trap");
  LLVMValueRef args[2] = {g->blk, LLVMBuildGlobalStringPtr(g->b, message, "kc.msg")};
  LLVMBuildCall2(g->b, LLVMFunctionType(g->voidt, pt, 2, 0), fn, args, 2, "");
}

/* How many steps a thread takes through range(lo, stop, step), step != 0: as unsigned
 * 64-bit arithmetic, which is exact for every signed lo, stop and step. */
static LLVMValueRef trip_count(cg_ctx *g, LLVMValueRef lo, LLVMValueRef stop, LLVMValueRef step) {
  LLVMValueRef zero = ci64(g, 0), one = ci64(g, 1);
  LLVMValueRef up = LLVMBuildICmp(g->b, LLVMIntSGT, step, zero, "");
  LLVMValueRef dist = LLVMBuildSelect(g->b, up, LLVMBuildSub(g->b, stop, lo, ""),
                                      LLVMBuildSub(g->b, lo, stop, ""), "");
  LLVMValueRef mag = LLVMBuildSelect(g->b, up, step, LLVMBuildNeg(g->b, step, ""), "");
  LLVMValueRef some = LLVMBuildSelect(g->b, up, LLVMBuildICmp(g->b, LLVMIntSLT, lo, stop, ""),
                                      LLVMBuildICmp(g->b, LLVMIntSGT, lo, stop, ""), "");
  LLVMValueRef n = LLVMBuildAdd(g->b, LLVMBuildUDiv(g->b, LLVMBuildSub(g->b, dist, one, ""), mag, ""), one, "");
  return LLVMBuildSelect(g->b, some, n, zero, "trips");
}

/* Whether the thread's iteration i = lo + c * step (step != 0) is before stop. */
static LLVMValueRef before_stop(cg_ctx *g, LLVMValueRef i, LLVMValueRef stop, LLVMValueRef step) {
  return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, step, ci64(g, 0), ""),
                         LLVMBuildICmp(g->b, LLVMIntSLT, i, stop, ""),
                         LLVMBuildICmp(g->b, LLVMIntSGT, i, stop, ""), "");
}

static LLVMValueRef overflows(cg_ctx *g, const char *op, LLVMValueRef a, LLVMValueRef b) {
  LLVMValueRef args[2] = {a, b};
  LLVMValueRef r = cg_call_intrinsic(g, op, g->i64, args, 2);
  return LLVMBuildExtractValue(g->b, r, 1, "");
}

/* Every lo + c * step of the block's threads (c below the most steps any takes) fits
 * in int64, so that `i < stop` alone is exact and the arithmetic can say nsw: the one
 * with the most steps stays before stop, the others within the spread of lo beyond
 * it, and c * step below 2^63. Only ranges within that much of the int64 limits fail. */
static LLVMValueRef strided_fits(cg_ctx *g, LLVMValueRef stop, LLVMValueRef step, LLVMValueRef steps,
                                 LLVMValueRef lo_min, LLVMValueRef lo_max) {
  LLVMValueRef spread = LLVMBuildSub(g->b, lo_max, lo_min, "");
  LLVMValueRef up = LLVMBuildICmp(g->b, LLVMIntSGT, step, ci64(g, 0), "");
  LLVMValueRef mag = LLVMBuildSelect(g->b, up, step, LLVMBuildNeg(g->b, step, ""), "");
  LLVMValueRef bad = overflows(g, "llvm.ssub.with.overflow", lo_max, lo_min);
  bad = LLVMBuildOr(g->b, bad, LLVMBuildICmp(g->b, LLVMIntSLT, mag, ci64(g, 0), ""), "");
  bad = LLVMBuildOr(g->b, bad, overflows(g, "llvm.smul.with.overflow", steps, mag), "");
  bad = LLVMBuildOr(g->b, bad, LLVMBuildSelect(g->b, up,
      overflows(g, "llvm.sadd.with.overflow", stop, spread),
      overflows(g, "llvm.ssub.with.overflow", stop, spread), ""), "");
  return LLVMBuildNot(g->b, bad, "fits");
}

/* lo + c * step, which fits (strided_fits): as lo + c * |step| or lo - c * |step|, with
 * both factors' sign bits cleared (they are clear), so LLVM sees that the product is
 * not negative and, for a step it knows is positive, that the index is not negative
 * where lo is not: no negative-index wrap is left for the vectoriser. */
static LLVMValueRef strided_index(cg_ctx *g, LLVMValueRef lo, LLVMValueRef c, LLVMValueRef step) {
  LLVMValueRef up = LLVMBuildICmp(g->b, LLVMIntSGT, step, ci64(g, 0), "");
  LLVMValueRef mag = LLVMBuildSelect(g->b, up, step, LLVMBuildNeg(g->b, step, ""), "");
  LLVMValueRef low63 = ci64(g, INT64_MAX);
  LLVMValueRef k = LLVMBuildNSWMul(g->b, LLVMBuildAnd(g->b, c, low63, ""),
                                   LLVMBuildAnd(g->b, mag, low63, ""), "");
  return LLVMBuildSelect(g->b, up, LLVMBuildNSWAdd(g->b, lo, k, ""), LLVMBuildNSWSub(g->b, lo, k, ""), "i");
}

static void update_extreme(cg_ctx *g, LLVMValueRef slot, LLVMValueRef v, LLVMIntPredicate keep) {
  LLVMValueRef cur = LLVMBuildLoad2(g->b, g->i64, slot, "");
  LLVMBuildStore(g->b, LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, keep, v, cur, ""), v, cur, ""), slot);
}

/* The smallest and largest start of the block's threads, into lo_min and lo_max: a
 * loop over the threads. */
static void thread_extremes(cg_ctx *g, host_regions *R, node *start, const type *t, int r,
                            LLVMValueRef lo_min, LLVMValueRef lo_max) {
  LLVMBuildStore(g->b, ci64(g, INT64_MAX), lo_min);
  LLVMBuildStore(g->b, ci64(g, INT64_MIN), lo_max);
  host_thread_loops l;
  open_region(g, R, &l, r);
  LLVMValueRef lo = LLVMBuildSExt(g->b, cg_expr_as(g, start, t), g->i64, "");
  update_extreme(g, lo_min, lo, LLVMIntSLT);
  update_extreme(g, lo_max, lo, LLVMIntSGT);
  host_thread_loops_close(g, &l);
  R->block_level = true;
  for (int k = 0; k < 3; k++) g->tid[k] = ci32(g, 0);
}

/* The start of thread tid, computed at the block's level. */
static LLVMValueRef start_of(cg_ctx *g, host_regions *R, node *start, const type *t, int r,
                             LLVMValueRef tid[3]) {
  for (int k = 0; k < 3; k++) g->tid[k] = tid[k];
  R->block_level = false;
  recompute_locals(g, R, r);
  LLVMValueRef lo = LLVMBuildSExt(g->b, cg_expr_as(g, start, t), g->i64, "");
  R->block_level = true;
  for (int k = 0; k < 3; k++) g->tid[k] = ci32(g, 0);
  return lo;
}

/* lo_min and lo_max for a start that grows with every coordinate (hr_thread_monotone):
 * the first thread's and the last one's, two evaluations instead of a loop over the
 * block (for one step a thread, as kc_vectorize's grids take, that loop cost as much as
 * the step). Unless its arithmetic wrapped on the way (the last start is then below the
 * first), when the loop decides. */
static void corner_extremes(cg_ctx *g, host_regions *R, node *start, const type *t, int r,
                            LLVMValueRef lo_min, LLVMValueRef lo_max) {
  LLVMValueRef zero[3], last[3];
  for (int k = 0; k < 3; k++) {
    zero[k] = ci32(g, 0);
    last[k] = LLVMBuildNUWSub(g->b, R->dims[k], ci32(g, 1), "");
  }
  LLVMValueRef first = start_of(g, R, start, t, r, zero), end = start_of(g, R, start, t, r, last);
  LLVMBuildStore(g->b, first, lo_min);
  LLVMBuildStore(g->b, end, lo_max);
  LLVMBasicBlockRef wrapped = cg_new_bb(g, "start.wrapped"), done = cg_new_bb(g, "start.known");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntSGE, end, first, ""), done, wrapped);
  LLVMPositionBuilderAtEnd(g->b, wrapped);
  thread_extremes(g, R, start, t, r, lo_min, lo_max);
  LLVMBuildBr(g->b, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* ---- prefetching a grid-stride loop's next steps ---- */

enum { PREFETCH_ARRAYS = 4, PREFETCH_STEPS_AHEAD = 2, PREFETCH_STRETCH_MAX = 2048,
       PREFETCH_JUMP_MIN = 4096 };

typedef struct prefetch_scan {
  const host_regions *R;
  const symbol *var;                  /* the loop's variable */
  const node *arrays[PREFETCH_ARRAYS];
  int n;
} prefetch_scan;

/* a[i] with i the loop's variable and a a 1-D C-contiguous array parameter, one for the
 * whole block (shared memory is not worth prefetching) */
static bool note_prefetched(const node *e, void *ud) {
  prefetch_scan *P = ud;
  if (e->kind != N_INDEX || !e->b || e->b->kind != N_NAME || e->b->sym != P->var) return false;
  const type *t = e->a->ty;
  int v = hr_local_of(P->R, e->a);
  if (!t || t->kind != TY_ARRAY || t->ndim != 1 || t->strided || v < 0 || !P->R->uniform[v] ||
      !e->a->sym->is_param)
    return false;
  for (int k = 0; k < P->n; k++)
    if (P->arrays[k]->sym == e->a->sym) return false;
  if (P->n < PREFETCH_ARRAYS) P->arrays[P->n++] = e->a;
  return false;
}

/* The prefetch plan of grid-stride loop s: per array its data and how many lines ahead
 * of each step to prefetch, computed once before the steps (prefetch_plan) and used at
 * every step (prefetch_ahead). */
typedef struct prefetch_plan {
  int n;
  LLVMValueRef data[PREFETCH_ARRAYS], size[PREFETCH_ARRAYS], lines[PREFETCH_ARRAYS];
} prefetch_plan;

/* For each array the body of s indexes by the loop's variable: the lines a step's
 * stretch covers (2 KiB at most) where a step jumps 4 KiB or more, else 1 (a prefetch
 * of one line is cheaper than a branch): steps that follow each other closely (one
 * block a worker, fused blocks) walk the array front to back, which the hardware
 * prefetcher follows, and a loop of 32 prefetches a step cost a kc_reduce sum 40% of
 * its instructions. No branch is left for the steps' loop to test: LLVM would unswitch
 * it on one, copying the whole step loop with its thread loops (25-75% more compile
 * time). */
static void prefetch_plan_for(cg_ctx *g, host_regions *R, node *s, LLVMValueRef step,
                              LLVMValueRef lo_min, LLVMValueRef lo_max, prefetch_plan *plan) {
  prefetch_scan P = {.R = R, .var = s->a->kind == N_NAME ? s->a->sym : NULL};
  plan->n = 0;
  if (!P.var) return;
  ast_visit_list(&s->body, note_prefetched, &P);
  LLVMValueRef count = LLVMBuildAdd(g->b, LLVMBuildSub(g->b, lo_max, lo_min, ""), ci64(g, 1), "");
  for (int k = 0; k < P.n; k++) {
    LLVMValueRef size = LLVMSizeOf(cg_mem_type(g, P.arrays[k]->ty->elem));
    LLVMValueRef bytes = LLVMBuildMul(g->b, count, size, "");
    LLVMValueRef lines = LLVMBuildUDiv(g->b, LLVMBuildAdd(g->b, bytes, ci64(g, 63), ""), ci64(g, 64), "");
    LLVMValueRef most = ci64(g, PREFETCH_STRETCH_MAX / 64);
    LLVMValueRef args[2] = {lines, most};
    lines = cg_call_intrinsic(g, "llvm.umin", g->i64, args, 2);
    /* |step| in bytes: the step is not zero here, and past 2^63 / size it is a far jump */
    LLVMValueRef neg = LLVMBuildICmp(g->b, LLVMIntSLT, step, ci64(g, 0), "");
    LLVMValueRef mag = LLVMBuildSelect(g->b, neg, LLVMBuildNeg(g->b, step, ""), step, "");
    LLVMValueRef far_steps = LLVMBuildUDiv(g->b, ci64(g, PREFETCH_JUMP_MIN), size, "");
    LLVMValueRef far = LLVMBuildICmp(g->b, LLVMIntUGE, mag, far_steps, "");
    plan->lines[k] = LLVMBuildSelect(g->b, far, lines, ci64(g, 1), "");
    plan->size[k] = size;
    plan->data[k] = LLVMBuildExtractValue(g->b, cg_expr(g, (node *)P.arrays[k]), 0, "data");
  }
  plan->n = P.n;
}

/* Before step c: the stretch step c + 2 takes of each planned array, prefetched (a
 * loop of at least one line). A step of the block reads one short stretch per array
 * and the next step's is a page or more further on: with 64 steps a block (a 1024 x
 * 256 grid over 2^24 bytes) a block has more pages in flight than the hardware
 * prefetcher follows, and each stretch started with a miss (samples/histogram.k's
 * shared-memory kernel: 10 ms against 5 prefetched; bench/histogram.sh). Longer
 * stretches the hardware follows itself. Prefetching neither faults nor changes a
 * value, past the array's end too. */
static void prefetch_ahead(cg_ctx *g, const prefetch_plan *plan, LLVMValueRef c,
                           LLVMValueRef steps, LLVMValueRef step, LLVMValueRef lo_min) {
  if (plan->n == 0) return;
  /* the last two steps (and a loop of one or two) prefetch one line of the last step's
     stretch: past it the addresses may not be mapped, and a branch here would have
     IRCE split the steps' loop three ways */
  LLVMValueRef ahead = LLVMBuildAdd(g->b, c, ci64(g, PREFETCH_STEPS_AHEAD), "");
  LLVMValueRef some = LLVMBuildICmp(g->b, LLVMIntULT, ahead, steps, "");
  LLVMValueRef mm[2] = {ahead, LLVMBuildSub(g->b, steps, ci64(g, 1), "")};
  ahead = cg_call_intrinsic(g, "llvm.umin", g->i64, mm, 2);
  LLVMValueRef first = LLVMBuildAdd(g->b, lo_min, LLVMBuildMul(g->b, ahead, step, ""), "");
  for (int k = 0; k < plan->n; k++) {
    LLVMValueRef lines = LLVMBuildSelect(g->b, some, plan->lines[k], ci64(g, 1), "");
    LLVMValueRef off = LLVMBuildMul(g->b, first, plan->size[k], "");
    LLVMValueRef p = LLVMBuildGEP2(g->b, g->i8, plan->data[k], &off, 1, "ahead");
    LLVMBasicBlockRef pre = LLVMGetInsertBlock(g->b), head = cg_new_bb(g, "prefetch"),
                      done = cg_new_bb(g, "prefetch.end");
    LLVMBuildBr(g->b, head);
    LLVMPositionBuilderAtEnd(g->b, head);
    LLVMValueRef line = LLVMBuildPhi(g->b, g->i64, "line"), zero = ci64(g, 0);
    LLVMAddIncoming(line, &zero, &pre, 1);
    LLVMValueRef at = LLVMBuildMul(g->b, line, ci64(g, 64), "");
    LLVMValueRef args[4] = {LLVMBuildGEP2(g->b, g->i8, p, &at, 1, ""), ci32(g, 0), ci32(g, 3),
                            ci32(g, 1)};   /* read, keep in every cache level, data */
    cg_call_intrinsic(g, "llvm.prefetch", g->ptr, args, 4);
    LLVMValueRef next = LLVMBuildNUWAdd(g->b, line, ci64(g, 1), "");
    LLVMAddIncoming(line, &next, &head, 1);
    LLVMValueRef latch = LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, next, lines, ""),
                                         head, done);
    host_keep_loop(g->c, latch);   /* a few prefetches: not worth unrolled copies */
    LLVMPositionBuilderAtEnd(g->b, done);
  }
}

/* A grid-stride loop, interchanged: the block takes step c = 0, 1, ... while some
 * thread has one left, and at each step every thread that has takes its iteration
 * i = start + c * step, so the threads of a step touch neighbouring elements and the
 * thread loop vectorises. A first thread loop finds the threads' smallest and largest
 * start, and so the most steps a thread takes.
 * Threads of a block are independent where no barrier is, so this order is one of
 * those CUDA allows; each thread still takes its own iterations, in order. */
/* One grid-stride loop's range for the block: its stop and step, the block's smallest
 * and largest start, and the most steps any thread takes. */
typedef struct strided_range {
  const type *t;
  node *start;
  LLVMValueRef stop, step, lo_min, lo_max, steps;
} strided_range;

/* The range of loop s (of region r) for the block, the builder left where every
 * thread's iterations fit in int64 (else the launch fails, as it does for a zero step). */
static void strided_range_of(cg_ctx *g, host_regions *R, node *s, int r, strided_range *sr) {
  const type *t = sr->t = s->b->ty;
  const node_list *a = &s->b->list;
  int n = a->len;
  sr->start = a->items[0];
  LLVMValueRef stop = sr->stop = LLVMBuildSExt(g->b, cg_expr_as(g, a->items[1], t), g->i64, "stop");
  LLVMValueRef step = sr->step = n == 3 ? LLVMBuildSExt(g->b, cg_expr_as(g, a->items[2], t), g->i64, "step")
                                        : ci64(g, 1);
  LLVMBasicBlockRef bad = cg_new_bb(g, "step.zero"), ok = cg_new_bb(g, "step.ok");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, step, ci64(g, 0), ""), bad, ok);
  LLVMPositionBuilderAtEnd(g->b, bad);
  host_trap(g, "ValueError: range() arg 3 must not be zero");
  LLVMBuildBr(g->b, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, ok);
  LLVMValueRef lo_min = cg_entry_alloca(g, g->i64, "lo.min"), lo_max = cg_entry_alloca(g, g->i64, "lo.max");
  if (t->bits == 64 && hr_thread_monotone(R, sr->start))
    corner_extremes(g, R, sr->start, t, r, lo_min, lo_max);
  else
    thread_extremes(g, R, sr->start, t, r, lo_min, lo_max);
  sr->lo_min = LLVMBuildLoad2(g->b, g->i64, lo_min, "");
  sr->lo_max = LLVMBuildLoad2(g->b, g->i64, lo_max, "");
  /* the thread starting furthest back (for a positive step, the smallest start) takes
     the most steps: one division for the block */
  LLVMValueRef first = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, step, ci64(g, 0), ""),
                                       sr->lo_min, sr->lo_max, "");
  sr->steps = trip_count(g, first, stop, step);
  LLVMBasicBlockRef wide = cg_new_bb(g, "range.wide"), fits = cg_new_bb(g, "range.fits");
  LLVMBuildCondBr(g->b, strided_fits(g, stop, step, sr->steps, sr->lo_min, sr->lo_max), fits, wide);
  LLVMPositionBuilderAtEnd(g->b, wide);
  host_trap(g, "a grid-stride range() this close to the int64 limits is not supported "
               "by the CPU back end");
  LLVMBuildBr(g->b, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, fits);
}

/* for c in range(steps), at the block's level: open_steps leaves the builder in the
 * body with c, close_steps ends it. */
typedef struct step_loop {
  LLVMValueRef ctr, c;
  LLVMBasicBlockRef head, done;
} step_loop;

static void open_steps(cg_ctx *g, step_loop *L, LLVMValueRef steps) {
  L->ctr = cg_entry_alloca(g, g->i64, "step.c");
  LLVMBuildStore(g->b, ci64(g, 0), L->ctr);
  L->head = cg_new_bb(g, "steps");
  L->done = cg_new_bb(g, "steps.end");
  LLVMBasicBlockRef body = cg_new_bb(g, "step");
  LLVMBuildBr(g->b, L->head);
  LLVMPositionBuilderAtEnd(g->b, L->head);
  L->c = LLVMBuildLoad2(g->b, g->i64, L->ctr, "c");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, L->c, steps, ""), body, L->done);
  LLVMPositionBuilderAtEnd(g->b, body);
}

static void close_steps(cg_ctx *g, step_loop *L) {
  LLVMBuildStore(g->b, LLVMBuildNUWAdd(g->b, L->c, ci64(g, 1), ""), L->ctr);
  LLVMBuildBr(g->b, L->head);
  LLVMPositionBuilderAtEnd(g->b, L->done);
}

/* In a thread's loop: its iteration i = start + c * step of sr, into target, when it
 * has one; else on to `next`. */
static void take_step(cg_ctx *g, const strided_range *sr, node *target, LLVMValueRef c,
                      LLVMBasicBlockRef next) {
  LLVMValueRef lo = LLVMBuildSExt(g->b, cg_expr_as(g, sr->start, sr->t), g->i64, "");
  LLVMValueRef i = strided_index(g, lo, c, sr->step);
  LLVMBasicBlockRef take = cg_new_bb(g, "step.take");
  LLVMBuildCondBr(g->b, before_stop(g, i, sr->stop, sr->step), take, next);
  LLVMPositionBuilderAtEnd(g->b, take);
  cg_store_target(g, target, LLVMBuildTrunc(g->b, i, cg_scalar_type(g, sr->t), ""), sr->t);
}

static void emit_strided(cg_ctx *g, host_regions *R, node *s) {
  int r = R->emitted++;
  node *in = hr_strided_inner(R, s);   /* a 2-D nest: both loops stepped by the block */
  strided_range outer, inner;
  strided_range_of(g, R, s, r, &outer);
  if (in) strided_range_of(g, R, in, r, &inner);
  node *last = in ? in : s;            /* the loop whose body runs */
  const strided_range *walk = in ? &inner : &outer;
  prefetch_plan plan;
  prefetch_plan_for(g, R, last, walk->step, walk->lo_min, walk->lo_max, &plan);
  /* for c in range(steps) [for c2 in range(steps2)]: for each thread: i = start +
     c * step [j = start2 + c2 * step2]; if in range: body */
  step_loop rows, cols;
  open_steps(g, &rows, outer.steps);
  if (in) open_steps(g, &cols, inner.steps);
  const step_loop *inmost = in ? &cols : &rows;
  prefetch_ahead(g, &plan, inmost->c, walk->steps, walk->step, walk->lo_min);
  host_thread_loops l;
  open_region(g, R, &l, r);
  LLVMBasicBlockRef next = cg_new_bb(g, "thread.next");
  take_step(g, &outer, s->a, rows.c, next);
  if (in) take_step(g, &inner, in->a, cols.c, next);
  loop_targets lt = {next, next}, *saved_loop = g->loop;
  g->loop = &lt;   /* continue: this thread's next step (break was ruled out) */
  for (int k = 0; k < last->body.len; k++) cg_statement(g, last->body.items[k]);
  if (!cg_terminated(g)) LLVMBuildBr(g->b, next);
  LLVMPositionBuilderAtEnd(g->b, next);
  host_thread_loops_close(g, &l);
  g->loop = saved_loop;
  R->block_level = true;
  for (int k = 0; k < 3; k++) g->tid[k] = ci32(g, 0);
  if (in) close_steps(g, &cols);
  close_steps(g, &rows);
}

/* The threads along `axis` that can take a region guarded by tid OP u (hr_region_bound)
 * are 0 .. last: the loop's length there, at least 1 (the thread loops test at the
 * end; a thread past u finds the guard false, as it would anyway). */
static LLVMValueRef bounded_dim(cg_ctx *g, LLVMValueRef dim, node *u, op_kind op) {
  LLVMValueRef v = cg_expr_as(g, u, u->ty);
  v = u->ty->is_signed ? LLVMBuildSExt(g->b, v, g->i64, "") : LLVMBuildZExt(g->b, v, g->i64, "");
  LLVMValueRef d = LLVMBuildZExt(g->b, dim, g->i64, "");
  /* threads 0 .. n-1 with n = u (tid < u) or u + 1 (tid <= u, tid == u), in [1, dim] */
  LLVMValueRef below = LLVMBuildICmp(g->b, LLVMIntSLT, v, ci64(g, op == OP_LT ? 1 : 0), "");
  LLVMValueRef past = LLVMBuildICmp(g->b, LLVMIntSGE, v, op == OP_LT ? d : LLVMBuildSub(g->b, d, ci64(g, 1), ""), "");
  LLVMValueRef n = op == OP_LT ? v : LLVMBuildAdd(g->b, v, ci64(g, 1), "");
  n = LLVMBuildSelect(g->b, past, d, n, "");
  n = LLVMBuildSelect(g->b, below, ci64(g, 1), n, "");
  return LLVMBuildTrunc(g->b, n, g->i32, "guarded");
}

static void emit_region(cg_ctx *g, host_regions *R, node **items, int n) {
  host_thread_loops l;
  int axis;
  op_kind op;
  node *u = hr_region_bound(R, items, n, &axis, &op);
  if (u && axis == g->fi->host_inner && g->fi->host_fused) u = NULL;   /* it runs over several blocks */
  LLVMValueRef upto = u ? bounded_dim(g, R->dims[axis], u, op) : NULL;
  open_region_upto(g, R, &l, R->emitted++, u ? axis : -1, upto);
  loop_targets *saved_loop = g->loop;
  LLVMBasicBlockRef saved_ret = g->ret_bb, next = cg_new_bb(g, "thread.next");
  g->loop = NULL;
  g->ret_bb = next;   /* a return ends this thread (no barrier follows: plan) */
  for (int k = 0; k < n; k++) cg_statement(g, items[k]);
  if (!cg_terminated(g)) LLVMBuildBr(g->b, next);
  LLVMPositionBuilderAtEnd(g->b, next);
  host_thread_loops_close(g, &l);
  R->block_level = true;
  g->loop = saved_loop;
  g->ret_bb = saved_ret;
  for (int k = 0; k < 3; k++) g->tid[k] = ci32(g, 0);
}

void host_regions_block(cg_ctx *g, node_list *body) {
  host_regions *R = g->regions;
  for (int i = 0; i < body->len;) {
    node *s = body->items[i];
    switch (hr_classify(R, s)) {
    case ST_BARRIER: i++; break;
    case ST_BLOCK: cg_statement(g, s); i++; break;
    case ST_STRIDED: emit_strided(g, R, s); i++; break;
    case ST_REGION: {
      int j = hr_region_end(R, body, i);
      emit_region(g, R, body->items + i, j - i);
      i = j;
      break;
    }
    }
  }
}

LLVMValueRef host_regions_local_array(cg_ctx *g, node *e, LLVMTypeRef at) {
  host_regions *R = g->regions;
  for (int k = 0; k < R->local_arrays.len; k++)
    if (R->local_arrays.items[k] == e && R->arr_base[k])
      return LLVMBuildInBoundsGEP2(g->b, at, R->arr_base[k], &R->lin, 1, "local");
  return cg_entry_alloca(g, at, "local");
}

static LLVMTypeRef local_array_type(cg_ctx *g, const node *e) {
  const int64_t *dims = e->aux_ptr;
  uint64_t n = 1;
  for (int k = 0; k < e->ty->ndim; k++) n *= (uint64_t)dims[k];
  return LLVMArrayType2(cg_mem_type(g, e->ty->elem), n);
}

/* bytes rounded up to a multiple of 64 */
static LLVMValueRef round64(cg_ctx *g, LLVMValueRef bytes) {
  return LLVMBuildAnd(g->b, LLVMBuildAdd(g->b, bytes, ci64(g, 63), ""), ci64(g, -64), "");
}

/* The buffer for what is kept per thread, one array per local, zeroed (a local read
 * before any assignment is 0, as elsewhere); false when there is none to be had (the
 * executor has failed the launch). */
static void lay_out_frame(cg_ctx *g, host_regions *R, LLVMValueRef nthreads) {
  R->base = arena_alloc(g->ar, sizeof *R->base * ((size_t)R->n + 1));
  R->arr_base = arena_alloc(g->ar, sizeof *R->arr_base * ((size_t)R->local_arrays.len + 1));
  LLVMTypeRef *types = arena_alloc(g->ar, sizeof *types * ((size_t)R->n + (size_t)R->local_arrays.len + 1));
  int nt = 0;
  for (int v = 0; v < R->n; v++)
    if (R->syms[v]->ty && hr_per_thread(R, v)) types[nt++] = cg_type(g, R->syms[v]->ty);
  for (int k = 0; k < R->local_arrays.len; k++) types[nt++] = local_array_type(g, R->local_arrays.items[k]);
  if (nt == 0) return;
  LLVMValueRef *offs = arena_alloc(g->ar, sizeof *offs * (size_t)nt);
  LLVMValueRef total = ci64(g, 0);
  for (int i = 0; i < nt; i++) {
    offs[i] = total;
    total = LLVMBuildAdd(g->b, total, round64(g, LLVMBuildMul(g->b, nthreads, LLVMSizeOf(types[i]), "")), "");
  }
  LLVMTypeRef pt[2] = {g->ptr, g->i64};
  LLVMTypeRef ft = LLVMFunctionType(g->ptr, pt, 2, 0);
  LLVMValueRef fp = cg_blk_load(g, KC_CPU_BLOCK_OFF_FRAME, g->ptr, "frame_fn");
  LLVMValueRef args[2] = {g->blk, total};
  LLVMValueRef frame = LLVMBuildCall2(g->b, ft, fp, args, 2, "frame");
  /* the worker's own buffer: no array of the kernel's is in it, as no other pointer is
     in malloc's memory, so the thread loops need no alias checks against it */
  unsigned noalias = LLVMGetEnumAttributeKindForName("noalias", 7);
  LLVMAddCallSiteAttribute(frame, LLVMAttributeReturnIndex, LLVMCreateEnumAttribute(g->c, noalias, 0));
  LLVMBasicBlockRef ok = cg_new_bb(g, "frame.ok");
  LLVMBuildCondBr(g->b, LLVMBuildIsNull(g->b, frame, ""), g->ret_bb, ok);
  LLVMPositionBuilderAtEnd(g->b, ok);
  LLVMBuildMemSet(g->b, frame, LLVMConstInt(g->i8, 0, 0), total, 64);
  int i = 0;
  for (int v = 0; v < R->n; v++)
    if (R->syms[v]->ty && hr_per_thread(R, v))
      R->base[v] = LLVMBuildInBoundsGEP2(g->b, g->i8, frame, &offs[i++], 1, "");
  for (int k = 0; k < R->local_arrays.len; k++)
    R->arr_base[k] = LLVMBuildInBoundsGEP2(g->b, g->i8, frame, &offs[i++], 1, "");
}

/* Locals that are not kept per thread: one each for the block; parameters take their
 * arguments (every thread's copy of a parameter kept per thread, in a first thread
 * loop). */
static void init_locals(cg_ctx *g, host_regions *R, LLVMValueRef *args) {
  fn_instance *f = R->f;
  bool any_thread_param = false;
  for (int v = 0; v < R->n; v++) {
    symbol *s = R->syms[v];
    if (!s->ty) continue;
    if (R->base[v]) {
      any_thread_param |= s->is_param;
      continue;
    }
    LLVMTypeRef lt = cg_type(g, s->ty);
    s->cg = cg_entry_alloca(g, lt, s->name);
    LLVMValueRef init = s->is_param
        ? cg_convert(g, args[s->param_index], f->param_types[s->param_index], s->ty)
        : LLVMConstNull(lt);
    LLVMBuildStore(g->b, init, s->cg);
  }
  if (!any_thread_param) return;
  host_thread_loops l;
  memcpy(l.dims, R->dims, sizeof l.dims);
  host_thread_loops_open_order(g, &l, g->fi->host_inner);
  enter_thread(g, R, &l);
  for (int v = 0; v < R->n; v++) {
    symbol *s = R->syms[v];
    if (R->base[v] && s->is_param)
      LLVMBuildStore(g->b, cg_convert(g, args[s->param_index], f->param_types[s->param_index], s->ty), s->cg);
  }
  host_thread_loops_close(g, &l);
}

/* a for loop among the function's top-level statements: perhaps a grid-stride one */
static bool top_level_loop(const fn_instance *f) {
  for (int i = 0; i < f->def->body.len; i++)
    if (((node *)f->def->body.items[i])->kind == N_FOR) return true;
  return false;
}

typedef struct saved_state {
  fn_instance *fi;
  LLVMValueRef fn, blk, tid[3], ret_slot;
  LLVMBasicBlockRef entry, ret_bb;
  loop_targets *loop;
} saved_state;

static void save_state(const cg_ctx *g, saved_state *s) {
  *s = (saved_state){g->fi, g->fn, g->blk, {g->tid[0], g->tid[1], g->tid[2]}, g->ret_slot,
                     g->entry, g->ret_bb, g->loop};
}

static void restore_state(cg_ctx *g, const saved_state *s) {
  g->fi = s->fi; g->fn = s->fn; g->blk = s->blk; g->ret_slot = s->ret_slot;
  g->entry = s->entry; g->ret_bb = s->ret_bb; g->loop = s->loop;
  for (int k = 0; k < 3; k++) g->tid[k] = s->tid[k];
  g->regions = NULL;
}

static bool env_off(const char *name) {
  const char *v = getenv(name);
  return v && strcmp(v, "0") == 0;
}

/* f's plan with its float-folding loops split (host_split.c), or NULL (f as written,
 * when none is or the split kernel does not plan: its loop is not the same length in
 * every thread). KC_CPU_SPLIT=0: never (to compare). */
static host_regions *split_plan(cg_ctx *g, fn_instance *f) {
  node_list whole = f->def->body, split = {0};
  int inner;
  if (f->noopt || env_off("KC_CPU_SPLIT") || !host_split_loops(g->ar, g->prog, f, &split, &inner))
    return NULL;
  /* the kernel as written has no barriers: its blocks may fuse as its own would */
  bool fused = host_fusable(g->ar, f, inner);
  f->def->body = split;
  host_regions *R = hr_plan(g->ar, f);
  if (R && !R->why) {
    f->host_inner = inner;
    f->host_fused = fused;
    return R;
  }
  f->def->body = whole;
  return NULL;
}

/* Vectors as wide as the CPU has (512 bits with AVX-512) in fn, a block's regions of a
 * kernel with barriers or split loops: LLVM picks 256 for Intel's AVX-512 CPUs, where
 * wide vectors can lower the clock, but these regions are folds over a block's rows
 * (acc += sa[ty, j] * sb[j, tx]: one vector per row of 16 threads), bound by the
 * multiplies and adds: 16x16 tiled matmul 7.9 -> 6.2 ms, Numba's matmul example
 * 9.5 -> 5.6, the shared-memory tree sum 9.3 -> 7.6, the tiled transpose 5.8 -> 5.0
 * (one worker, 2026-11-29). Element-wise grid-stride kernels stay at 256: the gaussian
 * pdf ufunc took 56 -> 78 ms at 512. KC_CPU_WIDE=0: never (to compare). Without
 * AVX-512 the attribute changes nothing. */
static void prefer_wide_vectors(cg_ctx *g, LLVMValueRef fn) {
  static const char key[] = "prefer-vector-width", value[] = "512";
  if (env_off("KC_CPU_WIDE")) return;
  LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
                          LLVMCreateStringAttribute(g->c, key, sizeof key - 1, value,
                                                    sizeof value - 1));
}

/* K__block(args, blk) in region form. */
bool host_regions_entry(cg_ctx *g, fn_instance *f) {
  if (env_off("KC_CPU_REGIONS")) return false;   /* 0: fibers for every barrier kernel */
  host_while_as_range(g->ar, g->prog, f);
  host_regions *R = split_plan(g, f);
  bool wide = R || f->uses_barrier;
  if (!R) {
    if (!f->uses_barrier && !top_level_loop(f)) return false;
    if (f->noopt || f->uses_grid_sync) {
      hr_explain(f, f->noopt ? "opt=False" : "a grid barrier");
      return false;
    }
    R = hr_plan(g->ar, f);
    if (!f->uses_barrier && (!R || R->why || R->strided.len == 0))
      return false;   /* no barrier and no grid-stride loop: the plain K__block */
    if (!R || R->why) {
      hr_explain(f, R ? R->why : "");
      return false;
    }
    f->host_fused = host_fusable(g->ar, f, 0);   /* x innermost: f->host_inner is 0 */
  }
  saved_state saved;
  save_state(g, &saved);
  LLVMTypeRef pt[2] = {g->ptr, g->ptr};
  const char *name = arena_printf(g->ar, "%s__block", f->symbol_name);
  g->fn = LLVMAddFunction(g->m, name, LLVMFunctionType(g->voidt, pt, 2, 0));
  g->fi = f;
  g->entry = cg_new_bb(g, "entry");
  g->ret_bb = cg_new_bb(g, "return");
  g->ret_slot = NULL;
  g->loop = NULL;
  LLVMPositionBuilderAtEnd(g->b, g->entry);
  cg_entry_debug(g, g->fn, f);
  g->blk = LLVMGetParam(g->fn, 1);
  for (int k = 0; k < 3; k++) g->tid[k] = ci32(g, 0);
  LLVMValueRef *args = arena_alloc(g->ar, sizeof *args * ((size_t)f->nparams + 1));
  host_unpack_args(g, f, LLVMGetParam(g->fn, 0), g->blk, args);
  host_block_dims(g, g->blk, R->dims, f->host_fused ? f->host_inner : -1);
  LLVMValueRef nthreads = ci64(g, 1);
  for (int k = 0; k < 3; k++)
    nthreads = LLVMBuildNUWMul(g->b, nthreads, LLVMBuildZExt(g->b, R->dims[k], g->i64, ""), "");
  lay_out_frame(g, R, nthreads);
  init_locals(g, R, args);
  g->regions = R;
  R->block_level = true;
  host_regions_block(g, &f->def->body);
  if (!cg_terminated(g)) LLVMBuildBr(g->b, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, g->ret_bb);
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  if (f->fastmath) cg_set_fast_math_flags(g->fn);
  if (wide) prefer_wide_vectors(g, g->fn);
  restore_state(g, &saved);
  return true;
}

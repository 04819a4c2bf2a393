/*
 * cg_stmts.c — code generation of statements: assignments (to locals, elements,
 * slices, record fields, tuple targets), augmented assignment, if, while, for over
 * range() (other iterables' loops are cg_loops.c's), break, continue, return, assert
 * and raise (cg_checks.c), and the debug location each statement sets; the watchdog's
 * check at loop back edges (cg_loop_check). Expressions are codegen.c's.
 */
#include <string.h>

#include <llvm-c/DebugInfo.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "cg_records.h"
#include "host_abi.h"
#include "host_regions.h"
#include "loops.h"

void cg_set_debug_loc(cg_ctx *g, span sp) {
  if (!g->dib || !g->di_sp || sp.line == 0) return;
  LLVMMetadataRef loc = LLVMDIBuilderCreateDebugLocation(g->c, (unsigned)sp.line,
                                                         (unsigned)sp.col, g->di_sp, NULL);
  LLVMSetCurrentDebugLocation2(g->b, loc);
}

static void store_target(cg_ctx *g, node *t, LLVMValueRef v, const type *vt) {
  switch (t->kind) {
  case N_NAME: {
    symbol *s = t->sym;
    LLVMBuildStore(g->b, cg_convert(g, v, vt, s->ty), s->cg);
    return;
  }
  case N_TUPLE:
    for (int i = 0; i < t->list.len; i++)
      store_target(g, t->list.items[i], LLVMBuildExtractValue(g->b, v, (unsigned)i, ""), vt->elems[i]);
    return;
  case N_ATTR:
    cg_record_store(g, t, v, vt);
    return;
  case N_INDEX: {
    if (t->ty->kind == TY_ARRAY) {   /* a[1:] = v */
      cg_store_slice(g, t, v, vt);
      return;
    }
    const type *el = t->a->ty->elem;
    if (el->kind == TY_RECORD) {
      cg_record_copy(g, cg_element_ptr(g, t), v, el);
      return;
    }
    cg_store_element(g, cg_element_ptr(g, t), cg_convert(g, v, vt, el), el);
    return;
  }
  default:
    cg_internal_error(g, t->sp, "bad assignment target");
  }
}

static void cg_assign(cg_ctx *g, node *s) {
  LLVMValueRef v = cg_expr(g, s->a);
  for (int i = 0; i < s->list.len; i++) store_target(g, s->list.items[i], v, s->a->ty);
}

/* x op= v: the target's address is computed once (a[i] += v indexes a once). */
static void cg_augassign(cg_ctx *g, node *s) {
  node *t = s->a;
  const type *rt = s->ty;
  if (t->kind == N_ATTR) {
    cg_record_augassign(g, s);
    return;
  }
  bool name = t->kind == N_NAME;
  const type *tt = name ? t->sym->ty : t->a->ty->elem;
  LLVMValueRef p = name ? t->sym->cg : cg_element_ptr(g, t);
  LLVMValueRef cur = name ? LLVMBuildLoad2(g->b, cg_type(g, tt), p, "") : cg_load_element(g, p, tt);
  LLVMValueRef a = cg_convert(g, cur, tt, rt);
  LLVMValueRef r = cg_augmented_value(g, s, a, rt);
  if (name) LLVMBuildStore(g->b, cg_convert(g, r, rt, tt), p);
  else cg_store_element(g, p, cg_convert(g, r, rt, tt), tt);
}

static void cg_if(cg_ctx *g, node *s) {
  LLVMBasicBlockRef tb = cg_new_bb(g, "if.then"), eb = cg_new_bb(g, "if.else"), done = cg_new_bb(g, "if.end");
  LLVMBuildCondBr(g->b, cg_to_bool(g, cg_expr(g, s->a), s->a->ty), tb, eb);
  LLVMPositionBuilderAtEnd(g->b, tb);
  cg_block(g, &s->body);
  cg_br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, eb);
  cg_block(g, &s->orelse);
  cg_br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

static void cg_loop_body(cg_ctx *g, node_list *body, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
  loop_targets lt = {brk, cont}, *saved = g->loop;
  g->loop = &lt;
  cg_block(g, body);
  g->loop = saved;
  cg_br_if_open(g, cont);
}

/* What may keep a loop's body from ending soon: a nested loop, a call of a device
 * function (which may hold one), or a barrier or collective (the thread waits for the
 * others there; such a loop does not vectorise anyway). */
static bool may_wait_here(const node *n, void *ud) {
  (void)ud;
  if (n->kind == N_WHILE || n->kind == N_FOR) return true;
  if (n->kind != N_CALL) return false;
  return !n->bi || (n->bi->flags & (BF_BARRIER | BF_WARP | BF_GROUP));
}

/* A for loop whose count is a constant this small ends soon whatever its body does
 * between its passes (any while loop in it has its own check), and LLVM may unroll it
 * whole: a check would then keep the threads' loop from vectorising. */
#define LOOP_CHECK_MIN_COUNT 65536

/* The watchdog's check (cg_target.loop_check) at the back edge of loop s, at the
 * builder's position. Every while loop has one. A for loop of `count` passes (an i64
 * or the range's type) has one only when its body holds what may_wait_here looks for
 * and count is not a constant below LOOP_CHECK_MIN_COUNT: an innermost for loop, whose
 * count is fixed when it starts and which therefore ends, still vectorises. */
void cg_loop_check(cg_ctx *g, const node *s, LLVMValueRef count) {
  if (!g->target->loop_check || !g->opts->loop_checks) return;
  if (s->kind == N_FOR) {
    if (count && LLVMIsAConstantInt(count) &&
        LLVMConstIntGetZExtValue(count) < LOOP_CHECK_MIN_COUNT)
      return;
    if (!ast_visit_list(&s->body, may_wait_here, NULL)) return;
  }
  g->target->loop_check(g);
}

static void cg_while(cg_ctx *g, node *s) {
  LLVMBasicBlockRef cond = cg_new_bb(g, "while.cond"), body = cg_new_bb(g, "while.body"),
                    els = cg_new_bb(g, "while.else"), done = cg_new_bb(g, "while.end");
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, cond);
  cg_set_debug_loc(g, s->sp);
  cg_loop_check(g, s, NULL);
  LLVMBuildCondBr(g->b, cg_to_bool(g, cg_expr(g, s->a), s->a->ty), body, els);
  LLVMPositionBuilderAtEnd(g->b, body);
  cg_loop_body(g, &s->body, done, cond);
  LLVMPositionBuilderAtEnd(g->b, els);
  cg_block(g, &s->orelse);
  cg_br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

/* The number of iterations of range(start, stop, step), as Python's len(range(...)):
 * the distance over |step|, rounded up, computed unsigned so that ranges spanning most
 * of the type (range(0, 2**63 - 1, 2**62 - 1) has 3) neither overflow nor wrap. A step
 * of 0 (only possible at run time) gives no iterations. */
static LLVMValueRef range_count(cg_ctx *g, LLVMValueRef start, LLVMValueRef stop,
                                LLVMValueRef step, bool sgn) {
  LLVMBuilderRef b = g->b;
  LLVMTypeRef lt = LLVMTypeOf(start);
  LLVMValueRef zero = LLVMConstNull(lt), one = LLVMConstInt(lt, 1, 0);
  LLVMValueRef up = sgn ? LLVMBuildICmp(b, LLVMIntSGT, step, zero, "")
                        : LLVMBuildICmp(b, LLVMIntNE, step, zero, "");
  LLVMValueRef down = sgn ? LLVMBuildICmp(b, LLVMIntSLT, step, zero, "") : LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef ahead = LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, start, stop, "");
  LLVMValueRef behind = LLVMBuildICmp(b, LLVMIntSGT, start, stop, "");
  LLVMValueRef nonempty = LLVMBuildOr(b, LLVMBuildAnd(b, up, ahead, ""),
                                      LLVMBuildAnd(b, down, behind, ""), "");
  /* distance and |step| as unsigned numbers of the type's width: both exact */
  LLVMValueRef dist = LLVMBuildSelect(b, up, LLVMBuildSub(b, stop, start, ""),
                                      LLVMBuildSub(b, start, stop, ""), "");
  LLVMValueRef mag = LLVMBuildSelect(b, down, LLVMBuildNeg(b, step, ""), step, "");
  mag = LLVMBuildSelect(b, nonempty, mag, one, "");
  LLVMValueRef n = LLVMBuildAdd(b, LLVMBuildUDiv(b, LLVMBuildSub(b, dist, one, ""), mag, ""), one, "");
  return LLVMBuildSelect(b, nonempty, n, zero, "range.len");
}

/* for i in range(start, stop, step) with a step known only at run time (the grid-stride
 * loop: range(cuda.grid(1), n, cuda.gridsize(1))): no trip count, whose division would
 * cost every thread a div.u64 on the GPU. The loop runs while the distance left to stop
 * is more than |step|, compared unsigned, so nothing overflows near the type's ends and
 * a step of either sign (or 0: no iterations) keeps Python's meaning; a hidden counter
 * still drives it, as in cg_for. */
static void cg_for_stepped(cg_ctx *g, node *s, LLVMValueRef start, LLVMValueRef stop,
                           LLVMValueRef step, const type *t) {
  LLVMBuilderRef b = g->b;
  LLVMTypeRef lt = LLVMTypeOf(start);
  bool sgn = t->is_signed;
  LLVMValueRef zero = LLVMConstNull(lt);
  LLVMValueRef up = sgn ? LLVMBuildICmp(b, LLVMIntSGT, step, zero, "")
                        : LLVMBuildICmp(b, LLVMIntNE, step, zero, "");
  LLVMValueRef down = sgn ? LLVMBuildICmp(b, LLVMIntSLT, step, zero, "") : LLVMConstInt(g->i1, 0, 0);
  LLVMValueRef ahead = LLVMBuildICmp(b, sgn ? LLVMIntSLT : LLVMIntULT, start, stop, "");
  LLVMValueRef behind = LLVMBuildICmp(b, LLVMIntSGT, start, stop, "");
  LLVMValueRef nonempty = LLVMBuildOr(b, LLVMBuildAnd(b, up, ahead, ""),
                                      LLVMBuildAnd(b, down, behind, ""), "");
  LLVMValueRef mag = LLVMBuildSelect(b, down, LLVMBuildNeg(b, step, ""), step, "");
  LLVMValueRef ctr = cg_entry_alloca(g, lt, "for.i");
  LLVMBuildStore(b, start, ctr);
  LLVMBasicBlockRef body = cg_new_bb(g, "for.body"), inc = cg_new_bb(g, "for.inc"),
                    next = cg_new_bb(g, "for.next"), els = cg_new_bb(g, "for.else"),
                    done = cg_new_bb(g, "for.end");
  LLVMBuildCondBr(b, nonempty, body, els);
  LLVMPositionBuilderAtEnd(b, body);
  store_target(g, s->a, LLVMBuildLoad2(b, lt, ctr, ""), t);
  cg_loop_body(g, &s->body, done, inc);
  LLVMPositionBuilderAtEnd(b, inc);
  cg_loop_check(g, s, NULL);
  LLVMValueRef cur = LLVMBuildLoad2(b, lt, ctr, "");
  LLVMValueRef left = LLVMBuildSelect(b, up, LLVMBuildSub(b, stop, cur, ""),
                                      LLVMBuildSub(b, cur, stop, ""), "for.left");
  LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntUGT, left, mag, ""), next, els);
  LLVMPositionBuilderAtEnd(b, next);
  LLVMBuildStore(b, sgn ? LLVMBuildNSWAdd(b, cur, step, "") : LLVMBuildAdd(b, cur, step, ""), ctr);
  LLVMBuildBr(b, body);
  LLVMPositionBuilderAtEnd(b, els);
  cg_block(g, &s->orelse);
  cg_br_if_open(g, done);
  LLVMPositionBuilderAtEnd(b, done);
}

/* for i in range(start, stop, step): a hidden counter drives the loop, so assigning to
 * i in the body does not change the iteration (Python's rule). The loop runs for
 * range_count iterations; i steps alongside (nsw: it is in range whenever it is used,
 * and the value past the last iteration is never read). A constant step makes the
 * count's division one by a constant (none for 1), which LLVM turns into shifts and
 * multiplies; another step takes cg_for_stepped. */
static void cg_for(cg_ctx *g, node *s) {
  if (s->aux_ptr) {   /* not a plain range: cg_loops.c */
    cg_for_iter(g, s);
    return;
  }
  node *r = s->b;
  const type *t = r->ty;
  LLVMTypeRef lt = cg_scalar_type(g, t);
  int n = r->list.len;
  LLVMValueRef start = n >= 2 ? cg_expr_as(g, r->list.items[0], t) : LLVMConstNull(lt);
  LLVMValueRef stop = cg_expr_as(g, r->list.items[n >= 2 ? 1 : 0], t);
  LLVMValueRef step = n == 3 ? cg_expr_as(g, r->list.items[2], t) : LLVMConstInt(lt, 1, 0);
  if (!LLVMIsAConstantInt(step)) {
    cg_for_stepped(g, s, start, stop, step, t);
    return;
  }
  bool sgn = t->is_signed;
  LLVMValueRef count = range_count(g, start, stop, step, sgn);
  LLVMValueRef ctr = cg_entry_alloca(g, lt, "for.i"), left = cg_entry_alloca(g, lt, "for.left");
  LLVMBuildStore(g->b, start, ctr);
  LLVMBuildStore(g->b, count, left);
  LLVMBasicBlockRef cond = cg_new_bb(g, "for.cond"), body = cg_new_bb(g, "for.body"),
                    inc = cg_new_bb(g, "for.inc"), els = cg_new_bb(g, "for.else"),
                    done = cg_new_bb(g, "for.end");
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, cond);
  LLVMValueRef more = LLVMBuildICmp(g->b, LLVMIntNE, LLVMBuildLoad2(g->b, lt, left, ""),
                                    LLVMConstNull(lt), "");
  LLVMBuildCondBr(g->b, more, body, els);
  LLVMPositionBuilderAtEnd(g->b, body);
  store_target(g, s->a, LLVMBuildLoad2(g->b, lt, ctr, ""), t);
  cg_loop_body(g, &s->body, done, inc);
  LLVMPositionBuilderAtEnd(g->b, inc);
  cg_loop_check(g, s, count);
  LLVMValueRef cur = LLVMBuildLoad2(g->b, lt, ctr, "");
  LLVMBuildStore(g->b, sgn ? LLVMBuildNSWAdd(g->b, cur, step, "") : LLVMBuildAdd(g->b, cur, step, ""), ctr);
  LLVMBuildStore(g->b, LLVMBuildSub(g->b, LLVMBuildLoad2(g->b, lt, left, ""), LLVMConstInt(lt, 1, 0), ""), left);
  LLVMBuildBr(g->b, cond);
  LLVMPositionBuilderAtEnd(g->b, els);
  cg_block(g, &s->orelse);
  cg_br_if_open(g, done);
  LLVMPositionBuilderAtEnd(g->b, done);
}

void cg_store_target(cg_ctx *g, node *t, LLVMValueRef v, const type *vt) {
  store_target(g, t, v, vt);
}

void cg_loop_block(cg_ctx *g, node_list *body, LLVMBasicBlockRef brk, LLVMBasicBlockRef cont) {
  cg_loop_body(g, body, brk, cont);
}

void cg_else_block(cg_ctx *g, node_list *orelse, LLVMBasicBlockRef done) {
  cg_block(g, orelse);
  cg_br_if_open(g, done);
}

static void cg_return(cg_ctx *g, node *s) {
  bool none = !s->a || s->a->kind == N_NONE;
  if (!none && g->ret_slot)
    LLVMBuildStore(g->b, cg_expr_as(g, s->a, g->fi->ret), g->ret_slot);
  else if (g->ret_slot && g->fi->ret->kind == TY_OPTIONAL)
    LLVMBuildStore(g->b, cg_none(g, g->fi->ret), g->ret_slot);
  LLVMBuildBr(g->b, g->ret_bb);
}

static void cg_stmt(cg_ctx *g, node *s) {
  cg_set_debug_loc(g, s->sp);
  switch (s->kind) {
  case N_EXPR_STMT:
    if (s->a->kind != N_STR) cg_expr(g, s->a);
    return;
  case N_ASSIGN: cg_assign(g, s); return;
  case N_AUGASSIGN: cg_augassign(g, s); return;
  case N_ANNASSIGN:
    if (s->c) store_target(g, s->a, cg_expr(g, s->c), s->c->ty);
    return;
  case N_IF: cg_if(g, s); return;
  case N_WHILE: cg_while(g, s); return;
  case N_FOR: cg_for(g, s); return;
  case N_BREAK: LLVMBuildBr(g->b, g->loop->brk); return;
  case N_CONTINUE: LLVMBuildBr(g->b, g->loop->cont); return;
  case N_RETURN: cg_return(g, s); return;
  case N_PASS: return;
  case N_FUNCDEF: return;   /* an inner function: compiled per call (funcval.c) */
  case N_ASSERT: case N_RAISE: cg_check_stmt(g, s); return;
  default: cg_internal_error(g, s->sp, "statement not handled by the code generator");
  }
}

void cg_block(cg_ctx *g, node_list *body) {
  if (host_regions_at_block_level(g)) {   /* a region-form kernel: host_regions.c */
    host_regions_block(g, body);
    return;
  }
  for (int i = 0; i < body->len; i++) {
    if (cg_terminated(g)) {
      /* code after break/continue/return: give it a block of its own (unreachable) */
      LLVMPositionBuilderAtEnd(g->b, cg_new_bb(g, "dead"));
    }
    cg_stmt(g, body->items[i]);
  }
}

void cg_statement(cg_ctx *g, node *s) {
  if (cg_terminated(g)) LLVMPositionBuilderAtEnd(g->b, cg_new_bb(g, "dead"));
  cg_stmt(g, s);
}

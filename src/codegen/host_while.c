/*
 * host_while.c — CPU back end: a grid-stride loop written as a while loop,
 *
 *     i = cuda.grid(1)                      i = cuda.grid(1)     (now a pass)
 *     stride = cuda.gridsize(1)             stride = cuda.gridsize(1)
 *     while i < n:                   ->     for i in range(cuda.grid(1), n, stride):
 *         out[i] = a[i] * 2                     out[i] = a[i] * 2
 *         i += stride
 *
 * rewritten as the range loop it is, so that the region form runs it step by step for
 * the whole block as it runs `for i in range(start, n, stride)` (host_regions.c): the
 * while form kept each thread walking the array a grid apart on its own, 7-19x slower
 * (bench/cpu_kernels.k's gs_while rows). Only at the kernel's top level, where the
 * region form looks for grid-stride loops.
 *
 * The two loops take the same steps when
 *   - the body's last statement is `i += step` (or `i = i + step`) and nothing else in
 *     it assigns i, continues this loop, breaks or returns;
 *   - stop and step are computed from values the body does not change: locals it does
 *     not assign, constants, shapes, thread coordinates, pure builtins; no array
 *     element, no device function (the while loop re-reads them every time round);
 *   - the nearest earlier statement that names i is `i = start`, start such a value
 *     too, its locals unchanged between there and the loop (the range reads it later);
 *   - nothing after the loop reads i (the range leaves it at its last value, not past
 *     stop);
 *   - step > 0. A step of 0 or below never ends the while loop once a thread has
 *     i < stop, so no program that finishes is changed (a zero step now stops the
 *     launch with range()'s ValueError instead of hanging).
 * The range counts in int64 whatever i's type, as `i < stop` compares the two values,
 * and stores into i as i's assignments did.
 */
#include <stdint.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "host_regions.h"

static bool is_name_of(const node *e, const symbol *s) {
  return e && e->kind == N_NAME && e->sym == s;
}

static bool names_here(const node *n, void *ud) {
  const symbol *s = ud;
  return is_name_of(n, s);
}

static bool mentions(const node *n, const symbol *s) { return ast_visit(n, names_here, (void *)s); }

static bool list_mentions(const node_list *l, int from, int to, const symbol *s) {
  for (int k = from; k < to; k++)
    if (mentions(l->items[k], s)) return true;
  return false;
}

bool host_pure_value(const node *e) {
  if (!e) return true;
  switch (e->kind) {
  case N_INT: case N_BOOL: case N_FLOAT: return true;
  case N_NAME: return e->sym || e->bi;
  case N_ATTR:   /* a register (cuda.gridDim.x), or an attribute of a pure value */
    if (e->bi && (e->bi->flags & (BF_UNIFORM | BF_THREAD_INDEX))) return true;
    return host_pure_value(e->a);
  case N_INDEX:   /* a shape's or a tuple's element, not an array's */
    return e->a->ty && e->a->ty->kind == TY_TUPLE && host_pure_value(e->a) && host_pure_value(e->b);
  case N_UNARY: return host_pure_value(e->a);
  case N_BINOP: return host_pure_value(e->a) && host_pure_value(e->b);
  case N_IFEXP: return host_pure_value(e->a) && host_pure_value(e->b) && host_pure_value(e->c);
  case N_COMPARE: case N_BOOLOP: case N_TUPLE:
    for (int k = 0; k < e->list.len; k++)
      if (!host_pure_value(e->list.items[k])) return false;
    return true;
  case N_CALL:
    if (!e->bi || !(e->bi->flags & (BF_PURE | BF_UNIFORM | BF_THREAD_INDEX)) || e->kwargs.len)
      return false;
    for (int k = 0; k < e->list.len; k++)
      if (!host_pure_value(e->list.items[k])) return false;
    return true;
  default: return false;
  }
}

/* ---- the locals a value reads, and whether statements assign one of them ---- */

typedef struct read_set { arena *ar; ptr_vec syms; } read_set;

static bool note_read(const node *n, void *ud) {
  read_set *r = ud;
  if (n->kind == N_NAME && n->sym && n->sym->kind == SYM_LOCAL) vec_push(r->ar, &r->syms, n->sym);
  return false;
}

typedef struct assign_query { const ptr_vec *syms; bool hit; } assign_query;

static void target_hits(const node *t, assign_query *q) {
  if (t->kind == N_TUPLE || t->kind == N_LIST) {
    for (int k = 0; k < t->list.len; k++) target_hits(t->list.items[k], q);
    return;
  }
  if (t->kind == N_STARRED) target_hits(t->a, q);
  if (t->kind != N_NAME) return;
  for (int k = 0; k < q->syms->len; k++)
    if (t->sym == q->syms->items[k]) q->hit = true;
}

static void note_target(const node *t, void *ud) { target_hits(t, ud); }

static bool assigns_here(const node *s, int loops, void *ud) {
  (void)loops;
  assign_query *q = ud;
  ast_assign_targets(s, note_target, q);
  return q->hit;
}

/* Whether statements l[from, to) assign any local in syms. */
static bool assigns_any(const node_list *l, int from, int to, const ptr_vec *syms) {
  assign_query q = {syms, false};
  for (int k = from; k < to && !q.hit; k++) ast_visit_stmt(l->items[k], assigns_here, &q);
  return q.hit;
}

static void reads_of(arena *ar, const node *e, read_set *r) {
  r->ar = ar;
  ast_visit(e, note_read, r);
}

/* ---- the loop's parts ---- */

typedef struct while_loop {
  const symbol *i;
  node *target, *stop, *step;
} while_loop;

/* `i += step` or `i = i + step`, i the loop's local: step, or NULL */
static node *increment_of(const node *s, const symbol *i) {
  if (s->kind == N_AUGASSIGN && s->op == OP_ADD && is_name_of(s->a, i)) return s->b;
  if (s->kind == N_ASSIGN && s->list.len == 1 && is_name_of(s->list.items[0], i) &&
      s->a->kind == N_BINOP && s->a->op == OP_ADD && is_name_of(s->a->a, i))
    return s->a->b;
  return NULL;
}

static bool int_up_to_64(const type *t, bool need_signed) {
  return t && t->kind == TY_INT && t->bits <= 64 && (t->is_signed || (!need_signed && t->bits < 64));
}

static bool jump_here(const node *s, int loops, void *ud) {
  (void)ud;
  return s->kind == N_RETURN || ((s->kind == N_BREAK || s->kind == N_CONTINUE) && loops == 0);
}

/* The parts of `while i < stop: ...; i += step`, or false. */
static bool match_while(const node *s, while_loop *w) {
  if (s->kind != N_WHILE || s->orelse.len || s->body.len < 2) return false;
  const node *c = s->a;
  if (c->kind != N_COMPARE || c->list.len != 2 || c->cmp_ops[0] != OP_LT) return false;
  node *target = c->list.items[0];
  if (target->kind != N_NAME || !target->sym || target->sym->kind != SYM_LOCAL ||
      !int_up_to_64(target->ty, true))
    return false;
  w->i = target->sym;
  w->target = target;
  w->stop = c->list.items[1];
  w->step = increment_of(s->body.items[s->body.len - 1], w->i);
  if (!w->step || !int_up_to_64(w->stop->ty, false) || !int_up_to_64(w->step->ty, false))
    return false;
  if (mentions(w->stop, w->i) || mentions(w->step, w->i) || !host_pure_value(w->stop) ||
      !host_pure_value(w->step))
    return false;
  const node_list *body = &s->body;
  for (int k = 0; k < body->len; k++)
    if (ast_visit_stmt(body->items[k], jump_here, NULL)) return false;
  ptr_vec one = {0};
  one.items = (void **)&w->i;
  one.len = one.cap = 1;
  return !assigns_any(body, 0, body->len - 1, &one);
}

/* The range call node for range(start, stop, step), counting in int64. */
static node *range_call(arena *ar, const builtin *range, const node *s, node *start,
                        const while_loop *w) {
  node *r = node_new(ar, N_CALL, s->sp);
  r->a = node_new(ar, N_NAME, s->sp);
  r->a->str = "range";
  r->a->bi = r->bi = range;
  r->ty = &ty_i64;
  node_push(ar, &r->list, start);
  node_push(ar, &r->list, w->stop);
  node_push(ar, &r->list, w->step);
  return r;
}

/* Rewrite top-level statement k of body when it is such a loop. */
static void rewrite_at(arena *ar, const builtin *range, node_list *body, int k) {
  node *s = body->items[k];
  while_loop w;
  if (!match_while(s, &w) || list_mentions(body, k + 1, body->len, w.i)) return;
  int d = k - 1;
  while (d >= 0 && !mentions(body->items[d], w.i)) d--;
  if (d < 0) return;
  node *init = body->items[d];
  if (init->kind != N_ASSIGN || init->list.len != 1 || !is_name_of(init->list.items[0], w.i) ||
      mentions(init->a, w.i) || !host_pure_value(init->a) || !int_up_to_64(init->a->ty, false))
    return;
  read_set start_reads = {0}, loop_reads = {0};
  reads_of(ar, init->a, &start_reads);
  reads_of(ar, init->a, &loop_reads);
  reads_of(ar, w.stop, &loop_reads);
  reads_of(ar, w.step, &loop_reads);
  /* start is read later than it was; stop and step at the loop, as before */
  if (assigns_any(body, d + 1, k, &start_reads.syms) ||
      assigns_any(&s->body, 0, s->body.len, &loop_reads.syms))
    return;
  node *loop = node_new(ar, N_FOR, s->sp);
  loop->a = w.target;
  loop->b = range_call(ar, range, s, init->a, &w);
  for (int j = 0; j + 1 < s->body.len; j++) node_push(ar, &loop->body, s->body.items[j]);
  body->items[k] = loop;
  body->items[d] = node_new(ar, N_PASS, init->sp);
}

void host_while_as_range(arena *ar, const program *p, fn_instance *f) {
  node_list *body = &f->def->body;
  if (!p->range) return;
  for (int k = 0; k < body->len; k++) rewrite_at(ar, p->range, body, k);
}

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

static bool list_names(const node_list *l, int from, int to, const symbol *s) {
  for (int k = from; k < to; k++)
    if (host_names(l->items[k], s)) return true;
  return false;
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

/* The parts of `while i < stop: ...; i += step`, or false. */
static bool match_while(arena *ar, const node *s, while_loop *w) {
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
  if (host_names(w->stop, w->i) || host_names(w->step, w->i) || !host_pure_value(w->stop) ||
      !host_pure_value(w->step) || host_leaves_loop(&s->body))
    return false;
  ptr_vec assigned = {0};   /* i only by the step */
  host_assigned_locals(ar, &s->body, 0, s->body.len - 1, &assigned);
  for (int k = 0; k < assigned.len; k++)
    if (assigned.items[k] == w->i) return false;
  return true;
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
  if (!match_while(ar, s, &w) || list_names(body, k + 1, body->len, w.i)) return;
  int d = k - 1;
  while (d >= 0 && !host_names(body->items[d], w.i)) d--;
  if (d < 0) return;
  node *init = body->items[d];
  if (init->kind != N_ASSIGN || init->list.len != 1 || !is_name_of(init->list.items[0], w.i) ||
      host_names(init->a, w.i) || !host_pure_value(init->a) || !int_up_to_64(init->a->ty, false))
    return;
  /* start is read later than it was, and the region form reads start, stop and step
     again at every step: none may change in between */
  ptr_vec reads = {0}, between = {0}, in_loop = {0};
  host_read_locals(ar, init->a, &reads);
  host_assigned_locals(ar, body, d + 1, k, &between);
  if (host_shares_local(&reads, &between)) return;
  host_read_locals(ar, w.stop, &reads);
  host_read_locals(ar, w.step, &reads);
  host_assigned_locals(ar, &s->body, 0, s->body.len, &in_loop);
  if (host_shares_local(&reads, &in_loop)) return;
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

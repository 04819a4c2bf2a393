/*
 * host_scan.c — questions about a kernel's typed tree that the CPU back end's rewrites
 * ask before changing it (host_while.c, host_split.c): what a value reads, what
 * statements assign, whether a loop body leaves the loop.
 */
#include "builtins/builtin.h"
#include "cg.h"
#include "host_regions.h"

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

static bool names_here(const node *n, void *ud) { return n->kind == N_NAME && n->sym == ud; }

bool host_names(const node *n, const symbol *s) { return ast_visit(n, names_here, (void *)s); }

typedef struct local_set { arena *ar; ptr_vec *out; } local_set;

static void add_local(local_set *q, const symbol *s) {
  for (int k = 0; k < q->out->len; k++)
    if (q->out->items[k] == s) return;
  vec_push(q->ar, q->out, (void *)s);
}

static bool note_read(const node *n, void *ud) {
  if (n->kind == N_NAME && n->sym && n->sym->kind == SYM_LOCAL) add_local(ud, n->sym);
  return false;
}

void host_read_locals(arena *ar, const node *e, ptr_vec *out) {
  local_set q = {ar, out};
  ast_visit(e, note_read, &q);
}

static void note_target(const node *t, void *ud) {
  if (t->kind == N_TUPLE || t->kind == N_LIST) {
    for (int k = 0; k < t->list.len; k++) note_target(t->list.items[k], ud);
  } else if (t->kind == N_STARRED) {
    note_target(t->a, ud);
  } else if (t->kind == N_NAME && t->sym) {
    add_local(ud, t->sym);
  }
}

static bool note_assigned(const node *s, int loops, void *ud) {
  (void)loops;
  ast_assign_targets(s, note_target, ud);
  return false;
}

void host_assigned_locals(arena *ar, const node_list *l, int from, int to, ptr_vec *out) {
  local_set q = {ar, out};
  for (int k = from; k < to; k++) ast_visit_stmt(l->items[k], note_assigned, &q);
}

bool host_shares_local(const ptr_vec *a, const ptr_vec *b) {
  for (int i = 0; i < a->len; i++)
    for (int j = 0; j < b->len; j++)
      if (a->items[i] == b->items[j]) return true;
  return false;
}

static bool leaves_here(const node *s, int loops, void *ud) {
  (void)ud;
  return s->kind == N_RETURN || ((s->kind == N_BREAK || s->kind == N_CONTINUE) && loops == 0);
}

bool host_leaves_loop(const node_list *body) { return ast_visit_stmts(body, leaves_here, NULL); }

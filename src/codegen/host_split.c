/*
 * host_split.c — CPU back end: a barrier-free kernel whose threads each run a long
 * loop of the same length, folding into a float,
 *
 *     i, j = cuda.grid(2)
 *     if i < n and j < m:
 *         acc = float32(0)
 *         for k in range(p):          (Numba's matmul example; n-body forces; dots)
 *             acc += a[i, k] * b[k, j]
 *         c[i, j] = acc
 *
 * is run by the region form (host_regions.c) as if a barrier began each iteration:
 *
 *     if i < n and j < m: acc = float32(0)
 *     for k in range(p):              (once for the block)
 *         <barrier>
 *         if i < n and j < m: acc += a[i, k] * b[k, j]     (a loop over the threads)
 *     if i < n and j < m: c[i, j] = acc
 *
 * A thread alone adds its terms one after another, each add waiting for the last (a
 * float sum keeps its order); a step over the block's threads has one independent add
 * per thread, which the thread loop vectorises. Each thread still runs its own
 * statements in order, and threads without barriers have no order among them, so
 * this is one of the executions CUDA allows.
 *
 * What qualifies: among the kernel's top-level statements, a `for` over range() with
 * no else, break, continue or return, whose body updates a float local from itself
 * (x += ..., x = x op ...) and touches no array element the loop does not move over
 * (has_invariant_element), directly or as a statement of a top-level `if` with no
 * else whose condition is pure (no array element, no call of a device function) and
 * reads no local the `if` assigns. The range must be the same for every thread, not a
 * small constant, pure, its step a constant if any (the block runs it even when no
 * thread's guard holds); the region planner decides the first (host_split_plan
 * restores the kernel when it refuses), this file the rest.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "host_regions.h"

enum { SPLIT_MIN_TRIPS = 16 };

typedef struct splitter {
  arena *ar;
  const builtin *barrier;
  const fn_instance *f;
  int inner;              /* the thread axis looped over innermost (host_order.c), -1
                             until asked */
  const host_axes *axes;  /* its locals' thread axes, settled once (host_rows_across) */
  bool split;
} splitter;

/* for x in range(...), no else */
static bool plain_range_loop(const node *s) {
  return s->kind == N_FOR && !s->aux_ptr && !s->orelse.len && s->b && s->b->kind == N_CALL;
}

/* a barrier already, or a print, whose lines would interleave across threads (their
 * order is CUDA's to choose, but a thread's lines together read better) */
static bool barrier_here(const node *n, void *ud) {
  (void)ud;
  return n->kind == N_CALL && n->bi &&
         ((n->bi->flags & BF_BARRIER) || strcmp(n->bi->path, "print") == 0);
}

/* the loop body neither leaves the loop nor holds a barrier or a print */
static bool straight_body(const node *s) {
  return !host_leaves_loop(&s->body) && !ast_visit_list(&s->body, barrier_here, NULL);
}

/* ---- a float local folded from itself ---- */

static bool is_float_local(const node *t) {
  return t->kind == N_NAME && t->sym && t->sym->kind == SYM_LOCAL && t->ty &&
         (t->ty->kind == TY_FLOAT || t->ty->kind == TY_COMPLEX);
}

static bool folds_here(const node *s, int loops, void *ud) {
  (void)loops, (void)ud;
  if (s->kind == N_AUGASSIGN) return is_float_local(s->a);
  if (s->kind != N_ASSIGN || s->list.len != 1 || !is_float_local(s->list.items[0])) return false;
  return host_names(s->a, s->list.items[0]->sym);
}

/* ---- an element the loop reads at the same place every time round ---- */

typedef struct invariant_scan {
  const ptr_vec *variant;   /* the loop's target and the locals its body assigns */
  bool hit;
} invariant_scan;

static bool names_variant(const node *n, void *ud) {
  const ptr_vec *variant = ud;
  if (n->kind != N_NAME || !n->sym) return false;
  for (int k = 0; k < variant->len; k++)
    if (variant->items[k] == n->sym) return true;
  return false;
}

static bool names_local(const node *n, void *ud) {
  (void)ud;
  return n->kind == N_NAME && n->sym && n->sym->kind == SYM_LOCAL;
}

static bool invariant_element(const node *n, void *ud) {
  invariant_scan *q = ud;
  if (n->kind != N_INDEX || !n->a->ty || n->a->ty->kind != TY_ARRAY) return false;
  q->hit = !ast_visit(n->b, names_variant, (void *)q->variant) && ast_visit(n->b, names_local, NULL);
  return q->hit;
}

/* Whether the body of loop s reads or writes an array element at an index the loop
 * does not change but a local names (pos[i, 0] in an n-body loop over j): the thread's
 * own element, which its loop reads once and keeps, the block's steps would read again
 * at every step, one per thread (a gather): n-body forces ran 29 -> 40 ms split. */
static bool has_invariant_element(arena *ar, const node *s) {
  ptr_vec variant = {0};
  if (s->a->kind == N_NAME && s->a->sym) vec_push(ar, &variant, s->a->sym);
  host_assigned_locals(ar, &s->body, 0, s->body.len, &variant);
  invariant_scan q = {&variant, false};
  ast_visit_list(&s->body, invariant_element, &q);
  return q.hit;
}

/* A long loop of the same length everywhere that folds into a float (see above). */
static bool splittable_loop(splitter *S, const node *s) {
  if (!plain_range_loop(s) || !straight_body(s)) return false;
  /* run for the block even where no thread's guard holds: nothing in it may fail or
     read memory (a step of 0, an array element) */
  const node_list *a = &s->b->list;
  for (int k = 0; k < a->len; k++)
    if (!host_pure_value(a->items[k])) return false;
  if (a->len == 3 && (a->items[2]->kind != N_INT || a->items[2]->ival == 0)) return false;
  const node *stop = a->items[a->len >= 2 ? 1 : 0];
  if (stop->kind == N_INT && stop->ival < SPLIT_MIN_TRIPS) return false;
  if (!ast_visit_stmts(&s->body, folds_here, NULL) || has_invariant_element(S->ar, s))
    return false;
  if (!S->axes) S->axes = host_axes_of(S->ar, S->f);
  if (S->inner < 0) S->inner = host_inner_axis(S->ar, S->f);
  return !host_rows_across(S->axes, &s->body, S->inner);
}

/* A loop over rows the block shares (range(cuda.blockIdx.x, n, cuda.gridDim.x)) whose
 * body is one loop its threads stride through (range(cuda.threadIdx.x, m,
 * cuda.blockDim.x)): with a barrier, the outer loop runs for the block and the region
 * form steps the block through the inner one, as it does a top-level grid-stride loop
 * (a 4096 x 1024 scale: 6.7 ms against 0.7 for a thread per element). The region
 * form decides whether the outer range is the block's and the inner one strided. */
static bool rows_of_strides(const node *s) {
  if (!plain_range_loop(s) || s->body.len != 1 || !straight_body(s)) return false;
  const node *in = s->body.items[0];
  if (!plain_range_loop(in) || in->b->list.len != 3 || in->b->list.items[2]->kind == N_INT)
    return false;
  const node_list *a = &s->b->list;
  for (int k = 0; k < a->len; k++)
    if (!host_pure_value(a->items[k])) return false;
  return true;
}

/* ---- the rewrite ---- */

static node *barrier_stmt(splitter *S, span sp) {
  node *call = node_new(S->ar, N_CALL, sp);
  call->a = node_new(S->ar, N_NAME, sp);
  call->a->str = "syncthreads";
  call->a->bi = call->bi = S->barrier;
  call->ty = &ty_void;
  node *st = node_new(S->ar, N_EXPR_STMT, sp);
  st->a = call;
  return st;
}

/* `if cond: body`, cond that of cond_if */
static node *guarded(splitter *S, const node *cond_if, const node_list *body) {
  node *s = node_new(S->ar, N_IF, cond_if->sp);
  s->a = cond_if->a;
  s->body = *body;
  return s;
}

/* Loop s with a barrier first, its body under cond_if's condition (if any). */
static node *split_loop(splitter *S, const node *s, const node *cond_if) {
  node *loop = node_new(S->ar, N_FOR, s->sp);
  loop->a = s->a;
  loop->b = s->b;
  node_push(S->ar, &loop->body, barrier_stmt(S, s->sp));
  if (cond_if) {
    node_push(S->ar, &loop->body, guarded(S, cond_if, &s->body));
  } else {
    for (int k = 0; k < s->body.len; k++) node_push(S->ar, &loop->body, s->body.items[k]);
  }
  S->split = true;
  return loop;
}

/* Whether a statement of top other than s names the target of loop st (once split,
 * st runs for every thread, and leaves its target set where the guard was false). */
static bool target_named_elsewhere(const node_list *top, const node *s, const node *st) {
  if (st->a->kind != N_NAME || !st->a->sym) return true;
  for (int k = 0; k < top->len; k++)
    if (top->items[k] != s && host_names(top->items[k], st->a->sym)) return true;
  return false;
}

/* `if cond: ...` (a statement of top) whose statements can be spread over regions
 * under the same guard: which of its statements are loops to split (NULL: none, or
 * the `if` cannot be spread). */
static bool *splittable_if(splitter *S, const node_list *top, const node *s) {
  if (s->kind != N_IF || s->orelse.len || !host_pure_value(s->a) || host_leaves_loop(&s->body))
    return NULL;
  ptr_vec reads = {0}, assigned = {0};   /* the guard must read the same each time */
  host_read_locals(S->ar, s->a, &reads);
  host_assigned_locals(S->ar, &s->body, 0, s->body.len, &assigned);
  if (host_shares_local(&reads, &assigned)) return NULL;
  bool *loops = arena_alloc(S->ar, sizeof *loops * (size_t)s->body.len), any = false;
  for (int k = 0; k < s->body.len; k++) {
    const node *st = s->body.items[k];
    loops[k] = splittable_loop(S, st);
    if (loops[k] && target_named_elsewhere(top, s, st)) return NULL;
    any = any || loops[k];
  }
  return any ? loops : NULL;
}

/* The statements of a splittable if, into out: runs of plain statements under the
 * guard, and each loop (loops[k]) split with the guard inside. */
static void spread_if(splitter *S, const node *s, const bool *loops, node_list *out) {
  node_list run = {0};
  for (int k = 0; k <= s->body.len; k++) {
    bool end = k == s->body.len, loop = !end && loops[k];
    if ((loop || end) && run.len) {
      node_push(S->ar, out, guarded(S, s, &run));
      run = (node_list){0};
    }
    if (loop) node_push(S->ar, out, split_loop(S, s->body.items[k], s));
    else if (!end) node_push(S->ar, &run, s->body.items[k]);
  }
}

bool host_split_loops(arena *ar, const program *p, const fn_instance *f, node_list *out,
                      int *inner) {
  if (!p->barrier || f->uses_barrier || f->uses_grid_sync || f->debug) return false;
  splitter S = {ar, p->barrier, f, -1, NULL, false};
  const node_list *body = &f->def->body;
  *out = (node_list){0};
  for (int k = 0; k < body->len; k++) {
    node *s = body->items[k];
    bool *loops;
    if (splittable_loop(&S, s) || rows_of_strides(s)) node_push(ar, out, split_loop(&S, s, NULL));
    else if ((loops = splittable_if(&S, body, s))) spread_if(&S, s, loops, out);
    else node_push(ar, out, s);
  }
  *inner = S.inner >= 0 ? S.inner : S.split ? host_inner_axis(ar, f) : 0;
  return S.split;
}

/*
 * host_order.c — CPU back end: the order of the loops over a block's threads in a
 * barrier-free kernel's K__block (cg_host.c), and of the blocks the executor walks
 * (runtime/cpu/pool.c). The usual order runs threadIdx.x innermost, which walks memory
 * contiguously when x picks an array's last index (`x, y = cuda.grid(2); a[y, x]`).
 * The Numba tutorials' idiom is the other way round, `i, j = cuda.grid(2); a[i, j]`:
 * with x innermost every step of the inner loop jumps a whole row, the loop cannot be
 * vectorised, and neighbouring blocks along x touch rows far apart. Then y (or z) runs
 * innermost, and the grid is walked along y (or z) first (compile.h's inner_axis).
 *
 * Why another order is one CUDA allows: threads of a block are ordered only by
 * barriers, and this kernel has none, so any order of its threads is a legal
 * interleaving (blocks have no order at all) — but only where the order cannot show in
 * the results. So the order changes only when threads cannot see one another: no
 * atomics, no print, no raise or assert (which thread fails first is reported), not a
 * debug kernel (the same for its index checks), no call but pure builtins (a device
 * function could do any of these), no shared memory or array views, and no array the
 * kernel both writes and reads (a thread could read what another wrote): a written
 * array's name appears only as a[...] = v and in a.shape, len(a) and the like, and
 * never as a[...] elsewhere, `a[i] += v`, a loop's iterable or an argument. A
 * cuda.local.array is the thread's own. What is left are races in CUDA whatever the
 * order: two arguments that are one array at run time, one read and one written, and
 * two threads storing to one element.
 *
 * What depends on which coordinate is found by a fixpoint over the locals: a local
 * depends on the axes of every value assigned to it (`i, j = cuda.grid(2)` gives i x
 * and j y). An index of a C-contiguous array with two or more dimensions votes for the
 * axes its last subscript depends on; y (then z) runs innermost when some subscript
 * votes for it and none for x. The axes only steer speed; the checks above decide.
 */
#include <stdint.h>
#include <string.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "host_regions.h"

enum { AX_X = 1, AX_Y = 2, AX_Z = 4, FIX_MAX = 8 };

typedef struct order_scan {
  const fn_instance *f;
  int n;                  /* f's locals */
  host_locals L;
  unsigned *mask;         /* per local: the thread axes its value depends on */
  /* per local: its names, a[...] nodes, plain stores a[...] = v, and the uses that read
     no element (a.shape, len(a)); whether it is stored to, and whether it is a
     cuda.local.array (the thread's own) */
  int *names, *index, *stores, *shape_uses;
  bool *written, *own;
  bool changed, refused;
  int votes[3];           /* per axis: last subscripts that depend on it */
} order_scan;

/* The slot of local e (a name), or -1. */
static int local_slot(const order_scan *S, const node *e) {
  return host_locals_slot(&S->L, e);
}

static bool has_path(const node *e, const char *path) {
  return e->bi && strcmp(e->bi->path, path) == 0;
}

/* The axes a thread-index builtin gives: threadIdx.x/y/z, cuda.grid(n) (all n). */
static unsigned leaf_axes(const node *e) {
  static const char *const idx[3] = {"numba.cuda.threadIdx.x", "numba.cuda.threadIdx.y",
                                     "numba.cuda.threadIdx.z"};
  for (int k = 0; k < 3; k++)
    if (has_path(e, idx[k])) return 1u << k;
  if (e->kind == N_CALL && has_path(e, "numba.cuda.grid") && e->list.len == 1 &&
      e->list.items[0]->kind == N_INT && e->list.items[0]->ival >= 1 &&
      e->list.items[0]->ival <= 3)
    return (1u << e->list.items[0]->ival) - 1;
  return e->bi && (e->bi->flags & BF_THREAD_INDEX) ? AX_X | AX_Y | AX_Z : 0;
}

typedef struct deps_query { const order_scan *S; unsigned m; } deps_query;

static bool deps_here(const node *n, void *ud) {
  deps_query *q = ud;
  q->m |= leaf_axes(n);
  int v = local_slot(q->S, n);
  if (v >= 0) q->m |= q->S->mask[v];
  return false;
}

static unsigned deps(const order_scan *S, const node *e) {
  deps_query q = {S, 0};
  ast_visit(e, deps_here, &q);
  return q.m;
}

static void depend(order_scan *S, const node *t, unsigned m) {
  int v = local_slot(S, t);
  if (v >= 0 && (S->mask[v] | m) != S->mask[v]) S->mask[v] |= m, S->changed = true;
}

/* The array name under a store's target (a[i], a[i][j], a[i].x), or NULL. */
static const node *store_base(const node *t) {
  while (t->kind == N_INDEX || t->kind == N_ATTR) t = t->a;
  return t->kind == N_NAME ? t : NULL;
}

/* Assignment target t of value v (its axes m): locals take the axes; a store to a[...]
 * marks a written. `i, j = cuda.grid(2)` and `i, j = x, y` are taken element-wise. */
static void assign(order_scan *S, const node *t, const node *v, unsigned m, bool count) {
  if (t->kind == N_TUPLE) {
    unsigned grid = v ? leaf_axes(v) : 0;
    bool by_grid = v && v->kind == N_CALL && grid && grid == (1u << t->list.len) - 1;
    bool by_tuple = v && v->kind == N_TUPLE && v->list.len == t->list.len;
    for (int i = 0; i < t->list.len; i++) {
      const node *vi = by_tuple ? v->list.items[i] : NULL;
      unsigned mi = by_grid ? 1u << i : vi ? deps(S, vi) : m;
      assign(S, t->list.items[i], vi, mi, count);
    }
    return;
  }
  if (t->kind == N_NAME) {
    depend(S, t, m);
    return;
  }
  const node *base = store_base(t);
  int b = local_slot(S, base);
  if (b < 0) {
    S->refused = true;   /* a store through something other than a local's name */
    return;
  }
  S->written[b] = true;
  /* a plain a[...] store is not a read; any other (a[i].x = ...) counts as one too */
  if (count && t->kind == N_INDEX && t->a == base) S->stores[b]++;
}

/* A call the thread's order cannot show: a pure or block-wide builtin, range, a
 * cuda.local.array (the thread's own) or a constant array. */
static bool quiet_call(const node *e) {
  if (!e->bi) return false;
  unsigned fl = e->bi->flags;
  if (fl & (BF_PURE | BF_UNIFORM | BF_THREAD_INDEX | BF_LOOP)) return true;
  return (fl & BF_NEW_ARRAY) && (e->bi->op == MEM_LOCAL || e->bi->op == MEM_CONST);
}

/* An array value assigned to a name: only a local or constant array (no views, no
 * shared memory). */
static bool array_value_ok(const node *v) {
  return !v || !v->ty || v->ty->kind != TY_ARRAY || (v->kind == N_CALL && quiet_call(v));
}

static bool is_local_array(const node *v) {
  return v && v->kind == N_CALL && v->bi && (v->bi->flags & BF_NEW_ARRAY) &&
         v->bi->op == MEM_LOCAL;
}

/* Uses of a local that read no element: an attribute that is not an array (a.shape,
 * a.size; a.T is a view), the argument of a builtin that reads shapes alone (len). */
static void count_shape_uses(order_scan *S, const node *n) {
  int v;
  if (n->kind == N_ATTR && (v = local_slot(S, n->a)) >= 0 && n->ty && n->ty->kind != TY_ARRAY)
    S->shape_uses[v]++;
  if (n->kind == N_CALL && n->bi && (n->bi->flags & BF_ARRAY_SHAPE))
    for (int i = 0; i < n->list.len; i++)
      if ((v = local_slot(S, n->list.items[i])) >= 0) S->shape_uses[v]++;
}

static void vote(order_scan *S, const node *e) {
  const type *t = e->a->ty;
  if (!t || t->kind != TY_ARRAY || t->strided || t->ndim < 2) return;
  if (!e->b || e->b->kind != N_TUPLE || e->b->list.len != t->ndim) return;
  unsigned last = deps(S, e->b->list.items[t->ndim - 1]);
  for (int k = 0; k < 3; k++)
    if ((last >> k) & 1u) S->votes[k]++;
}

/* One node of the scan: `count` on the last pass, when the masks have settled. */
typedef struct scan_pass { order_scan *S; bool count; } scan_pass;

static bool scan_node(const node *n, void *ud) {
  scan_pass *p = ud;
  order_scan *S = p->S;
  switch (n->kind) {
  case N_ASSIGN: {
    if (!array_value_ok(n->a)) S->refused = true;
    unsigned m = deps(S, n->a);
    for (int i = 0; i < n->list.len; i++) {
      assign(S, n->list.items[i], n->a, m, p->count);
      int v = local_slot(S, n->list.items[i]);
      if (v >= 0 && is_local_array(n->a)) S->own[v] = true;
    }
    return false;
  }
  case N_AUGASSIGN: case N_ANNASSIGN: {
    const node *v = n->kind == N_AUGASSIGN ? n->b : n->c;
    if (v) assign(S, n->a, NULL, deps(S, v) | deps(S, n->a), false);
    return false;
  }
  case N_FOR: assign(S, n->a, NULL, deps(S, n->b), p->count); return false;
  case N_INDEX: {
    int b = local_slot(S, n->a);
    if (p->count && b >= 0) S->index[b]++;
    if (p->count) vote(S, n);
    return false;
  }
  case N_NAME: {
    int v = local_slot(S, n);
    if (p->count && v >= 0) S->names[v]++;
    return false;
  }
  case N_ATTR:
    if (p->count) count_shape_uses(S, n);
    return false;
  case N_CALL:
    if (!quiet_call(n)) S->refused = true;
    if (p->count) count_shape_uses(S, n);
    return false;
  case N_RAISE: case N_ASSERT: case N_FUNCDEF: case N_NAMEDEXPR:
    S->refused = true;
    return false;
  default: return false;
  }
}

static void scan_init(order_scan *S, arena *ar, const fn_instance *f) {
  memset(S, 0, sizeof *S);
  S->f = f;
  S->n = f->locals.len;
  host_locals_init(ar, &S->L, f);
  size_t cap = (size_t)S->L.cap;
  S->mask = arena_alloc(ar, sizeof *S->mask * cap);
  S->names = arena_alloc(ar, sizeof *S->names * cap);
  S->index = arena_alloc(ar, sizeof *S->index * cap);
  S->stores = arena_alloc(ar, sizeof *S->stores * cap);
  S->shape_uses = arena_alloc(ar, sizeof *S->shape_uses * cap);
  S->written = arena_alloc(ar, sizeof *S->written * cap);
  S->own = arena_alloc(ar, sizeof *S->own * cap);
}

/* Whether an array stored to (not the thread's own) is also read: a[...] nodes beyond
 * its plain stores, or a use of its name that is neither (for x in a, an argument). */
static bool reads_what_it_writes(const order_scan *S) {
  for (int h = 0; h < S->L.cap; h++) {
    if (!S->L.keys[h] || !S->written[h] || S->own[h]) continue;
    if (S->index[h] > S->stores[h] || S->names[h] > S->index[h] + S->shape_uses[h]) return true;
  }
  return false;
}

/* The locals' axes settled (false: they did not, or something refused) */
static bool settle(order_scan *S, arena *ar, const fn_instance *f) {
  scan_init(S, ar, f);
  int pass = 0;
  do {
    S->changed = false;
    scan_pass p = {S, false};
    ast_visit_list(&f->def->body, scan_node, &p);
  } while (S->changed && !S->refused && ++pass < FIX_MAX);
  return !S->changed && !S->refused;
}

typedef struct across_query { const order_scan *S; unsigned axis; bool hit; } across_query;

static bool across_here(const node *n, void *ud) {
  across_query *q = ud;
  const type *t = n->kind == N_INDEX ? n->a->ty : NULL;
  if (!t || t->kind != TY_ARRAY || t->ndim < 2 || !n->b || n->b->kind != N_TUPLE ||
      n->b->list.len != t->ndim)
    return false;
  for (int k = 0; k + 1 < t->ndim; k++)
    if (deps(q->S, n->b->list.items[k]) & q->axis) q->hit = true;
  return q->hit;
}

const host_axes *host_axes_of(arena *ar, const fn_instance *f) {
  order_scan *S = arena_alloc(ar, sizeof *S);
  return settle(S, ar, f) ? S : NULL;
}

bool host_rows_across(const host_axes *A, const node_list *body, int inner) {
  if (!A) return false;
  across_query q = {A, 1u << inner, false};
  ast_visit_list(body, across_here, &q);
  return q.hit;
}

int host_inner_axis(arena *ar, const fn_instance *f) {
  if (f->debug || f->uses_barrier || f->uses_grid_sync) return 0;
  order_scan S;
  if (!settle(&S, ar, f)) return 0;
  scan_pass last = {&S, true};
  ast_visit_list(&f->def->body, scan_node, &last);
  if (S.refused || reads_what_it_writes(&S) || S.votes[0]) return 0;
  return S.votes[1] ? 1 : S.votes[2] ? 2 : 0;
}

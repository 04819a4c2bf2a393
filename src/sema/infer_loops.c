/*
 * infer_loops.c — type inference of for loops over anything but a plain range(...)
 * (arrays, rows of arrays, tuples, enumerate, zip, reversed(range)), and of tuples
 * indexed at run time. Each loop's iterable becomes an iter_plan (loops.h) in the
 * N_FOR's aux_ptr, rebuilt on every pass of the fixpoint; cg_loops.c builds the loop
 * from it.
 *
 * What Numba accepts is the rule (numba/core/typing/builtins.py and the iterator
 * types of numba/core/types): an array iterates over its first axis (an element, or
 * a view of one row), a UniTuple over its elements, enumerate yields (intp, item),
 * zip a tuple of items and stops at the shortest. A heterogeneous tuple is not
 * iterable in Numba without literal_unroll, which kcc does not have: it is refused.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "loops.h"
#include "typing.h"

static iter_plan *plan_of(infer_ctx *ic, node *it);

static iter_plan *new_plan(infer_ctx *ic, iter_kind k, node *e, const type *yield) {
  iter_plan *p = arena_alloc(ic->ar, sizeof *p);
  memset(p, 0, sizeof *p);
  p->kind = k;
  p->e = e;
  p->yield = yield;
  return p;
}

/* The builtin a call's callee names ("enumerate"), or NULL. */
static const char *loop_builtin(infer_ctx *ic, node *it) {
  if (it->kind != N_CALL) return NULL;
  const char *p = ix_dotted_path(ic, it->a);
  const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
  if (!b || !(b->flags & BF_LOOP)) return NULL;
  it->bi = b;
  return b->path;
}

static bool no_keywords(infer_ctx *ic, node *it, const char *what) {
  if (!it->kwargs.len) return true;
  ix_error(ic, ((node *)it->kwargs.items[0])->sp, "%s() takes no keyword arguments", what);
  return false;
}

/* enumerate(x) or enumerate(x, start): (int64, item) pairs, the count from start, as
 * Numba's EnumerateType (its start converted to intp). */
static iter_plan *plan_enumerate(infer_ctx *ic, node *it) {
  if (!no_keywords(ic, it, "enumerate")) return NULL;
  if (it->list.len < 1 || it->list.len > 2) {
    ix_error(ic, it->sp, "enumerate() takes 1 or 2 arguments (an iterable and a start), "
         "%d given", it->list.len);
    return NULL;
  }
  iter_plan *sub = plan_of(ic, it->list.items[0]);
  node *start = it->list.len == 2 ? it->list.items[1] : NULL;
  if (start && ix_expr(ic, start) && !ix_need_int(ic, start, "enumerate()", "start"))
    return NULL;
  if (!sub || (start && !start->ty)) return NULL;
  const type *el[2] = {&ty_i64, sub->yield};
  iter_plan *p = new_plan(ic, IT_ENUMERATE, it, type_tuple(ic->ar, el, 2));
  p->start = start;
  p->subs = arena_alloc(ic->ar, sizeof *p->subs);
  p->subs[0] = sub;
  p->nsubs = 1;
  return it->ty = p->yield, p;
}

/* zip(x, y, ...): a tuple of their items, as long as the shortest. */
static iter_plan *plan_zip(infer_ctx *ic, node *it) {
  int n = it->list.len;
  if (!no_keywords(ic, it, "zip")) return NULL;
  if (n == 0) {
    ix_error(ic, it->sp, "zip() needs at least one iterable (a loop over zip() would not run)");
    return NULL;
  }
  iter_plan **subs = arena_alloc(ic->ar, sizeof *subs * (size_t)n);
  const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)n);
  bool ok = true;
  for (int i = 0; i < n; i++) {
    subs[i] = plan_of(ic, it->list.items[i]);
    if (!subs[i]) ok = false;
    else el[i] = subs[i]->yield;
  }
  if (!ok) return NULL;
  iter_plan *p = new_plan(ic, IT_ZIP, it, type_tuple(ic->ar, el, n));
  p->subs = subs;
  p->nsubs = n;
  return it->ty = p->yield, p;
}

/* reversed(range(...)): the range's items, last first. */
static iter_plan *plan_reversed(infer_ctx *ic, node *it) {
  if (!no_keywords(ic, it, "reversed")) return NULL;
  node *r = it->list.len == 1 ? it->list.items[0] : NULL;
  const char *inner = r ? loop_builtin(ic, r) : NULL;
  if (!inner || strcmp(inner, "range") != 0) {
    ix_error(ic, it->sp, "reversed() takes one range(...) here (walk an array backwards "
         "with a[::-1], or with range(len(a) - 1, -1, -1))");
    if (r && !inner) ix_expr(ic, r);
    return NULL;
  }
  iter_plan *sub = plan_of(ic, r);
  if (!sub) return NULL;
  iter_plan *p = new_plan(ic, IT_REVERSED, it, sub->yield);
  p->subs = arena_alloc(ic->ar, sizeof *p->subs);
  p->subs[0] = sub;
  p->nsubs = 1;
  return it->ty = p->yield, p;
}

static bool is_module_array(const node *n) {
  return n->kind == N_NAME && n->sym && n->sym->kind == SYM_CONST && n->sym->value &&
         ix_const_is_array(n->sym->value);
}

/* An array: its elements, or for 2-D and 3-D arrays its rows, views of one dimension
 * fewer laid out as the array is (a[i] gives the same view). */
static iter_plan *plan_array(infer_ctx *ic, node *e, const type *t) {
  if (t->ndim == 1) return new_plan(ic, IT_ARRAY, e, t->elem);
  if (is_module_array(e)) {
    ix_error(ic, e->sp, "the rows of module array '%s' cannot be iterated (views of module "
         "arrays are not supported): index every dimension", e->sym->name);
    return NULL;
  }
  ix_mark_written(ic, e);   /* a row is a view, which may be written */
  return new_plan(ic, IT_ARRAY, e, type_array_layout(ic->ar, t->elem, t->ndim - 1, t->strided));
}

/* A tuple whose elements share one type (Numba's UniTuple). */
static iter_plan *plan_tuple(infer_ctx *ic, node *e, const type *t) {
  if (t->nelems == 0) {
    ix_error(ic, e->sp, "a for loop over an empty tuple would not run");
    return NULL;
  }
  for (int i = 1; i < t->nelems; i++) {
    if (type_equal(t->elems[i], t->elems[0])) continue;
    ix_error(ic, e->sp, "a for loop over a tuple needs elements of one type, and this one is "
         "%s (Numba iterates such tuples only through literal_unroll, which kcc does not "
         "have): convert the elements to one type, e.g. (float64(a), b)", ix_tname(ic, t));
    return NULL;
  }
  return new_plan(ic, IT_TUPLE, e, t->elems[0]);
}

/* The plan of any iterable, typing the expressions in it; NULL after an error. */
static iter_plan *plan_of(infer_ctx *ic, node *it) {
  const char *b = loop_builtin(ic, it);
  if (b && strcmp(b, "range") == 0) {
    const type *t = ix_range_args(ic, it);
    return t ? new_plan(ic, IT_RANGE, it, t) : NULL;
  }
  if (b && strcmp(b, "enumerate") == 0) return plan_enumerate(ic, it);
  if (b && strcmp(b, "zip") == 0) return plan_zip(ic, it);
  if (b && strcmp(b, "reversed") == 0) return plan_reversed(ic, it);
  const type *t = ix_expr(ic, it);
  if (!t) return NULL;
  if (t->kind == TY_ARRAY) return plan_array(ic, it, t);
  if (t->kind == TY_TUPLE) return plan_tuple(ic, it, t);
  ix_error(ic, it->sp, "a for loop iterates over range(...), an array, a tuple, "
       "enumerate(...), zip(...) or reversed(range(...)), not %s", ix_tname(ic, t));
  return NULL;
}

void ix_for_iter(infer_ctx *ic, node *s) {
  iter_plan *p = plan_of(ic, s->b);
  s->aux_ptr = p;
  ix_store(ic, s->a, p ? p->yield : NULL);
  ic->loop_depth++;
  ix_block(ic, &s->body);
  ic->loop_depth--;
  ix_block(ic, &s->orelse);
}

/* t[j] with j known only at run time: Numba allows it on a UniTuple (an intp or uintp
 * index; getitem_unituple), not on a heterogeneous tuple, whose item's type would
 * depend on j. */
const type *ix_tuple_index_dynamic(infer_ctx *ic, node *e, const type *tt) {
  const type *it = ix_expr(ic, e->b);
  if (!it) return NULL;
  if (it->kind != TY_INT && it->kind != TY_BOOL) {
    ix_error(ic, e->b->sp, "a tuple index must be an integer, not %s", ix_tname(ic, it));
    return NULL;
  }
  for (int i = 1; i < tt->nelems; i++) {
    if (type_equal(tt->elems[i], tt->elems[0])) continue;
    ix_error(ic, e->b->sp, "%s can only be indexed by a constant: its elements differ in type, "
         "so the type of t[j] would depend on j (as in Numba); make the elements one type",
         ix_tname(ic, tt));
    return NULL;
  }
  if (tt->nelems == 0) {
    ix_error(ic, e->b->sp, "tuple index out of range (the tuple is empty)");
    return NULL;
  }
  e->aux = TUPLE_INDEX_DYNAMIC;
  if (ic->cur && ic->cur->debug && !ic->opts->bounds_check)
    ic->cur->uses_barrier = true;   /* may raise IndexError (cg_tuple_index): run as fibers
                                       on the CPU, where a thread that raises ends */
  return ix_set_type(e, tt->elems[0], false);
}

/*
 * host_regions.c — kernels with barriers on the CPU without fibers: the region form,
 * as MCUDA, POCL's work-group loops and CuPBoP build it. This file plans it (which
 * kernels, uniform locals, regions, what each keeps: host_regions_plan.h);
 * host_regions_cg.c generates its code.
 *
 * A kernel whose cuda.syncthreads() calls all sit where every thread of the block gets
 * alike is split at its barriers into regions, and K__block runs each region as a loop
 * over the block's threads, one region after the other: a barrier is the end of one
 * thread loop and the start of the next, and the thread loops vectorise as a
 * barrier-free kernel's does. The control flow around barriers (if, while, and for
 * over range() whose condition or bounds are *uniform*: the same for every thread)
 * runs once, outside the thread loops, as do assignments to uniform locals.
 *
 * Uniform values: constants, parameters, array shapes, the builtins whose rows say so
 * (BF_UNIFORM: blockIdx/blockDim/gridDim, cuda.gridsize ...), pure builtins (BF_PURE:
 * math, len, min, casts ...) of uniform values, and locals whose every assignment is of
 * a uniform value at a uniform position (not under a thread-dependent condition, not
 * after a thread-dependent break, continue or return). A fixpoint finds them: a local
 * starts uniform and loses it for good. Which builtins are which is in their rows
 * (builtin.h's flags), never in this file.
 *
 * Locals in regions: one that a region reads before assigning it (the value came from
 * an earlier region, or from this region's previous run in a loop) is kept per
 * thread, in an array of one element per thread (a structure of arrays, so that the
 * thread loops still load and store them as vectors) in a buffer the executor lends
 * (blk->frame, host_abi.h); one that every region using it assigns first stays an
 * ordinary local, as do uniform locals. cuda.local.array storage is per thread in the
 * same buffer.
 *
 * Whatever this cannot express leaves the kernel to fibers (runtime/cpu/fibers.c), which
 * run any kernel and report a barrier that some threads never reach: a barrier under a
 * thread-dependent condition (undefined behaviour in CUDA) or in a device function,
 * warp collectives and syncthreads_count/and/or (they exchange values mid-region), a
 * raise or a debug assert (they end one thread), a return that a later barrier
 * follows, inner functions, assignment expressions (:=), record locals, and more than
 * REGION_FRAME_MAX bytes per thread.
 *
 * Why this is one of the executions CUDA allows: threads of a block are ordered only by
 * barriers, so running a region's threads one after another is a legal interleaving.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/builtin.h"
#include "host_abi.h"
#include "host_regions.h"
#include "host_regions_plan.h"

enum { REGION_FRAME_MAX = 8192 };   /* per thread: 8 MiB a worker at 1024 threads */

enum { JUMP_RET = 1, JUMP_BRK = 2, JUMP_CONT = 4 };


static void refuse(host_regions *R, const char *why) {
  if (!R->why) R->why = why;
}

/* ---- symbols ---- */

size_t host_locals_slot_of(const host_locals *L, const symbol *s) {
  size_t h = (size_t)(((uintptr_t)s >> 4) * 0x9e3779b97f4a7c15ull) & (size_t)(L->cap - 1);
  while (L->keys[h] && L->keys[h] != s) h = (h + 1) & (size_t)(L->cap - 1);
  return h;
}

int host_locals_slot(const host_locals *L, const node *e) {
  if (!e || e->kind != N_NAME || !e->sym || e->sym->kind != SYM_LOCAL) return -1;
  size_t h = host_locals_slot_of(L, e->sym);
  return L->keys[h] ? (int)h : -1;
}

int host_locals_index(const host_locals *L, const node *e) {
  int h = host_locals_slot(L, e);
  return h < 0 ? -1 : L->index[h];
}

void host_locals_init(arena *ar, host_locals *L, const fn_instance *f) {
  L->cap = 8;
  while (L->cap < 2 * f->locals.len) L->cap *= 2;
  L->keys = arena_alloc(ar, sizeof *L->keys * (size_t)L->cap);   /* zeroed */
  L->index = arena_alloc(ar, sizeof *L->index * (size_t)L->cap);
  for (int h = 0; h < L->cap; h++) L->index[h] = -1;
  for (int i = 0; i < f->locals.len; i++) {
    const symbol *s = f->locals.items[i];
    size_t h = host_locals_slot_of(L, s);
    L->keys[h] = s;
    L->index[h] = i;
  }
}

int hr_local_of(const host_regions *R, const node *e) {
  return host_locals_index(&R->locals, e);
}

/* ---- the tree ---- */

/* cuda.syncthreads(): a barrier that exchanges nothing (builtin.h, BF_COLLECTIVE) */
static bool is_plain_barrier(const node *e) {
  if (!e || e->kind != N_CALL || !e->bi) return false;
  unsigned fl = e->bi->flags;
  return (fl & BF_BARRIER) && !(fl & (BF_COLLECTIVE | BF_GROUP | BF_WARP));
}

static bool is_barrier_stmt(const node *s) {
  return s->kind == N_EXPR_STMT && is_plain_barrier(s->a);
}

/* Calls visit(n, ud) for n and every node below it (not into inner functions); stops
 * early when visit returns true, and returns whether it did. */
static bool barrier_here(const node *n, void *ud) {
  (void)ud;
  return is_plain_barrier(n);
}

static bool contains_barrier(const node *s) { return ast_visit(s, barrier_here, NULL); }

typedef struct ref_query { const host_regions *R; int v; } ref_query;

static bool ref_here(const node *n, void *ud) {
  const ref_query *q = ud;
  return hr_local_of(q->R, n) == q->v;
}

static bool refers_to(const host_regions *R, const node *n, int v) {
  ref_query q = {R, v};
  return ast_visit(n, ref_here, &q);
}

static bool note_jump(const node *s, int loops, void *ud) {
  int *bits = ud;
  if (s->kind == N_RETURN) *bits |= JUMP_RET;
  else if (s->kind == N_BREAK && loops == 0) *bits |= JUMP_BRK;
  else if (s->kind == N_CONTINUE && loops == 0) *bits |= JUMP_CONT;
  return false;
}

/* The jumps in s that leave it: return always, break and continue when no loop inside
 * s takes them. */
static int jumps_out(const node *s) {
  int bits = 0;
  ast_visit_stmt(s, note_jump, &bits);
  return bits;
}

/* What fibers alone can run, anywhere in the kernel. */
static bool refusal_here(const node *n, void *ud) {
  host_regions *R = ud;
  switch (n->kind) {
  case N_RAISE: refuse(R, "a raise ends one thread"); return true;
  case N_ASSERT:
    if (R->f->debug) refuse(R, "a debug assert ends one thread");
    return R->f->debug;
  case N_BINOP: case N_AUGASSIGN:   /* in debug code a zero divisor ends one thread */
    if (R->f->debug && (n->op == OP_DIV || n->op == OP_FLOORDIV || n->op == OP_MOD)) {
      refuse(R, "a debug division, which raises on a zero divisor");
      return true;
    }
    return false;
  case N_FUNCDEF: refuse(R, "an inner function"); return true;
  case N_NAMEDEXPR:   /* an assignment inside an expression, which the plan does not see */
    refuse(R, "an assignment expression (:=)");
    return true;
  case N_CALL:
    if (n->bi) {
      unsigned fl = n->bi->flags;
      if (fl & (BF_WARP | BF_GROUP | BF_COLLECTIVE)) {
        refuse(R, "a warp or block collective");
        return true;
      }
      return false;
    }
    if (n->aux == CALL_FOREIGN) return false;   /* a foreign function waits for nobody */
    if (!n->aux_ptr || ((fn_instance *)n->aux_ptr)->uses_barrier) {
      refuse(R, "a call of a device function with a barrier, a warp collective or a raise");
      return true;
    }
    return false;
  default: return false;
  }
}

/* Every barrier must be a statement of its own. */
static bool count_barrier_calls(const node *n, void *ud) {
  if (is_plain_barrier(n)) ++*(int *)ud;
  return false;
}

static bool count_barrier_stmts(const node *n, void *ud) {
  if (n->kind == N_EXPR_STMT && is_plain_barrier(n->a)) ++*(int *)ud;
  return false;
}

/* ---- uniform values ---- */

/* Whether b's value is the same in every thread (of uniform arguments, for a call): its
 * row says so. When recomputing (remat), a thread's own index counts too. */
static bool builtin_uniform(const host_regions *R, const builtin *b) {
  if (b->flags & (BF_PURE | BF_UNIFORM)) return true;
  return R->remat_mode && (b->flags & BF_THREAD_INDEX);
}

static bool uniform_expr(const host_regions *R, const node *e);

static bool uniform_all(const host_regions *R, const node_list *l) {
  for (int i = 0; i < l->len; i++)
    if (!uniform_expr(R, l->items[i])) return false;
  return true;
}

/* A pure builtin of uniform arguments; an array argument only to one that reads its
   shape alone (len: the others would read its elements). */
static bool uniform_call(const host_regions *R, const node *e) {
  if (!e->bi) return false;
  /* a shared or constant array: one for the whole block; its arguments are known at
     compile time */
  if ((e->bi->flags & BF_NEW_ARRAY) && e->bi->op != MEM_LOCAL) return true;
  if (!builtin_uniform(R, e->bi)) return false;
  bool shape_only = e->bi->flags & BF_ARRAY_SHAPE;
  for (int i = 0; i < e->list.len; i++) {
    const node *a = e->list.items[i];
    if ((!shape_only && a->ty && a->ty->kind == TY_ARRAY) || !uniform_expr(R, a)) return false;
  }
  for (int i = 0; i < e->kwargs.len; i++)
    if (!uniform_expr(R, ((node *)e->kwargs.items[i])->a)) return false;
  return true;
}

static bool uniform_expr(const host_regions *R, const node *e) {
  if (!e) return true;
  switch (e->kind) {
  case N_INT: case N_FLOAT: case N_IMAG: case N_COMPLEX: case N_BOOL: case N_STR: case N_NONE:
    return true;
  case N_NAME: {
    if (e->bi) return builtin_uniform(R, e->bi);
    if (!e->sym) return false;
    if (e->sym->kind != SYM_LOCAL) return true;
    int v = hr_local_of(R, e);
    if (v >= 0 && R->remat_mode) return R->remat[v] || (R->uniform[v] && R->settled[v]);
    return v >= 0 && R->uniform[v];
  }
  case N_ATTR:
    /* an attribute row (a.strides, a.T): a value of its receiver alone */
    if (e->bi && e->bi->kind == BK_ATTRIBUTE)
      return builtin_uniform(R, e->bi) && uniform_expr(R, e->a);
    if (e->bi) return builtin_uniform(R, e->bi);
    if (e->aux == FV_CAPTURE || !e->a->ty) return false;
    /* an array's shape, size, strides ...; a complex number's parts */
    if (e->a->ty->kind == TY_ARRAY || e->a->ty->kind == TY_COMPLEX) return uniform_expr(R, e->a);
    return false;
  case N_CALL: return uniform_call(R, e);
  case N_INDEX:   /* a tuple's element (an array's would read memory) */
    return e->a->ty && e->a->ty->kind == TY_TUPLE && uniform_expr(R, e->a) && uniform_expr(R, e->b);
  case N_BINOP: return uniform_expr(R, e->a) && uniform_expr(R, e->b);
  case N_UNARY: return uniform_expr(R, e->a);
  case N_IFEXP: return uniform_expr(R, e->a) && uniform_expr(R, e->b) && uniform_expr(R, e->c);
  case N_COMPARE: case N_BOOLOP: case N_TUPLE: return uniform_all(R, &e->list);
  default: return false;
  }
}

/* ---- starts that grow with the thread's index ---- */

/* The same in every thread: uniform_expr without remat_mode, in which a thread's own
 * index would count too. */
static bool thread_constant(const host_regions *R, const node *e) {
  host_regions plain = *R;
  plain.remat_mode = false;
  return uniform_expr(&plain, e);
}

static bool has_path(const node *e, const char *path) {
  return e->bi && strcmp(e->bi->path, path) == 0;
}

/* The axis of cuda.threadIdx.x/y/z e is, or -1. */
static int thread_idx_axis(const node *e) {
  static const char *const paths[3] = {"numba.cuda.threadIdx.x", "numba.cuda.threadIdx.y",
                                       "numba.cuda.threadIdx.z"};
  for (int k = 0; k < 3; k++)
    if (has_path(e, paths[k])) return k;
  return -1;
}

/* cuda.threadIdx.x/y/z, or cuda.grid(1) (blockIdx.x * blockDim.x + threadIdx.x, which
 * the runtime keeps below 2^31): never negative, growing with one coordinate. */
static bool thread_leaf(const node *e) {
  if (e->kind == N_CALL) return has_path(e, "numba.cuda.grid") && e->ty && e->ty->kind == TY_INT;
  return thread_idx_axis(e) >= 0;
}

static bool small_count(const node *e) {
  return e->kind == N_INT && !e->big && e->ival >= 0 && e->ival <= (1 << 16);
}

static bool monotone(const host_regions *R, const node *e, int depth) {
  if (depth > 8) return false;
  if (thread_leaf(e) || thread_constant(R, e)) return true;
  if (e->kind == N_NAME) {   /* a recomputed local: its one definition */
    int v = hr_local_of(R, e);
    const node *d = v >= 0 && R->remat[v] ? R->def[v] : NULL;
    if (d && d->list.items[0]->kind == N_TUPLE)   /* x, y = cuda.grid(2): each grows */
      return d->a->kind == N_CALL && has_path(d->a, "numba.cuda.grid");
    return d && d->kind == N_ASSIGN && d->list.len == 1 && d->list.items[0]->kind == N_NAME &&
           monotone(R, d->a, depth + 1);
  }
  /* 64-bit arithmetic only: it wraps modulo 2^64, which the caller's check sees */
  if (e->kind != N_BINOP || !e->ty || e->ty->kind != TY_INT || e->ty->bits != 64) return false;
  switch (e->op) {
  case OP_ADD: return monotone(R, e->a, depth + 1) && monotone(R, e->b, depth + 1);
  case OP_SUB: return monotone(R, e->a, depth + 1) && thread_constant(R, e->b);
  case OP_MUL:
    return (thread_leaf(e->a) && small_count(e->b)) || (thread_leaf(e->b) && small_count(e->a));
  default: return false;
  }
}

bool hr_thread_monotone(const host_regions *R, const node *e) {
  return monotone(R, e, 0);
}

/* The axis e is the thread's index along (cuda.threadIdx.x/y/z, or a recomputed local
 * assigned it alone: tid = cuda.threadIdx.x), or -1. */
static int thread_axis(const host_regions *R, const node *e) {
  if (e->kind == N_NAME && !e->bi) {
    int v = hr_local_of(R, e);
    const node *d = v >= 0 && R->remat[v] ? R->def[v] : NULL;
    if (!d || d->list.items[0]->kind != N_NAME) return -1;
    e = d->a;
  }
  return thread_idx_axis(e);
}

node *hr_region_bound(host_regions *R, node **items, int n, int *axis, op_kind *op) {
  if (n != 1 || items[0]->kind != N_IF || items[0]->orelse.len) return NULL;
  const node *c = items[0]->a;
  if (c->kind == N_BOOLOP && c->op == OP_AND) c = c->list.items[0];
  if (c->kind != N_COMPARE || c->list.len != 2) return NULL;
  static const op_kind mirrored[][2] = {{OP_LT, OP_GT}, {OP_LE, OP_GE}, {OP_EQ, OP_EQ}};
  for (int side = 0; side < 2; side++) {
    node *x = c->list.items[side], *u = c->list.items[1 - side];
    int a = thread_axis(R, x);
    bool saved = R->remat_mode;
    R->remat_mode = false;
    bool uniform = uniform_expr(R, u);
    R->remat_mode = saved;
    if (a < 0 || !uniform || !u->ty || u->ty->kind != TY_INT || u->ty->bits > 64 ||
        (u->ty->bits == 64 && !u->ty->is_signed))
      continue;
    for (int k = 0; k < 3; k++)
      if (c->cmp_ops[0] == mirrored[k][side]) {
        *axis = a;
        *op = mirrored[k][0];
        return u;
      }
  }
  return NULL;
}

/* for's iterable: range(...) of uniform bounds */
static bool uniform_range(const host_regions *R, const node *s) {
  return !s->aux_ptr && uniform_all(R, &s->b->list);
}

/* ---- the walk: uniform locals, regions, and which locals each region keeps ---- */

static void assign_local(host_regions *R, int v, bool uniform, int level) {
  if (v < 0) return;
  R->nassign[v]++;
  if (!uniform && R->uniform[v]) {
    R->uniform[v] = false;
    R->changed = true;
  }
  if (level >= 0) R->written[v] = true;
}

static void assign_target(host_regions *R, const node *t, bool uniform, int level) {
  if (t->kind == N_NAME) {
    assign_local(R, hr_local_of(R, t), uniform, level);
  } else if (t->kind == N_TUPLE) {
    for (int i = 0; i < t->list.len; i++) assign_target(R, t->list.items[i], uniform, level);
  } else if (t->kind == N_ATTR) {   /* a record's field: the record changes */
    const node *base = t->a;
    while (base->kind == N_ATTR || base->kind == N_INDEX) base = base->a;
    assign_local(R, hr_local_of(R, base), false, level);
  }
}

/* A target of uniform locals only: a name, or a tuple of them (`rows, cols = a.shape`). */
static bool uniform_target(const host_regions *R, const node *t) {
  if (t->kind == N_TUPLE) {
    for (int i = 0; i < t->list.len; i++)
      if (!uniform_target(R, t->list.items[i])) return false;
    return true;
  }
  int v = hr_local_of(R, t);
  return v >= 0 && R->uniform[v];
}

/* An assignment to uniform locals only (runs once for the block). */
static bool uniform_assignment(const host_regions *R, const node *s) {
  const node *single = s->kind == N_AUGASSIGN || s->kind == N_ANNASSIGN ? s->a : NULL;
  if (s->kind == N_ANNASSIGN && !s->c) return false;
  if (single) {
    int v = hr_local_of(R, single);
    return v >= 0 && R->uniform[v];
  }
  if (s->kind != N_ASSIGN) return false;
  for (int i = 0; i < s->list.len; i++)
    if (!uniform_target(R, s->list.items[i])) return false;
  return true;
}

static bool is_strided(const host_regions *R, const node *s) {
  for (int i = 0; i < R->strided.len; i++)
    if (R->strided.items[i] == s) return true;
  return false;
}

stmt_class hr_classify(const host_regions *R, const node *s) {
  if (is_barrier_stmt(s)) return ST_BARRIER;
  if (is_strided(R, s)) return ST_STRIDED;
  if (contains_barrier(s)) return ST_BLOCK;
  switch (s->kind) {
  case N_BREAK: case N_CONTINUE: case N_RETURN: return ST_BLOCK;
  default: return uniform_assignment(R, s) ? ST_BLOCK : ST_REGION;
  }
}

static int walk_block_list(host_regions *R, node_list *l, bool pos);
static int walk_stmt(host_regions *R, node *s, bool pos, int level);

static int walk_nested(host_regions *R, node_list *l, bool pos, int level) {
  int bits = 0;
  for (int i = 0; i < l->len; i++) {
    int b = walk_stmt(R, l->items[i], pos, level);
    if (b) pos = false;
    bits |= b;
  }
  return bits;
}

static int walk_body(host_regions *R, node_list *l, bool pos, int level) {
  return level < 0 ? walk_block_list(R, l, pos) : walk_nested(R, l, pos, level);
}

static int walk_loop(host_regions *R, node *s, bool pos, int level) {
  bool c = s->kind == N_WHILE ? uniform_expr(R, s->a) : uniform_range(R, s);
  if (level < 0) R->loop_depth++;
  int b = walk_body(R, &s->body, pos && c, level);
  if (b & JUMP_BRK) walk_body(R, &s->body, false, level);   /* some threads left early */
  if (level < 0) R->loop_depth--;
  bool together = pos && c && !(b & JUMP_BRK);
  if (s->kind == N_FOR) assign_target(R, s->a, together, level);
  /* the body's break and continue are the loop's own; the else block's leave it */
  int out = (b & JUMP_RET) | walk_body(R, &s->orelse, together, level);
  return c ? out : out | jumps_out(s);
}

/* Walks s at a uniform position or not (pos), at the block's level (level -1) or in
 * region `level`; returns the jumps in it that some threads take and others not. */
static int walk_stmt(host_regions *R, node *s, bool pos, int level) {
  switch (s->kind) {
  case N_EXPR_STMT:
    if (is_barrier_stmt(s)) {
      if (!pos || level >= 0) refuse(R, "a barrier under a thread-dependent condition");
      if (R->returned) refuse(R, "a barrier after a thread's return");
    }
    return 0;
  case N_ASSIGN: {
    bool u = pos && uniform_expr(R, s->a);
    for (int i = 0; i < s->list.len; i++) assign_target(R, s->list.items[i], u, level);
    return 0;
  }
  case N_AUGASSIGN: {
    int v = hr_local_of(R, s->a);
    if (v >= 0) assign_local(R, v, pos && R->uniform[v] && uniform_expr(R, s->b), level);
    else assign_target(R, s->a, false, level);
    return 0;
  }
  case N_ANNASSIGN:
    if (s->c) assign_target(R, s->a, pos && uniform_expr(R, s->c), level);
    return 0;
  case N_IF: {
    bool c = uniform_expr(R, s->a);
    int b = walk_body(R, &s->body, pos && c, level) | walk_body(R, &s->orelse, pos && c, level);
    return c ? b : b | jumps_out(s);
  }
  case N_WHILE: case N_FOR: return walk_loop(R, s, pos, level);
  case N_RETURN:
    if (level >= 0) R->region_returns = true;
    return 0;
  default: return 0;
  }
}

/* The region's statement k: the locals it refers to that the region has not referred
 * to before; whether it kills each (assigns it before reading it). */
static bool kills(const host_regions *R, node **items, int k, int n, int v) {
  const node *s = items[k];
  if (s->kind == N_ASSIGN) {
    if (refers_to(R, s->a, v)) return false;
    bool hit = false;
    for (int i = 0; i < s->list.len; i++) {
      const node *t = s->list.items[i];
      if (hr_local_of(R, t) == v) hit = true;
      else if (t->kind == N_TUPLE) {
        for (int j = 0; j < t->list.len; j++)
          if (hr_local_of(R, t->list.items[j]) == v) hit = true;
          else if (refers_to(R, t->list.items[j], v)) return false;
      } else if (refers_to(R, t, v)) return false;
    }
    return hit;
  }
  if (s->kind == N_ANNASSIGN) return s->c && hr_local_of(R, s->a) == v && !refers_to(R, s->c, v);
  if (s->kind == N_FOR && hr_local_of(R, s->a) == v && !refers_to(R, s->b, v)) {
    for (int i = 0; i < s->orelse.len; i++)
      if (refers_to(R, s->orelse.items[i], v)) return false;
    for (int i = k + 1; i < n; i++)   /* an empty range leaves it as it was */
      if (refers_to(R, items[i], v)) return false;
    return true;
  }
  return false;
}

typedef struct note_ctx { host_regions *R; node **items; int k, n, r; } note_ctx;

static bool note_ref(const node *e, void *ud) {
  note_ctx *c = ud;
  host_regions *R = c->R;
  int v = hr_local_of(R, e);
  if (v < 0 || R->stamp[v] == c->r + 1) return false;
  R->stamp[v] = c->r + 1;
  bool k = kills(R, c->items, c->k, c->n, v);
  if (R->region[v] == -1) {
    R->region[v] = c->r;
    R->killed[v] = k;
  } else {
    R->region[v] = -2;
    R->killed[v] = R->killed[v] && k;
  }
  return false;
}

/* The locals target t of a top-level assignment names: one name, or a flat tuple of
 * names (`x0, y0 = cuda.grid(2)`); else none. At most n of them into v; their count. */
static int defined_locals(const host_regions *R, const node *t, int *v, int n) {
  if (t->kind == N_NAME) {
    v[0] = hr_local_of(R, t);
    return v[0] >= 0;
  }
  if (t->kind != N_TUPLE || t->list.len > n) return 0;
  for (int k = 0; k < t->list.len; k++)
    if ((v[k] = hr_local_of(R, t->list.items[k])) < 0) return 0;
  return t->list.len;
}

int hr_def_local(const host_regions *R, const node *s) {
  int v[HR_DEF_MAX];
  return defined_locals(R, s->list.items[0], v, HR_DEF_MAX) ? v[0] : -1;
}

/* items[k] at the function's top level, as a candidate for recomputing (see remat) */
static void note_definition(host_regions *R, node *s, int r) {
  if (s->kind != N_ASSIGN || s->list.len != 1) return;
  int v[HR_DEF_MAX], n = defined_locals(R, s->list.items[0], v, HR_DEF_MAX);
  for (int k = 0; k < n; k++) {
    R->def[v[k]] = s;
    R->def_region[v[k]] = r;
  }
}

static int walk_region(host_regions *R, node **items, int n, bool *pos) {
  int r = R->nregions++, bits = 0;
  node_list *top = &R->f->def->body;
  bool at_top = items >= top->items && items < top->items + top->len;
  R->region_returns = false;
  for (int k = 0; k < n; k++) {
    if (at_top) note_definition(R, items[k], r);
    note_ctx c = {R, items, k, n, r};
    ast_visit(items[k], note_ref, &c);
    int b = walk_stmt(R, items[k], *pos, r);
    if (b) *pos = false;
    bits |= b;
  }
  if (R->region_returns) {
    if (R->loop_depth > 0) refuse(R, "a return in a loop with a barrier");
    R->returned = true;
  }
  return bits;
}

/* A grid-stride loop: its body a region whose threads each assign the loop's target
 * first; a thread's steps are its own, so no position in it is uniform. */
static int walk_strided(host_regions *R, node *s) {
  int r = R->nregions++, v = hr_local_of(R, s->a);
  R->stamp[v] = r + 1;
  if (R->region[v] == -1) {
    R->region[v] = r;
    R->killed[v] = true;
  } else {
    R->region[v] = -2;
  }
  assign_local(R, v, false, r);
  node **items = s->body.items;
  for (int k = 0; k < s->body.len; k++) {
    note_ctx c = {R, items, k, s->body.len, r};
    ast_visit(items[k], note_ref, &c);
    walk_stmt(R, items[k], false, r);
  }
  return 0;
}

int hr_region_end(const host_regions *R, node_list *l, int i) {
  while (i < l->len && hr_classify(R, l->items[i]) == ST_REGION) i++;
  return i;
}

static int walk_block_list(host_regions *R, node_list *l, bool pos) {
  int bits = 0;
  for (int i = 0; i < l->len;) {
    node *s = l->items[i];
    int b;
    stmt_class c = hr_classify(R, s);
    if (c == ST_REGION) {
      int j = hr_region_end(R, l, i);
      b = walk_region(R, l->items + i, j - i, &pos);
      i = j;
    } else if (c == ST_STRIDED) {
      b = walk_strided(R, s);
      i++;
    } else {
      b = walk_stmt(R, s, pos, -1);
      i++;
    }
    if (b) pos = false;
    bits |= b;
  }
  return bits;
}

static void walk_once(host_regions *R) {
  size_t n = (size_t)R->n;
  for (size_t v = 0; v < n; v++) {
    R->region[v] = -1;
    R->killed[v] = R->written[v] = false;
    R->stamp[v] = R->nassign[v] = 0;
    R->def[v] = NULL;
  }
  R->changed = false;
  R->nregions = 0;
  R->loop_depth = 0;
  R->returned = false;
  walk_block_list(R, &R->f->def->body, true);
  /* a uniform local that a region updates (rather than assigns) is not: every thread
     would update the one copy in turn */
  for (size_t v = 0; v < n; v++)
    if (R->uniform[v] && R->written[v] && !R->killed[v]) {
      R->uniform[v] = false;
      R->changed = true;
    }
}

/* ---- which locals live where ---- */

/* for i in range(start, stop[, step]) with stop and step uniform, start made of the
 * thread's index and values fixed by then (remat_mode), a signed counter, and no
 * break, return, else or barrier; the thread-dependent start is what makes it worth
 * interchanging (a uniform one is a plain loop in a region). */
static bool strided_candidate(host_regions *R, node *s) {
  if (s->kind != N_FOR || s->aux_ptr || s->orelse.len || hr_local_of(R, s->a) < 0 ||
      !s->b->ty || s->b->ty->kind != TY_INT || !s->b->ty->is_signed || contains_barrier(s))
    return false;
  for (int i = 0; i < s->body.len; i++)
    if (jumps_out(s->body.items[i]) & (JUMP_BRK | JUMP_RET)) return false;
  const node_list *args = &s->b->list;
  int n = args->len;
  bool start_ok = n >= 2 && uniform_expr(R, args->items[0]);
  R->remat_mode = false;
  bool uniform_start = n < 2 || uniform_expr(R, args->items[0]);
  bool rest = uniform_expr(R, args->items[n >= 2 ? 1 : 0]) && (n < 3 || uniform_expr(R, args->items[2]));
  R->remat_mode = true;
  return start_ok && !uniform_start && rest;
}

/* The inner loop of grid-stride loop s when the two make a 2-D grid-stride nest the
 * block can step through together (emit_strided):
 *     for i in range(y0, n, ys):          s's body is this loop alone, whose
 *         for j in range(x0, m, xs):      start is made of the thread's index
 *             ...                         and fixed values, stop and step uniform,
 * none of them reading i, with no break, return, else or barrier; i and j are read
 * nowhere else in the kernel (a thread whose row has no columns never assigns i
 * there). Else NULL. */
node *hr_strided_inner(host_regions *R, const node *s) {
  if (s->body.len != 1) return NULL;
  node *in = s->body.items[0];
  int vi = hr_local_of(R, s->a), vj = in->kind == N_FOR ? hr_local_of(R, in->a) : -1;
  if (vj < 0 || vj == vi || in->aux_ptr || in->orelse.len || !in->b->ty ||
      in->b->ty->kind != TY_INT || !in->b->ty->is_signed || contains_barrier(in))
    return NULL;
  for (int k = 0; k < in->body.len; k++)
    if (jumps_out(in->body.items[k]) & (JUMP_BRK | JUMP_RET)) return NULL;
  const node_list *args = &in->b->list;
  int n = args->len;
  if (n < 2 || refers_to(R, in->b, vi)) return NULL;
  bool saved = R->remat_mode;
  R->remat_mode = true;
  bool start_ok = uniform_expr(R, args->items[0]);
  R->remat_mode = false;
  bool thread_start = !uniform_expr(R, args->items[0]);
  bool rest = uniform_expr(R, args->items[1]) && (n < 3 || uniform_expr(R, args->items[2]));
  R->remat_mode = saved;
  if (!start_ok || !thread_start || !rest) return NULL;
  const node_list *top = &R->f->def->body;
  for (int k = 0; k < top->len; k++)
    if (top->items[k] != s && (refers_to(R, top->items[k], vi) || refers_to(R, top->items[k], vj)))
      return NULL;
  return in;
}

/* Grid-stride loops among the statements the block runs as a whole: s itself, and
 * inside a loop or if of them that holds a barrier, its own statements, down. */
static void find_strided(host_regions *R, node *s) {
  if (strided_candidate(R, s)) {
    vec_push(R->ar, &R->strided, s);
    return;
  }
  if ((s->kind != N_FOR && s->kind != N_WHILE && s->kind != N_IF) || !contains_barrier(s)) return;
  for (int k = 0; k < s->body.len; k++) find_strided(R, s->body.items[k]);
  for (int k = 0; k < s->orelse.len; k++) find_strided(R, s->orelse.items[k]);
}

static void choose_remat(host_regions *R) {
  node_list *top = &R->f->def->body;
  for (int v = 0; v < R->n; v++) {
    R->settled[v] = R->uniform[v] && R->nassign[v] == 0;
    R->remat[v] = false;
  }
  R->remat_order.len = 0;
  R->strided.len = 0;
  R->remat_mode = true;
  for (int i = 0; i < top->len; i++) {
    node *s = top->items[i];
    find_strided(R, s);
    int v[HR_DEF_MAX];
    int n = s->kind == N_ASSIGN && s->list.len == 1 ? defined_locals(R, s->list.items[0], v, HR_DEF_MAX) : 0;
    if (n == 1 && R->nassign[v[0]] == 1 && R->uniform[v[0]]) {
      R->settled[v[0]] = true;   /* its one assignment, run for the block (hoisted) */
      continue;
    }
    bool remat = n > 0 && uniform_expr(R, s->a);
    for (int k = 0; k < n; k++)   /* each target thread-dependent, assigned here alone */
      remat = remat && R->nassign[v[k]] == 1 && !R->uniform[v[k]] && R->def[v[k]] == s;
    if (!remat) continue;
    for (int k = 0; k < n; k++) R->remat[v[k]] = true;
    vec_push(R->ar, &R->remat_order, s);
  }
  R->remat_mode = false;
}

bool hr_per_thread(const host_regions *R, int v) {
  return !R->uniform[v] && !R->remat[v] && R->region[v] != -1 && !(R->region[v] >= 0 && R->killed[v]);
}

/* A value type the thread arrays can hold; an upper bound of its bytes. */
static bool plain_value(const type *t, size_t *bytes) {
  switch (t->kind) {
  case TY_BOOL: case TY_INT: case TY_FLOAT: case TY_COMPLEX: case TY_VECTOR:
    *bytes += 32;
    return true;
  case TY_ARRAY:
    *bytes += 8 + 16 * (size_t)t->ndim;
    return true;
  case TY_TUPLE:
    for (int i = 0; i < t->nelems; i++)
      if (!plain_value(t->elems[i], bytes)) return false;
    return true;
  default: return false;
  }
}

static bool collect_local_arrays(const node *e, void *ud) {
  host_regions *R = ud;
  if (e->kind == N_CALL && e->bi && (e->bi->flags & BF_NEW_ARRAY) && e->bi->op == MEM_LOCAL)
    vec_push(R->ar, &R->local_arrays, (void *)e);
  return false;
}

static size_t local_array_bytes(const node *e) {
  const int64_t *dims = e->aux_ptr;
  const type *el = e->ty->elem;
  size_t n = el->kind == TY_BOOL ? 1 : (size_t)el->bits / 8;
  for (int k = 0; k < e->ty->ndim; k++) n *= (size_t)dims[k];
  return n;
}

static bool check_frame(host_regions *R) {
  size_t bytes = 0;
  for (int v = 0; v < R->n; v++) {
    const type *t = R->syms[v]->ty;
    if (t && t->kind == TY_RECORD) refuse(R, "a record local");
    if (t && hr_per_thread(R, v) && !plain_value(t, &bytes)) refuse(R, "a local of this type kept across a barrier");
  }
  ast_visit_list(&R->f->def->body, collect_local_arrays, R);
  for (int k = 0; k < R->local_arrays.len; k++) {
    bytes += local_array_bytes(R->local_arrays.items[k]);
    if (bytes > REGION_FRAME_MAX) break;
  }
  if (bytes > REGION_FRAME_MAX) refuse(R, "too much kept per thread");
  return !R->why;
}

host_regions *hr_plan(arena *a, fn_instance *f) {
  host_regions *R = arena_alloc(a, sizeof *R);
  memset(R, 0, sizeof *R);
  R->ar = a;
  R->f = f;
  R->n = f->locals.len;
  R->syms = (symbol **)f->locals.items;
  size_t n = (size_t)R->n + 1;
  R->uniform = arena_alloc(a, n * sizeof *R->uniform);
  R->killed = arena_alloc(a, n * sizeof *R->killed);
  R->written = arena_alloc(a, n * sizeof *R->written);
  R->region = arena_alloc(a, n * sizeof *R->region);
  R->stamp = arena_alloc(a, n * sizeof *R->stamp);
  R->nassign = arena_alloc(a, n * sizeof *R->nassign);
  R->def = arena_alloc(a, n * sizeof *R->def);
  R->def_region = arena_alloc(a, n * sizeof *R->def_region);
  R->settled = arena_alloc(a, n * sizeof *R->settled);
  R->remat = arena_alloc(a, n * sizeof *R->remat);
  for (int v = 0; v < R->n; v++) R->uniform[v] = true;
  host_locals_init(a, &R->locals, f);
  int calls = 0, stmts = 0;
  ast_visit_list(&f->def->body, count_barrier_calls, &calls);
  ast_visit_list(&f->def->body, count_barrier_stmts, &stmts);
  if (calls != stmts) refuse(R, "a barrier inside an expression");
  ast_visit_list(&f->def->body, refusal_here, R);
  if (R->why) return R;
  /* each walk only removes locals from the uniform set, so this ends */
  /* grid-stride loops are found once the uniform locals are known, and change the walk
     (their bodies become regions of their own): walk again until both settle */
  for (int round = 0; round < 4 && !R->why; round++) {
    do walk_once(R); while (R->changed && !R->why);
    int before = R->strided.len;
    if (!R->why) choose_remat(R);
    if (R->strided.len == before && (round > 0 || before == 0)) break;
    if (round == 3) refuse(R, "grid-stride loops did not settle");
  }
  if (!R->why) check_frame(R);
  return R;
}

/* KC_CPU_EXPLAIN=1: say on stderr which kernels keep fibers, and why (for tuning) */
void hr_explain(const fn_instance *f, const char *why) {
  const char *want = getenv("KC_CPU_EXPLAIN");
  if (want && *want && strcmp(want, "0") != 0)
    fprintf(stderr, "kcc: kernel '%s' runs its threads as fibers on the CPU: %s\n",
            f->symbol_name, why);
}

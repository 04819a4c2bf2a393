/*
 * host_regions.c — kernels with barriers on the CPU without fibers: the region form,
 * as MCUDA, POCL's work-group loops and CuPBoP build it.
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
 * Whatever this cannot express leaves the kernel to fibers (runtime/cpu_exec.c), which
 * run any kernel and report a barrier that some threads never reach: a barrier under a
 * thread-dependent condition (undefined behaviour in CUDA) or in a device function,
 * warp collectives and syncthreads_count/and/or (they exchange values mid-region), a
 * raise or a debug assert (they end one thread), a return that a later barrier
 * follows, inner functions, record locals, and more than REGION_FRAME_MAX bytes per
 * thread.
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

enum { REGION_FRAME_MAX = 8192 };   /* per thread: 8 MiB a worker at 1024 threads */

enum { JUMP_RET = 1, JUMP_BRK = 2, JUMP_CONT = 4 };

/* A statement of a list at the block's level: part of a region, a barrier, or run once
 * for the whole block (control flow holding a barrier, an assignment to uniform locals,
 * a jump). */
typedef enum stmt_class { ST_REGION, ST_BARRIER, ST_BLOCK, ST_STRIDED } stmt_class;

typedef struct host_regions {
  arena *ar;
  fn_instance *f;
  int n;                  /* f's locals */
  symbol **syms;
  int *hash, hcap;        /* symbol -> index */
  bool *uniform;
  /* one walk of the body (repeated until the uniform locals settle) */
  bool changed;
  const char *why;        /* the first reason the kernel keeps fibers */
  int *region;            /* the region a local is referenced in: -1 none, -2 several */
  bool *killed;           /* every region referencing it assigns it first */
  bool *written;          /* assigned inside a region */
  int *stamp;             /* region + 1 where last seen */
  int nregions;
  int loop_depth;         /* block-level loops around the statement being walked */
  bool region_returns;    /* the region being walked has a return */
  bool returned;          /* some region walked so far has a return */
  ptr_vec local_arrays;   /* cuda.local.array calls in regions (N_CALL nodes) */
  int *nassign;           /* assignments to each local */
  node **def;             /* its assignment at the function's top level, if any */
  int *def_region;        /* the region holding that assignment */
  /* Locals recomputed rather than kept per thread: assigned once, at the top level,
     from uniform values and the thread's index (tx = cuda.threadIdx.x, i =
     cuda.grid(1)); each later region recomputes them as its threads start, which keeps
     their ranges in view of LLVM (a reload from memory loses them) and saves memory */
  bool remat_mode;        /* uniform_expr accepts the thread's index and these */
  bool *settled;          /* a uniform local that keeps one value from here on */
  bool *remat;
  ptr_vec remat_order;    /* their definitions, in program order */
  int emitted;            /* regions generated so far */
  /* Grid-stride loops (for i in range(cuda.grid(1), n, cuda.gridsize(1))) at the
     function's top level: run step by step for the whole block, each step a loop over
     the threads, so that a step's threads touch neighbouring elements (see
     emit_strided) */
  ptr_vec strided;
  /* code generation */
  bool block_level;
  LLVMValueRef dims[3], lin;
  LLVMValueRef *base;     /* per local kept per thread: its array */
  LLVMValueRef *arr_base; /* per local array: its storage for thread 0 */
} host_regions;

static void refuse(host_regions *R, const char *why) {
  if (!R->why) R->why = why;
}

/* ---- symbols ---- */

static size_t sym_hash(const symbol *s, int cap) {
  return (size_t)(((uintptr_t)s >> 4) * 0x9e3779b97f4a7c15ull) & (size_t)(cap - 1);
}

static void index_locals(host_regions *R) {
  R->hcap = 8;
  while (R->hcap < 2 * R->n) R->hcap *= 2;
  R->hash = arena_alloc(R->ar, sizeof *R->hash * (size_t)R->hcap);
  for (int h = 0; h < R->hcap; h++) R->hash[h] = -1;
  for (int i = 0; i < R->n; i++) {
    size_t h = sym_hash(R->syms[i], R->hcap);
    while (R->hash[h] >= 0) h = (h + 1) & (size_t)(R->hcap - 1);
    R->hash[h] = i;
  }
}

static int local_of(const host_regions *R, const node *e) {
  if (!e || e->kind != N_NAME || !e->sym || e->sym->kind != SYM_LOCAL) return -1;
  for (size_t h = sym_hash(e->sym, R->hcap); R->hash[h] >= 0; h = (h + 1) & (size_t)(R->hcap - 1))
    if (R->syms[R->hash[h]] == e->sym) return R->hash[h];
  return -1;
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
  return local_of(q->R, n) == q->v;
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
  case N_FUNCDEF: refuse(R, "an inner function"); return true;
  case N_CALL:
    if (n->bi) {
      unsigned fl = n->bi->flags;
      if (fl & (BF_WARP | BF_GROUP | BF_COLLECTIVE)) {
        refuse(R, "a warp or block collective");
        return true;
      }
      return false;
    }
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
    int v = local_of(R, e);
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
    assign_local(R, local_of(R, t), uniform, level);
  } else if (t->kind == N_TUPLE) {
    for (int i = 0; i < t->list.len; i++) assign_target(R, t->list.items[i], uniform, level);
  } else if (t->kind == N_ATTR) {   /* a record's field: the record changes */
    const node *base = t->a;
    while (base->kind == N_ATTR || base->kind == N_INDEX) base = base->a;
    assign_local(R, local_of(R, base), false, level);
  }
}

/* An assignment to uniform locals only (runs once for the block). */
static bool uniform_assignment(const host_regions *R, const node *s) {
  const node *single = s->kind == N_AUGASSIGN || s->kind == N_ANNASSIGN ? s->a : NULL;
  if (s->kind == N_ANNASSIGN && !s->c) return false;
  if (single) {
    int v = local_of(R, single);
    return v >= 0 && R->uniform[v];
  }
  if (s->kind != N_ASSIGN) return false;
  for (int i = 0; i < s->list.len; i++) {
    const node *t = s->list.items[i];
    int v = local_of(R, t);
    if (v < 0 || !R->uniform[v]) return false;
  }
  return true;
}

static bool is_strided(const host_regions *R, const node *s) {
  for (int i = 0; i < R->strided.len; i++)
    if (R->strided.items[i] == s) return true;
  return false;
}

static stmt_class classify(const host_regions *R, const node *s) {
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
    int v = local_of(R, s->a);
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
      if (local_of(R, t) == v) hit = true;
      else if (t->kind == N_TUPLE) {
        for (int j = 0; j < t->list.len; j++)
          if (local_of(R, t->list.items[j]) == v) hit = true;
          else if (refers_to(R, t->list.items[j], v)) return false;
      } else if (refers_to(R, t, v)) return false;
    }
    return hit;
  }
  if (s->kind == N_ANNASSIGN) return s->c && local_of(R, s->a) == v && !refers_to(R, s->c, v);
  if (s->kind == N_FOR && local_of(R, s->a) == v && !refers_to(R, s->b, v)) {
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
  int v = local_of(R, e);
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

/* items[k] at the function's top level, as a candidate for recomputing (see remat) */
static void note_definition(host_regions *R, node *s, int r) {
  if (s->kind != N_ASSIGN || s->list.len != 1) return;
  int v = local_of(R, s->list.items[0]);
  if (v < 0) return;
  R->def[v] = s;
  R->def_region[v] = r;
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
  int r = R->nregions++, v = local_of(R, s->a);
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

static int region_end(const host_regions *R, node_list *l, int i) {
  while (i < l->len && classify(R, l->items[i]) == ST_REGION) i++;
  return i;
}

static int walk_block_list(host_regions *R, node_list *l, bool pos) {
  int bits = 0;
  for (int i = 0; i < l->len;) {
    node *s = l->items[i];
    int b;
    stmt_class c = classify(R, s);
    if (c == ST_REGION) {
      int j = region_end(R, l, i);
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
  if (s->kind != N_FOR || s->aux_ptr || s->orelse.len || local_of(R, s->a) < 0 ||
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
    if (strided_candidate(R, s)) vec_push(R->ar, &R->strided, s);
    int v = s->kind == N_ASSIGN && s->list.len == 1 ? local_of(R, s->list.items[0]) : -1;
    if (v < 0 || R->nassign[v] != 1) continue;
    if (R->uniform[v]) {   /* its one assignment, run for the block (hoisted) */
      R->settled[v] = true;
    } else if (R->def[v] == s && uniform_expr(R, s->a)) {
      R->remat[v] = true;
      vec_push(R->ar, &R->remat_order, s);
    }
  }
  R->remat_mode = false;
}

static bool per_thread(const host_regions *R, int v) {
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
    if (t && per_thread(R, v) && !plain_value(t, &bytes)) refuse(R, "a local of this type kept across a barrier");
  }
  ast_visit_list(&R->f->def->body, collect_local_arrays, R);
  for (int k = 0; k < R->local_arrays.len; k++) {
    bytes += local_array_bytes(R->local_arrays.items[k]);
    if (bytes > REGION_FRAME_MAX) break;
  }
  if (bytes > REGION_FRAME_MAX) refuse(R, "too much kept per thread");
  return !R->why;
}

static host_regions *plan(arena *a, fn_instance *f) {
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
  index_locals(R);
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
static void explain(const fn_instance *f, const char *why) {
  const char *want = getenv("KC_CPU_EXPLAIN");
  if (want && *want && strcmp(want, "0") != 0)
    fprintf(stderr, "kcc: kernel '%s' runs its threads as fibers on the CPU: %s\n",
            f->symbol_name, why);
}

/* ---- code generation ---- */

static bool terminated(cg_ctx *g) {
  return LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(g->b)) != NULL;
}

bool host_regions_at_block_level(const cg_ctx *g) {
  return g->regions && g->regions->block_level;
}

/* thread (x, y, z)'s index in the block, x fastest */
static LLVMValueRef linear_thread(cg_ctx *g, host_regions *R, LLVMValueRef *iv) {
  LLVMValueRef lin = LLVMBuildZExt(g->b, iv[2], g->i64, "");
  for (int k = 1; k >= 0; k--) {
    LLVMValueRef d = LLVMBuildZExt(g->b, R->dims[k], g->i64, "");
    lin = LLVMBuildNUWAdd(g->b, LLVMBuildNUWMul(g->b, lin, d, ""),
                          LLVMBuildZExt(g->b, iv[k], g->i64, ""), "");
  }
  return lin;
}

/* Point every local kept per thread at this thread's element. */
static void enter_thread(cg_ctx *g, host_regions *R, host_thread_loops *l) {
  R->lin = linear_thread(g, R, l->iv);
  for (int v = 0; v < R->n; v++)
    if (R->base[v]) {
      symbol *s = R->syms[v];
      s->cg = LLVMBuildInBoundsGEP2(g->b, cg_type(g, s->ty), R->base[v], &R->lin, 1, s->name);
    }
  for (int k = 0; k < 3; k++) g->tid[k] = l->iv[k];
}

/* Open a region's thread loops: each thread's locals, and the recomputed ones (remat)
 * that region r comes after. */
static void open_region(cg_ctx *g, host_regions *R, host_thread_loops *l, int r) {
  if (terminated(g)) LLVMPositionBuilderAtEnd(g->b, cg_new_bb(g, "dead"));
  memcpy(l->dims, R->dims, sizeof l->dims);
  host_thread_loops_open(g, l);
  enter_thread(g, R, l);
  R->block_level = false;
  for (int k = 0; k < R->remat_order.len; k++) {
    node *def = R->remat_order.items[k];
    if (R->def_region[local_of(R, def->list.items[0])] < r) cg_statement(g, def);
  }
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

/* A grid-stride loop, interchanged: the block takes step c = 0, 1, ... while some
 * thread has one left, and at each step every thread that has takes its iteration
 * i = start + c * step, so the threads of a step touch neighbouring elements and the
 * thread loop vectorises. A first thread loop finds the threads' smallest and largest
 * start, and so the most steps a thread takes.
 * Threads of a block are independent where no barrier is, so this order is one of
 * those CUDA allows; each thread still takes its own iterations, in order. */
static void emit_strided(cg_ctx *g, host_regions *R, node *s) {
  const type *t = s->b->ty;
  const node_list *a = &s->b->list;
  int n = a->len, r = R->emitted++;
  LLVMValueRef stop = LLVMBuildSExt(g->b, cg_expr_as(g, a->items[1], t), g->i64, "stop");
  LLVMValueRef step = n == 3 ? LLVMBuildSExt(g->b, cg_expr_as(g, a->items[2], t), g->i64, "step") : ci64(g, 1);
  LLVMBasicBlockRef bad = cg_new_bb(g, "step.zero"), ok = cg_new_bb(g, "step.ok");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntEQ, step, ci64(g, 0), ""), bad, ok);
  LLVMPositionBuilderAtEnd(g->b, bad);
  host_trap(g, "ValueError: range() arg 3 must not be zero");
  LLVMBuildBr(g->b, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, ok);
  LLVMValueRef lo_min = cg_entry_alloca(g, g->i64, "lo.min"), lo_max = cg_entry_alloca(g, g->i64, "lo.max");
  LLVMBuildStore(g->b, ci64(g, INT64_MAX), lo_min);
  LLVMBuildStore(g->b, ci64(g, INT64_MIN), lo_max);
  host_thread_loops l;
  open_region(g, R, &l, r);
  LLVMValueRef lo = LLVMBuildSExt(g->b, cg_expr_as(g, a->items[0], t), g->i64, "");
  update_extreme(g, lo_min, lo, LLVMIntSLT);
  update_extreme(g, lo_max, lo, LLVMIntSGT);
  host_thread_loops_close(g, &l);
  R->block_level = true;
  /* the thread starting furthest back (for a positive step, the smallest start) takes
     the most steps: one division for the block */
  LLVMValueRef first = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, step, ci64(g, 0), ""),
                                       LLVMBuildLoad2(g->b, g->i64, lo_min, ""),
                                       LLVMBuildLoad2(g->b, g->i64, lo_max, ""), "");
  LLVMValueRef steps = trip_count(g, first, stop, step);
  LLVMBasicBlockRef wide = cg_new_bb(g, "range.wide"), fits = cg_new_bb(g, "range.fits");
  LLVMBuildCondBr(g->b, strided_fits(g, stop, step, steps, LLVMBuildLoad2(g->b, g->i64, lo_min, ""),
                                     LLVMBuildLoad2(g->b, g->i64, lo_max, "")), fits, wide);
  LLVMPositionBuilderAtEnd(g->b, wide);
  host_trap(g, "a grid-stride range() this close to the int64 limits is not supported "
               "by the CPU back end");
  LLVMBuildBr(g->b, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, fits);
  /* for c in range(steps): for each thread: i = start + c * step; if in range: body */
  LLVMValueRef ctr = cg_entry_alloca(g, g->i64, "step.c");
  LLVMBuildStore(g->b, ci64(g, 0), ctr);
  LLVMBasicBlockRef head = cg_new_bb(g, "steps"), body = cg_new_bb(g, "step"), done = cg_new_bb(g, "steps.end");
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, head);
  LLVMValueRef c = LLVMBuildLoad2(g->b, g->i64, ctr, "c");
  LLVMBuildCondBr(g->b, LLVMBuildICmp(g->b, LLVMIntULT, c, steps, ""), body, done);
  LLVMPositionBuilderAtEnd(g->b, body);
  open_region(g, R, &l, r);
  lo = LLVMBuildSExt(g->b, cg_expr_as(g, a->items[0], t), g->i64, "");
  LLVMValueRef i = strided_index(g, lo, c, step);
  LLVMValueRef mine = before_stop(g, i, stop, step);
  LLVMBasicBlockRef take = cg_new_bb(g, "step.take"), next = cg_new_bb(g, "thread.next");
  LLVMBuildCondBr(g->b, mine, take, next);
  LLVMPositionBuilderAtEnd(g->b, take);
  cg_store_target(g, s->a, LLVMBuildTrunc(g->b, i, cg_scalar_type(g, t), ""), t);
  loop_targets lt = {next, next}, *saved_loop = g->loop;
  g->loop = &lt;   /* continue: this thread's next step (break was ruled out) */
  for (int k = 0; k < s->body.len; k++) cg_statement(g, s->body.items[k]);
  if (!terminated(g)) LLVMBuildBr(g->b, next);
  LLVMPositionBuilderAtEnd(g->b, next);
  host_thread_loops_close(g, &l);
  g->loop = saved_loop;
  R->block_level = true;
  for (int k = 0; k < 3; k++) g->tid[k] = ci32(g, 0);
  LLVMBuildStore(g->b, LLVMBuildNUWAdd(g->b, c, ci64(g, 1), ""), ctr);
  LLVMBuildBr(g->b, head);
  LLVMPositionBuilderAtEnd(g->b, done);
}

static void emit_region(cg_ctx *g, host_regions *R, node **items, int n) {
  host_thread_loops l;
  open_region(g, R, &l, R->emitted++);
  loop_targets *saved_loop = g->loop;
  LLVMBasicBlockRef saved_ret = g->ret_bb, next = cg_new_bb(g, "thread.next");
  g->loop = NULL;
  g->ret_bb = next;   /* a return ends this thread (no barrier follows: plan) */
  for (int k = 0; k < n; k++) cg_statement(g, items[k]);
  if (!terminated(g)) LLVMBuildBr(g->b, next);
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
    switch (classify(R, s)) {
    case ST_BARRIER: i++; break;
    case ST_BLOCK: cg_statement(g, s); i++; break;
    case ST_STRIDED: emit_strided(g, R, s); i++; break;
    case ST_REGION: {
      int j = region_end(R, body, i);
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
    if (R->syms[v]->ty && per_thread(R, v)) types[nt++] = cg_type(g, R->syms[v]->ty);
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
  LLVMBasicBlockRef ok = cg_new_bb(g, "frame.ok");
  LLVMBuildCondBr(g->b, LLVMBuildIsNull(g->b, frame, ""), g->ret_bb, ok);
  LLVMPositionBuilderAtEnd(g->b, ok);
  LLVMBuildMemSet(g->b, frame, LLVMConstInt(g->i8, 0, 0), total, 64);
  int i = 0;
  for (int v = 0; v < R->n; v++)
    if (R->syms[v]->ty && per_thread(R, v))
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
  host_thread_loops_open(g, &l);
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

/* K__block(args, blk) in region form. */
bool host_regions_entry(cg_ctx *g, fn_instance *f) {
  const char *off = getenv("KC_CPU_REGIONS");   /* 0: fibers for every barrier kernel */
  if ((off && strcmp(off, "0") == 0) || (!f->uses_barrier && !top_level_loop(f))) return false;
  if (f->noopt || f->uses_grid_sync) {
    explain(f, f->noopt ? "opt=False" : "a grid barrier");
    return false;
  }
  host_regions *R = plan(g->ar, f);
  if (!f->uses_barrier && (!R || R->why || R->strided.len == 0))
    return false;   /* no barrier and no grid-stride loop: the plain K__block */
  if (!R || R->why) {
    explain(f, R ? R->why : "");
    return false;
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
  host_unpack_args(g, f, LLVMGetParam(g->fn, 0), args);
  host_block_dims(g, g->blk, R->dims);
  LLVMValueRef nthreads = ci64(g, 1);
  for (int k = 0; k < 3; k++)
    nthreads = LLVMBuildNUWMul(g->b, nthreads, LLVMBuildZExt(g->b, R->dims[k], g->i64, ""), "");
  lay_out_frame(g, R, nthreads);
  init_locals(g, R, args);
  g->regions = R;
  R->block_level = true;
  host_regions_block(g, &f->def->body);
  if (!terminated(g)) LLVMBuildBr(g->b, g->ret_bb);
  LLVMPositionBuilderAtEnd(g->b, g->ret_bb);
  LLVMBuildRetVoid(g->b);
  LLVMSetCurrentDebugLocation2(g->b, NULL);
  if (f->fastmath) cg_set_fast_math_flags(g->fn);
  restore_state(g, &saved);
  return true;
}

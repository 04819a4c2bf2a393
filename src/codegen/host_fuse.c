/*
 * host_fuse.c — CPU back end: whether the executor may run a run of neighbouring blocks
 * of a barrier-free kernel as one wider block (runtime/cpu/pool.c, run_fused). A 16x16
 * block gives K__block's innermost thread loop 16 iterations: too few for the vector
 * loop to pay for its setup and its alias checks, which it then pays on every row of
 * every block. Run eight such blocks along x as one and the loop has 128.
 *
 * The executor does it by lending the K__block of the run's first block a thread loop
 * as long as the whole run along the fused axis (kc_cpu_block.thread_span) while
 * blockIdx stays the first block's and blockDim the real one. Thread t of that loop is
 * then thread t % blockDim of block blockIdx + t / blockDim: the kernel computes the
 * right global index, blockIdx * blockDim + threadIdx, as long as that sum is all it
 * ever does with threadIdx and blockIdx along the fused axis. So the kernel qualifies
 * when every use of them along that axis is
 *   - inside cuda.grid(n), or
 *   - inside a sum  threadIdx + blockIdx * blockDim  (either order of both operators),
 *     where each of the three may be a local assigned once from it (`tx =
 *     cuda.threadIdx.x`, `bw = cuda.blockDim.x`), and blockIdx * blockDim a local
 *     assigned once from that product;
 * the same for every device function it calls; and nothing else can tell the blocks
 * apart: no shared memory (one buffer would serve several blocks), no barrier, warp or
 * block collective, no laneid, no print (the order of the lines would change with 2-D
 * blocks), not a debug kernel (which thread fails first is reported). A bounds check's
 * error record recovers the real block and thread (codegen.c, cg_error_claim).
 *
 * Why running them so is one of the executions CUDA allows: blocks have no order, and
 * without barriers the threads of one have none either.
 */
#include <stdint.h>
#include <string.h>

#include "builtins/builtin.h"
#include "cg.h"
#include "host_regions.h"

enum { FUSE_DEPTH_MAX = 8 };

/* What a local assigned once stands for. */
enum { AL_NONE, AL_TID, AL_BID, AL_BDIM, AL_BASE, AL_ONCE, AL_MANY };

typedef struct fuse_scan {
  arena *ar;
  int axis;
  host_locals L;
  unsigned char *alias;   /* per local slot: AL_* */
  bool refused;
  int depth;
  ptr_vec *seen;          /* fn_instance*: callees already scanned */
} fuse_scan;

static int local_slot(const fuse_scan *S, const node *e) {
  return host_locals_slot(&S->L, e);
}

static bool is_path(const node *e, const char *prefix, int axis) {
  if (!e || !e->bi) return false;
  size_t n = strlen(prefix);
  const char *p = e->bi->path;
  return strncmp(p, prefix, n) == 0 && p[n] == '.' && p[n + 1] == "xyz"[axis] && !p[n + 2];
}

/* What e is: threadIdx, blockIdx or blockDim along the axis, blockIdx * blockDim, or a
 * local that stands for one of them. */
static int what(const fuse_scan *S, const node *e) {
  if (is_path(e, "numba.cuda.threadIdx", S->axis)) return AL_TID;
  if (is_path(e, "numba.cuda.blockIdx", S->axis)) return AL_BID;
  if (is_path(e, "numba.cuda.blockDim", S->axis)) return AL_BDIM;
  int v = local_slot(S, e);
  if (v >= 0 && S->alias[v] < AL_ONCE) return S->alias[v];
  if (e && e->kind == N_BINOP && e->op == OP_MUL) {
    int a = what(S, e->a), b = what(S, e->b);
    if ((a == AL_BID && b == AL_BDIM) || (a == AL_BDIM && b == AL_BID)) return AL_BASE;
  }
  return AL_NONE;
}

/* threadIdx + blockIdx * blockDim, in either order */
static bool global_index(const fuse_scan *S, const node *e) {
  if (e->kind != N_BINOP || e->op != OP_ADD) return false;
  int a = what(S, e->a), b = what(S, e->b);
  return (a == AL_TID && b == AL_BASE) || (a == AL_BASE && b == AL_TID);
}

/* ---- locals assigned once from an index ---- */

static void note_target(const node *t, void *ud) {
  fuse_scan *S = ud;
  if (t->kind == N_TUPLE) {
    for (int i = 0; i < t->list.len; i++) note_target(t->list.items[i], S);
    return;
  }
  int v = local_slot(S, t);
  if (v >= 0) S->alias[v] = S->alias[v] == AL_NONE ? AL_ONCE : AL_MANY;
}

static bool count_assignments(const node *s, int loops, void *ud) {
  (void)loops;
  ast_assign_targets(s, note_target, ud);
  return false;
}

/* A statement `name = value` that makes name an alias: the value is what it stands for. */
static int alias_definition(const fuse_scan *S, const node *s) {
  if (s->kind != N_ASSIGN || s->list.len != 1) return AL_NONE;
  int v = local_slot(S, s->list.items[0]);
  if (v < 0 || S->alias[v] == AL_NONE || S->alias[v] >= AL_ONCE) return AL_NONE;
  return what(S, s->a);
}

/* Each local assigned once (AL_ONCE above) by `name = index` takes that
 * index's kind; one assigned more often, or otherwise, is AL_MANY. A product alias
 * (base = bx * bw) may use earlier aliases, so this goes in source order. */
static bool settle_alias(const node *s, int loops, void *ud) {
  (void)loops;
  fuse_scan *S = ud;
  if (s->kind != N_ASSIGN || s->list.len != 1) return false;
  int v = local_slot(S, s->list.items[0]);
  if (v < 0 || S->alias[v] != AL_ONCE) return false;
  S->alias[v] = AL_NONE;   /* what() must not read it as its own alias */
  int k = what(S, s->a);
  S->alias[v] = k != AL_NONE ? (unsigned char)k : AL_MANY;
  return false;
}

/* ---- the scan ---- */

static bool scan_function(fuse_scan *S, const fn_instance *f);

static void refuse(fuse_scan *S) { S->refused = true; }

static void scan_call(fuse_scan *S, const node *n) {
  if (n->bi) {
    unsigned fl = n->bi->flags;
    if ((fl & (BF_WARP | BF_GROUP | BF_COLLECTIVE | BF_BARRIER)) ||
        ((fl & BF_NEW_ARRAY) && n->bi->op == MEM_SHARED) || strcmp(n->bi->path, "print") == 0)
      refuse(S);
    return;
  }
  if (n->aux == CALL_FOREIGN) return;   /* C code cannot read the thread's index */
  const fn_instance *callee = n->aux_ptr;
  if (!callee) {
    refuse(S);
    return;
  }
  for (int i = 0; i < S->seen->len; i++)
    if (S->seen->items[i] == callee) return;
  vec_push(S->ar, S->seen, (void *)callee);
  if (S->depth >= FUSE_DEPTH_MAX) {
    refuse(S);
    return;
  }
  fuse_scan inner = *S;
  inner.depth++;
  if (!scan_function(&inner, callee)) refuse(S);
}

static void walk(fuse_scan *S, const node *n);

static void walk_list(fuse_scan *S, const node_list *l) {
  for (int i = 0; i < l->len && !S->refused; i++) walk(S, l->items[i]);
}

static void walk(fuse_scan *S, const node *n) {
  if (!n || S->refused) return;
  if (global_index(S, n)) return;
  if (n->kind == N_CALL && n->bi && strcmp(n->bi->path, "numba.cuda.grid") == 0) return;
  if (alias_definition(S, n) != AL_NONE) return;
  int w = what(S, n);
  if (w == AL_TID || w == AL_BID || w == AL_BASE) {   /* outside a global index */
    refuse(S);
    return;
  }
  if (w == AL_BDIM) return;
  if (n->bi && (n->bi->flags & BF_THREAD_INDEX) && !is_path(n, "numba.cuda.threadIdx", 0) &&
      !is_path(n, "numba.cuda.threadIdx", 1) && !is_path(n, "numba.cuda.threadIdx", 2)) {
    refuse(S);   /* laneid and the like */
    return;
  }
  switch (n->kind) {
  case N_CALL: scan_call(S, n); break;
  case N_RAISE: case N_FUNCDEF: refuse(S); return;
  default: break;
  }
  walk(S, n->a);
  walk(S, n->b);
  walk(S, n->c);
  walk_list(S, &n->list);
  walk_list(S, &n->kwargs);
  walk_list(S, &n->body);
  walk_list(S, &n->orelse);
}

static bool scan_function(fuse_scan *S, const fn_instance *f) {
  if (f->debug || f->uses_barrier || f->uses_grid_sync || f->shared.len) return false;
  host_locals_init(S->ar, &S->L, f);
  S->alias = arena_alloc(S->ar, sizeof *S->alias * (size_t)S->L.cap);
  for (int i = 0; i < f->locals.len; i++)   /* a parameter is assigned by its call */
    if (((const symbol *)f->locals.items[i])->is_param)
      S->alias[host_locals_slot_of(&S->L, f->locals.items[i])] = AL_MANY;
  ast_visit_stmts(&f->def->body, count_assignments, S);
  ast_visit_stmts(&f->def->body, settle_alias, S);
  S->refused = false;
  walk_list(S, &f->def->body);
  return !S->refused;
}

bool host_fusable(arena *ar, const fn_instance *f, int axis) {
  if (!f->is_kernel || axis < 0 || axis > 2) return false;
  ptr_vec seen = {0};
  fuse_scan S = {.ar = ar, .axis = axis, .seen = &seen};
  return scan_function(&S, f);
}

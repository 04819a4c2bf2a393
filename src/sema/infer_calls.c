/*
 * infer_calls.c — type inference of calls: the checks builtins' typing functions share
 * (argument counts, scalars, integers, the GPU generation), a builtin's row applied
 * (its checks, typing and effects), methods, and calls of device functions (keywords
 * and defaults bound to parameters, the instance for the argument types) and of
 * functions held as values.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "signature.h"
#include "synth.h"
#include "typing.h"
#include "vector_types.h"


bool ix_check_argc(infer_ctx *ic, node *e, const char *what, int lo, int hi) {
  int n = e->list.len;
  if (e->kwargs.len) {
    ix_error(ic, e->kwargs.items[0]->sp, "%s takes no keyword arguments", what);
    return false;
  }
  if (n >= lo && n <= hi) return true;
  if (lo == hi) ix_error(ic, e->sp, "%s takes %d argument%s, %d given", what, lo, lo == 1 ? "" : "s", n);
  else if (hi > 100) ix_error(ic, e->sp, "%s takes at least %d arguments, %d given", what, lo, n);
  else ix_error(ic, e->sp, "%s takes %d to %d arguments, %d given", what, lo, hi, n);
  return false;
}

/* Type every argument; false if any is unknown. */
bool ix_args(infer_ctx *ic, node *e) {
  bool ok = true;
  for (int i = 0; i < e->list.len; i++)
    if (!ix_expr(ic, e->list.items[i])) ok = false;
  for (int i = 0; i < e->kwargs.len; i++) ix_expr(ic, ((node *)e->kwargs.items[i])->a);
  return ok;
}

bool ix_need_scalar(infer_ctx *ic, node *arg, const char *fname) {
  if (arg->ty && type_is_scalar(arg->ty)) return true;
  if (arg->ty) ix_error(ic, arg->sp, "%s needs a number, not %s", fname, ix_tname(ic, arg->ty));
  return false;
}

bool ix_need_int(infer_ctx *ic, node *arg, const char *fname, const char *what) {
  if (arg->ty && (arg->ty->kind == TY_INT || arg->ty->kind == TY_BOOL)) return true;
  if (arg->ty) ix_error(ic, arg->sp, "%s needs an integer %s, not %s", fname, what, ix_tname(ic, arg->ty));
  return false;
}

/* A real number (not complex): what math.*, min, max, round and int() take. */
bool ix_need_real(infer_ctx *ic, node *arg, const char *fname) {
  if (!ix_need_scalar(ic, arg, fname)) return false;
  if (arg->ty->kind != TY_COMPLEX) return true;
  ix_error(ic, arg->sp, "%s needs a real number, not %s (take .real, .imag or abs() first%s)",
       fname, ix_tname(ic, arg->ty), strncmp(fname, "math.", 5) == 0 ? ", or use cmath" : "");
  return false;
}

const type *ix_cast(infer_ctx *ic, node *e, const type *to, const char *fname) {
  if (!ix_check_argc(ic, e, fname, 1, 1) || !ix_args(ic, e)) return NULL;
  bool real = to->kind != TY_COMPLEX && to->kind != TY_BOOL;
  if (!(real ? ix_need_real : ix_need_scalar)(ic, e->list.items[0], fname)) return NULL;
  return ix_set_type(e, to, false);
}


/* ---- CUDA intrinsics: block collectives, fences, atomics, warp, bit operations -- */

/* An instruction the GPU has from sm_<min> on: older targets get an error here, where
 * LLVM would stop the process when it cannot select the instruction. */
bool ix_need_arch(infer_ctx *ic, node *e, const char *fname, int min) {
  if (ic->opts->target != KCC_TARGET_NVPTX || ic->opts->arch >= min) return true;
  ix_error(ic, e->sp, "%s needs sm_%d or later, not sm_%d", fname, min, ic->opts->arch);
  return false;
}

/* ---- calls of builtins: the registry's rows (src/builtins/) ---- */

/* A call of a builtin function or method: the row's own checks (argument count, GPU),
 * its typing, then its effects on the function being typed. */
static const type *ix_builtin_call(infer_ctx *ic, node *e, const builtin *b) {
  e->bi = b;
  /* messages say cuda.atomic.add, as the user wrote it, not numba.cuda.atomic.add */
  const char *fname = b->kind == BK_METHOD ? b->path + 1 : builtin_user_name(b);
  if (b->kind == BK_DECORATOR) {
    ix_error(ic, e->sp, "'%s' is a decorator and cannot be called inside a function", b->path);
    return NULL;
  }
  if (b->kind != BK_FUNCTION && b->kind != BK_METHOD) {
    ix_error(ic, e->sp, "'%s' cannot be called", fname);
    return NULL;
  }
  if (b->max_args >= 0 && !ix_check_argc(ic, e, fname, b->min_args, b->max_args)) return NULL;
  const type *t = b->typing(ic, e, b);
  if (!t) return NULL;
  if (b->min_sm && !ix_need_arch(ic, e, fname, b->min_sm)) return e->ty = NULL;
  /* barriers and warp exchanges: the CPU back end runs the threads as fibers */
  if (b->flags & (BF_BARRIER | BF_WARP)) ic->cur->uses_barrier = true;
  if (b->flags & BF_WRITES_ARG0) {
    ix_mark_name_written(ic, e->list.items[0]);
    ix_module_array_written(ic, e->list.items[0], e->sp);
  }
  return t;
}

/* z.conjugate(): methods are the registry's rows whose path starts with '.'; only
 * numbers have them, cooperative groups theirs (BF_GROUP), and arrays those flagged
 * BF_ARRAY_METHOD (builtins/arrays.c). */
static const type *ix_method(infer_ctx *ic, node *e, const type *bt) {
  node *callee = e->a;
  const builtin *b = builtin_find(ic->builtins, arena_printf(ic->ar, ".%s", callee->str));
  bool on_array = bt->kind == TY_ARRAY;
  if (b && b->kind == BK_METHOD &&
      ((b->flags & BF_GROUP)         ? bt->kind == TY_GROUP
       : (b->flags & BF_ARRAY_METHOD) ? on_array
                                      : type_is_numeric(bt)))
    return ix_builtin_call(ic, e, b);
  ix_error(ic, callee->sp, "methods are not supported: %s has no method '%s'", ix_tname(ic, bt),
       callee->str);
  return NULL;
}

/* ---- calls of device functions: keywords and defaults ---- */

static int param_named(const func_def *fn, const char *name) {
  for (int i = 0; i < fn->def->params.len; i++)
    if (strcmp(((node *)fn->def->params.items[i])->str, name) == 0) return i;
  return -1;
}

static int count_defaults(const func_def *fn) {
  int k = 0;
  for (int i = 0; fn->defaults && i < fn->def->params.len; i++) k += fn->defaults[i] != NULL;
  return k;
}

/* Too many positional arguments, or (with no keywords or defaults in play) too few: the
 * message every call with a wrong count has always had. */
static void argc_error(infer_ctx *ic, node *e, const func_def *fn) {
  int np = fn->def->params.len, lo = np - count_defaults(fn), n = e->list.len;
  if (lo == np)
    ix_error(ic, e->sp, "'%s' takes %d argument%s, %d given", fn->name, np, np == 1 ? "" : "s", n);
  else
    ix_error(ic, e->sp, "'%s' takes %d to %d arguments, %d given", fn->name, lo, np, n);
}

/* Python's binding of a call's arguments to fn's parameters: the positional ones first,
 * then keywords by name, then defaults for the rest (their indices in *omitted). The
 * arguments in parameter order go to e->params; false, after an error, if the call does
 * not fit. */
static bool bind_args(infer_ctx *ic, node *e, func_def *fn, bitset *omitted) {
  int np = fn->def->params.len;
  *omitted = bitset_new(ic->ar, np);
  if (e->list.len > np || (e->list.len < np && !e->kwargs.len && !count_defaults(fn))) {
    argc_error(ic, e, fn);
    return false;
  }
  node **bound = arena_alloc(ic->ar, sizeof *bound * (size_t)(np + 1));
  for (int i = 0; i < e->list.len; i++) bound[i] = e->list.items[i];
  bool ok = true;
  for (int k = 0; k < e->kwargs.len; k++) {
    node *kw = e->kwargs.items[k];
    int j = param_named(fn, kw->str);
    if (j < 0 || bound[j]) {
      if (j < 0) ix_error(ic, kw->sp, "'%s' has no parameter named '%s'", fn->name, kw->str);
      else ix_error(ic, kw->sp, "'%s' got two values for parameter '%s'", fn->name, kw->str);
      ok = false;
      continue;
    }
    bound[j] = kw->a;
  }
  for (int j = 0; j < np; j++) {
    if (bound[j]) continue;
    if (fn->defaults && fn->defaults[j]) {
      if (fn->defaults[j]->kind == N_NONE) ok = false;   /* a bad default, reported */
      bound[j] = fn->defaults[j];
      bitset_add(*omitted, j);
      continue;
    }
    ix_error(ic, e->sp, "call of '%s' gives no value for parameter '%s'", fn->name,
         ((node *)fn->def->params.items[j])->str);
    ok = false;
  }
  e->params = (node_list){bound, np, np};
  return ok;
}

/* A call of a device function, an inner function, or a kernel (compiled as a device
 * function there, as Numba does when a kernel calls another @cuda.jit function). */
/* ---- constants passed to device functions (literal instances, specialise.c) ---- */

struct rebound { const char *name; bool found; };

static void note_rebound(const node *t, void *ud) {
  struct rebound *r = ud;
  if (t->kind == N_NAME && strcmp(t->str, r->name) == 0) r->found = true;
  if (t->kind == N_TUPLE || t->kind == N_LIST)
    for (int i = 0; i < t->list.len; i++) note_rebound(t->list.items[i], ud);
}

static bool stmt_rebinds(const node *s, int loops, void *ud) {
  (void)loops;
  ast_assign_targets(s, note_rebound, ud);
  return ((struct rebound *)ud)->found;
}

/* A parameter the function assigns is a variable, never specialised on a constant. */
static bool param_rebound(const func_def *fn, const char *name) {
  struct rebound r = {name, false};
  return ast_visit_stmts(&fn->def->body, stmt_rebinds, &r);
}

static bool is_literal(const node *v) {
  if (v->kind == N_INT || v->kind == N_BOOL) return true;
  if (v->kind != N_TUPLE || v->list.len == 0) return false;
  for (int i = 0; i < v->list.len; i++)
    if (((node *)v->list.items[i])->kind != N_INT) return false;
  return true;
}

/* The constants (integers, booleans, tuples of integers) e passes to fn's parameters
 * that it never assigns, by parameter, or NULL when there are none. Folded quietly: an
 * argument that is no constant is simply not one. */
node **ix_literal_args(infer_ctx *ic, node *e, func_def *fn, int n) {
  node **lits = NULL;
  int own = fn->def->params.len;
  for (int i = 0; i < n && i < own; i++) {
    node *a = e->params.items[i];
    if (a->kind == N_FLOAT || a->kind == N_STR || a->kind == N_CALL) continue;
    node *v = ix_fold_quietly(ic, a);
    if (!v || !is_literal(v) || param_rebound(fn, ((node *)fn->def->params.items[i])->str))
      continue;
    if (!lits) lits = arena_alloc(ic->ar, sizeof *lits * (size_t)n);
    lits[i] = v;
  }
  return lits;
}

static const type *ix_func_call(infer_ctx *ic, node *e, func_def *fn) {
  bitset omitted = {0};
  bool bound = bind_args(ic, e, fn, &omitted);
  bool typed = ix_args(ic, e);
  for (int i = 0; i < e->kwargs.len; i++)
    typed = typed && ((node *)e->kwargs.items[i])->a->ty;
  if (!bound || !typed || !ix_bind_captures(ic, e, fn)) return NULL;
  int n = e->params.len;
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    node *a = e->params.items[i];
    if (bitset_has(omitted, i) && !ix_expr(ic, a)) return NULL;
    args[i] = a->ty;
  }
  if (!ix_sig_args(ic, e, fn, args, n) || !ix_random_states_ok(ic, e, fn, args, n)) return NULL;
  fn_instance *inst = ix_instantiate(ic, fn, args, n, omitted, e->sp, e);
  if (!inst) return NULL;
  e->aux_ptr = inst;
  /* an array the callee writes is written by the caller too: a parameter passed
     on must not be compiled as read-only (noalias, ld.global.nc) */
  /* an array it returns may be a view of any array passed (a[i], a[1:]), which the
     caller may write through */
  bool returns_view = inst->ret && inst->ret->kind == TY_ARRAY;
  for (int i = 0; i < n; i++) {
    node *a = e->params.items[i];
    if (returns_view && a->ty && a->ty->kind == TY_ARRAY) ix_mark_name_written(ic, a);
    if (param_written(inst, i)) {
      ix_mark_name_written(ic, a);
      ix_module_array_written(ic, a, a->sp);
    }
  }
  if (inst->uses_barrier) ic->cur->uses_barrier = true;
  if (inst->uses_grid_sync) ic->cur->uses_grid_sync = true;
  if (inst->ret_failed && inst->ret->kind == TY_VOID) return NULL;
  return ix_set_type(e, inst->ret, false);
}

/* A call through a local holding a function value: an inner function, a parameter
 * given a device function, a builtin or a type (funcval.c). */
static const type *ix_value_call(infer_ctx *ic, node *e) {
  const type *ft = ix_expr(ic, e->a);
  e->bi = NULL;
  e->aux_ptr = NULL;
  if (!ft) return NULL;
  if (ft->fv_kind == FV_BUILTIN) return ix_builtin_call(ic, e, ft->fv);
  if (ft->fv_kind == FV_CLASS) {
    e->bi = ic->builtins->type_cast;
    return ix_cast(ic, e, ft->elem, ft->fv_name);
  }
  return ix_func_call(ic, e, (func_def *)ft->fv);
}

/* f(*t): t's elements as positional arguments, each t[k]. t is evaluated once per
 * element, so it may hold no call with an effect (a device function's, an atomic's). */
static bool calls_with_effect(const node *n, void *ud) {
  (void)ud;
  return n->kind == N_CALL && (!n->bi || !(n->bi->flags & BF_PURE));
}

static bool expand_starred(infer_ctx *ic, node *e) {
  node_list out = {0};
  bool changed = false;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (a->kind != N_STARRED) {
      node_push(ic->ar, &out, a);
      continue;
    }
    const type *t = ix_expr(ic, a->a);
    if (!t) return false;
    if (t->kind != TY_TUPLE) {
      ix_error(ic, a->sp, "only a tuple can be unpacked into arguments, not %s", ix_tname(ic, t));
      return false;
    }
    if (ast_visit(a->a, calls_with_effect, NULL)) {
      ix_error(ic, a->sp, "unpack a call's result into a local first (t = f(...); g(*t)): "
               "f(*...) reads its tuple once per element");
      return false;
    }
    for (int k = 0; k < t->nelems; k++) {
      node *el = node_new(ic->ar, N_INDEX, a->sp), *at = node_new(ic->ar, N_INT, a->sp);
      at->ival = k;
      el->a = a->a;
      el->b = at;
      node_push(ic->ar, &out, el);
    }
    changed = true;
  }
  if (changed) e->list = out;
  return true;
}

const type *ix_call(infer_ctx *ic, node *e) {
  if (!expand_starred(ic, e)) return NULL;
  node *callee = e->a;
  symbol *local = callee->kind == N_NAME ? ix_find_local(ic->cur, callee->str) : NULL;
  if (local && local->ty && local->ty->kind == TY_FUNCVAL) return ix_value_call(ic, e);
  if (local && local->poisoned && !local->ty) {   /* its error was reported */
    ix_args(ic, e);
    return NULL;
  }
  if (callee->kind == N_NAME && !ix_find_local(ic->cur, callee->str)) {
    func_def *fn = ix_find_func(ic, callee->str);
    if (fn) return ix_func_call(ic, e, fn);
    foreign_fn *ff = ix_find_foreign(ic, callee->str);
    if (ff) return ix_foreign_call(ic, e, ff);
  }
  const char *p = ix_dotted_path(ic, callee);
  if (!p) {
    if (callee->kind == N_NAME && !ix_find_local(ic->cur, callee->str) &&
        !ix_find_const(ic, callee->str)) {
      ix_error(ic, callee->sp, "undefined function '%s'", callee->str);
    } else if (callee->kind == N_ATTR) {
      const type *bt = ix_expr(ic, callee->a);
      if (bt) return ix_method(ic, e, bt);
    } else if (callee->kind == N_INDEX && callee->a->kind == N_NAME &&
               ix_find_func(ic, callee->a->str)) {
      ix_error(ic, callee->sp, "a kernel cannot launch a kernel (CUDA's dynamic parallelism "
           "is not supported, as in Numba): launch '%s' from the host", callee->a->str);
    } else {
      ix_error(ic, callee->sp, "this value cannot be called");
    }
    ix_args(ic, e);
    return NULL;
  }
  if (strcmp(p, "float") == 0 && e->list.len == 1 && e->list.items[0]->kind == N_STR) {
    node *v = ix_fold(ic, e);   /* float('inf'), float('nan'): constants */
    if (v && v->kind == N_FLOAT) {
      e->kind = N_FLOAT;
      e->fval = v->fval;
      e->a = NULL;
      e->list.len = 0;
      return ix_expr(ic, e);
    }
  }
  if (vec_type_from_path(p)) {   /* float32x4(...), float4(...) */
    e->bi = ic->builtins->vector_ctor;
    return e->bi->typing(ic, e, e->bi);
  }
  const type *cast = ix_type_from_path(p);
  if (cast) {
    e->bi = ic->builtins->type_cast;
    return ix_cast(ic, e, cast, p);
  }
  const builtin *b = builtin_find(ic->builtins, p);
  func_def *lib_fn = b ? NULL : ix_lib_function(ic, p);
  if (lib_fn) return ix_func_call(ic, e, lib_fn);
  if (!b) {
    if (ix_host_use_error(ic, callee->sp, p)) ;
    else if (callee->kind == N_NAME) ix_error(ic, callee->sp, "undefined function '%s'", callee->str);
    else if (strncmp(p, "numpy.", 6) == 0)
      ix_error(ic, callee->sp, "NumPy function '%s' is not supported in kernels (its ufuncs "
           "on scalars are: docs/language.md, NumPy)", p);
    else if (strncmp(p, "numba.cuda.libdevice.", 21) == 0)
      ix_error(ic, callee->sp, "cuda.libdevice has no function '%s': its functions are "
           "libdevice's __nv_* without the prefix, as in Numba (nan and nanf are left out, "
           "as Numba leaves them: use math.nan)", p + 21);
    else ix_error(ic, callee->sp, "unknown function '%s'", p);
    ix_args(ic, e);
    return NULL;
  }
  return ix_builtin_call(ic, e, b);
}

/*
 * funcval.c — functions as values, in type inference (docs/language.md, "Functions as
 * values"): device functions, builtins (cuda.atomic.add) and type objects (float32)
 * used as values (TY_FUNCVAL), which Numba types as compile-time constants
 * (Dispatcher, Function, NumberClass), so a device function taking one is specialised
 * per value; inner functions (a def inside a function) and the names they capture;
 * and the signatures of device functions, which calls convert their arguments to.
 *
 * An inner function is a device function whose instances take, after its own
 * parameters, hidden ones for the enclosing function's locals it reads (its captures).
 * Its value is those locals' values: a call reads them where it is made, which is what
 * Python's closure cells give a call in the enclosing function.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "typing.h"

/* ---- values ---------------------------------------------------------------------------- */

const type *ix_funcval_func(infer_ctx *ic, func_def *fn) {
  return type_funcval(ic->ar, FV_FUNC, fn, fn->name, NULL, NULL, 0);
}

/* A type object (float32, np.uint8) or a builtin function (cuda.atomic.add, math.sin)
 * named by path, as a value; NULL for anything else (modules, values, range ...). */
const type *ix_funcval_path(infer_ctx *ic, const char *path) {
  const type *t = path ? ix_type_from_path(path) : NULL;
  if (t) return type_funcval(ic->ar, FV_CLASS, NULL, path, t, NULL, 0);
  const builtin *b = path ? builtin_find(ic->builtins, path) : NULL;
  if (!b || b->kind != BK_FUNCTION || (b->flags & (BF_LOOP | BF_FOLD)) || !b->typing)
    return NULL;
  return type_funcval(ic->ar, FV_BUILTIN, b, builtin_user_name(b), NULL, NULL, 0);
}

/* The scalar type a local holding a type object stands for (dtype = float32, or a
 * parameter given uint32), for cuda.local.array(n, dtype); NULL otherwise. */
const type *ix_class_value(infer_ctx *ic, node *e) {
  if (e->kind != N_NAME || !ix_find_local(ic->cur, e->str)) return NULL;
  const type *t = ix_expr(ic, e);
  return t && t->kind == TY_FUNCVAL && t->fv_kind == FV_CLASS ? t->elem : NULL;
}

/* ---- inner functions: the names they capture ---------------------------------------------- */

static bool has_name(const ptr_vec *v, const char *s) {
  for (int i = 0; i < v->len; i++)
    if (strcmp(v->items[i], s) == 0) return true;
  return false;
}

static void add_name(arena *ar, ptr_vec *v, const char *s) {
  if (!has_name(v, s)) vec_push(ar, v, (void *)s);
}

static void target_names(arena *ar, const node *t, ptr_vec *out) {
  if (t->kind == N_NAME) add_name(ar, out, t->str);
  else if (t->kind == N_TUPLE)
    for (int i = 0; i < t->list.len; i++) target_names(ar, t->list.items[i], out);
}

typedef struct names_ctx { arena *ar; ptr_vec *out; } names_ctx;

static void bind_target(const node *t, void *ud) {
  names_ctx *c = ud;
  target_names(c->ar, t, c->out);
}

static bool bound_here(const node *s, int loops, void *ud) {
  names_ctx *c = ud;
  (void)loops;
  if (s->kind == N_FUNCDEF) add_name(c->ar, c->out, s->str);
  else ast_assign_targets(s, bind_target, c);
  return false;
}

/* The names a body binds (Python's locals), not looking inside inner defs. */
static void bound_names(arena *ar, const node_list *body, ptr_vec *out) {
  names_ctx c = {ar, out};
  ast_visit_stmts(body, bound_here, &c);
}

static void free_names(arena *ar, const node *def, ptr_vec *out);

/* every name read, an inner def's free names included */
static bool read_here(const node *n, void *ud) {
  names_ctx *c = ud;
  if (n->kind == N_FUNCDEF) free_names(c->ar, n, c->out);
  else if (n->kind == N_NAME) add_name(c->ar, c->out, n->str);
  return false;
}

/* The names def reads that it does not bind: those of an enclosing scope (Python's
 * free variables), an inner def's included. */
static void free_names(arena *ar, const node *def, ptr_vec *out) {
  ptr_vec mine = {0}, used = {0};
  for (int i = 0; i < def->params.len; i++)
    add_name(ar, &mine, ((node *)def->params.items[i])->str);
  bound_names(ar, &def->body, &mine);
  names_ctx reads = {ar, &used};
  ast_visit_list(&def->body, read_here, &reads);
  for (int i = 0; i < used.len; i++)
    if (!has_name(&mine, used.items[i])) add_name(ar, out, used.items[i]);
}

/* The function a def inside the function being typed makes: its captures are the
 * enclosing function's locals it reads (module names stay global). */
static func_def *make_inner(infer_ctx *ic, node *s) {
  func_def *fn = arena_alloc(ic->ar, sizeof *fn);
  fn->def = s;
  fn->name = s->str;
  fn->kind = FN_DEVICE;
  fn->inner = true;
  ptr_vec fr = {0};
  free_names(ic->ar, s, &fr);
  fn->captures = arena_alloc(ic->ar, sizeof *fn->captures * (size_t)(fr.len + 1));
  fn->capsyms = arena_alloc(ic->ar, sizeof *fn->capsyms * (size_t)(fr.len + 1));
  for (int i = 0; i < fr.len; i++) {
    symbol *c = ix_find_local(ic->cur, fr.items[i]);
    if (!c) continue;
    fn->captures[fn->ncaptures] = c->name;
    fn->capsyms[fn->ncaptures++] = c;
  }
  return fn;
}

/* `def f(...)` inside a function binds the local f to the inner function's value, typed
 * by its captures' current types (so a later pass retypes it when they change). */
void ix_inner_def(infer_ctx *ic, node *s) {
  symbol *sym = ix_find_local(ic->cur, s->str);   /* collected with the locals */
  if (!sym) return;
  if (s->decorators.len)
    ix_error(ic, ((node *)s->decorators.items[0])->sp, "an inner function takes no decorator "
         "(Numba compiles a def inside a kernel or device function with it): remove it, or "
         "define '%s' at module level", s->str);
  func_def *fn = s->aux_ptr;
  if (!fn) s->aux_ptr = fn = make_inner(ic, s);
  sym->value = s;
  ix_fold_defaults(ic, fn);
  const type **caps = arena_alloc(ic->ar, sizeof *caps * (size_t)(fn->ncaptures + 1));
  for (int k = 0; k < fn->ncaptures; k++) {
    symbol *c = fn->capsyms[k];
    if (c == sym) {
      ix_error(ic, s->sp, "inner function '%s' calls itself: recursive inner functions are not "
           "supported (nor in Numba); define '%s' at module level with a signature", s->str,
           s->str);
      if (ic->report) sym->poisoned = true;
      return;
    }
    /* an array captured may be written by the inner function: not read-only */
    if (c->is_param) mark_param_written(ic->cur, c->param_index);
    if (!c->ty) return;   /* not typed yet: a later pass types f */
    caps[k] = c->ty;
  }
  const type *t = type_funcval(ic->ar, FV_FUNC, fn, fn->name, NULL, caps, fn->ncaptures);
  if (!sym->ty || !type_equal(sym->ty, t)) {
    sym->ty = t;
    ic->changed = true;
  }
}

static bool names_target(const node *t, const char *name) {
  if (t->kind == N_NAME) return strcmp(t->str, name) == 0;
  if (t->kind == N_TUPLE)
    for (int i = 0; i < t->list.len; i++)
      if (names_target(t->list.items[i], name)) return true;
  return false;
}

/* How often a body assigns name (n), and whether any of them is in a loop. */
typedef struct assign_count { const char *name; bool hit; int n; bool looped; } assign_count;

static void count_target(const node *t, void *ud) {
  assign_count *c = ud;
  c->hit |= names_target(t, c->name);
}

static bool count_here(const node *s, int loops, void *ud) {
  assign_count *c = ud;
  c->hit = false;
  ast_assign_targets(s, count_target, c);
  if (c->hit) {
    c->n++;
    c->looped |= loops > 0 || s->kind == N_FOR;
  }
  return false;
}

/* Whether a local keeps one value once assigned: a parameter never assigned, or a local
 * assigned once, outside any loop. */
static bool stable_local(const fn_instance *f, const symbol *c) {
  assign_count count = {c->name, false, 0, false};
  ast_visit_stmts(&f->def->body, count_here, &count);
  return c->is_param ? count.n == 0 : count.n == 1 && !count.looped;
}

/* `g = f` with f an inner function: g holds the captured values as they are now, while a
 * call of f reads them when it is made; the two agree only when they cannot change, so
 * a copy of a closure over a local that changes is refused. */
void ix_closure_copy_check(infer_ctx *ic, node *target, node *value) {
  if (value->kind != N_NAME || !value->sym || !value->sym->value ||
      value->sym->value->kind != N_FUNCDEF || !value->ty || value->ty->kind != TY_FUNCVAL)
    return;
  const func_def *fn = value->ty->fv;
  for (int k = 0; k < fn->ncaptures; k++)
    if (!stable_local(ic->cur, fn->capsyms[k]))
      ix_error(ic, target->sp, "'%s' would hold a copy of inner function '%s', which reads '%s', "
           "a local that changes: call '%s' directly, or pass it to a device function",
           target->str, fn->name, fn->captures[k], fn->name);
}

/* A call of inner function fn: its captures, read from the callee's value, follow its
 * own arguments in e->params (nodes of kind N_ATTR marked FV_CAPTURE, which code
 * generation reads from the value). */
bool ix_bind_captures(infer_ctx *ic, node *e, func_def *fn) {
  if (!fn->ncaptures) return true;
  const type *ft = ix_expr(ic, e->a);
  if (!ft || ft->kind != TY_FUNCVAL || ft->nelems != fn->ncaptures) return false;
  for (int k = 0; k < fn->ncaptures; k++) {
    node *c = node_new(ic->ar, N_ATTR, e->a->sp);
    c->a = e->a;
    c->str = fn->captures[k];
    c->aux = FV_CAPTURE;
    c->ival = k;
    ix_set_type(c, ft->elems[k], false);
    node_push(ic->ar, &e->params, c);
  }
  return true;
}

/* ---- signatures of device functions (and of kernels called as device functions) ---- */

static bool sig_converts(const type *from, const type *to) {
  if (type_equal(from, to)) return true;
  if (type_is_scalar(from) && type_is_scalar(to))   /* no complex to a real number */
    return from->kind != TY_COMPLEX || to->kind == TY_COMPLEX;
  if (from->kind == TY_ARRAY && to->kind == TY_ARRAY)
    return from->ndim == to->ndim && type_equal(from->elem, to->elem) &&
           (!from->strided || to->strided);
  return false;
}

static bool sig_matches(const ptr_vec *sig, const type **args, int n, bool exact) {
  if (sig->len != n) return false;
  for (int i = 0; i < n; i++)
    if (exact ? !type_equal(args[i], sig->items[i]) : !sig_converts(args[i], sig->items[i]))
      return false;
  return true;
}

/* A call of a function compiled for given signatures (@cuda.jit("f8(f8)", device=True),
 * or a kernel's, called as a device function): the signature of exactly the arguments'
 * types, else the first they convert to (numbers to numbers, arrays of the same dtype
 * and rank), whose types replace args, as Numba converts a call's arguments to a
 * compiled signature. False, after an error, when none takes them. */
bool ix_sig_args(infer_ctx *ic, node *e, func_def *fn, const type **args, int n) {
  if (!fn->sigs.len || (fn->kind != FN_DEVICE && fn->kind != FN_KERNEL)) return true;
  const ptr_vec *pick = NULL;
  for (int pass = 0; pass < 2 && !pick; pass++)
    for (int k = 0; k < fn->sigs.len && !pick; k++)
      if (sig_matches(fn->sigs.items[k], args, n, pass == 0)) pick = fn->sigs.items[k];
  if (!pick) {
    const char *s = "";
    for (int i = 0; i < n; i++) s = arena_printf(ic->ar, "%s%s%s", s, i ? ", " : "", ix_tname(ic, args[i]));
    ix_error(ic, e->sp, "no signature of '%s' takes (%s): the arguments must convert to the "
         "types its decorator declares", fn->name, s);
    return false;
  }
  for (int i = 0; i < n; i++) args[i] = pick->items[i];
  return true;
}

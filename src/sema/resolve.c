/*
 * resolve.c — type inference at module level: imports (binding the names that scope.c
 * looks up), module constants, library modules written in the kernel language (lib/),
 * decorators and what they make of a function (kernel, device function, @vectorize,
 * @guvectorize, @cuda.reduce; their signatures are resolve_sigs.c's), and default
 * parameter values.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/builtin.h"
#include "signature.h"
#include "synth.h"
#include "typing.h"
#include "vector_types.h"

/* ---- module level: imports, constants, functions --------------------------------------- */

/* the modules kcc compiles; others are host-side Python (HOST_PREFIX) */
static const char *const importable[] = {"math", "numba", "numba.cuda", "numba.types",
                                         "numpy", "cmath", "numba.np",
                                         "numba.np.numpy_support", "numba.cuda.fp16",
                                         "numba.cuda.bf16", "numba.cuda.types", "operator"};

static bool path_is_known(infer_ctx *ic, const char *path) {
  return builtin_find(ic->builtins, path) != NULL || ix_type_from_path(path) != NULL ||
         vec_type_from_path(path) != NULL || ix_tuple_type_ctor(path) != 0;
}

static bool module_importable(const char *m) {
  for (size_t i = 0; i < sizeof importable / sizeof importable[0]; i++)
    if (strcmp(importable[i], m) == 0) return true;
  return false;
}

/* A module kcc does not compile (timeit, os, numpy.linalg) is host-side Python, as a
 * Numba script holds: importing it is fine, using it in a kernel is an error. Its names
 * are bound to paths under this prefix, which no builtin has. */
#define HOST_PREFIX "host:"

/* Names bound only by host code (N_HOST statements, module-level code kcc does not run,
 * constants it cannot evaluate, functions of other decorators) alias to HOST_DEF_PREFIX
 * and their index in ic->host_defs. */
#define HOST_DEF_PREFIX "hostdef:"

static void bind_host(infer_ctx *ic, const char *name, span where, const char *why,
                      span why_sp) {
  host_def *h = arena_alloc(ic->ar, sizeof *h);
  *h = (host_def){name, where, why, why_sp};
  ix_bind_alias(ic, name, arena_printf(ic->ar, HOST_DEF_PREFIX "%d", ic->host_defs.len));
  vec_push(ic->ar, &ic->host_defs, h);
}

/* class MyError(ValueError): ... — a class derived from one of Python's exception
 * classes, or from such a class declared before it: kernels may raise it (its body is
 * Python's, never run on the device; a raise reports the class by its name, which the
 * Python package looks up in the kernel's globals, as Numba raises the user's class). */
static bool exception_class_decl(infer_ctx *ic, const node *s) {
  if (!s->str2 || s->list.len != 1) return false;
  const char *base = ix_alias_path(ic, s->str2);
  bool user = base && strncmp(base, USER_EXCEPTION_PREFIX, strlen(USER_EXCEPTION_PREFIX)) == 0;
  if (!user && (base || !ix_builtin_exception(s->str2))) return false;
  const char *name = s->list.items[0]->str;
  ix_bind_alias(ic, name, arena_printf(ic->ar, USER_EXCEPTION_PREFIX "%s", name));
  return true;
}

static host_def *host_def_of(infer_ctx *ic, const char *path) {
  if (!path || strncmp(path, HOST_DEF_PREFIX, strlen(HOST_DEF_PREFIX)) != 0) return NULL;
  int i = atoi(path + strlen(HOST_DEF_PREFIX));
  return i >= 0 && i < ic->host_defs.len ? ic->host_defs.items[i] : NULL;
}

/* The first name in e bound only by host code (r_t = from_dtype(r) with r host: r). */
static host_def *host_name_in(infer_ctx *ic, const node *e) {
  if (!e) return NULL;
  if (e->kind == N_NAME && !ix_find_const(ic, e->str)) return host_def_of(ic, ix_alias_path(ic, e->str));
  host_def *h = host_name_in(ic, e->a);
  if (!h) h = host_name_in(ic, e->b);
  for (int i = 0; !h && i < e->list.len; i++) h = host_name_in(ic, e->list.items[i]);
  for (int i = 0; !h && i < e->kwargs.len; i++) h = host_name_in(ic, e->kwargs.items[i]);
  return h;
}

static bool host_def_use_error(infer_ctx *ic, span sp, const char *path) {
  host_def *h = host_def_of(ic, path);
  if (!h) return false;
  ix_error(ic, sp, "'%s' is host Python that kcc does not compile (bound at line %d): "
           "kernels and device functions cannot use it", h->name, h->where.line);
  if (ic->report) diag_note(ic->d, h->why_sp, "kcc cannot compile this: %s", h->why);
  return true;
}

bool ix_host_use_error(infer_ctx *ic, span sp, const char *path) {
  if (host_def_use_error(ic, sp, path)) return true;
  if (!path || strncmp(path, HOST_PREFIX, strlen(HOST_PREFIX)) != 0) return false;
  const char *name = path + strlen(HOST_PREFIX);
  /* under a module kcc compiles (numba.config.X): numba's host API, or a misspelling */
  bool in_compiled = false;
  for (const char *dot = strchr(name, '.'); dot && !in_compiled; dot = strchr(dot + 1, '.')) {
    const char *mod = arena_strndup(ic->ar, name, (size_t)(dot - name));
    in_compiled = module_importable(mod) || synth_lib_source(mod);
  }
  if (strstr(name, "xoroshiro128p_states"))
    ix_error(ic, sp, "'%s' runs on the host: from C, make the states with "
             "kc_random_states(ctx, n, seed, &states)", name);
  else if (in_compiled)
    ix_error(ic, sp, "'%s' is not in the kernel language (kcc takes it as host-side "
             "Python): kernels and device functions cannot use it", name);
  else
    ix_error(ic, sp, "'%s' is host-side Python (imported from a module kcc does not "
             "compile): kernels and device functions cannot use it", name);
  return true;
}

static bool load_lib_module(infer_ctx *ic, const char *mod, span where);

/* numba.cuda.random.xoroshiro128p_uniform_float32 (the module imported whole): the
 * library module's device function, or NULL. */
func_def *ix_lib_function(infer_ctx *ic, const char *path) {
  const char *dot = strrchr(path, '.');
  if (!dot || dot[1] == '_') return NULL;
  const char *mod = arena_strndup(ic->ar, path, (size_t)(dot - path));
  bool loaded = false;
  for (int i = 0; i < ic->libs.len; i++) loaded |= strcmp(ic->libs.items[i], mod) == 0;
  func_def *fn = loaded ? ix_find_func(ic, dot + 1) : NULL;
  return fn && fn->kind == FN_DEVICE ? fn : NULL;
}

/* kcc's Python package serves numba.cuda under its own name (docs/python.md): `from
 * kcc import cuda` and `import kcc.cuda as cuda` mean numba's, so a kernel written
 * against the package compiles as one written against Numba. */
static const char *numba_name(infer_ctx *ic, const char *m) {
  if (strcmp(m, "kcc") == 0) return "numba";
  if (strncmp(m, "kcc.", 4) == 0) return arena_printf(ic->ar, "numba.%s", m + 4);
  return m;
}

/* The first component of a dotted module path ("a" of "a.b.c"). */
static const char *first_component(infer_ctx *ic, const char *m) {
  const char *dot = strchr(m, '.');
  return dot ? arena_strndup(ic->ar, m, (size_t)(dot - m)) : m;
}

static void import_module(infer_ctx *ic, node *s) {
  for (int i = 0; i < s->list.len; i++) {
    node *al = s->list.items[i];
    const char *mod = numba_name(ic, al->str);
    if (synth_lib_source(mod) && !load_lib_module(ic, mod, al->sp)) continue;
    /* import a.b.c binds a (host-side unless kcc compiles a), import a.b.c as x binds x
     * to a.b.c (host-side unless kcc compiles a.b.c) */
    const char *bound = al->str2 ? mod : first_component(ic, mod);
    bool compiled = module_importable(bound) || synth_lib_source(bound);
    ix_bind_alias(ic, al->str2 ? al->str2 : first_component(ic, al->str),
                  arena_printf(ic->ar, "%s%s", compiled ? "" : HOST_PREFIX, bound));
  }
}

/* ---- library modules written in the kernel language ---- */

/* Define a library module's functions and constants (once per compilation). Its names
 * join the file's: the library prefixes its private ones with _ and its own name. */
static bool load_lib_module(infer_ctx *ic, const char *mod, span where) {
  for (int i = 0; i < ic->libs.len; i++)
    if (strcmp(ic->libs.items[i], mod) == 0) return true;
  vec_push(ic->ar, &ic->libs, (void *)mod);
  node *tree = synth_lib_module_tree(ic->ar, ic->d, mod, where);
  if (!tree) {
    ix_error(ic, where, "internal compiler error: library module '%s' does not parse", mod);
    return false;
  }
  int first = ic->prog->funcs.len;
  ix_module_level(ic, tree);
  for (int i = first; i < ic->prog->funcs.len; i++)
    ((func_def *)ic->prog->funcs.items[i])->lib = mod;
  return true;
}

/* A numba.cuda.random function's `states` argument must be what kc_random_states makes
 * (Numba's record array of two uint64 is that array here): anything else would fail
 * deep inside the library, many times over, at its import. Say it once, at the call,
 * naming the argument (and the kernel parameter it came from). */
bool ix_random_states_ok(infer_ctx *ic, node *call, func_def *fn, const type **args, int n) {
  if (!fn->lib || strcmp(fn->lib, "numba.cuda.random") != 0 || n < 1 || fn->def->params.len < 1 ||
      strcmp(((node *)fn->def->params.items[0])->str, "states") != 0)
    return true;
  const type *t = args[0];
  if (t && t->kind == TY_ARRAY && t->ndim == 2 && type_equal(t->elem, &ty_u64)) return true;
  node *a = call->params.items[0];
  const char *what = a->kind == N_NAME && a->sym && a->sym->is_param
                         ? arena_printf(ic->ar, "kernel parameter '%s'", a->str)
                         : arena_strdup(ic->ar, "argument 1");
  ix_error(ic, a->sp, "%s of %s(): expected the random states of kc_random_states "
           "(uint64, shape (n, 2)), got %s", what, fn->name,
           t ? type_name(ic->ar, t) : "?");
  return false;
}

/* Library module mod's function name, the module loaded on first use (also in the
 * middle of typing a function: it only adds functions and constants); NULL after an
 * error. */
static func_def *lib_function(infer_ctx *ic, const char *mod, const char *name, span where) {
  if (!load_lib_module(ic, mod, where)) return NULL;
  func_def *fn = ix_find_func(ic, name);
  if (!fn) ix_error(ic, where, "internal compiler error: library module '%s' has no '%s'", mod, name);
  return fn;
}

fn_instance *ix_lib_instance(infer_ctx *ic, const char *mod, const char *name,
                             const type **args, int n, span where) {
  func_def *fn = lib_function(ic, mod, name, where);
  if (!fn) return NULL;
  const type **kept = arena_alloc(ic->ar, sizeof *kept * (size_t)(n + 1));  /* the instance keeps them */
  for (int i = 0; i < n; i++) kept[i] = args[i];
  fn_instance *inst = ix_instantiate(ic, fn, kept, n, bitset_new(ic->ar, n), where, NULL);
  if (inst && inst->uses_barrier) ic->cur->uses_barrier = true;
  return inst;
}

/* Another name for device function fn, compiled as fn is (its own instances). */
static void define_function_alias(infer_ctx *ic, const char *name, const func_def *fn) {
  func_def *copy = arena_alloc(ic->ar, sizeof *copy);
  *copy = *fn;
  copy->name = name;
  memset(&copy->instances, 0, sizeof copy->instances);
  vec_push(ic->ar, &ic->prog->funcs, copy);
}

/* from numba.cuda.random import xoroshiro128p_uniform_float32 [as name] */
/* from M import name [as alias], where kcc does not compile M.name: host-side Python */
static void bind_host_name(infer_ctx *ic, const char *mod, const node *al) {
  ix_bind_alias(ic, al->str2 ? al->str2 : al->str,
                arena_printf(ic->ar, HOST_PREFIX "%s.%s", mod, al->str));
}

static void import_from_lib(infer_ctx *ic, node *s, const char *mod) {
  if (!load_lib_module(ic, mod, s->sp)) return;
  for (int i = 0; i < s->list.len; i++) {
    node *al = s->list.items[i];
    func_def *fn = ix_find_func(ic, al->str);
    if (!fn || fn->kind != FN_DEVICE || al->str[0] == '_') {   /* its host half */
      bind_host_name(ic, mod, al);
      continue;
    }
    if (!al->str2 || strcmp(al->str2, al->str) == 0) continue;
    if (ix_find_func(ic, al->str2)) {
      ix_error(ic, al->sp, "function '%s' is defined twice", al->str2);
      continue;
    }
    define_function_alias(ic, al->str2, fn);
  }
}

static void import_from(infer_ctx *ic, node *s) {
  const char *mod = numba_name(ic, s->str);
  if (synth_lib_source(mod)) {
    import_from_lib(ic, s, mod);
    return;
  }
  for (int i = 0; i < s->list.len; i++) {
    node *al = s->list.items[i];
    const char *path = arena_printf(ic->ar, "%s.%s", mod, al->str);
    if (strcmp(al->str, "void") == 0 &&
        (strcmp(mod, "numba") == 0 || strcmp(mod, "numba.types") == 0))
      continue;
    /* a module kcc does not compile, or a name of numba's that kernels do not have
     * (numba.config, njit, prange): host-side Python, as Numba's own host code uses
     * them; an error only where a kernel uses it */
    if (synth_lib_source(path) && load_lib_module(ic, path, al->sp))   /* from numba.cuda import random */
      ix_bind_alias(ic, al->str2 ? al->str2 : al->str, path);
    else if (!module_importable(mod) || !path_is_known(ic, path)) bind_host_name(ic, mod, al);
    else ix_bind_alias(ic, al->str2 ? al->str2 : al->str, path);
  }
}

/* Fold a module constant's value with diagnostics muted: a value kcc cannot evaluate is
 * host Python (Numba would run it), an error only where a kernel uses the name. */
static node *fold_quietly(infer_ctx *ic, node *e, diag_first *why) {
  host_def *h = host_name_in(ic, e);
  if (h) {   /* the root cause is the host name it uses */
    *why = (diag_first){arena_printf(ic->ar, "it uses '%s', host Python (line %d): %s",
                                     h->name, h->where.line, h->why), h->why_sp};
    return NULL;
  }
  diag_sink *loud = ic->d, quiet = diag_muted(loud, why);
  ic->d = &quiet;
  node *v = ix_fold(ic, e);
  ic->d = loud;
  if (!v && !why->message) {
    const char *callee = e->kind == N_CALL ? ix_dotted_path(ic, e->a) : NULL;
    why->sp = e->sp;
    why->message = callee && strncmp(callee, "numpy.", 6) == 0
        ? arena_printf(ic->ar, "NumPy function '%s' is not supported at module level (kcc "
                       "evaluates np.array, np.asarray, np.arange, np.linspace, np.zeros, "
                       "np.ones, np.full, np.eye, the dtype casts, arithmetic on arrays "
                       "and .reshape, .astype, .T there)", callee)
        : "kcc evaluates constant expressions at module level (numbers, strings, other "
          "constants, arithmetic and the NumPy calls it knows), and this is not one";
  }
  return v;
}

static void define_constant(infer_ctx *ic, node *target, node *value) {
  symbol *sym = ix_find_const(ic, target->str);
  if (!sym) {
    sym = arena_alloc(ic->ar, sizeof *sym);
    sym->kind = SYM_CONST;
    sym->name = target->str;
    vec_push(ic->ar, &ic->consts, sym);
  }
  sym->where = target->sp;
  sym->value = value;
  sym->ty = ix_const_type(ic, value);
}

static void host_targets(infer_ctx *ic, node *t, const char *why, span why_sp);

static bool all_strings(const node *v) {
  if (v->kind == N_STR) return true;
  if (v->kind != N_LIST && v->kind != N_TUPLE) return false;
  for (int i = 0; i < v->list.len; i++)
    if (v->list.items[i]->kind != N_STR) return false;
  return v->list.len > 0;
}

node *ix_sig_const(infer_ctx *ic, node *e) {
  if (e->kind != N_NAME || ix_find_const(ic, e->str)) return e;
  for (int i = ic->sig_consts.len - 1; i >= 0; i--) {
    node *c = ic->sig_consts.items[i];
    if (strcmp(c->str, e->str) == 0) return c->a;
  }
  return e;
}

static void module_constant(infer_ctx *ic, node *s, node *target, node *value) {
  if (s->list.len > 1 || target->kind != N_NAME) {   /* a, b = ...; x = y = ... */
    for (int i = 0; i < s->list.len; i++)
      host_targets(ic, s->list.items[i], "kcc evaluates module-level assignments of one "
                   "name to a constant", s->sp);
    if (s->kind == N_ANNASSIGN) host_targets(ic, target, "an annotated module-level "
                                             "target that is not a name", s->sp);
    return;
  }
  /* DT = float32, add = cuda.atomic.add: another name for a type or builtin function,
   * bound as an import binds one (funcval.c takes them as values in kernels) */
  const char *path = value->kind == N_NAME || value->kind == N_ATTR ? ix_dotted_path(ic, value)
                                                                    : NULL;
  if (path && ix_funcval_path(ic, path)) {
    ix_bind_alias(ic, target->str, path);
    return;
  }
  /* fib = fib1: another name for a device function (a recursive one that calls itself
   * by its module's name, placed under a caller's name by the Python package) */
  func_def *fn = value->kind == N_NAME ? ix_find_func(ic, value->str) : NULL;
  if (fn && fn->kind == FN_DEVICE && !ix_find_func(ic, target->str)) {
    define_function_alias(ic, target->str, fn);
    ix_forget_const(ic, target->str);
    return;
  }
  const char *file = all_strings(value) ? NULL : ix_fold_path(ic, value);
  if (file) {   /* basedir = os.path.dirname(__file__): a string, for link= (foreign.c) */
    value = node_new(ic->ar, N_STR, value->sp);
    value->str = file;
  }
  if (target->kind == N_NAME && all_strings(value)) {   /* SIG = 'void(float32[:])' */
    node *c = node_new(ic->ar, N_ALIAS, target->sp);
    c->str = target->str;
    c->a = value;
    vec_push(ic->ar, &ic->sig_consts, c);
    ix_forget_const(ic, target->str);
    return;
  }
  diag_first why;
  node *v = fold_quietly(ic, value, &why);
  if (v) define_constant(ic, target, v);
  else bind_host(ic, target->str, target->sp, why.message, why.sp);
}

static bool kw_true(node *kw) {
  return kw->a->kind == N_BOOL ? kw->a->ival != 0 : kw->a->kind == N_INT && kw->a->ival != 0;
}

/* fastmath=True / False, as Numba's CUDA target takes it (no sets of flags). Returns
 * false when kw is another keyword. */
static bool decorator_fastmath(infer_ctx *ic, func_def *fn, node *kw) {
  if (strcmp(kw->str, "fastmath") != 0) return false;
  if (kw->a->kind == N_BOOL || kw->a->kind == N_INT) fn->fastmath = kw_true(kw);
  else
    ix_error(ic, kw->a->sp, "fastmath takes True or False (sets of fast-math flags are not "
         "supported, as in Numba's CUDA target)");
  return true;
}

/* target='cpu' and the like: warned about, since one compile serves both back ends. */
static void decorator_target(infer_ctx *ic, node *kw) {
  if (strcmp(kw->str, "target") == 0 && kw->a->kind == N_STR && strcmp(kw->a->str, "cuda") != 0)
    ix_warn(ic, kw->sp, "target '%s' ignored: kcc compiles for CUDA (and runs on the CPU "
          "back end)", kw->a->str);
}

static void classify_reduce(infer_ctx *ic, func_def *fn, node *dec) {
  fn->kind = FN_REDUCE;
  int np = fn->def->params.len;
  if (np != 2)
    ix_error(ic, fn->def->sp, "@cuda.reduce needs a binary function (two parameters, e.g. "
         "'def add(a, b): return a + b'); '%s' takes %d", fn->name, np);
  if (dec->kind != N_CALL) return;
  for (int i = 0; i < dec->kwargs.len; i++)
    ix_error(ic, ((node *)dec->kwargs.items[i])->sp, "@cuda.reduce takes no keyword arguments");
  for (int i = 0; i < dec->list.len; i++) ix_reduce_decorator_sigs(ic, fn, dec->list.items[i]);
}

/* ---- @guvectorize ---- */

static const char *skip_ws(const char *p) {
  while (*p == ' ') p++;
  return p;
}

/* One "(a, b)" group at *pp into arg k; false on a syntax error (why in err). */
static bool gu_group(infer_ctx *ic, const char **pp, gu_layout *l, const char **err) {
  const char *p = skip_ws(*pp);
  if (*p != '(') { *err = "expected '('"; return false; }
  p = skip_ws(p + 1);
  int k = l->nargs;
  if (k >= GU_MAX_ARGS) { *err = "too many arguments"; return false; }
  l->ndim[k] = 0;
  while (*p != ')') {
    const char *start = p;
    while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' ||
           (p > start && *p >= '0' && *p <= '9'))
      p++;
    if (p == start) { *err = "expected a dimension name"; return false; }
    if (l->ndim[k] >= 2) { *err = "at most 2 core dimensions per argument"; return false; }
    l->dim[k][l->ndim[k]++] = arena_strndup(ic->ar, start, (size_t)(p - start));
    p = skip_ws(p);
    if (*p == ',') p = skip_ws(p + 1);
    else if (*p != ')') { *err = "expected ',' or ')'"; return false; }
  }
  l->nargs++;
  *pp = p + 1;
  return true;
}

/* Parse a layout such as "(m,n),(n)->(m)" (one output at least). */
bool ix_gu_parse_layout(infer_ctx *ic, const char *s, gu_layout *l, const char **err) {
  memset(l, 0, sizeof *l);
  const char *p = s;
  bool outputs = false;
  for (;;) {
    if (!gu_group(ic, &p, l, err)) return false;
    p = skip_ws(p);
    if (*p == ',') { p++; continue; }
    if (!outputs && p[0] == '-' && p[1] == '>') {
      outputs = true;
      l->nin = l->nargs;
      p += 2;
      continue;
    }
    if (*p) { *err = outputs ? "expected ',' or the end" : "expected ',' or '->'"; return false; }
    break;
  }
  if (!outputs) { *err = "no '->' before the outputs"; return false; }
  return true;
}

static void classify_guvectorize(infer_ctx *ic, func_def *fn, node *dec) {
  fn->kind = FN_GUVECTORIZE;
  if (dec->kind != N_CALL || dec->list.len != 2 ||
      ((node *)dec->list.items[1])->kind != N_STR) {
    ix_error(ic, dec->sp, "@guvectorize needs signatures and a layout, e.g. "
         "@guvectorize(['void(float32[:], float32, float32[:])'], '(n),()->(n)', "
         "target='cuda')");
    return;
  }
  node *lay = dec->list.items[1];
  fn->layout = lay->str;
  fn->layout_sp = lay->sp;
  fn->kind = FN_KERNEL;  /* signatures are checked as a kernel's: void, one per param */
  ix_decorator_sigs(ic, fn, dec->list.items[0]);
  fn->kind = FN_GUVECTORIZE;
  for (int i = 0; i < dec->kwargs.len; i++) {
    node *kw = dec->kwargs.items[i];
    if (!decorator_fastmath(ic, fn, kw)) decorator_target(ic, kw);
  }
}

static const char *decorator_text(infer_ctx *ic, const node *e);

static void classify_decorator(infer_ctx *ic, func_def *fn, node *dec) {
  node *callee = dec->kind == N_CALL ? dec->a : dec;
  const char *p = ix_dotted_path(ic, callee);
  const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
  func_kind kind = b && b->kind == BK_DECORATOR ? (func_kind)b->op : FN_KERNEL;
  if (b && b->kind == BK_DECORATOR && !(b->flags & BF_DECORATOR_ARGS)) {
    fn->kind = kind;  /* @kernel, @device */
    return;
  }
  if (b && kind == FN_REDUCE) { classify_reduce(ic, fn, dec); return; }
  if (b && kind == FN_GUVECTORIZE) { classify_guvectorize(ic, fn, dec); return; }
  if ((!b || b->kind != BK_DECORATOR) && ix_host_use_error(ic, callee->sp, p)) return;
  if (!b || b->kind != BK_DECORATOR) {
    ix_error(ic, dec->sp, "unknown decorator; use @cuda.jit, @cuda.jit(device=True), "
         "@vectorize, @kernel or @device");
    return;
  }
  fn->kind = kind;  /* @cuda.jit, @vectorize */
  if (dec->kind != N_CALL) return;
  for (int i = 0; i < dec->kwargs.len; i++) {   /* first: which options fit */
    node *kw = dec->kwargs.items[i];
    if (strcmp(kw->str, "device") == 0 && kw_true(kw)) fn->kind = FN_DEVICE;
  }
  for (int i = 0; i < dec->kwargs.len; i++) {
    node *kw = dec->kwargs.items[i];
    if (strcmp(kw->str, "device") == 0 || decorator_fastmath(ic, fn, kw) ||
        ix_decorator_option(ic, fn, kw))
      continue;
    if (strcmp(kw->str, "target") == 0) decorator_target(ic, kw);
    else
      ix_error(ic, kw->sp, "unknown option '%s' of @%s (kcc takes device, fastmath, debug, "
               "opt, lineinfo, max_registers, launch_bounds, inline, forceinline, cache, lto, link)",
               kw->str, decorator_text(ic, dec));
  }
  if (dec->list.len > 1) ix_error(ic, dec->list.items[1]->sp, "unexpected extra argument");
  if (dec->list.len >= 1) ix_decorator_sigs(ic, fn, dec->list.items[0]);
  if (fn->kind == FN_VECTORIZE && dec->list.len == 0)
    ix_error(ic, dec->sp, "@vectorize needs a list of signatures, e.g. "
         "@vectorize(['float32(float32, float32)'], target='cuda')");
}

/* A decorator's callee as written: "cuda.jit", "vectorize". */
static const char *decorator_text(infer_ctx *ic, const node *e) {
  if (e->kind == N_CALL) return decorator_text(ic, e->a);
  if (e->kind == N_NAME) return e->str;
  if (e->kind == N_ATTR) return arena_printf(ic->ar, "%s.%s", decorator_text(ic, e->a), e->str);
  return "...";
}

/* Python applies the decorator nearest the def to the function and each one above to
 * the result: Numba's cuda.jit, vectorize, guvectorize and reduce all take a Python
 * function, not another's dispatcher, so no two of them stack. */
static void stacked_decorators(infer_ctx *ic, node *s) {
  node *top = s->decorators.items[0], *next = s->decorators.items[1];
  ix_error(ic, top->sp, "a function takes one decorator: @%s and @%s cannot be combined",
       decorator_text(ic, top), decorator_text(ic, next));
}

static void define_function(infer_ctx *ic, node *s) {
  func_def *first = ix_find_func(ic, s->str);
  if (first) {
    ix_error(ic, s->sp, "function '%s' is defined twice (kcc compiles every function of "
         "the file, so a later definition cannot replace an earlier one as in Python)", s->str);
    if (ic->report) diag_note(ic->d, first->def->sp, "the first definition of '%s' is here",
                              s->str);
    return;
  }
  func_def *fn = arena_alloc(ic->ar, sizeof *fn);
  fn->def = s;
  fn->name = s->str;
  fn->kind = FN_DEVICE;
  int nd = s->decorators.len;
  if (nd > 1) stacked_decorators(ic, s);
  if (nd > 0) classify_decorator(ic, fn, s->decorators.items[nd - 1]);
  if (fn->kind == FN_KERNEL) ix_annotation_sig(ic, fn);
  vec_push(ic->ar, &ic->prog->funcs, fn);
}

/* The names a module-level statement kcc does not run binds (host Python): assignment
 * and loop targets, definitions and imports, in its blocks too. */
static void host_targets(infer_ctx *ic, node *t, const char *why, span why_sp) {
  if (!t) return;
  if (t->kind == N_NAME) bind_host(ic, t->str, t->sp, why, why_sp);
  if (t->kind == N_TUPLE || t->kind == N_LIST)
    for (int i = 0; i < t->list.len; i++) host_targets(ic, t->list.items[i], why, why_sp);
}

static void host_binds(infer_ctx *ic, node *s, const char *why) {
  switch (s->kind) {
  case N_ASSIGN:
    for (int i = 0; i < s->list.len; i++) host_targets(ic, s->list.items[i], why, s->sp);
    break;
  case N_ANNASSIGN: case N_AUGASSIGN: case N_FOR: host_targets(ic, s->a, why, s->sp); break;
  case N_FUNCDEF: bind_host(ic, s->str, s->sp, why, s->sp); break;
  case N_IMPORT: case N_IMPORTFROM:
    for (int i = 0; i < s->list.len; i++) {
      node *al = s->list.items[i];
      const char *name = al->str2 ? al->str2 : al->str;
      const char *dot = s->kind == N_IMPORT ? strchr(name, '.') : NULL;
      if (dot) name = arena_strndup(ic->ar, name, (size_t)(dot - name));
      bind_host(ic, name, al->sp, why, s->sp);
    }
    break;
  default: break;
  }
  for (int i = 0; i < s->body.len; i++) host_binds(ic, s->body.items[i], why);
  for (int i = 0; i < s->orelse.len; i++) host_binds(ic, s->orelse.items[i], why);
}

static const char *statement_name(const node *s) {
  switch (s->kind) {
  case N_IF: return "an 'if' statement";
  case N_FOR: return "a 'for' loop";
  case N_WHILE: return "a 'while' loop";
  case N_EXPR_STMT: return "an expression statement";
  case N_AUGASSIGN: return "an augmented assignment";
  default: return "a statement";
  }
}

/* kernel = cuda.jit('void(float32[:])')(f), g = cuda.jit(device=True)(f), f = cuda.jit(f):
 * a decorator applied by a call to a plain function defined above, as Numba programs
 * also write it. The name bound is a function of f's def under that decorator (f itself,
 * decorated, when the name is f's). */
static bool decorator_applied(infer_ctx *ic, node *s) {
  node *t = s->list.items[0], *v = s->a;
  if (s->list.len != 1 || t->kind != N_NAME || v->kind != N_CALL || v->list.len != 1 ||
      v->kwargs.len || ((node *)v->list.items[0])->kind != N_NAME)
    return false;
  func_def *fn = ix_find_func(ic, ((node *)v->list.items[0])->str);
  node *dec = v->a, *callee = dec->kind == N_CALL ? dec->a : dec;
  const char *p = ix_dotted_path(ic, callee);
  const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
  if (!fn || fn->def->decorators.len || !b || b->kind != BK_DECORATOR) return false;
  node *def = arena_alloc(ic->ar, sizeof *def);
  *def = *fn->def;
  def->str = t->str;
  def->decorators = (node_list){0};
  node_push(ic->ar, &def->decorators, dec);
  if (strcmp(t->str, fn->name) != 0) {
    define_function(ic, def);
    return true;
  }
  fn->def = def;   /* f = cuda.jit(f): f itself is now decorated */
  fn->kind = FN_DEVICE;
  classify_decorator(ic, fn, dec);
  if (fn->kind == FN_KERNEL) ix_annotation_sig(ic, fn);
  return true;
}

/* A decorator that is not kcc's (@njit, @staticmethod, @pytest.fixture): the function is
 * host Python, an error only where a kernel calls it. */
static bool host_decorated(infer_ctx *ic, node *s) {
  if (s->decorators.len == 0) return false;
  node *dec = s->decorators.items[s->decorators.len - 1];
  node *callee = dec->kind == N_CALL ? dec->a : dec;
  const char *p = ix_dotted_path(ic, callee);
  const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
  if (b && b->kind == BK_DECORATOR) return false;
  bind_host(ic, s->str, s->sp, arena_printf(ic->ar, "a function decorated with @%s, which "
                                            "kcc does not compile", decorator_text(ic, callee)),
            dec->sp);
  return true;
}

static bool defines_kernel(const node_list *l) {
  for (int i = 0; i < l->len; i++) {
    const node *s = l->items[i];
    if (s->kind == N_FUNCDEF && s->decorators.len > 0) return true;
  }
  return false;
}

/* if HAVE_CUDA: (kernels) else: (a CPU fallback): Python runs one branch. The first
 * branch that defines a decorated function is taken as run, as a module-level try's
 * body is; the others are host Python. An if without one is host Python whole. */
static void module_if(infer_ctx *ic, node *s) {
  const char *why = "module-level code (an 'if' statement) runs on the host";
  node *taken = NULL;
  node_list *branch = NULL;
  for (node *b = s; b && !branch; ) {
    if (defines_kernel(&b->body)) taken = b, branch = &b->body;
    else if (b->orelse.len == 1 && b->orelse.items[0]->kind == N_IF) b = b->orelse.items[0];
    else {
      if (defines_kernel(&b->orelse)) taken = b, branch = &b->orelse;
      break;
    }
  }
  if (!branch) {
    host_binds(ic, s, why);
    return;
  }
  /* the other branches' names first, so that the taken branch's bindings win */
  for (node *b = s; b; b = b->orelse.len == 1 && b->orelse.items[0]->kind == N_IF
                             ? b->orelse.items[0] : NULL) {
    if (b != taken || branch != &b->body)
      for (int i = 0; i < b->body.len; i++) host_binds(ic, b->body.items[i], why);
    if (b->orelse.len != 1 || b->orelse.items[0]->kind != N_IF)
      if (b != taken || branch != &b->orelse)
        for (int i = 0; i < b->orelse.len; i++) host_binds(ic, b->orelse.items[i], why);
  }
  node block = *s;
  block.body = *branch;
  ix_module_level(ic, &block);
}

void ix_module_level(infer_ctx *ic, node *module) {
  for (int i = 0; i < module->body.len; i++) {
    node *s = module->body.items[i];
    switch (s->kind) {
    case N_IMPORT: import_module(ic, s); break;
    case N_IMPORTFROM: import_from(ic, s); break;
    case N_ASSIGN:
      if (!decorator_applied(ic, s) && !ix_declare_device(ic, s))
        module_constant(ic, s, s->list.items[0], s->a);
      break;
    case N_ANNASSIGN:   /* N: int = 4; an annotation alone binds nothing */
      if (s->c) module_constant(ic, s, s->a, s->c);
      break;
    case N_FUNCDEF:
      if (!host_decorated(ic, s)) define_function(ic, s);
      break;
    case N_HOST:
      if (exception_class_decl(ic, s)) break;
      for (int k = 0; k < s->list.len; k++) {
        node *n = s->list.items[k];
        bind_host(ic, n->str, n->sp, s->str, s->a->sp);
      }
      break;
    case N_ENUM:   /* class Color(IntEnum): its members are constants "Color.RED" */
      ix_bind_alias(ic, s->str, s->str);
      for (int k = 0; k < s->body.len; k++) {
        node *m = s->body.items[k];
        module_constant(ic, m, m->list.items[0], m->a);
      }
      break;
    case N_PASS: break;
    case N_IF: module_if(ic, s); break;
    default:   /* module-level code Numba leaves to Python: if __name__ == ...: main() */
      host_binds(ic, s, arena_printf(ic->ar, "module-level code (%s) runs on the host",
                                     statement_name(s)));
    }
  }
}

/* ---- default parameter values ------------------------------------------------------------ */

static const char *func_kind_name(func_kind k) {
  switch (k) {
  case FN_KERNEL: return "a kernel: its arguments all come from the launch";
  case FN_VECTORIZE: return "a @vectorize function";
  case FN_GUVECTORIZE: return "a @guvectorize function";
  case FN_REDUCE: return "a @cuda.reduce function";
  default: return "a device function";
  }
}

/* An undecorated function is a device function only if a kernel calls it; one whose
 * default values kcc cannot evaluate (def make(dtype=float32, n=None), a host helper or
 * a kernel factory) is host Python instead, an error only where a kernel calls it. Run
 * once every module constant is known, before ix_fold_defaults. */
void ix_plain_functions_with_host_defaults(infer_ctx *ic) {
  ptr_vec *funcs = &ic->prog->funcs;
  int kept = 0;
  for (int i = 0; i < funcs->len; i++) {
    func_def *fn = funcs->items[i];
    diag_first why = {0};
    node *bad = NULL;
    for (int k = 0; fn->def->decorators.len == 0 && !bad && k < fn->def->params.len; k++) {
      node *d = ((node *)fn->def->params.items[k])->b;
      if (d && !fold_quietly(ic, d, &why)) bad = d;
    }
    if (!bad) {
      funcs->items[kept++] = fn;
      continue;
    }
    bind_host(ic, fn->name, fn->def->sp,
              arena_printf(ic->ar, "a function whose default values kcc cannot evaluate (%s)",
                           why.message ? why.message : "not a constant"),
              why.message ? why.sp : bad->sp);
  }
  funcs->len = kept;
}

/* Fold a function's defaults once every module constant is known (a file's names may
 * come in any order). Only device functions take them: Numba's kernels take their
 * arguments positionally at launch. */
void ix_fold_defaults(infer_ctx *ic, func_def *fn) {
  node_list *ps = &fn->def->params;
  const node *first = NULL;   /* the first parameter with a default */
  for (int i = 0; i < ps->len; i++) {
    node *p = ps->items[i];
    if (!p->b) {
      if (first)
        ix_error(ic, p->sp, "parameter '%s' without a default follows parameter '%s', which "
             "has one", p->str, first->str);
      continue;
    }
    if (!first) first = p;
    if (fn->kind != FN_DEVICE) {
      ix_error(ic, p->b->sp, "default parameter values are only allowed in device functions; "
           "'%s' is %s", fn->name, func_kind_name(fn->kind));
      continue;
    }
    int errors_before = ic->d->nerrors;
    node *v = ix_fold(ic, p->b);
    if (!v && ic->d->nerrors == errors_before)
      ix_error(ic, p->b->sp, "the default value of '%s' must be a constant: a number, a "
           "module constant or arithmetic on them", p->str);
    if (!fn->defaults) fn->defaults = arena_alloc(ic->ar, sizeof(node *) * (size_t)ps->len);
    fn->defaults[i] = v ? v : node_new(ic->ar, N_NONE, p->b->sp);   /* None: reported */
  }
}


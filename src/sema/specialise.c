/*
 * specialise.c — function instances: each kernel typed once per signature, each device
 * function once per call-site argument types (and omitted defaults, and fast-math
 * context), every instance typing its own clone of the function's tree to a fixpoint
 * over its locals' types. Also the kernels that decorators generate (@vectorize,
 * @guvectorize, @cuda.reduce through synth.c), the kernel parameter-space limit, and
 * --emit=types.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#include "builtins/builtin.h"
#include "host_abi.h"
#include "records.h"
#include "signature.h"
#include "synth.h"
#include "typing.h"

#define MAX_FIXPOINT_PASSES 12

/* ---- functions ------------------------------------------------------------------------------ */

static node *clone(arena *a, const node *n);

static void clone_list(arena *a, node_list *dst, const node_list *src) {
  dst->items = NULL;
  dst->len = dst->cap = 0;
  for (int i = 0; i < src->len; i++) node_push(a, dst, clone(a, src->items[i]));
}

static node *clone(arena *a, const node *n) {
  if (!n) return NULL;
  node *c = arena_alloc(a, sizeof *c);
  *c = *n;
  c->a = clone(a, n->a);
  c->b = clone(a, n->b);
  c->c = clone(a, n->c);
  clone_list(a, &c->list, &n->list);
  clone_list(a, &c->kwargs, &n->kwargs);
  clone_list(a, &c->body, &n->body);
  clone_list(a, &c->orelse, &n->orelse);
  clone_list(a, &c->params, &n->params);
  c->ty = NULL;
  c->sym = NULL;
  c->aux_ptr = NULL;
  c->bi = NULL;
  if (n->kind != N_INT && n->kind != N_FLOAT) c->aux = 0;
  return c;
}

static const char *mangle(infer_ctx *ic, const char *name, const type **types, int n) {
  char *s = arena_printf(ic->ar, "%s_", arena_symbol(ic->ar, name));   /* μ: $CE$BC */
  for (int i = 0; i < n; i++) {
    const type *t = types[i];
    const char *el = type_name(ic->ar, t->kind == TY_ARRAY ? t->elem : t);
    s = t->kind == TY_ARRAY ? arena_printf(ic->ar, "%s_%s_%dd%s", s, el, t->ndim,
                                           t->strided ? "A" : "")
                            : arena_printf(ic->ar, "%s_%s", s, el);
  }
  for (char *p = s; *p; p++)   /* Record(x[type=...]) too; the name's $ escapes stay */
    if (!isalnum((unsigned char)*p) && *p != '_' && *p != '$') *p = '_';
  return s;
}

static void run_passes(infer_ctx *ic, fn_instance *f, bool report) {
  fn_instance *saved = ic->cur;
  bool saved_report = ic->report, saved_changed = ic->changed;
  int saved_depth = ic->loop_depth;
  ic->cur = f;
  ic->loop_depth = 0;
  ic->report = false;
  int saved_errors = ic->silent_errors;
  for (int pass = 0; pass < MAX_FIXPOINT_PASSES; pass++) {
    ic->changed = false;
    ic->silent_errors = 0;
    ix_block(ic, &f->def->body);
    if (!ic->changed) break;
  }
  f->failed_silently = ic->silent_errors > 0;
  ic->silent_errors = saved_errors;
  if (report) {
    ic->report = true;
    ix_block(ic, &f->def->body);
    for (int i = 0; i < f->locals.len; i++) {
      symbol *s = f->locals.items[i];
      if (!s->ty && !s->is_param && !s->poisoned)
        ix_error(ic, s->where, "cannot infer a type for '%s'", s->name);
    }
  }
  if (!f->ret) f->ret = &ty_void, f->ret_guessed = true;
  ic->cur = saved;
  ic->report = saved_report;
  ic->changed = saved_changed;
  ic->loop_depth = saved_depth;
}

static bool kernel_arrays_all_f32(fn_instance *f) {
  bool any = false;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    if (t->kind == TY_ARRAY) {
      if (t->elem != &ty_f32) return false;
      any = true;
    }
  }
  return any;
}

static const char *literal_suffix(infer_ctx *ic, const char *name, node *const *lits, int n);

static fn_instance *new_instance(infer_ctx *ic, func_def *fn, const type **args, int n,
                                 bool kernel, node **literals) {
  fn_instance *f = arena_alloc(ic->ar, sizeof *f);
  f->fn = fn;
  f->def = clone(ic->ar, fn->def);
  f->nparams = n;
  f->param_types = args;
  f->is_kernel = kernel;
  f->written_params = bitset_new(ic->ar, n);
  f->params = arena_alloc(ic->ar, sizeof(symbol *) * (size_t)(n + 1));
  int nown = f->def->params.len;   /* an inner function's captures come after its own */
  for (int i = 0; i < n; i++) {
    node *p = i < nown ? f->def->params.items[i] : f->def;
    symbol *s = ix_new_local(ic, f, i < nown ? p->str : fn->captures[i - nown], p->sp);
    s->ty = args[i];
    s->is_param = true;
    s->param_index = i;
    s->literal = literals ? literals[i] : NULL;
    f->params[i] = s;
  }
  f->literals = literals;
  ix_collect_locals(ic, f, &f->def->body);
  f->symbol_name = kernel ? fn->name : mangle(ic, fn->name, args, n);
  if (literals) f->symbol_name = literal_suffix(ic, f->symbol_name, literals, n);
  if (kernel) f->ret = &ty_void;
  vec_push(ic->ar, &fn->instances, f);
  return f;
}

/* Parameters that took their defaults are weak, as literals are, and the instance's
 * name says which they were (it may share its types with another's): "_d" and the set
 * as a hexadecimal number, bit i for parameter i, so "_d5" for parameters 0 and 2 and,
 * past 32 parameters, simply a longer number ("_d100000000" for parameter 32). */
static void mark_omitted(infer_ctx *ic, fn_instance *f, bitset omitted) {
  f->omitted = omitted;
  for (int i = 0; i < f->nparams; i++)
    if (bitset_has(omitted, i)) f->params[i]->weak = true;
  if (!bitset_empty(omitted))
    f->symbol_name = arena_printf(ic->ar, "%s_d%s", f->symbol_name,
                                  bitset_hex(ic->ar, omitted));
}

/* ---- literal instances (Numba's literal dispatch) ----
 * A device function that does not type with its parameters' types alone, because it
 * needs one as a constant (cuda.shared.array(n, dtype) with n a parameter), is typed
 * again for the constants a call passes, as Numba retries with literal types: one
 * instance per set of constants, whose parameters fold as module constants do. */

static bool const_equal(const node *a, const node *b) {
  if (a->kind != b->kind) return false;
  if (a->kind == N_INT || a->kind == N_BOOL) return a->ival == b->ival;
  if (a->kind != N_TUPLE || a->list.len != b->list.len) return false;
  for (int i = 0; i < a->list.len; i++)
    if (!const_equal(a->list.items[i], b->list.items[i])) return false;
  return true;
}

static bool literals_equal(node *const *a, node *const *b, int n) {
  if (!a || !b) return a == b;
  for (int i = 0; i < n; i++)
    if ((a[i] == NULL) != (b[i] == NULL) || (a[i] && !const_equal(a[i], b[i]))) return false;
  return true;
}

static const char *const_text(infer_ctx *ic, const node *v) {
  if (v->kind != N_TUPLE)
    return v->ival < 0 ? arena_printf(ic->ar, "m%lld", -(long long)v->ival)
                       : arena_printf(ic->ar, "%lld", (long long)v->ival);
  const char *t = "t";
  for (int i = 0; i < v->list.len; i++)
    t = arena_printf(ic->ar, "%s%s%s", t, i ? "x" : "", const_text(ic, v->list.items[i]));
  return t;
}

/* "f_int64_L1_32": parameter 1 specialised on 32 */
static const char *literal_suffix(infer_ctx *ic, const char *name, node *const *lits, int n) {
  for (int i = 0; i < n; i++)
    if (lits[i]) name = arena_printf(ic->ar, "%s_L%d_%s", name, i, const_text(ic, lits[i]));
  return name;
}

static bool types_equal(const type **a, const type **b, int n) {
  for (int i = 0; i < n; i++)
    if (!type_equal(a[i], b[i])) return false;
  return true;
}

/* A device function compiled for one of its signatures returns the declared type. */
static void declared_result(func_def *fn, fn_instance *f) {
  if (fn->kind != FN_DEVICE || fn->rets.len != fn->sigs.len) return;
  for (int k = 0; k < fn->sigs.len; k++) {
    ptr_vec *sig = fn->sigs.items[k];
    if (fn->rets.items[k] && sig->len == f->nparams &&
        types_equal((const type **)sig->items, f->param_types, f->nparams)) {
      f->ret = fn->rets.items[k];
      f->ret_declared = true;
      return;
    }
  }
}

static bool is_value_return(const node *n, void *ud) {
  (void)ud;
  return n->kind == N_RETURN && n->a;
}

/* The instance for these argument types (and constants), typed silently once made. */
static fn_instance *instance_for(infer_ctx *ic, func_def *fn, const type **args, int n,
                                 bitset omitted, span site, node **literals) {
  fn_instance *f = NULL;
  for (int i = 0; i < fn->instances.len && !f; i++) {
    fn_instance *g = fn->instances.items[i];
    if (!g->is_kernel && g->nparams == n && types_equal(g->param_types, args, n) &&
        g->in_fast_kernel == ic->fast_kernel && g->debug == ic->debug_kernel &&
        g->noopt == ic->noopt_kernel && bitset_equal(g->omitted, omitted) &&
        literals_equal(g->literals, literals, n))
      f = g;
  }
  /* A recursive call is typed as Numba types it: by what the function's other returns
   * give (return n before return fib(n - 1) + ...); run_passes repeats until that is
   * stable. A call met before any return has typed the result waits a pass (the error
   * is silent then), and is an error only if no return ever gives a type. */
  if (f && f->in_progress && !f->ret_declared && (!f->ret || f->ret_guessed)) {
    ix_error(ic, site, "recursive call to '%s': cannot type infer runaway recursion (no "
         "return of its own gives its result a type; declare its types, as in Numba: "
         "@cuda.jit(\"int64(int64)\", device=True))", fn->name);
    return NULL;
  }
  if (f) return f;
  f = new_instance(ic, fn, args, n, false, literals);
  declared_result(fn, f);
  /* no return gives a value: it returns nothing, known before its body is typed (a
     recursive call in it has its type) */
  if (!f->ret && !ast_visit_list(&fn->def->body, is_value_return, NULL)) f->ret = &ty_void;
  mark_omitted(ic, f, omitted);
  f->in_fast_kernel = ic->fast_kernel;
  f->fastmath = fn->fastmath || ic->fast_kernel;
  if (ic->fast_kernel) f->symbol_name = arena_printf(ic->ar, "%s_fastmath", f->symbol_name);
  f->debug = ic->debug_kernel;
  f->noopt = ic->noopt_kernel;
  if (f->debug) f->symbol_name = arena_printf(ic->ar, "%s_debug", f->symbol_name);
  if (f->noopt) f->symbol_name = arena_printf(ic->ar, "%s_O0", f->symbol_name);
  f->in_progress = true;
  run_passes(ic, f, false);
  f->in_progress = false;
  return f;
}

/* Whether an instance of fn is being typed: a call to fn from inside it is recursive. */
static bool typing_one_of(const func_def *fn) {
  for (int i = 0; i < fn->instances.len; i++)
    if (((fn_instance *)fn->instances.items[i])->in_progress) return true;
  return false;
}

fn_instance *ix_instantiate(infer_ctx *ic, func_def *fn, const type **args, int n,
                            bitset omitted, span site, node *call) {
  fn_instance *f = instance_for(ic, fn, args, n, omitted, site, NULL);
  /* no literal instances for a recursive call: f(x - 1) with x a constant would make
     one per value, without end */
  node **literals = f && f->failed_silently && call && !typing_one_of(fn)
                        ? ix_literal_args(ic, call, fn, n) : NULL;
  if (literals) f = instance_for(ic, fn, args, n, omitted, site, literals);
  if (!f) return NULL;
  if (ic->report && !f->done) {
    f->done = true;
    f->in_progress = true;
    run_passes(ic, f, true);
    f->in_progress = false;
    vec_push(ic->ar, &ic->prog->instances, f);
  }
  return f;
}

/* CUDA's space for a kernel's parameters (docs/language.md, "Limits"): 32 764 bytes
 * from PTX ISA 8.1 (CUDA 12.1, sm_70 and later), 4 352 (0x1100, what ptxas allows)
 * before. kcc writes the PTX ISA LLVM picks for the arch (target_nvptx.c): 8.6 and
 * later from sm_100 on, 7.8 or older below it. */
#define KC_PARAM_SPACE_PTX81 32764
#define KC_PARAM_SPACE_OLD_PTX 4352
#define KC_PARAM_SPACE_PTX81_ARCH 100

/* The bytes a kernel's parameters take as the NVPTX entry point receives them
 * (codegen.c nvptx_entry, host_abi.h): an array of rank n is a pointer and n int64
 * extents, a scalar its own size (bool one byte, complex two parts), each placed at
 * its alignment. */
static long long param_bytes(long long at, const type *t) {
  long long size, align;
  if (t->kind == TY_TUPLE) {   /* passed element by element */
    for (int k = 0; k < t->nelems; k++) at = param_bytes(at, t->elems[k]);
    return at;
  }
  if (t->kind == TY_ARRAY) size = 8LL * kc_param_words(t->ndim, t->strided, 0), align = 8;
  else if (t->kind == TY_BOOL) size = align = 1;
  else if (t->kind == TY_COMPLEX) size = t->bits / 8, align = t->bits / 16;
  else if (t->kind == TY_RECORD) size = t->rec->size, align = 1;   /* its bytes */
  else size = align = t->bits / 8;
  if (align < 1) align = 1;
  return (at + align - 1) / align * align + size;
}

static long long param_space_bytes(const fn_instance *f) {
  long long at = 0;
  for (int i = 0; i < f->nparams; i++) at = param_bytes(at, f->param_types[i]);
  return at;
}

/* A kernel whose parameters do not fit CUDA's parameter space would be refused by
 * ptxas or at load time, far from the cause: say so at its def. */
static void check_param_space(infer_ctx *ic, const fn_instance *f) {
  if (ic->opts->target != KCC_TARGET_NVPTX) return;
  long long limit = ic->opts->arch >= KC_PARAM_SPACE_PTX81_ARCH ? KC_PARAM_SPACE_PTX81
                                                                : KC_PARAM_SPACE_OLD_PTX;
  long long used = param_space_bytes(f);
  if (used > limit)
    ix_error(ic, f->fn->def->sp, "the parameters of kernel '%s' take %lld bytes; CUDA allows "
         "at most %lld on sm_%d (an array of rank n takes 8 + 8*n bytes)", f->fn->name,
         used, limit, ic->opts->arch);
}

/* What the kernel fn passes on to the device functions it calls: fast math, debug
 * checks, opt=False. */
static void enter_kernel(infer_ctx *ic, const func_def *fn) {
  ic->fast_kernel = fn->fastmath || ic->opts->fastmath;
  ic->debug_kernel = fn->opts.debug || ic->opts->debug;
  ic->noopt_kernel = fn->opts.noopt;
}

/* kcc_options.export_device: a device function compiled for each of its declared
 * signatures on its own, under its own options (fastmath=True ...), as a visible
 * function. */
static void export_device(infer_ctx *ic, func_def *fn) {
  for (int k = 0; k < fn->sigs.len; k++) {
    ptr_vec *sig = fn->sigs.items[k];
    const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(sig->len + 1));
    for (int i = 0; i < sig->len; i++) args[i] = sig->items[i];
    enter_kernel(ic, fn);
    fn_instance *f = ix_instantiate(ic, fn, args, sig->len, bitset_new(ic->ar, sig->len),
                                    fn->def->sp, NULL);
    if (f) f->exported = true;
  }
  ic->fast_kernel = ic->debug_kernel = ic->noopt_kernel = false;
}

static void compile_kernel(infer_ctx *ic, func_def *fn, ptr_vec *sig, int variant) {
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(sig->len + 1));
  for (int i = 0; i < sig->len; i++) {
    const type *t = sig->items[i];
    /* kcc_options.any_layout: float32[:] taken as Numba takes it, in any layout */
    if (ic->opts->any_layout && t->kind == TY_ARRAY && !t->strided)
      t = type_array_layout(ic->ar, t->elem, t->ndim, true);
    args[i] = t;
  }
  for (int i = 0; i < fn->instances.len; i++) {
    fn_instance *g = fn->instances.items[i];   /* (not its device instances: a kernel
                                                   called from a kernel, funcval.c) */
    if (g->is_kernel && types_equal(g->param_types, args, sig->len)) return; /* duplicate signature */
  }
  fn_instance *f = new_instance(ic, fn, args, sig->len, true, NULL);
  check_param_space(ic, f);
  /* One signature keeps the kernel's name, and so does the one signature the source
   * wrote when --sig adds others (theirs are mangled). */
  bool named = variant == 0 && (fn->sigs.len == 1 || fn->source_sigs == 1);
  if (!named) f->symbol_name = mangle(ic, fn->name, args, sig->len);
  enter_kernel(ic, fn);
  f->in_fast_kernel = f->fastmath = ic->fast_kernel;
  f->debug = ic->debug_kernel;
  f->noopt = ic->noopt_kernel;
  ic->all_f32 = kernel_arrays_all_f32(f);
  ic->last_warn_line = 0;
  f->in_progress = true;
  run_passes(ic, f, true);
  f->in_progress = false;
  f->done = true;
  vec_push(ic->ar, &ic->prog->instances, f);
  vec_push(ic->ar, &ic->prog->kernels, f);
}

/* One vectorize signature: the scalar function instantiated (and its result checked
 * first, so a function without a numeric result is reported as such), then the kernel
 * kf compiled over 1-D arrays of those types, inputs then output, under the symbol and
 * parameter names runtime/vectorize.c reports: the function's name (with several
 * signatures, its mangled scalar name + "_ufunc"), "in0"... and "out". */
static void compile_vectorize_sig(infer_ctx *ic, func_def *fn, func_def *kf, int k,
                                  unsigned scalars) {
  ptr_vec *sig = fn->sigs.items[k];
  int nin = sig->len;
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(nin + 1));
  ptr_vec *ksig = arena_alloc(ic->ar, sizeof *ksig);
  for (int i = 0; i < nin; i++) {
    args[i] = sig->items[i];
    vec_push(ic->ar, ksig, kcc_scalar_input(scalars, i) ? (void *)args[i]
                                                         : (void *)type_array(ic->ar, args[i], 1));
  }
  bool saved = ic->report;
  ic->report = true;
  ic->cur = NULL;
  enter_kernel(ic, kf);
  fn_instance *scalar = ix_instantiate(ic, fn, args, nin, (bitset){0}, fn->def->sp, NULL);
  ic->report = saved;
  if (!scalar) return;
  if (scalar->ret->kind == TY_VOID || !type_is_scalar(scalar->ret)) {
    ix_error(ic, fn->def->sp, "vectorized function '%s' must return a number", fn->name);
    return;
  }
  /* a signature without a result ('(float32, float32)') takes the function's, as Numba
     infers it */
  const type *ret = fn->rets.items[k] ? fn->rets.items[k] : scalar->ret;
  vec_push(ic->ar, ksig, (void *)type_array(ic->ar, ret, 1));
  int before = ic->prog->kernels.len;
  compile_kernel(ic, kf, ksig, k);
  if (ic->prog->kernels.len == before) return;
  fn_instance *f = ic->prog->kernels.items[ic->prog->kernels.len - 1];
  f->symbol_name = fn->sigs.len > 1
      ? arena_printf(ic->ar, "%s_ufunc", mangle(ic, fn->name, args, nin)) : fn->name;
  if (scalars) f->symbol_name = arena_printf(ic->ar, "%s__scalars%u", f->symbol_name, scalars);
  for (int i = 0; i <= nin; i++) {
    node *p = f->def->params.items[i];
    p->str = i == nin ? "out" : arena_printf(ic->ar, "in%d", i);
  }
}

/* The kernel a decorator generates for fn (synth.c), of fn's name, as fn->generated;
 * def is NULL when the generated source did not parse, which is kcc's bug. */
static func_def *generated_kernel(infer_ctx *ic, func_def *fn, node *def, const char *what) {
  if (!def) {
    ix_error(ic, fn->def->sp, "internal compiler error: the %s kernel does not parse", what);
    return NULL;
  }
  func_def *k = arena_alloc(ic->ar, sizeof *k);
  k->def = def;
  k->kind = FN_KERNEL;
  k->name = fn->name;
  fn->generated = k;
  return k;
}

/* @vectorize: per signature, the elementwise kernel synthesised for it (synth.c); with
 * kcc_options.scalar_ufunc naming fn, the kernels taking some inputs as scalars. */
static void compile_vectorize(infer_ctx *ic, func_def *fn) {
  if (fn->sigs.len == 0) return;
  unsigned scalars = ic->opts->scalar_ufunc ? ic->opts->scalar_inputs : 0;
  node *def = synth_vectorize_kernel(ic->ar, ic->d, fn->name, fn->name, fn->def->params.len,
                                     scalars, fn->def->sp);
  func_def *kf = generated_kernel(ic, fn, def, "vectorize");
  if (!kf) return;
  kf->fastmath = fn->fastmath;
  for (int k = 0; k < fn->sigs.len; k++) compile_vectorize_sig(ic, fn, kf, k, scalars);
}

/* kcc_options.scalar_ufunc and only_kernel: the one @vectorize function or kernel they
 * name is compiled, nothing else (the module was compiled whole before; this adds
 * kernels to it). */
static bool skipped_for_variant(const infer_ctx *ic, const func_def *fn) {
  const char *ufunc = ic->opts->scalar_ufunc, *kernel = ic->opts->only_kernel;
  if (ufunc && !(fn->kind == FN_VECTORIZE && strcmp(fn->name, ufunc) == 0)) return true;
  return kernel && !(fn->kind == FN_KERNEL && strcmp(fn->name, kernel) == 0);
}

/* The element types an unsigned reducer is compiled for ahead of time. */
static const type *const reduce_aot_types[] = {&ty_i32, &ty_i64, &ty_u32, &ty_u64, &ty_f32,
                                               &ty_f64};

static void discard_diag(void *user_data, const kc_diagnostic *d) {
  (void)d;
  (void)user_data;
}

/* A reduction kernel's symbol names its element type only: reduce_gpu__float32. */
static void name_reduce_kernel(infer_ctx *ic, func_def *k, const type *el) {
  fn_instance *f = ic->prog->kernels.items[ic->prog->kernels.len - 1];
  f->symbol_name = mangle(ic, k->name, &el, 1);
}

/* Compile reduction kernel k for element type el if its function types for el: the
 * attempt reports into a silent sink, and a failed one is taken back (a reducer of
 * bits, say, has no float32 kernel). */
static void try_reduce_type(infer_ctx *ic, func_def *k, const type *el) {
  diag_sink *real = ic->d, trial = *real;
  trial.emit = discard_diag;
  trial.nerrors = trial.nwarnings = 0;
  trial.max_errors = 1;
  int ninst = ic->prog->instances.len, nkern = ic->prog->kernels.len, nk = k->instances.len;
  int nfuncs = ic->prog->funcs.len;
  int *nfn = arena_alloc(ic->ar, sizeof *nfn * (size_t)(nfuncs + 1));
  for (int i = 0; i < nfuncs; i++)
    nfn[i] = ((func_def *)ic->prog->funcs.items[i])->instances.len;
  ptr_vec *sig = ix_reduce_kernel_sig(ic, el);
  ic->d = &trial;
  compile_kernel(ic, k, sig, 1);
  ic->d = real;
  if (trial.nerrors == 0) {
    vec_push(ic->ar, &k->sigs, sig);
    name_reduce_kernel(ic, k, el);
    return;
  }
  ic->prog->instances.len = ninst;   /* forget every instance the attempt made */
  ic->prog->kernels.len = nkern;
  k->instances.len = nk;
  /* functions the attempt brought in (a library module it loaded, kcc/cmath.k say)
     stay known, without the instances it made of them */
  for (int i = 0; i < ic->prog->funcs.len; i++)
    ((func_def *)ic->prog->funcs.items[i])->instances.len = i < nfuncs ? nfn[i] : 0;
}

/* @cuda.reduce: the synthesised kernel (synth.c), compiled per element type. Without
 * signatures it stays untyped, to be specialised by kc_reduce as Numba compiles per
 * dtype on the first call; ahead of time (kcc compile) it is compiled for the usual
 * number types it accepts. */
static void compile_reduce(infer_ctx *ic, func_def *fn) {
  if (fn->def->params.len != 2) return;
  if (fn->sigs.len == 0 && !ic->opts->aot) {
    vec_push(ic->ar, &ic->prog->untyped, (void *)fn->name);
    return;
  }
  bool host = ic->opts->target == KCC_TARGET_HOST;
  func_def *k = generated_kernel(ic, fn, synth_reduce_kernel(ic->ar, ic->d, fn->name, kcc_reduce_block(host), host,
                                                     fn->def->sp),
                                 "reduction");
  if (!k) return;
  if (fn->sigs.len == 0) {
    size_t n = sizeof reduce_aot_types / sizeof reduce_aot_types[0];
    for (size_t t = 0; t < n; t++) try_reduce_type(ic, k, reduce_aot_types[t]);
    if (k->sigs.len == 0)   /* no usual type works: say why for the first */
      compile_kernel(ic, k, ix_reduce_kernel_sig(ic, reduce_aot_types[0]), 1);
    return;
  }
  k->sigs = fn->sigs;
  for (int s = 0; s < k->sigs.len; s++) {
    ptr_vec *sig = k->sigs.items[s];
    int before = ic->prog->kernels.len;
    compile_kernel(ic, k, sig, s);
    if (k->sigs.len > 1 && ic->prog->kernels.len > before)
      name_reduce_kernel(ic, k, ((const type *)sig->items[0])->elem);
  }
}

/* How argument k of a @guvectorize signature reaches the core function, and the
 * kernel's parameter type for it (the core dims behind one flattened loop axis). */
static bool gu_argument(infer_ctx *ic, func_def *fn, const gu_layout *l, int k,
                        const type *t, synth_gu_pass *pass, const type **param) {
  const char *pname = ((node *)fn->def->params.items[k])->str;
  const type *el = t->kind == TY_ARRAY ? t->elem : t;
  int core = l->ndim[k];
  *param = type_array(ic->ar, el, core + 1);
  if (core > 0 && t->kind == TY_ARRAY && t->ndim == core) { *pass = GU_ROW; return true; }
  if (core == 0 && t->kind == TY_ARRAY && t->ndim == 1) { *pass = GU_CELL; return true; }
  if (core == 0 && t->kind != TY_ARRAY && k < l->nin) { *pass = GU_ELEM; return true; }
  if (core == 0 && t->kind != TY_ARRAY)
    ix_error(ic, fn->layout_sp, "output '%s' has layout () and must be declared as a 1-D array "
         "(written as %s[0]), not %s", pname, pname, ix_tname(ic, t));
  else
    ix_error(ic, fn->layout_sp, "argument '%s' has %d core dimension%s in the layout but the "
         "signature declares %s", pname, core, core == 1 ? "" : "s", ix_tname(ic, t));
  return false;
}

/* The parameter names of a @guvectorize loop kernel carry the layout to the runtime
 * (runtime/guvectorize.c): "x(m,n)" for an input, "->r(m)" for an output. */
static const char *gu_param_name(infer_ctx *ic, const gu_layout *l, int k, const char *name) {
  char *s = arena_printf(ic->ar, "%s%s(", k >= l->nin ? "->" : "", name);
  for (int d = 0; d < l->ndim[k]; d++) s = arena_printf(ic->ar, "%s%s%s", s, d ? "," : "", l->dim[k][d]);
  return arena_printf(ic->ar, "%s)", s);
}

static void compile_guvectorize_sig(infer_ctx *ic, func_def *fn, const gu_layout *l,
                                    ptr_vec *sig, int variant) {
  synth_gu_pass pass[GU_MAX_ARGS];
  ptr_vec *ksig = arena_alloc(ic->ar, sizeof *ksig);
  for (int k = 0; k < l->nargs; k++) {
    const type *param;
    if (!gu_argument(ic, fn, l, k, sig->items[k], &pass[k], &param)) return;
    vec_push(ic->ar, ksig, (void *)param);
  }
  for (int k = 0; k < SYNTH_GU_NLOOP_PARAMS; k++) vec_push(ic->ar, ksig, (void *)&ty_i64);
  func_def *kf = arena_alloc(ic->ar, sizeof *kf);
  kf->def = synth_guvectorize_kernel(ic->ar, ic->d, fn->name, fn->name, pass, l->nargs,
                                     fn->layout_sp);
  if (!kf->def) {
    ix_error(ic, fn->layout_sp, "internal compiler error: the gufunc kernel does not parse");
    return;
  }
  kf->kind = FN_KERNEL;
  kf->name = fn->name;
  kf->fastmath = fn->fastmath;
  vec_push(ic->ar, &kf->sigs, ksig);
  int before = ic->prog->kernels.len;
  compile_kernel(ic, kf, ksig, variant);
  if (ic->prog->kernels.len == before) return;
  fn_instance *f = ic->prog->kernels.items[ic->prog->kernels.len - 1];
  for (int k = 0; k < l->nargs; k++) {
    mark_param_written(f, k); /* views escape */
    node *p = f->def->params.items[k];
    p->str = gu_param_name(ic, l, k, ((node *)fn->def->params.items[k])->str);
  }
}

static void compile_guvectorize(infer_ctx *ic, func_def *fn) {
  if (!fn->layout) return;
  gu_layout l;
  const char *why = NULL;
  if (!ix_gu_parse_layout(ic, fn->layout, &l, &why)) {
    ix_error(ic, fn->layout_sp, "bad @guvectorize layout \"%s\": %s (write it as "
         "\"(m,n),(n)->(m)\")", fn->layout, why);
    return;
  }
  if (l.nargs != fn->def->params.len) {
    ix_error(ic, fn->layout_sp, "the layout \"%s\" has %d argument%s but '%s' takes %d",
         fn->layout, l.nargs, l.nargs == 1 ? "" : "s", fn->name, fn->def->params.len);
    return;
  }
  if (fn->sigs.len == 0)
    ix_error(ic, fn->def->sp, "@guvectorize '%s' needs at least one signature", fn->name);
  for (int k = 0; k < fn->sigs.len; k++) compile_guvectorize_sig(ic, fn, &l, fn->sigs.items[k], k);
}

void ix_compile_functions(infer_ctx *ic) {
  for (int i = 0; i < ic->prog->funcs.len; i++) {
    func_def *fn = ic->prog->funcs.items[i];
    if (skipped_for_variant(ic, fn)) continue;
    if (fn->kind == FN_GUVECTORIZE) {
      compile_guvectorize(ic, fn);
      continue;
    }
    if (fn->kind == FN_REDUCE) {
      compile_reduce(ic, fn);
      continue;
    }
    if (fn->kind == FN_VECTORIZE) {
      compile_vectorize(ic, fn);
      continue;
    }
    if (fn->kind == FN_DEVICE && ic->opts->export_device) export_device(ic, fn);
    if (fn->kind != FN_KERNEL) continue;
    if (fn->sigs.len == 0) {
      vec_push(ic->ar, &ic->prog->untyped, (void *)fn->name);
      if (!fn->sig_failed && ic->opts->aot)   /* from C it is typed at its launch */
        ix_warn(ic, fn->def->sp, "kernel '%s' has no parameter types (annotations, a signature "
              "in its decorator, or --sig): it is not compiled ahead of time", fn->name);
      continue;
    }
    for (int k = 0; k < fn->sigs.len; k++) compile_kernel(ic, fn, fn->sigs.items[k], k);
  }
}

/* ---- --emit=types --------------------------------------------------------------------------- */

char *infer_dump_types(arena *a, const program *p) {
  char *s = arena_strdup(a, "");
  for (int i = 0; i < p->instances.len; i++) {
    const fn_instance *f = p->instances.items[i];
    s = arena_printf(a, "%s%s %s(", s, f->is_kernel ? "kernel" : "device", f->symbol_name);
    for (int k = 0; k < f->nparams; k++)
      s = arena_printf(a, "%s%s%s", s, k ? ", " : "", type_name(a, f->param_types[k]));
    s = arena_printf(a, "%s) -> %s%s\n", s, type_name(a, f->ret),
                     f->fastmath ? " (fastmath)" : "");
    for (int k = 0; k < f->locals.len; k++) {
      const symbol *sym = f->locals.items[k];
      s = arena_printf(a, "%s  %s: %s%s\n", s, sym->name,
                       sym->ty ? type_name(a, sym->ty) : "<unknown>",
                       sym->is_param ? " (parameter)" : sym->is_shared ? " (shared)" : "");
    }
  }
  for (int i = 0; i < p->untyped.len; i++)
    s = arena_printf(a, "%skernel %s: untyped (not compiled)\n", s, (const char *)p->untyped.items[i]);
  return s;
}


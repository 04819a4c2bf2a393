/*
 * infer.c — name resolution and type inference: AST -> typed program (sema.h).
 *
 * Module level: imports are checked and bound, constants folded, functions classified
 * by their decorators (kernel, device function, vectorize). Each kernel with types (from
 * annotations, its decorator's signature string, or --sig) is specialised; device
 * functions are specialised per call-site argument types, each specialisation typing
 * its own clone of the function's tree.
 *
 * Inside a function every local has one type, found by unification over all its
 * assignments. Loops make that a fixpoint: the body is walked silently until no local's
 * type changes, then once more with diagnostics on. Promotion is GPU-first: a literal
 * adopts the other operand's type when it fits, so `x * 2.0` stays float32
 * (docs/language.md has the table).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sema.h"
#include "signature.h"
#include "synth.h"

#define MAX_FIXPOINT_PASSES 12

typedef struct alias {
  const char *name;   /* the name bound in the module */
  const char *path;   /* the dotted path it stands for: "numba.cuda" */
} alias;

typedef struct infer_ctx {
  arena *ar;
  diag_sink *d;
  program *prog;
  const kcc_options *opts;
  ptr_vec consts;      /* symbol*: module constants */
  ptr_vec aliases;     /* alias*: imported names */
  fn_instance *cur;    /* the function being typed */
  bool report;         /* this pass reports diagnostics and is final */
  bool changed;        /* a local's type changed during this pass */
  int loop_depth;
  bool all_f32;        /* the current kernel's arrays are all float32 */
  bool fast_kernel;    /* the current kernel uses fast math (its decorator or
                          kcc_options.fastmath): so do the device functions it calls */
  ptr_vec libs;        /* const char*: library modules (lib/, synth.h) loaded */
  int last_warn_line;
} infer_ctx;

static const type *ix_expr(infer_ctx *ic, node *e);
static void ix_block(infer_ctx *ic, node_list *body);

/* ---- diagnostics: silent during the fixpoint passes ------------------------------ */

static void ierr(infer_ctx *ic, span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void ierr(infer_ctx *ic, span sp, const char *fmt, ...) {
  if (!ic->report) return;
  va_list ap;
  va_start(ap, fmt);
  diag_report(ic->d, KC_SEV_ERROR, sp, fmt, ap);
  va_end(ap);
}

static void iwarn(infer_ctx *ic, span sp, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void iwarn(infer_ctx *ic, span sp, const char *fmt, ...) {
  if (!ic->report) return;
  va_list ap;
  va_start(ap, fmt);
  diag_report(ic->d, KC_SEV_WARNING, sp, fmt, ap);
  va_end(ap);
}

static const char *tname(infer_ctx *ic, const type *t) {
  return t ? type_name(ic->ar, t) : "<unknown>";
}

/* ---- the builtin namespace ---------------------------------------------------------- */

typedef struct builtin_entry {
  const char *path;
  builtin_id id;
} builtin_entry;

static const builtin_entry builtins[] = {
  {"numba", B_NS_NUMBA}, {"numba.cuda", B_NS_CUDA}, {"math", B_NS_MATH},
  {"numba.types", B_NS_TYPES}, {"numpy", B_NS_NUMPY},
  {"numba.cuda.threadIdx", B_NS_THREADIDX}, {"numba.cuda.blockIdx", B_NS_BLOCKIDX},
  {"numba.cuda.blockDim", B_NS_BLOCKDIM}, {"numba.cuda.gridDim", B_NS_GRIDDIM},
  {"numba.cuda.shared", B_NS_SHARED}, {"numba.cuda.local", B_NS_LOCAL},
  {"numba.cuda.atomic", B_NS_ATOMIC},
  {"numba.cuda.threadIdx.x", B_TID_X}, {"numba.cuda.threadIdx.y", B_TID_Y},
  {"numba.cuda.threadIdx.z", B_TID_Z}, {"numba.cuda.blockIdx.x", B_CTAID_X},
  {"numba.cuda.blockIdx.y", B_CTAID_Y}, {"numba.cuda.blockIdx.z", B_CTAID_Z},
  {"numba.cuda.blockDim.x", B_NTID_X}, {"numba.cuda.blockDim.y", B_NTID_Y},
  {"numba.cuda.blockDim.z", B_NTID_Z}, {"numba.cuda.gridDim.x", B_NCTAID_X},
  {"numba.cuda.gridDim.y", B_NCTAID_Y}, {"numba.cuda.gridDim.z", B_NCTAID_Z},
  {"numba.cuda.laneid", B_LANEID}, {"numba.cuda.warpsize", B_WARPSIZE},
  {"numba.cuda.grid", B_GRID}, {"numba.cuda.gridsize", B_GRIDSIZE},
  {"numba.cuda.syncthreads", B_SYNCTHREADS},
  {"numba.cuda.shared.array", B_SHARED_ARRAY}, {"numba.cuda.local.array", B_LOCAL_ARRAY},
  {"numba.cuda.atomic.add", B_ATOMIC_ADD}, {"numba.cuda.atomic.sub", B_ATOMIC_SUB},
  {"numba.cuda.atomic.max", B_ATOMIC_MAX}, {"numba.cuda.atomic.min", B_ATOMIC_MIN},
  {"numba.cuda.atomic.exch", B_ATOMIC_EXCH},
  {"numba.cuda.jit", B_JIT}, {"numba.jit", B_JIT}, {"kernel", B_KERNEL},
  {"device", B_DEVICE}, {"numba.vectorize", B_VECTORIZE},
  {"numba.cuda.vectorize", B_VECTORIZE}, {"numba.cuda.reduce", B_REDUCE},
  {"numba.guvectorize", B_GUVECTORIZE}, {"numba.cuda.guvectorize", B_GUVECTORIZE},
  {"_kc_row", B_KC_ROW}, {"_kc_cell", B_KC_CELL},
  {"range", B_RANGE}, {"len", B_LEN}, {"abs", B_ABS}, {"min", B_MIN}, {"max", B_MAX},
  {"round", B_ROUND}, {"int", B_INT}, {"float", B_FLOAT}, {"bool", B_BOOL},
  {"print", B_PRINT},
  {"math.pi", B_MATH_PI}, {"math.e", B_MATH_E}, {"math.inf", B_MATH_INF},
  {"math.nan", B_MATH_NAN}, {"math.tau", B_MATH_TAU},
  {"math.sqrt", B_MATH_SQRT}, {"math.exp", B_MATH_EXP}, {"math.exp2", B_MATH_EXP2},
  {"math.expm1", B_MATH_EXPM1}, {"math.log", B_MATH_LOG}, {"math.log2", B_MATH_LOG2},
  {"math.log10", B_MATH_LOG10}, {"math.log1p", B_MATH_LOG1P},
  {"math.fabs", B_MATH_FABS}, {"math.sin", B_MATH_SIN}, {"math.cos", B_MATH_COS},
  {"math.tan", B_MATH_TAN}, {"math.asin", B_MATH_ASIN}, {"math.acos", B_MATH_ACOS},
  {"math.atan", B_MATH_ATAN}, {"math.sinh", B_MATH_SINH}, {"math.cosh", B_MATH_COSH},
  {"math.tanh", B_MATH_TANH}, {"math.asinh", B_MATH_ASINH},
  {"math.acosh", B_MATH_ACOSH}, {"math.atanh", B_MATH_ATANH}, {"math.erf", B_MATH_ERF},
  {"math.erfc", B_MATH_ERFC}, {"math.gamma", B_MATH_GAMMA},
  {"math.lgamma", B_MATH_LGAMMA}, {"math.pow", B_MATH_POW}, {"math.fmod", B_MATH_FMOD},
  {"math.copysign", B_MATH_COPYSIGN}, {"math.hypot", B_MATH_HYPOT},
  {"math.atan2", B_MATH_ATAN2}, {"math.floor", B_MATH_FLOOR}, {"math.ceil", B_MATH_CEIL},
  {"math.trunc", B_MATH_TRUNC}, {"math.isnan", B_MATH_ISNAN}, {"math.cbrt", B_CBRT},
  {"math.isinf", B_MATH_ISINF}, {"math.isfinite", B_MATH_ISFINITE},
  /* complex numbers */
  {"cmath", B_NS_CMATH}, {"complex", B_COMPLEX},
  {"cmath.exp", B_CMATH_EXP}, {"cmath.log", B_CMATH_LOG}, {"cmath.sqrt", B_CMATH_SQRT},
  {"cmath.phase", B_CMATH_PHASE}, {"cmath.polar", B_CMATH_POLAR},
  {"cmath.rect", B_CMATH_RECT},
  {"cmath.pi", B_MATH_PI}, {"cmath.e", B_MATH_E}, {"cmath.inf", B_MATH_INF},
  {"cmath.nan", B_MATH_NAN}, {"cmath.tau", B_MATH_TAU},
  /* float16 */
  {"numba.cuda.fp16", B_NS_FP16},
  {"numba.cuda.fp16.hadd", B_FP16_HADD}, {"numba.cuda.fp16.hsub", B_FP16_HSUB},
  {"numba.cuda.fp16.hmul", B_FP16_HMUL}, {"numba.cuda.fp16.hdiv", B_FP16_HDIV},
  {"numba.cuda.fp16.hmax", B_FP16_HMAX}, {"numba.cuda.fp16.hmin", B_FP16_HMIN},
  {"numba.cuda.fp16.heq", B_FP16_HEQ}, {"numba.cuda.fp16.hne", B_FP16_HNE},
  {"numba.cuda.fp16.hgt", B_FP16_HGT}, {"numba.cuda.fp16.hge", B_FP16_HGE},
  {"numba.cuda.fp16.hlt", B_FP16_HLT}, {"numba.cuda.fp16.hle", B_FP16_HLE},
  {"numba.cuda.fp16.hfma", B_FP16_HFMA}, {"numba.cuda.fp16.hneg", B_FP16_HNEG},
  {"numba.cuda.fp16.habs", B_FP16_HABS}, {"numba.cuda.fp16.hsqrt", B_FP16_HSQRT},
  {"numba.cuda.fp16.hrsqrt", B_FP16_HRSQRT}, {"numba.cuda.fp16.hrcp", B_FP16_HRCP},
  {"numba.cuda.fp16.hexp", B_FP16_HEXP}, {"numba.cuda.fp16.hexp2", B_FP16_HEXP2},
  {"numba.cuda.fp16.hlog", B_FP16_HLOG}, {"numba.cuda.fp16.hlog2", B_FP16_HLOG2},
  {"numba.cuda.fp16.hlog10", B_FP16_HLOG10}, {"numba.cuda.fp16.hsin", B_FP16_HSIN},
  {"numba.cuda.fp16.hcos", B_FP16_HCOS}, {"numba.cuda.fp16.hfloor", B_FP16_HFLOOR},
  {"numba.cuda.fp16.hceil", B_FP16_HCEIL}, {"numba.cuda.fp16.htrunc", B_FP16_HTRUNC},
  {"numba.cuda.fp16.hrint", B_FP16_HRINT},
};

/* Names bound without an import: Numba code always imports them, but we let a kernel
 * file stand alone. */
static const alias default_aliases[] = {
  {"cuda", "numba.cuda"}, {"math", "math"}, {"numba", "numba"}, {"types", "numba.types"},
  {"vectorize", "numba.vectorize"}, {"guvectorize", "numba.guvectorize"}, {"jit", "numba.cuda.jit"}, {"np", "numpy"},
  {"cmath", "cmath"},
};

static const char *const importable[] = {"math", "numba", "numba.cuda", "numba.types",
                                         "numpy", "cmath"};

/* The CUDA intrinsics beyond syncthreads and the first atomics (typed below, in
 * "CUDA intrinsics"). */
static const builtin_entry intrinsic_builtins[] = {
  {"numba.cuda.const", B_NS_CONST}, {"numba.cuda.const.array_like", B_CONST_ARRAY_LIKE},
  {"numba.cuda.syncthreads_count", B_SYNCTHREADS_COUNT},
  {"numba.cuda.syncthreads_and", B_SYNCTHREADS_AND},
  {"numba.cuda.syncthreads_or", B_SYNCTHREADS_OR},
  {"numba.cuda.threadfence", B_THREADFENCE},
  {"numba.cuda.threadfence_block", B_THREADFENCE_BLOCK},
  {"numba.cuda.threadfence_system", B_THREADFENCE_SYSTEM},
  {"numba.cuda.syncwarp", B_SYNCWARP},
  {"numba.cuda.atomic.and_", B_ATOMIC_AND}, {"numba.cuda.atomic.or_", B_ATOMIC_OR},
  {"numba.cuda.atomic.xor", B_ATOMIC_XOR}, {"numba.cuda.atomic.inc", B_ATOMIC_INC},
  {"numba.cuda.atomic.dec", B_ATOMIC_DEC}, {"numba.cuda.atomic.cas", B_ATOMIC_CAS},
  {"numba.cuda.atomic.compare_and_swap", B_ATOMIC_COMPARE_AND_SWAP},
  {"numba.cuda.shfl_sync", B_SHFL_SYNC}, {"numba.cuda.shfl_up_sync", B_SHFL_UP_SYNC},
  {"numba.cuda.shfl_down_sync", B_SHFL_DOWN_SYNC},
  {"numba.cuda.shfl_xor_sync", B_SHFL_XOR_SYNC},
  {"numba.cuda.all_sync", B_ALL_SYNC}, {"numba.cuda.any_sync", B_ANY_SYNC},
  {"numba.cuda.eq_sync", B_EQ_SYNC}, {"numba.cuda.ballot_sync", B_BALLOT_SYNC},
  {"numba.cuda.match_any_sync", B_MATCH_ANY_SYNC},
  {"numba.cuda.match_all_sync", B_MATCH_ALL_SYNC},
  {"numba.cuda.activemask", B_ACTIVEMASK}, {"numba.cuda.lanemask_lt", B_LANEMASK_LT},
  {"numba.cuda.popc", B_POPC}, {"numba.cuda.brev", B_BREV}, {"numba.cuda.clz", B_CLZ},
  {"numba.cuda.ffs", B_FFS}, {"numba.cuda.fma", B_FMA}, {"numba.cuda.selp", B_SELP},
  {"numba.cuda.cbrt", B_CBRT}, {"numba.cuda.nanosleep", B_NANOSLEEP},
  {"numba.cuda.atomic.nanmax", B_ATOMIC_NANMAX}, {"numba.cuda.atomic.nanmin", B_ATOMIC_NANMIN},
};

static builtin_id builtin_lookup(const char *path) {
  for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
    if (strcmp(builtins[i].path, path) == 0) return builtins[i].id;
  for (size_t i = 0; i < sizeof intrinsic_builtins / sizeof intrinsic_builtins[0]; i++)
    if (strcmp(intrinsic_builtins[i].path, path) == 0) return intrinsic_builtins[i].id;
  return B_NONE;
}

/* A scalar type spelled by a path: "float32", "numba.float32", "numba.types.int32",
 * "numpy.float64". */
static const type *type_from_path(const char *path) {
  static const char *const prefixes[] = {"numba.types.", "numba.", "numpy.", ""};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(path, prefixes[i], n) == 0 && !strchr(path + n, '.'))
      return type_from_name(path + n);
  }
  return NULL;
}

static bool path_is_known(const char *path) {
  return builtin_lookup(path) != B_NONE || type_from_path(path) != NULL;
}

/* The dotted path a module-level name stands for, or NULL. */
static const char *alias_path(infer_ctx *ic, const char *name) {
  for (int i = ic->aliases.len - 1; i >= 0; i--) {
    alias *al = ic->aliases.items[i];
    if (strcmp(al->name, name) == 0) return al->path;
  }
  for (size_t i = 0; i < sizeof default_aliases / sizeof default_aliases[0]; i++)
    if (strcmp(default_aliases[i].name, name) == 0) return default_aliases[i].path;
  if (builtin_lookup(name) != B_NONE || type_from_name(name)) return name;
  return NULL;
}

static symbol *find_local(fn_instance *f, const char *name) {
  if (!f) return NULL;
  for (int i = 0; i < f->locals.len; i++) {
    symbol *s = f->locals.items[i];
    if (strcmp(s->name, name) == 0) return s;
  }
  return NULL;
}

static symbol *find_const(infer_ctx *ic, const char *name) {
  for (int i = 0; i < ic->consts.len; i++) {
    symbol *s = ic->consts.items[i];
    if (strcmp(s->name, name) == 0) return s;
  }
  return NULL;
}

static func_def *find_func(infer_ctx *ic, const char *name) {
  for (int i = 0; i < ic->prog->funcs.len; i++) {
    func_def *f = ic->prog->funcs.items[i];
    if (strcmp(f->name, name) == 0) return f;
  }
  return NULL;
}

/* The builtin path of a name/attribute chain whose root is not a value ("cuda.grid" ->
 * "numba.cuda.grid"), or NULL when the root is a local, constant or function. */
static const char *dotted_path(infer_ctx *ic, const node *e) {
  if (e->kind == N_NAME) {
    if (find_local(ic->cur, e->str) || find_const(ic, e->str) || find_func(ic, e->str))
      return NULL;
    return alias_path(ic, e->str);
  }
  if (e->kind == N_ATTR) {
    const char *base = dotted_path(ic, e->a);
    return base ? arena_printf(ic->ar, "%s.%s", base, e->str) : NULL;
  }
  return NULL;
}

/* ---- types: promotion and unification ------------------------------------------------ */

static const type *int_type(int bits, bool is_signed) {
  switch (bits) {
  case 8: return is_signed ? &ty_i8 : &ty_u8;
  case 16: return is_signed ? &ty_i16 : &ty_u16;
  case 32: return is_signed ? &ty_i32 : &ty_u32;
  default: return is_signed ? &ty_i64 : &ty_u64;
  }
}

/* The float width a type brings to a complex result: a float's bits, a complex's part
 * bits, 0 for integers and bool. */
static int float_bits_of(const type *t) {
  return t->kind == TY_FLOAT ? t->bits : t->kind == TY_COMPLEX ? t->bits / 2 : 0;
}

/* Promotion of two strong numeric types, NumPy style. With a complex operand the result
 * is complex, wide enough for both floats: float32 + complex64 is complex64, float64 +
 * complex64 is complex128, an integer + complex64 is complex64 (rule 3). */
static const type *promote_strong(const type *a, const type *b) {
  if (a->kind == TY_COMPLEX || b->kind == TY_COMPLEX) {
    int fa = float_bits_of(a), fb = float_bits_of(b);
    return (fa > fb ? fa : fb) > 32 ? &ty_c128 : &ty_c64;
  }
  if (a->kind == TY_BOOL) return b->kind == TY_BOOL ? &ty_bool : b;
  if (b->kind == TY_BOOL) return a;
  if (a->kind == TY_FLOAT && b->kind == TY_FLOAT) return a->bits >= b->bits ? a : b;
  if (a->kind == TY_FLOAT) return a;
  if (b->kind == TY_FLOAT) return b;
  if (a->is_signed == b->is_signed) return a->bits >= b->bits ? a : b;
  const type *s = a->is_signed ? a : b, *u = a->is_signed ? b : a;
  if (s->bits > u->bits) return s;
  if (u->bits < 64) return int_type(u->bits * 2, true);
  return &ty_f64;
}

static bool literal_fits(const node *lit, const type *t) {
  if (!lit || t->kind != TY_INT) return true;
  const node *n = lit;
  bool neg = false;
  if (n->kind == N_UNARY && n->op == OP_NEG) { neg = true; n = n->a; }
  if (n->kind != N_INT) return true;
  if (n->big) return !neg && !t->is_signed && t->bits == 64;
  int64_t v = neg ? -n->ival : n->ival;
  if (!t->is_signed) return v >= 0 && (t->bits == 64 || v < ((int64_t)1 << t->bits));
  if (t->bits == 64) return true;
  int64_t lim = (int64_t)1 << (t->bits - 1);
  return v >= -lim && v < lim;
}

/* The type of `a op b` before operator-specific rules: a weak (literal) operand adopts
 * the strong operand's type when it fits. */
static const type *promote(const type *a, bool aw, const node *an, const type *b, bool bw,
                           const node *bn, bool *weak) {
  *weak = aw && bw;
  if (aw == bw) return promote_strong(a, b);
  const type *lit = aw ? a : b, *str = aw ? b : a;
  const node *litn = aw ? an : bn;
  /* an imaginary literal with a float operand takes its width: x * 1j is complex64
     for a float32 x */
  if (lit->kind == TY_COMPLEX && str->kind != TY_COMPLEX)
    return str->kind == TY_FLOAT ? type_complex_of(str) : lit;
  if (str->kind == TY_COMPLEX) return str;
  if (lit->kind == TY_FLOAT && str->kind != TY_FLOAT) return lit;
  if (str->kind == TY_BOOL) return lit;
  if (lit->kind == TY_INT && str->kind == TY_INT && !literal_fits(litn, str))
    return promote_strong(lit, str);
  return str;
}

static bool is_float64_widening(const type *a, const type *b, const type *r) {
  return r == &ty_f64 && ((a == &ty_f32) || (b == &ty_f32));
}

/* ---- locals ------------------------------------------------------------------------------ */

static symbol *new_local(infer_ctx *ic, fn_instance *f, const char *name, span where) {
  symbol *s = arena_alloc(ic->ar, sizeof *s);
  s->kind = SYM_LOCAL;
  s->name = name;
  s->where = where;
  vec_push(ic->ar, &f->locals, s);
  return s;
}

/* Names assigned anywhere in a function body are its locals (Python's rule). */
static void collect_target_names(infer_ctx *ic, fn_instance *f, node *t) {
  if (!t) return;
  if (t->kind == N_NAME) {
    if (!find_local(f, t->str)) new_local(ic, f, t->str, t->sp);
  } else if (t->kind == N_TUPLE) {
    for (int i = 0; i < t->list.len; i++) collect_target_names(ic, f, t->list.items[i]);
  }
}

static void collect_locals(infer_ctx *ic, fn_instance *f, node_list *body) {
  for (int i = 0; i < body->len; i++) {
    node *s = body->items[i];
    switch (s->kind) {
    case N_ASSIGN:
      for (int j = 0; j < s->list.len; j++) collect_target_names(ic, f, s->list.items[j]);
      break;
    case N_AUGASSIGN: collect_target_names(ic, f, s->a); break;
    case N_ANNASSIGN: collect_target_names(ic, f, s->a); break;
    case N_FOR: collect_target_names(ic, f, s->a); break;
    default: break;
    }
    collect_locals(ic, f, &s->body);
    collect_locals(ic, f, &s->orelse);
  }
}

static const type *unify(infer_ctx *ic, const type *a, bool aw, const type *b, bool bw,
                         bool *weak) {
  *weak = aw && bw;
  if (type_equal(a, b)) return a;
  if (type_is_numeric(a) && type_is_numeric(b)) {
    const type *t = promote(a, aw, NULL, b, bw, NULL, weak);
    return t;
  }
  if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->nelems == b->nelems) {
    const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)a->nelems);
    for (int i = 0; i < a->nelems; i++) {
      bool w;
      el[i] = unify(ic, a->elems[i], false, b->elems[i], false, &w);
      if (!el[i]) return NULL;
    }
    *weak = false;
    return type_tuple(ic->ar, el, a->nelems);
  }
  return NULL;
}

static void assign_local(infer_ctx *ic, symbol *s, const type *t, bool weak, span sp) {
  if (!t || t->kind == TY_VOID) return;
  if (!s->ty) {
    s->ty = t;
    s->weak = weak;
    ic->changed = true;
    return;
  }
  bool w;
  const type *u = unify(ic, s->ty, s->weak, t, weak, &w);
  if (!u) {
    ierr(ic, sp, "cannot assign a value of type %s to '%s', which holds %s",
         tname(ic, t), s->name, tname(ic, s->ty));
    if (ic->report) diag_note(ic->d, s->where, "'%s' was first given type %s here", s->name,
                              tname(ic, s->ty));
    return;
  }
  if (!type_equal(u, s->ty) || w != s->weak) {
    s->ty = u;
    s->weak = w;
    ic->changed = true;
  }
}

/* ---- constant folding (module constants) -------------------------------------------- */

static node *const_int(infer_ctx *ic, int64_t v, span sp) {
  node *n = node_new(ic->ar, N_INT, sp);
  n->ival = v;
  return n;
}

static node *const_float(infer_ctx *ic, double v, span sp) {
  node *n = node_new(ic->ar, N_FLOAT, sp);
  n->fval = v;
  return n;
}

static double const_as_double(const node *n) {
  return n->kind == N_FLOAT ? n->fval : n->big ? (double)n->uval : (double)n->ival;
}

static int64_t floordiv_i64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

static node *fold(infer_ctx *ic, node *e);

/* ---- complex constants (I = 1j, Z = complex(1.0, 2.0), W = 2 + 3j) ---- */

static node *const_complex(infer_ctx *ic, double re, double im, span sp) {
  node *n = node_new(ic->ar, N_COMPLEX, sp);
  n->a = const_float(ic, re, sp);
  n->b = const_float(ic, im, sp);
  return n;
}

/* The parts of a folded number; a real one has imaginary part 0. */
static void const_parts(const node *n, double *re, double *im) {
  *re = n->kind == N_COMPLEX ? n->a->fval : const_as_double(n);
  *im = n->kind == N_COMPLEX ? n->b->fval : 0.0;
}

/* x / y by Smith's algorithm, the code generator's (cx_div), so that a folded
 * quotient is the one a kernel computes. */
static void complex_div(double a, double b, double c, double d, double *re, double *im) {
  if (fabs(c) >= fabs(d)) {
    double r = d / c, den = c + d * r;
    *re = (a + b * r) / den, *im = (b - a * r) / den;
  } else {
    double r = c / d, den = c * r + d;
    *re = (a * r + b) / den, *im = (b * r - a) / den;
  }
}

/* + - * / on two constants, one at least complex, and ** by an integer from 0 to 8 (a
 * product, as in kernels). NULL for the other operators, which complex numbers lack. */
static node *fold_complex_binop(infer_ctx *ic, node *e, node *l, node *r) {
  double a, b, c, d, re = 1.0, im = 0.0;
  const_parts(l, &a, &b);
  const_parts(r, &c, &d);
  switch (e->op) {
  case OP_ADD: return const_complex(ic, a + c, b + d, e->sp);
  case OP_SUB: return const_complex(ic, a - c, b - d, e->sp);
  case OP_MUL: return const_complex(ic, a * c - b * d, a * d + b * c, e->sp);
  case OP_DIV:
    if (c == 0 && d == 0) {
      ierr(ic, e->sp, "division by zero in a constant expression");
      return NULL;
    }
    complex_div(a, b, c, d, &re, &im);
    return const_complex(ic, re, im, e->sp);
  case OP_POW:
    if (r->kind != N_INT || r->ival < 0 || r->ival > 8) {
      ierr(ic, e->sp, "complex ** in a constant takes an integer exponent from 0 to 8");
      return NULL;
    }
    for (int64_t k = 0; k < r->ival; k++) {
      double t = re * a - im * b;
      im = re * b + im * a, re = t;
    }
    return const_complex(ic, re, im, e->sp);
  default:
    ierr(ic, e->sp, "operator %s is not defined for complex numbers", op_symbol(e->op));
    return NULL;
  }
}

/* complex(x) and complex(x, y) on real constants (a complex x alone stays itself). */
static node *fold_complex_call(infer_ctx *ic, node *e) {
  if (e->kwargs.len || e->list.len < 1 || e->list.len > 2) return NULL;
  node *x = fold(ic, e->list.items[0]);
  node *y = e->list.len == 2 ? fold(ic, e->list.items[1]) : NULL;
  if (!x || x->kind == N_TUPLE || (e->list.len == 2 && (!y || y->kind == N_TUPLE)))
    return NULL;
  if (x->kind == N_COMPLEX && !y) return x;
  if (x->kind == N_COMPLEX || (y && y->kind == N_COMPLEX)) {
    ierr(ic, e->sp, "complex(x, y) in a constant takes real x and y");
    return NULL;
  }
  return const_complex(ic, const_as_double(x), y ? const_as_double(y) : 0.0, e->sp);
}

static node *fold_binop(infer_ctx *ic, node *e, node *l, node *r) {
  if (l->kind == N_COMPLEX || r->kind == N_COMPLEX) return fold_complex_binop(ic, e, l, r);
  bool fl = l->kind == N_FLOAT || r->kind == N_FLOAT || e->op == OP_DIV;
  if (l->kind == N_BOOL) l = const_int(ic, l->ival, l->sp);
  if (r->kind == N_BOOL) r = const_int(ic, r->ival, r->sp);
  if (fl) {
    double a = const_as_double(l), b = const_as_double(r);
    switch (e->op) {
    case OP_ADD: return const_float(ic, a + b, e->sp);
    case OP_SUB: return const_float(ic, a - b, e->sp);
    case OP_MUL: return const_float(ic, a * b, e->sp);
    case OP_POW: return const_float(ic, pow(a, b), e->sp);
    case OP_DIV: case OP_FLOORDIV: case OP_MOD:
      if (b == 0) { ierr(ic, e->sp, "division by zero in a constant expression"); return NULL; }
      if (e->op == OP_DIV) return const_float(ic, a / b, e->sp);
      if (e->op == OP_FLOORDIV) return const_float(ic, floor(a / b), e->sp);
      { double m = fmod(a, b); if (m != 0 && ((m < 0) != (b < 0))) m += b;
        return const_float(ic, m, e->sp); }
    default: return NULL;
    }
  }
  int64_t a = l->ival, b = r->ival;
  switch (e->op) {
  case OP_ADD: return const_int(ic, (int64_t)((uint64_t)a + (uint64_t)b), e->sp);
  case OP_SUB: return const_int(ic, (int64_t)((uint64_t)a - (uint64_t)b), e->sp);
  case OP_MUL: return const_int(ic, (int64_t)((uint64_t)a * (uint64_t)b), e->sp);
  case OP_FLOORDIV: case OP_MOD:
    if (b == 0) { ierr(ic, e->sp, "division by zero in a constant expression"); return NULL; }
    if (b == -1) return const_int(ic, e->op == OP_MOD ? 0 : (int64_t)(0 - (uint64_t)a), e->sp);
    if (e->op == OP_FLOORDIV) return const_int(ic, floordiv_i64(a, b), e->sp);
    return const_int(ic, a - floordiv_i64(a, b) * b, e->sp);
  case OP_POW: {
    if (b < 0) return const_float(ic, pow((double)a, (double)b), e->sp);
    uint64_t res = 1, base = (uint64_t)a;
    for (int64_t k = b; k > 0; k >>= 1) { if (k & 1) res *= base; base *= base; }
    return const_int(ic, (int64_t)res, e->sp);
  }
  case OP_LSHIFT: return const_int(ic, b >= 64 || b < 0 ? 0 : (int64_t)((uint64_t)a << b), e->sp);
  case OP_RSHIFT: return const_int(ic, b >= 64 || b < 0 ? (a < 0 ? -1 : 0) : a >> b, e->sp);
  case OP_BITAND: return const_int(ic, a & b, e->sp);
  case OP_BITOR: return const_int(ic, a | b, e->sp);
  case OP_BITXOR: return const_int(ic, a ^ b, e->sp);
  default: return NULL;
  }
}

/* Fold a constant expression to a literal node, or NULL if it is not constant. */
static node *fold(infer_ctx *ic, node *e) {
  switch (e->kind) {
  case N_INT: case N_FLOAT: case N_BOOL: case N_COMPLEX: return e;
  case N_IMAG: return const_complex(ic, 0.0, e->fval, e->sp);
  case N_CALL: {
    const char *p = dotted_path(ic, e->a);
    return p && builtin_lookup(p) == B_COMPLEX ? fold_complex_call(ic, e) : NULL;
  }
  case N_NAME: {
    symbol *s = find_const(ic, e->str);
    return s ? s->value : NULL;
  }
  case N_ATTR: {
    const char *p = dotted_path(ic, e);
    builtin_id id = p ? builtin_lookup(p) : B_NONE;
    if (id == B_MATH_PI) return const_float(ic, 3.14159265358979323846, e->sp);
    if (id == B_MATH_E) return const_float(ic, 2.71828182845904523536, e->sp);
    if (id == B_MATH_TAU) return const_float(ic, 6.28318530717958647692, e->sp);
    if (id == B_MATH_INF) return const_float(ic, INFINITY, e->sp);
    if (id == B_MATH_NAN) return const_float(ic, NAN, e->sp);
    return NULL;
  }
  case N_UNARY: {
    node *v = fold(ic, e->a);
    if (!v || v->kind == N_TUPLE) return NULL;
    if (e->op == OP_NOT) {
      node *b = node_new(ic->ar, N_BOOL, e->sp);
      double re, im;
      const_parts(v, &re, &im);
      b->ival = re == 0 && im == 0;
      return b;
    }
    if (e->op == OP_POS) return v;
    if (v->kind == N_COMPLEX)
      return e->op == OP_NEG ? const_complex(ic, -v->a->fval, -v->b->fval, e->sp) : NULL;
    if (e->op == OP_NEG)
      return v->kind == N_FLOAT ? const_float(ic, -v->fval, e->sp)
                                : const_int(ic, (int64_t)(0 - (uint64_t)v->ival), e->sp);
    if (e->op == OP_INVERT && v->kind != N_FLOAT) return const_int(ic, ~v->ival, e->sp);
    return NULL;
  }
  case N_BINOP: {
    node *l = fold(ic, e->a), *r = fold(ic, e->b);
    if (!l || !r || l->kind == N_TUPLE || r->kind == N_TUPLE || l->big || r->big) return NULL;
    return fold_binop(ic, e, l, r);
  }
  case N_TUPLE: {
    node *t = node_new(ic->ar, N_TUPLE, e->sp);
    for (int i = 0; i < e->list.len; i++) {
      node *v = fold(ic, e->list.items[i]);
      if (!v) return NULL;
      node_push(ic->ar, &t->list, v);
    }
    return t;
  }
  default: return NULL;
  }
}

static const type *const_type(infer_ctx *ic, node *v) {
  switch (v->kind) {
  case N_INT: return v->big ? &ty_u64 : &ty_i64;
  case N_FLOAT: return &ty_f64;
  case N_COMPLEX: return &ty_c128;
  case N_BOOL: return &ty_bool;
  case N_TUPLE: {
    const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)(v->list.len + 1));
    for (int i = 0; i < v->list.len; i++) el[i] = const_type(ic, v->list.items[i]);
    return type_tuple(ic->ar, el, v->list.len);
  }
  default: return NULL;
  }
}

/* ---- expressions ------------------------------------------------------------------------ */

static const type *set_ty(node *e, const type *t, bool weak) {
  e->ty = t;
  e->weak = weak;
  return t;
}

/* Truth value of a condition: any scalar will do. */
static void ix_condition(infer_ctx *ic, node *c) {
  const type *t = ix_expr(ic, c);
  if (t && !type_is_scalar(t))
    ierr(ic, c->sp, "a condition must be a number or bool, not %s", tname(ic, t));
}

static const type *ix_name(infer_ctx *ic, node *e) {
  symbol *s = find_local(ic->cur, e->str);
  if (s) {
    e->sym = s;
    if (!s->ty && ic->report)
      ierr(ic, e->sp, "'%s' is used but its type cannot be inferred (is it assigned before use?)",
           e->str);
    return set_ty(e, s->ty, s->weak);
  }
  s = find_const(ic, e->str);
  if (s) {
    e->sym = s;
    return set_ty(e, s->ty, s->ty && type_is_scalar(s->ty));
  }
  if (find_func(ic, e->str)) {
    ierr(ic, e->sp, "function '%s' can only be called", e->str);
    return NULL;
  }
  const char *p = alias_path(ic, e->str);
  builtin_id id = p ? builtin_lookup(p) : B_NONE;
  if (id == B_NONE && p && type_from_path(p)) {
    e->aux = B_TYPE;
    e->ty = NULL;
    ierr(ic, e->sp, "type '%s' can only be called (as a cast) or used in an annotation", e->str);
    return NULL;
  }
  if (id == B_NONE) {
    ierr(ic, e->sp, "undefined name '%s'", e->str);
    return NULL;
  }
  e->aux = (int)id;
  ierr(ic, e->sp, "'%s' is not a value", e->str);
  return NULL;
}

static const type *ix_builtin_value(infer_ctx *ic, node *e, builtin_id id) {
  e->aux = (int)id;
  if (id >= B_TID_X && id <= B_NCTAID_Z) return set_ty(e, &ty_i32, false);
  if (id == B_LANEID || id == B_WARPSIZE) return set_ty(e, &ty_i32, false);
  if (id >= B_MATH_PI && id <= B_MATH_TAU) return set_ty(e, &ty_f64, true);
  ierr(ic, e->sp, "'%s' is not a value", dotted_path(ic, e));
  return NULL;
}

static const type *ix_attr(infer_ctx *ic, node *e) {
  const char *p = dotted_path(ic, e);
  if (p) {
    builtin_id id = builtin_lookup(p);
    if (id == B_NONE) {
      ierr(ic, e->sp, "unknown name '%s'", p);
      return NULL;
    }
    return ix_builtin_value(ic, e, id);
  }
  const type *bt = ix_expr(ic, e->a);
  if (!bt) return NULL;
  /* z.real, z.imag: a complex's parts; on a real number, itself and 0 (as in Python) */
  if (type_is_numeric(bt) && (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0)) {
    const type *pt = bt->kind == TY_COMPLEX ? type_complex_part(bt) : bt;
    return set_ty(e, pt, e->a->weak);
  }
  if (bt->kind == TY_ARRAY) {
    if (strcmp(e->str, "shape") == 0) {
      const type *el[KC_MAX_DIMS] = {&ty_i64, &ty_i64, &ty_i64};
      return set_ty(e, type_tuple(ic->ar, el, bt->ndim), false);
    }
    if (strcmp(e->str, "size") == 0) return set_ty(e, &ty_i64, false);
    if (strcmp(e->str, "ndim") == 0) return set_ty(e, &ty_i64, false);
  }
  ierr(ic, e->sp, "%s has no attribute '%s'", tname(ic, bt), e->str);
  return NULL;
}

/* A literal integer argument (for cuda.grid(2), tuple indices, shapes). */
static bool const_int_of(infer_ctx *ic, node *e, int64_t *v) {
  node *f = fold(ic, e);
  if (!f || f->kind != N_INT) return false;
  *v = f->ival;
  return true;
}

/* ---- array slicing: views ---- */

/* A slice bound or step: an integer, or absent (None counts as absent). */
static bool ix_slice_part(infer_ctx *ic, node *p) {
  if (!p || p->kind == N_NONE) return true;
  const type *t = ix_expr(ic, p);
  if (t && t->kind != TY_INT && t->kind != TY_BOOL) {
    ierr(ic, p->sp, "slice indices must be integers, not %s", tname(ic, t));
    return false;
  }
  return t != NULL;
}

static bool ix_slice(infer_ctx *ic, node *s) {
  bool ok = ix_slice_part(ic, s->a);
  ok = ix_slice_part(ic, s->b) && ok;
  ok = ix_slice_part(ic, s->c) && ok;
  int64_t step;
  if (ok && s->c && s->c->kind != N_NONE && const_int_of(ic, s->c, &step) && step == 0) {
    ierr(ic, s->c->sp, "slice step cannot be zero");
    return false;
  }
  return ok;
}

static bool slice_has_step(const node *s) {
  return s->c && s->c->kind != N_NONE && !(s->c->kind == N_INT && s->c->ival == 1);
}

/* Slicing a parameter can write through the view: the parameter loses the read-only
 * (noalias, non-coherent cache) treatment. */
static void mark_sliced_param(infer_ctx *ic, node *e) {
  node *root = e;
  while (root->kind == N_INDEX) root = root->a;
  if (root->kind == N_NAME && root->sym && root->sym->kind == SYM_LOCAL && root->sym->is_param)
    mark_param_written(ic->cur, root->sym->param_index);
}

/* a[...] with a slice, or with fewer indices than dimensions (the rest are full
 * slices): a view with one dimension per slice. It stays C-contiguous (Numba's 'C'
 * layout, no strides carried) when the source is, no slice has a step, every slice
 * after the first is a full ':' and no integer index follows a slice: a[3:], a[:n],
 * a[i, :], a[i]. Otherwise (a[::2], a[:, j], a[:, 1:3]) it is strided. */
static const type *ix_view(infer_ctx *ic, node *e, const type *bt, node_list *idx) {
  int nd = 0;
  bool contiguous = !bt->strided, seen_slice = false;
  for (int k = 0; k < bt->ndim; k++) {
    node *it = k < idx->len ? idx->items[k] : NULL; /* NULL: a trailing full slice */
    if (it && it->kind != N_SLICE) {
      if (seen_slice) contiguous = false;
      continue;
    }
    nd++;
    if (it && slice_has_step(it)) contiguous = false;
    if (seen_slice && it && (it->a || it->b || it->c)) contiguous = false;
    seen_slice = true;
  }
  mark_sliced_param(ic, e);
  return set_ty(e, type_array_layout(ic->ar, bt->elem, nd, !contiguous), false);
}

static const type *ix_index(infer_ctx *ic, node *e) {
  const type *bt = ix_expr(ic, e->a);
  if (!bt) {
    if (e->b) ix_expr(ic, e->b);
    return NULL;
  }
  if (bt->kind == TY_TUPLE) {
    int64_t k;
    if (!const_int_of(ic, e->b, &k)) {
      ierr(ic, e->b->sp, "a tuple can only be indexed by a constant integer");
      return NULL;
    }
    if (k < 0) k += bt->nelems;
    if (k < 0 || k >= bt->nelems) {
      ierr(ic, e->b->sp, "tuple index out of range (the tuple has %d elements)", bt->nelems);
      return NULL;
    }
    e->b->ty = &ty_i64;
    e->aux = (int)k;
    return set_ty(e, bt->elems[k], false);
  }
  if (bt->kind != TY_ARRAY) {
    ierr(ic, e->sp, "%s cannot be indexed", tname(ic, bt));
    return NULL;
  }
  node_list single = {&e->b, 1, 1};
  node_list *idx = e->b->kind == N_TUPLE ? &e->b->list : &single;
  bool ok = true, sliced = false;
  for (int i = 0; i < idx->len; i++) {
    node *ix = idx->items[i];
    if (ix->kind == N_SLICE) {
      sliced = true;
      if (!ix_slice(ic, ix)) ok = false;
      continue;
    }
    const type *t = ix_expr(ic, ix);
    if (t && t->kind != TY_INT && t->kind != TY_BOOL) {
      ierr(ic, ix->sp, "an array index must be an integer, not %s", tname(ic, t));
      ok = false;
    }
  }
  if (e->b->kind == N_TUPLE) e->b->ty = NULL;
  if (idx->len > bt->ndim) {
    ierr(ic, e->b->sp, "wrong number of indices: %s has %d dimension%s, %d %s given",
         tname(ic, bt), bt->ndim, bt->ndim == 1 ? "" : "s", idx->len,
         idx->len == 1 ? "index" : "indices");
    return NULL;
  }
  if (!ok) return NULL;
  if (sliced || idx->len < bt->ndim) return ix_view(ic, e, bt, idx);
  return set_ty(e, bt->elem, false);
}

static void warn_widening(infer_ctx *ic, node *e) {
  if (!ic->report || !ic->all_f32 || e->sp.line == ic->last_warn_line) return;
  ic->last_warn_line = e->sp.line;
  iwarn(ic, e->sp, "float32 value widened to float64 here (an operand is float64); "
        "use float32(...) to stay in single precision");
}

/* A constant integer exponent from 0 to 8 (z ** 2): complex powers are products. */
static bool small_exponent(const node *b) {
  return b->kind == N_INT && !b->big && b->ival >= 0 && b->ival <= 8;
}

/* + - * / and ** by a small constant are defined on complex numbers; //, %, shifts and
 * bitwise operators are not (Python raises TypeError). */
static bool complex_op_ok(infer_ctx *ic, node *e, const type *a, const type *b) {
  switch (e->op) {
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: return true;
  case OP_POW:
    if (small_exponent(e->b)) return true;
    ierr(ic, e->sp, "complex ** takes a constant integer exponent from 0 to 8 here; "
         "write cmath.exp(b * cmath.log(a)) for a general power");
    return false;
  default:
    ierr(ic, e->sp, "operator %s is not defined for complex numbers (%s and %s)",
         op_symbol(e->op), tname(ic, a), tname(ic, b));
    return false;
  }
}

static const type *ix_binop(infer_ctx *ic, node *e) {
  const type *a = ix_expr(ic, e->a), *b = ix_expr(ic, e->b);
  if (!a || !b) return NULL;
  if (!type_is_numeric(a) || !type_is_numeric(b)) {
    ierr(ic, e->sp, "unsupported operand types for %s: %s and %s", op_symbol(e->op),
         tname(ic, a), tname(ic, b));
    return NULL;
  }
  bool weak;
  const type *t = promote(a, e->a->weak, e->a, b, e->b->weak, e->b, &weak);
  if (t->kind == TY_COMPLEX && !complex_op_ok(ic, e, a, b)) return NULL;
  switch (e->op) {
  case OP_DIV:
    if (t->kind != TY_FLOAT && t->kind != TY_COMPLEX) t = &ty_f64;
    break;
  case OP_LSHIFT: case OP_RSHIFT: case OP_BITAND: case OP_BITOR: case OP_BITXOR:
    if (t->kind == TY_FLOAT) {
      ierr(ic, e->sp, "operator %s needs integers, not %s and %s", op_symbol(e->op),
           tname(ic, a), tname(ic, b));
      return NULL;
    }
    if (t->kind == TY_BOOL && (e->op == OP_LSHIFT || e->op == OP_RSHIFT)) t = &ty_i64;
    break;
  case OP_MATMUL:
    ierr(ic, e->sp, "the @ operator is not supported in kernels");
    return NULL;
  default:
    if (t->kind == TY_BOOL) t = &ty_i64;
  }
  if (!weak && is_float64_widening(e->a->weak ? NULL : a, e->b->weak ? NULL : b, t))
    warn_widening(ic, e);
  return set_ty(e, t, weak);
}

static const type *ix_unary(infer_ctx *ic, node *e) {
  const type *t = ix_expr(ic, e->a);
  if (!t) return NULL;
  if (e->op == OP_NOT) {
    if (!type_is_scalar(t)) ierr(ic, e->sp, "'not' needs a number or bool, not %s", tname(ic, t));
    return set_ty(e, &ty_bool, false);
  }
  if (!type_is_numeric(t)) {
    ierr(ic, e->sp, "bad operand type for unary %s: %s", op_symbol(e->op), tname(ic, t));
    return NULL;
  }
  if (e->op == OP_INVERT && (t->kind == TY_FLOAT || t->kind == TY_COMPLEX)) {
    ierr(ic, e->sp, "bad operand type for unary ~: %s", tname(ic, t));
    return NULL;
  }
  if (t->kind == TY_BOOL && e->op != OP_INVERT) t = &ty_i64;
  return set_ty(e, t, e->a->weak);
}

static const type *ix_compare(infer_ctx *ic, node *e) {
  bool ok = true;
  for (int i = 0; i < e->list.len; i++) {
    const type *t = ix_expr(ic, e->list.items[i]);
    if (!t) ok = false;
    else if (!type_is_scalar(t)) {
      ierr(ic, e->list.items[i]->sp, "cannot compare %s", tname(ic, t));
      ok = false;
    }
  }
  if (!ok) return NULL;
  /* the type each pair is compared in, for code generation */
  const type **pair = arena_alloc(ic->ar, sizeof *pair * (size_t)e->list.len);
  for (int i = 0; i < e->list.len - 1; i++) {
    op_kind op = e->cmp_ops[i];
    if (op == OP_IN || op == OP_NOTIN || op == OP_IS || op == OP_ISNOT) {
      ierr(ic, e->sp, "'%s' is not supported in kernels", op_symbol(op));
      return NULL;
    }
    node *l = e->list.items[i], *r = e->list.items[i + 1];
    bool w;
    pair[i] = promote(l->ty, l->weak, l, r->ty, r->weak, r, &w);
    if (pair[i]->kind == TY_COMPLEX && op != OP_EQ && op != OP_NE) {
      ierr(ic, e->sp, "complex numbers are not ordered: '%s' is not defined for %s and %s "
           "(compare abs() or .real instead)", op_symbol(op), tname(ic, l->ty), tname(ic, r->ty));
      return NULL;
    }
  }
  e->aux_ptr = pair;
  return set_ty(e, &ty_bool, false);
}

static const type *ix_boolop(infer_ctx *ic, node *e) {
  const type *t = NULL;
  bool weak = true;
  for (int i = 0; i < e->list.len; i++) {
    node *x = e->list.items[i];
    const type *xt = ix_expr(ic, x);
    if (!xt) return NULL;
    if (!type_is_scalar(xt)) {
      ierr(ic, x->sp, "'%s' needs numbers or bools, not %s", op_symbol(e->op), tname(ic, xt));
      return NULL;
    }
    bool w;
    t = t ? promote(t, weak, NULL, xt, x->weak, x, &w) : xt;
    weak = t == xt && i == 0 ? x->weak : w;
  }
  return set_ty(e, t, weak);
}

static const type *ix_ifexp(infer_ctx *ic, node *e) {
  ix_condition(ic, e->a);
  const type *a = ix_expr(ic, e->b), *b = ix_expr(ic, e->c);
  if (!a || !b) return NULL;
  bool w;
  const type *t = unify(ic, a, e->b->weak, b, e->c->weak, &w);
  if (!t) {
    ierr(ic, e->sp, "both branches of a conditional expression must have compatible types "
         "(%s and %s)", tname(ic, a), tname(ic, b));
    return NULL;
  }
  return set_ty(e, t, w);
}

static const type *ix_tuple(infer_ctx *ic, node *e) {
  const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)(e->list.len + 1));
  bool ok = true;
  for (int i = 0; i < e->list.len; i++) {
    el[i] = ix_expr(ic, e->list.items[i]);
    if (!el[i]) ok = false;
    else if (el[i]->kind == TY_ARRAY || el[i]->kind == TY_TUPLE) {
      ierr(ic, e->list.items[i]->sp, "tuples may only hold numbers and bools, not %s",
           tname(ic, el[i]));
      ok = false;
    }
  }
  return ok ? set_ty(e, type_tuple(ic->ar, el, e->list.len), false) : NULL;
}

/* ---- calls -------------------------------------------------------------------------------- */

static fn_instance *instantiate(infer_ctx *ic, func_def *fn, const type **args, int n,
                                bitset omitted, span site);

static bool check_argc(infer_ctx *ic, node *e, const char *what, int lo, int hi) {
  int n = e->list.len;
  if (e->kwargs.len) {
    ierr(ic, e->kwargs.items[0]->sp, "%s takes no keyword arguments", what);
    return false;
  }
  if (n >= lo && n <= hi) return true;
  if (lo == hi) ierr(ic, e->sp, "%s takes %d argument%s, %d given", what, lo, lo == 1 ? "" : "s", n);
  else if (hi > 100) ierr(ic, e->sp, "%s takes at least %d arguments, %d given", what, lo, n);
  else ierr(ic, e->sp, "%s takes %d to %d arguments, %d given", what, lo, hi, n);
  return false;
}

/* Type every argument; false if any is unknown. */
static bool ix_args(infer_ctx *ic, node *e) {
  bool ok = true;
  for (int i = 0; i < e->list.len; i++)
    if (!ix_expr(ic, e->list.items[i])) ok = false;
  for (int i = 0; i < e->kwargs.len; i++) ix_expr(ic, ((node *)e->kwargs.items[i])->a);
  return ok;
}

static bool need_scalar_arg(infer_ctx *ic, node *arg, const char *fname) {
  if (arg->ty && type_is_scalar(arg->ty)) return true;
  if (arg->ty) ierr(ic, arg->sp, "%s needs a number, not %s", fname, tname(ic, arg->ty));
  return false;
}

/* A real number (not complex): what math.*, min, max, round and int() take. */
static bool need_real_arg(infer_ctx *ic, node *arg, const char *fname) {
  if (!need_scalar_arg(ic, arg, fname)) return false;
  if (arg->ty->kind != TY_COMPLEX) return true;
  ierr(ic, arg->sp, "%s needs a real number, not %s (take .real, .imag or abs() first%s)",
       fname, tname(ic, arg->ty), strncmp(fname, "math.", 5) == 0 ? ", or use cmath" : "");
  return false;
}

static const type *ix_grid(infer_ctx *ic, node *e, builtin_id id) {
  const char *fname = id == B_GRID ? "cuda.grid" : "cuda.gridsize";
  if (!check_argc(ic, e, fname, 1, 1)) return NULL;
  int64_t nd;
  if (!const_int_of(ic, e->list.items[0], &nd) || nd < 1 || nd > 3) {
    ierr(ic, e->list.items[0]->sp, "%s takes a constant 1, 2 or 3", fname);
    return NULL;
  }
  e->list.items[0]->ty = &ty_i64;
  if (nd == 1) return set_ty(e, &ty_i32, false);
  const type *el[3] = {&ty_i32, &ty_i32, &ty_i32};
  return set_ty(e, type_tuple(ic->ar, el, (int)nd), false);
}

static const type *ix_math(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  bool two = id >= B_MATH_POW && id <= B_MATH_ATAN2;
  if (!check_argc(ic, e, fname, two ? 2 : 1, two ? 2 : 1) || !ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!need_real_arg(ic, a, fname)) return NULL;
  const type *t = a->ty;
  bool weak = a->weak;
  if (two) {
    node *b = e->list.items[1];
    if (!need_real_arg(ic, b, fname)) return NULL;
    t = promote(a->ty, a->weak, a, b->ty, b->weak, b, &weak);
  }
  if (t->kind != TY_FLOAT) t = &ty_f64;
  if (id >= B_MATH_FLOOR && id <= B_MATH_TRUNC) return set_ty(e, &ty_i64, false);
  if (id >= B_MATH_ISNAN && id <= B_MATH_ISFINITE) return set_ty(e, &ty_bool, false);
  return set_ty(e, t, weak);
}

static const type *ix_minmax(infer_ctx *ic, node *e, const char *fname) {
  if (!check_argc(ic, e, fname, 2, 1000) || !ix_args(ic, e)) return NULL;
  const type *t = NULL;
  bool weak = false;
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (!need_real_arg(ic, a, fname)) return NULL;
    if (!t) { t = a->ty; weak = a->weak; continue; }
    bool w;
    t = promote(t, weak, NULL, a->ty, a->weak, a, &w);
    weak = w;
  }
  return set_ty(e, t, weak);
}

static const type *ix_cast(infer_ctx *ic, node *e, const type *to, const char *fname) {
  if (!check_argc(ic, e, fname, 1, 1) || !ix_args(ic, e)) return NULL;
  bool real = to->kind != TY_COMPLEX && to->kind != TY_BOOL;
  if (!(real ? need_real_arg : need_scalar_arg)(ic, e->list.items[0], fname)) return NULL;
  return set_ty(e, to, false);
}

/* cuda.shared.array(0, dtype) is dynamic shared memory, sized at launch. */
static bool is_dynamic_shape(infer_ctx *ic, node *s) {
  node *f = fold(ic, s);
  return f && f->kind == N_INT && f->ival == 0;
}

/* shape for cuda.shared.array / cuda.local.array: a constant int or tuple of them. */
static bool const_shape(infer_ctx *ic, node *s, int64_t *dims, int *ndim) {
  node *f = fold(ic, s);
  if (f && f->kind == N_INT) { dims[0] = f->ival; *ndim = 1; return dims[0] > 0; }
  if (!f || f->kind != N_TUPLE || f->list.len < 1 || f->list.len > 3) return false;
  for (int i = 0; i < f->list.len; i++) {
    node *d = f->list.items[i];
    if (d->kind != N_INT || d->ival <= 0) return false;
    dims[i] = d->ival;
  }
  *ndim = f->list.len;
  return true;
}

static node *call_arg(node *e, int pos, const char *kw) {
  if (pos < e->list.len) return e->list.items[pos];
  for (int i = 0; i < e->kwargs.len; i++) {
    node *k = e->kwargs.items[i];
    if (strcmp(k->str, kw) == 0) return k->a;
  }
  return NULL;
}

static const type *dtype_arg(infer_ctx *ic, node *d) {
  if (d->kind == N_STR) return type_from_name(d->str);
  const char *p = dotted_path(ic, d);
  if (!p && d->kind == N_ATTR && strcmp(d->str, "dtype") == 0) {
    /* an array's dtype: cuda.shared.array(n, a.dtype) */
    const type *bt = ix_expr(ic, d->a);
    return bt && bt->kind == TY_ARRAY ? bt->elem : NULL;
  }
  return p ? type_from_path(p) : NULL;
}

/* Bigger than any device's memory of the kind: refused here, where the shape is
 * written, so that a huge constant shape is not an overflowing size in code generation.
 * The device's own limit (48 KiB of static shared memory on most GPUs) is checked by
 * the runtime at launch, where the device is known. */
#define MAX_MEM_ARRAY_BYTES ((int64_t)1 << 31)

static bool mem_array_fits(infer_ctx *ic, node *shape, const type *el, const int64_t *dims,
                           int ndim, builtin_id id) {
  int64_t bytes = el->kind == TY_BOOL || el->bits < 8 ? 1 : el->bits / 8;
  for (int i = 0; i < ndim; i++) {
    if (dims[i] > MAX_MEM_ARRAY_BYTES / bytes) {   /* bytes * dims[i] > the cap */
      ierr(ic, shape->sp, "%s is too large: more than 2 GiB",
           id == B_SHARED_ARRAY ? "cuda.shared.array" : "cuda.local.array");
      return false;
    }
    bytes *= dims[i];
  }
  return true;
}

static const type *ix_mem_array(infer_ctx *ic, node *e, builtin_id id) {
  const char *fname = id == B_SHARED_ARRAY ? "cuda.shared.array" : "cuda.local.array";
  node *shape = call_arg(e, 0, "shape"), *dt = call_arg(e, 1, "dtype");
  if (!shape || !dt || e->list.len + e->kwargs.len != 2) {
    ierr(ic, e->sp, "%s takes a shape and a dtype", fname);
    return NULL;
  }
  int64_t *dims = arena_alloc(ic->ar, sizeof(int64_t) * 3);
  int ndim;
  if (id == B_SHARED_ARRAY && is_dynamic_shape(ic, shape)) {
    dims[0] = 0;   /* dynamic shared memory: sized at launch */
    ndim = 1;
  } else if (!const_shape(ic, shape, dims, &ndim)) {
    ierr(ic, shape->sp, "the shape of %s must be a positive constant integer or a tuple "
         "of 1 to 3 of them%s", fname, id == B_SHARED_ARRAY ? " (or 0: dynamic shared "
         "memory, sized at launch)" : "");
    return NULL;
  }
  const type *el = dtype_arg(ic, dt);
  if (!el) {
    ierr(ic, dt->sp, "unknown dtype for %s", fname);
    return NULL;
  }
  mem_array_fits(ic, shape, el, dims, ndim, id);   /* typed all the same: no cascade */
  e->aux_ptr = dims;
  return set_ty(e, type_array(ic->ar, el, ndim), false);
}

/* ---- CUDA intrinsics: block collectives, fences, atomics, warp, bit operations -- */

/* Kernels using these run their threads as fibers on the CPU (as barrier users do): the
 * runtime exchanges values between the threads of a block or warp there. */
static void needs_fibers(infer_ctx *ic) { ic->cur->uses_barrier = true; }

static bool need_int_arg(infer_ctx *ic, node *arg, const char *fname, const char *what) {
  if (arg->ty && (arg->ty->kind == TY_INT || arg->ty->kind == TY_BOOL)) return true;
  if (arg->ty) ierr(ic, arg->sp, "%s needs an integer %s, not %s", fname, what, tname(ic, arg->ty));
  return false;
}

/* A value that can travel through a shuffle or a match: an integer or a float. */
static bool need_warp_value(infer_ctx *ic, node *arg, const char *fname) {
  if (arg->ty && (arg->ty->kind == TY_INT || (arg->ty->kind == TY_FLOAT && arg->ty->bits >= 32)))
    return true;
  if (arg->ty) ierr(ic, arg->sp, "%s needs an integer, float32 or float64 value, not %s", fname,
                    tname(ic, arg->ty));
  return false;
}

static bool atomic_dtype_check(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  node *arr = e->list.items[0];
  const type *el = arr->ty->elem;
  if (arr->sym && arr->sym->is_shared && arr->sym->value &&
      arr->sym->value->aux == B_CONST_ARRAY_LIKE) {
    ierr(ic, arr->sp, "'%s' is a constant array and cannot be modified", arr->sym->name);
    return false;
  }
  bool wide_int = el->kind == TY_INT && (el->bits == 32 || el->bits == 64);
  switch (id) {
  case B_ATOMIC_INC: case B_ATOMIC_DEC:
    if (wide_int && !el->is_signed) return true;
    ierr(ic, arr->sp, "%s needs a uint32 or uint64 array (CUDA's atomicInc/atomicDec "
         "wrap unsigned values), not %s", fname, tname(ic, arr->ty));
    return false;
  case B_ATOMIC_AND: case B_ATOMIC_OR: case B_ATOMIC_XOR: case B_ATOMIC_CAS:
  case B_ATOMIC_COMPARE_AND_SWAP:
    if (wide_int) return true;
    ierr(ic, arr->sp, "%s needs an array of int32, uint32, int64 or uint64, not %s", fname,
         tname(ic, arr->ty));
    return false;
  default:
    if (wide_int || (el->kind == TY_FLOAT && el->bits >= 32)) return true;
    ierr(ic, arr->sp, "%s needs an array of int32, uint32, int64, uint64, float32 or "
         "float64, not %s", fname, tname(ic, arr->ty));
    return false;
  }
}

/* An instruction the GPU has from sm_<min> on: older targets get an error here, where
 * LLVM would stop the process when it cannot select the instruction. */
static bool need_arch(infer_ctx *ic, node *e, const char *fname, int min) {
  if (ic->opts->target != KCC_TARGET_NVPTX || ic->opts->arch >= min) return true;
  ierr(ic, e->sp, "%s needs sm_%d or later, not sm_%d", fname, min, ic->opts->arch);
  return false;
}

/* syncthreads_count/and/or(pred): a barrier that also reduces a predicate; int32. */
static const type *ix_block_collective(infer_ctx *ic, node *e, const char *fname) {
  if (!check_argc(ic, e, fname, 1, 1) || !ix_args(ic, e)) return NULL;
  if (!need_real_arg(ic, e->list.items[0], fname)) return NULL;
  ic->cur->uses_barrier = true;
  return set_ty(e, &ty_i32, false);
}

/* shfl_sync(mask, value, lane), shfl_up/down/xor_sync(mask, value, delta): the value's
 * type. */
static const type *ix_shuffle(infer_ctx *ic, node *e, const char *fname) {
  if (!check_argc(ic, e, fname, 3, 3) || !ix_args(ic, e)) return NULL;
  node *v = e->list.items[1];
  if (!need_int_arg(ic, e->list.items[0], fname, "mask") || !need_warp_value(ic, v, fname) ||
      !need_int_arg(ic, e->list.items[2], fname, "lane or offset") ||
      !need_arch(ic, e, fname, 30))
    return NULL;
  needs_fibers(ic);
  /* a bare literal is shuffled as the int64 or float64 it is */
  return set_ty(e, v->ty, false);
}

/* all_sync/any_sync/eq_sync(mask, pred) -> bool; ballot_sync(mask, pred) -> uint32;
 * match_any_sync(mask, value) -> uint32; match_all_sync -> (uint32, bool). */
static const type *ix_vote(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  if (!check_argc(ic, e, fname, 2, 2) || !ix_args(ic, e)) return NULL;
  node *v = e->list.items[1];
  if (!need_int_arg(ic, e->list.items[0], fname, "mask")) return NULL;
  bool match = id == B_MATCH_ANY_SYNC || id == B_MATCH_ALL_SYNC;
  if (match ? !need_warp_value(ic, v, fname) : !need_real_arg(ic, v, fname)) return NULL;
  if (!need_arch(ic, e, fname, match ? 70 : 30)) return NULL;
  needs_fibers(ic);
  if (id == B_MATCH_ALL_SYNC) {
    const type *el[2] = {&ty_u32, &ty_bool};
    return set_ty(e, type_tuple(ic->ar, el, 2), false);
  }
  return set_ty(e, id == B_BALLOT_SYNC || id == B_MATCH_ANY_SYNC ? &ty_u32 : &ty_bool, false);
}

/* popc, clz: the argument's integer type; brev: uint32 or uint64; ffs: uint32. */
static const type *ix_bit_op(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  if (!check_argc(ic, e, fname, 1, 1) || !ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!a->ty || a->ty->kind != TY_INT) {
    if (a->ty) ierr(ic, a->sp, "%s needs an integer, not %s", fname, tname(ic, a->ty));
    return NULL;
  }
  if (id == B_FFS) return set_ty(e, &ty_u32, false);
  if (id == B_BREV) return set_ty(e, a->ty->bits > 32 ? &ty_u64 : &ty_u32, false);
  return set_ty(e, a->ty, false);
}

/* fma(a, b, c): float32 when all are float32, else float64; selp(c, a, b): a and b
 * promoted. */
static const type *ix_fma_selp(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  if (!check_argc(ic, e, fname, 3, 3) || !ix_args(ic, e)) return NULL;
  for (int i = 0; i < 3; i++)
    if (!need_real_arg(ic, e->list.items[i], fname)) return NULL;
  node *a = e->list.items[id == B_FMA ? 0 : 1], *b = e->list.items[id == B_FMA ? 1 : 2];
  bool w;
  const type *t = promote(a->ty, a->weak, a, b->ty, b->weak, b, &w);
  if (id == B_SELP) return set_ty(e, t, w);
  node *c = e->list.items[2];
  t = promote(t, w, NULL, c->ty, c->weak, c, &w);
  return set_ty(e, t->kind == TY_FLOAT ? t : &ty_f64, false);
}

/* cbrt(x): float64 for float64 and for integers (converted), float32 for float32 and
 * float16 (which converts to float32 exactly), as Numba's float32 and float64
 * signatures resolve them. */
static const type *ix_cbrt(infer_ctx *ic, node *e, const char *fname) {
  if (!check_argc(ic, e, fname, 1, 1) || !ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (!need_real_arg(ic, a, fname)) return NULL;
  if (a->ty->kind != TY_FLOAT) return set_ty(e, &ty_f64, false);
  return set_ty(e, a->ty->bits == 64 ? &ty_f64 : &ty_f32, a->weak);
}

/* nanosleep(ns): ns an integer, taken as uint32 (Numba's signature); no value. PTX has
 * nanosleep from sm_70 on. */
static const type *ix_nanosleep(infer_ctx *ic, node *e, const char *fname) {
  if (!check_argc(ic, e, fname, 1, 1) || !ix_args(ic, e)) return NULL;
  if (!need_int_arg(ic, e->list.items[0], fname, "number of nanoseconds")) return NULL;
  if (!need_arch(ic, e, fname, 70)) return NULL;
  return set_ty(e, &ty_void, false);
}

/* The extents of a module constant tuple, nested 1 to 3 deep and rectangular. */
static bool const_tuple_shape(const node *v, int depth, int64_t *dims, int *ndim) {
  if (v->kind != N_TUPLE) {
    if (depth == 0) return false;
    if (*ndim == 0) *ndim = depth;
    return *ndim == depth;
  }
  if (depth >= 3 || v->list.len == 0) return false;
  if (dims[depth] == 0) dims[depth] = v->list.len;
  if (dims[depth] != v->list.len) return false;
  for (int i = 0; i < v->list.len; i++)
    if (!const_tuple_shape(v->list.items[i], depth + 1, dims, ndim)) return false;
  return true;
}

static bool const_has_complex(const node *v) {
  if (v->kind == N_COMPLEX) return true;
  if (v->kind != N_TUPLE) return false;
  for (int i = 0; i < v->list.len; i++)
    if (const_has_complex(v->list.items[i])) return true;
  return false;
}

/* The dtype of a constant array made from tuple v: float64 when any element is a
 * float, bool when all are bools, else int64 (uint64 when one does not fit int64). */
static const type *const_tuple_dtype(const node *v) {
  if (v->kind == N_FLOAT) return &ty_f64;
  if (v->kind == N_BOOL) return &ty_bool;
  if (v->kind == N_INT) return v->big ? &ty_u64 : &ty_i64;
  const type *t = NULL;
  for (int i = 0; i < v->list.len; i++) {
    const type *et = const_tuple_dtype(v->list.items[i]);
    if (!t || et == &ty_f64 || (t == &ty_bool && et != &ty_bool) || et == &ty_u64) t = et;
  }
  return t ? t : &ty_i64;
}

/* cuda.const.array_like(CONST) with CONST a module-level tuple (nested for 2-D and
 * 3-D); kcc also takes an optional dtype, since a tuple has none of its own. */
static const type *ix_const_array(infer_ctx *ic, node *e, const char *fname) {
  node *src = call_arg(e, 0, "ary"), *dt = call_arg(e, 1, "dtype");
  if (!src || e->list.len + e->kwargs.len > 2 || (e->list.len + e->kwargs.len == 2 && !dt)) {
    ierr(ic, e->sp, "%s takes a module constant tuple and, optionally, a dtype", fname);
    return NULL;
  }
  symbol *s = src->kind == N_NAME ? find_const(ic, src->str) : NULL;
  int64_t *dims = arena_alloc(ic->ar, sizeof(int64_t) * 3);
  dims[0] = dims[1] = dims[2] = 0;
  int ndim = 0;
  if (!s || !s->value || !const_tuple_shape(s->value, 0, dims, &ndim)) {
    ierr(ic, src->sp, "%s needs the name of a module constant holding a tuple of numbers "
         "(nested, with equal lengths, for 2 or 3 dimensions)", fname);
    return NULL;
  }
  if (const_has_complex(s->value)) {
    ierr(ic, src->sp, "%s of complex numbers is not supported yet", fname);
    return NULL;
  }
  src->sym = s;
  src->ty = s->ty;
  const type *el = dt ? dtype_arg(ic, dt) : const_tuple_dtype(s->value);
  if (!el) {
    ierr(ic, dt->sp, "unknown dtype for %s", fname);
    return NULL;
  }
  e->aux_ptr = dims;
  return set_ty(e, type_array(ic->ar, el, ndim), false);
}

static const type *ix_intrinsic(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  switch (id) {
  case B_CONST_ARRAY_LIKE: return ix_const_array(ic, e, fname);
  case B_SYNCTHREADS_COUNT: case B_SYNCTHREADS_AND: case B_SYNCTHREADS_OR:
    return ix_block_collective(ic, e, fname);
  case B_THREADFENCE: case B_THREADFENCE_BLOCK: case B_THREADFENCE_SYSTEM:
    if (!check_argc(ic, e, fname, 0, 0)) return NULL;
    return set_ty(e, &ty_void, false);
  case B_SYNCWARP:
    if (!check_argc(ic, e, fname, 0, 1) || !ix_args(ic, e)) return NULL;
    if (e->list.len == 1 && !need_int_arg(ic, e->list.items[0], fname, "mask")) return NULL;
    if (!need_arch(ic, e, fname, 30)) return NULL;
    needs_fibers(ic);
    return set_ty(e, &ty_void, false);
  case B_SHFL_SYNC: case B_SHFL_UP_SYNC: case B_SHFL_DOWN_SYNC: case B_SHFL_XOR_SYNC:
    return ix_shuffle(ic, e, fname);
  case B_ALL_SYNC: case B_ANY_SYNC: case B_EQ_SYNC: case B_BALLOT_SYNC:
  case B_MATCH_ANY_SYNC: case B_MATCH_ALL_SYNC:
    return ix_vote(ic, e, id, fname);
  case B_ACTIVEMASK: case B_LANEMASK_LT:
    if (!check_argc(ic, e, fname, 0, 0)) return NULL;
    if (id == B_ACTIVEMASK && !need_arch(ic, e, fname, 30)) return NULL;
    if (id == B_ACTIVEMASK) needs_fibers(ic);
    return set_ty(e, &ty_u32, false);
  case B_POPC: case B_BREV: case B_CLZ: case B_FFS: return ix_bit_op(ic, e, id, fname);
  case B_FMA: case B_SELP: return ix_fma_selp(ic, e, id, fname);
  case B_CBRT: return ix_cbrt(ic, e, fname);
  case B_NANOSLEEP: return ix_nanosleep(ic, e, fname);
  default:
    ierr(ic, e->sp, "'%s' cannot be called", fname);
    return NULL;
  }
}

/* The arguments after the index of an atomic: 1 (value), 2 for cas (old, new). */
static int atomic_values(builtin_id id) {
  return id == B_ATOMIC_CAS || id == B_ATOMIC_COMPARE_AND_SWAP ? 2 : 1;
}

static const type *ix_atomic(infer_ctx *ic, node *e, const char *fname) {
  builtin_id id = (builtin_id)e->aux;
  bool no_index = id == B_ATOMIC_COMPARE_AND_SWAP;   /* compare_and_swap(a, old, new) */
  int nargs = (no_index ? 1 : 2) + atomic_values(id);
  if (!check_argc(ic, e, fname, nargs, nargs) || !ix_args(ic, e)) return NULL;
  node *arr = e->list.items[0];
  if (arr->ty->kind != TY_ARRAY) {
    ierr(ic, arr->sp, "%s needs an array as its first argument", fname);
    return NULL;
  }
  if (no_index && arr->ty->ndim != 1) {
    ierr(ic, arr->sp, "%s needs a 1-D array (it works on element 0); use cuda.atomic.cas "
         "with an index for %s", fname, tname(ic, arr->ty));
    return NULL;
  }
  if (!no_index) {
    node *idx = e->list.items[1];
    int nidx = idx->kind == N_TUPLE ? idx->list.len : 1;
    if (nidx != arr->ty->ndim) {
      ierr(ic, idx->sp, "wrong number of indices: %s has %d dimensions, %d given",
           tname(ic, arr->ty), arr->ty->ndim, nidx);
      return NULL;
    }
  }
  if (!atomic_dtype_check(ic, e, id, fname)) return NULL;
  for (int i = nargs - atomic_values(id); i < nargs; i++)
    if (!need_real_arg(ic, e->list.items[i], fname)) return NULL;
  if (arr->sym && arr->sym->is_param) mark_param_written(ic->cur, arr->sym->param_index);
  return set_ty(e, arr->ty->elem, false);
}

/* ---- float16: cuda.fp16.* ---- */

/* Numba's cuda.fp16 functions take float16 values (a literal adopts float16) and give
 * float16, or bool for the comparisons heq ... hle. */
static const type *ix_fp16(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  int n = id == B_FP16_HFMA ? 3 : id >= B_FP16_HNEG ? 1 : 2;
  if (!check_argc(ic, e, fname, n, n) || !ix_args(ic, e)) return NULL;
  for (int i = 0; i < n; i++) {
    node *a = e->list.items[i];
    if (!need_real_arg(ic, a, fname)) return NULL;
    bool literal = a->weak && a->ty->kind != TY_BOOL;
    if (!literal && !type_equal(a->ty, &ty_f16)) {
      ierr(ic, a->sp, "%s needs float16 arguments, not %s (convert with float16(x))", fname,
           tname(ic, a->ty));
      return NULL;
    }
  }
  return set_ty(e, id >= B_FP16_HEQ && id <= B_FP16_HLE ? &ty_bool : &ty_f16, false);
}

/* ---- complex numbers: complex(), cmath, z.conjugate() ---- */

/* The complex type a real or complex value computes in: a float's width (float32 ->
 * complex64), complex128 for integers and bool. */
static const type *complex_for(const type *t) {
  if (t->kind == TY_COMPLEX) return t;
  return t->kind == TY_FLOAT ? type_complex_of(t) : &ty_c128;
}

/* complex(x), complex(x, y): complex64 when both parts are float32 (or literals), as
 * the rest of the language keeps float32 in float32; otherwise complex128. */
static const type *ix_complex(infer_ctx *ic, node *e) {
  if (!check_argc(ic, e, "complex", 1, 2) || !ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (e->list.len == 1) {
    if (!need_scalar_arg(ic, a, "complex")) return NULL;
    return set_ty(e, complex_for(a->ty), a->weak);
  }
  node *b = e->list.items[1];
  if (!need_real_arg(ic, a, "complex") || !need_real_arg(ic, b, "complex")) return NULL;
  bool weak;
  const type *t = promote(a->ty, a->weak, a, b->ty, b->weak, b, &weak);
  return set_ty(e, weak ? &ty_c128 : complex_for(t), weak);
}

static const type *ix_cmath(infer_ctx *ic, node *e, builtin_id id, const char *fname) {
  bool rect = id == B_CMATH_RECT;
  if (!check_argc(ic, e, fname, rect ? 2 : 1, rect ? 2 : 1) || !ix_args(ic, e)) return NULL;
  node *a = e->list.items[0];
  if (rect) {
    node *b = e->list.items[1];
    if (!need_real_arg(ic, a, fname) || !need_real_arg(ic, b, fname)) return NULL;
    bool weak;
    const type *t = promote(a->ty, a->weak, a, b->ty, b->weak, b, &weak);
    return set_ty(e, complex_for(t), weak);
  }
  if (!need_scalar_arg(ic, a, fname)) return NULL;
  const type *ct = complex_for(a->ty), *pt = type_complex_part(ct);
  if (id == B_CMATH_PHASE) return set_ty(e, pt, a->weak);
  if (id == B_CMATH_POLAR) {
    const type *el[2] = {pt, pt};
    return set_ty(e, type_tuple(ic->ar, el, 2), false);
  }
  return set_ty(e, ct, a->weak);
}

/* z.conjugate(): the only method of numbers (arrays have none). */
static const type *ix_method(infer_ctx *ic, node *e, const type *bt) {
  node *callee = e->a;
  if (type_is_numeric(bt) && strcmp(callee->str, "conjugate") == 0) {
    if (!check_argc(ic, e, "conjugate", 0, 0)) return NULL;
    e->aux = B_CONJUGATE;
    return set_ty(e, bt, callee->a->weak);
  }
  ierr(ic, callee->sp, "methods are not supported: %s has no method '%s'", tname(ic, bt),
       callee->str);
  return NULL;
}

/* ---- print ---- */
/* print's keyword arguments: sep= and end=, each at most once, each a string constant
 * (the format is built at compile time) or None (Python's default: " " and "\n"). */
static bool ix_print_kwargs(infer_ctx *ic, node *e) {
  bool ok = true;
  for (int i = 0; i < e->kwargs.len; i++) {
    node *kw = e->kwargs.items[i], *v = kw->a;
    if (strcmp(kw->str, "sep") != 0 && strcmp(kw->str, "end") != 0) {
      ierr(ic, kw->sp, "print() in a kernel takes only the keyword arguments sep= and "
           "end=, not '%s='", kw->str);
      ok = false;
      continue;
    }
    bool repeated = false;
    for (int j = 0; j < i; j++)
      repeated |= strcmp(((node *)e->kwargs.items[j])->str, kw->str) == 0;
    if (repeated) {
      ierr(ic, kw->sp, "print() got the keyword argument '%s=' twice", kw->str);
      ok = false;
    } else if (v->kind == N_STR || v->kind == N_NONE) {
      v->ty = &ty_string;
    } else {  /* not typed: a string expression would only draw a second error */
      ierr(ic, v->sp, "print()'s %s= must be a string constant such as %s=\"%s\" (the "
           "format is built when the kernel is compiled)", kw->str, kw->str,
           kw->str[0] == 's' ? ", " : "");
      ok = false;
    }
  }
  return ok;
}

/* print(a, b, ...) as Numba's CUDA print: numbers, bools and string constants, printed
 * with sep (a space) between and end (a newline) after; one printf per call. A string
 * argument is typed ty_string without going through ix_expr (strings are not values
 * elsewhere). */
static const type *ix_print(infer_ctx *ic, node *e) {
  bool ok = ix_print_kwargs(ic, e);
  for (int i = 0; i < e->list.len; i++) {
    node *a = e->list.items[i];
    if (a->kind == N_STR) {
      a->ty = &ty_string;
      continue;
    }
    const type *t = ix_expr(ic, a);
    if (!t) {
      ok = false;
    } else if (!type_is_scalar(t)) {
      ierr(ic, a->sp, "print() can only print numbers, bools and string constants, not %s",
           tname(ic, t));
      ok = false;
    } else if (t->kind == TY_COMPLEX) {
      ierr(ic, a->sp, "print() cannot print %s yet; print its .real and .imag", tname(ic, t));
      ok = false;
    }
  }
  return ok ? set_ty(e, &ty_void, false) : NULL;
}

/* _kc_row(a, i) / _kc_cell(a, i): the views the @guvectorize loop kernel (synth.c)
 * passes to the core function. */
static const type *ix_gu_view(infer_ctx *ic, node *e, builtin_id id) {
  if (!check_argc(ic, e, id == B_KC_ROW ? "_kc_row" : "_kc_cell", 2, 2) || !ix_args(ic, e))
    return NULL;
  const type *at = ((node *)e->list.items[0])->ty;
  bool ok = at->kind == TY_ARRAY && (id == B_KC_ROW ? at->ndim >= 2 : at->ndim == 1);
  if (!ok) {
    ierr(ic, e->sp, "internal compiler error: bad view of %s", tname(ic, at));
    return NULL;
  }
  return set_ty(e, type_array(ic->ar, at->elem, id == B_KC_ROW ? at->ndim - 1 : 1), false);
}

static const type *ix_builtin_call(infer_ctx *ic, node *e, builtin_id id, const char *path) {
  e->aux = (int)id;
  /* messages say cuda.atomic.add, as the user wrote it, not numba.cuda.atomic.add */
  const char *fname = strncmp(path, "numba.", 6) == 0 ? path + 6 : path;
  switch (id) {
  case B_GRID: case B_GRIDSIZE: return ix_grid(ic, e, id);
  case B_SYNCTHREADS:
    if (!check_argc(ic, e, "cuda.syncthreads", 0, 0)) return NULL;
    ic->cur->uses_barrier = true;
    return set_ty(e, &ty_void, false);
  case B_SHARED_ARRAY: case B_LOCAL_ARRAY: return ix_mem_array(ic, e, id);
  case B_ATOMIC_ADD: case B_ATOMIC_SUB: case B_ATOMIC_MAX: case B_ATOMIC_MIN:
  case B_ATOMIC_EXCH: case B_ATOMIC_AND: case B_ATOMIC_OR: case B_ATOMIC_XOR:
  case B_ATOMIC_INC: case B_ATOMIC_DEC: case B_ATOMIC_CAS: case B_ATOMIC_COMPARE_AND_SWAP:
  case B_ATOMIC_NANMAX: case B_ATOMIC_NANMIN:
    return ix_atomic(ic, e, fname);
  case B_RANGE:
    ierr(ic, e->sp, "range() can only be used in a for loop");
    return NULL;
  case B_LEN:
    if (!check_argc(ic, e, "len", 1, 1) || !ix_args(ic, e)) return NULL;
    if (e->list.items[0]->ty->kind != TY_ARRAY && e->list.items[0]->ty->kind != TY_TUPLE) {
      ierr(ic, e->list.items[0]->sp, "len() needs an array or tuple, not %s",
           tname(ic, e->list.items[0]->ty));
      return NULL;
    }
    return set_ty(e, &ty_i64, false);
  case B_ABS:
    if (!check_argc(ic, e, "abs", 1, 1) || !ix_args(ic, e)) return NULL;
    if (!need_scalar_arg(ic, e->list.items[0], "abs")) return NULL;
    if (e->list.items[0]->ty->kind == TY_COMPLEX) /* the modulus, a float */
      return set_ty(e, type_complex_part(e->list.items[0]->ty), e->list.items[0]->weak);
    return set_ty(e, e->list.items[0]->ty == &ty_bool ? &ty_i64 : e->list.items[0]->ty,
                  e->list.items[0]->weak);
  case B_MIN: return ix_minmax(ic, e, "min");
  case B_MAX: return ix_minmax(ic, e, "max");
  case B_ROUND:
    if (e->list.len == 2) {
      ierr(ic, e->sp, "round() with a number of digits is not supported in kernels");
      return NULL;
    }
    if (!check_argc(ic, e, "round", 1, 1) || !ix_args(ic, e)) return NULL;
    if (!need_real_arg(ic, e->list.items[0], "round")) return NULL;
    return set_ty(e, e->list.items[0]->ty->kind == TY_INT ? e->list.items[0]->ty : &ty_i64,
                  false);
  case B_INT: return ix_cast(ic, e, &ty_i64, "int");
  case B_FLOAT: return ix_cast(ic, e, &ty_f64, "float");
  case B_BOOL: return ix_cast(ic, e, &ty_bool, "bool");
  case B_PRINT: return ix_print(ic, e);
  case B_KC_ROW: case B_KC_CELL: return ix_gu_view(ic, e, id);
  case B_JIT: case B_KERNEL: case B_DEVICE: case B_VECTORIZE:
    ierr(ic, e->sp, "'%s' is a decorator and cannot be called inside a function", path);
    return NULL;
  case B_COMPLEX: return ix_complex(ic, e);
  case B_CMATH_EXP: case B_CMATH_LOG: case B_CMATH_SQRT: case B_CMATH_PHASE:
  case B_CMATH_POLAR: case B_CMATH_RECT:
    return ix_cmath(ic, e, id, fname);
  default: break;
  }
  if (id >= B_MATH_SQRT && id <= B_MATH_ISFINITE) return ix_math(ic, e, id, fname);
  if (id >= B_CONST_ARRAY_LIKE && id <= B_NANOSLEEP) return ix_intrinsic(ic, e, id, fname);
  if (id >= B_FP16_HADD && id <= B_FP16_HRINT) return ix_fp16(ic, e, id, fname);
  ierr(ic, e->sp, "'%s' cannot be called", path);
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
    ierr(ic, e->sp, "'%s' takes %d argument%s, %d given", fn->name, np, np == 1 ? "" : "s", n);
  else
    ierr(ic, e->sp, "'%s' takes %d to %d arguments, %d given", fn->name, lo, np, n);
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
      if (j < 0) ierr(ic, kw->sp, "'%s' has no parameter named '%s'", fn->name, kw->str);
      else ierr(ic, kw->sp, "'%s' got two values for parameter '%s'", fn->name, kw->str);
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
    ierr(ic, e->sp, "call of '%s' gives no value for parameter '%s'", fn->name,
         ((node *)fn->def->params.items[j])->str);
    ok = false;
  }
  e->params = (node_list){bound, np, np};
  return ok;
}

static const type *ix_func_call(infer_ctx *ic, node *e, func_def *fn) {
  if (fn->kind == FN_KERNEL) {
    ierr(ic, e->sp, "kernel '%s' cannot be called from device code; only device "
         "functions (@cuda.jit(device=True)) can be called", fn->name);
    ix_args(ic, e);
    return NULL;
  }
  bitset omitted = {0};
  bool bound = bind_args(ic, e, fn, &omitted);
  bool typed = ix_args(ic, e);
  for (int i = 0; i < e->kwargs.len; i++)
    typed = typed && ((node *)e->kwargs.items[i])->a->ty;
  if (!bound || !typed) return NULL;
  int n = e->params.len;
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    node *a = e->params.items[i];
    if (bitset_has(omitted, i) && !ix_expr(ic, a)) return NULL;
    args[i] = a->ty;
  }
  fn_instance *inst = instantiate(ic, fn, args, n, omitted, e->sp);
  if (!inst) return NULL;
  e->aux_ptr = inst;
  /* an array the callee writes is written by the caller too: a parameter passed
     on must not be compiled as read-only (noalias, ld.global.nc) */
  for (int i = 0; i < n; i++) {
    node *a = e->params.items[i];
    if (param_written(inst, i) && a->kind == N_NAME && a->sym &&
        a->sym->kind == SYM_LOCAL && a->sym->is_param)
      mark_param_written(ic->cur, a->sym->param_index);
  }
  if (inst->uses_barrier) ic->cur->uses_barrier = true;
  return set_ty(e, inst->ret, false);
}

static const type *ix_call(infer_ctx *ic, node *e) {
  node *callee = e->a;
  if (callee->kind == N_NAME) {
    func_def *fn = find_func(ic, callee->str);
    if (fn && !find_local(ic->cur, callee->str)) return ix_func_call(ic, e, fn);
  }
  const char *p = dotted_path(ic, callee);
  if (!p) {
    if (callee->kind == N_NAME && !find_local(ic->cur, callee->str) &&
        !find_const(ic, callee->str)) {
      ierr(ic, callee->sp, "undefined function '%s'", callee->str);
    } else if (callee->kind == N_ATTR) {
      const type *bt = ix_expr(ic, callee->a);
      if (bt) return ix_method(ic, e, bt);
    } else {
      ierr(ic, callee->sp, "this value cannot be called");
    }
    ix_args(ic, e);
    return NULL;
  }
  const type *cast = type_from_path(p);
  if (cast) {
    e->aux = B_TYPE;
    return ix_cast(ic, e, cast, p);
  }
  builtin_id id = builtin_lookup(p);
  if (id == B_NONE) {
    if (callee->kind == N_NAME) ierr(ic, callee->sp, "undefined function '%s'", callee->str);
    else ierr(ic, callee->sp, "unknown function '%s'", p);
    ix_args(ic, e);
    return NULL;
  }
  return ix_builtin_call(ic, e, id, p);
}

static const type *ix_expr(infer_ctx *ic, node *e) {
  e->weak = false;
  switch (e->kind) {
  case N_INT: return set_ty(e, e->big ? &ty_u64 : &ty_i64, true);
  case N_FLOAT: return set_ty(e, &ty_f64, true);
  case N_BOOL: return set_ty(e, &ty_bool, false);
  case N_STR:
    ierr(ic, e->sp, "strings are only allowed as docstrings here");
    return NULL;
  case N_NONE:
    ierr(ic, e->sp, "None is only allowed in 'return None'");
    return NULL;
  case N_IMAG: return set_ty(e, &ty_c128, true);
  case N_COMPLEX: return set_ty(e, &ty_c128, true);   /* a folded default */
  case N_NAME: return ix_name(ic, e);
  case N_ATTR: return ix_attr(ic, e);
  case N_CALL: return ix_call(ic, e);
  case N_INDEX: return ix_index(ic, e);
  case N_BINOP: return ix_binop(ic, e);
  case N_UNARY: return ix_unary(ic, e);
  case N_COMPARE: return ix_compare(ic, e);
  case N_BOOLOP: return ix_boolop(ic, e);
  case N_IFEXP: return ix_ifexp(ic, e);
  case N_TUPLE: return ix_tuple(ic, e);
  case N_LIST:
    ierr(ic, e->sp, "lists are not supported in kernels; use a tuple or an array");
    return NULL;
  case N_SLICE:
    ierr(ic, e->sp, "slices are only allowed inside an index");
    return NULL;
  default:
    ierr(ic, e->sp, "unexpected %s in an expression", node_kind_name(e->kind));
    return NULL;
  }
}

/* ---- statements ---------------------------------------------------------------------------- */

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value);

static void ix_store_element(infer_ctx *ic, node *t, const type *vt) {
  const type *et = ix_index(ic, t);
  node *base = t->a;
  if (base->ty && base->ty->kind == TY_TUPLE) {
    ierr(ic, t->sp, "tuples are immutable: an element cannot be assigned");
    return;
  }
  if (base->sym && base->sym->kind == SYM_LOCAL && base->sym->is_param)
    mark_param_written(ic->cur, base->sym->param_index);
  if (base->sym && base->sym->kind == SYM_CONST)
    ierr(ic, t->sp, "module constant '%s' cannot be modified", base->sym->name);
  if (base->sym && base->sym->is_shared && base->sym->value &&
      base->sym->value->aux == B_CONST_ARRAY_LIKE)
    ierr(ic, t->sp, "'%s' is a constant array and cannot be modified", base->sym->name);
  if (et && et->kind == TY_ARRAY) {
    ierr(ic, t->sp, "assignment to a slice is not supported: this index gives a %s view of "
         "%s; index every dimension to store an element", tname(ic, et), tname(ic, base->ty));
    return;
  }
  if (et && vt && !type_is_scalar(vt))
    ierr(ic, t->sp, "cannot store %s into an element of %s", tname(ic, vt),
         tname(ic, base->ty));
}

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value) {
  switch (t->kind) {
  case N_NAME: {
    symbol *s = find_local(ic->cur, t->str);
    t->sym = s;
    if (value && value->kind == N_CALL && (value->aux == B_SHARED_ARRAY ||
                                           value->aux == B_LOCAL_ARRAY ||
                                           value->aux == B_CONST_ARRAY_LIKE)) {
      if (s->ty && !s->is_shared && ic->report)
        ierr(ic, t->sp, "'%s' is bound to a %s array and also to other values", s->name,
             value->aux == B_SHARED_ARRAY ? "shared" : value->aux == B_LOCAL_ARRAY
             ? "local" : "constant");
      s->is_shared = true;
      s->value = value;
    } else if (s->is_shared && vt) {
      ierr(ic, t->sp, "'%s' is bound to a shared or local array and cannot be reassigned",
           s->name);
      return;
    }
    if (s->is_param && vt && vt->kind == TY_ARRAY && !type_equal(vt, s->ty)) {
      ierr(ic, t->sp, "cannot rebind array parameter '%s' to %s", s->name, tname(ic, vt));
      return;
    }
    assign_local(ic, s, vt, weak, t->sp);
    t->ty = s->ty;
    return;
  }
  case N_TUPLE: {
    if (!vt) {
      for (int i = 0; i < t->list.len; i++) ix_store_target(ic, t->list.items[i], NULL, false, NULL);
      return;
    }
    if (vt->kind != TY_TUPLE) {
      ierr(ic, t->sp, "cannot unpack %s into %d names", tname(ic, vt), t->list.len);
      return;
    }
    if (vt->nelems != t->list.len) {
      ierr(ic, t->sp, "cannot unpack a tuple of %d values into %d names", vt->nelems,
           t->list.len);
      return;
    }
    for (int i = 0; i < t->list.len; i++)
      ix_store_target(ic, t->list.items[i], vt->elems[i], false, NULL);
    return;
  }
  case N_INDEX: ix_store_element(ic, t, vt); return;
  case N_ATTR:
    ierr(ic, t->sp, "cannot assign to an attribute");
    return;
  default:
    ierr(ic, t->sp, "cannot assign to this expression");
  }
}

static void ix_assign(infer_ctx *ic, node *s) {
  const type *vt = ix_expr(ic, s->a);
  if (vt && vt->kind == TY_VOID) {
    ierr(ic, s->a->sp, "this call returns no value");
    vt = NULL;
  }
  for (int i = 0; i < s->list.len; i++)
    ix_store_target(ic, s->list.items[i], vt, s->a->weak, s->a);
}

/* x op= v: typed as x = x op v, the element type kept for array stores. */
static void ix_augassign(infer_ctx *ic, node *s) {
  node *t = s->a;
  if (t->kind != N_NAME && t->kind != N_INDEX) {
    ierr(ic, t->sp, "cannot use augmented assignment on this expression");
    return;
  }
  node tmp = {0};
  tmp.kind = N_BINOP;
  tmp.sp = s->sp;
  tmp.op = s->op;
  tmp.a = t;
  tmp.b = s->b;
  const type *rt = ix_binop(ic, &tmp);
  s->ty = rt;
  if (t->kind == N_NAME) {
    if (t->sym && t->sym->is_shared) {
      ierr(ic, t->sp, "'%s' is bound to a shared or local array and cannot be reassigned",
           t->str);
      return;
    }
    ix_store_target(ic, t, rt, tmp.weak, NULL);
  } else {
    ix_store_element(ic, t, rt);
  }
}

static const type *annotation_type(infer_ctx *ic, node *ann);

static void ix_annassign(infer_ctx *ic, node *s) {
  const type *t = annotation_type(ic, s->b);
  if (s->a->kind != N_NAME) {
    ierr(ic, s->a->sp, "only a name can be annotated");
    return;
  }
  if (t) ix_store_target(ic, s->a, t, false, NULL);
  if (s->c) {
    const type *vt = ix_expr(ic, s->c);
    if (vt && t && !type_is_scalar(vt) && !type_equal(vt, t))
      ierr(ic, s->c->sp, "cannot assign %s to '%s' declared %s", tname(ic, vt), s->a->str,
           tname(ic, t));
  }
}

static void ix_for(infer_ctx *ic, node *s) {
  node *it = s->b;
  const char *p = it->kind == N_CALL ? dotted_path(ic, it->a) : NULL;
  if (!p || builtin_lookup(p) != B_RANGE) {
    ierr(ic, it->sp, "for loops can only iterate over range(...)");
    ix_block(ic, &s->body);
    ix_block(ic, &s->orelse);
    return;
  }
  it->aux = B_RANGE;
  const type *t = NULL;
  bool weak = true;
  if (check_argc(ic, it, "range", 1, 3) && ix_args(ic, it)) {
    for (int i = 0; i < it->list.len; i++) {
      node *a = it->list.items[i];
      if (a->ty->kind != TY_INT && a->ty->kind != TY_BOOL) {
        ierr(ic, a->sp, "range() needs integers, not %s", tname(ic, a->ty));
        t = NULL;
        break;
      }
      bool w;
      t = t ? promote(t, weak, NULL, a->ty, a->weak, a, &w) : a->ty;
      weak = i == 0 ? a->weak : w;
    }
  }
  if (t && t->kind == TY_BOOL) t = &ty_i64;
  it->ty = t;
  if (s->a->kind != N_NAME) {
    ierr(ic, s->a->sp, "the target of a for loop over range() must be a single name");
  } else {
    ix_store_target(ic, s->a, t, false, NULL);
  }
  ic->loop_depth++;
  ix_block(ic, &s->body);
  ic->loop_depth--;
  ix_block(ic, &s->orelse);
}

static void ix_return(infer_ctx *ic, node *s) {
  fn_instance *f = ic->cur;
  node *v = s->a;
  if (v && v->kind == N_NONE) v = NULL;
  if (f->is_kernel) {
    if (v) ierr(ic, v->sp, "a kernel cannot return a value; write results into an array");
    return;
  }
  const type *t = v ? ix_expr(ic, v) : &ty_void;
  if (!t) return;
  if (t->kind == TY_ARRAY) {
    ierr(ic, v->sp, "a device function cannot return an array");
    return;
  }
  if (!f->ret) {
    f->ret = t;
    ic->changed = true;
    return;
  }
  if ((f->ret->kind == TY_VOID) != (t->kind == TY_VOID)) {
    ierr(ic, s->sp, "this function returns a value on some paths and nothing on others");
    return;
  }
  bool w;
  const type *u = unify(ic, f->ret, false, t, false, &w);
  if (!u) {
    ierr(ic, s->sp, "this function returns %s here and %s elsewhere", tname(ic, t),
         tname(ic, f->ret));
    return;
  }
  if (!type_equal(u, f->ret)) { f->ret = u; ic->changed = true; }
}

static void ix_stmt(infer_ctx *ic, node *s) {
  switch (s->kind) {
  case N_EXPR_STMT:
    if (s->a->kind != N_STR) ix_expr(ic, s->a); /* a string alone is a docstring */
    return;
  case N_ASSIGN: ix_assign(ic, s); return;
  case N_AUGASSIGN: ix_augassign(ic, s); return;
  case N_ANNASSIGN: ix_annassign(ic, s); return;
  case N_IF:
    ix_condition(ic, s->a);
    ix_block(ic, &s->body);
    ix_block(ic, &s->orelse);
    return;
  case N_WHILE:
    ix_condition(ic, s->a);
    ic->loop_depth++;
    ix_block(ic, &s->body);
    ic->loop_depth--;
    ix_block(ic, &s->orelse);
    return;
  case N_FOR: ix_for(ic, s); return;
  case N_BREAK: case N_CONTINUE:
    if (ic->loop_depth == 0)
      ierr(ic, s->sp, "'%s' outside a loop", s->kind == N_BREAK ? "break" : "continue");
    return;
  case N_RETURN: ix_return(ic, s); return;
  case N_PASS: return;
  case N_FUNCDEF:
    ierr(ic, s->sp, "nested functions are not supported; define '%s' at module level", s->str);
    return;
  case N_IMPORT: case N_IMPORTFROM:
    ierr(ic, s->sp, "imports are only allowed at module level");
    return;
  default:
    ierr(ic, s->sp, "unexpected %s statement", node_kind_name(s->kind));
  }
}

static void ix_block(infer_ctx *ic, node_list *body) {
  for (int i = 0; i < body->len; i++) ix_stmt(ic, body->items[i]);
}

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
  if (n->kind != N_INT && n->kind != N_FLOAT) c->aux = 0;
  return c;
}

static const char *mangle(infer_ctx *ic, const char *name, const type **types, int n) {
  char *s = arena_printf(ic->ar, "%s_", name);
  for (int i = 0; i < n; i++) {
    const type *t = types[i];
    const char *el = type_name(ic->ar, t->kind == TY_ARRAY ? t->elem : t);
    s = t->kind == TY_ARRAY ? arena_printf(ic->ar, "%s_%s_%dd%s", s, el, t->ndim,
                                           t->strided ? "A" : "")
                            : arena_printf(ic->ar, "%s_%s", s, el);
  }
  for (char *p = s; *p; p++)
    if (*p == ' ' || *p == '(' || *p == ')' || *p == ',') *p = '_';
  return s;
}

static void run_passes(infer_ctx *ic, fn_instance *f, bool report) {
  fn_instance *saved = ic->cur;
  bool saved_report = ic->report, saved_changed = ic->changed;
  int saved_depth = ic->loop_depth;
  ic->cur = f;
  ic->loop_depth = 0;
  ic->report = false;
  for (int pass = 0; pass < MAX_FIXPOINT_PASSES; pass++) {
    ic->changed = false;
    ix_block(ic, &f->def->body);
    if (!ic->changed) break;
  }
  if (report) {
    ic->report = true;
    ix_block(ic, &f->def->body);
    for (int i = 0; i < f->locals.len; i++) {
      symbol *s = f->locals.items[i];
      if (!s->ty && !s->is_param)
        ierr(ic, s->where, "cannot infer a type for '%s'", s->name);
    }
  }
  if (!f->ret) f->ret = &ty_void;
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

static fn_instance *new_instance(infer_ctx *ic, func_def *fn, const type **args, int n,
                                 bool kernel) {
  fn_instance *f = arena_alloc(ic->ar, sizeof *f);
  f->fn = fn;
  f->def = clone(ic->ar, fn->def);
  f->nparams = n;
  f->param_types = args;
  f->is_kernel = kernel;
  f->written_params = bitset_new(ic->ar, n);
  f->params = arena_alloc(ic->ar, sizeof(symbol *) * (size_t)(n + 1));
  for (int i = 0; i < n; i++) {
    node *p = f->def->params.items[i];
    symbol *s = new_local(ic, f, p->str, p->sp);
    s->ty = args[i];
    s->is_param = true;
    s->param_index = i;
    f->params[i] = s;
  }
  collect_locals(ic, f, &f->def->body);
  f->symbol_name = kernel ? fn->name : mangle(ic, fn->name, args, n);
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

static bool types_equal(const type **a, const type **b, int n) {
  for (int i = 0; i < n; i++)
    if (!type_equal(a[i], b[i])) return false;
  return true;
}

static fn_instance *instantiate(infer_ctx *ic, func_def *fn, const type **args, int n,
                                bitset omitted, span site) {
  fn_instance *f = NULL;
  for (int i = 0; i < fn->instances.len && !f; i++) {
    fn_instance *g = fn->instances.items[i];
    if (g->nparams == n && types_equal(g->param_types, args, n) &&
        g->in_fast_kernel == ic->fast_kernel && bitset_equal(g->omitted, omitted))
      f = g;
  }
  if (f && f->in_progress) {
    ierr(ic, site, "recursive call to '%s': recursion is not supported in kernels", fn->name);
    return NULL;
  }
  if (!f) {
    f = new_instance(ic, fn, args, n, false);
    mark_omitted(ic, f, omitted);
    f->in_fast_kernel = ic->fast_kernel;
    f->fastmath = fn->fastmath || ic->fast_kernel;
    if (ic->fast_kernel) f->symbol_name = arena_printf(ic->ar, "%s_fastmath", f->symbol_name);
    f->in_progress = true;
    run_passes(ic, f, false);
    f->in_progress = false;
  }
  if (ic->report && !f->done) {
    f->done = true;
    f->in_progress = true;
    run_passes(ic, f, true);
    f->in_progress = false;
    vec_push(ic->ar, &ic->prog->instances, f);
  }
  return f;
}

/* ---- module level: imports, constants, functions --------------------------------------- */

static bool module_importable(const char *m) {
  for (size_t i = 0; i < sizeof importable / sizeof importable[0]; i++)
    if (strcmp(importable[i], m) == 0) return true;
  return false;
}

static void bind_alias(infer_ctx *ic, const char *name, const char *path) {
  alias *al = arena_alloc(ic->ar, sizeof *al);
  al->name = name;
  al->path = path;
  vec_push(ic->ar, &ic->aliases, al);
}

static void import_module(infer_ctx *ic, node *s) {
  for (int i = 0; i < s->list.len; i++) {
    node *al = s->list.items[i];
    if (synth_lib_source(al->str)) {
      ierr(ic, al->sp, "import the functions of '%s' by name: from %s import "
           "xoroshiro128p_uniform_float32, ...", al->str, al->str);
      continue;
    }
    if (!module_importable(al->str)) {
      ierr(ic, al->sp, "cannot import module '%s' in a kernel file (available: math, cmath, "
           "numba, numba.cuda, numba.types, numpy)", al->str);
      continue;
    }
    if (al->str2) {
      bind_alias(ic, al->str2, al->str);
    } else {
      const char *dot = strchr(al->str, '.');
      const char *root = dot ? arena_strndup(ic->ar, al->str, (size_t)(dot - al->str)) : al->str;
      bind_alias(ic, root, root);
    }
  }
}

/* ---- library modules written in the kernel language ---- */
static void module_level(infer_ctx *ic, node *module);

/* Define a library module's functions and constants (once per compilation). Its names
 * join the file's: the library prefixes its private ones with _ and its own name. */
static bool load_lib_module(infer_ctx *ic, const char *mod, span where) {
  for (int i = 0; i < ic->libs.len; i++)
    if (strcmp(ic->libs.items[i], mod) == 0) return true;
  vec_push(ic->ar, &ic->libs, (void *)mod);
  node *tree = synth_lib_module_tree(ic->ar, ic->d, mod, where);
  if (!tree) {
    ierr(ic, where, "internal compiler error: library module '%s' does not parse", mod);
    return false;
  }
  module_level(ic, tree);
  return true;
}

/* from numba.cuda.random import xoroshiro128p_uniform_float32 [as name] */
static void import_from_lib(infer_ctx *ic, node *s) {
  if (!load_lib_module(ic, s->str, s->sp)) return;
  for (int i = 0; i < s->list.len; i++) {
    node *al = s->list.items[i];
    func_def *fn = find_func(ic, al->str);
    if (!fn && strstr(al->str, "xoroshiro128p_states")) {
      ierr(ic, al->sp, "'%s' runs on the host: from C, make the states with "
           "kc_random_states(ctx, n, seed, &states)", al->str);
      continue;
    }
    if (!fn || fn->kind != FN_DEVICE || al->str[0] == '_') {
      ierr(ic, al->sp, "cannot import name '%s' from '%s'", al->str, s->str);
      continue;
    }
    if (!al->str2 || strcmp(al->str2, al->str) == 0) continue;
    if (find_func(ic, al->str2)) {
      ierr(ic, al->sp, "function '%s' is defined twice", al->str2);
      continue;
    }
    func_def *copy = arena_alloc(ic->ar, sizeof *copy);
    *copy = *fn;
    copy->name = al->str2;
    memset(&copy->instances, 0, sizeof copy->instances);
    vec_push(ic->ar, &ic->prog->funcs, copy);
  }
}

static void import_from(infer_ctx *ic, node *s) {
  if (synth_lib_source(s->str)) {
    import_from_lib(ic, s);
    return;
  }
  if (!module_importable(s->str)) {
    ierr(ic, s->sp, "cannot import from module '%s' in a kernel file (available: math, "
         "cmath, numba, numba.cuda, numba.types, numpy)", s->str);
    return;
  }
  for (int i = 0; i < s->list.len; i++) {
    node *al = s->list.items[i];
    const char *path = arena_printf(ic->ar, "%s.%s", s->str, al->str);
    if (strcmp(s->str, "numba") == 0 && strcmp(al->str, "void") == 0) continue;
    if (strcmp(s->str, "numba") == 0 && (strcmp(al->str, "jit") == 0 ||
                                         strcmp(al->str, "njit") == 0))
      path = "numba.cuda.jit";
    if (!path_is_known(path)) {
      ierr(ic, al->sp, "cannot import name '%s' from '%s'", al->str, s->str);
      continue;
    }
    bind_alias(ic, al->str2 ? al->str2 : al->str, path);
  }
}

static void module_constant(infer_ctx *ic, node *s) {
  if (s->list.len != 1 || ((node *)s->list.items[0])->kind != N_NAME) {
    ierr(ic, s->sp, "module-level assignments must bind one name to a constant");
    return;
  }
  node *target = s->list.items[0];
  int errors_before = ic->d->nerrors;
  node *v = fold(ic, s->a);
  if (!v) {
    if (ic->d->nerrors == errors_before)   /* folding said nothing more precise */
      ierr(ic, s->a->sp, "module-level '%s' must be a constant expression (numbers, "
           "other constants and arithmetic)", target->str);
    return;
  }
  symbol *sym = find_const(ic, target->str);
  if (!sym) {
    sym = arena_alloc(ic->ar, sizeof *sym);
    sym->kind = SYM_CONST;
    sym->name = target->str;
    vec_push(ic->ar, &ic->consts, sym);
  }
  sym->where = target->sp;
  sym->value = v;
  sym->ty = const_type(ic, v);
}

/* An annotation or signature type written as an expression: float32, float32[:],
 * numba.float32[:, ::1]. */
static const type *annotation_type(infer_ctx *ic, node *ann) {
  if (ann->kind == N_STR) {
    char err[160];
    size_t pos = 0;
    sig_type st;
    if (sig_parse_type(ann->str, &pos, &st, err, sizeof err) != 0 || ann->str[pos]) {
      ierr(ic, ann->sp, "bad type annotation '%s'", ann->str);
      return NULL;
    }
    const type *el = type_from_dtype(st.dtype);
    return st.ndim ? type_array(ic->ar, el, st.ndim) : el;
  }
  node *base = ann->kind == N_INDEX ? ann->a : ann;
  const char *p = dotted_path(ic, base);
  const type *el = p ? type_from_path(p) : NULL;
  if (!el) {
    ierr(ic, ann->sp, "unknown type in annotation");
    return NULL;
  }
  if (ann->kind != N_INDEX) return el;
  node_list single = {&ann->b, 1, 1};
  node_list *dims = ann->b->kind == N_TUPLE ? &ann->b->list : &single;
  for (int i = 0; i < dims->len; i++) {
    node *d = dims->items[i];
    if (d->kind != N_SLICE || d->a || d->b) {
      ierr(ic, d->sp, "array annotations take ':' per dimension (e.g. float32[:, :])");
      return NULL;
    }
  }
  if (dims->len > KC_MAX_DIMS) {
    ierr(ic, ann->sp, "arrays have at most %d dimensions", KC_MAX_DIMS);
    return NULL;
  }
  return type_array(ic->ar, el, dims->len);
}

static ptr_vec *sig_to_types(infer_ctx *ic, const sig_parsed *sp) {
  ptr_vec *v = arena_alloc(ic->ar, sizeof *v);
  for (int i = 0; i < sp->nparams; i++) {
    const type *el = type_from_dtype(sp->params[i].dtype);
    vec_push(ic->ar, v, (void *)(sp->params[i].ndim ? type_array(ic->ar, el, sp->params[i].ndim) : el));
  }
  return v;
}

static bool parse_sig_string(infer_ctx *ic, node *str, sig_parsed *out) {
  char err[200];
  if (sig_parse(str->str, out, err, sizeof err) != 0) {
    ierr(ic, str->sp, "bad signature \"%s\": %s", str->str, err);
    return false;
  }
  return true;
}

static void add_kernel_sig(infer_ctx *ic, func_def *fn, node *str) {
  sig_parsed sp;
  if (!parse_sig_string(ic, str, &sp)) return;
  if (sp.has_ret && !sp.ret.is_void) {
    ierr(ic, str->sp, "a kernel signature must return void");
    return;
  }
  if (sp.nparams != fn->def->params.len) {
    ierr(ic, str->sp, "the signature has %d parameter%s but '%s' takes %d", sp.nparams,
         sp.nparams == 1 ? "" : "s", fn->name, fn->def->params.len);
    return;
  }
  vec_push(ic->ar, &fn->sigs, sig_to_types(ic, &sp));
}

static void add_vectorize_sig(infer_ctx *ic, func_def *fn, node *str) {
  sig_parsed sp;
  if (!parse_sig_string(ic, str, &sp)) return;
  bool scalar = sp.has_ret && !sp.ret.is_void && sp.ret.ndim == 0;
  for (int i = 0; i < sp.nparams; i++) scalar &= sp.params[i].ndim == 0;
  if (!scalar) {
    ierr(ic, str->sp, "a vectorize signature is of scalars with a result: "
         "'float32(float32, float32)'");
    return;
  }
  if (sp.nparams != fn->def->params.len) {
    ierr(ic, str->sp, "the signature has %d parameters but '%s' takes %d", sp.nparams,
         fn->name, fn->def->params.len);
    return;
  }
  vec_push(ic->ar, &fn->sigs, sig_to_types(ic, &sp));
  vec_push(ic->ar, &fn->rets, (void *)type_from_dtype(sp.ret.dtype));
}

/* Signature strings given to a decorator: one string or a list of them. */
static void decorator_sigs(infer_ctx *ic, func_def *fn, node *arg) {
  node_list single = {&arg, 1, 1};
  node_list *l = arg->kind == N_LIST || arg->kind == N_TUPLE ? &arg->list : &single;
  for (int i = 0; i < l->len; i++) {
    node *s = l->items[i];
    if (s->kind != N_STR) {
      ierr(ic, s->sp, "a signature must be a string such as \"void(float32[:], int32)\"");
      continue;
    }
    if (fn->kind == FN_VECTORIZE) add_vectorize_sig(ic, fn, s);
    else if (fn->kind == FN_KERNEL) add_kernel_sig(ic, fn, s);
  }
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
    ierr(ic, kw->a->sp, "fastmath takes True or False (sets of fast-math flags are not "
         "supported, as in Numba's CUDA target)");
  return true;
}

/* target='cpu' and the like: warned about, since one compile serves both back ends. */
static void decorator_target(infer_ctx *ic, node *kw) {
  if (strcmp(kw->str, "target") == 0 && kw->a->kind == N_STR && strcmp(kw->a->str, "cuda") != 0)
    iwarn(ic, kw->sp, "target '%s' ignored: kcc compiles for CUDA (and runs on the CPU "
          "back end)", kw->a->str);
}

/* ---- @cuda.reduce ---- */
/* The kernel parameters of a reduction over element type el: (arr, out, init, has_init). */
static ptr_vec *reduce_kernel_sig(infer_ctx *ic, const type *el) {
  ptr_vec *v = arena_alloc(ic->ar, sizeof *v);
  vec_push(ic->ar, v, (void *)type_array(ic->ar, el, 1));
  vec_push(ic->ar, v, (void *)type_array(ic->ar, el, 1));
  vec_push(ic->ar, v, (void *)el);
  vec_push(ic->ar, v, (void *)&ty_bool);
  return v;
}

/* Is sig (arr, out, init, has_init) of one element type? */
static bool reduce_sig_ok(const ptr_vec *sig) {
  if (sig->len != 4) return false;
  const type *a = sig->items[0], *o = sig->items[1], *i = sig->items[2], *h = sig->items[3];
  return a->kind == TY_ARRAY && a->ndim == 1 && type_equal(a, o) && type_equal(a->elem, i) &&
         h->kind == TY_BOOL && a->elem->kind != TY_BOOL;
}

/* kcc's extension: @cuda.reduce("float32(float32, float32)", ...) compiles those element
 * types ahead of time; plain @cuda.reduce compiles per dtype at the first kc_reduce. */
static void reduce_decorator_sig(infer_ctx *ic, func_def *fn, node *str) {
  sig_parsed sp;
  if (str->kind != N_STR) {
    ierr(ic, str->sp, "a signature must be a string such as \"float32(float32, float32)\"");
    return;
  }
  if (!parse_sig_string(ic, str, &sp)) return;
  bool ok = sp.nparams == 2 && sp.params[0].ndim == 0 && sp.params[1].ndim == 0 &&
            sp.params[0].dtype == sp.params[1].dtype && sp.params[0].dtype != KC_BOOL &&
            (!sp.has_ret || (!sp.ret.is_void && sp.ret.ndim == 0 &&
                             sp.ret.dtype == sp.params[0].dtype));
  if (!ok) {
    ierr(ic, str->sp, "a @cuda.reduce signature is one number type T as 'T(T, T)', "
         "e.g. 'float32(float32, float32)'");
    return;
  }
  vec_push(ic->ar, &fn->sigs, reduce_kernel_sig(ic, type_from_dtype(sp.params[0].dtype)));
}

static void classify_reduce(infer_ctx *ic, func_def *fn, node *dec) {
  fn->kind = FN_REDUCE;
  int np = fn->def->params.len;
  if (np != 2)
    ierr(ic, fn->def->sp, "@cuda.reduce needs a binary function (two parameters, e.g. "
         "'def add(a, b): return a + b'); '%s' takes %d", fn->name, np);
  if (dec->kind != N_CALL) return;
  for (int i = 0; i < dec->kwargs.len; i++)
    ierr(ic, ((node *)dec->kwargs.items[i])->sp, "@cuda.reduce takes no keyword arguments");
  for (int i = 0; i < dec->list.len; i++) {
    node *arg = dec->list.items[i];
    node_list single = {&arg, 1, 1};
    node_list *l = arg->kind == N_LIST || arg->kind == N_TUPLE ? &arg->list : &single;
    for (int k = 0; k < l->len; k++) reduce_decorator_sig(ic, fn, l->items[k]);
  }
}

/* ---- @guvectorize ---- */
#define GU_MAX_ARGS 32

/* A parsed layout "(m,n),()->(m)": per argument its core dimension names. */
typedef struct gu_layout {
  int nargs, nin;
  int ndim[GU_MAX_ARGS];
  const char *dim[GU_MAX_ARGS][KC_MAX_DIMS];
} gu_layout;

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
    if (l->ndim[k] >= KC_MAX_DIMS - 1) { *err = "at most 2 core dimensions per argument"; return false; }
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
static bool gu_parse_layout(infer_ctx *ic, const char *s, gu_layout *l, const char **err) {
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
    ierr(ic, dec->sp, "@guvectorize needs signatures and a layout, e.g. "
         "@guvectorize(['void(float32[:], float32, float32[:])'], '(n),()->(n)', "
         "target='cuda')");
    return;
  }
  node *lay = dec->list.items[1];
  fn->layout = lay->str;
  fn->layout_sp = lay->sp;
  fn->kind = FN_KERNEL;  /* signatures are checked as a kernel's: void, one per param */
  decorator_sigs(ic, fn, dec->list.items[0]);
  fn->kind = FN_GUVECTORIZE;
  for (int i = 0; i < dec->kwargs.len; i++) {
    node *kw = dec->kwargs.items[i];
    if (!decorator_fastmath(ic, fn, kw)) decorator_target(ic, kw);
  }
}

static void classify_decorator(infer_ctx *ic, func_def *fn, node *dec) {
  node *callee = dec->kind == N_CALL ? dec->a : dec;
  const char *p = dotted_path(ic, callee);
  builtin_id id = p ? builtin_lookup(p) : B_NONE;
  if (id == B_KERNEL) { fn->kind = FN_KERNEL; return; }
  if (id == B_DEVICE) { fn->kind = FN_DEVICE; return; }
  if (id == B_REDUCE) { classify_reduce(ic, fn, dec); return; }
  if (id == B_GUVECTORIZE) { classify_guvectorize(ic, fn, dec); return; }
  if (id != B_JIT && id != B_VECTORIZE) {
    ierr(ic, dec->sp, "unknown decorator; use @cuda.jit, @cuda.jit(device=True), "
         "@vectorize, @kernel or @device");
    return;
  }
  fn->kind = id == B_JIT ? FN_KERNEL : FN_VECTORIZE;
  if (dec->kind != N_CALL) return;
  for (int i = 0; i < dec->kwargs.len; i++) {
    node *kw = dec->kwargs.items[i];
    if (strcmp(kw->str, "device") == 0 && kw_true(kw)) fn->kind = FN_DEVICE;
    else if (!decorator_fastmath(ic, fn, kw)) decorator_target(ic, kw);
  }
  if (dec->list.len > 1) ierr(ic, dec->list.items[1]->sp, "unexpected extra argument");
  if (dec->list.len >= 1 && fn->kind != FN_DEVICE) decorator_sigs(ic, fn, dec->list.items[0]);
  if (fn->kind == FN_VECTORIZE && dec->list.len == 0)
    ierr(ic, dec->sp, "@vectorize needs a list of signatures, e.g. "
         "@vectorize(['float32(float32, float32)'], target='cuda')");
}

static void annotation_sig(infer_ctx *ic, func_def *fn) {
  node_list *ps = &fn->def->params;
  int annotated = 0;
  for (int i = 0; i < ps->len; i++) annotated += ((node *)ps->items[i])->a != NULL;
  if (annotated == 0) return;
  if (annotated != ps->len) {
    for (int i = 0; i < ps->len; i++)
      if (!((node *)ps->items[i])->a)
        ierr(ic, ((node *)ps->items[i])->sp, "parameter '%s' of kernel '%s' has no type "
             "annotation (annotate all parameters or none)", ((node *)ps->items[i])->str,
             fn->name);
    return;
  }
  ptr_vec *v = arena_alloc(ic->ar, sizeof *v);
  for (int i = 0; i < ps->len; i++) {
    const type *t = annotation_type(ic, ((node *)ps->items[i])->a);
    if (!t) return;
    vec_push(ic->ar, v, (void *)t);
  }
  vec_push(ic->ar, &fn->sigs, v);
}

static void define_function(infer_ctx *ic, node *s) {
  if (find_func(ic, s->str)) {
    ierr(ic, s->sp, "function '%s' is defined twice", s->str);
    return;
  }
  func_def *fn = arena_alloc(ic->ar, sizeof *fn);
  fn->def = s;
  fn->name = s->str;
  fn->kind = FN_DEVICE;
  for (int i = 0; i < s->decorators.len; i++) classify_decorator(ic, fn, s->decorators.items[i]);
  if (fn->kind == FN_KERNEL) annotation_sig(ic, fn);
  vec_push(ic->ar, &ic->prog->funcs, fn);
}

static void module_level(infer_ctx *ic, node *module) {
  for (int i = 0; i < module->body.len; i++) {
    node *s = module->body.items[i];
    switch (s->kind) {
    case N_IMPORT: import_module(ic, s); break;
    case N_IMPORTFROM: import_from(ic, s); break;
    case N_ASSIGN: module_constant(ic, s); break;
    case N_FUNCDEF: define_function(ic, s); break;
    case N_PASS: break;
    case N_EXPR_STMT:
      if (s->a->kind == N_STR) break;
      /* fall through */
    default:
      ierr(ic, s->sp, "only imports, constants and function definitions are allowed at "
           "module level");
    }
  }
}

/* --sig NAME(TYPES): for the named kernel, or the only kernel when no name is given. */
static void apply_cli_sigs(infer_ctx *ic) {
  for (int i = 0; i < ic->opts->nsigs; i++) {
    sig_parsed sp;
    char err[200];
    const char *text = ic->opts->sigs[i];
    if (sig_parse(text, &sp, err, sizeof err) != 0) {
      ierr(ic, span_none(), "--sig '%s': %s", text, err);
      continue;
    }
    func_def *fn = NULL;
    int nkernels = 0;
    for (int j = 0; j < ic->prog->funcs.len; j++) {
      func_def *f = ic->prog->funcs.items[j];
      if (f->kind != FN_KERNEL && f->kind != FN_REDUCE) continue;
      nkernels++;
      if (sp.name[0] ? strcmp(f->name, sp.name) == 0 : nkernels == 1) fn = f;
    }
    if (!sp.name[0] && nkernels > 1) fn = NULL;
    if (!fn) {
      ierr(ic, span_none(), "--sig '%s': %s", text, sp.name[0] ? "no kernel of that name"
           : "name the kernel, e.g. --sig 'add(float32[:], int32)'");
      continue;
    }
    if (fn->kind == FN_REDUCE) {
      ptr_vec *v = sig_to_types(ic, &sp);
      if (!reduce_sig_ok(v))
        ierr(ic, span_none(), "--sig '%s': the kernel of @cuda.reduce '%s' takes "
             "(T[:], T[:], T, bool) for a number type T", text, fn->name);
      else
        vec_push(ic->ar, &fn->sigs, v);
      continue;
    }
    if (sp.nparams != fn->def->params.len) {
      ierr(ic, span_none(), "--sig '%s': kernel '%s' takes %d parameters", text, fn->name,
           fn->def->params.len);
      continue;
    }
    vec_push(ic->ar, &fn->sigs, sig_to_types(ic, &sp));
  }
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
static long long param_space_bytes(const fn_instance *f) {
  long long at = 0;
  for (int i = 0; i < f->nparams; i++) {
    const type *t = f->param_types[i];
    long long size, align;
    if (t->kind == TY_ARRAY) size = 8LL * (1 + t->ndim), align = 8;
    else if (t->kind == TY_BOOL) size = align = 1;
    else if (t->kind == TY_COMPLEX) size = t->bits / 8, align = t->bits / 16;
    else size = align = t->bits / 8;
    if (align < 1) align = 1;
    at = (at + align - 1) / align * align + size;
  }
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
    ierr(ic, f->fn->def->sp, "the parameters of kernel '%s' take %lld bytes; CUDA allows "
         "at most %lld on sm_%d (an array of rank n takes 8 + 8*n bytes)", f->fn->name,
         used, limit, ic->opts->arch);
}

static void compile_kernel(infer_ctx *ic, func_def *fn, ptr_vec *sig, int variant) {
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(sig->len + 1));
  for (int i = 0; i < sig->len; i++) args[i] = sig->items[i];
  for (int i = 0; i < fn->instances.len; i++) {
    fn_instance *g = fn->instances.items[i];
    if (types_equal(g->param_types, args, sig->len)) return; /* duplicate signature */
  }
  fn_instance *f = new_instance(ic, fn, args, sig->len, true);
  check_param_space(ic, f);
  if (variant > 0 || fn->sigs.len > 1) f->symbol_name = mangle(ic, fn->name, args, sig->len);
  ic->fast_kernel = fn->fastmath || ic->opts->fastmath;
  f->in_fast_kernel = f->fastmath = ic->fast_kernel;
  ic->all_f32 = kernel_arrays_all_f32(f);
  ic->last_warn_line = 0;
  f->in_progress = true;
  run_passes(ic, f, true);
  f->in_progress = false;
  f->done = true;
  vec_push(ic->ar, &ic->prog->instances, f);
  vec_push(ic->ar, &ic->prog->kernels, f);
}

/* A vectorize signature becomes a scalar device function and a grid-stride kernel over
 * 1-D arrays: inputs..., output. */
static void compile_vectorize(infer_ctx *ic, func_def *fn, int k) {
  ptr_vec *sig = fn->sigs.items[k];
  const type *ret = fn->rets.items[k];
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(sig->len + 1));
  for (int i = 0; i < sig->len; i++) args[i] = sig->items[i];
  bool saved = ic->report;
  ic->report = true;
  ic->cur = NULL;
  ic->fast_kernel = fn->fastmath || ic->opts->fastmath;
  fn_instance *scalar = instantiate(ic, fn, args, sig->len, (bitset){0}, fn->def->sp);
  ic->report = saved;
  if (!scalar) return;
  if (scalar->ret->kind == TY_VOID || !type_is_scalar(scalar->ret)) {
    ierr(ic, fn->def->sp, "vectorized function '%s' must return a number", fn->name);
    return;
  }
  fn_instance *w = arena_alloc(ic->ar, sizeof *w);
  w->fn = fn;
  w->is_kernel = true;
  w->vec_scalar = scalar;
  w->nparams = sig->len + 1;
  w->param_types = arena_alloc(ic->ar, sizeof(type *) * (size_t)(w->nparams + 1));
  for (int i = 0; i < sig->len; i++) w->param_types[i] = type_array(ic->ar, args[i], 1);
  w->param_types[sig->len] = type_array(ic->ar, ret, 1);
  w->written_params = bitset_new(ic->ar, w->nparams);
  mark_param_written(w, sig->len);
  check_param_space(ic, w);
  w->ret = &ty_void;
  w->in_fast_kernel = w->fastmath = ic->fast_kernel;
  /* with several signatures, each kernel needs its own symbol, distinct from the scalar
     function's (which mangle() also names after the argument types) */
  w->symbol_name = fn->sigs.len > 1
      ? arena_printf(ic->ar, "%s_ufunc", mangle(ic, fn->name, args, sig->len)) : fn->name;
  w->done = true;
  vec_push(ic->ar, &ic->prog->instances, w);
  vec_push(ic->ar, &ic->prog->kernels, w);
}

/* @cuda.reduce: the synthesised kernel (synth.c), compiled per element type. Without
 * signatures it stays untyped, to be specialised by kc_reduce as Numba compiles per
 * dtype on the first call. */
static void compile_reduce(infer_ctx *ic, func_def *fn) {
  if (fn->def->params.len != 2) return;
  if (fn->sigs.len == 0) {
    vec_push(ic->ar, &ic->prog->untyped, (void *)fn->name);
    return;
  }
  func_def *k = arena_alloc(ic->ar, sizeof *k);
  k->def = synth_reduce_kernel(ic->ar, ic->d, fn->name, fn->def->sp);
  if (!k->def) {
    ierr(ic, fn->def->sp, "internal compiler error: the reduction kernel does not parse");
    return;
  }
  k->kind = FN_KERNEL;
  k->name = fn->name;
  k->sigs = fn->sigs;
  fn->generated = k;
  for (int s = 0; s < k->sigs.len; s++) compile_kernel(ic, k, k->sigs.items[s], s);
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
    ierr(ic, fn->layout_sp, "output '%s' has layout () and must be declared as a 1-D array "
         "(written as %s[0]), not %s", pname, pname, tname(ic, t));
  else
    ierr(ic, fn->layout_sp, "argument '%s' has %d core dimension%s in the layout but the "
         "signature declares %s", pname, core, core == 1 ? "" : "s", tname(ic, t));
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
    ierr(ic, fn->layout_sp, "internal compiler error: the gufunc kernel does not parse");
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
  if (!gu_parse_layout(ic, fn->layout, &l, &why)) {
    ierr(ic, fn->layout_sp, "bad @guvectorize layout \"%s\": %s (write it as "
         "\"(m,n),(n)->(m)\")", fn->layout, why);
    return;
  }
  if (l.nargs != fn->def->params.len) {
    ierr(ic, fn->layout_sp, "the layout \"%s\" has %d argument%s but '%s' takes %d",
         fn->layout, l.nargs, l.nargs == 1 ? "" : "s", fn->name, fn->def->params.len);
    return;
  }
  if (fn->sigs.len == 0)
    ierr(ic, fn->def->sp, "@guvectorize '%s' needs at least one signature", fn->name);
  for (int k = 0; k < fn->sigs.len; k++) compile_guvectorize_sig(ic, fn, &l, fn->sigs.items[k], k);
}

static void compile_functions(infer_ctx *ic) {
  for (int i = 0; i < ic->prog->funcs.len; i++) {
    func_def *fn = ic->prog->funcs.items[i];
    if (fn->kind == FN_GUVECTORIZE) {
      compile_guvectorize(ic, fn);
      continue;
    }
    if (fn->kind == FN_REDUCE) {
      compile_reduce(ic, fn);
      continue;
    }
    if (fn->kind == FN_VECTORIZE) {
      for (int k = 0; k < fn->sigs.len; k++) compile_vectorize(ic, fn, k);
      continue;
    }
    if (fn->kind != FN_KERNEL) continue;
    if (fn->sigs.len == 0) {
      vec_push(ic->ar, &ic->prog->untyped, (void *)fn->name);
      iwarn(ic, fn->def->sp, "kernel '%s' has no parameter types (annotations, a signature "
            "in its decorator, or --sig): it is not compiled ahead of time", fn->name);
      continue;
    }
    for (int k = 0; k < fn->sigs.len; k++) compile_kernel(ic, fn, fn->sigs.items[k], k);
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

/* Fold a function's defaults once every module constant is known (a file's names may
 * come in any order). Only device functions take them: Numba's kernels take their
 * arguments positionally at launch. */
static void fold_defaults(infer_ctx *ic, func_def *fn) {
  node_list *ps = &fn->def->params;
  const node *first = NULL;   /* the first parameter with a default */
  for (int i = 0; i < ps->len; i++) {
    node *p = ps->items[i];
    if (!p->b) {
      if (first)
        ierr(ic, p->sp, "parameter '%s' without a default follows parameter '%s', which "
             "has one", p->str, first->str);
      continue;
    }
    if (!first) first = p;
    if (fn->kind != FN_DEVICE) {
      ierr(ic, p->b->sp, "default parameter values are only allowed in device functions; "
           "'%s' is %s", fn->name, func_kind_name(fn->kind));
      continue;
    }
    int errors_before = ic->d->nerrors;
    node *v = fold(ic, p->b);
    if (!v && ic->d->nerrors == errors_before)
      ierr(ic, p->b->sp, "the default value of '%s' must be a constant: a number, a "
           "module constant or arithmetic on them", p->str);
    if (!fn->defaults) fn->defaults = arena_alloc(ic->ar, sizeof(node *) * (size_t)ps->len);
    fn->defaults[i] = v ? v : node_new(ic->ar, N_NONE, p->b->sp);   /* None: reported */
  }
}

int infer_program(arena *a, diag_sink *d, node *module, const kcc_options *opts,
                  program *out) {
  memset(out, 0, sizeof *out);
  out->module = module;
  infer_ctx ic = {0};
  ic.ar = a;
  ic.d = d;
  ic.prog = out;
  ic.opts = opts;
  ic.report = true;
  int before = d->nerrors;
  module_level(&ic, module);
  for (int i = 0; i < out->funcs.len; i++) fold_defaults(&ic, out->funcs.items[i]);
  apply_cli_sigs(&ic);
  compile_functions(&ic);
  return d->nerrors - before;
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
    if (f->vec_scalar) {
      s = arena_printf(a, "%s  (vectorized over %s)\n", s, f->vec_scalar->symbol_name);
      continue;
    }
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

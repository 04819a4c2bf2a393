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

#include "builtins/builtin.h"
#include "signature.h"
#include "synth.h"
#include "typing.h"

#define MAX_FIXPOINT_PASSES 12

static void ix_block(infer_ctx *ic, node_list *body);

/* ---- diagnostics: silent during the fixpoint passes ------------------------------ */

void ix_error(infer_ctx *ic, span sp, const char *fmt, ...) {
  if (!ic->report) return;
  va_list ap;
  va_start(ap, fmt);
  diag_report(ic->d, KC_SEV_ERROR, sp, fmt, ap);
  va_end(ap);
}

void ix_warn(infer_ctx *ic, span sp, const char *fmt, ...) {
  if (!ic->report) return;
  va_list ap;
  va_start(ap, fmt);
  diag_report(ic->d, KC_SEV_WARNING, sp, fmt, ap);
  va_end(ap);
}

const char *ix_tname(infer_ctx *ic, const type *t) {
  return t ? type_name(ic->ar, t) : "<unknown>";
}

/* ---- the builtin namespace ---------------------------------------------------------- */

/* Names bound without an import: Numba code always imports them, but we let a kernel
 * file stand alone. */
static const alias default_aliases[] = {
  {"cuda", "numba.cuda"}, {"math", "math"}, {"numba", "numba"}, {"types", "numba.types"},
  {"vectorize", "numba.vectorize"}, {"guvectorize", "numba.guvectorize"}, {"jit", "numba.cuda.jit"}, {"np", "numpy"},
  {"cmath", "cmath"},
};

static const char *const importable[] = {"math", "numba", "numba.cuda", "numba.types",
                                         "numpy", "cmath"};

/* A scalar type spelled by a path: "float32", "numba.float32", "numba.types.int32",
 * "numpy.float64". */
const type *ix_type_from_path(const char *path) {
  static const char *const prefixes[] = {"numba.types.", "numba.", "numpy.", ""};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t n = strlen(prefixes[i]);
    if (strncmp(path, prefixes[i], n) == 0 && !strchr(path + n, '.'))
      return type_from_name(path + n);
  }
  return NULL;
}

static bool path_is_known(const char *path) {
  return builtin_find(path) != NULL || ix_type_from_path(path) != NULL;
}

/* The dotted path a module-level name stands for, or NULL. */
static const char *alias_path(infer_ctx *ic, const char *name) {
  for (int i = ic->aliases.len - 1; i >= 0; i--) {
    alias *al = ic->aliases.items[i];
    if (strcmp(al->name, name) == 0) return al->path;
  }
  for (size_t i = 0; i < sizeof default_aliases / sizeof default_aliases[0]; i++)
    if (strcmp(default_aliases[i].name, name) == 0) return default_aliases[i].path;
  if (builtin_find(name) || type_from_name(name)) return name;
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

symbol *ix_find_const(infer_ctx *ic, const char *name) {
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
const char *ix_dotted_path(infer_ctx *ic, const node *e) {
  if (e->kind == N_NAME) {
    if (find_local(ic->cur, e->str) || ix_find_const(ic, e->str) || find_func(ic, e->str))
      return NULL;
    return alias_path(ic, e->str);
  }
  if (e->kind == N_ATTR) {
    const char *base = ix_dotted_path(ic, e->a);
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
const type *ix_promote(const type *a, bool aw, const node *an, const type *b, bool bw,
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
    const type *t = ix_promote(a, aw, NULL, b, bw, NULL, weak);
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
    ix_error(ic, sp, "cannot assign a value of type %s to '%s', which holds %s",
         ix_tname(ic, t), s->name, ix_tname(ic, s->ty));
    if (ic->report) diag_note(ic->d, s->where, "'%s' was first given type %s here", s->name,
                              ix_tname(ic, s->ty));
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
      ix_error(ic, e->sp, "division by zero in a constant expression");
      return NULL;
    }
    complex_div(a, b, c, d, &re, &im);
    return const_complex(ic, re, im, e->sp);
  case OP_POW:
    if (r->kind != N_INT || r->ival < 0 || r->ival > 8) {
      ix_error(ic, e->sp, "complex ** in a constant takes an integer exponent from 0 to 8");
      return NULL;
    }
    for (int64_t k = 0; k < r->ival; k++) {
      double t = re * a - im * b;
      im = re * b + im * a, re = t;
    }
    return const_complex(ic, re, im, e->sp);
  default:
    ix_error(ic, e->sp, "operator %s is not defined for complex numbers", op_symbol(e->op));
    return NULL;
  }
}

/* complex(x) and complex(x, y) on real constants (a complex x alone stays itself). */
static node *fold_complex_call(infer_ctx *ic, node *e) {
  if (e->kwargs.len || e->list.len < 1 || e->list.len > 2) return NULL;
  node *x = ix_fold(ic, e->list.items[0]);
  node *y = e->list.len == 2 ? ix_fold(ic, e->list.items[1]) : NULL;
  if (!x || x->kind == N_TUPLE || (e->list.len == 2 && (!y || y->kind == N_TUPLE)))
    return NULL;
  if (x->kind == N_COMPLEX && !y) return x;
  if (x->kind == N_COMPLEX || (y && y->kind == N_COMPLEX)) {
    ix_error(ic, e->sp, "complex(x, y) in a constant takes real x and y");
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
      if (b == 0) { ix_error(ic, e->sp, "division by zero in a constant expression"); return NULL; }
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
    if (b == 0) { ix_error(ic, e->sp, "division by zero in a constant expression"); return NULL; }
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
node *ix_fold(infer_ctx *ic, node *e) {
  switch (e->kind) {
  case N_INT: case N_FLOAT: case N_BOOL: case N_COMPLEX: return e;
  case N_IMAG: return const_complex(ic, 0.0, e->fval, e->sp);
  case N_CALL: {
    const char *p = ix_dotted_path(ic, e->a);
    return p && strcmp(p, "complex") == 0 ? fold_complex_call(ic, e) : NULL;
  }
  case N_NAME: {
    symbol *s = ix_find_const(ic, e->str);
    return s ? s->value : NULL;
  }
  case N_ATTR: {
    const char *p = ix_dotted_path(ic, e);
    const builtin *b = p ? builtin_find(p) : NULL;
    return b && (b->flags & BF_CONSTANT) ? const_float(ic, b->value, e->sp) : NULL;
  }
  case N_UNARY: {
    node *v = ix_fold(ic, e->a);
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
    node *l = ix_fold(ic, e->a), *r = ix_fold(ic, e->b);
    if (!l || !r || l->kind == N_TUPLE || r->kind == N_TUPLE || l->big || r->big) return NULL;
    return fold_binop(ic, e, l, r);
  }
  case N_TUPLE: {
    node *t = node_new(ic->ar, N_TUPLE, e->sp);
    for (int i = 0; i < e->list.len; i++) {
      node *v = ix_fold(ic, e->list.items[i]);
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

const type *ix_set_type(node *e, const type *t, bool weak) {
  e->ty = t;
  e->weak = weak;
  return t;
}

/* Truth value of a condition: any scalar will do. */
static void ix_condition(infer_ctx *ic, node *c) {
  const type *t = ix_expr(ic, c);
  if (t && !type_is_scalar(t))
    ix_error(ic, c->sp, "a condition must be a number or bool, not %s", ix_tname(ic, t));
}

static const type *ix_name(infer_ctx *ic, node *e) {
  symbol *s = find_local(ic->cur, e->str);
  if (s) {
    e->sym = s;
    if (!s->ty && ic->report)
      ix_error(ic, e->sp, "'%s' is used but its type cannot be inferred (is it assigned before use?)",
           e->str);
    return ix_set_type(e, s->ty, s->weak);
  }
  s = ix_find_const(ic, e->str);
  if (s) {
    e->sym = s;
    return ix_set_type(e, s->ty, s->ty && type_is_scalar(s->ty));
  }
  if (find_func(ic, e->str)) {
    ix_error(ic, e->sp, "function '%s' can only be called", e->str);
    return NULL;
  }
  const char *p = alias_path(ic, e->str);
  const builtin *b = p ? builtin_find(p) : NULL;
  if (!b && p && ix_type_from_path(p)) {
    e->bi = &builtin_type_cast;
    e->ty = NULL;
    ix_error(ic, e->sp, "type '%s' can only be called (as a cast) or used in an annotation", e->str);
    return NULL;
  }
  if (!b) {
    ix_error(ic, e->sp, "undefined name '%s'", e->str);
    return NULL;
  }
  e->bi = b;
  ix_error(ic, e->sp, "'%s' is not a value", e->str);
  return NULL;
}

/* A builtin used as a value: cuda.threadIdx.x, math.pi. */
static const type *ix_builtin_value(infer_ctx *ic, node *e, const builtin *b) {
  e->bi = b;
  if (b->kind == BK_VALUE) return b->typing(ic, e, b);
  ix_error(ic, e->sp, "'%s' is not a value", ix_dotted_path(ic, e));
  return NULL;
}

static const type *ix_attr(infer_ctx *ic, node *e) {
  const char *p = ix_dotted_path(ic, e);
  if (p) {
    const builtin *b = builtin_find(p);
    if (!b) {
      ix_error(ic, e->sp, "unknown name '%s'", p);
      return NULL;
    }
    return ix_builtin_value(ic, e, b);
  }
  const type *bt = ix_expr(ic, e->a);
  if (!bt) return NULL;
  /* z.real, z.imag: a complex's parts; on a real number, itself and 0 (as in Python) */
  if (type_is_numeric(bt) && (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0)) {
    const type *pt = bt->kind == TY_COMPLEX ? type_complex_part(bt) : bt;
    return ix_set_type(e, pt, e->a->weak);
  }
  if (bt->kind == TY_ARRAY) {
    if (strcmp(e->str, "shape") == 0) {
      const type *el[KC_MAX_DIMS] = {&ty_i64, &ty_i64, &ty_i64};
      return ix_set_type(e, type_tuple(ic->ar, el, bt->ndim), false);
    }
    if (strcmp(e->str, "size") == 0) return ix_set_type(e, &ty_i64, false);
    if (strcmp(e->str, "ndim") == 0) return ix_set_type(e, &ty_i64, false);
  }
  ix_error(ic, e->sp, "%s has no attribute '%s'", ix_tname(ic, bt), e->str);
  return NULL;
}

/* A literal integer argument (for cuda.grid(2), tuple indices, shapes). */
bool ix_const_int(infer_ctx *ic, node *e, int64_t *v) {
  node *f = ix_fold(ic, e);
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
    ix_error(ic, p->sp, "slice indices must be integers, not %s", ix_tname(ic, t));
    return false;
  }
  return t != NULL;
}

static bool ix_slice(infer_ctx *ic, node *s) {
  bool ok = ix_slice_part(ic, s->a);
  ok = ix_slice_part(ic, s->b) && ok;
  ok = ix_slice_part(ic, s->c) && ok;
  int64_t step;
  if (ok && s->c && s->c->kind != N_NONE && ix_const_int(ic, s->c, &step) && step == 0) {
    ix_error(ic, s->c->sp, "slice step cannot be zero");
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
  return ix_set_type(e, type_array_layout(ic->ar, bt->elem, nd, !contiguous), false);
}

static const type *ix_index(infer_ctx *ic, node *e) {
  const type *bt = ix_expr(ic, e->a);
  if (!bt) {
    if (e->b) ix_expr(ic, e->b);
    return NULL;
  }
  if (bt->kind == TY_TUPLE) {
    int64_t k;
    if (!ix_const_int(ic, e->b, &k)) {
      ix_error(ic, e->b->sp, "a tuple can only be indexed by a constant integer");
      return NULL;
    }
    if (k < 0) k += bt->nelems;
    if (k < 0 || k >= bt->nelems) {
      ix_error(ic, e->b->sp, "tuple index out of range (the tuple has %d elements)", bt->nelems);
      return NULL;
    }
    e->b->ty = &ty_i64;
    e->aux = (int)k;
    return ix_set_type(e, bt->elems[k], false);
  }
  if (bt->kind != TY_ARRAY) {
    ix_error(ic, e->sp, "%s cannot be indexed", ix_tname(ic, bt));
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
      ix_error(ic, ix->sp, "an array index must be an integer, not %s", ix_tname(ic, t));
      ok = false;
    }
  }
  if (e->b->kind == N_TUPLE) e->b->ty = NULL;
  if (idx->len > bt->ndim) {
    ix_error(ic, e->b->sp, "wrong number of indices: %s has %d dimension%s, %d %s given",
         ix_tname(ic, bt), bt->ndim, bt->ndim == 1 ? "" : "s", idx->len,
         idx->len == 1 ? "index" : "indices");
    return NULL;
  }
  if (!ok) return NULL;
  if (sliced || idx->len < bt->ndim) return ix_view(ic, e, bt, idx);
  return ix_set_type(e, bt->elem, false);
}

static void warn_widening(infer_ctx *ic, node *e) {
  if (!ic->report || !ic->all_f32 || e->sp.line == ic->last_warn_line) return;
  ic->last_warn_line = e->sp.line;
  ix_warn(ic, e->sp, "float32 value widened to float64 here (an operand is float64); "
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
    ix_error(ic, e->sp, "complex ** takes a constant integer exponent from 0 to 8 here; "
         "write cmath.exp(b * cmath.log(a)) for a general power");
    return false;
  default:
    ix_error(ic, e->sp, "operator %s is not defined for complex numbers (%s and %s)",
         op_symbol(e->op), ix_tname(ic, a), ix_tname(ic, b));
    return false;
  }
}

static const type *ix_binop(infer_ctx *ic, node *e) {
  const type *a = ix_expr(ic, e->a), *b = ix_expr(ic, e->b);
  if (!a || !b) return NULL;
  if (!type_is_numeric(a) || !type_is_numeric(b)) {
    ix_error(ic, e->sp, "unsupported operand types for %s: %s and %s", op_symbol(e->op),
         ix_tname(ic, a), ix_tname(ic, b));
    return NULL;
  }
  bool weak;
  const type *t = ix_promote(a, e->a->weak, e->a, b, e->b->weak, e->b, &weak);
  if (t->kind == TY_COMPLEX && !complex_op_ok(ic, e, a, b)) return NULL;
  switch (e->op) {
  case OP_DIV:
    if (t->kind != TY_FLOAT && t->kind != TY_COMPLEX) t = &ty_f64;
    break;
  case OP_LSHIFT: case OP_RSHIFT: case OP_BITAND: case OP_BITOR: case OP_BITXOR:
    if (t->kind == TY_FLOAT) {
      ix_error(ic, e->sp, "operator %s needs integers, not %s and %s", op_symbol(e->op),
           ix_tname(ic, a), ix_tname(ic, b));
      return NULL;
    }
    if (t->kind == TY_BOOL && (e->op == OP_LSHIFT || e->op == OP_RSHIFT)) t = &ty_i64;
    break;
  case OP_MATMUL:
    ix_error(ic, e->sp, "the @ operator is not supported in kernels");
    return NULL;
  default:
    if (t->kind == TY_BOOL) t = &ty_i64;
  }
  if (!weak && is_float64_widening(e->a->weak ? NULL : a, e->b->weak ? NULL : b, t))
    warn_widening(ic, e);
  return ix_set_type(e, t, weak);
}

static const type *ix_unary(infer_ctx *ic, node *e) {
  const type *t = ix_expr(ic, e->a);
  if (!t) return NULL;
  if (e->op == OP_NOT) {
    if (!type_is_scalar(t)) ix_error(ic, e->sp, "'not' needs a number or bool, not %s", ix_tname(ic, t));
    return ix_set_type(e, &ty_bool, false);
  }
  if (!type_is_numeric(t)) {
    ix_error(ic, e->sp, "bad operand type for unary %s: %s", op_symbol(e->op), ix_tname(ic, t));
    return NULL;
  }
  if (e->op == OP_INVERT && (t->kind == TY_FLOAT || t->kind == TY_COMPLEX)) {
    ix_error(ic, e->sp, "bad operand type for unary ~: %s", ix_tname(ic, t));
    return NULL;
  }
  if (t->kind == TY_BOOL && e->op != OP_INVERT) t = &ty_i64;
  return ix_set_type(e, t, e->a->weak);
}

static const type *ix_compare(infer_ctx *ic, node *e) {
  bool ok = true;
  for (int i = 0; i < e->list.len; i++) {
    const type *t = ix_expr(ic, e->list.items[i]);
    if (!t) ok = false;
    else if (!type_is_scalar(t)) {
      ix_error(ic, e->list.items[i]->sp, "cannot compare %s", ix_tname(ic, t));
      ok = false;
    }
  }
  if (!ok) return NULL;
  /* the type each pair is compared in, for code generation */
  const type **pair = arena_alloc(ic->ar, sizeof *pair * (size_t)e->list.len);
  for (int i = 0; i < e->list.len - 1; i++) {
    op_kind op = e->cmp_ops[i];
    if (op == OP_IN || op == OP_NOTIN || op == OP_IS || op == OP_ISNOT) {
      ix_error(ic, e->sp, "'%s' is not supported in kernels", op_symbol(op));
      return NULL;
    }
    node *l = e->list.items[i], *r = e->list.items[i + 1];
    bool w;
    pair[i] = ix_promote(l->ty, l->weak, l, r->ty, r->weak, r, &w);
    if (pair[i]->kind == TY_COMPLEX && op != OP_EQ && op != OP_NE) {
      ix_error(ic, e->sp, "complex numbers are not ordered: '%s' is not defined for %s and %s "
           "(compare abs() or .real instead)", op_symbol(op), ix_tname(ic, l->ty), ix_tname(ic, r->ty));
      return NULL;
    }
  }
  e->aux_ptr = pair;
  return ix_set_type(e, &ty_bool, false);
}

static const type *ix_boolop(infer_ctx *ic, node *e) {
  const type *t = NULL;
  bool weak = true;
  for (int i = 0; i < e->list.len; i++) {
    node *x = e->list.items[i];
    const type *xt = ix_expr(ic, x);
    if (!xt) return NULL;
    if (!type_is_scalar(xt)) {
      ix_error(ic, x->sp, "'%s' needs numbers or bools, not %s", op_symbol(e->op), ix_tname(ic, xt));
      return NULL;
    }
    bool w;
    t = t ? ix_promote(t, weak, NULL, xt, x->weak, x, &w) : xt;
    weak = t == xt && i == 0 ? x->weak : w;
  }
  return ix_set_type(e, t, weak);
}

static const type *ix_ifexp(infer_ctx *ic, node *e) {
  ix_condition(ic, e->a);
  const type *a = ix_expr(ic, e->b), *b = ix_expr(ic, e->c);
  if (!a || !b) return NULL;
  bool w;
  const type *t = unify(ic, a, e->b->weak, b, e->c->weak, &w);
  if (!t) {
    ix_error(ic, e->sp, "both branches of a conditional expression must have compatible types "
         "(%s and %s)", ix_tname(ic, a), ix_tname(ic, b));
    return NULL;
  }
  return ix_set_type(e, t, w);
}

static const type *ix_tuple(infer_ctx *ic, node *e) {
  const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)(e->list.len + 1));
  bool ok = true;
  for (int i = 0; i < e->list.len; i++) {
    el[i] = ix_expr(ic, e->list.items[i]);
    if (!el[i]) ok = false;
    else if (el[i]->kind == TY_ARRAY || el[i]->kind == TY_TUPLE) {
      ix_error(ic, e->list.items[i]->sp, "tuples may only hold numbers and bools, not %s",
           ix_tname(ic, el[i]));
      ok = false;
    }
  }
  return ok ? ix_set_type(e, type_tuple(ic->ar, el, e->list.len), false) : NULL;
}

/* ---- calls -------------------------------------------------------------------------------- */

static fn_instance *instantiate(infer_ctx *ic, func_def *fn, const type **args, int n,
                                bitset omitted, span site);

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

static void mark_written_arg(infer_ctx *ic, node *arr) {
  if (arr->sym && arr->sym->is_param) mark_param_written(ic->cur, arr->sym->param_index);
}

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
  if (b->flags & BF_WRITES_ARG0) mark_written_arg(ic, e->list.items[0]);
  return t;
}

/* z.conjugate(): methods are the registry's rows whose path starts with '.'; only
 * numbers have them (arrays have none). */
static const type *ix_method(infer_ctx *ic, node *e, const type *bt) {
  node *callee = e->a;
  const builtin *b = builtin_find(arena_printf(ic->ar, ".%s", callee->str));
  if (b && type_is_numeric(bt)) return ix_builtin_call(ic, e, b);
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

static const type *ix_func_call(infer_ctx *ic, node *e, func_def *fn) {
  if (fn->kind == FN_KERNEL) {
    ix_error(ic, e->sp, "kernel '%s' cannot be called from device code; only device "
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
  return ix_set_type(e, inst->ret, false);
}

static const type *ix_call(infer_ctx *ic, node *e) {
  node *callee = e->a;
  if (callee->kind == N_NAME) {
    func_def *fn = find_func(ic, callee->str);
    if (fn && !find_local(ic->cur, callee->str)) return ix_func_call(ic, e, fn);
  }
  const char *p = ix_dotted_path(ic, callee);
  if (!p) {
    if (callee->kind == N_NAME && !find_local(ic->cur, callee->str) &&
        !ix_find_const(ic, callee->str)) {
      ix_error(ic, callee->sp, "undefined function '%s'", callee->str);
    } else if (callee->kind == N_ATTR) {
      const type *bt = ix_expr(ic, callee->a);
      if (bt) return ix_method(ic, e, bt);
    } else {
      ix_error(ic, callee->sp, "this value cannot be called");
    }
    ix_args(ic, e);
    return NULL;
  }
  const type *cast = ix_type_from_path(p);
  if (cast) {
    e->bi = &builtin_type_cast;
    return ix_cast(ic, e, cast, p);
  }
  const builtin *b = builtin_find(p);
  if (!b) {
    if (callee->kind == N_NAME) ix_error(ic, callee->sp, "undefined function '%s'", callee->str);
    else ix_error(ic, callee->sp, "unknown function '%s'", p);
    ix_args(ic, e);
    return NULL;
  }
  return ix_builtin_call(ic, e, b);
}

const type *ix_expr(infer_ctx *ic, node *e) {
  e->weak = false;
  switch (e->kind) {
  case N_INT: return ix_set_type(e, e->big ? &ty_u64 : &ty_i64, true);
  case N_FLOAT: return ix_set_type(e, &ty_f64, true);
  case N_BOOL: return ix_set_type(e, &ty_bool, false);
  case N_STR:
    ix_error(ic, e->sp, "strings are only allowed as docstrings here");
    return NULL;
  case N_NONE:
    ix_error(ic, e->sp, "None is only allowed in 'return None'");
    return NULL;
  case N_IMAG: return ix_set_type(e, &ty_c128, true);
  case N_COMPLEX: return ix_set_type(e, &ty_c128, true);   /* a folded default */
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
    ix_error(ic, e->sp, "lists are not supported in kernels; use a tuple or an array");
    return NULL;
  case N_SLICE:
    ix_error(ic, e->sp, "slices are only allowed inside an index");
    return NULL;
  default:
    ix_error(ic, e->sp, "unexpected %s in an expression", node_kind_name(e->kind));
    return NULL;
  }
}

/* ---- statements ---------------------------------------------------------------------------- */

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value);

static void ix_store_element(infer_ctx *ic, node *t, const type *vt) {
  const type *et = ix_index(ic, t);
  node *base = t->a;
  if (base->ty && base->ty->kind == TY_TUPLE) {
    ix_error(ic, t->sp, "tuples are immutable: an element cannot be assigned");
    return;
  }
  if (base->sym && base->sym->kind == SYM_LOCAL) mark_written_arg(ic, base);
  if (base->sym && base->sym->kind == SYM_CONST)
    ix_error(ic, t->sp, "module constant '%s' cannot be modified", base->sym->name);
  if (base->sym && base->sym->is_shared && base->sym->value &&
      (base->sym->value->bi->flags & BF_READ_ONLY))
    ix_error(ic, t->sp, "'%s' is a constant array and cannot be modified", base->sym->name);
  if (et && et->kind == TY_ARRAY) {
    ix_error(ic, t->sp, "assignment to a slice is not supported: this index gives a %s view of "
         "%s; index every dimension to store an element", ix_tname(ic, et), ix_tname(ic, base->ty));
    return;
  }
  if (et && vt && !type_is_scalar(vt))
    ix_error(ic, t->sp, "cannot store %s into an element of %s", ix_tname(ic, vt),
         ix_tname(ic, base->ty));
}

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value) {
  switch (t->kind) {
  case N_NAME: {
    symbol *s = find_local(ic->cur, t->str);
    t->sym = s;
    if (value && value->kind == N_CALL && value->bi && (value->bi->flags & BF_NEW_ARRAY)) {
      if (s->ty && !s->is_shared && ic->report)
        ix_error(ic, t->sp, "'%s' is bound to a %s array and also to other values", s->name,
             value->bi->name);
      s->is_shared = true;
      s->value = value;
    } else if (s->is_shared && vt) {
      ix_error(ic, t->sp, "'%s' is bound to a shared or local array and cannot be reassigned",
           s->name);
      return;
    }
    if (s->is_param && vt && vt->kind == TY_ARRAY && !type_equal(vt, s->ty)) {
      ix_error(ic, t->sp, "cannot rebind array parameter '%s' to %s", s->name, ix_tname(ic, vt));
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
      ix_error(ic, t->sp, "cannot unpack %s into %d names", ix_tname(ic, vt), t->list.len);
      return;
    }
    if (vt->nelems != t->list.len) {
      ix_error(ic, t->sp, "cannot unpack a tuple of %d values into %d names", vt->nelems,
           t->list.len);
      return;
    }
    for (int i = 0; i < t->list.len; i++)
      ix_store_target(ic, t->list.items[i], vt->elems[i], false, NULL);
    return;
  }
  case N_INDEX: ix_store_element(ic, t, vt); return;
  case N_ATTR:
    ix_error(ic, t->sp, "cannot assign to an attribute");
    return;
  default:
    ix_error(ic, t->sp, "cannot assign to this expression");
  }
}

static void ix_assign(infer_ctx *ic, node *s) {
  const type *vt = ix_expr(ic, s->a);
  if (vt && vt->kind == TY_VOID) {
    ix_error(ic, s->a->sp, "this call returns no value");
    vt = NULL;
  }
  for (int i = 0; i < s->list.len; i++)
    ix_store_target(ic, s->list.items[i], vt, s->a->weak, s->a);
}

/* x op= v: typed as x = x op v, the element type kept for array stores. */
static void ix_augassign(infer_ctx *ic, node *s) {
  node *t = s->a;
  if (t->kind != N_NAME && t->kind != N_INDEX) {
    ix_error(ic, t->sp, "cannot use augmented assignment on this expression");
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
      ix_error(ic, t->sp, "'%s' is bound to a shared or local array and cannot be reassigned",
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
    ix_error(ic, s->a->sp, "only a name can be annotated");
    return;
  }
  if (t) ix_store_target(ic, s->a, t, false, NULL);
  if (s->c) {
    const type *vt = ix_expr(ic, s->c);
    if (vt && t && !type_is_scalar(vt) && !type_equal(vt, t))
      ix_error(ic, s->c->sp, "cannot assign %s to '%s' declared %s", ix_tname(ic, vt), s->a->str,
           ix_tname(ic, t));
  }
}

static void ix_for(infer_ctx *ic, node *s) {
  node *it = s->b;
  const char *p = it->kind == N_CALL ? ix_dotted_path(ic, it->a) : NULL;
  const builtin *b = p ? builtin_find(p) : NULL;
  if (!b || !(b->flags & BF_LOOP)) {
    ix_error(ic, it->sp, "for loops can only iterate over range(...)");
    ix_block(ic, &s->body);
    ix_block(ic, &s->orelse);
    return;
  }
  it->bi = b;
  const type *t = NULL;
  bool weak = true;
  if (ix_check_argc(ic, it, "range", 1, 3) && ix_args(ic, it)) {
    for (int i = 0; i < it->list.len; i++) {
      node *a = it->list.items[i];
      if (a->ty->kind != TY_INT && a->ty->kind != TY_BOOL) {
        ix_error(ic, a->sp, "range() needs integers, not %s", ix_tname(ic, a->ty));
        t = NULL;
        break;
      }
      bool w;
      t = t ? ix_promote(t, weak, NULL, a->ty, a->weak, a, &w) : a->ty;
      weak = i == 0 ? a->weak : w;
    }
  }
  if (t && t->kind == TY_BOOL) t = &ty_i64;
  it->ty = t;
  if (s->a->kind != N_NAME) {
    ix_error(ic, s->a->sp, "the target of a for loop over range() must be a single name");
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
    if (v) ix_error(ic, v->sp, "a kernel cannot return a value; write results into an array");
    return;
  }
  const type *t = v ? ix_expr(ic, v) : &ty_void;
  if (!t) return;
  if (t->kind == TY_ARRAY) {
    ix_error(ic, v->sp, "a device function cannot return an array");
    return;
  }
  if (!f->ret) {
    f->ret = t;
    ic->changed = true;
    return;
  }
  if ((f->ret->kind == TY_VOID) != (t->kind == TY_VOID)) {
    ix_error(ic, s->sp, "this function returns a value on some paths and nothing on others");
    return;
  }
  bool w;
  const type *u = unify(ic, f->ret, false, t, false, &w);
  if (!u) {
    ix_error(ic, s->sp, "this function returns %s here and %s elsewhere", ix_tname(ic, t),
         ix_tname(ic, f->ret));
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
      ix_error(ic, s->sp, "'%s' outside a loop", s->kind == N_BREAK ? "break" : "continue");
    return;
  case N_RETURN: ix_return(ic, s); return;
  case N_PASS: return;
  case N_FUNCDEF:
    ix_error(ic, s->sp, "nested functions are not supported; define '%s' at module level", s->str);
    return;
  case N_IMPORT: case N_IMPORTFROM:
    ix_error(ic, s->sp, "imports are only allowed at module level");
    return;
  default:
    ix_error(ic, s->sp, "unexpected %s statement", node_kind_name(s->kind));
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
  c->bi = NULL;
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
        ix_error(ic, s->where, "cannot infer a type for '%s'", s->name);
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
    ix_error(ic, site, "recursive call to '%s': recursion is not supported in kernels", fn->name);
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
      ix_error(ic, al->sp, "import the functions of '%s' by name: from %s import "
           "xoroshiro128p_uniform_float32, ...", al->str, al->str);
      continue;
    }
    if (!module_importable(al->str)) {
      ix_error(ic, al->sp, "cannot import module '%s' in a kernel file (available: math, cmath, "
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
    ix_error(ic, where, "internal compiler error: library module '%s' does not parse", mod);
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
      ix_error(ic, al->sp, "'%s' runs on the host: from C, make the states with "
           "kc_random_states(ctx, n, seed, &states)", al->str);
      continue;
    }
    if (!fn || fn->kind != FN_DEVICE || al->str[0] == '_') {
      ix_error(ic, al->sp, "cannot import name '%s' from '%s'", al->str, s->str);
      continue;
    }
    if (!al->str2 || strcmp(al->str2, al->str) == 0) continue;
    if (find_func(ic, al->str2)) {
      ix_error(ic, al->sp, "function '%s' is defined twice", al->str2);
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
    ix_error(ic, s->sp, "cannot import from module '%s' in a kernel file (available: math, "
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
      ix_error(ic, al->sp, "cannot import name '%s' from '%s'", al->str, s->str);
      continue;
    }
    bind_alias(ic, al->str2 ? al->str2 : al->str, path);
  }
}

static void module_constant(infer_ctx *ic, node *s) {
  if (s->list.len != 1 || ((node *)s->list.items[0])->kind != N_NAME) {
    ix_error(ic, s->sp, "module-level assignments must bind one name to a constant");
    return;
  }
  node *target = s->list.items[0];
  int errors_before = ic->d->nerrors;
  node *v = ix_fold(ic, s->a);
  if (!v) {
    if (ic->d->nerrors == errors_before)   /* folding said nothing more precise */
      ix_error(ic, s->a->sp, "module-level '%s' must be a constant expression (numbers, "
           "other constants and arithmetic)", target->str);
    return;
  }
  symbol *sym = ix_find_const(ic, target->str);
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
      ix_error(ic, ann->sp, "bad type annotation '%s'", ann->str);
      return NULL;
    }
    const type *el = type_from_dtype(st.dtype);
    return st.ndim ? type_array(ic->ar, el, st.ndim) : el;
  }
  node *base = ann->kind == N_INDEX ? ann->a : ann;
  const char *p = ix_dotted_path(ic, base);
  const type *el = p ? ix_type_from_path(p) : NULL;
  if (!el) {
    ix_error(ic, ann->sp, "unknown type in annotation");
    return NULL;
  }
  if (ann->kind != N_INDEX) return el;
  node_list single = {&ann->b, 1, 1};
  node_list *dims = ann->b->kind == N_TUPLE ? &ann->b->list : &single;
  for (int i = 0; i < dims->len; i++) {
    node *d = dims->items[i];
    if (d->kind != N_SLICE || d->a || d->b) {
      ix_error(ic, d->sp, "array annotations take ':' per dimension (e.g. float32[:, :])");
      return NULL;
    }
  }
  if (dims->len > KC_MAX_DIMS) {
    ix_error(ic, ann->sp, "arrays have at most %d dimensions", KC_MAX_DIMS);
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
    ix_error(ic, str->sp, "bad signature \"%s\": %s", str->str, err);
    return false;
  }
  return true;
}

static void add_kernel_sig(infer_ctx *ic, func_def *fn, node *str) {
  sig_parsed sp;
  if (!parse_sig_string(ic, str, &sp)) return;
  if (sp.has_ret && !sp.ret.is_void) {
    ix_error(ic, str->sp, "a kernel signature must return void");
    return;
  }
  if (sp.nparams != fn->def->params.len) {
    ix_error(ic, str->sp, "the signature has %d parameter%s but '%s' takes %d", sp.nparams,
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
    ix_error(ic, str->sp, "a vectorize signature is of scalars with a result: "
         "'float32(float32, float32)'");
    return;
  }
  if (sp.nparams != fn->def->params.len) {
    ix_error(ic, str->sp, "the signature has %d parameters but '%s' takes %d", sp.nparams,
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
      ix_error(ic, s->sp, "a signature must be a string such as \"void(float32[:], int32)\"");
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
    ix_error(ic, str->sp, "a signature must be a string such as \"float32(float32, float32)\"");
    return;
  }
  if (!parse_sig_string(ic, str, &sp)) return;
  bool ok = sp.nparams == 2 && sp.params[0].ndim == 0 && sp.params[1].ndim == 0 &&
            sp.params[0].dtype == sp.params[1].dtype && sp.params[0].dtype != KC_BOOL &&
            (!sp.has_ret || (!sp.ret.is_void && sp.ret.ndim == 0 &&
                             sp.ret.dtype == sp.params[0].dtype));
  if (!ok) {
    ix_error(ic, str->sp, "a @cuda.reduce signature is one number type T as 'T(T, T)', "
         "e.g. 'float32(float32, float32)'");
    return;
  }
  vec_push(ic->ar, &fn->sigs, reduce_kernel_sig(ic, type_from_dtype(sp.params[0].dtype)));
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
    ix_error(ic, dec->sp, "@guvectorize needs signatures and a layout, e.g. "
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
  const char *p = ix_dotted_path(ic, callee);
  const builtin *b = p ? builtin_find(p) : NULL;
  func_kind kind = b && b->kind == BK_DECORATOR ? (func_kind)b->op : FN_KERNEL;
  if (b && b->kind == BK_DECORATOR && !(b->flags & BF_DECORATOR_ARGS)) {
    fn->kind = kind;  /* @kernel, @device */
    return;
  }
  if (b && kind == FN_REDUCE) { classify_reduce(ic, fn, dec); return; }
  if (b && kind == FN_GUVECTORIZE) { classify_guvectorize(ic, fn, dec); return; }
  if (!b || b->kind != BK_DECORATOR) {
    ix_error(ic, dec->sp, "unknown decorator; use @cuda.jit, @cuda.jit(device=True), "
         "@vectorize, @kernel or @device");
    return;
  }
  fn->kind = kind;  /* @cuda.jit, @vectorize */
  if (dec->kind != N_CALL) return;
  for (int i = 0; i < dec->kwargs.len; i++) {
    node *kw = dec->kwargs.items[i];
    if (strcmp(kw->str, "device") == 0 && kw_true(kw)) fn->kind = FN_DEVICE;
    else if (!decorator_fastmath(ic, fn, kw)) decorator_target(ic, kw);
  }
  if (dec->list.len > 1) ix_error(ic, dec->list.items[1]->sp, "unexpected extra argument");
  if (dec->list.len >= 1 && fn->kind != FN_DEVICE) decorator_sigs(ic, fn, dec->list.items[0]);
  if (fn->kind == FN_VECTORIZE && dec->list.len == 0)
    ix_error(ic, dec->sp, "@vectorize needs a list of signatures, e.g. "
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
        ix_error(ic, ((node *)ps->items[i])->sp, "parameter '%s' of kernel '%s' has no type "
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
  if (find_func(ic, s->str)) {
    ix_error(ic, s->sp, "function '%s' is defined twice", s->str);
    return;
  }
  func_def *fn = arena_alloc(ic->ar, sizeof *fn);
  fn->def = s;
  fn->name = s->str;
  fn->kind = FN_DEVICE;
  int nd = s->decorators.len;
  if (nd > 1) stacked_decorators(ic, s);
  if (nd > 0) classify_decorator(ic, fn, s->decorators.items[nd - 1]);
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
      ix_error(ic, s->sp, "only imports, constants and function definitions are allowed at "
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
      ix_error(ic, span_none(), "--sig '%s': %s", text, err);
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
      ix_error(ic, span_none(), "--sig '%s': %s", text, sp.name[0] ? "no kernel of that name"
           : "name the kernel, e.g. --sig 'add(float32[:], int32)'");
      continue;
    }
    if (fn->kind == FN_REDUCE) {
      ptr_vec *v = sig_to_types(ic, &sp);
      if (!reduce_sig_ok(v))
        ix_error(ic, span_none(), "--sig '%s': the kernel of @cuda.reduce '%s' takes "
             "(T[:], T[:], T, bool) for a number type T", text, fn->name);
      else
        vec_push(ic->ar, &fn->sigs, v);
      continue;
    }
    if (sp.nparams != fn->def->params.len) {
      ix_error(ic, span_none(), "--sig '%s': kernel '%s' takes %d parameters", text, fn->name,
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
    ix_error(ic, f->fn->def->sp, "the parameters of kernel '%s' take %lld bytes; CUDA allows "
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

/* One vectorize signature: the scalar function instantiated (and its result checked
 * first, so a function without a numeric result is reported as such), then the kernel
 * kf compiled over 1-D arrays of those types, inputs then output, under the symbol and
 * parameter names runtime/vectorize.c reports: the function's name (with several
 * signatures, its mangled scalar name + "_ufunc"), "in0"... and "out". */
static void compile_vectorize_sig(infer_ctx *ic, func_def *fn, func_def *kf, int k) {
  ptr_vec *sig = fn->sigs.items[k];
  int nin = sig->len;
  const type **args = arena_alloc(ic->ar, sizeof *args * (size_t)(nin + 1));
  ptr_vec *ksig = arena_alloc(ic->ar, sizeof *ksig);
  for (int i = 0; i < nin; i++) {
    args[i] = sig->items[i];
    vec_push(ic->ar, ksig, (void *)type_array(ic->ar, args[i], 1));
  }
  vec_push(ic->ar, ksig, (void *)type_array(ic->ar, fn->rets.items[k], 1));
  bool saved = ic->report;
  ic->report = true;
  ic->cur = NULL;
  ic->fast_kernel = kf->fastmath || ic->opts->fastmath;
  fn_instance *scalar = instantiate(ic, fn, args, nin, (bitset){0}, fn->def->sp);
  ic->report = saved;
  if (!scalar) return;
  if (scalar->ret->kind == TY_VOID || !type_is_scalar(scalar->ret)) {
    ix_error(ic, fn->def->sp, "vectorized function '%s' must return a number", fn->name);
    return;
  }
  int before = ic->prog->kernels.len;
  compile_kernel(ic, kf, ksig, k);
  if (ic->prog->kernels.len == before) return;
  fn_instance *f = ic->prog->kernels.items[ic->prog->kernels.len - 1];
  f->symbol_name = fn->sigs.len > 1
      ? arena_printf(ic->ar, "%s_ufunc", mangle(ic, fn->name, args, nin)) : fn->name;
  for (int i = 0; i <= nin; i++) {
    node *p = f->def->params.items[i];
    p->str = i == nin ? "out" : arena_printf(ic->ar, "in%d", i);
  }
}

/* @vectorize: per signature, the elementwise kernel synthesised for it (synth.c). */
static void compile_vectorize(infer_ctx *ic, func_def *fn) {
  if (fn->sigs.len == 0) return;
  func_def *kf = arena_alloc(ic->ar, sizeof *kf);
  kf->def = synth_vectorize_kernel(ic->ar, ic->d, fn->name, fn->name, fn->def->params.len,
                                   fn->def->sp);
  if (!kf->def) {
    ix_error(ic, fn->def->sp, "internal compiler error: the vectorize kernel does not parse");
    return;
  }
  kf->kind = FN_KERNEL;
  kf->name = fn->name;
  kf->fastmath = fn->fastmath;
  fn->generated = kf;
  for (int k = 0; k < fn->sigs.len; k++) compile_vectorize_sig(ic, fn, kf, k);
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
    ix_error(ic, fn->def->sp, "internal compiler error: the reduction kernel does not parse");
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
  if (!gu_parse_layout(ic, fn->layout, &l, &why)) {
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
      compile_vectorize(ic, fn);
      continue;
    }
    if (fn->kind != FN_KERNEL) continue;
    if (fn->sigs.len == 0) {
      vec_push(ic->ar, &ic->prog->untyped, (void *)fn->name);
      ix_warn(ic, fn->def->sp, "kernel '%s' has no parameter types (annotations, a signature "
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

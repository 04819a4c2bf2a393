/*
 * fold.c — constant folding: module constants, literal arithmetic (integers with
 * Python's floor division and modulo, floats, complex numbers with Smith's division,
 * small integer powers), tuples, math.pi and the other registry constants. A folded
 * expression is a literal node (N_INT, N_FLOAT, N_BOOL, N_COMPLEX, N_TUPLE).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "builtins/builtin.h"
#include "signature.h"
#include "synth.h"
#include "typing.h"

/* ---- constant folding (module constants) -------------------------------------------- */

node *ix_const_int_node(infer_ctx *ic, int64_t v, span sp) {
  node *n = node_new(ic->ar, N_INT, sp);
  n->ival = v;
  return n;
}

node *ix_const_float_node(infer_ctx *ic, double v, span sp) {
  node *n = node_new(ic->ar, N_FLOAT, sp);
  n->fval = v;
  return n;
}

double ix_const_as_double(const node *n) {
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
  n->a = ix_const_float_node(ic, re, sp);
  n->b = ix_const_float_node(ic, im, sp);
  return n;
}

/* The parts of a folded number; a real one has imaginary part 0. */
static void const_parts(const node *n, double *re, double *im) {
  *re = n->kind == N_COMPLEX ? n->a->fval : ix_const_as_double(n);
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
  return const_complex(ic, ix_const_as_double(x), y ? ix_const_as_double(y) : 0.0, e->sp);
}

/* ---- typed constants: NumPy's scalars (np.float32(x)) ---- */

static int64_t wrap_int(int64_t v, const type *t) {
  if (t->bits == 64) return v;
  uint64_t m = ((uint64_t)1 << t->bits) - 1, u = (uint64_t)v & m;
  if (t->is_signed && (u >> (t->bits - 1))) u |= ~m;   /* sign-extend */
  return (int64_t)u;
}

static node *typed(node *n, const type *t) {
  n->aux = FOLD_TYPED;
  n->ty = t;
  return n;
}

node *ix_fold_cast(infer_ctx *ic, node *v, const type *t, span sp) {
  double re, im;
  const_parts(v, &re, &im);
  if (t->kind == TY_COMPLEX) {
    const type *pt = type_complex_part(t);
    return typed(const_complex(ic, type_round(re, pt), type_round(im, pt), sp), t);
  }
  if (t->kind == TY_BOOL) {
    node *b = node_new(ic->ar, N_BOOL, sp);
    b->ival = re != 0 || im != 0;
    return typed(b, t);
  }
  if (t->kind == TY_FLOAT) return typed(ix_const_float_node(ic, type_round(re, t), sp), t);
  /* an integer: a float truncates toward zero (NaN and out-of-range values, which C
     leaves undefined, give 0), then wraps to the width */
  int64_t iv;
  if (v->kind == N_INT || v->kind == N_BOOL) iv = v->big ? (int64_t)v->uval : v->ival;
  else if (!(fabs(re) < 18446744073709551616.0)) iv = 0;
  else iv = re < 0 ? (int64_t)re : (int64_t)(uint64_t)re;
  node *n = ix_const_int_node(ic, wrap_int(iv, t), sp);
  if (t == &ty_u64 && n->ival < 0) n->big = true, n->uval = (uint64_t)n->ival;
  return typed(n, t);
}

/* The type of a binary operation on constants one of which is typed: the kernel's
 * promotion, an untyped operand acting as a literal (np.float32(2) * 0.5 is float32). */
static const type *typed_result(infer_ctx *ic, const node *e, node *l, node *r) {
  bool lw = !ix_const_typed(l), rw = !ix_const_typed(r), weak;
  const type *lt = lw ? ix_const_type(ic, l) : l->ty, *rt = rw ? ix_const_type(ic, r) : r->ty;
  const type *t = ix_promote(lt, lw, l, rt, rw, r, &weak);
  if (e->op == OP_DIV && t->kind != TY_FLOAT && t->kind != TY_COMPLEX) t = &ty_f64;
  return t;
}

/* np.float32(x), int8(x), np.bool_(x) ...: a typed constant (x folded first). */
static node *fold_type_call(infer_ctx *ic, node *e, const type *t) {
  if (e->kwargs.len || e->list.len != 1) return NULL;
  node *x = ix_fold(ic, e->list.items[0]);
  if (!x || x->kind == N_TUPLE) return NULL;
  if (x->kind == N_COMPLEX && t->kind != TY_COMPLEX && t->kind != TY_BOOL) {
    ix_error(ic, e->sp, "a complex constant cannot be converted to %s (take .real first)",
         ix_tname(ic, t));
    return NULL;
  }
  return ix_fold_cast(ic, x, t, e->sp);
}

/* float('inf'), float('-inf'), float('nan'), float('1.5'): Python's spellings, which
 * strtod reads too; NULL for anything else. */
static node *fold_float_string(infer_ctx *ic, node *e) {
  if (e->list.len != 1 || e->kwargs.len || e->list.items[0]->kind != N_STR) return NULL;
  const char *text = e->list.items[0]->str;
  char *end;
  double v = strtod(text, &end);
  while (*end == ' ' || *end == '\t' || *end == '\n') end++;
  return end != text && *end == '\0' ? ix_const_float_node(ic, v, e->sp) : NULL;
}

/* A.reshape(3, 4), np.arange(12).astype(np.float32): a method of a module array, by
 * its row's fold (builtins/module_arrays.c). */
static node *fold_method_call(infer_ctx *ic, node *e) {
  if (e->a->kind != N_ATTR) return NULL;
  node *base = ix_fold(ic, e->a->a);
  if (!base || !ix_const_is_array(base)) return NULL;
  const builtin *b = builtin_find(ic->builtins, arena_printf(ic->ar, ".%s", e->a->str));
  return b && (b->flags & BF_FOLD) && (b->flags & BF_ARRAY_METHOD) ? b->fold(ic, e, b) : NULL;
}

static node *fold_call(infer_ctx *ic, node *e) {
  const char *p = ix_dotted_path(ic, e->a);
  if (!p) return fold_method_call(ic, e);
  if (strcmp(p, "complex") == 0) return fold_complex_call(ic, e);
  node *f = strcmp(p, "float") == 0 ? fold_float_string(ic, e) : NULL;
  if (f) return f;
  const type *t = ix_type_from_path(p);
  if (t) return fold_type_call(ic, e, t);
  const builtin *b = builtin_find(ic->builtins, p);
  if (b && (b->flags & BF_FOLD)) return b->fold(ic, e, b);   /* np.array, np.dtype ... */
  return b ? ix_fold_elementary(ic, e, p) : NULL;   /* math.cos(0.5), np.sqrt(A) */
}


static node *fold_binop(infer_ctx *ic, node *e, node *l, node *r) {
  node *v = ix_fold_binop_untyped(ic, e, l, r);
  if (!v || !(ix_const_typed(l) || ix_const_typed(r))) return v;
  return ix_fold_cast(ic, v, typed_result(ic, e, l, r), e->sp);
}

node *ix_fold_binop_untyped(infer_ctx *ic, node *e, node *l, node *r) {
  if (l->kind == N_COMPLEX || r->kind == N_COMPLEX) return fold_complex_binop(ic, e, l, r);
  bool fl = l->kind == N_FLOAT || r->kind == N_FLOAT || e->op == OP_DIV;
  if (l->kind == N_BOOL) l = ix_const_int_node(ic, l->ival, l->sp);
  if (r->kind == N_BOOL) r = ix_const_int_node(ic, r->ival, r->sp);
  if (fl) {
    double a = ix_const_as_double(l), b = ix_const_as_double(r);
    switch (e->op) {
    case OP_ADD: return ix_const_float_node(ic, a + b, e->sp);
    case OP_SUB: return ix_const_float_node(ic, a - b, e->sp);
    case OP_MUL: return ix_const_float_node(ic, a * b, e->sp);
    case OP_POW: return ix_const_float_node(ic, pow(a, b), e->sp);
    case OP_DIV: case OP_FLOORDIV: case OP_MOD:
      if (b == 0) { ix_error(ic, e->sp, "division by zero in a constant expression"); return NULL; }
      if (e->op == OP_DIV) return ix_const_float_node(ic, a / b, e->sp);
      if (e->op == OP_FLOORDIV) return ix_const_float_node(ic, floor(a / b), e->sp);
      { double m = fmod(a, b); if (m != 0 && ((m < 0) != (b < 0))) m += b;
        return ix_const_float_node(ic, m, e->sp); }
    default: return NULL;
    }
  }
  int64_t a = l->ival, b = r->ival;
  switch (e->op) {
  case OP_ADD: return ix_const_int_node(ic, (int64_t)((uint64_t)a + (uint64_t)b), e->sp);
  case OP_SUB: return ix_const_int_node(ic, (int64_t)((uint64_t)a - (uint64_t)b), e->sp);
  case OP_MUL: return ix_const_int_node(ic, (int64_t)((uint64_t)a * (uint64_t)b), e->sp);
  case OP_FLOORDIV: case OP_MOD:
    if (b == 0) { ix_error(ic, e->sp, "division by zero in a constant expression"); return NULL; }
    if (b == -1)
      return ix_const_int_node(ic, e->op == OP_MOD ? 0 : (int64_t)(0 - (uint64_t)a), e->sp);
    if (e->op == OP_FLOORDIV) return ix_const_int_node(ic, floordiv_i64(a, b), e->sp);
    return ix_const_int_node(ic, a - floordiv_i64(a, b) * b, e->sp);
  case OP_POW: {
    if (b < 0) return ix_const_float_node(ic, pow((double)a, (double)b), e->sp);
    uint64_t res = 1, base = (uint64_t)a;
    for (int64_t k = b; k > 0; k >>= 1) { if (k & 1) res *= base; base *= base; }
    return ix_const_int_node(ic, (int64_t)res, e->sp);
  }
  case OP_LSHIFT:
    return ix_const_int_node(ic, b >= 64 || b < 0 ? 0 : (int64_t)((uint64_t)a << b), e->sp);
  case OP_RSHIFT: return ix_const_int_node(ic, b >= 64 || b < 0 ? (a < 0 ? -1 : 0) : a >> b, e->sp);
  case OP_BITAND: return ix_const_int_node(ic, a & b, e->sp);
  case OP_BITOR: return ix_const_int_node(ic, a | b, e->sp);
  case OP_BITXOR: return ix_const_int_node(ic, a ^ b, e->sp);
  default: return NULL;
  }
}

/* -x, +x, ~x, not x on a folded number v */
node *ix_fold_unary(infer_ctx *ic, node *e, node *v) {
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
    return v->kind == N_FLOAT ? ix_const_float_node(ic, -v->fval, e->sp)
                              : ix_const_int_node(ic, (int64_t)(0 - (uint64_t)v->ival), e->sp);
  if (e->op == OP_INVERT && v->kind != N_FLOAT) return ix_const_int_node(ic, ~v->ival, e->sp);
  return NULL;
}

/* Python's + and * on sequences of constants: (1, 2) + (3,), [0.0] * 4, 4 * [0.0]. The
 * result is held to what a module array may hold (64 KiB of float64). */
#define FOLD_MAX_SEQUENCE 8192

static node *fold_sequence_op(infer_ctx *ic, node *e, node *l, node *r) {
  node *seq = l->kind == N_TUPLE ? l : r, *other = seq == l ? r : l;
  node *t = node_new(ic->ar, N_TUPLE, e->sp);
  if (e->op == OP_ADD && l->kind == N_TUPLE && r->kind == N_TUPLE) {
    if (l->list.len + r->list.len > FOLD_MAX_SEQUENCE) goto too_long;
    for (int i = 0; i < l->list.len; i++) node_push(ic->ar, &t->list, l->list.items[i]);
    for (int i = 0; i < r->list.len; i++) node_push(ic->ar, &t->list, r->list.items[i]);
    return t;
  }
  if (e->op != OP_MUL || other->kind != N_INT || ix_const_is_array(seq)) return NULL;
  int64_t k = other->ival < 0 ? 0 : other->ival;
  if (seq->list.len && k > FOLD_MAX_SEQUENCE / seq->list.len) goto too_long;
  for (int64_t j = 0; j < k; j++)
    for (int i = 0; i < seq->list.len; i++) node_push(ic->ar, &t->list, seq->list.items[i]);
  return t;
too_long:
  ix_error(ic, e->sp, "this sequence would hold more than %d elements", FOLD_MAX_SEQUENCE);
  return NULL;
}

/* ix_fold without a word: NULL when e is no constant, and nothing reported or counted. */
node *ix_fold_quietly(infer_ctx *ic, node *e) {
  diag_first why;
  diag_sink *loud = ic->d, quiet = diag_muted(loud, &why);
  int errors = ic->silent_errors;
  ic->d = &quiet;
  node *v = ix_fold(ic, e);
  ic->d = loud;
  ic->silent_errors = errors;
  return v;
}

/* Fold a constant expression to a literal node, or NULL if it is not constant. */
node *ix_fold(infer_ctx *ic, node *e) {
  switch (e->kind) {
  case N_INT: case N_FLOAT: case N_BOOL: case N_COMPLEX: return e;
  case N_IMAG: return const_complex(ic, 0.0, e->fval, e->sp);
  case N_CALL: return fold_call(ic, e);
  case N_NAME: {
    symbol *l = ix_find_local(ic->cur, e->str);   /* a literal instance's parameter */
    if (l) return l->literal;   /* any other local is a variable, shadowing a constant */
    symbol *s = ix_find_const(ic, e->str);
    if (s) return s->value;
    /* from math import pi: a builtin constant imported by name */
    const char *p = ix_alias_path(ic, e->str);
    const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
    return b && (b->flags & BF_CONSTANT) ? ix_const_float_node(ic, b->value, e->sp) : NULL;
  }
  case N_ATTR: {
    const char *p = ix_dotted_path(ic, e);
    if (!p) {   /* A.shape, np.dtype(np.int32).itemsize */
      node *size = ix_fold_dtype_itemsize(ic, e);
      node *base = size ? NULL : ix_fold(ic, e->a);
      return size ? size : base && ix_const_is_array(base) ? ix_fold_array_attr(ic, e, base) : NULL;
    }
    symbol *member = ix_find_const(ic, p);   /* Color.RED */
    if (member) return member->value;
    const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
    return b && (b->flags & BF_CONSTANT) ? ix_const_float_node(ic, b->value, e->sp) : NULL;
  }
  case N_UNARY: {
    node *v = ix_fold(ic, e->a);
    if (v && ix_const_is_array(v)) return ix_fold_array_unary(ic, e, v);
    if (!v || v->kind == N_TUPLE) return NULL;
    if (ix_const_typed(v) && e->op != OP_NOT) {   /* -np.float32(x) stays float32 */
      node *u = ix_fold_unary(ic, e, v);
      return u ? ix_fold_cast(ic, u, v->ty, e->sp) : NULL;
    }
    return ix_fold_unary(ic, e, v);
  }
  case N_BINOP: {
    node *l = ix_fold(ic, e->a), *r = ix_fold(ic, e->b);
    if (l && r && (ix_const_is_array(l) || ix_const_is_array(r)))
      return ix_fold_array_binop(ic, e, l, r);
    if (l && r && (l->kind == N_TUPLE || r->kind == N_TUPLE)) return fold_sequence_op(ic, e, l, r);
    if (!l || !r || l->big || r->big) return NULL;
    return fold_binop(ic, e, l, r);
  }
  case N_INDEX: {   /* A.shape[0], TABLE[2] */
    node *v = ix_fold(ic, e->a);
    node *i = v && e->b && e->b->kind != N_SLICE && e->b->kind != N_TUPLE ? ix_fold(ic, e->b) : NULL;
    return i ? ix_fold_index(ic, e, v, i) : NULL;
  }
  case N_LIST:   /* [4/9] + [1/36] * 4 at module level: a list of constants, as a tuple */
  case N_TUPLE: {
    node *t = node_new(ic->ar, N_TUPLE, e->sp);
    for (int i = 0; i < e->list.len; i++) {
      node *v = ix_fold(ic, e->list.items[i]);
      if (!v || ix_const_is_array(v)) return NULL;   /* no tuples of arrays */
      node_push(ic->ar, &t->list, v);
    }
    return t;
  }
  default: return NULL;
  }
}

const type *ix_const_type(infer_ctx *ic, node *v) {
  if (ix_const_typed(v)) return v->ty;
  switch (v->kind) {
  case N_INT: return v->big ? &ty_u64 : &ty_i64;
  case N_FLOAT: return &ty_f64;
  case N_COMPLEX: return &ty_c128;
  case N_BOOL: return &ty_bool;
  case N_TUPLE: {
    const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)(v->list.len + 1));
    for (int i = 0; i < v->list.len; i++) el[i] = ix_const_type(ic, v->list.items[i]);
    return type_tuple(ic->ar, el, v->list.len);
  }
  default: return NULL;
  }
}


/* ---- a local bound once to a constant ------------------------------------------------
 * `N = 100` in a kernel, then cuda.shared.array(N, int32): Numba types N as the literal
 * 100 (it is assigned once), so the shape is a constant. A name counts when the current
 * function binds it exactly once, by a plain assignment among the body's own top-level
 * statements before the use (`N = 100`, or `N, M = 100, 4` with a tuple written out),
 * to a value that folds to an integer or a tuple of them. */

typedef struct bind_count {
  const char *name;
  int binds;
  const node *assign;   /* the statement of the one plain assignment */
  node *value;          /* what it gives the name */
} bind_count;

/* The value a plain assignment s (one target) gives name: s's value for `name = v`,
 * the element for `a, name = x, y`; NULL for any other form. */
static node *assigned_value(const node *s, const char *name) {
  const node *t = s->list.items[0];
  if (t->kind == N_NAME) return strcmp(t->str, name) == 0 ? s->a : NULL;
  if (t->kind != N_TUPLE || s->a->kind != N_TUPLE || s->a->list.len != t->list.len)
    return NULL;
  for (int i = 0; i < t->list.len; i++) {
    const node *ti = t->list.items[i];
    if (ti->kind == N_NAME && strcmp(ti->str, name) == 0) return s->a->list.items[i];
  }
  return NULL;
}

static void count_target(const node *t, void *ud) {
  bind_count *c = ud;
  if (t->kind == N_NAME && strcmp(t->str, c->name) == 0) c->binds++;
  if (t->kind == N_TUPLE || t->kind == N_LIST)
    for (int i = 0; i < t->list.len; i++) count_target(t->list.items[i], ud);
  if (t->kind == N_STARRED) count_target(t->a, ud);
}

static bool count_stmt(const node *s, int loops, void *ud) {
  (void)loops;
  bind_count *c = ud;
  int before = c->binds;
  ast_assign_targets(s, count_target, ud);
  if (s->kind == N_FUNCDEF && strcmp(s->str, c->name) == 0) c->binds++;
  if (c->binds == before + 1 && s->kind == N_ASSIGN && s->list.len == 1) {
    c->assign = s;
    c->value = assigned_value(s, c->name);
  }
  return false;
}

static bool count_walrus(const node *n, void *ud) {
  bind_count *c = ud;
  if (n->kind == N_NAMEDEXPR && n->a->kind == N_NAME && strcmp(n->a->str, c->name) == 0)
    c->binds++;
  return false;
}

static bool before(span a, span b) {
  return a.line < b.line || (a.line == b.line && a.col < b.col);
}

static node *local_constant(infer_ctx *ic, node *name) {
  if (name->kind != N_NAME || !ic->cur || !ic->cur->def) return NULL;
  symbol *l = ix_find_local(ic->cur, name->str);
  if (!l || l->is_param) return NULL;
  const node *def = ic->cur->def;
  bind_count c = {name->str, 0, NULL, NULL};
  ast_visit_stmts(&def->body, count_stmt, &c);
  ast_visit_list(&def->body, count_walrus, &c);
  if (c.binds != 1 || !c.value || !before(c.assign->sp, name->sp)) return NULL;
  bool top_level = false;
  for (int i = 0; i < def->body.len; i++) top_level |= def->body.items[i] == c.assign;
  return top_level ? ix_fold_local_constant(ic, c.value) : NULL;
}

/* e folded as constants are, or else as a local bound once to a constant (each element
 * of a tuple written out in turn: (4, N), and each side of an operator: N // 25); an
 * integer or a tuple of them, or NULL. The assignment a name leads to is before it, so
 * the recursion ends. */
node *ix_fold_local_constant(infer_ctx *ic, node *e) {
  node *v = ix_fold_quietly(ic, e);
  if (!v && e->kind == N_NAME) v = local_constant(ic, e);
  if (!v && e->kind == N_BINOP) {   /* N // 25 */
    node *l = ix_fold_local_constant(ic, e->a), *r = l ? ix_fold_local_constant(ic, e->b) : NULL;
    v = r && l->kind == N_INT && r->kind == N_INT ? ix_fold_binop_untyped(ic, e, l, r) : NULL;
  }
  if (!v && e->kind == N_TUPLE) {
    v = node_new(ic->ar, N_TUPLE, e->sp);
    for (int i = 0; v && i < e->list.len; i++) {
      node *d = ix_fold_local_constant(ic, e->list.items[i]);
      if (d) node_push(ic->ar, &v->list, d);
      else v = NULL;
    }
  }
  bool ints = v && v->kind == N_TUPLE;
  for (int i = 0; ints && i < v->list.len; i++) ints = v->list.items[i]->kind == N_INT;
  return v && (v->kind == N_INT || ints) ? v : NULL;
}

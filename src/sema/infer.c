/*
 * infer.c — type inference: AST -> typed program (sema.h). This file is the stage's
 * entry (infer_program) and types expressions and statements; the stage's other files
 * are resolve.c (module level: imports, decorators, signatures), fold.c (constants)
 * and specialise.c (function instances), sharing typing.h.
 *
 * Module level: imports are checked and bound, constants folded, functions classified
 * by their decorators (kernel, device function, vectorize). Each kernel with types (from
 * annotations, its decorator's signature string, or --sig) is specialised; device
 * functions are specialised per call-site argument types, each specialisation typing
 * its own clone of the function's tree.
 *
 * Inside a function every local has one type, found by unification over all its
 * assignments. Loops make that a fixpoint: the body is walked silently until no local's
 * type changes, then once more with diagnostics on. Integers follow Numba 0.56.4's
 * typing (int64 or uint64 results, NumPy's promotion for locals); floats are
 * float32-first: a literal adopts a float operand's type, so `x * 2.0` stays float32
 * (docs/language.md "Type rules" has the tables).
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
 * complex64 is complex128, an integer + complex64 is complex64 (rule 3 of the floats). */
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

/* An integer or a bool: Numba's integer rules apply between two of these. */
static bool is_intlike(const type *t) { return t->kind == TY_INT || t->kind == TY_BOOL; }

/* The type two operands meet in: locals assigned both, min/max, comparisons, the
 * branches of `x if c else y`. Two integers (or bools) unify as Numba's
 * typing/context.py unify_pairs does: NumPy's promote_types, an integer literal
 * counting as the int64 (uint64 above 2^63 - 1) Numba types it as. Otherwise a weak
 * (literal) operand adopts the strong operand's float or complex type (kcc's rule 1). */
const type *ix_promote(const type *a, bool aw, const node *an, const type *b, bool bw,
                           const node *bn, bool *weak) {
  (void)an, (void)bn;
  *weak = aw && bw;
  if (aw == bw || (is_intlike(a) && is_intlike(b))) return promote_strong(a, b);
  const type *lit = aw ? a : b, *str = aw ? b : a;
  /* an imaginary literal with a float operand takes its width: x * 1j is complex64
     for a float32 x */
  if (lit->kind == TY_COMPLEX && str->kind != TY_COMPLEX)
    return str->kind == TY_FLOAT ? type_complex_of(str) : lit;
  if (str->kind == TY_COMPLEX) return str;
  if (lit->kind == TY_FLOAT && str->kind != TY_FLOAT) return lit;
  if (str->kind == TY_BOOL) return lit;
  return str;
}

static bool is_float64_widening(const type *a, const type *b, const type *r) {
  return r == &ty_f64 && ((a == &ty_f32) || (b == &ty_f32));
}

/* ---- locals ------------------------------------------------------------------------------ */

symbol *ix_new_local(infer_ctx *ic, fn_instance *f, const char *name, span where) {
  symbol *s = arena_alloc(ic->ar, sizeof *s);
  s->kind = SYM_LOCAL;
  s->name = name;
  s->where = where;
  vec_push(ic->ar, &f->locals, s);
  return s;
}

/* Names assigned anywhere in a function body are its locals (Python's rule). */
typedef struct locals_ctx { infer_ctx *ic; fn_instance *f; } locals_ctx;

static void collect_target_names(const node *t, void *ud) {
  locals_ctx *c = ud;
  if (!t) return;
  if (t->kind == N_NAME) {
    if (!ix_find_local(c->f, t->str)) ix_new_local(c->ic, c->f, t->str, t->sp);
  } else if (t->kind == N_TUPLE) {
    for (int i = 0; i < t->list.len; i++) collect_target_names(t->list.items[i], ud);
  }
}

static bool collect_here(const node *s, int loops, void *ud) {
  locals_ctx *c = ud;
  (void)loops;
  if (s->kind == N_FUNCDEF) {   /* an inner function: its name is a local, its body its own */
    if (!ix_find_local(c->f, s->str)) ix_new_local(c->ic, c->f, s->str, s->sp);
  } else {
    ast_assign_targets(s, collect_target_names, c);
  }
  return false;
}

void ix_collect_locals(infer_ctx *ic, fn_instance *f, node_list *body) {
  locals_ctx c = {ic, f};
  ast_visit_stmts(body, collect_here, &c);
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
  if (!t && ic->report) s->poisoned = true;
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
  symbol *s = ix_find_local(ic->cur, e->str);
  if (s) {
    e->sym = s;
    if (!s->ty && ic->report && !s->poisoned)
      ix_error(ic, e->sp, "'%s' is used but its type cannot be inferred (is it assigned before use?)",
           e->str);
    return ix_set_type(e, s->ty, s->weak);
  }
  s = ix_find_const(ic, e->str);
  if (s && ix_record_const(s->value, NULL)) {
    ix_error(ic, e->sp, "'%s' is a record type: it is used in signatures (%s[:]), not as a "
         "value", e->str, e->str);
    return NULL;
  }
  if (s) {
    e->sym = s;   /* a literal's type, unless NumPy's typed it (np.float32(x), arrays) */
    return ix_set_type(e, s->ty, s->ty && type_is_scalar(s->ty) && !ix_const_typed(s->value));
  }
  func_def *fn = ix_find_func(ic, e->str);
  if (fn) return ix_set_type(e, ix_funcval_func(ic, fn), false);   /* a function as a value */
  const char *p = ix_alias_path(ic, e->str);
  const builtin *b = p ? builtin_find(p) : NULL;
  const type *fv = ix_funcval_path(ic, p);   /* float32, or a builtin function, as a value */
  if (fv) return ix_set_type(e, fv, false);
  if (!b) {
    if (!ix_host_use_error(ic, e->sp, p)) ix_error(ic, e->sp, "undefined name '%s'", e->str);
    return NULL;
  }
  e->bi = b;
  ix_error(ic, e->sp, "'%s' is not a value", e->str);
  return NULL;
}

/* A builtin used as a value: cuda.threadIdx.x, math.pi. */
static const type *ix_builtin_value(infer_ctx *ic, node *e, const builtin *b) {
  const type *fv = ix_funcval_path(ic, b->path);   /* cuda.atomic.add as a value */
  if (fv) return ix_set_type(e, fv, false);
  e->bi = b;
  if (b->kind == BK_VALUE) return b->typing(ic, e, b);
  ix_error(ic, e->sp, "'%s' is not a value", ix_dotted_path(ic, e));
  return NULL;
}

static void mark_written(infer_ctx *ic, const node *n);

static const type *ix_attr(infer_ctx *ic, node *e) {
  if (e->aux == FV_CAPTURE) return e->ty;   /* typed by ix_bind_captures */
  const char *p = ix_dotted_path(ic, e);
  if (p) {
    const builtin *b = builtin_find(p);
    const type *fv = b ? NULL : ix_funcval_path(ic, p);   /* numba.float32 as a value */
    if (fv) return ix_set_type(e, fv, false);
    if (!b) {
      if (!ix_host_use_error(ic, e->sp, p)) ix_error(ic, e->sp, "unknown name '%s'", p);
      return NULL;
    }
    return ix_builtin_value(ic, e, b);
  }
  if (e->a->kind == N_INDEX) e->a->aux = REC_FIELD_BASE;   /* a[i].x only reads a[i] */
  const type *bt = ix_expr(ic, e->a);
  if (!bt) return NULL;
  if (bt->kind == TY_RECORD) return ix_record_field(ic, e, bt);
  if (bt->kind == TY_VECTOR) return ix_vector_attr(ic, e, bt);
  /* z.real, z.imag: a complex's parts; on a real number, itself and 0 (as in Python) */
  if (type_is_numeric(bt) && (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0)) {
    const type *pt = bt->kind == TY_COMPLEX ? type_complex_part(bt) : bt;
    return ix_set_type(e, pt, e->a->weak);
  }
  if (bt->kind == TY_ARRAY) {
    /* a complex array's parts: strided views of its floats, readable and writable */
    if (bt->elem->kind == TY_COMPLEX && (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0)) {
      mark_written(ic, e->a);
      return ix_set_type(e, type_array_layout(ic->ar, type_complex_part(bt->elem), bt->ndim, true), false);
    }
    if (strcmp(e->str, "shape") == 0) {
      const type *el[KC_MAX_DIMS];
      for (int k = 0; k < bt->ndim; k++) el[k] = &ty_i64;
      return ix_set_type(e, type_tuple(ic->ar, el, bt->ndim), false);
    }
    if (strcmp(e->str, "size") == 0) return ix_set_type(e, &ty_i64, false);
    if (strcmp(e->str, "ndim") == 0) return ix_set_type(e, &ty_i64, false);
  }
  const builtin *b = builtin_attribute(bt, e->str);   /* a.strides, a.T ... (arrays.c) */
  if (b) {
    e->bi = b;
    return b->typing(ic, e, b);
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

/* n names a parameter of the function being typed that is stored to (directly, through
 * a view, by an atomic, or by a callee): it loses the read-only treatment (noalias,
 * non-coherent loads). */
static void mark_written(infer_ctx *ic, const node *n) {
  if (n->kind == N_NAME && n->sym && n->sym->kind == SYM_LOCAL && n->sym->is_param)
    mark_param_written(ic->cur, n->sym->param_index);
}

/* A module array (np.array ... at module level) is frozen into the kernel as constant
 * data, read-only as Numba makes it: a store to it, an atomic on it, or passing it to a
 * device function that writes its parameter is an error at where. */
static bool is_module_array(const node *n) {
  return n->kind == N_NAME && n->sym && n->sym->kind == SYM_CONST && n->sym->value &&
         ix_const_is_array(n->sym->value);
}

static void module_array_written(infer_ctx *ic, const node *n, span where) {
  if (is_module_array(n))
    ix_error(ic, where, "module array '%s' is read-only in kernels (a global NumPy array "
         "is frozen into the kernel as a constant, as in Numba)", n->sym->name);
}

/* Slicing a parameter can write through the view: the parameter loses the read-only
 * (noalias, non-coherent cache) treatment. The view may be of a view: a[1:][::2],
 * a.T[0], a.view(t)[1:]. */
bool ix_mark_view_of(infer_ctx *ic, node *e) {
  node *root = e;
  for (;;) {
    if (root->kind == N_INDEX || root->kind == N_ATTR) root = root->a;
    else if (root->kind == N_CALL && root->a->kind == N_ATTR) root = root->a->a;
    else break;
  }
  mark_written(ic, root);
  if (is_module_array(root)) {   /* a view could be written, and the data is constant */
    ix_error(ic, e->sp, "views of module array '%s' are not supported: index every "
         "dimension (%s[i%s])", root->sym->name, root->sym->name, root->ty->ndim > 1 ? ", j" : "");
    return false;
  }
  return true;
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
  if (!ix_mark_view_of(ic, e)) return NULL;
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
    if (!ix_const_int(ic, e->b, &k)) return ix_tuple_index_dynamic(ic, e, bt);
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
  if (bt->elem->kind == TY_RECORD && e->aux != REC_FIELD_BASE)
    ix_record_written(ic, e);   /* a reference to the element, which may be written */
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

/* a ** b with complex operands of type t and an exponent that is not a small constant:
 * lib/kcc/cmath.k's _kc_cpow, instantiated for (t, t) and kept in e->aux_ptr (the
 * N_BINOP's) for cg_complex.c's cx_pow; false after an error. */
static bool complex_pow(infer_ctx *ic, node *e, const type *t) {
  const type *params[2] = {t, t};
  e->aux_ptr = ix_lib_instance(ic, IX_CMATH_MODULE, "_kc_cpow", params, 2, e->sp);
  return e->aux_ptr != NULL;
}

/* + - * / and ** are defined on complex numbers (of type t); //, %, shifts and bitwise
 * operators are not (Python raises TypeError). ** by a small constant multiplies, any
 * other exponent calls the library's complex power. */
static bool complex_op_ok(infer_ctx *ic, node *e, const type *a, const type *b,
                          const type *t) {
  switch (e->op) {
  case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: return true;
  case OP_POW: return small_exponent(e->b) || complex_pow(ic, e, t);
  default:
    ix_error(ic, e->sp, "operator %s is not defined for complex numbers (%s and %s)",
         op_symbol(e->op), ix_tname(ic, a), ix_tname(ic, b));
    return false;
  }
}

/* `a op b` on two integers (or bools), as Numba 0.56.4 types it (typing/builtins.py):
 * arithmetic and bitwise operators resolve to one of integer_binop_cases, whose result
 * (choose_result_int) is at least intp wide and signed when either operand is, so
 * int64 unless both operands are unsigned (uint64); an integer literal is int64 (uint64
 * above 2^63 - 1) and a bool counts as signed. Shifts (BitwiseShiftOperation) take the
 * left operand's signedness: uint64 for an unsigned one, else int64. & | ^ on two bools
 * stay bool (BitwiseLogicOperation); / is float64 (BinOpTrueDiv). */
static const type *int_binop_type(op_kind op, const type *a, const type *b) {
  bool au = a->kind == TY_INT && !a->is_signed, bu = b->kind == TY_INT && !b->is_signed;
  switch (op) {
  case OP_DIV: return &ty_f64;
  case OP_LSHIFT: case OP_RSHIFT: return au ? &ty_u64 : &ty_i64;
  case OP_BITAND: case OP_BITOR: case OP_BITXOR:
    if (a->kind == TY_BOOL && b->kind == TY_BOOL) return &ty_bool;
    break;
  default: break;
  }
  return au && bu ? &ty_u64 : &ty_i64;
}

/* Operands that are not numbers; arrays get a hint, as whole-array arithmetic (NumPy's
 * array expressions) is what a Python user may expect and Numba's kernels lack too. */
static void operand_error(infer_ctx *ic, node *e, const type *a, const type *b) {
  bool arrays = a->kind == TY_ARRAY || b->kind == TY_ARRAY;
  ix_error(ic, e->sp, "unsupported operand types for %s: %s and %s%s", op_symbol(e->op),
       ix_tname(ic, a), ix_tname(ic, b), arrays ? " (arithmetic on whole arrays is not "
       "supported in kernels: index the elements, e.g. a[i] or a[0])" : "");
}

static const type *ix_binop(infer_ctx *ic, node *e) {
  const type *a = ix_expr(ic, e->a), *b = ix_expr(ic, e->b);
  if (!a || !b) return NULL;
  if (!type_is_numeric(a) || !type_is_numeric(b)) {
    operand_error(ic, e, a, b);
    return NULL;
  }
  bool weak;
  const type *t = ix_promote(a, e->a->weak, e->a, b, e->b->weak, e->b, &weak);
  if (is_intlike(a) && is_intlike(b) && e->op != OP_MATMUL)
    return ix_set_type(e, int_binop_type(e->op, a, b), weak);
  if (t->kind == TY_COMPLEX && !complex_op_ok(ic, e, a, b, t)) return NULL;
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
    break;
  case OP_MATMUL:
    ix_error(ic, e->sp, "the @ operator is not supported in kernels");
    return NULL;
  default:
    break;
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
  /* Numba's UnaryOp and BitwiseInvert: an integer becomes int64, an unsigned one uint64
     (choose_result_int); -bool and +bool are intp, ~bool is bool */
  if (t->kind == TY_INT) t = t->is_signed ? &ty_i64 : &ty_u64;
  else if (t->kind == TY_BOOL && e->op != OP_INVERT) t = &ty_i64;
  return ix_set_type(e, t, e->a->weak);
}

/* Whether the integer literal lit (or -lit) holds a value of integer type t. */
static bool literal_fits(const node *lit, const type *t) {
  const node *n = lit;
  bool neg = false;
  if (n->kind == N_UNARY && n->op == OP_NEG) { neg = true; n = n->a; }
  if (n->kind != N_INT || t->kind != TY_INT) return false;
  if (n->big) return !neg && !t->is_signed && t->bits == 64;
  int64_t v = neg ? -n->ival : n->ival;
  if (!t->is_signed) return v >= 0 && (t->bits == 64 || v < ((int64_t)1 << t->bits));
  if (t->bits == 64) return true;
  int64_t lim = (int64_t)1 << (t->bits - 1);
  return v >= -lim && v < lim;
}

/* The type a pair of operands is compared in. Numba compares two integers in a type
 * holding both (the result is exact), except a signed one (a literal included) with a
 * uint64, which it compares in float64 (OrderedCmpOp's float64 signature rates best:
 * two safe conversions against an unsafe one): ix_promote gives these. An integer
 * literal that fits the other operand's type is compared in that type instead: the
 * same exact result, and narrower code (i >= 2 stays a 32-bit comparison for an int32
 * i, which keeps LLVM's knowledge of i's sign). */
static const type *compare_type(const node *l, const node *r) {
  bool w;
  const type *t = ix_promote(l->ty, l->weak, l, r->ty, r->weak, r, &w);
  if (t->kind != TY_INT || l->weak == r->weak) return t;
  const node *lit = l->weak ? l : r, *other = l->weak ? r : l;
  return other->ty->kind == TY_INT && literal_fits(lit, other->ty) ? other->ty : t;
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
    pair[i] = compare_type(l, r);
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
    mark_written(ic, e->list.items[0]);
    module_array_written(ic, e->list.items[0], e->sp);
  }
  return t;
}

/* z.conjugate(): methods are the registry's rows whose path starts with '.'; only
 * numbers have them, cooperative groups theirs (BF_GROUP), and arrays those flagged
 * BF_ARRAY_METHOD (builtins/arrays.c). */
static const type *ix_method(infer_ctx *ic, node *e, const type *bt) {
  node *callee = e->a;
  const builtin *b = builtin_find(arena_printf(ic->ar, ".%s", callee->str));
  bool on_array = bt->kind == TY_ARRAY;
  if (b && b->kind == BK_METHOD &&
      ((b->flags & BF_GROUP)         ? bt->kind == TY_GROUP
       : (b->flags & BF_ARRAY_METHOD) ? on_array
                                      : type_is_numeric(bt)))
    return ix_builtin_call(ic, e, b);
  if (on_array && ix_array_method_refused(ic, callee, bt)) return NULL;
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
  fn_instance *inst = ix_instantiate(ic, fn, args, n, omitted, e->sp);
  if (!inst) return NULL;
  e->aux_ptr = inst;
  /* an array the callee writes is written by the caller too: a parameter passed
     on must not be compiled as read-only (noalias, ld.global.nc) */
  for (int i = 0; i < n; i++) {
    node *a = e->params.items[i];
    if (param_written(inst, i)) {
      mark_written(ic, a);
      module_array_written(ic, a, a->sp);
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
    e->bi = &builtin_type_cast;
    return ix_cast(ic, e, ft->elem, ft->fv_name);
  }
  return ix_func_call(ic, e, (func_def *)ft->fv);
}

static const type *ix_call(infer_ctx *ic, node *e) {
  node *callee = e->a;
  symbol *local = callee->kind == N_NAME ? ix_find_local(ic->cur, callee->str) : NULL;
  if (local && local->ty && local->ty->kind == TY_FUNCVAL) return ix_value_call(ic, e);
  if (local && local->poisoned && !local->ty) {   /* its error was reported */
    ix_args(ic, e);
    return NULL;
  }
  if (callee->kind == N_NAME) {
    func_def *fn = ix_find_func(ic, callee->str);
    if (fn && !ix_find_local(ic->cur, callee->str)) return ix_func_call(ic, e, fn);
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
  if (vec_type_from_path(p)) {   /* float32x4(...), float4(...) */
    e->bi = &builtin_vector_ctor;
    return builtin_vector_ctor.typing(ic, e, &builtin_vector_ctor);
  }
  const type *cast = ix_type_from_path(p);
  if (cast) {
    e->bi = &builtin_type_cast;
    return ix_cast(ic, e, cast, p);
  }
  const builtin *b = builtin_find(p);
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

const type *ix_expr(infer_ctx *ic, node *e) {
  e->weak = false;
  bool literal = e->kind == N_INT || e->kind == N_FLOAT || e->kind == N_BOOL || e->kind == N_COMPLEX;
  if (literal && ix_const_typed(e)) return ix_set_type(e, e->ty, false);   /* np.int8(3) folded */
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
  mark_written(ic, base);
  if (base->sym && base->sym->kind == SYM_CONST && ix_const_is_array(base->sym->value))
    module_array_written(ic, base, t->sp);
  else if (base->sym && base->sym->kind == SYM_CONST)
    ix_error(ic, t->sp, "module constant '%s' cannot be modified", base->sym->name);
  if (base->sym && base->sym->is_shared && base->sym->value &&
      (base->sym->value->bi->flags & BF_READ_ONLY))
    ix_error(ic, t->sp, "'%s' is a constant array and cannot be modified", base->sym->name);
  if (et && et->kind == TY_ARRAY) {   /* a[1:] = v: broadcast or copied (cg_slices.c) */
    if (vt && vt->kind == TY_ARRAY && vt->ndim > et->ndim)
      ix_error(ic, t->sp, "cannot assign %s to a slice of %d dimension%s (%s): the source has "
           "more dimensions than the view", ix_tname(ic, vt), et->ndim, et->ndim == 1 ? "" : "s",
           ix_tname(ic, et));
    else if (vt && vt->kind != TY_ARRAY && !type_is_scalar(vt))
      ix_error(ic, t->sp, "cannot store %s into a slice of %s", ix_tname(ic, vt), ix_tname(ic, base->ty));
    return;
  }
  if (et && vt && et->kind == TY_RECORD && !type_equal(et, vt))
    ix_error(ic, t->sp, "cannot store %s into an element of %s (records are copied whole "
         "only from the same record type)", ix_tname(ic, vt), ix_tname(ic, base->ty));
  else if (et && vt && !type_is_scalar(vt) && et->kind != TY_RECORD)
    ix_error(ic, t->sp, "cannot store %s into an element of %s", ix_tname(ic, vt),
         ix_tname(ic, base->ty));
}

static void ix_store_target(infer_ctx *ic, node *t, const type *vt, bool weak, node *value) {
  switch (t->kind) {
  case N_NAME: {
    symbol *s = ix_find_local(ic->cur, t->str);
    t->sym = s;
    if (s->value && s->value->kind == N_FUNCDEF) {
      ix_error(ic, t->sp, "'%s' names an inner function (defined at line %d) and cannot be "
           "reassigned", s->name, s->value->sp.line);
      return;
    }
    if (value && vt && vt->kind == TY_FUNCVAL) ix_closure_copy_check(ic, t, value);
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
  case N_ATTR: ix_record_store(ic, t, vt); return;
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
  if (t->kind != N_NAME && t->kind != N_INDEX && t->kind != N_ATTR) {
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
  } else if (t->kind == N_ATTR) {
    ix_record_store(ic, t, rt);
  } else {
    ix_store_element(ic, t, rt);
  }
}


static void ix_annassign(infer_ctx *ic, node *s) {
  const type *t = ix_annotation_type(ic, s->b);
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

/* How well an integer argument fits a formal integer parameter, Numba's Conversion
 * kinds (typeconv/rules.py, closed over its cast graph): exact, promote (same
 * signedness, wider), safe (a bool to any integer, an unsigned to a wider signed) or
 * unsafe (anything else). An integer literal converts as int64 (uint64 above 2^63 - 1)
 * does, but never better than promote (types/scalars.py IntegerLiteral). */
enum { CONV_EXACT, CONV_PROMOTE, CONV_SAFE, CONV_UNSAFE };

static int int_conversion(const type *from, bool literal, const type *to) {
  int c;
  if (type_equal(from, to)) c = CONV_EXACT;
  else if (from->kind == TY_BOOL) c = CONV_SAFE;
  else if (from->is_signed == to->is_signed) c = to->bits > from->bits ? CONV_PROMOTE : CONV_UNSAFE;
  else if (!from->is_signed && to->bits > from->bits) c = CONV_SAFE;
  else c = CONV_UNSAFE;
  return literal && c < CONV_PROMOTE ? CONV_PROMOTE : c;
}

/* The type range(...) counts in, as Numba's Range template resolves it
 * (typing/builtins.py): of its three signatures, all-int32 (range_state32), all-int64
 * and all-uint64, the one whose conversions rate best (fewest unsafe, then safe, then
 * promote conversions; the first on a tie, typing/context.py resolve_overload). So
 * range(n) counts in int32 for an int32 n, range(0, n) in int64 (the literal is int64),
 * range(u) in uint64 for an unsigned u. */
static const type *range_type(node *it) {
  static const type *const formal[3] = {&ty_i32, &ty_i64, &ty_u64};
  const type *best = NULL;
  int best_rate[3] = {0, 0, 0};
  for (int k = 0; k < 3; k++) {
    int rate[3] = {0, 0, 0}; /* unsafe, safe, promote */
    for (int i = 0; i < it->list.len; i++) {
      node *a = it->list.items[i];
      int c = int_conversion(a->ty, a->weak && a->ty->kind == TY_INT, formal[k]);
      if (c == CONV_UNSAFE) rate[0]++;
      else if (c == CONV_SAFE) rate[1]++;
      else if (c == CONV_PROMOTE) rate[2]++;
    }
    int d = rate[0] != best_rate[0] ? rate[0] - best_rate[0]
          : rate[1] != best_rate[1] ? rate[1] - best_rate[1] : rate[2] - best_rate[2];
    if (!best || d < 0) {
      best = formal[k];
      for (int j = 0; j < 3; j++) best_rate[j] = rate[j];
    }
  }
  return best;
}

/* range(...)'s arguments checked (one to three integers): the type it counts in, or
 * NULL after an error. */
const type *ix_range_args(infer_ctx *ic, node *it) {
  bool ok = ix_check_argc(ic, it, "range", 1, 3) && ix_args(ic, it);
  for (int i = 0; ok && i < it->list.len; i++) {
    node *a = it->list.items[i];
    if (!is_intlike(a->ty)) {
      ix_error(ic, a->sp, "range() needs integers, not %s%s", ix_tname(ic, a->ty),
           a->kind == N_ATTR && strcmp(a->str, "shape") == 0
               ? " (.shape is a tuple: write .shape[0] for the first dimension)" : "");
      ok = false;
    }
  }
  return it->ty = ok ? range_type(it) : NULL;
}

/* for over range(...) here; over anything else (arrays, tuples, enumerate, zip,
 * reversed) in infer_loops.c. */
static void ix_for(infer_ctx *ic, node *s) {
  node *it = s->b;
  const char *p = it->kind == N_CALL ? ix_dotted_path(ic, it->a) : NULL;
  const builtin *b = p ? builtin_find(p) : NULL;
  s->aux_ptr = NULL;
  if (!b || strcmp(b->path, "range") != 0 || s->a->kind != N_NAME) {
    ix_for_iter(ic, s);
    return;
  }
  it->bi = b;
  const type *t = ix_range_args(ic, it);
  ix_store_target(ic, s->a, t, false, NULL);
  ic->loop_depth++;
  ix_block(ic, &s->body);
  ic->loop_depth--;
  ix_block(ic, &s->orelse);
}

void ix_store(infer_ctx *ic, node *t, const type *vt) { ix_store_target(ic, t, vt, false, NULL); }

void ix_mark_written(infer_ctx *ic, const node *n) {
  node *root = (node *)n;
  while (root->kind == N_INDEX) root = root->a;
  mark_written(ic, root);
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
  if (!t) {
    f->ret_failed = ic->report;
    return;
  }
  if (t->kind == TY_ARRAY || t->kind == TY_FUNCVAL) {
    ix_error(ic, v->sp, "a device function cannot return %s",
             t->kind == TY_ARRAY ? "an array" : "a function (call it here instead)");
    f->ret_failed = ic->report;
    return;
  }
  if (f->ret_declared) {   /* converted to the signature's result */
    if (!type_equal(t, f->ret) && !(type_is_scalar(t) && type_is_scalar(f->ret)))
      ix_error(ic, v ? v->sp : s->sp, "'%s' is declared to return %s, not %s", f->fn->name,
           ix_tname(ic, f->ret), ix_tname(ic, t));
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
  case N_ASSERT: case N_RAISE: ix_check_stmt(ic, s); return;
  case N_FUNCDEF: ix_inner_def(ic, s); return;
  case N_IMPORT: case N_IMPORTFROM:
    ix_error(ic, s->sp, "imports are only allowed at module level");
    return;
  default:
    ix_error(ic, s->sp, "unexpected %s statement", node_kind_name(s->kind));
  }
}

void ix_block(infer_ctx *ic, node_list *body) {
  for (int i = 0; i < body->len; i++) ix_stmt(ic, body->items[i]);
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
  ix_module_level(&ic, module);
  for (int i = 0; i < out->funcs.len; i++) ix_fold_defaults(&ic, out->funcs.items[i]);
  ix_apply_cli_sigs(&ic);
  ix_compile_functions(&ic);
  return d->nerrors - before;
}


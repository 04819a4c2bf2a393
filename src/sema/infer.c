/*
 * infer.c — type inference: AST -> typed program (sema.h). This file is the stage's
 * entry (infer_program) and types expressions (statements are infer_stmts.c's); the
 * stage's other files are scope.c (what a name means), resolve.c (module level:
 * imports, decorators, signatures), fold.c (constants) and specialise.c (function
 * instances), sharing typing.h.
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
  if (!ic->report) {
    ic->silent_errors++;
    return;
  }
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
  if (a->kind == TY_FLOAT && b->kind == TY_FLOAT) {
    if (a->bits == 16 && b->bits == 16 && a->bfloat != b->bfloat)
      return &ty_f32;   /* bfloat16 with float16: float32 holds both */
    return a->bits >= b->bits ? a : b;
  }
  if (a->kind == TY_FLOAT) return a;
  if (b->kind == TY_FLOAT) return b;
  if (a->is_signed == b->is_signed) return a->bits >= b->bits ? a : b;
  const type *s = a->is_signed ? a : b, *u = a->is_signed ? b : a;
  if (s->bits > u->bits) return s;
  if (u->bits < 64) return int_type(u->bits * 2, true);
  return &ty_f64;
}

/* An integer or a bool: Numba's integer rules apply between two of these. */
bool ix_is_intlike(const type *t) { return t->kind == TY_INT || t->kind == TY_BOOL; }

/* The type two operands meet in: locals assigned both, min/max, comparisons, the
 * branches of `x if c else y`. Two integers (or bools) unify as Numba's
 * typing/context.py unify_pairs does: NumPy's promote_types, an integer literal
 * counting as the int64 (uint64 above 2^63 - 1) Numba types it as. Otherwise a weak
 * (literal) operand adopts the strong operand's float or complex type (kcc's rule 1). */
const type *ix_promote(const type *a, bool aw, const node *an, const type *b, bool bw,
                           const node *bn, bool *weak) {
  (void)an, (void)bn;
  *weak = aw && bw;
  if (aw == bw || (ix_is_intlike(a) && ix_is_intlike(b))) return promote_strong(a, b);
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

const type *ix_unify(infer_ctx *ic, const type *a, bool aw, const type *b, bool bw,
                     bool *weak) {
  *weak = aw && bw;
  if (type_equal(a, b)) return a;
  if (a->kind == TY_OPTIONAL || b->kind == TY_OPTIONAL) {   /* r = f() ... r = 0 */
    bool w;
    const type *u = ix_unify(ic, a->kind == TY_OPTIONAL ? a->elem : a, false,
                             b->kind == TY_OPTIONAL ? b->elem : b, false, &w);
    *weak = false;
    return u && type_is_scalar(u) ? type_optional(ic->ar, u) : NULL;
  }
  if (type_is_numeric(a) && type_is_numeric(b)) {
    const type *t = ix_promote(a, aw, NULL, b, bw, NULL, weak);
    return t;
  }
  if (a->kind == TY_TUPLE && b->kind == TY_TUPLE && a->nelems == b->nelems) {
    const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)a->nelems);
    for (int i = 0; i < a->nelems; i++) {
      bool w;
      el[i] = ix_unify(ic, a->elems[i], false, b->elems[i], false, &w);
      if (!el[i]) return NULL;
    }
    *weak = false;
    return type_tuple(ic->ar, el, a->nelems);
  }
  return NULL;
}

void ix_assign_local(infer_ctx *ic, symbol *s, const type *t, bool weak, span sp) {
  if (!t && ic->report) s->poisoned = true;
  if (!t || t->kind == TY_VOID) return;
  if (!s->ty) {
    s->ty = t;
    s->weak = weak;
    ic->changed = true;
    return;
  }
  bool w;
  const type *u = ix_unify(ic, s->ty, s->weak, t, weak, &w);
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
void ix_condition(infer_ctx *ic, node *c) {
  const type *t = ix_expr(ic, c);
  if (t && !type_is_scalar(t))
    ix_error(ic, c->sp, "a condition must be a number or bool, not %s", ix_tname(ic, t));
}

static const type *ix_builtin_value(infer_ctx *ic, node *e, const builtin *b);

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
  const builtin *b = p ? builtin_find(ic->builtins, p) : NULL;
  const type *fv = ix_funcval_path(ic, p);   /* float32, or a builtin function, as a value */
  if (fv) return ix_set_type(e, fv, false);
  if (!b) {
    if (!ix_host_use_error(ic, e->sp, p)) ix_error(ic, e->sp, "undefined name '%s'", e->str);
    return NULL;
  }
  if (b->kind == BK_VALUE) return ix_builtin_value(ic, e, b);   /* from math import pi */
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


/* Color['RED']: an enum's member looked up by name, the constant "Color.RED" (resolve.c
 * binds an enum's members so); e becomes that name. 1: so; 0: e is no such lookup; -1:
 * an enum without that member (reported). */
static int enum_member_by_name(infer_ctx *ic, node *e) {
  if (!e->b || e->b->kind != N_STR || (e->a->kind != N_NAME && e->a->kind != N_ATTR))
    return 0;
  const char *p = ix_dotted_path(ic, e->a);
  const char *member = p ? arena_printf(ic->ar, "%s.%s", p, e->b->str) : NULL;
  if (!member) return 0;
  if (!ix_find_const(ic, member)) {
    size_t n = strlen(p);
    for (int i = 0; i < ic->consts.len; i++) {   /* an enum (its members are "Color.X") */
      const char *c = ((symbol *)ic->consts.items[i])->name;
      if (strncmp(c, p, n) == 0 && c[n] == '.') {
        ix_error(ic, e->b->sp, "enum %s has no member '%s'", p, e->b->str);
        return -1;
      }
    }
    return 0;
  }
  e->kind = N_NAME;
  e->str = member;
  e->a = e->b = NULL;
  return 1;
}

static const type *ix_attr(infer_ctx *ic, node *e) {
  if (e->aux == FV_CAPTURE) return e->ty;   /* typed by ix_bind_captures */
  int by_name = e->a && e->a->kind == N_INDEX ? enum_member_by_name(ic, e->a) : 0;
  if (by_name < 0) return NULL;
  if (by_name && strcmp(e->str, "value") == 0) {   /* Color['RED'].value: the member's value */
    e->kind = N_NAME;
    e->str = e->a->str;
    e->a = NULL;
    return ix_name(ic, e);
  }
  const char *p = ix_dotted_path(ic, e);
  size_t pl = p ? strlen(p) : 0;
  if (pl > 6 && strcmp(p + pl - 6, ".value") == 0 &&
      ix_find_const(ic, arena_strndup(ic->ar, p, pl - 6)))
    p = arena_strndup(ic->ar, p, pl - 6);   /* Color.RED.value: the member's value */
  if (p && ix_find_const(ic, p)) {   /* Color.RED, a member of an enum (resolve.c) */
    e->kind = N_NAME;
    e->str = p;
    e->a = NULL;
    return ix_name(ic, e);
  }
  if (p) {
    const builtin *b = builtin_find(ic->builtins, p);
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
  if (bt->kind == TY_VECTOR) return ix_vector_field(ic, e, bt);
  /* z.real, z.imag: a complex's parts; on a real number, itself and 0 (as in Python) */
  if (type_is_numeric(bt) && (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0)) {
    const type *pt = bt->kind == TY_COMPLEX ? type_complex_part(bt) : bt;
    return ix_set_type(e, pt, e->a->weak);
  }
  if (bt->kind == TY_ARRAY) {
    /* a complex array's parts: strided views of its floats, readable and writable */
    if (bt->elem->kind == TY_COMPLEX && (strcmp(e->str, "real") == 0 || strcmp(e->str, "imag") == 0)) {
      ix_mark_name_written(ic, e->a);
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
  const builtin *b = builtin_attribute(ic->builtins, bt, e->str);   /* a.strides, a.T ... (arrays.c) */
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
void ix_mark_name_written(infer_ctx *ic, const node *n) {
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

void ix_module_array_written(infer_ctx *ic, const node *n, span where) {
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
  ix_mark_name_written(ic, root);
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

void ix_expand_tuple_index(infer_ctx *ic, node **slot) {
  node *t = *slot;
  if (t->kind != N_NAME) return;
  const type *tt = ix_expr(ic, t);
  if (!tt || tt->kind != TY_TUPLE) return;
  for (int k = 0; k < tt->nelems; k++)
    if (tt->elems[k]->kind != TY_INT && tt->elems[k]->kind != TY_BOOL) return;
  node *tup = node_new(ic->ar, N_TUPLE, t->sp);
  for (int k = 0; k < tt->nelems; k++) {
    node *name = node_new(ic->ar, N_NAME, t->sp);
    name->str = t->str;
    node *at = node_new(ic->ar, N_INT, t->sp);
    at->ival = k;
    node *el = node_new(ic->ar, N_INDEX, t->sp);
    el->a = name;
    el->b = at;
    node_push(ic->ar, &tup->list, el);
  }
  *slot = tup;
}

bool ix_record_key(node *e, const type *bt) {
  if (!bt || bt->kind != TY_RECORD || !e->b || e->b->kind != N_STR) return false;
  e->kind = N_ATTR;
  e->str = e->b->str;
  e->b = NULL;
  return true;
}

const type *ix_index(infer_ctx *ic, node *e) {
  int by_name = enum_member_by_name(ic, e);
  if (by_name) return by_name > 0 ? ix_name(ic, e) : NULL;
  const type *bt = ix_expr(ic, e->a);
  if (!bt) {
    if (e->b) ix_expr(ic, e->b);
    return NULL;
  }
  int position = ix_record_position(ic, e, bt);   /* r[1]: its second field */
  if (position < 0) return NULL;
  if (ix_record_key(e, bt) || position) return ix_attr(ic, e);
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
  ix_expand_tuple_index(ic, &e->b);   /* idx = (i, j); a[idx] */
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

const type *ix_binop(infer_ctx *ic, node *e) {
  const type *a = ix_expr(ic, e->a), *b = ix_expr(ic, e->b);
  if (!a || !b) return NULL;
  if (!type_is_numeric(a) || !type_is_numeric(b)) {
    operand_error(ic, e, a, b);
    return NULL;
  }
  if ((e->op == OP_DIV || e->op == OP_FLOORDIV || e->op == OP_MOD) && ic->cur &&
      ic->cur->debug)
    ic->cur->uses_barrier = true;   /* may raise ZeroDivisionError: run as fibers on the
                                       CPU, where a thread that raises ends (cg_checks.c) */
  bool weak;
  const type *t = ix_promote(a, e->a->weak, e->a, b, e->b->weak, e->b, &weak);
  if (ix_is_intlike(a) && ix_is_intlike(b) && e->op != OP_MATMUL)
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

/* x is None, x is not None: x an Optional (a device function's result that may be
 * None) is tested at run time; anything else is never None (aux_ptr NULL marks it). */
static const type *ix_is_none(infer_ctx *ic, node *e) {
  node *l = e->list.items[0], *r = e->list.items[1];
  node *x = l->kind == N_NONE ? r : l;
  if (x->kind != N_NONE && !ix_expr_optional(ic, x)) return NULL;
  e->aux_ptr = NULL;
  return ix_set_type(e, &ty_bool, false);
}

/* a call or an assignment expression: what must not run once per tuple element */
static bool has_effect(const node *n, void *ud) {
  (void)ud;
  return n->kind == N_CALL || n->kind == N_NAMEDEXPR;
}

/* x == t[i], or x == the tuple literal's element i */
static node *tuple_element_eq(infer_ctx *ic, node *x, node *t, int i) {
  node *el;
  if (t->kind == N_TUPLE) {
    el = t->list.items[i];
  } else {
    el = node_new(ic->ar, N_INDEX, t->sp);
    el->a = t;
    el->b = node_new(ic->ar, N_INT, t->sp);
    el->b->ival = i;
  }
  node *eq = node_new(ic->ar, N_COMPARE, x->sp);
  node_push(ic->ar, &eq->list, x);
  node_push(ic->ar, &eq->list, el);
  eq->cmp_ops = arena_alloc(ic->ar, sizeof *eq->cmp_ops);
  eq->cmp_ops[0] = OP_EQ;
  return eq;
}

/* x in t, x not in t, t a tuple (Numba's tuple __contains__): x == t[0] or x == t[1] ...,
 * negated for not in; an empty tuple holds nothing. x (and t, unless written out as a
 * tuple) is read once per element, so neither may call anything (effects would repeat). */
static const type *ix_in_tuple(infer_ctx *ic, node *e) {
  node *x = e->list.items[0], *t = e->list.items[1];
  op_kind op = e->cmp_ops[0];
  node *calls = ast_visit(x, has_effect, NULL) ? x : NULL;
  if (!calls && t->kind != N_TUPLE && ast_visit(t, has_effect, NULL)) calls = t;
  if (calls) {
    ix_error(ic, calls->sp, "'%s' with a tuple reads this once per element, so it cannot "
             "call anything here: bind it to a name first", op_symbol(op));
    return NULL;
  }
  node *any = node_new(ic->ar, N_BOOL, e->sp);   /* x in (): False */
  if (t->ty->nelems > 0) {
    any = node_new(ic->ar, N_BOOLOP, e->sp);
    any->op = OP_OR;
    for (int i = 0; i < t->ty->nelems; i++) node_push(ic->ar, &any->list, tuple_element_eq(ic, x, t, i));
    if (t->ty->nelems == 1) any = any->list.items[0];
  }
  e->list.len = 0;
  e->cmp_ops = NULL;
  if (op == OP_IN) *e = *any;
  else {
    e->kind = N_UNARY;
    e->op = OP_NOT;
    e->a = any;
  }
  return ix_expr(ic, e);
}

static const type *ix_compare(infer_ctx *ic, node *e) {
  if (e->list.len == 2 && (e->cmp_ops[0] == OP_IN || e->cmp_ops[0] == OP_NOTIN)) {
    const type *t = ix_expr(ic, e->list.items[1]);
    if (!t) return NULL;
    if (t->kind == TY_TUPLE) return ix_in_tuple(ic, e);
    ix_error(ic, e->list.items[1]->sp, "'%s' in kernels needs a tuple on its right, not %s%s",
             op_symbol(e->cmp_ops[0]), ix_tname(ic, t),
             t->kind == TY_ARRAY ? " (search an array in a loop)" : "");
    return NULL;
  }
  if (e->list.len == 2 && (e->cmp_ops[0] == OP_IS || e->cmp_ops[0] == OP_ISNOT) &&
      (((node *)e->list.items[0])->kind == N_NONE || ((node *)e->list.items[1])->kind == N_NONE))
    return ix_is_none(ic, e);
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
      ix_error(ic, e->sp, "'%s' is not supported in kernels%s", op_symbol(op),
               op == OP_IS || op == OP_ISNOT ? " but to compare with None" : "");
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
  const type *t = ix_unify(ic, a, e->b->weak, b, e->c->weak, &w);
  if (!t) {
    ix_error(ic, e->sp, "both branches of a conditional expression must have compatible types "
         "(%s and %s)", ix_tname(ic, a), ix_tname(ic, b));
    return NULL;
  }
  return ix_set_type(e, t, w);
}

/* A tuple holds numbers, bools, arrays and tuples of them, as Numba's do. An array put
 * in a tuple may be written through it (t[0][i] = v, or by a device function given the
 * tuple), which the parameters' written marks cannot follow: it counts as written here.
 * A module array, frozen into constant memory, stays out of tuples for that reason. */
static const type *ix_tuple(infer_ctx *ic, node *e) {
  const type **el = arena_alloc(ic->ar, sizeof *el * (size_t)(e->list.len + 1));
  bool ok = true;
  for (int i = 0; i < e->list.len; i++) {
    node *x = e->list.items[i];
    el[i] = ix_expr(ic, x);
    if (!el[i]) {
      ok = false;
    } else if (el[i]->kind == TY_ARRAY && is_module_array(x)) {
      ix_error(ic, x->sp, "module array '%s' cannot be put in a tuple (it is frozen into "
               "the kernel as constant data; index it directly)", x->sym->name);
      ok = false;
    } else if (el[i]->kind == TY_ARRAY) {
      ix_mark_written(ic, x);
    }
  }
  return ok ? ix_set_type(e, type_tuple(ic->ar, el, e->list.len), false) : NULL;
}

static const type *expr_kind(infer_ctx *ic, node *e);

const type *ix_expr(infer_ctx *ic, node *e) {
  bool keep = ic->keep_optional;
  ic->keep_optional = false;
  e->unwrap = false;
  const type *t = expr_kind(ic, e);
  if (!t || t->kind != TY_OPTIONAL || keep) return t;
  e->unwrap = true;   /* used as its value, as Numba does (None there is undefined) */
  return ix_set_type(e, t->elem, false);
}

const type *ix_expr_optional(infer_ctx *ic, node *e) {
  ic->keep_optional = true;
  return ix_expr(ic, e);
}

static const type *expr_kind(infer_ctx *ic, node *e) {
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
    ix_error(ic, e->sp, "None is only allowed in 'return None' and in 'x is None', 'x is not None'");
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
  case N_NAMEDEXPR: {   /* n := v: v stored to the local n, and the value of the whole */
    const type *vt = ix_expr(ic, e->b);
    if (!vt) return NULL;
    ix_store(ic, e->a, vt);
    return ix_set_type(e, vt, e->b->weak);
  }
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

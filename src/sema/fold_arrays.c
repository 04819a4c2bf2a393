/*
 * fold_arrays.c — constant folding of module arrays (a nested N_TUPLE of typed elements
 * whose ty is the array type, made by builtins/module_arrays.c): the arithmetic NumPy
 * does on them at module level (`np.arange(10, dtype=np.float64) / 2.`, `-A`, `A * B`),
 * their attributes (`A.shape`, `A.size`, `A.ndim`, `A.itemsize`, `A.nbytes`, `A.T`),
 * indexing (`A.shape[0]`, `A[1]`), `np.dtype(np.int32).itemsize`, and the flat view of
 * their elements that reshaping and casting start from. NumPy's rules are 1.x's (the
 * NumPy Numba 0.56 runs on): an array and a Python scalar keep the array's dtype unless
 * the scalar is of a higher kind (an int array times 2.5 is float64), two arrays take
 * np.promote_types of theirs, and true division of integers is float64.
 */
#include <string.h>

#include "typing.h"

/* ---- the flat view ---------------------------------------------------------------------- */

static void leaves(infer_ctx *ic, node *v, ptr_vec *out) {
  if (v->kind != N_TUPLE) {
    vec_push(ic->ar, out, v);
    return;
  }
  for (int i = 0; i < v->list.len; i++) leaves(ic, v->list.items[i], out);
}

int ix_const_array_flat(infer_ctx *ic, node *a, ptr_vec *out, int64_t *dims) {
  memset(out, 0, sizeof *out);
  leaves(ic, a, out);
  node *row = a;
  for (int k = 0; k < a->ty->ndim; k++, row = row->list.items[0]) dims[k] = row->list.len;
  return a->ty->ndim;
}

static node *nest(infer_ctx *ic, node **flat, const int64_t *dims, int ndim, int depth,
                  int64_t *pos, span sp) {
  node *tup = node_new(ic->ar, N_TUPLE, sp);
  for (int64_t i = 0; i < dims[depth]; i++)
    node_push(ic->ar, &tup->list, depth + 1 == ndim ? flat[(*pos)++]
                                                     : nest(ic, flat, dims, ndim, depth + 1, pos, sp));
  return tup;
}

node *ix_const_array_make(infer_ctx *ic, node **flat, const int64_t *dims, int ndim,
                          const type *t, span sp) {
  int64_t n = 1, pos = 0;
  for (int k = 0; k < ndim; k++) n *= dims[k];
  for (int64_t i = 0; i < n; i++)
    if (!ix_const_typed(flat[i]) || flat[i]->ty != t) flat[i] = ix_fold_cast(ic, flat[i], t, sp);
  node *v = nest(ic, flat, dims, ndim, 0, &pos, sp);
  v->aux = FOLD_TYPED;
  v->ty = type_array(ic->ar, t, ndim);
  return v;
}

/* ---- arithmetic ------------------------------------------------------------------------- */

/* The result dtype of array (dtype a) op scalar, or of two arrays (scalar NULL, b the
 * other dtype), as NumPy 1.x's value-based casting has it for Python numbers: one of a
 * higher kind (bool < int < float) makes the result its own default type (int64,
 * float64), one of the same kind raises the array's dtype only as far as its value
 * needs (uint8 + 300 is uint16, float16 * 70000.0 float32). */
static int kind_rank(const type *t) {
  return t->kind == TY_BOOL ? 0 : t->kind == TY_INT ? 1 : t->kind == TY_FLOAT ? 2 : 3;
}

/* np.min_scalar_type of a Python number: the smallest type that holds its value (for
 * floats, its range, not its precision) */
static const type *min_scalar_type(const node *v) {
  if (v->kind == N_FLOAT) {
    double m = v->fval < 0 ? -v->fval : v->fval;
    return m <= 65504.0 || m != m ? &ty_f16 : m <= 3.4028234663852886e38 ? &ty_f32 : &ty_f64;
  }
  if (v->big) return &ty_u64;
  int64_t x = v->ival;
  if (x >= 0) return x <= 255 ? &ty_u8 : x <= 65535 ? &ty_u16 : x <= 4294967295LL ? &ty_u32 : &ty_u64;
  return x >= -128 ? &ty_i8 : x >= -32768 ? &ty_i16 : x >= -2147483648LL ? &ty_i32 : &ty_i64;
}

static const type *array_result(infer_ctx *ic, int op, const type *a, const node *scalar,
                                const type *b) {
  const type *t = a;
  if (scalar) {
    const type *s = ix_const_type(ic, (node *)scalar);
    if (kind_rank(s) > kind_rank(a))   /* its own type, or a Python number's default */
      t = type_promote_numpy(a, ix_const_typed(scalar) ? s : s->kind == TY_INT ? &ty_i64
                                : s->kind != TY_COMPLEX ? &ty_f64
                                : a->kind == TY_FLOAT ? &ty_c64   /* float32 * 1j: complex64 */
                                                      : &ty_c128);
    else if (kind_rank(s) == kind_rank(a) && !ix_const_typed(scalar) && a->kind != TY_BOOL)
      t = type_promote_numpy(a, min_scalar_type(scalar));   /* uint8 + 300 is uint16 */
  } else {
    t = type_promote_numpy(a, b);
  }
  if (op == OP_DIV && (t->kind == TY_INT || t->kind == TY_BOOL)) t = &ty_f64;
  return t;
}

static bool same_shape(const node *a, const node *b) {
  if (a->ty->ndim != b->ty->ndim) return false;
  for (; a->kind == N_TUPLE && b->kind == N_TUPLE; a = a->list.items[0], b = b->list.items[0])
    if (a->list.len != b->list.len) return false;
  return true;
}

node *ix_fold_array_binop(infer_ctx *ic, node *e, node *l, node *r) {
  bool la = ix_const_is_array(l), ra = ix_const_is_array(r);
  if ((la && r->kind == N_TUPLE && !ra) || (ra && l->kind == N_TUPLE && !la)) return NULL;
  if (la && ra && !same_shape(l, r)) {
    ix_error(ic, e->sp, "arrays of shapes that differ at module level: kcc folds array "
             "arithmetic on arrays of one shape, or an array and a number");
    return NULL;
  }
  node *arr = la ? l : r;
  const type *t = la && ra ? array_result(ic, e->op, l->ty->elem, NULL, r->ty->elem)
                           : array_result(ic, e->op, arr->ty->elem, la ? r : l, NULL);
  ptr_vec lf = {0}, rf = {0};
  int64_t dims[KC_MAX_DIMS];
  int nd = ix_const_array_flat(ic, arr, la ? &lf : &rf, dims);
  if (la && ra) ix_const_array_flat(ic, r, &rf, dims);
  for (int i = 0; i < (la ? lf.len : rf.len); i++) {
    node *x = la ? lf.items[i] : l, *y = ra ? rf.items[i] : r;
    node *v = ix_fold_binop_untyped(ic, e, x, y);
    if (!v) return NULL;
    (la ? lf.items : rf.items)[i] = v;
  }
  return ix_const_array_make(ic, (node **)(la ? lf.items : rf.items), dims, nd, t, e->sp);
}

node *ix_fold_array_unary(infer_ctx *ic, node *e, node *a) {
  ptr_vec f;
  int64_t dims[KC_MAX_DIMS];
  int nd = ix_const_array_flat(ic, a, &f, dims);
  for (int i = 0; i < f.len; i++)
    if (!(f.items[i] = ix_fold_unary(ic, e, f.items[i]))) return NULL;
  const type *t = e->op == OP_NOT ? &ty_bool : a->ty->elem;
  return ix_const_array_make(ic, (node **)f.items, dims, nd, t, e->sp);
}

/* ---- attributes and indexing -------------------------------------------------------------- */

static int64_t item_bytes(const type *t) { return t->kind == TY_BOOL ? 1 : t->bits / 8; }

static node *transposed(infer_ctx *ic, node *a, span sp) {
  ptr_vec f;
  int64_t dims[KC_MAX_DIMS], rdims[KC_MAX_DIMS], n = 1;
  int nd = ix_const_array_flat(ic, a, &f, dims);
  for (int k = 0; k < nd; k++) rdims[k] = dims[nd - 1 - k], n *= dims[k];
  node **out = arena_alloc(ic->ar, sizeof *out * (size_t)(n + 1));
  for (int64_t i = 0; i < n; i++) {   /* out index (j0..jn-1) reads (jn-1..j0) */
    int64_t rest = i, src = 0, stride = 1, idx[KC_MAX_DIMS];
    for (int k = nd - 1; k >= 0; k--) idx[k] = rest % rdims[k], rest /= rdims[k];
    for (int k = nd - 1; k >= 0; k--) src += idx[nd - 1 - k] * stride, stride *= dims[k];
    out[i] = f.items[src];
  }
  return ix_const_array_make(ic, out, rdims, nd, a->ty->elem, sp);
}

/* A.shape, A.size ... of a module array a; NULL for another name. */
node *ix_fold_array_attr(infer_ctx *ic, node *e, node *a) {
  ptr_vec f;
  int64_t dims[KC_MAX_DIMS], n = 1;
  int nd = ix_const_array_flat(ic, a, &f, dims);
  for (int k = 0; k < nd; k++) n *= dims[k];
  const char *name = e->str;
  if (strcmp(name, "size") == 0) return ix_const_int_node(ic, n, e->sp);
  if (strcmp(name, "ndim") == 0) return ix_const_int_node(ic, nd, e->sp);
  if (strcmp(name, "itemsize") == 0) return ix_const_int_node(ic, item_bytes(a->ty->elem), e->sp);
  if (strcmp(name, "nbytes") == 0)
    return ix_const_int_node(ic, n * item_bytes(a->ty->elem), e->sp);
  if (strcmp(name, "T") == 0) return transposed(ic, a, e->sp);
  if (strcmp(name, "shape") != 0) return NULL;
  node *t = node_new(ic->ar, N_TUPLE, e->sp);
  for (int k = 0; k < nd; k++) node_push(ic->ar, &t->list, ix_const_int_node(ic, dims[k], e->sp));
  return t;
}

/* np.dtype(np.int32).itemsize (or 'f4', float64 ...): NULL unless e is that. */
node *ix_fold_dtype_itemsize(infer_ctx *ic, node *e) {
  node *call = e->a;
  if (strcmp(e->str, "itemsize") != 0 || call->kind != N_CALL || call->list.len != 1 ||
      call->kwargs.len)
    return NULL;
  const char *p = ix_dotted_path(ic, call->a);
  if (!p || strcmp(p, "numpy.dtype") != 0) return NULL;
  node *d = call->list.items[0];
  const char *dp = d->kind == N_STR ? NULL : ix_dotted_path(ic, d);
  const type *t = d->kind == N_STR ? type_from_name(d->str[0] == '<' ? d->str + 1 : d->str)
                  : dp ? ix_type_from_path(dp) : NULL;
  if (!t || !type_is_scalar(t)) return NULL;
  return ix_const_int_node(ic, t->kind == TY_COMPLEX ? t->bits / 8 : item_bytes(t), e->sp);
}

/* v[i] of a folded tuple or module array (i negative from the end); a row of a module
 * array of 2 or more dimensions is itself one. */
node *ix_fold_index(infer_ctx *ic, node *e, node *v, node *i) {
  if (v->kind != N_TUPLE || !i || i->kind != N_INT) return NULL;
  int64_t k = i->ival < 0 ? i->ival + v->list.len : i->ival;
  if (k < 0 || k >= v->list.len) {
    ix_error(ic, e->sp, "index %lld is out of range for a constant of length %d",
             (long long)i->ival, v->list.len);
    return NULL;
  }
  node *el = v->list.items[k];
  if (ix_const_is_array(v) && v->ty->ndim > 1) {
    node *row = arena_alloc(ic->ar, sizeof *row);
    *row = *el;
    row->aux = FOLD_TYPED;
    row->ty = type_array(ic->ar, v->ty->elem, v->ty->ndim - 1);
    return row;
  }
  return el;
}

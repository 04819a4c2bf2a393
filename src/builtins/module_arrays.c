/*
 * module_arrays.c — NumPy arrays made at module level, frozen into the kernels as
 * Numba freezes global arrays (into constant memory): the constructors np.array,
 * np.arange, np.linspace, np.zeros, np.ones, np.full, np.eye, np.asarray,
 * np.ascontiguousarray and np.asfortranarray, and the methods .reshape, .astype, .copy,
 * .flatten and .ravel on such an array (their rows are arrays.c's, refused in kernels).
 * Each is folded by constant folding (fold.c, through the row's fold) into a nested
 * N_TUPLE of typed elements whose ty is the array type; in a kernel each is an error,
 * as Numba-CUDA allocates no arrays there.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "builtin.h"
#include "typing.h"

/* np.zeros ... inside a kernel: Numba allocates no arrays there. */
static const type *ix_array_maker(infer_ctx *ic, node *e, const builtin *b) {
  ix_error(ic, e->sp, "%s makes a new array, which kernels cannot (use cuda.local.array or "
       "cuda.shared.array); at module level it makes a constant array", builtin_user_name(b));
  return NULL;
}

/* ---- module arrays: np.array, np.arange ... folded at module level ---- */

enum { NP_ARRAY, NP_ARANGE, NP_LINSPACE, NP_ZEROS, NP_ONES, NP_FULL, NP_EYE, NP_ASARRAY };

/* The parameters of each constructor, in NumPy's order (a NULL ends the list). */
static const char *const np_params[][7] = {
  [NP_ARRAY] = {"object", "dtype", NULL},
  [NP_ARANGE] = {"start", "stop", "step", "dtype", NULL},
  [NP_LINSPACE] = {"start", "stop", "num", "endpoint", "retstep", "dtype", NULL},
  [NP_ZEROS] = {"shape", "dtype", NULL},
  [NP_ONES] = {"shape", "dtype", NULL},
  [NP_FULL] = {"shape", "fill_value", "dtype", NULL},
  [NP_EYE] = {"N", "M", "k", "dtype", NULL},
  [NP_ASARRAY] = {"a", "dtype", "order", NULL},   /* also ascontiguousarray ... */
};

/* A module array lives in the GPU's constant memory, 64 KiB for a whole module. */
#define NP_MAX_BYTES 65536

typedef struct np_call {
  infer_ctx *ic;
  node *e;
  const char *fname;
  node *arg[7];   /* per parameter, as written (NULL: not given) */
} np_call;

/* Python's binding of the call's arguments to the constructor's parameters. */
static bool np_bind(np_call *c, int which) {
  const char *const *ps = np_params[which];
  int np = 0;
  while (ps[np]) np++;
  node *e = c->e;
  if (e->list.len > np) {
    ix_error(c->ic, e->sp, "%s takes at most %d arguments, %d given", c->fname, np, e->list.len);
    return false;
  }
  for (int i = 0; i < e->list.len; i++) c->arg[i] = e->list.items[i];
  for (int k = 0; k < e->kwargs.len; k++) {
    node *kw = e->kwargs.items[k];
    int j = 0;
    while (j < np && strcmp(ps[j], kw->str) != 0) j++;
    if (j == np || c->arg[j]) {
      ix_error(c->ic, kw->sp, j == np ? "%s has no parameter '%s' that kcc supports"
                                      : "%s got two values for '%s'", c->fname, kw->str);
      return false;
    }
    c->arg[j] = kw->a;
  }
  return true;
}

/* A constant argument, folded; NULL after an error at it. */
static node *np_const(np_call *c, node *a, bool scalar) {
  node *v = ix_fold(c->ic, a);
  if (!v || (scalar && v->kind == N_TUPLE)) {
    ix_error(c->ic, a->sp, "the arguments of %s at module level must be constant%s (numbers, "
         "module constants and arithmetic on them)", c->fname, scalar ? " numbers" : "s");
    return NULL;
  }
  return v;
}

static bool np_int(np_call *c, node *a, int64_t *out) {
  node *v = np_const(c, a, true);
  if (!v) return false;
  if (v->kind != N_INT && v->kind != N_BOOL) {
    ix_error(c->ic, a->sp, "%s needs an integer here", c->fname);
    return false;
  }
  *out = v->ival;
  return true;
}

/* dtype=np.float32, "float32", float32 ... (NULL: not given or an error, *bad set). */
static const type *np_dtype(np_call *c, node *d, bool *bad) {
  *bad = false;
  if (!d) return NULL;
  const char *p = d->kind == N_STR ? NULL : ix_dotted_path(c->ic, d);
  const type *t = d->kind == N_STR ? type_from_name(d->str) : p ? ix_type_from_path(p) : NULL;
  if (!t) {
    ix_error(c->ic, d->sp, "unknown dtype for %s", c->fname);
    *bad = true;
    return NULL;
  }
  return t;
}

/* NumPy's type of a constant: its own (typed), else int64 (uint64 past int64), float64
 * or bool, as NumPy types a Python number. */
static const type *np_type_of(infer_ctx *ic, node *v) {
  return ix_const_typed(v) ? v->ty : ix_const_type(ic, v);
}

/* The shape argument: an integer or a tuple of 1 to KC_MAX_DIMS positive ones. */
static int np_shape(np_call *c, node *a, int64_t *dims) {
  node *v = np_const(c, a, false);
  if (!v) return 0;
  node_list single = {&v, 1, 1};
  node_list *l = v->kind == N_TUPLE ? &v->list : &single;
  bool ok = l->len >= 1 && l->len <= KC_MAX_DIMS;
  for (int i = 0; ok && i < l->len; i++) {
    node *d = l->items[i];
    ok = d->kind == N_INT && d->ival > 0;
    if (ok) dims[i] = d->ival;
  }
  if (!ok) {
    ix_error(c->ic, a->sp, "the shape of %s must be a positive integer or a tuple of 1 to %d "
         "of them", c->fname, KC_MAX_DIMS);
    return 0;
  }
  return l->len;
}

/* The elements' count, checked against constant memory before any is made. */
static int64_t np_count(np_call *c, const int64_t *dims, int ndim, const type *t) {
  int64_t n = 1, item = t->kind == TY_BOOL ? 1 : t->bits / 8;
  for (int k = 0; k < ndim; k++) {
    if (dims[k] > NP_MAX_BYTES / item / n) {
      ix_error(c->ic, c->e->sp, "%s makes an array larger than the 64 KiB of constant memory "
           "a module array can use", c->fname);
      return -1;
    }
    n *= dims[k];
  }
  return n;
}

static node *np_result(np_call *c, node **flat, const int64_t *dims, int ndim, const type *t) {
  return ix_const_array_make(c->ic, flat, dims, ndim, t, c->e->sp);
}

/* The leaves of np.array's nested lists and tuples, with the shape they make. */
static bool np_leaves(np_call *c, node *a, int depth, int64_t *dims, int *ndim, ptr_vec *out) {
  bool seq = a->kind == N_LIST || a->kind == N_TUPLE;
  node *v = seq ? NULL : np_const(c, a, false);
  if (!seq && !v) return false;
  if (v && v->kind == N_TUPLE) { a = v; seq = true; }   /* a module tuple or array */
  if (!seq) {
    if (*ndim == 0) *ndim = depth;
    if (*ndim == depth) { vec_push(c->ic->ar, out, v); return true; }
  } else if (depth < KC_MAX_DIMS && a->list.len > 0 &&
             (dims[depth] == 0 || dims[depth] == a->list.len)) {
    dims[depth] = a->list.len;
    for (int i = 0; i < a->list.len; i++)
      if (!np_leaves(c, a->list.items[i], depth + 1, dims, ndim, out)) return false;
    return true;
  }
  ix_error(c->ic, a->sp, "numpy.array needs nested lists of numbers of equal lengths, 1 to %d "
       "deep and not empty", KC_MAX_DIMS);
  return false;
}

static node *np_array(np_call *c, const type *t) {
  int64_t dims[KC_MAX_DIMS] = {0};
  int ndim = 0;
  ptr_vec leaves = {0};
  if (!c->arg[0]) {
    ix_error(c->ic, c->e->sp, "np.array needs the array's contents");
    return NULL;
  }
  if (!np_leaves(c, c->arg[0], 0, dims, &ndim, &leaves)) return NULL;
  if (ndim == 0) {
    ix_error(c->ic, c->arg[0]->sp, "np.array needs a list: module arrays have 1 to %d dimensions", KC_MAX_DIMS);
    return NULL;
  }
  if (!t) {   /* NumPy's default: the leaves' types promoted */
    const type *d = NULL;
    for (int i = 0; i < leaves.len; i++) d = type_promote_numpy(d, np_type_of(c->ic, leaves.items[i]));
    t = d;
  }
  if (np_count(c, dims, ndim, t) < 0) return NULL;
  return np_result(c, (node **)leaves.items, dims, ndim, t);
}

/* np.arange(stop), (start, stop), (start, stop, step): NumPy's length
 * ceil((stop - start) / step); integers computed exactly, floats as start + i * step. */
static node *np_arange(np_call *c, const type *t) {
  node *v[3] = {NULL, NULL, NULL};
  int n = 0;
  for (int i = 0; i < 3; i++)
    if (c->arg[i] && !(v[n++] = np_const(c, c->arg[i], true))) return NULL;
  if (n == 0) {
    ix_error(c->ic, c->e->sp, "np.arange needs a stop value");
    return NULL;
  }
  node *start = n >= 2 ? v[0] : ix_const_int_node(c->ic, 0, c->e->sp), *stop = n >= 2 ? v[1] : v[0];
  node *step = n == 3 ? v[2] : ix_const_int_node(c->ic, 1, c->e->sp);
  const type *dflt = type_promote_numpy(type_promote_numpy(np_type_of(c->ic, start), np_type_of(c->ic, stop)),
                                np_type_of(c->ic, step));
  if (!t) t = dflt;
  bool ints = dflt->kind != TY_FLOAT;
  double d0 = ix_const_as_double(start), dst = ix_const_as_double(step);
  double len = ceil((ix_const_as_double(stop) - d0) / dst);
  if (dst == 0) {
    ix_error(c->ic, c->e->sp, "numpy.arange's step must not be 0");
    return NULL;
  }
  int64_t dims[1] = {len > 0 ? (len < 1e9 ? (int64_t)len : (int64_t)1e9) : 0};
  if (dims[0] == 0) {
    ix_error(c->ic, c->e->sp, "np.arange makes an empty array here; module arrays have at "
         "least one element");
    return NULL;
  }
  if (np_count(c, dims, 1, t) < 0) return NULL;
  node **flat = arena_alloc(c->ic->ar, sizeof *flat * (size_t)dims[0]);
  for (int64_t i = 0; i < dims[0]; i++)
    flat[i] = ints ? ix_const_int_node(c->ic, start->ival + i * step->ival, c->e->sp)
                   : ix_const_float_node(c->ic, d0 + (double)i * dst, c->e->sp);
  return np_result(c, flat, dims, 1, t);
}

/* np.linspace(start, stop, num=50, endpoint=True): NumPy's y = i * step + start with
 * step = (stop - start) / div, the last value stop itself when endpoint; float64 unless
 * a dtype is given (integers rounded down, as NumPy does since 1.20). */
static node *np_linspace(np_call *c, const type *t) {
  node *a = c->arg[0] ? np_const(c, c->arg[0], true) : NULL;
  node *b = c->arg[1] ? np_const(c, c->arg[1], true) : NULL;
  int64_t count = 50, endpoint = 1, retstep = 0;
  if (!a || !b) {
    if (!c->arg[0] || !c->arg[1]) ix_error(c->ic, c->e->sp, "np.linspace needs start and stop");
    return NULL;
  }
  if ((c->arg[2] && !np_int(c, c->arg[2], &count)) || (c->arg[3] && !np_int(c, c->arg[3], &endpoint)) ||
      (c->arg[4] && !np_int(c, c->arg[4], &retstep)))
    return NULL;
  if (retstep || count <= 0) {
    ix_error(c->ic, c->e->sp, retstep ? "numpy.linspace with retstep=True makes a tuple, not an "
                                        "array" : "np.linspace needs num of at least 1");
    return NULL;
  }
  if (!t) t = &ty_f64;
  int64_t dims[1] = {count};
  if (np_count(c, dims, 1, t) < 0) return NULL;
  double x0 = ix_const_as_double(a), x1 = ix_const_as_double(b), delta = x1 - x0;
  double div = endpoint ? (double)(count - 1) : (double)count, step = delta / div;
  node **flat = arena_alloc(c->ic->ar, sizeof *flat * (size_t)count);
  for (int64_t i = 0; i < count; i++) {
    double y = div > 0 ? (step == 0 ? (double)i / div * delta : (double)i * step) + x0 : x0;
    if (endpoint && count > 1 && i == count - 1) y = x1;
    if (t->kind != TY_FLOAT) y = floor(y);
    flat[i] = ix_const_float_node(c->ic, y, c->e->sp);
  }
  return np_result(c, flat, dims, 1, t);
}

/* np.zeros(shape), np.ones(shape), np.full(shape, fill_value): float64 by default,
 * np.full the fill value's own type. */
static node *np_filled(np_call *c, int which, const type *t) {
  int64_t dims[KC_MAX_DIMS];
  if (!c->arg[0]) {
    ix_error(c->ic, c->e->sp, "%s needs a shape", c->fname);
    return NULL;
  }
  int ndim = np_shape(c, c->arg[0], dims);
  if (!ndim) return NULL;
  node *fill = which == NP_ZEROS ? ix_const_int_node(c->ic, 0, c->e->sp)
               : which == NP_ONES ? ix_const_int_node(c->ic, 1, c->e->sp)
               : c->arg[1] ? np_const(c, c->arg[1], true) : NULL;
  if (!fill) {
    if (!c->arg[1]) ix_error(c->ic, c->e->sp, "np.full needs a fill value");
    return NULL;
  }
  if (!t) t = which == NP_FULL ? np_type_of(c->ic, fill) : &ty_f64;
  int64_t n = np_count(c, dims, ndim, t);
  if (n < 0) return NULL;
  node **flat = arena_alloc(c->ic->ar, sizeof *flat * (size_t)n);
  for (int64_t i = 0; i < n; i++) flat[i] = fill;
  return np_result(c, flat, dims, ndim, t);
}

/* np.eye(N, M=None, k=0): ones on the k-th diagonal, float64 by default. */
static node *np_eye(np_call *c, const type *t) {
  int64_t dims[2], k = 0;
  if (!c->arg[0]) {
    ix_error(c->ic, c->e->sp, "np.eye needs N");
    return NULL;
  }
  if (!np_int(c, c->arg[0], &dims[0])) return NULL;
  dims[1] = dims[0];
  if (c->arg[1] && c->arg[1]->kind != N_NONE && !np_int(c, c->arg[1], &dims[1])) return NULL;
  if (c->arg[2] && !np_int(c, c->arg[2], &k)) return NULL;
  if (dims[0] <= 0 || dims[1] <= 0) {
    ix_error(c->ic, c->e->sp, "np.eye needs positive N and M (module arrays are not empty)");
    return NULL;
  }
  if (!t) t = &ty_f64;
  int64_t n = np_count(c, dims, 2, t);
  if (n < 0) return NULL;
  node **flat = arena_alloc(c->ic->ar, sizeof *flat * (size_t)n);
  for (int64_t i = 0; i < n; i++)
    flat[i] = ix_const_int_node(c->ic, i % dims[1] - i / dims[1] == k, c->e->sp);
  return np_result(c, flat, dims, 2, t);
}

static node *np_fold_call(infer_ctx *ic, node *e, const builtin *b) {
  np_call c = {ic, e, builtin_user_name(b), {NULL}};
  if (!np_bind(&c, b->op)) return NULL;
  static const int dtype_at[] = {[NP_ARRAY] = 1, [NP_ARANGE] = 3, [NP_LINSPACE] = 5,
                                 [NP_ZEROS] = 1, [NP_ONES] = 1, [NP_FULL] = 2, [NP_EYE] = 3,
                                 [NP_ASARRAY] = 1};
  bool bad;
  const type *t = np_dtype(&c, c.arg[dtype_at[b->op]], &bad);
  if (bad) return NULL;
  switch (b->op) {
  case NP_ARRAY: case NP_ASARRAY: return np_array(&c, t);
  case NP_ARANGE: return np_arange(&c, t);
  case NP_LINSPACE: return np_linspace(&c, t);
  case NP_EYE: return np_eye(&c, t);
  default: return np_filled(&c, b->op, t);
  }
}

/* ---- methods of a module array: A.reshape(3, 4), A.astype(np.float32) ... ---- */

/* The new shape of a.reshape(...): one integer or tuple, or integers, one of them
 * possibly -1 (the extent the others leave); 0 after an error. */
static int reshape_dims(np_call *c, int64_t n, int64_t *dims) {
  node *e = c->e;
  node *one = e->list.len == 1 ? np_const(c, e->list.items[0], false) : NULL;
  if (e->list.len == 1 && !one) return 0;
  node_list *l = one && one->kind == N_TUPLE ? &one->list : one ? &(node_list){&one, 1, 1}
                                                                : &e->list;
  int nd = l->len, free_at = -1;
  int64_t known = 1;
  bool ok = nd >= 1 && nd <= KC_MAX_DIMS && e->kwargs.len == 0;
  for (int k = 0; ok && k < nd; k++) {
    node *v = one ? l->items[k] : np_const(c, l->items[k], true);
    if (!v) return 0;
    ok = v->kind == N_INT && (v->ival > 0 || (v->ival == -1 && free_at < 0));
    if (ok && v->ival == -1) free_at = k;
    else if (ok) dims[k] = v->ival, known *= v->ival;
  }
  if (ok && free_at >= 0) dims[free_at] = known > 0 && n % known == 0 ? n / known : -1;
  if (ok && (free_at < 0 ? known == n : dims[free_at] > 0)) return nd;
  ix_error(c->ic, e->sp, "cannot reshape an array of %lld elements to this shape (1 to %d "
           "positive extents, one of them may be -1)", (long long)n, KC_MAX_DIMS);
  return 0;
}

node *ma_fold_method(infer_ctx *ic, node *e, const builtin *b) {
  node *a = ix_fold(ic, e->a->a);
  np_call c = {ic, e, arena_printf(ic->ar, "ndarray.%s", b->path + 1), {NULL}};
  ptr_vec flat;
  int64_t dims[KC_MAX_DIMS], n = 1;
  int nd = ix_const_array_flat(ic, a, &flat, dims);
  for (int k = 0; k < nd; k++) n *= dims[k];
  const type *t = a->ty->elem;
  if (b->op == MA_ASTYPE) {
    bool bad;
    node *d = e->list.len == 1 ? e->list.items[0] : NULL;
    if (!d || e->kwargs.len || !(t = np_dtype(&c, d, &bad))) {
      if (!d) ix_error(ic, e->sp, "ndarray.astype needs a dtype");
      return NULL;
    }
  } else if (b->op == MA_RESHAPE) {
    if (!(nd = reshape_dims(&c, n, dims))) return NULL;
  } else if (e->list.len || e->kwargs.len) {
    ix_error(ic, e->sp, "%s takes no arguments at module level (C order only)", c.fname);
    return NULL;
  } else if (b->op == MA_FLATTEN) {
    nd = 1, dims[0] = n;
  }
  return ix_const_array_make(ic, (node **)flat.items, dims, nd, t, e->sp);
}

const builtin builtins_module_arrays[] = {
  /* array constructors: folded at module level (np_fold_call), refused in kernels */
  {.path = "numpy.array", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD, .op = NP_ARRAY,
   .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.arange", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD,
   .op = NP_ARANGE, .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.linspace", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD,
   .op = NP_LINSPACE, .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.zeros", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD, .op = NP_ZEROS,
   .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.ones", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD, .op = NP_ONES,
   .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.full", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD, .op = NP_FULL,
   .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.eye", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD, .op = NP_EYE,
   .typing = ix_array_maker, .fold = np_fold_call},
  /* the same values, C order: kcc's module arrays are all C-contiguous, which indexing
     cannot tell from NumPy's layouts */
  {.path = "numpy.asarray", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD,
   .op = NP_ASARRAY, .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.ascontiguousarray", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD,
   .op = NP_ASARRAY, .typing = ix_array_maker, .fold = np_fold_call},
  {.path = "numpy.asfortranarray", .kind = BK_FUNCTION, .max_args = -1, .flags = BF_FOLD,
   .op = NP_ASARRAY, .typing = ix_array_maker, .fold = np_fold_call},
  {NULL},
};

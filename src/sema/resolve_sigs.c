/*
 * resolve_sigs.c — the signatures of kernels, @vectorize, @guvectorize and @cuda.reduce
 * functions, in every spelling Numba accepts: a string ("void(float32[:], int32)"), a
 * call of type objects (void(float32[:], int32), float32(float32)), a tuple of argument
 * types ((float32[:, :], float32[:, :]), no result), lists mixing them; parameter
 * annotations; and --sig on the command line. Each becomes a sig_spec: the parameter
 * types and the result type where one was written.
 */
#include <string.h>

#include "builtins/builtin.h"
#include "signature.h"
#include "typing.h"
#include "vector_types.h"

typedef struct sig_spec {
  ptr_vec *params;
  const type *ret;   /* NULL: not written, as in a tuple of argument types */
} sig_spec;

/* ---- types written as expressions ------------------------------------------------------- */

/* Is e the void type: void, numba.void, numba.types.void, types.void? */
static bool is_void_expr(infer_ctx *ic, node *e) {
  if (e->kind == N_NAME && strcmp(e->str, "void") == 0)
    return !ix_find_local(ic->cur, "void") && !ix_find_const(ic, "void");
  const char *p = e->kind == N_ATTR ? ix_dotted_path(ic, e) : NULL;
  return p && (strcmp(p, "numba.void") == 0 || strcmp(p, "numba.types.void") == 0);
}

/* One dimension of an array type: ':' or '::1'. *contig is set for '::1'. */
static bool array_dim(infer_ctx *ic, node *d, bool *contig) {
  *contig = false;
  if (d->kind == N_SLICE && !d->a && !d->b) {
    if (!d->c) return true;
    if (d->c->kind == N_INT && d->c->ival == 1) return *contig = true;
  }
  ix_error(ic, d->sp, "array types take ':' per dimension, and '::1' on the last for a "
       "C-contiguous array (e.g. float32[:, ::1])");
  return false;
}

/* float32[:], float32[:, ::1]; Fortran order (float32[::1, :]) is read through its
 * strides, as an 'A' array is. */
static const type *array_type_expr(infer_ctx *ic, node *e, const type *el) {
  node_list single = {&e->b, 1, 1};
  node_list *dims = e->b->kind == N_TUPLE ? &e->b->list : &single;
  bool fortran = false;
  for (int i = 0; i < dims->len; i++) {
    bool contig;
    if (!array_dim(ic, dims->items[i], &contig)) return NULL;
    fortran |= contig && i != dims->len - 1;
  }
  if (dims->len > KC_MAX_DIMS) {
    ix_error(ic, e->sp, "arrays have at most %d dimensions", KC_MAX_DIMS);
    return NULL;
  }
  return type_array_layout(ic->ar, el, dims->len, fortran);
}

/* numba.types.Array(float32, 2, 'C'): layouts 'C' and 'A' (any layout: the argument
 * carries its strides, so a non-contiguous view can be passed); 'F' is read as 'A' is,
 * except with one dimension, where it is 'C'. */
static const type *array_call_type(infer_ctx *ic, node *e) {
  int64_t ndim = 0;
  node *lay = e->list.len == 3 ? e->list.items[2] : NULL;
  const type *el = e->list.len == 3 ? ix_annotation_type(ic, e->list.items[0]) : NULL;
  if (e->list.len != 3 || e->kwargs.len) {
    ix_error(ic, e->sp, "types.Array takes (dtype, ndim, layout), e.g. "
         "types.Array(float32, 2, 'C')");
    return NULL;
  }
  if (!el) return NULL;
  if (el->kind == TY_ARRAY || !ix_const_int(ic, e->list.items[1], &ndim) || ndim < 1 ||
      ndim > KC_MAX_DIMS) {
    ix_error(ic, e->sp, "types.Array needs a scalar dtype and 1 to %d dimensions", KC_MAX_DIMS);
    return NULL;
  }
  if (lay->kind != N_STR || (strcmp(lay->str, "C") && strcmp(lay->str, "A") &&
                             strcmp(lay->str, "F"))) {
    ix_error(ic, lay->sp, "an array layout is 'C', 'F' or 'A'");
    return NULL;
  }
  return type_array_layout(ic->ar, el, (int)ndim,
                           lay->str[0] == 'A' || (lay->str[0] == 'F' && ndim > 1));
}

/* A parsed signature type's element: a number, or a record in Numba's spelling. */
static const type *sig_elem(infer_ctx *ic, const sig_type *st, span sp) {
  return st->dtype == KC_RECORD ? ix_sig_record(ic, st->rec, st->rec_len, sp)
                                : type_from_dtype(st->dtype);
}

/* ---- tuples of scalars: UniTuple(float32, 3), Tuple((int32, float64)) ---------------- */

/* 'U' for a path naming numba.types.UniTuple, 'T' for numba.types.Tuple, else 0 (also
 * under numba., which re-exports numba.types). */
int ix_tuple_type_ctor(const char *p) {
  if (!p) return 0;
  if (strncmp(p, "numba.types.", 12) == 0) p += 12;
  else if (strncmp(p, "numba.", 6) == 0) p += 6;
  else return 0;
  return strcmp(p, "UniTuple") == 0 ? 'U' : strcmp(p, "Tuple") == 0 ? 'T' : 0;
}

/* A tuple parameter's element: a scalar type. */
static const type *tuple_elem_type(infer_ctx *ic, node *e) {
  const type *t = ix_annotation_type(ic, e);
  if (t && !type_is_scalar(t)) {
    ix_error(ic, e->sp, "a tuple type holds scalars (numbers and bools), not %s", ix_tname(ic, t));
    return NULL;
  }
  return t;
}

static const type *tuple_too_long(infer_ctx *ic, node *e, int n) {
  ix_error(ic, e->sp, "a tuple type has 1 to %d elements here, not %d (kernel arguments are "
       "passed element by element)", SIG_MAX_TUPLE, n);
  return NULL;
}

/* types.UniTuple(float32, 3) and types.Tuple((int32, float64)), as Numba spells them. */
static const type *tuple_call_type(infer_ctx *ic, node *e, int ctor) {
  if (e->kwargs.len || e->list.len != (ctor == 'U' ? 2 : 1)) {
    ix_error(ic, e->sp, ctor == 'U' ? "types.UniTuple takes (dtype, count), e.g. "
         "types.UniTuple(float32, 3)" : "types.Tuple takes one tuple of types, e.g. "
         "types.Tuple((int32, float64))");
    return NULL;
  }
  if (ctor == 'U') {
    const type *el = tuple_elem_type(ic, e->list.items[0]);
    int64_t n = 0;
    if (!el) return NULL;
    if (!ix_const_int(ic, e->list.items[1], &n) || n < 1 || n > SIG_MAX_TUPLE)
      return tuple_too_long(ic, e, (int)n);
    const type **els = arena_alloc(ic->ar, sizeof *els * (size_t)n);
    for (int i = 0; i < n; i++) els[i] = el;
    return type_tuple(ic->ar, els, (int)n);
  }
  node *l = e->list.items[0];
  if (l->kind != N_TUPLE && l->kind != N_LIST) {
    ix_error(ic, l->sp, "types.Tuple takes one tuple of types, e.g. types.Tuple((int32, float64))");
    return NULL;
  }
  if (l->list.len < 1 || l->list.len > SIG_MAX_TUPLE) return tuple_too_long(ic, e, l->list.len);
  const type **els = arena_alloc(ic->ar, sizeof *els * (size_t)l->list.len);
  for (int i = 0; i < l->list.len; i++)
    if (!(els[i] = tuple_elem_type(ic, l->list.items[i]))) return NULL;
  return type_tuple(ic->ar, els, l->list.len);
}

/* A type parsed from a signature string. */
static const type *sig_type_to_type(infer_ctx *ic, const sig_type *st, span sp) {
  if (st->nelems) {
    const type **els = arena_alloc(ic->ar, sizeof *els * (size_t)st->nelems);
    for (int i = 0; i < st->nelems; i++) els[i] = type_from_dtype(st->elems[i]);
    return type_tuple(ic->ar, els, st->nelems);
  }
  const type *el = sig_elem(ic, st, sp);
  if (!el) return NULL;
  return st->ndim ? type_array_layout(ic->ar, el, st->ndim, st->strided) : el;
}

/* A call that is a type rather than a signature: types.Array(...), types.UniTuple(...). */
static bool is_type_call(infer_ctx *ic, node *e) {
  const char *p = e->kind == N_CALL ? ix_dotted_path(ic, e->a) : NULL;
  return p && (strcmp(p, "numba.types.Array") == 0 || ix_tuple_type_ctor(p));
}

/* An annotation or signature type written as an expression: float32, float32[:],
 * numba.float32[:, ::1], types.Array(float32, 1, 'C'), or a string "float32[:]". */
const type *ix_annotation_type(infer_ctx *ic, node *ann) {
  if (ann->kind == N_STR) {
    char err[160];
    size_t pos = 0;
    sig_type st;
    if (sig_parse_type(ann->str, &pos, &st, err, sizeof err) != 0 || ann->str[pos] ||
        st.is_void) {
      ix_error(ic, ann->sp, "bad type '%s'", ann->str);
      return NULL;
    }
    return sig_type_to_type(ic, &st, ann->sp);
  }
  if (ann->kind == N_CALL) {
    const char *p = ix_dotted_path(ic, ann->a);
    if (p && strcmp(p, "numba.types.Array") == 0) return array_call_type(ic, ann);
    if (ix_tuple_type_ctor(p)) return tuple_call_type(ic, ann, ix_tuple_type_ctor(p));
  }
  node *base = ann->kind == N_INDEX ? ann->a : ann;
  const char *p = ix_dotted_path(ic, base);
  const type *el = p ? ix_type_from_path(p) : NULL;
  if (!el && base->kind == N_NAME && ix_find_const(ic, base->str) &&
      ix_record_const(ix_find_const(ic, base->str)->value, NULL)) {   /* rec_t[:] */
    el = ix_record_annotation(ic, base);
    if (!el) return NULL;
  }
  if (!el && p && vec_type_from_path(p)) {
    ix_error(ic, ann->sp, "CUDA vector types are not argument types (numba-cuda passes none "
         "to kernels): pass an array and build the vector in the kernel");
    return NULL;
  }
  if (!el && ix_host_use_error(ic, base->sp, p)) return NULL;   /* a host name: why */
  if (!el) {
    ix_error(ic, ann->sp, is_void_expr(ic, base) ? "void is only a signature's result type"
                                                 : "unknown type");
    return NULL;
  }
  return ann->kind == N_INDEX ? array_type_expr(ic, ann, el) : el;
}

/* ---- signatures ------------------------------------------------------------------------- */

static const char sig_forms[] = "a signature is a string such as \"void(float32[:], int32)\", "
                                "types called as void(float32[:], int32), or a tuple of "
                                "argument types such as (float32[:], int32)";

static bool sig_from_string(infer_ctx *ic, node *str, sig_spec *out) {
  char err[200];
  sig_parsed sp;
  if (sig_parse(str->str, &sp, err, sizeof err) != 0) {
    ix_error(ic, str->sp, "bad signature \"%s\": %s", str->str, err);
    return false;
  }
  if (sp.name[0]) {
    ix_error(ic, str->sp, "bad signature \"%s\": '%s' is not a type", str->str, sp.name);
    return false;
  }
  out->params = arena_alloc(ic->ar, sizeof *out->params);
  for (int i = 0; i < sp.nparams; i++) {
    const type *t = sig_type_to_type(ic, &sp.params[i], str->sp);
    if (!t) return false;
    vec_push(ic->ar, out->params, (void *)t);
  }
  out->ret = !sp.has_ret ? NULL : sp.ret.is_void ? &ty_void : type_from_dtype(sp.ret.dtype);
  if (out->ret && sp.ret.ndim) out->ret = type_array(ic->ar, out->ret, sp.ret.ndim);
  return true;
}

static bool sig_params(infer_ctx *ic, node_list *args, sig_spec *out) {
  out->params = arena_alloc(ic->ar, sizeof *out->params);
  for (int i = 0; i < args->len; i++) {
    const type *t = ix_annotation_type(ic, args->items[i]);
    if (!t) return false;
    vec_push(ic->ar, out->params, (void *)t);
  }
  return true;
}

/* One signature in any of its spellings. */
static bool sig_of(infer_ctx *ic, node *e, sig_spec *out) {
  memset(out, 0, sizeof *out);
  if (e->kind == N_STR) return sig_from_string(ic, e, out);
  if (e->kind == N_TUPLE) return sig_params(ic, &e->list, out);
  if (e->kind == N_CALL && !e->kwargs.len) {
    const type *ret = is_void_expr(ic, e->a) ? &ty_void : NULL;
    if (!ret) {
      const char *p = ix_dotted_path(ic, e->a->kind == N_INDEX ? e->a->a : e->a);
      if (p && ix_type_from_path(p)) ret = ix_annotation_type(ic, e->a);
      else if (!is_type_call(ic, e)) {
        ix_error(ic, e->a->sp, "%s; this one calls something that is not a type", sig_forms);
        return false;
      }
    }
    if (ret) {
      out->ret = ret;
      return sig_params(ic, &e->list, out);
    }
  }
  ix_error(ic, e->sp, "%s", sig_forms);
  return false;
}

bool ix_signature(infer_ctx *ic, node *e, ptr_vec **params, const type **ret) {
  sig_spec s;
  if (!sig_of(ic, ix_sig_const(ic, e), &s)) return false;
  *params = s.params;
  *ret = s.ret;
  return true;
}

/* Is e one signature rather than a type (types.Array(...) is a call too)? */
static bool is_signature(infer_ctx *ic, node *e) {
  if (e->kind == N_STR) return true;
  return e->kind == N_CALL && !is_type_call(ic, e);
}

/* A decorator's first argument as a list of signatures: a list; a tuple of signatures
 * (strings, type calls); or one signature (a tuple of argument types is one). */
static node_list *sig_list(infer_ctx *ic, node *arg) {
  node_list *l = arena_alloc(ic->ar, sizeof *l);
  bool many = arg->kind == N_LIST;
  if (arg->kind == N_TUPLE)
    for (int i = 0; i < arg->list.len; i++) many |= is_signature(ic, arg->list.items[i]);
  if (many) return &arg->list;
  node **one = arena_alloc(ic->ar, sizeof *one);
  *one = arg;
  l->items = one;
  l->len = l->cap = 1;
  return l;
}

static void add_kernel_sig(infer_ctx *ic, func_def *fn, node *e, const sig_spec *s) {
  if (s->ret && s->ret->kind != TY_VOID) {
    /* Numba's cuda.jit raises "CUDA kernel must have void return type" here too */
    ix_error(ic, e->sp, "a kernel signature must return void (a function that returns a "
         "value is a device function: add device=True)");
    return;
  }
  int n = s->params->len;
  if (n != fn->def->params.len) {
    ix_error(ic, e->sp, "the signature has %d parameter%s but '%s' takes %d", n,
         n == 1 ? "" : "s", fn->name, fn->def->params.len);
    return;
  }
  vec_push(ic->ar, &fn->sigs, s->params);
}

/* A vectorize signature: scalars, with a result or without one ('(float32, float32)':
 * the function's own result type, inferred per signature as Numba does). */
static void add_vectorize_sig(infer_ctx *ic, func_def *fn, node *e, const sig_spec *s) {
  bool scalar = !s->ret || type_is_scalar(s->ret);
  for (int i = 0; i < s->params->len; i++)
    scalar &= type_is_scalar((const type *)s->params->items[i]);
  if (!scalar) {
    ix_error(ic, e->sp, "a vectorize signature is of scalars, with a result or without: "
         "'float32(float32, float32)', float32(float32, float32) or '(float32, float32)'");
    return;
  }
  if (s->params->len != fn->def->params.len) {
    ix_error(ic, e->sp, "the signature has %d parameters but '%s' takes %d", s->params->len,
         fn->name, fn->def->params.len);
    return;
  }
  vec_push(ic->ar, &fn->sigs, s->params);
  vec_push(ic->ar, &fn->rets, (void *)s->ret);
}

/* @cuda.jit("int64(int64)", device=True): calls convert their arguments to the
 * signature's types, as Numba's call of a compiled device function does, and the
 * result is the declared one, which lets the function call itself (funcval.c). */
static void add_device_sig(infer_ctx *ic, func_def *fn, node *e, const sig_spec *s) {
  int n = s->params->len;
  if (n != fn->def->params.len) {
    ix_error(ic, e->sp, "the signature has %d parameter%s but '%s' takes %d", n,
         n == 1 ? "" : "s", fn->name, fn->def->params.len);
    return;
  }
  if (s->ret && s->ret->kind == TY_ARRAY) {
    ix_error(ic, e->sp, "a device function cannot return an array");
    return;
  }
  vec_push(ic->ar, &fn->sigs, s->params);
  vec_push(ic->ar, &fn->rets, (void *)s->ret);
}

/* The signatures given to @cuda.jit, @vectorize or @guvectorize (whose signatures are
 * checked as a kernel's: void, one type per parameter). */
void ix_decorator_sigs(infer_ctx *ic, func_def *fn, node *arg) {
  node_list *l = sig_list(ic, ix_sig_const(ic, arg));
  for (int i = 0; i < l->len; i++) {
    node *e = ix_sig_const(ic, l->items[i]);
    sig_spec s;
    int before = fn->sigs.len;
    if (sig_of(ic, e, &s)) {
      if (fn->kind == FN_VECTORIZE) add_vectorize_sig(ic, fn, e, &s);
      else if (fn->kind == FN_DEVICE) add_device_sig(ic, fn, e, &s);
      else add_kernel_sig(ic, fn, e, &s);
    }
    fn->sig_failed |= fn->sigs.len == before;
  }
}

/* ---- @cuda.reduce --------------------------------------------------------------------------- */

/* The generated kernel's parameters for element type el (synth.c): the array, the
 * result, the initial value and whether one was given. Internal: messages speak of the
 * binary function's signature T(T, T) only. */
ptr_vec *ix_reduce_kernel_sig(infer_ctx *ic, const type *el) {
  ptr_vec *v = arena_alloc(ic->ar, sizeof *v);
  vec_push(ic->ar, v, (void *)type_array(ic->ar, el, 1));
  vec_push(ic->ar, v, (void *)type_array(ic->ar, el, 1));
  vec_push(ic->ar, v, (void *)el);
  vec_push(ic->ar, v, (void *)&ty_bool);
  return v;
}

/* The element type of a reducer signature T(T, T) or (T, T); NULL if it is not one.
 * The generated kernel's own shape (T[:], T[:], T, bool) is accepted too, as earlier
 * versions of kcc asked for it. */
static const type *reduce_elem(const sig_spec *s) {
  const ptr_vec *p = s->params;
  if (p->len == 4) {
    const type *a = p->items[0], *o = p->items[1], *i = p->items[2], *h = p->items[3];
    bool kernel = a->kind == TY_ARRAY && a->ndim == 1 && type_equal(a, o) &&
                  type_equal(a->elem, i) && h->kind == TY_BOOL &&
                  (!s->ret || s->ret->kind == TY_VOID);
    return kernel && type_is_numeric(i) && i->kind != TY_BOOL ? i : NULL;
  }
  if (p->len != 2) return NULL;
  const type *a = p->items[0], *b = p->items[1];
  bool ok = type_is_numeric(a) && a->kind != TY_BOOL && type_equal(a, b) &&
            (!s->ret || type_equal(s->ret, a));
  return ok ? a : NULL;
}

static void add_reduce_sig(infer_ctx *ic, func_def *fn, span where, const char *text,
                           const sig_spec *s) {
  const type *el = reduce_elem(s);
  if (!el) {
    ix_error(ic, where, "%s%s%sa @cuda.reduce signature is the binary function's: one number "
         "type T as T(T, T), e.g. 'float32(float32, float32)'", text ? "--sig '" : "",
         text ? text : "", text ? "': " : "");
    return;
  }
  vec_push(ic->ar, &fn->sigs, ix_reduce_kernel_sig(ic, el));
}

/* kcc's extension: @cuda.reduce('float32(float32, float32)', ...) compiles those element
 * types ahead of time. */
void ix_reduce_decorator_sigs(infer_ctx *ic, func_def *fn, node *arg) {
  node_list *l = sig_list(ic, arg);
  for (int k = 0; k < l->len; k++) {
    node *e = l->items[k];
    sig_spec s;
    int before = fn->sigs.len;
    if (sig_of(ic, e, &s)) add_reduce_sig(ic, fn, e->sp, NULL, &s);
    fn->sig_failed |= fn->sigs.len == before;
  }
}

/* ---- annotations and --sig ------------------------------------------------------------------- */

const type *ix_known_annotation(infer_ctx *ic, node *ann) {
  diag_first why;
  diag_sink *loud = ic->d, quiet = diag_muted(loud, &why);
  ic->d = &quiet;
  const type *t = ix_annotation_type(ic, ann);
  ic->d = loud;
  return quiet.nerrors ? NULL : t;
}

/* A kernel's signature from its annotations, when every parameter has one that is a
 * kernel type (a: float32[:], n: int32). Numba ignores annotations, so any other set
 * (some missing, or one kcc does not know: Any, np.ndarray, DeviceNDArray, 'float32[:]'
 * spelled as a string it cannot read) leaves the kernel typed as an unannotated one is:
 * from its decorator's signature, --sig, or the launch. */
void ix_annotation_sig(infer_ctx *ic, func_def *fn) {
  node_list *ps = &fn->def->params;
  for (int i = 0; i < ps->len; i++)
    if (!((node *)ps->items[i])->a) return;
  if (ps->len == 0) return;
  ptr_vec *v = arena_alloc(ic->ar, sizeof *v);
  for (int i = 0; i < ps->len; i++) {
    node *ann = ((node *)ps->items[i])->a;
    const type *t = ix_known_annotation(ic, ann);
    if (!t) {
      /* a type kcc knows but no kernel takes (float32x4): say so, it is no oversight */
      const char *p = ann->kind == N_NAME || ann->kind == N_ATTR ? ix_dotted_path(ic, ann) : NULL;
      if (p && vec_type_from_path(p)) ix_annotation_type(ic, ann);
      return;
    }
    vec_push(ic->ar, v, (void *)t);
  }
  vec_push(ic->ar, &fn->sigs, v);
}

/* The kernel (or reducer) a --sig names, or the only one when it names none. */
static func_def *cli_sig_target(infer_ctx *ic, const char *name) {
  func_def *fn = NULL;
  int n = 0;
  for (int j = 0; j < ic->prog->funcs.len; j++) {
    func_def *f = ic->prog->funcs.items[j];
    if (f->kind != FN_KERNEL && f->kind != FN_REDUCE) continue;
    n++;
    if (name[0] ? strcmp(f->name, name) == 0 : n == 1) fn = f;
  }
  return !name[0] && n > 1 ? NULL : fn;
}

/* --sig NAME(TYPES): for the named kernel or reducer, or the only one. */
void ix_apply_cli_sigs(infer_ctx *ic) {
  for (int j = 0; j < ic->prog->funcs.len; j++) {
    func_def *f = ic->prog->funcs.items[j];
    f->source_sigs = f->sigs.len;
  }
  for (int i = 0; i < ic->opts->nsigs; i++) {
    const char *text = ic->opts->sigs[i];
    node str = {.kind = N_STR, .str = text};
    sig_parsed sp;
    char err[200];
    sig_spec s;
    if (sig_parse(text, &sp, err, sizeof err) != 0) {
      ix_error(ic, span_none(), "--sig '%s': %s", text, err);
      continue;
    }
    func_def *fn = cli_sig_target(ic, sp.name);
    if (!fn) {
      ix_error(ic, span_none(), "--sig '%s': %s", text, sp.name[0] ? "no kernel of that name"
           : "name the kernel, e.g. --sig 'add(float32[:], int32)'");
      continue;
    }
    if (sp.name[0]) str.str = strstr(text, sp.name) + strlen(sp.name);   /* the types after the name */
    if (!sig_from_string(ic, &str, &s)) continue;
    if (fn->kind == FN_REDUCE) {
      add_reduce_sig(ic, fn, span_none(), text, &s);
      continue;
    }
    if (s.params->len != fn->def->params.len) {
      ix_error(ic, span_none(), "--sig '%s': kernel '%s' takes %d parameters", text, fn->name,
           fn->def->params.len);
      continue;
    }
    vec_push(ic->ar, &fn->sigs, s.params);
  }
}

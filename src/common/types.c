/*
 * types.c — the kernel language's types. Scalars are static constants, so they can be
 * compared by pointer as well as with type_equal; arrays and tuples are built in the
 * compilation's arena and must be compared with type_equal. Names are Numba's.
 */
#include "types.h"

#include <math.h>
#include <string.h>

#include "records.h"
#include "signature.h"

#define TY_SCALAR(k, b, s) {.kind = (k), .bits = (b), .is_signed = (s)}

const type ty_void = TY_SCALAR(TY_VOID, 0, false);
const type ty_bool = TY_SCALAR(TY_BOOL, 8, false);
const type ty_string = TY_SCALAR(TY_STRING, 0, false);
const type ty_grid_group = TY_SCALAR(TY_GROUP, 0, false);
const type ty_i8 = TY_SCALAR(TY_INT, 8, true);
const type ty_i16 = TY_SCALAR(TY_INT, 16, true);
const type ty_i32 = TY_SCALAR(TY_INT, 32, true);
const type ty_i64 = TY_SCALAR(TY_INT, 64, true);
const type ty_u8 = TY_SCALAR(TY_INT, 8, false);
const type ty_u16 = TY_SCALAR(TY_INT, 16, false);
const type ty_u32 = TY_SCALAR(TY_INT, 32, false);
const type ty_u64 = TY_SCALAR(TY_INT, 64, false);
const type ty_f16 = TY_SCALAR(TY_FLOAT, 16, true);
const type ty_f32 = TY_SCALAR(TY_FLOAT, 32, true);
const type ty_f64 = TY_SCALAR(TY_FLOAT, 64, true);
const type ty_bf16 = {.kind = TY_FLOAT, .bits = 16, .is_signed = true, .bfloat = true};
const type ty_c64 = TY_SCALAR(TY_COMPLEX, 64, true);
const type ty_c128 = TY_SCALAR(TY_COMPLEX, 128, true);

/* Indexed by kc_dtype. */
static const type *const types_by_dtype[KC_DTYPE_COUNT] = {
  [KC_BOOL] = &ty_bool, [KC_INT8] = &ty_i8, [KC_INT16] = &ty_i16, [KC_INT32] = &ty_i32,
  [KC_INT64] = &ty_i64, [KC_UINT8] = &ty_u8, [KC_UINT16] = &ty_u16, [KC_UINT32] = &ty_u32,
  [KC_UINT64] = &ty_u64, [KC_FLOAT32] = &ty_f32, [KC_FLOAT64] = &ty_f64,
  [KC_COMPLEX64] = &ty_c64, [KC_COMPLEX128] = &ty_c128, [KC_FLOAT16] = &ty_f16,
};

const type *type_array(arena *a, const type *elem, int ndim) {
  type *t = arena_alloc(a, sizeof *t);
  if (!t)
    return NULL;
  t->kind = TY_ARRAY;
  t->elem = elem;
  t->ndim = ndim;
  return t;
}

const type *type_array_layout(arena *a, const type *elem, int ndim, bool strided) {
  type *t = (type *)type_array(a, elem, ndim);
  if (t)
    t->strided = strided;
  return t;
}

const type *type_optional(arena *a, const type *elem) {
  type *t = arena_alloc(a, sizeof *t);
  t->kind = TY_OPTIONAL;
  t->elem = elem;
  return t;
}

const type *type_tuple(arena *a, const type **elems, int n) {
  type *t = arena_alloc(a, sizeof *t);
  if (!t)
    return NULL;
  t->kind = TY_TUPLE;
  t->nelems = n;
  t->elems = arena_alloc(a, sizeof(type *) * (size_t)(n > 0 ? n : 1));
  if (!t->elems)
    return NULL;
  for (int i = 0; i < n; i++)
    t->elems[i] = elems[i];
  return t;
}

const type *type_funcval(arena *a, fv_kind k, const void *ref, const char *name,
                         const type *elem, const type **caps, int n) {
  type *t = (type *)type_tuple(a, caps, n);
  if (!t)
    return NULL;
  t->kind = TY_FUNCVAL;
  t->fv_kind = k;
  t->fv = ref;
  t->fv_name = name;
  t->elem = elem;
  return t;
}

/* A declared [::1] is ignored (parameters are all C-contiguous); a strided view is a
 * different type from a contiguous array. */
bool type_equal(const type *a, const type *b) {
  if (a == b)
    return true;
  if (!a || !b || a->kind != b->kind)
    return false;
  switch (a->kind) {
  case TY_INT:
    return a->bits == b->bits && a->is_signed == b->is_signed;
  case TY_FLOAT: case TY_COMPLEX:
    return a->bits == b->bits && a->bfloat == b->bfloat;
  case TY_ARRAY:
    return a->ndim == b->ndim && a->strided == b->strided && type_equal(a->elem, b->elem);
  case TY_FUNCVAL: /* the same function or type, capturing values of the same types */
  case TY_TUPLE:
    if (a->kind == TY_FUNCVAL &&
        (a->fv_kind != b->fv_kind || a->fv != b->fv || !type_equal(a->elem, b->elem)))
      return false;
    if (a->nelems != b->nelems)
      return false;
    for (int i = 0; i < a->nelems; i++)
      if (!type_equal(a->elems[i], b->elems[i]))
        return false;
    return true;
  case TY_RECORD:
    return rec_equal(a, b);
  case TY_VECTOR:
    return a->nelems == b->nelems && type_equal(a->elem, b->elem);
  case TY_OPTIONAL:
    return type_equal(a->elem, b->elem);
  default:
    return true;
  }
}

const type *type_complex_part(const type *t) {
  return t->bits == 128 ? &ty_f64 : &ty_f32;
}

const type *type_complex_of(const type *f) {
  return f->bits == 64 ? &ty_c128 : &ty_c64;
}

const type *type_from_dtype(kc_dtype d) {
  return (unsigned)d < KC_DTYPE_COUNT ? types_by_dtype[d] : NULL;
}

/* KC_DTYPE_COUNT for a type that is not a scalar. */
kc_dtype type_to_dtype(const type *t) {
  for (int i = 0; i < KC_DTYPE_COUNT; i++)
    if (type_equal(t, types_by_dtype[i]))
      return (kc_dtype)i;
  return KC_DTYPE_COUNT;
}

const type *type_from_name(const char *name) {
  if (strcmp(name, "bfloat16") == 0) return &ty_bf16;   /* kernels only: no kc_dtype */
  int d = sig_dtype_from_name(name, strlen(name));
  return d < 0 ? NULL : type_from_dtype((kc_dtype)d);
}

static bool type_tuple_uniform(const type *t) {
  for (int i = 1; i < t->nelems; i++)
    if (!type_equal(t->elems[i], t->elems[0]))
      return false;
  return t->nelems > 0;
}

static const char *type_tuple_name(arena *a, const type *t) {
  if (type_tuple_uniform(t))
    return arena_printf(a, "UniTuple(%s, %d)", type_name(a, t->elems[0]), t->nelems);
  const char *s = "Tuple(";
  for (int i = 0; i < t->nelems; i++)
    s = arena_printf(a, "%s%s%s", s, i ? ", " : "", type_name(a, t->elems[i]));
  return arena_printf(a, "%s)", s);
}

const char *type_name(arena *a, const type *t) {
  if (!t)
    return "<unknown>";
  switch (t->kind) {
  case TY_VOID:
    return "void";
  case TY_STRING:
    return "str";
  case TY_GROUP:
    return "GridGroup";
  case TY_ARRAY:
    if (t->strided) /* Numba's spelling of a non-contiguous view */
      return arena_printf(a, "array(%s, %dd, A)", type_name(a, t->elem), t->ndim);
    if (t->ndim < 1 || t->ndim > KC_MAX_DIMS)
      return arena_printf(a, "%s[%d dims]", type_name(a, t->elem), t->ndim);
    return arena_printf(a, "%s%s", type_name(a, t->elem), sig_dims(t->ndim));
  case TY_TUPLE:
    return type_tuple_name(a, t);
  case TY_FUNCVAL: /* Numba's names: class(float32), Function(...), type(CUDADispatcher) */
    return arena_printf(a, t->fv_kind == FV_CLASS ? "class(%s)" : "function(%s)",
                        t->fv_kind == FV_CLASS ? type_name(a, t->elem) : t->fv_name);
  case TY_RECORD:
    return t->rec->name;
  case TY_VECTOR:   /* numba-cuda's name: float32x4 */
    return arena_printf(a, "%sx%d", type_name(a, t->elem), t->nelems);
  case TY_OPTIONAL:   /* Numba's name */
    return arena_printf(a, "OptionalType(%s)", type_name(a, t->elem));
  case TY_FLOAT:
    if (t->bfloat) return "bfloat16";   /* it has no kc_dtype */
    /* fall through */
  default:
    return sig_dtype_name(type_to_dtype(t));
  }
}

/* NumPy's "safe" casting (np.can_cast(from, to, 'safe')) on kcc's scalar types; with
 * Numba's rule that, when the inputs mix integers and floats, an integer goes to any
 * float. */
bool type_can_cast_safe(const type *from, const type *to, bool mixed) {
  if (from->kind == TY_BOOL) return true;
  if (to->kind == TY_BOOL) return false;
  /* bfloat16 and float16 hold neither each other (range, precision); float32 holds both */
  if (from->kind == TY_FLOAT && to->kind == TY_FLOAT && to->bits == 16)
    return from->bits == 16 && from->bfloat == to->bfloat;
  if (from->kind == TY_FLOAT) return to->kind == TY_FLOAT && to->bits >= from->bits;
  if (to->kind == TY_FLOAT) {
    if (mixed) return true;
    int need = from->bits <= 8 ? 16 : from->bits <= 16 ? 32 : 64;
    return to->bits >= need;
  }
  if (from->is_signed == to->is_signed) return to->bits >= from->bits;
  return !from->is_signed && to->bits > from->bits;
}

/* d rounded once, halves to even, to a binary format of `digits` significant bits
 * whose last bit weighs at least 2^lowest (subnormals) and whose largest finite value
 * is max (past it: infinity), without the compiler's _Float16 or __bf16 */
static double round_binary(double d, int digits, int lowest, double max) {
  if (!isfinite(d) || d == 0) return d;
  int e;
  frexp(d, &e);
  int q = e - digits < lowest ? lowest : e - digits;   /* the exponent of the last bit kept */
  double r = ldexp(nearbyint(ldexp(d, -q)), q);
  return fabs(r) > max ? copysign(INFINITY, d) : r;
}

double type_round(double d, const type *t) {
  if (t->bits == 32) return (double)(float)d;
  if (t->bits == 16)   /* bfloat16: float32's exponents; float16: IEEE binary16 */
    return t->bfloat ? round_binary(d, 8, -133, 0x1.fep127) : round_binary(d, 11, -24, 65504);
  return d;
}

const type *type_promote_numpy(const type *a, const type *b) {
  static const type *const order[] = {&ty_bool, &ty_i8, &ty_u8, &ty_i16, &ty_u16, &ty_i32,
                                      &ty_u32, &ty_i64, &ty_u64, &ty_f16, &ty_f32, &ty_f64};
  if (!a || type_equal(a, b)) return b;
  if (a->kind == TY_COMPLEX || b->kind == TY_COMPLEX) {
    /* complex64 holds what float32 holds, complex128 the rest (complex64 and int32 are
       complex128, as float32 and int32 are float64) */
    const type *r = type_promote_numpy(a->kind == TY_COMPLEX ? type_complex_part(a) : a,
                                       b->kind == TY_COMPLEX ? type_complex_part(b) : b);
    return r->kind == TY_FLOAT && r->bits <= 32 ? &ty_c64 : &ty_c128;
  }
  for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
    if (type_can_cast_safe(a, order[i], false) && type_can_cast_safe(b, order[i], false))
      return order[i];
  return &ty_f64;
}

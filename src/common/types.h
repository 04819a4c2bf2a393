/*
 * types.h — the types of the kernel language: scalars (bool, ints, floats), arrays of
 * a scalar dtype with 1..KC_MAX_DIMS (8) dimensions, tuples, and a few compile-time-only kinds
 * (modules like `cuda`, functions, the None of a bare `return`). Scalar types are
 * static constants; arrays and tuples are made in the compilation's arena.
 */
#ifndef KCC_TYPES_H
#define KCC_TYPES_H

#include <stdbool.h>

#include "arena.h"
#include "kc.h"

typedef enum type_kind {
  TY_VOID,   /* no value: a kernel's result, a call of a void device function */
  TY_BOOL,
  TY_INT,    /* bits 8/16/32/64, is_signed */
  TY_FLOAT,  /* bits 16/32/64; 16 with bfloat set is bfloat16 */
  TY_COMPLEX,/* bits 64/128 (the whole number, as Numba names it): two floats */
  TY_ARRAY,  /* elem (a scalar type), ndim 1..KC_MAX_DIMS */
  TY_TUPLE,  /* nelems elements, each a type */
  TY_STRING, /* a string constant (print, docstrings) */
  TY_GROUP,  /* a cooperative group: cuda.cg.this_grid() (Numba's GridGroup) */
  TY_FUNCVAL, /* a function, builtin or type object used as a value (funcval.c): known at
                 compile time, as Numba types Dispatcher, Function and NumberClass values;
                 at run time only a closure's captured values (elems) */
  TY_RECORD, /* a NumPy structured dtype: rec (records.h); its values are addresses */
  TY_VECTOR, /* a CUDA vector type (float32x4): nelems (1..4) of elem, a scalar */
  TY_OPTIONAL /* Numba's Optional: elem (a scalar) or None, what a device function
                 returns when some of its returns are `return None` */
} type_kind;

/* What a TY_FUNCVAL stands for (type.fv): */
typedef enum fv_kind {
  FV_FUNC,    /* a device function, kernel or inner function (a func_def) */
  FV_BUILTIN, /* a builtin function's registry row: cuda.atomic.add */
  FV_CLASS    /* a scalar type object (elem): float32, np.uint8 */
} fv_kind;

typedef struct type type;
struct type {
  type_kind kind;
  int bits;
  bool is_signed;
  bool bfloat;            /* TY_FLOAT, bits 16: bfloat16 (8 exponent bits, 8 significant),
                             numba.cuda.bf16's type; it has no kc_dtype, so it lives in
                             kernels only (locals, device functions, local arrays) */
  const type *elem;       /* TY_ARRAY */
  int ndim;               /* TY_ARRAY */
  bool contiguous;        /* TY_ARRAY: declared [::1] (all our arrays are C-contiguous) */
  bool strided;           /* TY_ARRAY: a view in any layout (Numba's 'A'), made by slicing
                             in a kernel; it carries a stride per dimension. Others are
                             C-contiguous and carry only extents. */
  int nelems;             /* TY_TUPLE */
  const type **elems;     /* TY_TUPLE; TY_FUNCVAL: the captured values' types */
  fv_kind fv_kind;        /* TY_FUNCVAL */
  const void *fv;         /* TY_FUNCVAL: the func_def or builtin row (NULL for FV_CLASS) */
  const char *fv_name;    /* TY_FUNCVAL: its name for messages ("cuda.atomic.add") */
  const struct rec_layout *rec; /* TY_RECORD (records.h) */
};

extern const type ty_void, ty_bool, ty_string, ty_grid_group;
extern const type ty_i8, ty_i16, ty_i32, ty_i64, ty_u8, ty_u16, ty_u32, ty_u64;
extern const type ty_f16, ty_f32, ty_f64, ty_bf16;
extern const type ty_c64, ty_c128;

const type *type_array(arena *a, const type *elem, int ndim);
const type *type_tuple(arena *a, const type **elems, int n);
const type *type_optional(arena *a, const type *elem);
/* An array type with the given layout: strided (any layout) or C-contiguous. */
const type *type_array_layout(arena *a, const type *elem, int ndim, bool strided);
/* A function value (TY_FUNCVAL) of kind k for ref, capturing values of types caps[0..n). */
const type *type_funcval(arena *a, fv_kind k, const void *ref, const char *name,
                         const type *elem, const type **caps, int n);
bool type_equal(const type *a, const type *b);
static inline bool type_is_int(const type *t) { return t->kind == TY_INT; }
static inline bool type_is_float(const type *t) { return t->kind == TY_FLOAT; }
static inline bool type_is_bf16(const type *t) { return t->kind == TY_FLOAT && t->bfloat; }
static inline bool type_is_complex(const type *t) { return t->kind == TY_COMPLEX; }
/* bool, integers and floats: what orders, indexes and takes math.* */
static inline bool type_is_real(const type *t) {
  return t->kind == TY_INT || t->kind == TY_FLOAT || t->kind == TY_BOOL;
}
static inline bool type_is_numeric(const type *t) {
  return type_is_real(t) || t->kind == TY_COMPLEX;
}
static inline bool type_is_scalar(const type *t) { return type_is_numeric(t); }
/* complex: the type of each part (float32 for complex64); the complex type whose parts
 * are the float type f (complex64 for float32 and narrower). */
const type *type_complex_part(const type *t);
const type *type_complex_of(const type *f);
/* Numba spelling: "float32", "int64[:, :]", "UniTuple(float32, 2)" etc. */
const char *type_name(arena *a, const type *t);
/* Map between scalar types and the public dtype enum. */
const type *type_from_dtype(kc_dtype d);
kc_dtype type_to_dtype(const type *t);
/* The scalar type for a Numba name or short alias ("float32", "f4", "f32", "int_",
 * "uint8", "boolean", "bool_", "intp"...), or NULL. */
const type *type_from_name(const char *name);
/* NumPy's "safe" casting (np.can_cast(from, to, 'safe')) of scalar types; mixed: Numba's
 * rule that, when a ufunc's inputs mix integers and floats, an integer goes to any
 * float. */
bool type_can_cast_safe(const type *from, const type *to, bool mixed);
/* d rounded once, to nearest with halves to even, to the float type t: float32, float16
 * or bfloat16 (overflow to infinity, subnormals kept); float64 as it is. The constant
 * folder's rounding, and the CPU back end's float64 -> bfloat16 conversion. */
double type_round(double d, const type *t);
/* np.promote_types(a, b) of real scalar types (a NULL: b): the first both cast to
 * safely, float64 when none does (int64 and uint64). */
const type *type_promote_numpy(const type *a, const type *b);

#endif

/*
 * fold_math.c — the elementary functions evaluated at module level, as Python evaluates
 * them before Numba freezes a kernel's globals: `SQRT2 = math.sqrt(2.0)`,
 * `C = np.exp(-0.5)`, `W = np.cos(2 * np.pi * np.arange(N) / N)` (a table of twiddles or
 * weights), `R = cmath.exp(2j * math.pi / 3)`. The C library computes each value, as
 * CPython's math module does.
 *
 *   math.f(x)     a Python float (floor, ceil, trunc: an int); a result Python would
 *                 raise on (math.sqrt(-1), math.exp(1000)) is an error at the call
 *   numpy.f(x)    NumPy's scalar or, on a module array, element by element, of NumPy's
 *                 result dtype: float16 for bool and 8-bit integers, float32 for 16-bit
 *                 ones and float32, float64 for the rest; NaN and inf as NumPy gives them
 *   cmath.f(z)    a complex (also numpy.f of a complex number: exp, log, sqrt, sin ...)
 */
#include <complex.h>
#include <math.h>
#include <string.h>

#include "builtins/builtin.h"
#include "typing.h"

typedef struct elementary {
  const char *name;                  /* after "math." / "numpy." / "cmath." */
  const char *numpy;                 /* NumPy's name where it differs (arcsin), or NULL */
  double (*f1)(double);
  double (*f2)(double, double);
  double complex (*c1)(double complex);   /* for a complex argument (NULL: none) */
} elementary;

#define PI 3.14159265358979323846
static double degrees(double x) { return x * (180.0 / PI); }
static double radians(double x) { return x * (PI / 180.0); }
/* lgamma sets the global signgam: two threads compiling would race on it */
static double lgamma_no_sign(double x) { int sign; return lgamma_r(x, &sign); }

static const elementary table[] = {
  {"sqrt", NULL, sqrt, NULL, csqrt},   {"exp", NULL, exp, NULL, cexp},
  {"exp2", NULL, exp2, NULL, NULL},    {"expm1", NULL, expm1, NULL, NULL},
  {"log", NULL, log, NULL, clog},      {"log2", NULL, log2, NULL, NULL},
  {"log10", NULL, log10, NULL, NULL},  {"log1p", NULL, log1p, NULL, NULL},
  {"fabs", NULL, fabs, NULL, NULL},    {"cbrt", NULL, cbrt, NULL, NULL},
  {"sin", NULL, sin, NULL, csin},      {"cos", NULL, cos, NULL, ccos},
  {"tan", NULL, tan, NULL, ctan},      {"asin", "arcsin", asin, NULL, casin},
  {"acos", "arccos", acos, NULL, cacos}, {"atan", "arctan", atan, NULL, catan},
  {"sinh", NULL, sinh, NULL, csinh},   {"cosh", NULL, cosh, NULL, ccosh},
  {"tanh", NULL, tanh, NULL, ctanh},   {"asinh", "arcsinh", asinh, NULL, casinh},
  {"acosh", "arccosh", acosh, NULL, cacosh}, {"atanh", "arctanh", atanh, NULL, catanh},
  {"erf", NULL, erf, NULL, NULL},      {"erfc", NULL, erfc, NULL, NULL},
  {"gamma", NULL, tgamma, NULL, NULL}, {"lgamma", NULL, lgamma_no_sign, NULL, NULL},
  {"floor", NULL, floor, NULL, NULL},  {"ceil", NULL, ceil, NULL, NULL},
  {"trunc", NULL, trunc, NULL, NULL},  {"degrees", "rad2deg", degrees, NULL, NULL},
  {"radians", "deg2rad", radians, NULL, NULL},
  {"pow", "power", NULL, pow, NULL},   {"atan2", "arctan2", NULL, atan2, NULL},
  {"hypot", NULL, NULL, hypot, NULL},  {"fmod", NULL, NULL, fmod, NULL},
  {"copysign", NULL, NULL, copysign, NULL},
};

enum module { M_MATH, M_NUMPY, M_CMATH };

/* The row for function `name` of module m (NumPy's spelling or the short one). */
static const elementary *find(enum module m, const char *name) {
  for (size_t i = 0; i < sizeof table / sizeof table[0]; i++) {
    const elementary *f = &table[i];
    if (strcmp(f->name, name) == 0 || (m == M_NUMPY && f->numpy && strcmp(f->numpy, name) == 0))
      return f;
  }
  if (m == M_NUMPY && (strcmp(name, "absolute") == 0 || strcmp(name, "abs") == 0))
    return find(m, "fabs");
  return NULL;
}

/* NumPy's float result type for an argument of type t (its ufunc loop: e, f or d). */
static const type *numpy_float(const type *t) {
  if (t->kind == TY_FLOAT) return t;
  if (t->kind == TY_BOOL || (t->kind == TY_INT && t->bits == 8)) return &ty_f16;
  if (t->kind == TY_INT && t->bits == 16) return &ty_f32;
  return &ty_f64;
}

/* re + im i without the arithmetic that would turn an infinite part into NaNs
 * (CMPLX is missing from some compilers' complex.h). */
static double complex make_complex(double re, double im) {
  double complex z;
  __real__ z = re;
  __imag__ z = im;
  return z;
}

static node *complex_node(infer_ctx *ic, double complex z, span sp) {
  node *n = node_new(ic->ar, N_COMPLEX, sp);
  n->a = ix_const_float_node(ic, creal(z), sp);
  n->b = ix_const_float_node(ic, cimag(z), sp);
  return n;
}

/* f of the folded scalars x (and y), as module m gives it; NULL after an error. */
static node *apply(infer_ctx *ic, node *e, enum module m, const elementary *f, node *x,
                   node *y) {
  if (x->kind == N_COMPLEX || (y && y->kind == N_COMPLEX) || m == M_CMATH) {
    if (m == M_NUMPY && f->f1 == fabs && !y) {   /* np.abs(z): its modulus */
      const type *t = ix_const_type(ic, x);
      node *r = ix_const_float_node(ic, cabs(make_complex(x->a->fval, x->b->fval)), e->sp);
      return ix_fold_cast(ic, r, t->kind == TY_COMPLEX ? type_complex_part(t) : &ty_f64, e->sp);
    }
    if (!f->c1 || y || m == M_MATH) {
      ix_error(ic, e->sp, "kcc does not evaluate this function of a complex number at "
               "module level");
      return NULL;
    }
    double complex z = x->kind == N_COMPLEX ? make_complex(x->a->fval, x->b->fval)
                                            : make_complex(ix_const_as_double(x), 0.0);
    return complex_node(ic, f->c1(z), e->sp);
  }
  double a = ix_const_as_double(x), b = y ? ix_const_as_double(y) : 0, r;
  r = y ? f->f2(a, b) : f->f1(a);
  if (m == M_MATH && !isfinite(r) && isfinite(a) && isfinite(b)) {
    ix_error(ic, e->sp, "math.%s raises here in Python (%s): kcc evaluates module-level "
             "constants as Python does", f->name,
             isnan(r) ? "ValueError: math domain error" : "OverflowError: math range error");
    return NULL;
  }
  bool to_int = m == M_MATH && (f->f1 == floor || f->f1 == ceil || f->f1 == trunc);
  if (to_int) return ix_const_int_node(ic, (int64_t)r, e->sp);
  node *v = ix_const_float_node(ic, r, e->sp);
  if (m != M_NUMPY) return v;   /* a Python float */
  const type *t = numpy_float(ix_const_type(ic, x));
  if (y) {
    const type *u = numpy_float(ix_const_type(ic, y));
    t = t->bits >= u->bits ? t : u;
  }
  return ix_fold_cast(ic, v, t, e->sp);
}

/* numpy.f over a module array, element by element. */
static node *apply_array(infer_ctx *ic, node *e, const elementary *f, node *a, node *y) {
  ptr_vec flat;
  int64_t dims[KC_MAX_DIMS];
  int nd = ix_const_array_flat(ic, a, &flat, dims);
  for (int i = 0; i < flat.len; i++)
    if (!(flat.items[i] = apply(ic, e, M_NUMPY, f, flat.items[i], y))) return NULL;
  const type *el = a->ty->elem;
  const type *t = el->kind != TY_COMPLEX ? numpy_float(el) : f->f1 == fabs ? type_complex_part(el)
                                                                           : el;
  return ix_const_array_make(ic, (node **)flat.items, dims, nd, t, e->sp);
}

node *ix_fold_elementary(infer_ctx *ic, node *e, const char *path) {
  enum module m = strncmp(path, "math.", 5) == 0 ? M_MATH
                  : strncmp(path, "numpy.", 6) == 0 ? M_NUMPY
                  : strncmp(path, "cmath.", 6) == 0 ? M_CMATH : -1;
  if ((int)m < 0 || e->kwargs.len) return NULL;
  const elementary *f = find(m, strchr(path, '.') + 1);
  int n = f ? (f->f2 ? 2 : 1) : 0;
  if (!f || e->list.len != n) return NULL;
  node *x = ix_fold(ic, e->list.items[0]), *y = n == 2 ? ix_fold(ic, e->list.items[1]) : NULL;
  if (!x || (n == 2 && !y)) return NULL;
  bool xa = ix_const_is_array(x), ya = y && ix_const_is_array(y);
  if (ya || (!xa && x->kind == N_TUPLE) || (y && y->kind == N_TUPLE)) return NULL;
  if (xa) return m == M_NUMPY ? apply_array(ic, e, f, x, y) : NULL;
  return apply(ic, e, m, f, x, y);
}

/*
 * ufunc_cast.c — NumPy's casting rules for ufunc calls (kc_vectorize_args), and the
 * element conversions that carry them out.
 *
 * The rules are NumPy 1.x's (the reference of Numba 0.56): np.can_cast(from, to,
 * 'safe') for the loop search, 'same_kind' (the default of casting=) for the output,
 * and the value-based treatment of scalar inputs (np.min_scalar_type) when arrays are
 * present and the scalars are of no higher kind than the arrays. Conversions are C's
 * (what NumPy's casts do); the rules never let a float reach an integer or a complex a
 * real, so no conversion here is undefined.
 */
#include <math.h>
#include <string.h>

#include "rt.h"

/* ---- rules ------------------------------------------------------------------------ */
/* NumPy's dtype kind order for 'same_kind': b < u < i < f < c. */
static int kind_order(kc_dtype t) {
  if (t == KC_BOOL) return 0;
  if (t >= KC_UINT8 && t <= KC_UINT64) return 1;
  if (rt_dtype_is_signed(t)) return 2;
  if (rt_dtype_is_float(t)) return 3;
  return 4;
}

/* Bytes of a float that holds every value of integer type t exactly enough for NumPy to
 * call the cast safe: (u)int8 in float16, (u)int16 in float32, wider in float64. */
static size_t int_float_bytes(kc_dtype t) {
  size_t s = kc_dtype_size(t);
  return s == 1 ? 2 : s == 2 ? 4 : 8;
}

/* The bytes of one real component of a float or complex type. */
static size_t real_bytes(kc_dtype t) {
  return rt_dtype_is_complex(t) ? kc_dtype_size(t) / 2 : kc_dtype_size(t);
}

/* np.can_cast(from, to, 'safe'). */
static int can_cast_safe(kc_dtype from, kc_dtype to) {
  if (from == to || from == KC_BOOL) return 1;
  int kf = kind_order(from), kt = kind_order(to);
  if (to == KC_BOOL || kt < kf) return 0;
  size_t sf = kc_dtype_size(from), st = kc_dtype_size(to);
  if (kf <= 2 && kt <= 2) /* integers: widening, or unsigned into a wider signed */
    return kf == kt ? st >= sf : kf == 1 && st > sf;
  if (kf <= 2) return real_bytes(to) >= int_float_bytes(from);
  return real_bytes(to) >= real_bytes(from);
}

int rt_ufunc_can_cast(kc_dtype from, kc_dtype to, kc_casting casting) {
  if ((unsigned)from >= KC_DTYPE_COUNT || (unsigned)to >= KC_DTYPE_COUNT) return 0;
  switch (casting) {
  case KC_CASTING_NO: return from == to;
  case KC_CASTING_SAFE: return can_cast_safe(from, to);
  case KC_CASTING_SAME_KIND:
  default: return can_cast_safe(from, to) || kind_order(from) <= kind_order(to);
  }
}

const char *rt_casting_name(kc_casting c) {
  return c == KC_CASTING_NO ? "no" : c == KC_CASTING_SAFE ? "safe" : "same_kind";
}

/* ---- scalars ---------------------------------------------------------------------- */
/* NumPy's categories for value-based casting: bool < integer < float < complex. */
int rt_ufunc_category(kc_dtype t) {
  if (t == KC_BOOL) return 0;
  if (rt_dtype_is_complex(t)) return 3;
  if (rt_dtype_is_float(t)) return 2;
  return 1;
}

/* The bytes of the smallest float that np.min_scalar_type gives for |v| (float16 below
 * 65000, float32 below 3.4e38, else float64; NaN and infinities fit float16). */
static size_t min_float_bytes(double v) {
  double a = fabs(v);
  if (!isfinite(a) || a < 65000.0) return 2;
  return a < 3.4e38 ? 4 : 8;
}

/* Whether an integer scalar of value v (u when unsigned 64-bit) casts safely to `to`
 * by its value: into an integer type when it is in range; into a float type as the
 * smallest integer type holding it would (NumPy prefers the signed one for a small
 * positive value, so 5 goes into int8 and 200 into int16). */
static int int_value_fits(int is_u64, int64_t v, uint64_t u, kc_dtype to) {
  if (to == KC_BOOL) return 0;
  if (rt_ufunc_category(to) >= 2) {
    if (is_u64 && u > (uint64_t)INT64_MAX) return real_bytes(to) >= 8;
    kc_dtype t = v >= -128 && v <= 255 ? KC_INT8 : v >= -32768 && v <= 65535 ? KC_INT16
                                                                               : KC_INT64;
    return real_bytes(to) >= int_float_bytes(t);
  }
  int bits = (int)kc_dtype_size(to) * 8;
  if (to >= KC_UINT8 && to <= KC_UINT64) {
    if (is_u64) return bits == 64 || u < (1ull << bits);
    return v >= 0 && (bits == 64 || (uint64_t)v < (1ull << bits));
  }
  if (is_u64 && u > (uint64_t)INT64_MAX) return 0;
  if (bits == 64) return 1;
  int64_t lim = (int64_t)1 << (bits - 1);
  return v >= -lim && v < lim;
}

int rt_ufunc_scalar_fits(const kc_arg *a, kc_dtype to) {
  int cf = rt_ufunc_category(a->dtype), ct = rt_ufunc_category(to);
  if (cf == 0) return 1;
  if (ct < cf || (unsigned)to >= KC_DTYPE_COUNT) return 0;
  if (cf == 1) return int_value_fits(a->dtype == KC_UINT64, a->v.i, a->v.u, to);
  if (cf == 2) return real_bytes(to) >= min_float_bytes(a->v.f);
  size_t need = min_float_bytes(a->v.c.re) > 4 || min_float_bytes(a->v.c.im) > 4 ? 8 : 4;
  return real_bytes(to) >= need;
}

/* ---- conversions ------------------------------------------------------------------ */
static double f16_value(uint16_t h) {
  int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m | 0x400, e - 25);
  return h & 0x8000 ? -v : v;
}

/* One element at p of type t as a complex value (reals have im = 0). */
static void read_elem(const char *p, kc_dtype t, double *re, double *im) {
  *im = 0;
  switch (t) {
  case KC_BOOL: *re = *(const uint8_t *)p != 0; break;
  case KC_INT8: *re = *(const int8_t *)p; break;
  case KC_INT16: *re = *(const int16_t *)p; break;
  case KC_INT32: *re = *(const int32_t *)p; break;
  case KC_INT64: *re = (double)*(const int64_t *)p; break;
  case KC_UINT8: *re = *(const uint8_t *)p; break;
  case KC_UINT16: *re = *(const uint16_t *)p; break;
  case KC_UINT32: *re = *(const uint32_t *)p; break;
  case KC_UINT64: *re = (double)*(const uint64_t *)p; break;
  case KC_FLOAT16: *re = f16_value(*(const uint16_t *)p); break;
  case KC_FLOAT32: *re = *(const float *)p; break;
  case KC_FLOAT64: *re = *(const double *)p; break;
  case KC_COMPLEX64: *re = ((const float *)p)[0], *im = ((const float *)p)[1]; break;
  case KC_COMPLEX128: *re = ((const double *)p)[0], *im = ((const double *)p)[1]; break;
  default: *re = 0; break;
  }
}

/* Store a value read by read_elem as type t (the rules only ask for a float or complex
 * target here, or bool from bool). */
static void write_elem(char *p, kc_dtype t, double re, double im) {
  switch (t) {
  case KC_BOOL: *(uint8_t *)p = re != 0 || im != 0; break;
  case KC_FLOAT16: { uint16_t h = rt_f16_bits(re); memcpy(p, &h, 2); break; }
  case KC_FLOAT32: *(float *)p = (float)re; break;
  case KC_FLOAT64: *(double *)p = re; break;
  case KC_COMPLEX64: ((float *)p)[0] = (float)re, ((float *)p)[1] = (float)im; break;
  case KC_COMPLEX128: ((double *)p)[0] = re, ((double *)p)[1] = im; break;
  default: break;
  }
}

/* Typed loops for the real types C converts directly: one per (destination, source)
 * pair, so a cast of a whole array is a plain loop the compiler vectorises. */
#define RUN(DT, ST)                                                                      \
  do {                                                                                   \
    DT *d_ = dst;                                                                        \
    const ST *s_ = src;                                                                  \
    if (ds == 1 && ss == 1) /* the common run, vectorised */                             \
      for (int64_t i = 0; i < n; i++) d_[i] = (DT)s_[i];                                 \
    else                                                                                 \
      for (int64_t i = 0; i < n; i++) d_[i * ds] = (DT)s_[i * ss];                       \
  } while (0)
#define FROM(DT)                                                                         \
  switch (st) {                                                                          \
  case KC_BOOL: case KC_UINT8: RUN(DT, uint8_t); return 1;                               \
  case KC_INT8: RUN(DT, int8_t); return 1;                                               \
  case KC_INT16: RUN(DT, int16_t); return 1;                                             \
  case KC_INT32: RUN(DT, int32_t); return 1;                                             \
  case KC_INT64: RUN(DT, int64_t); return 1;                                             \
  case KC_UINT16: RUN(DT, uint16_t); return 1;                                           \
  case KC_UINT32: RUN(DT, uint32_t); return 1;                                           \
  case KC_UINT64: RUN(DT, uint64_t); return 1;                                           \
  case KC_FLOAT32: RUN(DT, float); return 1;                                             \
  case KC_FLOAT64: RUN(DT, double); return 1;                                            \
  default: return 0;                                                                     \
  }

static int typed_run(void *dst, kc_dtype dt, int64_t ds, const void *src, kc_dtype st,
                     int64_t ss, int64_t n) {
  switch (dt) {
  case KC_UINT8: FROM(uint8_t)
  case KC_INT8: FROM(int8_t)
  case KC_INT16: FROM(int16_t)
  case KC_INT32: FROM(int32_t)
  case KC_INT64: FROM(int64_t)
  case KC_UINT16: FROM(uint16_t)
  case KC_UINT32: FROM(uint32_t)
  case KC_UINT64: FROM(uint64_t)
  case KC_FLOAT32: FROM(float)
  case KC_FLOAT64: FROM(double)
  default: return 0;
  }
}
#undef FROM
#undef RUN

void rt_convert_run(void *dst, kc_dtype dt, int64_t ds, const void *src, kc_dtype st,
                    int64_t ss, int64_t n) {
  size_t de = kc_dtype_size(dt), se = kc_dtype_size(st);
  if (dt == st && ds == 1 && ss == 1) {
    memcpy(dst, src, (size_t)n * de);
    return;
  }
  if (dt == st && ss == 0 && de == 1) {   /* a broadcast byte: memset */
    if (ds == 1) memset(dst, *(const uint8_t *)src, (size_t)n);
    else
      for (int64_t i = 0; i < n; i++) ((uint8_t *)dst)[i * ds] = *(const uint8_t *)src;
    return;
  }
  if (dt != KC_BOOL && typed_run(dst, dt, ds, src, st, ss, n)) return;
  if (dt == st) {   /* float16, complex, bool: bytes */
    for (int64_t i = 0; i < n; i++)
      memcpy((char *)dst + i * ds * (int64_t)de, (const char *)src + i * ss * (int64_t)se, de);
    return;
  }
  for (int64_t i = 0; i < n; i++) {
    double re, im;
    read_elem((const char *)src + i * ss * (int64_t)se, st, &re, &im);
    write_elem((char *)dst + i * ds * (int64_t)de, dt, re, im);
  }
}

void rt_ufunc_scalar_elem(const kc_arg *a, kc_dtype to, void *out) {
  union { int8_t i8; int16_t i16; int32_t i32; int64_t i64; uint8_t u8; uint16_t u16;
          uint32_t u32; uint64_t u64; float f; double d; float c64[2]; double c128[2];
          uint16_t h; } v;
  memset(&v, 0, sizeof v);
  switch (a->dtype) {
  case KC_BOOL: v.u8 = a->v.i != 0; break;
  case KC_INT8: v.i8 = (int8_t)a->v.i; break;
  case KC_INT16: v.i16 = (int16_t)a->v.i; break;
  case KC_INT32: v.i32 = (int32_t)a->v.i; break;
  case KC_INT64: v.i64 = a->v.i; break;
  case KC_UINT8: v.u8 = (uint8_t)a->v.i; break;
  case KC_UINT16: v.u16 = (uint16_t)a->v.i; break;
  case KC_UINT32: v.u32 = (uint32_t)a->v.i; break;
  case KC_UINT64: v.u64 = a->v.u; break;
  case KC_FLOAT16: v.h = rt_f16_bits(a->v.f); break;
  case KC_FLOAT32: v.f = (float)a->v.f; break;
  case KC_FLOAT64: v.d = a->v.f; break;
  case KC_COMPLEX64: v.c64[0] = (float)a->v.c.re, v.c64[1] = (float)a->v.c.im; break;
  case KC_COMPLEX128: v.c128[0] = a->v.c.re, v.c128[1] = a->v.c.im; break;
  default: break;
  }
  rt_convert_run(out, to, 1, &v, a->dtype, 1, 1);
}

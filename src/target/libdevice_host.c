/*
 * libdevice_host.c — libdevice's functions for the CPU back end: what `__nv_<name>`
 * means in host code. Where the C library has the function with libdevice's signature
 * (sin, frexp, remquo, sincos ...) the name is bound to it; the rest are here: the
 * directed-rounding arithmetic and conversions (_rd _rn _ru _rz: the operation done
 * with the FPU's rounding mode set for it), the saturating float-to-integer
 * conversions as PTX's cvt does them (out of range: the nearest end; NaN: 0), bit
 * reinterpretations, the integer intrinsics, and the functions C lacks (sinpi, cospi,
 * erfinv, erfcinv, erfcx, normcdf, normcdfinv, rsqrt, rcbrt). The fast_* functions
 * are the accurate ones here; libdevice's predicates (isnand ...) return 1 for true.
 *
 * Operands of a rounded operation pass through volatile copies read after the mode is
 * set and the result through one written before it is restored, so that the compiler,
 * which assumes the default mode, can neither fold nor move the operation out.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* exp10, sincos, j0f ... */
#endif
#include "libdevice_host.h"

#include <fenv.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

typedef int32_t i32;
typedef int64_t i64;
typedef uint32_t u32;
typedef uint64_t u64;
__extension__ typedef __int128 i128;            /* GCC and clang on 64-bit targets */
__extension__ typedef unsigned __int128 u128;

/* ---- lgamma: lgamma_r, which returns the sign instead of setting signgam ---- */
double host_lgamma(double x) {
  int sign;
  return lgamma_r(x, &sign);
}

float host_lgammaf(float x) {
  int sign;
  return lgammaf_r(x, &sign);
}

static int mode_enter(int m) {
  int old = fegetround();
  fesetround(m);
  return old;
}

/* ---- directed rounding: x op y, fma, 1/x, sqrt, conversions ---- */
#define MODES(M, ...) M(rd, FE_DOWNWARD, __VA_ARGS__) M(rn, FE_TONEAREST, __VA_ARGS__) \
  M(ru, FE_UPWARD, __VA_ARGS__) M(rz, FE_TOWARDZERO, __VA_ARGS__)

#define BINARY(r, m, name, T, op)                                                        \
  static T nv_##name##_##r(T x, T y) {                                                   \
    volatile T a = x, b = y;                                                             \
    int old = mode_enter(m);                                                             \
    volatile T v = a op b;                                                               \
    fesetround(old);                                                                     \
    return v;                                                                            \
  }
MODES(BINARY, dadd, double, +) MODES(BINARY, ddiv, double, /) MODES(BINARY, dmul, double, *)
MODES(BINARY, fadd, float, +) MODES(BINARY, fsub, float, -) MODES(BINARY, fdiv, float, /)
MODES(BINARY, fmul, float, *)

#define FMA(r, m, name, T, f)                                                            \
  static T nv_##name##_##r(T x, T y, T z) {                                              \
    volatile T a = x, b = y, c = z;                                                      \
    int old = mode_enter(m);                                                             \
    volatile T v = f(a, b, c);                                                           \
    fesetround(old);                                                                     \
    return v;                                                                            \
  }
MODES(FMA, fma, double, fma) MODES(FMA, fmaf, float, fmaf)

#define UNARY(r, m, name, T, expr)                                                       \
  static T nv_##name##_##r(T x) {                                                        \
    volatile T a = x;                                                                    \
    int old = mode_enter(m);                                                             \
    volatile T v = expr;                                                                 \
    fesetround(old);                                                                     \
    return v;                                                                            \
  }
MODES(UNARY, drcp, double, 1.0 / a) MODES(UNARY, dsqrt, double, sqrt(a))
MODES(UNARY, frcp, float, 1.0f / a) MODES(UNARY, fsqrt, float, sqrtf(a))

/* a conversion from type F to type T with the mode's rounding */
#define CONVERT(r, m, name, F, T, via)                                                   \
  static T nv_##name##_##r(F x) {                                                        \
    volatile F a = x;                                                                    \
    int old = mode_enter(m);                                                             \
    volatile T v = (T)(via)a;                                                            \
    fesetround(old);                                                                     \
    return v;                                                                            \
  }
MODES(CONVERT, double2float, double, float, double)
MODES(CONVERT, int2float, i32, float, i32) MODES(CONVERT, uint2float, i32, float, u32)
MODES(CONVERT, ll2double, i64, double, i64) MODES(CONVERT, ull2double, i64, double, u64)
MODES(CONVERT, ll2float, i64, float, i64) MODES(CONVERT, ull2float, i64, float, u64)

static float nv_frsqrt_rn(float x) { return (float)(1.0 / sqrt((double)x)); }

/* ---- float to integer, saturating as PTX's cvt.rXi: NaN is 0 ---- */
static double round_by(int mode, double v) {
  return mode == 0 ? floor(v) : mode == 1 ? rint(v) : mode == 2 ? ceil(v) : trunc(v);
}
static i32 sat_i32(double v) {
  return isnan(v) ? 0 : v <= INT32_MIN ? INT32_MIN : v >= INT32_MAX ? INT32_MAX : (i32)v;
}
static i32 sat_u32(double v) {
  return isnan(v) || v <= 0 ? 0 : v >= UINT32_MAX ? (i32)UINT32_MAX : (i32)(u32)v;
}
static i64 sat_i64(double v) {
  if (isnan(v)) return 0;
  if (v < -9223372036854775808.0) return INT64_MIN;
  return v >= 9223372036854775808.0 ? INT64_MAX : (i64)v;
}
static i64 sat_u64(double v) {
  if (isnan(v) || v <= 0) return 0;
  return v >= 18446744073709551616.0 ? (i64)UINT64_MAX : (i64)(u64)v;
}
#define TOINT(r, k, name, F, T, sat) \
  static T nv_##name##_##r(F x) { return sat(round_by(k, (double)x)); }
#define TOINT_MODES(name, F, T, sat) TOINT(rd, 0, name, F, T, sat) \
  TOINT(rn, 1, name, F, T, sat) TOINT(ru, 2, name, F, T, sat) TOINT(rz, 3, name, F, T, sat)
TOINT_MODES(double2int, double, i32, sat_i32) TOINT_MODES(double2uint, double, i32, sat_u32)
TOINT_MODES(double2ll, double, i64, sat_i64) TOINT_MODES(double2ull, double, i64, sat_u64)
TOINT_MODES(float2int, float, i32, sat_i32) TOINT_MODES(float2uint, float, i32, sat_u32)
TOINT_MODES(float2ll, float, i64, sat_i64) TOINT_MODES(float2ull, float, i64, sat_u64)

static double nv_int2double_rn(i32 x) { return (double)x; }
static double nv_uint2double_rn(i32 x) { return (double)(u32)x; }

/* ---- bits ---- */
static i64 nv_double_as_longlong(double x) { i64 v; memcpy(&v, &x, 8); return v; }
static double nv_longlong_as_double(i64 x) { double v; memcpy(&v, &x, 8); return v; }
static i32 nv_float_as_int(float x) { i32 v; memcpy(&v, &x, 4); return v; }
static float nv_int_as_float(i32 x) { float v; memcpy(&v, &x, 4); return v; }
static i32 nv_double2hiint(double x) { return (i32)(nv_double_as_longlong(x) >> 32); }
static i32 nv_double2loint(double x) { return (i32)(u32)(u64)nv_double_as_longlong(x); }
static double nv_hiloint2double(i32 hi, i32 lo) {
  return nv_longlong_as_double((i64)(((u64)(u32)hi << 32) | (u32)lo));
}

/* float to IEEE binary16 bits, to nearest, ties to even */
static int16_t nv_float2half_rn(float f) {
  u32 x;
  memcpy(&x, &f, 4);
  u32 sign = (x >> 16) & 0x8000u, mant = x & 0x7fffffu;
  int e = (int)((x >> 23) & 0xff) - 127 + 15;
  if (((x >> 23) & 0xff) == 0xff) return (int16_t)(sign | 0x7c00u | (mant ? 0x200u : 0));
  if (e >= 31) return (int16_t)(sign | 0x7c00u);
  u32 shift = 13, h;
  if (e <= 0) {                          /* a subnormal half, or zero */
    if (e < -10) return (int16_t)sign;
    mant |= 0x800000u;
    shift = (u32)(14 - e);
    e = 0;
  }
  h = ((u32)e << 10) + (mant >> shift);
  u32 rest = mant & ((1u << shift) - 1), half = 1u << (shift - 1);
  if (rest > half || (rest == half && (h & 1))) h++;   /* a carry may make it inf: right */
  return (int16_t)(sign | h);
}

static float nv_half2float(int16_t bits) {
  u32 h = (uint16_t)bits, sign = (h & 0x8000u) << 16, e = (h >> 10) & 0x1f, m = h & 0x3ffu;
  float v = e == 0 ? ldexpf((float)m, -24) : e == 31 ? (m ? NAN : INFINITY)
                                                    : ldexpf((float)(m | 0x400u), (int)e - 25);
  u32 x;
  memcpy(&x, &v, 4);
  x |= sign;
  memcpy(&v, &x, 4);
  return v;
}

/* ---- predicates: 1 for true ---- */
static i32 nv_isnand(double x) { return isnan(x) != 0; }
static i32 nv_isnanf(float x) { return isnan(x) != 0; }
static i32 nv_isinfd(double x) { return isinf(x) != 0; }
static i32 nv_isinff(float x) { return isinf(x) != 0; }
static i32 nv_isfinited(double x) { return isfinite(x) != 0; }
static i32 nv_finitef(float x) { return isfinite(x) != 0; }
static i32 nv_signbitd(double x) { return signbit(x) != 0; }
static i32 nv_signbitf(float x) { return signbit(x) != 0; }

/* ---- functions the C library lacks ---- */
#define SQRT_PI_2 0.88622692545275801365   /* sqrt(pi) / 2 */

/* exp(x*x) * erfc(x): x*x split exactly into hi + lo (fma) below 12, so exp's argument
 * carries no rounding error; from 12 on, the asymptotic series (terms below 1e-18
 * after 12 of them); for negative x, 2 * exp(x*x) - erfcx(-x). */
static double nv_erfcx(double x) {
  if (isnan(x)) return x;
  if (x < 0) return 2.0 * exp(x * x) - nv_erfcx(-x);
  if (x < 12.0) {
    double hi = x * x, lo = fma(x, x, -hi);
    return exp(hi) * exp(lo) * erfc(x);
  }
  double r = 1.0 / (2.0 * x * x), term = 1.0, sum = 1.0;
  for (int k = 1; k <= 12; k++) {
    term *= -(2.0 * k - 1.0) * r;
    sum += term;
  }
  return sum / (x * 1.77245385090551602730);   /* sqrt(pi) */
}

/* erfc(t) = q for t, 0 < q <= 1: Newton's method on log(erfc(t)), whose slope is
 * -1 / (erfcx(t) * sqrt(pi) / 2), from sqrt(-log q) (small q) or (1 - q) * sqrt(pi)/2. */
static double erfcinv_upper(double q) {
  double t = q > 0.5 ? (1.0 - q) * SQRT_PI_2 : sqrt(-log(q));
  for (int i = 0; i < 100; i++) {
    double dt = (log(erfc(t)) - log(q)) * nv_erfcx(t) * SQRT_PI_2;
    t += dt;
    if (fabs(dt) <= 1e-17 * fabs(t)) break;
  }
  return t;
}

static double nv_erfcinv(double q) {
  if (isnan(q) || q < 0 || q > 2) return NAN;
  if (q == 0) return INFINITY;
  if (q == 2) return -INFINITY;
  return q <= 1 ? erfcinv_upper(q) : -erfcinv_upper(2.0 - q);
}

/* erf(t) = y: Newton's method on erf below |y| = 0.5, erfcinv(1 - |y|) above (1 - |y|
 * exact there). */
static double nv_erfinv(double y) {
  if (isnan(y) || y < -1 || y > 1) return NAN;
  if (fabs(y) == 1) return copysign(INFINITY, y);
  if (fabs(y) >= 0.5) return copysign(erfcinv_upper(1.0 - fabs(y)), y);
  double t = y * SQRT_PI_2;
  for (int i = 0; i < 100 && y != 0; i++) {
    double dt = (erf(t) - y) * SQRT_PI_2 * exp(t * t);
    t -= dt;
    if (fabs(dt) <= 1e-17 * fabs(t)) break;
  }
  return t;
}

static double nv_normcdf(double x) { return 0.5 * erfc(-x * 0.70710678118654752440); }
static double nv_normcdfinv(double p) { return -1.41421356237309504880 * nv_erfcinv(2.0 * p); }
static double nv_rsqrt(double x) { return 1.0 / sqrt(x); }
static double nv_rcbrt(double x) { return 1.0 / cbrt(x); }

/* sin(pi x), cos(pi x): x reduced exactly mod 2 first, so integers and halves give
 * exact zeros and ones, and large x loses nothing. */
static double nv_sinpi(double x) {
  if (isinf(x)) return NAN;
  double r = remainder(x, 2.0);                  /* [-1, 1], exact */
  if (r > 0.5) r = 1.0 - r;
  else if (r < -0.5) r = -1.0 - r;
  return r == 0 ? copysign(0.0, x) : sin(M_PI * r);
}

static double nv_cospi(double x) {
  if (isinf(x)) return NAN;
  double r = fabs(remainder(x, 2.0));            /* [0, 1], exact */
  if (r <= 0.25) return cos(M_PI * r);
  if (r <= 0.75) return r == 0.5 ? 0.0 : sin(M_PI * (0.5 - r));
  return -cos(M_PI * (1.0 - r));
}

static void nv_sincospi(double x, double *s, double *c) { *s = nv_sinpi(x), *c = nv_cospi(x); }

/* float32: the float64 function, rounded once */
#define FLOAT_OF(name) static float nv_##name##f(float x) { return (float)nv_##name((double)x); }
FLOAT_OF(erfcx) FLOAT_OF(erfcinv) FLOAT_OF(erfinv) FLOAT_OF(normcdf) FLOAT_OF(normcdfinv)
FLOAT_OF(rsqrt) FLOAT_OF(rcbrt) FLOAT_OF(sinpi) FLOAT_OF(cospi)
static void nv_sincospif(float x, float *s, float *c) { *s = nv_sinpif(x), *c = nv_cospif(x); }

static double nv_powi(double x, i32 n) { return pow(x, (double)n); }
static float nv_powif(float x, i32 n) { return powf(x, (float)n); }
static float nv_saturatef(float x) { return isnan(x) || x <= 0 ? 0.0f : x >= 1 ? 1.0f : x; }
static float nv_fast_fdividef(float x, float y) { return x / y; }

/* ---- integers (unsigned ones take and give int32/int64 bits, as Numba types them) ---- */
static i32 nv_abs(i32 x) { return x < 0 ? (i32)(0u - (u32)x) : x; }
static i64 nv_llabs(i64 x) { return x < 0 ? (i64)(0u - (u64)x) : x; }
static i32 nv_max(i32 x, i32 y) { return x > y ? x : y; }
static i32 nv_min(i32 x, i32 y) { return x < y ? x : y; }
static i32 nv_umax(i32 x, i32 y) { return (u32)x > (u32)y ? x : y; }
static i32 nv_umin(i32 x, i32 y) { return (u32)x < (u32)y ? x : y; }
static i64 nv_llmax(i64 x, i64 y) { return x > y ? x : y; }
static i64 nv_llmin(i64 x, i64 y) { return x < y ? x : y; }
static i64 nv_ullmax(i64 x, i64 y) { return (u64)x > (u64)y ? x : y; }
static i64 nv_ullmin(i64 x, i64 y) { return (u64)x < (u64)y ? x : y; }
static i32 nv_popc(i32 x) { return __builtin_popcount((u32)x); }
static i32 nv_popcll(i64 x) { return __builtin_popcountll((u64)x); }
static i32 nv_clz(i32 x) { return x ? __builtin_clz((u32)x) : 32; }
static i32 nv_clzll(i64 x) { return x ? __builtin_clzll((u64)x) : 64; }
static i32 nv_ffs(i32 x) { return __builtin_ffs(x); }
static i32 nv_ffsll(i64 x) { return __builtin_ffsll(x); }
static i32 nv_brev(i32 x) {
  u32 v = (u32)x, r = 0;
  for (int i = 0; i < 32; i++, v >>= 1) r = (r << 1) | (v & 1);
  return (i32)r;
}
static i64 nv_brevll(i64 x) {
  u64 v = (u64)x, r = 0;
  for (int i = 0; i < 64; i++, v >>= 1) r = (r << 1) | (v & 1);
  return (i64)r;
}
/* byte i of the result: byte (s >> 4i) & 7 of the eight bytes y:x (PTX prmt) */
static i32 nv_byte_perm(i32 x, i32 y, i32 s) {
  u64 bytes = ((u64)(u32)y << 32) | (u32)x;
  u32 r = 0;
  for (int i = 0; i < 4; i++) r |= (u32)((bytes >> (8 * (((u32)s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return (i32)r;
}
static i32 nv_hadd(i32 x, i32 y) { return (i32)(((i64)x + y) >> 1); }
static i32 nv_rhadd(i32 x, i32 y) { return (i32)(((i64)x + y + 1) >> 1); }
static i32 nv_uhadd(i32 x, i32 y) { return (i32)(u32)(((u64)(u32)x + (u32)y) >> 1); }
static i32 nv_urhadd(i32 x, i32 y) { return (i32)(u32)(((u64)(u32)x + (u32)y + 1) >> 1); }
/* the low 24 bits of each (sign-extended for mul24), the low 32 of the product */
static i32 nv_mul24(i32 x, i32 y) {
  i64 a = (i64)((u64)(u32)x << 40) >> 40, b = (i64)((u64)(u32)y << 40) >> 40;
  return (i32)(u32)(u64)(a * b);
}
static i32 nv_umul24(i32 x, i32 y) { return (i32)(((u32)x & 0xffffffu) * ((u32)y & 0xffffffu)); }
static i32 nv_mulhi(i32 x, i32 y) { return (i32)(((i64)x * y) >> 32); }
static i32 nv_umulhi(i32 x, i32 y) { return (i32)(u32)(((u64)(u32)x * (u32)y) >> 32); }
static i64 nv_mul64hi(i64 x, i64 y) { return (i64)(((i128)x * y) >> 64); }
static i64 nv_umul64hi(i64 x, i64 y) {
  return (i64)(u64)(((u128)(u64)x * (u64)y) >> 64);
}
static i32 nv_sad(i32 x, i32 y, i32 z) {
  return (i32)((u32)(x > y ? (i64)x - y : (i64)y - x) + (u32)z);
}
static i32 nv_usad(i32 x, i32 y, i32 z) {
  u32 a = (u32)x, b = (u32)y;
  return (i32)((a > b ? a - b : b - a) + (u32)z);
}

/* ---- the table: libdevice's name, what it is on the host ---- */
const libdevice_host_fn libdevice_host_fns[] = {
  {"__nv_abs", (void (*)(void))nv_abs},
  {"__nv_acos", (void (*)(void))acos},
  {"__nv_acosf", (void (*)(void))acosf},
  {"__nv_acosh", (void (*)(void))acosh},
  {"__nv_acoshf", (void (*)(void))acoshf},
  {"__nv_asin", (void (*)(void))asin},
  {"__nv_asinf", (void (*)(void))asinf},
  {"__nv_asinh", (void (*)(void))asinh},
  {"__nv_asinhf", (void (*)(void))asinhf},
  {"__nv_atan", (void (*)(void))atan},
  {"__nv_atan2", (void (*)(void))atan2},
  {"__nv_atan2f", (void (*)(void))atan2f},
  {"__nv_atanf", (void (*)(void))atanf},
  {"__nv_atanh", (void (*)(void))atanh},
  {"__nv_atanhf", (void (*)(void))atanhf},
  {"__nv_brev", (void (*)(void))nv_brev},
  {"__nv_brevll", (void (*)(void))nv_brevll},
  {"__nv_byte_perm", (void (*)(void))nv_byte_perm},
  {"__nv_cbrt", (void (*)(void))cbrt},
  {"__nv_cbrtf", (void (*)(void))cbrtf},
  {"__nv_ceil", (void (*)(void))ceil},
  {"__nv_ceilf", (void (*)(void))ceilf},
  {"__nv_clz", (void (*)(void))nv_clz},
  {"__nv_clzll", (void (*)(void))nv_clzll},
  {"__nv_copysign", (void (*)(void))copysign},
  {"__nv_copysignf", (void (*)(void))copysignf},
  {"__nv_cos", (void (*)(void))cos},
  {"__nv_cosf", (void (*)(void))cosf},
  {"__nv_cosh", (void (*)(void))cosh},
  {"__nv_coshf", (void (*)(void))coshf},
  {"__nv_cospi", (void (*)(void))nv_cospi},
  {"__nv_cospif", (void (*)(void))nv_cospif},
  {"__nv_dadd_rd", (void (*)(void))nv_dadd_rd},
  {"__nv_dadd_rn", (void (*)(void))nv_dadd_rn},
  {"__nv_dadd_ru", (void (*)(void))nv_dadd_ru},
  {"__nv_dadd_rz", (void (*)(void))nv_dadd_rz},
  {"__nv_ddiv_rd", (void (*)(void))nv_ddiv_rd},
  {"__nv_ddiv_rn", (void (*)(void))nv_ddiv_rn},
  {"__nv_ddiv_ru", (void (*)(void))nv_ddiv_ru},
  {"__nv_ddiv_rz", (void (*)(void))nv_ddiv_rz},
  {"__nv_dmul_rd", (void (*)(void))nv_dmul_rd},
  {"__nv_dmul_rn", (void (*)(void))nv_dmul_rn},
  {"__nv_dmul_ru", (void (*)(void))nv_dmul_ru},
  {"__nv_dmul_rz", (void (*)(void))nv_dmul_rz},
  {"__nv_double2float_rd", (void (*)(void))nv_double2float_rd},
  {"__nv_double2float_rn", (void (*)(void))nv_double2float_rn},
  {"__nv_double2float_ru", (void (*)(void))nv_double2float_ru},
  {"__nv_double2float_rz", (void (*)(void))nv_double2float_rz},
  {"__nv_double2hiint", (void (*)(void))nv_double2hiint},
  {"__nv_double2int_rd", (void (*)(void))nv_double2int_rd},
  {"__nv_double2int_rn", (void (*)(void))nv_double2int_rn},
  {"__nv_double2int_ru", (void (*)(void))nv_double2int_ru},
  {"__nv_double2int_rz", (void (*)(void))nv_double2int_rz},
  {"__nv_double2ll_rd", (void (*)(void))nv_double2ll_rd},
  {"__nv_double2ll_rn", (void (*)(void))nv_double2ll_rn},
  {"__nv_double2ll_ru", (void (*)(void))nv_double2ll_ru},
  {"__nv_double2ll_rz", (void (*)(void))nv_double2ll_rz},
  {"__nv_double2loint", (void (*)(void))nv_double2loint},
  {"__nv_double2uint_rd", (void (*)(void))nv_double2uint_rd},
  {"__nv_double2uint_rn", (void (*)(void))nv_double2uint_rn},
  {"__nv_double2uint_ru", (void (*)(void))nv_double2uint_ru},
  {"__nv_double2uint_rz", (void (*)(void))nv_double2uint_rz},
  {"__nv_double2ull_rd", (void (*)(void))nv_double2ull_rd},
  {"__nv_double2ull_rn", (void (*)(void))nv_double2ull_rn},
  {"__nv_double2ull_ru", (void (*)(void))nv_double2ull_ru},
  {"__nv_double2ull_rz", (void (*)(void))nv_double2ull_rz},
  {"__nv_double_as_longlong", (void (*)(void))nv_double_as_longlong},
  {"__nv_drcp_rd", (void (*)(void))nv_drcp_rd},
  {"__nv_drcp_rn", (void (*)(void))nv_drcp_rn},
  {"__nv_drcp_ru", (void (*)(void))nv_drcp_ru},
  {"__nv_drcp_rz", (void (*)(void))nv_drcp_rz},
  {"__nv_dsqrt_rd", (void (*)(void))nv_dsqrt_rd},
  {"__nv_dsqrt_rn", (void (*)(void))nv_dsqrt_rn},
  {"__nv_dsqrt_ru", (void (*)(void))nv_dsqrt_ru},
  {"__nv_dsqrt_rz", (void (*)(void))nv_dsqrt_rz},
  {"__nv_erf", (void (*)(void))erf},
  {"__nv_erfc", (void (*)(void))erfc},
  {"__nv_erfcf", (void (*)(void))erfcf},
  {"__nv_erfcinv", (void (*)(void))nv_erfcinv},
  {"__nv_erfcinvf", (void (*)(void))nv_erfcinvf},
  {"__nv_erfcx", (void (*)(void))nv_erfcx},
  {"__nv_erfcxf", (void (*)(void))nv_erfcxf},
  {"__nv_erff", (void (*)(void))erff},
  {"__nv_erfinv", (void (*)(void))nv_erfinv},
  {"__nv_erfinvf", (void (*)(void))nv_erfinvf},
  {"__nv_exp", (void (*)(void))exp},
  {"__nv_exp10", (void (*)(void))exp10},
  {"__nv_exp10f", (void (*)(void))exp10f},
  {"__nv_exp2", (void (*)(void))exp2},
  {"__nv_exp2f", (void (*)(void))exp2f},
  {"__nv_expf", (void (*)(void))expf},
  {"__nv_expm1", (void (*)(void))expm1},
  {"__nv_expm1f", (void (*)(void))expm1f},
  {"__nv_fabs", (void (*)(void))fabs},
  {"__nv_fabsf", (void (*)(void))fabsf},
  {"__nv_fadd_rd", (void (*)(void))nv_fadd_rd},
  {"__nv_fadd_rn", (void (*)(void))nv_fadd_rn},
  {"__nv_fadd_ru", (void (*)(void))nv_fadd_ru},
  {"__nv_fadd_rz", (void (*)(void))nv_fadd_rz},
  {"__nv_fast_cosf", (void (*)(void))cosf},
  {"__nv_fast_exp10f", (void (*)(void))exp10f},
  {"__nv_fast_expf", (void (*)(void))expf},
  {"__nv_fast_fdividef", (void (*)(void))nv_fast_fdividef},
  {"__nv_fast_log10f", (void (*)(void))log10f},
  {"__nv_fast_log2f", (void (*)(void))log2f},
  {"__nv_fast_logf", (void (*)(void))logf},
  {"__nv_fast_powf", (void (*)(void))powf},
  {"__nv_fast_sincosf", (void (*)(void))sincosf},
  {"__nv_fast_sinf", (void (*)(void))sinf},
  {"__nv_fast_tanf", (void (*)(void))tanf},
  {"__nv_fdim", (void (*)(void))fdim},
  {"__nv_fdimf", (void (*)(void))fdimf},
  {"__nv_fdiv_rd", (void (*)(void))nv_fdiv_rd},
  {"__nv_fdiv_rn", (void (*)(void))nv_fdiv_rn},
  {"__nv_fdiv_ru", (void (*)(void))nv_fdiv_ru},
  {"__nv_fdiv_rz", (void (*)(void))nv_fdiv_rz},
  {"__nv_ffs", (void (*)(void))nv_ffs},
  {"__nv_ffsll", (void (*)(void))nv_ffsll},
  {"__nv_finitef", (void (*)(void))nv_finitef},
  {"__nv_float2half_rn", (void (*)(void))nv_float2half_rn},
  {"__nv_float2int_rd", (void (*)(void))nv_float2int_rd},
  {"__nv_float2int_rn", (void (*)(void))nv_float2int_rn},
  {"__nv_float2int_ru", (void (*)(void))nv_float2int_ru},
  {"__nv_float2int_rz", (void (*)(void))nv_float2int_rz},
  {"__nv_float2ll_rd", (void (*)(void))nv_float2ll_rd},
  {"__nv_float2ll_rn", (void (*)(void))nv_float2ll_rn},
  {"__nv_float2ll_ru", (void (*)(void))nv_float2ll_ru},
  {"__nv_float2ll_rz", (void (*)(void))nv_float2ll_rz},
  {"__nv_float2uint_rd", (void (*)(void))nv_float2uint_rd},
  {"__nv_float2uint_rn", (void (*)(void))nv_float2uint_rn},
  {"__nv_float2uint_ru", (void (*)(void))nv_float2uint_ru},
  {"__nv_float2uint_rz", (void (*)(void))nv_float2uint_rz},
  {"__nv_float2ull_rd", (void (*)(void))nv_float2ull_rd},
  {"__nv_float2ull_rn", (void (*)(void))nv_float2ull_rn},
  {"__nv_float2ull_ru", (void (*)(void))nv_float2ull_ru},
  {"__nv_float2ull_rz", (void (*)(void))nv_float2ull_rz},
  {"__nv_float_as_int", (void (*)(void))nv_float_as_int},
  {"__nv_floor", (void (*)(void))floor},
  {"__nv_floorf", (void (*)(void))floorf},
  {"__nv_fma", (void (*)(void))fma},
  {"__nv_fma_rd", (void (*)(void))nv_fma_rd},
  {"__nv_fma_rn", (void (*)(void))nv_fma_rn},
  {"__nv_fma_ru", (void (*)(void))nv_fma_ru},
  {"__nv_fma_rz", (void (*)(void))nv_fma_rz},
  {"__nv_fmaf", (void (*)(void))fmaf},
  {"__nv_fmaf_rd", (void (*)(void))nv_fmaf_rd},
  {"__nv_fmaf_rn", (void (*)(void))nv_fmaf_rn},
  {"__nv_fmaf_ru", (void (*)(void))nv_fmaf_ru},
  {"__nv_fmaf_rz", (void (*)(void))nv_fmaf_rz},
  {"__nv_fmax", (void (*)(void))fmax},
  {"__nv_fmaxf", (void (*)(void))fmaxf},
  {"__nv_fmin", (void (*)(void))fmin},
  {"__nv_fminf", (void (*)(void))fminf},
  {"__nv_fmod", (void (*)(void))fmod},
  {"__nv_fmodf", (void (*)(void))fmodf},
  {"__nv_fmul_rd", (void (*)(void))nv_fmul_rd},
  {"__nv_fmul_rn", (void (*)(void))nv_fmul_rn},
  {"__nv_fmul_ru", (void (*)(void))nv_fmul_ru},
  {"__nv_fmul_rz", (void (*)(void))nv_fmul_rz},
  {"__nv_frcp_rd", (void (*)(void))nv_frcp_rd},
  {"__nv_frcp_rn", (void (*)(void))nv_frcp_rn},
  {"__nv_frcp_ru", (void (*)(void))nv_frcp_ru},
  {"__nv_frcp_rz", (void (*)(void))nv_frcp_rz},
  {"__nv_frexp", (void (*)(void))frexp},
  {"__nv_frexpf", (void (*)(void))frexpf},
  {"__nv_frsqrt_rn", (void (*)(void))nv_frsqrt_rn},
  {"__nv_fsqrt_rd", (void (*)(void))nv_fsqrt_rd},
  {"__nv_fsqrt_rn", (void (*)(void))nv_fsqrt_rn},
  {"__nv_fsqrt_ru", (void (*)(void))nv_fsqrt_ru},
  {"__nv_fsqrt_rz", (void (*)(void))nv_fsqrt_rz},
  {"__nv_fsub_rd", (void (*)(void))nv_fsub_rd},
  {"__nv_fsub_rn", (void (*)(void))nv_fsub_rn},
  {"__nv_fsub_ru", (void (*)(void))nv_fsub_ru},
  {"__nv_fsub_rz", (void (*)(void))nv_fsub_rz},
  {"__nv_hadd", (void (*)(void))nv_hadd},
  {"__nv_half2float", (void (*)(void))nv_half2float},
  {"__nv_hiloint2double", (void (*)(void))nv_hiloint2double},
  {"__nv_hypot", (void (*)(void))hypot},
  {"__nv_hypotf", (void (*)(void))hypotf},
  {"__nv_ilogb", (void (*)(void))ilogb},
  {"__nv_ilogbf", (void (*)(void))ilogbf},
  {"__nv_int2double_rn", (void (*)(void))nv_int2double_rn},
  {"__nv_int2float_rd", (void (*)(void))nv_int2float_rd},
  {"__nv_int2float_rn", (void (*)(void))nv_int2float_rn},
  {"__nv_int2float_ru", (void (*)(void))nv_int2float_ru},
  {"__nv_int2float_rz", (void (*)(void))nv_int2float_rz},
  {"__nv_int_as_float", (void (*)(void))nv_int_as_float},
  {"__nv_isfinited", (void (*)(void))nv_isfinited},
  {"__nv_isinfd", (void (*)(void))nv_isinfd},
  {"__nv_isinff", (void (*)(void))nv_isinff},
  {"__nv_isnand", (void (*)(void))nv_isnand},
  {"__nv_isnanf", (void (*)(void))nv_isnanf},
  {"__nv_j0", (void (*)(void))j0},
  {"__nv_j0f", (void (*)(void))j0f},
  {"__nv_j1", (void (*)(void))j1},
  {"__nv_j1f", (void (*)(void))j1f},
  {"__nv_jn", (void (*)(void))jn},
  {"__nv_jnf", (void (*)(void))jnf},
  {"__nv_ldexp", (void (*)(void))ldexp},
  {"__nv_ldexpf", (void (*)(void))ldexpf},
  {"__nv_lgamma", (void (*)(void))host_lgamma},
  {"__nv_lgammaf", (void (*)(void))host_lgammaf},
  {"__nv_ll2double_rd", (void (*)(void))nv_ll2double_rd},
  {"__nv_ll2double_rn", (void (*)(void))nv_ll2double_rn},
  {"__nv_ll2double_ru", (void (*)(void))nv_ll2double_ru},
  {"__nv_ll2double_rz", (void (*)(void))nv_ll2double_rz},
  {"__nv_ll2float_rd", (void (*)(void))nv_ll2float_rd},
  {"__nv_ll2float_rn", (void (*)(void))nv_ll2float_rn},
  {"__nv_ll2float_ru", (void (*)(void))nv_ll2float_ru},
  {"__nv_ll2float_rz", (void (*)(void))nv_ll2float_rz},
  {"__nv_llabs", (void (*)(void))nv_llabs},
  {"__nv_llmax", (void (*)(void))nv_llmax},
  {"__nv_llmin", (void (*)(void))nv_llmin},
  {"__nv_llrint", (void (*)(void))llrint},
  {"__nv_llrintf", (void (*)(void))llrintf},
  {"__nv_llround", (void (*)(void))llround},
  {"__nv_llroundf", (void (*)(void))llroundf},
  {"__nv_log", (void (*)(void))log},
  {"__nv_log10", (void (*)(void))log10},
  {"__nv_log10f", (void (*)(void))log10f},
  {"__nv_log1p", (void (*)(void))log1p},
  {"__nv_log1pf", (void (*)(void))log1pf},
  {"__nv_log2", (void (*)(void))log2},
  {"__nv_log2f", (void (*)(void))log2f},
  {"__nv_logb", (void (*)(void))logb},
  {"__nv_logbf", (void (*)(void))logbf},
  {"__nv_logf", (void (*)(void))logf},
  {"__nv_longlong_as_double", (void (*)(void))nv_longlong_as_double},
  {"__nv_max", (void (*)(void))nv_max},
  {"__nv_min", (void (*)(void))nv_min},
  {"__nv_modf", (void (*)(void))modf},
  {"__nv_modff", (void (*)(void))modff},
  {"__nv_mul24", (void (*)(void))nv_mul24},
  {"__nv_mul64hi", (void (*)(void))nv_mul64hi},
  {"__nv_mulhi", (void (*)(void))nv_mulhi},
  {"__nv_nearbyint", (void (*)(void))nearbyint},
  {"__nv_nearbyintf", (void (*)(void))nearbyintf},
  {"__nv_nextafter", (void (*)(void))nextafter},
  {"__nv_nextafterf", (void (*)(void))nextafterf},
  {"__nv_normcdf", (void (*)(void))nv_normcdf},
  {"__nv_normcdff", (void (*)(void))nv_normcdff},
  {"__nv_normcdfinv", (void (*)(void))nv_normcdfinv},
  {"__nv_normcdfinvf", (void (*)(void))nv_normcdfinvf},
  {"__nv_popc", (void (*)(void))nv_popc},
  {"__nv_popcll", (void (*)(void))nv_popcll},
  {"__nv_pow", (void (*)(void))pow},
  {"__nv_powf", (void (*)(void))powf},
  {"__nv_powi", (void (*)(void))nv_powi},
  {"__nv_powif", (void (*)(void))nv_powif},
  {"__nv_rcbrt", (void (*)(void))nv_rcbrt},
  {"__nv_rcbrtf", (void (*)(void))nv_rcbrtf},
  {"__nv_remainder", (void (*)(void))remainder},
  {"__nv_remainderf", (void (*)(void))remainderf},
  {"__nv_remquo", (void (*)(void))remquo},
  {"__nv_remquof", (void (*)(void))remquof},
  {"__nv_rhadd", (void (*)(void))nv_rhadd},
  {"__nv_rint", (void (*)(void))rint},
  {"__nv_rintf", (void (*)(void))rintf},
  {"__nv_round", (void (*)(void))round},
  {"__nv_roundf", (void (*)(void))roundf},
  {"__nv_rsqrt", (void (*)(void))nv_rsqrt},
  {"__nv_rsqrtf", (void (*)(void))nv_rsqrtf},
  {"__nv_sad", (void (*)(void))nv_sad},
  {"__nv_saturatef", (void (*)(void))nv_saturatef},
  {"__nv_scalbn", (void (*)(void))scalbn},
  {"__nv_scalbnf", (void (*)(void))scalbnf},
  {"__nv_signbitd", (void (*)(void))nv_signbitd},
  {"__nv_signbitf", (void (*)(void))nv_signbitf},
  {"__nv_sin", (void (*)(void))sin},
  {"__nv_sincos", (void (*)(void))sincos},
  {"__nv_sincosf", (void (*)(void))sincosf},
  {"__nv_sincospi", (void (*)(void))nv_sincospi},
  {"__nv_sincospif", (void (*)(void))nv_sincospif},
  {"__nv_sinf", (void (*)(void))sinf},
  {"__nv_sinh", (void (*)(void))sinh},
  {"__nv_sinhf", (void (*)(void))sinhf},
  {"__nv_sinpi", (void (*)(void))nv_sinpi},
  {"__nv_sinpif", (void (*)(void))nv_sinpif},
  {"__nv_sqrt", (void (*)(void))sqrt},
  {"__nv_sqrtf", (void (*)(void))sqrtf},
  {"__nv_tan", (void (*)(void))tan},
  {"__nv_tanf", (void (*)(void))tanf},
  {"__nv_tanh", (void (*)(void))tanh},
  {"__nv_tanhf", (void (*)(void))tanhf},
  {"__nv_tgamma", (void (*)(void))tgamma},
  {"__nv_tgammaf", (void (*)(void))tgammaf},
  {"__nv_trunc", (void (*)(void))trunc},
  {"__nv_truncf", (void (*)(void))truncf},
  {"__nv_uhadd", (void (*)(void))nv_uhadd},
  {"__nv_uint2double_rn", (void (*)(void))nv_uint2double_rn},
  {"__nv_uint2float_rd", (void (*)(void))nv_uint2float_rd},
  {"__nv_uint2float_rn", (void (*)(void))nv_uint2float_rn},
  {"__nv_uint2float_ru", (void (*)(void))nv_uint2float_ru},
  {"__nv_uint2float_rz", (void (*)(void))nv_uint2float_rz},
  {"__nv_ull2double_rd", (void (*)(void))nv_ull2double_rd},
  {"__nv_ull2double_rn", (void (*)(void))nv_ull2double_rn},
  {"__nv_ull2double_ru", (void (*)(void))nv_ull2double_ru},
  {"__nv_ull2double_rz", (void (*)(void))nv_ull2double_rz},
  {"__nv_ull2float_rd", (void (*)(void))nv_ull2float_rd},
  {"__nv_ull2float_rn", (void (*)(void))nv_ull2float_rn},
  {"__nv_ull2float_ru", (void (*)(void))nv_ull2float_ru},
  {"__nv_ull2float_rz", (void (*)(void))nv_ull2float_rz},
  {"__nv_ullmax", (void (*)(void))nv_ullmax},
  {"__nv_ullmin", (void (*)(void))nv_ullmin},
  {"__nv_umax", (void (*)(void))nv_umax},
  {"__nv_umin", (void (*)(void))nv_umin},
  {"__nv_umul24", (void (*)(void))nv_umul24},
  {"__nv_umul64hi", (void (*)(void))nv_umul64hi},
  {"__nv_umulhi", (void (*)(void))nv_umulhi},
  {"__nv_urhadd", (void (*)(void))nv_urhadd},
  {"__nv_usad", (void (*)(void))nv_usad},
  {"__nv_y0", (void (*)(void))y0},
  {"__nv_y0f", (void (*)(void))y0f},
  {"__nv_y1", (void (*)(void))y1},
  {"__nv_y1f", (void (*)(void))y1f},
  {"__nv_yn", (void (*)(void))yn},
  {"__nv_ynf", (void (*)(void))ynf},};
const size_t libdevice_host_nfns = sizeof libdevice_host_fns / sizeof libdevice_host_fns[0];

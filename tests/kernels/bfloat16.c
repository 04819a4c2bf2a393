/* bfloat16.c — numba.cuda.bf16 against references computed here in C.
 * A bfloat16 is the top half of a float32: 8 significant bits, float32's exponents.
 * to_bf() rounds a float once to bfloat16 in any mode by exact scaling (ldexp, then
 * nearbyint, trunc, floor or ceil on the scaled value), int_to_bf() an integer by
 * integer arithmetic on its leading bits: algorithms apart from kcc's (LLVM's fptrunc;
 * the float32 bits, or an integer narrowed to float32 with a sticky bit).
 * Arithmetic references: the float32 operation on the bfloat16 operands rounded to
 * bfloat16 (float32 has more than 2 * 8 + 2 bits, so the double rounding is innocuous
 * for + - * / and sqrt); fma in double (exact for these inputs), rounded once.
 * Functions that kcc computes in float32 and rounds (hexp, hsin ...) are compared
 * within one bfloat16 ulp, as the fp16 test does, because a float32 result near a
 * bfloat16 midpoint may round either way; the rest exactly. CUDA's rules: _sat results clamped to [0, 1] (NaN to 0),
 * hfma_relu's negative result 0, hisinf -1/0/1, conversions to integers saturating with
 * NaN to 0. */
#include <stdbool.h>

#include "harness.h"

enum { NOPS = 45, NBITS = 30, NINTS = 32 };
typedef enum { RN, RZ, RD, RU } mode;

static float f_of_bits(uint16_t b) {
  uint32_t u = (uint32_t)b << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

/* v (finite, or not) rounded once to bfloat16 in mode m: its bits. In double, which
 * holds every float32 and float64 input here exactly, and scales them exactly. */
static uint16_t to_bf(double v, mode m) {
  if (isnan(v)) return 0x7fc0;
  uint16_t sign = signbit(v) ? 0x8000 : 0;
  if (isinf(v)) return sign | 0x7f80;
  if (v == 0) return sign;
  int q = ilogb(v) - 7 < -133 ? -133 : ilogb(v) - 7;   /* the last kept bit's weight */
  double s = ldexp(v, -q), r;
  switch (m) {
  case RN: r = nearbyint(s); break;
  case RZ: r = trunc(s); break;
  case RD: r = floor(s); break;
  default: r = ceil(s); break;
  }
  double x = ldexp(r, q), max = ldexp(255, 120);   /* 0x1.fep127 */
  if (fabs(x) > max) {   /* overflow: infinity unless the mode rounds toward zero */
    bool to_inf = m == RN || (m == RU && v > 0) || (m == RD && v < 0);
    return to_inf ? sign | 0x7f80 : sign | 0x7f7f;
  }
  float f = (float)x;   /* exact */
  uint32_t u;
  memcpy(&u, &f, 4);
  return (uint16_t)(u >> 16);
}

static float bf(double v) { return f_of_bits(to_bf(v, RN)); }

/* An integer (its magnitude and sign) rounded once to bfloat16 in mode m by integer
 * arithmetic: its leading 8 bits kept, the rest deciding the rounding. */
static uint16_t int_to_bf(uint64_t mag, bool neg, mode m) {
  uint16_t sign = neg ? 0x8000 : 0;
  if (mag == 0) return sign;
  int p = 63 - __builtin_clzll(mag);   /* the leading bit's weight */
  uint64_t kept = mag, rest = 0, half = 0;
  if (p > 7) {
    kept = mag >> (p - 7), rest = mag & ((1ull << (p - 7)) - 1), half = 1ull << (p - 8);
  } else {
    kept = mag << (7 - p);
  }
  bool up = m == RN ? rest > half || (rest == half && rest && (kept & 1))
          : m == RD ? neg && rest : m == RU ? !neg && rest : false;
  kept += up;
  if (kept == 256) kept = 128, p++;
  return sign | (uint16_t)((p + 127) << 7) | (uint16_t)(kept & 0x7f);
}

/* one bfloat16 ulp of v's binade, for the functions computed in float32 */
static double ulp_of(float v) {
  return isfinite(v) && v != 0 ? ldexp(1.0, ilogb(v) - 7) : 0;
}

static void inputs(float *a, float *b, float *c, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    a[i] = ((float)(i % 31) - 15.0f) * 0.731f;
    b[i] = i % 11 == 0 ? a[i] : ((float)(i % 13) - 6.5f) * 1.37f;
    c[i] = (float)(i % 7) * 0.173f - 0.6f;
  }
  a[5] = NAN;   /* the NaN rules of hmax/hmax_nan and the comparisons */
}

static float clamp01(float r) { return r > 0 ? (r > 1 ? 1 : r) : 0; }

static void check_ops(void) {
  const int64_t n = 200;
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4), *c = h_alloc(n, 4);
  float *out = h_alloc(n * NOPS, 4), *want = h_alloc(n * NOPS, 4);
  inputs(a, b, c, n);
  h_poison_f32(out, n * NOPS);
  double *tol = h_alloc(n * NOPS, 8);
  for (int64_t i = 0; i < n; i++) {
    float x = bf(a[i]), y = bf(b[i]), z = bf(c[i]);
    float *w = want + i * NOPS;
    double *t = tol + i * NOPS;
    for (int k = 0; k < NOPS; k++) t[k] = 0;
    float fma_xyz = bf((double)x * y + z);   /* exact in double for these inputs */
    w[0] = bf(x + y), w[1] = bf(x - y), w[2] = bf(x * y), w[3] = bf(x / y);
    w[4] = bf(x * 2 + 1.0f), w[5] = bf(sqrtf(fabsf(x))), w[6] = bf(-x + bf(3.14159));
    w[7] = x + 0.1f;
    float s[] = {
      bf(x + y), bf(x - y), bf(x * y), bf(x / y), -x, fabsf(x), fma_xyz,
      isnan(x) ? y : isnan(y) ? x : (x > y ? x : y), isnan(x) ? y : isnan(y) ? x : (x < y ? x : y),
      bf(sqrtf(fabsf(x))), bf(1 / sqrtf(fabsf(x))), bf(1 / x), bf(expf(z)), bf(exp2f(z)),
      bf(powf(10, z)), bf(logf(fabsf(x))), bf(log2f(fabsf(x))), bf(log10f(fabsf(x))),
      bf(sinf(x)), bf(cosf(x)), floorf(x), ceilf(x), truncf(x), rintf(x), bf(tanhf(z)),
      bf(x + y), bf(x - y), bf(x * y), clamp01(bf(x + y)), clamp01(bf(x - y)),
      clamp01(bf(x * y)), clamp01(fma_xyz), isnan(fma_xyz) || fma_xyz >= 0 ? fma_xyz : 0,
      isnan(x) || isnan(y) ? NAN : (x > y ? x : y), isnan(x) || isnan(y) ? NAN : (x < y ? x : y),
    };
    for (int k = 0; k < NOPS - 10; k++) w[8 + k] = s[k];
    /* Python's // and % by 2: the floor of x / 2 is exact; the remainder, exact in
       double, rounded once (a negative x's x + 2 may need a ninth bit) */
    w[43] = floorf(x / 2), w[44] = bf((double)x - 2 * floor((double)x / 2));
    /* computed in float32 and rounded: hrsqrt, hexp ... hcos (columns 18, 20-27), htanh (32) */
    t[18] = ulp_of(w[18]), t[32] = ulp_of(w[32]);
    for (int k = 20; k <= 27; k++) t[k] = ulp_of(w[k]);
  }
  int64_t so[2] = {n, NOPS};
  kc_array *da = h_array1(KC_FLOAT32, n, a), *db = h_array1(KC_FLOAT32, n, b);
  kc_array *dc = h_array1(KC_FLOAT32, n, c), *dout = h_array(KC_FLOAT32, 2, so, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc), kc_arg_array(dout)};
  h_launch(h_kernel("bf_ops"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 4);
  h_fetch(dout, out);
  for (int64_t j = 0; j < n * NOPS; j++)
    if (!h_close(want[j], out[j], 0, tol[j]) && H.failures++ < 5)
      printf("FAIL %s: bf_ops element %lld (column %lld, x=%g y=%g z=%g): expected %.9g got %.9g\n",
             H.name, (long long)(j / NOPS), (long long)(j % NOPS), bf(a[j / NOPS]), bf(b[j / NOPS]),
             bf(c[j / NOPS]), want[j], out[j]);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc), kc_array_free(dout);
  free(a), free(b), free(c), free(out), free(want), free(tol);
}

/* float32, float64 and the integer types to bfloat16, in each mode */
static void check_from(void) {
  static const float fs[] = {0.1f, -0.1f, 1.0f, -1.00390625f, 3.4028235e38f, -3.4028235e38f,
                             1e-40f, -1e-45f, 65537.0f, 0x1.0181p0f, -0x1.0180p0f, 0.0f,
                             -0.0f, INFINITY, 257.0f, 123456.0f};
  static const int64_t ns[] = {0, 1, -1, 255, 257, -257, 789, -789, 32767, -32768, 65535,
                               2147483647, -2147483647 - 1, 4294967295LL, INT64_MAX, INT64_MIN};
  enum { N = 16 };
  float f[N];
  double d[N];
  int64_t nv[N];
  int16_t bits[N * NBITS], want[N * NBITS];
  memset(bits, 0x55, sizeof bits);
  for (int i = 0; i < N; i++) {
    f[i] = fs[i], nv[i] = ns[i];
    d[i] = (double)fs[i] * (1 + 0x1p-30);   /* between bfloat16 values: one rounding tells */
    int16_t *w = want + i * NBITS;
    w[0] = (int16_t)to_bf(f[i], RN);
    for (int m = 0; m < 4; m++) w[1 + m] = (int16_t)to_bf(f[i], (mode)m);
    w[5] = (int16_t)to_bf(d[i], RN);
    int64_t sv[3] = {(int16_t)nv[i], (int32_t)nv[i], nv[i]};
    uint64_t uv[3] = {(uint16_t)nv[i], (uint32_t)nv[i], (uint64_t)nv[i]};
    for (int t = 0; t < 6; t++) {   /* int16, uint16, int32, uint32, int64, uint64 */
      int64_t sx = sv[t / 2];
      bool neg = t % 2 == 0 && sx < 0;
      uint64_t mag = t % 2 ? uv[t / 2] : neg ? 0 - (uint64_t)sx : (uint64_t)sx;
      for (int m = 0; m < 4; m++) w[6 + t * 4 + m] = (int16_t)int_to_bf(mag, neg, (mode)m);
    }
  }
  int64_t sb[2] = {N, NBITS};
  kc_array *df = h_array1(KC_FLOAT32, N, f), *dd = h_array1(KC_FLOAT64, N, d);
  kc_array *dn = h_array1(KC_INT64, N, nv), *db = h_array(KC_INT16, 2, sb, bits);
  kc_arg args[] = {kc_arg_array(df), kc_arg_array(dd), kc_arg_array(dn), kc_arg_array(db)};
  h_launch(h_kernel("bf_from"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(db, bits);
  for (int j = 0; j < N * NBITS; j++) {
    bool nan = (want[j] & 0x7f80) == 0x7f80 && (want[j] & 0x7f);   /* any NaN will do */
    bool ok = nan ? (bits[j] & 0x7f80) == 0x7f80 && (bits[j] & 0x7f) : bits[j] == want[j];
    if (!ok && H.failures++ < 5)
      printf("FAIL %s: bf_from value %d column %d: expected 0x%04x got 0x%04x\n", H.name, j / NBITS,
             j % NBITS, (unsigned)(uint16_t)want[j], (unsigned)(uint16_t)bits[j]);
  }
  kc_array_free(df), kc_array_free(dd), kc_array_free(dn), kc_array_free(db);
}

/* v rounded in mode m to an integer of `bits` bits, signed or not, saturating (NaN is
 * 0), as the kernel's int64 array receives it (a uint64 wraps). In double: v and its
 * rounding are exact there, and the bounds are powers of two. */
static int64_t to_int(float v, mode m, int bits, bool is_signed) {
  if (isnan(v)) return 0;
  double r = m == RN ? nearbyint(v) : m == RZ ? trunc(v) : m == RD ? floor(v) : ceil(v);
  double top = ldexp(1, is_signed ? bits - 1 : bits);   /* the first value out of range */
  if (is_signed) {
    if (r >= top) return (int64_t)(UINT64_MAX >> (65 - bits));   /* 2^(bits-1) - 1 */
    if (r < -top) return -(int64_t)(UINT64_MAX >> (65 - bits)) - 1;
    return (int64_t)r;
  }
  if (r < 0) return 0;
  if (r >= top) return (int64_t)(UINT64_MAX >> (64 - bits));
  return (int64_t)(uint64_t)r;
}

static void check_to(void) {
  static const uint16_t raws[] = {0x3fc0, 0xbfc0, 0x4020, 0xc020, 0x3f00, 0xbf00, 0x4310,
                                  0x7f80, 0xff80, 0x7fc0, 0x0000, 0x8000, 0x4f00, 0xdf00,
                                  0x5f80, 0x477f, 0xc700, 0x3f80, 0x4780, 0xbfff};
  enum { N = sizeof raws / sizeof raws[0] };
  int16_t raw[N];
  int64_t ints[N * NINTS], want[N * NINTS];
  float wid[N], wwid[N];
  memset(ints, 0x55, sizeof ints);
  h_poison_f32(wid, N);
  for (int i = 0; i < N; i++) {
    raw[i] = (int16_t)raws[i];
    float v = f_of_bits(raws[i]), u = f_of_bits(raws[(i + 1) % N]);
    int64_t *w = want + i * NINTS;
    wwid[i] = v;
    w[0] = to_int(v, RZ, 8, true), w[1] = to_int(v, RZ, 8, false);
    for (int t = 0; t < 6; t++)   /* int16, uint16, int32, uint32, int64, uint64 */
      for (int m = 0; m < 4; m++)
        w[2 + t * 4 + m] = to_int(v, (mode)m, 16 << (t / 2), t % 2 == 0);
    w[26] = raw[i], w[27] = raws[i], w[28] = isnan(v);
    w[29] = isinf(v) ? (v > 0 ? 1 : -1) : 0;
    w[30] = (v == u) * 1 + !(v == u) * 2 + (v > u) * 4 + (v >= u) * 8 + (v < u) * 16 + (v <= u) * 32;
    w[31] = (v < u) * 1 + (v == u) * 2 + (v >= u) * 4;
  }
  int64_t si[2] = {N, NINTS};
  kc_array *dr = h_array1(KC_INT16, N, raw), *di = h_array(KC_INT64, 2, si, ints);
  kc_array *dw = h_array1(KC_FLOAT32, N, wid);
  kc_arg args[] = {kc_arg_array(dr), kc_arg_array(di), kc_arg_array(dw)};
  h_launch(h_kernel("bf_to"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(di, ints);
  h_fetch(dw, wid);
  h_check_i64("bf_to", want, ints, N * NINTS);
  h_check_f32("bf_to widened", wwid, wid, N, 0, 0);
  kc_array_free(dr), kc_array_free(di), kc_array_free(dw);
}

int main(int argc, char **argv) {
  h_begin("bfloat16", argc, argv);
  check_ops();
  check_from();
  check_to();
  return h_end();
}

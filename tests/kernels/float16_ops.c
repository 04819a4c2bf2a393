/* float16_ops.c — half precision against GCC's _Float16.
 * References round each operation once to float16 from float (exact for + - * / and
 * sqrt: float has more than 2 * 11 + 2 bits, so the double rounding is innocuous);
 * results must match bit for bit, except fma (one float16 ulp: the host may fuse in
 * float).
 * cuda.fp16 functions (half_functions): the reference is the C library's float32
 * function on the float16 value, rounded to float16 (how kcc defines them, fp16.c).
 * hrcp, hfloor, hceil, htrunc, hrint and the comparisons are exact (1/x in float then
 * to half is correctly rounded, as above; the others are exact in any precision).
 * hrsqrt, hexp, hexp2, hlog, hlog2, hlog10, hsin, hcos: within one float16 ulp (one
 * step of the ordered bit pattern). A float32 result a float32 ulp or two away from
 * glibc's (libdevice's __nv_expf ... on the GPU, two roundings in 1/sqrtf) may round
 * to the neighbouring float16 when it lies near the midpoint of two float16 values;
 * Numba's own hrsqrt ... are approximations of that order too. */
#include "harness.h"

__extension__ typedef _Float16 half; /* GCC >= 12 and clang on x86-64 and arm64 */
enum { NA = 10, NI = 11 };

static half HF(float v) { return (half)v; }
static float F(half h) { return (float)h; }

/* float16 array -> float, for h_check_f32 */
static void widen(const half *h, float *f, int64_t n) {
  for (int64_t i = 0; i < n; i++) f[i] = F(h[i]);
}

static void poison(half *h, int64_t n) {
  uint16_t bits = 0x7E01; /* a NaN no arithmetic here produces */
  for (int64_t i = 0; i < n; i++) memcpy(&h[i], &bits, 2);
}

static void inputs(half *a, half *b, half *c, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    a[i] = HF(((float)(i % 29) - 14.0f) * 0.37f);
    b[i] = (i % 9 == 0) ? a[i] : HF(((float)(i % 13) - 6.5f) * 1.7f);
    c[i] = HF((float)(i % 7) * 0.123f - 0.4f);
  }
}

static void check_arith(void) {
  const int64_t n = 333;
  half *a = h_alloc(n, 2), *b = h_alloc(n, 2), *c = h_alloc(n, 2);
  half *out = h_alloc(n * NA, 2);
  float *f = h_alloc(n * 2, 4), *want = h_alloc(n * NA, 4), *got = h_alloc(n * NA, 4);
  float *wf = h_alloc(n * 2, 4);
  int32_t *flags = h_alloc(n, 4), *wflags = h_alloc(n, 4);
  inputs(a, b, c, n);
  poison(out, n * NA);
  h_poison_f32(f, n * 2);
  h_poison_i32(flags, n);
  const float s = 0.3f;
  for (int64_t i = 0; i < n; i++) {
    float x = F(a[i]), y = F(b[i]);
    float *w = want + i * NA;
    w[0] = F(HF(x + y)), w[1] = F(HF(x - y)), w[2] = F(HF(x * y)), w[3] = F(HF(x / y));
    w[4] = F(HF(F(HF(x * 2.5f)) + F(HF(s))));
    w[5] = -x, w[6] = fabsf(y), w[7] = F(HF(F(HF((float)i)) * 0.25f));
    w[8] = y > x ? y : x, w[9] = F(HF(sqrtf(fabsf(x))));
    wf[i * 2] = x, wf[i * 2 + 1] = x + 0.1f;
    wflags[i] = (x < y) * 1 + (x == y) * 2 + (int32_t)x * 4;
  }
  int64_t so[2] = {n, NA}, sf[2] = {n, 2};
  kc_array *da = h_array1(KC_FLOAT16, n, a), *db = h_array1(KC_FLOAT16, n, b);
  kc_array *dout = h_array(KC_FLOAT16, 2, so, out), *df = h_array(KC_FLOAT32, 2, sf, f);
  kc_array *dflags = h_array1(KC_INT32, n, flags);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_f16(s), kc_arg_array(dout),
                   kc_arg_array(df), kc_arg_array(dflags)};
  h_launch(h_kernel("half_arith"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 6);
  h_fetch(dout, out);
  h_fetch(df, f);
  h_fetch(dflags, flags);
  widen(out, got, n * NA);
  h_check_f32("half_arith", want, got, n * NA, 0, 0);
  h_check_f32("half_arith widened", wf, f, n * 2, 0, 0);
  h_check_i32("half_arith flags", wflags, flags, n);
  /* a float16 parameter refuses a value beyond its range */
  args[2] = kc_arg_f16(70000.0f);
  if (kc_launch(h_kernel("half_arith"), kc_dim(1), kc_dim(1), 0, NULL, args, 6) != KC_ERR_LAUNCH)
    h_die("70000 was accepted for a float16 parameter");
  kc_array_free(da), kc_array_free(db), kc_array_free(dout), kc_array_free(df);
  kc_array_free(dflags);
  free(a), free(b), free(c), free(out), free(f), free(want), free(got), free(wf);
  free(flags), free(wflags);
}

static void check_intrinsics(void) {
  const int64_t n = 200;
  half *a = h_alloc(n, 2), *b = h_alloc(n, 2), *c = h_alloc(n, 2), *out = h_alloc(n * NI, 2);
  float *want = h_alloc(n * NI, 4), *got = h_alloc(n * NI, 4);
  int32_t *flags = h_alloc(n, 4), *wflags = h_alloc(n, 4);
  inputs(a, b, c, n);
  poison(out, n * NI);
  h_poison_i32(flags, n);
  for (int64_t i = 0; i < n; i++) {
    float x = F(a[i]), y = F(b[i]), z = F(c[i]);
    float *w = want + i * NI;
    w[0] = F(HF(x + y)), w[1] = F(HF(x - y)), w[2] = F(HF(x * y)), w[3] = F(HF(x / y));
    w[4] = -x, w[5] = fabsf(x), w[6] = F(HF((float)((double)x * y + z)));
    w[7] = fmaxf(x, y), w[8] = fminf(x, y), w[9] = F(HF(sqrtf(fabsf(x)))), w[10] = x * 0.5f;
    wflags[i] = (x < y) * 1 + (x == y) * 2 + (x >= y) * 4;
  }
  int64_t so[2] = {n, NI};
  kc_array *da = h_array1(KC_FLOAT16, n, a), *db = h_array1(KC_FLOAT16, n, b);
  kc_array *dc = h_array1(KC_FLOAT16, n, c), *dout = h_array(KC_FLOAT16, 2, so, out);
  kc_array *dflags = h_array1(KC_INT32, n, flags);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc), kc_arg_array(dout),
                   kc_arg_array(dflags)};
  h_launch(h_kernel("half_intrinsics"), kc_dim(h_blocks(n, 32)), kc_dim(32), args, 5);
  h_fetch(dout, out);
  h_fetch(dflags, flags);
  widen(out, got, n * NI);
  for (int64_t i = 0; i < n; i++) {
    /* fma: within one float16 ulp (2^-10 relative) */
    float *w = want + i * NI, *g = got + i * NI;
    if (h_close(w[6], g[6], 0x1p-10, 0x1p-24)) g[6] = w[6];
  }
  h_check_f32("half_intrinsics", want, got, n * NI, 0, 0);
  h_check_i32("half_intrinsics flags", wflags, flags, n);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc), kc_array_free(dout);
  kc_array_free(dflags);
  free(a), free(b), free(c), free(out), free(want), free(got), free(flags), free(wflags);
}

/* kc_arg_f16 rounds as a float -> _Float16 conversion does: ties to even, subnormals,
 * the largest finite value, signed zero. */
static void check_scalar_rounding(void) {
  static const float vals[] = {0.3f, -1.0f, 1.0f + 0x1p-11f, 1.0f + 3 * 0x1p-11f, 65504.0f,
                               65519.0f, 1e-6f, -3e-8f, 0x1p-25f, 0x1.8p-25f, -0.0f, 2049.0f,
                               0x1p-14f - 0x1p-25f};
  const int n = (int)(sizeof vals / sizeof vals[0]);
  half out[1], got[sizeof vals / sizeof vals[0]], want[sizeof vals / sizeof vals[0]];
  poison(out, 1);
  kc_array *d = h_array1(KC_FLOAT16, 1, out);
  for (int i = 0; i < n; i++) {
    kc_arg args[] = {kc_arg_f16(vals[i]), kc_arg_array(d)};
    h_launch(h_kernel("store_scalar"), kc_dim(1), kc_dim(1), args, 2);
    h_fetch(d, &got[i]);
    want[i] = HF(vals[i]);
  }
  if (memcmp(got, want, sizeof got) != 0)
    for (int i = 0; i < n; i++)
      if (memcmp(&got[i], &want[i], 2) != 0 && H.failures++ == 0)
        printf("FAIL float16_ops: kc_arg_f16(%a) stored %a, expected %a\n", (double)vals[i],
               (double)F(got[i]), (double)F(want[i]));
  kc_array_free(d);
}

/* Distance in float16 ulps: the difference of the values' positions in the ordered
 * sequence of float16 bit patterns (+0 and -0 both at 0); NaN is 0 from NaN only. */
static int half_ulps(half want, half got) {
  if (want != want || got != got) return (want != want && got != got) ? 0 : 1 << 16;
  uint16_t bw, bg;
  memcpy(&bw, &want, 2), memcpy(&bg, &got, 2);
  int ow = (bw & 0x8000) ? -(int)(bw & 0x7fff) : (int)bw;
  int og = (bg & 0x8000) ? -(int)(bg & 0x7fff) : (int)bg;
  return abs(ow - og);
}

enum { NF = 13 };

/* cuda.fp16.hrsqrt ... hrint and hne/hgt/hle. a: multiples of 1/8 in [-7.5, 7.5]
 * (halves for hrint's ties to even, 0 for hrcp's infinity, exp stays below 65504);
 * p: positive, for hrsqrt and the logarithms; b: equal to a, NaN, or other values. */
static void check_functions(void) {
  const int64_t n = 121;
  half *a = h_alloc(n, 2), *p = h_alloc(n, 2), *b = h_alloc(n, 2), *out = h_alloc(n * NF, 2);
  half *want = h_alloc(n * NF, 2);
  float *fw = h_alloc(n * NF, 4), *fg = h_alloc(n * NF, 4);
  int32_t *flags = h_alloc(n, 4), *wflags = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = HF((float)(i - 60) * 0.125f);
    p[i] = HF(0.03f + (float)i * 0.37f);
    b[i] = i % 5 == 0 ? a[i] : i % 7 == 0 ? HF(NAN) : HF((float)(i % 11 - 5) * 0.6f);
  }
  poison(out, n * NF);
  h_poison_i32(flags, n);
  for (int64_t i = 0; i < n; i++) {
    float x = F(a[i]), q = F(p[i]), y = F(b[i]);
    half *w = want + i * NF;
    w[0] = HF(1.0f / sqrtf(q)), w[1] = HF(1.0f / x), w[2] = HF(expf(x)), w[3] = HF(exp2f(x));
    w[4] = HF(logf(q)), w[5] = HF(log2f(q)), w[6] = HF(log10f(q)), w[7] = HF(sinf(x));
    w[8] = HF(cosf(x)), w[9] = HF(floorf(x)), w[10] = HF(ceilf(x)), w[11] = HF(truncf(x));
    w[12] = HF(rintf(x)); /* the default rounding mode: to nearest, ties to even */
    wflags[i] = (x != y) * 1 + (x > y) * 2 + (x <= y) * 4; /* != is true on NaN */
  }
  int64_t so[2] = {n, NF};
  kc_array *da = h_array1(KC_FLOAT16, n, a), *dp = h_array1(KC_FLOAT16, n, p);
  kc_array *db = h_array1(KC_FLOAT16, n, b), *dout = h_array(KC_FLOAT16, 2, so, out);
  kc_array *dflags = h_array1(KC_INT32, n, flags);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dp), kc_arg_array(db), kc_arg_array(dout),
                   kc_arg_array(dflags)};
  h_launch(h_kernel("half_functions"), kc_dim(h_blocks(n, 32)), kc_dim(32), args, 5);
  h_fetch(dout, out);
  h_fetch(dflags, flags);
  static const int one_ulp[NF] = {1, 0, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0};
  for (int64_t i = 0; i < n * NF; i++)
    if (one_ulp[i % NF] && half_ulps(want[i], out[i]) <= 1) out[i] = want[i];
  widen(want, fw, n * NF);
  widen(out, fg, n * NF);
  h_check_f32("half_functions", fw, fg, n * NF, 0, 0);
  h_check_i32("half_functions flags (hne, hgt, hle)", wflags, flags, n);
  kc_array_free(da), kc_array_free(dp), kc_array_free(db), kc_array_free(dout);
  kc_array_free(dflags);
  free(a), free(p), free(b), free(out), free(want), free(fw), free(fg), free(flags), free(wflags);
}

/* float64 -> float16 rounds once to nearest even (GCC's (_Float16)double does too): the
 * values next to ties are where rounding through float32 first would differ. */
static void check_from_double(void) {
  static const double vals[] = {1 + 0x1p-11 + 0x1p-40, 1 + 0x1p-11, 1 + 3 * 0x1p-11,
      -(1 + 0x1p-11 + 0x1p-60), 0x1p-25, 0x1.0000000001p-25, 0x1.8p-24, 65519.99, 65520.0,
      -0.0, 0x1.ffcp-15, 1e300, -1e-300, 0.1, 3.14159265358979, INFINITY, -INFINITY};
  enum { N = sizeof vals / sizeof vals[0] };
  half out[2 * N], want[2 * N];
  for (int i = 0; i < N; i++) {
    want[2 * i] = (half)vals[i];
    want[2 * i + 1] = (half)((float)want[2 * i] * 2.0f + (float)(half)(vals[i] * 0.5));
  }
  poison(out, 2 * N);
  int64_t shape[2] = {N, 2};
  kc_array *dx = h_array1(KC_FLOAT64, N, vals), *d = h_array(KC_FLOAT16, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(d)};
  h_launch(h_kernel("half_from_double"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(d, out);
  float fw[2 * N], fg[2 * N];
  widen(want, fw, 2 * N), widen(out, fg, 2 * N);
  h_check_f32("half_from_double", fw, fg, 2 * N, 0, 0);
  kc_array_free(dx), kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("float16_ops", argc, argv);
  check_scalar_rounding();
  check_arith();
  check_intrinsics();
  check_functions();
  check_from_double();
  return h_end();
}

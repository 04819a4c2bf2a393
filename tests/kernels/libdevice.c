/* libdevice.c — cuda.libdevice functions against references computed here: the C
 * library (in long double where the function is a composition), the definitions of
 * directed rounding (the neighbouring double or float of the exact result, found with
 * nextafter), identities that invert a function (erf(erfinv(y)) == y), and bit loops
 * for the integer intrinsics. Tolerances: exact for rounding, conversions, frexp,
 * modf, remquo and integers; float64 functions within 1e-15 relative (libdevice's are
 * within 1-2 ulp); erfcx 1e-13 (two exponentials and erfc); float32 functions 3e-7,
 * fast_expf 2e-6 (the GPU's approximation); half round trips exact. */
#include <fenv.h>

#include "harness.h"

__extension__ typedef _Float16 half; /* GCC >= 12 and clang on x86-64 and arm64 */
enum { ND = 29, NDC = 20, NF = 61, NFC = 10, NI = 12, NIC = 10 };

/* Whether this machine rounds as fesetround says. Valgrind does not (its SSE
 * arithmetic always rounds to nearest), so under it the directed-rounding columns are
 * skipped, said on stdout; everywhere else they are checked exactly. */
static int directed_rounding_works(void) {
  volatile double one = 1.0, tiny = 1e-30, up;
  fesetround(FE_UPWARD);
  up = one + tiny;
  fesetround(FE_TONEAREST);
  return up > 1.0;
}

/* The checked columns: all, or only those not rounded toward a direction. */
static int column_checked(const char *name) {
  static int works = -1;
  if (works < 0) works = directed_rounding_works();
  if (works) return 1;
  size_t n = strlen(name);
  int directed = n > 3 && (strcmp(name + n - 3, "_ru") == 0 || strcmp(name + n - 3, "_rd") == 0 ||
                           strcmp(name + n - 3, "_rz") == 0);
  if (directed) printf("note: %s not checked: this machine ignores fesetround (valgrind)\n", name);
  return !directed;
}

/* column c of row i of want/got, checked one at a time for a clear message */
static void check_col_f64(const char *what, const double *want, const double *got, int ncols,
                          int c, int n, double rtol, double atol) {
  double w[64], g[64];
  for (int i = 0; i < n; i++) w[i] = want[i * ncols + c], g[i] = got[i * ncols + c];
  h_check_f64(what, w, g, n, rtol, atol);
}

/* sin(k * pi / 4), exactly: 0, +-1, or +-sqrt(1/2) rounded (the inputs of sinpi and
 * cospi below are multiples of 1/4, so no long double, which valgrind computes in
 * double precision, is needed). */
static double quarter_turn(int k) {
  static const double s[8] = {0.0, M_SQRT1_2, 1.0, M_SQRT1_2, 0.0, -M_SQRT1_2, -1.0, -M_SQRT1_2};
  return s[((k % 8) + 8) % 8];
}

static void doubles(void) {
  double x[ND], out[ND * NDC], want[ND * NDC];
  for (int i = 0; i < ND; i++) x[i] = (i - 14) * 0.25;
  for (int i = 0; i < ND; i++) {
    double v = x[i], *w = &want[i * NDC];
    int e;
    double ip;
    w[0] = sin(v);
    w[1] = pow(10.0, v);
    w[2] = v / 4.0;                       /* erf of the result, below */
    w[3] = (double)(expl((long double)v * v) * erfcl((long double)v));
    w[4] = quarter_turn(i - 14 + 2);      /* cos(pi v) = sin(pi v + pi/2) */
    w[5] = 1.0 / sqrt(fabs(v) + 1.0);
    w[6] = v == 0 ? 1e-30 : nextafter(v, INFINITY);
    w[7] = v == 0 ? 1e-30 : v;
    w[8] = nextafter(v, 100.0);
    w[9] = v * v * v;                     /* exact: v has few bits */
    w[10] = sin(v) - cos(v);
    w[11] = frexp(v, &e) * 100.0 + e;
    w[12] = modf(v, &ip) + ip * 1000.0;
    int q;
    double r = remquo(v, 0.75, &q);
    w[13] = r + q * 100.0;
    w[14] = (double)(int)nearbyint(v * 3.0);
    w[15] = 2.0 * (signbit(v) != 0);
    w[16] = 9007199254740994.0;           /* 2**53 + 1 rounded up */
    w[17] = v == 0 ? 1e-20 : v > 0 ? v * 3.0 : nextafter(v * 3.0, 0.0);
    w[18] = quarter_turn(i - 14);
    w[19] = 0.01 + (v + 4.0) / 10.0;      /* normcdf of the result, below */
  }
  h_poison_f64(out, ND * NDC);
  int64_t shape[2] = {ND, NDC};
  kc_array *dx = h_array1(KC_FLOAT64, ND, x), *dout = h_array(KC_FLOAT64, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("doubles"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  for (int i = 0; i < ND; i++) {   /* the inverses, through their functions */
    out[i * NDC + 2] = erf(out[i * NDC + 2]);
    out[i * NDC + 19] = 0.5 * erfc(-out[i * NDC + 19] / sqrt(2.0));
  }
  static const char *const names[NDC] = {
      "sin", "exp10", "erfinv", "erfcx", "cospi", "rsqrt", "dadd_ru", "dadd_rd", "nextafter",
      "powi", "sincos", "frexp", "modf", "remquo", "double2int_rn", "isnand/signbitd",
      "ll2double_ru", "fma_rz", "sinpi", "normcdfinv"};
  static const double rtol[NDC] = {1e-15, 1e-15, 1e-15, 1e-13, 1e-15, 1e-15, 0, 0, 0, 1e-15,
                                   1e-14, 0, 0, 0, 0, 0, 0, 0, 1e-15, 1e-15};
  static const double atol[NDC] = {0, 0, 1e-16, 0, 1e-16, 0, 0, 0, 0, 0, 1e-15, 0, 0, 0, 0,
                                   0, 0, 0, 1e-16, 1e-16};
  for (int c = 0; c < NDC; c++)
    if (column_checked(names[c])) check_col_f64(names[c], want, out, NDC, c, ND, rtol[c], atol[c]);
  kc_array_free(dx), kc_array_free(dout);
}

/* the float next to the double d in the direction dir (the correctly rounded result of
 * an operation rounded toward dir, d being its exact value or near enough) */
static float directed(double d, double dir) {
  float f = (float)d;
  if (dir > 0 && (double)f < d) f = nextafterf(f, INFINITY);
  if (dir < 0 && (double)f > d) f = nextafterf(f, -INFINITY);
  return f;
}

static void floats(void) {
  float x[NF], out[NF * NFC], want[NF * NFC];
  for (int i = 0; i < NF; i++) x[i] = (float)(i - 30) * 0.1f;
  for (int i = 0; i < NF; i++) {
    double v = x[i];
    float *w = &want[i * NFC];
    w[0] = (float)sin(v);
    w[1] = (float)pow(v, 2.5);
    w[2] = (float)exp(v);
    w[3] = (float)(0.5 * erfc(-v / sqrt(2.0)));
    w[4] = directed(sqrt(fabs(v)), -1);
    w[5] = (float)(half)x[i];
    w[6] = (float)(sin((double)x[i]) + cos((double)x[i]));
    w[7] = directed(1.0 / 3.0, 1);
    w[8] = directed(1.0 / 3.0, -1);
    w[9] = (float)floor(v);
  }
  h_poison_f32(out, NF * NFC);
  int64_t shape[2] = {NF, NFC};
  kc_array *dx = h_array1(KC_FLOAT32, NF, x), *dout = h_array(KC_FLOAT32, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("floats"), kc_dim(1), kc_dim(64), args, 2);
  h_fetch(dout, out);
  static const char *const names[NFC] = {"sinf", "powf", "fast_expf", "normcdff", "fsqrt_rd",
                                         "float2half_rn/half2float", "sincosf", "fdiv_ru",
                                         "fdiv_rd", "float2int_rd"};
  static const double rtol[NFC] = {3e-7, 3e-7, 2e-6, 3e-7, 0, 0, 1e-6, 0, 0, 0};
  static const double atol[NFC] = {1e-7, 0, 0, 1e-7, 0, 0, 1e-6, 0, 0, 0};
  for (int c = 0; c < NFC; c++) {
    if (!column_checked(names[c])) continue;
    float w[NF], g[NF];
    for (int i = 0; i < NF; i++) w[i] = want[i * NFC + c], g[i] = out[i * NFC + c];
    h_check_f32(names[c], w, g, NF, rtol[c], atol[c]);
  }
  kc_array_free(dx), kc_array_free(dout);
}

static int bits_set(uint64_t v) {
  int n = 0;
  for (; v; v >>= 1) n += (int)(v & 1);
  return n;
}

static void integers(void) {
  static const int32_t x[NI] = {0, 1, -1, 2147483647, INT32_MIN, 0x12345678, 255, -256,
                                1 << 20, 7, -7, 123456789};
  int64_t out[NI * NIC], want[NI * NIC];
  for (int i = 0; i < NI; i++) {
    int32_t v = x[i];
    uint32_t u = (uint32_t)v, rev = 0;
    int64_t *w = &want[i * NIC];
    int lead = 0, first = 0;
    for (int b = 0; b < 32; b++) rev |= ((u >> b) & 1u) << (31 - b);
    while (lead < 32 && !((u >> (31 - lead)) & 1u)) lead++;
    for (int b = 0; b < 32 && !first; b++)
      if ((u >> b) & 1u) first = b + 1;
    w[0] = bits_set(u);
    w[1] = (int32_t)rev;
    w[2] = lead;
    w[3] = first;
    /* selector 0x4051 picks bytes 1, 5, 0, 4 of y:x (y = 0x76543210) */
    w[4] = (int32_t)(((u >> 8) & 0xffu) | (0x32u << 8) | ((u & 0xffu) << 16) | (0x10u << 24));
    w[5] = (int32_t)(((int64_t)v * 123456789) >> 32);
    uint64_t uv = (uint64_t)(int64_t)v;
    w[6] = (int64_t)(uv - (uv != 0));     /* high half of uv * (2**64 - 1) */
    w[7] = (int32_t)((uint32_t)llabs((int64_t)v + 7) + 5u);
    w[8] = (int32_t)(((int64_t)v + 2147483647) >> 1);
    w[9] = bits_set((uint64_t)((int64_t)v * 3));
  }
  for (int i = 0; i < NI * NIC; i++) out[i] = H_POISON_I64;
  int64_t shape[2] = {NI, NIC};
  kc_array *dx = h_array1(KC_INT32, NI, x), *dout = h_array(KC_INT64, 2, shape, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("integers"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_i64("integers (popc brev clz ffs byte_perm mulhi umul64hi sad hadd popcll)", want,
              out, NI * NIC);
  kc_array_free(dx), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("libdevice", argc, argv);
  doubles();
  floats();
  integers();
  return h_end();
}

/* uint_arith.c — uint32/uint64/uint8 arithmetic and mixed signedness, the expected
 * values following Numba 0.56.4's integer typing (docs/language.md "Integers").
 * tolerance: exact (the float64 column is one conversion of each operand and one
 * IEEE addition, done the same way here) */
#include "harness.h"

#define NU 11
#define NW 4
#define N64 4
/* uint64 bits as int64 (two's complement), and Python's floor division */
static int64_t pi64(uint64_t v) { int64_t r; memcpy(&r, &v, sizeof r); return r; }
static int64_t floordiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

int main(int argc, char **argv) {
  h_begin("uint_arith", argc, argv);
  const int64_t n = 200;
  uint32_t *u = h_alloc(n, 4), *v = h_alloc(n, 4), *out = h_alloc(n * NU, 4),
           *w = h_alloc(n * NU, 4);
  int32_t *s = h_alloc(n, 4);
  int64_t *wide = h_alloc(n * NW, 8), *ww = h_alloc(n * NW, 8);
  for (int64_t i = 0; i < n; i++) {
    u[i] = (uint32_t)(i * 2654435761u) ^ (i % 3 == 0 ? 0xFFFFFFFFu : 0u);
    if (i == 1) u[i] = 0xFFFFFFFFu;
    v[i] = (uint32_t)(i * 40503u + 1u);
    s[i] = (int32_t)(i * 7919) - 800000 + (i % 5 == 0 ? INT32_MIN / 2 : 0);
    uint32_t x = u[i], y = v[i];
    int64_t z = s[i];
    uint32_t r[NU] = {x + y, x - y, x * y, x / y, x % y, x >> 3, x << 4, ~x, x & y, x ^ y,
                      x + 1u};
    memcpy(&w[i * NU], r, sizeof r);
    ww[i * NW + 0] = (int64_t)x + z;
    ww[i * NW + 1] = z - (int64_t)x;
    ww[i * NW + 2] = (int64_t)x > z;
    ww[i * NW + 3] = (int64_t)x * z;
  }
  h_poison_u32(out, n * NU);
  h_poison_i64(wide, n * NW);
  int64_t us[2] = {n, NU}, ws[2] = {n, NW};
  kc_array *du = h_array1(KC_UINT32, n, u), *dv = h_array1(KC_UINT32, n, v),
           *ds = h_array1(KC_INT32, n, s), *dout = h_array(KC_UINT32, 2, us, out),
           *dwide = h_array(KC_INT64, 2, ws, wide);
  kc_arg args[] = {kc_arg_array(du), kc_arg_array(dv), kc_arg_array(ds), kc_arg_array(dout),
                   kc_arg_array(dwide)};
  h_launch(h_kernel("u32_ops"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 5);
  h_fetch(dout, out);
  h_fetch(dwide, wide);
  uint32_t cw[200], cg[200];
  int64_t ciw[200], cig[200];
  char what[48];
  for (int c = 0; c < NU; c++) {
    for (int64_t i = 0; i < n; i++) cw[i] = w[i * NU + c], cg[i] = out[i * NU + c];
    snprintf(what, sizeof what, "u32 column %d", c);
    h_check_u32(what, cw, cg, n);
  }
  for (int c = 0; c < NW; c++) {
    for (int64_t i = 0; i < n; i++) ciw[i] = ww[i * NW + c], cig[i] = wide[i * NW + c];
    snprintf(what, sizeof what, "uint32 with int32 column %d", c);
    h_check_i64(what, ciw, cig, n);
  }
  kc_array_free(du), kc_array_free(dv), kc_array_free(ds), kc_array_free(dout);
  kc_array_free(dwide);

  uint64_t p[64], o64[64 * N64], w64[64 * N64];
  int64_t q[64];
  double f[64], wf[64];
  for (int i = 0; i < 64; i++) {
    p[i] = 0x8000000000000000ull + (uint64_t)i * 0x0123456789ABCDEFull;
    q[i] = (int64_t)i * -1000000007ll;
    w64[i * N64 + 0] = p[i] + p[i];
    w64[i * N64 + 1] = p[i] >> 60;
    /* Numba: uint64 // literal resolves to (int64, int64) -> int64: p reinterpreted */
    w64[i * N64 + 2] = (uint64_t)floordiv(pi64(p[i]), 3);
    w64[i * N64 + 3] = p[i] * 0x9E3779B97F4A7C1ull;
    /* Numba: uint64 + int64 is int64 (integer_binop_cases), then stored as float64 */
    wf[i] = (double)pi64(p[i] + (uint64_t)q[i]);
  }
  h_poison_u64(o64, 64 * N64);
  h_poison_f64(f, 64);
  int64_t s64[2] = {64, N64};
  kc_array *dp = h_array1(KC_UINT64, 64, p), *dq = h_array1(KC_INT64, 64, q),
           *do64 = h_array(KC_UINT64, 2, s64, o64), *df = h_array1(KC_FLOAT64, 64, f);
  kc_arg args64[] = {kc_arg_array(dp), kc_arg_array(dq), kc_arg_array(do64), kc_arg_array(df)};
  h_launch(h_kernel("u64_ops"), kc_dim(1), kc_dim(64), args64, 4);
  h_fetch(do64, o64);
  h_fetch(df, f);
  h_check_u64("uint64 ops", w64, o64, 64 * N64);
  h_check_f64("uint64 + int64 -> int64", wf, f, 64, 0, 0);
  kc_array_free(dp), kc_array_free(dq), kc_array_free(do64), kc_array_free(df);

  uint8_t b[256], ob[256], wb[256];
  for (int i = 0; i < 256; i++) {
    b[i] = (uint8_t)i;
    wb[i] = (uint8_t)((b[i] + 200) / 2); /* int64 arithmetic, stored to uint8 */
  }
  h_poison_u8(ob, 256);
  kc_array *db = h_array1(KC_UINT8, 256, b), *dob = h_array1(KC_UINT8, 256, ob);
  kc_arg args8[] = {kc_arg_array(db), kc_arg_array(dob)};
  h_launch(h_kernel("u8_ops"), kc_dim(4), kc_dim(64), args8, 2);
  h_fetch(dob, ob);
  h_check_u8("(uint8 + 200) // 2 in int64", wb, ob, 256);
  kc_array_free(db), kc_array_free(dob);
  free(u), free(v), free(out), free(w), free(s), free(wide), free(ww);
  return h_end();
}

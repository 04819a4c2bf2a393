/* control.c — short-circuit `and`/`or` (counted through a device function's side
 * effect) and the loop statements, against the same control flow in C.
 * tolerance: exact (integers) */
#include "harness.h"

#define NL 11

static void loops_ref(int64_t m, int64_t *r) {
  int64_t s = 0, k, c;
  for (k = m; k > 0; k--) s += k;
  r[0] = s;
  s = 0;
  for (k = m; k > -m; k -= 3) s += k * k;
  r[1] = s;
  int64_t found = -2;
  for (k = 0; k < m; k++)
    if (k * k == m) { found = k; break; }
  r[2] = found;
  s = 0;
  int broke = 0;
  for (k = 0; k < 10; k++) {
    if (k % 2 == 0) continue;
    if (k > m) { broke = 1; break; }
    s += k;
  }
  if (!broke) s += 1000;
  r[3] = s;
  c = 0;
  for (int64_t p = 0; p < m; p++)
    for (int64_t q = 0; q < m; q++) {
      if (q > p) break;
      c++;
    }
  r[4] = c;
  int64_t v = m + 3;
  v += 5, v -= 2, v *= 3;
  v = py_floordiv_i64(v, 2);
  v = py_mod_i64(v, 17);
  v = v * v;
  v <<= 3, v >>= 1, v &= 0xFF, v |= 0x100, v ^= 0x55;
  r[5] = v;
  s = 0;
  for (k = 3; k < m; k++) s++;
  r[6] = s;
  s = 0;
  for (k = m; k > 0;) {
    k--;
    if (k % 3 == 0) continue;
    s += k;
  }
  r[7] = s;
  s = 0;
  for (k = -5; k < m; k += 4) s = s * 2 + k;
  r[8] = s;
  r[9] = m < 0 ? 0 : 7; /* range(0, -m) runs when m < 0 */
  r[10] = m < 5 ? 1 : m < 10 ? 2 : m == 12 ? c : 3;
}

int main(int argc, char **argv) {
  h_begin("control", argc, argv);
  const int64_t n = 300;
  int32_t *a = h_alloc(n, 4), *flags = h_alloc(n, 4), *out = h_alloc(n, 4);
  int32_t *wflags = h_alloc(n, 4), *wout = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (int32_t)(i % 140) - 20; /* -20 .. 119: crosses 0, 3, 5 and 100 */
    int32_t x = a[i];
    flags[i] = 0;
    wflags[i] = (x > 0 ? 10 : 1) + (x != 3 && x >= 5 ? 100 : 0) + (x > 100 ? 1000 * (x - 100) : 0);
    wout[i] = 1 + (x > 0 ? 2 : 0) + (x != 3 ? 4 : 0);
  }
  h_poison_i32(out, n);
  kc_array *da = h_array1(KC_INT32, n, a), *df = h_array1(KC_INT32, n, flags),
           *dout = h_array1(KC_INT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(df), kc_arg_array(dout)};
  h_launch(h_kernel("short_circuit"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out);
  h_fetch(df, flags);
  h_check_i32("short_circuit result", wout, out, n);
  h_check_i32("short_circuit calls of the right operand", wflags, flags, n);
  kc_array_free(da), kc_array_free(df), kc_array_free(dout);

  const int64_t nm = 40;
  int32_t *m = h_alloc(nm, 4);
  int64_t *lo = h_alloc(nm * NL, 8), *wlo = h_alloc(nm * NL, 8);
  for (int64_t i = 0; i < nm; i++) {
    m[i] = (int32_t)i - 3; /* includes negative and zero trip counts */
    loops_ref(m[i], &wlo[i * NL]);
  }
  h_poison_i64(lo, nm * NL);
  int64_t shape[2] = {nm, NL};
  kc_array *dm = h_array1(KC_INT32, nm, m), *dlo = h_array(KC_INT64, 2, shape, lo);
  kc_arg largs[] = {kc_arg_array(dm), kc_arg_array(dlo)};
  h_launch(h_kernel("loops"), kc_dim(2), kc_dim(32), largs, 2);
  h_fetch(dlo, lo);
  int64_t cw[40], cg[40];
  char what[32];
  for (int c = 0; c < NL; c++) {
    for (int64_t i = 0; i < nm; i++) cw[i] = wlo[i * NL + c], cg[i] = lo[i * NL + c];
    snprintf(what, sizeof what, "loops column %d", c);
    h_check_i64(what, cw, cg, nm);
  }
  kc_array_free(dm), kc_array_free(dlo);
  free(a), free(flags), free(out), free(wflags), free(wout), free(m), free(lo), free(wlo);
  return h_end();
}

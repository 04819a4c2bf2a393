/* arith_int.c — Python integer semantics on int32: // and % with negative operands
 * (sign of the divisor), shifts, bitwise ops, **, chained comparisons, abs/min/max,
 * int / int giving float64, and // and % by zero giving 0.
 * tolerance: exact (integers; the float64 quotient is one IEEE division) */
#include "harness.h"

#define NOPS 28

static int64_t imin(int64_t a, int64_t b) { return a < b ? a : b; }
static int64_t imax(int64_t a, int64_t b) { return a > b ? a : b; }

static void reference(int64_t x, int64_t y, int64_t *r) {
  r[0] = py_floordiv_i64(x, y);
  r[1] = py_mod_i64(x, y);
  r[2] = py_floordiv_i64(x, 4);
  r[3] = py_mod_i64(x, 7);
  r[4] = py_floordiv_i64(x, -4);
  r[5] = py_mod_i64(x, -7);
  r[6] = x * 8;
  r[7] = x >= 0 ? x / 4 : -((-x + 3) / 4); /* arithmetic shift = floor division */
  r[8] = py_floordiv_i64(x, (int64_t)1 << (y & 15));
  r[9] = x & y;
  r[10] = x | y;
  r[11] = x ^ y;
  r[12] = -x - 1;
  r[13] = -x;
  r[14] = x * x;
  r[15] = y * y * y;
  r[16] = (int64_t)1 << (y & 7);
  r[17] = 0 < x && x < 10;
  r[18] = x < y && y <= 5;
  r[19] = -3 <= x && x != y && y < 4;
  r[20] = x * y + 7 - x;
  r[21] = x < 0 ? -x : x;
  r[22] = imin(imin(x, y), 3);
  r[23] = imax(imax(x, y), -3);
  r[24] = (x == y) + (!(x > y)) * 2;
  r[25] = py_floordiv_i64((x + y) * (x - y), (y < 0 ? -y : y) + 1);
  r[26] = 0; /* x // 0 */
  r[27] = 0; /* x % 0 */
}

int main(int argc, char **argv) {
  h_begin("arith_int", argc, argv);
  const int64_t n = 1111;
  int32_t *a = h_alloc(n, 4), *b = h_alloc(n, 4);
  int64_t *out = h_alloc(n * NOPS, 8), *want = h_alloc(n * NOPS, 8);
  double *q = h_alloc(n, 8), *wq = h_alloc(n, 8);
  for (int64_t i = 0; i < n; i++) {
    a[i] = (int32_t)((i * 37) % 201) - 100;
    b[i] = (int32_t)((i * 13) % 19) - 9;
    if (b[i] == 0) b[i] = (int32_t)(i % 2 ? 5 : -5);
    reference(a[i], b[i], &want[i * NOPS]);
    wq[i] = (double)a[i] / (double)b[i];
  }
  h_poison_i64(out, n * NOPS);
  h_poison_f64(q, n);
  int64_t shape[2] = {n, NOPS};
  kc_array *da = h_array1(KC_INT32, n, a), *db = h_array1(KC_INT32, n, b),
           *dout = h_array(KC_INT64, 2, shape, out), *dq = h_array1(KC_FLOAT64, n, q);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout), kc_arg_array(dq)};
  h_launch(h_kernel("int_ops"), kc_dim(h_blocks(n, 128)), kc_dim(128), args, 4);
  h_fetch(dout, out);
  h_fetch(dq, q);
  /* check column by column, so a failure names the operation */
  int64_t *col_w = h_alloc(n, 8), *col_g = h_alloc(n, 8);
  for (int c = 0; c < NOPS; c++) {
    for (int64_t i = 0; i < n; i++) {
      col_w[i] = want[i * NOPS + c];
      col_g[i] = out[i * NOPS + c];
    }
    char what[32];
    snprintf(what, sizeof what, "column %d", c);
    h_check_i64(what, col_w, col_g, n);
  }
  h_check_f64("x / y (float64)", wq, q, n, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dout), kc_array_free(dq);
  free(a), free(b), free(out), free(want), free(q), free(wq), free(col_w), free(col_g);
  return h_end();
}

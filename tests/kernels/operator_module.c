/* operator_module.c — operator.add ... in kernels (operator_module.k); expected values
 * computed here in C with Python's rules: // floors, % takes the divisor's sign, ** of
 * floats is pow, ~x is -x - 1, comparisons are 0 or 1.
 * tolerance: exact (the float64 operations are C's own, one rounding each) */
#include <math.h>

#include "harness.h"

enum { N = 64, F = 11 };

static double py_floordiv(double x, double y) { return floor(x / y); }
static double py_fmod(double x, double y) {
  double r = fmod(x, y);
  return r != 0 && (r < 0) != (y < 0) ? r + y : r;
}
static int64_t py_idiv(int64_t x, int64_t y) {
  int64_t q = x / y;
  return (x % y != 0 && ((x < 0) != (y < 0))) ? q - 1 : q;
}
static int64_t py_imod(int64_t x, int64_t y) { return x - py_idiv(x, y) * y; }

/* kernel(a, b, out) on two N-element arrays of dtype t, out N x F: out fetched */
static void run(const char *kernel, kc_dtype t, const void *a, const void *b, void *out) {
  int64_t shape[2] = {N, F};
  kc_array *da = h_array1(t, N, a), *db = h_array1(t, N, b), *dout = h_array(t, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
  h_launch(h_kernel(kernel), kc_dim(2), kc_dim(32), args, 3);
  h_fetch(dout, out);
  kc_array_free(da), kc_array_free(db), kc_array_free(dout);
}

static void floats(void) {
  double a[N], b[N], out[N * F], want[N * F];
  for (int i = 0; i < N; i++) {
    a[i] = (i - 20) * 0.75;
    b[i] = (i % 7 - 3) * 1.25 + (i % 7 == 3 ? 0.5 : 0);
  }
  for (int i = 0; i < N; i++) {
    double x = a[i], y = b[i], *w = want + i * F;
    w[0] = x + y;
    w[1] = x * y - x / y;
    w[2] = py_floordiv(x, y);
    w[3] = py_fmod(x, y);
    w[4] = pow(x, 2.0);
    w[5] = -x + y;
    w[6] = x < y;
    w[7] = (x + 1.5) + (x - y) * 2.0 + x * 0.5;
    w[8] = a[0] + b[i];
    w[9] = x / y + py_floordiv(x, 2.5) + py_fmod(x, 4.0);
    w[10] = pow(y, 2.0) + (x + 0.25);
  }
  h_poison_f64(out, N * F);
  run("floats", KC_FLOAT64, a, b, out);
  h_check_f64("operator.* on float64", want, out, N * F, 0, 0);
}

static void ints(void) {
  int64_t a[N], b[N], out[N * F], want[N * F];
  for (int i = 0; i < N; i++) {
    a[i] = i * 37 % 101 - 50;
    b[i] = (i % 5 == 0) ? 3 : i % 9 - 4 + (i % 9 == 4);
  }
  for (int i = 0; i < N; i++) {
    int64_t x = a[i], y = b[i], *w = want + i * F;
    w[0] = py_idiv(x, y);
    w[1] = py_imod(x, y);
    w[2] = (x & y) + (x | 3) * 10;
    w[3] = x ^ y;
    w[4] = ((x & 7) << 2) + (y >> 1);
    w[5] = (-x - 1) * 3 + (-y - 1);
    w[6] = (x == y) + (x != 0) * 2 + (x >= y) * 4 + (x > y) * 8 + (x <= y) * 16;
    w[7] = x == 0;
    w[8] = (y == 1 || y == 2 || y == 3) + 2 * (y != x && y != -4) + 4 * (x == y || x == -50);
    w[9] = (x & 12) + (y | 1) * 100 + (x ^ 5) * 1000;
    w[10] = ((y & 3) << 3) + (x >> 2) * 100 + (-y) * 10000;
  }
  h_poison_i64(out, N * F);
  run("ints", KC_INT64, a, b, out);
  h_check_i64("operator.* on int64", want, out, N * F);
}

int main(int argc, char **argv) {
  h_begin("operator_module", argc, argv);
  floats();
  ints();
  return h_end();
}

/* module_math_consts.c — the elementary functions evaluated at module level. Expected
 * values are NumPy 1.24's and CPython 3.11's for the same expressions (printed with
 * repr by /usr/bin/python3; see the .k for each).
 * tolerance: 1e-15 relative and absolute (NumPy's own loops may differ from glibc's in
 * the last bit); float32 exact (one correctly rounded sqrt); the rest exact */
#include "harness.h"

enum { ND = 19, NF = 5 };

int main(int argc, char **argv) {
  h_begin("module_math_consts", argc, argv);
  const double wd[ND] = {
      1.4142135623730951, 0.3989422804014327, 0.6065306597126334,   /* SQRT2 ... E1 */
      1.0, 0.7071067811865477, 6.123233995736766e-17, -0.7071067811865475, -1.0,
      -0.7071067811865477, -1.8369701987210297e-16, 0.7071067811865474,   /* W */
      0.01831563888873418, 0.3678794411714424, 1.0, 0.3678794411714424,
      0.01831563888873418,                                                 /* G */
      0.0, 0.46364760900080615, 0.7853981633974483};                       /* A2 */
  const float wf[NF] = {1.4142135381698608f, 0.0f, 1.0f, 1.4142135381698608f,
                        1.7320507764816284f};
  const double wc[2] = {-0.4999999999999998, 0.8660254037844387};
  const int64_t wn[1] = {-3};
  double d[ND], c[2];
  float f[NF];
  int64_t n[1];
  h_poison_f64(d, ND);
  h_poison_f32(f, NF);
  h_poison_f64(c, 2);
  h_poison_i64(n, 1);
  kc_array *dd = h_array1(KC_FLOAT64, ND, d), *df = h_array1(KC_FLOAT32, NF, f),
           *dc = h_array1(KC_COMPLEX128, 1, c), *dn = h_array1(KC_INT64, 1, n);
  kc_arg args[] = {kc_arg_array(dd), kc_arg_array(df), kc_arg_array(dc), kc_arg_array(dn)};
  h_launch(h_kernel("tables"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(dd, d), h_fetch(df, f), h_fetch(dc, c), h_fetch(dn, n);
  h_check_f64("math/numpy scalars and tables (see the .k)", wd, d, ND, 1e-15, 1e-15);
  h_check_f32("np.sqrt of float32 scalars and tables", wf, f, NF, 0, 0);
  h_check_f64("cmath.exp(2j * pi / 3)", wc, c, 2, 1e-15, 1e-15);
  h_check_i64("math.floor(-2.5)", wn, n, 1);
  kc_array_free(dd), kc_array_free(df), kc_array_free(dc), kc_array_free(dn);
  return h_end();
}

/* numpy_arrays.c — numpy_arrays.k against the arrays NumPy makes, written out here:
 * np.arange(10, 0, -3) is [10, 7, 4, 1], np.linspace(0, 1, 5) [0, .25, .5, .75, 1],
 * np.linspace(0, 1, 4, endpoint=False) [0, .25, .5, .75], np.eye(2, 3, 1) has ones at
 * (0, 1) and (1, 2), np.arange(0.5, 2.0, 0.25) has 6 elements. */
#include "harness.h"

#define ROWS 15

int main(int argc, char **argv) {
  h_begin("numpy_arrays", argc, argv);
  double out[ROWS], want[ROWS] = {
    1.0 + 25 + 300,
    6 * 10 + 1 + 200 + 3000,
    6 * 10 + 3 + 200,
    3.0,
    10 + 500,
    0.5 + 1.75 + 600,
    10 + 700 + 10000 + 4000000,
    0.25 + 10 + 500,
    0.25 + 7.5 + 400,
    0 + 6,
    10 + 7 + 400,
    1 + 0 + 100 + 1000 + 0,
    3.0 + 30 + 300,
    1 - 5 + 300 + 3000,
    1 + 20 - 100,   /* 1j * 1j = -1 */
  };
  h_poison_f64(out, ROWS);
  kc_array *d = h_array1(KC_FLOAT64, ROWS, out);
  kc_arg a[] = {kc_arg_array(d)};
  h_launch(h_kernel("arrays"), kc_dim(1), kc_dim(32), a, 1);
  h_fetch(d, out);
  static const char *what[ROWS] = {
    "np.array float32", "2-D np.array, shape", "3-D np.array int16, len", "np.array([1.0, 2])",
    "np.arange(5) in a device function, size", "np.arange of floats, dtype float32",
    "np.arange(10, 0, -3)", "np.linspace(0, 1, 5)", "np.linspace(endpoint=False) float32",
    "np.zeros((2, 3))", "np.ones, np.full", "np.eye", "cuda.const.array_like(COEF), COEF[-1]",
    "cuda.const.array_like of complex64", "cuda.const.array_like((1j, 2.0))"};
  for (int k = 0; k < ROWS; k++) h_check_f64(what[k], want + k, out + k, 1, 0, 0);
  kc_array_free(d);
  return h_end();
}

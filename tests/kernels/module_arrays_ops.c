/* module_arrays_ops.c — the module arrays of module_arrays_ops.k against C, each
 * written out as NumPy 1.24 computes it (its dtype rules in the .k's comments: a value
 * that would wrap or overflow in the narrower dtype shows the rule was kept).
 * tolerance: exact (float32 values are the correctly rounded results, as NumPy's). */
#include "harness.h"

enum { NF = 39, NI = 40 };

int main(int argc, char **argv) {
  h_begin("module_arrays_ops", argc, argv);
  double out[NF], want[NF];
  int64_t iout[NI], iwant[NI];
  for (int k = 0; k < 10; k++) want[k] = k / 2.0;
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < 4; j++) {
      int64_t t = i * 4 + j;
      want[10 + t] = (double)((float)t * 2.0f + 1.0f);
      iwant[t] = t * t - 1;
      iwant[12 + j * 3 + i] = -t;   /* NEG = -T.T: NEG[j, i] = -T[i, j] */
    }
  for (int k = 0; k < 5; k++) {
    want[22 + k] = (double)(float)(k * 0.25);
    want[27 + k] = k / 2.0;
  }
  for (int k = 0; k < 3; k++) {
    want[32 + k] = (double)((float)k * 0.1f);
    iwant[24 + k] = (int64_t)k << 31;
    iwant[27 + k] = k + 1;
  }
  for (int k = 0; k < 4; k++) iwant[30 + k] = 300 + k;
  want[35] = 70000.0;
  want[36] = (double)(float)(4.0 / 9), want[37] = (double)(float)(1.0 / 9);
  want[38] = (double)(float)(1.0 / 36);   /* [4/9] + [1/9]*4 + [1/36]*4 as float32 */
  iwant[34] = 34;              /* CONST2D[3, 4] = 3 * 10 + 4 */
  iwant[35] = 4;               /* np.dtype(np.int32).itemsize */
  iwant[36] = 3 * 100 + 4 * 10 + 2;
  iwant[37] = 5;
  iwant[38] = 3;
  iwant[39] = 6;
  h_poison_f64(out, NF);
  h_poison_i64(iout, NI);
  kc_array *d = h_array1(KC_FLOAT64, NF, out), *di = h_array1(KC_INT64, NI, iout);
  kc_arg args[] = {kc_arg_array(d), kc_arg_array(di)};
  h_launch(h_kernel("module_arrays_ops"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(d, out);
  h_fetch(di, iout);
  h_check_f64("float values", want, out, NF, 0, 0);
  h_check_i64("integer values", iwant, iout, NI);
  kc_array_free(d), kc_array_free(di);
  return h_end();
}

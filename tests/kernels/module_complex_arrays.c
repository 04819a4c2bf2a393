/* module_complex_arrays.c — module arrays of complex numbers read in a kernel.
 * Expected values are NumPy 1.24's for the same module-level expressions (printed with
 * repr by /usr/bin/python3; see the .k).
 * tolerance: 1e-15 relative and absolute for complex128 (NumPy's exp may differ from
 * glibc's cexp in the last bit), 1e-7 for complex64, the rest exact */
#include "harness.h"

enum { NZ = 12, NZ64 = 5, NR = 5 };

int main(int argc, char **argv) {
  h_begin("module_complex_arrays", argc, argv);
  const double wz[2 * NZ] = {
      1.0, 0.0, 0.7071067811865476, -0.7071067811865475, 6.123233995736766e-17, -1.0,
      -0.7071067811865475, -0.7071067811865476, -1.0, -1.2246467991473532e-16,
      -0.7071067811865477, 0.7071067811865475, -1.8369701987210297e-16, 1.0,
      0.7071067811865474, 0.7071067811865477,                          /* W */
      1.0, 2.0, 3.0, -4.0,                                              /* C */
      2.0, 3.0, 6.0, -9.0};                                             /* P = C * 2 - 1j */
  const float wz64[2 * NZ64] = {1.5f, 0.0f, -2.0f, 0.5f,                /* C64 */
                                1.0f, 0.0f, 0.5403022766113281f, 0.8414709568023682f,
                                -0.416146844625473f, 0.9092974066734314f};   /* H */
  const double wr[NR] = {2.23606797749979, 5.0, 0.7071067811865476, -0.7071067811865475, 8.0};
  double z[2 * NZ], r[NR];
  float z64[2 * NZ64];
  h_poison_f64(z, 2 * NZ);
  h_poison_f32(z64, 2 * NZ64);
  h_poison_f64(r, NR);
  kc_array *dz = h_array1(KC_COMPLEX128, NZ, z), *dz64 = h_array1(KC_COMPLEX64, NZ64, z64),
           *dr = h_array1(KC_FLOAT64, NR, r);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dz64), kc_arg_array(dr)};
  h_launch(h_kernel("tables"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dz, z), h_fetch(dz64, z64), h_fetch(dr, r);
  h_check_f64("W, C, P (complex128 module arrays; re, im pairs)", wz, z, 2 * NZ, 1e-15, 1e-15);
  h_check_f32("C64, H (complex64 module arrays)", wz64, z64, 2 * NZ64, 1e-7, 1e-7);
  h_check_f64("np.abs(C), W[1].real, W[1].imag, len(W)", wr, r, NR, 1e-15, 0);
  kc_array_free(dz), kc_array_free(dz64), kc_array_free(dr);
  return h_end();
}

/* star_args.c — star_args.k against C: out = 321 + hypot(3, 4) + 210.5 = 536.5, and
 * z = rect(polar(z)), z again within rounding (libm's cabs/carg/cos/sin in C).
 * tolerance: out exact; z within 4e-16 relative (two roundings of each part). */
#include <complex.h>

#include "harness.h"

enum { N = 40 };

int main(int argc, char **argv) {
  h_begin("star_args", argc, argv);
  double z[N * 2], wz[N * 2], out[N], want[N];
  for (int i = 0; i < N; i++) {
    z[2 * i] = i - 20.5, z[2 * i + 1] = 0.25 * i + 1;
    double complex c = z[2 * i] + z[2 * i + 1] * I;
    double r = cabs(c), phi = carg(c);
    wz[2 * i] = r * cos(phi), wz[2 * i + 1] = r * sin(phi);
    want[i] = 536.5;
  }
  h_poison_f64(out, N);
  kc_array *dz = h_array1(KC_COMPLEX128, N, z), *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dout)};
  h_launch(h_kernel("star_args"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, 2);
  h_fetch(dz, z), h_fetch(dout, out);
  h_check_f64("f(*t)", want, out, N, 0, 0);
  h_check_f64("cmath.rect(*cmath.polar(z))", wz, z, N * 2, 4e-16, 1e-15);
  kc_array_free(dz), kc_array_free(dout);
  return h_end();
}

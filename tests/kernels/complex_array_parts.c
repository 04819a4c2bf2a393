/* complex_array_parts.c — .real and .imag of complex arrays as views: reading, writing
 * one part of an element (the other part must stay), a strided slice of a part,
 * .size/.shape, a part passed to a device function that writes it; scalars' .real,
 * .imag and .conjugate(). All exact. */
#include "harness.h"

static void check_parts(void) {
  enum { N = 37 };
  double z[2 * N], re[N], im[N], sizes[2], wre[N], wim[N];
  for (int i = 0; i < N; i++) {
    z[2 * i] = i * 1.5 - 7, z[2 * i + 1] = -0.25 * i;
    wre[i] = z[2 * i], wim[i] = z[2 * i + 1];
  }
  h_poison_f64(re, N), h_poison_f64(im, N), h_poison_f64(sizes, 2);
  kc_array *dz = h_array1(KC_COMPLEX128, N, z), *dre = h_array1(KC_FLOAT64, N, re);
  kc_array *dim = h_array1(KC_FLOAT64, N, im), *ds = h_array1(KC_FLOAT64, 2, sizes);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dre), kc_arg_array(dim), kc_arg_array(ds)};
  h_launch(h_kernel("parts"), kc_dim(2), kc_dim(32), args, 4);
  h_fetch(dre, re), h_fetch(dim, im), h_fetch(ds, sizes);
  h_check_f64("z.real[i]", wre, re, N, 0, 0);
  h_check_f64("z.imag[i]", wim, im, N, 0, 0);
  double ws[2] = {N + N * 1000.0, z[4]};   /* z.real[::2][1] is z[2].real */
  h_check_f64("z.real.size, z.imag.shape, z.real[::2][1]", ws, sizes, 2, 0, 0);
  kc_array_free(dz), kc_array_free(dre), kc_array_free(dim), kc_array_free(ds);
}

static void check_writes(void) {
  enum { R = 20, C = 3 };
  float z[2 * R * C], want[2 * R * C], w[2 * R], ww[2 * R], out[2 * R], wout[2 * R];
  for (int k = 0; k < 2 * R * C; k++) z[k] = want[k] = (float)(k % 11) - 4.5f;
  for (int i = 0; i < R; i++) {
    float *row = want + 2 * C * i;
    row[2 * 1] = (float)i;            /* z.real[i, 1] = i: the imaginary part stays */
    row[1] = -row[1];                 /* z.imag[i, 0] negated: the real part stays */
    w[2 * i] = ww[2 * i] = 0.5f * i, w[2 * i + 1] = 2.0f - i;
    ww[2 * i + 1] = w[2 * i + 1] * 3;  /* scale_all(w.imag, 3) */
    /* complex(v.imag, v.real) + v.conjugate() for v = w's values */
    wout[2 * i] = w[2 * i + 1] + w[2 * i], wout[2 * i + 1] = w[2 * i] - w[2 * i + 1];
  }
  h_poison_f32(out, 2 * R);
  int64_t shape[2] = {R, C};
  kc_array *dz = h_array(KC_COMPLEX64, 2, shape, z), *dw = h_array1(KC_COMPLEX64, R, w);
  kc_array *dv = h_array1(KC_COMPLEX64, R, w), *dout = h_array1(KC_COMPLEX64, R, out);
  kc_arg args[] = {kc_arg_array(dz), kc_arg_array(dv), kc_arg_array(dw), kc_arg_array(dout)};
  h_launch(h_kernel("write_parts"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(dz, z), h_fetch(dw, w), h_fetch(dout, out);
  h_check_f32("z.real[i, 1] =, z.imag[i, 0] =", want, z, 2 * R * C, 0, 0);
  h_check_f32("a device function writing w.imag", ww, w, 2 * R, 0, 0);
  h_check_f32("scalar .real, .imag, .conjugate()", wout, out, 2 * R, 0, 0);
  kc_array_free(dz), kc_array_free(dv), kc_array_free(dw), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("complex_array_parts", argc, argv);
  check_parts();
  check_writes();
  return h_end();
}

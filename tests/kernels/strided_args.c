/* strided_args.c — non-contiguous views from C (kc_array_slice) passed to 'A' kernel
 * parameters. The expected values index the base arrays in C by the slice's own rule
 * (element k of start:stop:step is start + k * step, CPython's slice semantics); a
 * float32[:] kernel takes the same views as Numba does (compiled again for them). */
#include "harness.h"

static void check_scale(void) {
  enum { N = 20 };
  float x[N], out[N], wout[N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 3.0f;
  for (int i = 0; i < N; i++) out[i] = wout[i] = -1.0f;   /* elements the views skip */
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dout = h_array1(KC_FLOAT32, N, out), *vx, *vo;
  /* x[1:17:3] (6 elements, strides 12 bytes) into out[::-2][:6] (out[19], out[17], ...) */
  int64_t s1[1] = {1}, e1[1] = {17}, p1[1] = {3}, p2[1] = {-2};
  h_ok(kc_array_slice(dx, s1, e1, p1, &vx), "slice x");
  int64_t none[1] = {KC_SLICE_NONE}, e2[1] = {19 - 2 * 6};   /* 19 down to 9: 6 elements */
  h_ok(kc_array_slice(dout, none, e2, p2, &vo), "slice out");
  if (kc_array_shape(vx)[0] != 6 || kc_array_shape(vo)[0] != 6 || kc_array_is_contiguous(vx) ||
      kc_array_strides(vx)[0] != 3 || kc_array_strides(vo)[0] != -2)
    h_die("kc_array_slice: shapes %lld %lld, strides %lld %lld", (long long)kc_array_shape(vx)[0],
          (long long)kc_array_shape(vo)[0], (long long)kc_array_strides(vx)[0],
          (long long)kc_array_strides(vo)[0]);
  for (int k = 0; k < 6; k++) wout[19 - 2 * k] = x[1 + 3 * k] * 2 + 12;
  kc_arg args[] = {kc_arg_array(vx), kc_arg_array(vo)};
  h_launch(h_kernel("scale"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f32("'A' parameters through kc_array_slice views", wout, out, N, 0, 0);
  /* the same views through a float32[:] kernel: Numba reads float32[:] as any layout,
     and so does kcc here, compiling the kernel again for 'A' arrays at this launch */
  for (int k = 0; k < 6; k++) wout[19 - 2 * k] = x[1 + 3 * k];
  h_launch(h_kernel("contiguous_only"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f32("float32[:] parameters given kc_array_slice views", wout, out, N, 0, 0);
  /* copies of a strided view are refused too */
  if (kc_array_to_host(vx, x, 6 * 4) != KC_ERR_INVALID) h_die("copied a strided view");
  kc_array_free(vx), kc_array_free(vo), kc_array_free(dx), kc_array_free(dout);
}

static void check_transposed_2d(void) {
  enum { R = 6, C = 4 };
  double m[R * C], out[R * C], wout[R * C];
  for (int i = 0; i < R * C; i++) m[i] = i * 1.5, out[i] = wout[i] = 100 - i;
  int64_t shape[2] = {R, C};
  kc_array *dm = h_array(KC_FLOAT64, 2, shape, m), *dout = h_array(KC_FLOAT64, 2, shape, out);
  kc_array *vm, *vo;
  /* m[::2, ::-1] (3 x 4) added into out[1::2, :] (3 x 4) */
  int64_t st1[2] = {KC_SLICE_NONE, KC_SLICE_NONE}, p1[2] = {2, -1};
  int64_t st2[2] = {1, KC_SLICE_NONE}, p2[2] = {2, 1};
  h_ok(kc_array_slice(dm, st1, NULL, p1, &vm), "slice m");
  h_ok(kc_array_slice(dout, st2, NULL, p2, &vo), "slice out");
  for (int i = 0; i < 3; i++)
    for (int j = 0; j < C; j++) wout[(1 + 2 * i) * C + j] += m[(2 * i) * C + (C - 1 - j)];
  kc_arg args[] = {kc_arg_array(vm), kc_arg_array(vo)};
  h_launch(h_kernel("add_t"), kc_dim2(1, 1), kc_dim2(8, 8), args, 2);
  h_fetch(dout, out);
  h_check_f64("types.Array(float64, 2, 'A') parameters", wout, out, R * C, 0, 0);
  kc_array_free(vm), kc_array_free(vo), kc_array_free(dm), kc_array_free(dout);
}

static void check_fortran(void) {
  enum { R = 5, C = 7 };
  double m[R * C], out[R * C], want[R * C];
  for (int k = 0; k < R * C; k++) m[k] = k * 0.5 - 3, want[k] = 2 * m[k];
  h_poison_f64(out, R * C);
  int64_t s2[2] = {R, C};
  kc_array *dm = h_array(KC_FLOAT64, 2, s2, m), *dout = h_array(KC_FLOAT64, 2, s2, out);
  kc_arg args[] = {kc_arg_array(dm), kc_arg_array(dout)};
  h_launch(h_kernel("fortran_in"), kc_dim2(1, 1), kc_dim2(8, 8), args, 2);
  h_fetch(dout, out);
  h_check_f64("Fortran-ordered parameters read as 'A'", want, out, R * C, 0, 0);
  kc_array_free(dm), kc_array_free(dout);
}

static void check_untyped(void) {
  enum { N = 15 };
  double v[N], out[1], want = 0;
  for (int i = 0; i < N; i++) v[i] = i * i - 7;
  for (int i = N - 1; i >= 0; i -= 4) want += v[i];
  kc_array *dv = h_array1(KC_FLOAT64, N, v), *dout = h_array1(KC_FLOAT64, 1, out), *vv;
  int64_t p[1] = {-4};
  h_ok(kc_array_slice(dv, NULL, NULL, p, &vv), "slice v");
  kc_arg args[] = {kc_arg_array(vv), kc_arg_array(dout)};
  h_launch(h_kernel("untyped_sum"), kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("untyped kernel specialised for a strided view", &want, out, 1, 0, 0);
  kc_arg args2[] = {kc_arg_array(dv), kc_arg_array(dout)};   /* and for a contiguous one */
  h_launch(h_kernel("untyped_sum"), kc_dim(1), kc_dim(32), args2, 2);
  h_fetch(dout, out);
  double all = 0;
  for (int i = 0; i < N; i++) all += v[i];
  h_check_f64("the same kernel with a contiguous array", &all, out, 1, 0, 0);
  kc_array_free(vv), kc_array_free(dv), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("strided_args", argc, argv);
  check_scale();
  check_transposed_2d();
  check_fortran();
  check_untyped();
  return h_end();
}

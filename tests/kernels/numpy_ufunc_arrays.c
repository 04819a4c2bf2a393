/* numpy_ufunc_arrays.c — NumPy ufuncs on arrays in kernels (numpy_ufunc_arrays.k)
 * against references computed here with the C library, following NumPy's rules: the
 * inputs broadcast onto the output (a number everywhere, a size-1 axis repeated, a
 * missing leading axis repeated), the loop picked from the input dtypes (int32 into
 * np.sin takes the float64 loop; np.add of int32 the int32 loop), its result then cast
 * to the output's dtype, and an output that is an input updated element by element.
 * Extents that do not broadcast store nothing (NumPy raises; kcc without bounds checks
 * leaves the output as it was). */
#include "harness.h"

#define R 6
#define C 5
#define P 8

static double xval(int i, int j) { return 0.125 + 0.37 * i + 0.11 * j; }

static void rows_case(void) {
  double x[R * C], out[7 * R * C], want[7 * R * C];
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) x[i * C + j] = xval(i, j);
  h_poison_f64(out, 7 * R * C);
  for (int n = 0; n < R * C; n++) {
    double v = x[n];
    want[0 * R * C + n] = sin(v);
    want[1 * R * C + n] = v + 1.5;
    want[2 * R * C + n] = atan2(v, 2.0);
    want[3 * R * C + n] = cos(v);
    want[4 * R * C + n] = sqrt(v);
    want[5 * R * C + n] = -sqrt(v);
    want[6 * R * C + n] = v >= 0.25 ? v : 0.25;
  }
  int64_t sx[] = {R, C}, so[] = {7, R, C};
  kc_array *dx = h_array(KC_FLOAT64, 2, sx, x), *dout = h_array(KC_FLOAT64, 3, so, out);
  kc_arg a[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("rows"), kc_dim(1), kc_dim(R), a, 2);
  h_fetch(dout, out);
  h_check_f64("sin/add/arctan2/cos/sqrt/negative/maximum on rows", want, out, 7 * R * C, 1e-14, 0);
  kc_array_free(dx), kc_array_free(dout);
}

static void grid_case(void) {
  float a[R * C], row[C], col[R], out[4 * R * C], want[4 * R * C];
  for (int i = 0; i < R; i++) col[i] = 0.5f * (float)i - 1.0f;
  for (int j = 0; j < C; j++) row[j] = 1.0f + 0.25f * (float)j;
  for (int i = 0; i < R; i++)
    for (int j = 0; j < C; j++) {
      float v = (float)xval(i, j) * (i % 2 ? -1.0f : 1.0f) * 3.0f;
      int n = i * C + j;
      a[n] = v;
      want[n] = v * row[j];
      want[R * C + n] = v - col[i];
      want[2 * R * C + n] = hypotf(v, v);
      want[3 * R * C + n] = v <= 3.0f ? v : 3.0f;   /* fmin(3.0, a): the float64 loop */
    }
  h_poison_f32(out, 4 * R * C);
  int64_t sa[] = {R, C}, sc[] = {R, 1}, so[] = {4, R, C};
  kc_array *da = h_array(KC_FLOAT32, 2, sa, a), *drow = h_array1(KC_FLOAT32, C, row),
           *dcol = h_array(KC_FLOAT32, 2, sc, col), *dout = h_array(KC_FLOAT32, 3, so, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(drow), kc_arg_array(dcol), kc_arg_array(dout)};
  h_launch(h_kernel("grid2"), kc_dim(1), kc_dim(32), args, 4);
  h_fetch(dout, out);
  h_check_f32("multiply/subtract/hypot/fmin broadcast on 2-D", want, out, 4 * R * C, 1e-6, 0);
  kc_array_free(da), kc_array_free(drow), kc_array_free(dcol), kc_array_free(dout);
}

static void cast_case(void) {
  int32_t p[P], q[P];
  double f[P], o64[2 * P], w64[2 * P];
  float o32[3 * P], w32[3 * P];
  uint8_t ob[P], wb[P];
  for (int j = 0; j < P; j++) {
    p[j] = j * 7 - 20;
    q[j] = (j % 3 + 1) * (j % 2 ? -1 : 1) * 4;
    f[j] = 1.0 / 3.0 + j * 1e-9;
    w32[j] = (float)sin((double)p[j]);
    w32[P + j] = (float)(f[j] + f[j]);
    w64[j] = (double)(p[j] + q[j]);
    w64[P + j] = (double)p[j] / (double)q[j];
    wb[j] = p[j] > q[j];
    w32[2 * P + j] = (float)(p[j] * p[j]) + 0.5f;
  }
  h_poison_f32(o32, 3 * P), h_poison_f64(o64, 2 * P), h_poison_u8(ob, P);
  int64_t s32[] = {3, P}, s64[] = {2, P};
  kc_array *dp = h_array1(KC_INT32, P, p), *dq = h_array1(KC_INT32, P, q),
           *df = h_array1(KC_FLOAT64, P, f), *d32 = h_array(KC_FLOAT32, 2, s32, o32),
           *d64 = h_array(KC_FLOAT64, 2, s64, o64), *db = h_array1(KC_BOOL, P, ob);
  kc_arg a[] = {kc_arg_array(dp), kc_arg_array(dq), kc_arg_array(df),
                kc_arg_array(d32), kc_arg_array(d64), kc_arg_array(db)};
  h_launch(h_kernel("casts"), kc_dim(1), kc_dim(1), a, 6);
  h_fetch(d32, o32), h_fetch(d64, o64), h_fetch(db, ob);
  h_check_f32("int32 and float64 loops into float32", w32, o32, 3 * P, 1e-6, 0);
  h_check_f64("int32 loops into float64", w64, o64, 2 * P, 0, 0);
  h_check_u8("greater into bool", wb, ob, P);
  kc_array_free(dp), kc_array_free(dq), kc_array_free(df), kc_array_free(d32);
  kc_array_free(d64), kc_array_free(db);
}

static void inplace_case(void) {
  double a[P], wa[P], b[R * C], wb[R * C];
  for (int j = 0; j < P; j++) a[j] = 0.1 * j - 0.3, wa[j] = exp(a[j]);
  for (int n = 0; n < R * C; n++) b[n] = 0.5 * n - 4.0, wb[n] = b[n] * b[n] + 1.0;
  int64_t sb[] = {R, C};
  kc_array *da = h_array1(KC_FLOAT64, P, a), *db = h_array(KC_FLOAT64, 2, sb, b);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db)};
  h_launch(h_kernel("inplace"), kc_dim(1), kc_dim(1), args, 2);
  h_fetch(da, a), h_fetch(db, b);
  h_check_f64("exp(a, a)", wa, a, P, 1e-14, 0);
  h_check_f64("multiply(b, b, b) then add(b, 1.0, b)", wb, b, R * C, 0, 0);
  kc_array_free(da), kc_array_free(db);
}

static void mismatch_case(void) {
  double a[4] = {1, 2, 3, 4}, out[5] = {-1, -2, -3, -4, -5}, want[5] = {-1, -2, -3, -4, -5};
  kc_array *da = h_array1(KC_FLOAT64, 4, a), *dout = h_array1(KC_FLOAT64, 5, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("mismatch"), kc_dim(1), kc_dim(1), args, 2);
  h_fetch(dout, out);
  h_check_f64("add of 4 elements onto 5 stores nothing", want, out, 5, 0, 0);
  kc_array_free(da), kc_array_free(dout);
}

static void shared_case(void) {
  float a[R * C], out[R * C], want[R * C];
  for (int n = 0; n < R * C; n++) {
    a[n] = 0.5f * (float)n - 3.0f;
    out[n] = -1.0f;
    want[n] = n % C % 2 ? -1.0f : 2.0f * a[n] + a[n];   /* odd columns untouched */
  }
  int64_t sa[] = {R, C};
  kc_array *da = h_array(KC_FLOAT32, 2, sa, a), *dout = h_array(KC_FLOAT32, 2, sa, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("into_shared"), kc_dim(1), kc_dim(1), args, 2);
  h_fetch(dout, out);
  h_check_f32("multiply into shared, add on every other column", want, out, R * C, 0, 0);
  kc_array_free(da), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("numpy_ufunc_arrays", argc, argv);
  rows_case();
  grid_case();
  cast_case();
  inplace_case();
  mismatch_case();
  shared_case();
  return h_end();
}

/* signatures.c — kernels whose signatures are written in each of Numba's spellings
 * (signatures.k) run with the types they declare: the arithmetic each does is checked
 * against C; overloads of one kernel (a list of three signatures) are picked by the
 * arguments' dtypes. tolerance: exact except v_hyp (1 ulp of sqrt: 1e-6 / 1e-15). */
#include "harness.h"

enum { N = 37 };

static void check_f32_kernel(const char *name, int32_t n, float (*want_of)(float, int32_t)) {
  float x[N], want[N];
  for (int i = 0; i < N; i++) x[i] = (float)i * 0.5f - 3.0f, want[i] = want_of(x[i], n);
  kc_array *d = h_array1(KC_FLOAT32, N, x);
  kc_arg args[] = {kc_arg_array(d), kc_arg_i32(n)};
  h_launch(h_kernel(name), kc_dim(2), kc_dim(32), args, 2);
  h_fetch(d, x);
  h_check_f32(name, want, x, N, 0, 0);
  kc_array_free(d);
}
static float times(float x, int32_t n) { return x * (float)n; }
static float plus(float x, int32_t n) { return x + (float)n; }
static float minus(float x, int32_t n) { return x - (float)n; }

static void check_list_overloads(void) {
  kc_kernel *k = h_kernel("k_list");
  double x[N], want[N];
  int32_t xi[N], wanti[N];
  for (int i = 0; i < N; i++) {
    x[i] = i * 0.25, want[i] = x[i] - 5000000000.0;
    xi[i] = i * 3, wanti[i] = xi[i] - 7;
  }
  kc_array *d = h_array1(KC_FLOAT64, N, x), *di = h_array1(KC_INT32, N, xi);
  kc_arg a64[] = {kc_arg_array(d), kc_arg_i64(5000000000ll)};
  h_launch(k, kc_dim(1), kc_dim(64), a64, 2);
  kc_arg a32[] = {kc_arg_array(di), kc_arg_i32(7)};
  h_launch(k, kc_dim(1), kc_dim(64), a32, 2);
  h_fetch(d, x);
  h_fetch(di, xi);
  h_check_f64("k_list (float64[:], int64)", want, x, N, 0, 0);
  h_check_i32("k_list (int32[:], int32)", wanti, xi, N);
  kc_array_free(d), kc_array_free(di);
  check_f32_kernel("k_list", 9, minus);
}

static void check_paths(void) {
  int64_t shape[2] = {5, 7};
  double x[35], want[35];
  for (int i = 0; i < 35; i++) x[i] = i - 10.5, want[i] = x[i] * 3;
  kc_array *d = h_array(KC_FLOAT64, 2, shape, x);
  kc_arg args[] = {kc_arg_array(d), kc_arg_i64(3)};
  h_launch(h_kernel("k_paths"), kc_dim2(1, 1), kc_dim2(8, 8), args, 2);
  h_fetch(d, x);
  h_check_f64("k_paths", want, x, 35, 0, 0);
  kc_array_free(d);
}

static void check_array_type(void) {
  int64_t shape[2] = {2, N};
  float x[2 * N], want[2 * N];
  double y[N];
  for (int i = 0; i < 2 * N; i++) x[i] = want[i] = -1.0f;
  for (int i = 0; i < N; i++) y[i] = i / 3.0, want[i] = (float)y[i];
  kc_array *dx = h_array(KC_FLOAT32, 2, shape, x), *dy = h_array1(KC_FLOAT64, N, y);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy)};
  h_launch(h_kernel("k_array_type"), kc_dim(1), kc_dim(64), args, 2);
  h_fetch(dx, x);
  h_check_f32("k_array_type", want, x, 2 * N, 0, 0);
  kc_array_free(dx), kc_array_free(dy);
}

static void check_ufunc(void) {
  kc_kernel *k = h_kernel("v_hyp");
  float a[N], b[N], got[N], want[N];
  double a8[N], b8[N], got8[N], want8[N];
  for (int i = 0; i < N; i++) {
    a[i] = (float)i, b[i] = (float)(N - i) * 0.5f, want[i] = sqrtf(a[i] * a[i] + b[i] * b[i]);
    a8[i] = i * 1.5, b8[i] = 2.0 - i, want8[i] = sqrt(a8[i] * a8[i] + b8[i] * b8[i]);
  }
  kc_array *in[2] = {h_array1(KC_FLOAT32, N, a), h_array1(KC_FLOAT32, N, b)}, *out = NULL;
  h_ok(kc_vectorize(k, in, 2, &out), "kc_vectorize v_hyp float32");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out, got);
  h_check_f32("v_hyp float32(float32, float32)", want, got, N, 1e-6, 0);
  kc_array_free(out), kc_array_free(in[0]), kc_array_free(in[1]);
  kc_array *in8[2] = {h_array1(KC_FLOAT64, N, a8), h_array1(KC_FLOAT64, N, b8)};
  out = NULL;
  h_ok(kc_vectorize(k, in8, 2, &out), "kc_vectorize v_hyp float64");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out, got8);
  h_check_f64("v_hyp 'float64(float64, float64)'", want8, got8, N, 1e-15, 0);
  kc_array_free(out), kc_array_free(in8[0]), kc_array_free(in8[1]);
}

static void check_gufunc(void) {
  int64_t shape[2] = {3, 5};
  double a[15], got[15], want[15];
  for (int r = 0; r < 3; r++) {
    double s = 0;
    for (int c = 0; c < 5; c++) a[r * 5 + c] = r * 10 + c * 0.5, s += a[r * 5 + c], want[r * 5 + c] = s;
  }
  kc_array *in[1] = {h_array(KC_FLOAT64, 2, shape, a)}, *out[1] = {NULL};
  h_ok(kc_guvectorize(h_kernel("g_cumsum"), in, 1, out, 1), "kc_guvectorize g_cumsum");
  h_ok(kc_synchronize(H.ctx), "sync");
  h_fetch(out[0], got);
  h_check_f64("g_cumsum (float64[:], float64[:])", want, got, 15, 0, 0);
  kc_array_free(out[0]), kc_array_free(in[0]);
}

static void check_reduce(void) {
  double v[N], got = 0, want = -1e300;
  for (int i = 0; i < N; i++) v[i] = (double)((i * 17) % N) - 0.5, want = v[i] > want ? v[i] : want;
  kc_array *d = h_array1(KC_FLOAT64, N, v);
  h_ok(kc_reduce(h_kernel("r_max"), d, NULL, &got), "kc_reduce r_max");
  if (got != want) h_die("r_max: got %.17g want %.17g", got, want);
  kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("signatures", argc, argv);
  check_f32_kernel("k_void_call", 3, times);
  check_f32_kernel("k_tuple", -4, plus);
  check_list_overloads();
  check_paths();
  check_array_type();
  check_ufunc();
  check_gufunc();
  check_reduce();
  return h_end();
}

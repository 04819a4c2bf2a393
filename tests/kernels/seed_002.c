/* seed_002.c — seed 002's functions run as its notebook runs them, against C:
 * hypot and hypot_jit (through a test kernel; hypot(3, 4) is 5 exactly, as the
 * notebook's math.hypot), add_ufunc on int64, gaussian_pdf on x in [-3, 3) with mean 0
 * and sigma 1, polar_distance, add_kernel[30, 128] on x = arange(100000), y = 2 * x,
 * thread_counter_safe[64, 64] (the notebook's "Should be 4096"), the racy counter
 * (between 1 and 4096), transpose and tile_transpose[(2, 2), (32, 8)] on a 64x64
 * arange. tolerance: exact, except hypot 1e-15, gaussian_pdf 5e-5 relative and
 * polar_distance 2e-6 relative + 2e-6 absolute (float32 cos/sin/sqrt). */
#include "harness.h"

#define SQRT_2PI 2.5066282746310002

static double hyp_ref(double x, double y) {
  x = fabs(x), y = fabs(y);
  double t = x < y ? x : y;
  x = x > y ? x : y;
  t = t / x;
  return x * sqrt(1 + t * t);
}

static void check_hypot(void) {
  enum { N = 50 };
  double x[N], y[N], out[N], out_jit[N], want[N];
  for (int i = 0; i < N; i++) x[i] = i - 20.5, y[i] = (i % 7) * 1.25 + 0.5, want[i] = hyp_ref(x[i], y[i]);
  x[0] = 3, y[0] = 4, want[0] = 5;
  h_poison_f64(out, N), h_poison_f64(out_jit, N);
  kc_array *dx = h_array1(KC_FLOAT64, N, x), *dy = h_array1(KC_FLOAT64, N, y);
  kc_array *d1 = h_array1(KC_FLOAT64, N, out), *d2 = h_array1(KC_FLOAT64, N, out_jit);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(d1), kc_arg_array(d2)};
  h_launch(h_kernel("hypot_kernel"), kc_dim(1), kc_dim(64), args, 4);
  h_fetch(d1, out), h_fetch(d2, out_jit);
  h_check_f64("hypot", want, out, N, 1e-15, 0);
  h_check_f64("hypot_jit", want, out_jit, N, 1e-15, 0);
  kc_array_free(dx), kc_array_free(dy), kc_array_free(d1), kc_array_free(d2);
}

static kc_array *ufunc(const char *name, kc_array **in, int nin) {
  kc_array *out = NULL;
  h_ok(kc_vectorize(h_kernel(name), in, nin, &out), name);
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  return out;
}

static void check_add_ufunc(void) {
  enum { N = 16 };
  int64_t a[N], b[N], got[N], want[N];
  for (int i = 0; i < N; i++) a[i] = i, b[i] = 10 * i + 3000000000ll, want[i] = a[i] + b[i];
  kc_array *in[2] = {h_array1(KC_INT64, N, a), h_array1(KC_INT64, N, b)};
  kc_array *out = ufunc("add_ufunc", in, 2);
  h_fetch(out, got);
  h_check_i64("add_ufunc int64(int64, int64)", want, got, N);
  kc_array_free(out), kc_array_free(in[0]), kc_array_free(in[1]);
}

static void check_gaussian(void) {
  enum { N = 1000 };
  float x[N], mean[N], sigma[N], got[N], want[N];
  for (int i = 0; i < N; i++) {
    x[i] = -3.0f + 6.0f * (float)i / N, mean[i] = 0.0f, sigma[i] = 1.0f;
    double z = x[i];
    want[i] = (float)(exp(-0.5 * z * z) / SQRT_2PI);
  }
  kc_array *in[3] = {h_array1(KC_FLOAT32, N, x), h_array1(KC_FLOAT32, N, mean),
                     h_array1(KC_FLOAT32, N, sigma)};
  kc_array *out = ufunc("gaussian_pdf", in, 3);
  h_fetch(out, got);
  h_check_f32("gaussian_pdf(x, 0.0, 1.0)", want, got, N, 5e-5, 0);
  kc_array_free(out);
  for (int i = 0; i < 3; i++) kc_array_free(in[i]);
}

static void check_polar(void) {
  enum { N = 500 };
  float r1[N], t1[N], r2[N], t2[N], got[N], want[N];
  for (int i = 0; i < N; i++) {
    r1[i] = 0.5f + (float)i / N, t1[i] = -3.14159f + 6.28318f * (float)((i * 37) % N) / N;
    r2[i] = 1.5f - (float)i / N, t2[i] = -3.14159f + 6.28318f * (float)((i * 91) % N) / N;
    double dx = r1[i] * cos(t1[i]) - r2[i] * cos(t2[i]), dy = r1[i] * sin(t1[i]) - r2[i] * sin(t2[i]);
    want[i] = (float)sqrt(dx * dx + dy * dy);
  }
  kc_array *in[4] = {h_array1(KC_FLOAT32, N, r1), h_array1(KC_FLOAT32, N, t1),
                     h_array1(KC_FLOAT32, N, r2), h_array1(KC_FLOAT32, N, t2)};
  kc_array *out = ufunc("polar_distance", in, 4);
  h_fetch(out, got);
  h_check_f32("polar_distance", want, got, N, 2e-6, 2e-6);
  kc_array_free(out);
  for (int i = 0; i < 4; i++) kc_array_free(in[i]);
}

static void check_add_kernel(void) {
  const int64_t n = 100000;
  float *x = h_alloc(n, 4), *y = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (float)i, y[i] = 2 * x[i], want[i] = x[i] + y[i];
  h_poison_f32(out, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dy = h_array1(KC_FLOAT32, n, y);
  kc_array *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dy), kc_arg_array(dout)};
  h_launch(h_kernel("add_kernel"), kc_dim(30), kc_dim(128), args, 3);
  h_fetch(dout, out);
  h_check_f32("add_kernel[30, 128]", want, out, n, 0, 0);
  kc_array_free(dx), kc_array_free(dy), kc_array_free(dout);
  free(x), free(y), free(out), free(want);
}

static int32_t count(const char *name) {
  int32_t c = 0;
  kc_array *d = h_array1(KC_INT32, 1, &c);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel(name), kc_dim(64), kc_dim(64), args, 1);
  h_fetch(d, &c);
  kc_array_free(d);
  return c;
}

static void check_transpose(const char *name) {
  enum { S = 64 };
  int64_t shape[2] = {S, S};
  int32_t *a = h_alloc(S * S, 4), *got = h_alloc(S * S, 4), *want = h_alloc(S * S, 4);
  for (int i = 0; i < S * S; i++) a[i] = i;
  for (int r = 0; r < S; r++)
    for (int c = 0; c < S; c++) want[c * S + r] = a[r * S + c];
  h_poison_i32(got, S * S);
  kc_array *din = h_array(KC_INT32, 2, shape, a), *dout = h_array(KC_INT32, 2, shape, got);
  kc_arg args[] = {kc_arg_array(din), kc_arg_array(dout)};
  h_launch(h_kernel(name), kc_dim2(S / 32, S / 32), kc_dim2(32, 8), args, 2);
  h_fetch(dout, got);
  h_check_i32(name, want, got, S * S);
  kc_array_free(din), kc_array_free(dout);
  free(a), free(got), free(want);
}

int main(int argc, char **argv) {
  h_begin("seed_002", argc, argv);
  check_hypot();
  check_add_ufunc();
  check_gaussian();
  check_polar();
  check_add_kernel();
  int32_t safe = count("thread_counter_safe"), racy = count("thread_counter_race_condition");
  if (safe != 64 * 64) h_die("thread_counter_safe[64, 64]: %d, should be 4096", safe);
  if (racy < 1 || racy > 64 * 64) h_die("thread_counter_race_condition[64, 64]: %d", racy);
  check_transpose("transpose");
  check_transpose("tile_transpose");
  return h_end();
}

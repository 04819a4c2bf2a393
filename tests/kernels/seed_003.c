/* seed_003.c — seed 003's examples called as the post calls them, on a 3x3 float32
 * array (the post's np.random.randn(3, 3); fixed values here): doubled[1, (3, 3)],
 * doubled_auto_grid[1, (3, 3)] and doubled_man_copy[1, (3, 3)] double it in place or
 * into out; reduce_gpu sums the flattened array (and int32 and float64 arrays, compiled
 * per dtype as Numba does); doubled_ufunc (@vectorize) and doubled_gufunc
 * (@guvectorize "(m,n)->(m,n)") double it. References in C. tolerance: exact (doubling
 * is exact; the sums are of values exact in float32). */
#include "harness.h"

enum { N = 9 };
static const float arr0[N] = {-1.5f, 0.25f, 2.0f, 3.75f, -0.5f, 1.0f, 0.125f, -2.25f, 4.5f};
static const int64_t shape33[2] = {3, 3};

static void check_in_place(const char *name) {
  float a[N], want[N];
  for (int i = 0; i < N; i++) a[i] = arr0[i], want[i] = 2 * arr0[i];
  kc_array *d = h_array(KC_FLOAT32, 2, shape33, a);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel(name), kc_dim(1), kc_dim2(3, 3), args, 1);
  h_fetch(d, a);
  h_check_f32(name, want, a, N, 0, 0);
  kc_array_free(d);
}

static void check_man_copy(void) {
  float out[N], want[N];
  for (int i = 0; i < N; i++) want[i] = 2 * arr0[i];
  h_poison_f32(out, N);
  kc_array *d = h_array(KC_FLOAT32, 2, shape33, arr0), *o = h_array(KC_FLOAT32, 2, shape33, out);
  kc_arg args[] = {kc_arg_array(d), kc_arg_array(o)};
  h_launch(h_kernel("doubled_man_copy"), kc_dim(1), kc_dim2(3, 3), args, 2);
  h_fetch(o, out);
  h_check_f32("doubled_man_copy", want, out, N, 0, 0);
  kc_array_free(d), kc_array_free(o);
}

static void check_reduce(void) {
  kc_kernel *k = h_kernel("reduce_gpu");
  float fsum = 0, fgot = -1;
  for (int i = 0; i < N; i++) fsum += arr0[i];
  kc_array *d = h_array1(KC_FLOAT32, N, arr0);
  h_ok(kc_reduce(k, d, NULL, &fgot), "kc_reduce float32");
  if (fgot != fsum) h_die("reduce_gpu(float32[9]): got %.9g want %.9g", fgot, fsum);
  kc_array_free(d);
  enum { M = 1000 };
  int32_t iv[M], igot = 0, isum = 0;
  double dv[M], dgot = 0, dsum = 0;
  for (int i = 0; i < M; i++) iv[i] = i * 7 - 3000, isum += iv[i], dv[i] = i * 0.5, dsum += dv[i];
  d = h_array1(KC_INT32, M, iv);
  h_ok(kc_reduce(k, d, NULL, &igot), "kc_reduce int32");
  if (igot != isum) h_die("reduce_gpu(int32[1000]): got %d want %d", igot, isum);
  kc_array_free(d);
  d = h_array1(KC_FLOAT64, M, dv);
  h_ok(kc_reduce(k, d, NULL, &dgot), "kc_reduce float64");
  if (dgot != dsum) h_die("reduce_gpu(float64[1000]): got %.17g want %.17g", dgot, dsum);
  kc_array_free(d);
}

static void check_ufunc(void) {
  float got[N], want[N];
  for (int i = 0; i < N; i++) want[i] = 2 * arr0[i];
  kc_array *in[1] = {h_array1(KC_FLOAT32, N, arr0)}, *out = NULL;
  h_ok(kc_vectorize(h_kernel("doubled_ufunc"), in, 1, &out), "kc_vectorize doubled_ufunc");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(out, got);
  h_check_f32("doubled_ufunc", want, got, N, 0, 0);
  kc_array_free(out), kc_array_free(in[0]);
}

static void check_gufunc(void) {
  float got[N], want[N];
  for (int i = 0; i < N; i++) want[i] = 2 * arr0[i];
  h_poison_f32(got, N);
  kc_array *in[1] = {h_array(KC_FLOAT32, 2, shape33, arr0)};
  kc_array *given = h_array(KC_FLOAT32, 2, shape33, got), *out[1] = {given};
  h_ok(kc_guvectorize(h_kernel("doubled_gufunc"), in, 1, out, 1), "kc_guvectorize");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(given, got);
  h_check_f32("doubled_gufunc", want, got, N, 0, 0);
  kc_array_free(given), kc_array_free(in[0]);
}

int main(int argc, char **argv) {
  h_begin("seed_003", argc, argv);
  check_in_place("doubled");
  check_in_place("doubled_auto_grid");
  check_man_copy();
  check_reduce();
  check_ufunc();
  check_gufunc();
  return h_end();
}

/* fastmath.c — kernels declared fastmath=True, and one compiled with
 * kc_compile_options.fastmath, checked against double-precision C. On the GPU fast math
 * means approximate float32 division, square root and sin, cos, tan, exp, log, log2,
 * log10, pow (libdevice's __nv_fast_* versions), so the tolerances are those of the
 * approximations (CUDA's programming guide lists them: 2^-21.41 absolute for sin and
 * cos on [-pi, pi], a few ulp for exp, 2 ulp for division), with room: a few 1e-6
 * relative or 2e-6 absolute, 3e-5 for tan (sin over cos near 1.25), 1e-5 for pow, 5e-5
 * for the gaussian (as tests/kernels/gaussian.c: exp amplifies the rounding of its
 * argument). NaN and infinity must still be recognised. */
#include "harness.h"

#define SQRT_2PI 2.5066282746310002
#define NCOLS 13

static double pdf(double x, double mean, double sigma) {
  double z = (x - mean) / sigma;
  return exp(-0.5 * z * z) / (sigma * SQRT_2PI);
}

static void check_gaussian(kc_module *m, const char *kname, const char *what) {
  kc_kernel *k = NULL;
  h_ok(kc_module_get_kernel(m, kname, &k), kname);
  const int64_t n = 2049;
  const float mean = 0.5f, sigma = 1.5f;
  float *x = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)(i - 1024) / 128.0f;
    want[i] = (float)pdf(x[i], mean, sigma);
  }
  h_poison_f32(out, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_f32(mean), kc_arg_f32(sigma), kc_arg_array(dout)};
  h_launch(k, kc_dim(5), kc_dim(128), args, 4);   /* grid-stride: fewer threads than n */
  h_fetch(dout, out);
  h_check_f32(what, want, out, n, 5e-5, 1e-30);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want);
}

/* Column c of functions(): the reference and its tolerance. */
static double reference(int c, double x, double y, double *rtol, double *atol) {
  *rtol = 4e-6;
  *atol = 2e-6;
  switch (c) {
  case 0: return sin(x);
  case 1: return cos(x);
  case 2: *rtol = 3e-5; return tan(x);
  case 3: return exp(x);
  case 4: return log(y);
  case 5: return log2(y);
  case 6: return log10(y);
  case 7: *rtol = 1e-5; return pow(y, x);
  case 8: return sqrt(y);
  case 9: return x / y;
  case 10: return hypot(x, y);
  case 11: return x * y + y;
  default: *atol = 1e-7; return tanh(x);
  }
}

static void check_functions(void) {
  kc_kernel *k = h_kernel("functions");
  const int64_t n = 1000, shape[2] = {n, NCOLS};
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4);
  float *out = h_alloc(n * NCOLS, 4), *want = h_alloc(n, 4), *got = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = -1.25f + 2.5f * (float)i / (float)(n - 1);          /* tan stays below 3.01 */
    b[i] = 0.25f + 3.75f * (float)((i * 37) % n) / (float)(n - 1);
  }
  h_poison_f32(out, n * NCOLS);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *db = h_array1(KC_FLOAT32, n, b);
  kc_array *dout = h_array(KC_FLOAT32, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, 128)), kc_dim(128), args, 3);
  h_fetch(dout, out);
  static const char *const names[NCOLS] = {
    "sin", "cos", "tan", "exp", "log", "log2", "log10", "pow", "sqrt", "x / y", "hypot",
    "x * y + y", "tanh"};
  for (int c = 0; c < NCOLS; c++) {
    double rtol = 0, atol = 0;
    for (int64_t i = 0; i < n; i++) {
      want[i] = (float)reference(c, a[i], b[i], &rtol, &atol);
      got[i] = out[i * NCOLS + c];
    }
    h_check_f32(names[c], want, got, n, rtol, atol);
  }
  kc_array_free(da), kc_array_free(db), kc_array_free(dout);
  free(a), free(b), free(out), free(want), free(got);
}

static void check_classify(void) {
  kc_kernel *k = h_kernel("classify");
  enum { N = 6 };
  const float x[N] = {1.5f, NAN, INFINITY, -INFINITY, -0.0f, 3.0e38f};
  const int32_t want[N] = {0, 1, 2, 2, 0, 0};
  int32_t got[N];
  h_poison_i32(got, N);
  kc_array *dx = h_array1(KC_FLOAT32, N, x), *dout = h_array1(KC_INT32, N, got);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(k, kc_dim(1), kc_dim(32), args, 2);
  h_fetch(dout, got);
  h_check_i32("classify (isnan, isinf)", want, got, N);
  kc_array_free(dx), kc_array_free(dout);
}

static void check_ratio(void) {
  kc_kernel *k = h_kernel("ratio");
  const int64_t n = 777;
  float *a = h_alloc(n, 4), *b = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    a[i] = 4.0f * (float)i / (float)n;
    b[i] = 0.25f + (float)(i % 16) * 0.25f;
    want[i] = (float)(sqrt(a[i]) / b[i]);
  }
  kc_array *da = h_array1(KC_FLOAT32, n, a), *db = h_array1(KC_FLOAT32, n, b);
  kc_array *in[2] = {da, db}, *out = NULL;
  h_ok(kc_vectorize(k, in, 2, &out), "kc_vectorize");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  float *got = h_alloc(n, 4);
  h_fetch(out, got);
  h_check_f32("ratio (@vectorize fastmath=True)", want, got, n, 4e-6, 1e-7);
  kc_array_free(da), kc_array_free(db), kc_array_free(out);
  free(a), free(b), free(want), free(got);
}

int main(int argc, char **argv) {
  h_begin("fastmath", argc, argv);
  check_gaussian(H.mod, "gaussian_fast", "gaussian_fast");
  check_gaussian(H.mod, "gaussian_precise", "gaussian_precise");
  check_functions();
  check_classify();
  check_ratio();
  /* the compiler-wide switch: every kernel of the module with fast math */
  kc_compile_options opts = {0};
  opts.opt_level = KC_OPT_DEFAULT;
  opts.fastmath = 1;
  kc_module *all_fast = NULL;
  h_ok(kc_compile_file(H.ctx, argv[1], &opts, &all_fast), "kc_compile_file (fastmath = 1)");
  check_gaussian(all_fast, "gaussian_precise", "gaussian_precise (kc_compile_options.fastmath)");
  kc_module_free(all_fast);
  return h_end();
}

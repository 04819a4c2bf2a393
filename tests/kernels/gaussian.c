/* gaussian.c — the gaussian pdf as a plain kernel (scalar mean and sigma) and as the
 * @vectorize one, which the module exposes as a kernel of four 1-D arrays.
 * tolerance: 5e-5 relative plus 1e-30 absolute (float32 exp of arguments up to ~150
 * in size, whose own rounding error exp amplifies) */
#include "harness.h"

#define SQRT_2PI 2.5066282746310002

static double pdf(double x, double mean, double sigma) {
  double z = (x - mean) / sigma;
  return exp(-0.5 * z * z) / (sigma * SQRT_2PI);
}

int main(int argc, char **argv) {
  h_begin("gaussian", argc, argv);
  kc_kernel *k = h_kernel("gaussian_kernel");
  const int64_t n = 2049;
  const float mean = 0.5f, sigma = 1.5f;
  float *x = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  float *mu = h_alloc(n, 4), *sg = h_alloc(n, 4), *want_v = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)(i - 1024) / 128.0f;
    mu[i] = (float)(i % 5) * 0.25f - 0.5f;
    sg[i] = 0.5f + (float)(i % 3);
    want[i] = (float)pdf(x[i], mean, sigma);
    want_v[i] = (float)pdf(x[i], mu[i], sg[i]);
  }
  h_poison_f32(out, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_f32(mean), kc_arg_f32(sigma), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, 256)), kc_dim(256), args, 4);
  h_fetch(dout, out);
  h_check_f32("gaussian_kernel", want, out, n, 5e-5, 1e-30);

  /* The @vectorize function: one kernel over 1-D arrays, the output last. */
  kc_kernel *v = h_kernel("gaussian_pdf");
  if (kc_kernel_param_count(v) != 4)
    h_die("gaussian_pdf: expected a kernel of 4 arrays, got %s", kc_kernel_signature(v));
  h_poison_f32(out, n);
  kc_array *dmu = h_array1(KC_FLOAT32, n, mu), *dsg = h_array1(KC_FLOAT32, n, sg),
           *dv = h_array1(KC_FLOAT32, n, out);
  kc_arg vargs[] = {kc_arg_array(dx), kc_arg_array(dmu), kc_arg_array(dsg), kc_arg_array(dv)};
  h_launch(v, kc_dim(h_blocks(n, 128)), kc_dim(128), vargs, 4);
  h_fetch(dv, out);
  h_check_f32("gaussian_pdf (vectorize)", want_v, out, n, 5e-5, 1e-30);
  kc_array_free(dmu), kc_array_free(dsg), kc_array_free(dv);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want), free(mu), free(sg), free(want_v);
  return h_end();
}

/*
 * gaussian.c — a @vectorize function called from C: compile gaussian.k at run time,
 * copy x, mean and sigma to the device (a CUDA GPU when present, else the CPU back
 * end), evaluate the normal density with kc_vectorize (which picks the launch shape
 * and allocates the output) and check it against the same formula in C.
 *
 *   usage: gaussian [path/to/gaussian.k]     (exit 0 when the result is right)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

#define SQRT_2PI 2.5066282746310002

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "gaussian: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/gaussian.k";
  const int64_t n = 1 << 20;
  float *x = malloc(n * sizeof *x), *mean = malloc(n * sizeof *mean),
        *sigma = malloc(n * sizeof *sigma), *pdf = malloc(n * sizeof *pdf);
  if (!x || !mean || !sigma || !pdf) return 1;
  for (int64_t i = 0; i < n; i++) {
    x[i] = (float)(i - n / 2) / (float)(n / 16);   /* -8 .. 8 */
    mean[i] = (float)(i % 7) * 0.25f - 0.75f;
    sigma[i] = 0.5f + (float)(i % 4) * 0.5f;
  }

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("gaussian: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  kc_kernel *gaussian_pdf = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "gaussian_pdf", &gaussian_pdf)) != KC_OK)
    return fail(ctx, "get kernel", s);

  /* gaussian_pdf(x, mean, sigma) on device arrays, as a Numba ufunc is called. */
  kc_array *in[3] = {NULL, NULL, NULL}, *out = NULL;
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, x, (size_t)n * sizeof *x, &in[0])) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, mean, (size_t)n * sizeof *mean, &in[1])) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, sigma, (size_t)n * sizeof *sigma, &in[2])) != KC_OK)
    return fail(ctx, "array", s);
  if ((s = kc_vectorize(gaussian_pdf, in, 3, &out)) != KC_OK) return fail(ctx, "vectorize", s);
  if ((s = kc_array_to_host(out, pdf, n * sizeof *pdf)) != KC_OK)
    return fail(ctx, "copy to host", s);

  /* float32 exp of arguments up to ~128 in size: a relative tolerance of 5e-5 */
  int64_t bad = 0;
  double worst = 0;
  for (int64_t i = 0; i < n; i++) {
    double z = ((double)x[i] - mean[i]) / sigma[i];
    double want = exp(-0.5 * z * z) / (sigma[i] * SQRT_2PI);
    double err = fabs(pdf[i] - want);
    if (!(err <= 5e-5 * fabs(want) + 1e-30)) bad++;
    if (want > 1e-30 && err / want > worst) worst = err / want;  /* not subnormals */
  }
  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  if (bad)
    printf("gaussian: FAIL on %s: %lld of %lld elements wrong\n", dev, (long long)bad,
           (long long)n);
  else
    printf("gaussian: OK on %s: %lld elements match the C reference (max rel. error %.2g)\n",
           dev, (long long)n, worst);

  kc_array_free(out);
  for (int i = 0; i < 3; i++) kc_array_free(in[i]);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(x), free(mean), free(sigma), free(pdf);
  return bad ? 1 : 0;
}

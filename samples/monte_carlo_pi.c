/*
 * monte_carlo_pi.c — run monte_carlo_pi.k: one random generator per thread (seeded
 * with kc_random_states, as Numba's create_xoroshiro128p_states), each thread counts
 * its points inside the quarter circle, kc_reduce adds the counts, and 4 * inside /
 * points estimates pi. Checked to within 6 standard deviations of the estimate
 * (4 * sqrt(p (1 - p) / points) with p = pi / 4: about 0.005 for 4 million points).
 *
 *   usage: monte_carlo_pi [path/to/monte_carlo_pi.k]
 */
#include <math.h>
#include <stdio.h>

#include "kc.h"

#define THREADS 4096
#define BLOCK 128
#define SAMPLES 1000
#define SEED 2024

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "monte_carlo_pi: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/monte_carlo_pi.k";
  kc_context *ctx = NULL;
  kc_module *mod = NULL;
  kc_kernel *count = NULL, *total = NULL;
  kc_array *states = NULL, *inside = NULL;
  int64_t n = THREADS;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("monte_carlo_pi: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "count_inside", &count)) != KC_OK ||
      (s = kc_module_get_kernel(mod, "total", &total)) != KC_OK)
    return fail(ctx, "kc_module_get_kernel", s);
  if ((s = kc_random_states(ctx, n, SEED, &states)) != KC_OK)
    return fail(ctx, "kc_random_states", s);
  if ((s = kc_array_new(ctx, KC_INT32, 1, &n, &inside)) != KC_OK)
    return fail(ctx, "kc_array_new", s);
  kc_arg args[] = {kc_arg_array(states), kc_arg_i32(SAMPLES), kc_arg_array(inside)};
  s = kc_launch(count, kc_dim(THREADS / BLOCK), kc_dim(BLOCK), 0, NULL, args, 3);
  if (s != KC_OK) return fail(ctx, "kc_launch", s);
  int32_t hits = 0;
  if ((s = kc_reduce(total, inside, NULL, &hits)) != KC_OK) return fail(ctx, "kc_reduce", s);

  double points = (double)THREADS * SAMPLES, pi = 4.0 * hits / points;
  double p = M_PI / 4, sigma = 4.0 * sqrt(p * (1 - p) / points);
  printf("pi ~= %.6f from %.0f points (error %.6f, %.1f standard deviations)\n", pi,
         points, pi - M_PI, fabs(pi - M_PI) / sigma);
  int ok = fabs(pi - M_PI) <= 6 * sigma;
  kc_array_free(inside);
  kc_array_free(states);
  kc_module_free(mod);
  kc_context_free(ctx);
  if (!ok) fprintf(stderr, "monte_carlo_pi: the estimate is more than 6 sigma off\n");
  return ok ? 0 : 1;
}

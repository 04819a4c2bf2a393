/*
 * matmul.c — multiply a 257 x 131 float32 matrix by a 131 x 199 one with the two
 * kernels of matmul.k (a naive one, and one staging 16 x 16 tiles of both matrices
 * in shared memory), time both with events, and check both against a C triple loop.
 *
 * None of the sizes is a multiple of the 16-wide tile, so the edge blocks are partly
 * outside c and the last step along the shared dimension covers a partial tile.
 *
 * On a GPU the tiled kernel is the faster one. On the CPU back end it is the slower:
 * there the threads of a block run as fibers, and each of its barriers switches
 * between all 256 of them.
 *
 * The kernels sum in float32 and in a different order from the C loop (which sums in
 * double), so the results differ by rounding. Each sum of k products has an error of
 * at most about k * 2^-24 times the sum of the products' magnitudes, so an element
 * passes when |c - ref| <= 1e-5 * sum_i |a[r,i] * b[i,c]| (k = 131: 131 * 6e-8 is
 * 8e-6): a relative tolerance that holds even where the signed sum cancels to ~0.
 *
 *   usage: matmul [path/to/matmul.k]     (exit 0 when both results are right)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

#define N 257     /* rows of a and c */
#define K 131     /* columns of a, rows of b */
#define M 199     /* columns of b and c */
#define TILE 16   /* as in matmul.k: one thread per element of c in a TILE x TILE block */
#define REPS 5    /* timed launches per kernel, after one warm-up launch */

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "matmul: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* Launch k(a, b, c) over the whole of c: x along its columns, y along its rows. */
static kc_status launch(kc_kernel *k, kc_array *a, kc_array *b, kc_array *c) {
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(b), kc_arg_array(c)};
  kc_dim3 grid = kc_dim2((M + TILE - 1) / TILE, (N + TILE - 1) / TILE);
  return kc_launch(k, grid, kc_dim2(TILE, TILE), 0, NULL, args, 3);
}

/* Run k once to warm up, then REPS times between two events; *ms is the mean time
 * of one launch. */
static kc_status timed(kc_context *ctx, kc_kernel *k, kc_array *a, kc_array *b,
                       kc_array *c, float *ms) {
  kc_event *start = NULL, *stop = NULL;
  kc_status s;
  if ((s = launch(k, a, b, c)) != KC_OK) return s;
  if ((s = kc_event_new(ctx, &start)) != KC_OK) return s;
  if ((s = kc_event_new(ctx, &stop)) != KC_OK) goto out;
  if ((s = kc_event_record(start, NULL)) != KC_OK) goto out;
  for (int r = 0; r < REPS; r++)
    if ((s = launch(k, a, b, c)) != KC_OK) goto out;
  if ((s = kc_event_record(stop, NULL)) != KC_OK) goto out;
  if ((s = kc_event_synchronize(stop)) != KC_OK) goto out;
  if ((s = kc_event_elapsed_ms(start, stop, ms)) == KC_OK) *ms /= REPS;
out:
  kc_event_free(stop);
  kc_event_free(start);
  return s;
}

/* The reference, in double: ref = a @ b, and mag[r, c] = sum_i |a[r, i] * b[i, c]|,
 * the scale of the rounding error allowed at (r, c). */
static void reference(const float *a, const float *b, double *ref, double *mag) {
  for (int r = 0; r < N; r++)
    for (int c = 0; c < M; c++) {
      double sum = 0, abs_sum = 0;
      for (int i = 0; i < K; i++) {
        double p = (double)a[r * K + i] * b[i * M + c];
        sum += p;
        abs_sum += fabs(p);
      }
      ref[r * M + c] = sum;
      mag[r * M + c] = abs_sum;
    }
}

/* The number of elements of got outside the tolerance; *worst gets the largest
 * error seen, as a fraction of mag. A NaN (an element never written) fails. */
static long count_wrong(const float *got, const double *ref, const double *mag,
                        double *worst) {
  long bad = 0;
  *worst = 0;
  for (int e = 0; e < N * M; e++) {
    double err = fabs(got[e] - ref[e]);
    if (!(err <= 1e-5 * mag[e])) bad++;
    if (mag[e] > 0 && err / mag[e] > *worst) *worst = err / mag[e];
  }
  return bad;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/matmul.k";
  const int64_t shape_a[2] = {N, K}, shape_b[2] = {K, M}, shape_c[2] = {N, M};
  float *a = malloc(sizeof(float) * N * K), *b = malloc(sizeof(float) * K * M),
        *c = malloc(sizeof(float) * N * M);
  double *ref = malloc(sizeof(double) * N * M), *mag = malloc(sizeof(double) * N * M);
  if (!a || !b || !c || !ref || !mag) return 1;
  /* values of both signs in [-1, 1), so the sums cancel in part */
  for (int e = 0; e < N * K; e++) a[e] = (float)((e * 37) % 101) / 50.5f - 1.0f;
  for (int e = 0; e < K * M; e++) b[e] = (float)((e * 53) % 97) / 48.5f - 1.0f;
  reference(a, b, ref, mag);

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("matmul: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);

  kc_module *mod = NULL;
  kc_kernel *naive = NULL, *tiled = NULL;
  kc_array *da = NULL, *db = NULL, *dc = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "matmul_naive", &naive)) != KC_OK ||
      (s = kc_module_get_kernel(mod, "matmul_tiled", &tiled)) != KC_OK)
    return fail(ctx, "get kernel", s);
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 2, shape_a, a, (size_t)(shape_a[0] * shape_a[1]) * sizeof *a, &da)) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_FLOAT32, 2, shape_b, b, (size_t)(shape_b[0] * shape_b[1]) * sizeof *b, &db)) != KC_OK ||
      (s = kc_array_new(ctx, KC_FLOAT32, 2, shape_c, &dc)) != KC_OK)
    return fail(ctx, "array", s);

  /* Each kernel in turn: clear c (NaN everywhere, so an element a kernel forgot to
   * write cannot pass), run and time it, fetch and check its result. */
  struct { const char *name; kc_kernel *k; float ms; long bad; double worst; } runs[] = {
    {"naive", naive, 0, 0, 0}, {"tiled", tiled, 0, 0, 0}};
  const float nan_ = 0.0f / 0.0f;
  for (int r = 0; r < 2; r++) {
    if ((s = kc_array_fill(dc, &nan_)) != KC_OK) return fail(ctx, "fill", s);
    if ((s = timed(ctx, runs[r].k, da, db, dc, &runs[r].ms)) != KC_OK)
      return fail(ctx, runs[r].name, s);
    if ((s = kc_array_to_host(dc, c, sizeof(float) * N * M)) != KC_OK)
      return fail(ctx, "copy to host", s);
    runs[r].bad = count_wrong(c, ref, mag, &runs[r].worst);
  }

  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  for (int r = 0; r < 2; r++) {
    if (runs[r].bad)
      printf("matmul: FAIL on %s: %s kernel: %ld of %d elements wrong\n", dev,
             runs[r].name, runs[r].bad, N * M);
    else
      printf("matmul: OK on %s: %s kernel, (%dx%d) @ (%dx%d), %.3f ms per launch, "
             "max error %.2g of sum |a*b|\n",
             dev, runs[r].name, N, K, K, M, runs[r].ms, runs[r].worst);
  }

  kc_array_free(dc);
  kc_array_free(db);
  kc_array_free(da);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(a), free(b), free(c), free(ref), free(mag);
  return runs[0].bad || runs[1].bad ? 1 : 0;
}

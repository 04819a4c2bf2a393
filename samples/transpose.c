/*
 * transpose.c — transpose a 1000 x 777 float32 matrix with the two kernels of
 * transpose.k (a naive one, and one staging 32 x 32 tiles in shared memory), time
 * both with events, and check both results exactly against a C transpose: a
 * transpose only moves values, so every element must match bit for bit.
 *
 * The sizes are not multiples of the 32-wide tile, so the blocks on the right and
 * bottom edges are only partly inside the matrix.
 *
 * On a GPU the tiled kernel is the faster one (all its global-memory accesses are
 * coalesced). On the CPU back end it is the slower: there the threads of a block run
 * as fibers, and its barrier switches between all 1024 of them.
 *
 *   usage: transpose [path/to/transpose.k]     (exit 0 when both results are right)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

#define ROWS 1000
#define COLS 777
#define TILE 32   /* as in transpose.k: one thread per element of a tile */
#define REPS 5    /* timed launches per kernel, after one warm-up launch */

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "transpose: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* Launch k(a, out) over the whole of a: one TILE x TILE block per tile, x along the
 * columns of a (its contiguous axis), y along the rows. */
static kc_status launch(kc_kernel *k, kc_array *a, kc_array *out) {
  kc_arg args[] = {kc_arg_array(a), kc_arg_array(out)};
  kc_dim3 grid = kc_dim2((COLS + TILE - 1) / TILE, (ROWS + TILE - 1) / TILE);
  return kc_launch(k, grid, kc_dim2(TILE, TILE), 0, NULL, args, 2);
}

/* Run k once to warm up, then REPS times between two events; *ms is the mean time
 * of one launch. */
static kc_status timed(kc_context *ctx, kc_kernel *k, kc_array *a, kc_array *out,
                       float *ms) {
  kc_event *start = NULL, *stop = NULL;
  kc_status s;
  if ((s = launch(k, a, out)) != KC_OK) return s;
  if ((s = kc_event_new(ctx, &start)) != KC_OK) return s;
  if ((s = kc_event_new(ctx, &stop)) != KC_OK) goto out;
  if ((s = kc_event_record(start, NULL)) != KC_OK) goto out;
  for (int r = 0; r < REPS; r++)
    if ((s = launch(k, a, out)) != KC_OK) goto out;
  if ((s = kc_event_record(stop, NULL)) != KC_OK) goto out;
  if ((s = kc_event_synchronize(stop)) != KC_OK) goto out;
  if ((s = kc_event_elapsed_ms(start, stop, ms)) == KC_OK) *ms /= REPS;
out:
  kc_event_free(stop);
  kc_event_free(start);
  return s;
}

/* The number of elements of got (COLS x ROWS) that differ from a's transpose. */
static long count_wrong(const float *a, const float *got) {
  long bad = 0;
  for (int i = 0; i < ROWS; i++)
    for (int j = 0; j < COLS; j++)
      if (memcmp(&got[(size_t)j * ROWS + i], &a[(size_t)i * COLS + j], sizeof(float)))
        bad++;
  return bad;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/transpose.k";
  const int64_t shape[2] = {ROWS, COLS}, shape_t[2] = {COLS, ROWS};
  float *a = malloc(sizeof(float) * ROWS * COLS), *out = malloc(sizeof(float) * ROWS * COLS);
  if (!a || !out) return 1;
  for (int i = 0; i < ROWS; i++)   /* every element different: a misplaced one shows */
    for (int j = 0; j < COLS; j++) a[(size_t)i * COLS + j] = (float)i + (float)j / 1024.0f;

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("transpose: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);

  kc_module *mod = NULL;
  kc_kernel *naive = NULL, *tiled = NULL;
  kc_array *da = NULL, *dout = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "transpose_naive", &naive)) != KC_OK ||
      (s = kc_module_get_kernel(mod, "transpose_tiled", &tiled)) != KC_OK)
    return fail(ctx, "get kernel", s);
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 2, shape, a, (size_t)(shape[0] * shape[1]) * sizeof *a, &da)) != KC_OK ||
      (s = kc_array_new(ctx, KC_FLOAT32, 2, shape_t, &dout)) != KC_OK)
    return fail(ctx, "array", s);

  /* Each kernel in turn: clear out (NaN everywhere, so an element a kernel forgot to
   * write cannot pass), run and time it, fetch and check its result. */
  struct { const char *name; kc_kernel *k; float ms; long bad; } runs[] = {
    {"naive", naive, 0, 0}, {"tiled", tiled, 0, 0}};
  const float nan_ = 0.0f / 0.0f;
  for (int r = 0; r < 2; r++) {
    if ((s = kc_array_fill(dout, &nan_)) != KC_OK) return fail(ctx, "fill", s);
    if ((s = timed(ctx, runs[r].k, da, dout, &runs[r].ms)) != KC_OK)
      return fail(ctx, runs[r].name, s);
    if ((s = kc_array_to_host(dout, out, sizeof(float) * ROWS * COLS)) != KC_OK)
      return fail(ctx, "copy to host", s);
    runs[r].bad = count_wrong(a, out);
  }

  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  for (int r = 0; r < 2; r++) {
    if (runs[r].bad)
      printf("transpose: FAIL on %s: %s kernel: %ld of %d elements wrong\n", dev,
             runs[r].name, runs[r].bad, ROWS * COLS);
    else
      printf("transpose: OK on %s: %s kernel, %dx%d, %.3f ms per launch\n", dev,
             runs[r].name, ROWS, COLS, runs[r].ms);
  }

  kc_array_free(dout);
  kc_array_free(da);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(a), free(out);
  return runs[0].bad || runs[1].bad ? 1 : 0;
}

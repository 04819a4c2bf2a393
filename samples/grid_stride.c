/*
 * grid_stride.c — the grid-stride add of grid_stride.k, timed with events: a batch of
 * launches queued back to back (asynchronous) against the same batch with a
 * synchronisation after each launch. Checks the sum against C.
 *
 *   usage: grid_stride [path/to/grid_stride.k]
 */
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

#define REPS 20

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "grid_stride: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* Time REPS launches between two events; sync_each waits after every launch. */
static kc_status timed(kc_context *ctx, kc_kernel *k, const kc_arg *args, int sync_each,
                       float *ms) {
  kc_event *start = NULL, *stop = NULL;
  kc_status s;
  if ((s = kc_event_new(ctx, &start)) != KC_OK) return s;
  if ((s = kc_event_new(ctx, &stop)) != KC_OK) goto out;
  if ((s = kc_event_record(start, NULL)) != KC_OK) goto out;
  for (int r = 0; r < REPS; r++) {
    /* a fixed, modest grid: the loop inside the kernel strides over the rest */
    if ((s = kc_launch(k, kc_dim(160), kc_dim(256), 0, NULL, args, 3)) != KC_OK) goto out;
    if (sync_each && (s = kc_synchronize(ctx)) != KC_OK) goto out;
  }
  if ((s = kc_event_record(stop, NULL)) != KC_OK) goto out;
  if ((s = kc_event_synchronize(stop)) != KC_OK) goto out;
  s = kc_event_elapsed_ms(start, stop, ms);
out:
  if (stop) kc_event_free(stop);
  kc_event_free(start);
  return s;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/grid_stride.k";
  const int64_t n = 3000017; /* not a multiple of anything */
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *out = malloc(n * sizeof *out);
  if (!a || !b || !out) return 1;
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)(i % 1000) - 500.0f;
    b[i] = (float)(i % 7) * 0.125f;
  }

  kc_context *ctx = NULL;
  kc_module *mod = NULL;
  kc_kernel *k = NULL;
  kc_array *da = NULL, *db = NULL, *dout = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("grid_stride: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "grid_stride_add", &k)) != KC_OK)
    return fail(ctx, "kernel", s);
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, a, (size_t)n * sizeof *a, &da)) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, b, (size_t)n * sizeof *b, &db)) != KC_OK ||
      (s = kc_array_like(da, &dout)) != KC_OK)
    return fail(ctx, "array", s);
  float nan_ = 0.0f / 0.0f;
  if ((s = kc_array_fill(dout, &nan_)) != KC_OK) return fail(ctx, "fill", s);

  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
  float ms_async = 0, ms_sync = 0;
  if ((s = timed(ctx, k, args, 0, &ms_async)) != KC_OK) return fail(ctx, "async batch", s);
  if ((s = timed(ctx, k, args, 1, &ms_sync)) != KC_OK) return fail(ctx, "sync batch", s);
  if ((s = kc_array_to_host(dout, out, n * sizeof *out)) != KC_OK)
    return fail(ctx, "copy to host", s);

  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (out[i] != a[i] + b[i]) bad++;
  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  if (bad)
    printf("grid_stride: FAIL on %s: %lld of %lld elements wrong\n", dev, (long long)bad,
           (long long)n);
  else
    printf("grid_stride: OK on %s: %lld elements; %d launches %.3f ms queued, "
           "%.3f ms synchronising each\n",
           dev, (long long)n, REPS, ms_async, ms_sync);

  kc_array_free(dout);
  kc_array_free(db);
  kc_array_free(da);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(a), free(b), free(out);
  return bad ? 1 : 0;
}

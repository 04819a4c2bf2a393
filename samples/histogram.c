/*
 * histogram.c — run histogram.k: count the 256 byte values of a buffer on the device
 * (a CUDA GPU when present, else the CPU back end), once with global atomics and once
 * with per-block shared-memory bins, and check both histograms against a C loop.
 *
 * The bytes are skewed on purpose (half of them fall in 8 bins) so that many threads
 * update the same bins at once: a histogram without atomics would lose counts here.
 *
 *   usage: histogram [path/to/histogram.k]     (exit 0 when both histograms are right)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

enum { BINS = 256, BLOCK = 256, GRID = 64 };

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "histogram: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* Skewed pseudo-random bytes from a 32-bit linear congruential generator. */
static void fill_bytes(uint8_t *data, int64_t n) {
  uint32_t x = 12345;
  for (int64_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    uint8_t r = (uint8_t)(x >> 24);
    data[i] = (x >> 8) & 1 ? (uint8_t)(r & 7) * 32 : r;   /* half in bins 0, 32, ..., 224 */
  }
}

/* Run one histogram kernel into freshly zeroed bins and compare with `want`. */
static int run_one(kc_context *ctx, kc_module *mod, const char *name, kc_array *ddata,
                   kc_array *dbins, const int32_t *want) {
  kc_kernel *k = NULL;
  kc_status s;
  if ((s = kc_module_get_kernel(mod, name, &k)) != KC_OK) return fail(ctx, name, s);
  if ((s = kc_array_zero(dbins)) != KC_OK) return fail(ctx, "kc_array_zero", s);
  kc_arg args[] = {kc_arg_array(ddata), kc_arg_array(dbins)};
  if ((s = kc_launch(k, kc_dim(GRID), kc_dim(BLOCK), 0, NULL, args, 2)) != KC_OK)
    return fail(ctx, name, s);
  int32_t got[BINS];
  if ((s = kc_array_to_host(dbins, got, sizeof got)) != KC_OK)
    return fail(ctx, "copy to host", s);
  int bad = 0;
  for (int b = 0; b < BINS; b++)
    if (got[b] != want[b]) {
      if (bad++ < 5) printf("%s: bin %d holds %d, expected %d\n", name, b, got[b], want[b]);
    }
  printf("%s: %s on %s: %d of %d bins wrong\n", name, bad ? "FAIL" : "OK",
         kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu", bad, BINS);
  return bad != 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/histogram.k";
  const int64_t n = (1 << 20) + 77;   /* not a multiple of the block or the grid */
  uint8_t *data = malloc(n);
  if (!data) return 1;
  fill_bytes(data, n);
  int32_t want[BINS] = {0};           /* the C reference */
  for (int64_t i = 0; i < n; i++) want[data[i]]++;

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("histogram: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    free(data);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  kc_array *ddata = NULL, *dbins = NULL;
  const int64_t nbins = BINS;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_array_from_host(ctx, KC_UINT8, 1, &n, data, (size_t)n * sizeof *data, &ddata)) != KC_OK ||
      (s = kc_array_new(ctx, KC_INT32, 1, &nbins, &dbins)) != KC_OK)
    return fail(ctx, "array", s);

  int bad = run_one(ctx, mod, "histogram_global", ddata, dbins, want);
  bad |= run_one(ctx, mod, "histogram_shared", ddata, dbins, want);

  kc_array_free(dbins);
  kc_array_free(ddata);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(data);
  return bad ? 1 : 0;
}

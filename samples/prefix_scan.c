/*
 * prefix_scan.c — run prefix_scan.k: an inclusive prefix sum of int32 in three launches
 * (scan each block in shared memory, scan the block totals, add them back), for
 * several odd lengths — one element, less than a block, just over a block, and more
 * blocks than one block of threads can scan at once — each checked against a
 * sequential scan in C.
 *
 *   usage: prefix_scan [path/to/prefix_scan.k]     (exit 0 when every scan is right)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

enum { BLOCK = 256 };   /* must match BLOCK in prefix_scan.k */

typedef struct scan_kernels {
  kc_kernel *scan_blocks, *scan_totals, *add_block_offsets;
} scan_kernels;

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "prefix_scan: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* out = the inclusive scan of x (n elements, on the device): the three launches. */
static kc_status device_scan(const scan_kernels *k, kc_array *x, kc_array *out,
                             kc_array *totals, int64_t blocks) {
  kc_status s;
  kc_arg a1[] = {kc_arg_array(x), kc_arg_array(out), kc_arg_array(totals)};
  if ((s = kc_launch(k->scan_blocks, kc_dim((unsigned)blocks), kc_dim(BLOCK), 0, NULL, a1,
                     3)) != KC_OK)
    return s;
  kc_arg a2[] = {kc_arg_array(totals)};
  if ((s = kc_launch(k->scan_totals, kc_dim(1), kc_dim(BLOCK), 0, NULL, a2, 1)) != KC_OK)
    return s;
  kc_arg a3[] = {kc_arg_array(out), kc_arg_array(totals)};
  return kc_launch(k->add_block_offsets, kc_dim((unsigned)blocks), kc_dim(BLOCK), 0, NULL,
                   a3, 2);
}

/* Scan n pseudo-random values on the device and in C; 0 when they agree. */
static int check_size(kc_context *ctx, const scan_kernels *k, int64_t n) {
  const int64_t blocks = (n + BLOCK - 1) / BLOCK;
  int32_t *x = malloc(n * sizeof *x), *got = malloc(n * sizeof *got);
  if (!x || !got) return 1;
  uint32_t r = (uint32_t)n;
  for (int64_t i = 0; i < n; i++) {
    r = r * 1664525u + 1013904223u;
    x[i] = (int32_t)(r >> 24) - 128;   /* in [-128, 127]: no sum overflows int32 */
  }
  kc_array *dx = NULL, *dout = NULL, *dtotals = NULL;
  kc_status s;
  if ((s = kc_array_from_host(ctx, KC_INT32, 1, &n, x, (size_t)n * sizeof *x, &dx)) != KC_OK ||
      (s = kc_array_like(dx, &dout)) != KC_OK ||
      (s = kc_array_new(ctx, KC_INT32, 1, &blocks, &dtotals)) != KC_OK)
    return fail(ctx, "array", s);
  if ((s = device_scan(k, dx, dout, dtotals, blocks)) != KC_OK) return fail(ctx, "scan", s);
  if ((s = kc_array_to_host(dout, got, n * sizeof *got)) != KC_OK)
    return fail(ctx, "copy to host", s);

  int64_t bad = 0;
  int32_t sum = 0;   /* the sequential reference */
  for (int64_t i = 0; i < n; i++) {
    sum += x[i];
    if (got[i] != sum && bad++ < 3)
      printf("n = %lld: out[%lld] = %d, expected %d\n", (long long)n, (long long)i, got[i],
             sum);
  }
  printf("prefix_scan: %s on %s: n = %lld (%lld blocks), %lld wrong, last %d\n",
         bad ? "FAIL" : "OK", kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu",
         (long long)n, (long long)blocks, (long long)bad, got[n - 1]);
  kc_array_free(dtotals);
  kc_array_free(dout);
  kc_array_free(dx);
  free(x), free(got);
  return bad != 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/prefix_scan.k";
  /* odd sizes: one element, under one block, just over one block, and 1954 blocks —
     more totals than one block's threads, so scan_totals takes several chunks */
  const int64_t sizes[] = {1, 201, 257, 500001};
  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("prefix_scan: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  scan_kernels k;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "scan_blocks", &k.scan_blocks)) != KC_OK ||
      (s = kc_module_get_kernel(mod, "scan_totals", &k.scan_totals)) != KC_OK ||
      (s = kc_module_get_kernel(mod, "add_block_offsets", &k.add_block_offsets)) != KC_OK)
    return fail(ctx, "get kernel", s);

  int bad = 0;
  for (size_t i = 0; i < sizeof sizes / sizeof *sizes; i++) bad |= check_size(ctx, &k, sizes[i]);

  kc_module_free(mod);
  kc_context_free(ctx);
  return bad ? 1 : 0;
}

/*
 * block_sum.c — run block_sum.k: each block of 256 threads adds up its 256 elements,
 * once with a tree reduction in shared memory and once with warp shuffles, and both
 * arrays of block sums are checked against the same sums computed in C. The length is
 * odd, so the last block is only partly full (its missing elements count as 0).
 * Adding the block sums (on the host here, or with a second launch) gives the total.
 *
 *   usage: block_sum [path/to/block_sum.k]     (exit 0 when both kernels are right)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

enum { BLOCK = 256 };   /* must match BLOCK in block_sum.k */

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "block_sum: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* Launch one block-sum kernel and compare its sums with `want`. */
static int run_one(kc_context *ctx, kc_module *mod, const char *name, kc_array *dx,
                   kc_array *dsums, const int32_t *want, int64_t blocks) {
  kc_kernel *k = NULL;
  kc_status s;
  if ((s = kc_module_get_kernel(mod, name, &k)) != KC_OK) return fail(ctx, name, s);
  if ((s = kc_array_zero(dsums)) != KC_OK)   /* no sums left over from the other kernel */
    return fail(ctx, "kc_array_zero", s);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dsums)};
  if ((s = kc_launch(k, kc_dim((unsigned)blocks), kc_dim(BLOCK), 0, NULL, args, 2)) != KC_OK)
    return fail(ctx, name, s);
  int32_t *got = malloc(blocks * sizeof *got);
  if (!got) return 1;
  if ((s = kc_array_to_host(dsums, got, blocks * sizeof *got)) != KC_OK)
    return fail(ctx, "copy to host", s);
  int64_t bad = 0, total = 0;
  for (int64_t b = 0; b < blocks; b++) {
    total += got[b];
    if (got[b] != want[b] && bad++ < 5)
      printf("%s: block %lld sums to %d, expected %d\n", name, (long long)b, got[b], want[b]);
  }
  printf("%s: %s on %s: %lld of %lld block sums wrong; total %lld\n", name,
         bad ? "FAIL" : "OK", kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu",
         (long long)bad, (long long)blocks, (long long)total);
  free(got);
  return bad != 0;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/block_sum.k";
  const int64_t n = 100003;
  const int64_t blocks = (n + BLOCK - 1) / BLOCK;
  int32_t *x = malloc(n * sizeof *x), *want = calloc(blocks, sizeof *want);
  if (!x || !want) return 1;
  for (int64_t i = 0; i < n; i++) {
    x[i] = (int32_t)((i * 7919) % 2001) - 1000;   /* in [-1000, 1000] */
    want[i / BLOCK] += x[i];                       /* the C reference */
  }

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("block_sum: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    free(x), free(want);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  kc_array *dx = NULL, *dsums = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_array_from_host(ctx, KC_INT32, 1, &n, x, (size_t)n * sizeof *x, &dx)) != KC_OK ||
      (s = kc_array_new(ctx, KC_INT32, 1, &blocks, &dsums)) != KC_OK)
    return fail(ctx, "array", s);

  int bad = run_one(ctx, mod, "block_sum_shared", dx, dsums, want, blocks);
  bad |= run_one(ctx, mod, "block_sum_warp", dx, dsums, want, blocks);

  kc_array_free(dsums);
  kc_array_free(dx);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(x), free(want);
  return bad ? 1 : 0;
}

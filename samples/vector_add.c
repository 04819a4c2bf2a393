/*
 * vector_add.c — the smallest complete kcc host program: compile vector_add.k at run
 * time, copy two vectors to the device (a CUDA GPU when present, else the CPU back
 * end), add them, copy the result back and check it against a plain C loop.
 *
 *   usage: vector_add [path/to/vector_add.k]     (exit 0 when the result is right)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "vector_add: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/vector_add.k";
  const int64_t n = 1 << 20;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *out = malloc(n * sizeof *out);
  if (!a || !b || !out) return 1;
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(n - i) * 0.25f;
  }

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("vector_add: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);

  kc_module *mod = NULL;
  kc_kernel *add = NULL;
  kc_array *da = NULL, *db = NULL, *dout = NULL;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "vector_add", &add)) != KC_OK)
    return fail(ctx, "get kernel", s);

  /* to_device, device_array_like, launch, copy_to_host — as in Numba. */
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, a, (size_t)n * sizeof *a, &da)) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, b, (size_t)n * sizeof *b, &db)) != KC_OK ||
      (s = kc_array_like(da, &dout)) != KC_OK)
    return fail(ctx, "array", s);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dout)};
  unsigned block = 256, grid = (unsigned)((n + block - 1) / block);
  if ((s = kc_launch(add, kc_dim(grid), kc_dim(block), 0, NULL, args, 3)) != KC_OK)
    return fail(ctx, "launch", s);
  if ((s = kc_array_to_host(dout, out, n * sizeof *out)) != KC_OK)
    return fail(ctx, "copy to host", s);

  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (out[i] != a[i] + b[i]) bad++;
  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  if (bad)
    printf("vector_add: FAIL on %s: %lld of %lld elements wrong\n", dev, (long long)bad,
           (long long)n);
  else
    printf("vector_add: OK on %s: %lld elements match the C reference\n", dev,
           (long long)n);

  kc_array_free(dout);
  kc_array_free(db);
  kc_array_free(da);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(a), free(b), free(out);
  return bad ? 1 : 0;
}

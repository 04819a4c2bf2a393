/*
 * vector_add_aot.c — vector_add.k compiled ahead of time: the build runs
 * `kcc compile --emit=header vector_add.k -o vector_add_kc.h`, and this program uses
 * the header's vector_add_load and typed vector_add_vector_add_launch instead of
 * compiling anything itself. On a CUDA device the load takes the embedded cubin when it
 * was built for the device's architecture, else the PTX; on the CPU device it compiles
 * the embedded source, which needs the compiler: linked with libkc (pkg-config kc) it
 * does, linked with libkcrt (pkg-config kcrt: the runtime alone, no LLVM) the load
 * fails with KC_ERR_UNSUPPORTED and a message saying that it needs a GPU or libkc, and
 * the program exits 77 (as with KC_DEVICE=cuda and no GPU: it cannot run here; a
 * skipped test). The build makes both (samples/meson.build). Checks the sum against a
 * C loop.
 *
 *   usage: vector_add_aot     (exit 0 when the result is right, 77 when it cannot run)
 */
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"
#include "vector_add_kc.h"

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "vector_add_aot: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

int main(void) {
  const int64_t n = 100003;
  float *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b), *out = malloc(n * sizeof *out);
  if (!a || !b || !out) return 1;
  for (int64_t i = 0; i < n; i++) {
    a[i] = (float)i * 0.5f;
    b[i] = (float)(n - i) * 0.25f;
  }

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("vector_add_aot: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    free(a), free(b), free(out);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  s = vector_add_load(ctx, &mod);
  if (s == KC_ERR_UNSUPPORTED && kc_context_device(ctx) != KC_DEVICE_CUDA) {
    /* linked with libkcrt, on a machine without a GPU: nothing here can run the kernel */
    fprintf(stderr, "vector_add_aot: cannot run here: %s\n", kc_last_error(ctx));
    kc_context_free(ctx);
    free(a), free(b), free(out);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "vector_add_load", s);

  kc_array *da = NULL, *db = NULL, *dout = NULL;
  if ((s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, a, (size_t)n * sizeof *a, &da)) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_FLOAT32, 1, &n, b, (size_t)n * sizeof *b, &db)) != KC_OK ||
      (s = kc_array_like(da, &dout)) != KC_OK)
    return fail(ctx, "array", s);
  const float poison = -1.0f;
  if ((s = kc_array_fill(dout, &poison)) != KC_OK) return fail(ctx, "fill", s);
  unsigned block = 256, grid = (unsigned)((n + block - 1) / block);
  s = vector_add_vector_add_launch(mod, NULL, kc_dim(grid), kc_dim(block), da, db, dout);
  if (s != KC_OK) return fail(ctx, "launch", s);
  if ((s = kc_array_to_host(dout, out, n * sizeof *out)) != KC_OK)
    return fail(ctx, "copy to host", s);

  int64_t bad = 0;
  for (int64_t i = 0; i < n; i++)
    if (out[i] != a[i] + b[i]) bad++;
  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu (source)";
  if (bad)
    printf("vector_add_aot: FAIL on %s: %lld of %lld elements wrong\n", dev,
           (long long)bad, (long long)n);
  else
    printf("vector_add_aot: OK on %s: %lld elements match the C reference\n", dev,
           (long long)n);

  kc_array_free(dout);
  kc_array_free(db);
  kc_array_free(da);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(a), free(b), free(out);
  return bad ? 1 : 0;
}

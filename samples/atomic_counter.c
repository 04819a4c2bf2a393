/*
 * atomic_counter.c — run atomic_counter.k: every thread that finds an element passing
 * the test (a positive multiple of 3) takes the next free slot of the output from one
 * global atomic counter and writes the element's index there. The slots are handed
 * out in whatever order the threads arrive, so the check is order-independent: the
 * count must equal the C count, and the indices written must be exactly the passing
 * indices, each once (marked off in a table of seen indices).
 *
 *   usage: atomic_counter [path/to/atomic_counter.k]     (exit 0 when the set is right)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "kc.h"

enum { BLOCK = 128, GRID = 96 };

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "atomic_counter: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

/* The kernel's predicate, in C. */
static int keep(int32_t x) { return x % 3 == 0 && x > 0; }

/* 0 when out[0..count) holds each index i with keep(values[i]) exactly once. */
static int check(const int32_t *values, int64_t n, const int32_t *out, int32_t count) {
  int32_t want = 0;
  for (int64_t i = 0; i < n; i++) want += keep(values[i]);
  if (count != want) {
    printf("atomic_counter: FAIL: %d elements kept, expected %d\n", count, want);
    return 1;
  }
  char *seen = calloc((size_t)n, 1);
  if (!seen) return 1;
  int bad = 0;
  for (int32_t k = 0; k < count && !bad; k++) {
    int32_t i = out[k];
    if (i < 0 || i >= n || !keep(values[i]) || seen[i]) {
      printf("atomic_counter: FAIL: slot %d holds index %d (%s)\n", k, i,
             i < 0 || i >= n ? "out of range" : seen[i] ? "a duplicate" : "fails the test");
      bad = 1;
    } else {
      seen[i] = 1;
    }
  }
  free(seen);
  return bad;   /* count == want and no duplicates: every passing index is there */
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/atomic_counter.k";
  const int64_t n = 500001;   /* odd, and more than the grid's threads */
  int32_t *values = malloc(n * sizeof *values), *out = malloc(n * sizeof *out);
  if (!values || !out) return 1;
  uint32_t x = 7;
  for (int64_t i = 0; i < n; i++) {
    x = x * 1664525u + 1013904223u;
    values[i] = (int32_t)(x >> 16) - 32768;   /* in [-32768, 32767] */
  }

  kc_context *ctx = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("atomic_counter: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    free(values), free(out);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  kc_module *mod = NULL;
  kc_kernel *compact = NULL;
  kc_array *dvalues = NULL, *dout = NULL, *dcount = NULL;
  const int64_t one = 1;
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "compact", &compact)) != KC_OK)
    return fail(ctx, "get kernel", s);
  if ((s = kc_array_from_host(ctx, KC_INT32, 1, &n, values, (size_t)n * sizeof *values, &dvalues)) != KC_OK ||
      (s = kc_array_like(dvalues, &dout)) != KC_OK ||
      (s = kc_array_new(ctx, KC_INT32, 1, &one, &dcount)) != KC_OK ||
      (s = kc_array_zero(dcount)) != KC_OK)   /* the counter starts at 0 */
    return fail(ctx, "array", s);

  kc_arg args[] = {kc_arg_array(dvalues), kc_arg_array(dout), kc_arg_array(dcount)};
  if ((s = kc_launch(compact, kc_dim(GRID), kc_dim(BLOCK), 0, NULL, args, 3)) != KC_OK)
    return fail(ctx, "launch", s);
  int32_t count = 0;
  if ((s = kc_array_to_host(dcount, &count, sizeof count)) != KC_OK ||
      (s = kc_array_to_host(dout, out, n * sizeof *out)) != KC_OK)
    return fail(ctx, "copy to host", s);

  int bad = check(values, n, out, count);
  if (!bad)
    printf("atomic_counter: OK on %s: %d of %lld indices kept, each once\n",
           kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu", count, (long long)n);

  kc_array_free(dcount);
  kc_array_free(dout);
  kc_array_free(dvalues);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(values), free(out);
  return bad ? 1 : 0;
}

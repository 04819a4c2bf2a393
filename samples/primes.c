/*
 * primes.c — run primes.k (trial division with for-else) over 0..N-1 and check every
 * verdict against a sieve of Eratosthenes computed here.
 *
 *   usage: primes [path/to/primes.k]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kc.h"

static int fail(kc_context *ctx, const char *what, kc_status s) {
  fprintf(stderr, "primes: %s failed: %s: %s\n", what, kc_status_name(s),
          ctx ? kc_last_error(ctx) : "");
  return 1;
}

int main(int argc, char **argv) {
  const char *path = argc > 1 ? argv[1] : "samples/primes.k";
  const int64_t n = 200000;
  int32_t *numbers = malloc(n * sizeof *numbers), *is_prime = malloc(n * sizeof *is_prime);
  char *sieve = malloc((size_t)n);
  if (!numbers || !is_prime || !sieve) return 1;
  for (int64_t i = 0; i < n; i++) {
    numbers[i] = (int32_t)i;
    is_prime[i] = -1; /* poison: never a verdict */
  }
  memset(sieve, 1, (size_t)n);
  sieve[0] = sieve[1] = 0;
  for (int64_t p = 2; p * p < n; p++)
    if (sieve[p])
      for (int64_t q = p * p; q < n; q += p) sieve[q] = 0;

  kc_context *ctx = NULL;
  kc_module *mod = NULL;
  kc_kernel *k = NULL;
  kc_array *dnum = NULL, *dres = NULL;
  kc_status s = kc_context_new(NULL, &ctx);
  if (s == KC_ERR_NO_DEVICE) {   /* only when CUDA was asked for (KC_DEVICE=cuda) */
    printf("primes: no CUDA device (%s): skipped\n", ctx ? kc_last_error(ctx) : "");
    kc_context_free(ctx);
    return 77;
  }
  if (s != KC_OK) return fail(ctx, "kc_context_new", s);
  if ((s = kc_compile_file(ctx, path, NULL, &mod)) != KC_OK) {
    fputs(kc_last_diagnostics(ctx), stderr);   /* every error, with its line */
    return fail(ctx, "compile", s);
  }
  if ((s = kc_module_get_kernel(mod, "primes", &k)) != KC_OK) return fail(ctx, "kernel", s);
  if ((s = kc_array_from_host(ctx, KC_INT32, 1, &n, numbers, (size_t)n * sizeof *numbers, &dnum)) != KC_OK ||
      (s = kc_array_from_host(ctx, KC_INT32, 1, &n, is_prime, (size_t)n * sizeof *is_prime, &dres)) != KC_OK)
    return fail(ctx, "array", s);
  kc_arg args[] = {kc_arg_array(dnum), kc_arg_array(dres)};
  if ((s = kc_launch(k, kc_dim((unsigned)((n + 127) / 128)), kc_dim(128), 0, NULL, args, 2)) !=
      KC_OK)
    return fail(ctx, "launch", s);
  if ((s = kc_array_to_host(dres, is_prime, n * sizeof *is_prime)) != KC_OK)
    return fail(ctx, "copy to host", s);

  int64_t bad = 0, count = 0, first_bad = -1;
  for (int64_t i = 0; i < n; i++) {
    count += is_prime[i] == 1;
    if (is_prime[i] != sieve[i] && bad++ == 0) first_bad = i;
  }
  const char *dev = kc_context_device(ctx) == KC_DEVICE_CUDA ? "cuda" : "cpu";
  if (bad)
    printf("primes: FAIL on %s: %lld wrong verdicts, first at %lld (got %d)\n", dev,
           (long long)bad, (long long)first_bad, is_prime[first_bad]);
  else
    printf("primes: OK on %s: %lld primes below %lld, as the sieve says\n", dev,
           (long long)count, (long long)n);

  kc_array_free(dres);
  kc_array_free(dnum);
  kc_module_free(mod);
  kc_context_free(ctx);
  free(numbers), free(is_prime), free(sieve);
  return bad ? 1 : 0;
}

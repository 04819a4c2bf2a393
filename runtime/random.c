/*
 * random.c — kc_random_states: the generator states of numba.cuda.random (the
 * kernel-language module lib/numba/cuda/random.k), seeded on the host as Numba's
 * create_xoroshiro128p_states does: splitmix64 of the seed gives the first state
 * (both words equal), and each further generator starts 2**64 steps (one jump) after
 * the one before, so the n streams never overlap in practice. The result is a uint64
 * array of shape (n, 2), row i = (s0, s1) of generator i: the bytes of Numba's record
 * array of n (s0, s1) records.
 */
#include <stdlib.h>

#include "rt.h"

typedef struct xoro_state { uint64_t s0, s1; } xoro_state;

static uint64_t xoro_next(xoro_state *st) {
  uint64_t s0 = st->s0, s1 = st->s1, result = s0 + s1;
  s1 ^= s0;
  st->s0 = ((s0 << 55) | (s0 >> 9)) ^ s1 ^ (s1 << 14);
  st->s1 = (s1 << 36) | (s1 >> 28);
  return result;
}

/* Advance st by 2**64 steps (the generator's jump polynomial). */
static void xoro_jump(xoro_state *st) {
  static const uint64_t jump[2] = {0xBEAC0467EBA5FACBull, 0xD86B048B86AA9922ull};
  uint64_t s0 = 0, s1 = 0;
  for (int w = 0; w < 2; w++)
    for (int b = 0; b < 64; b++) {
      if ((jump[w] >> b) & 1) {
        s0 ^= st->s0;
        s1 ^= st->s1;
      }
      xoro_next(st);
    }
  st->s0 = s0;
  st->s1 = s1;
}

static xoro_state splitmix_seed(uint64_t seed) {
  uint64_t z = seed + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  xoro_state st = {z, z};
  return st;
}

kc_status kc_random_states(kc_context *ctx, int64_t n, uint64_t seed, kc_array **out) {
  RT_NEED(NULL, ctx, "kc_random_states");
  RT_NEED(ctx, out, "kc_random_states");
  if (n < 1)
    return rt_error(ctx, KC_ERR_INVALID, "kc_random_states: n is %lld; it must be at "
                    "least 1", (long long)n);
  if ((uint64_t)n > SIZE_MAX / (2 * sizeof(uint64_t)))
    return rt_error(ctx, KC_ERR_NOMEM, "kc_random_states: %lld states do not fit in "
                    "memory", (long long)n);
  uint64_t *host = malloc((size_t)n * 2 * sizeof *host);
  if (!host) return rt_error(ctx, KC_ERR_NOMEM, "kc_random_states: out of host memory");
  xoro_state st = splitmix_seed(seed);
  for (int64_t i = 0; i < n; i++) {
    if (i > 0) xoro_jump(&st);
    host[2 * i] = st.s0;
    host[2 * i + 1] = st.s1;
  }
  int64_t shape[2] = {n, 2};
  kc_status s = kc_array_from_host(ctx, KC_UINT64, 2, shape, host, (size_t)(shape[0] * shape[1]) * sizeof *host, out);
  free(host);
  return s;
}

/* random.c — numba.cuda.random against an independent C xoroshiro128+ written here
 * (splitmix64 seeding, the 2**64-step jump, the float conversions and Box-Muller as
 * Numba defines them): kc_random_states' states, seeding on the device, and every
 * draw function's stream.
 * tolerance: raw draws, uniforms and states exact; normals 1e-5 (float32) and 1e-6
 * (float64) absolute plus relative, since log and cos come from different libraries. */
#include "harness.h"

#define K 5

typedef struct ref_gen { uint64_t w[2]; } ref_gen;

static uint64_t rotate_left(uint64_t x, unsigned k) { return (x << k) | (x >> (64 - k)); }

static uint64_t ref_next(ref_gen *g) {
  const uint64_t a = g->w[0];
  uint64_t b = g->w[1];
  const uint64_t out = a + b;
  b ^= a;
  g->w[0] = rotate_left(a, 55) ^ b ^ (b << 14);
  g->w[1] = rotate_left(b, 36);
  return out;
}

static void ref_jump(ref_gen *g) {
  const uint64_t poly[2] = {0xbeac0467eba5facbull, 0xd86b048b86aa9922ull};
  ref_gen acc = {{0, 0}};
  for (int w = 0; w < 2; w++)
    for (int bit = 0; bit < 64; bit++) {
      if (poly[w] & ((uint64_t)1 << bit)) {
        acc.w[0] ^= g->w[0];
        acc.w[1] ^= g->w[1];
      }
      ref_next(g);
    }
  *g = acc;
}

static ref_gen ref_seed(uint64_t seed) {
  uint64_t z = seed + 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  z = z ^ (z >> 31);
  ref_gen g = {{z, z}};
  return g;
}

static double ref_unit64(uint64_t x) { return (double)(x >> 11) / 9007199254740992.0; }
static float ref_unit32(uint64_t x) { return (float)ref_unit64(x); }

static float ref_normal32(ref_gen *g) {
  float u1 = ref_unit32(ref_next(g)), u2 = ref_unit32(ref_next(g));
  return sqrtf(-2.0f * logf(u1)) * cosf((float)(2 * M_PI) * u2);
}

static double ref_normal64(ref_gen *g) {
  float u1 = ref_unit32(ref_next(g)), u2 = ref_unit32(ref_next(g));
  return sqrt(-2.0 * (double)logf(u1)) * cos(2 * M_PI * (double)u2);
}

/* The states Numba's create_xoroshiro128p_states(n, seed) makes. */
static uint64_t *ref_states(int64_t n, uint64_t seed) {
  uint64_t *s = h_alloc((size_t)n * 2, 8);
  ref_gen g = ref_seed(seed);
  for (int64_t i = 0; i < n; i++) {
    if (i) ref_jump(&g);
    s[2 * i] = g.w[0];
    s[2 * i + 1] = g.w[1];
  }
  return s;
}

static void check_host_seeding(int64_t n, uint64_t seed) {
  kc_array *st = NULL;
  h_ok(kc_random_states(H.ctx, n, seed, &st), "kc_random_states");
  if (kc_array_ndim(st) != 2 || kc_array_shape(st)[0] != n || kc_array_shape(st)[1] != 2 ||
      kc_array_dtype(st) != KC_UINT64)
    h_die("kc_random_states: not a uint64 array of shape (%lld, 2)", (long long)n);
  uint64_t *got = h_alloc((size_t)n * 2, 8), *want = ref_states(n, seed);
  h_fetch(st, got);
  h_check_u64("kc_random_states", want, got, n * 2);
  kc_array_free(st);
  free(got), free(want);
}

static void check_device_seeding(int64_t n, uint64_t seed) {
  uint64_t *got = h_alloc((size_t)n * 2, 8), *want = ref_states(n, seed);
  h_poison_u64(got, n * 2);
  int64_t shape[2] = {n, 2};
  kc_array *st = h_array(KC_UINT64, 2, shape, got);
  kc_arg args[] = {kc_arg_array(st), kc_arg_int(KC_UINT64, 0)};
  args[1].v.u = seed;
  h_launch(h_kernel("seed_on_device"), kc_dim(h_blocks(n, 32)), kc_dim(32), args, 2);
  h_fetch(st, got);
  h_check_u64("seed_on_device", want, got, n * 2);
  kc_array_free(st);
  free(got), free(want);
}

static void check_draws(int64_t n, uint64_t seed) {
  int64_t nk = n * K, shape[2] = {n, K};
  uint64_t *raw = h_alloc((size_t)nk, 8), *wraw = h_alloc((size_t)nk, 8);
  float *u32 = h_alloc((size_t)nk, 4), *wu32 = h_alloc((size_t)nk, 4);
  double *u64 = h_alloc((size_t)nk, 8), *wu64 = h_alloc((size_t)nk, 8);
  float *n32 = h_alloc((size_t)nk, 4), *wn32 = h_alloc((size_t)nk, 4);
  double *n64 = h_alloc((size_t)nk, 8), *wn64 = h_alloc((size_t)nk, 8);
  uint64_t *after = ref_states(n, seed), *got_after = h_alloc((size_t)n * 2, 8);
  for (int64_t i = 0; i < n; i++) {
    ref_gen g = {{after[2 * i], after[2 * i + 1]}};
    for (int k = 0; k < K; k++) {
      int64_t at = i * K + k;
      wraw[at] = ref_next(&g);
      wu32[at] = ref_unit32(ref_next(&g));
      wu64[at] = ref_unit64(ref_next(&g));
      wn32[at] = ref_normal32(&g);
      wn64[at] = ref_normal64(&g);
    }
    after[2 * i] = g.w[0];
    after[2 * i + 1] = g.w[1];
  }
  h_poison_u64(raw, nk), h_poison_f32(u32, nk), h_poison_f64(u64, nk);
  h_poison_f32(n32, nk), h_poison_f64(n64, nk);
  kc_array *st = NULL;
  h_ok(kc_random_states(H.ctx, n, seed, &st), "kc_random_states");
  kc_array *d[5] = {h_array(KC_UINT64, 2, shape, raw), h_array(KC_FLOAT32, 2, shape, u32),
                    h_array(KC_FLOAT64, 2, shape, u64), h_array(KC_FLOAT32, 2, shape, n32),
                    h_array(KC_FLOAT64, 2, shape, n64)};
  kc_arg args[6] = {kc_arg_array(st)};
  for (int j = 0; j < 5; j++) args[j + 1] = kc_arg_array(d[j]);
  h_launch(h_kernel("draw"), kc_dim(h_blocks(n, 64)), kc_dim(64), args, 6);
  h_fetch(d[0], raw), h_fetch(d[1], u32), h_fetch(d[2], u64), h_fetch(d[3], n32);
  h_fetch(d[4], n64), h_fetch(st, got_after);
  h_check_u64("xoroshiro128p_next", wraw, raw, nk);
  h_check_f32("xoroshiro128p_uniform_float32", wu32, u32, nk, 0, 0);
  h_check_f64("xoroshiro128p_uniform_float64", wu64, u64, nk, 0, 0);
  h_check_f32("xoroshiro128p_normal_float32", wn32, n32, nk, 1e-5, 1e-5);
  h_check_f64("xoroshiro128p_normal_float64", wn64, n64, nk, 1e-6, 1e-6);
  h_check_u64("states after drawing", after, got_after, n * 2);
  for (int j = 0; j < 5; j++) kc_array_free(d[j]);
  kc_array_free(st);
  free(raw), free(wraw), free(u32), free(wu32), free(u64), free(wu64);
  free(n32), free(wn32), free(n64), free(wn64), free(after), free(got_after);
}

int main(int argc, char **argv) {
  h_begin("random", argc, argv);
  check_host_seeding(1, 0);
  check_host_seeding(1000, 42);
  check_host_seeding(7, 0xFFFFFFFFFFFFFFFFull);
  check_device_seeding(40, 12345);
  check_draws(300, 7);
  check_draws(3, 0x8000000000000001ull);
  return h_end();
}

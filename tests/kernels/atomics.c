/* atomics.c — every cuda.atomic operation against a sequential C reference.
 * tolerance: exact (the float sums add multiples of 0.5 below 2^24, exact in any order);
 * values returned by exch and add must be permutations of what was stored. */
#include "harness.h"

#define N 1000
#define SLOTS 16

static int cmp_i64(const void *a, const void *b) {
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

/* The expected slots 0..6 of int_ops for element type T, after N threads. */
#define INT_OPS_REF(T, want)                                                   \
  do {                                                                         \
    want[2] = (T)-1;                                                           \
    for (int32_t i = 0; i < N; i++) {                                          \
      T v = (T)i, mx = (T)((i * 37) % 1001 - 500);                             \
      want[0] += v;                                                            \
      want[1] -= v;                                                            \
      want[2] &= (T)(~(1 << (i % 31)));                                        \
      want[3] |= (T)(1 << (i % 29));                                           \
      want[4] ^= (T)(i * 7);                                                   \
      if (mx > want[5]) want[5] = mx;                                          \
      if (mx < want[6]) want[6] = mx;                                          \
    }                                                                          \
  } while (0)

/* inc/dec with limit 9 from 0, n times (CUDA's wrapping rules). */
static uint64_t inc_n(uint64_t v, int n) { for (int k = 0; k < n; k++) v = v >= 9 ? 0 : v + 1; return v; }
static uint64_t dec_n(uint64_t v, int n) { for (int k = 0; k < n; k++) v = (v == 0 || v > 9) ? 9 : v - 1; return v; }

static void int_atomics(void) {
  int32_t a32[SLOTS] = {0}, w32[SLOTS] = {0}, tickets[N];
  uint32_t u32[SLOTS] = {0}, wu32[SLOTS] = {0}, olds[N];
  int64_t a64[SLOTS] = {0}, w64[SLOTS] = {0}, first[1] = {7};
  uint64_t u64[SLOTS] = {0}, wu64[SLOTS] = {0};
  a32[2] = -1, u32[2] = 0xffffffffu, a64[2] = -1, u64[2] = ~0ull;
  a32[11] = 100, u64[11] = 100;
  INT_OPS_REF(int32_t, w32);
  INT_OPS_REF(uint32_t, wu32);
  INT_OPS_REF(int64_t, w64);
  INT_OPS_REF(uint64_t, wu64);
  w32[8] = N, w32[11] = 100 + 3 * N;
  wu32[9] = (uint32_t)inc_n(0, N), wu32[10] = (uint32_t)dec_n(0, N);
  wu64[9] = inc_n(0, N), wu64[10] = dec_n(0, N), wu64[11] = 100 + 5 * N;
  kc_array *d32 = h_array1(KC_INT32, SLOTS, a32), *du32 = h_array1(KC_UINT32, SLOTS, u32);
  kc_array *d64 = h_array1(KC_INT64, SLOTS, a64), *du64 = h_array1(KC_UINT64, SLOTS, u64);
  h_poison_i32(tickets, N), h_poison_u32(olds, N);
  kc_array *dt = h_array1(KC_INT32, N, tickets), *dold = h_array1(KC_UINT32, N, olds);
  kc_array *dfirst = h_array1(KC_INT64, 1, first);
  kc_arg args[] = {kc_arg_array(d32), kc_arg_array(du32), kc_arg_array(d64),
                   kc_arg_array(du64), kc_arg_array(dt), kc_arg_array(dold),
                   kc_arg_array(dfirst)};
  h_launch(h_kernel("int_atomics"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 7);
  h_fetch(d32, a32), h_fetch(du32, u32), h_fetch(d64, a64), h_fetch(du64, u64);
  h_fetch(dt, tickets), h_fetch(dold, olds), h_fetch(dfirst, first);
  /* slot 7 of u32 is the last exchange: checked through the permutation below */
  wu32[7] = u32[7];
  h_check_i32("int32 slots", w32, a32, 12);
  h_check_u32("uint32 slots", wu32, u32, 12);
  h_check_i64("int64 slots", w64, a64, 7);
  h_check_u64("uint64 slots", wu64, u64, 12);
  int64_t want_first = 7 + 2 * N;
  h_check_i64("compare_and_swap", &want_first, first, 1);
  /* add's old values: each ticket 0..N-1 once; exch's: 0 and 1..N but the last */
  int64_t seen[N + 1], want_seen[N + 1];
  for (int i = 0; i < N; i++) seen[i] = tickets[i], want_seen[i] = i;
  qsort(seen, N, sizeof seen[0], cmp_i64);
  h_check_i64("add returns distinct old values", want_seen, seen, N);
  for (int i = 0; i < N; i++) seen[i] = olds[i];
  seen[N] = u32[7];
  for (int i = 0; i <= N; i++) want_seen[i] = i;
  qsort(seen, N + 1, sizeof seen[0], cmp_i64);
  h_check_i64("exch returns the values it replaced", want_seen, seen, N + 1);
  kc_array_free(d32), kc_array_free(du32), kc_array_free(d64), kc_array_free(du64);
  kc_array_free(dt), kc_array_free(dold), kc_array_free(dfirst);
}

static void inc_dec_rules(void) {
  uint32_t w[4] = {20, 20, 3, 0}, old[4];
  uint64_t w64[2] = {20, 0};
  uint32_t want[4] = {0, 5, 4, 5}, want_old[4] = {20, 20, 3, 0};
  uint64_t want64[2] = {0, 5};
  h_poison_u32(old, 4);
  kc_array *dw = h_array1(KC_UINT32, 4, w), *dw64 = h_array1(KC_UINT64, 2, w64);
  kc_array *dold = h_array1(KC_UINT32, 4, old);
  kc_arg args[] = {kc_arg_array(dw), kc_arg_array(dw64), kc_arg_array(dold)};
  h_launch(h_kernel("inc_dec_rules"), kc_dim(1), kc_dim(32), args, 3);
  h_fetch(dw, w), h_fetch(dw64, w64), h_fetch(dold, old);
  h_check_u32("inc/dec results", want, w, 4);
  h_check_u32("inc/dec old values", want_old, old, 4);
  h_check_u64("inc/dec uint64", want64, w64, 2);
  kc_array_free(dw), kc_array_free(dw64), kc_array_free(dold);
}

static void float_atomics(void) {
  float f32[8] = {0}, olds32[N], w32[8] = {0};
  double f64[8] = {0}, olds64[N], w64[8] = {0};
  for (int i = 0; i < N; i++) {
    double v = i * 0.5;
    w64[0] += v, w64[1] -= v;
    if (v - 100 > w64[2]) w64[2] = v - 100;
    if (v - 100 < w64[3]) w64[3] = v - 100;
  }
  for (int k = 0; k < 4; k++) w32[k] = (float)w64[k];
  h_poison_f32(olds32, N), h_poison_f64(olds64, N);
  kc_array *d32 = h_array1(KC_FLOAT32, 8, f32), *d64 = h_array1(KC_FLOAT64, 8, f64);
  kc_array *do32 = h_array1(KC_FLOAT32, N, olds32), *do64 = h_array1(KC_FLOAT64, N, olds64);
  kc_arg args[] = {kc_arg_array(d32), kc_arg_array(d64), kc_arg_array(do32), kc_arg_array(do64)};
  h_launch(h_kernel("float_atomics"), kc_dim(h_blocks(N, 64)), kc_dim(64), args, 4);
  h_fetch(d32, f32), h_fetch(d64, f64), h_fetch(do32, olds32), h_fetch(do64, olds64);
  h_check_f32("float32 add/sub/max/min", w32, f32, 4, 0, 0);
  h_check_f64("float64 add/sub/max/min", w64, f64, 4, 0, 0);
  /* exch stored i * 0.5 + 1 for each i; the old values and the final one are 0 and
     those values */
  int64_t seen[N + 1], want[N + 1];
  for (int i = 0; i < N; i++) seen[i] = (int64_t)(olds64[i] * 2), want[i + 1] = 2 + i;
  seen[N] = (int64_t)(f64[4] * 2), want[0] = 0;
  qsort(seen, N + 1, sizeof seen[0], cmp_i64);
  h_check_i64("float64 exch old values", want, seen, N + 1);
  for (int i = 0; i < N; i++) seen[i] = (int64_t)(olds32[i] * 2);
  seen[N] = (int64_t)(f32[4] * 2);
  qsort(seen, N + 1, sizeof seen[0], cmp_i64);
  h_check_i64("float32 exch old values", want, seen, N + 1);
  kc_array_free(d32), kc_array_free(d64), kc_array_free(do32), kc_array_free(do64);
}

static void tuple_index(void) {
  enum { M = 777 };
  int32_t x[M];
  int64_t counts[15] = {0}, want[15] = {0};
  float cube[24], wcube[24];
  for (int k = 0; k < 24; k++) cube[k] = wcube[k] = -1e30f;
  for (int i = 0; i < M; i++) {
    x[i] = (i * 7919) % 1009;
    want[(x[i] % 3) * 5 + x[i] % 5]++;
    float *c = &wcube[(i % 2) * 12 + (i % 3) * 4 + i % 4];
    if ((float)x[i] > *c) *c = (float)x[i];
  }
  int64_t s2[2] = {3, 5}, s3[3] = {2, 3, 4};
  kc_array *dx = h_array1(KC_INT32, M, x), *dc = h_array(KC_INT64, 2, s2, counts);
  kc_array *dq = h_array(KC_FLOAT32, 3, s3, cube);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dc), kc_arg_array(dq)};
  h_launch(h_kernel("tuple_index"), kc_dim(h_blocks(M, 128)), kc_dim(128), args, 3);
  h_fetch(dc, counts), h_fetch(dq, cube);
  h_check_i64("2-D atomic.add with a tuple index", want, counts, 15);
  h_check_f32("3-D atomic.max with a tuple index", wcube, cube, 24, 0, 0);
  kc_array_free(dx), kc_array_free(dc), kc_array_free(dq);
}

static void shared_hist(void) {
  enum { M = 5000, TPB = 256 };
  unsigned nb = h_blocks(M, TPB);
  int32_t *x = h_alloc(M, 4), bins[16] = {0}, want[16] = {0};
  uint32_t *ors = h_alloc(nb, 4), *wors = h_alloc(nb, 4);
  for (int i = 0; i < M; i++) {
    x[i] = (i * 31 + i / 7) % 97;
    want[x[i] % 16]++;
    wors[i / TPB] |= 1u << (x[i] % 32);
  }
  h_poison_u32(ors, nb);
  kc_array *dx = h_array1(KC_INT32, M, x), *db = h_array1(KC_INT32, 16, bins);
  kc_array *dor = h_array1(KC_UINT32, nb, ors);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(db), kc_arg_array(dor)};
  h_launch(h_kernel("shared_hist"), kc_dim(nb), kc_dim(TPB), args, 3);
  h_fetch(db, bins), h_fetch(dor, ors);
  h_check_i32("shared-memory histogram", want, bins, 16);
  h_check_u32("shared-memory or_", wors, ors, nb);
  kc_array_free(dx), kc_array_free(db), kc_array_free(dor);
  free(x), free(ors), free(wors);
}

int main(int argc, char **argv) {
  h_begin("atomics", argc, argv);
  int_atomics();
  inc_dec_rules();
  float_atomics();
  tuple_index();
  shared_hist();
  return h_end();
}

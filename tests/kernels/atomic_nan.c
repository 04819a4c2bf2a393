/* atomic_nan.c — the NaN rules of cuda.atomic.nanmax/nanmin and max/min against
 * sequential C folds: 4099 threads on 4 slots, a fifth of the values NaN (all of them
 * on one slot), slots starting at NaN, ±inf and numbers. exact (max and min only pick
 * values); the old values the threads get back must tell one consistent history of
 * each slot (check_history). */
#include "harness.h"

#define N 4099
#define SLOTS 4

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 11;
}

/* Value i: NaN on slot 3 and for a fifth of the others, else a multiple of 1/8 in
 * (-1000, 1000), non-zero (so -0.0 and +0.0 never meet), repeated often. */
static double value(int i, uint64_t *s) {
  uint64_t r = lcg(s);
  if (i % SLOTS == 3 || r % 5 == 0) return NAN;
  double v = (double)((int64_t)(r >> 8) % 16000 - 8000) / 8;
  return v == 0 ? 0.125 : v;
}

/* Numba's nanmax/nanmin: a NaN is a missing value. */
static double nan_fold(double acc, double x, int is_max) {
  if (isnan(x)) return acc;
  if (isnan(acc)) return x;
  return (is_max ? x > acc : x < acc) ? x : acc;
}

/* Numba's max/min: a NaN value is ignored, a NaN already there stays. */
static double plain_fold(double acc, double x, int is_max) {
  if (isnan(x) || isnan(acc)) return acc;
  return (is_max ? x > acc : x < acc) ? x : acc;
}

/* Did thread i's nanmax (nanmin) store its value, going by the old value it got back?
 * An atomic stores v exactly when v is a number beyond the old value, or the old value
 * is NaN. */
static int stored(double v, double old, int is_max) {
  if (isnan(v)) return 0;
  return isnan(old) || (is_max ? v > old : v < old);
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b; }

/* The history of a slot, told by the old values the threads got back: the threads that
 * stored, in the order of their values, must form one chain from the slot's start to
 * its final value, each getting back exactly the value the one before stored (so the
 * returned value is the one replaced, not an earlier read); every other thread must
 * get back a value on that chain. */
static void check_history(const char *what, const double *v, const double *start,
                          const double *final, const double *old, int is_max) {
  static int chain[N];
  for (int s = 0; s < SLOTS; s++) {
    int n = 0;
    for (int i = s; i < N; i += SLOTS)
      if (stored(v[i], old[i], is_max)) chain[n++] = i;
    for (int a = 1; a < n; a++)   /* insertion sort by value: the chains are short */
      for (int b = a; b > 0 && (is_max ? v[chain[b]] < v[chain[b - 1]]
                                       : v[chain[b]] > v[chain[b - 1]]); b--) {
        int t = chain[b];
        chain[b] = chain[b - 1], chain[b - 1] = t;
      }
    double prev = start[s];
    for (int k = 0; k < n; k++) {
      if (!same(old[chain[k]], prev)) {
        printf("FAIL %s: %s: slot %d: thread %d stored %g and got back %g, but %g was "
               "there before\n", H.name, what, s, chain[k], v[chain[k]], old[chain[k]], prev);
        H.failures++;
        return;
      }
      prev = v[chain[k]];
    }
    if (!same(prev, final[s])) {
      printf("FAIL %s: %s: slot %d ends at %g, the stores at %g\n", H.name, what, s,
             final[s], prev);
      H.failures++;
      return;
    }
    for (int i = s; i < N; i += SLOTS) {
      int on_chain = same(old[i], start[s]);
      for (int k = 0; k < n && !on_chain; k++) on_chain = same(old[i], v[chain[k]]);
      if (!on_chain) {
        printf("FAIL %s: %s: thread %d got back %g, which slot %d never held\n", H.name,
               what, i, old[i], s);
        H.failures++;
        return;
      }
    }
  }
}

static void nan_fold32(void) {
  static float v[N], old_hi[N], old_lo[N];
  static double v64[N], old_hi64[N], old_lo64[N];
  double start_hi[SLOTS] = {NAN, -INFINITY, 0.25, NAN}, start_lo[SLOTS] = {NAN, INFINITY, 0.25, NAN};
  double want_hi[SLOTS], want_lo[SLOTS], got_hi64[SLOTS], got_lo64[SLOTS];
  float hi[SLOTS], lo[SLOTS], whi[SLOTS], wlo[SLOTS];
  uint64_t seed = 1;
  for (int s = 0; s < SLOTS; s++) want_hi[s] = start_hi[s], want_lo[s] = start_lo[s];
  for (int i = 0; i < N; i++) {
    v[i] = (float)value(i, &seed), v64[i] = v[i];
    want_hi[i % SLOTS] = nan_fold(want_hi[i % SLOTS], v64[i], 1);
    want_lo[i % SLOTS] = nan_fold(want_lo[i % SLOTS], v64[i], 0);
  }
  for (int s = 0; s < SLOTS; s++) {
    hi[s] = (float)start_hi[s], lo[s] = (float)start_lo[s];
    whi[s] = (float)want_hi[s], wlo[s] = (float)want_lo[s];
  }
  h_poison_f32(old_hi, N), h_poison_f32(old_lo, N);
  kc_array *dv = h_array1(KC_FLOAT32, N, v), *dhi = h_array1(KC_FLOAT32, SLOTS, hi);
  kc_array *dlo = h_array1(KC_FLOAT32, SLOTS, lo), *doh = h_array1(KC_FLOAT32, N, old_hi);
  kc_array *dol = h_array1(KC_FLOAT32, N, old_lo);
  kc_arg args[] = {kc_arg_array(dv), kc_arg_array(dhi), kc_arg_array(dlo), kc_arg_array(doh),
                   kc_arg_array(dol)};
  h_launch(h_kernel("nan_fold32"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 5);
  h_fetch(dhi, hi), h_fetch(dlo, lo), h_fetch(doh, old_hi), h_fetch(dol, old_lo);
  h_check_f32("float32 nanmax", whi, hi, SLOTS, 0, 0);
  h_check_f32("float32 nanmin", wlo, lo, SLOTS, 0, 0);
  for (int i = 0; i < N; i++) old_hi64[i] = old_hi[i], old_lo64[i] = old_lo[i];
  for (int s = 0; s < SLOTS; s++) got_hi64[s] = hi[s], got_lo64[s] = lo[s];
  check_history("float32 nanmax old values", v64, start_hi, got_hi64, old_hi64, 1);
  check_history("float32 nanmin old values", v64, start_lo, got_lo64, old_lo64, 0);
  kc_array_free(dv), kc_array_free(dhi), kc_array_free(dlo), kc_array_free(doh),
      kc_array_free(dol);
}

static void nan_fold64(void) {
  static double v[N], old_hi[N], old_lo[N];
  double start_hi[SLOTS] = {-INFINITY, NAN, NAN, 1e300}, start_lo[SLOTS] = {INFINITY, NAN, NAN, -1e300};
  double want_hi[SLOTS], want_lo[SLOTS], hi[SLOTS], lo[SLOTS];
  uint64_t seed = 2;
  for (int s = 0; s < SLOTS; s++) {
    want_hi[s] = hi[s] = start_hi[s];
    want_lo[s] = lo[s] = start_lo[s];
  }
  for (int i = 0; i < N; i++) {
    v[i] = value(i, &seed);
    want_hi[i % SLOTS] = nan_fold(want_hi[i % SLOTS], v[i], 1);
    want_lo[i % SLOTS] = nan_fold(want_lo[i % SLOTS], v[i], 0);
  }
  h_poison_f64(old_hi, N), h_poison_f64(old_lo, N);
  /* slot s is element (s // 2, s % 2) of a 2x2 array: the same memory order */
  int64_t shape[2] = {2, 2};
  kc_array *dv = h_array1(KC_FLOAT64, N, v), *dhi = h_array(KC_FLOAT64, 2, shape, hi);
  kc_array *dlo = h_array(KC_FLOAT64, 2, shape, lo), *doh = h_array1(KC_FLOAT64, N, old_hi);
  kc_array *dol = h_array1(KC_FLOAT64, N, old_lo);
  kc_arg args[] = {kc_arg_array(dv), kc_arg_array(dhi), kc_arg_array(dlo), kc_arg_array(doh),
                   kc_arg_array(dol)};
  h_launch(h_kernel("nan_fold64"), kc_dim(h_blocks(N, 256)), kc_dim(256), args, 5);
  h_fetch(dhi, hi), h_fetch(dlo, lo), h_fetch(doh, old_hi), h_fetch(dol, old_lo);
  h_check_f64("float64 nanmax (2-D, tuple index)", want_hi, hi, SLOTS, 0, 0);
  h_check_f64("float64 nanmin (2-D, tuple index)", want_lo, lo, SLOTS, 0, 0);
  check_history("float64 nanmax old values", v, start_hi, hi, old_hi, 1);
  check_history("float64 nanmin old values", v, start_lo, lo, old_lo, 0);
  kc_array_free(dv), kc_array_free(dhi), kc_array_free(dlo), kc_array_free(doh),
      kc_array_free(dol);
}

static void plain_fold_case(void) {
  static double v[N];
  static float w[N];
  double hi[SLOTS] = {NAN, -INFINITY, 0.25, 5.0}, lo[SLOTS] = {NAN, INFINITY, 0.25, 5.0};
  double want_hi[SLOTS], want_lo[SLOTS];
  float hi32[SLOTS], lo32[SLOTS], whi32[SLOTS], wlo32[SLOTS];
  uint64_t seed = 3;
  for (int s = 0; s < SLOTS; s++) want_hi[s] = hi[s], want_lo[s] = lo[s];
  for (int i = 0; i < N; i++) {
    /* NaN on a fifth of every slot here, slot 3 included */
    v[i] = value(i % SLOTS == 3 ? i - 1 : i, &seed);
    w[i] = (float)v[i];
    want_hi[i % SLOTS] = plain_fold(want_hi[i % SLOTS], v[i], 1);
    want_lo[i % SLOTS] = plain_fold(want_lo[i % SLOTS], v[i], 0);
  }
  for (int s = 0; s < SLOTS; s++) {
    hi32[s] = (float)hi[s], lo32[s] = (float)lo[s];
    whi32[s] = (float)want_hi[s], wlo32[s] = (float)want_lo[s];
  }
  kc_array *dv = h_array1(KC_FLOAT64, N, v), *dw = h_array1(KC_FLOAT32, N, w);
  kc_array *dhi = h_array1(KC_FLOAT64, SLOTS, hi), *dlo = h_array1(KC_FLOAT64, SLOTS, lo);
  kc_array *dhi32 = h_array1(KC_FLOAT32, SLOTS, hi32), *dlo32 = h_array1(KC_FLOAT32, SLOTS, lo32);
  kc_arg args[] = {kc_arg_array(dv), kc_arg_array(dw), kc_arg_array(dhi), kc_arg_array(dlo),
                   kc_arg_array(dhi32), kc_arg_array(dlo32)};
  h_launch(h_kernel("plain_fold"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 6);
  h_fetch(dhi, hi), h_fetch(dlo, lo), h_fetch(dhi32, hi32), h_fetch(dlo32, lo32);
  h_check_f64("float64 max (NaN value ignored, NaN start kept)", want_hi, hi, SLOTS, 0, 0);
  h_check_f64("float64 min (NaN value ignored, NaN start kept)", want_lo, lo, SLOTS, 0, 0);
  h_check_f32("float32 max (NaN value ignored, NaN start kept)", whi32, hi32, SLOTS, 0, 0);
  h_check_f32("float32 min (NaN value ignored, NaN start kept)", wlo32, lo32, SLOTS, 0, 0);
  kc_array_free(dv), kc_array_free(dw), kc_array_free(dhi), kc_array_free(dlo),
      kc_array_free(dhi32), kc_array_free(dlo32);
}

static void shared_fold(void) {
  enum { TPB = 128 };
  unsigned nb = h_blocks(N, TPB);
  static float v[N];
  float *hi = h_alloc(nb * SLOTS, 4), *lo = h_alloc(nb * SLOTS, 4);
  float *whi = h_alloc(nb * SLOTS, 4), *wlo = h_alloc(nb * SLOTS, 4);
  uint64_t seed = 4;
  for (unsigned k = 0; k < nb * SLOTS; k++) whi[k] = wlo[k] = NAN;
  for (int i = 0; i < N; i++) {
    v[i] = (float)value(i, &seed);
    /* thread t of block b works on shared slot t % 4, which is i % 4 */
    float *h = &whi[(i / TPB) * SLOTS + i % SLOTS], *l = &wlo[(i / TPB) * SLOTS + i % SLOTS];
    *h = (float)nan_fold(*h, v[i], 1);
    *l = (float)nan_fold(*l, v[i], 0);
  }
  h_poison_f32(hi, nb * SLOTS), h_poison_f32(lo, nb * SLOTS);
  int64_t shape[2] = {nb, SLOTS};
  kc_array *dv = h_array1(KC_FLOAT32, N, v), *dhi = h_array(KC_FLOAT32, 2, shape, hi);
  kc_array *dlo = h_array(KC_FLOAT32, 2, shape, lo);
  kc_arg args[] = {kc_arg_array(dv), kc_arg_array(dhi), kc_arg_array(dlo)};
  h_launch(h_kernel("shared_fold"), kc_dim(nb), kc_dim(TPB), args, 3);
  h_fetch(dhi, hi), h_fetch(dlo, lo);
  h_check_f32("shared-memory nanmax per block", whi, hi, nb * SLOTS, 0, 0);
  h_check_f32("shared-memory nanmin per block", wlo, lo, nb * SLOTS, 0, 0);
  kc_array_free(dv), kc_array_free(dhi), kc_array_free(dlo);
  free(hi), free(lo), free(whi), free(wlo);
}

static void int_fold(void) {
  static int32_t v[N];
  static uint64_t u[N];
  int32_t hi[3] = {INT32_MIN, 0, 5}, lo[3] = {INT32_MAX, 0, 5}, whi[3], wlo[3];
  uint64_t uhi[3] = {0, 1ull << 63, 5}, ulo[3] = {~0ull, 1ull << 63, 5}, wuhi[3], wulo[3];
  uint64_t seed = 5;
  memcpy(whi, hi, sizeof hi), memcpy(wlo, lo, sizeof lo);
  memcpy(wuhi, uhi, sizeof uhi), memcpy(wulo, ulo, sizeof ulo);
  for (int i = 0; i < N; i++) {
    int s = i % 3;
    v[i] = (int32_t)(lcg(&seed) % 2000001) - 1000000;
    u[i] = lcg(&seed) << 11 ^ lcg(&seed);
    if (v[i] > whi[s]) whi[s] = v[i];
    if (v[i] < wlo[s]) wlo[s] = v[i];
    if (u[i] > wuhi[s]) wuhi[s] = u[i];
    if (u[i] < wulo[s]) wulo[s] = u[i];
  }
  kc_array *dv = h_array1(KC_INT32, N, v), *du = h_array1(KC_UINT64, N, u);
  kc_array *dhi = h_array1(KC_INT32, 3, hi), *dlo = h_array1(KC_INT32, 3, lo);
  kc_array *duhi = h_array1(KC_UINT64, 3, uhi), *dulo = h_array1(KC_UINT64, 3, ulo);
  kc_arg args[] = {kc_arg_array(dv), kc_arg_array(du), kc_arg_array(dhi), kc_arg_array(dlo),
                   kc_arg_array(duhi), kc_arg_array(dulo)};
  h_launch(h_kernel("int_fold"), kc_dim(h_blocks(N, 128)), kc_dim(128), args, 6);
  h_fetch(dhi, hi), h_fetch(dlo, lo), h_fetch(duhi, uhi), h_fetch(dulo, ulo);
  h_check_i32("int32 nanmax", whi, hi, 3);
  h_check_i32("int32 nanmin", wlo, lo, 3);
  h_check_u64("uint64 nanmax", wuhi, uhi, 3);
  h_check_u64("uint64 nanmin", wulo, ulo, 3);
  kc_array_free(dv), kc_array_free(du), kc_array_free(dhi), kc_array_free(dlo),
      kc_array_free(duhi), kc_array_free(dulo);
}

int main(int argc, char **argv) {
  h_begin("atomic_nan", argc, argv);
  nan_fold32();
  nan_fold64();
  plain_fold_case();
  shared_fold();
  int_fold();
  return h_end();
}

/* warp.c — warp intrinsics lane by lane against C (a warp is 32 consecutive threads).
 * tolerance: exact (shuffles move bits; fma of these values is exact) */
#include "harness.h"

#define TPB 64
#define NB 2
#define N (TPB * NB)

static int32_t in_warp(int i, int lane) { return (i & ~31) + lane; }

/* Python's floor division and modulo, as the kernel computes them */
static int32_t floordiv(int32_t a, int32_t b) { return a / b - (a % b != 0 && (a < 0) != (b < 0)); }
static int32_t pymod(int32_t a, int32_t b) { return a - floordiv(a, b) * b; }

static void shuffles(void) {
  int32_t x[N], oi[4 * N], wi[4 * N];
  int64_t ol[N], wl[N];
  float of[N], wf[N];
  double od[N], wd[N];
  uint32_t ou[N], wu[N];
  for (int i = 0; i < N; i++) x[i] = (i * 7919) % 2003 - 1000;
  for (int i = 0; i < N; i++) {
    int lane = i % 32;
    wi[4 * i] = x[in_warp(i, (lane + 3) % 32)];
    wi[4 * i + 1] = lane >= 5 ? x[i - 5] : x[i];
    wi[4 * i + 2] = lane + 7 < 32 ? x[i + 7] : x[i];
    wi[4 * i + 3] = x[in_warp(i, lane ^ 13)];
    int src = lane + 1 < 32 ? i + 1 : i;
    wl[i] = (int64_t)x[src] * 4294967296ll + 7;
    wf[i] = (float)x[in_warp(i, lane ^ 1)] * 0.5f;
    wd[i] = (double)x[in_warp(i, 0)] * 0.25;
    wu[i] = (uint32_t)x[lane >= 1 ? i - 1 : i] * 3u;
  }
  h_poison_i32(oi, 4 * N), h_poison_i64(ol, N), h_poison_f32(of, N), h_poison_f64(od, N);
  h_poison_u32(ou, N);
  kc_array *dx = h_array1(KC_INT32, N, x), *doi = h_array1(KC_INT32, 4 * N, oi);
  kc_array *dol = h_array1(KC_INT64, N, ol), *dof = h_array1(KC_FLOAT32, N, of);
  kc_array *dod = h_array1(KC_FLOAT64, N, od), *dou = h_array1(KC_UINT32, N, ou);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(doi), kc_arg_array(dol),
                   kc_arg_array(dof), kc_arg_array(dod), kc_arg_array(dou)};
  h_launch(h_kernel("shuffles"), kc_dim(NB), kc_dim(TPB), args, 6);
  h_fetch(doi, oi), h_fetch(dol, ol), h_fetch(dof, of), h_fetch(dod, od), h_fetch(dou, ou);
  h_check_i32("int32 shfl idx/up/down/xor", wi, oi, 4 * N);
  h_check_i64("int64 shfl_down", wl, ol, N);
  h_check_f32("float32 shfl_xor", wf, of, N, 0, 0);
  h_check_f64("float64 shfl", wd, od, N, 0, 0);
  h_check_u32("uint32 shfl_up", wu, ou, N);
  kc_array_free(dx), kc_array_free(doi), kc_array_free(dol), kc_array_free(dof);
  kc_array_free(dod), kc_array_free(dou);
}

static void votes(void) {
  enum { T = 112, M = T };   /* 3.5 warps: the last has 16 lanes */
  int32_t x[M], flags[3 * M], wflags[3 * M];
  uint32_t masks[5 * M], wmasks[5 * M];
  for (int i = 0; i < M; i++) {
    int w = i / 32, lane = i % 32;
    /* warp 0: all positive; 1: mixed; 2: none; 3: mixed, one value // 1000 */
    x[i] = w == 0 ? 1000 + lane : w == 1 ? (lane % 3 == 0 ? lane * 10 : -lane) :
           w == 2 ? -5 - lane : 3000 + (lane % 5 == 0 ? 1 : -200 + lane);
  }
  for (int i = 0; i < M; i++) {
    int base = i & ~31, n = M - base < 32 ? M - base : 32, lane = i % 32;
    uint32_t ballot = 0, any4 = 0, all_same = 1;
    for (int l = 0; l < n; l++) {
      if (x[base + l] > 0) ballot |= 1u << l;
      if (pymod(x[base + l], 4) == pymod(x[i], 4)) any4 |= 1u << l;
      if (floordiv(x[base + l], 1000) != floordiv(x[base], 1000)) all_same = 0;
    }
    uint32_t members = n == 32 ? 0xffffffffu : (1u << n) - 1;
    wflags[3 * i] = ballot == members;
    wflags[3 * i + 1] = ballot != 0;
    wflags[3 * i + 2] = ballot == 0 || ballot == members;
    wmasks[5 * i] = ballot;
    wmasks[5 * i + 1] = any4;
    wmasks[5 * i + 2] = all_same ? members : 12345u;
    wmasks[5 * i + 3] = members;
    wmasks[5 * i + 4] = (1u << lane) - 1;
  }
  h_poison_i32(flags, 3 * M), h_poison_u32(masks, 5 * M);
  kc_array *dx = h_array1(KC_INT32, M, x), *df = h_array1(KC_INT32, 3 * M, flags);
  kc_array *dm = h_array1(KC_UINT32, 5 * M, masks);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(df), kc_arg_array(dm)};
  h_launch(h_kernel("votes"), kc_dim(1), kc_dim(T), args, 3);
  h_fetch(df, flags), h_fetch(dm, masks);
  h_check_i32("all/any/eq_sync", wflags, flags, 3 * M);
  h_check_u32("ballot/match/activemask/lanemask_lt", wmasks, masks, 5 * M);
  kc_array_free(dx), kc_array_free(df), kc_array_free(dm);
}

static uint32_t brev32(uint32_t v) {
  uint32_t r = 0;
  for (int k = 0; k < 32; k++) r |= ((v >> k) & 1u) << (31 - k);
  return r;
}

static void bit_ops(void) {
  enum { M = 100 };
  int32_t x[M], outi[M], wi[M];
  int64_t x64[M];
  uint32_t out[8 * M], w[8 * M];
  float outf[M], wf[M];
  double outd[M], wd[M];
  for (int i = 0; i < M; i++) {
    x[i] = i == 0 ? 0 : i == 1 ? -1 : (int32_t)((uint32_t)i * 2654435761u) >> (i % 17);
    x64[i] = i == 2 ? 0 : (int64_t)((uint64_t)(i + 1) * 0x9E3779B97F4A7C15ull) >> (i % 40);
  }
  for (int i = 0; i < M; i++) {
    uint32_t u = (uint32_t)x[i];
    uint64_t u64 = (uint64_t)x64[i];
    w[8 * i] = (uint32_t)__builtin_popcount(u);
    w[8 * i + 1] = (uint32_t)__builtin_popcountll(u64);
    w[8 * i + 2] = brev32(u);
    w[8 * i + 3] = brev32((uint32_t)u64);   /* the high half of the 64-bit reverse */
    w[8 * i + 4] = u ? (uint32_t)__builtin_clz(u) : 32;
    w[8 * i + 5] = u64 ? (uint32_t)__builtin_clzll(u64) : 64;
    w[8 * i + 6] = (uint32_t)__builtin_ffs((int)u);
    w[8 * i + 7] = (uint32_t)__builtin_ffsll((long long)u64);
    wi[i] = x[i] > 0 ? x[i] : (int32_t)(0u - u);
    wf[i] = fmaf((float)x[i], 0.5f, 1.25f);
    wd[i] = fma((double)x64[i], 0.125, -3.0);
  }
  h_poison_u32(out, 8 * M), h_poison_i32(outi, M), h_poison_f32(outf, M), h_poison_f64(outd, M);
  kc_array *dx = h_array1(KC_INT32, M, x), *dx64 = h_array1(KC_INT64, M, x64);
  kc_array *dout = h_array1(KC_UINT32, 8 * M, out), *doi = h_array1(KC_INT32, M, outi);
  kc_array *dof = h_array1(KC_FLOAT32, M, outf), *dod = h_array1(KC_FLOAT64, M, outd);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dx64), kc_arg_array(dout),
                   kc_arg_array(doi), kc_arg_array(dof), kc_arg_array(dod)};
  h_launch(h_kernel("bit_ops"), kc_dim(2), kc_dim(64), args, 6);
  h_fetch(dout, out), h_fetch(doi, outi), h_fetch(dof, outf), h_fetch(dod, outd);
  h_check_u32("popc/brev/clz/ffs", w, out, 8 * M);
  h_check_i32("selp", wi, outi, M);
  h_check_f32("fma float32", wf, outf, M, 0, 0);
  h_check_f64("fma float64", wd, outd, M, 0, 0);
  kc_array_free(dx), kc_array_free(dx64), kc_array_free(dout), kc_array_free(doi);
  kc_array_free(dof), kc_array_free(dod);
}

/* Kernel name, one block of m threads, writes the masks want (elements it leaves
 * poisoned in both). */
static void check_masks(const char *name, int m, const uint32_t *want, const char *what) {
  uint32_t *out = h_alloc(m, 4);
  h_poison_u32(out, m);
  kc_array *d = h_array1(KC_UINT32, m, out);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel(name), kc_dim(1), kc_dim(m), args, 1);
  h_fetch(d, out);
  h_check_u32(what, want, out, m);
  kc_array_free(d);
  free(out);
}

/* Lanes 16..31 of each warp return before the others call activemask(): the lower
 * half sees 0x0000ffff, the upper half writes nothing. */
static void half_warp_mask(void) {
  enum { M = 96 };
  uint32_t want[M];
  h_poison_u32(want, M);
  for (int i = 0; i < M; i++)
    if (i % 32 < 16) want[i] = 0x0000ffffu;
  check_masks("half_warp_mask", M, want, "activemask after half the warp returned");
}

/* Even and odd lanes call activemask() in the two branches of an if: 0x55555555 and
 * 0xaaaaaaaa, the lanes of each branch. */
static void split_mask(void) {
  enum { M = 64 };
  uint32_t want[M];
  for (int i = 0; i < M; i++) want[i] = i % 2 == 0 ? 0x55555555u : 0xaaaaaaaau;
  check_masks("split_mask", M, want, "activemask in the two branches of a divergent if");
}

int main(int argc, char **argv) {
  h_begin("warp", argc, argv);
  shuffles();
  votes();
  bit_ops();
  half_warp_mask();
  split_mask();
  return h_end();
}

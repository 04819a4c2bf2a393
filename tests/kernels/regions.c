/* regions.c — barrier kernels in region form and grid-stride loops on the CPU
 * (src/codegen/host_regions.c), checked against C computed here. Inputs are small integers or
 * halves, so every sum is exact whatever the order: all checks are exact. The same
 * checks run under KC_CPU_REGIONS=0 (tests/meson.build), where the barrier kernels run
 * as fibers and the grid-stride loops one thread at a time. */
#include "harness.h"

#define TILE 8
#define BLOCK 64

static void matmul(int64_t n, int64_t k, int64_t m) {
  float *a = h_alloc((size_t)(n * k), 4), *b = h_alloc((size_t)(k * m), 4);
  float *c = h_alloc((size_t)(n * m), 4), *want = h_alloc((size_t)(n * m), 4);
  for (int64_t i = 0; i < n * k; i++) a[i] = (float)(i % 7) - 3;
  for (int64_t i = 0; i < k * m; i++) b[i] = (float)(i % 5) - 2;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) {
      float s = 0;
      for (int64_t q = 0; q < k; q++) s += a[i * k + q] * b[q * m + j];
      want[i * m + j] = s;
    }
  h_poison_f32(c, n * m);
  int64_t sa[2] = {n, k}, sb[2] = {k, m}, sc[2] = {n, m};
  kc_array *da = h_array(KC_FLOAT32, 2, sa, a), *db = h_array(KC_FLOAT32, 2, sb, b);
  kc_array *dc = h_array(KC_FLOAT32, 2, sc, c);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(db), kc_arg_array(dc)};
  h_launch(h_kernel("tile_matmul"), kc_dim2(h_blocks(m, TILE), h_blocks(n, TILE)),
           kc_dim2(TILE, TILE), args, 3);
  h_fetch(dc, c);
  h_check_f32("tile_matmul", want, c, n * m, 0, 0);
  kc_array_free(da), kc_array_free(db), kc_array_free(dc);
  free(a), free(b), free(c), free(want);
}

static void tree_sum(int64_t n) {
  unsigned nb = h_blocks(n, BLOCK);
  int32_t *x = h_alloc((size_t)n, 4), *sums = h_alloc(nb, 4), *want = h_alloc(nb, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (int32_t)(i * 37 % 101) - 50;
  for (int64_t i = 0; i < n; i++) want[i / BLOCK] += x[i];
  h_poison_i32(sums, nb);
  kc_array *dx = h_array1(KC_INT32, n, x), *ds = h_array1(KC_INT32, nb, sums);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(ds)};
  h_launch(h_kernel("tree_sum"), kc_dim(nb), kc_dim(BLOCK), args, 2);
  h_fetch(ds, sums);
  h_check_i32("tree_sum", want, sums, nb);
  kc_array_free(dx), kc_array_free(ds);
  free(x), free(sums), free(want);
}

/* the kernel `carried`, thread by thread */
static double carried_ref(const double *x, int64_t n, int64_t i, int flip, double scale) {
  int64_t b = i / BLOCK * BLOCK, t = i - b;
  double buf[BLOCK];
  for (int u = 0; u < BLOCK; u++) buf[u] = b + u < n ? x[b + u] : 0.0;
  double got = flip ? buf[BLOCK - 1 - t] : buf[(t + 1) % BLOCK];
  double mine = 6 * x[i];   /* mine[0] + mine[1] + mine[2] */
  double v = (flip ? got * 2.0 : got + 1.0) * (scale * (double)(t % 3 + 1)) + 2.0 * (double)t +
             (double)t + mine;
  return t > BLOCK / 2 ? -v : v;
}

static void carried(int64_t n, int flip) {
  double *x = h_alloc((size_t)n, 8), *out = h_alloc((size_t)n, 8), *want = h_alloc((size_t)n, 8);
  for (int64_t i = 0; i < n; i++) x[i] = (double)(i % 11) * 0.5;
  for (int64_t i = 0; i < n; i++) want[i] = carried_ref(x, n, i, flip, 1.5);
  h_poison_f64(out, n);
  kc_array *dx = h_array1(KC_FLOAT64, n, x), *dout = h_array1(KC_FLOAT64, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout), kc_arg_i32(flip), kc_arg_f64(1.5)};
  h_launch(h_kernel("carried"), kc_dim(h_blocks(n, BLOCK)), kc_dim(BLOCK), args, 4);
  h_fetch(dout, out);
  h_check_f64(flip ? "carried (flip)" : "carried", want, out, n, 0, 0);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want);
}

static void dyn_reverse(int64_t n, unsigned block) {
  float *x = h_alloc((size_t)n, 4), *out = h_alloc((size_t)n, 4), *want = h_alloc((size_t)n, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (float)i;
  for (int64_t i = 0; i < n; i++) {
    int64_t b = i / block * block, src = b + (block - 1 - (i - b));
    want[i] = src < n ? x[src] : -1.0f;
  }
  h_poison_f32(out, n);
  kc_array *dx = h_array1(KC_FLOAT32, n, x), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_ok(kc_launch(h_kernel("dyn_reverse"), kc_dim(h_blocks(n, block)), kc_dim(block), block * 4,
                 NULL, args, 2), "kc_launch");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(dout, out);
  h_check_f32("dyn_reverse", want, out, n, 0, 0);
  kc_array_free(dx), kc_array_free(dout);
  free(x), free(out), free(want);
}

static void mirror3(void) {
  enum { NB = 5, N = NB * 24 };
  int32_t x[N], out[N], want[N];
  for (int i = 0; i < N; i++) x[i] = i * 3 + 1;
  for (int b = 0; b < NB; b++)
    for (int z = 0; z < 2; z++)
      for (int y = 0; y < 3; y++)
        for (int xx = 0; xx < 4; xx++) {
          int lin = (z * 3 + y) * 4 + xx, src = ((1 - z) * 3 + (2 - y)) * 4 + (3 - xx);
          want[b * 24 + lin] = x[b * 24 + src] * 10 + lin;
        }
  h_poison_i32(out, N);
  kc_array *dx = h_array1(KC_INT32, N, x), *dout = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("mirror3"), kc_dim(NB), kc_dim3_(4, 3, 2), args, 2);
  h_fetch(dout, out);
  h_check_i32("mirror3", want, out, N);
  kc_array_free(dx), kc_array_free(dout);
}

/* n below, at and above the grid's 3 x 64 threads */
static void gs_axpy(int64_t n) {
  int64_t len = n > 0 ? n : 1;
  float *x = h_alloc((size_t)len, 4), *y = h_alloc((size_t)len, 4), *want = h_alloc((size_t)len, 4);
  for (int64_t i = 0; i < len; i++) x[i] = (float)(i % 7), y[i] = (float)(i % 5) * 0.25f;
  for (int64_t i = 0; i < len; i++) want[i] = i < n ? 2.0f * x[i] + y[i] : y[i];
  kc_array *dx = h_array1(KC_FLOAT32, len, x), *dy = h_array1(KC_FLOAT32, len, y);
  kc_arg args[] = {kc_arg_f32(2.0f), kc_arg_array(dx), kc_arg_array(dy), kc_arg_i64(n)};
  h_launch(h_kernel("gs_axpy"), kc_dim(3), kc_dim(BLOCK), args, 4);
  h_fetch(dy, y);
  h_check_f32("gs_axpy", want, y, len, 0, 0);
  kc_array_free(dx), kc_array_free(dy);
  free(x), free(y), free(want);
}

static void gs_backwards(int64_t n) {
  enum { THREADS = 2 * BLOCK };
  int64_t *x = h_alloc((size_t)n, 8), *out = h_alloc((size_t)n, 8), *want = h_alloc((size_t)n, 8);
  int64_t last[THREADS], want_last[THREADS];
  for (int64_t i = 0; i < n; i++) x[i] = i * 7 % 23, out[i] = -1;
  for (int64_t i = 0; i < n; i++) want[i] = x[i] % 3 == 0 ? -1 : x[i] * 2;
  for (int64_t g = 0; g < THREADS; g++) {   /* Python's loop variable after the loop */
    int64_t j = -7;
    for (int64_t v = n - 1 - g; v > -1; v -= THREADS) j = v;
    want_last[g] = j;
  }
  h_poison_i64(last, THREADS);
  kc_array *dx = h_array1(KC_INT64, n, x), *dout = h_array1(KC_INT64, n, out);
  kc_array *dl = h_array1(KC_INT64, THREADS, last);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout), kc_arg_array(dl)};
  h_launch(h_kernel("gs_backwards"), kc_dim(2), kc_dim(BLOCK), args, 3);
  h_fetch(dout, out);
  h_fetch(dl, last);
  h_check_i64("gs_backwards", want, out, n);
  h_check_i64("gs_backwards last", want_last, last, THREADS);
  kc_array_free(dx), kc_array_free(dout), kc_array_free(dl);
  free(x), free(out), free(want);
}

static void gs_block_sum(int64_t n, unsigned nb) {
  double *x = h_alloc((size_t)n, 8), *sums = h_alloc(nb, 8), *want = h_alloc(nb, 8);
  for (int64_t i = 0; i < n; i++) x[i] = (double)(i % 13);
  for (int64_t i = 0; i < n; i++) want[i / BLOCK % nb] += x[i];
  h_poison_f64(sums, nb);
  kc_array *dx = h_array1(KC_FLOAT64, n, x), *ds = h_array1(KC_FLOAT64, nb, sums);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(ds)};
  h_launch(h_kernel("gs_block_sum"), kc_dim(nb), kc_dim(BLOCK), args, 2);
  h_fetch(ds, sums);
  h_check_f64("gs_block_sum", want, sums, nb, 0, 0);
  kc_array_free(dx), kc_array_free(ds);
  free(x), free(sums), free(want);
}

int main(int argc, char **argv) {
  h_begin("regions", argc, argv);
  matmul(37, 29, 41);
  matmul(8, 8, 8);
  tree_sum(1000);
  tree_sum(BLOCK);
  carried(150, 1);
  carried(150, 0);
  dyn_reverse(300, 128);
  dyn_reverse(50, 64);
  mirror3();
  gs_axpy(100);
  gs_axpy(3 * BLOCK);
  gs_axpy(1000);
  gs_axpy(0);
  gs_backwards(500);
  gs_backwards(100);
  gs_block_sum(5000, 4);
  gs_block_sum(10, 2);
  return h_end();
}

/* shared_barrier.c — shared memory and barriers within a block, atomics across blocks.
 * tolerance: block_reverse and histogram exact; block_sum 1e-5 relative (the tree adds
 * in a different order than the C loop) */
#include "harness.h"

#define TPB 128

static void reverse(kc_kernel *k, int64_t n) {
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i * 3 % 101) - 50.0f;
  for (int64_t i = 0; i < n; i++) {
    int64_t base = i / TPB * TPB, src = base + (TPB - 1 - (i - base));
    want[i] = src < n ? a[src] : 0.0f;
  }
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, TPB)), kc_dim(TPB), args, 2);
  h_fetch(dout, out);
  h_check_f32("block_reverse", want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

static void block_sum(kc_kernel *k, int64_t n) {
  unsigned nb = h_blocks(n, TPB);
  float *a = h_alloc(n, 4), *sums = h_alloc(nb, 4), *want = h_alloc(nb, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 17) * 0.25f;
  for (unsigned b = 0; b < nb; b++) {
    double s = 0;
    for (int64_t i = (int64_t)b * TPB; i < n && i < (int64_t)(b + 1) * TPB; i++) s += a[i];
    want[b] = (float)s;
  }
  h_poison_f32(sums, nb);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *ds = h_array1(KC_FLOAT32, nb, sums);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(ds)};
  h_launch(k, kc_dim(nb), kc_dim(TPB), args, 2);
  h_fetch(ds, sums);
  h_check_f32("block_sum", want, sums, nb, 1e-5, 0);
  kc_array_free(da), kc_array_free(ds);
  free(a), free(sums), free(want);
}

static void histogram(kc_kernel *k, int64_t n, int64_t nbins) {
  int32_t *x = h_alloc(n, 4), *bins = h_alloc(nbins, 4), *want = h_alloc(nbins, 4);
  for (int64_t i = 0; i < n; i++) x[i] = (int32_t)((i * 7919) % 1000);
  for (int64_t i = 0; i < n; i++) want[x[i] % nbins]++;
  kc_array *dx = h_array1(KC_INT32, n, x), *db = h_array1(KC_INT32, nbins, bins);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(db)};
  h_launch(k, kc_dim(h_blocks(n, 256)), kc_dim(256), args, 2);
  h_fetch(db, bins);
  h_check_i32("histogram", want, bins, nbins);
  kc_array_free(dx), kc_array_free(db);
  free(x), free(bins), free(want);
}

int main(int argc, char **argv) {
  h_begin("shared_barrier", argc, argv);
  reverse(h_kernel("block_reverse"), 1000);
  reverse(h_kernel("block_reverse"), TPB);
  block_sum(h_kernel("block_sum"), 5000);
  block_sum(h_kernel("block_sum"), 7);
  histogram(h_kernel("histogram"), 100000, 16);
  return h_end();
}

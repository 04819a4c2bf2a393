/* fused_blocks.c — runs of neighbouring blocks run as one block on the CPU back end
 * (host_fuse.c; runtime/cpu/pool.c, run_fused): the kernels of fused_blocks.k on many
 * block shapes and grids, with 1-D grids that do not divide into the executor's runs,
 * against loops in C. Kernels that read threadIdx or blockIdx on their own are not
 * fused, and each thread sees its own coordinates. tolerance: exact (small integers in
 * float32). */
#include "harness.h"

static void scale(const char *name, int64_t n, unsigned block) {
  kc_kernel *k = h_kernel(name);
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 13), want[i] = 3 * a[i] + (float)i;
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, 2);
  h_fetch(dout, out);
  char what[64];
  snprintf(what, sizeof what, "%s n=%lld block %u", name, (long long)n, block);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

/* out[i] as the kernel computes it from thread (t, b) of a 1-D launch */
typedef int32_t (*thread_value)(int64_t i, unsigned block);

static int32_t coordinate_of(int64_t i, unsigned block) {
  return (int32_t)(i / block * 10000 + i % block);
}

static int32_t thread_mod_7(int64_t i, unsigned block) { return (int32_t)(i % block % 7); }

static void per_thread(const char *name, int64_t n, unsigned block, thread_value f) {
  kc_kernel *k = h_kernel(name);
  int32_t *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) want[i] = f(i, block);
  h_poison_i32(out, n);
  kc_array *d = h_array1(KC_INT32, n, out);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, 1);
  h_fetch(d, out);
  char what[64];
  snprintf(what, sizeof what, "%s n=%lld block %u", name, (long long)n, block);
  h_check_i32(what, want, out, n);
  kc_array_free(d);
  free(out), free(want);
}

/* xcol (x -> column, with threadIdx.y) or xrow (x -> row) on an n x m array */
static void grid_2d(const char *name, int64_t n, int64_t m, unsigned bx, unsigned by) {
  kc_kernel *k = h_kernel(name);
  int x_is_row = strcmp(name, "xrow") == 0;
  int64_t shape[2] = {n, m}, len = n * m;
  int32_t *out = h_alloc(len, 4), *want = h_alloc(len, 4);
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++)
      want[i * m + j] = (int32_t)(i * 1000 + j + (x_is_row ? 0 : 1000000 * (i % by)));
  h_poison_i32(out, len);
  kc_array *d = h_array(KC_INT32, 2, shape, out);
  kc_arg args[] = {kc_arg_array(d)};
  kc_dim3 grid = x_is_row ? kc_dim2(h_blocks(n, bx), h_blocks(m, by))
                          : kc_dim2(h_blocks(m, bx), h_blocks(n, by));
  h_launch(k, grid, kc_dim2(bx, by), args, 1);
  h_fetch(d, out);
  char what[80];
  snprintf(what, sizeof what, "%s %lldx%lld block %ux%u", name, (long long)n,
           (long long)m, bx, by);
  h_check_i32(what, want, out, len);
  kc_array_free(d);
  free(out), free(want);
}

static void stride(kc_kernel *k, int64_t n, unsigned blocks, unsigned block) {
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 101), want[i] = a[i] + 1;
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim(blocks), kc_dim(block), args, 2);
  h_fetch(dout, out);
  char what[64];
  snprintf(what, sizeof what, "stride_add n=%lld %u x %u", (long long)n, blocks, block);
  h_check_f32(what, want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

static void histogram(kc_kernel *k, int64_t n, unsigned block) {
  enum { NBINS = 10 };
  int32_t *data = h_alloc(n, 4), bins[NBINS] = {0}, want[NBINS] = {0};
  for (int64_t i = 0; i < n; i++) data[i] = (int32_t)((i * 7919) % 1000), want[data[i] % NBINS]++;
  kc_array *dd = h_array1(KC_INT32, n, data), *db = h_array1(KC_INT32, NBINS, bins);
  kc_arg args[] = {kc_arg_array(dd), kc_arg_array(db)};
  h_launch(k, kc_dim(h_blocks(n, block)), kc_dim(block), args, 2);
  h_fetch(db, bins);
  h_check_i32("histogram", want, bins, NBINS);
  kc_array_free(dd), kc_array_free(db);
  free(data);
}

int main(int argc, char **argv) {
  h_begin("fused_blocks", argc, argv);
  static const unsigned blocks_1d[] = {1, 3, 16, 32, 100, 256, 1024};
  static const int64_t sizes[] = {1, 17, 1000, 100003};
  for (int b = 0; b < 7; b++)
    for (int s = 0; s < 4; s++) {
      scale("scale", sizes[s], blocks_1d[b]);
      scale("scale_by_parts", sizes[s], blocks_1d[b]);
      per_thread("coordinates", sizes[s], blocks_1d[b], coordinate_of);
      per_thread("via_device", sizes[s], blocks_1d[b], thread_mod_7);
      histogram(h_kernel("histogram"), sizes[s], blocks_1d[b]);
    }
  static const unsigned shapes[][2] = {{16, 16}, {8, 8}, {16, 4}, {4, 16}, {32, 8}, {1, 32},
                                       {32, 1}, {3, 5}};
  for (int s = 0; s < 8; s++) {
    grid_2d("xcol", 67, 301, shapes[s][0], shapes[s][1]);
    grid_2d("xrow", 301, 67, shapes[s][0], shapes[s][1]);
    grid_2d("xcol", 40, 40, shapes[s][0], shapes[s][1]);
    grid_2d("xrow", 40, 40, shapes[s][0], shapes[s][1]);
  }
  static const unsigned stride_shapes[][2] = {{2, 256}, {1, 256}, {7, 32}, {1024, 256}, {5, 3}};
  for (int s = 0; s < 5; s++) {
    stride(h_kernel("stride_add"), 100003, stride_shapes[s][0], stride_shapes[s][1]);
    stride(h_kernel("stride_add"), 1000, stride_shapes[s][0], stride_shapes[s][1]);
  }
  return h_end();
}

/* thread_order.c — the order of a block's threads on the CPU back end (host_order.c):
 * kernels run y or z innermost give the same results on several block shapes, odd
 * array shapes and grids of many blocks; kernels whose threads can see the order keep
 * x fastest (checked exactly on the CPU; on CUDA the slots are only a permutation and
 * the race is not checked). tolerance: exact (sums of small integers in float32) */
#include "harness.h"

static void laplace(kc_kernel *k, int64_t n, int64_t m, unsigned bx, unsigned by) {
  int64_t shape[2] = {n, m}, len = n * m;
  float *a = h_alloc(len, 4), *out = h_alloc(len, 4), *want = h_alloc(len, 4);
  for (int64_t i = 0; i < len; i++) a[i] = (float)((i * 7) % 23) - 11, out[i] = -1;
  for (int64_t i = 0; i < n; i++)
    for (int64_t j = 0; j < m; j++) {
      const float *p = a + i * m + j;
      want[i * m + j] = i > 0 && i < n - 1 && j > 0 && j < m - 1
                            ? (p[-m] + p[m] + p[-1] + p[1]) - 4.0f * p[0] : -1;
    }
  kc_array *da = h_array(KC_FLOAT32, 2, shape, a), *dout = h_array(KC_FLOAT32, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim2(h_blocks(n, bx), h_blocks(m, by)), kc_dim2(bx, by), args, 2);
  h_fetch(dout, out);
  char what[96];
  snprintf(what, sizeof what, "laplace_xrow %lldx%lld block %ux%u", (long long)n,
           (long long)m, bx, by);
  h_check_f32(what, want, out, len, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

static void index3(kc_kernel *k, const int64_t *shape, kc_dim3 block) {
  int64_t len = shape[0] * shape[1] * shape[2];
  int32_t *out = h_alloc(len, 4), *want = h_alloc(len, 4);
  for (int64_t i = 0; i < shape[0]; i++)
    for (int64_t j = 0; j < shape[1]; j++)
      for (int64_t l = 0; l < shape[2]; l++)
        want[(i * shape[1] + j) * shape[2] + l] = (int32_t)(i * 10000 + j * 100 + l);
  h_poison_i32(out, len);
  kc_array *d = h_array(KC_INT32, 3, shape, out);
  kc_arg args[] = {kc_arg_array(d)};
  kc_dim3 grid = {h_blocks(shape[0], block.x), h_blocks(shape[1], block.y),
                  h_blocks(shape[2], block.z)};
  h_launch(k, grid, block, args, 1);
  h_fetch(d, out);
  h_check_i32("index_3d", want, out, len);
  kc_array_free(d);
  free(out), free(want);
}

static void prefix(kc_kernel *k, int64_t n, int64_t m, unsigned bx, unsigned by) {
  int64_t shape[2] = {n, m}, len = n * m;
  float *a = h_alloc(len, 4), *out = h_alloc(len, 4), *want = h_alloc(len, 4);
  for (int64_t i = 0; i < len; i++) a[i] = (float)(i % 5) - 2;
  for (int64_t i = 0; i < n; i++) {
    float s = 0;
    for (int64_t j = 0; j < m; j++) s += a[i * m + j], want[i * m + j] = s;
  }
  h_poison_f32(out, len);
  kc_array *da = h_array(KC_FLOAT32, 2, shape, a), *dout = h_array(KC_FLOAT32, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(k, kc_dim2(h_blocks(n, bx), h_blocks(m, by)), kc_dim2(bx, by), args, 2);
  h_fetch(dout, out);
  h_check_f32("prefix_rows", want, out, len, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

/* One block of bx x by threads: on the CPU thread (tx, ty) takes slot ty * bx + tx; on
 * CUDA each slot is taken once. */
static void slots(kc_kernel *k, unsigned bx, unsigned by, int cpu) {
  int64_t shape[2] = {bx, by}, len = (int64_t)bx * by, one = 1;
  int32_t counter = 0, *slot = h_alloc(len, 4), *want = h_alloc(len, 4);
  h_poison_i32(slot, len);
  kc_array *dc = h_array(KC_INT32, 1, &one, &counter), *ds = h_array(KC_INT32, 2, shape, slot);
  kc_arg args[] = {kc_arg_array(dc), kc_arg_array(ds)};
  h_launch(k, kc_dim2(1, 1), kc_dim2(bx, by), args, 2);
  h_fetch(ds, slot);
  for (int64_t i = 0; i < bx; i++)
    for (int64_t j = 0; j < by; j++) want[i * by + j] = (int32_t)(j * bx + i);
  if (!cpu) {   /* times each slot was taken, against once each */
    int32_t *times = h_alloc(len, 4);
    memset(times, 0, (size_t)len * 4);
    for (int64_t i = 0; i < len; i++)
      if (slot[i] >= 0 && slot[i] < len) times[slot[i]]++;
    for (int64_t i = 0; i < len; i++) want[i] = 1;
    memcpy(slot, times, (size_t)len * 4);
    free(times);
  }
  h_check_i32("take_slots", want, slot, len);
  kc_array_free(dc), kc_array_free(ds);
  free(slot), free(want);
}

/* One block of n x m threads run x fastest: a[i, j] = a[i + 1, j - 1] + 1 in that order. */
static void diagonal(kc_kernel *k, unsigned n, unsigned m) {
  int64_t shape[2] = {n, m}, len = (int64_t)n * m;
  int32_t *a = h_alloc(len, 4), *want = h_alloc(len, 4);
  for (int64_t i = 0; i < len; i++) a[i] = want[i] = (int32_t)(i % 3);
  for (int64_t j = 0; j < m; j++)
    for (int64_t i = 0; i < n; i++)
      if (i + 1 < n && j > 0) want[i * m + j] = want[(i + 1) * m + j - 1] + 1;
  kc_array *d = h_array(KC_INT32, 2, shape, a);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(k, kc_dim2(1, 1), kc_dim2(n, m), args, 1);
  h_fetch(d, a);
  h_check_i32("diagonal_chain", want, a, len);
  kc_array_free(d);
  free(a), free(want);
}

int main(int argc, char **argv) {
  h_begin("thread_order", argc, argv);
  kc_kernel *lap = h_kernel("laplace_xrow"), *idx = h_kernel("index_3d");
  kc_kernel *pre = h_kernel("prefix_rows"), *take = h_kernel("take_slots");
  static const unsigned shapes[][2] = {{16, 16}, {8, 8}, {16, 4}, {4, 16}, {32, 8}, {1, 32},
                                       {32, 1}, {3, 5}};
  for (int s = 0; s < 8; s++) {
    laplace(lap, 67, 45, shapes[s][0], shapes[s][1]);
    laplace(lap, 200, 129, shapes[s][0], shapes[s][1]);
    prefix(pre, 37, 29, shapes[s][0], shapes[s][1]);
  }
  static const int64_t shape3[3] = {9, 7, 35};
  index3(idx, shape3, (kc_dim3){4, 2, 16});
  index3(idx, shape3, (kc_dim3){1, 1, 64});
  index3(idx, shape3, (kc_dim3){8, 8, 1});
  int cpu = kc_context_device(H.ctx) == KC_DEVICE_CPU;
  slots(take, 8, 4, cpu);
  slots(take, 16, 16, cpu);
  if (cpu) {   /* on the GPU a race */
    diagonal(h_kernel("diagonal_chain"), 8, 4);
    diagonal(h_kernel("diagonal_chain"), 16, 16);
  }
  return h_end();
}

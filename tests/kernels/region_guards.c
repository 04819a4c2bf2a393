/* region_guards.c — steps guarded by the thread's index (region_guards.k) against the
 * same conditions evaluated in C for every thread, and the tree reduction against a
 * sum in C (small integers: exact in float32 in any order).
 * tolerance: exact. */
#include "harness.h"

static int64_t expected(int64_t tx, int64_t ty, int64_t u) {
  int64_t v = 0;
  if (tx < u) v += 1;
  if (u > tx && tx % 2 == 0) v += 10;
  if (tx <= u) v += 100;
  if (u >= ty) v += 1000;
  if (tx == u) v += 10000;
  if (ty == 0) v += 100000;
  if (tx % 3 == 0 && tx < u) v += 1000000;
  v += tx < u ? 10000000 : 20000000;
  return v;
}

static void check_guards(unsigned grid, unsigned bx, unsigned by, int64_t u) {
  int64_t n = (int64_t)grid * bx * by;
  int64_t *got = h_alloc((size_t)n, sizeof *got), *want = h_alloc((size_t)n, sizeof *want);
  for (int64_t g = 0; g < n; g++) {
    int64_t t = g % ((int64_t)bx * by);
    want[g] = expected(t % bx, t / bx, u);
  }
  kc_array *d = h_array1(KC_INT64, n, got);
  kc_arg args[] = {kc_arg_array(d), kc_arg_i64(u)};
  h_launch(h_kernel("guards"), kc_dim(grid), kc_dim2(bx, by), args, 2);
  h_fetch(d, got);
  char what[96];
  snprintf(what, sizeof what, "guards, %u blocks of %u x %u, u %lld", grid, bx, by, (long long)u);
  h_check_i64(what, want, got, n);
  kc_array_free(d);
  free(got), free(want);
}

static void check_u32(unsigned grid, unsigned bx, uint32_t u) {
  int64_t n = (int64_t)grid * bx;
  int64_t *got = h_alloc((size_t)n, sizeof *got), *want = h_alloc((size_t)n, sizeof *want);
  for (int64_t g = 0; g < n; g++) want[g] = (uint64_t)(g % bx) < u;
  kc_array *d = h_array1(KC_INT64, n, got);
  kc_arg args[] = {kc_arg_array(d), kc_arg_u32(u)};
  h_launch(h_kernel("guards_u32"), kc_dim(grid), kc_dim(bx), args, 2);
  h_fetch(d, got);
  char what[96];
  snprintf(what, sizeof what, "guards_u32, %u blocks of %u, u %u", grid, bx, u);
  h_check_i64(what, want, got, n);
  kc_array_free(d);
  free(got), free(want);
}

static void check_tree_sum(int64_t n) {
  unsigned blocks = h_blocks(n, 256);
  float *a = h_alloc((size_t)n, sizeof *a), *got = h_alloc(blocks, sizeof *got);
  float *want = h_alloc(blocks, sizeof *want);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 7);
  for (unsigned b = 0; b < blocks; b++) {
    double s = 0;
    for (int64_t i = (int64_t)b * 256; i < n && i < (int64_t)(b + 1) * 256; i++) s += a[i];
    want[b] = (float)s;
  }
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, blocks, got);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("tree_sum"), kc_dim(blocks), kc_dim(256), args, 2);
  h_fetch(dout, got);
  char what[64];
  snprintf(what, sizeof what, "tree_sum of %lld", (long long)n);
  h_check_f32(what, want, got, blocks, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(got), free(want);
}

int main(int argc, char **argv) {
  h_begin("region_guards", argc, argv);
  static const int64_t us[] = {-3, 0, 1, 5, 15, 16, 63, 64, 100, INT64_MAX, INT64_MIN};
  static const unsigned shapes[][3] = {{3, 16, 4}, {2, 64, 1}, {2, 1, 8}, {1, 32, 32}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++)
    for (size_t k = 0; k < sizeof us / sizeof *us; k++)
      check_guards(shapes[s][0], shapes[s][1], shapes[s][2], us[k]);
  static const uint32_t u32s[] = {0, 1, 31, 32, 4000000000u};
  for (size_t k = 0; k < sizeof u32s / sizeof *u32s; k++) check_u32(3, 32, u32s[k]);
  check_tree_sum(256 * 40);
  check_tree_sum(256 * 7 + 13);
  return h_end();
}

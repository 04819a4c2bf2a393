/* grid_stride_nest.c — 2-D grid-stride loops (grid_stride_nest.k), each against the
 * same loops run thread by thread in C. No two threads touch one element, so any
 * order of threads gives the same result.
 * tolerance: exact (integer sums). */
#include "harness.h"

#define ROWS 37
#define COLS 53

enum { NEST, CARRIED, SKIPPING, DOWNWARD, READ_AFTER, BAND, WHOLE_ROWS, BLOCK_ROWS,
       IN_BLOCK_IF };

/* What thread (x0, y0) of a grid xs x ys threads wide does, as the kernel. */
static void reference(int kind, int64_t *out, int64_t *aux, int64_t x0, int64_t y0, int64_t xs,
                      int64_t ys, int64_t off) {
  int64_t me = y0 * xs + x0 + 1, total = 0, li = -1, lj = -1;
  if (kind == WHOLE_ROWS && x0 != 0) return;
  for (int64_t i = y0; i < ROWS; i += ys) {
    li = i;
    switch (kind) {
    case NEST: case SKIPPING: case READ_AFTER:
      for (int64_t j = x0; j < COLS; j += xs) {
        lj = j;
        if (kind == SKIPPING && (i + j) % 3 == 0) continue;
        out[i * COLS + j] += me;
      }
      break;
    case CARRIED:
      for (int64_t j = x0 + off; j < COLS; j += xs) {
        total += i * 1000 + j;
        out[i * COLS + j] += me;
      }
      break;
    case DOWNWARD:
      for (int64_t j = COLS - 1 - x0; j > -1; j -= xs) out[i * COLS + j] += me;
      break;
    case BAND:
      for (int64_t j = x0 + i % xs; j < COLS; j += xs) out[i * COLS + j] += me;
      break;
    case WHOLE_ROWS:
      for (int64_t j = 0; j < COLS; j++) out[i * COLS + j] += me;
      break;
    }
  }
  if (kind == CARRIED) aux[y0 * xs + x0] = total;
  if (kind == READ_AFTER) aux[y0 * xs + x0] = li * 1000 + lj;
}

static void check(const char *name, int kind, kc_dim3 grid, kc_dim3 block, int64_t off) {
  int64_t xs = (int64_t)grid.x * block.x, ys = (int64_t)grid.y * block.y, threads = xs * ys;
  int64_t *got = h_alloc(ROWS * COLS, sizeof *got), *want = h_alloc(ROWS * COLS, sizeof *want);
  int64_t *aux_got = h_alloc((size_t)threads, sizeof *aux_got);
  int64_t *aux_want = h_alloc((size_t)threads, sizeof *aux_want);
  if (kind == BLOCK_ROWS || kind == IN_BLOCK_IF) {
    /* block b takes rows b, b + blocks, ... (IN_BLOCK_IF: row b if b is even); thread t
       columns t, t + threads per block, ... */
    int64_t blocks = (int64_t)grid.x * grid.y, per = (int64_t)block.x * block.y;
    for (int64_t b = 0; b < blocks; b++)
      for (int64_t t = 0; t < per; t++)
        for (int64_t i = b; i < ROWS; i += kind == BLOCK_ROWS ? blocks : ROWS)
          for (int64_t j = t; j < COLS && (kind == BLOCK_ROWS || b % 2 == 0); j += per)
            want[i * COLS + j] += b * per + t + 1;
  } else {
    for (int64_t y0 = 0; y0 < ys; y0++)
      for (int64_t x0 = 0; x0 < xs; x0++) reference(kind, want, aux_want, x0, y0, xs, ys, off);
  }
  int64_t shape[2] = {ROWS, COLS};
  kc_array *d = h_array(KC_INT64, 2, shape, got), *a = h_array1(KC_INT64, threads, aux_got);
  kc_arg args[] = {kc_arg_array(d), kc_arg_array(a), kc_arg_i64(off)};
  h_launch(h_kernel(name), grid, block, args, 3);
  h_fetch(d, got);
  h_fetch(a, aux_got);
  char what[128];
  snprintf(what, sizeof what, "%s, %u x %u blocks of %u x %u", name, grid.x, grid.y, block.x,
           block.y);
  h_check_i64(what, want, got, ROWS * COLS);
  snprintf(what, sizeof what, "%s (aux), %u x %u blocks of %u x %u", name, grid.x, grid.y,
           block.x, block.y);
  h_check_i64(what, aux_want, aux_got, threads);
  kc_array_free(d), kc_array_free(a);
  free(got), free(want), free(aux_got), free(aux_want);
}

int main(int argc, char **argv) {
  h_begin("grid_stride_nest", argc, argv);
  static const struct { kc_dim3 grid, block; } shapes[] = {
      {{2, 3, 1}, {8, 4, 1}}, {{1, 1, 1}, {16, 16, 1}}, {{3, 2, 1}, {32, 8, 1}},
      {{5, 7, 1}, {16, 16, 1}},   /* more threads than elements both ways */
  };
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    kc_dim3 gr = shapes[s].grid, bl = shapes[s].block;
    check("nest", NEST, gr, bl, 0);
    check("carried", CARRIED, gr, bl, 2);
    check("skipping", SKIPPING, gr, bl, 0);
    check("downward", DOWNWARD, gr, bl, 0);
    check("read_after", READ_AFTER, gr, bl, 0);
    check("band", BAND, gr, bl, 0);
    check("whole_rows", WHOLE_ROWS, gr, bl, 0);
    check("block_rows", BLOCK_ROWS, gr, bl, 0);
    check("in_block_if", IN_BLOCK_IF, gr, bl, 0);
  }
  return h_end();
}

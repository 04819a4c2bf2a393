/* grid_stride_while.c — grid-stride while loops (grid_stride_while.k), each against the
 * same loop run thread by thread in C, in the order of thread ids (no two threads touch
 * one element, so any order gives the same result).
 * tolerance: exact (integer sums). */
#include "harness.h"

#define N 10007

enum { BASIC, SPELLED, WITH_BARRIER, READ_AFTER, STAYS, SHRINKING, STOP_IN_ARRAY, START_MOVES };

/* What thread g of a grid of `threads` threads in blocks of bdx does, as the kernel. */
static void reference(int kind, int64_t *out, int64_t *aux, int64_t g, int64_t bdx,
                      int64_t threads, int64_t off) {
  int64_t me = g + 1, i;
  switch (kind) {
  case BASIC: for (i = g; i < N; i += threads) out[i] += me; break;
  case SPELLED: for (i = g; i < off; i += threads) out[i] += me; break;
  case WITH_BARRIER: for (i = g; i < N; i += threads) out[i] += g / bdx + 1; break;
  case READ_AFTER:
    for (i = g; i < N; i += threads) out[i] += me;
    aux[g] = i;
    break;
  case STAYS:
    for (i = g; i < N; i += threads)
      while (out[i] < off) out[i] += 1;
    break;
  case SHRINKING: {
    int64_t n = N;
    for (i = g; i < n; i += threads, n -= off) out[i] += me;
    break;
  }
  case STOP_IN_ARRAY:
    for (i = g; i < aux[g]; i += threads, aux[g] -= off) out[i] += me;
    break;
  case START_MOVES: for (i = g + off; i < N; i += threads) out[i] += me; break;
  }
}

static void check(const char *name, int kind, unsigned grid, unsigned bdx, int64_t off) {
  int64_t threads = (int64_t)grid * bdx;
  int64_t *got = h_alloc(N, sizeof *got), *want = h_alloc(N, sizeof *want);
  int64_t *aux_got = h_alloc((size_t)threads, sizeof *aux_got);
  int64_t *aux_want = h_alloc((size_t)threads, sizeof *aux_want);
  for (int64_t g = 0; g < threads; g++) aux_got[g] = aux_want[g] = N - g % 5;
  for (int64_t g = 0; g < threads; g++)
    reference(kind, want, aux_want, g, bdx, threads, off);
  kc_array *d = h_array1(KC_INT64, N, got), *a = h_array1(KC_INT64, threads, aux_got);
  kc_arg args[] = {kc_arg_array(d), kc_arg_array(a), kc_arg_i64(off)};
  h_launch(h_kernel(name), kc_dim(grid), kc_dim(bdx), args, 3);
  h_fetch(d, got);
  h_fetch(a, aux_got);
  char what[96];
  snprintf(what, sizeof what, "%s, %u blocks of %u, off %lld", name, grid, bdx, (long long)off);
  h_check_i64(what, want, got, N);
  snprintf(what, sizeof what, "%s (aux), %u blocks of %u", name, grid, bdx);
  h_check_i64(what, aux_want, aux_got, threads);
  kc_array_free(d), kc_array_free(a);
  free(got), free(want), free(aux_got), free(aux_want);
}

int main(int argc, char **argv) {
  h_begin("grid_stride_while", argc, argv);
  static const struct { unsigned grid, bdx; } shapes[] = {{7, 64}, {1, 1024}, {40, 256}, {3, 16}};
  for (size_t s = 0; s < sizeof shapes / sizeof *shapes; s++) {
    unsigned gr = shapes[s].grid, bx = shapes[s].bdx;
    check("basic", BASIC, gr, bx, 0);
    check("spelled", SPELLED, gr, bx, N - 3);
    check("with_barrier", WITH_BARRIER, gr, bx, 0);
    check("read_after", READ_AFTER, gr, bx, 0);
    check("stays", STAYS, gr, bx, 3);
    check("shrinking", SHRINKING, gr, bx, 97);
    check("stop_in_array", STOP_IN_ARRAY, gr, bx, 61);
    check("start_moves", START_MOVES, gr, bx, 5);
  }
  return h_end();
}

/* grid_stride_starts.c — grid-stride loops with starts of several forms
 * (grid_stride_starts.k), each against the same loops run thread by thread in C.
 * tolerance: exact (integer sums; every element is visited by one thread at most). */
#include "harness.h"

#define N 10007

enum { FROM_GRID, SHIFTED, SCALED, TWO_D, REVERSED, DOWNWARDS, DOWN_FROM_GRID };

/* What thread g (linear global id) of the grid adds, as the kernel's loop does. */
static void reference(int kind, int64_t *want, int64_t g, int64_t bdx, int64_t bdy,
                      int64_t grid, int64_t off) {
  int64_t threads = grid * bdx * bdy, me = g + 1;
  int64_t b = g / (bdx * bdy), t = g % (bdx * bdy), tx = t % bdx, ty = t / bdx;
  switch (kind) {
  case FROM_GRID: for (int64_t i = g; i < N; i += threads) want[i] += me; break;
  case SHIFTED:
    for (int64_t i = g - off; i < N; i += threads)
      if (i >= 0) want[i] += me;
    break;
  case SCALED: for (int64_t i = 3 * g + off; i < N; i += 3 * threads) want[i] += me; break;
  case TWO_D:
    for (int64_t i = b * 1024 + ty * 100 + tx; i < N; i += grid * 1024) want[i] += me;
    break;
  case REVERSED:
    for (int64_t i = b * bdx + (bdx - 1 - tx); i < N; i += threads) want[i] += me;
    break;
  case DOWNWARDS: for (int64_t i = N - 1 - off - g; i > -1; i -= threads) want[i] += me; break;
  case DOWN_FROM_GRID: for (int64_t i = g + off; i > -1; i -= threads) want[i] += me; break;
  }
}

static void check(const char *name, int kind, unsigned grid, unsigned bdx, unsigned bdy,
                  int64_t off) {
  int64_t *got = h_alloc(N, sizeof *got), *want = h_alloc(N, sizeof *want);
  for (int64_t g = 0; g < (int64_t)grid * bdx * bdy; g++)
    reference(kind, want, g, bdx, bdy, grid, off);
  kc_array *d = h_array1(KC_INT64, N, got);
  kc_arg args[] = {kc_arg_array(d), kc_arg_i64(off)};
  h_launch(h_kernel(name), kc_dim(grid), kc_dim2(bdx, bdy), args, 2);
  h_fetch(d, got);
  char what[96];
  snprintf(what, sizeof what, "%s, %u blocks of %u x %u, off %lld", name, grid, bdx, bdy,
           (long long)off);
  h_check_i64(what, want, got, N);
  kc_array_free(d);
  free(got), free(want);
}

/* CPU, region form: a start that wraps past INT64_MAX for some threads is refused at
 * the launch (run a thread at a time, KC_CPU_REGIONS=0, such a loop would take ages). */
static void check_near_limit(void) {
  const char *regions = getenv("KC_CPU_REGIONS");
  if (kc_context_device(H.ctx) != KC_DEVICE_CPU || (regions && strcmp(regions, "0") == 0)) return;
  int64_t zero[4] = {0};
  kc_array *d = h_array1(KC_INT64, 4, zero);
  kc_arg args[] = {kc_arg_array(d), kc_arg_i64(INT64_MAX - 10)};
  kc_status s = kc_launch(h_kernel("near_limit"), kc_dim(2), kc_dim(64), 0, NULL, args, 2);
  if (s != KC_ERR_LAUNCH || !strstr(kc_last_error(H.ctx), "close to the int64 limits")) {
    if (H.failures++ == 0)
      printf("FAIL near_limit: expected the int64-limit refusal, got %s: %s\n",
             kc_status_name(s), kc_last_error(H.ctx));
  }
  kc_synchronize(H.ctx);   /* the failed launch is reported here too */
  kc_array_free(d);
}

int main(int argc, char **argv) {
  h_begin("grid_stride_starts", argc, argv);
  check("from_grid", FROM_GRID, 7, 64, 1, 0);
  check("from_grid", FROM_GRID, 1, 1024, 1, 0);
  check("from_grid", FROM_GRID, 40, 256, 1, 0);   /* one step a thread, some none */
  check("shifted", SHIFTED, 7, 64, 1, 100);
  check("shifted", SHIFTED, 3, 64, 1, 500);       /* whole blocks start below 0 */
  check("scaled", SCALED, 5, 32, 1, 2);
  check("two_d", TWO_D, 4, 16, 8, 0);
  check("reversed_threads", REVERSED, 7, 64, 1, 0);
  check("downwards", DOWNWARDS, 7, 64, 1, 3);
  check("down_from_grid", DOWN_FROM_GRID, 7, 64, 1, N - 7 * 64);
  check_near_limit();
  return h_end();
}

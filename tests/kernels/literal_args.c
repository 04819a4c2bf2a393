/* literal_args.c — the kernels of literal_args.k against C: the shared-memory
 * histograms of Numba's atomics tests (1-D, with and without a wrapped negative index;
 * 2-D adds and subtracts), and sliding-window sums over local arrays of 2 and 5.
 * tolerance: exact (integers; the window sums add small multiples of 1/8). */
#include "harness.h"

enum { N1 = 32, NX = 4, NY = 8, NW = 50 };

static void histogram(const char *kname, const char *what) {
  uint32_t ary[N1], want[N1] = {0};
  for (int i = 0; i < N1; i++) ary[i] = (uint32_t)((i * 7 + 3) % 29);
  for (int i = 0; i < N1; i++) want[ary[i] % N1]++;
  kc_array *d = h_array1(KC_UINT32, N1, ary);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel(kname), kc_dim(1), kc_dim(N1), args, 1);
  h_fetch(d, ary);
  h_check_u32(what, want, ary, N1);
  kc_array_free(d);
}

static void grid2(const char *kname, const char *what, int delta) {
  uint32_t ary[NX * NY], want[NX * NY];
  for (int i = 0; i < NX * NY; i++) {
    ary[i] = (uint32_t)(i * 3 + 5);
    want[i] = ary[i] + (uint32_t)delta;
  }
  int64_t shape[2] = {NX, NY};
  kc_array *d = h_array(KC_UINT32, 2, shape, ary);
  kc_arg args[] = {kc_arg_array(d)};
  h_launch(h_kernel(kname), kc_dim(1), (kc_dim3){NX, NY, 1}, args, 1);
  h_fetch(d, ary);
  h_check_u32(what, want, ary, NX * NY);
  kc_array_free(d);
}

static void windows(void) {
  double a[NW], out[NW * 2], want[NW * 2];
  for (int i = 0; i < NW; i++) a[i] = (double)((i * 5) % 11) / 8.0;
  for (int i = 0; i < NW; i++) {
    double s2 = 0, s5 = 0;
    for (int k = 0; k < 2; k++) s2 += a[(i + k) % NW];
    for (int k = 0; k < 5; k++) s5 += a[(i + k) % NW];
    want[i * 2] = s2, want[i * 2 + 1] = s5;
  }
  h_poison_f64(out, NW * 2);
  int64_t shape[2] = {NW, 2};
  kc_array *da = h_array1(KC_FLOAT64, NW, a), *dout = h_array(KC_FLOAT64, 2, shape, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("windows"), kc_dim(h_blocks(NW, 32)), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("local arrays of 2 and 5 (constant arguments)", want, out, NW * 2, 0, 0);
  kc_array_free(da), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("literal_args", argc, argv);
  histogram("atomic_add", "1-D shared histogram (shape, dtype, atomic as arguments)");
  histogram("atomic_add_wrap", "1-D histogram, negative index wrapped");
  grid2("atomic_add3", "2-D shared add, index (x, uint64(y))", 1);
  grid2("atomic_sub2_wrap", "2-D shared sub, negative tuple index", -1);
  windows();
  return h_end();
}

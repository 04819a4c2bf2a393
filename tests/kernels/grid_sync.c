/* grid_sync.c — cuda.cg.this_grid().sync(): a grid-wide barrier. Expected values follow
 * from the barrier's meaning (every write before it is seen by every thread after it),
 * computed here in C. On the CPU back end also: a block that never reaches the barrier
 * is a deadlock (KC_ERR_DEADLOCK naming the barrier's line:col), and a grid larger than
 * can run at once is refused with KC_ERR_LAUNCH naming the kernel and the largest grid. */
#include "harness.h"

#define TPB 64

static void neighbour_sum(unsigned blocks) {
  int64_t n = (int64_t)blocks * TPB;
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i % 13) - 4.0f;
  for (int64_t i = 0; i < n; i++) want[i] = 2.0f * a[i] + 2.0f * a[(i + TPB) % n];
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout)};
  h_launch(h_kernel("neighbour_sum"), kc_dim(blocks), kc_dim(TPB), args, 2);
  h_fetch(dout, out);
  h_check_f32("neighbour_sum", want, out, n, 0, 0);
  kc_array_free(da), kc_array_free(dout);
  free(a), free(out), free(want);
}

static void count_arrivals(unsigned blocks) {
  int64_t n = (int64_t)blocks * TPB;
  int32_t counter[2] = {0, 0}, *seen = h_alloc(n, 4), *want = h_alloc(n, 4);
  /* after the first barrier every thread has added 1; after the last, every thread
     has added 1 to counter[1]: 2 * n for each (g.sync() returns 0) */
  for (int64_t i = 0; i < n; i++) want[i] = (int32_t)(2 * n);
  h_poison_i32(seen, n);
  kc_array *dc = h_array1(KC_INT32, 2, counter), *ds = h_array1(KC_INT32, n, seen);
  kc_arg args[] = {kc_arg_array(dc), kc_arg_array(ds)};
  h_launch(h_kernel("count_arrivals"), kc_dim(blocks), kc_dim(TPB), args, 2);
  h_fetch(ds, seen);
  h_check_i32("count_arrivals", want, seen, n);
  kc_array_free(dc), kc_array_free(ds);
  free(seen), free(want);
}

static void cpu_errors(void) {
  int32_t host[4 * TPB];
  h_poison_i32(host, 4 * TPB);
  kc_array *a = h_array1(KC_INT32, 4 * TPB, host);
  kc_arg args[] = {kc_arg_array(a)};
  kc_status s = kc_launch(h_kernel("block_skips_sync"), kc_dim(4), kc_dim(TPB), 0, NULL, args, 1);
  if (s != KC_ERR_DEADLOCK) h_die("expected KC_ERR_DEADLOCK, got %s", kc_status_name(s));
  kc_synchronize(H.ctx);   /* reports it once more, as a CUDA fault would be */
  const char *msg = kc_last_error(H.ctx);
  if (!strstr(msg, "grid barrier at 48:5") || !strstr(msg, "block (1, 0, 0)"))
    h_die("the message should name the grid barrier at 48:5 and block 1: %s", msg);
  /* too many blocks to run at once */
  int64_t n = 100000;
  float *big = h_alloc(n, 4), *out = h_alloc(n, 4);
  kc_array *db = h_array1(KC_FLOAT32, n, big), *dout = h_array1(KC_FLOAT32, n, out);
  kc_arg bargs[] = {kc_arg_array(db), kc_arg_array(dout)};
  s = kc_launch(h_kernel("neighbour_sum"), kc_dim(4096), kc_dim(TPB), 0, NULL, bargs, 2);
  if (s != KC_ERR_LAUNCH) h_die("a grid too big: expected KC_ERR_LAUNCH, got %s", kc_status_name(s));
  msg = kc_last_error(H.ctx);
  if (!strstr(msg, "'neighbour_sum'") || !strstr(msg, "at most 256 blocks of 64 threads"))
    h_die("the message should name the kernel and the largest grid: %s", msg);
  kc_array_free(a), kc_array_free(db), kc_array_free(dout);
  free(big), free(out);
}

int main(int argc, char **argv) {
  h_begin("grid_sync", argc, argv);
  if (kc_kernel_cooperative(h_kernel("neighbour_sum")) != 1 || kc_kernel_cooperative(NULL) != 0)
    h_die("kc_kernel_cooperative: neighbour_sum syncs its grid, NULL is no kernel");
  if (kc_kernel_cooperative(h_kernel("takes_group")) != 1 ||
      kc_kernel_cooperative(h_kernel("block_skips_sync")) != 1)
    h_die("kc_kernel_cooperative: a kernel that takes this_grid() is cooperative, as Numba's");
  neighbour_sum(1);
  neighbour_sum(8);
  count_arrivals(1);
  count_arrivals(16);
  if (kc_context_device(H.ctx) == KC_DEVICE_CPU) cpu_errors();
  neighbour_sum(3);   /* the context still works after the errors */
  return h_end();
}

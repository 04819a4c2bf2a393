/* sync_collectives.c — syncthreads_count/and/or per block against C.
 * tolerance: exact */
#include "harness.h"

#define TPB 64

static void votes(void) {
  enum { NB = 5, N = NB * TPB, SIZE = N - 20 };
  int32_t x[SIZE], count[N], every[N], some[N], wc[N], wa[N], wo[N];
  /* block 0: all positive; 1: none; 2: mixed; 3: one; 4: all, but the tail is out */
  for (int i = 0; i < SIZE; i++) {
    int b = i / TPB, t = i % TPB;
    x[i] = b == 0 ? 1 + t : b == 1 ? -t : b == 2 ? (t % 3 == 0 ? 5 : 0) : b == 3 ? (t == 17) : 2;
  }
  for (int b = 0; b < NB; b++) {
    int c = 0, any = 0;
    for (int t = 0; t < TPB; t++) {
      int i = b * TPB + t;
      c += i < SIZE && x[i] > 0;
      any |= i < SIZE && x[i] != 0;
    }
    for (int t = 0; t < TPB; t++) {
      wc[b * TPB + t] = c;
      wa[b * TPB + t] = c == TPB;
      wo[b * TPB + t] = any;
    }
  }
  h_poison_i32(count, N), h_poison_i32(every, N), h_poison_i32(some, N);
  kc_array *dx = h_array1(KC_INT32, SIZE, x), *dc = h_array1(KC_INT32, N, count);
  kc_array *da = h_array1(KC_INT32, N, every), *dor = h_array1(KC_INT32, N, some);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dc), kc_arg_array(da), kc_arg_array(dor)};
  h_launch(h_kernel("votes"), kc_dim(NB), kc_dim(TPB), args, 4);
  h_fetch(dc, count), h_fetch(da, every), h_fetch(dor, some);
  h_check_i32("syncthreads_count", wc, count, N);
  h_check_i32("syncthreads_and", wa, every, N);
  h_check_i32("syncthreads_or", wo, some, N);
  kc_array_free(dx), kc_array_free(dc), kc_array_free(da), kc_array_free(dor);
}

static void rounds(void) {
  enum { NB = 3, N = NB * TPB };
  int32_t x[N], out[N], want[N];
  for (int i = 0; i < N; i++) x[i] = (i * 13) % 11 - 3 + (i / TPB) * 4;
  for (int b = 0; b < NB; b++) {
    int mx = 0, thirds = 0;
    for (int t = 0; t < TPB; t++) {
      if (x[b * TPB + t] > mx) mx = x[b * TPB + t];
      thirds += t % 3 == 0;
    }
    for (int t = 0; t < TPB; t++) want[b * TPB + t] = mx + thirds * 1000;
  }
  h_poison_i32(out, N);
  kc_array *dx = h_array1(KC_INT32, N, x), *dout = h_array1(KC_INT32, N, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(dout)};
  h_launch(h_kernel("rounds"), kc_dim(NB), kc_dim(TPB), args, 2);
  h_fetch(dout, out);
  h_check_i32("a loop on syncthreads_or", want, out, N);
  kc_array_free(dx), kc_array_free(dout);
}

int main(int argc, char **argv) {
  h_begin("sync_collectives", argc, argv);
  votes();
  rounds();
  return h_end();
}

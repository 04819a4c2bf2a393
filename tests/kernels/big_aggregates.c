/* big_aggregates.c — tuples of more than 16 elements indexed at run time and a record
 * of 41 words by value (the kernels in big_aggregates.k). Expected values are computed
 * here in C from the kernels' formulas, with Python's negative indices spelled out.
 * tolerance: exact (every value is a sum of halves well inside a double's 53 bits) */
#include <stddef.h>

#include "harness.h"

enum { N = 100 };

typedef struct big { double v[40]; int64_t k; } big;

static double tuple_want(int64_t i) {
  double t[25], u[20], total = 0;
  for (int k = 0; k < 25; k++) t[k] = k + 0.5, total += t[k];
  for (int k = 0; k < 20; k++) u[k] = (double)i + k;
  int64_t j = i % 25, m = i % 20;
  double s = t[j] + t[25 - 1 - j] * 100.0 + t[3] * 10000.0;   /* t[-1 - j] */
  s += u[m] * 1000000.0 + (u[m] + u[20 - 1 - m]) * 100000000.0;
  return s + total * 10000000000.0;
}

static void check_tuples(void) {
  double out[N], want[N];
  int64_t flags[N + 1], wflags[N + 1];
  for (int64_t i = 0; i < N; i++) want[i] = tuple_want(i), wflags[i] = (i % 20) % 3 == 0;
  wflags[N] = (N + 3) % 20;
  h_poison_f64(out, N);
  h_poison_i64(flags, N + 1);
  kc_array *dout = h_array1(KC_FLOAT64, N, out), *dflags = h_array1(KC_INT64, N + 1, flags);
  kc_arg args[] = {kc_arg_array(dout), kc_arg_array(dflags)};
  h_launch(h_kernel("tuples"), kc_dim(4), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_fetch(dflags, flags);
  h_check_f64("t[j] + t[-1 - j]... over tuples of 25 and 20 (see the .k)", want, out, N, 0, 0);
  h_check_i64("b[i % 20] over a tuple of 20 bools; a literal tuple indexed", wflags, flags, N + 1);
  kc_array_free(dout), kc_array_free(dflags);
}

static void check_record(void) {
  big r;
  for (int k = 0; k < 40; k++) r.v[k] = k * 0.25 - 3;
  r.k = 7;
  double out[N], want[N];
  for (int64_t i = 0; i < N; i++) want[i] = (r.v[i % 40] + 7) * 1000.0 + i - 1.0 + r.v[1];
  h_poison_f64(out, N);
  kc_record_field f[] = {{"v", KC_FLOAT64, NULL, offsetof(big, v), 1, {40}},
                         {"k", KC_INT64, NULL, offsetof(big, k), 0, {0}}};
  kc_record *rec;
  h_ok(kc_record_new(H.ctx, f, 2, sizeof(big), 1, &rec), "kc_record_new");
  kc_array *dout = h_array1(KC_FLOAT64, N, out);
  kc_arg args[] = {kc_arg_array(dout), kc_arg_record(rec, &r)};
  h_launch(h_kernel("big_record"), kc_dim(4), kc_dim(32), args, 2);
  h_fetch(dout, out);
  h_check_f64("(r.v[i % 40] + r.k) * 1000 + i - 1 + r.v[1] (a record of 41 words)", want,
              out, N, 0, 0);
  if (r.k != 7 || r.v[0] != -3) h_die("the kernel wrote the caller's record");
  kc_array_free(dout), kc_record_free(rec);
}

int main(int argc, char **argv) {
  h_begin("big_aggregates", argc, argv);
  check_tuples();
  check_record();
  return h_end();
}

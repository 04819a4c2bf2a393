/* record_nested_assign.c — arrays assigned to nested array fields, fields read by
 * position; expected values computed here in C from the kernel's formula.
 * tolerance: exact (sums of small multiples of quarters in float32) */
#include "harness.h"

enum { N = 64 };

int main(int argc, char **argv) {
  h_begin("record_nested_assign", argc, argv);
  float a[N + 2], m[4] = {0.25f, -1.5f, 3.0f, 7.75f}, out[N], want[N];
  for (int i = 0; i < N + 2; i++) a[i] = (float)i * 0.25f - 3.0f;
  for (int i = 0; i < N; i++)   /* g + h[0] + h[2] + j[1][1] + j[0][1] + j[1][0] */
    want[i] = (float)i + a[i] + a[i + 2] + m[3] + m[1] + m[2];
  h_poison_f32(out, N);
  kc_array *da = h_array1(KC_FLOAT32, N + 2, a), *dout = h_array1(KC_FLOAT32, N, out);
  int64_t shape[2] = {2, 2};
  kc_array *dm = h_array(KC_FLOAT32, 2, shape, m);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dm), kc_arg_array(dout)};
  h_launch(h_kernel("nested_assign"), kc_dim(N / 32), kc_dim(32), args, 3);
  h_fetch(dout, out);
  h_check_f32("g + h[0] + h[2] + j[1, 1] + j[0, 1] + j[1, 0] after r.h = a[i:i+3], r['j'] = m",
              want, out, N, 0, 0);
  kc_array_free(da), kc_array_free(dm), kc_array_free(dout);
  return h_end();
}

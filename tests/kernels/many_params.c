/* many_params.c — a kernel of 200 parameters, a device function of 200 arguments, a
 * 300-element tuple and a device function of 40 defaults (many_params.k), against the
 * same sums in C. The parameters go in the kernel's order: s0..s99, v0..v22, c0..c7,
 * out, s100..s167. Integer arithmetic: exact. */
#include "harness.h"

enum { NS = 168, NV = 23, NC = 8, NS_FIRST = 100, N = 100 };
static const int64_t cshape[3] = {2, 3, 4};

static int64_t scalar(int k) { return (int64_t)k * 3 - 100; }
static int64_t vec(int j, int64_t i) { return (i * 7 + j * 13) % 101 - 50; }
static int64_t cube(int c, int64_t a, int64_t b, int64_t d) {
  return c * 24 + a * 12 + b * 4 + d - 50;
}

#define DEFAULT INT64_MIN

/* dflt(x, d1=1, ..., d39=39) = 1000 x + sum k * dk, with the arguments given in
 * given[k] (DEFAULT: dk = k). */
static int64_t dflt(int64_t x, const int64_t given[40]) {
  int64_t acc = x * 1000;
  for (int k = 1; k < 40; k++) acc += k * (given[k] == DEFAULT ? k : given[k]);
  return acc;
}

static int64_t reference(int64_t i) {
  int64_t acc = 0;
  for (int k = 0; k < NS; k++) acc += (k % 7 + 1) * scalar(k);
  for (int j = 0; j < NV; j++) acc += (j % 5 + 1) * vec(j, i);
  for (int c = 0; c < NC; c++) acc += (c + 1) * cube(c, i % 2, i % 3, i % 4);
  /* t = (i, i + 1, ..., i + 299): t[0] + t[63] + t[64] + t[65] + t[150] + t[299] */
  acc += 6 * i + 63 + 64 + 65 + 150 + 299 + 300;
  int64_t none[40], d35[40], d1_d33[40];
  for (int k = 0; k < 40; k++) none[k] = d35[k] = d1_d33[k] = DEFAULT;
  d35[35] = i;
  d1_d33[1] = 5, d1_d33[33] = 7;
  return acc + dflt(i, none) + dflt(i, d35) + dflt(i, d1_d33);
}

int main(int argc, char **argv) {
  h_begin("many_params", argc, argv);
  kc_arg args[NS + NV + NC + 1];
  kc_array *arrays[NV + NC + 1];
  int na = 0, narr = 0;
  for (int k = 0; k < NS_FIRST; k++) args[na++] = kc_arg_i64(scalar(k));
  int64_t *host = h_alloc(N, 8);
  for (int j = 0; j < NV; j++) {
    for (int64_t i = 0; i < N; i++) host[i] = vec(j, i);
    arrays[narr] = h_array1(KC_INT64, N, host);
    args[na++] = kc_arg_array(arrays[narr++]);
  }
  int64_t cube_host[24];
  for (int c = 0; c < NC; c++) {
    for (int a = 0; a < 2; a++)
      for (int b = 0; b < 3; b++)
        for (int d = 0; d < 4; d++) cube_host[a * 12 + b * 4 + d] = cube(c, a, b, d);
    arrays[narr] = h_array(KC_INT64, 3, cshape, cube_host);
    args[na++] = kc_arg_array(arrays[narr++]);
  }
  h_poison_i64(host, N);
  kc_array *out = arrays[narr++] = h_array1(KC_INT64, N, host);
  args[na++] = kc_arg_array(out);
  for (int k = NS_FIRST; k < NS; k++) args[na++] = kc_arg_i64(scalar(k));

  h_launch(h_kernel("wide"), kc_dim(h_blocks(N, 32)), kc_dim(32), args, na);
  h_fetch(out, host);
  int64_t want[N];
  for (int64_t i = 0; i < N; i++) want[i] = reference(i);
  h_check_i64("wide", want, host, N);
  for (int k = 0; k < narr; k++) kc_array_free(arrays[k]);
  free(host);
  return h_end();
}

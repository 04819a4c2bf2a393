/* memory.c — dynamic shared memory, constant arrays and local arrays against C.
 * tolerance: exact */
#include "harness.h"

static void dyn_reverse(unsigned tpb) {
  enum { NB = 3 };
  int64_t n = NB * tpb, size = -1;
  float *a = h_alloc(n, 4), *out = h_alloc(n, 4), *want = h_alloc(n, 4);
  for (int64_t i = 0; i < n; i++) a[i] = (float)(i * 3 % 101) - 50.0f;
  for (int64_t i = 0; i < n; i++) want[i] = a[i / tpb * tpb + (tpb - 1 - i % tpb)];
  h_poison_f32(out, n);
  kc_array *da = h_array1(KC_FLOAT32, n, a), *dout = h_array1(KC_FLOAT32, n, out);
  kc_array *ds = h_array1(KC_INT64, 1, &size);
  kc_arg args[] = {kc_arg_array(da), kc_arg_array(dout), kc_arg_array(ds)};
  /* the dynamic part holds one float per thread */
  h_ok(kc_launch(h_kernel("dyn_reverse"), kc_dim(NB), kc_dim(tpb), tpb * sizeof(float), NULL,
                 args, 3), "kc_launch");
  h_ok(kc_synchronize(H.ctx), "kc_synchronize");
  h_fetch(dout, out), h_fetch(ds, &size);
  h_check_f32("dynamic shared reverse", want, out, n, 0, 0);
  int64_t want_size = tpb;
  h_check_i64("dynamic shared array size", &want_size, &size, 1);
  kc_array_free(da), kc_array_free(dout), kc_array_free(ds);
  free(a), free(out), free(want);
}

static void consts(void) {
  enum { M = 300 };
  static const float coeffs[4] = {0.5f, 0.25f, 0.125f, 2.0f};
  static const int64_t table[2][3] = {{1, 2, 3}, {4, 5, 6}};
  float x[M], out[M], want[M];
  int64_t idx[M];
  for (int i = 0; i < M; i++) {
    x[i] = (float)(i % 37) - 10.0f;
    idx[i] = (i * 13) % 29;
    want[i] = x[i] * coeffs[idx[i] % 4] + (float)table[idx[i] % 2][idx[i] % 3] + 4.0f;
  }
  h_poison_f32(out, M);
  kc_array *dx = h_array1(KC_FLOAT32, M, x), *di = h_array1(KC_INT64, M, idx);
  kc_array *dout = h_array1(KC_FLOAT32, M, out);
  kc_arg args[] = {kc_arg_array(dx), kc_arg_array(di), kc_arg_array(dout)};
  h_launch(h_kernel("consts"), kc_dim(h_blocks(M, 128)), kc_dim(128), args, 3);
  h_fetch(dout, out);
  h_check_f32("const.array_like", want, out, M, 0, 0);
  kc_array_free(dx), kc_array_free(di), kc_array_free(dout);
}

static void locals(void) {
  enum { M = 200 };
  int64_t n[M];
  double out[M], want[M];
  uint8_t flags[M], wflags[M];
  for (int i = 0; i < M; i++) {
    n[i] = i * 7 - 300;
    double s = 0;
    int cnt = 0;
    for (int k = 0; k < 8; k++) {
      int64_t a = n[i] * k;
      s += (double)a * 0.5;
      int64_t m = a % 3;
      if (m < 0) m += 3;
      cnt += m == 0;
    }
    want[i] = s;
    wflags[i] = (uint8_t)(cnt + (uint8_t)(n[i] * 7));
  }
  h_poison_f64(out, M), h_poison_u8(flags, M);
  kc_array *dn = h_array1(KC_INT64, M, n), *dout = h_array1(KC_FLOAT64, M, out);
  kc_array *df = h_array1(KC_UINT8, M, flags);
  kc_arg args[] = {kc_arg_array(dn), kc_arg_array(dout), kc_arg_array(df)};
  h_launch(h_kernel("locals_"), kc_dim(h_blocks(M, 64)), kc_dim(64), args, 3);
  h_fetch(dout, out), h_fetch(df, flags);
  h_check_f64("local arrays", want, out, M, 0, 0);
  h_check_u8("local bool and uint8 arrays", wflags, flags, M);
  kc_array_free(dn), kc_array_free(dout), kc_array_free(df);
}

int main(int argc, char **argv) {
  h_begin("memory", argc, argv);
  dyn_reverse(64);
  dyn_reverse(256);
  consts();
  locals();
  return h_end();
}
